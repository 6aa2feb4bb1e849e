//! The candidate sweep: the sub-trees of a page most similar to a query tree
//! (a tree-gram), best first.
//!
//! Every node of the page is a candidate root, unless a filter set by
//! [`SweepOptions`] leaves it out: [`RootFilter`] (the candidate root's label,
//! or only its tag, must equal the query root's) and an optional size ratio.
//! Filters define the candidate set; the result is the top `k` of that set by
//! score, ties broken by document order, exactly as
//! [`best_candidates_exhaustive`] finds it by scoring every candidate.
//!
//! ## Pruning
//!
//! [`best_candidates`] gets the same answer while running few dynamic
//! programs. It computes for each candidate an upper bound of its score:
//!
//! * tree matching (stm, ctm): the exact score when the roots' labels differ
//!   or either root is a leaf (it costs nothing then), otherwise the
//!   label-path bounds of [`super::path_bounds`] (which include the size
//!   bound: a matching never has more pairs than the smaller tree);
//! * bigram: the Dice coefficient if every bigram of the smaller multiset were
//!   shared, from the two bigram counts, which follow from sub-tree sizes and
//!   a prefix count of internal nodes;
//! * Jaro-Winkler: the bound of [`super::tree_jaro_winkler()`] from the two lengths.
//!
//! Candidates are then taken in order of decreasing bound (document order
//! among equal bounds): from a heap of every candidate, or, for bigram and
//! Jaro-Winkler over any root, where a bound depends on the candidate
//! through its bigram count or size alone, group by group from the view's
//! nodes grouped by that key ([`super::key_index`]), so that only the
//! candidates taken are touched. A candidate is scored only while it could still enter
//! the top `k`: its bound must beat the current `k`-th score, or equal it with
//! an earlier position in the document. Once one fails, every later one fails
//! too, and the sweep stops. The dynamic program of a tree matching candidate
//! is also cut short at the roots' children table: after each row, the row's
//! best plus the bounds of the remaining query children bounds the final score,
//! and the run ends when that cannot enter the top `k`.
//!
//! Finally, candidates that are exact copies of one already handled (same
//! labels, same shape; see [`super::shape`]) reuse its outcome: the same score
//! bit for bit, or, if the first copy was cut or could not enter the top `k`,
//! the same verdict, since a copy comes later in the document and so loses
//! every tie with it.
//!
//! None of this changes the answer, because each bound is admissible (never
//! below the exact score); floating-point bounds are raised by one part in
//! 10⁹ to absorb rounding, and integer ones (simple tree matching, bigram
//! counts) are exact. A skipped candidate could at best have tied the `k`-th
//! score from a later document position, which loses the tie. The tests check
//! the pruned sweep against the exhaustive one on random trees.
//!
//! ## What it refuses
//!
//! It ranks and does not judge: no score is too low to be returned, so on a
//! page with fewer than `k` good candidates poor ones fill the top `k`, and
//! whether the best is good enough is the caller's question. A `k` of 0
//! returns nothing. Candidate roots are only elements of the page view
//! (masked sub-trees are not in it); those the filters leave out are never
//! scored, and a `max_size_ratio` below 1 counts as 1. It never fails and
//! returns no alignment.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use super::Algorithm;
use crate::dom::NodeId;

use super::clustered_tree_matching::Ctm;
use super::ordered_matching::{Cutoff, Matcher};
use super::path_bounds::{PathIndex, PathScratch};
use super::shape;
use super::simple_tree_matching::Stm;
use super::tree::{LabeledTree, SubTree};
use super::tree_bigram;
use super::tree_jaro_winkler;

/// How much a floating-point bound is raised to absorb rounding.
const SLACK: f64 = 1e-9;

/// Which page nodes may be candidate roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootFilter {
    /// The candidate root's label equals the query root's.
    SameLabel,
    /// The candidate root's tag equals the query root's, whatever its id or classes.
    SameTag,
    /// Any element.
    Any,
}

