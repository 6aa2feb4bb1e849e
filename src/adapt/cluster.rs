//! Finding a record pattern's instances again: the whole cluster of similar,
//! repeated sub-trees, never one of N.
//!
//! Every sub-tree of the scope is scored against each stored instance (its
//! best score counts). Those that reach the threshold are kept, a node and
//! its descendant never both (the better one stays, the ancestor on a tie).
//! Nodes reached by the same path of tags from the scope form a cluster; a
//! cluster's score is its members' mean. A cluster is viable when its size
//! fits the pattern's `min` and `max`, and, if the pattern matched several
//! instances when the tree-gram was captured, when it repeats: one lookalike
//! card in a sidebar is not a listing.
//!
//! ## What it refuses
//!
//! A sub-tree below the threshold is no member, nor is one whose size differs
//! from a stored instance's by more than the search's `record_size_ratio`
//! (when set), nor, for the tree matchings with `same_tag`, one whose root
//! has another tag. A cluster that breaks `min`, `max` or the repetition rule
//! is not dropped: it is listed after every viable one, with `not_viable`
//! saying why. The module chooses nothing and applies nothing; it reads the
//! page view and returns data.

use std::collections::BTreeMap;

use super::Search;
use super::locate::{normalize, sweep_options};
use crate::dom::{Document, NodeId};
use crate::similarity::{Algorithm, LabeledTree, SweepOptions, best_candidates};
use crate::wrapper::Constraints;

/// A set of similar sub-trees reached by one path of tags.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cluster {
    /// The path of tags from the scope to the members, such as `div/ul/li`.
    pub key: String,
    /// The members, in document order.
    pub members: Vec<NodeId>,
    /// The members' mean similarity.
    pub score: f64,
    /// Why it cannot be chosen, if it cannot.
    pub not_viable: Option<String>,
}

/// What makes a cluster: the least similarity of a member, and what a
/// viable cluster must satisfy.
pub(crate) struct Rule<'a> {
    /// The least similarity of a member.
    pub threshold: f64,
    /// The record pattern's constraints (`min`, `max`).
    pub constraints: &'a Constraints,
    /// Whether the pattern matched several instances at capture, so that a
    /// cluster of one is not viable.
    pub repeated: bool,
}

/// The clusters of the scope view `page`, best viable first, then the rest.
pub(crate) fn clusters(
    doc: &Document,
    grams: &[LabeledTree],
    page: &LabeledTree,
    algorithm: Algorithm,
    rule: &Rule<'_>,
    search: &Search,
) -> Vec<Cluster> {
    let Rule {
        threshold,
        constraints,
        repeated,
    } = *rule;
    // The best score of each candidate over the stored instances.
    let mut best: BTreeMap<usize, f64> = BTreeMap::new();
    // Every candidate that reaches the threshold is wanted, however many:
    // the filters (size, and tag for the tree matchings) keep the count down,
    // and identical candidates are scored once.
    let k = page.len();
    for gram in grams {
        // A record's instances are about the size of the stored ones; a
        // small piece of a card (its heading) resembles a card too closely
        // under Jaro-Winkler, which rewards a short sequence found whole.
        let options = SweepOptions {
            max_size_ratio: search.record_size_ratio,
            ..sweep_options(algorithm, k, search, search.record_size_ratio)
        };
        let sweep = best_candidates(gram, page, &options);
        for c in sweep.best {
            let s = normalize(algorithm, c.score, gram.len(), page.subtree_size(c.index));
            if s >= threshold {
                let e = best.entry(c.index).or_insert(0.0);
                *e = e.max(s);
            }
        }
    }
    // A node and its descendant are not both kept: the better stays, the
    // ancestor on a tie (it comes first in this order).
    let mut ranked: Vec<(usize, f64)> = best.into_iter().collect();
    ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let kept = outermost_of_nested(ranked, |i| page.subtree_end(i));
    let mut groups: BTreeMap<String, Vec<(usize, f64)>> = BTreeMap::new();
    for (i, s) in kept {
        groups
            .entry(tag_path(doc, page, i))
            .or_default()
            .push((i, s));
    }
    let mut out: Vec<Cluster> = groups
        .into_iter()
        .map(|(key, mut members)| {
            members.sort_by_key(|m| m.0);
            let score = members.iter().map(|m| m.1).sum::<f64>() / members.len() as f64;
            let n = members.len();
            let not_viable = if constraints.min.is_some_and(|min| n < min) {
                Some(format!(
                    "{n} instances, fewer than min {}",
                    constraints.min.unwrap_or(0)
                ))
            } else if constraints.max.is_some_and(|max| n > max) {
                Some(format!(
                    "{n} instances, more than max {}",
                    constraints.max.unwrap_or(0)
                ))
            } else if repeated && n < 2 {
                Some("a single instance where the pattern matched several".to_owned())
            } else {
                None
            };
            Cluster {
                key,
                members: members.into_iter().map(|(i, _)| page.node(i)).collect(),
                score,
                not_viable,
            }
        })
        .collect();
    out.sort_by(|x, y| {
        x.not_viable
            .is_some()
            .cmp(&y.not_viable.is_some())
            .then(y.score.total_cmp(&x.score))
            .then(y.members.len().cmp(&x.members.len()))
    });
    out
}

