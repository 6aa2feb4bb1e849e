//! Healing during `mend run`: adapt pages whose constraints fail, keep every
//! adaptation in the store, and in `auto` mode rewrite the wrapper file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{Value, json};

use super::snapshot::{load_treegrams, write_atomically, write_treegrams};
use mend::adapt::{self, Adaptation, Outcome, Rejections, TreeGrams};
use mend::dom::Document;
use mend::fetch;
use mend::job::{Healer, PageOutput, RunOptions, shape};
use mend::store::{
    AdaptationStatus, Candidate, ConstraintResult, NewAdaptation, RunId, Store, Timestamp,
};
use mend::wrapper::{self, HealMode, Pattern, Wrapper};

/// The healer of a `mend run` with `--heal propose` or `--heal auto`.
pub struct CliHealer {
    mode: HealMode,
    wrapper: Wrapper,
    wrapper_path: PathBuf,
    store_path: PathBuf,
    store: Option<(Store, RunId)>,
    grams: TreeGrams,
    rejections: Rejections,
    options: RunOptions,
    pages: u64,
    violations: u64,
    revision: u64,
    /// The first failure of the store or of a file write; the run goes on
    /// without it and exits with the I/O failure code.
    pub failure: Option<anyhow::Error>,
}

impl CliHealer {
    /// A healer for `wrapper`, loaded from `wrapper_path`; the store opens on
    /// the first page that needs it.
    pub fn new(
        mode: HealMode,
        wrapper: Wrapper,
        wrapper_path: &Path,
        store_path: PathBuf,
        options: RunOptions,
    ) -> CliHealer {
        let grams = if mode == HealMode::Off {
            TreeGrams::new()
        } else {
            load_treegrams(wrapper_path, &wrapper)
        };
        CliHealer {
            mode,
            wrapper,
            wrapper_path: wrapper_path.to_owned(),
            store_path,
            store: None,
            grams,
            rejections: Rejections::new(),
            options,
            pages: 0,
            violations: 0,
            revision: 0,
            failure: None,
        }
    }

    /// Records the end of the run in the store, if it was opened.
    pub fn finish(&mut self) {
        if let Some((store, run)) = &mut self.store
            && let Err(e) = store.finish_run(*run, now(), self.pages, self.violations)
        {
            self.fail(anyhow::Error::new(e).context("cannot record the end of the run"));
        }
    }

    fn fail(&mut self, e: anyhow::Error) {
        tracing::warn!(error = %e, "healing without the store");
        if self.failure.is_none() {
            self.failure = Some(e);
        }
    }

    /// Opens the store and begins the run, once; reads the rejected XPaths.
    fn open_store(&mut self) {
        if self.store.is_some() || self.failure.is_some() {
            return;
        }
        let opened = Store::open(&self.store_path).and_then(|mut store| {
            let run = store.begin_run(&self.wrapper.name, &self.wrapper_path, self.mode, now())?;
            Ok((store, run))
        });
        match opened {
            Ok((store, run)) => {
                for path in pattern_paths(&self.wrapper.patterns, "") {
                    match store.rejected_xpaths(&self.wrapper.name, &path) {
                        Ok(xpaths) => {
                            for x in xpaths {
                                self.rejections.insert(path.clone(), x);
                            }
                        }
                        Err(e) => {
                            self.fail(anyhow::Error::new(e).context("cannot read rejected XPaths"))
                        }
                    }
                }
                self.store = Some((store, run));
            }
            Err(e) => {
                let path = self.store_path.display().to_string();
                self.fail(anyhow::Error::new(e).context(format!("cannot open the store {path}")));
            }
        }
    }

