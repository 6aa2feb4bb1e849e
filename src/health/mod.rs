//! Field health: how fully and how well each pattern of a wrapper is
//! filled across all the pages of a run, and which of those measures fell
//! past the limits of the wrapper's `monitor` block.
//!
//! Per pattern a run measures the fill rate (items with a non-empty value
//! over items, where a top-level pattern's items are the pages and a nested
//! one's are its parent's instances, so `book/price` is counted per book),
//! and for a field the share of values that converted to its type, the
//! share that matched its regex constraint (when it has one) and its
//! distinct values. Pages are counted one at a time into a
//! [`HealthTally`]; tallies merge in any order to the same statistics
//! ([`FieldStats`]), which [`judge()`] compares with the limits and with a
//! baseline, giving the [`HealthDrop`]s.
//!
//! The module is pure: it reads records and violations that extraction
//! made, and returns data; the store keeps the statistics, the runtime
//! picks the baseline. It refuses unbounded memory: distinct values are
//! counted exactly up to [`DISTINCT_CAP`] per pattern and example pages
//! kept up to [`EXAMPLE_PAGES`] per measure, whatever the number of pages.

mod distinct;
mod examples;
mod judge;
mod stats;
mod tally;

#[cfg(test)]
mod tests;

pub use distinct::{DISTINCT_CAP, Distinct};
pub use examples::{EXAMPLE_PAGES, Examples};
pub use judge::{Baseline, HealthDrop, Judgement, LIMITS, judge};
pub use stats::{ExamplePages, FieldStats, Measure};
pub use tally::HealthTally;
