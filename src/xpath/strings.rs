//! The string algorithms of the function library, on plain `&str`.
//!
//! Positions and lengths count characters (Unicode scalar values), not bytes,
//! and whitespace means XML whitespace, as XPath 1.0 defines them.
//!
//! ## What it refuses
//!
//! A no-break space or any other Unicode space is not whitespace here, and
//! nothing folds case or Unicode forms, except [`lang_matches`], which
//! ignores ASCII case. No function fails or panics on a character boundary:
//! [`substring`] with a NaN bound or an empty range gives `""`. Nothing here
//! counts against an evaluation's budget; that is the callers' business.

use super::lexer::is_xml_space;
use super::number::round;

/// `normalize-space()`: XML whitespace runs collapse to one space, trimmed.
pub fn normalize_space(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(is_xml_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Whether `s` is already in normalized form (so it can be borrowed as is).
pub fn is_normalized(s: &str) -> bool {
    let b = s.as_bytes();
    if b.first().is_some_and(|&c| c == b' ') || b.last().is_some_and(|&c| c == b' ') {
        return false;
    }
    let mut prev_space = false;
    for &c in b {
        match c {
            b'\t' | b'\r' | b'\n' => return false,
            b' ' if prev_space => return false,
            b' ' => prev_space = true,
            _ => prev_space = false,
        }
    }
    true
}

/// Compares a string, given in pieces, with a normalized string as
/// `normalize-space` of the whole would compare, without building it: each
/// piece is normalized as it comes, and the first difference ends the match.
///
/// Whitespace is the four XML space characters, all ASCII, so the pieces
/// are read byte by byte (no byte of a multi-byte UTF-8 character is one).
pub(crate) struct NormalizedMatch<'w> {
    want: &'w [u8],
    /// How many bytes of `want` matched so far.
    at: usize,
    /// Whitespace was read after some text: one space, unless the end comes.
    space: bool,
    /// A difference was found.
    differs: bool,
}

impl<'w> NormalizedMatch<'w> {
    /// A match against `want`, which must be normalized.
    pub(crate) fn new(want: &'w str) -> Self {
        NormalizedMatch {
            want: want.as_bytes(),
            at: 0,
            space: false,
            differs: false,
        }
    }

    /// Reads the next piece; false once the strings are known to differ.
    pub(crate) fn feed(&mut self, piece: &str) -> bool {
        if self.differs {
            return false;
        }
        for &b in piece.as_bytes() {
            if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                // Leading whitespace is dropped, a run becomes one space.
                self.space |= self.at > 0;
                continue;
            }
            if self.space {
                if self.want.get(self.at) != Some(&b' ') {
                    self.differs = true;
                    return false;
                }
                self.at += 1;
                self.space = false;
            }
            if self.want.get(self.at) != Some(&b) {
                self.differs = true;
                return false;
            }
            self.at += 1;
        }
        true
    }

    /// Whether the pieces read, normalized, are the string wanted (trailing
    /// whitespace dropped).
    pub(crate) fn matches(&self) -> bool {
        !self.differs && self.at == self.want.len()
    }
}

/// `substring(s, start[, len])` with the rounding and NaN rules of section 4.2:
/// the characters at positions p with round(start) <= p < round(start) + round(len).
pub fn substring(s: &str, start: f64, len: Option<f64>) -> &str {
    let first = round(start);
    let end = match len {
        Some(l) => first + round(l),
        None => f64::INFINITY,
    };
    // NaN bounds compare false, so nothing is selected.
    if first.is_nan() || end.is_nan() || end <= first {
        return "";
    }
    let mut from = None;
    let mut to = s.len();
    for (p, (byte, _)) in s.char_indices().enumerate() {
        let pos = (p + 1) as f64;
        if from.is_none() && pos >= first && pos < end {
            from = Some(byte);
        }
        if from.is_some() && pos >= end {
            to = byte;
            break;
        }
    }
    match from {
        Some(f) => &s[f..to],
        None => "",
    }
}

/// `translate(s, from, to)`: each character of `from` becomes the character
/// at the same position of `to`, or is removed when `to` is shorter; the first
/// occurrence of a repeated character in `from` wins.
pub fn translate(s: &str, from: &str, to: &str) -> String {
    let map: Vec<(char, Option<char>)> = {
        let to: Vec<char> = to.chars().collect();
        let mut m: Vec<(char, Option<char>)> = Vec::new();
        for (i, c) in from.chars().enumerate() {
            if !m.iter().any(|&(k, _)| k == c) {
                m.push((c, to.get(i).copied()));
            }
        }
        m
    };
    s.chars()
        .filter_map(|c| match map.iter().find(|&&(k, _)| k == c) {
            Some(&(_, r)) => r,
            None => Some(c),
        })
        .collect()
}

