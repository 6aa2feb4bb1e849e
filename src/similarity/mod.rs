//! Tree similarity: how alike two element sub-trees are, and which of their
//! nodes correspond.
//!
//! Healing a broken pattern means finding, in a new page, the sub-tree most
//! like the stored tree-gram, then mapping the marked target through the node
//! alignment. This module supplies the measures and the search:
//!
//! | algorithm | file | score | alignment |
//! | --- | --- | --- | --- |
//! | simple tree matching | `simple_tree_matching.rs` | matched pairs | yes |
//! | clustered tree matching | `clustered_tree_matching.rs` | [0, 1] | yes |
//! | tree bigram | `tree_bigram.rs` | [0, 1] | no |
//! | tree Jaro-Winkler | `tree_jaro_winkler.rs` | [0, 1] | no |
//! | leaf string metrics | `leaf.rs` | [0, 1] | — |
//!
//! The two tree matchings share one engine (`ordered_matching.rs`); labels
//! (`label.rs`) are chosen by [`LabelMode`] and interned into a [`Labels`]
//! table shared by both sides, so trees from different documents (a tree-gram
//! file and a live page) compare as integers; every measure reads the compact
//! [`LabeledTree`] view (`tree.rs`) of elements only, text and comments left
//! out, as is whatever a [`Mask`] marks unstable. The candidate search
//! (`sweep.rs`) ranks every sub-tree of a page against a query and prunes
//! with admissible upper bounds (`path_bounds.rs`, and the nodes grouped by
//! size or bigram count in `key_index.rs`) and by scoring repeated sub-trees
//! once (`shape.rs`), returning exactly what an exhaustive search returns.
//!
//! ## What it refuses
//!
//! The module is pure: no I/O, no clock, no threads, no global state. No
//! function recurses on the depth of a tree, and none panics on any document.
//! Views are built only from element nodes of the document they are given
//! ([`SimilarityError`] otherwise). Scores work on trees of any size in
//! memory proportional to one tree; an alignment keeps a bounded table store
//! and refuses, with [`SimilarityError::TooWide`], a single pair of sibling
//! lists whose table exceeds [`LEVEL_LIMIT`] cells. Comparing trees whose
//! labels were interned into different tables is a caller's error that the
//! module cannot detect: the labels are just integers.

mod algorithm;
mod clustered_tree_matching;
mod key_index;
mod label;
mod leaf;
mod ordered_matching;
mod path_bounds;
mod shape;
mod simple_tree_matching;
mod sweep;
mod tree;
mod tree_bigram;
mod tree_jaro_winkler;

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

pub use algorithm::{Algorithm, UnknownName};
pub use clustered_tree_matching::{
    ClusteredMatching, clustered_tree_matching, clustered_tree_matching_score,
};
pub use label::{Label, LabelMode, Labels, Mask, MaskFn, NoMask, label_text, write_label};
pub use leaf::{LeafMetric, jaro_winkler, normalized_levenshtein, token_dice};
pub use ordered_matching::{LEVEL_LIMIT, STORE_BUDGET};
pub use simple_tree_matching::{SimpleMatching, simple_tree_matching, simple_tree_matching_score};
pub use sweep::{
    Candidate, RootFilter, Sweep, SweepOptions, SweepStats, best_candidates,
    best_candidates_exhaustive,
};
pub use tree::{LabeledTree, SubTree};
pub use tree_bigram::tree_bigram;
pub use tree_jaro_winkler::tree_jaro_winkler;

use crate::dom::NodeId;

/// Why a comparison could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SimilarityError {
    /// The node id is not in the document.
    #[error("node {} is not in the document", .0.0)]
    OutOfRange(NodeId),
    /// Views are rooted at elements, and this node is not one.
    #[error("node {} is not an element", .0.0)]
    NotAnElement(NodeId),
    /// The mask leaves out the node that should be the root.
    #[error("node {} is masked as unstable and cannot be the root of a comparison", .0.0)]
    MaskedRoot(NodeId),
    /// An alignment would need too large a table for one pair of sibling lists.
    #[error(
        "aligning the children of nodes {} and {} needs a table of {cells} cells, over the limit of {limit}",
        .a.0, .b.0
    )]
    TooWide {
        /// The parent in the first tree.
        a: NodeId,
        /// The parent in the second tree.
        b: NodeId,
        /// The cells the table would have.
        cells: u64,
        /// The most cells allowed.
        limit: u64,
    },
}

/// The score of `a` against `b` under `algorithm`: the matched count for
/// simple tree matching, a similarity in [0, 1] for the others.
pub fn similarity<'a, 'b>(
    algorithm: Algorithm,
    a: impl Into<SubTree<'a>>,
    b: impl Into<SubTree<'b>>,
) -> f64 {
    let (a, b) = (a.into(), b.into());
    match algorithm {
        Algorithm::Stm => simple_tree_matching_score(a, b) as f64,
        Algorithm::Ctm => clustered_tree_matching_score(a, b),
        Algorithm::Bigram => tree_bigram(a, b),
        Algorithm::Jw => tree_jaro_winkler(a, b),
    }
}

/// A score with the alignment, when the algorithm produces one.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The score, as [`similarity`] gives it.
    pub score: f64,
    /// The matched document node pairs (first tree, second tree) in the first
    /// tree's document order; `None` for bigram and Jaro-Winkler.
    pub alignment: Option<Vec<(NodeId, NodeId)>>,
}

/// Compares `a` and `b` under `algorithm`, with the alignment where there is one.
pub fn compare<'a, 'b>(
    algorithm: Algorithm,
    a: impl Into<SubTree<'a>>,
    b: impl Into<SubTree<'b>>,
) -> Result<Comparison, SimilarityError> {
    let (a, b) = (a.into(), b.into());
    Ok(match algorithm {
        Algorithm::Stm => {
            let m = simple_tree_matching(a, b)?;
            Comparison {
                score: m.matched as f64,
                alignment: Some(m.alignment),
            }
        }
        Algorithm::Ctm => {
            let m = clustered_tree_matching(a, b)?;
            Comparison {
                score: m.similarity,
                alignment: Some(m.alignment),
            }
        }
        Algorithm::Bigram | Algorithm::Jw => Comparison {
            score: similarity(algorithm, a, b),
            alignment: None,
        },
    })
}
