//! How example URLs of one structure become a regular expression: the
//! generalisation behind [`learn`](super::learn), position by position,
//! from what the examples share and how they differ. The rules are
//! described on `learn`; each function here is one of them.
//!
//! ## What it refuses
//!
//! No text of an example enters the expression unescaped: every character
//! special to a regular expression outside a class is escaped. A position
//! becomes an alternation only of at most four values each seen twice or
//! more, and never the item's own name; a four-digit number is a year only
//! when it starts with `19` or `20`; a prefix or suffix the examples share is
//! kept only when it holds no digit and ends where a word does. The
//! expression is unanchored and names no host: those are `learn`'s.

use std::collections::BTreeMap;

use url::Url;

/// A URL taken apart for learning.
pub(crate) struct Example<'a> {
    pub(crate) host: &'a str,
    /// The path's segments after its leading `/`; a trailing slash gives
    /// an empty last segment.
    segments: Vec<&'a str>,
    /// The query's pairs: key and value (`None`: no `=`).
    query: Vec<(&'a str, Option<&'a str>)>,
}

/// Examples with the same key have the same structure: as many segments,
/// the same query keys in the same order (normal forms sort them).
pub(crate) type GroupKey<'a> = (usize, Vec<(&'a str, bool)>);

impl<'a> Example<'a> {
    pub(crate) fn of(url: &'a Url) -> Self {
        let path = url.path();
        let segments = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        let query = url
            .query()
            .map(|query| {
                query
                    .split('&')
                    .map(|pair| match pair.split_once('=') {
                        Some((key, value)) => (key, Some(value)),
                        None => (pair, None),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            host: url.host_str().unwrap_or(""),
            segments,
            query,
        }
    }

    /// The segment at `i`; every example of a group has as many, so the
    /// empty default is never seen, but a slip costs no panic.
    fn segment(&self, i: usize) -> &'a str {
        self.segments.get(i).copied().unwrap_or("")
    }

    pub(crate) fn key(&self) -> GroupKey<'a> {
        (
            self.segments.len(),
            self.query
                .iter()
                .map(|(key, value)| (*key, value.is_some()))
                .collect(),
        )
    }
}

/// Where a value stands, which decides how far it is generalised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// A path segment before the item's own.
    Segment,
    /// The last non-empty path segment: the item's own name.
    Identifier,
    /// A query value.
    Query,
}

/// The expression of one group: its path and query, unanchored.
pub(crate) fn group_pattern(members: &[&Example<'_>]) -> String {
    let Some(first) = members.first() else {
        return String::new();
    };
    let count = first.segments.len();
    // With a query, the query names the item and the path is a script's
    // (`/viewtopic.php?t=12`), so no segment is the item's own name.
    let identifier = if first.query.is_empty() {
        (0..count)
            .rev()
            .find(|&i| members.iter().any(|example| !example.segment(i).is_empty()))
    } else {
        None
    };
    let mut out = String::new();
    let mut after_date = false;
    for i in 0..count {
        let values: Vec<&str> = members.iter().map(|example| example.segment(i)).collect();
        let place = if Some(i) == identifier {
            Place::Identifier
        } else {
            Place::Segment
        };
        let pattern = position_pattern(&values, place, after_date);
        after_date = pattern == YEAR || pattern == MONTH_OR_DAY;
        out.push('/');
        out.push_str(&pattern);
    }
    for (i, (key, value)) in first.query.iter().enumerate() {
        out.push_str(if i == 0 { r"\?" } else { "&" });
        out.push_str(&literal(key));
        if value.is_some() {
            let values: Vec<&str> = members
                .iter()
                .map(|example| example.query.get(i).and_then(|pair| pair.1).unwrap_or(""))
                .collect();
            out.push('=');
            out.push_str(&position_pattern(&values, Place::Query, false));
        }
    }
    out
}

/// The expression of one position, given its value in every example of
/// the group; `after_date` when the position before it is a year, month
/// or day.
fn position_pattern(values: &[&str], place: Place, after_date: bool) -> String {
    if values.iter().all(|value| is_digits(value)) {
        return digits_pattern(values, after_date).to_owned();
    }
    let Some(&first) = values.first() else {
        return String::new();
    };
    if values.len() == 1 {
        return match place {
            Place::Identifier => shape_of_one(first, place),
            Place::Segment | Place::Query => literal(first),
        };
    }
    if values.iter().all(|value| *value == first) {
        return literal(first);
    }
    if place != Place::Identifier
        && let Some(choice) = repeated_choice(values)
    {
        return choice;
    }
    varying_pattern(values, place)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit())
}

