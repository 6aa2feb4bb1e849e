//! A stored page made safe to show in the review page: its markup and
//! inline styles kept, so that a person sees the layout the heal saw, and
//! everything that could run code, load anything or send anything taken
//! out, with the adaptation's target marked for the eye.
//!
//! What goes:
//!
//! - elements that run code, embed other documents or load resources by
//!   being there (`script`, `iframe`, `object`, `embed`, `link`, `base`,
//!   `meta`, SVG animation, ...), with their content;
//! - every attribute that is not on a short list of inert ones (`class`,
//!   `id`, `title`, table spans, ARIA and `data-*`, ...): event handlers,
//!   `src`, `srcset`, `action`, `formaction`, `style` loads, and whatever a
//!   browser adds next year. A link's `href` is kept as `data-href`, so its
//!   target can be read and cannot be followed (unless it is a
//!   `javascript:`, `vbscript:` or `data:` URL, which goes);
//! - forms: `form` becomes a `div`, so nothing can be submitted;
//! - in CSS (`<style>` and `style=`): `url(`, `image-set(`, `@import`,
//!   `expression(` and escapes, so that a style loads nothing;
//! - comments.
//!
//! The result is the first layer only. The review page serves it in an
//! `<iframe sandbox>` with a Content-Security-Policy that forbids scripts
//! and every load, so a mistake here still runs and loads nothing.
//!
//! The page is read with mend's own parser rather than a general-purpose
//! sanitizer (ammonia re-parses and keeps only fragments), because the
//! targets are named by mend's canonical paths, which hold in exactly this
//! tree. The walk is iterative, so no page is too deep for it.

use std::collections::HashSet;

use crate::dom::{Document, NodeId, NodeKind, escape};
use crate::xpath::{Item, Value, XPath};

/// The `id` the first target gets: the review page scrolls the frame to it
/// with the fragment `#mend-target`.
pub const TARGET_ID: &str = "mend-target";

/// The attribute every target gets, which the injected style outlines.
pub const TARGET_ATTRIBUTE: &str = "data-mend-target";

/// The style the review page's frame shows targets with.
const TARGET_STYLE: &str = "[data-mend-target]{outline:3px solid #c0392b !important;\
outline-offset:2px;background-color:rgba(255,214,0,.35) !important;}";

/// Elements dropped with their content.
const DROPPED: &[&str] = &[
    "script",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "link",
    "base",
    "meta",
    "noembed",
    "noframes",
    "portal",
    "animate",
    "animatemotion",
    "animatetransform",
    "set",
    "handler",
    "listener",
];

/// Attributes kept as they are: none of them runs, loads or sends anything.
const INERT_ATTRIBUTES: &[&str] = &[
    "abbr",
    "align",
    "alt",
    "bgcolor",
    "border",
    "cellpadding",
    "cellspacing",
    "checked",
    "class",
    "color",
    "cols",
    "colspan",
    "datetime",
    "dir",
    "disabled",
    "face",
    "for",
    "headers",
    "height",
    "hidden",
    "id",
    "label",
    "lang",
    "maxlength",
    "multiple",
    "name",
    "nowrap",
    "open",
    "placeholder",
    "readonly",
    "reversed",
    "role",
    "rows",
    "rowspan",
    "scope",
    "selected",
    "size",
    "span",
    "start",
    "summary",
    "title",
    "type",
    "valign",
    "value",
    "width",
];

/// The page `html`, made safe (see the module documentation), with each of
/// `targets` marked: [`TARGET_ATTRIBUTE`] on each, [`TARGET_ID`] on the
/// first in document order. A target that is not an element is marked on
/// its element (an attribute's owner, a text node's parent).
pub fn sanitize(doc: &Document, targets: &[NodeId]) -> String {
    let mut marked: Vec<NodeId> = targets.iter().filter_map(|&t| element_of(doc, t)).collect();
    marked.sort_unstable();
    marked.dedup();
    let first = marked.first().copied();
    let marked: HashSet<NodeId> = marked.into_iter().collect();
    let mut out = String::with_capacity(doc.len() * 16);
    out.push_str("<!DOCTYPE html>");
    // Each entry is a node to open, or (with `close`) the end tag to write.
    let mut stack: Vec<(NodeId, Option<&str>)> = Vec::new();
    // How many `style` elements are open: all text below one is CSS, even
    // inside the elements an SVG `style` may hold (its CSS is its whole text).
    let mut in_style = 0usize;
    push_children(doc, NodeId::ROOT, &mut stack);
    while let Some((n, close)) = stack.pop() {
        if let Some(name) = close {
            if name.eq_ignore_ascii_case("style") {
                in_style = in_style.saturating_sub(1);
            }
            out.push_str("</");
            out.push_str(name);
            out.push('>');
            continue;
        }
        match doc.kind(n) {
            NodeKind::Document | NodeKind::Comment => {}
            NodeKind::Text => {
                if in_style > 0 {
                    out.push_str(&scrub_css(doc.text(n)));
                } else {
                    escape(doc.text(n), false, &mut out);
                }
            }
            NodeKind::Element => {
                let name = doc.name(n);
                let lower = name.to_ascii_lowercase();
                if DROPPED.contains(&lower.as_str()) {
                    continue;
                }
                let shown = match lower.as_str() {
                    "form" => "div",
                    // Raw-text elements whose text is written escaped.
                    "xmp" | "plaintext" => "pre",
                    _ => name,
                };
                out.push('<');
                out.push_str(shown);
                write_attributes(doc, n, marked.contains(&n), first == Some(n), &mut out);
                out.push('>');
                if lower == "head" {
                    out.push_str("<meta charset=\"utf-8\"><style>");
                    out.push_str(TARGET_STYLE);
                    out.push_str("</style>");
                }
                if !is_void(&lower) {
                    if lower == "style" {
                        in_style += 1;
                    }
                    stack.push((n, Some(shown)));
                    push_children(doc, n, &mut stack);
                }
            }
        }
    }
    out
}

