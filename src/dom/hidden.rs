//! Which elements a page's markup alone hides: those under an element with
//! the `hidden` attribute, an inline `display: none` or `visibility: hidden`,
//! or inside a `<template>` or the `<head>` (whose `<title>` repeats a
//! page's headline, and which no browser renders).
//!
//! Healing asks it because pages carry hidden copies of what they show (a
//! search box's suggestion panel repeats the page's buttons, a mobile menu
//! repeats the desktop one, a `<template>` holds the markup a script will
//! clone), and a copy is as alike as the original in every other respect.
//! The answer is the markup's, not a browser's: style sheets and scripts are
//! not read, so an element hidden by a CSS class counts as shown, and
//! `aria-hidden` (which hides from screen readers, not from the eye) does
//! not count.
//!
//! ## What it refuses
//!
//! Only the `hidden` attribute, `display` and `visibility` in a `style`
//! attribute, `<template>` and `<head>` hide: a CSS class, `aria-hidden`,
//! `opacity: 0` or an element moved off screen leaves an element shown. A
//! node that is not an element hides nothing itself. The answer reads the
//! document alone, never fails, and walks ancestors without recursion.

use super::{Document, NodeId};

/// Whether `element` itself hides its sub-tree by its markup.
pub fn hides(doc: &Document, element: NodeId) -> bool {
    if !doc.is_element(element) {
        return false;
    }
    if matches!(doc.name(element), "template" | "head") || doc.attr(element, "hidden").is_some() {
        return true;
    }
    doc.attr(element, "style").is_some_and(style_hides)
}

/// Whether the markup hides `node`: it or one of its ancestors [`hides`].
pub fn is_hidden(doc: &Document, node: NodeId) -> bool {
    std::iter::once(node)
        .chain(doc.ancestors(node))
        .any(|n| hides(doc, n))
}

/// Whether an inline style's declarations hide the element: a `display` of
/// `none` or a `visibility` of `hidden` or `collapse`, the last declaration
/// of a property winning as in CSS (`!important` is read as the value).
fn style_hides(style: &str) -> bool {
    let mut display_none = false;
    let mut invisible = false;
    for declaration in style.split(';') {
        let Some((property, value)) = declaration.split_once(':') else {
            continue;
        };
        let value = value
            .trim()
            .trim_end_matches("!important")
            .trim()
            .to_ascii_lowercase();
        match property.trim().to_ascii_lowercase().as_str() {
            "display" => display_none = value == "none",
            "visibility" => invisible = value == "hidden" || value == "collapse",
            _ => {}
        }
    }
    display_none || invisible
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(html: &str, id: &str, expected: bool) {
        let doc = Document::parse_str(html);
        let node = doc
            .all()
            .find(|&n| doc.attr(n, "id") == Some(id))
            .expect("the page has the element");
        assert_eq!(is_hidden(&doc, node), expected, "{id} in {html}");
    }

    #[test]
    fn an_element_under_display_none_is_hidden() {
        check(
            r#"<div style="color: red; display : none"><p><b id=t>x</b></p></div>"#,
            "t",
            true,
        );
        check(
            r#"<div style="display:block"><b id=t>x</b></div>"#,
            "t",
            false,
        );
    }

    #[test]
    fn the_head_and_its_title_are_hidden() {
        check(
            r#"<title id=t>A headline</title><body><h1 id=h>A headline</h1>"#,
            "t",
            true,
        );
        check(
            r#"<title id=t>A headline</title><body><h1 id=h>A headline</h1>"#,
            "h",
            false,
        );
    }

    #[test]
    fn the_last_declaration_of_a_property_wins() {
        check(
            r#"<div style="display:none; display:flex"><b id=t>x</b></div>"#,
            "t",
            false,
        );
        check(
            r#"<div style="display:flex;DISPLAY: NONE !important"><b id=t>x</b></div>"#,
            "t",
            true,
        );
    }

    #[test]
    fn the_hidden_attribute_visibility_and_templates_hide() {
        check(r#"<section hidden><b id=t>x</b></section>"#, "t", true);
        check(
            r#"<div style="visibility: hidden"><b id=t>x</b></div>"#,
            "t",
            true,
        );
        check(r#"<div id=t style="display:none">x</div>"#, "t", true);
    }

    #[test]
    fn aria_hidden_and_classes_do_not_count() {
        check(r#"<div aria-hidden=true><b id=t>x</b></div>"#, "t", false);
        check(
            r#"<div class="hidden d-none"><b id=t>x</b></div>"#,
            "t",
            false,
        );
        check(
            r#"<div><b id=t>x</b></div><div style="display:none"></div>"#,
            "t",
            false,
        );
    }
}
