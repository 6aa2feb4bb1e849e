//! Writing page outputs as NDJSON, JSON or CSV.

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
    /// One row per record: the page, then one column per field.
    Csv,
}

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
        csv.write_record(&header)?;
        csv.flush()?;
        self.csv_header_written = true;
        Ok(())
    }

    fn write_csv(&mut self, page: &PageOutput) -> std::io::Result<()> {
        if !self.csv_header_written {
            self.write_header()?;
        }
        let mut csv = csv::Writer::from_writer(&mut self.out);
        for record in &page.records {
            let mut row = vec![page.page.clone()];
            for column in &self.columns {
                row.push(cell(record.get(column).unwrap_or(&Value::Null)));
            }
            csv.write_record(&row)?;
        }
        csv.flush()?;
        Ok(())
    }
}

/// A CSV cell: strings as they are, null empty, lists and objects as JSON.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn csv_has_a_header_and_json_for_lists() {
        let out = render(
            OutputFormat::Csv,
            vec![page(
                "a.html",
                vec![serde_json::json!({"title": "T, with comma", "tags": ["x", "y"]})],
            )],
        );
        assert_eq!(
            out,
            "page,title,tags\na.html,\"T, with comma\",\"[\"\"x\"\",\"\"y\"\"]\"\n"
        );
    }
}