/// What a sweep looks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepOptions {
    /// The similarity that ranks candidates; stm ranks by matched count.
    pub algorithm: Algorithm,
    /// How many of the best candidates to return.
    pub k: usize,
    /// Which nodes may be candidate roots.
    pub roots: RootFilter,
    /// When set, candidates whose size differs from the query's by more than
    /// this factor (either way) are left out; factors below 1 count as 1.
    pub max_size_ratio: Option<f64>,
}

impl SweepOptions {
    /// The two best candidates with the query root's label, any size: the
    /// winner and the runner-up that adaptation compares it with.
    pub fn new(algorithm: Algorithm) -> SweepOptions {
        SweepOptions {
            algorithm,
            k: 2,
            roots: RootFilter::SameLabel,
            max_size_ratio: None,
        }
    }
}

/// A candidate sub-tree and its score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The candidate root's index in the page view.
    pub index: usize,
    /// The candidate root in the page document.
    pub node: NodeId,
    /// The score: matched pairs for stm, a similarity in [0, 1] otherwise.
    pub score: f64,
}

/// How much work a sweep did, for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepStats {
    /// Candidates that passed the filters.
    pub candidates: usize,
    /// Candidates never scored because their bound could not enter the top k.
    pub skipped: usize,
    /// Candidates whose dynamic program was cut short.
    pub cut: usize,
    /// Candidates scored in full.
    pub scored: usize,
    /// Candidates that reused the outcome of an identical earlier candidate.
    pub copies: usize,
    /// Page nodes visited by label-path walks.
    pub visited: usize,
}

/// The result of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The best candidates, best first, ties in document order.
    pub best: Vec<Candidate>,
    /// What the sweep did.
    pub stats: SweepStats,
}

/// The `k` candidate sub-trees of `page` most similar to `query`, with pruning.
pub fn best_candidates<'q>(
    query: impl Into<SubTree<'q>>,
    page: &LabeledTree,
    options: &SweepOptions,
) -> Sweep {
    let query = query.into();
    let mut scorer = Scorer::new(query, page, options.algorithm);
    let mut stats = SweepStats::default();
    let (order, total) = match keyed_order(query, page, options, &scorer) {
        Some(keyed) => keyed,
        None => heap_order(query, page, options, &mut scorer),
    };
    stats.candidates = total;
    let mut taken = 0;
    let mut best: Vec<Candidate> = Vec::new();
    let hashes = page.shapes();
    // Outcomes by shape hash: the first candidate of each shape and its score,
    // or None when its run was cut short.
    let mut seen: HashMap<u64, Vec<(usize, Option<f64>)>> = HashMap::new();
    for Queued { bound, index: c } in order {
        if !can_win(&best, options.k, bound, c) {
            break;
        }
        taken += 1;
        let copy = seen.get(&hashes[c]).and_then(|firsts| {
            firsts
                .iter()
                .find(|&&(first, _)| shape::same(page, first, c))
                .map(|&(_, outcome)| outcome)
        });
        let outcome = match copy {
            Some(outcome) => {
                stats.copies += 1;
                outcome
            }
            None => {
                let outcome = scorer.score(c, Some((&best, options.k)));
                match outcome {
                    Some(_) => stats.scored += 1,
                    None => stats.cut += 1,
                }
                seen.entry(hashes[c]).or_default().push((c, outcome));
                outcome
            }
        };
        if let Some(score) = outcome {
            offer(&mut best, options.k, page, c, score);
        }
    }
    stats.skipped = total - taken;
    stats.visited = scorer.paths_scratch.visited;
    Sweep { best, stats }
}

/// The `k` candidate sub-trees of `page` most similar to `query`, every
/// candidate scored in full: the reference that [`best_candidates`] must equal.
pub fn best_candidates_exhaustive<'q>(
    query: impl Into<SubTree<'q>>,
    page: &LabeledTree,
    options: &SweepOptions,
) -> Vec<Candidate> {
    let query = query.into();
    let mut scorer = Scorer::new(query, page, options.algorithm);
    let mut best = Vec::new();
    for c in candidates(query, page, options) {
        if let Some(score) = scorer.score(c, None) {
            offer(&mut best, options.k, page, c, score);
        }
    }
    best
}

