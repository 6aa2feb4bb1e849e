//! The store session of a run: the store opened on the first page that needs
//! it, the run begun once, and each page recorded with its adaptations in
//! one transaction.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{RunAdaptation, RuntimeError};
use crate::adapt::Rejections;
use crate::store::{AdaptationStatus, ChangeId, ChangeKind, FileChange, RunId, Store, Timestamp};
use crate::wrapper::{HealMode, Wrapper};

/// A run's connection to the store, opened lazily so that a clean run
/// writes nothing.
#[derive(Debug)]
pub struct Session {
    path: Option<PathBuf>,
    waiting: Option<Store>,
    open: Option<(Store, RunId)>,
}

impl Session {
    /// A session with the store file at `path`, opened when first needed.
    pub fn at(path: PathBuf) -> Session {
        Session {
            path: Some(path),
            waiting: None,
            open: None,
        }
    }

    /// A session with a store that is open already (one in memory, say).
    pub fn with_store(store: Store) -> Session {
        Session {
            path: None,
            waiting: Some(store),
            open: None,
        }
    }

    /// The store file, when the session has one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The store, once the run has begun in it.
    pub fn store(&self) -> Option<&Store> {
        self.open.as_ref().map(|(s, _)| s)
    }

    /// The run's id, once it has begun in the store.
    pub fn run(&self) -> Option<RunId> {
        self.open.as_ref().map(|(_, run)| *run)
    }

    /// Whether the run has begun in the store.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Opens the store and begins the run of `wrapper` (loaded from
    /// `wrapper_path`); gives the XPaths people rejected for its patterns.
    pub fn begin(
        &mut self,
        wrapper: &Wrapper,
        wrapper_path: &Path,
        mode: HealMode,
    ) -> Result<Rejections, RuntimeError> {
        let mut store = match (self.waiting.take(), &self.path) {
            (Some(store), _) => store,
            (None, Some(path)) => Store::open(path).map_err(|e| {
                RuntimeError::store(format!("cannot open the store {}", path.display()), e)
            })?,
            (None, None) => {
                return Err(RuntimeError::Io {
                    action: "open",
                    path: PathBuf::from(":memory:"),
                    error: std::io::Error::other("the store failed to open once already"),
                });
            }
        };
        let run = store
            .begin_run(&wrapper.name, wrapper_path, mode, now())
            .map_err(|e| RuntimeError::store("cannot begin the run", e))?;
        let mut rejections = Rejections::new();
        let mut failure = None;
        for path in wrapper.pattern_paths() {
            match store.rejected_xpaths(&wrapper.name, &path.to_string()) {
                Ok(xpaths) => {
                    for x in xpaths {
                        rejections.insert(path.clone(), x);
                    }
                }
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
        self.open = Some((store, run));
        match failure {
            Some(e) => Err(RuntimeError::store("cannot read rejected XPaths", e)),
            None => Ok(rejections),
        }
    }

    /// Records a page, its snapshot and its adaptations in one transaction,
    /// and gives each adaptation its id. Nothing is recorded when it fails.
    pub fn record(
        &mut self,
        page_name: &str,
        bytes: &[u8],
        adaptations: &mut [RunAdaptation],
    ) -> Result<(), RuntimeError> {
        let Some((store, run)) = &mut self.open else {
            return Ok(());
        };
        let at = now();
        let mut batch = store
            .batch()
            .map_err(|e| RuntimeError::store("cannot store the page", e))?;
        let page_id = batch
            .record_page(*run, page_name, bytes, true)
            .map_err(|e| RuntimeError::store("cannot store the page", e))?;
        let mut ids = Vec::with_capacity(adaptations.len());
        for a in adaptations.iter() {
            let id = batch
                .record_adaptation(&a.to_record(page_id, at))
                .map_err(|e| RuntimeError::store("cannot store an adaptation", e))?;
            ids.push(id);
        }
        batch
            .commit()
            .map_err(|e| RuntimeError::store("cannot store an adaptation", e))?;
        for (a, id) in adaptations.iter_mut().zip(ids) {
            a.id = Some(id);
        }
        Ok(())
    }

    /// Records a page with its adaptations, as [`Session::record`] does, and
    /// in the same transaction the change to the wrapper file at
    /// `wrapper` (canonical) that applies the adaptations whose status is
    /// applied, as pending; gives the change's id. Nothing is recorded when
    /// it fails, and the caller must then not write the files.
    pub fn record_change(
        &mut self,
        page_name: &str,
        bytes: &[u8],
        adaptations: &mut [RunAdaptation],
        wrapper: &Path,
        files: &[FileChange],
    ) -> Result<ChangeId, RuntimeError> {
        let Some((store, run)) = &mut self.open else {
            return Err(RuntimeError::Io {
                action: "record a change to",
                path: wrapper.to_owned(),
                error: std::io::Error::other("the store is not open"),
            });
        };
        let at = now();
        let failed = |e| RuntimeError::store("cannot record the change to the wrapper", e);
        let mut batch = store.batch().map_err(failed)?;
        let page_id = batch
            .record_page(*run, page_name, bytes, true)
            .map_err(failed)?;
        let change = batch
            .begin_change(wrapper, ChangeKind::Heal, files, at)
            .map_err(failed)?;
        let mut ids = Vec::with_capacity(adaptations.len());
        for a in adaptations.iter() {
            let id = batch
                .record_adaptation(&a.to_record(page_id, at))
                .map_err(failed)?;
            if a.status == AdaptationStatus::Applied {
                batch.apply_in_change(id, change).map_err(failed)?;
            }
            ids.push(id);
        }
        batch.commit().map_err(failed)?;
        for (a, id) in adaptations.iter_mut().zip(ids) {
            a.id = Some(id);
        }
        Ok(change)
    }

    /// The store, once the run has begun in it, for a change to go through.
    pub fn store_mut(&mut self) -> Option<&mut Store> {
        self.open.as_mut().map(|(s, _)| s)
    }

    /// Records the end of the run, if it began.
    pub fn finish(&mut self, pages: u64, violations: u64) -> Result<(), RuntimeError> {
        if let Some((store, run)) = &mut self.open {
            store
                .finish_run(*run, now(), pages, violations)
                .map_err(|e| RuntimeError::store("cannot record the end of the run", e))?;
        }
        Ok(())
    }
}

fn now() -> Timestamp {
    Timestamp::from(SystemTime::now())
}