/// The tags from the scope's root (excluded) down to view node `i`.
fn tag_path(doc: &Document, page: &LabeledTree, i: usize) -> String {
    let mut names = Vec::new();
    let mut at = Some(i);
    while let Some(j) = at {
        if j == 0 {
            break;
        }
        names.push(doc.name(page.node(j)));
        at = page.parent(j);
    }
    names.reverse();
    names.join("/")
}

/// The candidates, best first, without any that is nested in or holds one
/// kept before it; `end(i)` is the end of the sub-tree at `i`.
///
/// The kept sub-trees are disjoint, so a candidate is inside one only if it
/// is inside the nearest that starts at or before it, and holds one only if
/// it holds the nearest that starts after it: two lookups each, where a list
/// of 60,000 items used to be compared item by item with those kept before.
fn outermost_of_nested(
    ranked: Vec<(usize, f64)>,
    end: impl Fn(usize) -> usize,
) -> Vec<(usize, f64)> {
    let mut kept = Vec::new();
    let mut kept_ends: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, s) in ranked {
        let i_end = end(i);
        let inside = kept_ends
            .range(..=i)
            .next_back()
            .is_some_and(|(_, &e)| i < e);
        let holds = kept_ends.range(i..).next().is_some_and(|(&j, _)| j < i_end);
        if !inside && !holds {
            kept_ends.insert(i, i_end);
            kept.push((i, s));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The sub-tree ends of a tree given as each node's parent (pre-order).
    fn ends(parents: &[usize]) -> Vec<usize> {
        let mut end: Vec<usize> = (1..=parents.len()).collect();
        for i in (1..parents.len()).rev() {
            end[parents[i]] = end[parents[i]].max(end[i]);
        }
        end
    }

    #[test]
    fn a_list_keeps_its_items_and_not_the_list_or_their_parts() {
        // 0 ul, 1 li, 2 a, 3 li, 4 a: the items are ranked first.
        let end = ends(&[0, 0, 1, 0, 3]);
        let ranked = vec![(1, 0.9), (3, 0.9), (0, 0.8), (2, 0.7), (4, 0.7)];
        assert_eq!(
            outermost_of_nested(ranked, |i| end[i]),
            [(1, 0.9), (3, 0.9)]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(256)))]
        #[test]
        fn keeps_what_comparing_with_every_kept_one_keeps(
            parents in prop::collection::vec(any::<prop::sample::Index>(), 1..60),
            order in any::<prop::sample::Index>(),
        ) {
            // A random pre-order tree: each node's parent is an earlier
            // node on the path from the root to the node before it.
            let mut parent = vec![0usize];
            for k in 1..=parents.len() {
                let mut path = vec![k - 1];
                while let Some(&top) = path.last() {
                    if top == 0 { break; }
                    path.push(parent[top]);
                }
                parent.push(path[parents[k - 1].index(path.len())]);
            }
            let end = ends(&parent);
            let mut ranked: Vec<(usize, f64)> = (0..parent.len()).map(|i| (i, 0.0)).collect();
            let n = ranked.len();
            ranked.rotate_left(order.index(n));
            let mut naive: Vec<(usize, f64)> = Vec::new();
            for &(i, s) in &ranked {
                if !naive.iter().any(|&(j, _)| (j <= i && i < end[j]) || (i <= j && j < end[i])) {
                    naive.push((i, s));
                }
            }
            prop_assert_eq!(outermost_of_nested(ranked, |i| end[i]), naive);
        }
    }
}
