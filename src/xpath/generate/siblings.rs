//! Positions among siblings, computed once per parent.
//!
//! A record set can put thousands of targets under one parent; counting each
//! one's position by walking its siblings would then be quadratic. This
//! cache lists a parent's matching children once, in document order, and
//! answers each position with a binary search.
//!
//! ## What it refuses
//!
//! It gives no position for the document node, which has no siblings, nor
//! for a node that the kind of sibling asked for does not match. Lists are
//! kept for one document, one per parent and kind asked about, and are not
//! freed while the cache lives; no list is built twice.

use std::collections::HashMap;

use crate::dom::{Document, NodeId, NodeKind};

/// Which siblings a position counts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Among {
    /// Elements with this name (a step's name test).
    Named(String),
    /// All elements (the `*` name test).
    Elements,
    /// Nodes of one kind (`text()`, `comment()`).
    Kind(NodeKindKey),
}

/// [`NodeKind`] as a hashable key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum NodeKindKey {
    Text,
    Comment,
}

impl Among {
    /// The siblings a name test counts: `None` stands for `*`.
    pub fn name(name: Option<&str>) -> Among {
        match name {
            Some(n) => Among::Named(n.to_owned()),
            None => Among::Elements,
        }
    }

    /// The siblings `text()` or `comment()` counts.
    pub fn kind(kind: NodeKind) -> Among {
        match kind {
            NodeKind::Comment => Among::Kind(NodeKindKey::Comment),
            _ => Among::Kind(NodeKindKey::Text),
        }
    }

    fn matches(&self, doc: &Document, c: NodeId) -> bool {
        match self {
            Among::Named(n) => doc.is_element(c) && doc.name(c) == n,
            Among::Elements => doc.is_element(c),
            Among::Kind(NodeKindKey::Text) => doc.kind(c) == NodeKind::Text,
            Among::Kind(NodeKindKey::Comment) => doc.kind(c) == NodeKind::Comment,
        }
    }
}

/// The cache: per parent and kind of sibling, the matching children.
pub(super) struct Siblings<'a> {
    doc: &'a Document,
    lists: HashMap<(NodeId, Among), Vec<NodeId>>,
}

impl<'a> Siblings<'a> {
    pub fn new(doc: &'a Document) -> Self {
        Siblings {
            doc,
            lists: HashMap::new(),
        }
    }

    /// The 1-based position of `node` among its siblings that `among`
    /// matches, and how many there are; `None` for the document node or a
    /// node `among` does not match.
    pub fn position(&mut self, node: NodeId, among: &Among) -> Option<(usize, usize)> {
        let doc = self.doc;
        let parent = doc.parent(node)?;
        let list = self
            .lists
            .entry((parent, among.clone()))
            .or_insert_with(|| {
                doc.children(parent)
                    .filter(|&c| among.matches(doc, c))
                    .collect()
            });
        let k = list.binary_search(&node).ok()?;
        Some((k + 1, list.len()))
    }
}
