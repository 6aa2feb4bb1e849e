//! Clustered tree matching, from Ferrara and Baumgartner, "Design of
//! Automatically Adaptable Web Wrappers" (ICAART 2011), Algorithm 1.
//!
//! Simple tree matching counts matched nodes, so a match deep inside a long
//! list weighs as much as one near the root and the count grows with the
//! trees. Clustered tree matching keeps the same recursion and changes the
//! weights so that the result is a similarity in [0, 1]:
//!
//! * roots with different labels are worth 0;
//! * a matched pair of leaves is worth `1 / max(t(x), t(y))`;
//! * a matched pair of internal nodes is worth the weight of its children's
//!   best ordered matching times `1 / max(t(x), t(y))`;
//! * a matched pair of a leaf and an internal node is worth 0;
//!
//! where `t(x)` is the number of siblings of `x`, itself included, and 1 for
//! the two roots. A node's weight is thus shared among its siblings, and a
//! tree matched with itself scores exactly 1. The paper's Figure 1 trees,
//! `a(b(d,e), c(f), b(e,d), c(g(h,i,j)))` and `a(b(d,e), c(g(h), f))`, score
//! 0.375 here and 7 under simple tree matching.
//!
//! Internal nodes carry no weight of their own: the weight of a pair lives
//! in the pairs of leaves below it. So a matched pair of internal nodes none
//! of whose children match is worth 0 (as in the paper), and so is a pair of
//! a leaf and an internal node, which has no children to match. That last
//! rule departs from the paper's Algorithm 1, whose final branch gives such a
//! pair the full `1 / max(t(x), t(y))` of a pair of leaves: with it, an empty
//! `<div>` scores 1.0, a perfect match, against any `div`-rooted tree-gram,
//! and a leaf standing in for a whole missing sub-tree takes that sub-tree's
//! full weight. The paper's Figure 1 result is the same under both rules.
//! Such pairs add nothing to the score and are not part of the alignment.
//!
//! ## How it is computed
//!
//! All children of `x` have `t = m` and all children of `y` have `t = n`, so
//! every cell of the children table of `(x, y)` carries the same factor
//! `1 / max(m, n)`. The engine of [`super::ordered_matching`] therefore
//! computes `V(x, y) = max(t(x), t(y)) · value(x, y)`: 1 for a matched pair
//! with a leaf, and the best alignment of the children's `V` divided once by
//! `max(m, n)` for internal pairs; the similarity is `V` of the roots, whose
//! `t` is 1. This is the same maximisation (the factor is common to the whole
//! table) with one division per table instead of one per cell, which makes a
//! tree matched with itself score exactly 1.0 rather than a rounding of it:
//! `k` children worth 1 sum to `k`, and `k / k` is exact.
//!
//! ## What it refuses
//!
//! The score never fails, whatever the trees' sizes and depths; only
//! [`clustered_tree_matching`], for an alignment, fails with
//! `SimilarityError::TooWide` when one pair of sibling lists would need a
//! table beyond `LEVEL_LIMIT` cells. Pairs worth 0 are left out of the
//! alignment. Only labels are compared: text, and attributes outside the
//! label, weigh nothing.

use super::SimilarityError;
use super::ordered_matching::{self, Weights};
use super::tree::SubTree;
use crate::dom::NodeId;

/// The weights of clustered tree matching.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ctm;

impl Weights for Ctm {
    #[inline]
    fn leaf(&self) -> f64 {
        1.0
    }

    #[inline]
    fn internal(&self, m: u32, n: u32, children: f64) -> f64 {
        children / f64::from(m.max(n).max(1))
    }
}

/// The result of clustered tree matching.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusteredMatching {
    /// The similarity, in [0, 1].
    pub similarity: f64,
    /// The matched pairs that carry weight, as document nodes (first tree,
    /// second tree), in the first tree's document order.
    pub alignment: Vec<(NodeId, NodeId)>,
}

/// The clustered tree matching similarity of `a` and `b`, in [0, 1].
pub fn clustered_tree_matching_score<'a, 'b>(
    a: impl Into<SubTree<'a>>,
    b: impl Into<SubTree<'b>>,
) -> f64 {
    ordered_matching::score(a.into(), b.into(), &Ctm)
}

/// The clustered tree matching similarity of `a` and `b` and the matched pairs.
///
/// Fails only when the alignment would need a single table beyond
/// [`ordered_matching::LEVEL_LIMIT`] cells; the score alone never fails.
pub fn clustered_tree_matching<'a, 'b>(
    a: impl Into<SubTree<'a>>,
    b: impl Into<SubTree<'b>>,
) -> Result<ClusteredMatching, SimilarityError> {
    let (a, b) = (a.into(), b.into());
    let (similarity, pairs) = ordered_matching::align(a, b, &Ctm)?;
    Ok(ClusteredMatching {
        similarity,
        alignment: pairs
            .into_iter()
            .map(|(x, y)| (a.tree.node(x as usize), b.tree.node(y as usize)))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::testing::pair;

    fn check(a: &str, b: &str, expected: f64) {
        let (ta, tb) = pair(a, b);
        let s = clustered_tree_matching_score(&ta, &tb);
        assert!(
            (s - expected).abs() < 1e-12,
            "{a} vs {b}: {s} != {expected}"
        );
        let back = clustered_tree_matching_score(&tb, &ta);
        assert!((back - expected).abs() < 1e-12, "{b} vs {a}: {back}");
        let m = clustered_tree_matching(&ta, &tb).expect("aligned");
        assert_eq!(m.similarity, s);
    }

    #[test]
    fn figure_one_of_the_paper_scores_three_eighths() {
        check(
            "a(b(d,e),c(f),b(e,d),c(g(h,i,j)))",
            "a(b(d,e),c(g(h),f))",
            0.375,
        );
    }

    #[test]
    fn the_figure_one_alignment_follows_the_best_children() {
        let (ta, tb) = pair("a(b(d,e),c(f),b(e,d),c(g(h,i,j)))", "a(b(d,e),c(g(h),f))");
        let m = clustered_tree_matching(&ta, &tb).expect("aligned");
        let pairs: Vec<(usize, usize)> = m
            .alignment
            .iter()
            .map(|&(x, y)| (ta.index_of(x).unwrap_or(99), tb.index_of(y).unwrap_or(99)))
            .collect();
        // a–a, b–b, d–d, e–e, then the first c with its f against c and its f.
        assert_eq!(pairs, [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 7)]);
    }

    #[test]
    fn small_cases() {
        check("a", "a", 1.0);
        check("a", "b", 0.0);
        check("a(b,c)", "a(b,c)", 1.0);
        check("a(b,c)", "a(c,b)", 0.5);
        check("a(b)", "a(c)", 0.0);
        check("a(b)", "a", 0.0);
        check("a(b(c),d)", "a(b,d)", 0.5);
        check("a(b,c,d)", "a(b)", 1.0 / 3.0);
        check("a(b(x,y))", "a(b(x))", 0.5);
    }
}
