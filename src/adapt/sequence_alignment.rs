//! A node alignment that survives added and removed levels: the heaviest
//! common subsequence of two trees' pre-order label sequences.
//!
//! Simple and clustered tree matching align nodes top-down, so a wrapper
//! `<div>` added around a card's content leaves everything below it
//! unaligned. In pre-order, the same change inserts one symbol and leaves the
//! rest in order, so a common subsequence still pairs the card's title with
//! the title and its price with the price. Pairs of equal labels weigh 2 and
//! pairs of equal tags (classes renamed) weigh 1, so exact labels win where
//! there are any. Ancestry is not enforced: the alignment is used to map a
//! tree-gram's target into a region already found by a tree similarity, and
//! to place candidates, never to score the region.
//!
//! ## What it refuses
//!
//! It never pairs nodes of different tags, and never crosses pairs: the
//! pairing keeps pre-order in both trees. A pair of trees whose table would
//! exceed [`MAX_CELLS`] cells is not aligned exactly: each node takes the
//! next node of the other tree with its label, or else its tag, within a
//! window of 64 nodes, so that memory stays bounded on any page.

use crate::similarity::{LabeledTree, SubTree};

/// The most cells of the dynamic program; larger pairs are aligned greedily.
const MAX_CELLS: usize = 4_000_000;

/// For each node of `a` (by index within the sub-tree, pre-order), the index
/// within `b` of the node it is paired with.
pub(crate) fn align(a: SubTree<'_>, b: SubTree<'_>) -> Vec<Option<usize>> {
    let (ta, tb) = (a.tree(), b.tree());
    let (ra, rb) = (a.root(), b.root());
    let (n, m) = (a.size(), b.size());
    let weight = |i: usize, j: usize| -> u32 {
        if ta.label(ra + i) == tb.label(rb + j) {
            2
        } else if ta.tag(ra + i) == tb.tag(rb + j) {
            1
        } else {
            0
        }
    };
    if n.saturating_mul(m) > MAX_CELLS {
        return greedy(n, m, weight);
    }
    // best[i][j]: the heaviest alignment of a[i..] and b[j..].
    let width = m + 1;
    let mut best = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let w = weight(i, j);
            let take = if w > 0 {
                w + best[(i + 1) * width + j + 1]
            } else {
                0
            };
            let skip = best[(i + 1) * width + j].max(best[i * width + j + 1]);
            best[i * width + j] = take.max(skip);
        }
    }
    let mut pairs = vec![None; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        let w = weight(i, j);
        if w > 0 && best[i * width + j] == w + best[(i + 1) * width + j + 1] {
            pairs[i] = Some(j);
            i += 1;
            j += 1;
        } else if best[(i + 1) * width + j] >= best[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

/// A forward greedy pairing for pairs too large for the dynamic program: each
/// node of `a` takes the next node of `b` with a positive weight within a
/// window, preferring an equal label.
fn greedy(n: usize, m: usize, weight: impl Fn(usize, usize) -> u32) -> Vec<Option<usize>> {
    const WINDOW: usize = 64;
    let mut pairs = vec![None; n];
    let mut j0 = 0;
    for (i, pair) in pairs.iter_mut().enumerate() {
        let end = m.min(j0 + WINDOW);
        let pick = (j0..end)
            .find(|&j| weight(i, j) == 2)
            .or_else(|| (j0..end).find(|&j| weight(i, j) == 1));
        if let Some(j) = pick {
            *pair = Some(j);
            j0 = j + 1;
        }
    }
    pairs
}

/// The view index in `b`'s tree of the node paired with view index `i` of `a`'s tree.
pub(crate) fn image(
    pairs: &[Option<usize>],
    a: SubTree<'_>,
    b: SubTree<'_>,
    i: usize,
) -> Option<usize> {
    let offset = i.checked_sub(a.root())?;
    pairs.get(offset).copied().flatten().map(|j| b.root() + j)
}

/// Whether `tree` holds view index `i` under `root` (itself included).
pub(crate) fn within(tree: &LabeledTree, root: usize, i: usize) -> bool {
    i >= root && i < tree.subtree_end(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::Document;
    use crate::similarity::{LabelMode, Labels};

    fn views(a: &str, b: &str) -> (LabeledTree, LabeledTree) {
        let (da, db) = (Document::parse_str(a), Document::parse_str(b));
        let first = |d: &Document| {
            d.all()
                .find(|&n| d.is_element(n) && d.attr(n, "id") == Some("r"))
                .expect("a root with id r")
        };
        let mut labels = Labels::new();
        let ta = LabeledTree::build(&da, first(&da), LabelMode::TagClass, &mut labels).unwrap();
        let tb = LabeledTree::build(&db, first(&db), LabelMode::TagClass, &mut labels).unwrap();
        (ta, tb)
    }

    fn check(a: &str, b: &str, expected: &[Option<usize>]) {
        let (ta, tb) = views(a, b);
        assert_eq!(align((&ta).into(), (&tb).into()), expected);
    }

    #[test]
    fn identical_trees_pair_every_node() {
        let page = r#"<div id="r"><h3><a></a></h3><p class="price"></p></div>"#;
        check(page, page, &[Some(0), Some(1), Some(2), Some(3)]);
    }

    #[test]
    fn an_added_level_keeps_the_rest_paired() {
        check(
            r#"<div id="r"><h3></h3><p class="price"></p></div>"#,
            r#"<div id="r"><div class="body"><h3></h3><p class="price"></p></div></div>"#,
            &[Some(0), Some(2), Some(3)],
        );
    }

    #[test]
    fn equal_labels_win_over_equal_tags() {
        check(
            r#"<div id="r"><p class="price"></p></div>"#,
            r#"<div id="r"><p class="rating"></p><p class="price"></p></div>"#,
            &[Some(0), Some(2)],
        );
    }

    #[test]
    fn renamed_classes_still_pair_by_tag() {
        check(
            r#"<div id="r"><p class="price"></p></div>"#,
            r#"<div id="r"><p class="amount"></p></div>"#,
            &[Some(0), Some(1)],
        );
    }

    #[test]
    fn greedy_pairing_is_in_order() {
        let pairs = greedy(3, 4, |i, j| u32::from(i == j || (i == 2 && j == 3)) * 2);
        assert_eq!(pairs, [Some(0), Some(1), Some(2)]);
    }
}
