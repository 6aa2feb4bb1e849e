//! A crawl job in PostgreSQL: submitted once with everything a worker
//! needs (the wrapper's text, its tree-grams and store, the item rule, the
//! seeds), loaded by any worker, and exported as NDJSON when it is done.
//!
//! ## What it refuses
//!
//! A job that does not exist is [`BackendError::NoJob`]; one whose wrapper,
//! tree-grams, heal or render mode or item rule no longer reads back is
//! [`BackendError::Wrapper`]. Unpacking refuses a tree-gram path that is
//! empty or leaves the job's folder ([`BackendError::UnsafePath`]), and
//! exporting images refuses a name with a slash, a backslash or a leading
//! dot; an image already in the folder is kept. A job is not finished while a
//! URL is queued or leased, nor, in `auto` mode, before its last heals are
//! decided. A seed already in the frontier is not queued again.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use futures_util::StreamExt;
use tokio_postgres::Client;
use url::Url;

use super::BackendError;
use super::citation::Citations;
use crate::crawl::{ItemRule, RobotsTxt, Scope, Sink, origin};
use crate::job::PageOutput;
use crate::site::ItemPattern;
use crate::wrapper::{self, HealMode, RenderMode, Wrapper};

/// The priority of an item page: above every other page, as the local
/// crawl's learned order puts them.
pub const ITEM_PRIORITY: f64 = 1e6;

/// What `mend crawl --backend` submits.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// The wrapper, loaded.
    pub wrapper: Wrapper,
    /// The wrapper file's text.
    pub wrapper_yaml: String,
    /// The wrapper file's name (workers write it under that name).
    pub wrapper_file: String,
    /// Tree-gram files, by path relative to the wrapper's project folder.
    pub treegrams: BTreeMap<String, String>,
    /// An image of the store (tree-gram records, proposals, rejections).
    pub store_image: Option<Vec<u8>>,
    /// The newest run of the store when it was imaged: the runs after it
    /// in the job's image are the workers'.
    pub store_base_run: Option<i64>,
    /// The output the job writes to, as named on the command line.
    pub output: String,
    /// What workers do with item pages that break.
    pub heal: HealMode,
    /// Which pages workers render in a browser.
    pub render: RenderMode,
    /// Emit only item pages new or changed after this time (Unix
    /// milliseconds): UpdateCrawl.
    pub since: Option<i64>,
    /// Which pages are items.
    pub items: ItemRule,
    /// The start URLs, normalised, and examples of item pages (depth 1).
    pub seeds: Vec<(Url, u32)>,
    /// Which URLs are followed.
    pub scope: Scope,
    /// The page budget.
    pub max_pages: Option<u64>,
    /// robots.txt of the start hosts, read once by the submitter.
    pub robots: Vec<(Url, RobotsTxt, Option<Duration>)>,
}

/// A job as a worker runs it.
#[derive(Debug, Clone)]
pub struct Job {
    /// The job's id.
    pub id: i64,
    /// The wrapper now (after any heal a worker applied).
    pub wrapper: Wrapper,
    /// Its text.
    pub wrapper_yaml: String,
    /// Its file name.
    pub wrapper_file: String,
    /// Which version of the wrapper this is: one more for each applied heal.
    pub wrapper_version: i32,
    /// Tree-gram files, by relative path.
    pub treegrams: BTreeMap<String, String>,
    /// The store's image.
    pub store_image: Option<Vec<u8>>,
    /// The healing mode.
    pub heal: HealMode,
    /// The rendering mode.
    pub render: RenderMode,
    /// UpdateCrawl's time, when the job emits only what changed after it.
    pub since: Option<i64>,
    /// The wrapper's name, which its HTTP cache is kept under.
    pub wrapper_name: String,
    /// The output, as named on the command line (`-`: standard output).
    pub output: String,
    /// Which pages are items.
    pub items: ItemRule,
    /// Which URLs are followed.
    pub scope: Scope,
    /// When the job finished, if it did.
    pub finished: bool,
}

