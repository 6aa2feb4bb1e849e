//! Tree bigram similarity: how many local shapes two trees share.
//!
//! The bigrams of a tree are two multisets of label pairs:
//!
//! * **parent bigrams**: `(label(parent(x)), label(x))` for every node `x`,
//!   where the root's parent is a virtual node `⊤` with a label of its own,
//!   so the root contributes `(⊤, label(root))` and a tree of `n` nodes has
//!   `n` parent bigrams;
//! * **sibling bigrams**: `(label(x), label(y))` for every pair of adjacent
//!   siblings, `y` directly after `x`; a node with `k` children contributes
//!   `k − 1`.
//!
//! The two kinds are kept apart: a parent bigram never equals a sibling
//! bigram. With `P, S` the bigrams of one tree and `P′, S′` those of the
//! other, the similarity is the Dice coefficient over multisets,
//!
//! ```text
//!            2 · (|P ∩ P′| + |S ∩ S′|)
//! bigram = ──────────────────────────────
//!           |P| + |S| + |P′| + |S′|
//! ```
//!
//! where `∩` keeps each pair as many times as it occurs in both. It is in
//! [0, 1], symmetric, and 1 for identical trees (and for trees that differ
//! only in the order of identical sub-trees). It only sees labels that are
//! next to each other, so it tolerates what ordered matching cannot: children
//! in a different order keep all their parent bigrams, and a sub-tree moved
//! elsewhere keeps its inner bigrams. It gives no alignment.
//!
//! Bigrams are encoded as 64-bit integers and compared by sorting and
//! merging, so a comparison costs `O(n log n)` and no hashing.
//!
//! ## What it refuses
//!
//! It never fails and gives no alignment. It reads labels only, so text, and
//! attributes outside the label, make no difference, and it cannot tell where
//! in a tree a shared bigram lies: `a(b(c),b)` and `a(b,b(c))` have the same
//! bigrams and score 1.

use super::label::Label;
use super::tree::{LabeledTree, SubTree};

/// The label of the virtual parent of the root; no interned label reaches it,
/// since a table never holds more labels than documents have nodes.
const TOP: u64 = u32::MAX as u64;
/// The bit that sets sibling bigrams apart from parent bigrams.
const SIBLING: u64 = 1 << 63;

#[inline]
fn code(kind: u64, first: u64, second: Label) -> u64 {
    kind | (first << 31) | u64::from(second.0 & 0x7fff_ffff)
}

/// Appends the bigrams of the sub-tree of `root` to `out`, unsorted.
pub(crate) fn collect(tree: &LabeledTree, root: usize, out: &mut Vec<u64>) {
    let end = tree.subtree_end(root);
    out.push(code(0, TOP, tree.label(root)));
    for x in root..end {
        let kids = tree.children(x);
        let parent = u64::from(tree.label(x).0);
        for &k in kids {
            out.push(code(0, parent, tree.label(k as usize)));
        }
        for w in kids.windows(2) {
            let left = u64::from(tree.label(w[0] as usize).0);
            out.push(code(SIBLING, left, tree.label(w[1] as usize)));
        }
    }
}

/// The sorted bigrams of a sub-tree.
pub(crate) fn bigrams(t: SubTree<'_>) -> Vec<u64> {
    let mut v = Vec::with_capacity(2 * t.size());
    collect(t.tree, t.root(), &mut v);
    v.sort_unstable();
    v
}

/// The size of the multiset intersection of two sorted sequences.
pub(crate) fn common(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The Dice coefficient of `common` shared bigrams out of `na + nb`.
#[inline]
pub(crate) fn dice(common: usize, na: usize, nb: usize) -> f64 {
    (2 * common) as f64 / (na + nb) as f64
}

/// The tree bigram similarity of `a` and `b`, in [0, 1].
pub fn tree_bigram<'a, 'b>(a: impl Into<SubTree<'a>>, b: impl Into<SubTree<'b>>) -> f64 {
    let (a, b) = (bigrams(a.into()), bigrams(b.into()));
    dice(common(&a, &b), a.len(), b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::testing::pair;

    fn check(a: &str, b: &str, expected: f64) {
        let (ta, tb) = pair(a, b);
        let s = tree_bigram(&ta, &tb);
        assert!(
            (s - expected).abs() < 1e-12,
            "{a} vs {b}: {s} != {expected}"
        );
        assert_eq!(tree_bigram(&tb, &ta), s);
    }

    #[test]
    fn the_definition_on_small_trees() {
        check("a", "a", 1.0);
        check("a", "b", 0.0);
        // a(b,c): ⊤a, ab, ac, b~c; a(c,b): ⊤a, ac, ab, c~b. Three of four shared.
        check("a(b,c)", "a(c,b)", 0.75);
        // a(b): ⊤a, ab; a(b,b): ⊤a, ab, ab, b~b. Two shared of 2 + 4.
        check("a(b)", "a(b,b)", 4.0 / 6.0);
        // a(b(c)): ⊤a, ab, bc; x(b(c)): ⊤x, xb, bc. One shared of six.
        check("a(b(c))", "x(b(c))", 2.0 / 6.0);
    }

    #[test]
    fn counts_follow_the_formula() {
        let (t, _) = pair("a(b(c,d,e),f)", "a");
        for i in 0..t.len() {
            let sub = t.subtree(i).expect("in the view");
            assert_eq!(bigrams(sub).len(), t.bigram_count(i), "at {i}");
        }
    }
}
