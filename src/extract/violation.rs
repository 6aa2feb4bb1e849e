//! Violations: constraints that failed on a page.

use serde::Serialize;

/// A constraint that failed, with what was expected and what was found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Violation {
    /// The pattern's path of names, such as `book/price`.
    pub pattern: String,
    /// The constraint that failed: `min`, `max`, `required`, `type`, `regex`,
    /// `min_length`, `max_length`, `enum`, `minimum`, `maximum` or `schema`.
    pub constraint: &'static str,
    /// What the constraint asks for, in words.
    pub expected: String,
    /// What the page gave instead.
    pub found: String,
    /// The canonical path of the parent instance the check ran in (`/` for top-level patterns).
    pub context: String,
    /// The canonical path of the offending node, when one node is at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

impl Violation {
    /// Whether this violation says the pattern matched too few or too many nodes
    /// (as opposed to matching nodes whose values are wrong).
    pub fn is_about_occurrences(&self) -> bool {
        matches!(self.constraint, "min" | "max")
    }
}
