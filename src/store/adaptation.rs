//! Adaptations: each attempt to find a broken pattern's data again, with
//! everything that went into it.
//!
//! An adaptation's status is what the run did, and it does not change: a
//! person's later verdict on a proposal is a [`Decision`] beside it. So the
//! history says both what mend did on its own and what people made of it.
//! The one exception is an adaptation a run applied whose change to the
//! wrapper file never reached the disk (the journal, `change.rs`, rolled it
//! back): it becomes the proposal it then is, with the reason.
//!
//! It refuses to record an adaptation with a score, runner-up score, model's
//! confidence or candidate score that is not finite (`StoreError::NotFinite`),
//! an applied or proposed one without a new XPath (`StoreError::MissingXPath`),
//! and one on a page the store does not have; pages are added only to an
//! adaptation that exists. Only a proposal still waiting is promoted to
//! applied, and a status or state the store does not know is read as
//! `StoreError::Corrupt`, never guessed.

use std::fmt;
use std::str::FromStr;

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use super::decision::{self, Decision};
use super::revert::Revert;
use super::state::{State, state_sql};
use super::{AdaptationId, Batch, PageId, RunId, Store, StoreError, Timestamp, from_sql_int};
use crate::extract::Violation;

/// What a run did with an adaptation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AdaptationStatus {
    /// The new XPath was used, and written to the wrapper (`auto` mode).
    Applied,
    /// The new XPath waits for a person (`propose` mode).
    Proposed,
    /// No candidate was good enough, or clear enough of the runner-up.
    Abstained,
    /// A candidate was found but refused: it failed the constraints, or a
    /// person had rejected it before.
    Rejected,
}

impl AdaptationStatus {
    /// The status as the store and `mend run`'s output spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            AdaptationStatus::Applied => "applied",
            AdaptationStatus::Proposed => "proposed",
            AdaptationStatus::Abstained => "abstained",
            AdaptationStatus::Rejected => "rejected",
        }
    }
}

impl fmt::Display for AdaptationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AdaptationStatus {
    type Err = String;

    /// Parses the lowercase word, as `mend log --status` takes it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "applied" => Ok(AdaptationStatus::Applied),
            "proposed" => Ok(AdaptationStatus::Proposed),
            "abstained" => Ok(AdaptationStatus::Abstained),
            "rejected" => Ok(AdaptationStatus::Rejected),
            _ => Err(format!(
                "unknown status {s:?}: expected applied, proposed, abstained or rejected"
            )),
        }
    }
}

/// One candidate that an adaptation considered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The candidate's canonical node path, or the XPath generated for it.
    pub xpath: String,
    /// Its similarity to the tree-gram.
    pub score: f64,
    /// The algorithm that scored it.
    pub algorithm: String,
}

/// One constraint checked on an adaptation's chosen nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstraintResult {
    /// The constraint, as [`Violation::constraint`] names it (`min`, `type`, ...).
    pub constraint: String,
    /// Whether it held.
    pub passed: bool,
    /// What was expected and found, in words.
    pub detail: String,
}

impl From<&Violation> for ConstraintResult {
    /// A failed constraint, as the extractor reported it.
    fn from(v: &Violation) -> Self {
        ConstraintResult {
            constraint: v.constraint.as_str().to_owned(),
            passed: false,
            detail: format!("expected {}, found {}", v.expected, v.found),
        }
    }
}

