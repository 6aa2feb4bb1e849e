//! The texts that stood around a field's target: what tells the target
//! with a new value, where it stood, from a lookalike of it elsewhere on the
//! page (`adapt::surroundings`).
//!
//! They are read from a tree-gram's instance, which holds the target with
//! its context. When that context is the target alone (a details cell large
//! enough to be distinctive by itself), capture reads them from the page and
//! keeps them in the header, one `<meta name="mend:neighbour">` per text.
//!
//! ## What it refuses
//!
//! It never climbs to the page itself (`html`, `body`), nor past a
//! tree-gram's instance; on a page, it climbs at most [`MAX_LEVELS`] levels
//! and keeps at most [`MAX_TEXTS`] texts, so that a header stays short. Masked (unstable) texts and texts without two
//! letters or digits are left out.

use std::collections::BTreeSet;

use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::Mask;

use super::kept_text;

/// The fewest texts of their own (outside the target) that the target's
/// surroundings must have to say anything about where it stands.
pub const MIN_NEIGHBOUR_TEXTS: usize = 2;
/// How many levels above the target its neighbours are looked for.
pub const MAX_LEVELS: usize = 3;
/// The most texts kept.
pub const MAX_TEXTS: usize = 24;

/// The texts around a target: those of its nearest ancestor that holds
/// [`MIN_NEIGHBOUR_TEXTS`] of them outside the target, with how far up that
/// ancestor is and its size in nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Neighbours {
    /// Levels from the target up to the ancestor that holds the texts.
    pub levels: usize,
    /// The size of that ancestor's sub-tree, in nodes.
    pub nodes: usize,
    /// The texts, as a tree-gram keeps them (`kept_text`), each once.
    pub texts: Vec<String>,
}

/// The neighbours of `target` in `doc`: in a tree-gram, up to its
/// instance's root `limit` (itself included), with every text; on a page
/// (`limit` is `None`), up to `MAX_LEVELS` levels, with at most
/// `MAX_TEXTS` texts. `None` when no ancestor within reach holds enough
/// texts.
pub fn neighbours(
    doc: &Document,
    target: NodeId,
    limit: Option<NodeId>,
    mask: &dyn Mask,
) -> Option<Neighbours> {
    let (levels, max_texts) = match limit {
        Some(_) => (usize::MAX, usize::MAX),
        None => (MAX_LEVELS, MAX_TEXTS),
    };
    for (above, ancestor) in doc.ancestors(target).enumerate().take(levels) {
        if !doc.is_element(ancestor) || matches!(doc.name(ancestor), "html" | "body") {
            return None;
        }
        let end = doc.subtree_end(ancestor).index();
        let (inside_from, inside_to) = (target.index(), doc.subtree_end(target).index());
        let mut seen = BTreeSet::new();
        let mut texts = Vec::new();
        for n in (ancestor.index()..end).map(|i| NodeId(i as u32)) {
            if (inside_from..inside_to).contains(&n.index())
                || doc.kind(n) != NodeKind::Text
                || mask.masks_text(doc, n)
            {
                continue;
            }
            let text = kept_text(doc.text(n));
            if telling(&text) && seen.insert(text.clone()) {
                texts.push(text);
                if texts.len() == max_texts {
                    break;
                }
            }
        }
        if texts.len() >= MIN_NEIGHBOUR_TEXTS {
            return Some(Neighbours {
                levels: above + 1,
                nodes: doc.subtree_size(ancestor),
                texts,
            });
        }
        if Some(ancestor) == limit {
            return None;
        }
    }
    None
}

/// Whether a text can say where a node stands: two letters or digits at
/// least.
pub fn telling(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphanumeric()).count() >= 2
}
