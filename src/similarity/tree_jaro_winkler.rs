//! Tree Jaro-Winkler: the Jaro-Winkler similarity of two trees' pre-order
//! label sequences, each label one symbol.
//!
//! Pre-order keeps a node's descendants right after it, so wrapping a part of
//! the tree in one more element, or removing a level, inserts or deletes a
//! single symbol and leaves the rest of the sequence in order; Jaro-Winkler,
//! which counts symbols found in roughly the same place and penalises only
//! transpositions, hardly moves. That is the tolerance this measure adds to
//! the tree matchings, which lose everything below an added level.
//!
//! The definition is the usual one, on symbols instead of characters: with
//! sequences `a` and `b`, a symbol of `a` at position `i` matches the first
//! unmatched equal symbol of `b` within `max(|a|, |b|) / 2 − 1` positions;
//! with `m` matches and `t` half the number of matched symbols that are out
//! of order, `jaro = (m/|a| + m/|b| + (m − t)/m) / 3` (0 when `m = 0`, 1 for
//! two empty sequences), and when `jaro > 0.7`, `jaro + 0.1 · l · (1 − jaro)`
//! with `l` the length of the common prefix, at most 4. These are the
//! conventions of strsim's `jaro_winkler`, against which the tests check this
//! implementation; it exists because strsim rescans the second sequence from
//! its start for every symbol, which is quadratic on the long sequences of
//! whole pages. Scanning only the window is quadratic too once the window is
//! long (a page of 3,000 nested elements took seconds to heal), so a long
//! window is searched through each label's positions instead: a symbol takes
//! the first free position of its label at or after the window's start, and
//! since the window only moves forward, one cursor per label finds it. The
//! two searches choose the same positions. It gives no alignment.
//!
//! ## What it refuses
//!
//! It never fails and gives no alignment. A symbol matches only within the
//! window, so a sub-tree moved further than about half the longer sequence
//! counts as removed and added; the prefix boost stops at four symbols and
//! applies only above a Jaro of 0.7. Only labels are compared: text, and
//! attributes outside the label, make no difference.

use super::label::Label;
use super::tree::SubTree;

/// Reusable buffers, so that a candidate search allocates once.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    taken: Vec<bool>,
    matched: Vec<Label>,
    /// The second sequence's positions ordered by label, then position.
    by_label: Vec<u32>,
    /// Each label's run in `by_label`: the label, its cursor, the run's end.
    runs: Vec<(Label, u32, u32)>,
}

/// Windows up to this long are scanned; longer ones are searched by label.
/// Both give the same matches; the scan is quicker on short windows, where
/// sorting the positions would cost more than it saves.
const SCAN_WINDOW: usize = 32;

/// The Jaro similarity of two symbol sequences.
pub(crate) fn jaro(a: &[Label], b: &[Label], scratch: &mut Scratch) -> f64 {
    let (la, lb) = (a.len(), b.len());
    if la == 0 && lb == 0 {
        return 1.0;
    }
    if la == 0 || lb == 0 {
        return 0.0;
    }
    let window = (la.max(lb) / 2).saturating_sub(1);
    if window <= SCAN_WINDOW {
        match_by_scan(a, b, window, scratch);
    } else {
        match_by_label(a, b, window, scratch);
    }
    let m = scratch.matched.len();
    if m == 0 {
        return 0.0;
    }
    let mut out_of_order = 0usize;
    let mut k = 0usize;
    for (j, &y) in b.iter().enumerate() {
        if scratch.taken[j] {
            if scratch.matched[k] != y {
                out_of_order += 1;
            }
            k += 1;
        }
    }
    let t = out_of_order / 2;
    ((m as f64 / la as f64) + (m as f64 / lb as f64) + ((m - t) as f64 / m as f64)) / 3.0
}

