//! The shared frontier: leases taken with `FOR UPDATE SKIP LOCKED` under
//! each host's politeness, and acknowledgements that write pages' records
//! and links in the statement that ends their leases.
//!
//! A lease is the permission to fetch now. Taking one locks the host's row,
//! checks that fewer than the host's `concurrency` leases are live and that
//! its delay has passed, leases its first queued URLs and moves the host's
//! next start by its delay; so the delay and the concurrency hold across
//! every worker, whatever their number. A host without a delay gives a
//! worker up to [`LEASE_BATCH`] URLs at once (within its free slots); a
//! host with one gives one, so that only the database's clock spaces its
//! requests. A worker that dies leaves its leases to run out, and one that
//! stops on an error gives them back; the URLs are then queued again
//! ([`reclaim`]), and a URL taken [`MAX_ATTEMPTS`] times without an
//! acknowledgement is failed rather than retried for ever (a page that
//! kills its workers must not kill them all).
//!
//! An acknowledgement counts only while its lease is the worker's: a
//! worker whose lease ran out and was taken by another writes nothing, so
//! no page is emitted twice.
//!
//! ## At scale
//!
//! Every question asked per page is answered from a small or ordered
//! index, never by scanning a job's frontier (migration 0006): each host
//! counts its queued URLs, so the host to lease from is the first of an
//! index over hosts with work; its URLs come from an index in lease order;
//! live leases are in a partial index that holds only them. A page costs
//! the database about one statement: the lease and the acknowledgement are
//! one statement each, prepared once per connection ([`QueueClient`]), and
//! both serve several pages at once. No row is written by every worker:
//! the page budget goes to workers in batches of tokens, and workers write
//! their counts when they renew their leases. A worker with nothing to do
//! waits for the soonest host or for `NOTIFY mend_work`, sent when a host
//! that had no work gets some.
//!
//! ## What it refuses
//!
//! No URL is leased past the job's page budget: a worker leases only with
//! tokens of the budget, a URL put back in the queue gives its token back,
//! and once they are all spent, everything still queued is skipped. A leased row that does not parse as a URL is left to
//! run out and then failed. A URL already in the frontier is never queued
//! again, and a page whose redirect ends on a URL met before writes no
//! record. An acknowledgement from a worker that lost its lease is rolled
//! back whole, its links and adaptations included. An overloaded host is
//! held back for its `Retry-After`, at most a minute, and its delay is then
//! what it was.

use std::collections::HashMap;
use std::time::Duration;

use tokio_postgres::{Client, Statement};
use url::Url;

use super::BackendError;
use super::job::{ITEM_PRIORITY, robots_from_columns};
use crate::crawl::{CacheEntry, ItemRule, RobotsTxt, origin};

/// How many times a URL may be taken without an acknowledgement before it
/// is failed.
pub const MAX_ATTEMPTS: i32 = 5;

/// The most URLs of one host a worker leases at once.
pub const LEASE_BATCH: i32 = 8;

/// How much of the page budget a worker takes at once: the job's row is
/// written once per this many pages of a worker, not once per page.
const TOKEN_BATCH: i64 = 32;

/// The SQL that adds each host's change in queued URLs, given a CTE
/// `delta (host, n)` of the job `$1`, creating the rows of hosts met for
/// the first time. Rows are written in host order, so that statements that
/// touch several hosts lock them in one order and never deadlock. The
/// `woke` CTE notifies waiting workers when a host that had no work gets
/// some; a statement must read it for it to run.
macro_rules! count_queued {
    () => {
        "counted AS (
    INSERT INTO mend_hosts AS h (job_id, host, delay_ms, concurrency, queued)
    SELECT $1, d.host, j.delay_ms, j.host_concurrency, d.n
    FROM delta d, mend_jobs j WHERE j.id = $1
    ORDER BY d.host
    ON CONFLICT (job_id, host) DO UPDATE SET queued = h.queued + EXCLUDED.queued
    RETURNING h.host, h.queued
), woke AS (
    SELECT pg_notify('mend_work', $1::text) FROM counted c JOIN delta d ON d.host = c.host
    WHERE d.n > 0 AND c.queued = d.n LIMIT 1
)"
    };
}

/// A URL leased to a worker.
#[derive(Debug, Clone, PartialEq)]
pub struct Lease {
    /// The URL.
    pub url: Url,
    /// Links from a start URL.
    pub depth: u32,
    /// Its host's key (scheme, host, port).
    pub host: String,
    /// The host's robots.txt as the job keeps it, `None` before any worker
    /// read it.
    pub robots: Option<RobotsTxt>,
}

/// What a worker asking for work gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// URLs of one host to fetch now. A batch holds more than one only
    /// for a host without a delay: under a delay, only the database's
    /// clock spaces requests, as one URL a lease.
    Leased(Vec<Lease>),
    /// Nothing may start now (a delay, the hosts' concurrency, other
    /// workers' leases still live): ask again after this long, or when new
    /// work is announced (`NOTIFY mend_work`).
    Wait(Duration),
    /// Nothing is queued or leased: the job is done.
    Done,
}

