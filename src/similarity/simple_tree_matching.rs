//! Simple tree matching (Selkow 1977; Yang 1991): the largest top-down
//! ordered matching between two trees.
//!
//! A matching pairs nodes of the two trees one to one so that paired nodes
//! have equal labels, the parents of paired nodes are paired, and paired
//! siblings keep their order. Simple tree matching finds one with the most
//! pairs and returns that number: two roots with different labels match
//! nothing, otherwise the roots match and their children sequences are
//! aligned by dynamic programming, each pair of children weighing its own
//! matching. The count is symmetric, never exceeds the smaller tree's size,
//! and equals a tree's size when it is matched with itself.
//!
//! The computation is the engine of [`super::ordered_matching`] with a weight
//! of 1 per matched pair. It sees no moves: children that swap places keep
//! only one of the two in the matching (tree bigram similarity does see them).
//!
//! ## What it refuses
//!
//! The count never fails, whatever the trees' sizes and depths; only
//! [`simple_tree_matching`], for the pairs, fails with
//! `SimilarityError::TooWide` when one pair of sibling lists would need a
//! table beyond `LEVEL_LIMIT` cells. Roots with different labels match
//! nothing, however alike their children, and only labels are compared:
//! text, and attributes outside the label, count for nothing.

use super::SimilarityError;
use super::ordered_matching::{self, Weights};
use super::tree::SubTree;
use crate::dom::NodeId;

/// The weights of simple tree matching: every matched pair counts 1.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stm;

impl Weights for Stm {
    #[inline]
    fn leaf(&self) -> f64 {
        1.0
    }

    #[inline]
    fn internal(&self, _: u32, _: u32, children: f64) -> f64 {
        1.0 + children
    }
}

/// The result of simple tree matching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleMatching {
    /// The number of matched pairs.
    pub matched: usize,
    /// The matched pairs of document nodes (first tree, second tree), in the
    /// first tree's document order; there are exactly `matched` of them.
    pub alignment: Vec<(NodeId, NodeId)>,
}

/// The number of pairs in a largest top-down ordered matching of `a` and `b`.
pub fn simple_tree_matching_score<'a, 'b>(
    a: impl Into<SubTree<'a>>,
    b: impl Into<SubTree<'b>>,
) -> usize {
    // Counts are sums of ones below 2^32, so the float is an exact integer.
    ordered_matching::score(a.into(), b.into(), &Stm) as usize
}

/// A largest top-down ordered matching of `a` and `b`: its size and its pairs.
///
/// Fails only when the alignment would need a single table beyond
/// [`ordered_matching::LEVEL_LIMIT`] cells; the score alone never fails.
pub fn simple_tree_matching<'a, 'b>(
    a: impl Into<SubTree<'a>>,
    b: impl Into<SubTree<'b>>,
) -> Result<SimpleMatching, SimilarityError> {
    let (a, b) = (a.into(), b.into());
    let (score, pairs) = ordered_matching::align(a, b, &Stm)?;
    Ok(SimpleMatching {
        matched: score as usize,
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

    fn check(a: &str, b: &str, expected: usize) {
        let (ta, tb) = pair(a, b);
        assert_eq!(simple_tree_matching_score(&ta, &tb), expected, "{a} vs {b}");
        assert_eq!(simple_tree_matching_score(&tb, &ta), expected, "{b} vs {a}");
        let m = simple_tree_matching(&ta, &tb).expect("aligned");
        assert_eq!(m.matched, expected);
        assert_eq!(m.alignment.len(), expected);
    }

    #[test]
    fn figure_one_of_the_paper_matches_seven_nodes() {
        check(
            "a(b(d,e),c(f),b(e,d),c(g(h,i,j)))",
            "a(b(d,e),c(g(h),f))",
            7,
        );
    }

    #[test]
    fn small_cases() {
        check("a", "a", 1);
        check("a", "b", 0);
        check("a(b)", "b(b)", 0);
        check("a(b,c)", "a(c,b)", 2);
        check("a(b,c,d)", "a(b,x,d)", 3);
        check("a(b(c(d)))", "a(b(c(d)))", 4);
        check("a(b(c(d)))", "a(x(b(c(d))))", 1);
        check("a(b(c),b(c,c))", "a(b(c,c))", 4);
    }

    #[test]
    fn the_alignment_names_document_nodes() {
        let (ta, tb) = pair("a(b,c)", "a(x,c)");
        let m = simple_tree_matching(&ta, &tb).expect("aligned");
        let pairs: Vec<(usize, usize)> = m
            .alignment
            .iter()
            .map(|&(x, y)| (ta.index_of(x).expect("in a"), tb.index_of(y).expect("in b")))
            .collect();
        assert_eq!(pairs, [(0, 0), (2, 2)]);
    }
}
