//! `mend status`: where a job of the PostgreSQL backend stands, from the
//! database alone: queue depth, leases, pages per second per worker,
//! errors and heals.
//!
//! ## What it refuses
//!
//! It only reads: it expires no lease and changes no row. A job id that does
//! not exist, or no job at all when none is named, is
//! [`BackendError::NoJob`]. A lease past its time counts as `expired`, not
//! `leased`, until a worker takes its URL again; rates divide by at least a
//! millisecond, so a job just submitted reports no infinite speed.

use serde::Serialize;
use tokio_postgres::Client;

use super::BackendError;
use super::home;

/// A job's progress.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JobStatus {
    /// The job's id.
    pub job: i64,
    /// Its wrapper's name.
    pub wrapper: String,
    /// Whether it finished.
    pub finished: bool,
    /// Seconds since it was submitted (until it finished, if it did).
    pub seconds: f64,
    /// URLs waiting.
    pub queued: i64,
    /// URLs leased, their lease live.
    pub leased: i64,
    /// URLs leased by workers that stopped renewing (to be taken again).
    pub expired: i64,
    /// Pages done.
    pub done: i64,
    /// Pages that failed.
    pub failed: i64,
    /// URLs skipped (robots.txt, the page budget).
    pub skipped: i64,
    /// Item pages with records.
    pub items: i64,
    /// Records.
    pub records: i64,
    /// Violations on item pages.
    pub violations: i64,
    /// Adaptations tried, by all workers.
    pub heals: i64,
    /// The wrapper's version (one more per heal applied).
    pub wrapper_version: i32,
    /// Pages per second over the job, all workers together.
    pub pages_per_second: f64,
    /// Each worker.
    pub workers: Vec<WorkerStatus>,
}

/// One worker's share of a job.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WorkerStatus {
    /// The worker's name.
    pub id: String,
    /// Pages it acknowledged.
    pub pages: i64,
    /// Item pages it wrote.
    pub items: i64,
    /// Pages that failed.
    pub errors: i64,
    /// Adaptations it tried.
    pub heals: i64,
    /// Pages it lost to another worker after its lease ran out.
    pub lost: i64,
    /// Pages per second while it worked.
    pub pages_per_second: f64,
    /// Seconds since it was last heard of.
    pub idle_seconds: f64,
}

/// The status of job `id`, or of the newest job.
pub async fn status(client: &Client, id: Option<i64>) -> Result<JobStatus, BackendError> {
    // A status is read, never written: a database without mend's tables
    // is told so, not given them.
    let schema: bool = client
        .query_one("SELECT to_regclass('mend_jobs') IS NOT NULL", &[])
        .await?
        .get(0);
    if !schema {
        return Err(BackendError::NoSchema);
    }
    let row = client
        .query_opt(
            "SELECT id, wrapper_name, finished_at IS NOT NULL,
                 extract(epoch FROM coalesce(finished_at, clock_timestamp()) - created_at)::float8,
                 wrapper_version
             FROM mend_jobs WHERE $1::bigint IS NULL OR id = $1
             ORDER BY id DESC LIMIT 1",
            &[&id],
        )
        .await?;
    let row = row.ok_or(BackendError::NoJob(id.unwrap_or(0)))?;
    let mut status = JobStatus {
        job: row.get(0),
        wrapper: row.get(1),
        finished: row.get(2),
        seconds: row.get(3),
        wrapper_version: row.get(4),
        ..JobStatus::default()
    };
    let counts = client
        .query_one(
            "SELECT count(*) FILTER (WHERE state = 'queued'),
                    count(*) FILTER (WHERE state = 'leased' AND lease_until >= clock_timestamp()),
                    count(*) FILTER (WHERE state = 'leased' AND lease_until < clock_timestamp()),
                    count(*) FILTER (WHERE state = 'done'),
                    count(*) FILTER (WHERE state = 'failed'),
                    count(*) FILTER (WHERE state = 'skipped')
             FROM mend_frontier WHERE job_id = $1",
            &[&status.job],
        )
        .await?;
    status.queued = counts.get(0);
    status.leased = counts.get(1);
    status.expired = counts.get(2);
    status.done = counts.get(3);
    status.failed = counts.get(4);
    status.skipped = counts.get(5);
    let records = client
        .query_one(
            "SELECT count(*), coalesce(sum(records), 0)::bigint, coalesce(sum(violations), 0)::bigint,
                 (SELECT count(*) FROM mend_adaptations WHERE job_id = $1)
             FROM mend_records WHERE job_id = $1",
            &[&status.job],
        )
        .await?;
    status.items = records.get(0);
    status.records = records.get(1);
    status.violations = records.get(2);
    status.heals = records.get(3);
    status.pages_per_second = (status.done + status.failed) as f64 / status.seconds.max(1e-3);
    status.workers = client
        .query(
            "SELECT id, pages, items, errors, heals, lost,
                 extract(epoch FROM last_seen - started_at)::float8,
                 extract(epoch FROM clock_timestamp() - last_seen)::float8
             FROM mend_workers WHERE job_id = $1 ORDER BY started_at, id",
            &[&status.job],
        )
        .await?
        .iter()
        .map(|r| {
            let pages: i64 = r.get(1);
            let busy: f64 = r.get(6);
            WorkerStatus {
                id: r.get(0),
                pages,
                items: r.get(2),
                errors: r.get(3),
                heals: r.get(4),
                lost: r.get(5),
                pages_per_second: pages as f64 / busy.max(1e-3),
                idle_seconds: r.get(7),
            }
        })
        .collect();
    Ok(status)
}

