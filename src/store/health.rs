//! Field health: the statistics of every pattern over the pages of a run or
//! of a snapshot, and the drops a run was judged to have.
//!
//! A *sample* is one set of statistics: a run's (tied to the run) or a
//! snapshot's, which is the baseline later runs of the wrapper are judged
//! against. Samples are kept per wrapper name, like runs, and are never
//! changed once written.
//!
//! ## What it refuses
//!
//! A run's sample for a run the store does not hold is
//! [`StoreError::UnknownRun`], and a count beyond SQLite's signed 64-bit
//! integers is [`StoreError::TooLarge`]; either way nothing of the sample
//! is written. Read back, a sample whose source, type, measure, limit,
//! pattern path or examples are not what mend writes is
//! [`StoreError::Corrupt`]. With no wrapper named, a limit on the samples
//! read is a limit per wrapper.

use std::fmt;

use rusqlite::{Connection, Row, params};
use serde::{Serialize, Serializer};

use super::{RunId, Store, StoreError, Timestamp, from_sql_int, to_sql_int};
use crate::health::{ExamplePages, FieldStats, HealthDrop, LIMITS, Measure};
use crate::wrapper::PatternPath;

/// The id of a health sample in the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct HealthSampleId(pub i64);

impl fmt::Display for HealthSampleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where a sample's statistics come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleSource {
    /// The pages of a run.
    Run(RunId),
    /// The pages `mend snapshot` was given: a baseline.
    Snapshot,
}

impl SampleSource {
    /// The run, for a run's sample.
    pub fn run(self) -> Option<RunId> {
        match self {
            SampleSource::Run(run) => Some(run),
            SampleSource::Snapshot => None,
        }
    }
}

/// One set of statistics as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HealthSample {
    /// The sample's id.
    pub id: HealthSampleId,
    /// The wrapper's name.
    pub wrapper: String,
    /// `run` or `snapshot`.
    #[serde(serialize_with = "serialize_source")]
    pub source: SampleSource,
    /// The run, for a run's sample.
    pub run: Option<RunId>,
    /// When the statistics were taken.
    pub recorded_at: Timestamp,
    /// How many pages they were taken over.
    pub pages: u64,
    /// Every pattern's statistics, in the wrapper's order.
    pub fields: Vec<FieldStats>,
    /// The drops the run was judged to have (none for a snapshot).
    pub drops: Vec<HealthDrop>,
}

fn serialize_source<S: Serializer>(source: &SampleSource, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match source {
        SampleSource::Run(_) => "run",
        SampleSource::Snapshot => "snapshot",
    })
}