/// Submits a job: the job, its start hosts (with robots.txt) and its seeds,
/// in one transaction. Gives its id.
pub async fn submit(client: &mut Client, spec: &JobSpec) -> Result<i64, BackendError> {
    let politeness = &spec.wrapper.crawl.politeness;
    let delay_ms = millis(politeness.delay);
    let concurrency = i32::try_from(politeness.concurrency.max(1)).unwrap_or(i32::MAX);
    let (items_all, items_regex, items_hosts) = match &spec.items {
        ItemRule::All => (true, None, None),
        ItemRule::Pattern(re) => (false, Some(re.as_str().to_owned()), None),
        ItemRule::Learned(p) => (false, Some(p.as_str().to_owned()), Some(p.hosts().to_vec())),
    };
    let treegrams = serde_json::to_value(&spec.treegrams).unwrap_or_default();
    let max_pages = spec.max_pages.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
    let max_depth = spec
        .scope
        .max_depth
        .map(|d| i32::try_from(d).unwrap_or(i32::MAX));
    let tx = client.transaction().await?;
    let row = tx
        .query_one(
            "INSERT INTO mend_jobs (wrapper_name, output, wrapper_yaml, wrapper_file, treegrams,
                 store_image, heal, items_regex, items_hosts, items_all, items_rule, seed_hosts,
                 max_pages, max_depth, delay_ms, host_concurrency, render, since_ms, start_urls,
                 store_base_run)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                 $18, $19, $20)
             RETURNING id",
            &[
                &spec.wrapper.name,
                &spec.output,
                &spec.wrapper_yaml,
                &spec.wrapper_file,
                &treegrams,
                &spec.store_image,
                &spec.heal.as_str(),
                &items_regex,
                &items_hosts,
                &items_all,
                &spec.items.describe(),
                &spec.scope.hosts,
                &max_pages,
                &max_depth,
                &delay_ms,
                &concurrency,
                &spec.render.as_str(),
                &spec.since,
                &start_key(spec.seeds.iter().filter(|(_, d)| *d == 0).map(|(u, _)| u)),
                &spec.store_base_run,
            ],
        )
        .await?;
    let id: i64 = row.get(0);
    for (url, txt, crawl_delay) in &spec.robots {
        let (state, body) = robots_columns(txt);
        let delay = crawl_delay.map_or(delay_ms, |d| delay_ms.max(millis(d)));
        tx.execute(
            "INSERT INTO mend_hosts (job_id, host, delay_ms, concurrency, robots_state, robots)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            &[&id, &origin(url), &delay, &concurrency, &state, &body],
        )
        .await?;
    }
    for (url, depth) in &spec.seeds {
        let depth = i32::try_from(*depth).unwrap_or(i32::MAX);
        let priority = if spec.items.is_item(url) {
            ITEM_PRIORITY - f64::from(depth)
        } else {
            -f64::from(depth)
        };
        tx.execute(
            "INSERT INTO mend_hosts (job_id, host, delay_ms, concurrency)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &[&id, &origin(url), &delay_ms, &concurrency],
        )
        .await?;
        tx.execute(
            "INSERT INTO mend_frontier (job_id, url, host, depth, priority)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            &[&id, &url.as_str(), &origin(url), &depth, &priority],
        )
        .await?;
    }
    // Each host counts its queued URLs, which the lease reads.
    tx.execute(
        "UPDATE mend_hosts h SET queued = (
             SELECT count(*) FROM mend_frontier f
             WHERE f.job_id = h.job_id AND f.host = h.host AND f.state = 'queued')
         WHERE h.job_id = $1",
        &[&id],
    )
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// The columns robots.txt is kept in.
pub fn robots_columns(txt: &RobotsTxt) -> (&'static str, Option<Vec<u8>>) {
    match txt {
        RobotsTxt::Body(body) => ("body", Some(body.clone())),
        RobotsTxt::Absent => ("absent", None),
        RobotsTxt::Unreadable => ("unreadable", None),
    }
}

/// robots.txt as its columns keep it; `None` when not read yet.
pub fn robots_from_columns(state: Option<&str>, body: Option<Vec<u8>>) -> Option<RobotsTxt> {
    match state? {
        "body" => Some(RobotsTxt::Body(body.unwrap_or_default())),
        "absent" => Some(RobotsTxt::Absent),
        _ => Some(RobotsTxt::Unreadable),
    }
}

