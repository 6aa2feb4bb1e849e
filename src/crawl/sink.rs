//! Where a crawl's records go: NDJSON or CSV (the shapes `mend run`
//! writes), or SQLite with one table per record pattern.
//!
//! A sink can say how far it has durably written ([`Sink::commit`]): the
//! file's length for NDJSON and CSV, the number of pages for SQLite. The
//! frontier records that position with each page, and a resumed crawl opens
//! the sink at it ([`Sink::open`] with `resume_at`), cutting off whatever a
//! killed process wrote after it, so that no page is emitted twice.
//!
//! It refuses to resume onto standard output, which cannot be cut back.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params_from_iter};
use serde_json::Value;

use crate::job::{OutputFormat, OutputWriter, PageOutput};
use crate::wrapper::Wrapper;

/// The formats a crawl writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SinkFormat {
    /// One JSON object per page, one per line, as `mend run` prints them.
    Ndjson,
    /// One row per record, as `mend run --format csv` writes them.
    Csv,
    /// An SQLite file: a table per top-level record pattern, and `pages` for
    /// the page-level fields, each row with its page's URL and fetch time.
    Sqlite,
}

/// Why the sink failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// Writing the output failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The output.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The SQLite output failed.
    #[error("cannot write {path}: {source}")]
    Sqlite {
        /// The output.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// Resuming needs an output file.
    #[error("a crawl that writes to standard output cannot be resumed: pass --out FILE")]
    ResumeStdout,
    /// SQLite needs an output file.
    #[error("--format sqlite needs --out FILE")]
    SqliteStdout,
}

/// A crawl's output.
pub struct Sink {
    inner: Inner,
    path: PathBuf,
}

enum Inner {
    Text(OutputWriter<Counted<Box<dyn Write + Send>>>),
    Sqlite(SqliteSink),
}

impl Sink {
    /// Opens the output at `path` (standard output when `None`). A resumed
    /// crawl gives the position its frontier recorded: the output is cut
    /// back to it and written on from there.
    pub fn open(
        path: Option<&Path>,
        format: SinkFormat,
        wrapper: &Wrapper,
        resume_at: Option<u64>,
    ) -> Result<Sink, SinkError> {
        let shown = path.map_or_else(|| PathBuf::from("-"), Path::to_owned);
        let io = |source| SinkError::Io {
            path: shown.clone(),
            source,
        };
        let mut columns: Vec<String> = wrapper.patterns.iter().map(|p| p.name.clone()).collect();
        // A crawl that downloads images says where each went, in CSV as in
        // NDJSON; without a `media` rule the column would always be empty.
        if wrapper.crawl.media.is_some() {
            columns.push("_media".to_owned());
        }
        let text_format = match format {
            SinkFormat::Ndjson => OutputFormat::Ndjson,
            SinkFormat::Csv => OutputFormat::Csv,
            SinkFormat::Sqlite => {
                let path = path.ok_or(SinkError::SqliteStdout)?;
                let sink =
                    SqliteSink::open(path, wrapper, resume_at.unwrap_or(0)).map_err(|source| {
                        SinkError::Sqlite {
                            path: shown.clone(),
                            source,
                        }
                    })?;
                return Ok(Sink {
                    inner: Inner::Sqlite(sink),
                    path: shown,
                });
            }
        };
        let (out, written): (Box<dyn Write + Send>, u64) = match (path, resume_at) {
            (None, Some(_)) => return Err(SinkError::ResumeStdout),
            (None, None) => (Box::new(std::io::stdout()), 0),
            (Some(path), None) => (Box::new(BufWriter::new(File::create(path).map_err(io)?)), 0),
            (Some(path), Some(at)) => {
                let mut file = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(path)
                    .map_err(io)?;
                // What a killed process wrote past the last recorded page
                // is dropped: those pages are fetched and written again.
                file.set_len(at).map_err(io)?;
                file.seek(SeekFrom::End(0)).map_err(io)?;
                (Box::new(BufWriter::new(file)), at)
            }
        };
        let counted = Counted {
            inner: out,
            written,
        };
        let writer = if written > 0 {
            OutputWriter::continuing(counted, text_format, columns)
        } else {
            OutputWriter::new(counted, text_format, columns)
        };
        Ok(Sink {
            inner: Inner::Text(writer),
            path: shown,
        })
    }

    /// Writes one page's output, fetched at `fetched_at` (Unix ms).
    pub fn write(&mut self, page: PageOutput, fetched_at: i64) -> Result<(), SinkError> {
        match &mut self.inner {
            Inner::Text(writer) => writer.write(page).map_err(|source| SinkError::Io {
                path: self.path.clone(),
                source,
            }),
            Inner::Sqlite(sink) => {
                sink.write(&page, fetched_at)
                    .map_err(|source| SinkError::Sqlite {
                        path: self.path.clone(),
                        source,
                    })
            }
        }
    }