/// An adaptation to record: what the adaptation engine produced.
#[derive(Clone, Debug, PartialEq)]
pub struct NewAdaptation {
    /// The page that triggered it; the run and wrapper follow from the page.
    pub page_id: PageId,
    /// The pattern's path of names, such as `book/price`.
    pub pattern: String,
    /// The XPath that broke.
    pub old_xpath: String,
    /// The XPath found, if any; required when applied or proposed.
    pub new_xpath: Option<String>,
    /// The algorithm whose candidate won, if any.
    pub algorithm: Option<String>,
    /// The winner's score.
    pub score: Option<f64>,
    /// The runner-up's score.
    pub runner_up: Option<f64>,
    /// What the run did.
    pub status: AdaptationStatus,
    /// How the page changed around the pattern (`none`, `unstable`,
    /// `template`, `local` or `structural`), when it was sensed.
    pub change_scope: Option<String>,
    /// Why, in words, when the status needs explaining (abstained, rejected).
    pub reason: Option<String>,
    /// The version of the heal model that judged it, when one did.
    pub model: Option<String>,
    /// The model's confidence that the nodes chosen are the target.
    pub confidence: Option<f64>,
    /// Every candidate considered, best first.
    pub candidates: Vec<Candidate>,
    /// Values the old XPath gave on the page.
    pub samples_before: Vec<serde_json::Value>,
    /// Values the new XPath gives on the page.
    pub samples_after: Vec<serde_json::Value>,
    /// The constraints checked on the chosen nodes.
    pub constraint_results: Vec<ConstraintResult>,
    /// When it happened.
    pub created_at: Timestamp,
}

/// An adaptation as the store keeps it, with its decision if it has one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdaptationRecord {
    /// The adaptation's id.
    pub id: AdaptationId,
    /// The run it happened in.
    pub run_id: RunId,
    /// The page that triggered it.
    pub page_id: PageId,
    /// The wrapper's name.
    pub wrapper: String,
    /// The pattern's path of names, such as `book/price`.
    pub pattern: String,
    /// The XPath that broke.
    pub old_xpath: String,
    /// The XPath found, if any.
    pub new_xpath: Option<String>,
    /// The algorithm whose candidate won, if any.
    pub algorithm: Option<String>,
    /// The winner's score.
    pub score: Option<f64>,
    /// The runner-up's score.
    pub runner_up: Option<f64>,
    /// What the run did.
    pub status: AdaptationStatus,
    /// How the page changed around the pattern, when it was sensed.
    pub change_scope: Option<String>,
    /// Why, in words, when the status needs explaining.
    pub reason: Option<String>,
    /// The version of the heal model that judged it, when one did.
    pub model: Option<String>,
    /// The model's confidence that the nodes chosen are the target.
    pub confidence: Option<f64>,
    /// Every candidate considered, best first.
    pub candidates: Vec<Candidate>,
    /// Values the old XPath gave on the page.
    pub samples_before: Vec<serde_json::Value>,
    /// Values the new XPath gives on the page.
    pub samples_after: Vec<serde_json::Value>,
    /// The constraints checked on the chosen nodes.
    pub constraint_results: Vec<ConstraintResult>,
    /// When it happened.
    pub created_at: Timestamp,
    /// On how many pages it was found or held: one entry stands for every
    /// page of a run that broke the same way (and, while it waits for a
    /// person, for the pages of later runs that found it again).
    pub page_count: u64,
    /// A person's verdict, for a proposal that has one.
    pub decision: Option<Decision>,
    /// Where it stands now, from what the run did, the verdict and the
    /// reverts: what every command and the review page show.
    pub state: State,
    /// Each time its XPath was taken back out of the wrapper, oldest first.
    pub reverts: Vec<Revert>,
}

impl AdaptationRecord {
    /// Whether this is a proposal still waiting for a person.
    pub fn is_pending(&self) -> bool {
        self.status == AdaptationStatus::Proposed && self.decision.is_none()
    }
}

/// Which adaptations [`Store::adaptations`] lists; the default lists all.
#[derive(Clone, Copy, Debug, Default)]
pub struct AdaptationFilter<'a> {
    /// Only this wrapper's.
    pub wrapper: Option<&'a str>,
    /// Only this pattern's (a path of names, such as `book/price`).
    pub pattern: Option<&'a str>,
    /// Only those with this status (what the run did).
    pub status: Option<AdaptationStatus>,
    /// Only those in this state (where they stand now).
    pub state: Option<State>,
    /// Only this run's.
    pub run: Option<RunId>,
    /// Only proposals still waiting for a person.
    pub pending: bool,
    /// At most this many, the newest.
    pub limit: Option<u64>,
}

