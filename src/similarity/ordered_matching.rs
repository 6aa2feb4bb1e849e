//! The top-down ordered matching engine shared by simple and clustered tree
//! matching.
//!
//! Both algorithms compute the same recursion and differ only in weights
//! ([`Weights`]). For two nodes `x` and `y`, the value of the pair is:
//!
//! * 0 if their labels differ;
//! * `leaf()` if neither has children;
//! * `internal(m, n, 0)` if only one of them has children (there is nothing
//!   to align);
//! * otherwise `internal(m, n, M[m][n])`, where `x₁…x_m` and `y₁…y_n` are the
//!   children and `M` aligns them like a longest common subsequence whose
//!   matched cells weigh the value of the child pair:
//!   `M[i][j] = max(M[i][j−1], M[i−1][j], M[i−1][j−1] + value(x_i, y_j))`.
//!
//! ## Without recursion, in bounded memory
//!
//! A pair of children is only ever reached from its parents' pair, so every
//! pair is computed once, when its parents' table needs it. The engine walks
//! the pairs depth-first with an explicit stack of frames; a frame holds the
//! two rolling rows of its children table and its position in it, and is
//! suspended while a child pair is computed. A score therefore needs at most
//! `2 × (|B| + depth)` table cells, whatever the sizes of the trees, and time
//! proportional to the total size of the children tables of the label-equal
//! pairs it reaches (at most `|A| × |B|`).
//!
//! ## Alignments
//!
//! For an alignment the engine also keeps every children table's cell values
//! (the "store") and, once the score is known, walks back from the roots: each
//! table is rebuilt from its cell values, and the pairs on its optimal path
//! with a positive value are matched; internal ones are walked in turn. The
//! store is bounded by [`STORE_BUDGET`] cells. A comparison that would exceed
//! it is aligned one level at a time instead: the children table of the pair
//! at hand is filled with score-only runs, keeping one step byte per cell, it
//! is walked back, and each matched internal child pair is aligned the same
//! way, or with a store again when the score-only run showed that its own
//! comparison fits. That trades time (a sub-tree pair may be scored once per
//! level above it) for memory that stays bounded; the only refusal is one
//! pair of sibling lists whose table would exceed [`LEVEL_LIMIT`] cells,
//! reported as [`SimilarityError::TooWide`].
//!
//! Walking back prefers the diagonal (a match), then the row above, then the
//! column to the left, the same way on both paths, so alignments are
//! deterministic and do not depend on the budget.
//!
//! ## What it refuses
//!
//! One pair of sibling lists whose table would exceed [`LEVEL_LIMIT`] cells,
//! as [`SimilarityError::TooWide`]. No depth of tree and no size of store is
//! refused: both are bounded as above.

use super::SimilarityError;
use super::tree::{LabeledTree, NONE, SubTree};

/// The most cell values one alignment stores before it aligns one level at a
/// time: 4,194,304 cells, 48 MiB.
pub const STORE_BUDGET: usize = 1 << 22;

/// The largest children table an alignment builds for one pair of sibling
/// lists: 67,108,864 cells (two lists of 8,192 children), one byte each.
pub const LEVEL_LIMIT: usize = 1 << 26;

/// The weights that make the engine one algorithm or another.
pub(crate) trait Weights {
    /// The value of a label-equal pair of nodes without children.
    fn leaf(&self) -> f64;
    /// The value of a label-equal pair of internal nodes with `m` and `n`
    /// children whose best alignment weighs `children`.
    fn internal(&self, m: u32, n: u32, children: f64) -> f64;
}

/// A way to give up on a comparison that cannot matter: after each row of the
/// roots' children table, the engine bounds the final score and asks
/// `can_win`; a `false` ends the run.
pub(crate) struct Cutoff<'c> {
    /// `suffix[i]` bounds the total value that children `i..` of the first
    /// tree's root can still add; one entry per child and a final 0.
    pub suffix: &'c [f64],
    /// Whether a final score this high could still be chosen.
    pub can_win: &'c dyn Fn(f64) -> bool,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    a: u32,
    b: u32,
    m: u32,
    n: u32,
    i: u32,
    j: u32,
    /// Where the frame's two rows of `n + 1` cells start in `Matcher::rows`.
    rows: usize,
    /// Where the frame's `m × n` cell values start in the store, or NONE.
    block: u32,
}

