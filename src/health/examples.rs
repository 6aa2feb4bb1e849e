//! Example pages: a few pages on which a measure fell short, to look at.
//!
//! A page is kept with its position in the run's input, and only the
//! [`EXAMPLE_PAGES`] earliest are kept, so the examples are the first pages
//! in input order however the counting was split, and take bounded memory.
//!
//! ## What it refuses
//!
//! It keeps no more than [`EXAMPLE_PAGES`] pages per measure: once the list
//! is full, a page no earlier in the input than the last one kept is dropped.
//! A position noted twice keeps the name first noted for it.

use std::collections::BTreeMap;

/// The most example pages kept per measure.
pub const EXAMPLE_PAGES: usize = 5;

/// The earliest pages (in input order) on which a measure fell short.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Examples(BTreeMap<u64, String>);

impl Examples {
    /// Notes the page at position `index` of the input, named `page`.
    pub fn add(&mut self, index: u64, page: &str) {
        if self.0.len() >= EXAMPLE_PAGES
            && self
                .0
                .last_key_value()
                .is_some_and(|(&last, _)| index >= last)
        {
            return;
        }
        self.0.entry(index).or_insert_with(|| page.to_owned());
        while self.0.len() > EXAMPLE_PAGES {
            self.0.pop_last();
        }
    }

    /// Adds the pages another list noted.
    pub fn merge(&mut self, other: Examples) {
        for (index, page) in other.0 {
            self.add(index, &page);
        }
    }

    /// The pages' names, in input order.
    pub fn pages(&self) -> Vec<String> {
        self.0.values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earliest_pages_are_kept() {
        let mut e = Examples::default();
        for i in (0..20).rev() {
            e.add(i, &format!("p{i}"));
        }
        e.add(3, "p3");
        assert_eq!(e.pages(), ["p0", "p1", "p2", "p3", "p4"]);
        let mut late = Examples::default();
        late.add(30, "p30");
        late.merge(e.clone());
        assert_eq!(late, e);
    }
}
