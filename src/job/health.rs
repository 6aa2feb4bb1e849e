//! Field health over a run's output: each page's output is counted as it is
//! emitted, and the run's statistics are read at the end.
//!
//! The counting reads what the run emits ([`PageOutput`]), so it measures
//! exactly the records a user receives, healed ones included, and is the
//! same for any `--jobs` (outputs arrive in input order, and the counts do
//! not depend on order anyway). A page that could not be read is not
//! counted. With `--flatten` the output holds only the flattened pattern's
//! instances, so only that pattern and its children are measured.
//!
//! ## What it refuses
//!
//! A page with an error is not counted, though it keeps its place in the
//! numbering of pages. Without `--flatten` only a page's first record is
//! read; with it, patterns outside the flattened one count no items. The
//! observer reads no file and no clock, and does not check that pages come
//! in input order: the caller owes it that.

use serde_json::{Map, Value};

use super::{PageOutput, RunOptions};
use crate::health::{FieldStats, HealthTally};
use crate::wrapper::Wrapper;

/// The field health of a run so far.
#[derive(Clone, Debug)]
pub struct HealthObserver {
    wrapper: Wrapper,
    flatten: Option<String>,
    tally: HealthTally,
    /// Pages emitted so far, read or not: the next page's position.
    next: u64,
    /// Pages counted.
    pages: u64,
}

impl HealthObserver {
    /// An observer of a run of `wrapper` shaped by `options`.
    pub fn new(wrapper: &Wrapper, options: &RunOptions) -> HealthObserver {
        HealthObserver {
            wrapper: wrapper.clone(),
            flatten: options.flatten.clone(),
            tally: HealthTally::new(wrapper),
            next: 0,
            pages: 0,
        }
    }

    /// Counts one page's output; call it with every page, in input order.
    pub fn observe(&mut self, page: &PageOutput) {
        let index = self.next;
        self.next += 1;
        if page.error.is_some() {
            return;
        }
        self.pages += 1;
        let tally = match &self.flatten {
            None => {
                let empty = Map::new();
                let record = page
                    .records
                    .first()
                    .and_then(Value::as_object)
                    .unwrap_or(&empty);
                HealthTally::of_page(
                    &self.wrapper,
                    index,
                    &page.page,
                    record,
                    &page.violations,
                    None,
                )
            }
            Some(name) => {
                let mut record = Map::new();
                record.insert(name.clone(), Value::Array(page.records.clone()));
                HealthTally::of_page(
                    &self.wrapper,
                    index,
                    &page.page,
                    &record,
                    &page.violations,
                    Some(name),
                )
            }
        };
        self.tally.merge(tally);
    }

    /// How many pages were counted.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Every pattern's statistics over the pages counted.
    pub fn stats(&self) -> Vec<FieldStats> {
        self.tally.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapper() -> Wrapper {
        crate::wrapper::load_str(
            "name: w\npatterns:\n  - name: h\n    xpath: //h1\n    constraints: {max: 1}\n  \
             - name: item\n    xpath: //li\n    patterns:\n      - name: v\n        xpath: .\n        \
             constraints: {max: 1}\n",
            "w.yaml",
        )
        .unwrap()
    }

    fn output(page: &str, records: Vec<Value>, error: bool) -> PageOutput {
        PageOutput {
            page: page.to_owned(),
            records,
            violations: Vec::new(),
            adaptations: Vec::new(),
            fallbacks: Vec::new(),
            error: error.then(|| "gone".to_owned()),
            ticket: None,
        }
    }

    /// (items, filled) of `path` in the observer's statistics.
    fn counts(o: &HealthObserver, path: &str) -> (u64, u64) {
        let s = o.stats();
        let f = s.iter().find(|f| f.pattern == *path).unwrap();
        (f.items, f.filled)
    }

    #[test]
    fn unreadable_pages_are_not_counted_but_keep_their_place() {
        let w = wrapper();
        let mut o = HealthObserver::new(&w, &RunOptions::default());
        o.observe(&output("a", Vec::new(), true));
        o.observe(&output(
            "b",
            vec![serde_json::json!({"h": null, "item": [{"v": "1"}]})],
            false,
        ));
        assert_eq!(o.pages(), 1);
        assert_eq!(counts(&o, "h"), (1, 0));
        assert_eq!(counts(&o, "item/v"), (1, 1));
        let h = o.stats().into_iter().find(|f| f.pattern == *"h").unwrap();
        assert_eq!(h.examples.fill, ["b"]);
    }

    #[test]
    fn a_flattened_run_is_counted_from_its_instances() {
        let w = wrapper();
        let options = RunOptions {
            flatten: Some("item".to_owned()),
            ..RunOptions::default()
        };
        let mut o = HealthObserver::new(&w, &options);
        o.observe(&output(
            "a",
            vec![
                serde_json::json!({"v": "1", "_proposals": [3]}),
                serde_json::json!({"v": null}),
            ],
            false,
        ));
        o.observe(&output("b", Vec::new(), false));
        assert_eq!(counts(&o, "h"), (0, 0));
        assert_eq!(counts(&o, "item"), (2, 1));
        assert_eq!(counts(&o, "item/v"), (2, 1));
    }
}
