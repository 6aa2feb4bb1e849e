//! The wrapper schema, and its errors turned into located diagnostics.
//!
//! `schemas/wrapper.schema.json` is the one definition of the wrapper format:
//! editors use it for completion and help, and the loader validates every
//! wrapper against it before reading any value. This module compiles the
//! schema once, runs it, and rewrites the validator's findings in the words of
//! a wrapper author, at the line and column of the offending key or value.
//!
//! It refuses nothing itself; it only reports. Checks the schema cannot
//! express (unique names, compilable regexes, XPaths) live in the builder.

use std::sync::LazyLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError, Validator};
use serde_json::Value;

use super::diagnostic::Diagnostic;
use super::node::{Kind, Node, segments, split_last};
use super::suggestion::closest;

/// The wrapper format as a JSON Schema (draft 2020-12).
pub const SCHEMA: &str = include_str!("../../schemas/wrapper.schema.json");

/// The schema as JSON, for looking up the keys that are allowed where.
static SCHEMA_JSON: LazyLock<Result<Value, String>> =
    LazyLock::new(|| serde_json::from_str(SCHEMA).map_err(|e| e.to_string()));

/// The compiled schema. It is built once: compiling costs far more than validating.
static VALIDATOR: LazyLock<Result<Validator, String>> = LazyLock::new(|| {
    let schema = SCHEMA_JSON.as_ref().map_err(Clone::clone)?;
    jsonschema::draft202012::new(schema).map_err(|e| e.to_string())
});

/// Validates the document against the schema; every finding becomes a diagnostic.
pub(crate) fn check(root: &Node, text: &str, file: &str) -> Vec<Diagnostic> {
    let validator = match VALIDATOR.as_ref() {
        Ok(validator) => validator,
        // The schema ships inside the binary and a test compiles it, so this
        // is a build defect; it is still reported rather than panicking.
        Err(e) => {
            return vec![Diagnostic::error(
                file,
                text,
                1,
                1,
                format!("internal error: the wrapper schema does not compile: {e}"),
            )];
        }
    };
    let json = root.to_json();
    let mut out = Vec::new();
    for error in validator.iter_errors(&json) {
        describe(&error, root, text, file, &mut out);
    }
    out
}

/// Turns one validator finding into diagnostics (an unknown-keys finding may name several).
fn describe(
    error: &ValidationError<'_>,
    root: &Node,
    text: &str,
    file: &str,
    out: &mut Vec<Diagnostic>,
) {
    let pointer = error.instance_path().as_str();
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let allowed = allowed_keys(error.schema_path().as_str());
            let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
            for key in unexpected {
                out.push(unknown_key(key, &allowed, root, pointer, text, file));
            }
        }
        ValidationErrorKind::Required { property } => {
            let key = property.as_str().unwrap_or_default();
            // A missing key is reported where its mapping starts.
            let node = root.pointer(pointer);
            let (line, column) = node.map_or((1, 1), |n| (n.at.line, n.at.column));
            let message = format!("missing required key {key:?} in {}", context(pointer));
            out.push(
                Diagnostic::error(file, text, line, column, message)
                    .with_expected(format!("a key {key:?}")),
            );
        }
        kind => {
            let (line, column) = value_position(root, pointer);
            let (message, expected) = value_finding(kind, pointer, error.instance())
                .unwrap_or_else(|| (error.to_string(), None));
            let diagnostic = Diagnostic::error(file, text, line, column, message);
            out.push(match expected {
                Some(expected) => diagnostic.with_expected(expected),
                None => diagnostic,
            });
        }
    }
}

/// A key the schema does not allow where it stands, with the nearest
/// allowed key as a guess.
fn unknown_key(
    key: &str,
    allowed: &[&str],
    root: &Node,
    pointer: &str,
    text: &str,
    file: &str,
) -> Diagnostic {
    let mut key_pointer = pointer.to_owned();
    super::node::push_segment(&mut key_pointer, key);
    let (line, column) = root
        .key_pos(&key_pointer)
        .map_or_else(|| value_position(root, pointer), |p| (p.line, p.column));
    let message = match closest(key, allowed) {
        Some(guess) => format!(
            "unknown key {key:?} in {}; did you mean {guess:?}?",
            context(pointer)
        ),
        None => format!(
            "unknown key {key:?} in {}; expected one of {}",
            context(pointer),
            allowed.join(", ")
        ),
    };
    Diagnostic::error(file, text, line, column, message)
        .with_expected(format!("one of {}", allowed.join(", ")))
}