/// `substring-before(s, t)`.
pub fn substring_before<'s>(s: &'s str, t: &str) -> &'s str {
    s.find(t).map_or("", |i| &s[..i])
}

/// `substring-after(s, t)`.
pub fn substring_after<'s>(s: &'s str, t: &str) -> &'s str {
    s.find(t).map_or("", |i| &s[i + t.len()..])
}

/// Whether the language `lang` (an `xml:lang` value) is `want` or a
/// sub-language of it, ignoring ASCII case, as `lang()` defines.
pub fn lang_matches(lang: &str, want: &str) -> bool {
    let n = want.len();
    lang.len() >= n
        && lang.is_char_boundary(n)
        && lang[..n].eq_ignore_ascii_case(want)
        && (lang.len() == n || lang.as_bytes()[n] == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check_match(pieces: &[&str], want: &str, expected: bool) {
        let mut m = NormalizedMatch::new(want);
        for p in pieces {
            m.feed(p);
        }
        assert_eq!(m.matches(), expected, "{pieces:?} against {want:?}");
    }

    #[test]
    fn a_normalized_match_reads_pieces_as_one_normalized_string() {
        check_match(&["  Format", ":\n "], "Format:", true);
        check_match(&["ISBN", "\t", " ", ":"], "ISBN :", true);
        check_match(&["ISBN:"], "ISBN :", false);
        check_match(&["ISBN:x"], "ISBN:", false);
        check_match(&["ISB"], "ISBN", false);
        check_match(&[" ", "\n"], "", true);
        check_match(&["a"], "", false);
        check_match(&["é  ü"], "é ü", true);
    }

    proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
        #[test]
        fn a_normalized_match_agrees_with_normalize_space(
            pieces in proptest::collection::vec("[ab \t\né]{0,6}", 0..5),
            want in "[ab é]{0,8}",
        ) {
            let want = normalize_space(&want);
            let mut m = NormalizedMatch::new(&want);
            for p in &pieces {
                m.feed(p);
            }
            prop_assert_eq!(m.matches(), normalize_space(&pieces.concat()) == want);
        }
    }

    #[test]
    fn substring_follows_the_specification_examples() {
        assert_eq!(substring("12345", 2.0, Some(3.0)), "234");
        assert_eq!(substring("12345", 2.0, None), "2345");
        assert_eq!(substring("12345", 1.5, Some(2.6)), "234");
        assert_eq!(substring("12345", 0.0, Some(3.0)), "12");
        assert_eq!(substring("12345", f64::NAN, Some(3.0)), "");
        assert_eq!(substring("12345", 1.0, Some(f64::NAN)), "");
        assert_eq!(substring("12345", -42.0, Some(f64::INFINITY)), "12345");
        assert_eq!(
            substring("12345", f64::NEG_INFINITY, Some(f64::INFINITY)),
            ""
        );
        assert_eq!(substring("12345", -1.0, Some(3.0)), "1");
        assert_eq!(substring("12345", f64::INFINITY, None), "");
        assert_eq!(substring("12345", -0.5, None), "12345");
        assert_eq!(substring("12345", 3.0, Some(-1.0)), "");
        assert_eq!(substring("éàü", 2.0, Some(1.0)), "à");
    }

    #[test]
    fn normalize_and_translate() {
        assert_eq!(normalize_space("  a \t b\n\nc  "), "a b c");
        assert!(is_normalized("a b c") && !is_normalized("a  b") && !is_normalized(" a"));
        assert!(!is_normalized("a\nb"));
        assert_eq!(translate("bar", "abc", "ABC"), "BAr");
        assert_eq!(translate("--aaa--", "abc-", "ABC"), "AAA");
        assert_eq!(translate("aa", "aa", "xy"), "xx");
    }

    #[test]
    fn before_after_and_lang() {
        assert_eq!(substring_before("1999/04/01", "/"), "1999");
        assert_eq!(substring_after("1999/04/01", "/"), "04/01");
        assert_eq!(substring_after("abc", ""), "abc");
        assert_eq!(substring_before("abc", "x"), "");
        assert!(lang_matches("en-US", "en") && lang_matches("EN", "en"));
        assert!(!lang_matches("english", "en"));
        assert!(!lang_matches("en", "") && lang_matches("", ""));
    }
}