impl Store {
    /// Records an adaptation and gives its id.
    pub fn record_adaptation(
        &mut self,
        adaptation: &NewAdaptation,
    ) -> Result<AdaptationId, StoreError> {
        self.write(|tx| insert(tx, adaptation))
    }

    /// The adaptations that pass `filter`, newest first.
    pub fn adaptations(
        &self,
        filter: &AdaptationFilter<'_>,
    ) -> Result<Vec<AdaptationRecord>, StoreError> {
        let mut statement = self.conn.prepare_cached(&format!(
            "{SELECT_ADAPTATION}
             WHERE (?1 IS NULL OR r.wrapper = ?1)
               AND (?2 IS NULL OR a.pattern = ?2)
               AND (?3 IS NULL OR a.status = ?3)
               AND (?4 IS NULL OR p.run_id = ?4)
               AND (?5 = 0 OR (a.status = 'proposed' AND d.adaptation_id IS NULL))
               AND (?7 IS NULL OR state = ?7)
             ORDER BY a.created_at DESC, a.id DESC
             LIMIT ?6"
        ))?;
        // SQLite reads a negative limit as no limit at all.
        let limit = filter
            .limit
            .map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let rows = statement.query_map(
            params![
                filter.wrapper,
                filter.pattern,
                filter.status.map(AdaptationStatus::as_str),
                filter.run.map(|r| r.0),
                filter.pending,
                limit,
                filter.state.map(State::as_str)
            ],
            |row| Ok(read_adaptation(row)),
        )?;
        let mut records = Vec::new();
        for record in rows {
            let mut record = record??;
            load_details(&self.conn, &mut record)?;
            records.push(record);
        }
        Ok(records)
    }

    /// The adaptation with id `id`, if there is one.
    pub fn adaptation(&self, id: AdaptationId) -> Result<Option<AdaptationRecord>, StoreError> {
        let record = self
            .conn
            .prepare_cached(&format!("{SELECT_ADAPTATION} WHERE a.id = ?1"))?
            .query_row([id.0], |row| Ok(read_adaptation(row)))
            .optional()?
            .transpose()?;
        let Some(mut record) = record else {
            return Ok(None);
        };
        load_details(&self.conn, &mut record)?;
        Ok(Some(record))
    }
}

impl Batch<'_> {
    /// [`Store::record_adaptation`], as part of this batch.
    pub fn record_adaptation(
        &mut self,
        adaptation: &NewAdaptation,
    ) -> Result<AdaptationId, StoreError> {
        insert(&self.tx, adaptation)
    }

    /// Adds `pages` to the pages of adaptation `id` (each once) and brings
    /// its page count up to date.
    pub fn add_pages(&mut self, id: AdaptationId, pages: &[PageId]) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("SELECT 1 FROM adaptations WHERE id = ?1")?
            .query_row([id.0], |_| Ok(()))
            .optional()?
            .ok_or(StoreError::UnknownAdaptation(id))?;
        let mut add = self.tx.prepare_cached(
            "INSERT OR IGNORE INTO adaptation_pages (adaptation_id, page_id) VALUES (?1, ?2)",
        )?;
        for page in pages {
            Store::check_page(&self.tx, *page)?;
            add.execute(params![id.0, page.0])?;
        }
        self.tx
            .prepare_cached(
                "UPDATE adaptations SET page_count =
                     (SELECT count(*) FROM adaptation_pages WHERE adaptation_id = ?1)
                 WHERE id = ?1",
            )?
            .execute([id.0])?;
        Ok(())
    }

    /// The proposal still waiting for a person that proposes `new_xpath`
    /// for `old_xpath` of pattern `pattern` of the wrapper `wrapper` (at the
    /// canonical path `canonical`), if there is one: a run that finds it
    /// again adds its pages to it rather than a twin beside it.
    pub fn pending_twin(
        &self,
        wrapper: &str,
        canonical: Option<&std::path::Path>,
        pattern: &str,
        old_xpath: &str,
        new_xpath: &str,
    ) -> Result<Option<AdaptationId>, StoreError> {
        let canonical = canonical.map(super::change::path_bytes);
        Ok(self
            .tx
            .prepare_cached(
                "SELECT a.id FROM adaptations a
                 JOIN pages p ON p.id = a.page_id
                 JOIN runs r ON r.id = p.run_id
                 LEFT JOIN decisions d ON d.adaptation_id = a.id
                 WHERE r.wrapper = ?1 AND r.wrapper_canonical IS ?2 AND a.pattern = ?3
                   AND a.old_xpath = ?4 AND a.new_xpath = ?5
                   AND a.status = 'proposed' AND d.adaptation_id IS NULL
                 ORDER BY a.id LIMIT 1",
            )?
            .query_row(
                params![wrapper, canonical, pattern, old_xpath, new_xpath],
                |row| row.get(0),
            )
            .optional()?
            .map(AdaptationId))
    }
}

