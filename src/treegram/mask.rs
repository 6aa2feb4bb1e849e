//! The mask a tree-gram carries: elements marked unstable, attributes masked.

use super::{MASKED_ATTR, UNSTABLE_ATTR};
use crate::dom::{Document, NodeId};
use crate::similarity::Mask;

/// Hides what a tree-gram file marks unstable from every comparison: an
/// element with `data-mend-unstable` (and its sub-tree), and the attributes an
/// element lists in `data-mend-masked`.
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
}