/// The nodes the canonical paths `paths` select in `doc` (an attribute's
/// or a text node's path names its element); a path that selects nothing
/// or does not compile names none.
pub fn targets_of(doc: &Document, paths: &[String]) -> Vec<NodeId> {
    let mut out = Vec::new();
    for path in paths {
        let Ok(xpath) = XPath::compile(path) else {
            continue;
        };
        if let Ok(Value::Nodes(items)) = xpath.evaluate(doc, NodeId::ROOT) {
            out.extend(items.into_iter().map(Item::owner));
        }
    }
    out
}

/// `css` with everything that could load a resource made inert.
pub fn scrub_css(css: &str) -> String {
    // Escapes could spell any of the words below; without them they cannot.
    let plain: String = css.chars().filter(|&c| c != '\\').collect();
    let lower = plain.to_ascii_lowercase();
    let mut out = String::with_capacity(plain.len());
    let mut i = 0;
    'scan: while i < plain.len() {
        for (word, inert) in [
            ("url(", "invalid("),
            ("image-set(", "invalid("),
            ("expression(", "invalid("),
            ("@import", "@invalid"),
            ("</", "< /"),
        ] {
            if lower[i..].starts_with(word) {
                out.push_str(inert);
                i += word.len();
                continue 'scan;
            }
        }
        let c = plain[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

fn element_of(doc: &Document, node: NodeId) -> Option<NodeId> {
    if doc.is_element(node) {
        return Some(node);
    }
    doc.parent(node).filter(|&p| doc.is_element(p))
}

fn write_attributes(doc: &Document, n: NodeId, marked: bool, first: bool, out: &mut String) {
    let is_link = doc.name(n).eq_ignore_ascii_case("a");
    for attr in doc.attrs(n) {
        let name = doc.attr_name(attr).to_ascii_lowercase();
        let value = doc.attr_value(attr);
        let kept = if name == "style" {
            Some(("style".to_owned(), scrub_css(value)))
        } else if name == "href" && is_link && !is_script_url(value) {
            Some(("data-href".to_owned(), value.to_owned()))
        } else if name == "id" && (first || value == TARGET_ID) {
            // The first target's id is the review page's; no other element
            // may take the fragment from it.
            None
        } else if INERT_ATTRIBUTES.contains(&name.as_str())
            || name.starts_with("aria-")
            || (name.starts_with("data-") && name != TARGET_ATTRIBUTE)
        {
            Some((name, value.to_owned()))
        } else {
            None
        };
        if let Some((name, value)) = kept
            && is_attribute_name(&name)
        {
            out.push(' ');
            out.push_str(&name);
            out.push_str("=\"");
            escape(&value, true, out);
            out.push('"');
        }
    }
    if marked {
        out.push(' ');
        out.push_str(TARGET_ATTRIBUTE);
    }
    if first {
        out.push_str(" id=\"");
        out.push_str(TARGET_ID);
        out.push('"');
    }
}

/// Whether a link's target is code rather than a place: shown as it is,
/// it would only invite copying it.
fn is_script_url(url: &str) -> bool {
    let url: String = url
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|scheme| url.starts_with(scheme))
}

/// Whether `name` can be written as an attribute name as it is: a data or
/// ARIA name from the page may hold characters that would end the tag.
fn is_attribute_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

fn push_children<'d>(doc: &'d Document, node: NodeId, stack: &mut Vec<(NodeId, Option<&'d str>)>) {
    let mut child = doc.last_child(node);
    while let Some(c) = child {
        stack.push((c, None));
        child = doc.prev_sibling(c);
    }
}

#[cfg(test)]
mod tests;
