//! The per-page decision of a run that heals: which adaptations a page
//! gets, what the mode makes of them, the wrapper file rewritten in `auto`
//! mode, and the page's record in the store.

use std::path::Path;

use super::{Carried, Project, RunAdaptation, RuntimeError, Session, WrapperLock};
use super::{Planned, capture_treegrams, carry_out, load_treegrams, plan_treegrams, reconcile};
use crate::adapt::{self, Rejections, Search, TreeGrams};
use crate::dom::Document;
use crate::extract::Extraction;
use crate::fetch;
use crate::job::{Healer, PageOutput, RunOptions, shape};
use crate::store::FileChange;
use crate::wrapper::{self, HealMode, PatternPath, Wrapper};

/// A run of one wrapper with healing: the wrapper as the run's heals have
/// left it, its tree-grams in memory, and the store session.
#[derive(Debug)]
pub struct Runtime {
    mode: HealMode,
    wrapper: Wrapper,
    project: Project,
    session: Session,
    grams: TreeGrams,
    rejections: Rejections,
    options: RunOptions,
    pages: u64,
    violations: u64,
    revision: u64,
    /// The wrapper file's text as this run's last change left it; a file
    /// that holds anything else was changed by another process since.
    known_text: Option<String>,
    failure: Option<RuntimeError>,
}

impl Runtime {
    /// A runtime for `wrapper`, loaded from `wrapper_path`; its tree-grams
    /// are read now (in every mode: drift is checked in every mode), the store when first needed.
    /// A tree-gram file that mend will not read is an error.
    pub fn new(
        mode: HealMode,
        wrapper: Wrapper,
        wrapper_path: &Path,
        session: Session,
        options: RunOptions,
    ) -> Result<Runtime, RuntimeError> {
        let project = Project::of(wrapper_path);
        // Every mode checks drift against the tree-grams, `off` included.
        let grams = load_treegrams(&project, &wrapper)?;
        Ok(Runtime {
            mode,
            wrapper,
            project,
            session,
            grams,
            rejections: Rejections::new(),
            options,
            pages: 0,
            violations: 0,
            revision: 0,
            known_text: None,
            failure: None,
        })
    }

    /// The first failure of the store or of a file write. The run went on
    /// without what failed; the caller reports it.
    pub fn failure(&self) -> Option<&RuntimeError> {
        self.failure.as_ref()
    }