    /// Applies healed XPaths to the wrapper file, in order; returns the
    /// patterns whose rewrite was refused, with why.
    fn rewrite_file(&mut self, healed: &[&Adaptation]) -> Vec<(String, String)> {
        let mut refused = Vec::new();
        let mut text = match std::fs::read_to_string(&self.wrapper_path) {
            Ok(t) => t,
            Err(e) => {
                let path = self.wrapper_path.display().to_string();
                self.fail(anyhow::Error::new(e).context(format!("cannot read {path}")));
                return healed
                    .iter()
                    .map(|a| {
                        (
                            a.pattern.clone(),
                            "the wrapper file could not be read".to_owned(),
                        )
                    })
                    .collect();
            }
        };
        for a in healed {
            let names: Vec<&str> = a.pattern.split('/').collect();
            let Some(new) = &a.new_xpath else { continue };
            match wrapper::replace_xpath(&text, &names, new) {
                Ok(t) => text = t,
                Err(e) => refused.push((a.pattern.clone(), e.to_string())),
            }
        }
        if let Err(e) = write_atomically(&self.wrapper_path, text.as_bytes()) {
            self.fail(e);
        }
        refused
    }
}

impl Healer for CliHealer {
    fn wrapper(&self) -> &Wrapper {
        &self.wrapper
    }

    fn revision(&self) -> u64 {
        self.revision
    }

    fn enabled(&self) -> bool {
        self.mode != HealMode::Off
    }

    fn heal(&mut self, page: &fetch::Page, doc: &Document, output: PageOutput) -> PageOutput {
        self.pages += 1;
        self.open_store();
        let healing = adapt::heal(
            &self.wrapper,
            doc,
            page.url.as_ref(),
            &self.grams,
            &self.rejections,
        );
        if healing.adaptations.is_empty() {
            self.violations += output.violations.len() as u64;
            return output;
        }
        let healed: Vec<&Adaptation> = healing
            .adaptations
            .iter()
            .filter(|a| a.is_healed())
            .collect();
        let refused = if self.mode == HealMode::Auto && !healed.is_empty() {
            self.rewrite_file(&healed)
        } else {
            Vec::new()
        };
        let refused_names: HashSet<&str> = refused.iter().map(|(p, _)| p.as_str()).collect();
        let status = |a: &Adaptation| match a.outcome {
            Outcome::Healed
                if self.mode == HealMode::Auto && !refused_names.contains(a.pattern.as_str()) =>
            {
                AdaptationStatus::Applied
            }
            Outcome::Healed => AdaptationStatus::Proposed,
            Outcome::Abstained => AdaptationStatus::Abstained,
            Outcome::Rejected => AdaptationStatus::Rejected,
        };
        let statuses: Vec<AdaptationStatus> = healing.adaptations.iter().map(status).collect();
        let ids = self.record(page, &healing.adaptations, &statuses, &refused);

        if self.mode == HealMode::Auto && statuses.contains(&AdaptationStatus::Applied) {
            if self.wrapper.adapt.update_treegrams {
                let paths: Vec<String> = healing
                    .adaptations
                    .iter()
                    .zip(&statuses)
                    .filter(|(_, s)| **s == AdaptationStatus::Applied)
                    .map(|(a, _)| a.pattern.clone())
                    .collect();
                let url = page.url.as_ref().map(|u| u.to_string());
                if let Err(e) = write_treegrams(
                    &self.wrapper_path,
                    &healing.wrapper,
                    doc,
                    &page.bytes,
                    url.as_deref(),
                    Some(&paths),
                ) {
                    self.fail(e.context("cannot refresh tree-grams"));
                } else {
                    self.grams = load_treegrams(&self.wrapper_path, &healing.wrapper);
                }
            }
            self.wrapper = healing.wrapper.clone();
            self.revision += 1;
        }

        let mut records = shape(healing.extraction.record.clone(), &self.options);
        let proposals: Vec<Value> = ids
            .iter()
            .zip(&statuses)
            .filter(|(_, s)| **s == AdaptationStatus::Proposed)
            .filter_map(|(id, _)| id.map(Value::from))
            .collect();
        if !proposals.is_empty() {
            for r in &mut records {
                if let Value::Object(o) = r {
                    o.insert("_proposals".to_owned(), Value::Array(proposals.clone()));
                }
            }
        }
        let adaptations = healing
            .adaptations
            .iter()
            .zip(&statuses)
            .zip(&ids)
            .map(|((a, s), id)| entry(a, *s, *id, &refused))
            .collect();
        self.violations += healing.extraction.violations.len() as u64;
        PageOutput {
            page: output.page,
            records,
            violations: healing.extraction.violations,
            adaptations,
            error: None,
        }
    }
}