/// What is wrong with a value, and what was expected, for the findings
/// this module words itself; `None` for the validator's own wording.
fn value_finding(
    kind: &ValidationErrorKind,
    pointer: &str,
    found: &Value,
) -> Option<(String, Option<String>)> {
    let expected_found = |expected: String| {
        let message = format!("expected {expected}, found {}", describe_value(found));
        Some((message, Some(expected)))
    };
    match kind {
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => type_name(*t).to_owned(),
                TypeKind::Multiple(set) => {
                    set.iter().map(type_name).collect::<Vec<_>>().join(" or ")
                }
            };
            if pointer.is_empty() {
                let message = format!(
                    "a wrapper is a mapping with `name` and `patterns`; found {}",
                    describe_value(found)
                );
                return Some((message, Some(expected)));
            }
            expected_found(expected)
        }
        ValidationErrorKind::Enum { options } => {
            let options: Vec<&str> = options
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let expected = format!("one of {}", options.join(", "));
            let mut message = format!("expected {expected}, found {}", describe_value(found));
            if let Some(guess) = found.as_str().and_then(|s| closest(s, &options)) {
                message.push_str(&format!("; did you mean {guess:?}?"));
            }
            Some((message, Some(expected)))
        }
        ValidationErrorKind::Minimum { limit } => {
            let expected = format!("a number of at least {limit}");
            Some((
                format!("expected {expected}, found {found}"),
                Some(expected),
            ))
        }
        ValidationErrorKind::Maximum { limit } => {
            let expected = format!("a number of at most {limit}");
            Some((
                format!("expected {expected}, found {found}"),
                Some(expected),
            ))
        }
        ValidationErrorKind::MinItems { limit } => {
            let expected = format!(
                "at least {limit} item{}",
                if *limit == 1 { "" } else { "s" }
            );
            let what = if pointer.ends_with("/patterns") {
                "patterns"
            } else {
                "the list"
            };
            let message = format!("{what} must have {expected}, found an empty list");
            Some((message, Some(expected)))
        }
        ValidationErrorKind::UniqueItems => {
            let repeated = first_repeat(found).map_or_else(String::new, |v| format!("{v} "));
            let message = format!("{repeated}is listed twice; each item may appear once");
            Some((message, Some("each item once".to_owned())))
        }
        ValidationErrorKind::MinLength { .. } => Some((
            "expected text, found an empty string".to_owned(),
            Some("text".to_owned()),
        )),
        ValidationErrorKind::MaxLength { limit } => {
            expected_found(format!("at most {limit} characters"))
        }
        ValidationErrorKind::Pattern { pattern } => expected_found(
            pattern_meaning(pointer)
                .map_or_else(|| format!("text matching {pattern}"), ToOwned::to_owned),
        ),
        _ => None,
    }
}

/// The line and column to report a value at. A missing value (`key:` with
/// nothing after it) has no text of its own, so its key is named instead.
fn value_position(root: &Node, pointer: &str) -> (usize, usize) {
    match root.pointer(pointer) {
        Some(node) if node.kind == Kind::Null => root
            .key_pos(pointer)
            .map_or((node.at.line, node.at.column), |p| (p.line, p.column)),
        Some(node) => (node.at.line, node.at.column),
        None => (1, 1),
    }
}

/// What a mapping at `pointer` is, in the author's words.
fn context(pointer: &str) -> String {
    let parts: Vec<String> = segments(pointer).collect();
    match parts.as_slice() {
        [] => "the wrapper".to_owned(),
        [.., list, index] if list == "patterns" && index.parse::<usize>().is_ok() => {
            "pattern".to_owned()
        }
        [.., last] => format!("{last:?}"),
    }
}

/// What a `pattern` keyword means at `pointer`, for the keys that have one.
fn pattern_meaning(pointer: &str) -> Option<&'static str> {
    let parts: Vec<String> = segments(pointer).collect();
    match parts
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["name"] => Some("a name of lower-case letters, digits, '-' and '_'"),
        ["start", _] => Some("an absolute http or https URL"),
        [.., "name"] => Some(
            "a name that starts with a letter or '_' and has only letters, digits, '_' and '-'",
        ),
        [.., "extract"] => {
            Some("text, normalized, inner_html, outer_html or an attribute such as \"@href\"")
        }
        _ => None,
    }
}

/// The keys the schema allows beside an `additionalProperties` at `schema_path`.
fn allowed_keys(schema_path: &str) -> Vec<String> {
    let Ok(schema) = SCHEMA_JSON.as_ref() else {
        return Vec::new();
    };
    let Some((parent, _)) = split_last(schema_path) else {
        return Vec::new();
    };
    schema
        .pointer(&format!("{parent}/properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// A JSON type in YAML words.
fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Array => "a list",
        JsonType::Boolean => "true or false",
        JsonType::Integer => "a whole number",
        JsonType::Null => "nothing",
        JsonType::Number => "a number",
        JsonType::Object => "a mapping",
        JsonType::String => "text",
    }
}

/// A found value in YAML words, short enough for one line.
pub(crate) fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let shown: String = s.chars().take(60).collect();
            if shown.len() < s.len() {
                format!("{:?}…", shown)
            } else {
                format!("{s:?}")
            }
        }
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "a mapping".to_owned(),
    }
}

/// The first item of a list that repeats an earlier one.
fn first_repeat(value: &Value) -> Option<&Value> {
    let items = value.as_array()?;
    items
        .iter()
        .enumerate()
        .find(|(i, item)| items[..*i].contains(item))
        .map(|(_, item)| item)
}
