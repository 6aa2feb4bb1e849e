//! Bringing a finished job home: its heals recorded in the user's store,
//! and the job's output citing those entries.
//!
//! Workers heal in private copies of the user's store, so the ids their
//! pages cite mean nothing at home. When the job ends, the command that
//! submitted it brings the job home once, under the job's advisory lock:
//!
//! 1. In `auto` mode, the XPaths the workers decided are merged into the
//!    wrapper file, and the heals that decided them, as the deciding
//!    worker's store recorded them (the runs after `store_base_run` in the
//!    job's store image), are recorded in the user's store in the same
//!    journaled change (`runtime::merge_decided`).
//! 2. In `propose` and `auto` mode, the local decision runs in `propose`
//!    mode over the pages the workers kept for each heal, with the wrapper
//!    file as it now is, so that each heal still open is one proposal (or
//!    abstention) of the user's store.
//! 3. Which entry stands for each heal of the job (its pattern and XPath) is
//!    kept in `mend_jobs.home_refs`, and every export rewrites the pages'
//!    citations from it: an adaptation's `id` and `store`, and the records'
//!    `_proposals` (the entries still waiting for a person).
//!
//! It refuses to cite what it could not bring home: an adaptation of a page
//! whose heal has no entry at home (a page not kept, or a heal the run at
//! home no longer found) is exported with a null `id`, never a worker's.
//! A job brought home once is not brought home again: a second export cites
//! the same entries.

use std::path::{Path, PathBuf};

use tokio_postgres::Client;

use super::BackendError;
use super::citation::{Citation, Citations};
use super::decision;
use super::job;
use crate::fetch::Page;
use crate::job::{HealCounts, PageOutput};
use crate::runtime::{Decided, DecidedHeal, Merged, merge_decided};
use crate::store::{AdaptationId, AdaptationStatus, RunId, Store};
use crate::wrapper::HealMode;

/// What bringing a job home did.
#[derive(Debug, Default)]
pub struct Homecoming {
    /// Whether an earlier export brought it home already.
    pub earlier: bool,
    /// The merge of the job's decided heals (`auto`, when any was decided).
    pub merged: Option<Merged>,
    /// The heals of the run over the kept pages, and how many pages.
    pub proposals: Option<(HealCounts, usize)>,
    /// The store the heals are in.
    pub store: PathBuf,
    /// The entries that stand for the job's heals.
    pub citations: Citations,
}

/// Brings job `id` home into the wrapper file at `wrapper_path` and the
/// store at `store_path`, once: later calls give the citations of the first.
pub async fn bring_home(
    client: &Client,
    id: i64,
    wrapper_path: &Path,
    store_path: &Path,
) -> Result<Homecoming, BackendError> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&id])
        .await?;
    let home = bring_home_locked(client, id, wrapper_path, store_path).await;
    let unlocked = client
        .execute("SELECT pg_advisory_unlock($1)", &[&id])
        .await;
    let home = home?;
    unlocked?;
    Ok(home)
}

/// `citations` as the user's store at `store_path` has them now: an entry
/// a person approved, rejected or reverted since the job came home no
/// longer waits, so that an export after the review does not list it in
/// the records' `_proposals`. Citations of another store are kept as they
/// are.
pub fn citations_now(citations: &Citations, store_path: &Path) -> Result<Citations, BackendError> {
    let mut now = citations.clone();
    if now.0.is_empty() || !store_path.is_file() {
        return Ok(now);
    }
    let store = Store::open(store_path).map_err(|e| store_error(store_path, e))?;
    let tag = store
        .tag()
        .map_err(|e| store_error(store_path, e))?
        .to_string();
    for c in now.0.iter_mut().filter(|c| c.store == tag) {
        let record = store
            .adaptation(AdaptationId(c.id))
            .map_err(|e| store_error(store_path, e))?;
        if let Some(record) = record {
            c.status = match record.is_pending() {
                true => AdaptationStatus::Proposed.as_str().to_owned(),
                false => record.state.as_str().to_owned(),
            };
        }
    }
    Ok(now)
}

/// The entries the job was brought home to, if it was.
pub async fn citations(client: &Client, id: i64) -> Result<Option<Citations>, BackendError> {
    let row = client
        // Read through the row's JSON, so that a database whose schema is
        // older than the column (`mend status` never migrates) has none.
        .query_opt(
            "SELECT to_jsonb(j) -> 'home_refs' FROM mend_jobs j WHERE id = $1",
            &[&id],
        )
        .await?
        .ok_or(BackendError::NoJob(id))?;
    let refs: Option<serde_json::Value> = row.get(0);
    Ok(refs.and_then(|r| serde_json::from_value(r).ok()))
}

async fn bring_home_locked(
    client: &Client,
    id: i64,
    wrapper_path: &Path,
    store_path: &Path,
) -> Result<Homecoming, BackendError> {
    let mut home = Homecoming {
        store: store_path.to_owned(),
        ..Homecoming::default()
    };
    if let Some(citations) = citations(client, id).await? {
        home.earlier = true;
        home.citations = citations;
        return Ok(home);
    }
    let job = job::load(client, id).await?;
    let base: Option<i64> = client
        .query_one("SELECT store_base_run FROM mend_jobs WHERE id = $1", &[&id])
        .await?
        .get(0);
    if job.heal == HealMode::Auto && job.wrapper_version > 1 {
        let merged = merge_home(&job, base, wrapper_path, store_path).await?;
        home.citations
            .0
            .extend(merged_citations(&merged, store_path)?);
        home.merged = Some(merged);
    }
    if job.heal != HealMode::Off {
        let pages = decision::kept_pages(client, id).await?;
        if !pages.is_empty() {
            let kept = pages.len();
            let (counts, outputs) = propose_home(wrapper_path, store_path, pages).await?;
            for out in &outputs {
                home.citations
                    .0
                    .extend(proposed_citations(&home.citations, out));
            }
            home.proposals = Some((counts, kept));
        }
    }
    let refs = serde_json::to_value(&home.citations).unwrap_or_default();
    client
        .execute(
            "UPDATE mend_jobs SET home_refs = $2 WHERE id = $1",
            &[&id, &refs],
        )
        .await?;
    Ok(home)
}

