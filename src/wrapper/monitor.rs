//! The `monitor:` block: how the health of a wrapper's fields is judged
//! over all the pages of a run, and how the block is read.
//!
//! A run measures every pattern (its fill rate, and for a field the share
//! of values that convert to its type, the share that match its regex, and
//! its distinct values; `health` computes them). The limits here say which
//! values are a health drop: floors (`min_fill`, ...) that hold whatever
//! came before, and drops against the baseline (`max_fill_drop`, ...).
//! Limits set at the top of the block apply to every pattern; those under
//! `fields` apply to one, key by key over the others. A wrapper without
//! the block is judged with [`Monitor::default`].
//!
//! Reading refuses a key of `fields` that is not a pattern of the wrapper
//! (with a "did you mean"), and a limit on a measure the pattern does not
//! have: value measures on a record pattern, regex measures on a field
//! without a regex constraint. The schema has checked shapes and ranges.

use super::diagnostic::Diagnostic;
use super::model::{Pattern, ValueType};
use super::node::{Kind, Node};
use super::path::{PatternPath, find_in, paths_of};
use super::suggestion::closest;

/// The least number of items a measure needs to be judged, by default.
pub const MIN_ITEMS: u64 = 20;

/// How far a rate may fall below the baseline's by default, in points of
/// the share: 0.1 lets a fill rate of 0.99 go down to 0.89.
pub const MAX_DROP: f64 = 0.1;

/// How the health of a wrapper's patterns is judged.
#[derive(Clone, Debug, PartialEq)]
pub struct Monitor {
    /// The least number of items (parent instances for the fill rate,
    /// values for the other measures) a measure needs, in the run and in
    /// the baseline, to be judged.
    pub min_items: u64,
    /// The limits of every pattern not named in `fields`.
    pub all: HealthLimits,
    /// The patterns named under `fields`, with their limits (the limits
    /// for every pattern, overridden by the keys set for this one).
    pub fields: Vec<FieldLimits>,
}

/// The limits of one pattern named under `monitor.fields`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldLimits {
    /// The pattern's path.
    pub pattern: PatternPath,
    /// Its limits, the block's own merged in.
    pub limits: HealthLimits,
}

/// Health limits of one pattern; `None` is no limit. Rates are shares from 0 to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HealthLimits {
    /// The least share of items with a non-empty value.
    pub min_fill: Option<f64>,
    /// The least share of values that convert to the field's type.
    pub min_type_pass: Option<f64>,
    /// The least share of values that match the field's regex.
    pub min_regex_pass: Option<f64>,
    /// The least number of distinct values over the run.
    pub min_distinct: Option<u64>,
    /// How far the fill rate may fall below the baseline's, in points.
    pub max_fill_drop: Option<f64>,
    /// How far the type pass rate may fall below the baseline's, in points.
    pub max_type_pass_drop: Option<f64>,
    /// How far the regex pass rate may fall below the baseline's, in points.
    pub max_regex_pass_drop: Option<f64>,
    /// How far the share of distinct values among the values may fall, as
    /// a fraction of the baseline's share.
    pub max_distinct_drop: Option<f64>,
}

impl Default for HealthLimits {
    /// No floors; rates may fall [`MAX_DROP`] below the baseline's; the
    /// distinct share is not judged, since how often values repeat depends
    /// on which pages a run is given.
    fn default() -> Self {
        HealthLimits {
            min_fill: None,
            min_type_pass: None,
            min_regex_pass: None,
            min_distinct: None,
            max_fill_drop: Some(MAX_DROP),
            max_type_pass_drop: Some(MAX_DROP),
            max_regex_pass_drop: Some(MAX_DROP),
            max_distinct_drop: None,
        }
    }
}

impl Default for Monitor {
    fn default() -> Self {
        Monitor {
            min_items: MIN_ITEMS,
            all: HealthLimits::default(),
            fields: Vec::new(),
        }
    }
}

impl Monitor {
    /// The limits of the pattern at `pattern`.
    pub fn limits(&self, pattern: &PatternPath) -> HealthLimits {
        self.fields
            .iter()
            .find(|f| &f.pattern == pattern)
            .map_or(self.all, |f| f.limits)
    }
}

/// The limit keys, as the wrapper spells them, with what each measures.
const KEYS: [(&str, Measured); 8] = [
    ("min_fill", Measured::Fill),
    ("min_type_pass", Measured::Type),
    ("min_regex_pass", Measured::Regex),
    ("min_distinct", Measured::Distinct),
    ("max_fill_drop", Measured::Fill),
    ("max_type_pass_drop", Measured::Type),
    ("max_regex_pass_drop", Measured::Regex),
    ("max_distinct_drop", Measured::Distinct),
];

/// What a limit key measures, for the check that the pattern has it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Measured {
    Fill,
    Type,
    Regex,
    Distinct,
}

