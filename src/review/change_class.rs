//! The class of change an adaptation answered, read from the constraints
//! that failed on its page: what a reviewer filters by to look at one kind
//! of breakage at a time (the silent ones, where the old XPath still
//! selected something, first of all).
//!
//! Pure: it reads the record and nothing else.
//!
//! ## What it refuses
//!
//! Constraints that passed say nothing: only failed ones count. A
//! constraint name it does not know stands for [`ChangeClass::Other`], as
//! does a record with no failed constraint. [`ChangeClass::parse`] takes
//! only the exact lowercase words of [`ChangeClass::as_str`] and gives
//! `None` for any other.

use std::fmt;

use crate::store::AdaptationRecord;

/// What had happened to a pattern on the page an adaptation was made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeClass {
    /// The XPath still selected something, but not what the tree-gram
    /// stored (a drift found by its locators or witnesses).
    Drift,
    /// The XPath selected nothing, or fewer nodes than the pattern needs.
    Missing,
    /// The XPath selected more nodes than the pattern allows.
    Extra,
    /// The XPath selected nodes whose values fail the pattern's value
    /// constraints (type, regex, lengths, enum, range, schema).
    Value,
    /// The XPath failed to evaluate.
    Error,
    /// No constraint of its own failed: healed with its parent, or asked
    /// for.
    Other,
}

impl ChangeClass {
    /// Every class, in the order the review page lists them.
    pub const ALL: [ChangeClass; 6] = [
        ChangeClass::Drift,
        ChangeClass::Missing,
        ChangeClass::Extra,
        ChangeClass::Value,
        ChangeClass::Error,
        ChangeClass::Other,
    ];

    /// The class of `record`: that of the first of its failed constraints
    /// in the order of [`ChangeClass::ALL`] (a drift that also left too few
    /// nodes is a drift).
    pub fn of(record: &AdaptationRecord) -> ChangeClass {
        record
            .constraint_results
            .iter()
            .filter(|c| !c.passed)
            .map(|c| ChangeClass::of_constraint(&c.constraint))
            .min()
            .unwrap_or(ChangeClass::Other)
    }

    /// The class a failed constraint, as the store names it, stands for.
    fn of_constraint(name: &str) -> ChangeClass {
        match name {
            "drift" => ChangeClass::Drift,
            "min" | "required" | "treegram" => ChangeClass::Missing,
            "max" => ChangeClass::Extra,
            "xpath" => ChangeClass::Error,
            "type" | "regex" | "min_length" | "max_length" | "enum" | "minimum" | "maximum"
            | "schema" => ChangeClass::Value,
            _ => ChangeClass::Other,
        }
    }

    /// The word a filter uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeClass::Drift => "drift",
            ChangeClass::Missing => "missing",
            ChangeClass::Extra => "extra",
            ChangeClass::Value => "value",
            ChangeClass::Error => "error",
            ChangeClass::Other => "other",
        }
    }

    /// The class a filter's word names.
    pub fn parse(word: &str) -> Option<ChangeClass> {
        ChangeClass::ALL.into_iter().find(|c| c.as_str() == word)
    }

    /// What it means, for a person.
    pub fn description(self) -> &'static str {
        match self {
            ChangeClass::Drift => "selected other nodes",
            ChangeClass::Missing => "selected too few",
            ChangeClass::Extra => "selected too many",
            ChangeClass::Value => "values failed",
            ChangeClass::Error => "XPath failed",
            ChangeClass::Other => "with its parent, or asked for",
        }
    }
}

impl fmt::Display for ChangeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{
        AdaptationId, AdaptationStatus, ConstraintResult, PageId, RunId, State, Timestamp,
    };

    fn check(failed: &[(&str, bool)], expected: ChangeClass) {
        let record = AdaptationRecord {
            id: AdaptationId(1),
            run_id: RunId(1),
            page_id: PageId(1),
            wrapper: "shop".to_owned(),
            pattern: "book/price".to_owned(),
            old_xpath: "./p".to_owned(),
            new_xpath: None,
            algorithm: None,
            score: None,
            runner_up: None,
            status: AdaptationStatus::Abstained,
            change_scope: None,
            reason: None,
            model: None,
            confidence: None,
            candidates: Vec::new(),
            samples_before: Vec::new(),
            samples_after: Vec::new(),
            constraint_results: failed
                .iter()
                .map(|&(name, passed)| ConstraintResult {
                    constraint: name.to_owned(),
                    passed,
                    detail: String::new(),
                })
                .collect(),
            created_at: Timestamp::from_unix_millis(0),
            state: State::Abstained,
            reverts: Vec::new(),
            page_count: 1,
            decision: None,
        };
        assert_eq!(ChangeClass::of(&record), expected, "{failed:?}");
    }

    #[test]
    fn the_first_failed_constraint_by_class_names_the_change() {
        check(&[("drift", false)], ChangeClass::Drift);
        check(&[("min", false), ("drift", false)], ChangeClass::Drift);
        check(&[("treegram", false)], ChangeClass::Missing);
        check(&[("regex", false), ("max", false)], ChangeClass::Extra);
        check(&[("type", false)], ChangeClass::Value);
        check(&[("xpath", false)], ChangeClass::Error);
        // Constraints that held after the heal say nothing of the change.
        check(&[("min", true), ("drift", true)], ChangeClass::Other);
        check(&[], ChangeClass::Other);
    }

    #[test]
    fn every_class_reads_back_from_its_word() {
        for class in ChangeClass::ALL {
            assert_eq!(ChangeClass::parse(class.as_str()), Some(class));
        }
        assert_eq!(ChangeClass::parse("moved"), None);
    }
}
