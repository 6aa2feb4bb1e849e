//! The shared frontier: leases taken with `FOR UPDATE SKIP LOCKED` under
//! each host's politeness, and acknowledgements that write a page's record
//! and its links in the transaction that ends its lease.
//!
//! A lease is the permission to fetch one URL now. Taking one locks the
//! host's row, checks that fewer than the host's `concurrency` leases are
//! live and that its delay has passed, leases the URL and moves the host's
//! next start by its delay; so the delay and the concurrency hold across
//! every worker, whatever their number. A worker that dies leaves its
//! leases to run out, and one that stops on an error gives them back; the
//! URLs are then taken again, and a URL taken [`MAX_ATTEMPTS`] times without
//! an acknowledgement is failed rather than retried for ever (a page that
//! kills its workers must not kill them all).
//!
//! An acknowledgement counts only while its lease is the worker's: a
//! worker whose lease ran out and was taken by another writes nothing, so
//! no page is emitted twice.
//!
//! ## What it refuses
//!
//! No URL is leased past the job's page budget: once `max_pages` URLs have
//! been taken, everything still queued is skipped. A leased row that does not
//! parse as a URL is failed, not retried. A URL already in the frontier is
//! never queued again, and a page whose redirect ends on a URL met before
//! writes no record. An acknowledgement from a worker that lost its lease is
//! rolled back whole, its links and adaptations included. An overloaded
//! host is held back for its `Retry-After`, at most a minute, and its delay
//! is then what it was.

use std::time::Duration;

use tokio_postgres::Client;
use url::Url;

use super::BackendError;
use super::job::ITEM_PRIORITY;
use crate::crawl::{CacheEntry, ItemRule, origin};

/// How many times a URL may be taken without an acknowledgement before it
/// is failed.
pub const MAX_ATTEMPTS: i32 = 5;

/// A URL leased to a worker.
#[derive(Debug, Clone, PartialEq)]
pub struct Lease {
    /// The URL.
    pub url: Url,
    /// Links from a start URL.
    pub depth: u32,
    /// Its host's key (scheme, host, port).
    pub host: String,
}

/// What a worker asking for work gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// A URL to fetch now.
    Leased(Lease),
    /// Nothing may start now (a delay, the hosts' concurrency, other
    /// workers' leases still live): ask again after this long.
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