#[derive(Debug, Default)]
struct Store {
    on: bool,
    budget: usize,
    overflow: bool,
    /// Whether a run ends (with `None`) as soon as the store overflows.
    abort: bool,
    values: Vec<f64>,
    sub: Vec<u32>,
}

/// The engine's reusable state: a candidate search runs thousands of
/// comparisons with one matcher, which allocates only when a table outgrows
/// the largest seen so far.
#[derive(Debug, Default)]
pub(crate) struct Matcher {
    frames: Vec<Frame>,
    rows: Vec<f64>,
    store: Store,
    /// The children-table cells of the current run: what its store needs.
    cells: u64,
}

impl Matcher {
    /// The value of the pair `(ra, rb)`, and the store block of its children
    /// table (NONE when not stored), or `None` when `cutoff` ended the run
    /// or the store overflowed with `abort` set.
    pub(crate) fn run<W: Weights>(
        &mut self,
        a: &LabeledTree,
        ra: usize,
        b: &LabeledTree,
        rb: usize,
        w: &W,
        cutoff: Option<&Cutoff<'_>>,
    ) -> Option<(f64, u32)> {
        self.cells = 0;
        if a.label(ra) != b.label(rb) {
            return Some((0.0, NONE));
        }
        if a.is_leaf(ra) || b.is_leaf(rb) {
            return Some((pair_without_table(a, ra, b, rb, w), NONE));
        }
        self.frames.clear();
        self.rows.clear();
        self.push(a, ra, b, rb);
        if self.store.overflow && self.store.abort {
            return None;
        }
        let mut returned: Option<(f64, u32)> = None;
        loop {
            let top = self.frames.len() - 1;
            let mut f = self.frames[top];
            let ka = a.children(f.a as usize);
            let kb = b.children(f.b as usize);
            if let Some((value, block)) = returned.take() {
                self.set(&f, value, block);
                f.j += 1;
            }
            let mut pushed = false;
            while f.i < f.m {
                if f.j == f.n {
                    if top == 0
                        && let Some(c) = cutoff
                    {
                        let best = self.rows[row_start(&f, f.i as usize + 1) + f.n as usize];
                        let rest = c.suffix.get(f.i as usize + 1).copied().unwrap_or(0.0);
                        if !(c.can_win)(w.internal(f.m, f.n, best + rest)) {
                            return None;
                        }
                    }
                    f.i += 1;
                    f.j = 0;
                    continue;
                }
                let ci = ka[f.i as usize] as usize;
                let cj = kb[f.j as usize] as usize;
                if a.label(ci) != b.label(cj) {
                    self.set(&f, 0.0, NONE);
                    f.j += 1;
                } else if a.is_leaf(ci) || b.is_leaf(cj) {
                    self.set(&f, pair_without_table(a, ci, b, cj, w), NONE);
                    f.j += 1;
                } else {
                    self.frames[top] = f;
                    self.push(a, ci, b, cj);
                    if self.store.overflow && self.store.abort {
                        return None;
                    }
                    pushed = true;
                    break;
                }
            }
            if pushed {
                continue;
            }
            let best = self.rows[row_start(&f, f.m as usize) + f.n as usize];
            let value = w.internal(f.m, f.n, best);
            self.frames.pop();
            self.rows.truncate(f.rows);
            if self.frames.is_empty() {
                return Some((value, f.block));
            }
            returned = Some((value, f.block));
        }
    }