/// A fetched URL's outcome as a worker reports it.
#[derive(Debug, Clone)]
pub struct Ack {
    /// The URL as leased.
    pub url: Url,
    /// `done`, `failed` or `skipped`.
    pub state: &'static str,
    /// The HTTP status.
    pub status: Option<u16>,
    /// Why it failed or was skipped.
    pub error: Option<String>,
    /// Whether it is an item page.
    pub item: bool,
    /// Where a redirect ended, when elsewhere: recorded as met, and the
    /// page's record is dropped if another URL reached it first.
    pub final_url: Option<Url>,
    /// Links found, with their depth.
    pub links: Vec<(Url, u32)>,
    /// The page's output line, records and violations, for an item page.
    pub record: Option<(String, i32, i32)>,
    /// Adaptations tried on the page.
    pub adaptations: Vec<serde_json::Value>,
    /// The wrapper version the page was extracted with.
    pub wrapper_version: i32,
    /// What UpdateCrawl's HTTP cache keeps of the answer, for an item
    /// page.
    pub cache: Option<CacheEntry>,
}

/// A connection that prepares the queue's two per-page statements once
/// and keeps them: PostgreSQL then plans them once per connection, not once
/// per page (planning the lease took about twice as long as running it).
pub struct QueueClient {
    client: Client,
    prepared: HashMap<&'static str, Statement>,
}

impl QueueClient {
    /// Wraps a connection.
    pub fn new(client: Client) -> Self {
        Self {
            client,
            prepared: HashMap::new(),
        }
    }

    /// The connection, for other statements.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// `sql`, prepared on this connection the first time it is asked for.
    async fn statement(&mut self, sql: &'static str) -> Result<Statement, BackendError> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql).await?;
        self.prepared.insert(sql, s.clone());
        Ok(s)
    }
}

/// Leases up to `batch` URLs of the host whose turn it is, if any may
/// start now: one statement in the common case.
pub async fn claim(
    client: &mut QueueClient,
    job: i64,
    worker: &str,
    lease: Duration,
    batch: i32,
) -> Result<Claim, BackendError> {
    let lease_ms = lease.as_secs_f64() * 1000.0;
    let batch = batch.clamp(1, LEASE_BATCH);
    loop {
        let statement = client.statement(LEASE).await?;
        let rows = client
            .client
            .query(
                &statement,
                &[&job, &worker, &lease_ms, &batch, &MAX_ATTEMPTS],
            )
            .await?;
        if !rows.is_empty() {
            return Ok(Claim::Leased(leases(&rows)));
        }
        match idle(&client.client, job, worker, lease).await? {
            Idle::Again => continue,
            Idle::Claim(claim) => return Ok(claim),
        }
    }
}

/// The lease: the ready host first in `next_at` order whose live leases
/// are fewer than its concurrency (from the index over hosts with work),
/// then its first queued URLs in priority order (from the queued index):
/// as many as the batch, the host's free slots and the worker's budget
/// tokens allow, and one only for a host with a delay. A URL taken
/// [`MAX_ATTEMPTS`] times is failed instead. The host's next start moves
/// by its delay, and its count of queued URLs falls by the URLs taken.
const LEASE: &str = "
WITH me AS (
    -- Locked: a worker's tasks lease one at a time against its tokens,
    -- each reading what the one before left.
    SELECT greatest(w.tokens, 0) AS tokens, j.max_pages IS NULL AS unlimited
    FROM mend_workers w JOIN mend_jobs j ON j.id = w.job_id
    WHERE w.id = $2 AND w.job_id = $1
    FOR UPDATE OF w
), ready AS (
    SELECT h.host, h.delay_ms, h.concurrency - l.live AS free, h.robots_state, h.robots
    FROM mend_hosts h CROSS JOIN LATERAL (
        SELECT count(*) AS live FROM mend_frontier f
        WHERE f.job_id = $1 AND f.host = h.host AND f.state = 'leased'
          AND f.lease_until >= clock_timestamp()) l
    WHERE h.job_id = $1 AND h.queued > 0 AND h.next_at <= clock_timestamp()
      AND l.live < h.concurrency
    ORDER BY h.next_at LIMIT 1
    FOR UPDATE OF h SKIP LOCKED
), want AS (
    SELECT r.host, r.delay_ms, r.robots_state, r.robots,
           LEAST($4::int, r.free,
                 CASE WHEN r.delay_ms > 0 THEN 1 ELSE $4::int END,
                 CASE WHEN me.unlimited THEN $4::int ELSE me.tokens END) AS n
    FROM ready r, me
), picked AS (
    SELECT f.url, f.attempts FROM mend_frontier f
    WHERE f.job_id = $1 AND f.host = (SELECT host FROM want) AND f.state = 'queued'
    ORDER BY f.priority DESC, f.seq
    LIMIT (SELECT n FROM want)
    FOR UPDATE SKIP LOCKED
), leased AS (
    UPDATE mend_frontier f SET state = 'leased', lease_owner = $2, attempts = f.attempts + 1,
        lease_until = clock_timestamp() + $3::float8 * interval '1 millisecond'
    FROM picked p
    WHERE f.job_id = $1 AND md5(f.url) = md5(p.url) AND f.url = p.url AND p.attempts < $5
    RETURNING f.url, f.depth, f.priority, f.seq
), spent AS (
    UPDATE mend_frontier f SET state = 'failed', lease_owner = NULL, lease_until = NULL,
        error = 'taken ' || f.attempts || ' times, and its workers failed or stopped answering each time',
        done_at = clock_timestamp()
    FROM picked p
    WHERE f.job_id = $1 AND md5(f.url) = md5(p.url) AND f.url = p.url AND p.attempts >= $5
), moved AS (
    UPDATE mend_hosts SET next_at = clock_timestamp()
            + delay_ms * (SELECT count(*) FROM leased) * interval '1 millisecond',
        queued = queued - (SELECT count(*) FROM picked)
    WHERE job_id = $1 AND host = (SELECT host FROM want)
), tokens AS (
    UPDATE mend_workers SET tokens = tokens - (SELECT count(*) FROM leased)
    WHERE id = $2 AND job_id = $1 AND NOT (SELECT unlimited FROM me)
)
SELECT l.url, l.depth, w.host, w.robots_state, w.robots
FROM leased l, want w
ORDER BY l.priority DESC, l.seq";

