//! One adaptation as a run decided it: the engine's [`Adaptation`], what the
//! mode made of it, and its store id. Both the store's record and the entry
//! of `mend run`'s output are made from this one shape.
//!
//! ## What it refuses
//!
//! Only a healed outcome becomes `applied` (in `auto` mode) or `proposed`; an
//! abstention or a rejection keeps its status whatever the mode.
//! [`RunAdaptation::not_applied`] only turns an applied adaptation back into
//! a proposal and leaves any other as it is. An adaptation not yet recorded
//! has no reference, and one without evidence names no model. The module
//! reads no file, store or clock: times come from the caller.

use serde_json::{Value, json};

use crate::adapt::{Adaptation, Outcome};
use crate::store::{
    AdaptationId, AdaptationRef, AdaptationStatus, Candidate, ConstraintResult, NewAdaptation,
    PageId, StoreTag, Timestamp,
};

/// An adaptation with what the run did with it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunAdaptation {
    /// What the engine found.
    pub adaptation: Adaptation,
    /// What the run did with it.
    pub status: AdaptationStatus,
    /// Its id in the store, once recorded.
    pub id: Option<AdaptationId>,
    /// The tag of the store it was recorded in, so that `TAG:ID` names it
    /// wherever a review command runs.
    pub store: Option<StoreTag>,
    /// Why, in words: the engine's reason, or why the wrapper file could not
    /// take a heal.
    pub reason: Option<String>,
}

impl RunAdaptation {
    /// The status a run in `auto` mode (`applied`) or not (`proposed`) gives
    /// an adaptation.
    pub fn decide(adaptation: Adaptation, auto: bool) -> RunAdaptation {
        let status = match adaptation.outcome {
            Outcome::Healed if auto => AdaptationStatus::Applied,
            Outcome::Healed => AdaptationStatus::Proposed,
            Outcome::Abstained => AdaptationStatus::Abstained,
            Outcome::Rejected => AdaptationStatus::Rejected,
        };
        let reason = adaptation.reason.clone();
        RunAdaptation {
            adaptation,
            status,
            id: None,
            store: None,
            reason,
        }
    }

    /// Whether the run applied it to the wrapper file.
    pub fn is_applied(&self) -> bool {
        self.status == AdaptationStatus::Applied
    }

    /// Turns an adaptation the run meant to apply into the proposal it is
    /// when the wrapper file could not take it, saying why; a person may
    /// still approve it.
    pub fn not_applied(&mut self, why: &str) {
        if self.is_applied() {
            self.status = AdaptationStatus::Proposed;
            self.reason = Some(format!("not applied: {why}"));
        }
    }

    /// The store's record of it, for the page `page_id`.
    pub fn to_record(&self, page_id: PageId, created_at: Timestamp) -> NewAdaptation {
        let a = &self.adaptation;
        NewAdaptation {
            page_id,
            pattern: a.pattern.to_string(),
            old_xpath: a.old_xpath.clone(),
            new_xpath: a.new_xpath.clone(),
            algorithm: a.algorithm.map(|x| x.as_str().to_owned()),
            score: a.score,
            runner_up: a.runner_up,
            status: self.status,
            change_scope: a.change_scope.map(|c| c.as_str().to_owned()),
            reason: self.reason.clone(),
            model: a
                .evidence
                .or(a.selection)
                .map(|_| crate::adapt::model().version.clone()),
            confidence: a.confidence,
            candidates: a
                .candidates
                .iter()
                .map(|c| Candidate {
                    xpath: c.nodes.join(" | "),
                    score: c.score,
                    algorithm: format!("{} {}", c.algorithm, c.label),
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
            created_at,
        }
    }

    /// How a review command names it: `TAG:ID` once recorded in a tagged
    /// store, the bare id in one without a tag.
    pub fn reference(&self) -> Option<AdaptationRef> {
        self.id.map(|id| AdaptationRef {
            tag: self.store.clone(),
            id,
        })
    }

    /// Its entry in a page's `adaptations` (the contract of DESIGN.md, plus
    /// the store id and the evidence).
    pub fn to_json(&self) -> Value {
        let a = &self.adaptation;
        json!({
            "id": self.id,
            "store": self.store,
            "pattern": a.pattern,
            "old_xpath": a.old_xpath,
            "new_xpath": a.new_xpath,
            "score": a.score,
            "runner_up": a.runner_up,
            "algorithm": a.algorithm,
            "status": self.status.as_str(),
            "label": a.label,
            "similarity": a.similarity,
            "confidence": a.confidence,
            "evidence": a.evidence,
            "features": a.evidence.as_ref().map(crate::adapt::Evidence::named_features),
            "selection_features": a.selection.as_ref().map(crate::adapt::Evidence::named_features),
            "proposals": a.proposals.iter().map(|p| json!({
                "source": p.source,
                "nodes": p.nodes,
                "count": p.count,
                "confidence": p.confidence,
                "features": p.evidence.named_features(),
            })).collect::<Vec<_>>(),
            "model": a.evidence.or(a.selection).map(|_| crate::adapt::model().version.as_str()),
            "trigger": a.trigger,
            "change_scope": a.change_scope,
            "found_in_parent": a.found_in_parent,
            "reason": self.reason,
        })
    }
}
