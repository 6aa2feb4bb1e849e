//! Withholding: the values of a pattern the drift check judged drifted are
//! given as `null`, not as what its XPath selects now.
//!
//! A `drift` violation says the XPath still selects something, but no
//! longer what its tree-gram holds: a decoy inserted before the target, the
//! paragraph after a deleted lead, another item's cell. When no heal takes
//! its place, that selection is the value mend believes wrong, and a wrong
//! value is worse than none: a consumer of the records reads the value and
//! not the violation beside it. The value is withheld, as a value that does
//! not convert to its type is; the violation stays and names the node the
//! XPath selected (`node`), so a person sees what was held back.
//!
//! ## What it refuses
//!
//! It withholds only for `drift`. Constraint violations (a regex, a range,
//! a count) keep their values: the wrapper's author set those constraints
//! and reads them as reports on values that are there. A `treegram`
//! violation has no value to withhold. Fields of a record pattern are
//! withheld in every instance of the record, as the drift check judges a
//! pattern over all its instances at once. A key the record does not hold
//! is not added.

use serde_json::{Map, Value};

use super::{Extraction, ViolationKind};

impl Extraction {
    /// Gives `null` for every pattern with a `drift` violation (module doc).
    pub fn withhold_drifted(&mut self) {
        for v in &self.violations {
            if v.constraint == ViolationKind::Drift {
                withhold(&mut self.record, v.pattern.names());
            }
        }
    }
}

/// Sets the value at `names` below `object` to `null`, through every
/// instance of the records on the way.
fn withhold(object: &mut Map<String, Value>, names: &[String]) {
    let Some((name, rest)) = names.split_first() else {
        return;
    };
    let Some(value) = object.get_mut(name) else {
        return;
    };
    if rest.is_empty() {
        *value = Value::Null;
        return;
    }
    match value {
        Value::Object(instance) => withhold(instance, rest),
        Value::Array(instances) => {
            for instance in instances.iter_mut().filter_map(Value::as_object_mut) {
                withhold(instance, rest);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::extract::Violation;

    /// Withholds the patterns of `violations` (`path constraint`) in `record`
    /// and compares what is left with `expected`.
    fn check(record: Value, violations: &[(&str, ViolationKind)], expected: Value) {
        let Value::Object(record) = record else {
            panic!("a record is an object");
        };
        let violations = violations
            .iter()
            .map(|(path, constraint)| Violation {
                pattern: path.parse().expect("a pattern path"),
                constraint: *constraint,
                expected: String::new(),
                found: String::new(),
                context: "/".to_owned(),
                node: None,
            })
            .collect();
        let mut e = Extraction { record, violations };
        e.withhold_drifted();
        assert_eq!(Value::Object(e.record), expected);
    }

    #[test]
    fn a_drifted_field_is_null_and_the_others_keep_their_values() {
        check(
            json!({"title": "Ad: buy now", "price": 3.5}),
            &[("title", ViolationKind::Drift)],
            json!({"title": null, "price": 3.5}),
        );
    }

    #[test]
    fn constraint_violations_keep_their_values() {
        check(
            json!({"title": "T", "price": -1, "tags": ["a", "b", "c"]}),
            &[
                ("price", ViolationKind::Minimum),
                ("tags", ViolationKind::Max),
                ("title", ViolationKind::Treegram),
            ],
            json!({"title": "T", "price": -1, "tags": ["a", "b", "c"]}),
        );
    }

    #[test]
    fn a_drifted_list_and_a_drifted_record_pattern_are_null_whole() {
        check(
            json!({"tags": ["a", "b"], "books": [{"t": "A"}], "h": "H"}),
            &[
                ("tags", ViolationKind::Drift),
                ("books", ViolationKind::Drift),
            ],
            json!({"tags": null, "books": null, "h": "H"}),
        );
    }

    #[test]
    fn a_drifted_child_is_null_in_every_instance_of_its_record() {
        check(
            json!({
                "books": [{"t": "A", "p": 1}, {"t": "B", "p": 2}, "odd"],
                "shop": {"name": "S", "city": "C"}
            }),
            &[
                ("books/p", ViolationKind::Drift),
                ("shop/city", ViolationKind::Drift),
            ],
            json!({
                "books": [{"t": "A", "p": null}, {"t": "B", "p": null}, "odd"],
                "shop": {"name": "S", "city": null}
            }),
        );
    }

    #[test]
    fn a_path_the_record_does_not_hold_adds_nothing() {
        check(
            json!({"books": null, "h": "H"}),
            &[
                ("books/p", ViolationKind::Drift),
                ("gone", ViolationKind::Drift),
            ],
            json!({"books": null, "h": "H"}),
        );
    }
}
