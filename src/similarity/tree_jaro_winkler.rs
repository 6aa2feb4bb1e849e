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
//! whole pages. It gives no alignment.
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
}

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

    proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
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