/// The page nodes that pass the options' filters, in document order.
fn candidates<'p>(
    query: SubTree<'p>,
    page: &'p LabeledTree,
    options: &SweepOptions,
) -> impl Iterator<Item = usize> + 'p {
    let root = query.root();
    let (label, tag) = (query.tree.label(root), query.tree.tag(root));
    let size = query.size();
    let filter = options.roots;
    let ratio = options.max_size_ratio;
    (0..page.len()).filter(move |&c| {
        let root_ok = match filter {
            RootFilter::SameLabel => page.label(c) == label,
            RootFilter::SameTag => page.tag(c) == tag,
            RootFilter::Any => true,
        };
        root_ok && size_fits(ratio, size, page.subtree_size(c))
    })
}

/// Whether a candidate of `size` nodes is within `ratio` (at least 1) of a
/// query of `query` nodes, either way; always, without a ratio.
fn size_fits(ratio: Option<f64>, query: usize, size: usize) -> bool {
    ratio.is_none_or(|r| {
        let (r, q, s) = (r.max(1.0), query as f64, size as f64);
        s <= q * r && q <= s * r
    })
}

/// Candidates in the order the sweep takes them, and how many there are.
type Order<'a> = (Box<dyn Iterator<Item = Queued> + 'a>, usize);

/// Every candidate bounded, taken best bound first from a heap: building
/// it costs one pass, and the sweep usually stops after a few of a page's
/// tens of thousands of candidates, which a full sort would have ordered.
fn heap_order<'a>(
    query: SubTree<'a>,
    page: &'a LabeledTree,
    options: &SweepOptions,
    scorer: &mut Scorer<'_>,
) -> Order<'a> {
    let mut heap: BinaryHeap<Queued> = candidates(query, page, options)
        .map(|c| Queued {
            bound: scorer.bound(c),
            index: c,
        })
        .collect();
    let total = heap.len();
    (Box::new(std::iter::from_fn(move || heap.pop())), total)
}

/// For tree bigram and tree Jaro-Winkler over any root, where a bound
/// depends on the candidate through one key (its count of bigrams, its
/// size): the page's nodes grouped by that key, the groups taken by
/// decreasing bound and the nodes of groups with equal bounds merged in
/// document order. That is the heap's order, but it bounds only the
/// distinct keys and touches only the candidates the sweep takes. `None`
/// for the other sweeps.
fn keyed_order<'a>(
    query: SubTree<'a>,
    page: &'a LabeledTree,
    options: &SweepOptions,
    scorer: &Scorer<'_>,
) -> Option<Order<'a>> {
    if options.roots != RootFilter::Any {
        return None;
    }
    let index = match options.algorithm {
        Algorithm::Jw => page.by_size(),
        Algorithm::Bigram => page.by_bigram_count(),
        Algorithm::Stm | Algorithm::Ctm => return None,
    };
    let (ratio, size) = (options.max_size_ratio, query.size());
    let sizes = page.by_size();
    let total = (0..sizes.keys().len())
        .filter(|&i| size_fits(ratio, size, sizes.keys()[i] as usize))
        .map(|i| sizes.nodes(i).len())
        .sum();
    let mut ranked: Vec<(f64, usize)> = (0..index.keys().len())
        .map(|i| (scorer.bound_of_key(index.keys()[i] as usize), i))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let groups = ranked.chunk_by(|a, b| a.0 == b.0).map(|group| {
        let mut nodes: Vec<u32> = group
            .iter()
            .flat_map(|&(_, i)| index.nodes(i))
            .copied()
            .collect();
        if group.len() > 1 {
            nodes.sort_unstable();
        }
        (group[0].0, nodes)
    });
    let groups: Vec<(f64, Vec<u32>)> = groups.collect();
    let order = groups.into_iter().flat_map(move |(bound, nodes)| {
        nodes
            .into_iter()
            .map(|c| c as usize)
            .filter(move |&c| size_fits(ratio, size, page.subtree_size(c)))
            .map(move |c| Queued { bound, index: c })
    });
    Some((Box::new(order), total))
}

