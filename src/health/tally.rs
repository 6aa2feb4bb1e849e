//! Counting a run's pages into per-pattern statistics.
//!
//! Each page is counted on its own ([`HealthTally::of_page`]) and the
//! counts are merged; a merge adds counts, unions distinct values and keeps
//! the earliest example pages, so the result is the same for any order and
//! any grouping of the pages. Memory is bounded per pattern, not per page.
//!
//! ## What it refuses
//!
//! It counts only the wrapper's patterns (with `only`, one top-level pattern
//! and its children) and ignores keys of a record that name none; a record
//! pattern's entries that are not objects are no instances. A null value is
//! no value (a type failure is counted from the violations instead), and
//! blank text fills nothing and is no distinct value. Of the violations only
//! type and regex failures count, and a pattern's regex failures on a page
//! never exceed its values there.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::distinct::Distinct;
use super::examples::Examples;
use super::stats::{ExamplePages, FieldStats};
use crate::extract::{Violation, ViolationKind};
use crate::wrapper::{Pattern, PatternPath, ValueType, Wrapper};

/// The counts of every pattern of a wrapper over some pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HealthTally {
    /// One entry per pattern, in the wrapper's order (parents first).
    fields: Vec<(PatternPath, FieldTally)>,
}

/// The counts of one pattern.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FieldTally {
    value_type: Option<ValueType>,
    has_regex: bool,
    items: u64,
    filled: u64,
    values: u64,
    typed: u64,
    regex_failed: u64,
    distinct: Distinct,
    missing_on: Examples,
    type_failed_on: Examples,
    regex_failed_on: Examples,
}

impl FieldTally {
    fn merge(&mut self, other: FieldTally) {
        self.items += other.items;
        self.filled += other.filled;
        self.values += other.values;
        self.typed += other.typed;
        self.regex_failed += other.regex_failed;
        self.distinct.merge(other.distinct);
        self.missing_on.merge(other.missing_on);
        self.type_failed_on.merge(other.type_failed_on);
        self.regex_failed_on.merge(other.regex_failed_on);
    }
}

impl HealthTally {
    /// Empty counts for every pattern of `wrapper`.
    pub fn new(wrapper: &Wrapper) -> HealthTally {
        let fields = wrapper
            .pattern_paths()
            .into_iter()
            .map(|path| {
                let pattern = wrapper.pattern(&path);
                let tally = FieldTally {
                    value_type: pattern.filter(|p| !p.is_record()).map(|p| p.value_type),
                    has_regex: pattern.is_some_and(|p| p.constraints.regex.is_some()),
                    ..FieldTally::default()
                };
                (path, tally)
            })
            .collect();
        HealthTally { fields }
    }

    /// The counts of one page: its `record` (as extraction built it, an
    /// object keyed by the top-level patterns) and its `violations`. The
    /// page is the `index`th of the run's input, named `page`. With `only`,
    /// only that top-level pattern and its children are counted: a
    /// flattened run's output holds no other.
    pub fn of_page(
        wrapper: &Wrapper,
        index: u64,
        page: &str,
        record: &Map<String, Value>,
        violations: &[Violation],
        only: Option<&str>,
    ) -> HealthTally {
        let mut tally = HealthTally::new(wrapper);
        let mut failures: HashMap<&PatternPath, (u64, u64)> = HashMap::new();
        for v in violations {
            let entry = failures.entry(&v.pattern).or_default();
            match v.constraint {
                ViolationKind::Type => entry.0 += 1,
                ViolationKind::Regex => entry.1 += 1,
                _ => {}
            }
        }
        let top: Vec<&Pattern> = wrapper
            .patterns
            .iter()
            .filter(|p| only.is_none_or(|name| p.name == name))
            .collect();
        let mut page_count = PageCount {
            tally: &mut tally,
            index,
            page,
            failures: &failures,
        };
        page_count.patterns(&top, None, &[record]);
        tally
    }

    /// Adds the counts of other pages.
    pub fn merge(&mut self, other: HealthTally) {
        let aligned = self.fields.len() == other.fields.len()
            && self
                .fields
                .iter()
                .zip(&other.fields)
                .all(|((a, _), (b, _))| a == b);
        if aligned {
            for ((_, mine), (_, theirs)) in self.fields.iter_mut().zip(other.fields) {
                mine.merge(theirs);
            }
            return;
        }
        // Counts of another wrapper's patterns: each goes to its pattern,
        // and patterns this wrapper lacks are added at the end.
        for (path, theirs) in other.fields {
            match self.fields.iter_mut().find(|(p, _)| *p == path) {
                Some((_, mine)) => mine.merge(theirs),
                None => self.fields.push((path, theirs)),
            }
        }
    }

