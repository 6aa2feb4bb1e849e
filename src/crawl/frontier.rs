//! The frontier: every URL a crawl has met, persisted in SQLite beside the
//! store, and the queue of those still to fetch, in priority order.
//!
//! Each URL is a row, keyed by its normalised form, so a URL is fetched once
//! per crawl however many pages link it. A page's outcome, the links found
//! on it and the length of the output once its records are written go in
//! one transaction ([`Frontier::complete`]); so after a `kill -9` the
//! frontier says exactly which pages reached the output, the output is cut
//! back to that length, and the pages that had not are fetched again
//! (`--resume`). No page is lost and none is emitted twice.
//!
//! The queue itself lives in memory, ordered by a priority the caller gives
//! (breadth first, or the learned model's estimate) and by discovery order
//! among equals; [`Frontier::reorder`] recomputes it as the model learns.
//!
//! Also kept here, across crawls: the HTTP cache (ETag, Last-Modified and a
//! hash of each item page's body, for conditional requests and `--since`),
//! and what rendering did for each URL shape (`render: auto`).
//!
//! ## What it refuses
//!
//! A URL met before in the crawl, or twice in one batch, is not queued again,
//! and a redirect's target marked as met is never fetched. The frontier
//! judges no URL: scope, depth and the page budget are the caller's. Only the
//! newest crawl of a wrapper and output is resumed; an older unfinished one
//! is left as it is, and a finished one is not reopened. On resume, a queued
//! row that does not parse as a URL is dropped, and priorities start at zero
//! until [`Frontier::reorder`]. A write kept waiting on a lock for more than
//! 5 s fails with [`FrontierError::Sqlite`].

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use url::Url;

use super::render::ShapeVotes;
use super::update::CacheEntry;

/// Why the frontier could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    /// SQLite failed.
    #[error("the crawl frontier {path}: {source}")]
    Sqlite {
        /// The frontier's file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
}

/// What `--resume` found in the frontier for a wrapper and an output.
#[derive(Debug)]
pub enum Resumable {
    /// An unfinished crawl, with its queue as it was and the output length
    /// its done pages reached.
    Unfinished {
        /// The crawl, ready to go on.
        frontier: Box<Frontier>,
        /// Bytes (or pages, for SQLite) of output its done pages account for.
        output_len: u64,
    },
    /// The newest crawl finished: its output is whole and nothing is left.
    Finished {
        /// The finished crawl.
        crawl: CrawlId,
        /// Pages it fetched.
        fetched: u64,
    },
    /// No crawl was ever begun, or one was killed before it recorded its
    /// start: there is nothing to go on with, so a new crawl begins.
    Nothing,
}

/// A link to queue: the URL, its depth, its priority.
pub type Link = (Url, u32, f64);

/// A page's outcome with the links found on it.
pub type PageLinks<'a> = (Completed<'a>, &'a [Link]);

/// The id of a crawl in the frontier.
pub type CrawlId = i64;

/// A URL to fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct Queued {
    /// The (normalised) URL.
    pub url: Url,
    /// Links from a start URL.
    pub depth: u32,
    /// The order it was found in.
    pub seq: i64,
    /// Its priority when queued or last reordered: higher goes first.
    pub priority: f64,
}

impl Eq for Queued {}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// How a fetched URL ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Fetched and read (its records, if an item, are in the output).
    Done,
    /// Could not be fetched or read.
    Failed,
    /// Not fetched: robots.txt, allow/deny, or the page budget.
    Skipped,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Failed => "failed",
            Outcome::Skipped => "skipped",
        }
    }
}

/// A page's outcome as [`Frontier::complete`] records it.
#[derive(Debug, Clone)]
pub struct Completed<'a> {
    /// The URL as queued.
    pub url: &'a Url,
    /// How it ended.
    pub outcome: Outcome,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
    /// Why it failed or was skipped.
    pub error: Option<String>,
    /// Whether it is an item page.
    pub item: bool,
    /// How many of its links are items.
    pub item_links: u32,
    /// When it was fetched (Unix milliseconds).
    pub fetched_at: i64,
}