impl Store {
    /// Records the statistics `fields` of wrapper `wrapper`, taken over
    /// `pages` pages, with the `drops` they were judged to have, in one
    /// transaction; gives the sample's id.
    pub fn record_health(
        &mut self,
        wrapper: &str,
        source: SampleSource,
        pages: u64,
        fields: &[FieldStats],
        drops: &[HealthDrop],
        at: Timestamp,
    ) -> Result<HealthSampleId, StoreError> {
        let pages = to_sql_int("a sample's page count", pages)?;
        let drop_count = to_sql_int("a sample's drop count", drops.len() as u64)?;
        self.write(|tx| {
            if let SampleSource::Run(run) = source {
                Store::check_run(tx, run)?;
            }
            tx.prepare_cached(
                "INSERT INTO health_samples (wrapper, source, run_id, recorded_at, pages, drops)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                wrapper,
                if source == SampleSource::Snapshot {
                    "snapshot"
                } else {
                    "run"
                },
                source.run().map(|r| r.0),
                at.unix_millis(),
                pages,
                drop_count
            ])?;
            let id = tx.last_insert_rowid();
            let mut insert_field = tx.prepare_cached(
                "INSERT INTO field_stats (sample_id, position, pattern, value_type, items, filled,
                     value_count, typed, regex_checked, regex_passed, distinct_values,
                     distinct_capped, examples)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?;
            for (position, f) in fields.iter().enumerate() {
                let count = |what, n: u64| to_sql_int(what, n);
                let optional = |what, n: Option<u64>| n.map(|n| to_sql_int(what, n)).transpose();
                let examples = serde_json::json!({
                    "fill": f.examples.fill,
                    "type_pass": f.examples.type_pass,
                    "regex_pass": f.examples.regex_pass,
                });
                insert_field.execute(params![
                    id,
                    position as i64,
                    f.pattern.to_string(),
                    f.value_type.map(|t| t.as_str()),
                    count("an item count", f.items)?,
                    count("a filled count", f.filled)?,
                    count("a value count", f.values)?,
                    count("a typed count", f.typed)?,
                    optional("a regex count", f.regex_checked)?,
                    optional("a regex count", f.regex_passed)?,
                    count("a distinct count", f.distinct)?,
                    f.distinct_capped,
                    examples.to_string(),
                ])?;
            }
            let mut insert_drop = tx.prepare_cached(
                "INSERT INTO health_drops (sample_id, position, pattern, measure, limit_name,
                     limit_value, baseline_value, baseline_from, now_value, threshold,
                     example_pages)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?;
            for (position, d) in drops.iter().enumerate() {
                insert_drop.execute(params![
                    id,
                    position as i64,
                    d.field.to_string(),
                    d.measure.as_str(),
                    d.limit,
                    d.limit_value,
                    d.baseline,
                    d.baseline_from,
                    d.now,
                    d.threshold,
                    serde_json::Value::from(d.example_pages.clone()).to_string(),
                ])?;
            }
            Ok(HealthSampleId(id))
        })
    }

    /// The newest snapshot sample of `wrapper`: its baseline, if it has one.
    pub fn health_baseline(&self, wrapper: &str) -> Result<Option<HealthSample>, StoreError> {
        Ok(self
            .samples_where("wrapper = ?1 AND source = 'snapshot'", wrapper, Some(1))?
            .pop())
    }

    /// The newest samples of runs of `wrapper` judged to have no drop, at
    /// most `limit`, newest first.
    pub fn healthy_runs(&self, wrapper: &str, limit: u64) -> Result<Vec<HealthSample>, StoreError> {
        self.samples_where(
            "wrapper = ?1 AND source = 'run' AND drops = 0",
            wrapper,
            Some(limit),
        )
    }

    /// The newest samples, of the wrapper `wrapper` or of all, at most
    /// `limit` (per wrapper when no wrapper is named), newest first.
    pub fn health_samples(
        &self,
        wrapper: Option<&str>,
        limit: Option<u64>,
    ) -> Result<Vec<HealthSample>, StoreError> {
        match wrapper {
            Some(w) => self.samples_where("wrapper = ?1", w, limit),
            None => {
                let mut names: Vec<String> = Vec::new();
                let mut statement = self.conn.prepare_cached(
                    "SELECT DISTINCT wrapper FROM health_samples ORDER BY wrapper",
                )?;
                for name in statement.query_map([], |row| row.get(0))? {
                    names.push(name?);
                }
                let mut all = Vec::new();
                for name in names {
                    all.extend(self.samples_where("wrapper = ?1", &name, limit)?);
                }
                Ok(all)
            }
        }
    }

    /// The samples that `condition` (on `health_samples`, with `?1` the
    /// wrapper) selects, newest first, with their fields and drops.
    fn samples_where(
        &self,
        condition: &str,
        wrapper: &str,
        limit: Option<u64>,
    ) -> Result<Vec<HealthSample>, StoreError> {
        let limit = match limit {
            Some(n) => to_sql_int("a limit", n)?,
            None => -1,
        };
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT id, wrapper, source, run_id, recorded_at, pages FROM health_samples
             WHERE {condition} ORDER BY recorded_at DESC, id DESC LIMIT ?2"
        ))?;
        let heads = statement.query_map(params![wrapper, limit], |row| Ok(read_head(row)))?;
        let mut samples = Vec::new();
        for head in heads {
            let mut sample = head??;
            sample.fields = fields(&self.conn, sample.id)?;
            sample.drops = drops(&self.conn, sample.id)?;
            samples.push(sample);
        }
        Ok(samples)
    }
}