impl Batch<'_> {
    /// Turns the waiting proposal `id` into a heal applied by this run
    /// (`auto` found it again, and with the pages of the earlier runs it
    /// now held on `adapt.min_pages` pages), with the run's reason.
    pub fn promote_to_applied(
        &mut self,
        id: AdaptationId,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        let changed = self
            .tx
            .prepare_cached(
                "UPDATE adaptations SET status = 'applied', reason = ?2
                 WHERE id = ?1 AND status = 'proposed'",
            )?
            .execute(params![id.0, reason])?;
        if changed == 0 {
            return Err(StoreError::Corrupt(format!(
                "adaptation {id} is not a waiting proposal"
            )));
        }
        Ok(())
    }
}

impl Store {
    /// The pages, by the SHA-256 of their content, of the proposal still
    /// waiting for a person that proposes `new_xpath` for `old_xpath` of
    /// pattern `pattern` of the wrapper `wrapper` (at the canonical path
    /// `canonical`): the pages earlier runs found that heal on.
    pub fn pending_pages(
        &self,
        wrapper: &str,
        canonical: Option<&std::path::Path>,
        pattern: &str,
        old_xpath: &str,
        new_xpath: &str,
    ) -> Result<Vec<String>, StoreError> {
        let canonical = canonical.map(super::change::path_bytes);
        let mut statement = self.conn.prepare_cached(
            "SELECT DISTINCT p.sha256 FROM adaptations a
             JOIN pages first ON first.id = a.page_id
             JOIN runs r ON r.id = first.run_id
             JOIN adaptation_pages ap ON ap.adaptation_id = a.id
             JOIN pages p ON p.id = ap.page_id
             LEFT JOIN decisions d ON d.adaptation_id = a.id
             WHERE r.wrapper = ?1 AND r.wrapper_canonical IS ?2 AND a.pattern = ?3
               AND a.old_xpath = ?4 AND a.new_xpath = ?5
               AND a.status = 'proposed' AND d.adaptation_id IS NULL",
        )?;
        let pages = statement
            .query_map(
                params![wrapper, canonical, pattern, old_xpath, new_xpath],
                |row| row.get(0),
            )?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(pages)
    }

