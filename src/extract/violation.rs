//! Violations: constraints that failed on a page.
//!
//! ## What it refuses
//!
//! It checks nothing itself: a violation only records what a check found. A
//! [`ViolationKind`] reads back only from the fourteen spellings of
//! [`ViolationKind::as_str`]; any other name fails to deserialize, and the
//! enum is `#[non_exhaustive]`, so code outside the crate must allow for
//! kinds added later. Only `min` and `max` count as being about occurrences,
//! and only `drift` and `treegram` as drift.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::wrapper::PatternPath;

/// A constraint that failed, with what was expected and what was found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// The pattern's path of names, such as `book/price`.
    pub pattern: PatternPath,
    /// The constraint that failed.
    pub constraint: ViolationKind,
    /// What the constraint asks for, in words.
    pub expected: String,
    /// What the page gave instead.
    pub found: String,
    /// The canonical path of the parent instance the check ran in (`/` for top-level patterns).
    pub context: String,
    /// The canonical path of the offending node, when one node is at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

impl Violation {
    /// Whether this violation says the pattern matched too few or too many nodes
    /// (as opposed to matching nodes whose values are wrong).
    pub fn is_about_occurrences(&self) -> bool {
        matches!(self.constraint, ViolationKind::Min | ViolationKind::Max)
    }

    /// Whether the drift check found this violation (the pattern no longer
    /// selects what its tree-gram holds), rather than a constraint.
    pub fn is_drift(&self) -> bool {
        matches!(
            self.constraint,
            ViolationKind::Drift | ViolationKind::Treegram
        )
    }
}

/// Which constraint a violation is of, serialized as the wrapper spells the
/// constraint (`min`, `min_length`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ViolationKind {
    /// Fewer matches than `min`.
    Min,
    /// More matches than `max`.
    Max,
    /// A `required` field with no match or an empty value.
    Required,
    /// A value that does not convert to the field's `type`.
    Type,
    /// A value that does not match the `regex`.
    Regex,
    /// A value shorter than `min_length`.
    MinLength,
    /// A value longer than `max_length`.
    MaxLength,
    /// A value not in the `enum`.
    Enum,
    /// A number under `minimum`, or no number where a range is set.
    Minimum,
    /// A number over `maximum`.
    Maximum,
    /// A record that fails its JSON `schema`.
    Schema,
    /// A pattern that matched when its tree-gram was captured and matches
    /// nothing now, though its constraints allow that.
    Treegram,
    /// A pattern whose XPath selects other nodes than most of its tree-gram's
    /// locators agree on, nodes that look more like the stored target.
    Drift,
    /// An XPath that fails to evaluate on the page.
    Xpath,
}

impl ViolationKind {
    /// The constraint's name, as wrappers and the output spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::Min => "min",
            ViolationKind::Max => "max",
            ViolationKind::Required => "required",
            ViolationKind::Type => "type",
            ViolationKind::Regex => "regex",
            ViolationKind::MinLength => "min_length",
            ViolationKind::MaxLength => "max_length",
            ViolationKind::Enum => "enum",
            ViolationKind::Minimum => "minimum",
            ViolationKind::Maximum => "maximum",
            ViolationKind::Schema => "schema",
            ViolationKind::Treegram => "treegram",
            ViolationKind::Drift => "drift",
            ViolationKind::Xpath => "xpath",
        }
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ViolationKind::{self, *};

    #[test]
    fn kinds_serialize_as_the_wrapper_spells_them() {
        let all: [ViolationKind; 14] = [
            Min, Max, Required, Type, Regex, MinLength, MaxLength, Enum, Minimum, Maximum, Schema,
            Treegram, Drift, Xpath,
        ];
        for kind in all {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!(MinLength.to_string(), "min_length");
    }
}