    /// Makes everything written so far durable, and gives the position to
    /// resume at.
    pub fn commit(&mut self) -> Result<u64, SinkError> {
        match &mut self.inner {
            Inner::Text(writer) => {
                writer.flush().map_err(|source| SinkError::Io {
                    path: self.path.clone(),
                    source,
                })?;
                Ok(writer.get_ref().written)
            }
            Inner::Sqlite(sink) => sink.commit().map_err(|source| SinkError::Sqlite {
                path: self.path.clone(),
                source,
            }),
        }
    }
}

/// A writer that counts the bytes written through it.
struct Counted<W> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The SQLite output: a table per top-level record pattern, and `pages`.
struct SqliteSink {
    conn: Connection,
    /// Top-level record patterns, with their fields' names.
    records: Vec<(String, Vec<String>)>,
    /// Top-level field patterns.
    fields: Vec<String>,
    /// Pages written, committed or not.
    pages: u64,
}

impl SqliteSink {
    fn open(path: &Path, wrapper: &Wrapper, resume_at: u64) -> rusqlite::Result<SqliteSink> {
        if resume_at == 0 && path.exists() {
            // A new crawl starts a new output, as a text file would be.
            let _ = std::fs::remove_file(path);
        }
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let records: Vec<(String, Vec<String>)> = wrapper
            .patterns
            .iter()
            .filter(|p| p.is_record())
            .map(|p| {
                (
                    p.name.clone(),
                    p.patterns.iter().map(|c| c.name.clone()).collect(),
                )
            })
            .collect();
        let fields: Vec<String> = wrapper
            .patterns
            .iter()
            .filter(|p| !p.is_record())
            .map(|p| p.name.clone())
            .collect();
        let mut ddl = String::new();
        let table = |name: &str, columns: &[String]| {
            let mut sql = format!(
                "CREATE TABLE IF NOT EXISTS {} (page_seq INTEGER NOT NULL, page_url TEXT NOT NULL, fetched_at INTEGER NOT NULL",
                quote(name)
            );
            for c in columns {
                sql += &format!(", {}", quote(c));
            }
            sql + ");\n"
        };
        let mut page_columns = fields.clone();
        page_columns.extend(["_violations", "_error", "_media"].map(str::to_owned));
        ddl += &table("pages", &page_columns);
        for (name, columns) in &records {
            let mut columns = columns.clone();
            columns.push("_media".to_owned());
            ddl += &table(name, &columns);
        }
        conn.execute_batch(&ddl)?;
        // Rows of pages past the recorded position were written by a killed
        // process: they go, and those pages come again.
        let mut tables = vec!["pages".to_owned()];
        tables.extend(records.iter().map(|(n, _)| n.clone()));
        for t in &tables {
            conn.execute(
                &format!("DELETE FROM {} WHERE page_seq >= ?1", quote(t)),
                [i64::try_from(resume_at).unwrap_or(i64::MAX)],
            )?;
        }
        conn.execute_batch("BEGIN")?;
        Ok(SqliteSink {
            conn,
            records,
            fields,
            pages: resume_at,
        })
    }

    fn write(&mut self, page: &PageOutput, fetched_at: i64) -> rusqlite::Result<()> {
        let seq = i64::try_from(self.pages).unwrap_or(i64::MAX);
        self.pages += 1;
        let record = page.records.first();
        let get =
            |r: Option<&Value>, k: &str| r.and_then(|r| r.get(k)).cloned().unwrap_or(Value::Null);
        let mut values: Vec<rusqlite::types::Value> =
            vec![seq.into(), page.page.clone().into(), fetched_at.into()];
        values.extend(self.fields.iter().map(|f| sql_value(&get(record, f))));
        values.push(if page.violations.is_empty() {
            rusqlite::types::Value::Null
        } else {
            serde_json::to_string(&page.violations)
                .unwrap_or_default()
                .into()
        });
        values.push(
            page.error
                .clone()
                .map_or(rusqlite::types::Value::Null, Into::into),
        );
        values.push(sql_value(&get(record, "_media")));
        insert(&self.conn, "pages", &values)?;
        for (name, columns) in &self.records {
            let Some(Value::Array(items)) = record.and_then(|r| r.get(name)) else {
                continue;
            };
            for item in items {
                let mut values: Vec<rusqlite::types::Value> =
                    vec![seq.into(), page.page.clone().into(), fetched_at.into()];
                values.extend(columns.iter().map(|c| sql_value(&get(Some(item), c))));
                values.push(sql_value(&get(Some(item), "_media")));
                insert(&self.conn, name, &values)?;
            }
        }
        Ok(())
    }

