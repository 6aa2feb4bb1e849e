//! Distinct values, counted exactly up to a cap in bounded memory.
//!
//! Each value is hashed to 64 bits and the smallest hashes seen are kept,
//! at most [`DISTINCT_CAP`] of them. Below the cap the count is exact (two
//! different values share a hash with a chance under one in 10^11 at the
//! cap); past it the count stays at the cap and says so. Keeping the
//! *smallest* hashes, rather than the first ones, makes the kept set the
//! same whatever order the values and the partial counts arrive in: it is
//! always the cap's smallest hashes of all the values, so a run counts the
//! same on any number of threads.
//!
//! ## What it refuses
//!
//! It never holds more hashes than its cap: past [`DISTINCT_CAP`] (or the cap
//! given) it gives the cap and [`Distinct::is_capped`], not a count. A cap of
//! zero is taken as one, and a merge keeps the smaller of two caps. It does
//! not tell apart two values whose 64-bit hashes collide, nor take text for
//! the number it spells: `"1"` and `1` are two values.

use std::collections::BTreeSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

/// The most distinct values a pattern's count holds exactly: 10,000 hashes,
/// well under a megabyte per pattern, and more than a health check needs to
/// tell "many" from "a few".
pub const DISTINCT_CAP: usize = 10_000;

/// The distinct values of one pattern so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distinct {
    /// The smallest hashes of the values seen, at most `cap`.
    smallest: BTreeSet<u64>,
    /// Whether more than `cap` distinct values were seen.
    over: bool,
    cap: usize,
}

impl Default for Distinct {
    fn default() -> Self {
        Distinct::with_cap(DISTINCT_CAP)
    }
}

impl Distinct {
    /// A count that holds at most `cap` values exactly (at least one).
    pub fn with_cap(cap: usize) -> Distinct {
        Distinct {
            smallest: BTreeSet::new(),
            over: false,
            cap: cap.max(1),
        }
    }

    /// Counts one value. Text counts by its characters, anything else by
    /// its JSON form, so the number 1 and the text "1" are two values.
    pub fn insert(&mut self, value: &Value) {
        let mut hasher = DefaultHasher::new();
        match value {
            Value::String(s) => (0u8, s.as_str()).hash(&mut hasher),
            other => (1u8, other.to_string()).hash(&mut hasher),
        }
        self.insert_hash(hasher.finish());
    }

    /// Counts one value by its hash.
    pub fn insert_hash(&mut self, hash: u64) {
        if self.smallest.contains(&hash) {
            return;
        }
        if self.smallest.len() < self.cap {
            self.smallest.insert(hash);
            return;
        }
        self.over = true;
        if self.smallest.last().is_some_and(|&last| hash < last) {
            self.smallest.insert(hash);
            self.smallest.pop_last();
        }
    }

    /// Adds the values another count has seen.
    pub fn merge(&mut self, other: Distinct) {
        self.cap = self.cap.min(other.cap);
        self.over |= other.over;
        while self.smallest.len() > self.cap {
            self.smallest.pop_last();
            self.over = true;
        }
        for hash in other.smallest {
            self.insert_hash(hash);
        }
    }

    /// How many distinct values were seen, or the cap when more were.
    pub fn count(&self) -> u64 {
        self.smallest.len() as u64
    }

    /// Whether more distinct values were seen than the count holds.
    pub fn is_capped(&self) -> bool {
        self.over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts `hashes` with `cap` and gives (count, capped).
    fn check(cap: usize, hashes: &[u64], expected: (u64, bool)) {
        let mut d = Distinct::with_cap(cap);
        for &h in hashes {
            d.insert_hash(h);
        }
        assert_eq!((d.count(), d.is_capped()), expected, "{hashes:?}");
    }

    #[test]
    fn counts_are_exact_up_to_the_cap() {
        check(3, &[], (0, false));
        check(3, &[5, 5, 5], (1, false));
        check(3, &[1, 2, 3, 2, 1], (3, false));
        check(3, &[1, 2, 3, 4], (3, true));
        check(3, &[9, 8, 7, 1, 2, 3, 9], (3, true));
    }

    #[test]
    fn text_and_numbers_are_different_values() {
        let mut d = Distinct::default();
        for v in [
            Value::from("1"),
            Value::from(1),
            Value::from("1"),
            Value::from(1.5),
            Value::Bool(true),
        ] {
            d.insert(&v);
        }
        assert_eq!(d.count(), 4);
    }

    #[test]
    fn a_capped_count_keeps_the_smallest_hashes_whatever_the_order() {
        let mut forward = Distinct::with_cap(2);
        let mut backward = Distinct::with_cap(2);
        for h in 1..=6 {
            forward.insert_hash(h);
            backward.insert_hash(7 - h);
        }
        assert_eq!(forward, backward);
        let mut merged = Distinct::with_cap(2);
        let mut part = Distinct::with_cap(2);
        part.insert_hash(6);
        part.insert_hash(5);
        merged.merge(part);
        for h in [4, 3, 2, 1] {
            let mut one = Distinct::with_cap(2);
            one.insert_hash(h);
            merged.merge(one);
        }
        assert_eq!(merged, forward);
    }
}
