//! The tree search of one attempt: every algorithm of the wrapper under
//! its label mode (and tags alone), in the old parent's region first after
//! a local change; each search's choice judged, checked against the vetoes
//! and proven, and what the searches refused remembered for the abstention.
//!
//! ## What it refuses
//!
//! A choice the judge refuses, one a rejected XPath selects, one whose
//! proof fails, and, for a record stored in one container, a cluster that
//! spans several. A record whose fields cannot all be found is kept only as
//! the fallback when no other candidate is proven.

use super::*;

impl<'a, 'e> Attempting<'a, 'e> {
    /// The tree search: each algorithm of the wrapper with its label mode
    /// (and tags alone), in the old parent's region first after a local
    /// change, until a candidate is judged and proven.
    pub(super) fn by_tree_search(
        &self,
        mut adaptation: Adaptation,
        voted: Option<&[Vec<Item>]>,
    ) -> Attempted {
        let settings = &self.wrapper.adapt;
        let mut labels_tried = vec![settings.label];
        if settings.label != LabelMode::Tag {
            labels_tried.push(LabelMode::Tag);
        }
        // A local change is searched for inside the old parent's region
        // first (a field in one scope: in several, each has its own
        // region), and in the whole scope when nothing there is proven.
        let mut passes = vec![None];
        if settings.search_scope == SearchScope::ParentFirst
            && !self.pattern.is_record()
            && self.scopes.len() == 1
            && let Some(within) = self
                .sensed
                .within
                .filter(|_| self.sensed.class == ChangeScope::Local)
        {
            passes.insert(0, Some(within));
        }
        let mut search = SearchState::default();
        for within in passes {
            if within.is_some() {
                tracing::debug!(pattern = %self.path, "a local change: searching the old parent's region first");
            }
            for &label in &labels_tried {
                for &algorithm in &settings.algorithms {
                    let how = Attempt {
                        algorithm,
                        label,
                        threshold: settings.threshold,
                        margin: settings.margin,
                    };
                    let hints = Hints { within, voted };
                    let decided = decide(
                        self.env,
                        self.pattern,
                        self.gram,
                        &self.scopes,
                        hints,
                        how,
                        &mut adaptation.candidates,
                    );
                    let chosen = match decided {
                        Ok(chosen) => chosen,
                        Err(refusal) => {
                            search.refused(how, refusal);
                            continue;
                        }
                    };
                    if let Some(done) =
                        self.consider(&mut search, &mut adaptation, chosen, how, within)
                    {
                        return done;
                    }
                }
            }
        }
        search.finish(adaptation)
    }

