//! The mask a tree-gram carries: elements marked unstable, attributes
//! masked, texts marked unstable.
//!
//! ## What it refuses
//!
//! It decides nothing: it only reads the marks a capture wrote, so on a
//! document without them (a live page) it hides nothing. Masked attribute
//! names match the list exactly, and an unstable-text mark covers the text
//! directly in its element, not its descendants' texts; a mark without values
//! gives no values seen.

use super::{MASKED_ATTR, UNSTABLE_ATTR, UNSTABLE_TEXT_ATTR};
use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::Mask;
use crate::xpath::generate::UnstableParts;

/// Hides what a tree-gram file marks unstable from every comparison: an
/// element with `data-mend-unstable` (and its sub-tree), the attributes an
/// element lists in `data-mend-masked`, and the text directly in an element
/// with `data-mend-unstable-text`.
#[derive(Clone, Copy, Debug, Default)]
pub struct GramMask;

impl Mask for GramMask {
    fn skips(&self, doc: &Document, node: NodeId) -> bool {
        doc.is_element(node) && doc.attr(node, UNSTABLE_ATTR).is_some()
    }

    fn masks_attr(&self, doc: &Document, node: NodeId, name: &str) -> bool {
        doc.attr(node, MASKED_ATTR)
            .is_some_and(|list| list.split_ascii_whitespace().any(|n| n == name))
    }

    fn masks_text(&self, doc: &Document, node: NodeId) -> bool {
        doc.parent(node)
            .is_some_and(|p| doc.is_element(p) && doc.attr(p, UNSTABLE_TEXT_ATTR).is_some())
            // The name is looked up once, not at every ancestor: a text deep
            // in a page has thousands, and a document without the mark (a
            // live page) has no symbol for it.
            || doc.sym(UNSTABLE_ATTR).is_some_and(|unstable| {
                doc.ancestors(node)
                    .any(|a| doc.is_element(a) && doc.attr_sym(a, unstable).is_some())
            })
    }

    fn text_values(&self, doc: &Document, node: NodeId) -> Option<String> {
        let parent = doc.parent(node).filter(|&p| doc.is_element(p))?;
        doc.attr(parent, UNSTABLE_TEXT_ATTR)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    }
}

/// What `mask` marks unstable on `doc`, as the parts no generated XPath may
/// test: the texts it masks, the attributes it masks, and every text and
/// attribute below an element it skips. One pass in document order.
pub fn unstable_parts(doc: &Document, mask: &dyn Mask) -> UnstableParts {
    let mut parts = UnstableParts::default();
    let mut skipped_until: Option<NodeId> = None;
    for n in doc.all() {
        let inside = skipped_until.is_some_and(|end| n < end);
        if !inside {
            skipped_until = None;
        }
        match doc.kind(n) {
            NodeKind::Text if inside || mask.masks_text(doc, n) => parts.add_text(n),
            NodeKind::Element => {
                let skipped = inside || mask.skips(doc, n);
                for attr in doc.attrs(n) {
                    let name = doc.attr_name(attr);
                    if skipped || mask.masks_attr(doc, n, name) {
                        parts.add_attr(n, name);
                    }
                }
                if skipped && !inside {
                    skipped_until = Some(doc.subtree_end(n));
                }
            }
            _ => {}
        }
    }
    parts
}
