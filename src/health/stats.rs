//! The statistics of one pattern over a run's pages, and the measures read
//! from them.
//!
//! ## What it refuses
//!
//! A measure is given only where it means something: a record pattern has
//! only its fill, a field without a regex has no regex pass, and nothing is
//! measured over zero items or values. The distinct measures are taken over
//! the values that converted, keep no example pages, and the distinct share
//! never exceeds 1. A name not among [`Measure::ALL`] is no measure.

use std::fmt;

use serde::Serialize;

use crate::wrapper::{PatternPath, ValueType};

/// What is measured of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// The share of items (parent instances, or pages for a top-level
    /// pattern) with a non-empty value: a record pattern's items with at
    /// least one instance.
    Fill,
    /// The share of a field's values that converted to its type.
    TypePass,
    /// The share of a field's values that matched its regex constraint.
    RegexPass,
    /// How many distinct values a field had.
    Distinct,
    /// The share of distinct values among a field's values.
    DistinctShare,
}

impl Measure {
    /// Every measure, in the order they are reported.
    pub const ALL: [Measure; 5] = [
        Measure::Fill,
        Measure::TypePass,
        Measure::RegexPass,
        Measure::Distinct,
        Measure::DistinctShare,
    ];

    /// The name as the output and the store spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Fill => "fill",
            Measure::TypePass => "type_pass",
            Measure::RegexPass => "regex_pass",
            Measure::Distinct => "distinct",
            Measure::DistinctShare => "distinct_share",
        }
    }

    /// Whether the measure is a share from 0 to 1 (rather than a count).
    pub fn is_share(self) -> bool {
        self != Measure::Distinct
    }

    /// `value` as a person reads it: a count whole, a share to at most
    /// three decimals and at least two (`0.62`, `0.949`, `1.00`).
    pub fn show(self, value: f64) -> String {
        if !self.is_share() {
            return format!("{value:.0}");
        }
        let mut text = format!("{value:.3}");
        if text.ends_with('0') {
            text.pop();
        }
        text
    }
}

impl std::str::FromStr for Measure {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Measure::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("{s:?} is not a health measure"))
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One pattern's statistics over the pages of a run (or of a snapshot).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldStats {
    /// The pattern's path.
    pub pattern: PatternPath,
    /// The field's declared type; `None` for a record pattern.
    #[serde(rename = "type", serialize_with = "serialize_type")]
    pub value_type: Option<ValueType>,
    /// The items the pattern was evaluated in: its parent's instances over
    /// all pages, or the pages for a top-level pattern.
    pub items: u64,
    /// The items with a non-empty value (a record: with an instance).
    pub filled: u64,
    /// The values a field's nodes gave (converted or not).
    pub values: u64,
    /// The values that converted to the field's type.
    pub typed: u64,
    /// The values checked against the field's regex, when it has one.
    pub regex_checked: Option<u64>,
    /// The values that matched the field's regex, when it has one.
    pub regex_passed: Option<u64>,
    /// How many distinct non-empty values the field had, or
    /// [`super::DISTINCT_CAP`] when it had more.
    pub distinct: u64,
    /// Whether the field had more distinct values than were counted.
    pub distinct_capped: bool,
    /// The first pages on which a measure fell short: an item without a
    /// value (`fill`), a value that did not convert (`type_pass`) or match
    /// (`regex_pass`).
    pub examples: ExamplePages,
}

/// The first pages, in input order, on which each measure fell short.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExamplePages {
    /// Pages with an item that had no value.
    pub fill: Vec<String>,
    /// Pages with a value that did not convert to the type.
    pub type_pass: Vec<String>,
    /// Pages with a value that did not match the regex.
    pub regex_pass: Vec<String>,
}

impl ExamplePages {
    /// The pages for `measure` (none for the distinct measures).
    pub fn of(&self, measure: Measure) -> &[String] {
        match measure {
            Measure::Fill => &self.fill,
            Measure::TypePass => &self.type_pass,
            Measure::RegexPass => &self.regex_pass,
            Measure::Distinct | Measure::DistinctShare => &[],
        }
    }
}

impl FieldStats {
    /// Whether the pattern is a record pattern (only its fill is measured).
    pub fn is_record(&self) -> bool {
        self.value_type.is_none()
    }

    /// The value of `measure` and how many items or values it was taken
    /// over; `None` when the pattern does not have the measure or nothing
    /// was there to take it over.
    pub fn measure(&self, measure: Measure) -> Option<(f64, u64)> {
        let share =
            |part: u64, whole: u64| (whole > 0).then(|| (part as f64 / whole as f64, whole));
        match measure {
            Measure::Fill => share(self.filled, self.items),
            _ if self.is_record() => None,
            Measure::TypePass => share(self.typed, self.values),
            Measure::RegexPass => share(self.regex_passed?, self.regex_checked?),
            Measure::Distinct => (self.typed > 0).then_some((self.distinct as f64, self.typed)),
            Measure::DistinctShare => share(self.distinct.min(self.typed), self.typed),
        }
    }

    /// The fill rate, when the pattern had items.
    pub fn fill(&self) -> Option<f64> {
        self.measure(Measure::Fill).map(|(v, _)| v)
    }

    /// The type pass rate, when the field had values.
    pub fn type_pass(&self) -> Option<f64> {
        self.measure(Measure::TypePass).map(|(v, _)| v)
    }

    /// The regex pass rate, when the field has a regex and had values.
    pub fn regex_pass(&self) -> Option<f64> {
        self.measure(Measure::RegexPass).map(|(v, _)| v)
    }
}

fn serialize_type<S: serde::Serializer>(t: &Option<ValueType>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(t.as_str()),
        None => s.serialize_str("record"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_show_two_or_three_decimals_and_counts_none() {
        let check = |m: Measure, v: f64, shown: &str| assert_eq!(m.show(v), shown);
        check(Measure::Fill, 0.62, "0.62");
        check(Measure::Fill, 0.9494, "0.949");
        check(Measure::Fill, 1.0, "1.00");
        check(Measure::Fill, 0.0, "0.00");
        check(Measure::Distinct, 12.0, "12");
    }
}