/// Matches each symbol of `a`, in order, to the first free equal symbol of
/// `b` within `window` positions: `taken` marks `b`'s matched positions and
/// `matched` lists the matched symbols in `a`'s order.
fn match_by_scan(a: &[Label], b: &[Label], window: usize, scratch: &mut Scratch) {
    let lb = b.len();
    scratch.taken.clear();
    scratch.taken.resize(lb, false);
    scratch.matched.clear();
    for (i, &x) in a.iter().enumerate() {
        let lo = i.saturating_sub(window);
        let hi = lb.min(i + window + 1);
        if lo >= hi {
            // Past the end of the shorter sequence nothing is in reach.
            continue;
        }
        let slots = scratch.taken[lo..hi].iter_mut().zip(&b[lo..hi]);
        for (taken, &y) in slots {
            if !*taken && y == x {
                *taken = true;
                scratch.matched.push(x);
                break;
            }
        }
    }
}

/// The matches of [`match_by_scan`], in time linear in the two lengths (and
/// a sort of `b`'s positions). Of a label's positions, those before its
/// cursor are taken or before the window, which only moves forward, and
/// those from the cursor on are free; so the first free one in the window is
/// the first at or after the window's start, and taking it moves the cursor.
fn match_by_label(a: &[Label], b: &[Label], window: usize, scratch: &mut Scratch) {
    let lb = b.len();
    scratch.taken.clear();
    scratch.taken.resize(lb, false);
    scratch.matched.clear();
    let by_label = &mut scratch.by_label;
    by_label.clear();
    // Sequences index a page's nodes, which an arena numbers with u32.
    by_label.extend((0..lb).map(|j| j as u32));
    by_label.sort_unstable_by_key(|&j| (b[j as usize], j));
    let runs = &mut scratch.runs;
    runs.clear();
    for (k, &j) in by_label.iter().enumerate() {
        let label = b[j as usize];
        match runs.last_mut() {
            Some(run) if run.0 == label => run.2 = k as u32 + 1,
            _ => runs.push((label, k as u32, k as u32 + 1)),
        }
    }
    for (i, &x) in a.iter().enumerate() {
        let lo = i.saturating_sub(window);
        let hi = lb.min(i + window + 1);
        let Ok(r) = runs.binary_search_by_key(&x, |run| run.0) else {
            continue;
        };
        let (_, cursor, end) = &mut runs[r];
        while *cursor < *end && (by_label[*cursor as usize] as usize) < lo {
            *cursor += 1;
        }
        if *cursor < *end && (by_label[*cursor as usize] as usize) < hi {
            scratch.taken[by_label[*cursor as usize] as usize] = true;
            scratch.matched.push(x);
            *cursor += 1;
        }
    }
}

/// Jaro-Winkler from a Jaro similarity and the two sequences' first symbols.
pub(crate) fn winkler(sim: f64, a: &[Label], b: &[Label]) -> f64 {
    if sim > 0.7 {
        let prefix = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
        sim + 0.1 * prefix as f64 * (1.0 - sim)
    } else {
        sim
    }
}

/// The Jaro-Winkler similarity of two symbol sequences.
pub(crate) fn jaro_winkler(a: &[Label], b: &[Label], scratch: &mut Scratch) -> f64 {
    winkler(jaro(a, b, scratch), a, b)
}

/// An upper bound of the Jaro-Winkler similarity of sequences of lengths `la`
/// and `lb` that have at most `common` symbols in common (as multisets).
///
/// With `m ≤ min(la, lb, common)` matches and no transposition, Jaro is at
/// most `(m/la + m/lb + 1) / 3`, and the Winkler boost is at most that of a
/// four-symbol prefix. The result is raised by one part in 10⁹ so that the
/// rounding of the exact computation can never exceed it.
pub(crate) fn upper_bound(la: usize, lb: usize, common: usize) -> f64 {
    if la == 0 && lb == 0 {
        return 1.0;
    }
    let m = la.min(lb).min(common);
    if m == 0 {
        return 0.0;
    }
    let j = ((m as f64 / la as f64) + (m as f64 / lb as f64) + 1.0) / 3.0;
    let jw = if j > 0.7 { j + 0.4 * (1.0 - j) } else { j };
    jw * (1.0 + 1e-9)
}