    /// The store session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Records the end of the run in the store, if it was opened.
    pub fn finish(&mut self) {
        if let Err(e) = self.session.finish(self.pages, self.violations) {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: RuntimeError) {
        tracing::warn!(error = %e, "the run goes on without what failed");
        if self.failure.is_none() {
            self.failure = Some(e);
        }
    }

    /// Opens the store and begins the run, once; reads the rejected XPaths.
    fn open_store(&mut self) {
        if self.session.is_open() || self.failure.is_some() {
            return;
        }
        match self
            .session
            .begin(&self.wrapper, &self.project.wrapper_path, self.mode)
        {
            Ok(rejections) => self.rejections = rejections,
            Err(e) => return self.fail(e),
        }
        // A change that an earlier process left unfinished is settled before
        // this run adds to the history. The lock is taken only when there is
        // one, so that a run that changes nothing writes nothing beside the
        // wrapper (which may sit in a read-only folder).
        let Ok(canonical) = self.project.wrapper_path.canonicalize() else {
            return;
        };
        let store = self.session.store_mut().expect("the run has begun");
        let unfinished = store
            .pending_changes(Some(&canonical))
            .map(|p| !p.is_empty())
            .unwrap_or(true);
        if unfinished {
            let reconciled =
                WrapperLock::acquire(&canonical).and_then(|lock| reconcile(store, &lock));
            if let Err(e) = reconciled {
                self.fail(e);
            }
        }
    }

    /// Applies the page's applied adaptations to the wrapper file through
    /// the wrapper-change protocol (`change.rs`), recording the page with
    /// them; gives the wrapper the run goes on with when it changed. An
    /// adaptation the file could not take becomes a proposal, with why.
    fn apply(
        &mut self,
        page: &fetch::Page,
        doc: &Document,
        healed: Wrapper,
        decided: &mut [RunAdaptation],
    ) -> Option<Wrapper> {
        match self.try_apply(page, doc, healed, decided) {
            Ok(next) => next,
            Err((e, recorded)) => {
                for a in decided.iter_mut() {
                    a.not_applied(&e.to_string());
                }
                if !recorded && let Err(s) = self.session.record(&page.name, &page.bytes, decided) {
                    self.fail(s);
                }
                self.fail(e);
                None
            }
        }
    }

    /// [`Runtime::apply`]; the error says whether the page was recorded.
    fn try_apply(
        &mut self,
        page: &fetch::Page,
        doc: &Document,
        healed: Wrapper,
        decided: &mut [RunAdaptation],
    ) -> Result<Option<Wrapper>, (RuntimeError, bool)> {
        let unrecorded = |e| (e, false);
        if !self.session.is_open() {
            return Err(unrecorded(RuntimeError::Io {
                action: "record a change to",
                path: self.project.wrapper_path.clone(),
                error: std::io::Error::other("the store is not open"),
            }));
        }
        let lock = WrapperLock::acquire(&self.project.wrapper_path).map_err(unrecorded)?;
        let store = self.session.store_mut().expect("the store is open");
        reconcile(store, &lock).map_err(unrecorded)?;
        let wrapper_path = lock.wrapper().to_owned();
        let name = self.project.wrapper_path.display().to_string();
        let before = self.project.read_wrapper().map_err(unrecorded)?;
        // Under the lock, the file is what every other process left it. If
        // it is not what this run last wrote, another process changed it:
        // heals are merged into what it holds now, pattern by pattern.
        let moved = self.known_text.as_deref() != Some(before.as_str());
        let path = self.project.wrapper_path.clone();
        let load = |text: &str| {
            wrapper::load_str(text, &name).map_err(|d| {
                unrecorded(RuntimeError::Load {
                    path: path.clone(),
                    message: wrapper::render_all(&d),
                })
            })
        };
        let current = if moved {
            load(&before)?
        } else {
            self.wrapper.clone()
        };
        let mut text = before.clone();
        let mut edited = false;
        let meant = decided.iter().filter(|a| a.is_applied()).count();
        for a in decided.iter_mut().filter(|a| a.is_applied()) {
            let pattern = a.adaptation.pattern.clone();
            let new = a.adaptation.new_xpath.clone().unwrap_or_default();
            let now = current
                .pattern(&pattern)
                .map(|p| p.xpath.source().to_owned());
            match now {
                // Another process wrote the same XPath already.
                Some(x) if x == new => {}
                Some(x) if x == a.adaptation.old_xpath => {
                    let names: Vec<&str> = pattern.names().iter().map(String::as_str).collect();
                    match wrapper::replace_xpath(&text, &names, &new) {
                        Ok(t) => {
                            text = t;
                            edited = true;
                        }
                        Err(e) => {
                            a.not_applied(&format!("the wrapper file could not be rewritten: {e}"))
                        }
                    }
                }
                Some(x) => a.not_applied(&format!(
                    "the wrapper file changed during the run: {pattern} now has the XPath {x}"
                )),
                None => a.not_applied("the wrapper file no longer has this pattern"),
            }
        }
        let applied: Vec<PatternPath> = decided
            .iter()
            .filter(|a| a.is_applied())
            .map(|a| a.adaptation.pattern.clone())
            .collect();
        let refused = applied.len() < meant;
        // The run goes on with what the file will hold: the healed wrapper,
        // unless the file moved or refused a heal, when it is read back.
        let next = if moved || refused {
            load(&text)?
        } else {
            healed
        };
        let mut planned = Planned::default();
        if next.adapt.update_treegrams && !applied.is_empty() {
            let url = page.url.as_ref().map(|u| u.to_string());
            let (captured, _) =
                capture_treegrams(&next, doc, &page.bytes, url.as_deref(), Some(&applied));
            planned = plan_treegrams(&self.project, &mut text, captured).map_err(unrecorded)?;
        }
        let Planned {
            mut files, grams, ..
        } = planned;
        if !edited && files.is_empty() {
            // Nothing to write: the file holds every applied XPath already.
            self.session
                .record(&page.name, &page.bytes, decided)
                .map_err(unrecorded)?;
            self.known_text = Some(before);
            return Ok(Some(next));
        }
        files.push(FileChange {
            path: wrapper_path.clone(),
            before: Some(before.into_bytes()),
            after: text.clone().into_bytes(),
        });
        let change = self
            .session
            .record_change(&page.name, &page.bytes, decided, &wrapper_path, &files)
            .map_err(unrecorded)?;
        let store = self.session.store_mut().expect("the store is open");
        match carry_out(store, &lock, change, &files) {
            Ok(Carried::Done) => {}
            Ok(Carried::Unmarked(e)) => self.fail(e),
            Err(e) => return Err((e, true)),
        }
        drop(lock);
        self.known_text = Some(text);
        for (pattern, g) in grams {
            self.grams.insert(pattern, g);
        }
        Ok(Some(next))
    }
}

impl Healer for Runtime {
    fn wrapper(&self) -> &Wrapper {
        &self.wrapper
    }

