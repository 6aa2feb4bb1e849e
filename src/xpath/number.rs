//! Numbers as XPath 1.0 reads and writes them.
//!
//! Strings convert to numbers by the specification's lexical rule alone:
//! optional whitespace, an optional minus sign, digits with an optional
//! fraction, optional whitespace; anything else (exponents, a plus sign, hex,
//! `Infinity`) is NaN. Numbers print without exponents and integers without a
//! fraction, with as many digits as it takes to read the same double back.
//! Rounding follows section 4.4, including its negative zero.
//!
//! ## What it refuses
//!
//! No conversion fails: what the lexical rule does not accept reads as NaN,
//! grouping (`1,000`), currency signs and spaces other than XML whitespace (a
//! no-break space around the digits) among it. Nor does any number fail to
//! print: NaN and the infinities print as `NaN`, `Infinity` and `-Infinity`,
//! and both zeros as `0`.

use super::lexer::is_xml_space;

/// XPath `number(string)`.
pub fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(is_xml_space);
    let digits = t.strip_prefix('-').unwrap_or(t);
    let mut seen_digit = false;
    let mut seen_dot = false;
    for b in digits.bytes() {
        match b {
            b'0'..=b'9' => seen_digit = true,
            b'.' if !seen_dot => seen_dot = true,
            _ => return f64::NAN,
        }
    }
    if !seen_digit {
        return f64::NAN;
    }
    // The text is now digits with at most one dot, which Rust's parser reads
    // (it also accepts "5." and ".5", as XPath does).
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// XPath `string(number)`.
pub fn number_to_string(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if n == 0.0 {
        // Both zeros print as "0".
        "0".to_owned()
    } else {
        // Rust's Display for f64 prints the shortest digits that read back as
        // the same double, never in exponent form, and integers without ".0".
        format!("{n}")
    }
}

/// XPath `round()`: the nearest integer, halves toward positive infinity;
/// NaN and the infinities unchanged; values in [-0.5, 0) give negative zero.
pub fn round(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    if (-0.5..0.0).contains(&x) {
        return -0.0;
    }
    let f = x.floor();
    // Comparing the fraction instead of computing floor(x + 0.5) avoids the
    // rounding error of the addition (0.49999999999999994 + 0.5 is 1).
    if x - f >= 0.5 { f + 1.0 } else { f }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_follow_the_lexical_rule() {
        assert_eq!(string_to_number("  12  "), 12.0);
        assert_eq!(string_to_number("-.5"), -0.5);
        assert_eq!(string_to_number("5."), 5.0);
        assert_eq!(string_to_number("\n7\t"), 7.0);
        for bad in [
            "1e3", "+5", "", ".", "-", "1 1", "0x10", "Infinity", "12abc", "   ", "1..2", "--1",
        ] {
            assert!(string_to_number(bad).is_nan(), "{bad:?}");
        }
        assert!(string_to_number("-0").is_sign_negative());
    }

    #[test]
    fn numbers_print_without_exponents() {
        assert_eq!(number_to_string(1.0), "1");
        assert_eq!(number_to_string(-0.0), "0");
        assert_eq!(number_to_string(0.5), "0.5");
        assert_eq!(number_to_string(-2.25), "-2.25");
        assert_eq!(number_to_string(1e21), "1000000000000000000000");
        assert_eq!(number_to_string(1e-7), "0.0000001");
        assert_eq!(number_to_string(f64::NAN), "NaN");
        assert_eq!(number_to_string(f64::INFINITY), "Infinity");
        assert_eq!(number_to_string(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(number_to_string(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn rounding_edges() {
        assert!(round(-0.5).is_sign_negative() && round(-0.5) == 0.0);
        assert!(round(-0.4).is_sign_negative());
        assert_eq!(round(0.5), 1.0);
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(-2.5), -2.0);
        assert_eq!(round(-1.5), -1.0);
        assert_eq!(round(1.4999), 1.0);
        assert_eq!(round(0.49999999999999994), 0.0);
        assert!(round(f64::NAN).is_nan());
        assert_eq!(round(f64::INFINITY), f64::INFINITY);
        assert!(round(-0.0).is_sign_negative());
    }
}