/// The newest job of this wrapper writing to this output from these start
/// URLs: its id and whether it finished. A job submitted before jobs knew
/// their start URLs matches any.
pub async fn newest<'a>(
    client: &Client,
    wrapper_name: &str,
    output: &str,
    start: impl IntoIterator<Item = &'a Url>,
) -> Result<Option<(i64, bool)>, BackendError> {
    let start = start_key(start);
    Ok(client
        .query_opt(
            "SELECT id, finished_at IS NOT NULL FROM mend_jobs
             WHERE wrapper_name = $1 AND output = $2 AND (start_urls IS NULL OR start_urls = $3)
             ORDER BY id DESC LIMIT 1",
            &[&wrapper_name, &output, &start],
        )
        .await?
        .map(|r| (r.get(0), r.get(1))))
}

/// Job `id`'s wrapper name and whether it finished, if the job exists.
pub async fn find(client: &Client, id: i64) -> Result<Option<(String, bool)>, BackendError> {
    Ok(client
        .query_opt(
            "SELECT wrapper_name, finished_at IS NOT NULL FROM mend_jobs WHERE id = $1",
            &[&id],
        )
        .await?
        .map(|r| (r.get(0), r.get(1))))
}

/// Start URLs as a job is known by them: sorted, each once.
fn start_key<'a>(start: impl IntoIterator<Item = &'a Url>) -> Vec<String> {
    let mut key: Vec<String> = start.into_iter().map(Url::to_string).collect();
    key.sort();
    key.dedup();
    key
}

/// The oldest job not finished, for a worker given no job.
pub async fn oldest_open(client: &Client) -> Result<Option<i64>, BackendError> {
    Ok(client
        .query_opt(
            "SELECT id FROM mend_jobs WHERE finished_at IS NULL ORDER BY id LIMIT 1",
            &[],
        )
        .await?
        .map(|r| r.get(0)))
}

