//! A worker's healing of item pages: the job's healing state unpacked in a
//! folder of the worker's own, extraction in the job's mode, and the
//! publication of what a heal changed as the job's next version.
//!
//! - `off`: the page is extracted with the job's wrapper, nothing more.
//! - `propose`: as `auto` below, but nothing is decided: each page records
//!   its votes (the first pages of each heal kept), and `mend crawl
//!   --backend` runs the local decision over those pages in the user's
//!   project, so the proposals land in the user's store, one entry per
//!   heal.
//! - `auto`: one decision per change, counted across workers
//!   (`decision.rs`). The page is offered the heals still open, heals in
//!   `propose` mode and records its votes; a heal is written only once it
//!   has held on `adapt.min_pages` pages, by a run of the local decision
//!   over those pages under the job's advisory lock, which is the
//!   wrapper-change protocol's lock here (the worker's own copy of the
//!   wrapper is private, so its file lock guards nothing shared).
//!
//! A publication is a compare-and-set of the job's version under the
//! advisory lock: a worker that finds another version than the one it read
//! adopts that one instead.
//!
//! ## What it refuses
//!
//! A job's files that would leave the worker's own folder are refused when
//! the job is unpacked (`job::unpack`). A worker never writes a heal that did
//! not hold on `adapt.min_pages` pages, and never publishes over a version it
//! did not read: it adopts the newer one. A page extracted while the healing
//! runtime cannot start gets an empty output, and the failure is logged; the
//! job goes on.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Mutex;
use tokio_postgres::Client;

use super::BackendError;
use super::decision::{self, Tally};
use super::job::{self, Job};
use crate::fetch::{Page, PageSource, ParsedPage};
use crate::job::PageOutput;
use crate::wrapper::{HealMode, PatternPath};

/// Clean item pages a worker keeps, the newest, so that a decision can
/// check that a heal changes nothing on pages the old XPaths served.
const SERVED_KEPT: usize = 16;

/// The prefix of a worker's folder of a job's wrapper, tree-grams and store.
const WORKER_DIR: &str = "mend-worker-";

/// The prefix of the folder a store's image is made in.
pub(super) const STORE_IMAGE_DIR: &str = "mend-store-image-";