/// A crawl's frontier, open on its file.
#[derive(Debug)]
pub struct Frontier {
    conn: Connection,
    path: PathBuf,
    crawl: CrawlId,
    queue: BinaryHeap<Queued>,
    seen: HashSet<String>,
    next_seq: i64,
    fetched: u64,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS crawls (
    id          INTEGER PRIMARY KEY,
    wrapper     TEXT    NOT NULL,
    output      TEXT    NOT NULL,
    seeds       TEXT    NOT NULL,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    output_len  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS urls (
    crawl_id   INTEGER NOT NULL REFERENCES crawls (id),
    url        TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    depth      INTEGER NOT NULL,
    state      TEXT    NOT NULL CHECK (state IN ('queued', 'done', 'failed', 'skipped')),
    item       INTEGER,
    item_links INTEGER,
    status     INTEGER,
    error      TEXT,
    fetched_at INTEGER,
    done_seq   INTEGER,
    PRIMARY KEY (crawl_id, url)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS urls_by_state ON urls (crawl_id, state, seq);
CREATE TABLE IF NOT EXISTS http_cache (
    url           TEXT PRIMARY KEY,
    etag          TEXT,
    last_modified TEXT,
    sha256        TEXT,
    changed_at    INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS render_votes (
    wrapper TEXT    NOT NULL,
    shape   TEXT    NOT NULL,
    helped  INTEGER NOT NULL DEFAULT 0,
    useless INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (wrapper, shape)
) WITHOUT ROWID;
DROP TABLE IF EXISTS render_memory;
";

impl Frontier {
    /// The frontier file beside a store file.
    pub fn path_beside(store: &Path) -> PathBuf {
        store.with_file_name("crawl.db")
    }

    /// Begins a new crawl of `wrapper` writing to `output`, with `seeds`
    /// queued. The crawl and its seeds are recorded in one transaction, so a
    /// crawl killed at any moment is either absent or resumable with its
    /// seeds.
    pub fn begin(
        path: &Path,
        wrapper: &str,
        output: &str,
        seeds: &[Link],
        now: i64,
    ) -> Result<Frontier, FrontierError> {
        let mut conn = open(path)?;
        let fail = |source| sqlite(path, source);
        let seed_text = seeds
            .iter()
            .map(|(u, _, _)| u.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        let crawl: CrawlId = tx
            .query_row(
                "INSERT INTO crawls (wrapper, output, seeds, started_at) VALUES (?1, ?2, ?3, ?4)
                 RETURNING id",
                params![wrapper, output, seed_text, now],
                |r| r.get(0),
            )
            .map_err(fail)?;
        let mut queue = BinaryHeap::new();
        let mut seen = HashSet::new();
        let mut next_seq = 0;
        for (url, depth, priority) in seeds {
            if !seen.insert(url.to_string()) {
                continue;
            }
            tx.execute(
                "INSERT INTO urls (crawl_id, url, seq, depth, state) VALUES (?1, ?2, ?3, ?4, 'queued')",
                params![crawl, url.as_str(), next_seq, depth],
            )
            .map_err(fail)?;
            queue.push(Queued {
                url: url.clone(),
                depth: *depth,
                seq: next_seq,
                priority: *priority,
            });
            next_seq += 1;
        }
        tx.commit().map_err(fail)?;
        Ok(Frontier {
            conn,
            path: path.to_owned(),
            crawl,
            queue,
            seen,
            next_seq,
            fetched: 0,
        })
    }

    /// Looks at the newest crawl of `wrapper` writing to `output`: an
    /// unfinished one is opened with its queue as it was, a finished one is
    /// reported as such, and without one there is [`Resumable::Nothing`].
    /// Only the newest counts: an older unfinished crawl was superseded by
    /// the one begun after it, which truncated the output.
    pub fn resume(path: &Path, wrapper: &str, output: &str) -> Result<Resumable, FrontierError> {
        let conn = open(path)?;
        let found: Option<(CrawlId, i64, bool)> = conn
            .query_row(
                "SELECT id, output_len, finished_at IS NOT NULL FROM crawls
                 WHERE wrapper = ?1 AND output = ?2
                 ORDER BY id DESC LIMIT 1",
                params![wrapper, output],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|source| sqlite(path, source))?;
        let Some((crawl, output_len, finished)) = found else {
            return Ok(Resumable::Nothing);
        };
        if finished {
            let fetched: i64 = conn
                .query_row(
                    "SELECT count(*) FROM urls
                     WHERE crawl_id = ?1 AND state NOT IN ('queued', 'skipped')",
                    [crawl],
                    |r| r.get(0),
                )
                .map_err(|source| sqlite(path, source))?;
            return Ok(Resumable::Finished {
                crawl,
                fetched: u64::try_from(fetched).unwrap_or(0),
            });
        }
        let mut frontier = Frontier {
            conn,
            path: path.to_owned(),
            crawl,
            queue: BinaryHeap::new(),
            seen: HashSet::new(),
            next_seq: 0,
            fetched: 0,
        };
        let rows: Vec<(String, i64, u32, String)> = {
            let mut statement = frontier
                .conn
                .prepare("SELECT url, seq, depth, state FROM urls WHERE crawl_id = ?1 ORDER BY seq")
                .map_err(|source| sqlite(path, source))?;
            statement
                .query_map([crawl], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .and_then(|rows| rows.collect())
                .map_err(|source| sqlite(path, source))?
        };
        for (url, seq, depth, state) in rows {
            frontier.next_seq = frontier.next_seq.max(seq + 1);
            if state == "queued"
                && let Ok(parsed) = Url::parse(&url)
            {
                frontier.queue.push(Queued {
                    url: parsed,
                    depth,
                    seq,
                    priority: 0.0,
                });
            } else if state != "queued" {
                frontier.fetched += u64::from(state != "skipped");
            }
            frontier.seen.insert(url);
        }
        Ok(Resumable::Unfinished {
            frontier: Box::new(frontier),
            output_len: u64::try_from(output_len).unwrap_or(0),
        })
    }

    /// The crawl's id.
    pub fn crawl(&self) -> CrawlId {
        self.crawl
    }

    /// The frontier's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// URLs waiting to be fetched.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Pages fetched so far (done or failed), in this crawl and before a resume.
    pub fn fetched(&self) -> u64 {
        self.fetched
    }

    /// Whether the crawl has met `url` already.
    pub fn has_seen(&self, url: &Url) -> bool {
        self.seen.contains(url.as_str())
    }

    /// The URLs of pages done, with how many item links each held, in the
    /// order they were done: what the learned priority is trained on again
    /// after a resume.
    pub fn done_pages(&self) -> Result<Vec<(Url, u32)>, FrontierError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT url, item_links FROM urls WHERE crawl_id = ?1 AND state = 'done'
                 ORDER BY done_seq",
            )
            .map_err(|source| sqlite(&self.path, source))?;
        let rows: Vec<(String, Option<u32>)> = statement
            .query_map([self.crawl], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect())
            .map_err(|source| sqlite(&self.path, source))?;
        Ok(rows
            .into_iter()
            .filter_map(|(u, n)| Some((Url::parse(&u).ok()?, n.unwrap_or(0))))
            .collect())
    }

    /// Queues the URLs not met before (in one transaction), each with its
    /// depth and priority; gives how many were new.
    pub fn push(&mut self, urls: &[Link]) -> Result<usize, FrontierError> {
        if urls.iter().all(|(u, _, _)| self.seen.contains(u.as_str())) {
            return Ok(0);
        }
        self.record(&[], urls.iter(), None)
    }

    /// Records `url` as met without fetching it: the target of a redirect,
    /// which was read under the URL that redirected to it.
    pub fn mark_seen(&mut self, url: &Url, depth: u32) -> Result<(), FrontierError> {
        if !self.seen.insert(url.to_string()) {
            return Ok(());
        }
        self.conn
            .execute(
                "INSERT OR IGNORE INTO urls (crawl_id, url, seq, depth, state)
                 VALUES (?1, ?2, ?3, ?4, 'done')",
                params![self.crawl, url.as_str(), self.next_seq, depth],
            )
            .map_err(|source| sqlite(&self.path, source))?;
        self.next_seq += 1;
        Ok(())
    }

    /// The URL to fetch next. It stays queued in the file until
    /// [`Frontier::complete`] records its outcome.
    pub fn pop(&mut self) -> Option<Queued> {
        self.queue.pop()
    }

    /// Puts back a URL that was popped but not fetched (the crawl stopped).
    pub fn unpop(&mut self, queued: Queued) {
        self.queue.push(queued);
    }

    /// Recomputes every queued URL's priority.
    pub fn reorder(&mut self, priority: impl Fn(&Url, u32) -> f64) {
        let queue = std::mem::take(&mut self.queue);
        self.queue = queue
            .into_iter()
            .map(|mut q| {
                q.priority = priority(&q.url, q.depth);
                q
            })
            .collect();
    }

    /// Records a page's outcome and the links found on it; see
    /// [`Frontier::complete_all`].
    pub fn complete(
        &mut self,
        page: &Completed<'_>,
        links: &[Link],
        output_len: Option<u64>,
    ) -> Result<usize, FrontierError> {
        self.complete_all(&[(page.clone(), links)], output_len)
    }

    /// Records the outcomes of pages, the links found on them, and (when
    /// their records were written) the output's length now, all in one
    /// transaction: the pages whose records one commit of the output holds
    /// are done together or not at all. Gives how many links were new.
    pub fn complete_all(
        &mut self,
        pages: &[PageLinks<'_>],
        output_len: Option<u64>,
    ) -> Result<usize, FrontierError> {
        let outcomes: Vec<&Completed<'_>> = pages.iter().map(|(page, _)| page).collect();
        self.record(
            &outcomes,
            pages.iter().flat_map(|(_, links)| links.iter()),
            output_len,
        )
    }

    /// The one write of the frontier: pages' outcomes, the links not met
    /// before, and the output's length, in one transaction; then the new
    /// links are queued in memory. Gives how many links were new.
    fn record<'l>(
        &mut self,
        pages: &[&Completed<'_>],
        links: impl Iterator<Item = &'l Link>,
        output_len: Option<u64>,
    ) -> Result<usize, FrontierError> {
        let path = self.path.clone();
        let fail = |source| sqlite(&path, source);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        for (done_seq, page) in (self.fetched as i64..).zip(pages) {
            tx.execute(
                "UPDATE urls SET state = ?3, status = ?4, error = ?5, item = ?6, item_links = ?7,
                     fetched_at = ?8, done_seq = ?9
                 WHERE crawl_id = ?1 AND url = ?2",
                params![
                    self.crawl,
                    page.url.as_str(),
                    page.outcome.as_str(),
                    page.status,
                    page.error,
                    page.item,
                    page.item_links,
                    page.fetched_at,
                    done_seq
                ],
            )
            .map_err(fail)?;
        }
        let mut added = Vec::new();
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO urls (crawl_id, url, seq, depth, state)
                     VALUES (?1, ?2, ?3, ?4, 'queued')",
                )
                .map_err(fail)?;
            let mut seq = self.next_seq;
            let mut batch_seen = HashSet::new();
            for (url, depth, priority) in links {
                if self.seen.contains(url.as_str()) || !batch_seen.insert(url.as_str()) {
                    continue;
                }
                insert
                    .execute(params![self.crawl, url.as_str(), seq, depth])
                    .map_err(fail)?;
                added.push(Queued {
                    url: url.clone(),
                    depth: *depth,
                    seq,
                    priority: *priority,
                });
                seq += 1;
            }
        }
        if let Some(len) = output_len {
            tx.execute(
                "UPDATE crawls SET output_len = ?2 WHERE id = ?1",
                params![self.crawl, i64::try_from(len).unwrap_or(i64::MAX)],
            )
            .map_err(fail)?;
        }
        tx.commit().map_err(fail)?;
        self.fetched += pages
            .iter()
            .filter(|p| p.outcome != Outcome::Skipped)
            .count() as u64;
        let n = added.len();
        for q in added {
            self.next_seq = self.next_seq.max(q.seq + 1);
            self.seen.insert(q.url.to_string());
            self.queue.push(q);
        }
        Ok(n)
    }

    /// Marks the crawl finished: it is not resumed any more.
    pub fn finish(&mut self, now: i64) -> Result<(), FrontierError> {
        self.conn
            .execute(
                "UPDATE crawls SET finished_at = ?2 WHERE id = ?1",
                params![self.crawl, now],
            )
            .map_err(|source| sqlite(&self.path, source))?;
        Ok(())
    }

    /// What the HTTP cache knows of `url`.
    pub fn cached(&self, url: &Url) -> Result<Option<CacheEntry>, FrontierError> {
        cache_entry_of(&self.conn, url).map_err(|source| sqlite(&self.path, source))
    }

    /// Records what a response said of `url`; `changed_at` moves only when
    /// the body's hash differs from the cached one.
    pub fn remember(
        &mut self,
        url: &Url,
        entry: &CacheEntry,
        now: i64,
    ) -> Result<(), FrontierError> {
        self.remember_all([(url, entry, now)])
    }

    /// [`Frontier::remember`] for many answers, in one transaction: what a
    /// batch of item pages leaves in the cache.
    pub fn remember_all<'a>(
        &mut self,
        answers: impl IntoIterator<Item = (&'a Url, &'a CacheEntry, i64)>,
    ) -> Result<(), FrontierError> {
        let path = self.path.clone();
        let fail = |source| sqlite(&path, source);
        let tx = self.conn.transaction().map_err(fail)?;
        // One statement a page: `changed_at` is kept while the hash stays
        // the same, as `update::changed_at` says.
        let mut upsert = tx
            .prepare_cached(
                "INSERT INTO http_cache (url, etag, last_modified, sha256, changed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (url) DO UPDATE SET etag = ?2, last_modified = ?3, sha256 = ?4,
                     changed_at = CASE WHEN ?4 IS NOT NULL AND http_cache.sha256 = ?4
                         THEN http_cache.changed_at ELSE ?5 END",
            )
            .map_err(fail)?;
        for (url, entry, now) in answers {
            upsert
                .execute(params![
                    url.as_str(),
                    entry.etag,
                    entry.last_modified,
                    entry.sha256,
                    now
                ])
                .map_err(fail)?;
        }
        drop(upsert);
        tx.commit().map_err(fail)
    }

    /// What rendered pages of this URL shape said of rendering
    /// (`render: auto`), over every crawl of the wrapper.
    pub fn render_votes(&self, wrapper: &str, shape: &str) -> Result<ShapeVotes, FrontierError> {
        self.conn
            .query_row(
                "SELECT helped, useless FROM render_votes WHERE wrapper = ?1 AND shape = ?2",
                [wrapper, shape],
                |r| {
                    Ok(ShapeVotes {
                        helped: r.get(0)?,
                        useless: r.get(1)?,
                    })
                },
            )
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(|source| sqlite(&self.path, source))
    }

    /// Counts a rendered page of this URL shape: whether rendering helped.
    pub fn vote_render(
        &mut self,
        wrapper: &str,
        shape: &str,
        helped: bool,
    ) -> Result<(), FrontierError> {
        self.conn
            .execute(
                "INSERT INTO render_votes (wrapper, shape, helped, useless) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (wrapper, shape) DO UPDATE
                     SET helped = helped + ?3, useless = useless + ?4",
                params![wrapper, shape, u32::from(helped), u32::from(!helped)],
            )
            .map_err(|source| sqlite(&self.path, source))?;
        Ok(())
    }
}

/// What the HTTP cache holds of `url`.
fn cache_entry_of(conn: &Connection, url: &Url) -> rusqlite::Result<Option<CacheEntry>> {
    conn.query_row(
        "SELECT etag, last_modified, sha256, changed_at FROM http_cache WHERE url = ?1",
        [url.as_str()],
        |r| {
            Ok(CacheEntry {
                etag: r.get(0)?,
                last_modified: r.get(1)?,
                sha256: r.get(2)?,
                changed_at: r.get(3)?,
            })
        },
    )
    .optional()
}

fn open(path: &Path) -> Result<Connection, FrontierError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            sqlite(
                path,
                rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                    Some(format!("cannot create {}: {e}", dir.display())),
                ),
            )
        })?;
    }
    let conn = Connection::open(path).map_err(|source| sqlite(path, source))?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .and_then(|()| conn.pragma_update(None, "journal_mode", "WAL"))
        .and_then(|()| conn.pragma_update(None, "synchronous", "NORMAL"))
        .and_then(|()| conn.execute_batch(SCHEMA))
        .map_err(|source| sqlite(path, source))?;
    Ok(conn)
}