/// Loads a job as it stands now.
pub async fn load(client: &Client, id: i64) -> Result<Job, BackendError> {
    let row = client
        .query_opt(
            "SELECT wrapper_yaml, wrapper_file, wrapper_version, treegrams, store_image, heal,
                 items_regex, items_hosts, items_all, seed_hosts, max_depth,
                 finished_at IS NOT NULL, render, since_ms, wrapper_name, output
             FROM mend_jobs WHERE id = $1",
            &[&id],
        )
        .await?
        .ok_or(BackendError::NoJob(id))?;
    let wrapper_yaml: String = row.get(0);
    let wrapper_file: String = row.get(1);
    let wrapper = wrapper::load_str(&wrapper_yaml, &wrapper_file).map_err(|diagnostics| {
        BackendError::Wrapper(
            diagnostics
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    let treegrams: serde_json::Value = row.get(3);
    let treegrams: BTreeMap<String, String> =
        serde_json::from_value(treegrams).map_err(|e| BackendError::Wrapper(e.to_string()))?;
    let heal: String = row.get(5);
    let heal = heal
        .parse::<HealMode>()
        .map_err(|_| BackendError::Wrapper(format!("unknown heal mode {heal:?}")))?;
    let render: String = row.get(12);
    let render = render
        .parse::<RenderMode>()
        .map_err(|_| BackendError::Wrapper(format!("unknown render mode {render:?}")))?;
    let items_regex: Option<String> = row.get(6);
    let items_hosts: Option<Vec<String>> = row.get(7);
    let items_all: bool = row.get(8);
    let items = match (items_all, items_regex, items_hosts) {
        (true, _, _) | (false, None, _) => ItemRule::All,
        (false, Some(re), None) => ItemRule::Pattern(
            regex::Regex::new(&re).map_err(|e| BackendError::Wrapper(e.to_string()))?,
        ),
        (false, Some(re), Some(hosts)) => ItemRule::Learned(
            ItemPattern::from_parts(hosts, &re)
                .map_err(|e| BackendError::Wrapper(e.to_string()))?,
        ),
    };
    let max_depth: Option<i32> = row.get(10);
    let scope = Scope {
        settings: wrapper.crawl.clone(),
        hosts: row.get(9),
        max_depth: max_depth.and_then(|d| u32::try_from(d).ok()),
    };
    Ok(Job {
        id,
        wrapper,
        wrapper_yaml,
        wrapper_file,
        wrapper_version: row.get(2),
        treegrams,
        store_image: row.get(4),
        heal,
        render,
        since: row.get(13),
        wrapper_name: row.get(14),
        output: row.get(15),
        items,
        scope,
        finished: row.get(11),
    })
}

/// Marks the job finished when nothing is queued or leased any more and,
/// in `auto` mode, a worker has decided its last heals; gives whether it is
/// finished.
pub async fn try_finish(client: &Client, id: i64) -> Result<bool, BackendError> {
    // A worker deciding a heal holds the job's advisory lock; the job ends
    // after that decision, so that its final wrapper is the decided one.
    client
        .execute("SELECT pg_advisory_lock($1)", &[&id])
        .await?;
    let finished = client
        .query_one(
            "WITH open AS (
                 SELECT 1 FROM mend_hosts WHERE job_id = $1 AND queued > 0
                 UNION ALL
                 SELECT 1 FROM mend_frontier WHERE job_id = $1 AND state = 'leased'
                 LIMIT 1
             ), done AS (
                 UPDATE mend_jobs SET finished_at = clock_timestamp()
                 WHERE id = $1 AND finished_at IS NULL AND NOT EXISTS (SELECT 1 FROM open)
                   AND (heal <> 'auto' OR settled)
                 RETURNING 1
             )
             SELECT EXISTS (SELECT 1 FROM done)
                 OR EXISTS (SELECT 1 FROM mend_jobs WHERE id = $1 AND finished_at IS NOT NULL)",
            &[&id],
        )
        .await;
    let unlocked = client
        .execute("SELECT pg_advisory_unlock($1)", &[&id])
        .await;
    let finished = finished?;
    unlocked?;
    Ok(finished.get(0))
}

/// What an export wrote.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Exported {
    /// Item pages written.
    pub items: u64,
    /// Records on them.
    pub records: u64,
    /// Violations on them.
    pub violations: u64,
}

/// Writes the job's records as NDJSON, one line per item page, in URL
/// order (bytewise, whatever the database's collation), so that the output
/// does not depend on which worker did what, each page citing the entries
/// `citations` names (`home.rs`). The rows are streamed: a job of any size
/// is written in bounded memory.
pub async fn export(
    client: &Client,
    id: i64,
    citations: &Citations,
    out: &mut dyn Write,
) -> Result<Exported, BackendError> {
    let rows = client
        .query_raw(
            "SELECT line, records, violations FROM mend_records WHERE job_id = $1 ORDER BY url COLLATE \"C\"",
            [&id],
        )
        .await?;
    let mut rows = std::pin::pin!(rows);
    let mut exported = Exported::default();
    let io = |source| BackendError::Io {
        path: PathBuf::from("output"),
        source,
    };
    while let Some(row) = rows.next().await {
        let row = row?;
        let line = citations.cite_line(row.get(0));
        out.write_all(line.as_bytes()).map_err(io)?;
        out.write_all(b"\n").map_err(io)?;
        exported.items += 1;
        exported.records += u64::try_from(row.get::<_, i32>(1)).unwrap_or(0);
        exported.violations += u64::try_from(row.get::<_, i32>(2)).unwrap_or(0);
    }
    out.flush().map_err(io)?;
    Ok(exported)
}

/// Writes the job's records to `sink`, in any of the crawl's formats, one
/// page at a time in URL order, citing as [`export`] does; each page's time
/// is when its record was written.
pub async fn export_to_sink(
    client: &Client,
    id: i64,
    citations: &Citations,
    sink: &mut Sink,
) -> Result<Exported, BackendError> {
    let rows = client
        .query_raw(
            "SELECT line, records, violations,
                 (extract(epoch FROM written_at) * 1000)::BIGINT
             FROM mend_records WHERE job_id = $1 ORDER BY url COLLATE \"C\"",
            [&id],
        )
        .await?;
    let mut rows = std::pin::pin!(rows);
    let mut exported = Exported::default();
    while let Some(row) = rows.next().await {
        let row = row?;
        let line: &str = row.get(0);
        let mut page: PageOutput = serde_json::from_str(line).map_err(|e| {
            BackendError::Wrapper(format!("a stored record does not read back: {e}"))
        })?;
        citations.cite(&mut page);
        sink.write(page, row.get(3))?;
        exported.items += 1;
        exported.records += u64::try_from(row.get::<_, i32>(1)).unwrap_or(0);
        exported.violations += u64::try_from(row.get::<_, i32>(2)).unwrap_or(0);
    }
    sink.commit()?;
    Ok(exported)
}

/// Writes the job's images into `dir` (files already there are kept);
/// gives how many files the job holds.
pub async fn export_media(client: &Client, id: i64, dir: &Path) -> Result<u64, BackendError> {
    let rows = client
        .query(
            "SELECT name, bytes FROM mend_media_files WHERE job_id = $1 ORDER BY name",
            &[&id],
        )
        .await?;
    for row in &rows {
        let name: &str = row.get(0);
        // A name is a hash and an extension the worker made; anything that
        // could leave the folder is refused.
        if name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(BackendError::Wrapper(format!(
                "a media file name {name:?} is refused"
            )));
        }
        crate::crawl::write_media(dir, name, row.get(1)).map_err(|source| BackendError::Io {
            path: dir.join(name),
            source,
        })?;
    }
    Ok(rows.len() as u64)
}