    /// One candidate the tree search chose with `how`: `Some` ends the
    /// attempt (the pattern already selects it, or it is healed to it);
    /// `None` goes on to the next search, with why this one was not taken
    /// in `search`.
    pub(super) fn consider(
        &self,
        search: &mut SearchState,
        adaptation: &mut Adaptation,
        chosen: Assignment,
        how: Attempt,
        within: Option<NodeId>,
    ) -> Option<Attempted> {
        let (algorithm, label) = (how.algorithm, how.label);
        let tried = format!("{} with {label:?} labels", name(algorithm));
        // A record's items that stood in one container are one list: alike
        // items gathered from several lists (every column of a footer,
        // every submenu of a menu) are not it.
        if self.pattern.is_record()
            && stored_in_one_container(self.gram)
            && chosen
                .targets
                .iter()
                .any(|items| containers(self.env.doc, items) > 1)
        {
            search.not_taken(format!(
                "{tried}: the best cluster spans several containers, where the stored items stood in one"
            ));
            return None;
        }
        if chosen.targets == self.current {
            adaptation.algorithm = Some(algorithm);
            adaptation.label = Some(label);
            adaptation.score = Some(chosen.score);
            adaptation.runner_up = chosen.runner_up;
            adaptation.similarity = Some(chosen.similarity);
            return Some(Attempted {
                adaptation: Adaptation {
                    reason: Some("re-located to the nodes its XPath already selects".to_owned()),
                    ..adaptation.clone()
                },
                healed: None,
                unchanged: true,
                children: Vec::new(),
            });
        }
        if let Some(x) = self.rejected_for(&chosen.targets) {
            search.only_rejected = true;
            search.last_reason =
                format!("the best candidate is what the rejected XPath {x} selects");
            return None;
        }
        let mut evidence = evidence_of(
            self.env,
            self.gram,
            self.pattern,
            &self.scopes,
            &chosen,
            Source::Tree,
            self.facts,
        );
        evidence.algorithm = Some(algorithm);
        evidence.label = Some(label);
        let confidence = crate::adapt::confidence(&evidence);
        if !self
            .log
            .judge(self.env.doc, &chosen.targets, &evidence, self.bar)
        {
            search.not_taken(format!(
                "{tried}: the best candidate's confidence {confidence:.3} is under adapt.min_confidence {:.3} (similarity {:.3}, likeness to the target {:.3}, locators for it {:.0}%, against {:.0}%)",
                self.bar,
                evidence.similarity,
                evidence.likeness,
                100.0 * evidence.votes_for,
                100.0 * evidence.votes_against,
            ));
            adaptation.confidence = Some(confidence);
            adaptation.evidence = Some(evidence);
            return None;
        }
        let (xpath, healed_wrapper, extraction) = match prove(
            self.env,
            self.wrapper,
            self.pattern,
            self.path,
            &self.scopes,
            &chosen,
        ) {
            Ok(proven) => proven,
            Err(reason) => {
                search.not_taken(format!("{tried}: {reason}"));
                return None;
            }
        };
        let mut done = healed_adaptation(
            adaptation.clone(),
            self.pattern,
            xpath,
            &chosen,
            evidence,
            &extraction,
        );
        done.algorithm = Some(algorithm);
        done.label = Some(label);
        done.similarity = Some(chosen.similarity);
        done.found_in_parent = within.is_some();
        let proven = applied(done, (healed_wrapper, extraction));
        // A record is proven by its fields too: if they cannot all be found
        // in the chosen instances, another candidate may be the real one.
        if !self.pattern.is_record() {
            return Some(proven);
        }
        let (proven, fields_found) = self.with_fields_healed(proven);
        if fields_found {
            return Some(proven);
        }
        search.not_taken(format!(
            "{tried}: the record's fields could not all be found in the chosen instances"
        ));
        search.fallback.get_or_insert(proven);
        None
    }
}

/// What the tree search learned from the candidates it did not take.
pub(super) struct SearchState {
    /// Why the last candidate was not taken.
    pub(super) last_reason: String,
    /// The best refused region seen, for the adaptation's scores.
    pub(super) best_seen: Option<Best>,
    /// Whether the last candidate not taken was one a person rejected.
    pub(super) only_rejected: bool,
    /// The first record proven by its own constraints whose fields could
    /// not all be found: taken when nothing better is.
    pub(super) fallback: Option<Attempted>,
}

impl Default for SearchState {
    fn default() -> Self {
        SearchState {
            last_reason: String::from("no candidate reached the threshold"),
            best_seen: None,
            only_rejected: false,
            fallback: None,
        }
    }
}

impl SearchState {
    /// A search `how` that found no candidate to choose.
    pub(super) fn refused(&mut self, how: Attempt, refusal: Refusal) {
        if let Some(b) = refusal.best
            && self.best_seen.is_none_or(|s| b.score > s.score)
        {
            self.best_seen = Some(b);
        }
        self.last_reason = format!(
            "{} with {:?} labels: {}",
            name(how.algorithm),
            how.label,
            refusal.reason
        );
    }

    /// A candidate not taken, for `reason`.
    pub(super) fn not_taken(&mut self, reason: String) {
        self.only_rejected = false;
        self.last_reason = reason;
    }

    /// The attempt's end when no search ended it: the fallback record, or
    /// an abstention (a rejection when the last candidate was a rejected
    /// XPath's) with the best scores seen.
    pub(super) fn finish(self, mut adaptation: Adaptation) -> Attempted {
        let last_reason = self.last_reason;
        if let Some(mut proven) = self.fallback {
            proven.adaptation.reason = Some(format!(
                "no candidate let every field be found; kept the first that meets the record's own constraints ({last_reason})"
            ));
            return proven;
        }
        if let Some(best) = self.best_seen {
            adaptation.score = Some(best.score);
            adaptation.runner_up = best.runner_up;
            adaptation.similarity = Some(best.similarity);
        }
        if self.only_rejected {
            adaptation.outcome = Outcome::Rejected;
        }
        abstained(adaptation, last_reason)
    }
}