impl CliHealer {
    /// Stores the page and its adaptations; the ids, `None` where the store failed.
    fn record(
        &mut self,
        page: &fetch::Page,
        adaptations: &[Adaptation],
        statuses: &[AdaptationStatus],
        refused: &[(String, String)],
    ) -> Vec<Option<i64>> {
        let Some((store, run)) = &mut self.store else {
            return vec![None; adaptations.len()];
        };
        let page_id = match store.record_page(*run, &page.name, &page.bytes, true) {
            Ok(id) => id,
            Err(e) => {
                self.fail(anyhow::Error::new(e).context("cannot store the page"));
                return vec![None; adaptations.len()];
            }
        };
        let mut ids = Vec::new();
        let mut failure = None;
        for (a, &status) in adaptations.iter().zip(statuses) {
            let reason = match refused.iter().find(|(p, _)| *p == a.pattern) {
                Some((_, why)) => Some(format!("the wrapper file could not be rewritten: {why}")),
                None => a.reason.clone(),
            };
            let new = NewAdaptation {
                page_id,
                pattern: a.pattern.clone(),
                old_xpath: a.old_xpath.clone(),
                new_xpath: a.new_xpath.clone(),
                algorithm: a
                    .algorithm
                    .map(|x| mend::similarity::algorithm_name(x).to_owned()),
                score: a.score,
                runner_up: a.runner_up,
                status,
                reason,
                candidates: a
                    .candidates
                    .iter()
                    .map(|c| Candidate {
                        xpath: c.nodes.join(" | "),
                        score: c.score,
                        algorithm: format!(
                            "{} {}",
                            mend::similarity::algorithm_name(c.algorithm),
                            mend::similarity::mode_name(c.label)
                        ),
                    })
                    .collect(),
                samples_before: a.before.clone(),
                samples_after: a.after.clone(),
                constraint_results: a
                    .checks
                    .iter()
                    .map(|c| ConstraintResult {
                        constraint: c.constraint.clone(),
                        passed: c.passed,
                        detail: c.detail.clone(),
                    })
                    .chain(a.violations.iter().map(ConstraintResult::from))
                    .collect(),
                created_at: now(),
            };
            match store.record_adaptation(&new) {
                Ok(id) => ids.push(Some(id.0)),
                Err(e) => {
                    failure.get_or_insert(e);
                    ids.push(None);
                }
            }
        }
        if let Some(e) = failure {
            self.fail(anyhow::Error::new(e).context("cannot store an adaptation"));
        }
        ids
    }
}

/// The page output's entry for one adaptation (the contract of DESIGN.md,
/// plus the store id and the evidence).
fn entry(
    a: &Adaptation,
    status: AdaptationStatus,
    id: Option<i64>,
    refused: &[(String, String)],
) -> Value {
    let reason = refused
        .iter()
        .find(|(p, _)| *p == a.pattern)
        .map(|(_, why)| format!("the wrapper file could not be rewritten: {why}"))
        .or_else(|| a.reason.clone());
    json!({
        "id": id,
        "pattern": a.pattern,
        "old_xpath": a.old_xpath,
        "new_xpath": a.new_xpath,
        "score": a.score,
        "runner_up": a.runner_up,
        "algorithm": a.algorithm.map(mend::similarity::algorithm_name),
        "status": status.as_str(),
        "label": a.label.map(mend::similarity::mode_name),
        "similarity": a.similarity,
        "trigger": a.trigger,
        "reason": reason,
    })
}

/// Every pattern's path of names.
fn pattern_paths(patterns: &[Pattern], prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for p in patterns {
        let path = if prefix.is_empty() {
            p.name.clone()
        } else {
            format!("{prefix}/{}", p.name)
        };
        out.extend(pattern_paths(&p.patterns, &path));
        out.push(path);
    }
    out
}

fn now() -> Timestamp {
    Timestamp::from(SystemTime::now())
}