fn sqlite(path: &Path, source: rusqlite::Error) -> FrontierError {
    FrontierError::Sqlite {
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn done(u: &Url) -> Completed<'_> {
        Completed {
            url: u,
            outcome: Outcome::Done,
            status: Some(200),
            error: None,
            item: false,
            item_links: 2,
            fetched_at: 5,
        }
    }

    #[test]
    fn urls_come_out_by_priority_then_in_the_order_found_and_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.db");
        let mut f = Frontier::begin(&path, "w", "out.ndjson", &[], 1).unwrap();
        let n = f
            .push(&[
                (url("http://h/a"), 1, 0.0),
                (url("http://h/b"), 1, 2.0),
                (url("http://h/c"), 1, 0.0),
                (url("http://h/a"), 1, 9.0),
            ])
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!(f.push(&[(url("http://h/b"), 2, 1.0)]).unwrap(), 0);
        let order: Vec<String> = std::iter::from_fn(|| f.pop())
            .map(|q| q.url.path().to_owned())
            .collect();
        assert_eq!(order, ["/b", "/a", "/c"]);
    }

    #[test]
    fn a_resumed_crawl_has_its_queue_and_output_length_and_fetches_nothing_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.db");
        let (a, b, c) = (url("http://h/a"), url("http://h/b"), url("http://h/c"));
        {
            let mut f =
                Frontier::begin(&path, "w", "out.ndjson", &[(a.clone(), 0, 0.0)], 1).unwrap();
            let first = f.pop().unwrap();
            f.complete(
                &done(&first.url),
                &[(b.clone(), 1, 0.0), (c.clone(), 1, 0.0)],
                Some(120),
            )
            .unwrap();
            // b was popped, but the process died before its outcome.
            let _b = f.pop().unwrap();
        }
        let Resumable::Unfinished {
            frontier: mut f,
            output_len,
        } = Frontier::resume(&path, "w", "out.ndjson").unwrap()
        else {
            panic!("the crawl is unfinished");
        };
        assert_eq!(output_len, 120);
        assert_eq!(f.fetched(), 1);
        assert!(f.has_seen(&a));
        let left: Vec<String> = std::iter::from_fn(|| f.pop())
            .map(|q| q.url.path().to_owned())
            .collect();
        assert_eq!(left, ["/b", "/c"]);
        assert_eq!(f.done_pages().unwrap(), [(a, 2)]);
        // Another output is another crawl.
        assert!(matches!(
            Frontier::resume(&path, "w", "other.ndjson"),
            Ok(Resumable::Nothing)
        ));
        f.finish(9).unwrap();
        assert!(matches!(
            Frontier::resume(&path, "w", "out.ndjson"),
            Ok(Resumable::Finished { fetched: 1, .. })
        ));
    }

    #[test]
    fn a_crawl_killed_right_after_it_began_resumes_with_its_seeds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.db");
        let seeds = [(url("http://h/"), 0, 0.0), (url("http://h/x"), 0, 0.0)];
        drop(Frontier::begin(&path, "w", "out.ndjson", &seeds, 1).unwrap());
        let Ok(Resumable::Unfinished {
            frontier: mut f,
            output_len: 0,
        }) = Frontier::resume(&path, "w", "out.ndjson")
        else {
            panic!("the begun crawl is resumable");
        };
        let left: Vec<String> = std::iter::from_fn(|| f.pop())
            .map(|q| q.url.path().to_owned())
            .collect();
        assert_eq!(left, ["/", "/x"]);
    }

    #[test]
    fn the_cache_moves_changed_at_only_when_the_body_changes() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = Frontier::begin(&dir.path().join("c.db"), "w", "o", &[], 1).unwrap();
        let u = url("http://h/p");
        let entry = |hash: &str| CacheEntry {
            etag: Some("\"1\"".to_owned()),
            last_modified: None,
            sha256: Some(hash.to_owned()),
            changed_at: None,
        };
        f.remember(&u, &entry("aa"), 10).unwrap();
        f.remember(&u, &entry("aa"), 20).unwrap();
        assert_eq!(f.cached(&u).unwrap().unwrap().changed_at, Some(10));
        f.remember(&u, &entry("bb"), 30).unwrap();
        assert_eq!(f.cached(&u).unwrap().unwrap().changed_at, Some(30));
    }

    #[test]
    fn reorder_follows_the_new_priorities() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = Frontier::begin(&dir.path().join("c.db"), "w", "o", &[], 1).unwrap();
        f.push(&[
            (url("http://h/list/1"), 1, 0.0),
            (url("http://h/wiki/x"), 1, 1.0),
        ])
        .unwrap();
        f.reorder(|u, _| {
            if u.path().starts_with("/list") {
                5.0
            } else {
                0.0
            }
        });
        assert_eq!(f.pop().unwrap().url.path(), "/list/1");
    }
}