/// Takes the next URL to fetch, if one may start now.
pub async fn claim(
    client: &mut Client,
    job: i64,
    worker: &str,
    lease: Duration,
) -> Result<Claim, BackendError> {
    let lease_ms = lease.as_secs_f64() * 1000.0;
    loop {
        let tx = client.transaction().await?;
        let host = tx
            .query_opt(
                "SELECT h.host, h.concurrency FROM mend_hosts h
                 WHERE h.job_id = $1 AND h.next_at <= clock_timestamp()
                   AND EXISTS (SELECT 1 FROM mend_frontier f
                               WHERE f.job_id = $1 AND f.host = h.host
                                 AND (f.state = 'queued'
                                      OR (f.state = 'leased' AND f.lease_until < clock_timestamp())))
                 ORDER BY h.next_at LIMIT 1
                 FOR UPDATE SKIP LOCKED",
                &[&job],
            )
            .await?;
        let Some(host) = host else {
            drop(tx);
            return idle(client, job).await;
        };
        let (host, concurrency): (String, i32) = (host.get(0), host.get(1));
        // The host's row is locked: the count below cannot change under us.
        let live: i64 = tx
            .query_one(
                "SELECT count(*) FROM mend_frontier
                 WHERE job_id = $1 AND host = $2 AND state = 'leased'
                   AND lease_until >= clock_timestamp()",
                &[&job, &host],
            )
            .await?
            .get(0);
        if live >= i64::from(concurrency) {
            return Ok(Claim::Wait(Duration::from_millis(20)));
        }
        let entry = tx
            .query_opt(
                "SELECT url, depth, state, attempts FROM mend_frontier
                 WHERE job_id = $1 AND host = $2
                   AND (state = 'queued' OR (state = 'leased' AND lease_until < clock_timestamp()))
                 ORDER BY priority DESC, seq LIMIT 1
                 FOR UPDATE SKIP LOCKED",
                &[&job, &host],
            )
            .await?;
        let Some(entry) = entry else {
            return Ok(Claim::Wait(Duration::from_millis(20)));
        };
        let url: String = entry.get(0);
        let depth: i32 = entry.get(1);
        let state: &str = entry.get(2);
        let attempts: i32 = entry.get(3);
        // Taken that often and never acknowledged: its workers died on it, or
        // failed on it and gave it back. Either way, not again.
        if attempts >= MAX_ATTEMPTS {
            tracing::warn!(%url, attempts, "taken too often without an end: failed");
            tx.execute(
                "UPDATE mend_frontier SET state = 'failed', lease_owner = NULL, lease_until = NULL,
                     error = 'taken ' || attempts || ' times, and its workers failed or stopped answering each time',
                     done_at = clock_timestamp()
                 WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2",
                &[&job, &url],
            )
            .await?;
            tx.commit().await?;
            continue;
        }
        if state == "queued" {
            let within = tx
                .query_opt(
                    "UPDATE mend_jobs SET taken = taken + 1
                     WHERE id = $1 AND (max_pages IS NULL OR taken < max_pages) RETURNING taken",
                    &[&job],
                )
                .await?;
            if within.is_none() {
                // The page budget is spent: what is still queued is not fetched.
                tx.execute(
                    "UPDATE mend_frontier SET state = 'skipped', error = 'the page budget is spent',
                         done_at = clock_timestamp()
                     WHERE job_id = $1 AND state = 'queued'",
                    &[&job],
                )
                .await?;
                tx.commit().await?;
                continue;
            }
        }
        tx.execute(
            "UPDATE mend_frontier SET state = 'leased', lease_owner = $3, attempts = attempts + 1,
                 lease_until = clock_timestamp() + $4::float8 * interval '1 millisecond'
             WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2",
            &[&job, &url, &worker, &lease_ms],
        )
        .await?;
        tx.execute(
            "UPDATE mend_hosts SET next_at = clock_timestamp() + delay_ms * interval '1 millisecond'
             WHERE job_id = $1 AND host = $2",
            &[&job, &host],
        )
        .await?;
        tx.commit().await?;
        let Ok(url) = Url::parse(&url) else {
            // Only normalised URLs are queued; a row that does not parse
            // was written by hand, and is failed rather than retried.
            client
                .execute(
                    "UPDATE mend_frontier SET state = 'failed', error = 'not a URL'
                     WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2",
                    &[&job, &url],
                )
                .await?;
            continue;
        };
        return Ok(Claim::Leased(Lease {
            url,
            depth: u32::try_from(depth).unwrap_or(0),
            host,
        }));
    }
}

/// When no host may start now: wait for the soonest one, or for other
/// workers' leases, or say the job is done.
async fn idle(client: &Client, job: i64) -> Result<Claim, BackendError> {
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE state = 'queued'),
                    count(*) FILTER (WHERE state = 'leased')
             FROM mend_frontier WHERE job_id = $1 AND state IN ('queued', 'leased')",
            &[&job],
        )
        .await?;
    let (queued, leased): (i64, i64) = (row.get(0), row.get(1));
    if queued == 0 && leased == 0 {
        return Ok(Claim::Done);
    }
    Ok(Claim::Wait(Duration::from_millis(if queued > 0 {
        10
    } else {
        100
    })))
}