    fn push(&mut self, a: &LabeledTree, x: usize, b: &LabeledTree, y: usize) {
        let m = a.child_count(x);
        let n = b.child_count(y);
        self.cells += m as u64 * n as u64;
        let rows = self.rows.len();
        self.rows.resize(rows + 2 * (n + 1), 0.0);
        let block = if self.store.on {
            let at = self.store.values.len();
            if at + m * n > self.store.budget {
                // Give the memory back at once: the store is useless now.
                self.store = Store {
                    overflow: true,
                    abort: self.store.abort,
                    ..Store::default()
                };
                NONE
            } else {
                self.store.values.resize(at + m * n, 0.0);
                self.store.sub.resize(at + m * n, NONE);
                at as u32
            }
        } else {
            NONE
        };
        self.frames.push(Frame {
            a: x as u32,
            b: y as u32,
            m: m as u32,
            n: n as u32,
            i: 0,
            j: 0,
            rows,
            block,
        });
    }

    /// Fills cell (i + 1, j + 1) of the frame's table from a child pair's value.
    #[inline]
    fn set(&mut self, f: &Frame, value: f64, block: u32) {
        let r = f.i as usize + 1;
        let c = f.j as usize + 1;
        let cur = row_start(f, r);
        let prev = row_start(f, r - 1);
        let left = self.rows[cur + c - 1];
        let up = self.rows[prev + c];
        let diag = self.rows[prev + c - 1] + value;
        self.rows[cur + c] = left.max(up).max(diag);
        if f.block != NONE && self.store.on {
            let k = f.block as usize + f.i as usize * f.n as usize + f.j as usize;
            self.store.values[k] = value;
            self.store.sub[k] = block;
        }
    }

    fn store_on(&mut self, budget: usize) {
        self.store.on = true;
        self.store.abort = true;
        self.store.budget = budget;
        self.store.overflow = false;
        self.store.values.clear();
        self.store.sub.clear();
    }

    fn store_off(&mut self) {
        self.store = Store::default();
    }

    /// Walks back every stored table below `start` (a pair and the block of
    /// its table), appending the matched child pairs to `out`.
    fn trace_store(
        &self,
        a: &LabeledTree,
        b: &LabeledTree,
        start: (u32, u32, u32),
        out: &mut Vec<(u32, u32)>,
        table: &mut Vec<f64>,
    ) {
        let mut work = vec![start];
        while let Some((u, v, block)) = work.pop() {
            let ka = a.children(u as usize);
            let kb = b.children(v as usize);
            let (m, n) = (ka.len(), kb.len());
            let at = block as usize;
            let (Some(values), Some(sub)) = (
                self.store.values.get(at..at + m * n),
                self.store.sub.get(at..at + m * n),
            ) else {
                continue;
            };
            fill_table(m, n, values, table);
            let width = n + 1;
            let (mut i, mut j) = (m, n);
            while i > 0 && j > 0 {
                let here = table[i * width + j];
                let value = values[(i - 1) * n + j - 1];
                let step = choose(
                    here,
                    value,
                    table[(i - 1) * width + j - 1],
                    table[(i - 1) * width + j],
                );
                match step {
                    Step::Diagonal => {
                        let k = (i - 1) * n + j - 1;
                        out.push((ka[i - 1], kb[j - 1]));
                        if sub[k] != NONE {
                            work.push((ka[i - 1], kb[j - 1], sub[k]));
                        }
                        i -= 1;
                        j -= 1;
                    }
                    Step::Up => i -= 1,
                    Step::Left => j -= 1,
                }
            }
        }
    }
}

/// The value of a label-equal pair of which at least one node has no children.
#[inline]
fn pair_without_table<W: Weights>(
    a: &LabeledTree,
    x: usize,
    b: &LabeledTree,
    y: usize,
    w: &W,
) -> f64 {
    let (m, n) = (a.child_count(x), b.child_count(y));
    if m == 0 && n == 0 {
        w.leaf()
    } else {
        w.internal(m as u32, n as u32, 0.0)
    }
}

#[inline]
fn row_start(f: &Frame, r: usize) -> usize {
    f.rows + (r & 1) * (f.n as usize + 1)
}

/// A step of the walk back through a children table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Diagonal,
    Up,
    Left,
}