/// The leases of a batch.
fn leases(rows: &[tokio_postgres::Row]) -> Vec<Lease> {
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let url: &str = row.get(0);
        let Ok(url) = Url::parse(url) else {
            // Only normalised URLs are queued; a row that does not parse was
            // written by hand. It keeps its lease until it runs out, and is
            // failed after its attempts.
            tracing::warn!(url, "a leased row is not a URL");
            continue;
        };
        out.push(Lease {
            url,
            depth: u32::try_from(row.get::<_, i32>(1)).unwrap_or(0),
            host: row.get(2),
            robots: robots_from_columns(row.get::<_, Option<&str>>(3), row.get(4)),
        });
    }
    out
}

/// What to do when the lease found nothing.
enum Idle {
    /// Something changed (tokens taken, leases reclaimed, a host was
    /// locked by another worker): lease again now.
    Again,
    /// Wait, or stop.
    Claim(Claim),
}

/// Why no URL was leased, from small indexes only: whether hosts have
/// queued work and when the soonest may start, whether leases are live or
/// expired, and the worker's budget tokens.
async fn idle(
    client: &Client,
    job: i64,
    worker: &str,
    lease: Duration,
) -> Result<Idle, BackendError> {
    let row = client
        .query_one(
            "SELECT
                 (SELECT greatest(tokens, 0) FROM mend_workers WHERE id = $2 AND job_id = $1),
                 (SELECT max_pages IS NULL FROM mend_jobs WHERE id = $1),
                 (SELECT extract(epoch FROM min(next_at) - clock_timestamp()) * 1000
                  FROM mend_hosts WHERE job_id = $1 AND queued > 0)::float8,
                 EXISTS (SELECT 1 FROM mend_frontier WHERE job_id = $1 AND state = 'leased'),
                 EXISTS (SELECT 1 FROM mend_frontier WHERE job_id = $1 AND state = 'leased'
                         AND lease_until < clock_timestamp())",
            &[&job, &worker],
        )
        .await?;
    let tokens: Option<i64> = row.get(0);
    let unlimited: Option<bool> = row.get(1);
    let soonest: Option<f64> = row.get(2);
    let (leased, expired): (bool, bool) = (row.get(3), row.get(4));
    if expired {
        reclaim(client, job).await?;
        return Ok(Idle::Again);
    }
    let Some(soonest) = soonest else {
        return Ok(Idle::Claim(if leased {
            Claim::Wait(Duration::from_millis(200))
        } else {
            Claim::Done
        }));
    };
    if unlimited == Some(false) && tokens.unwrap_or(0) == 0 {
        return match take_tokens(client, job, worker, lease).await? {
            Tokens::Taken => Ok(Idle::Again),
            Tokens::HeldByOthers => Ok(Idle::Claim(Claim::Wait(Duration::from_millis(50)))),
            Tokens::Spent => {
                // The page budget is spent: what is still queued is not fetched.
                client
                    .execute(
                        concat!(
                            "WITH skipped AS (
                                 UPDATE mend_frontier SET state = 'skipped',
                                     error = 'the page budget is spent', done_at = clock_timestamp()
                                 WHERE job_id = $1 AND state = 'queued'
                                 RETURNING host
                             ), delta AS (
                                 SELECT host, -count(*) AS n FROM skipped GROUP BY host
                             ), ",
                            count_queued!(),
                            " SELECT count(*) FROM woke"
                        ),
                        &[&job],
                    )
                    .await?;
                Ok(Idle::Again)
            }
        };
    }
    if soonest <= 0.0 {
        // A host is ready but was locked by another worker's lease, or is
        // at its concurrency: others are leasing; a moment is enough.
        return Ok(Idle::Claim(Claim::Wait(Duration::from_millis(5))));
    }
    let wait = Duration::from_secs_f64(soonest / 1000.0).min(Duration::from_secs(1));
    Ok(Idle::Claim(Claim::Wait(wait)))
}

/// What asking the job for budget tokens gave.
#[derive(Debug, PartialEq, Eq)]
enum Tokens {
    /// The worker has tokens.
    Taken,
    /// None are left in the job, but other live workers hold some.
    HeldByOthers,
    /// The budget is spent.
    Spent,
}