/// One heal a job's pages tried: a pattern of one wrapper version, the
/// XPath found (or none), over how many pages and workers.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JobHeal {
    /// The wrapper version the pages were read with.
    pub version: i32,
    /// The pattern's path of names.
    pub pattern: String,
    /// The XPath that broke.
    pub old_xpath: String,
    /// The XPath found; `None` where the pages abstained.
    pub new_xpath: Option<String>,
    /// Pages that tried it.
    pub pages: i64,
    /// Workers whose pages tried it.
    pub workers: i64,
    /// Whether a page's vote decided it across the job.
    pub applied: bool,
    /// The entry of the user's store that stands for it, as `TAG:ID`, once
    /// the job was brought home: what the output cites.
    pub entry: Option<String>,
    /// That entry's status when the job came home.
    pub entry_status: Option<String>,
}

/// The heals of a job, and whether it was brought home.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JobHeals {
    /// Whether the job's heals were brought into the user's store.
    pub brought_home: bool,
    /// The heals its pages tried.
    pub heals: Vec<JobHeal>,
}

/// The heals job `id`'s pages tried, by version, pattern and XPath, with
/// the entries of the user's store once the job was brought home.
pub async fn heals(client: &Client, id: i64) -> Result<JobHeals, BackendError> {
    let citations = home::citations(client, id).await?;
    let brought_home = citations.is_some();
    let citations = citations.unwrap_or_default();
    let rows = client
        .query(
            "SELECT version, pattern, old_xpath, new_xpath, count(*), count(DISTINCT worker),
                 bool_or(status = 'applied')
             FROM (SELECT wrapper_version AS version, worker,
                       coalesce(adaptation->>'pattern', '') AS pattern,
                       coalesce(adaptation->>'old_xpath', '') AS old_xpath,
                       adaptation->>'new_xpath' AS new_xpath,
                       adaptation->>'status' AS status
                   FROM mend_adaptations WHERE job_id = $1) AS a
             GROUP BY version, pattern, old_xpath, new_xpath
             ORDER BY version, pattern COLLATE \"C\", old_xpath COLLATE \"C\",
                 new_xpath COLLATE \"C\" NULLS FIRST",
            &[&id],
        )
        .await?;
    let heals = rows
        .iter()
        .map(|r| {
            let mut heal = JobHeal {
                version: r.get(0),
                pattern: r.get(1),
                old_xpath: r.get(2),
                new_xpath: r.get(3),
                pages: r.get(4),
                workers: r.get(5),
                applied: r.get::<_, Option<bool>>(6).unwrap_or(false),
                ..JobHeal::default()
            };
            if let Some(c) = citations.find(&heal.pattern, heal.new_xpath.as_deref()) {
                heal.entry = Some(c.reference());
                heal.entry_status = Some(c.status.clone());
            }
            heal
        })
        .collect();
    Ok(JobHeals {
        brought_home,
        heals,
    })
}
