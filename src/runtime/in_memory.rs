//! A batch of pages already in memory, run through a fresh [`Runtime`]:
//! how a crawl heals each batch it fetched, how a worker of the PostgreSQL
//! backend heals its pages, and how the backend's home proposes what the
//! workers kept. `mend run` streams its pages instead and drives the
//! runtime itself.
//!
//! It refuses nothing a runtime accepts: a runtime that cannot start (a
//! tree-gram file mend will not read) is the caller's error, and a store or
//! file failure during the run is reported beside the outputs, as the
//! runtime goes on without what failed.

use std::path::{Path, PathBuf};

use super::{Runtime, RuntimeError, Session};
use crate::fetch::PageSource;
use crate::job::{self, HealCounts, PageOutput, RunOptions};
use crate::wrapper::{HealMode, PatternPath, Wrapper};

/// What a batch gave.
#[derive(Debug, Default)]
pub struct BatchRun {
    /// Each page's output, in the order the pages were given.
    pub outputs: Vec<PageOutput>,
    /// The heals the run applied, proposed and abstained from.
    pub heals: HealCounts,
    /// The first store or file failure, if any: the run went on without it.
    pub failure: Option<String>,
}

/// Runs the pages of `sources` (in memory, parsed or not) on the current rayon pool through a runtime for `wrapper`
/// (loaded from `wrapper_path`) in `mode`, with the store at `store`, default
/// run options, and `pending` offered first ([`Runtime::offer_pending`]):
/// heals another process of the same job found and not yet decided.
///
/// With healing off, the pages are only extracted: no runtime starts, and
/// neither the store nor the wrapper file is read.
pub fn run_batch(
    mode: HealMode,
    wrapper: Wrapper,
    wrapper_path: &Path,
    store: PathBuf,
    sources: Vec<PageSource>,
    pending: &[(PatternPath, String)],
) -> Result<BatchRun, RuntimeError> {
    if mode == HealMode::Off {
        let mut outputs = Vec::with_capacity(sources.len());
        let summary = job::run_pages(&wrapper, &sources, &RunOptions::default(), |o| {
            outputs.push(o);
        });
        return Ok(BatchRun {
            outputs,
            heals: summary.heals,
            failure: None,
        });
    }
    let mut runtime = Runtime::new(
        mode,
        wrapper,
        wrapper_path,
        Session::at(store),
        RunOptions::default(),
    )?;
    runtime.offer_pending(pending);
    let mut outputs = Vec::with_capacity(sources.len());
    let summary = runtime.run(&sources, |o| outputs.push(o));
    Ok(BatchRun {
        outputs,
        heals: summary.heals,
        failure: runtime.failure().map(ToString::to_string),
    })
}