/// A candidate waiting in the sweep's heap: the greatest bound comes out
/// first, and among equal bounds the earliest in the document.
#[derive(Clone, Copy, Debug)]
struct Queued {
    bound: f64,
    index: usize,
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bound
            .total_cmp(&other.bound)
            .then(other.index.cmp(&self.index))
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Queued {}

/// Whether a candidate at page index `c` with a score of at most `bound`
/// could enter the top `k` held in `best`.
fn can_win(best: &[Candidate], k: usize, bound: f64, c: usize) -> bool {
    if best.len() < k {
        return true;
    }
    match best.last() {
        Some(kth) => bound > kth.score || (bound == kth.score && c < kth.index),
        None => false,
    }
}

/// Inserts a scored candidate into the sorted top `k`.
fn offer(best: &mut Vec<Candidate>, k: usize, page: &LabeledTree, c: usize, score: f64) {
    let at = best.partition_point(|b| b.score > score || (b.score == score && b.index < c));
    if at < k {
        best.insert(
            at,
            Candidate {
                index: c,
                node: page.node(c),
                score,
            },
        );
        best.truncate(k);
    }
}

/// Everything needed to bound and score candidates against one query.
struct Scorer<'a> {
    query: SubTree<'a>,
    page: &'a LabeledTree,
    algorithm: Algorithm,
    matcher: Matcher,
    paths: Option<PathIndex>,
    paths_scratch: PathScratch,
    suffix: Vec<f64>,
    query_bigrams: Vec<u64>,
    bigrams: Vec<u64>,
    jw: tree_jaro_winkler::Scratch,
}

