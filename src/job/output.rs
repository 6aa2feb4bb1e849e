//! Writing page outputs as NDJSON, JSON or CSV.
//!
//! CSV is for people and spreadsheets: one row per record, a cell per
//! field, and three columns that say what went wrong on the record's page
//! (`_violations`, `_proposals`, `_error`), so that a page whose constraints
//! failed, or that could not be read, is not silently missing or silently
//! fine. A cell holds a value as a person reads it: a list of values joined
//! by `"; "`, a nested record (an object, or a list of them) as JSON.
//!
//! ## What it refuses
//!
//! CSV writes only the given columns (a field without one is left out, as
//! are adaptations and fallbacks), and no row for a page without records
//! where nothing went wrong. Values are written as they are: a cell that
//! starts with `=` is not guarded against a spreadsheet reading a formula.
//! JSON writes nothing until [`OutputWriter::finish`], holding every page in
//! memory; NDJSON and CSV stream. Write errors are returned, never hidden.

use std::io::Write;

use serde_json::Value;

use super::PageOutput;

/// The output formats of `mend run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// One JSON object per page, one per line.
    Ndjson,
    /// With one page, exactly that page's object; with several, an array of them.
    Json,
    /// One row per record: the page, one column per field, then what went
    /// wrong on the page (`_violations`, `_proposals`, `_error`).
    Csv,
}

/// The columns CSV adds after the fields: the page's violations (each as
/// `PATTERN CONSTRAINT: expected ..., found ...`, identical ones once with a
/// count), the ids of the proposals the record was healed with, and why the
/// page could not be read.
const CSV_STATUS_COLUMNS: [&str; 3] = ["_violations", "_proposals", "_error"];

/// What joins the values of a list in a CSV cell.
const CSV_LIST_SEPARATOR: &str = "; ";

/// Writes page outputs in a format, streaming where the format allows.
pub struct OutputWriter<W: Write> {
    out: W,
    format: OutputFormat,
    columns: Vec<String>,
    /// JSON output waits for the end: one page prints a bare object, several an array.
    pending: Vec<PageOutput>,
    csv_header_written: bool,
}

impl<W: Write> OutputWriter<W> {
    /// A writer; `columns` are the CSV field columns, in order.
    pub fn new(out: W, format: OutputFormat, columns: Vec<String>) -> Self {
        OutputWriter {
            out,
            format,
            columns,
            pending: Vec::new(),
            csv_header_written: false,
        }
    }

    /// A writer that goes on with an output written before (a resumed
    /// crawl): a CSV header is already there.
    pub fn continuing(out: W, format: OutputFormat, columns: Vec<String>) -> Self {
        let mut writer = OutputWriter::new(out, format, columns);
        writer.csv_header_written = true;
        writer
    }

    /// Flushes what is written so far to the underlying writer.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Writes (or queues) one page's output.
    pub fn write(&mut self, page: PageOutput) -> std::io::Result<()> {
        match self.format {
            OutputFormat::Ndjson => {
                serde_json::to_writer(&mut self.out, &page)?;
                self.out.write_all(b"\n")
            }
            OutputFormat::Json => {
                self.pending.push(page);
                Ok(())
            }
            OutputFormat::Csv => self.write_csv(&page),
        }
    }

    /// Writes what is queued and flushes.
    pub fn finish(mut self) -> std::io::Result<W> {
        if self.format == OutputFormat::Json {
            if self.pending.len() == 1 {
                serde_json::to_writer_pretty(&mut self.out, &self.pending[0])?;
            } else {
                serde_json::to_writer_pretty(&mut self.out, &self.pending)?;
            }
            self.out.write_all(b"\n")?;
        }
        if self.format == OutputFormat::Csv && !self.csv_header_written {
            self.write_header()?;
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn write_header(&mut self) -> std::io::Result<()> {
        let mut csv = csv::Writer::from_writer(&mut self.out);
        let mut header = vec!["page".to_owned()];
        header.extend(self.columns.iter().cloned());
        header.extend(CSV_STATUS_COLUMNS.map(str::to_owned));
        csv.write_record(&header)?;
        csv.flush()?;
        self.csv_header_written = true;
        Ok(())
    }

    fn write_csv(&mut self, page: &PageOutput) -> std::io::Result<()> {
        if !self.csv_header_written {
            self.write_header()?;
        }
        let violations = violations_cell(page);
        let error = page.error.clone().unwrap_or_default();
        let mut csv = csv::Writer::from_writer(&mut self.out);
        let row = |record: Option<&Value>| {
            let field = |name: &str| record.and_then(|r| r.get(name)).unwrap_or(&Value::Null);
            let mut row = vec![page.page.clone()];
            row.extend(self.columns.iter().map(|column| cell(field(column))));
            row.push(violations.clone());
            row.push(cell(field("_proposals")));
            row.push(error.clone());
            row
        };
        for record in &page.records {
            csv.write_record(row(Some(record)))?;
        }
        // A page with no record is still a row when something went wrong
        // on it, so that it is not missing from the table in silence.
        if page.records.is_empty() && (!page.violations.is_empty() || page.error.is_some()) {
            csv.write_record(row(None))?;
        }
        csv.flush()?;
        Ok(())
    }
}

/// A CSV cell: strings as they are, null empty, a list of values joined by
/// [`CSV_LIST_SEPARATOR`]; a nested record (an object, or a list holding
/// one) as JSON.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) if items.iter().all(|v| !v.is_array() && !v.is_object()) => items
            .iter()
            .map(cell)
            .collect::<Vec<_>>()
            .join(CSV_LIST_SEPARATOR),
        other => other.to_string(),
    }
}

