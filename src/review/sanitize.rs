//! A stored page made safe to show in the review page: its markup and
//! styles kept, so that a person sees the layout the heal saw, and
//! everything that could run code, load anything or send anything taken
//! out, with the adaptation's target marked for the eye.
//!
//! Two passes, so that a mistake in one is caught by the other:
//!
//! 1. mend walks its own tree of the page, because the targets are named by
//!    mend's canonical paths, which hold in exactly this tree. It marks
//!    them, drops what runs or loads (`script`, `iframe`, `object`, `link`,
//!    `base`, `meta`, `noscript`, `template`, ...) with its content, drops
//!    SVG and MathML elements and text (keeping the HTML a browser shows
//!    inside them), keeps only inert attributes (a link's `href`
//!    becomes `data-href`, readable and not followable), turns forms into
//!    `div`s, and takes the CSS of every `style` element out into one
//!    scrubbed stylesheet (no `url(`, `image-set(`, `@import`,
//!    `expression(`, escapes or `</`).
//! 2. ammonia, a maintained html5ever-based sanitizer, reads what the walk
//!    wrote as a browser would and keeps only an allow-list of inert HTML
//!    elements and attributes, with no URL of any scheme; `style`
//!    attributes are scrubbed again as it keeps them. Markup that changes
//!    meaning when read twice (the `<svg><style>` and
//!    `<math><mtext><mglyph><style>` kinds) is therefore judged on the tree
//!    the frame will build, not on mend's.
//!
//! The page is then assembled around ammonia's output: the scrubbed
//! stylesheet and the marking style in `head`, and `html` and `body` with
//! their inert attributes. The review page serves it in an
//! `<iframe sandbox>` with a Content-Security-Policy that forbids scripts
//! and every load, a third wall. The walk is iterative, so no page is too
//! deep for it.
//!
//! ## What it refuses
//!
//! It never fails: any document gives a page. A link whose `href` is a
//! `javascript:`, `vbscript:` or `data:` URL loses it, comments go, and so
//! do attribute names that could end a tag. The page's own
//! [`TARGET_ATTRIBUTE`], its own `id` of [`TARGET_ID`] and the first
//! target's own `id` are dropped, so that no element takes the mark or the
//! fragment from mend's. [`targets_of`] passes over a path that does not
//! compile or selects nothing.

use std::collections::HashSet;

use crate::dom::{Document, Namespace, NodeId, NodeKind, escape};
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
    "noscript",
    "template",
    "title",
];

/// The HTML elements kept (sorted: it is searched by halves). None runs,
/// loads or sends anything once its attributes are the inert ones; any
/// other element is unwrapped, its content kept.
#[rustfmt::skip]
const SHOWN_ELEMENTS: &[&str] = &[
    "a", "abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big",
    "blockquote", "br", "button", "caption", "center", "cite", "code", "col", "colgroup",
    "data", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "fieldset",
    "figcaption", "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hgroup", "hr", "i", "img", "input", "ins", "kbd", "label", "legend", "li", "main",
    "mark", "menu", "meter", "nav", "nobr", "ol", "optgroup", "option", "output", "p",
    "pre", "progress", "q", "rp", "rt", "rtc", "ruby", "s", "samp", "search", "section",
    "select", "small", "span", "strike", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "textarea", "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul",
    "var", "wbr",
];

