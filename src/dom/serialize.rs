//! HTML serialisation of sub-trees, following the HTML fragment serialisation
//! algorithm: void elements have no end tag, the contents of raw-text elements
//! (in the HTML namespace) are written as they are, and everything else is
//! escaped.
//!
//! The walk is iterative, so a sub-tree of any depth serialises without
//! touching the call stack.
//!
//! ## What it refuses
//!
//! A void element's children, if it has any, are not written, and the
//! doctype keeps its name only (no public or system id). Text inside an
//! HTML raw-text element is written unescaped, as the algorithm has it, so a
//! `</script>` in it is not made safe; `noscript`, `textarea` and SVG or
//! MathML text are escaped. Nothing is reformatted or pretty-printed.

use super::{Document, Namespace, NodeId, NodeKind};

/// Elements that never have content or an end tag.
pub(super) const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track", "wbr",
];

/// Elements whose text children are written without escaping. `noscript` is not
/// among them because pages are parsed with scripting disabled.
const RAW_TEXT: &[&str] = &[
    "style",
    "script",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
];

impl Document {
    /// The HTML of `node` and its sub-tree. For the document node this is the
    /// whole page, doctype included.
    pub fn outer_html(&self, node: NodeId) -> String {
        let mut out = String::new();
        if node == NodeId::ROOT
            && let Some(doctype) = self.doctype()
        {
            out.push_str("<!DOCTYPE ");
            out.push_str(&doctype.name);
            out.push('>');
        }
        self.serialize_into(node, true, &mut out);
        out
    }

    /// The HTML of the children of `node`.
    pub fn inner_html(&self, node: NodeId) -> String {
        let mut out = String::new();
        self.serialize_into(node, false, &mut out);
        out
    }

    fn serialize_into(&self, node: NodeId, include_self: bool, out: &mut String) {
        // Each entry is a node to open, or (with `close`) an element to close.
        let mut stack: Vec<(NodeId, bool)> = Vec::new();
        if include_self {
            stack.push((node, false));
        } else {
            self.push_children(node, &mut stack);
        }
        while let Some((n, close)) = stack.pop() {
            if close {
                out.push_str("</");
                out.push_str(self.name(n));
                out.push('>');
                continue;
            }
            match self.kind(n) {
                NodeKind::Document => self.push_children(n, &mut stack),
                NodeKind::Element => {
                    let name = self.name(n);
                    out.push('<');
                    out.push_str(name);
                    for attr in self.attrs(n) {
                        out.push(' ');
                        out.push_str(self.attr_name(attr));
                        out.push_str("=\"");
                        escape(self.attr_value(attr), true, out);
                        out.push('"');
                    }
                    out.push('>');
                    if !VOID.contains(&name) {
                        stack.push((n, true));
                        self.push_children(n, &mut stack);
                    }
                }
                NodeKind::Text => {
                    // Only an HTML element's text is raw: an SVG or MathML
                    // `style` holds markup, and its text written raw would
                    // become elements when the page is read again.
                    let raw = self.parent(n).is_some_and(|p| {
                        self.is_element(p)
                            && self.namespace(p) == Namespace::Html
                            && RAW_TEXT.contains(&self.name(p))
                    });
                    if raw {
                        out.push_str(self.text(n));
                    } else {
                        escape(self.text(n), false, out);
                    }
                }
                NodeKind::Comment => {
                    out.push_str("<!--");
                    out.push_str(self.text(n));
                    out.push_str("-->");
                }
            }
        }
    }

    fn push_children(&self, node: NodeId, stack: &mut Vec<(NodeId, bool)>) {
        let mut child = self.last_child(node);
        while let Some(c) = child {
            stack.push((c, false));
            child = self.prev_sibling(c);
        }
    }
}

/// Escapes text for HTML: `&`, U+00A0 and either `"` (attributes) or `<` and `>` (text).
pub fn escape(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            '"' if attribute => out.push_str("&quot;"),
            '<' if !attribute => out.push_str("&lt;"),
            '>' if !attribute => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
}
