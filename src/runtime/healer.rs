//! The per-page decision of a run that heals: which adaptations a page
//! gets, what the mode makes of them, the wrapper file rewritten in `auto`
//! mode, and the page's record in the store.

use std::path::Path;

use super::{Project, RunAdaptation, RuntimeError, Session, load_treegrams, write_atomically};
use super::{capture_treegrams, save_treegrams};
use crate::adapt::{self, Rejections, Search, TreeGrams};
use crate::dom::Document;
use crate::extract::Extraction;
use crate::fetch;
use crate::job::{Healer, PageOutput, RunOptions, shape};
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
    failure: Option<RuntimeError>,
}

impl Runtime {
    /// A runtime for `wrapper`, loaded from `wrapper_path`; its tree-grams
    /// are read now (unless the mode is `off`), the store when first needed.
    /// A tree-gram file that mend will not read is an error.
    pub fn new(
        mode: HealMode,
        wrapper: Wrapper,
        wrapper_path: &Path,
        session: Session,
        options: RunOptions,
    ) -> Result<Runtime, RuntimeError> {
        let project = Project::of(wrapper_path);
        let grams = if mode == HealMode::Off {
            TreeGrams::new()
        } else {
            load_treegrams(&project, &wrapper)?
        };
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
        tracing::warn!(error = %e, "healing without the store");
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
            Err(e) => self.fail(e),
        }
    }

    /// Applies healed XPaths to the wrapper file, in order; returns the
    /// patterns whose rewrite was refused, with why.
    fn rewrite_file(&mut self, healed: &[(&PatternPath, &str)]) -> Vec<(PatternPath, String)> {
        let mut text = match self.project.read_wrapper() {
            Ok(t) => t,
            Err(e) => {
                self.fail(e);
                return healed
                    .iter()
                    .map(|(p, _)| {
                        (
                            (*p).clone(),
                            "the wrapper file could not be read".to_owned(),
                        )
                    })
                    .collect();
            }
        };
        let mut refused = Vec::new();
        for (path, new) in healed {
            let names: Vec<&str> = path.names().iter().map(String::as_str).collect();
            match wrapper::replace_xpath(&text, &names, new) {
                Ok(t) => text = t,
                Err(e) => refused.push(((*path).clone(), e.to_string())),
            }
        }
        if let Err(e) = write_atomically(&self.project.wrapper_path, &text) {
            self.fail(e);
        }
        refused
    }

    /// Refreshes the tree-grams of `paths` from the page, after an
    /// automatic rewrite, in the files and in memory.
    fn refresh_treegrams(
        &mut self,
        healed: &Wrapper,
        doc: &Document,
        page: &fetch::Page,
        paths: &[PatternPath],
    ) {
        let url = page.url.as_ref().map(|u| u.to_string());
        let (captured, _) =
            capture_treegrams(healed, doc, &page.bytes, url.as_deref(), Some(paths));
        if let Err(e) = save_treegrams(&self.project, captured, &mut self.grams) {
            self.fail(e);
        }
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
        let healed: Vec<(&PatternPath, &str)> = healing
            .adaptations
            .iter()
            .filter(|a| a.is_healed())
            .filter_map(|a| Some((&a.pattern, a.new_xpath.as_deref()?)))
            .collect();
        let refused = if auto && !healed.is_empty() {
            self.rewrite_file(&healed)
        } else {
            Vec::new()
        };
        let mut decided: Vec<RunAdaptation> = healing
            .adaptations
            .into_iter()
            .map(|a| {
                let refusal = refused
                    .iter()
                    .find(|(p, _)| *p == a.pattern)
                    .map(|(_, why)| why.clone());
                RunAdaptation::decide(a, auto, refusal)
            })
            .collect();
        if let Err(e) = self.session.record(&page.name, &page.bytes, &mut decided) {
            self.fail(e);
        }

        let applied: Vec<PatternPath> = decided
            .iter()
            .filter(|a| a.status == crate::store::AdaptationStatus::Applied)
            .map(|a| a.adaptation.pattern.clone())
            .collect();
        if auto && !applied.is_empty() {
            if self.wrapper.adapt.update_treegrams {
                self.refresh_treegrams(&healing.wrapper, doc, page, &applied);
            }
            self.wrapper = healing.wrapper;
            self.revision += 1;
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