/// The step back from a cell worth `here`, whose own pair is worth `value`,
/// with `diagonal` and `up` the cells it could have come from; one rule for
/// both alignment paths.
#[inline]
fn choose(here: f64, value: f64, diagonal: f64, up: f64) -> Step {
    if value > 0.0 && here == diagonal + value {
        Step::Diagonal
    } else if here == up {
        Step::Up
    } else {
        Step::Left
    }
}

/// Rebuilds a full children table from its cell values, with exactly the
/// operations the engine used, so that walking back finds the same optimum.
fn fill_table(m: usize, n: usize, values: &[f64], table: &mut Vec<f64>) {
    let width = n + 1;
    table.clear();
    table.resize((m + 1) * width, 0.0);
    for i in 1..=m {
        for j in 1..=n {
            let left = table[i * width + j - 1];
            let up = table[(i - 1) * width + j];
            let diag = table[(i - 1) * width + j - 1] + values[(i - 1) * n + j - 1];
            table[i * width + j] = left.max(up).max(diag);
        }
    }
}

/// The score of `a` against `b`, without an alignment.
pub(crate) fn score<W: Weights>(a: SubTree<'_>, b: SubTree<'_>, w: &W) -> f64 {
    Matcher::default()
        .run(a.tree, a.root(), b.tree, b.root(), w, None)
        .map_or(0.0, |(s, _)| s)
}

/// The score of `a` against `b` and the matched pairs, as view indices sorted
/// by the first tree's index.
pub(crate) fn align<W: Weights>(
    a: SubTree<'_>,
    b: SubTree<'_>,
    w: &W,
) -> Result<(f64, Vec<(u32, u32)>), SimilarityError> {
    align_within(a, b, w, STORE_BUDGET, LEVEL_LIMIT)
}

/// [`align`] with the store budget and level limit as parameters, so that
/// tests can drive the one-level-at-a-time path on small trees.
pub(crate) fn align_within<W: Weights>(
    a: SubTree<'_>,
    b: SubTree<'_>,
    w: &W,
    budget: usize,
    level_limit: usize,
) -> Result<(f64, Vec<(u32, u32)>), SimilarityError> {
    let (ta, tb) = (a.tree, b.tree);
    let mut matcher = Matcher::default();
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut table: Vec<f64> = Vec::new();
    let mut score = None;
    // Pairs still to align below, the first being the roots, each with
    // whether its comparison may fit the store (unknown for the roots).
    let mut pending: Vec<(u32, u32, bool)> = vec![(a.root, b.root, true)];
    while let Some((u, v, may_fit)) = pending.pop() {
        let (u_, v_) = (u as usize, v as usize);
        let mut value = None;
        if may_fit {
            matcher.store_on(budget);
            if let Some((s, block)) = matcher.run(ta, u_, tb, v_, w, None) {
                value = Some(s);
                if s > 0.0 && !ta.is_leaf(u_) && !tb.is_leaf(v_) {
                    matcher.trace_store(ta, tb, (u, v, block), &mut out, &mut table);
                }
            }
            matcher.store_off();
        }
        let s = match value {
            Some(s) => s,
            // The store overflowed: align this pair one level at a time.
            None => align_level(
                &mut matcher,
                (ta, u_),
                (tb, v_),
                w,
                (budget, level_limit),
                &mut out,
                &mut pending,
            )?,
        };
        if score.is_none() {
            score = Some(s);
            if s > 0.0 {
                out.push((u, v));
            }
        }
    }
    out.sort_unstable();
    Ok((score.unwrap_or(0.0), out))
}

/// The step codes of a one-level table, with a flag for child pairs whose
/// own comparison fits the store.
const LEFT: u8 = 0;
const UP: u8 = 1;
const DIAGONAL: u8 = 2;
const FITS: u8 = 4;

