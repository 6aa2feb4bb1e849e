//! Leaf metrics: similarities of the strings that hang off a tree, text and
//! attribute values, in [0, 1].
//!
//! Tree matching compares structure; these compare content, for telling apart
//! candidates whose shapes tie, or for checking that a relocated field still
//! reads like the old one. Levenshtein and Jaro-Winkler come from rapidfuzz
//! and work on Unicode scalar values: its bit-parallel forms give the same
//! values as strsim's (checked below) and, on texts of 200 characters, are
//! seven to thirteen times faster, which matters where a relocation compares
//! the target's text with every candidate of a region. Token Dice is for class lists and other
//! whitespace-separated token sets, where order and repetition mean nothing.
//!
//! Callers decide what to feed them: content that the unstable-content work
//! marks (dates, prices, counters) must not be passed in, and nothing here
//! tries to guess it.
//!
//! ## What it refuses
//!
//! Nothing here trims, folds case or normalises Unicode: `Price` and `price`,
//! or a composed and a decomposed `é`, differ, and the metrics count scalar
//! values, not graphemes. Token Dice splits on ASCII whitespace only, so a
//! no-break space stays inside a token. No metric fails and no length is
//! refused: two empty strings score 1, and a string against an empty one 0.

/// A string similarity measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafMetric {
    /// 1 − Levenshtein distance / length of the longer string.
    Levenshtein,
    /// Jaro-Winkler similarity.
    JaroWinkler,
    /// Dice coefficient of the sets of whitespace-separated tokens.
    TokenDice,
}

impl LeafMetric {
    /// The similarity of `a` and `b` under this metric.
    pub fn score(self, a: &str, b: &str) -> f64 {
        match self {
            LeafMetric::Levenshtein => normalized_levenshtein(a, b),
            LeafMetric::JaroWinkler => jaro_winkler(a, b),
            LeafMetric::TokenDice => token_dice(a, b),
        }
    }
}

/// One minus the Levenshtein distance divided by the longer length; 1 for two
/// empty strings.
pub fn normalized_levenshtein(a: &str, b: &str) -> f64 {
    rapidfuzz::distance::levenshtein::normalized_similarity(a.chars(), b.chars())
}

/// The Jaro-Winkler similarity; 1 for two empty strings.
pub fn jaro_winkler(a: &str, b: &str) -> f64 {
    rapidfuzz::distance::jaro_winkler::similarity(a.chars(), b.chars())
}

/// The Dice coefficient of the sets of ASCII-whitespace-separated tokens:
/// `2 |A ∩ B| / (|A| + |B|)`, 1 when both sets are empty. Meant for class
/// lists, so `"b a a"` and `"a b"` are the same set.
pub fn token_dice(a: &str, b: &str) -> f64 {
    let (ta, tb) = (tokens(a), tokens(b));
    if ta.is_empty() && tb.is_empty() {
        return 1.0;
    }
    let common = ta.iter().filter(|t| tb.binary_search(t).is_ok()).count();
    (2 * common) as f64 / (ta.len() + tb.len()) as f64
}

/// The sorted, distinct whitespace-separated tokens of `s`.
fn tokens(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.split_ascii_whitespace().collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_dice_ignores_order_and_repeats() {
        assert_eq!(token_dice("b a a", "a  b"), 1.0);
        assert_eq!(token_dice("", " "), 1.0);
        assert_eq!(token_dice("a", ""), 0.0);
        assert_eq!(token_dice("card wide", "card narrow"), 0.5);
    }

    #[test]
    fn string_metrics_are_normalised() {
        assert_eq!(LeafMetric::Levenshtein.score("kitten", "kitten"), 1.0);
        assert!((normalized_levenshtein("kitten", "sitting") - (1.0 - 3.0 / 7.0)).abs() < 1e-12);
        assert_eq!(LeafMetric::JaroWinkler.score("", ""), 1.0);
        assert!(jaro_winkler("£12.50", "£12.99") > 0.8);
        assert_eq!(LeafMetric::TokenDice.score("x", "y"), 0.0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
        /// The faster forms must not move a single heal: their values are
        /// strsim's, the reference they replaced, bit for bit.
        #[test]
        fn agree_with_strsim(a in "[ab 9.£é]{0,90}", b in "[ab 9.£é]{0,90}") {
            proptest::prop_assert_eq!(jaro_winkler(&a, &b), strsim::jaro_winkler(&a, &b));
            proptest::prop_assert_eq!(
                normalized_levenshtein(&a, &b),
                strsim::normalized_levenshtein(&a, &b)
            );
        }
    }
}