/// Takes up to [`TOKEN_BATCH`] pages of the job's budget for this worker.
/// Tokens of workers not seen for two leases (dead ones) go back to the
/// job first, so that a worker killed with tokens does not shorten the
/// crawl.
async fn take_tokens(
    client: &Client,
    job: i64,
    worker: &str,
    lease: Duration,
) -> Result<Tokens, BackendError> {
    let stale_ms = lease.as_secs_f64() * 2000.0;
    let row = client
        .query_one(
            "WITH dead AS (
                 SELECT id, tokens FROM mend_workers
                 WHERE job_id = $1 AND id <> $2 AND tokens > 0
                   AND last_seen < clock_timestamp() - $4::float8 * interval '1 millisecond'
                 FOR UPDATE SKIP LOCKED
             ), freed AS (
                 UPDATE mend_workers w SET tokens = 0 FROM dead
                 WHERE w.job_id = $1 AND w.id = dead.id RETURNING dead.tokens
             ), room AS (
                 -- Locked, so that two workers asking at once each read
                 -- what the other took.
                 SELECT j.max_pages - j.taken + coalesce((SELECT sum(tokens) FROM freed), 0)::bigint AS spare
                 FROM mend_jobs j WHERE j.id = $1
                 FOR UPDATE
             ), granted AS (
                 UPDATE mend_jobs SET taken = taken
                     - coalesce((SELECT sum(tokens) FROM freed), 0)::bigint
                     + LEAST($3::bigint, greatest((SELECT spare FROM room), 0))
                 WHERE id = $1
                 RETURNING LEAST($3::bigint, greatest((SELECT spare FROM room), 0)) AS n
             ), mine AS (
                 UPDATE mend_workers SET tokens = greatest(tokens, 0) + (SELECT n FROM granted)
                 WHERE id = $2 AND job_id = $1
             )
             SELECT (SELECT n FROM granted),
                    (SELECT coalesce(sum(tokens), 0) FROM mend_workers
                     WHERE job_id = $1 AND id <> $2 AND tokens > 0)::bigint
                    - coalesce((SELECT sum(tokens) FROM freed), 0)::bigint",
            &[&job, &worker, &TOKEN_BATCH, &stale_ms],
        )
        .await?;
    let granted: i64 = row.get::<_, Option<i64>>(0).unwrap_or(0);
    let others: i64 = row.get(1);
    if granted > 0 {
        return Ok(Tokens::Taken);
    }
    if others > 0 {
        return Ok(Tokens::HeldByOthers);
    }
    // The statement above waited for the job's row while another worker
    // took tokens, then read the workers' tokens as they were before that
    // grant. The other taker may be a task of this very worker: its tasks
    // ask at once when their shared tokens run out, and one of them gets
    // the batch. So "spent" is only said after a fresh look that counts
    // this worker's tokens too, or the queued URLs (the start URL among
    // them) would be skipped while this worker holds the whole budget.
    let fresh = client
        .query_one(
            "SELECT (SELECT max_pages - taken FROM mend_jobs WHERE id = $1),
                    (SELECT coalesce(sum(tokens), 0) FROM mend_workers
                     WHERE job_id = $1 AND id <> $2 AND tokens > 0)::bigint,
                    (SELECT greatest(tokens, 0) FROM mend_workers
                     WHERE job_id = $1 AND id = $2)::bigint",
            &[&job, &worker],
        )
        .await?;
    let spare: i64 = fresh.get::<_, Option<i64>>(0).unwrap_or(0);
    let others: i64 = fresh.get(1);
    let mine: i64 = fresh.get::<_, Option<i64>>(2).unwrap_or(0);
    Ok(tokens_after_a_fresh_look(spare, others, mine))
}

/// What a fresh look at the budget says when a worker's ask was granted
/// nothing: its own tokens (a sibling task took them), then tokens left in
/// the job or held by other workers, before "spent".
fn tokens_after_a_fresh_look(spare: i64, others: i64, mine: i64) -> Tokens {
    if mine > 0 {
        Tokens::Taken
    } else if spare > 0 || others > 0 {
        Tokens::HeldByOthers
    } else {
        Tokens::Spent
    }
}

/// Gives the worker's unused budget tokens back to the job, when it stops.
pub async fn return_tokens(client: &Client, job: i64, worker: &str) -> Result<(), BackendError> {
    client
        .execute(
            "WITH mine AS (
                 SELECT greatest(tokens, 0) AS n FROM mend_workers
                 WHERE id = $2 AND job_id = $1 FOR UPDATE
             ), zero AS (
                 UPDATE mend_workers SET tokens = 0 WHERE id = $2 AND job_id = $1
             )
             UPDATE mend_jobs SET taken = taken - (SELECT n FROM mine)
             WHERE id = $1 AND EXISTS (SELECT 1 FROM mine)",
            &[&job, &worker],
        )
        .await?;
    Ok(())
}