/// A temporary folder only its owner can read (it holds the wrapper and a
/// copy of the store), named with the prefix and this process's id, so that
/// [`sweep_stale_tempdirs`] knows when its process is gone.
pub(super) fn private_tempdir(prefix: &str) -> Result<tempfile::TempDir, BackendError> {
    let mut builder = tempfile::Builder::new();
    let prefix = format!("{prefix}{}-", std::process::id());
    builder.prefix(&prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    builder.tempdir().map_err(|source| BackendError::Io {
        path: std::env::temp_dir(),
        source,
    })
}

/// Removes the temporary folders that workers killed before they could
/// clean up left behind: those of this user whose process is gone. A
/// folder whose process id is running (again) is left alone. Gives how many
/// were removed.
pub fn sweep_stale_tempdirs() -> usize {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(stale_pid) else {
            continue;
        };
        if !owned_by_me(&entry.path()) || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The process id in a worker folder's name (`mend-worker-PID-XXXX`).
fn stale_pid(name: &str) -> Option<u32> {
    let rest = name
        .strip_prefix(WORKER_DIR)
        .or_else(|| name.strip_prefix(STORE_IMAGE_DIR))?;
    rest.split('-').next()?.parse().ok()
}

/// Whether `path` belongs to this process's user.
fn owned_by_me(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(path), std::fs::metadata("/proc/self")) {
            (Ok(folder), Ok(me)) => folder.uid() == me.uid(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// The job's healing state in this worker.
pub struct Healing {
    /// The job as last loaded.
    pub job: Job,
    /// The folder its wrapper, tree-grams and store are unpacked in.
    pub dir: tempfile::TempDir,
    /// The wrapper file in `dir`.
    pub wrapper_path: PathBuf,
    /// The store in `dir`.
    pub store: PathBuf,
    /// The newest clean item pages this worker read.
    pub served: VecDeque<Page>,
    /// Heals whose decision this worker ran and that were not written, by
    /// version, so that the pages after do not run it again.
    pub refused: HashSet<(i32, String, String)>,
}

impl Healing {
    /// The state of `job`, unpacked in a new temporary folder.
    pub fn unpack(job: Job) -> Result<Healing, BackendError> {
        let dir = private_tempdir(WORKER_DIR)?;
        let (wrapper_path, store) = job::unpack(&job, dir.path())?;
        Ok(Healing {
            job,
            dir,
            wrapper_path,
            store,
            served: VecDeque::new(),
            refused: HashSet::new(),
        })
    }

    fn min_pages(&self) -> i64 {
        i64::try_from(self.job.wrapper.adapt.min_pages.max(1)).unwrap_or(i64::MAX)
    }
}

/// What the tasks of one worker share of a job's healing.
pub(super) struct HealingContext {
    /// The job's id.
    pub id: i64,
    /// The worker's name.
    pub name: String,
    /// The job as last loaded, with its healing state unpacked.
    pub state: Mutex<Healing>,
    /// How many healed wrappers this worker published.
    pub published: AtomicU64,
}

/// Extracts an item page with the job's wrapper, healing as the job says;
/// gives the page's output and the wrapper version it was read with.
pub async fn extract(
    context: &HealingContext,
    client: &Client,
    parsed: Arc<ParsedPage>,
) -> Result<(PageOutput, i32), BackendError> {
    let mut state = context.state.lock().await;
    if state.job.heal == HealMode::Off {
        // Without healing, pages need not wait for one another.
        let (wrapper, version) = (state.job.wrapper.clone(), state.job.wrapper_version);
        let (path, store) = (state.wrapper_path.clone(), state.store.clone());
        drop(state);
        let sources = vec![PageSource::Parsed(parsed)];
        let run = tokio::task::spawn_blocking(move || {
            crate::runtime::run_batch(HealMode::Off, wrapper, &path, store, sources, &[])
        })
        .await;
        let out = run
            .ok()
            .and_then(Result::ok)
            .and_then(|r| r.outputs.into_iter().next());
        return Ok((out.unwrap_or_else(empty_output), version));
    }
    // Healing: one page at a time in this worker, on the job's newest state.
    let current = current_version(client, context.id).await?;
    if current != state.job.wrapper_version {
        adopt(&mut state, client, context.id).await?;
    }
    extract_deciding(context, &mut state, client, parsed).await
}

/// Extracts a page that heals: offered the open heals, healed in `propose`
/// mode, its votes recorded, and in `auto` mode any heal that now holds on
/// enough pages decided. In `propose` mode the votes (with the first pages
/// of each heal) are what `mend crawl --backend` brings home as proposals.
async fn extract_deciding(
    context: &HealingContext,
    state: &mut Healing,
    client: &Client,
    parsed: Arc<ParsedPage>,
) -> Result<(PageOutput, i32), BackendError> {
    let version = state.job.wrapper_version;
    let open = decision::open_heals(client, context.id, version).await?;
    let source = PageSource::Parsed(Arc::clone(&parsed));
    let (out, _) = heal_pages(state, HealMode::Propose, &open, vec![source]).await;
    let page = &parsed.page;
    let mut out = out.into_iter().next().unwrap_or_else(empty_output);
    let votes = decision::votes_of(&out);
    if votes.is_empty() {
        if out.violations.is_empty() && out.error.is_none() && out.fallbacks.is_empty() {
            if state.served.len() >= SERVED_KEPT {
                state.served.pop_front();
            }
            state.served.push_back(page.clone());
        }
        return Ok((out, version));
    }
    let Some(url) = page.url.clone() else {
        return Ok((out, version));
    };
    let min_pages = state.min_pages();
    let tallies = decision::record(
        client,
        context.id,
        version,
        &context.name,
        page,
        &url,
        &votes,
        min_pages,
    )
    .await?;
    let mut applied = Vec::new();
    let auto = state.job.heal == HealMode::Auto;
    for tally in tallies.iter().filter(|t| auto && t.held >= min_pages) {
        if state.job.wrapper_version != version {
            break;
        }
        if decide(context, state, client, tally).await? {
            applied.push((tally.pattern.clone(), tally.new_xpath.clone()));
        }
    }
    annotate(&mut out, &tallies, &applied, auto.then_some(min_pages));
    Ok((out, version))
}

/// Says in a page's adaptations, and in the pending heals that served it,
/// what became of its heals across the job: applied by this page's vote,
/// or waiting for more pages (`min`, in `auto` mode), or held on so many
/// pages and waiting for a person (in `propose` mode, `min` is `None`).
fn annotate(
    out: &mut PageOutput,
    tallies: &[Tally],
    applied: &[(String, String)],
    min: Option<i64>,
) {
    let said = |a: &serde_json::Value, key: &str| -> Option<(String, String)> {
        Some((
            a["pattern"].as_str()?.to_owned(),
            a[key].as_str()?.to_owned(),
        ))
    };
    let verdict = |(pattern, xpath): &(String, String)| -> Option<(bool, String)> {
        let t = tallies
            .iter()
            .find(|t| t.pattern == *pattern && t.new_xpath == *xpath)?;
        let held = t.held;
        Some(if applied.iter().any(|(p, x)| p == pattern && x == xpath) {
            (
                true,
                format!("held on {held} pages across the job's workers"),
            )
        } else if let Some(min) = min {
            (
                false,
                format!(
                    "not applied yet: held on {held} of the {min} pages adapt.min_pages asks for, across the job's workers"
                ),
            )
        } else {
            (
                false,
                format!("held on {held} pages across the job's workers, for a person to decide"),
            )
        })
    };
    for a in &mut out.adaptations {
        let Some((done, reason)) = said(a, "new_xpath").as_ref().and_then(verdict) else {
            continue;
        };
        let a = std::sync::Arc::make_mut(a);
        if done {
            a["status"] = "applied".into();
        }
        a["reason"] = reason.into();
    }
    for f in out.fallbacks.iter_mut().filter(|f| f["pending"] == true) {
        let Some((done, reason)) = said(f, "xpath").as_ref().and_then(verdict) else {
            continue;
        };
        // Decided by this page: the heal is no longer pending.
        f["pending"] = (!done).into();
        f["reason"] = reason.into();
    }
}

/// Runs the decision on `tally` under the job's advisory lock: the local
/// decision (`auto`) over the pages the heal held on, after the clean pages
/// this worker kept; publishes what it wrote. Gives whether the heal is now
/// the job's XPath for its pattern.
pub async fn decide(
    context: &HealingContext,
    state: &mut Healing,
    client: &Client,
    tally: &Tally,
) -> Result<bool, BackendError> {
    let key = (
        state.job.wrapper_version,
        tally.pattern.clone(),
        tally.new_xpath.clone(),
    );
    if state.refused.contains(&key) {
        return Ok(false);
    }
    client
        .execute("SELECT pg_advisory_lock($1)", &[&context.id])
        .await?;
    let decided = decide_locked(context, state, client, tally).await;
    let unlocked = client
        .execute("SELECT pg_advisory_unlock($1)", &[&context.id])
        .await;
    let decided = decided?;
    unlocked?;
    if !decided.0 {
        state.refused.insert(key);
    }
    if decided.1 {
        adopt(state, client, context.id).await?;
    }
    let pattern: Option<PatternPath> = tally.pattern.parse().ok();
    Ok(pattern
        .and_then(|p| {
            state
                .job
                .wrapper
                .pattern(&p)
                .map(|p| p.xpath.source() == tally.new_xpath)
        })
        .unwrap_or(false))
}

/// The decision with the lock held: whether it wrote anything, and whether
/// the job moved on to another version (so the state is adopted again).
async fn decide_locked(
    context: &HealingContext,
    state: &mut Healing,
    client: &Client,
    tally: &Tally,
) -> Result<(bool, bool), BackendError> {
    let version = state.job.wrapper_version;
    let current = current_version(client, context.id).await?;
    if current != version {
        return Ok((true, true));
    }
    let limit = tally.held.min(state.min_pages());
    let pages = decision::pages(client, context.id, version, tally, limit).await?;
    if pages.is_empty() {
        return Ok((false, false));
    }
    let mut sources: Vec<Page> = state.served.iter().cloned().collect();
    sources.extend(pages);
    let before = state.job.wrapper_yaml.clone();
    let (_, after) = heal_pages(state, HealMode::Auto, &[], memory(sources)).await;
    match after.filter(|a| *a != before) {
        Some(after) => {
            publish_locked(context, state, client, after).await?;
            tracing::info!(
                job = context.id,
                pattern = %tally.pattern,
                xpath = %tally.new_xpath,
                pages = tally.held,
                "decided a heal across the job's workers"
            );
            Ok((true, true))
        }
        None => {
            tracing::info!(
                job = context.id,
                pattern = %tally.pattern,
                xpath = %tally.new_xpath,
                "a heal that held on enough pages was not written"
            );
            Ok((false, false))
        }
    }
}

/// When the job's pages are all read: marks the job settled under the
/// job's advisory lock (which `job::try_finish` waits for), so that no
/// decision is under way when it finishes. A heal that held on fewer than
/// `adapt.min_pages` pages is not decided here: it stays a proposal.
pub async fn settle(context: &HealingContext, client: &Client) -> Result<(), BackendError> {
    // The state's lock keeps this worker's own decisions out meanwhile.
    let state = context.state.lock().await;
    if state.job.heal != HealMode::Auto {
        return Ok(());
    }
    client
        .execute("SELECT pg_advisory_lock($1)", &[&context.id])
        .await?;
    let settled = settle_locked(context, client).await;
    let unlocked = client
        .execute("SELECT pg_advisory_unlock($1)", &[&context.id])
        .await;
    settled?;
    unlocked?;
    Ok(())
}

async fn settle_locked(context: &HealingContext, client: &Client) -> Result<(), BackendError> {
    let open: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM mend_hosts WHERE job_id = $1 AND queued > 0)
                 OR EXISTS (SELECT 1 FROM mend_frontier WHERE job_id = $1 AND state = 'leased')",
            &[&context.id],
        )
        .await?
        .get(0);
    if open {
        // Another worker's page is still in flight; its worker settles.
        return Ok(());
    }
    // A heal that held on fewer than `adapt.min_pages` pages stays a
    // proposal when the job ends, as in a local run: there is no exception
    // for a job of few broken pages.
    client
        .execute(
            "UPDATE mend_jobs SET settled = true WHERE id = $1",
            &[&context.id],
        )
        .await?;
    Ok(())
}

/// The pages as sources held in memory.
pub(super) fn memory(pages: Vec<Page>) -> Vec<PageSource> {
    pages
        .into_iter()
        .map(|p| PageSource::Memory(Arc::new(p)))
        .collect()
}

/// Runs the healing runtime in `mode` over `sources` with the state's
/// wrapper, tree-grams and store, offered `open` heals; gives the outputs
/// and the wrapper file's text afterwards.
async fn heal_pages(
    state: &Healing,
    mode: HealMode,
    open: &[(PatternPath, String)],
    sources: Vec<PageSource>,
) -> (Vec<PageOutput>, Option<String>) {
    let wrapper = state.job.wrapper.clone();
    let (wrapper_path, store) = (state.wrapper_path.clone(), state.store.clone());
    let open = open.to_vec();
    tokio::task::spawn_blocking(move || {
        let run = crate::runtime::run_batch(mode, wrapper, &wrapper_path, store, sources, &open);
        let outputs = match run {
            Ok(run) => {
                if let Some(failure) = run.failure {
                    tracing::warn!(error = %failure, "healing failed on a page");
                }
                run.outputs
            }
            Err(e) => {
                tracing::warn!(error = %e, "the healing runtime cannot start");
                Vec::new()
            }
        };
        let after = std::fs::read_to_string(&wrapper_path).ok();
        (outputs, after)
    })
    .await
    .unwrap_or((Vec::new(), None))
}

/// Publishes the wrapper a decision wrote, with its tree-grams and store,
/// as the job's next version: a compare-and-set of the version, with the
/// job's advisory lock held.
async fn publish_locked(
    context: &HealingContext,
    state: &Healing,
    client: &Client,
    wrapper_yaml: String,
) -> Result<(), BackendError> {
    let treegrams = read_treegrams(state.dir.path())?;
    let image = store_image(&state.store)?.map(|i| i.bytes);
    let treegrams_json = serde_json::to_value(&treegrams).unwrap_or_default();
    let updated = client
        .execute(
            "UPDATE mend_jobs SET wrapper_yaml = $3, treegrams = $4, store_image = $5,
                 wrapper_version = wrapper_version + 1
             WHERE id = $1 AND wrapper_version = $2",
            &[
                &context.id,
                &state.job.wrapper_version,
                &wrapper_yaml,
                &treegrams_json,
                &image,
            ],
        )
        .await?;
    if updated == 1 {
        context.published.fetch_add(1, Ordering::Relaxed);
        tracing::info!(
            job = context.id,
            version = state.job.wrapper_version + 1,
            "published a healed wrapper"
        );
    }
    Ok(())
}

/// The job's wrapper version now.
async fn current_version(client: &Client, id: i64) -> Result<i32, BackendError> {
    Ok(client
        .query_one(
            "SELECT wrapper_version FROM mend_jobs WHERE id = $1",
            &[&id],
        )
        .await?
        .get(0))
}

/// Loads the job's newest healing state and unpacks it.
async fn adopt(state: &mut Healing, client: &Client, id: i64) -> Result<(), BackendError> {
    let job = job::load(client, id).await?;
    let (wrapper_path, store) = job::unpack(&job, state.dir.path())?;
    state.wrapper_path = wrapper_path;
    state.store = store;
    state.job = job;
    Ok(())
}

/// The tree-gram files under `dir`, by relative path.
fn read_treegrams(dir: &Path) -> Result<BTreeMap<String, String>, BackendError> {
    let mut found = BTreeMap::new();
    let root = dir.join("treegrams");
    let mut stack = vec![root];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(relative) = path.strip_prefix(dir)
            {
                found.insert(relative.to_string_lossy().into_owned(), text);
            }
        }
    }
    Ok(found)
}