/// The `_violations` cell of a page: each violation in a few words, in the
/// order found, the same words once with how many times they occurred.
fn violations_cell(page: &PageOutput) -> String {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for v in &page.violations {
        let text = format!(
            "{} {}: expected {}, found {}",
            v.pattern, v.constraint, v.expected, v.found
        );
        match seen.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => seen.push((text, 1)),
        }
    }
    seen.into_iter()
        .map(|(text, n)| match n {
            1 => text,
            n => format!("{text} ({n} times)"),
        })
        .collect::<Vec<_>>()
        .join(CSV_LIST_SEPARATOR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{Violation, ViolationKind};

    fn page(name: &str, records: Vec<Value>) -> PageOutput {
        PageOutput {
            page: name.into(),
            records,
            violations: vec![],
            adaptations: vec![],
            fallbacks: vec![],
            error: None,
            ticket: None,
        }
    }

    fn render(format: OutputFormat, pages: Vec<PageOutput>) -> String {
        let mut w = OutputWriter::new(Vec::new(), format, vec!["title".into(), "tags".into()]);
        for p in pages {
            w.write(p).unwrap();
        }
        String::from_utf8(w.finish().unwrap()).unwrap()
    }

    #[test]
    fn json_with_one_page_is_exactly_that_object() {
        let out = render(
            OutputFormat::Json,
            vec![page("a.html", vec![serde_json::json!({"title": "T"})])],
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["page"], "a.html");
        assert_eq!(v["records"][0]["title"], "T");
        assert_eq!(v["adaptations"], serde_json::json!([]));
    }

    #[test]
    fn json_with_several_pages_is_an_array() {
        let out = render(
            OutputFormat::Json,
            vec![page("a", vec![]), page("b", vec![])],
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v.as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn ndjson_is_one_line_per_page() {
        let out = render(
            OutputFormat::Ndjson,
            vec![page("a", vec![]), page("b", vec![])],
        );
        assert_eq!(out.lines().count(), 2);
    }

    #[test]
    fn csv_lists_were_json_and_are_values_joined_by_semicolons() {
        let out = render(
            OutputFormat::Csv,
            vec![page(
                "a.html",
                vec![serde_json::json!({"title": "T, with comma", "tags": ["x", "y", 3]})],
            )],
        );
        assert_eq!(
            out,
            "page,title,tags,_violations,_proposals,_error\n\
             a.html,\"T, with comma\",x; y; 3,,,\n"
        );
    }

    #[test]
    fn csv_keeps_nested_records_as_json() {
        let out = render(
            OutputFormat::Csv,
            vec![page(
                "a.html",
                vec![serde_json::json!({"title": {"a": 1}, "tags": [{"b": 2}]})],
            )],
        );
        assert_eq!(
            out.lines().nth(1),
            Some("a.html,\"{\"\"a\"\":1}\",\"[{\"\"b\"\":2}]\",,,")
        );
    }

    fn violation(pattern: &str, found: &str) -> Violation {
        Violation {
            pattern: pattern.parse().unwrap(),
            constraint: ViolationKind::Min,
            expected: "at least 1".into(),
            found: found.into(),
            context: "/".into(),
            node: None,
        }
    }

    #[test]
    fn csv_says_what_went_wrong_where_it_said_nothing() {
        let mut violated = page(
            "v.html",
            vec![serde_json::json!({"title": "T", "_proposals": [4, 7]})],
        );
        violated.violations = vec![
            violation("book/price", "0 matches"),
            violation("book/price", "0 matches"),
            violation("title", "0 matches"),
        ];
        // No record, but violations: still a row.
        let mut empty = page("e.html", vec![]);
        empty.violations = vec![violation("book", "0 matches")];
        let mut failed = page("f.html", vec![]);
        failed.error = Some("f.html: not an HTML page".into());
        let out = render(
            OutputFormat::Csv,
            vec![violated, empty, failed, page("nothing.html", vec![])],
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                "page,title,tags,_violations,_proposals,_error",
                "v.html,T,,\"book/price min: expected at least 1, found 0 matches (2 times); \
                 title min: expected at least 1, found 0 matches\",4; 7,",
                "e.html,,,\"book min: expected at least 1, found 0 matches\",,",
                "f.html,,,,,f.html: not an HTML page",
            ]
        );
    }
}