    /// The pages adaptation `id` stands for, in the order they were read.
    pub fn adaptation_pages(&self, id: AdaptationId) -> Result<Vec<PageId>, StoreError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT page_id FROM adaptation_pages WHERE adaptation_id = ?1 ORDER BY page_id",
        )?;
        let pages = statement
            .query_map([id.0], |row| row.get(0))?
            .map(|r| r.map(PageId))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(pages)
    }

    /// The pending proposals that propose the same XPath for the same
    /// pattern of the same wrapper as adaptation `id` (its twins recorded by
    /// earlier versions of mend, one per page), `id` itself left out.
    pub fn pending_twins(&self, id: AdaptationId) -> Result<Vec<AdaptationId>, StoreError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT t.id FROM adaptations a
             JOIN pages p ON p.id = a.page_id JOIN runs r ON r.id = p.run_id,
                  adaptations t
             JOIN pages tp ON tp.id = t.page_id JOIN runs tr ON tr.id = tp.run_id
             LEFT JOIN decisions d ON d.adaptation_id = t.id
             WHERE a.id = ?1 AND t.id != a.id AND tr.wrapper = r.wrapper
               AND tr.wrapper_canonical IS r.wrapper_canonical
               AND t.pattern = a.pattern AND t.old_xpath = a.old_xpath
               AND t.new_xpath = a.new_xpath
               AND t.status = 'proposed' AND d.adaptation_id IS NULL
             ORDER BY t.id",
        )?;
        let ids = statement
            .query_map([id.0], |row| row.get(0))?
            .map(|r| r.map(AdaptationId))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ids)
    }
}

fn insert(conn: &Connection, a: &NewAdaptation) -> Result<AdaptationId, StoreError> {
    check(a)?;
    Store::check_page(conn, a.page_id)?;
    let before = serde_json::to_string(&a.samples_before).map_err(StoreError::Json)?;
    let after = serde_json::to_string(&a.samples_after).map_err(StoreError::Json)?;
    conn.prepare_cached(
        "INSERT INTO adaptations (page_id, pattern, old_xpath, new_xpath, algorithm, score,
             runner_up, status, reason, samples_before, samples_after, created_at, change_scope,
             model, confidence)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        a.page_id.0,
        a.pattern,
        a.old_xpath,
        a.new_xpath,
        a.algorithm,
        a.score,
        a.runner_up,
        a.status.as_str(),
        a.reason,
        before,
        after,
        a.created_at.unix_millis(),
        a.change_scope,
        a.model,
        a.confidence
    ])?;
    let id = conn.last_insert_rowid();
    conn.prepare_cached("INSERT INTO adaptation_pages (adaptation_id, page_id) VALUES (?1, ?2)")?
        .execute(params![id, a.page_id.0])?;
    let mut candidate = conn.prepare_cached(
        "INSERT INTO candidates (adaptation_id, position, xpath, score, algorithm)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (position, c) in a.candidates.iter().enumerate() {
        candidate.execute(params![id, position as i64, c.xpath, c.score, c.algorithm])?;
    }
    let mut result = conn.prepare_cached(
        "INSERT INTO constraint_results (adaptation_id, position, name, passed, detail)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (position, r) in a.constraint_results.iter().enumerate() {
        result.execute(params![
            id,
            position as i64,
            r.constraint,
            r.passed,
            r.detail
        ])?;
    }
    Ok(AdaptationId(id))
}

/// Refuses what would make a misleading record: scores that are not
/// numbers (SQLite would quietly store NaN as NULL), and an applied or
/// proposed adaptation that says nothing about what it applied or proposes.
fn check(a: &NewAdaptation) -> Result<(), StoreError> {
    let finite = |what: String, score: f64| {
        if score.is_finite() {
            Ok(())
        } else {
            Err(StoreError::NotFinite { what })
        }
    };
    for (what, score) in [
        ("score", a.score),
        ("runner-up score", a.runner_up),
        ("model's confidence", a.confidence),
    ] {
        if let Some(score) = score {
            finite(format!("the {what} of {}", a.pattern), score)?;
        }
    }
    for c in &a.candidates {
        finite(format!("the score of candidate {}", c.xpath), c.score)?;
    }
    let needs_xpath = matches!(
        a.status,
        AdaptationStatus::Applied | AdaptationStatus::Proposed
    );
    if needs_xpath && a.new_xpath.is_none() {
        return Err(StoreError::MissingXPath {
            pattern: a.pattern.clone(),
            status: a.status,
        });
    }
    Ok(())
}