/// Reports a page: its outcome, links, record and adaptations in one
/// transaction, if the lease is still the worker's. Gives whether it was.
pub async fn acknowledge(
    client: &mut Client,
    job: i64,
    worker: &str,
    ack: &Ack,
    items: &ItemRule,
) -> Result<bool, BackendError> {
    let tx = client.transaction().await?;
    // The links first, in one order, then the page's own row: an
    // acknowledgement that updated its own row first and then waited on a
    // link another page's acknowledgement held, while that one waited on
    // this page's row as its link, was a deadlock (pages link each other),
    // each costing PostgreSQL's deadlock timeout. Waiting only ever happens
    // on the sorted link rows now; the statements after them do not wait on
    // another acknowledgement.
    let Rows {
        urls,
        hosts,
        depths,
        priorities,
        states,
    } = rows(&ack.links, ack.final_url.as_ref(), items);
    let mut emit = true;
    if !urls.is_empty() {
        let mut new_hosts = hosts.clone();
        new_hosts.sort();
        new_hosts.dedup();
        tx.execute(
            "INSERT INTO mend_hosts (job_id, host, delay_ms, concurrency)
             SELECT $1, h, j.delay_ms, j.host_concurrency
             FROM unnest($2::text[]) AS h, mend_jobs j WHERE j.id = $1
             ON CONFLICT DO NOTHING",
            &[&job, &new_hosts],
        )
        .await?;
        // A redirect's target goes in with the links, in their order, as
        // read already (done, by this worker).
        let inserted = tx
            .query(
                "INSERT INTO mend_frontier (job_id, url, host, depth, priority, state, worker, done_at)
                 SELECT $1, u, h, d, p, s,
                        CASE WHEN s = 'done' THEN $7 END,
                        CASE WHEN s = 'done' THEN clock_timestamp() END
                 FROM unnest($2::text[], $3::text[], $4::int[], $5::float8[], $6::text[])
                     AS l (u, h, d, p, s)
                 ON CONFLICT DO NOTHING
                 RETURNING url",
                &[&job, &urls, &hosts, &depths, &priorities, &states, &worker],
            )
            .await?;
        if let Some(target) = &ack.final_url {
            // A redirect to a page met before is that page: read once.
            emit = inserted
                .iter()
                .any(|r| r.get::<_, &str>(0) == target.as_str());
        }
    }
    let status = ack.status.map(i32::from);
    let ended = tx
        .execute(
            "UPDATE mend_frontier SET state = $4, status = $5, error = $6, item = $7,
                 worker = $3, done_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
             WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2 AND state = 'leased' AND lease_owner = $3",
            &[
                &job,
                &ack.url.as_str(),
                &worker,
                &ack.state,
                &status,
                &ack.error,
                &ack.item,
            ],
        )
        .await?;
    if ended == 0 {
        // The lease ran out and another worker has the URL (or did it):
        // nothing of this reading counts, its links included.
        tx.rollback().await?;
        client
            .execute(
                "UPDATE mend_workers SET lost = lost + 1, last_seen = clock_timestamp()
                 WHERE id = $1 AND job_id = $2",
                &[&worker, &job],
            )
            .await?;
        return Ok(false);
    }
    if let Some(c) = &ack.cache {
        tx.execute(
            "INSERT INTO mend_http_cache (wrapper_name, url, etag, last_modified, sha256, changed_at)
             SELECT j.wrapper_name, $2, $3, $4, $5, $6 FROM mend_jobs j WHERE j.id = $1
             ON CONFLICT (wrapper_name, md5(url)) DO UPDATE SET etag = EXCLUDED.etag,
                 last_modified = EXCLUDED.last_modified, sha256 = EXCLUDED.sha256,
                 changed_at = CASE WHEN EXCLUDED.sha256 IS NOT NULL
                         AND mend_http_cache.sha256 = EXCLUDED.sha256
                     THEN mend_http_cache.changed_at ELSE EXCLUDED.changed_at END",
            &[
                &job,
                &ack.url.as_str(),
                &c.etag,
                &c.last_modified,
                &c.sha256,
                &c.changed_at,
            ],
        )
        .await?;
    }
    let mut wrote = false;
    if let (Some((line, records, violations)), true) = (&ack.record, emit) {
        wrote = tx
            .execute(
                "INSERT INTO mend_records (job_id, url, line, records, violations, worker)
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                &[&job, &ack.url.as_str(), line, records, violations, &worker],
            )
            .await?
            == 1;
    }
    if wrote {
        for adaptation in &ack.adaptations {
            tx.execute(
                "INSERT INTO mend_adaptations (job_id, url, worker, wrapper_version, adaptation)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    &job,
                    &ack.url.as_str(),
                    &worker,
                    &ack.wrapper_version,
                    adaptation,
                ],
            )
            .await?;
        }
    }
    let heals = i64::try_from(ack.adaptations.len()).unwrap_or(0);
    tx.execute(
        "UPDATE mend_workers SET pages = pages + 1, items = items + $3, errors = errors + $4,
             heals = heals + $5, last_seen = clock_timestamp()
         WHERE id = $1 AND job_id = $2",
        &[
            &worker,
            &job,
            &i64::from(wrote),
            &i64::from(ack.state == "failed"),
            &heals,
        ],
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// The frontier rows an acknowledgement inserts, as `unnest` columns.
struct Rows {
    urls: Vec<String>,
    hosts: Vec<String>,
    depths: Vec<i32>,
    priorities: Vec<f64>,
    states: Vec<&'static str>,
}

/// The rows of a page's links (queued) and of its redirect's target (done),
/// each URL once, the target's row winning.
fn rows(links: &[(Url, u32)], target: Option<&Url>, items: &ItemRule) -> Rows {
    let mut all: Vec<(&Url, u32, &'static str)> = links
        .iter()
        .filter(|(u, _)| Some(u) != target)
        .map(|(u, d)| (u, *d, "queued"))
        .collect();
    all.extend(target.map(|t| (t, 0, "done")));
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

/// Extends the worker's live leases: a slow page or a long heal does not
/// lose its lease while the worker is alive. Gives how many it holds.
pub async fn renew(
    client: &Client,
    job: i64,
    worker: &str,
    lease: Duration,
) -> Result<u64, BackendError> {
    let lease_ms = lease.as_secs_f64() * 1000.0;
    let n = client
        .execute(
            "UPDATE mend_frontier SET lease_until = clock_timestamp() + $3::float8 * interval '1 millisecond'
             WHERE job_id = $1 AND lease_owner = $2 AND state = 'leased'",
            &[&job, &worker, &lease_ms],
        )
        .await?;
    client
        .execute(
            "UPDATE mend_workers SET last_seen = clock_timestamp() WHERE id = $1 AND job_id = $2",
            &[&worker, &job],
        )
        .await?;
    Ok(n)
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
            "WITH held AS (
                 UPDATE mend_hosts
                 SET next_at = GREATEST(next_at, clock_timestamp() + $4::float8 * interval '1 millisecond')
                 WHERE job_id = $1 AND host = $3
             )
             UPDATE mend_frontier SET state = 'queued', lease_owner = NULL, lease_until = NULL
             WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2
               AND state = 'leased' AND lease_owner = $5",
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
    Ok(client
        .execute(
            "UPDATE mend_frontier SET state = 'queued', lease_owner = NULL, lease_until = NULL
             WHERE job_id = $1 AND lease_owner = $2 AND state = 'leased'",
            &[&job, &worker],
        )
        .await?)
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

    fn check(links: &[&str], target: Option<&str>, expected: &[(&str, &str)]) {
        let u = |s: &str| Url::parse(s).unwrap();
        let links: Vec<(Url, u32)> = links.iter().map(|l| (u(l), 2)).collect();
        let target = target.map(u);
        let rows = rows(&links, target.as_ref(), &ItemRule::All);
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