/// Writes the job's healing state (its wrapper file, tree-grams and store)
/// into `dir`, for a worker's runtime; gives the wrapper's and the store's
/// paths. A tree-gram path that would leave `dir` is refused.
pub fn unpack(job: &Job, dir: &Path) -> Result<(PathBuf, PathBuf), BackendError> {
    let write = |path: &Path, bytes: &[u8]| -> Result<(), BackendError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| BackendError::Io {
                path: parent.to_owned(),
                source,
            })?;
        }
        std::fs::write(path, bytes).map_err(|source| BackendError::Io {
            path: path.to_owned(),
            source,
        })
    };
    let file_name = Path::new(&job.wrapper_file)
        .file_name()
        .map_or_else(|| PathBuf::from("wrapper.yaml"), PathBuf::from);
    let wrapper_path = dir.join(file_name);
    write(&wrapper_path, job.wrapper_yaml.as_bytes())?;
    for (relative, text) in &job.treegrams {
        if !is_inside(relative) {
            return Err(BackendError::UnsafePath(relative.clone()));
        }
        write(&dir.join(relative), text.as_bytes())?;
    }
    let store = dir.join(".mend").join("mend.db");
    if let Some(image) = &job.store_image {
        write(&store, image)?;
    }
    Ok((wrapper_path, store))
}

/// Whether a relative path stays below its folder.
fn is_inside(relative: &str) -> bool {
    let path = Path::new(relative);
    !relative.is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

fn millis(d: Duration) -> i32 {
    i32::try_from(d.as_millis()).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_gram_paths_from_the_database_stay_in_their_folder() {
        assert!(is_inside("treegrams/w/title.html"));
        assert!(is_inside("./treegrams/w/title.html"));
        assert!(!is_inside("../outside.html"));
        assert!(!is_inside("treegrams/../../x.html"));
        assert!(!is_inside("/etc/passwd"));
        assert!(!is_inside(""));
    }

    #[test]
    fn robots_columns_go_both_ways() {
        for txt in [
            RobotsTxt::Body(b"User-agent: *\nDisallow: /private/\n".to_vec()),
            RobotsTxt::Absent,
            RobotsTxt::Unreadable,
        ] {
            let (state, body) = robots_columns(&txt);
            assert_eq!(robots_from_columns(Some(state), body), Some(txt));
        }
        assert_eq!(robots_from_columns(None, None), None);
    }
}