/// The tree Jaro-Winkler similarity of `a` and `b`, in [0, 1].
pub fn tree_jaro_winkler<'a, 'b>(a: impl Into<SubTree<'a>>, b: impl Into<SubTree<'b>>) -> f64 {
    let (a, b) = (a.into(), b.into());
    jaro_winkler(a.labels(), b.labels(), &mut Scratch::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::testing::pair;
    use proptest::prelude::*;

    fn labels(v: &[u8]) -> Vec<Label> {
        v.iter().map(|&x| Label(u32::from(x))).collect()
    }

    #[test]
    fn an_added_level_costs_little() {
        let (a, b) = pair("a(b(c,d),e(f,g))", "a(x(b(c,d)),e(f,g))");
        let s = tree_jaro_winkler(&a, &b);
        assert!(s > 0.9, "{s}");
        assert_eq!(tree_jaro_winkler(&a, &a), 1.0);
    }

    /// The positions each search takes, and the symbols in `a`'s order.
    fn matches(
        search: fn(&[Label], &[Label], usize, &mut Scratch),
        a: &[Label],
        b: &[Label],
    ) -> (Vec<bool>, Vec<Label>) {
        let mut scratch = Scratch::default();
        let window = (a.len().max(b.len()) / 2).saturating_sub(1);
        search(a, b, window, &mut scratch);
        (scratch.taken, scratch.matched)
    }

    #[test]
    fn a_long_window_matches_as_a_scan_would() {
        // Six labels in runs, so that cursors must skip taken positions and
        // positions before the window, and the window slides past some.
        let a: Vec<u8> = (0..300u32).map(|i| ((i * 7 / 11) % 6) as u8).collect();
        let b: Vec<u8> = (0..200u32).map(|i| ((i * 5 / 3) % 6) as u8).collect();
        let (x, y) = (labels(&a), labels(&b));
        let by_label = matches(match_by_label, &x, &y);
        assert!(by_label.1.len() > 100, "{} matches", by_label.1.len());
        assert_eq!(by_label, matches(match_by_scan, &x, &y));
    }

    #[test]
    fn two_long_chains_of_one_label_match_in_full() {
        // The shape of deep nesting: two chains of 60,000 equal labels, on
        // which a scan of the window would pass over the taken half of it
        // for every symbol (10⁹ steps in all).
        let a = vec![Label(1); 60_000];
        let b = vec![Label(1); 59_000];
        let mut scratch = Scratch::default();
        let j = jaro(&a, &b, &mut scratch);
        assert_eq!(scratch.matched.len(), 59_000);
        assert!((j - (59.0 / 60.0 + 2.0) / 3.0).abs() < 1e-12, "{j}");
    }

    proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
        #[test]
        fn searching_by_label_matches_as_scanning_does(
            a in prop::collection::vec(0u8..6, 0..300),
            b in prop::collection::vec(0u8..6, 0..300),
        ) {
            let (x, y) = (labels(&a), labels(&b));
            prop_assert_eq!(matches(match_by_label, &x, &y), matches(match_by_scan, &x, &y));
        }

        #[test]
        fn long_sequences_agree_with_strsim(a in prop::collection::vec(0u8..4, 60..240),
                                            b in prop::collection::vec(0u8..4, 60..240)) {
            let (x, y) = (labels(&a), labels(&b));
            prop_assert_eq!(jaro_winkler(&x, &y, &mut Scratch::default()),
                            strsim::generic_jaro_winkler(&x, &y));
        }

        #[test]
        fn agrees_with_strsim(a in prop::collection::vec(0u8..5, 0..40),
                              b in prop::collection::vec(0u8..5, 0..40)) {
            let (x, y) = (labels(&a), labels(&b));
            let ours = jaro_winkler(&x, &y, &mut Scratch::default());
            let theirs = strsim::generic_jaro_winkler(&x, &y);
            prop_assert_eq!(ours, theirs);
            let common = {
                let mut n = 0;
                for s in 0u8..5 {
                    n += a.iter().filter(|&&v| v == s).count().min(b.iter().filter(|&&v| v == s).count());
                }
                n
            };
            prop_assert!(ours <= upper_bound(a.len(), b.len(), common));
        }
    }
}
