//! "Did you mean" suggestions for misspelt keys and values.
//!
//! A suggestion is offered only when a candidate is close enough to be a
//! likely typo: a wrong guess is worse than a list of the valid spellings.
//!
//! ## What it refuses
//!
//! It offers nothing when the closest candidate is more edits away than the
//! longer of the two words allows: one edit up to four characters, two up
//! to eight, three beyond; nor from an empty list. Case is ignored. Of
//! candidates equally close, the first listed is the one offered.

/// The candidate closest to `word`, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let word_lower = word.to_lowercase();
    let (best, distance) = candidates
        .iter()
        .map(|&c| {
            (
                c,
                strsim::damerau_levenshtein(&word_lower, &c.to_lowercase()),
            )
        })
        .min_by_key(|&(_, d)| d)?;
    // Short words tolerate one edit; longer ones a few more, so that `xpth`
    // finds `xpath` while `max` does not turn into `min`.
    let allowed = match word.chars().count().max(best.chars().count()) {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    (distance <= allowed).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_words_are_suggested() {
        let keys = ["name", "xpath", "extract", "constraints", "patterns"];
        assert_eq!(closest("xpth", &keys), Some("xpath"));
        assert_eq!(closest("contraints", &keys), Some("constraints"));
        assert_eq!(closest("XPath", &keys), Some("xpath"));
        assert_eq!(closest("pattern", &keys), Some("patterns"));
    }

    #[test]
    fn distant_words_are_not() {
        assert_eq!(closest("max", &["min", "regex"]), None);
        assert_eq!(closest("selector", &["name", "xpath"]), None);
        assert_eq!(closest("anything", &[]), None);
    }
}
