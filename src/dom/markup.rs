//! What mend's own readable copies of a page share: the tree-gram files
//! (`treegram`), the page templates of unstable content (`unstable`) and
//! the site templates (`site_template`) write elements one per line and
//! leave out what is not markup. These are the primitives they agree on.
//!
//! This is not the HTML serialiser (`Document::outer_html`): a readable
//! copy drops the content of raw-text elements and white-space-only text,
//! which a serialisation must keep.
//!
//! ## What it refuses
//!
//! A readable copy keeps no comments and no text of white space alone, and,
//! by [`RAW`], nothing inside raw-text elements. Its escapes are the fewest
//! a reader needs (`&`, `<` and `>` in text; `&` and `"` in attribute
//! values), so it does not give back the page's bytes.

use super::{Document, NodeId, NodeKind};

/// Elements whose content is not markup; their content is left out of a
/// readable copy (and so out of the text healing compares, on either side).
pub(crate) const RAW: [&str; 8] = [
    "script",
    "style",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
    "textarea",
];

/// Elements that have no end tag, as the serialiser writes them.
pub(crate) const VOID: &[&str] = super::serialize::VOID;

/// The children of `node` that a readable copy of a page keeps: elements,
/// and text that is not white space alone.
pub(crate) fn markup_children(doc: &Document, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    doc.children(node).filter(|&c| match doc.kind(c) {
        NodeKind::Element => true,
        NodeKind::Text => !doc.text(c).trim().is_empty(),
        _ => false,
    })
}

/// `text` escaped for an element's content in a readable copy.
pub(crate) fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `text` escaped for a double-quoted attribute value in a readable copy.
pub(crate) fn escape_attr(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;")
}
