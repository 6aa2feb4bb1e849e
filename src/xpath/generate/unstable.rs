//! The parts of a page that no generated expression may test: content that
//! changes from one load of the page to the next (a date, a clock, an ad
//! slot's attributes), as `crate::unstable` learns it. An expression that
//! anchors on such a part selects the target today and nothing tomorrow.
//!
//! ## What it refuses
//!
//! It judges nothing: it holds the text nodes and attributes it is given, by
//! node id, so it says nothing true of another document than the one they
//! came from. Empty, which is the default, it forbids nothing. An attribute
//! is matched by its element and exact name, a text by its node.

use std::collections::BTreeSet;

use crate::dom::{Document, NodeId, NodeKind};

/// Text nodes and attributes a generated expression must not test. Empty
/// by default: nothing is known to be unstable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnstableParts {
    texts: BTreeSet<NodeId>,
    attrs: BTreeSet<(NodeId, String)>,
}

impl UnstableParts {
    /// Marks the text node `node` unstable.
    pub fn add_text(&mut self, node: NodeId) {
        self.texts.insert(node);
    }

    /// Marks the attribute `name` of the element `node` unstable.
    pub fn add_attr(&mut self, node: NodeId, name: &str) {
        self.attrs.insert((node, name.to_owned()));
    }

    /// Whether nothing is marked.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty() && self.attrs.is_empty()
    }

    /// Whether the text node `node` is unstable.
    pub fn text(&self, node: NodeId) -> bool {
        self.texts.contains(&node)
    }

    /// Whether the attribute `name` of `node` is unstable.
    pub fn attr(&self, node: NodeId, name: &str) -> bool {
        !self.attrs.is_empty() && self.attrs.contains(&(node, name.to_owned()))
    }

    /// Whether some text node of the sub-tree of `node` (the node itself
    /// when it is a text) is unstable. Callers ask this of small sub-trees
    /// only (labels), and an empty set answers at once.
    pub(super) fn in_text_of(&self, doc: &Document, node: NodeId) -> bool {
        if self.texts.is_empty() {
            return false;
        }
        if doc.kind(node) == NodeKind::Text {
            return self.texts.contains(&node);
        }
        let end = doc.subtree_end(node);
        self.texts.range(node..end).next().is_some()
    }
}
