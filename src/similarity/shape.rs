//! Recognising repeated sub-trees, so that a candidate sweep scores each
//! distinct shape once.
//!
//! Pages repeat themselves: a list of fifty products is fifty copies of one
//! template, and a tree-gram of one product ties with all of them. Every
//! similarity in this module depends only on the labels and the shape of the
//! two sub-trees (sibling counts follow from the shape, and a candidate root
//! is always a root), and every computation is deterministic, so two
//! candidates with the same labels and shape get bit-for-bit the same score.
//! A structural hash of every sub-tree ([`LabeledTree::shapes`], computed
//! once per view and kept there) finds the candidates that may be copies;
//! an exact comparison (same pre-order labels, same child counts)
//! confirms it before a score is reused, so a hash collision costs time,
//! never a wrong score.
//!
//! ## What it refuses
//!
//! A hash alone never reuses a score: [`same`] must confirm the copy. Shapes
//! are compared within one view only, by labels and child counts, so text,
//! attributes outside the label and masked sub-trees (not in the view) never
//! tell two copies apart. Hashing never recurses.

use super::tree::LabeledTree;

/// Whether the sub-trees of `x` and `y` have the same labels and shape.
pub(crate) fn same(tree: &LabeledTree, x: usize, y: usize) -> bool {
    let size = tree.subtree_size(x);
    size == tree.subtree_size(y)
        && (0..size).all(|k| {
            tree.label(x + k) == tree.label(y + k)
                && tree.child_count(x + k) == tree.child_count(y + k)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::testing::pair;

    #[test]
    fn copies_share_a_hash_and_others_do_not() {
        let (t, _) = pair("r(a(b,c(d)),a(b,c(d)),a(b(c,d)),a(b,c,d))", "r");
        let h = t.shapes();
        let roots: Vec<usize> = t.children(0).iter().map(|&c| c as usize).collect();
        assert_eq!(h[roots[0]], h[roots[1]]);
        assert!(same(&t, roots[0], roots[1]));
        assert_ne!(h[roots[0]], h[roots[2]]);
        assert!(!same(&t, roots[0], roots[2]));
        assert!(!same(&t, roots[2], roots[3]));
        assert!(!same(&t, roots[0], roots[3]));
    }
}
