//! Label-path upper bounds for tree matching, used to skip candidates before
//! their dynamic program runs.
//!
//! In a top-down matching every matched pair has matched parents with equal
//! labels, and so on up to the roots. Two matched nodes therefore have the
//! same *label path*: the labels from the root of their comparison down to
//! them. A [`PathIndex`] is the trie of the label paths of a query tree; a
//! walk of a candidate sub-tree that follows the trie, skipping every
//! sub-tree whose path leaves it, visits exactly the candidate nodes that any
//! matching could use, and records for each path how many such nodes the
//! candidate has and whether one of them is a leaf. From that:
//!
//! * **simple tree matching** pairs nodes of equal paths one to one, so it is
//!   at most `Σ_p min(count_query(p), count_candidate(p))`;
//! * **clustered tree matching**, computed as the scaled value `V` of
//!   [`super::clustered_tree_matching()`], pairs a query node `x` with a node of
//!   the same path for a value of at most `B(x)`: 0 if the candidate lacks the
//!   path; for a leaf `x`, 1 if a candidate node of that path is a leaf too,
//!   else 0; for an internal `x`, `min(1, Σ B(children of x) / max(m, n₀))`,
//!   with `m` the number of children of `x` and `n₀` the fewest children of
//!   a candidate node of that path. That is because only a pair of leaves is
//!   worth 1 and a leaf paired with an internal node is worth 0, while an
//!   internal pair is worth its children's best alignment divided by
//!   `max(m, n) ≥ max(m, n₀)`, where each child of `x` is matched at most
//!   once and to no more than its own bound, and at most `min(m, n)` pairs of
//!   values at most 1 are matched, so the quotient is also at most 1.
//!
//! The per-child bounds also bound what the rows of the roots' children table
//! can still add, which is how a candidate's dynamic program is cut short.
//!
//! ## What it refuses
//!
//! It only bounds: it neither scores nor drops a candidate, and a bound is
//! admissible, not tight. It serves the two tree matchings only, adds no
//! slack for rounding (the sweep does), and does not check that the
//! candidate root's label equals the query root's: the caller must. A walk
//! never recurses, and never enters a sub-tree whose path leaves the trie.

use std::collections::HashMap;

use super::label::Label;
use super::tree::{LabeledTree, NONE, SubTree};

/// The trie of a query's label paths and the query's shape, relative to its root.
#[derive(Debug)]
pub(crate) struct PathIndex {
    /// The trie node of each query node, by index relative to the query root.
    trie_of: Vec<u32>,
    edge_start: Vec<u32>,
    edge_label: Vec<Label>,
    edge_child: Vec<u32>,
    /// How many query nodes have each path.
    query_count: Vec<u32>,
    /// Each query node's parent, relative (NONE for the root).
    parent: Vec<u32>,
    leaf: Vec<bool>,
    /// Child counts.
    kids: Vec<u32>,
    /// The root's children, relative.
    root_kids: Vec<u32>,
}

/// A candidate walk's findings, reused from one candidate to the next.
#[derive(Debug, Default)]
pub(crate) struct PathScratch {
    /// The trie node of each page node visited by the current walk.
    state: Vec<u32>,
    count: Vec<u32>,
    has_leaf: Vec<bool>,
    /// The fewest children of a candidate node with each path.
    fewest: Vec<u32>,
    touched: Vec<u32>,
    bound: Vec<f64>,
    sum: Vec<f64>,
    /// Page nodes visited by walks, for statistics.
    pub(crate) visited: usize,
}

impl PathIndex {
    /// Indexes the label paths of `query`.
    pub(crate) fn new(query: SubTree<'_>) -> PathIndex {
        let (tree, root) = (query.tree, query.root());
        let size = query.size();
        let mut edges: HashMap<(u32, Label), u32> = HashMap::new();
        let mut trie_parent: Vec<(u32, Label)> = vec![(NONE, tree.label(root))];
        let mut trie_of = Vec::with_capacity(size);
        let mut parent = Vec::with_capacity(size);
        let mut leaf = Vec::with_capacity(size);
        let mut kids = Vec::with_capacity(size);
        for x in root..root + size {
            let rel_parent = match tree.parent(x) {
                Some(p) if x != root => (p - root) as u32,
                _ => NONE,
            };
            let node = if rel_parent == NONE {
                0
            } else {
                let from = trie_of[rel_parent as usize];
                let next = trie_parent.len() as u32;
                *edges.entry((from, tree.label(x))).or_insert_with(|| {
                    trie_parent.push((from, tree.label(x)));
                    next
                })
            };
            trie_of.push(node);
            parent.push(rel_parent);
            leaf.push(tree.is_leaf(x));
            kids.push(tree.child_count(x) as u32);
        }
        let nodes = trie_parent.len();
        let mut query_count = vec![0u32; nodes];
        for &n in &trie_of {
            query_count[n as usize] += 1;
        }
        // Edges as one sorted list per trie node, for lookups without hashing.
        let mut list: Vec<(u32, Label, u32)> =
            edges.into_iter().map(|((f, l), c)| (f, l, c)).collect();
        list.sort_unstable();
        let mut edge_start = vec![0u32; nodes + 1];
        for &(f, _, _) in &list {
            edge_start[f as usize + 1] += 1;
        }
        for i in 0..nodes {
            edge_start[i + 1] += edge_start[i];
        }
        let root_kids = tree
            .children(root)
            .iter()
            .map(|&k| k - root as u32)
            .collect();
        PathIndex {
            trie_of,
            edge_start,
            edge_label: list.iter().map(|&(_, l, _)| l).collect(),
            edge_child: list.iter().map(|&(_, _, c)| c).collect(),
            query_count,
            parent,
            leaf,
            kids,
            root_kids,
        }
    }