/// Puts the URLs whose lease ran out (their worker died or stalled) back in
/// the queue, or fails those taken [`MAX_ATTEMPTS`] times. Rows being
/// acknowledged at this moment are skipped, never waited for.
pub async fn reclaim(client: &Client, job: i64) -> Result<u64, BackendError> {
    let row = client
        .query_one(
            concat!(
            "WITH expired AS (
                 SELECT url FROM mend_frontier
                 WHERE job_id = $1 AND state = 'leased' AND lease_until < clock_timestamp()
                 FOR UPDATE SKIP LOCKED
             ), back AS (
                 UPDATE mend_frontier f SET lease_owner = NULL, lease_until = NULL,
                     state = CASE WHEN f.attempts >= $2 THEN 'failed' ELSE 'queued' END,
                     error = CASE WHEN f.attempts >= $2
                         THEN 'taken ' || f.attempts || ' times, and its workers failed or stopped answering each time' END,
                     done_at = CASE WHEN f.attempts >= $2 THEN clock_timestamp() END
                 FROM expired e
                 WHERE f.job_id = $1 AND md5(f.url) = md5(e.url) AND f.url = e.url
                 RETURNING f.host, f.state
             ), delta AS (
                 SELECT host, count(*) AS n FROM back WHERE state = 'queued' GROUP BY host
             ), returned AS (
                 UPDATE mend_jobs SET taken = taken - (SELECT coalesce(sum(n), 0) FROM delta)
                 WHERE id = $1 AND max_pages IS NOT NULL
             ), ",
            count_queued!(),
            " SELECT (SELECT count(*) FROM back), (SELECT count(*) FROM woke)"
            ),
            &[&job, &MAX_ATTEMPTS],
        )
        .await?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

/// The most pages one acknowledgement statement reports.
pub const ACK_BATCH: usize = 16;

/// Reports a page: its outcome, links, record and adaptations in one
/// statement, if the lease is still the worker's. Gives whether it was.
pub async fn acknowledge(
    client: &mut QueueClient,
    job: i64,
    worker: &str,
    ack: &Ack,
    items: &ItemRule,
) -> Result<bool, BackendError> {
    let mut kept = acknowledge_all(client, job, worker, &[ack], items).await?;
    kept.pop().unwrap_or(Ok(false))
}

/// Reports pages (at most [`ACK_BATCH`] in one statement), each only if
/// its lease is still the worker's; gives, per page, whether it was, or
/// the error that page alone met. A batch in which a lease turned out lost
/// is sent again page by page, so that only that page's reading is
/// dropped; so is a batch that failed with an error of the database's, so
/// that a page that cannot be written fails alone. A lost connection or a
/// deadlock is the whole call's error: the caller sends the pages again
/// (those written already then read as lost leases).
pub async fn acknowledge_all(
    client: &mut QueueClient,
    job: i64,
    worker: &str,
    acks: &[&Ack],
    items: &ItemRule,
) -> Result<Vec<Result<bool, BackendError>>, BackendError> {
    let mut kept = Vec::with_capacity(acks.len());
    for batch in batches(acks) {
        match send(client, job, worker, &batch, items).await {
            Ok(()) => kept.extend(batch.iter().map(|_| Ok(true))),
            Err(Sent::Failed(e)) if e.is_connection() || e.is_conflict() => return Err(e),
            Err(Sent::Lost) if batch.len() == 1 => kept.push(Ok(false)),
            Err(Sent::Failed(e)) if batch.len() == 1 => kept.push(Err(e)),
            Err(_) => {
                for ack in batch {
                    kept.push(match send(client, job, worker, &[ack], items).await {
                        Ok(()) => Ok(true),
                        Err(Sent::Lost) => Ok(false),
                        Err(Sent::Failed(e)) if e.is_connection() || e.is_conflict() => {
                            return Err(e);
                        }
                        Err(Sent::Failed(e)) => Err(e),
                    });
                }
            }
        }
    }
    Ok(kept)
}

/// The batches acknowledgements are sent in: consecutive pages, at most
/// [`ACK_BATCH`], no two of which redirect to one target (the first to
/// insert a target emits its record, which one statement cannot tell).
fn batches<'a>(acks: &[&'a Ack]) -> Vec<Vec<&'a Ack>> {
    let mut out: Vec<Vec<&'a Ack>> = Vec::new();
    for ack in acks {
        let fits = out.last().is_some_and(|b: &Vec<&Ack>| {
            b.len() < ACK_BATCH
                && (ack.final_url.is_none() || b.iter().all(|o| o.final_url != ack.final_url))
        });
        match out.last_mut() {
            Some(batch) if fits => batch.push(ack),
            _ => out.push(vec![ack]),
        }
    }
    out
}

/// Why a batch was not acknowledged.
enum Sent {
    /// A lease of the batch is another worker's now: nothing was written.
    Lost,
    /// The statement failed.
    Failed(BackendError),
}

/// The SQLSTATE `mend_lost_lease()` raises.
const LOST_LEASE: &str = "MD001";

/// Sends one acknowledgement statement for `acks`.
async fn send(
    client: &mut QueueClient,
    job: i64,
    worker: &str,
    acks: &[&Ack],
    items: &ItemRule,
) -> Result<(), Sent> {
    let pages = PageColumns::of(acks);
    let targets: Vec<&Url> = acks.iter().filter_map(|a| a.final_url.as_ref()).collect();
    let links: Vec<(Url, u32)> = acks.iter().flat_map(|a| a.links.iter().cloned()).collect();
    let Rows {
        urls,
        hosts,
        depths,
        priorities,
        states,
    } = rows(&links, &targets, items);
    let (adapted_pages, adaptations) = pages.adaptations(acks);
    let statement = client.statement(ACKNOWLEDGE).await.map_err(Sent::Failed)?;
    let outcome = client
        .client
        .query_one(
            &statement,
            &[
                &job,
                &worker,
                &pages.urls,
                &pages.states,
                &pages.statuses,
                &pages.errors,
                &pages.items,
                &pages.targets,
                &pages.lines,
                &pages.records,
                &pages.violations,
                &pages.versions,
                &pages.cached,
                &pages.etags,
                &pages.last_modified,
                &pages.sha256,
                &pages.changed_at,
                &urls,
                &hosts,
                &depths,
                &priorities,
                &states,
                &adapted_pages,
                &adaptations,
            ],
        )
        .await;
    match outcome {
        Ok(_) => Ok(()),
        // The lease ran out and another worker has the URL (or did it):
        // nothing of this reading counts, its links included.
        Err(e) if e.code().is_some_and(|c| c.code() == LOST_LEASE) => Err(Sent::Lost),
        Err(e) => Err(Sent::Failed(e.into())),
    }
}