/// Merges the job's decided XPaths into the wrapper file, with the heals
/// the job's store image recorded after `base` (none when the job does not
/// know its base: the image's own runs cannot be told from the user's).
async fn merge_home(
    job: &job::Job,
    base: Option<i64>,
    wrapper_path: &Path,
    store_path: &Path,
) -> Result<Merged, BackendError> {
    let (wrapper_path, store_path) = (wrapper_path.to_owned(), store_path.to_owned());
    let (yaml, treegrams, image) = (
        job.wrapper_yaml.clone(),
        job.treegrams.clone(),
        job.store_image.clone(),
    );
    let by = format!("crawl job {}", job.id);
    blocking(move || {
        let heals = match (base, image) {
            (Some(base), Some(image)) => decided_heals(&image, base)?,
            _ => Vec::new(),
        };
        let mut store = Store::open(&store_path).map_err(|e| store_error(&store_path, e))?;
        let decided = Decided {
            wrapper: &yaml,
            treegrams: &treegrams,
            heals: &heals,
            by: &by,
        };
        merge_decided(&wrapper_path, &mut store, decided)
            .map_err(|e| BackendError::Home(e.to_string()))
    })
    .await
}

/// The heals a job's store image recorded as applied after run `base`.
fn decided_heals(image: &[u8], base: i64) -> Result<Vec<DecidedHeal>, BackendError> {
    let dir = super::healing::private_tempdir(super::healing::STORE_IMAGE_DIR)?;
    let path = dir.path().join("job.db");
    std::fs::write(&path, image).map_err(|source| BackendError::Io {
        path: path.clone(),
        source,
    })?;
    let store = Store::open(&path).map_err(|e| store_error(&path, e))?;
    DecidedHeal::read_all(&store, RunId(base)).map_err(|e| store_error(&path, e))
}

/// The entries a merge recorded, as citations.
fn merged_citations(merged: &Merged, store_path: &Path) -> Result<Vec<Citation>, BackendError> {
    if merged.recorded.is_empty() {
        return Ok(Vec::new());
    }
    let store = Store::open(store_path).map_err(|e| store_error(store_path, e))?;
    let tag = store.tag().map_err(|e| store_error(store_path, e))?;
    // The last entry of a pattern's steps stands for the heal the pages
    // cite when two steps found the same XPath.
    Ok(merged
        .recorded
        .iter()
        .rev()
        .map(|r| Citation {
            pattern: r.pattern.clone(),
            new_xpath: Some(r.new_xpath.clone()),
            store: tag.to_string(),
            id: r.id.0,
            status: r.status.as_str().to_owned(),
        })
        .collect())
}

/// The citations a page of the run at home adds: its adaptations that
/// have an id, each heal once.
fn proposed_citations(known: &Citations, out: &PageOutput) -> Vec<Citation> {
    let mut found: Vec<Citation> = Vec::new();
    for a in &out.adaptations {
        let (Some(pattern), Some(id), Some(store), Some(status)) = (
            a["pattern"].as_str(),
            a["id"].as_i64(),
            a["store"].as_str(),
            a["status"].as_str(),
        ) else {
            continue;
        };
        let new_xpath = a["new_xpath"].as_str();
        if known.find(pattern, new_xpath).is_some()
            || found.iter().any(|c| c.is_for(pattern, new_xpath))
        {
            continue;
        }
        found.push(Citation {
            pattern: pattern.to_owned(),
            new_xpath: new_xpath.map(str::to_owned),
            store: store.to_owned(),
            id,
            status: status.to_owned(),
        });
    }
    found
}

/// Runs the local decision in `propose` mode over the kept `pages`, with
/// the wrapper file and the store at home; gives the heals and the outputs.
async fn propose_home(
    wrapper_path: &Path,
    store_path: &Path,
    pages: Vec<Page>,
) -> Result<(HealCounts, Vec<PageOutput>), BackendError> {
    let (wrapper_path, store_path) = (wrapper_path.to_owned(), store_path.to_owned());
    blocking(move || {
        let wrapper = crate::wrapper::load_file(&wrapper_path)
            .map_err(|e| BackendError::Home(format!("{}: {e}", wrapper_path.display())))?;
        let failed = |e: String| BackendError::Home(e);
        let run = crate::runtime::run_batch(
            HealMode::Propose,
            wrapper,
            &wrapper_path,
            store_path,
            super::healing::memory(pages),
            &[],
        )
        .map_err(|e| failed(e.to_string()))?;
        match run.failure {
            Some(failure) => Err(failed(failure)),
            None => Ok((run.heals, run.outputs)),
        }
    })
    .await
}

/// Runs `work` on a blocking thread (the store and the runtime block).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, BackendError> + Send + 'static,
) -> Result<T, BackendError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| BackendError::Home(format!("the work at home stopped: {e}")))?
}

fn store_error(path: &Path, e: crate::store::StoreError) -> BackendError {
    BackendError::Home(format!("the store {}: {e}", path.display()))
}