    #[inline]
    fn step(&self, from: u32, label: Label) -> Option<u32> {
        let lo = self.edge_start[from as usize] as usize;
        let hi = self.edge_start[from as usize + 1] as usize;
        let labels = &self.edge_label[lo..hi];
        if labels.len() <= 8 {
            labels
                .iter()
                .position(|&l| l == label)
                .map(|k| self.edge_child[lo + k])
        } else {
            labels
                .binary_search(&label)
                .ok()
                .map(|k| self.edge_child[lo + k])
        }
    }

    /// Walks the candidate rooted at `c` in `page` (whose label must equal the
    /// query root's), recording which query paths it has.
    pub(crate) fn walk(&self, page: &LabeledTree, c: usize, s: &mut PathScratch) {
        for &n in &s.touched {
            s.count[n as usize] = 0;
            s.has_leaf[n as usize] = false;
            s.fewest[n as usize] = u32::MAX;
        }
        s.touched.clear();
        if s.count.len() < self.query_count.len() {
            s.count.resize(self.query_count.len(), 0);
            s.has_leaf.resize(self.query_count.len(), false);
            s.fewest.resize(self.query_count.len(), u32::MAX);
        }
        if s.state.len() < page.len() {
            s.state.resize(page.len(), NONE);
        }
        let note = |s: &mut PathScratch, node: u32, i: usize| {
            if s.count[node as usize] == 0 {
                s.touched.push(node);
            }
            s.count[node as usize] += 1;
            let kids = page.child_count(i) as u32;
            if kids == 0 {
                s.has_leaf[node as usize] = true;
            }
            s.fewest[node as usize] = s.fewest[node as usize].min(kids);
        };
        s.state[c] = 0;
        note(s, 0, c);
        let end = page.subtree_end(c);
        let mut i = c + 1;
        let mut visited = 1;
        while i < end {
            let from = page.parent(i).map_or(NONE, |p| s.state[p]);
            let next = if from == NONE {
                None
            } else {
                self.step(from, page.label(i))
            };
            match next {
                Some(node) => {
                    s.state[i] = node;
                    note(s, node, i);
                    visited += 1;
                    i += 1;
                }
                _ => i = page.subtree_end(i).max(i + 1),
            }
        }
        s.visited += visited;
    }

    /// The simple tree matching bound after a walk:
    /// `Σ_p min(count_query(p), count_candidate(p))`.
    pub(crate) fn stm_bound(&self, s: &PathScratch) -> f64 {
        s.touched
            .iter()
            .map(|&n| self.query_count[n as usize].min(s.count[n as usize]) as f64)
            .sum()
    }

    /// Per-node bounds after a walk, into `s.bound` by relative query index:
    /// for clustered tree matching `B(x)` as the module describes; for simple
    /// tree matching the number of nodes below and at `x` whose path the
    /// candidate has.
    pub(crate) fn node_bounds(&self, s: &mut PathScratch, clustered: bool) {
        let n = self.trie_of.len();
        s.bound.clear();
        s.bound.resize(n, 0.0);
        s.sum.clear();
        s.sum.resize(n, 0.0);
        // Children come after their parent in pre-order, so a reverse sweep
        // sees every child's bound before its parent needs the sum.
        for x in (0..n).rev() {
            let node = self.trie_of[x] as usize;
            let b = if s.count.get(node).copied().unwrap_or(0) == 0 {
                0.0
            } else if clustered {
                if self.leaf[x] {
                    if s.has_leaf[node] { 1.0 } else { 0.0 }
                } else {
                    let n = s.fewest[node].max(self.kids[x]).max(1);
                    (s.sum[x] / f64::from(n)).min(1.0)
                }
            } else {
                1.0 + s.sum[x]
            };
            s.bound[x] = b;
            if self.parent[x] != NONE {
                s.sum[self.parent[x] as usize] += b;
            }
        }
    }

    /// The bound of the whole query after [`PathIndex::node_bounds`].
    pub(crate) fn root_bound(&self, s: &PathScratch) -> f64 {
        s.bound.first().copied().unwrap_or(0.0)
    }

    /// Fills `suffix` with the cutoff bounds of the root's children table:
    /// `suffix[i]` is the sum of the bounds of root children `i..`.
    pub(crate) fn suffix(&self, s: &PathScratch, suffix: &mut Vec<f64>) {
        suffix.clear();
        suffix.resize(self.root_kids.len() + 1, 0.0);
        for (i, &k) in self.root_kids.iter().enumerate().rev() {
            suffix[i] = suffix[i + 1] + s.bound[k as usize];
        }
    }
}
