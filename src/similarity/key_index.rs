//! The nodes of a view grouped by a small integer key: a sub-tree's size,
//! or its count of bigrams.
//!
//! The sweep's bounds for tree bigram and tree Jaro-Winkler depend on a
//! candidate through one such key alone. Ranking the distinct keys by their
//! bound therefore ranks the candidates, and a sweep over a page of 60,000
//! elements takes its candidates group by group, touching only those it
//! scores, instead of bounding every node and ordering them all.
//!
//! ## What it refuses
//!
//! It holds positions, not meaning: which key a node has is the caller's
//! definition, and a key larger than twice the number of nodes (no sub-tree
//! key of a view is) only costs a larger counting table.

/// Nodes `0..n` grouped by key: the distinct keys ascending, each with its
/// nodes in increasing order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyIndex {
    keys: Vec<u32>,
    /// `starts[i]..starts[i + 1]` is the range of `nodes` with `keys[i]`.
    starts: Vec<u32>,
    nodes: Vec<u32>,
}

impl KeyIndex {
    /// Groups node `i` under `key_of[i]`, by a counting sort: one pass to
    /// count, one to place, so building costs time linear in the nodes and
    /// the largest key.
    pub(crate) fn build(key_of: &[u32]) -> KeyIndex {
        let largest = key_of.iter().copied().max().map_or(0, |k| k as usize);
        let mut count = vec![0u32; largest + 2];
        for &k in key_of {
            count[k as usize + 1] += 1;
        }
        let mut keys = Vec::new();
        let mut starts = vec![0u32];
        for (k, &n) in count.iter().enumerate().skip(1) {
            if n > 0 {
                keys.push((k - 1) as u32);
                starts.push(starts.last().copied().unwrap_or(0) + n);
            }
        }
        // `slot[k]`: the group of key `k`; `next[g]`: where the next node of
        // group `g` goes.
        let mut slot = vec![u32::MAX; largest + 1];
        for (i, &k) in keys.iter().enumerate() {
            slot[k as usize] = i as u32;
        }
        let mut next: Vec<u32> = starts[..keys.len()].to_vec();
        let mut nodes = vec![0u32; key_of.len()];
        for (node, &k) in key_of.iter().enumerate() {
            let group = slot[k as usize] as usize;
            nodes[next[group] as usize] = node as u32;
            next[group] += 1;
        }
        KeyIndex {
            keys,
            starts,
            nodes,
        }
    }

    /// The distinct keys, ascending.
    pub(crate) fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The nodes with the `i`-th distinct key, in increasing order.
    pub(crate) fn nodes(&self, i: usize) -> &[u32] {
        &self.nodes[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(key_of: &[u32], expected: &[(u32, &[u32])]) {
        let index = KeyIndex::build(key_of);
        let groups: Vec<(u32, &[u32])> = index
            .keys()
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, index.nodes(i)))
            .collect();
        assert_eq!(groups, expected);
    }

    #[test]
    fn groups_nodes_by_key_in_order() {
        check(&[3, 1, 3, 0, 1], &[(0, &[3]), (1, &[1, 4]), (3, &[0, 2])]);
        check(&[], &[]);
        check(&[7], &[(7, &[0])]);
    }

    proptest! {
        #[test]
        fn every_node_is_under_its_key_once(key_of in prop::collection::vec(0u32..40, 0..200)) {
            let index = KeyIndex::build(&key_of);
            let mut seen = vec![false; key_of.len()];
            prop_assert!(index.keys().windows(2).all(|w| w[0] < w[1]));
            for (i, &k) in index.keys().iter().enumerate() {
                let nodes = index.nodes(i);
                prop_assert!(!nodes.is_empty());
                prop_assert!(nodes.windows(2).all(|w| w[0] < w[1]));
                for &n in nodes {
                    prop_assert_eq!(key_of[n as usize], k);
                    prop_assert!(!seen[n as usize]);
                    seen[n as usize] = true;
                }
            }
            prop_assert!(seen.into_iter().all(|s| s));
        }
    }
}
