//! `mend.Job`: a run of one wrapper over pages given one at a time, as
//! `mend run` runs over many files. A broken page is healed at once (its
//! records are the healed ones, and the pages after it use the heal), but
//! each heal is decided once, for the whole job, at `finish()`: the
//! wrapper file rewritten in `auto` mode, a proposal stored in `propose`
//! mode, for `mend log`, `show`, `approve` and `review`. When the job
//! leaves something for a person and the wrapper names `adapt.notify`, its
//! notice is sent at `finish()` as `mend run` sends it.
//!
//! It refuses a page after `finish()` (`JobError`), and gives each page's
//! output at once: the adaptations of a page are not completed with what
//! `finish()` decided, which the store holds.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use mend::fetch::Notice;
use mend::job::{Healer, HealthObserver, PageStream, RunOptions, Withhold};
use mend::runtime::{Runtime, Session, judge_runtime_health};
use mend::store::{Store, Timestamp};
use mend::wrapper::HealMode;

use super::{Page, Wrapper, fetched_page};

create_exception!(
    _mend,
    JobError,
    PyException,
    "A job that cannot go on: its wrapper's tree-grams could not be read, or it is finished."
);

/// The environment variable naming the store, as for the command line.
const STORE_ENV: &str = "MEND_STORE";

/// A healing run over pages given one at a time.
#[pyclass(frozen, module = "mend")]
pub struct Job {
    running: Mutex<Option<Running>>,
}

/// A job before `finish()`.
struct Running {
    runtime: Runtime,
    stream: PageStream,
    health: HealthObserver,
    started: Timestamp,
}

