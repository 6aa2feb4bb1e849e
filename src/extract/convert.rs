//! Conversion of extracted text into typed JSON values.
//!
//! Scraped numbers carry currency symbols, thousands separators and units;
//! dates come in a dozen spellings. Conversion accepts what a person would
//! read as the value and refuses anything ambiguous: a value that does not
//! convert is reported as a violation and becomes `null`, never a guess.

use chrono::NaiveDate;
use serde_json::Value;
use url::Url;

use crate::wrapper::ValueType;

/// Why a text could not be converted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The text holds no number, or more than one.
    #[error("not a number")]
    NotANumber,
    /// The number has a fractional part where an integer was expected.
    #[error("not a whole number")]
    NotAnInteger,
    /// The text is not one of the accepted boolean spellings.
    #[error("not a boolean (true/false, yes/no, on/off, 1/0)")]
    NotABoolean,
    /// The text is not a date in any accepted format.
    #[error("not a date")]
    NotADate,
    /// The text is not a URL, and there is no base URL to resolve it against.
    #[error("not a URL")]
    NotAUrl,
}

/// Formats tried, in order, for dates that are not ISO 8601.
const DATE_FORMATS: &[&str] = &[
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%B %d, %Y",
    "%b %d, %Y",
    "%B %d %Y",
    "%b %d %Y",
    "%d %B %Y",
    "%d %b %Y",
    "%d %B, %Y",
    "%b. %d, %Y",
    "%A, %B %d, %Y",
    "%a, %d %b %Y",
    "%d.%m.%Y",
    "%Y%m%d",
];

/// Converts `text` to `ty`. `base` resolves relative URLs; `date_format` is
/// tried first for dates.
pub fn convert(
    text: &str,
    ty: ValueType,
    base: Option<&Url>,
    date_format: Option<&str>,
) -> Result<Value, ConvertError> {
    let trimmed = text.trim();
    match ty {
        ValueType::String => Ok(Value::String(text.to_owned())),
        ValueType::Number => {
            let n = parse_number(trimmed).ok_or(ConvertError::NotANumber)?;
            serde_json::Number::from_f64(n)
                .map(Value::Number)
                .ok_or(ConvertError::NotANumber)
        }
        ValueType::Integer => {
            let n = parse_number(trimmed).ok_or(ConvertError::NotANumber)?;
            if n.fract() != 0.0 || n.abs() > 9.007_199_254_740_992e15 {
                return Err(ConvertError::NotAnInteger);
            }
            Ok(Value::from(n as i64))
        }
        ValueType::Boolean => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" | "y" => Ok(Value::Bool(true)),
            "false" | "no" | "off" | "0" | "n" => Ok(Value::Bool(false)),
            _ => Err(ConvertError::NotABoolean),
        },
        ValueType::Date => parse_date(trimmed, date_format)
            .map(|d| Value::String(d.format("%Y-%m-%d").to_string()))
            .ok_or(ConvertError::NotADate),
        ValueType::Url => resolve_url(trimmed, base)
            .map(Value::String)
            .ok_or(ConvertError::NotAUrl),
    }
}

/// Parses the one number in `text`, ignoring currency symbols, units and
/// thousands separators. Decides between `1,234.5` and `1.234,5` by which
/// separator comes last; a lone comma followed by exactly three digits is a
/// thousands separator.
pub fn parse_number(text: &str) -> Option<f64> {
    // The number is the first run of digits and separators, with a sign right before it.
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let end = text[start..]
        .find(|c: char| {
            !(c.is_ascii_digit() || c == ',' || c == '.' || c == '\u{a0}' || c == ' ' || c == '\'')
        })
        .map_or(text.len(), |e| start + e);
    let body = text[start..end].trim_end_matches([',', '.', ' ', '\u{a0}', '\'']);
    // A second number in the text (like a price range) is ambiguous.
    if text[end..].contains(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let negative = text[..start].trim_end().ends_with(['-', '\u{2212}']);
    let digits: String = body
        .chars()
        .filter(|c| !matches!(c, ' ' | '\u{a0}' | '\''))
        .collect();
    let last_comma = digits.rfind(',');
    let last_dot = digits.rfind('.');
    let normalised = match (last_comma, last_dot) {
        (Some(c), Some(d)) if c > d => digits.replace('.', "").replace(',', "."),
        (Some(_), Some(_)) => digits.replace(',', ""),
        (Some(c), None) => {
            let after = digits.len() - c - 1;
            if digits.matches(',').count() == 1 && after != 3 {
                digits.replace(',', ".")
            } else {
                digits.replace(',', "")
            }
        }
        (None, Some(_)) if digits.matches('.').count() > 1 => digits.replace('.', ""),
        _ => digits,
    };
    let value: f64 = normalised.parse().ok()?;
    Some(if negative { -value } else { value })
}

fn parse_date(text: &str, format: Option<&str>) -> Option<NaiveDate> {
    if let Some(f) = format
        && let Ok(d) = NaiveDate::parse_from_str(text, f)
    {
        return Some(d);
    }
    // ISO 8601 date-times: the date part decides.
    if text.len() >= 10
        && text.as_bytes()[4] == b'-'
        && let Ok(d) = NaiveDate::parse_from_str(&text[..10], "%Y-%m-%d")
    {
        return Some(d);
    }
    let cleaned = strip_ordinals(text);
    DATE_FORMATS
        .iter()
        .find_map(|f| NaiveDate::parse_from_str(&cleaned, f).ok())
}

/// "March 3rd, 2020" → "March 3, 2020".
fn strip_ordinals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        out.push(chars[i]);
        if chars[i].is_ascii_digit() && i + 2 < chars.len() + 1 {
            let suffix: String = chars[i + 1..(i + 3).min(chars.len())]
                .iter()
                .collect::<String>()
                .to_ascii_lowercase();
            let ends_word = chars.get(i + 3).is_none_or(|c| !c.is_alphabetic());
            if matches!(suffix.as_str(), "st" | "nd" | "rd" | "th") && ends_word {
                i += 3;
                continue;
            }
        }
        i += 1;
    }
    out
}