/// Elements ammonia drops with their content, should the walk have let one
/// through or the second reading have made one.
#[rustfmt::skip]
const DROPPED_BY_AMMONIA: &[&str] = &[
    "script", "style", "svg", "math", "template", "noscript", "title", "iframe", "object",
    "embed", "noembed", "noframes", "xmp", "plaintext",
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
/// first in document order that the markup does not hide. A target that is not an element is marked on
/// its element (an attribute's owner, a text node's parent).
pub fn sanitize(doc: &Document, targets: &[NodeId]) -> String {
    let marks = Marks::new(doc, targets);
    let html = child_element(doc, NodeId::ROOT, "html");
    let body = html.and_then(|h| child_element(doc, h, "body"));
    let mut walked = String::with_capacity(doc.len() * 16);
    // A frameset page has no body: its frames are dropped, and what is left
    // is written from the root, `head`'s title dropped by ammonia.
    write_children(doc, body.unwrap_or(NodeId::ROOT), &marks, &mut walked);
    let custom = custom_element_names(doc);
    let cleaned = cleaner(&custom).clean(&walked).to_string();
    let mut out = String::with_capacity(cleaned.len() + 4096);
    out.push_str("<!DOCTYPE html><html");
    if let Some(html) = html {
        write_attributes(doc, html, &marks, &mut out);
    }
    out.push_str("><head><meta charset=\"utf-8\"><style>");
    out.push_str(&page_css(doc));
    out.push_str("</style><style>");
    out.push_str(TARGET_STYLE);
    out.push_str("</style></head><body");
    if let Some(body) = body {
        write_attributes(doc, body, &marks, &mut out);
    }
    out.push('>');
    out.push_str(&cleaned);
    out.push_str("</body></html>");
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

/// Which elements carry a mark, and which one takes the fragment.
struct Marks {
    marked: HashSet<NodeId>,
    first: Option<NodeId>,
}

impl Marks {
    fn new(doc: &Document, targets: &[NodeId]) -> Marks {
        let mut marked: Vec<NodeId> = targets.iter().filter_map(|&t| element_of(doc, t)).collect();
        marked.sort_unstable();
        marked.dedup();
        // The fragment goes to the first target the markup shows: a page's
        // hidden copy (a mobile menu's, a template's) cannot be scrolled to.
        let first = marked
            .iter()
            .copied()
            .find(|&n| !crate::dom::hidden::is_hidden(doc, n))
            .or_else(|| marked.first().copied());
        Marks {
            first,
            marked: marked.into_iter().collect(),
        }
    }

    fn has(&self, n: NodeId) -> bool {
        self.marked.contains(&n)
    }
}

fn element_of(doc: &Document, node: NodeId) -> Option<NodeId> {
    if doc.is_element(node) {
        return Some(node);
    }
    doc.parent(node).filter(|&p| doc.is_element(p))
}

/// The first child of `node` that is an HTML element named `name`.
fn child_element(doc: &Document, node: NodeId, name: &str) -> Option<NodeId> {
    let mut child = doc.first_child(node);
    while let Some(c) = child {
        if doc.is_element(c)
            && doc.namespace(c) == Namespace::Html
            && doc.name(c).eq_ignore_ascii_case(name)
        {
            return Some(c);
        }
        child = doc.next_sibling(c);
    }
    None
}

/// The children of `node`, marked and reduced (see the module
/// documentation), as HTML for ammonia to read.
fn write_children(doc: &Document, node: NodeId, marks: &Marks, out: &mut String) {
    // Each entry is a node to open, or (with `close`) the end tag to write.
    let mut stack: Vec<(NodeId, Option<&str>)> = Vec::new();
    push_children(doc, node, &mut stack);
    while let Some((n, close)) = stack.pop() {
        if let Some(name) = close {
            out.push_str("</");
            out.push_str(name);
            out.push('>');
            continue;
        }
        match doc.kind(n) {
            NodeKind::Document | NodeKind::Comment => {}
            // SVG and MathML go: their `style`, their links and their text
            // are where markup changes meaning when it is read again. The
            // HTML inside them (at a `foreignObject` or an `mtext`) stays,
            // as a browser shows it: an unclosed `<math>` holds the rest of
            // the page.
            NodeKind::Text if is_foreign(doc, doc.parent(n)) => {}
            NodeKind::Text => escape(doc.text(n), false, out),
            NodeKind::Element if doc.namespace(n) != Namespace::Html => {
                push_children(doc, n, &mut stack);
            }
            NodeKind::Element => {
                let lower = doc.name(n).to_ascii_lowercase();
                // Style elements are written once, scrubbed, in `head`.
                if lower == "style" || DROPPED.contains(&lower.as_str()) {
                    continue;
                }
                let Some(shown) = shown_name(doc.name(n), &lower, marks.has(n)) else {
                    // Unwrapped here rather than by ammonia, which drops an
                    // element it does not know with its content.
                    push_children(doc, n, &mut stack);
                    continue;
                };
                out.push('<');
                out.push_str(shown);
                write_attributes(doc, n, marks, out);
                out.push('>');
                if !is_void(&lower) {
                    stack.push((n, Some(shown)));
                    push_children(doc, n, &mut stack);
                }
            }
        }
    }
}

/// Whether `node` is an SVG or MathML element.
fn is_foreign(doc: &Document, node: Option<NodeId>) -> bool {
    node.is_some_and(|n| doc.is_element(n) && doc.namespace(n) != Namespace::Html)
}

/// The name an element is written with, or `None` when it is unwrapped
/// (its content written without it): forms cannot be submitted as `div`s,
/// raw-text elements are shown as `pre` (their text escaped), a marked
/// element of another name becomes a `span`, so that its mark survives,
/// and any other element that is neither kept nor a custom element is
/// unwrapped.
fn shown_name<'d>(name: &'d str, lower: &str, marked: bool) -> Option<&'d str> {
    match lower {
        "form" => Some("div"),
        "xmp" | "plaintext" | "listing" => Some("pre"),
        _ if is_shown(lower) || is_custom_element_name(lower) => Some(name),
        _ if marked => Some("span"),
        _ => None,
    }
}