/// The pages of a batch as the statement's array parameters.
struct PageColumns<'a> {
    urls: Vec<&'a str>,
    states: Vec<&'a str>,
    statuses: Vec<Option<i32>>,
    errors: Vec<Option<&'a str>>,
    items: Vec<bool>,
    targets: Vec<Option<&'a str>>,
    lines: Vec<Option<&'a str>>,
    records: Vec<i32>,
    violations: Vec<i32>,
    versions: Vec<i32>,
    cached: Vec<bool>,
    etags: Vec<Option<&'a str>>,
    last_modified: Vec<Option<&'a str>>,
    sha256: Vec<Option<&'a str>>,
    changed_at: Vec<Option<i64>>,
}

impl<'a> PageColumns<'a> {
    fn of(acks: &[&'a Ack]) -> Self {
        let cache = |a: &'a Ack| a.cache.as_ref();
        Self {
            urls: acks.iter().map(|a| a.url.as_str()).collect(),
            states: acks.iter().map(|a| a.state).collect(),
            statuses: acks.iter().map(|a| a.status.map(i32::from)).collect(),
            errors: acks.iter().map(|a| a.error.as_deref()).collect(),
            items: acks.iter().map(|a| a.item).collect(),
            targets: acks
                .iter()
                .map(|a| a.final_url.as_ref().map(Url::as_str))
                .collect(),
            lines: acks
                .iter()
                .map(|a| a.record.as_ref().map(|r| r.0.as_str()))
                .collect(),
            records: acks
                .iter()
                .map(|a| a.record.as_ref().map_or(0, |r| r.1))
                .collect(),
            violations: acks
                .iter()
                .map(|a| a.record.as_ref().map_or(0, |r| r.2))
                .collect(),
            versions: acks.iter().map(|a| a.wrapper_version).collect(),
            cached: acks.iter().map(|a| a.cache.is_some()).collect(),
            etags: acks
                .iter()
                .map(|a| cache(a).and_then(|c| c.etag.as_deref()))
                .collect(),
            last_modified: acks
                .iter()
                .map(|a| cache(a).and_then(|c| c.last_modified.as_deref()))
                .collect(),
            sha256: acks
                .iter()
                .map(|a| cache(a).and_then(|c| c.sha256.as_deref()))
                .collect(),
            changed_at: acks
                .iter()
                .map(|a| cache(a).and_then(|c| c.changed_at))
                .collect(),
        }
    }

    /// The adaptations of the batch, each with its page's place (from 1).
    fn adaptations(&self, acks: &[&'a Ack]) -> (Vec<i32>, Vec<&'a serde_json::Value>) {
        let mut pages = Vec::new();
        let mut values = Vec::new();
        for (i, ack) in acks.iter().enumerate() {
            for a in &ack.adaptations {
                pages.push(i32::try_from(i + 1).unwrap_or(i32::MAX));
                values.push(a);
            }
        }
        (pages, values)
    }
}

/// The acknowledgement of a batch of pages, one statement. Its parts run
/// in one order, which the references between them force: the links of
/// every page first (sorted), then the pages' own rows, then the cache,
/// records and adaptations, then the hosts' queued counts, in host order.
/// An acknowledgement that updated its own row first and then waited on a
/// link another page's acknowledgement held, while that one waited on this
/// page's row as its link, would deadlock (pages link each other). When a
/// page's lease is no longer the worker's, the statement raises `MD001`
/// and nothing of it is kept.
const ACKNOWLEDGE: &str = concat!(
    "
WITH page AS (
    SELECT * FROM unnest($3::text[], $4::text[], $5::int[], $6::text[], $7::bool[], $8::text[],
                         $9::text[], $10::int[], $11::int[], $12::int[], $13::bool[], $14::text[],
                         $15::text[], $16::text[], $17::bigint[])
        WITH ORDINALITY AS p (url, state, status, error, item, target, line, records, violations,
                              version, cached, etag, last_modified, sha256, changed_at, i)
), links AS (
    INSERT INTO mend_frontier (job_id, url, host, depth, priority, state, worker, done_at)
    SELECT $1, u, h, d, pr, s,
           CASE WHEN s = 'done' THEN $2 END,
           CASE WHEN s = 'done' THEN clock_timestamp() END
    FROM unnest($18::text[], $19::text[], $20::int[], $21::float8[], $22::text[]) AS l (u, h, d, pr, s)
    ON CONFLICT DO NOTHING
    RETURNING url, host, state
), ended AS (
    UPDATE mend_frontier f SET state = p.state, status = p.status, error = p.error, item = p.item,
        worker = $2, done_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
    FROM page p
    WHERE f.job_id = $1 AND md5(f.url) = md5(p.url) AND f.url = p.url AND f.state = 'leased'
      AND f.lease_owner = $2 AND (SELECT count(*) FROM links) >= 0
    RETURNING p.i
), cached AS (
    INSERT INTO mend_http_cache (wrapper_name, url, etag, last_modified, sha256, changed_at)
    SELECT j.wrapper_name, p.url, p.etag, p.last_modified, p.sha256, p.changed_at
    FROM page p, mend_jobs j
    WHERE j.id = $1 AND p.cached AND p.i IN (SELECT i FROM ended)
    ON CONFLICT (wrapper_name, md5(url)) DO UPDATE SET etag = EXCLUDED.etag,
        last_modified = EXCLUDED.last_modified, sha256 = EXCLUDED.sha256,
        changed_at = CASE WHEN EXCLUDED.sha256 IS NOT NULL
                AND mend_http_cache.sha256 = EXCLUDED.sha256
            THEN mend_http_cache.changed_at ELSE EXCLUDED.changed_at END
), record AS (
    INSERT INTO mend_records (job_id, url, line, records, violations, worker)
    SELECT $1, p.url, p.line, p.records, p.violations, $2 FROM page p
    WHERE p.line IS NOT NULL AND p.i IN (SELECT i FROM ended)
      -- A redirect to a page met before is that page: read once.
      AND (p.target IS NULL OR p.target IN (SELECT url FROM links))
    ON CONFLICT DO NOTHING
    RETURNING url
), adapted AS (
    INSERT INTO mend_adaptations (job_id, url, worker, wrapper_version, adaptation)
    SELECT $1, p.url, $2, p.version, a.adaptation
    FROM unnest($23::int[], $24::jsonb[]) AS a (page, adaptation) JOIN page p ON p.i = a.page
    WHERE p.url IN (SELECT url FROM record)
), delta AS (
    SELECT host, count(*) AS n FROM links
    WHERE state = 'queued' AND EXISTS (SELECT 1 FROM ended)
    GROUP BY host
), ",
    count_queued!(),
    "
SELECT CASE WHEN (SELECT count(*) FROM ended) = (SELECT count(*) FROM page)
            THEN (SELECT count(*) FROM record) ELSE mend_lost_lease() END,
       (SELECT count(*) FROM woke)"
);

/// The frontier rows an acknowledgement inserts, as `unnest` columns.
struct Rows {
    urls: Vec<String>,
    hosts: Vec<String>,
    depths: Vec<i32>,
    priorities: Vec<f64>,
    states: Vec<&'static str>,
}

/// The rows of pages' links (queued) and of their redirects' targets
/// (done), each URL once, a target's row winning.
fn rows(links: &[(Url, u32)], targets: &[&Url], items: &ItemRule) -> Rows {
    let mut all: Vec<(&Url, u32, &'static str)> = links
        .iter()
        .filter(|(u, _)| !targets.contains(&u))
        .map(|(u, d)| (u, *d, "queued"))
        .collect();
    all.extend(targets.iter().map(|t| (*t, 0, "done")));
    // Sorted, so that concurrent acknowledgements inserting overlapping
    // rows lock them in one order and never deadlock.
    all.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    all.dedup_by(|a, b| a.0 == b.0);
    let mut rows = Rows {
        urls: Vec::new(),
        hosts: Vec::new(),
        depths: Vec::new(),
        priorities: Vec::new(),
        states: Vec::new(),
    };
    for (url, depth, state) in all {
        let depth_f = f64::from(depth);
        rows.urls.push(url.to_string());
        rows.hosts.push(origin(url));
        rows.depths.push(i32::try_from(depth).unwrap_or(i32::MAX));
        rows.priorities.push(if items.is_item(url) {
            ITEM_PRIORITY - depth_f
        } else {
            -depth_f
        });
        rows.states.push(state);
    }
    rows
}

/// Extends the worker's live leases, so that a slow page or a long heal
/// does not lose its lease while the worker is alive, and writes what the
/// worker did so far (`counts`: pages, items, errors, heals, lost), so that
/// no row is written by every acknowledgement. Rows being acknowledged
/// are skipped, never waited for. Gives how many leases it renewed.
pub async fn renew(
    client: &Client,
    job: i64,
    worker: &str,
    lease: Duration,
    counts: [i64; 5],
) -> Result<u64, BackendError> {
    let lease_ms = lease.as_secs_f64() * 1000.0;
    let row = client
        .query_one(
            "WITH mine AS (
                 SELECT url FROM mend_frontier
                 WHERE job_id = $1 AND state = 'leased' AND lease_owner = $2
                 FOR UPDATE SKIP LOCKED
             ), renewed AS (
                 UPDATE mend_frontier f
                 SET lease_until = clock_timestamp() + $3::float8 * interval '1 millisecond'
                 FROM mine WHERE f.job_id = $1 AND md5(f.url) = md5(mine.url) AND f.url = mine.url
                 RETURNING 1
             ), seen AS (
                 UPDATE mend_workers SET last_seen = clock_timestamp(), pages = $4, items = $5,
                     errors = $6, heals = $7, lost = $8
                 WHERE id = $2 AND job_id = $1
             )
             SELECT count(*) FROM renewed",
            &[
                &job, &worker, &lease_ms, &counts[0], &counts[1], &counts[2], &counts[3],
                &counts[4],
            ],
        )
        .await?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

/// A host said it is overloaded (429, 503): no worker starts a request to
/// it for `wait` (its `Retry-After`), after which its delay is what it was;
/// the URL goes back to the queue, its lease counted as an attempt.
pub async fn hold_back(
    client: &Client,
    job: i64,
    lease: &Lease,
    worker: &str,
    wait: Duration,
) -> Result<(), BackendError> {
    let wait_ms = wait.min(crate::crawl::MAX_DELAY).as_secs_f64() * 1000.0;
    client
        .execute(
            "WITH back AS (
                 UPDATE mend_frontier SET state = 'queued', lease_owner = NULL, lease_until = NULL
                 WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2
                   AND state = 'leased' AND lease_owner = $5
                 RETURNING 1
             ), returned AS (
                 UPDATE mend_jobs SET taken = taken - (SELECT count(*) FROM back)
                 WHERE id = $1 AND max_pages IS NOT NULL
             )
             UPDATE mend_hosts
             SET next_at = GREATEST(next_at, clock_timestamp() + $4::float8 * interval '1 millisecond'),
                 queued = queued + (SELECT count(*) FROM back)
             WHERE job_id = $1 AND host = $3",
            &[&job, &lease.url.as_str(), &lease.host, &wait_ms, &worker],
        )
        .await?;
    Ok(())
}

/// Fails one leased URL of this worker's with `error`: what a worker does
/// when a URL's processing fails for a reason of its own, so that the URL
/// fails alone and the worker goes on. Gives whether the lease was still
/// the worker's.
pub async fn fail(
    client: &Client,
    job: i64,
    worker: &str,
    url: &Url,
    error: &str,
) -> Result<bool, BackendError> {
    let n = client
        .execute(
            "UPDATE mend_frontier SET state = 'failed', error = $4, lease_owner = NULL,
                 lease_until = NULL, done_at = clock_timestamp(), worker = $3
             WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2
               AND state = 'leased' AND lease_owner = $3",
            &[&job, &url.as_str(), &worker, &error],
        )
        .await?;
    Ok(n == 1)
}

/// Gives the worker's leases back at once, when it stops on an error, so
/// that other workers need not wait for them to run out.
pub async fn release(client: &Client, job: i64, worker: &str) -> Result<u64, BackendError> {
    let row = client
        .query_one(
            concat!(
                "WITH back AS (
                     UPDATE mend_frontier SET state = 'queued', lease_owner = NULL, lease_until = NULL
                     WHERE job_id = $1 AND lease_owner = $2 AND state = 'leased'
                     RETURNING host
                 ), delta AS (
                     SELECT host, count(*) AS n FROM back GROUP BY host
                 ), returned AS (
                     UPDATE mend_jobs SET taken = taken - (SELECT count(*) FROM back)
                     WHERE id = $1 AND max_pages IS NOT NULL
                 ), ",
                count_queued!(),
                " SELECT (SELECT count(*) FROM back), (SELECT count(*) FROM woke)"
            ),
            &[&job, &worker],
        )
        .await?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

/// Registers a worker on a job, for `mend status`.
pub async fn register(client: &Client, job: i64, worker: &str) -> Result<(), BackendError> {
    client
        .execute(
            "INSERT INTO mend_workers (id, job_id) VALUES ($1, $2)
             ON CONFLICT (id, job_id) DO UPDATE SET last_seen = clock_timestamp()",
            &[&worker, &job],
        )
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_not_spent_while_a_sibling_task_holds_the_workers_tokens() {
        // Two tasks of one worker asked at once; the other got the whole
        // budget. The start URL was skipped as "over budget" before.
        assert_eq!(tokens_after_a_fresh_look(0, 0, 9), Tokens::Taken);
        assert_eq!(tokens_after_a_fresh_look(0, 3, 0), Tokens::HeldByOthers);
        assert_eq!(tokens_after_a_fresh_look(2, 0, 0), Tokens::HeldByOthers);
        assert_eq!(tokens_after_a_fresh_look(0, 0, 0), Tokens::Spent);
        assert_eq!(tokens_after_a_fresh_look(-1, 0, 0), Tokens::Spent);
    }

    fn check(links: &[&str], target: Option<&str>, expected: &[(&str, &str)]) {
        let u = |s: &str| Url::parse(s).unwrap();
        let links: Vec<(Url, u32)> = links.iter().map(|l| (u(l), 2)).collect();
        let target = target.map(u);
        let targets: Vec<&Url> = target.iter().collect();
        let rows = rows(&links, &targets, &ItemRule::All);
        let got: Vec<(&str, &str)> = rows
            .urls
            .iter()
            .map(String::as_str)
            .zip(rows.states.iter().copied())
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn rows_are_sorted_once_each_so_acknowledgements_lock_them_in_one_order() {
        check(
            &["http://h/b", "http://h/a", "http://h/b"],
            None,
            &[("http://h/a", "queued"), ("http://h/b", "queued")],
        );
    }

    #[test]
    fn a_redirects_target_goes_in_with_the_links_as_done() {
        check(
            &["http://h/c", "http://h/t"],
            Some("http://h/t"),
            &[("http://h/c", "queued"), ("http://h/t", "done")],
        );
        check(&[], Some("http://h/t"), &[("http://h/t", "done")]);
    }
}