/// A sample's own row; its fields and drops are read after.
fn read_head(row: &Row<'_>) -> Result<HealthSample, StoreError> {
    let source: String = row.get(2)?;
    let run: Option<i64> = row.get(3)?;
    let source = match (source.as_str(), run) {
        ("run", Some(run)) => SampleSource::Run(RunId(run)),
        ("snapshot", None) => SampleSource::Snapshot,
        (other, _) => {
            return Err(StoreError::Corrupt(format!(
                "health sample source {other:?} with run {run:?}"
            )));
        }
    };
    Ok(HealthSample {
        id: HealthSampleId(row.get(0)?),
        wrapper: row.get(1)?,
        source,
        run: source.run(),
        recorded_at: Timestamp::from_unix_millis(row.get(4)?),
        pages: from_sql_int("a sample's page count", row.get(5)?)?,
        fields: Vec::new(),
        drops: Vec::new(),
    })
}

fn fields(conn: &Connection, sample: HealthSampleId) -> Result<Vec<FieldStats>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT pattern, value_type, items, filled, value_count, typed, regex_checked,
             regex_passed, distinct_values, distinct_capped, examples
         FROM field_stats WHERE sample_id = ?1 ORDER BY position",
    )?;
    let rows = statement.query_map([sample.0], |row| Ok(read_field(row)))?;
    let mut out = Vec::new();
    for row in rows {
        out.push(row??);
    }
    Ok(out)
}

fn read_field(row: &Row<'_>) -> Result<FieldStats, StoreError> {
    let count =
        |i: usize, what: &str| -> Result<u64, StoreError> { from_sql_int(what, row.get(i)?) };
    let optional = |i: usize| -> Result<Option<u64>, StoreError> {
        row.get::<_, Option<i64>>(i)?
            .map(|n| from_sql_int("a regex count", n))
            .transpose()
    };
    let value_type = row
        .get::<_, Option<String>>(1)?
        .map(|t| {
            t.parse()
                .map_err(|_| StoreError::Corrupt(format!("field type {t:?}")))
        })
        .transpose()?;
    let examples: String = row.get(10)?;
    let examples: serde_json::Value = serde_json::from_str(&examples)
        .map_err(|e| StoreError::Corrupt(format!("field examples: {e}")))?;
    let pages = |key: &str| -> Vec<String> {
        examples[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect()
    };
    Ok(FieldStats {
        pattern: pattern(row.get(0)?)?,
        value_type,
        items: count(2, "an item count")?,
        filled: count(3, "a filled count")?,
        values: count(4, "a value count")?,
        typed: count(5, "a typed count")?,
        regex_checked: optional(6)?,
        regex_passed: optional(7)?,
        distinct: count(8, "a distinct count")?,
        distinct_capped: row.get(9)?,
        examples: ExamplePages {
            fill: pages("fill"),
            type_pass: pages("type_pass"),
            regex_pass: pages("regex_pass"),
        },
    })
}

fn drops(conn: &Connection, sample: HealthSampleId) -> Result<Vec<HealthDrop>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT pattern, measure, limit_name, limit_value, baseline_value, baseline_from,
             now_value, threshold, example_pages
         FROM health_drops WHERE sample_id = ?1 ORDER BY position",
    )?;
    let rows = statement.query_map([sample.0], |row| Ok(read_drop(row)))?;
    let mut out = Vec::new();
    for row in rows {
        out.push(row??);
    }
    Ok(out)
}

fn read_drop(row: &Row<'_>) -> Result<HealthDrop, StoreError> {
    let measure: String = row.get(1)?;
    let limit: String = row.get(2)?;
    let pages: String = row.get(8)?;
    Ok(HealthDrop {
        field: pattern(row.get(0)?)?,
        measure: measure.parse::<Measure>().map_err(StoreError::Corrupt)?,
        limit: LIMITS
            .into_iter()
            .find(|l| *l == limit)
            .ok_or_else(|| StoreError::Corrupt(format!("health limit {limit:?}")))?,
        limit_value: row.get(3)?,
        baseline: row.get(4)?,
        baseline_from: row.get(5)?,
        now: row.get(6)?,
        threshold: row.get(7)?,
        example_pages: serde_json::from_str(&pages)
            .map_err(|e| StoreError::Corrupt(format!("drop example pages: {e}")))?,
    })
}

fn pattern(text: String) -> Result<PatternPath, StoreError> {
    text.parse()
        .map_err(|_| StoreError::Corrupt(format!("pattern path {text:?}")))
}