/// A consistent copy of a store: its bytes, and the newest run it holds.
#[derive(Clone, Debug)]
pub struct StoreImage {
    /// The copy's bytes.
    pub bytes: Vec<u8>,
    /// The newest run in the copy: the runs after it in a job's image are
    /// its workers'.
    pub newest_run: Option<i64>,
}

/// A consistent copy of a SQLite store (`VACUUM INTO`), or `None` when
/// there is no store.
pub fn store_image(store: &Path) -> Result<Option<StoreImage>, BackendError> {
    if !store.exists() {
        return Ok(None);
    }
    let fail = |source| BackendError::StoreImage {
        path: store.to_owned(),
        source,
    };
    let copy = private_tempdir(STORE_IMAGE_DIR)?;
    let target = copy.path().join("store.db");
    let conn = rusqlite::Connection::open(store).map_err(fail)?;
    conn.execute("VACUUM INTO ?1", [target.to_string_lossy().as_ref()])
        .map_err(fail)?;
    drop(conn);
    // Read from the copy itself, so that the number and the bytes agree
    // whatever runs the store began meanwhile.
    let newest_run = rusqlite::Connection::open(&target)
        .and_then(|c| {
            c.query_row("SELECT max(id) FROM runs", [], |row| {
                row.get::<_, Option<i64>>(0)
            })
        })
        .ok()
        .flatten();
    let bytes = std::fs::read(&target).map_err(|source| BackendError::Io {
        path: target,
        source,
    })?;
    Ok(Some(StoreImage { bytes, newest_run }))
}