/// Aligns the children of `(u, v)` (both internal, labels equal) with one
/// table of step bytes, whose cells are filled by score-only runs, and
/// returns the pair's value; matched child pairs go to `out`, and the
/// internal ones to `pending` with whether their own comparison fits the store.
fn align_level<W: Weights>(
    matcher: &mut Matcher,
    (a, u): (&LabeledTree, usize),
    (b, v): (&LabeledTree, usize),
    w: &W,
    (budget, level_limit): (usize, usize),
    out: &mut Vec<(u32, u32)>,
    pending: &mut Vec<(u32, u32, bool)>,
) -> Result<f64, SimilarityError> {
    let ka = a.children(u);
    let kb = b.children(v);
    let (m, n) = (ka.len(), kb.len());
    let cells = m as u64 * n as u64;
    if cells > level_limit as u64 {
        return Err(SimilarityError::TooWide {
            a: a.node(u),
            b: b.node(v),
            cells,
            limit: level_limit as u64,
        });
    }
    let mut steps = vec![LEFT; m * n];
    let mut prev = vec![0.0f64; n + 1];
    let mut cur = vec![0.0f64; n + 1];
    for (i, &ci) in ka.iter().enumerate() {
        for (j, &cj) in kb.iter().enumerate() {
            let value = matcher
                .run(a, ci as usize, b, cj as usize, w, None)
                .map_or(0.0, |(s, _)| s);
            let best = cur[j].max(prev[j + 1]).max(prev[j] + value);
            cur[j + 1] = best;
            let step = match choose(best, value, prev[j], prev[j + 1]) {
                Step::Diagonal => DIAGONAL,
                Step::Up => UP,
                Step::Left => LEFT,
            };
            let fits = if matcher.cells <= budget as u64 {
                FITS
            } else {
                0
            };
            steps[i * n + j] = step | fits;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let (mut i, mut j) = (m, n);
    while i > 0 && j > 0 {
        let code = steps[(i - 1) * n + j - 1];
        match code & 3 {
            DIAGONAL => {
                let (ci, cj) = (ka[i - 1], kb[j - 1]);
                out.push((ci, cj));
                if !a.is_leaf(ci as usize) && !b.is_leaf(cj as usize) {
                    pending.push((ci, cj, code & FITS != 0));
                }
                i -= 1;
                j -= 1;
            }
            UP => i -= 1,
            _ => j -= 1,
        }
    }
    Ok(w.internal(m as u32, n as u32, prev[n]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::testing::pair;

    struct Count;
    impl Weights for Count {
        fn leaf(&self) -> f64 {
            1.0
        }
        fn internal(&self, _: u32, _: u32, children: f64) -> f64 {
            1.0 + children
        }
    }

    #[test]
    fn every_store_budget_finds_the_same_alignment() {
        let (a, b) = pair(
            "r(x(y,z),x(y),w(v(u)),x(y(q,q),z))",
            "r(x(y),w(v(u,u)),x(z),x(y(q),z))",
        );
        let full = align((&a).into(), (&b).into(), &Count).expect("aligned");
        assert_eq!(full.1.len() as f64, full.0);
        for budget in 0..12 {
            let small = align_within((&a).into(), (&b).into(), &Count, budget, LEVEL_LIMIT)
                .expect("aligned");
            assert_eq!(small, full, "budget {budget}");
        }
    }

    #[test]
    fn a_table_beyond_the_level_limit_is_refused() {
        let (a, b) = pair("r(x(y),x(y),x(y))", "r(x(y),x(y))");
        let err = align_within((&a).into(), (&b).into(), &Count, 0, 5);
        assert!(matches!(
            err,
            Err(SimilarityError::TooWide { cells: 6, .. })
        ));
    }

    #[test]
    fn a_cutoff_ends_the_run_only_when_it_says_so() {
        let (a, b) = pair("r(x(y),x(y),x(y))", "r(x(y),x(y))");
        let mut m = Matcher::default();
        let suffix = [6.0, 4.0, 2.0, 0.0];
        let never = |_: f64| false;
        let always = |_: f64| true;
        let stop = Cutoff {
            suffix: &suffix,
            can_win: &never,
        };
        let go = Cutoff {
            suffix: &suffix,
            can_win: &always,
        };
        assert_eq!(m.run(&a, 0, &b, 0, &Count, Some(&stop)), None);
        assert_eq!(m.run(&a, 0, &b, 0, &Count, Some(&go)), Some((5.0, NONE)));
    }
}