fn resolve_url(text: &str, base: Option<&Url>) -> Option<String> {
    let text = url_text(text);
    let text = text.as_str();
    if text.is_empty()
        || text.contains(char::is_whitespace)
            && !text.contains("%20")
            && text.split_whitespace().count() > 1
    {
        return None;
    }
    if let Ok(url) = Url::parse(text) {
        return Some(url.to_string());
    }
    match base {
        Some(base) => base.join(text).ok().map(|u| u.to_string()),
        // Without a base, a relative reference is kept as written (cleaned).
        None => Some(text.to_owned()),
    }
}

/// A URL as the URL standard reads it before parsing: ASCII tabs and
/// newlines removed wherever they are (an `href` wrapped over two lines of
/// markup is one URL), then surrounding spaces, C0 controls and other
/// whitespace trimmed. What is left may still be refused.
fn url_text(text: &str) -> String {
    let joined: String = text
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    joined
        .trim_matches(|c: char| c.is_whitespace() || c.is_ascii_control())
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, ty: ValueType, expected: Result<Value, ConvertError>) {
        let base = Url::parse("https://shop.example/books/list?page=2").unwrap();
        assert_eq!(
            convert(text, ty, Some(&base), None),
            expected,
            "{text:?} as {ty:?}"
        );
    }

    #[test]
    fn numbers_drop_currency_and_separators() {
        check("£12.99", ValueType::Number, Ok(serde_json::json!(12.99)));
        check(
            "1,234.50 €",
            ValueType::Number,
            Ok(serde_json::json!(1234.5)),
        );
        check(
            "1.234,50 €",
            ValueType::Number,
            Ok(serde_json::json!(1234.5)),
        );
        check("12,5", ValueType::Number, Ok(serde_json::json!(12.5)));
        check("-3", ValueType::Number, Ok(serde_json::json!(-3.0)));
        check(
            "1 024 pages",
            ValueType::Integer,
            Ok(serde_json::json!(1024)),
        );
    }

    #[test]
    fn ambiguous_or_missing_numbers_are_refused() {
        check(
            "£10 - £20",
            ValueType::Number,
            Err(ConvertError::NotANumber),
        );
        check("free", ValueType::Number, Err(ConvertError::NotANumber));
        check("2.5", ValueType::Integer, Err(ConvertError::NotAnInteger));
    }

    #[test]
    fn booleans_accept_common_spellings() {
        check("Yes", ValueType::Boolean, Ok(Value::Bool(true)));
        check("off", ValueType::Boolean, Ok(Value::Bool(false)));
        check("maybe", ValueType::Boolean, Err(ConvertError::NotABoolean));
    }

    #[test]
    fn dates_become_iso() {
        check(
            "2020-03-04T10:00:00Z",
            ValueType::Date,
            Ok(serde_json::json!("2020-03-04")),
        );
        check(
            "March 3rd, 2020",
            ValueType::Date,
            Ok(serde_json::json!("2020-03-03")),
        );
        check(
            "4 Mar 2020",
            ValueType::Date,
            Ok(serde_json::json!("2020-03-04")),
        );
        check("someday", ValueType::Date, Err(ConvertError::NotADate));
    }

    #[test]
    fn urls_resolve_against_the_base() {
        check(
            "../item/7",
            ValueType::Url,
            Ok(serde_json::json!("https://shop.example/item/7")),
        );
        check(
            "https://x.example/a",
            ValueType::Url,
            Ok(serde_json::json!("https://x.example/a")),
        );
        check(
            "not a url at all",
            ValueType::Url,
            Err(ConvertError::NotAUrl),
        );
    }

    /// An `href` broken over lines, or indented, was refused as "not a
    /// URL"; the URL standard strips tabs and newlines anywhere first.
    #[test]
    fn urls_drop_tabs_and_newlines_anywhere_and_surrounding_space() {
        check(
            "https://x.example/cata\n\tlogue/a",
            ValueType::Url,
            Ok(serde_json::json!("https://x.example/catalogue/a")),
        );
        check(
            "\n\t ../item/\r\n7 \n",
            ValueType::Url,
            Ok(serde_json::json!("https://shop.example/item/7")),
        );
        check(
            "\u{0} https://x.example/a\u{1f}",
            ValueType::Url,
            Ok(serde_json::json!("https://x.example/a")),
        );
        check("\t\n", ValueType::Url, Err(ConvertError::NotAUrl));
        // Spaces inside are not stripped: words apart are still not a URL.
        check(
            "https://x.example/cata\n    logue/a",
            ValueType::Url,
            Err(ConvertError::NotAUrl),
        );
        assert_eq!(
            convert("\n  item/\n7\t", ValueType::Url, None, None),
            Ok(serde_json::json!("item/7"))
        );
    }
}