/// The output of a page that could not be extracted at all.
pub fn empty_output() -> PageOutput {
    PageOutput {
        page: String::new(),
        records: Vec::new(),
        violations: Vec::new(),
        adaptations: Vec::new(),
        fallbacks: Vec::new(),
        error: Some("the page could not be extracted".to_owned()),
        ticket: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_killed_workers_folder_is_removed_and_a_live_ones_kept() {
        // No process has this id: the kernel's ids stop far below it.
        let dead = std::env::temp_dir().join(format!("{WORKER_DIR}4000000000-test"));
        std::fs::create_dir_all(dead.join("inside")).unwrap();
        let live = private_tempdir(WORKER_DIR).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(live.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        assert!(sweep_stale_tempdirs() >= 1);
        assert!(!dead.exists());
        assert!(live.path().exists());
        assert_eq!(stale_pid("mend-worker-123-abc"), Some(123));
        assert_eq!(stale_pid("mend-workers"), None);
    }

    #[test]
    fn tree_grams_are_read_with_paths_relative_to_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("treegrams/w/title.html");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "<h1>t</h1>").unwrap();
        let found = read_treegrams(dir.path()).unwrap();
        assert_eq!(
            found.into_iter().collect::<Vec<_>>(),
            [("treegrams/w/title.html".to_owned(), "<h1>t</h1>".to_owned())]
        );
    }

    fn tally(held: i64) -> Tally {
        Tally {
            pattern: "post/author".into(),
            new_xpath: "//b".into(),
            held,
            broke: held,
        }
    }

    fn annotated(held: i64, applied: bool) -> serde_json::Value {
        let mut out = empty_output();
        out.adaptations = vec![std::sync::Arc::new(json!({
            "pattern": "post/author", "new_xpath": "//b", "status": "proposed"
        }))];
        let done = [("post/author".to_owned(), "//b".to_owned())];
        annotate(
            &mut out,
            &[tally(held)],
            if applied { &done } else { &[] },
            Some(3),
        );
        (*out.adaptations[0]).clone()
    }

    #[test]
    fn a_heal_short_of_min_pages_says_how_far_it_is() {
        let a = annotated(2, false);
        assert_eq!(a["status"], "proposed");
        assert_eq!(
            a["reason"],
            "not applied yet: held on 2 of the 3 pages adapt.min_pages asks for, across the job's workers"
        );
    }

    #[test]
    fn a_proposal_says_how_many_pages_it_held_on_and_waits_for_a_person() {
        let mut out = empty_output();
        out.adaptations = vec![std::sync::Arc::new(json!({
            "pattern": "post/author", "new_xpath": "//b", "status": "proposed"
        }))];
        annotate(&mut out, &[tally(5)], &[], None);
        assert_eq!(out.adaptations[0]["status"], "proposed");
        assert_eq!(
            out.adaptations[0]["reason"],
            "held on 5 pages across the job's workers, for a person to decide"
        );
    }

    #[test]
    fn a_pending_heal_that_served_the_deciding_page_is_no_longer_pending() {
        let mut out = empty_output();
        out.fallbacks = vec![json!({"pattern": "post/author", "xpath": "//b", "pending": true})];
        let done = [("post/author".to_owned(), "//b".to_owned())];
        annotate(&mut out, &[tally(3)], &done, Some(3));
        assert_eq!(out.fallbacks[0]["pending"], false);
        assert_eq!(
            out.fallbacks[0]["reason"],
            "held on 3 pages across the job's workers"
        );
    }

    #[test]
    fn the_page_that_decides_a_heal_says_it_was_applied() {
        let a = annotated(3, true);
        assert_eq!(a["status"], "applied");
        assert_eq!(a["reason"], "held on 3 pages across the job's workers");
    }
}