    /// The statistics of every pattern, in the wrapper's order.
    pub fn stats(&self) -> Vec<FieldStats> {
        self.fields
            .iter()
            .map(|(path, t)| FieldStats {
                pattern: path.clone(),
                value_type: t.value_type,
                items: t.items,
                filled: t.filled,
                values: t.values,
                typed: t.typed,
                regex_checked: t.has_regex.then_some(t.values),
                regex_passed: t.has_regex.then(|| t.values.saturating_sub(t.regex_failed)),
                distinct: t.distinct.count(),
                distinct_capped: t.distinct.is_capped(),
                examples: ExamplePages {
                    fill: t.missing_on.pages(),
                    type_pass: t.type_failed_on.pages(),
                    regex_pass: t.regex_failed_on.pages(),
                },
            })
            .collect()
    }

    fn get(&mut self, path: &PatternPath) -> Option<&mut FieldTally> {
        self.fields
            .iter_mut()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t)
    }
}

/// The walk over one page's record.
struct PageCount<'a> {
    tally: &'a mut HealthTally,
    index: u64,
    page: &'a str,
    /// Per pattern, the values that failed to convert and to match.
    failures: &'a HashMap<&'a PatternPath, (u64, u64)>,
}

impl PageCount<'_> {
    /// Counts sibling `patterns` in each of their parent's `objects`.
    fn patterns(
        &mut self,
        patterns: &[&Pattern],
        parent: Option<&PatternPath>,
        objects: &[&Map<String, Value>],
    ) {
        for pattern in patterns {
            let path = match parent {
                Some(parent) => parent.child(pattern.name.clone()),
                None => PatternPath::top(pattern.name.clone()),
            };
            if pattern.is_record() {
                let instances = self.record(&path, &pattern.name, objects);
                let children: Vec<&Pattern> = pattern.patterns.iter().collect();
                self.patterns(&children, Some(&path), &instances);
            } else {
                self.field(&path, &pattern.name, objects);
            }
        }
    }

    /// Counts a record pattern; gives its instances, its children's items.
    fn record<'v>(
        &mut self,
        path: &PatternPath,
        name: &str,
        objects: &[&'v Map<String, Value>],
    ) -> Vec<&'v Map<String, Value>> {
        let (index, page) = (self.index, self.page);
        let Some(t) = self.tally.get(path) else {
            return Vec::new();
        };
        let mut instances = Vec::new();
        for object in objects {
            let before = instances.len();
            if let Some(Value::Array(items)) = object.get(name) {
                instances.extend(items.iter().filter_map(Value::as_object));
            }
            t.items += 1;
            if instances.len() > before {
                t.filled += 1;
            } else {
                t.missing_on.add(index, page);
            }
        }
        instances
    }

    /// Counts a field in each of its parent's objects.
    fn field(&mut self, path: &PatternPath, name: &str, objects: &[&Map<String, Value>]) {
        let (index, page) = (self.index, self.page);
        let (type_failed, regex_failed) = self.failures.get(path).copied().unwrap_or_default();
        let Some(t) = self.tally.get(path) else {
            return;
        };
        let mut typed_here = 0;
        for object in objects {
            let values: &[Value] = match object.get(name) {
                Some(Value::Array(values)) => values,
                Some(value) => std::slice::from_ref(value),
                None => &[],
            };
            let mut filled = false;
            for value in values.iter().filter(|v| !v.is_null()) {
                typed_here += 1;
                if !is_empty(value) {
                    filled = true;
                    t.distinct.insert(value);
                }
            }
            t.items += 1;
            if filled {
                t.filled += 1;
            } else {
                t.missing_on.add(index, page);
            }
        }
        // A value that failed to convert is null in the record and a type
        // violation: counted from the violations, it is a value all the same.
        t.typed += typed_here;
        t.values += typed_here + type_failed;
        if type_failed > 0 {
            t.type_failed_on.add(index, page);
        }
        if t.has_regex {
            t.regex_failed += regex_failed.min(typed_here + type_failed);
            if regex_failed > 0 {
                t.regex_failed_on.add(index, page);
            }
        }
    }
}

/// Whether a value says nothing: empty or blank text.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::String(s) => s.trim().is_empty(),
        Value::Null => true,
        _ => false,
    }
}