fn is_shown(lower: &str) -> bool {
    SHOWN_ELEMENTS.binary_search(&lower).is_ok()
}

/// Whether `name` is a valid custom element name: such an element does
/// nothing without a script to define it, and pages style by these names.
fn is_custom_element_name(name: &str) -> bool {
    name.contains('-')
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
}

/// The custom element names the page uses, which ammonia is told to keep.
fn custom_element_names(doc: &Document) -> Vec<String> {
    let mut names: Vec<String> = doc
        .all()
        .filter(|&n| doc.is_element(n) && doc.namespace(n) == Namespace::Html)
        .map(|n| doc.name(n))
        .filter(|name| name.contains('-'))
        .map(str::to_ascii_lowercase)
        .filter(|name| is_custom_element_name(name))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The second pass: ammonia, allowing [`SHOWN_ELEMENTS`] and the page's
/// `custom` elements, the inert attributes, and no URL at all.
fn cleaner(custom: &[String]) -> ammonia::Builder<'_> {
    let mut tags: HashSet<&str> = SHOWN_ELEMENTS.iter().copied().collect();
    tags.extend(custom.iter().map(String::as_str));
    let mut attributes: HashSet<&str> = INERT_ATTRIBUTES.iter().copied().collect();
    attributes.insert("style");
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(tags)
        .clean_content_tags(DROPPED_BY_AMMONIA.iter().copied().collect())
        .generic_attributes(attributes)
        .generic_attribute_prefixes(["data-", "aria-"].into_iter().collect())
        .url_schemes(HashSet::new())
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(None)
        .strip_comments(true)
        .attribute_filter(|_, attribute, value| {
            Some(if attribute == "style" {
                scrub_css(value).into()
            } else {
                value.into()
            })
        });
    builder
}

/// The CSS of every outermost `style` element of the page, in document
/// order, scrubbed: an SVG `style`'s CSS is all the text below it.
fn page_css(doc: &Document) -> String {
    let is_style = |n: NodeId| doc.is_element(n) && doc.name(n).eq_ignore_ascii_case("style");
    let mut css = String::new();
    for n in doc.all() {
        if is_style(n) && !doc.ancestors(n).any(is_style) {
            css.push_str(&scrub_css(&doc.string_value(n)));
            css.push('\n');
        }
    }
    css
}

fn write_attributes(doc: &Document, n: NodeId, marks: &Marks, out: &mut String) {
    let first = marks.first == Some(n);
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
    if marks.has(n) {
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