impl<'a> Scorer<'a> {
    fn new(query: SubTree<'a>, page: &'a LabeledTree, algorithm: Algorithm) -> Scorer<'a> {
        let matching = matches!(algorithm, Algorithm::Stm | Algorithm::Ctm);
        Scorer {
            query,
            page,
            algorithm,
            matcher: Matcher::default(),
            paths: matching.then(|| PathIndex::new(query)),
            paths_scratch: PathScratch::default(),
            suffix: Vec::new(),
            query_bigrams: if algorithm == Algorithm::Bigram {
                tree_bigram::bigrams(query)
            } else {
                Vec::new()
            },
            bigrams: Vec::new(),
            jw: tree_jaro_winkler::Scratch::default(),
        }
    }

    fn clustered(&self) -> bool {
        self.algorithm == Algorithm::Ctm
    }

    /// An upper bound of the score of candidate `c`.
    fn bound(&mut self, c: usize) -> f64 {
        let (q, qr, page) = (self.query.tree, self.query.root(), self.page);
        match self.algorithm {
            Algorithm::Stm | Algorithm::Ctm => {
                if q.label(qr) != page.label(c) || q.is_leaf(qr) || page.is_leaf(c) {
                    // Without a children table to fill, the engine answers at
                    // once, so the bound is the exact score.
                    self.score(c, None).unwrap_or(f64::INFINITY)
                } else if let Some(paths) = &self.paths {
                    paths.walk(page, c, &mut self.paths_scratch);
                    if self.clustered() {
                        paths.node_bounds(&mut self.paths_scratch, true);
                        paths.root_bound(&self.paths_scratch) * (1.0 + SLACK)
                    } else {
                        paths.stm_bound(&self.paths_scratch)
                    }
                } else {
                    f64::INFINITY
                }
            }
            Algorithm::Bigram => self.bound_of_key(page.bigram_count(c)),
            Algorithm::Jw => self.bound_of_key(page.subtree_size(c)),
        }
    }

    /// For tree bigram and tree Jaro-Winkler, the bound of a candidate with
    /// `key` bigrams or nodes: the score if every bigram of the smaller
    /// multiset were shared, or every label of the shorter sequence matched
    /// in order.
    fn bound_of_key(&self, key: usize) -> f64 {
        match self.algorithm {
            Algorithm::Bigram => {
                let nq = self.query_bigrams.len();
                tree_bigram::dice(nq.min(key), nq, key)
            }
            Algorithm::Jw => {
                let lq = self.query.size();
                tree_jaro_winkler::upper_bound(lq, key, lq.min(key))
            }
            Algorithm::Stm | Algorithm::Ctm => f64::INFINITY,
        }
    }

    /// The exact score of candidate `c`, or `None` when `race` (the current
    /// top k and k) shows early that it cannot enter it.
    fn score(&mut self, c: usize, race: Option<(&[Candidate], usize)>) -> Option<f64> {
        let (q, qr, page) = (self.query.tree, self.query.root(), self.page);
        match self.algorithm {
            Algorithm::Stm | Algorithm::Ctm => {
                let clustered = self.clustered();
                let win;
                let cutoff = match (race, &self.paths) {
                    (Some((best, k)), Some(paths))
                        if q.label(qr) == page.label(c) && !q.is_leaf(qr) && !page.is_leaf(c) =>
                    {
                        paths.walk(page, c, &mut self.paths_scratch);
                        paths.node_bounds(&mut self.paths_scratch, clustered);
                        paths.suffix(&self.paths_scratch, &mut self.suffix);
                        let slack = if clustered { 1.0 + SLACK } else { 1.0 };
                        win = move |bound: f64| can_win(best, k, bound * slack, c);
                        Some(Cutoff {
                            suffix: &self.suffix,
                            can_win: &win,
                        })
                    }
                    _ => None,
                };
                let run = if clustered {
                    self.matcher.run(q, qr, page, c, &Ctm, cutoff.as_ref())
                } else {
                    self.matcher.run(q, qr, page, c, &Stm, cutoff.as_ref())
                };
                run.map(|(s, _)| s)
            }
            Algorithm::Bigram => {
                self.bigrams.clear();
                tree_bigram::collect(page, c, &mut self.bigrams);
                self.bigrams.sort_unstable();
                let common = tree_bigram::common(&self.query_bigrams, &self.bigrams);
                Some(tree_bigram::dice(
                    common,
                    self.query_bigrams.len(),
                    self.bigrams.len(),
                ))
            }
            Algorithm::Jw => {
                let candidate = &page.labels()[c..page.subtree_end(c)];
                Some(tree_jaro_winkler::jaro_winkler(
                    self.query.labels(),
                    candidate,
                    &mut self.jw,
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::LabelMode;
    use crate::similarity::label::Labels;
    use crate::similarity::testing::{arb_tree, doc, view_with};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(300)))]

        /// The heart of the pruning argument: no bound is ever below the
        /// exact score it bounds.
        #[test]
        fn every_bound_is_admissible(page in arb_tree(60, 3), query in arb_tree(15, 3)) {
            let mut labels = Labels::new();
            let p = view_with(&doc(&page), LabelMode::Tag, &mut labels);
            let q = view_with(&doc(&query), LabelMode::Tag, &mut labels);
            for algorithm in [Algorithm::Stm, Algorithm::Ctm, Algorithm::Bigram, Algorithm::Jw] {
                let mut scorer = Scorer::new((&q).into(), &p, algorithm);
                for c in 0..p.len() {
                    let bound = scorer.bound(c);
                    let exact = scorer.score(c, None).unwrap_or(f64::NAN);
                    prop_assert!(bound >= exact, "{:?} at {}: {} < {}", algorithm, c, bound, exact);
                }
            }
        }
    }

    #[test]
    fn copies_are_scored_once() {
        let page = format!("r({})", vec!["a(b,c(d,e),f)"; 20].join(","));
        let mut labels = Labels::new();
        let p = view_with(&doc(&page), LabelMode::Tag, &mut labels);
        let q = view_with(&doc("a(b,c(d),f)"), LabelMode::Tag, &mut labels);
        for algorithm in [
            Algorithm::Stm,
            Algorithm::Ctm,
            Algorithm::Bigram,
            Algorithm::Jw,
        ] {
            let options = SweepOptions {
                k: 3,
                ..SweepOptions::new(algorithm)
            };
            let sweep = best_candidates(&q, &p, &options);
            assert_eq!(sweep.stats.scored + sweep.stats.cut, 1, "{algorithm:?}");
            assert_eq!(sweep.best, best_candidates_exhaustive(&q, &p, &options));
            let firsts: Vec<usize> = sweep.best.iter().map(|c| c.index).collect();
            assert_eq!(firsts, [1, 7, 13], "{algorithm:?}");
        }
    }
}
