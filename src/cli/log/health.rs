//! `mend log --health`: the field health of a wrapper's runs and snapshots,
//! for a person (a table of each pattern's measures, one column per sample,
//! oldest first, then the drops) or for tools (`--json`: the samples with
//! every statistic and drop, newest first).
//!
//! ## What it refuses
//!
//! It only formats: it reads no store and fails on nothing. `--pattern`
//! keeps that pattern and those below it (`book` keeps `book/price`, not
//! `books`), in the rows and in the drops listed. A record pattern gets no
//! type, regex or distinct row, a text field no type row, and a field never
//! checked against a regex no regex row; a sample without the pattern
//! shows `-`. No cell is cut.

use mend::health::{FieldStats, Measure};
use mend::store::{HealthSample, SampleSource};

/// The table for the samples of one wrapper, given newest first.
pub(super) fn table(wrapper: &str, newest_first: &[HealthSample], only: Option<&str>) -> String {
    let samples: Vec<&HealthSample> = newest_first.iter().rev().collect();
    let mut out = format!(
        "{wrapper}: {} sample{}, oldest first\n",
        samples.len(),
        if samples.len() == 1 { "" } else { "s" }
    );
    let heads: Vec<[String; 5]> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            [
                format!("#{}", i + 1),
                source(s),
                s.recorded_at.to_seconds_text(),
                s.pages.to_string(),
                s.drops.len().to_string(),
            ]
        })
        .collect();
    out.push_str(&columns(
        &["#", "SAMPLE", "TIME (UTC)", "PAGES", "DROPS"].map(str::to_owned),
        &heads,
        &[0, 3, 4],
    ));
    out.push('\n');

    let mut header = vec!["PATTERN".to_owned(), "MEASURE".to_owned()];
    header.extend((1..=samples.len()).map(|i| format!("#{i}")));
    let mut rows = Vec::new();
    for pattern in patterns(&samples, only) {
        let stats: Vec<Option<&FieldStats>> = samples
            .iter()
            .map(|s| s.fields.iter().find(|f| f.pattern.to_string() == pattern))
            .collect();
        for row in measure_rows(&stats) {
            let mut cells = vec![pattern.clone(), row.name().to_owned()];
            for (sample, stat) in samples.iter().zip(&stats) {
                let dropped = sample
                    .drops
                    .iter()
                    .any(|d| d.field.to_string() == pattern && row.covers(d.measure));
                let mut cell = stat.map_or_else(|| "-".to_owned(), |s| row.cell(s));
                if dropped {
                    cell.push('!');
                }
                cells.push(cell);
            }
            rows.push(cells);
        }
    }
    let right: Vec<usize> = (2..header.len()).collect();
    out.push_str(&columns(&header, &rows, &right));
    let drops: Vec<String> = samples
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.drops
                .iter()
                .filter(|d| only.is_none_or(|p| within(&d.field.to_string(), p)))
                .map(move |d| format!("  #{} {}: {d}", i + 1, source(s)))
        })
        .collect();
    if !drops.is_empty() {
        out.push_str("\ndrops (! above):\n");
        for d in drops {
            out.push_str(&d);
            out.push('\n');
        }
    }
    out
}

/// A row of the measure table.
#[derive(Clone, Copy)]
enum Row {
    Items,
    Fill,
    TypePass,
    RegexPass,
    Distinct,
}

impl Row {
    fn name(self) -> &'static str {
        match self {
            Row::Items => "items",
            Row::Fill => "fill",
            Row::TypePass => "type_pass",
            Row::RegexPass => "regex_pass",
            Row::Distinct => "distinct",
        }
    }

    /// Whether a drop of `measure` is shown on this row.
    fn covers(self, measure: Measure) -> bool {
        matches!(
            (self, measure),
            (Row::Fill, Measure::Fill)
                | (Row::TypePass, Measure::TypePass)
                | (Row::RegexPass, Measure::RegexPass)
                | (Row::Distinct, Measure::Distinct | Measure::DistinctShare)
        )
    }

    fn cell(self, s: &FieldStats) -> String {
        let share = |m: Measure| {
            s.measure(m)
                .map_or_else(|| "-".to_owned(), |(v, _)| m.show(v))
        };
        match self {
            Row::Items => s.items.to_string(),
            Row::Fill => share(Measure::Fill),
            Row::TypePass => share(Measure::TypePass),
            Row::RegexPass => share(Measure::RegexPass),
            Row::Distinct if s.distinct_capped => format!("≥{}", s.distinct),
            Row::Distinct => s.distinct.to_string(),
        }
    }
}

/// The rows a pattern has: a record pattern its items and fill; a field
/// also its distinct values, its type pass rate unless it is text (which
/// every value passes), and its regex pass rate when it has a regex.
fn measure_rows(stats: &[Option<&FieldStats>]) -> Vec<Row> {
    let Some(any) = stats.iter().rev().flatten().next() else {
        return Vec::new();
    };
    let mut rows = vec![Row::Items, Row::Fill];
    if any.is_record() {
        return rows;
    }
    if any
        .value_type
        .is_some_and(|t| t != mend::wrapper::ValueType::String)
    {
        rows.push(Row::TypePass);
    }
    if stats.iter().flatten().any(|s| s.regex_checked.is_some()) {
        rows.push(Row::RegexPass);
    }
    rows.push(Row::Distinct);
    rows
}

/// Every pattern of the samples, in the newest sample's order, then any
/// that only older samples have; with `only`, that pattern and those under it.
fn patterns(samples: &[&HealthSample], only: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in samples.iter().rev() {
        for f in &s.fields {
            let p = f.pattern.to_string();
            if !out.contains(&p) && only.is_none_or(|o| within(&p, o)) {
                out.push(p);
            }
        }
    }
    out
}

/// Whether `pattern` is `ancestor` or lies below it.
pub(super) fn within(pattern: &str, ancestor: &str) -> bool {
    pattern == ancestor
        || pattern
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn source(s: &HealthSample) -> String {
    match s.source {
        SampleSource::Snapshot => "snapshot".to_owned(),
        SampleSource::Run(run) => format!("run {run}"),
    }
}

/// Lines of cells padded to each column's widest, the columns in `right`
/// aligned on the right.
pub(super) fn columns(header: &[String], rows: &[impl AsRef<[String]>], right: &[usize]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row.as_ref()) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows.iter().map(AsRef::as_ref)) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
            let pad = " ".repeat(width - cell.chars().count());
            if right.contains(&i) {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
            line.push_str("  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_is_within_itself_and_its_ancestors_only() {
        assert!(within("book/price", "book"));
        assert!(within("book", "book"));
        assert!(!within("books", "book"));
        assert!(!within("book", "book/price"));
    }
}