#[pymethods]
impl Job {
    /// A job of `wrapper`; `heal` is "off", "propose" or "auto" (the
    /// wrapper's `adapt.mode` when not given), `store` the store's path
    /// (`$MEND_STORE`, or `.mend/store.db` beside the wrapper, when not).
    #[new]
    #[pyo3(signature = (wrapper, heal = None, store = None))]
    fn new(
        py: Python<'_>,
        wrapper: &Wrapper,
        heal: Option<&str>,
        store: Option<PathBuf>,
    ) -> PyResult<Self> {
        let mode = match heal {
            None => wrapper.inner.adapt.mode,
            Some(name) => name.parse::<HealMode>().map_err(|_| {
                PyValueError::new_err(format!(
                    "heal must be \"off\", \"propose\" or \"auto\", not {name:?}"
                ))
            })?,
        };
        let store = store
            .or_else(|| {
                std::env::var_os(STORE_ENV)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
            .unwrap_or_else(|| Store::default_path(&wrapper.path));
        let options = RunOptions::default();
        let (inner, path) = ((*wrapper.inner).clone(), wrapper.path.clone());
        let running = py.allow_threads(move || {
            let health = HealthObserver::new(&inner, &options);
            let runtime = Runtime::new(mode, inner, &path, Session::at(store), options.clone())?;
            let stream = PageStream::new(&runtime, options, Withhold::Nothing);
            Ok::<_, mend::runtime::RuntimeError>(Running {
                runtime,
                stream,
                health,
                started: mend::runtime::now(),
            })
        });
        let running = running.map_err(|e| JobError::new_err(e.to_string()))?;
        Ok(Job {
            running: Mutex::new(Some(running)),
        })
    }

    /// Extracts one page (`str`, or `bytes` decoded as `encoding` says or
    /// else as the page declares), whose relative links resolve against
    /// `url`, healing what broke; gives its `Page`.
    #[pyo3(signature = (html, url = None, encoding = None))]
    fn page(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<&str>,
        encoding: Option<&str>,
    ) -> PyResult<Page> {
        let page = fetched_page(html, url, encoding)?;
        let out = py.allow_threads(|| {
            let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
            let running = guard.as_mut()?;
            let out = running.stream.page(&mut running.runtime, page)?;
            running.health.observe(&out);
            Some(out)
        });
        match out {
            Some(out) => Page::of(py, &out),
            None => Err(JobError::new_err("the job is finished")),
        }
    }

    /// Decides the job's heals, once each, records the run and its field
    /// health in the store, and gives the job's `JobSummary`. A second call
    /// raises `JobError`.
    fn finish(&self, py: Python<'_>) -> PyResult<JobSummary> {
        let running = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| JobError::new_err("the job is finished"))?;
        let finished = py.allow_threads(move || Finished::of(running));
        finished.into_py(py)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Leaving a `with` block finishes the job if it is not finished.
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: PyObject,
        _value: PyObject,
        _traceback: PyObject,
    ) -> PyResult<bool> {
        let running = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        if running {
            self.finish(py)?;
        }
        Ok(false)
    }
}

/// What a finished job came to.
#[pyclass(frozen, module = "mend", get_all)]
pub struct JobSummary {
    /// Pages given to the job.
    pages: usize,
    /// Records they gave.
    records: usize,
    /// Violations over all pages.
    violations: usize,
    /// Pages with at least one violation.
    violated_pages: usize,
    /// Pages whose selections had drifted from their tree-grams.
    drifted_pages: usize,
    /// Changes written to the wrapper file.
    applied: usize,
    /// Proposals stored for a person.
    proposed: usize,
    /// Patterns left broken because no candidate was good enough.
    abstained: usize,
    /// Each pattern's share of items with a value, by pattern path.
    field_coverage: PyObject,
    /// The field health drops, in words.
    health_drops: Vec<String>,
    /// The store written to, when the job opened it.
    store: Option<String>,
    /// The first failure of the store or of a file write, in words.
    failure: Option<String>,
    /// Why the wrapper's `adapt.notify` notice was not delivered, when one
    /// was due and was not.
    notice_failure: Option<String>,
}

#[pymethods]
impl JobSummary {
    fn __repr__(&self) -> String {
        format!(
            "<mend.JobSummary: {} pages, {} violations, {} applied, {} proposed>",
            self.pages, self.violations, self.applied, self.proposed
        )
    }
}

/// Sends the wrapper's `adapt.notify` notice, as `mend run` sends it, when
/// the job left something for a person; gives why it was not delivered.
fn send_notice(
    runtime: &Runtime,
    summary: &mend::job::Summary,
    health_drops: &[String],
    store: &Option<String>,
) -> Option<String> {
    let wrapper = runtime.wrapper();
    let url = wrapper.adapt.notify.as_ref()?;
    let notice = Notice {
        source: "mend.Job".to_owned(),
        wrapper: wrapper.name.clone(),
        wrapper_file: runtime.wrapper_path().display().to_string(),
        pages: summary.pages,
        violations: summary.violations,
        violated_pages: summary.violated_pages,
        proposals: summary.heals.proposed,
        applied: summary.heals.applied,
        health_drops: health_drops.len(),
        proposal_ids: runtime.proposal_ids(),
        store: store.clone(),
    };
    if !notice.is_due() {
        return None;
    }
    mend::fetch::notify(url, &notice)
        .err()
        .map(|e| e.to_string())
}

/// A finished job's summary, before it becomes Python objects.
struct Finished {
    summary: mend::job::Summary,
    coverage: Vec<(String, f64)>,
    health_drops: Vec<String>,
    store: Option<String>,
    failure: Option<String>,
    notice_failure: Option<String>,
}

impl Finished {
    fn of(mut running: Running) -> Finished {
        let (summary, _) = running.stream.finish(&mut running.runtime);
        running.runtime.finish();
        let judged =
            judge_runtime_health(&running.runtime, &summary, &running.health, running.started);
        let (health_drops, health_failure) = match judged {
            Ok(Some(health)) => (
                health
                    .judgement
                    .drops
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                None,
            ),
            Ok(None) => (Vec::new(), None),
            Err(e) => (Vec::new(), Some(format!("cannot record field health: {e}"))),
        };
        let coverage = running
            .health
            .stats()
            .iter()
            .filter(|s| s.items > 0)
            .map(|s| (s.pattern.to_string(), s.filled as f64 / s.items as f64))
            .collect();
        let session = running.runtime.session();
        let store = session
            .is_open()
            .then(|| session.path().map(|p| p.display().to_string()))
            .flatten();
        let notice_failure = send_notice(&running.runtime, &summary, &health_drops, &store);
        Finished {
            summary,
            coverage,
            health_drops,
            store,
            notice_failure,
            failure: running
                .runtime
                .failure()
                .map(ToString::to_string)
                .or(health_failure),
        }
    }

    fn into_py(self, py: Python<'_>) -> PyResult<JobSummary> {
        let coverage = PyDict::new(py);
        for (pattern, share) in self.coverage {
            coverage.set_item(pattern, share)?;
        }
        let s = self.summary;
        Ok(JobSummary {
            pages: s.pages,
            records: s.records,
            violations: s.violations,
            violated_pages: s.violated_pages,
            drifted_pages: s.drifted_pages,
            applied: s.heals.applied,
            proposed: s.heals.proposed,
            abstained: s.heals.abstained,
            field_coverage: coverage.into_any().unbind(),
            health_drops: self.health_drops,
            store: self.store,
            failure: self.failure,
            notice_failure: self.notice_failure,
        })
    }
}