const YEAR: &str = r"\d{4}";
const MONTH_OR_DAY: &str = r"\d{1,2}";

/// Years keep their width, months and days (short numbers after a year or
/// month) take one digit or two, and other numbers (ids) any width, since
/// older ids are shorter.
fn digits_pattern(values: &[&str], after_date: bool) -> &'static str {
    let year =
        |value: &&str| value.len() == 4 && (value.starts_with("19") || value.starts_with("20"));
    if values.iter().all(year) {
        YEAR
    } else if after_date && values.iter().all(|value| value.len() <= 2) {
        MONTH_OR_DAY
    } else {
        r"\d+"
    }
}

/// The class of "any run of this place's characters".
fn any_run(place: Place) -> &'static str {
    match place {
        Place::Segment | Place::Identifier => "[^/]",
        Place::Query => "[^&]",
    }
}

/// A few values each seen at least twice are the site's sections, and the
/// pattern names them rather than accepting any word (`/tag/` included).
fn repeated_choice(values: &[&str]) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for value in values {
        *counts.entry(value).or_default() += 1;
    }
    if counts.len() > 4 || counts.values().any(|&count| count < 2) {
        return None;
    }
    let names: Vec<String> = counts.keys().map(|value| literal(value)).collect();
    Some(format!("(?:{})", names.join("|")))
}

/// The pattern of a lone item name: its extension, and a number at either
/// end after a separator, are kept; the rest is any text.
fn shape_of_one(value: &str, place: Place) -> String {
    let (stem, extension) = split_extension(value);
    let whole = extension.is_empty();
    format!(
        "{}{}",
        middle_pattern(&[stem], place, whole),
        literal(extension)
    )
}

/// `("a-post", ".html")` from `a-post.html`: an extension is a dot and one
/// to five letters or digits, after a non-empty stem.
fn split_extension(value: &str) -> (&str, &str) {
    match value.rfind('.') {
        Some(dot)
            if dot > 0
                && (2..=6).contains(&(value.len() - dot))
                && value[dot + 1..]
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric()) =>
        {
            value.split_at(dot)
        }
        _ => (value, ""),
    }
}

/// A position whose values differ: a class, with what every value shares
/// at its ends kept literal when that is safe (see [`learn`](super::learn)).
fn varying_pattern(values: &[&str], place: Place) -> String {
    let many = values.len() >= 5;
    let prefix = common_prefix(values);
    let stripped: Vec<&str> = values.iter().map(|value| &value[prefix.len()..]).collect();
    let suffix = common_suffix(&stripped);
    let extension = suffix.starts_with('.') && suffix.len() <= 8;
    let suffix = if extension || many { suffix } else { "" };
    let with_prefix = without_suffix(&stripped, suffix.len());
    let keep_prefix =
        !prefix.is_empty() && (many || with_prefix.iter().all(|middle| is_digits(middle)));
    let (prefix, middles) = if keep_prefix {
        (prefix, with_prefix)
    } else {
        ("", without_suffix(values, suffix.len()))
    };
    let whole = prefix.is_empty() && suffix.is_empty();
    format!(
        "{}{}{}",
        literal(prefix),
        middle_pattern(&middles, place, whole),
        literal(suffix)
    )
}

/// Each value without its last `len` bytes, which every value has.
fn without_suffix<'v>(values: &[&'v str], len: usize) -> Vec<&'v str> {
    values
        .iter()
        .map(|value| &value[..value.len() - len])
        .collect()
}