    fn commit(&mut self) -> rusqlite::Result<u64> {
        self.conn.execute_batch("COMMIT; BEGIN")?;
        Ok(self.pages)
    }
}

impl Drop for SqliteSink {
    fn drop(&mut self) {
        // What was not committed is dropped, as a killed process would drop it.
        let _ = self.conn.execute_batch("ROLLBACK");
    }
}

fn insert(
    conn: &Connection,
    table: &str,
    values: &[rusqlite::types::Value],
) -> rusqlite::Result<()> {
    let marks = vec!["?"; values.len()].join(", ");
    let mut statement =
        conn.prepare_cached(&format!("INSERT INTO {} VALUES ({marks})", quote(table)))?;
    statement.execute(params_from_iter(values.iter()))?;
    Ok(())
}

/// A JSON value as SQLite keeps it: scalars as themselves, lists and objects
/// as JSON text.
fn sql_value(value: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as Sql;
    match value {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => n
            .as_i64()
            .map(Sql::Integer)
            .or_else(|| n.as_f64().map(Sql::Real))
            .unwrap_or(Sql::Null),
        Value::String(s) => Sql::Text(s.clone()),
        other => Sql::Text(other.to_string()),
    }
}

/// An SQL identifier, quoted.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrapper() -> Wrapper {
        crate::wrapper::load_str(
            "name: blog\npatterns:\n  - name: title\n    xpath: //h1\n  - name: comments\n    xpath: //li\n    patterns:\n      - name: who\n        xpath: ./b\n",
            "w.yaml",
        )
        .unwrap()
    }

    fn page(n: u32) -> PageOutput {
        PageOutput {
            page: format!("http://h/{n}"),
            records: vec![
                serde_json::json!({"title": format!("T{n}"), "comments": [{"who": "a"}, {"who": "b"}]}),
            ],
            violations: Vec::new(),
            adaptations: Vec::new(),
            fallbacks: Vec::new(),
            error: None,
            ticket: None,
        }
    }

    #[test]
    fn a_resumed_text_output_drops_what_was_written_after_the_last_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.ndjson");
        let w = wrapper();
        let at = {
            let mut sink = Sink::open(Some(&path), SinkFormat::Ndjson, &w, None).unwrap();
            sink.write(page(1), 0).unwrap();
            let at = sink.commit().unwrap();
            sink.write(page(2), 0).unwrap();
            sink.commit().unwrap();
            at
        };
        let mut sink = Sink::open(Some(&path), SinkFormat::Ndjson, &w, Some(at)).unwrap();
        sink.write(page(3), 0).unwrap();
        sink.commit().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let pages: Vec<&str> = text.lines().map(|l| l.split('"').nth(3).unwrap()).collect();
        assert_eq!(pages, ["http://h/1", "http://h/3"]);
    }

    #[test]
    fn a_resumed_csv_keeps_one_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let w = wrapper();
        let at = {
            let mut sink = Sink::open(Some(&path), SinkFormat::Csv, &w, None).unwrap();
            sink.write(page(1), 0).unwrap();
            sink.commit().unwrap()
        };
        let mut sink = Sink::open(Some(&path), SinkFormat::Csv, &w, Some(at)).unwrap();
        sink.write(page(2), 0).unwrap();
        sink.commit().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().filter(|l| l.starts_with("page,")).count(),
            1,
            "{text}"
        );
        assert_eq!(text.lines().count(), 3, "{text}");
    }

    #[test]
    fn sqlite_has_a_table_per_record_pattern_and_resumes_at_a_page() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.db");
        let w = wrapper();
        let at = {
            let mut sink = Sink::open(Some(&path), SinkFormat::Sqlite, &w, None).unwrap();
            sink.write(page(1), 7).unwrap();
            let at = sink.commit().unwrap();
            // Written but never committed: a killed process.
            sink.write(page(2), 8).unwrap();
            at
        };
        assert_eq!(at, 1);
        let mut sink = Sink::open(Some(&path), SinkFormat::Sqlite, &w, Some(at)).unwrap();
        sink.write(page(3), 9).unwrap();
        sink.commit().unwrap();
        drop(sink);
        let conn = Connection::open(&path).unwrap();
        let titles: Vec<String> = conn
            .prepare("SELECT title FROM pages ORDER BY page_seq")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(titles, ["T1", "T3"]);
        let comments: i64 = conn
            .query_row(
                "SELECT count(*) FROM comments WHERE page_url = 'http://h/3' AND fetched_at = 9",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(comments, 2);
    }

    #[test]
    fn standard_output_cannot_be_resumed() {
        assert!(matches!(
            Sink::open(None, SinkFormat::Ndjson, &wrapper(), Some(3)),
            Err(SinkError::ResumeStdout)
        ));
    }
}