/// The columns of an adaptation with its run, wrapper and decision; the
/// decision's columns come last, where [`decision::read_joined`] reads them.
const SELECT_ADAPTATION: &str = concat!(
    "SELECT a.id, p.run_id, a.page_id, r.wrapper, a.pattern, a.old_xpath, a.new_xpath,
           a.algorithm, a.score, a.runner_up, a.status, a.reason, a.samples_before,
           a.samples_after, a.created_at, a.page_count, a.change_scope, a.model, a.confidence,
           d.verdict, d.reason, d.decided_at, d.decided_by, ",
    state_sql!(),
    " AS state
    FROM adaptations a
    JOIN pages p ON p.id = a.page_id
    JOIN runs r ON r.id = p.run_id
    LEFT JOIN decisions d ON d.adaptation_id = a.id"
);

/// The column of [`SELECT_ADAPTATION`]'s state.
const STATE_COLUMN: usize = 23;

/// The column where [`SELECT_ADAPTATION`]'s decision begins.
const DECISION_COLUMN: usize = 19;

/// Reads a row of [`SELECT_ADAPTATION`], leaving candidates and constraint
/// results for [`load_details`].
fn read_adaptation(row: &Row<'_>) -> Result<AdaptationRecord, StoreError> {
    let id = AdaptationId(row.get(0)?);
    let status: String = row.get(10)?;
    let status = status
        .parse()
        .map_err(|_| StoreError::Corrupt(format!("adaptation {id} has status {status:?}")))?;
    let state: String = row.get(STATE_COLUMN)?;
    let state = state
        .parse()
        .map_err(|_| StoreError::Corrupt(format!("adaptation {id} is in state {state:?}")))?;
    Ok(AdaptationRecord {
        id,
        run_id: RunId(row.get(1)?),
        page_id: PageId(row.get(2)?),
        wrapper: row.get(3)?,
        pattern: row.get(4)?,
        old_xpath: row.get(5)?,
        new_xpath: row.get(6)?,
        algorithm: row.get(7)?,
        score: row.get(8)?,
        runner_up: row.get(9)?,
        status,
        change_scope: row.get(16)?,
        reason: row.get(11)?,
        model: row.get(17)?,
        confidence: row.get(18)?,
        candidates: Vec::new(),
        samples_before: read_samples(id, &row.get::<_, String>(12)?)?,
        samples_after: read_samples(id, &row.get::<_, String>(13)?)?,
        constraint_results: Vec::new(),
        created_at: Timestamp::from_unix_millis(row.get(14)?),
        page_count: from_sql_int("an adaptation's page count", row.get(15)?)?,
        decision: decision::read_joined(row, DECISION_COLUMN, id)?,
        state,
        reverts: Vec::new(),
    })
}

fn read_samples(id: AdaptationId, json: &str) -> Result<Vec<serde_json::Value>, StoreError> {
    serde_json::from_str(json).map_err(|e| {
        StoreError::Corrupt(format!(
            "adaptation {id} has sample values that are not JSON ({e})"
        ))
    })
}

/// Fills in an adaptation's candidates and constraint results, in the order
/// they were recorded.
fn load_details(conn: &Connection, record: &mut AdaptationRecord) -> Result<(), StoreError> {
    let mut candidates = conn.prepare_cached(
        "SELECT xpath, score, algorithm FROM candidates
         WHERE adaptation_id = ?1 ORDER BY position",
    )?;
    record.candidates = candidates
        .query_map([record.id.0], |row| {
            Ok(Candidate {
                xpath: row.get(0)?,
                score: row.get(1)?,
                algorithm: row.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut results = conn.prepare_cached(
        "SELECT name, passed, detail FROM constraint_results
         WHERE adaptation_id = ?1 ORDER BY position",
    )?;
    record.constraint_results = results
        .query_map([record.id.0], |row| {
            Ok(ConstraintResult {
                constraint: row.get(0)?,
                passed: row.get(1)?,
                detail: row.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    record.reverts = super::revert::reverts_of(conn, record.id)?;
    Ok(())
}