    fn revision(&self) -> u64 {
        self.revision
    }

    fn enabled(&self) -> bool {
        self.mode != HealMode::Off
    }

    fn grams(&self) -> &TreeGrams {
        &self.grams
    }

    fn heal(&mut self, page: &fetch::Page, doc: &Document, extraction: Extraction) -> PageOutput {
        self.pages += 1;
        self.open_store();
        let before = extraction.violations.len() as u64;
        let healing = adapt::heal_extracted(
            &self.wrapper,
            doc,
            page.url.as_ref(),
            extraction,
            &self.grams,
            &self.rejections,
            &Search::default(),
        );
        if healing.adaptations.is_empty() {
            self.violations += before;
            return PageOutput {
                page: page.name.clone(),
                records: shape(healing.extraction.record, &self.options),
                violations: healing.extraction.violations,
                adaptations: Vec::new(),
                error: None,
            };
        }
        let auto = self.mode == HealMode::Auto;
        let mut decided: Vec<RunAdaptation> = healing
            .adaptations
            .into_iter()
            .map(|a| RunAdaptation::decide(a, auto))
            .collect();
        if decided.iter().any(RunAdaptation::is_applied) {
            if let Some(next) = self.apply(page, doc, healing.wrapper, &mut decided) {
                self.wrapper = next;
                self.revision += 1;
            }
        } else if let Err(e) = self.session.record(&page.name, &page.bytes, &mut decided) {
            self.fail(e);
        }

        let mut records = shape(healing.extraction.record, &self.options);
        let proposals: Vec<serde_json::Value> = decided
            .iter()
            .filter(|a| a.status == crate::store::AdaptationStatus::Proposed)
            .filter_map(|a| a.id.map(|id| serde_json::Value::from(id.0)))
            .collect();
        if !proposals.is_empty() {
            for r in &mut records {
                if let serde_json::Value::Object(o) = r {
                    o.insert(
                        "_proposals".to_owned(),
                        serde_json::Value::Array(proposals.clone()),
                    );
                }
            }
        }
        self.violations += healing.extraction.violations.len() as u64;
        PageOutput {
            page: page.name.clone(),
            records,
            violations: healing.extraction.violations,
            adaptations: decided.iter().map(RunAdaptation::to_json).collect(),
            error: None,
        }
    }
}