/// The part of a varying value between what the examples share; `whole`
/// when there is nothing around it.
fn middle_pattern(middles: &[&str], place: Place, whole: bool) -> String {
    let any = any_run(place);
    if middles.iter().any(|middle| middle.is_empty()) {
        return format!("{any}*");
    }
    if middles.iter().all(|middle| is_digits(middle)) {
        return r"\d+".to_owned();
    }
    if let Some(separator) = shared_separator(middles, number_at_end) {
        return format!(r"{any}+{}\d+", literal(separator));
    }
    if let Some(separator) = shared_separator(middles, number_at_start) {
        return format!(r"\d+{}{any}+", literal(separator));
    }
    if whole && place == Place::Identifier && !middles.iter().any(|middle| is_digits(middle)) {
        // No example's name is a bare number, so a page whose is (a day
        // archive, `/2024/05/07/`, or a page of a listing, `/posts/2`) is
        // not an item: the name must hold something that is not a digit.
        return r"[^/]*[^/\d][^/]*".to_owned();
    }
    format!("{any}+")
}

/// `text` as a regular expression that matches it literally. Only what is
/// special outside a character class is escaped (unlike `regex::escape`,
/// which escapes `-` too), so that patterns read as they are written.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The separator `split` finds in every value, when it is the same one.
fn shared_separator<'v>(
    middles: &[&'v str],
    split: fn(&'v str) -> Option<&'v str>,
) -> Option<&'v str> {
    let first = split(middles.first()?)?;
    middles
        .iter()
        .all(|middle| split(middle) == Some(first))
        .then_some(first)
}

/// `-` in `a-post-12`: a separator before a number that ends the value,
/// with text before it.
fn number_at_end(value: &str) -> Option<&str> {
    let digits = value.bytes().rev().take_while(u8::is_ascii_digit).count();
    let head = &value[..value.len() - digits];
    let separator = head.get(head.len().checked_sub(1)?..)?;
    (digits > 0 && head.len() > 1 && matches!(separator, "-" | "_" | ".")).then_some(separator)
}

/// `-` in `12-a-post`: a separator after a number that starts the value,
/// with text after it.
fn number_at_start(value: &str) -> Option<&str> {
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    let separator = value.get(digits..digits + 1)?;
    (digits > 0 && value.len() > digits + 1 && matches!(separator, "-" | "_" | "."))
        .then_some(separator)
}

/// The longest prefix every value has that holds no digit and ends where
/// a word does: before a separator or a number, or after a separator.
fn common_prefix<'v>(values: &[&'v str]) -> &'v str {
    let Some(first) = values.first() else {
        return "";
    };
    let mut len = values.iter().fold(first.len(), |len, value| {
        len.min(
            first
                .bytes()
                .zip(value.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        )
    });
    len = first
        .bytes()
        .take(len)
        .position(|byte| byte.is_ascii_digit())
        .unwrap_or(len);
    while len > 0 {
        let ends_word = !first.as_bytes()[len - 1].is_ascii_alphanumeric()
            || values.iter().all(|value| {
                value
                    .as_bytes()
                    .get(len)
                    .is_some_and(|b| !b.is_ascii_alphabetic())
            });
        if ends_word && values.iter().all(|value| value.is_char_boundary(len)) {
            break;
        }
        len -= 1;
    }
    &first[..len]
}

/// The mirror of [`common_prefix`]: the longest suffix every value has
/// that holds no digit and starts where a word does.
fn common_suffix<'v>(values: &[&'v str]) -> &'v str {
    let Some(first) = values.first() else {
        return "";
    };
    let mut len = values.iter().fold(first.len(), |len, value| {
        len.min(
            first
                .bytes()
                .rev()
                .zip(value.bytes().rev())
                .take_while(|(a, b)| a == b)
                .count(),
        )
    });
    len = first
        .bytes()
        .rev()
        .take(len)
        .position(|byte| byte.is_ascii_digit())
        .unwrap_or(len);
    while len > 0 {
        let start = first.len() - len;
        let starts_word = !first.as_bytes()[start].is_ascii_alphanumeric()
            || values.iter().all(|value| {
                value.len() > len && !value.as_bytes()[value.len() - len - 1].is_ascii_alphabetic()
            });
        if starts_word
            && values
                .iter()
                .all(|value| value.is_char_boundary(value.len() - len))
        {
            break;
        }
        len -= 1;
    }
    &first[first.len() - len..]
}