/// Reads the `monitor` mapping. `patterns` are the wrapper's patterns, when
/// they could be built; without them the paths under `fields` are not checked.
pub(super) fn build(
    node: &Node,
    patterns: Option<&[Pattern]>,
    text: &str,
    file: &str,
    out: &mut Vec<Diagnostic>,
) -> Monitor {
    let all = limits(node, HealthLimits::default());
    let mut fields: Vec<FieldLimits> = Vec::new();
    for entry in node.get("fields").map(Node::entries).unwrap_or_default() {
        let error = |message: String| {
            Diagnostic::error(file, text, entry.key_at.line, entry.key_at.column, message)
        };
        let Ok(path) = entry.key.parse::<PatternPath>() else {
            out.push(
                error(format!(
                    "{:?} is not a pattern path; expected names joined by '/', such as book/price",
                    entry.key
                ))
                .with_expected("a pattern path"),
            );
            continue;
        };
        let limits = limits(&entry.value, all);
        if let Some(patterns) = patterns {
            let Some(pattern) = find_in(patterns, &path) else {
                out.push(unknown(&entry.key, patterns, error));
                continue;
            };
            check_measures(pattern, &path, &entry.value, text, file, out);
        }
        // A repeated key is reported by the loader; the last one counts, as
        // everywhere else in a wrapper.
        fields.retain(|f| f.pattern != path);
        fields.push(FieldLimits {
            pattern: path,
            limits,
        });
    }
    Monitor {
        min_items: node
            .get("min_items")
            .and_then(super::builder::as_usize)
            .map_or(MIN_ITEMS, |n| n as u64),
        all,
        fields,
    }
}

/// The limits a mapping sets, `inherited` for the keys it leaves out; a key
/// set to `null` turns that limit off.
fn limits(node: &Node, inherited: HealthLimits) -> HealthLimits {
    let rate = |key: &str, inherited: Option<f64>| match node.get(key) {
        None => inherited,
        Some(value) => super::builder::as_f64(value),
    };
    HealthLimits {
        min_fill: rate("min_fill", inherited.min_fill),
        min_type_pass: rate("min_type_pass", inherited.min_type_pass),
        min_regex_pass: rate("min_regex_pass", inherited.min_regex_pass),
        min_distinct: match node.get("min_distinct") {
            None => inherited.min_distinct,
            Some(value) => super::builder::as_usize(value).map(|n| n as u64),
        },
        max_fill_drop: rate("max_fill_drop", inherited.max_fill_drop),
        max_type_pass_drop: rate("max_type_pass_drop", inherited.max_type_pass_drop),
        max_regex_pass_drop: rate("max_regex_pass_drop", inherited.max_regex_pass_drop),
        max_distinct_drop: rate("max_distinct_drop", inherited.max_distinct_drop),
    }
}

/// Refuses limits set (not to `null`) on a measure the pattern does not
/// have; warns about a type limit on a text field, which every value passes.
fn check_measures(
    pattern: &Pattern,
    path: &PatternPath,
    node: &Node,
    text: &str,
    file: &str,
    out: &mut Vec<Diagnostic>,
) {
    for entry in node.entries() {
        let Some(&(key, measured)) = KEYS.iter().find(|(k, _)| *k == entry.key) else {
            continue;
        };
        if entry.value.kind == Kind::Null {
            continue;
        }
        let at = |message: String| {
            Diagnostic::error(file, text, entry.key_at.line, entry.key_at.column, message)
        };
        if pattern.is_record() {
            if measured != Measured::Fill {
                out.push(
                    at(format!(
                        "{key} does not apply to {path}: it is a record pattern, of which only \
                         the fill rate is measured"
                    ))
                    .with_expected("min_fill or max_fill_drop"),
                );
            }
        } else if measured == Measured::Regex && pattern.constraints.regex.is_none() {
            out.push(
                at(format!(
                    "{key} does not apply to {path}: it has no regex constraint to pass"
                ))
                .with_expected("a field with constraints: {regex: ...}"),
            );
        } else if measured == Measured::Type && pattern.value_type == ValueType::String {
            out.push(Diagnostic::warning(
                file,
                text,
                entry.key_at.line,
                entry.key_at.column,
                format!(
                    "{key} on {path} judges nothing: its type is string, which every value converts to"
                ),
            ));
        }
    }
}

/// The error for a key of `fields` that names no pattern, with the path
/// that was most likely meant.
fn unknown(key: &str, patterns: &[Pattern], error: impl Fn(String) -> Diagnostic) -> Diagnostic {
    let paths: Vec<String> = paths_of(patterns).iter().map(ToString::to_string).collect();
    let candidates: Vec<&str> = paths.iter().map(String::as_str).collect();
    // A field's own name written without its record's (`price` for
    // `book/price`) is a common slip that edit distance does not catch.
    let guess = closest(key, &candidates).or_else(|| {
        let suffix = format!("/{key}");
        let mut ending = candidates.iter().filter(|p| p.ends_with(&suffix));
        match (ending.next(), ending.next()) {
            (Some(only), None) => Some(*only),
            _ => None,
        }
    });
    let message = match guess {
        Some(guess) => format!(
            "monitor.fields names {key:?}, which is not a pattern of this wrapper; did you mean {guess:?}?"
        ),
        None => format!(
            "monitor.fields names {key:?}, which is not a pattern of this wrapper; its patterns are {}",
            candidates.join(", ")
        ),
    };
    error(message).with_expected("the path of one of the wrapper's patterns, such as book/price")
}

#[cfg(test)]
mod tests;
