//! The store session of a run: the store opened on the first page that needs
//! it, the run begun once, and each page recorded with its adaptations in
//! one transaction.
//!
//! ## What it refuses
//!
//! A run that never needs the store opens none and writes nothing. A store
//! given open is taken by the first `begin`: if that fails, a later one is
//! refused. Recording a change with no open store is an error, and recording
//! entries is all or nothing: on a failure nothing is kept, and the caller
//! must not write the files. An entry with no page is not recorded. When the
//! pages of earlier proposals cannot be read, none count, so a heal waits
//! longer, never less.

use std::path::{Path, PathBuf};

use super::RuntimeError;
use super::clock::now;
use super::ledger::Ledger;
use crate::adapt::Rejections;
use crate::store::{
    AdaptationStatus, ChangeId, ChangeKind, FileChange, PageId, RunId, Store, StoreTag,
};
use crate::wrapper::{HealMode, Wrapper};

/// A run's connection to the store, opened lazily so that a clean run
/// writes nothing.
#[derive(Debug)]
pub struct Session {
    path: Option<PathBuf>,
    waiting: Option<Store>,
    open: Option<(Store, RunId)>,
    /// The store's tag, once the run has begun.
    tag: Option<StoreTag>,
    /// The wrapper's name and canonical path, once the run has begun.
    wrapper: Option<(String, Option<PathBuf>)>,
}

impl Session {
    /// A session with the store file at `path`, opened when first needed.
    pub fn at(path: PathBuf) -> Session {
        Session {
            path: Some(path),
            waiting: None,
            open: None,
            tag: None,
            wrapper: None,
        }
    }

    /// A session with a store that is open already (one in memory, say).
    pub fn with_store(store: Store) -> Session {
        Session {
            path: None,
            waiting: Some(store),
            open: None,
            tag: None,
            wrapper: None,
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

    /// The store's tag, once the run has begun in it.
    pub fn tag(&self) -> Option<&StoreTag> {
        self.tag.as_ref()
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
        let tag = store
            .tag()
            .map_err(|e| RuntimeError::store("cannot read the store's tag", e))?;
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
        self.tag = Some(tag);
        self.wrapper = Some((
            wrapper.name.clone(),
            std::fs::canonicalize(wrapper_path).ok(),
        ));
        match failure {
            Some(e) => Err(RuntimeError::store("cannot read rejected XPaths", e)),
            None => Ok(rejections),
        }
    }

    /// Records the run's entries in one transaction: every page they stand
    /// for (with a snapshot of the first few of each), the pages served by
    /// history XPaths, each entry once with its pages, a proposal that waits
    /// already in the store (from an earlier run) taking the new pages
    /// instead of a twin, and, when `change` is given, the change to the
    /// wrapper file at its path (canonical) that applies the applied
    /// entries, as pending. Gives each entry its id and the change its id.
    /// Nothing is recorded when it fails, and the caller must then not
    /// write the files.
    pub fn record_entries(
        &mut self,
        ledger: &mut Ledger,
        change: Option<(&Path, &[FileChange])>,
    ) -> Result<Option<ChangeId>, RuntimeError> {
        let (Some((store, run)), Some((name, canonical))) = (&mut self.open, &self.wrapper) else {
            return match change {
                Some((wrapper, _)) => Err(RuntimeError::Io {
                    action: "record a change to",
                    path: wrapper.to_owned(),
                    error: std::io::Error::other("the store is not open"),
                }),
                None => Ok(None),
            };
        };
        let at = now();
        let failed = |e| RuntimeError::store("cannot store the run's adaptations", e);
        let mut batch = store.batch().map_err(failed)?;
        let mut page_ids = Vec::with_capacity(ledger.pages.len());
        for p in &ledger.pages {
            let id = match (&p.snapshot, &p.bytes) {
                (Some(snapshot), _) => batch.record_snapshot_page(*run, &p.name, snapshot),
                (None, Some(bytes)) => batch.record_page(*run, &p.name, bytes, true),
                (None, None) => batch.record_page_hash(*run, &p.name, &p.sha256, p.size),
            }
            .map_err(failed)?;
            page_ids.push(id);
        }
        for ((pattern, xpath), pages) in &ledger.fallbacks {
            batch
                .record_fallback(*run, pattern, xpath, *pages)
                .map_err(failed)?;
        }
        let change = match change {
            Some((wrapper, files)) => Some(
                batch
                    .begin_change(wrapper, ChangeKind::Heal, files, at)
                    .map_err(failed)?,
            ),
            None => None,
        };
        let mut ids = Vec::with_capacity(ledger.entries.len());
        for entry in &ledger.entries {
            let pages: Vec<PageId> = entry.pages.iter().map(|&t| page_ids[t]).collect();
            let Some(&first) = pages.first() else {
                ids.push(None);
                continue;
            };
            let a = &entry.run;
            let twin = match (&a.adaptation.new_xpath, a.status) {
                (Some(new), AdaptationStatus::Proposed | AdaptationStatus::Applied) => batch
                    .pending_twin(
                        name,
                        canonical.as_deref(),
                        &a.adaptation.pattern.to_string(),
                        &a.adaptation.old_xpath,
                        new,
                    )
                    .map_err(failed)?,
                _ => None,
            };
            // A heal applied now that earlier runs proposed is that
            // proposal, decided: one entry for every page it held on.
            if let (Some(id), AdaptationStatus::Applied) = (twin, a.status) {
                batch
                    .promote_to_applied(id, a.reason.as_deref())
                    .map_err(failed)?;
            }
            let id = match twin {
                Some(id) => id,
                None => batch
                    .record_adaptation(&a.to_record(first, at))
                    .map_err(failed)?,
            };
            batch.add_pages(id, &pages).map_err(failed)?;
            if let (AdaptationStatus::Applied, Some(change)) = (a.status, change) {
                batch.apply_in_change(id, change).map_err(failed)?;
            }
            ids.push(Some(id));
        }
        batch.commit().map_err(failed)?;
        for (entry, id) in ledger.entries.iter_mut().zip(ids) {
            entry.run.id = id;
            entry.run.store.clone_from(&self.tag);
        }
        Ok(change)
    }

    /// The pages, by content, that earlier runs found the heal `a` on and
    /// that wait as its proposal in the store: none when the run has not
    /// begun in the store or it cannot be read (then only this run's pages
    /// count, and a heal waits longer, never less).
    pub fn earlier_pages(&self, a: &crate::adapt::Adaptation) -> Vec<String> {
        let (Some((store, _)), Some((name, canonical)), Some(new)) =
            (&self.open, &self.wrapper, &a.new_xpath)
        else {
            return Vec::new();
        };
        store
            .pending_pages(
                name,
                canonical.as_deref(),
                &a.pattern.to_string(),
                &a.old_xpath,
                new,
            )
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "the pages of earlier proposals could not be read");
                Vec::new()
            })
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
