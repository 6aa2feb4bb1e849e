//! One pattern's adaptation: candidates under each algorithm and label mode,
//! the choice, the generated XPath, and the proof by re-extraction.
//!
//! ## What it refuses
//!
//! It abstains without a tree-gram or a parent instance, and when no
//! candidate clears the threshold and the margin over the runner-up that
//! the stored text, the locators or the stored words cannot settle. It
//! applies no candidate the judge refuses (the model's bar, or the rules
//! outside its training), none a rejected XPath selects, none whose XPath
//! fails the pattern's constraints on re-extraction, and none on the site's
//! frame for a content pattern. It never writes a rejected XPath, the
//! pattern's own, or a union of positions for a record.

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde_json::{Map, Value};
use url::Url;

use super::cluster::{Rule, clusters};
use super::confidence::{Evidence, Source};
use super::locate::{self, Field};
use super::votes::MIN_LOCATOR_EVIDENCE;
use super::{
    Adaptation, CandidateReport, ChangeScope, Check, Outcome, Rejections, Search, Sensed,
    TreeGrams, Trigger,
};
use super::{signals, votes, witnessed};
use crate::dom::{Document, NodeId};
use crate::extract::{Extraction, Violation, ViolationKind, extract};
use crate::similarity::{Algorithm, LabelMode, LabeledTree, Labels};
use crate::treegram::{GramMask, LocatorKind, TreeGram};
use crate::wrapper::{Pattern, PatternPath, SearchScope, Wrapper};
use crate::xpath::generate::{GenerateOptions, Instance, generate_for_instances};
use crate::xpath::{Item, XPath};

/// How many sample values an adaptation keeps from before and after.
const SAMPLES: usize = 5;
/// How many candidates of each scope are reported, for the first scopes.
const REPORTED: usize = 3;

/// What an adaptation reads besides the wrapper.
pub(crate) struct Env<'a> {
    pub doc: &'a Document,
    pub page_url: Option<&'a Url>,
    pub base: Option<Url>,
    pub grams: &'a TreeGrams,
    pub rejections: &'a Rejections,
    pub search: Search,
    /// The site's template laid over the page the first time a content
    /// pattern or change sensing asks (once per page), when one is known.
    pub frame: std::cell::OnceCell<Option<crate::site_template::Regions>>,
    /// What the wrapper's templates say of the page as a whole, sensed the
    /// first time a pattern's change is classified.
    pub facts: std::cell::OnceCell<super::PageFacts>,
    /// The evidence of each node set judged on the page, by tree-gram (its
    /// address, alive as long as the pass) and nodes: the search proposes
    /// the same nodes under several algorithms and label modes, and their
    /// votes and surroundings are read once.
    pub judged: std::cell::RefCell<JudgedNodes>,
}

/// The evidence of node sets judged on a page, by tree-gram address and nodes.
pub(crate) type JudgedNodes = HashMap<(usize, Vec<Vec<Item>>), Evidence>;

impl<'a> Env<'a> {
    /// What an adaptation on `doc` (at `page_url`) reads, nothing of the
    /// page sensed yet.
    pub(crate) fn new(
        doc: &'a Document,
        page_url: Option<&'a Url>,
        grams: &'a TreeGrams,
        rejections: &'a Rejections,
        search: &Search,
    ) -> Self {
        Env {
            doc,
            page_url,
            base: crate::extract::page_base(doc, page_url),
            grams,
            rejections,
            search: *search,
            frame: std::cell::OnceCell::new(),
            facts: std::cell::OnceCell::new(),
            judged: std::cell::RefCell::default(),
        }
    }

    /// What the wrapper's unstable-content template marks on the page, as
    /// the parts a generated XPath must not test (empty without one).
    pub(crate) fn unstable_parts(&self) -> crate::xpath::generate::UnstableParts {
        match self.grams.unstable_template() {
            Some(t) => crate::treegram::unstable_parts(
                self.doc,
                &crate::unstable::TemplateMask::new(t, self.doc),
            ),
            None => crate::xpath::generate::UnstableParts::default(),
        }
    }

    /// The page's elements in the site's frame, when a site template is known.
    pub(crate) fn frame(&self) -> Option<&std::collections::HashSet<NodeId>> {
        self.regions().map(|r| &r.nodes)
    }

    fn regions(&self) -> Option<&crate::site_template::Regions> {
        self.frame
            .get_or_init(|| self.grams.site_template().map(|t| t.regions(self.doc)))
            .as_ref()
    }

    /// What the wrapper's templates say of the page as a whole: whether it
    /// matches the unstable-content template, and whether the site's frame
    /// changed on it.
    pub(crate) fn facts(&self) -> super::PageFacts {
        *self.facts.get_or_init(|| super::PageFacts {
            only_unstable: self
                .grams
                .unstable_template()
                .is_some_and(|t| t.matches(self.doc).is_ok()),
            frame_changed: self.regions().is_some_and(|r| r.coverage() < FRAME_KEPT),
        })
    }
}

/// The least share of the site's template a page keeps for its frame to
/// count as unchanged: a template learned from a few pages may hold an
/// element that one page of the same design lacks.
const FRAME_KEPT: f64 = 0.98;

/// An adaptation and, when it healed, the wrapper and extraction it led to.
pub(crate) struct Attempted {
    pub adaptation: Adaptation,
    pub healed: Option<(Wrapper, Extraction)>,
    /// The pattern was re-located to exactly the nodes its XPath already selects.
    pub unchanged: bool,
    /// For a healed record, the adaptations of its fields made to prove it
    /// (already applied in `healed`).
    pub children: Vec<Adaptation>,
}

/// A choice of nodes in every parent instance, with its evidence.
#[derive(Clone, Debug)]
struct Assignment {
    targets: Vec<Vec<Item>>,
    score: f64,
    runner_up: Option<f64>,
    similarity: f64,
}

impl Assignment {
    /// Nodes chosen by a witness, not by a tree matching: what witnessed
    /// them (the stored texts) is the whole of their evidence.
    fn witnessed(targets: Vec<Vec<Item>>) -> Assignment {
        Assignment {
            targets,
            score: 1.0,
            runner_up: None,
            similarity: 1.0,
        }
    }
}

/// An attempt that healed the pattern: `done` says how, and the wrapper and
/// extraction that follow are `healed`.
fn applied(done: Adaptation, healed: (Wrapper, Extraction)) -> Attempted {
    Attempted {
        adaptation: done,
        healed: Some(healed),
        unchanged: false,
        children: Vec::new(),
    }
}

/// Adapts the pattern at `path` of `wrapper` on the page; `before` is the
/// wrapper's extraction of the page.
pub(crate) fn attempt(
    env: &Env<'_>,
    wrapper: &Wrapper,
    before: &Extraction,
    path: &PatternPath,
    trigger: Trigger,
) -> Attempted {
    let log = Proposals {
        judged: std::cell::RefCell::default(),
        domain: super::selection::Domain::of(wrapper, path, env.grams),
    };
    let mut attempted = attempt_logged(env, wrapper, before, path, trigger, &log);
    attempted.adaptation.proposals = log.judged.into_inner();
    attempted
}

/// Every candidate judged during one attempt, in order, and who judges.
struct Proposals {
    judged: std::cell::RefCell<Vec<super::Proposal>>,
    domain: super::selection::Domain,
}

impl Proposals {
    /// Judges a candidate: its confidence, logged, and whether it is taken.
    /// The model judges the patterns it was trained on (see
    /// `selection::Domain`); a record's candidate is not held to it, and a
    /// field outside its training (a list, a field of a record) is held to
    /// the evidence that decided before: it must share the target's tag, an
    /// attribute or its text, and a top-level field's must be no lookalike
    /// out of the target's place nor lack the labels the target held.
    fn judge(&self, doc: &Document, targets: &[Vec<Item>], evidence: &Evidence, bar: f64) -> bool {
        let confidence = super::confidence(evidence);
        self.judged.borrow_mut().push(super::Proposal {
            source: evidence.source,
            nodes: targets
                .iter()
                .flatten()
                .take(3)
                .map(|i| i.path(doc))
                .collect(),
            count: targets.iter().map(Vec::len).sum(),
            confidence,
            evidence: *evidence,
        });
        match self.domain {
            super::selection::Domain::Model => confidence >= bar,
            super::selection::Domain::Record => true,
            super::selection::Domain::Rules { top_level } => {
                evidence.carries_evidence
                    && !(top_level && (evidence.lookalike || evidence.labels_contradict))
            }
        }
    }
}

/// [`attempt`], with every candidate judged logged in `log`. The candidate
/// sources are asked in order, each only when the ones before proved
/// nothing: the stored text as written (a retagged target, a copy beside
/// it), the locator ensemble, a relaxed locator, a record's witnessed
/// items, and last the tree search.
fn attempt_logged(
    env: &Env<'_>,
    wrapper: &Wrapper,
    before: &Extraction,
    path: &PatternPath,
    trigger: Trigger,
    log: &Proposals,
) -> Attempted {
    let pattern = wrapper.pattern(path).expect("paths come from the wrapper");
    let mut adaptation = new_adaptation(pattern, before, path, trigger);
    let attempting = match Attempting::new(env, wrapper, path, log) {
        Ok(a) => a,
        Err(reason) => return abstained(adaptation, reason),
    };
    adaptation.change_scope = Some(attempting.sensed.class);
    adaptation.selection = attempting.selection_evidence();
    if let Some(done) = attempting.by_stored_text(&adaptation) {
        return done;
    }
    let voted = match attempting.by_locators(&adaptation) {
        ControlFlow::Break(done) => return done,
        ControlFlow::Continue(voted) => voted,
    };
    if let Some(done) = attempting.by_relaxed_locator(&adaptation) {
        return done;
    }
    if let Some(done) = attempting.by_record_witness(&adaptation) {
        return done;
    }
    attempting.by_tree_search(adaptation, voted.as_deref())
}

/// An adaptation of the pattern at `path` not yet decided: what it held
/// before, and the violations that brought it here.
fn new_adaptation(
    pattern: &Pattern,
    before: &Extraction,
    path: &PatternPath,
    trigger: Trigger,
) -> Adaptation {
    Adaptation {
        before: values_at(&before.record, path.names()),
        violations: before
            .violations
            .iter()
            .filter(|v| v.pattern == *path)
            .cloned()
            .collect(),
        ..Adaptation::undecided(path.clone(), pattern.xpath.source().to_owned(), trigger)
    }
}

/// `a`, abstaining for `reason`.
fn abstained(mut a: Adaptation, reason: String) -> Attempted {
    a.reason = Some(reason);
    Attempted {
        adaptation: a,
        healed: None,
        unchanged: false,
        children: Vec::new(),
    }
}

/// What every candidate source of one attempt reads: the pattern, its
/// tree-gram and parent instances, what its XPath and the rejected XPaths
/// select there, how the page changed around it, and the bar a candidate
/// must clear.
struct Attempting<'a, 'e> {
    env: &'a Env<'e>,
    wrapper: &'a Wrapper,
    path: &'a PatternPath,
    pattern: &'a Pattern,
    gram: &'a TreeGram,
    scopes: Vec<Item>,
    current: Vec<Vec<Item>>,
    /// Each XPath a person rejected for the pattern, with what it selects.
    rejected: Vec<(String, Vec<Vec<Item>>)>,
    sensed: Sensed,
    facts: Facts,
    bar: f64,
    log: &'a Proposals,
}

impl<'a, 'e> Attempting<'a, 'e> {
    /// The attempt's shared reads, or why there can be no attempt.
    fn new(
        env: &'a Env<'e>,
        wrapper: &'a Wrapper,
        path: &'a PatternPath,
        log: &'a Proposals,
    ) -> Result<Self, String> {
        let pattern = wrapper.pattern(path).expect("paths come from the wrapper");
        let Some(gram) = env.grams.get(path) else {
            return Err(
                "no tree-gram for this pattern: run `mend snapshot` on a page where the wrapper works"
                    .to_owned(),
            );
        };
        let scopes = wrapper.instances(env.doc, path);
        if scopes.is_empty() {
            return Err("its parent pattern matches nothing".to_owned());
        }
        let select = |xpath: &XPath| -> Vec<Vec<Item>> {
            scopes
                .iter()
                .map(|&s| xpath.select_item(env.doc, s).unwrap_or_default())
                .collect()
        };
        let current = select(&pattern.xpath);
        let rejected = env
            .rejections
            .of(path)
            .into_iter()
            .filter_map(|x| Some((x.to_owned(), select(&XPath::compile(x).ok()?))))
            .collect();
        let sensed = sense_change(env, gram, &current);
        let facts = Facts {
            selection_empty: current.iter().all(Vec::is_empty),
            change_scope: sensed.class,
        };
        Ok(Attempting {
            env,
            wrapper,
            path,
            pattern,
            gram,
            scopes,
            current,
            rejected,
            sensed,
            facts,
            bar: min_confidence(&wrapper.adapt),
            log,
        })
    }

    /// What the model reads of a field's current selection, when it
    /// selects something.
    fn selection_evidence(&self) -> Option<Evidence> {
        (!self.pattern.is_record() && !self.facts.selection_empty).then(|| {
            super::selection::check_field(
                self.env.doc,
                self.gram,
                self.path.parent().is_none(),
                &self.scopes,
                &self.current,
            )
            .evidence
        })
    }

    /// The XPath a person rejected that selects exactly `targets`.
    fn rejected_for(&self, targets: &[Vec<Item>]) -> Option<&str> {
        self.rejected
            .iter()
            .find(|(_, sel)| sel.as_slice() == targets)
            .map(|(x, _)| x.as_str())
    }

    fn proposer(&self, source: Source) -> Proposer<'a> {
        Proposer {
            source,
            facts: self.facts,
            bar: self.bar,
            log: self.log,
        }
    }

    /// A field's target retagged beside a copy that kept the old tag: the
    /// copy draws the locators and the tree search alike, and only the
    /// target still has its text as written. Like a record's witness, that
    /// text and the classes are the whole of the evidence. And a copy of the
    /// target inserted beside it with other text: an XPath without
    /// positions, or whose position now counts both, selects the two. The
    /// XPath still names where the target is, and the stored text says
    /// which of its nodes it is; the tree search weighs the two texts nearly
    /// alike and cannot call it.
    fn by_stored_text(&self, adaptation: &Adaptation) -> Option<Attempted> {
        if self.pattern.is_record() {
            return None;
        }
        let (env, gram) = (self.env, self.gram);
        let narrowed = signals::narrowed_to_stored_text(env.doc, gram, &self.current).map(|found| {
            (
                found,
                "its XPath selects a copy beside the target; only this node carries the stored text as written",
            )
        });
        let witnessed = [
            retagged_instead(env, gram, &self.scopes, &self.current),
            narrowed,
        ];
        witnessed
            .into_iter()
            .flatten()
            .filter(|(found, _)| self.rejected_for(found).is_none())
            .find_map(|(found, why)| {
                witnessed_field(
                    env,
                    self.wrapper,
                    self.path,
                    &self.scopes,
                    adaptation,
                    (found, why.to_owned()),
                    self.proposer(Source::Witness),
                )
            })
    }

    /// The locator ensemble's answer, the first candidate of a field: it
    /// must still look like the stored target and pass the constraints.
    /// Applied when the locators are sure of it; otherwise the nodes they
    /// voted for settle a tree search that cannot tell them from another
    /// candidate (see [`decide`]).
    fn by_locators(
        &self,
        adaptation: &Adaptation,
    ) -> ControlFlow<Attempted, Option<Vec<Vec<Item>>>> {
        if self.pattern.is_record() {
            return ControlFlow::Continue(None);
        }
        let answer = match locator_choice(self.env, self.gram, &self.scopes, &self.current) {
            None => return ControlFlow::Continue(None),
            Some(Err(reason)) => return ControlFlow::Break(abstained(adaptation.clone(), reason)),
            Some(Ok(answer)) => answer,
        };
        let voted = Some(answer.chosen.targets.clone());
        if !answer.sure || self.rejected_for(&answer.chosen.targets).is_some() {
            return ControlFlow::Continue(voted);
        }
        let LocatorAnswer { chosen, reason, .. } = answer;
        match self.judged_and_proven(adaptation, &chosen, Source::Locators) {
            Some(mut done) => {
                done.adaptation.reason = Some(reason);
                ControlFlow::Break(done)
            }
            None => ControlFlow::Continue(voted),
        }
    }

    /// `chosen`, found by `source`: judged by the model, proven by
    /// extracting again, and applied; `None` when either refuses it.
    fn judged_and_proven(
        &self,
        adaptation: &Adaptation,
        chosen: &Assignment,
        source: Source,
    ) -> Option<Attempted> {
        let evidence = evidence_of(
            self.env,
            self.gram,
            self.pattern,
            &self.scopes,
            chosen,
            source,
            self.facts,
        );
        if !self
            .log
            .judge(self.env.doc, &chosen.targets, &evidence, self.bar)
        {
            return None;
        }
        let (xpath, healed_wrapper, extraction) = prove(
            self.env,
            self.wrapper,
            self.pattern,
            self.path,
            &self.scopes,
            chosen,
        )
        .ok()?;
        let done = healed_adaptation(
            adaptation.clone(),
            self.pattern,
            xpath,
            chosen,
            evidence,
            &extraction,
        );
        Some(applied(done, (healed_wrapper, extraction)))
    }

    /// A field whose XPath and locators all find nothing may still be found
    /// by a locator relaxed: an attribute locator without the layout above
    /// the target (`//input[@name='btnK']`) or on any tag (a search box now
    /// a `textarea`), a locator without the levels under its anchor (a
    /// wrapped list under its heading), the stored paragraph's text on any
    /// tag, the text locator on any tag.
    fn by_relaxed_locator(&self, adaptation: &Adaptation) -> Option<Attempted> {
        if self.pattern.is_record() || !self.facts.selection_empty {
            return None;
        }
        let (found, how) = super::relaxed::relaxed_answer(self.env.doc, self.gram, &self.scopes)?;
        if self.rejected_for(&found).is_some() {
            return None;
        }
        witnessed_field(
            self.env,
            self.wrapper,
            self.path,
            &self.scopes,
            adaptation,
            (
                found,
                format!("its XPath and locators find nothing as written; {how}"),
            ),
            self.proposer(Source::Relaxed),
        )
    }

    /// A record whose stored items' texts are found together, as many as it
    /// had, is healed to them: the cluster that is the stored instances, not
    /// every alike item on the page. Not a tree matching's choice: the
    /// stored texts found together are the whole of its evidence.
    fn by_record_witness(&self, adaptation: &Adaptation) -> Option<Attempted> {
        if !self.pattern.is_record() {
            return None;
        }
        let w = witnessed::witnessed_record(self.env.doc, self.gram, &self.current)?;
        if w.targets.iter().map(Vec::len).sum::<usize>() != self.gram.header.matched
            || self.rejected_for(&w.targets).is_some()
        {
            return None;
        }
        let chosen = Assignment::witnessed(w.targets);
        let mut done = self.judged_and_proven(adaptation, &chosen, Source::RecordWitness)?;
        done.adaptation.reason = Some(format!(
            "these items carry {} and are as many as it had",
            w.why
        ));
        Some(self.with_fields_healed(done).0)
    }

    /// A healed record with its fields healed in the chosen instances too,
    /// when the wrapper heals top-down; `false` gives the record back as it
    /// was proven, when its fields cannot all be found.
    fn with_fields_healed(&self, mut done: Attempted) -> (Attempted, bool) {
        if !self.wrapper.adapt.triggers.top_down {
            return (done, true);
        }
        let (healed_wrapper, extraction) = done.healed.as_ref().expect("a healed attempt");
        match fields_heal(self.env, healed_wrapper, extraction, self.path) {
            Some((w, e, children)) => {
                done.healed = Some((w, e));
                done.children = children;
                (done, true)
            }
            None => (done, false),
        }
    }

    /// The tree search: each algorithm of the wrapper with its label mode
    /// (and tags alone), in the old parent's region first after a local
    /// change, until a candidate is judged and proven.
    fn by_tree_search(&self, mut adaptation: Adaptation, voted: Option<&[Vec<Item>]>) -> Attempted {
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
    fn consider(
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
        let confidence = super::confidence(&evidence);
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
struct SearchState {
    /// Why the last candidate was not taken.
    last_reason: String,
    /// The best refused region seen, for the adaptation's scores.
    best_seen: Option<Best>,
    /// Whether the last candidate not taken was one a person rejected.
    only_rejected: bool,
    /// The first record proven by its own constraints whose fields could
    /// not all be found: taken when nothing better is.
    fallback: Option<Attempted>,
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
    fn refused(&mut self, how: Attempt, refusal: Refusal) {
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
    fn not_taken(&mut self, reason: String) {
        self.only_rejected = false;
        self.last_reason = reason;
    }

    /// The attempt's end when no search ended it: the fallback record, or
    /// an abstention (a rejection when the last candidate was a rejected
    /// XPath's) with the best scores seen.
    fn finish(self, mut adaptation: Adaptation) -> Attempted {
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

/// A field healed to the nodes `answer` found, chosen by evidence of its
/// own (the stored text as written, a relaxed locator) rather than a tree
/// search: judged by the model, proven by extracting again, and applied
/// with the answer's reason. `None` when the model or the proof refuses it.
fn witnessed_field(
    env: &Env<'_>,
    wrapper: &Wrapper,
    path: &PatternPath,
    scopes: &[Item],
    adaptation: &Adaptation,
    answer: (Vec<Vec<Item>>, String),
    proposer: Proposer<'_>,
) -> Option<Attempted> {
    let (found, reason) = answer;
    let pattern = wrapper.pattern(path)?;
    let gram = env.grams.get(path)?;
    let chosen = Assignment::witnessed(found);
    let evidence = evidence_of(
        env,
        gram,
        pattern,
        scopes,
        &chosen,
        proposer.source,
        proposer.facts,
    );
    if !proposer
        .log
        .judge(env.doc, &chosen.targets, &evidence, proposer.bar)
    {
        return None;
    }
    let (xpath, healed_wrapper, extraction) =
        prove(env, wrapper, pattern, path, scopes, &chosen).ok()?;
    let mut done = healed_adaptation(
        adaptation.clone(),
        pattern,
        xpath,
        &chosen,
        evidence,
        &extraction,
    );
    done.reason = Some(reason);
    Some(applied(done, (healed_wrapper, extraction)))
}

/// How the page changed around the pattern of `gram` (`change_scope.rs`);
/// `current` is what its XPath selects now, in each scope.
fn sense_change(env: &Env<'_>, gram: &TreeGram, current: &[Vec<Item>]) -> Sensed {
    let selected = |target: NodeId| {
        current.iter().flatten().any(|item| match *item {
            Item::Node(n) => n == target || env.doc.parent(n) == Some(target),
            Item::Attr { element, .. } => element == target,
            Item::Namespace(_) => false,
        })
    };
    super::sense(env.doc, gram, env.facts(), &selected)
}

/// `a` as healed: the new XPath, the choice's score and runner-up, its
/// evidence and confidence, and the values and checks of the extraction
/// that proved it (the pattern and path are the adaptation's own).
fn healed_adaptation(
    mut a: Adaptation,
    pattern: &Pattern,
    xpath: String,
    chosen: &Assignment,
    evidence: Evidence,
    extraction: &Extraction,
) -> Adaptation {
    a.outcome = Outcome::Healed;
    a.new_xpath = Some(xpath);
    a.score = Some(chosen.score);
    a.runner_up = chosen.runner_up;
    a.confidence = Some(super::confidence(&evidence));
    a.evidence = Some(evidence);
    a.after = values_at(&extraction.record, a.pattern.names());
    a.checks = checks(pattern, &a.pattern, &extraction.violations);
    a
}

/// What every candidate of one attempt shares: how the page changed around
/// the pattern.
#[derive(Clone, Copy, Debug)]
struct Facts {
    /// The pattern's XPath selects nothing.
    selection_empty: bool,
    /// How the page changed around the pattern.
    change_scope: ChangeScope,
}

/// A path that proposes a candidate outside the tree search: what it is
/// called in the evidence, the attempt's facts and the bar to clear.
#[derive(Clone, Copy)]
struct Proposer<'l> {
    source: Source,
    facts: Facts,
    bar: f64,
    log: &'l Proposals,
}

/// The least confidence a heal needs: the wrapper's own, or the model's,
/// chosen on validation sites.
fn min_confidence(settings: &crate::wrapper::AdaptSettings) -> f64 {
    settings
        .min_confidence
        .unwrap_or_else(|| super::model::model().threshold)
}

/// What a chosen node set's confidence is computed from.
fn evidence_of(
    env: &Env<'_>,
    gram: &TreeGram,
    pattern: &Pattern,
    scopes: &[Item],
    chosen: &Assignment,
    source: Source,
    facts: Facts,
) -> Evidence {
    let key = (std::ptr::from_ref(gram) as usize, chosen.targets.clone());
    let cached = env.judged.borrow().get(&key).copied();
    let mut evidence =
        cached.unwrap_or_else(|| nodes_evidence(env, gram, pattern, scopes, &chosen.targets));
    if cached.is_none() {
        env.judged.borrow_mut().insert(key, evidence);
    }
    let ranked = source == Source::Tree;
    evidence.source = source;
    evidence.similarity = if ranked { chosen.similarity } else { 0.0 };
    evidence.margin = if ranked {
        chosen
            .runner_up
            .map_or(1.0, |r| (chosen.score - r).clamp(0.0, 1.0))
    } else {
        0.0
    };
    evidence.selection_empty = facts.selection_empty;
    evidence.change_scope = Some(facts.change_scope);
    evidence
}

/// What a candidate's evidence owes to its nodes alone: their likeness to
/// the stored target, the locators' votes, the count and the vetoes become
/// features. The rest (who proposed them, the region's similarity and
/// margin, the page's change) is the caller's.
fn nodes_evidence(
    env: &Env<'_>,
    gram: &TreeGram,
    pattern: &Pattern,
    scopes: &[Item],
    targets: &[Vec<Item>],
) -> Evidence {
    let votes = votes::all_votes(env.doc, gram, scopes, targets);
    // A locator whose nodes give values the field refuses is no evidence
    // against the choice: it has moved onto something else (a struck-out
    // price, a label), and a candidate like that could never be chosen.
    let implausible: usize = votes
        .others
        .iter()
        .filter(|b| !pattern.is_record() && !plausible(env, pattern, &b.targets))
        .map(|b| b.xpaths.len())
        .sum();
    let voting = votes.voting - implausible;
    let against = voting - votes.agree;
    let share = |n: usize| {
        if voting == 0 {
            0.0
        } else {
            n as f64 / voting as f64
        }
    };
    let parts = signals::likeness_parts(env.doc, gram, targets).unwrap_or_default();
    let chosen_count: usize = targets.iter().map(Vec::len).sum();
    let stored_count = gram.header.matched.max(1);
    let field = !pattern.is_record();
    Evidence {
        likeness: parts.weighed(),
        tag_like: parts.tag,
        text_like: parts.text,
        attrs_like: parts.attrs,
        words: parts.words,
        votes_for: share(votes.agree),
        votes_against: share(against),
        voted: voting > 0,
        record: pattern.is_record(),
        count_fit: chosen_count.min(stored_count) as f64 / chosen_count.max(stored_count) as f64,
        carries_evidence: !field || signals::carries_evidence(env.doc, gram, targets),
        lookalike: field && super::surroundings::lookalike(env.doc, gram, targets),
        labels_contradict: field && signals::labels_contradict(env.doc, gram, targets),
        // What the drift check weighs of a current selection says nothing
        // of a candidate the search found.
        ..Evidence::default()
    }
}

/// Whether every node of `targets` gives a value that meets the field's
/// value constraints (type, regex, lengths, range).
fn plausible(env: &Env<'_>, pattern: &Pattern, targets: &[Vec<Item>]) -> bool {
    targets.iter().flatten().all(|&item| {
        crate::extract::item_text(env.doc, item, &pattern.extract).is_some_and(|text| {
            crate::extract::check_value(pattern, &text, env.base.as_ref())
                .1
                .is_empty()
        })
    })
}

/// The same for one node chosen by the text locator among others: the
/// stored tag and text as written (0.2 + 0.4), whatever its attributes.
const MIN_TEXT_LOCATOR_EVIDENCE: f64 = 0.6;

/// The least share of a stored sentence's words (see
/// `signals::StoredWords`) that names a candidate as the target
/// edited: a third of the words replaced leaves half of them shared.
const MIN_WORDS_KEPT: f64 = 0.4;
/// The most that the other candidates too close to call may share then.
const MAX_WORDS_ELSEWHERE: f64 = 0.15;

/// The locators' answer for a field (see [`locator_choice`]).
struct LocatorAnswer {
    /// The nodes, scored by their evidence.
    chosen: Assignment,
    /// Who chose them, for a person.
    reason: String,
    /// Whether their evidence clears the bar for an answer of the locators
    /// alone; under it they only settle a tree search too close to call.
    sure: bool,
}

/// The node sets the locators agree on instead of the XPath's selection:
/// when the XPath selects nothing, the set with the most votes, or on a tie
/// the set a plain text locator votes for (see [`plainly_named`]), if any;
/// otherwise the set that outvotes it as the drift check decides, or the
/// node that witnesses the stored text beside it (`witness.rs`). Its score
/// is its evidence, and it is `sure` when that clears the bar for an answer
/// of the locators alone (under it, it only settles a tree search too close
/// to call, see [`settle`]); the reason says who chose it. `Err` with the reason to
/// abstain when the nodes the locators agree on are a lookalike out of the
/// target's place (`surroundings.rs`): whatever else looks like the target
/// then is a lookalike too.
fn locator_choice(
    env: &Env<'_>,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Option<Result<LocatorAnswer, String>> {
    let votes = votes::votes(env.doc, gram, scopes, current);
    let ballot = if current.iter().all(Vec::is_empty) {
        let best = votes.others.first()?;
        let tied = votes
            .others
            .get(1)
            .is_some_and(|b| b.xpaths.len() == best.xpaths.len());
        // Locators that cannot agree leave the stored text as written to
        // decide: a plain text locator was proven at capture to select the
        // target alone, and a decoy or a copy beside the target that draws
        // the other locators carries other text.
        if tied {
            votes.others.iter().find(|b| plainly_named(gram, b))
        } else {
            Some(best)
        }
    } else {
        votes.outvoting(env.doc, gram, current, false)
    };
    // A text locator's answer carries the stored text as written; where the
    // page's classes were all renamed (a redesign), its attributes differ,
    // and the tag and the text are what is left to ask for.
    let by_text = ballot.is_some_and(|b| {
        gram.locators()
            .any(|(l, _)| l.kind == LocatorKind::Text && b.xpaths.contains(&l.xpath))
            && b.targets.iter().all(|t| t.len() <= 1)
    });
    let (targets, reason) = match ballot {
        Some(b) => match signals::narrowed_to_stored_text(env.doc, gram, &b.targets) {
            Some(narrowed) => (
                narrowed,
                format!(
                    "its locators agree on these nodes and a copy beside them ({} of {}: {}); only these carry the stored text",
                    b.xpaths.len(),
                    votes.voting,
                    b.xpaths.join(", ")
                ),
            ),
            None => (
                b.targets.clone(),
                format!(
                    "its locators agree on these nodes ({} of {}: {})",
                    b.xpaths.len(),
                    votes.voting,
                    b.xpaths.join(", ")
                ),
            ),
        },
        None if current.iter().any(|c| !c.is_empty()) => {
            let w = witnessed::witnessed_field(env.doc, gram, current, &votes)?;
            (
                w.targets,
                format!("these nodes carry {} and the XPath's do not", w.why),
            )
        }
        None => return None,
    };
    if scopes == [Item::Node(env.doc.root())]
        && super::surroundings::lookalike(env.doc, gram, &targets)
    {
        return Some(Err(format!(
            "{reason}, but they have another text than the target and stand among none of the texts that surrounded it: a lookalike elsewhere, and the target is gone"
        )));
    }
    let score = signals::evidence(env.doc, gram, &targets)?;
    let bar = if by_text {
        MIN_TEXT_LOCATOR_EVIDENCE
    } else {
        MIN_LOCATOR_EVIDENCE
    };
    Some(Ok(LocatorAnswer {
        chosen: Assignment {
            targets,
            score,
            runner_up: None,
            similarity: score,
        },
        reason,
        sure: score >= bar,
    }))
}

/// Of a field's candidates too close to call (`close`, best first), the one
/// that the locators chose (`voted`: the XPath selecting nothing, or
/// outvoted), proven at capture to select the target, where the structure
/// cannot tell them apart; else the best, when it carries most of the
/// stored sentence's words and the others next to none (an edited
/// paragraph, and the paragraphs around it; a copy beside it carries them
/// as well, and settles nothing). Only the structure's first choice is
/// settled by words: a lookalike left far from where a deleted target
/// stood carries them too.
fn settle<'r>(
    env: &Env<'_>,
    gram: &TreeGram,
    close: &[&'r Ranked],
    voted: Option<&Vec<Item>>,
) -> Option<&'r Ranked> {
    if let Some(nodes) = voted.filter(|n| !n.is_empty())
        && let Some(&chosen) = close.iter().find(|r| r.set == *nodes)
    {
        return Some(chosen);
    }
    let stored = signals::StoredWords::of(gram)?;
    let shared = close
        .iter()
        .map(|r| stored.shared(env.doc, &r.set))
        .collect::<Option<Vec<f64>>>()?;
    let (first, others) = shared.split_first()?;
    (*first >= MIN_WORDS_KEPT && others.iter().all(|&o| o < MAX_WORDS_ELSEWHERE)).then(|| close[0])
}

/// Whether a ballot is the answer of a plain text locator (not of its rank
/// form among copies) that selects one node in every parent instance.
fn plainly_named(gram: &TreeGram, ballot: &votes::Ballot) -> bool {
    ballot.targets.iter().all(|t| t.len() == 1)
        && gram.locators().any(|(l, _)| {
            l.kind == LocatorKind::Text
                && !l.xpath.starts_with('(')
                && ballot.xpaths.contains(&l.xpath)
        })
}

/// Whether a record's stored items, two or more, all had one parent on the
/// capture page: the paths their instances were captured at
/// (`data-mend-path`) differ in their last step only.
fn stored_in_one_container(gram: &TreeGram) -> bool {
    let doc = &gram.doc;
    let parents: Option<std::collections::BTreeSet<&str>> = gram
        .instances
        .iter()
        .map(|i| {
            let mut n = Some(i.root);
            while let Some(e) = n {
                if let Some(path) = doc.attr(e, crate::treegram::PATH_ATTR) {
                    return path.rsplit_once('/').map(|(parent, _)| parent);
                }
                n = doc.parent(e);
            }
            None
        })
        .collect();
    gram.instances.len() >= 2 && parents.is_some_and(|p| p.len() == 1)
}

/// How many distinct parents `items` have.
fn containers(doc: &Document, items: &[Item]) -> usize {
    let parents: std::collections::BTreeSet<_> = items
        .iter()
        .map(|&item| match item {
            Item::Node(n) => doc.parent(n),
            Item::Attr { element, .. } => Some(element),
            _ => None,
        })
        .collect();
    parents.len()
}

/// The retagged target (see `witness::retagged`) of a top-level field, or
/// the one element with its stored paragraph whatever its tag
/// (`witness::with_long_stored_text`), in place of `current`, the XPath's
/// selection, when that is at most one node and has other text than the
/// stored target; with the reason to give.
fn retagged_instead(
    env: &Env<'_>,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Option<(Vec<Vec<Item>>, &'static str)> {
    let [Item::Node(scope)] = scopes else {
        return None;
    };
    let [selected] = current else {
        return None;
    };
    if *scope != env.doc.root() || selected.len() > 1 || signals::same_text(env.doc, gram, current)
    {
        return None;
    }
    let (found, why) = match super::witness::retagged(env.doc, gram) {
        Some(found) => (
            found,
            "the only element with the stored text as written, with the target's classes or tag; the XPath's nodes have other text",
        ),
        None => (
            super::witness::with_long_stored_text(env.doc, gram)?,
            "the only element with the stored paragraph as written, whatever its tag; the XPath's nodes have other text",
        ),
    };
    (selected.first() != Some(&found)).then(|| (vec![vec![found]], why))
}

/// Heals the fields under the record at `path` top-down, with the record's
/// new XPath in `wrapper`: the wrapper, extraction and adaptations that
/// follow, when every field then holds.
fn fields_heal(
    env: &Env<'_>,
    wrapper: &Wrapper,
    extraction: &Extraction,
    path: &PatternPath,
) -> Option<(Wrapper, Extraction, Vec<Adaptation>)> {
    let mut current = wrapper.clone();
    let mut ext = extraction.clone();
    let mut adaptations = Vec::new();
    let record = wrapper.pattern(path)?;
    for child in &record.patterns {
        let child_path = path.child(child.name.clone());
        if !ext.violations.iter().any(|v| v.pattern == child_path) {
            continue;
        }
        let tried = attempt(env, &current, &ext, &child_path, Trigger::TopDown);
        let (w, e) = tried.healed?;
        current = w;
        ext = e;
        adaptations.push(tried.adaptation);
        adaptations.extend(tried.children);
    }
    let clean = !ext
        .violations
        .iter()
        .any(|v| v.pattern != *path && v.pattern.is_within(path));
    clean.then_some((current, ext, adaptations))
}

/// One way of looking for a pattern's nodes: an algorithm under a label
/// mode, and the bar its choice must clear.
#[derive(Clone, Copy, Debug)]
struct Attempt {
    algorithm: Algorithm,
    label: LabelMode,
    /// The least tree similarity of the winner's region.
    threshold: f64,
    /// How far the winner's score must beat the runner-up's.
    margin: f64,
}

/// What the steps before a field's tree search know about where it is.
#[derive(Clone, Copy, Debug)]
struct Hints<'a> {
    /// The old parent's region, for a local change searched there first.
    within: Option<NodeId>,
    /// Per parent instance, the nodes the locators chose, sure or not.
    voted: Option<&'a [Vec<Item>]>,
}

/// The best candidate a decision saw: its score, the runner-up's and its
/// region's similarity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Best {
    pub score: f64,
    pub runner_up: Option<f64>,
    pub similarity: f64,
}

/// Why a decision chose nothing, and the best candidate it saw.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    pub reason: String,
    pub best: Option<Best>,
}

impl Refusal {
    fn new(reason: impl Into<String>, best: Option<Best>) -> Refusal {
        Refusal {
            reason: reason.into(),
            best,
        }
    }
}

/// What a decision chooses: a field's node set in each parent instance, or
/// a record's cluster of instances. The two differ in how candidates are
/// found and in two rules of the choice; the pipeline is the same.
enum Kind<'a> {
    /// A field: the stored context is aligned with regions of the scope, and
    /// the nodes in them are ranked against the marked target.
    Field(FieldSearch<'a>),
    /// A record: every sub-tree of the scope is compared with the stored
    /// instances and alike ones are clustered.
    Record(RecordSearch<'a>),
}

/// What a field's candidates are looked for with.
struct FieldSearch<'a> {
    field: Field<'a>,
    gram: &'a TreeGram,
    views: Vec<Option<LabeledTree>>,
    sentinel: crate::similarity::Label,
}

/// What a record's candidates are looked for with.
struct RecordSearch<'a> {
    pattern: &'a Pattern,
    views: Vec<LabeledTree>,
    /// Whether the pattern matched several instances per scope at capture.
    repeated: bool,
    /// The page's elements in the site's frame, which a record of the
    /// page's own content takes none of.
    frame: Option<&'a std::collections::HashSet<NodeId>>,
}

/// One candidate node set in one scope.
struct Ranked {
    set: Vec<Item>,
    score: f64,
    similarity: f64,
    /// A record cluster's path of tags, for messages; empty for a field.
    key: String,
}

/// Chooses the pattern's nodes in every scope: candidates, then the choice
/// (threshold, margin over the runner-up), scope by scope.
fn decide(
    env: &Env<'_>,
    pattern: &Pattern,
    gram: &TreeGram,
    scopes: &[Item],
    hints: Hints<'_>,
    how: Attempt,
    reports: &mut Vec<CandidateReport>,
) -> Result<Assignment, Refusal> {
    let Hints { within, voted } = hints;
    let mut labels = Labels::new();
    let kind = search_kind(env, pattern, gram, scopes, how, &mut labels)?;
    let mut tally = Tally::default();
    let mut best_seen: Option<Best> = None;
    let mut ambiguous = 0usize;
    let mut refusal = None;
    for (s, &scope) in scopes.iter().enumerate() {
        let reports = (s < 2).then_some(&mut *reports);
        let ranked = match &kind {
            // A field's search of a local change looks in the old parent's
            // region only; what it finds is still written from the scope.
            Kind::Field(search) => search.rank(env, scope, within, how, &mut labels, reports),
            Kind::Record(search) => search
                .rank(env, scope, how, &mut labels, reports)
                .map(|r| r.map_err(|why| refusal = Some(why)).unwrap_or_default()),
        };
        let Some(best) = ranked.as_ref().and_then(|r| r.first()) else {
            tally.targets.push(Vec::new());
            continue;
        };
        let runner = ranked.as_ref().and_then(|r| r.get(1)).map(|r| r.score);
        if best_seen.is_none_or(|b| best.score > b.score) {
            best_seen = Some(Best {
                score: best.score,
                runner_up: runner,
                similarity: best.similarity,
            });
        }
        let ranked = ranked.as_deref().unwrap_or_default();
        match choose_in_scope(
            env,
            pattern,
            &kind,
            ranked,
            how,
            scope,
            voted.and_then(|v| v.get(s)),
        ) {
            InScope::Taken(chosen, runner_up) => tally.take(chosen, runner_up),
            InScope::Ambiguous => {
                ambiguous += 1;
                tally.targets.push(Vec::new());
            }
            InScope::Nothing => tally.targets.push(Vec::new()),
            InScope::Refused(reason) => return Err(Refusal::new(reason, best_seen)),
        }
    }
    if ambiguous > 0 {
        let (b, r) = best_seen.map_or((0.0, None), |b| (b.score, b.runner_up));
        return Err(Refusal::new(
            format!(
                "too close to call in {ambiguous} of {} instances (best {b:.3}, runner-up {})",
                scopes.len(),
                r.map_or("none".to_owned(), |r| format!("{r:.3}"))
            ),
            best_seen,
        ));
    }
    if tally.decided == 0 {
        let reason = match &kind {
            Kind::Field(_) => best_seen.map_or(
                "no candidate passed the field's value constraints".to_owned(),
                |b| {
                    format!(
                        "the best region's similarity {:.3} is under the threshold {}",
                        b.similarity, how.threshold
                    )
                },
            ),
            Kind::Record(_) => refusal.unwrap_or_else(|| "no scope to search".to_owned()),
        };
        return Err(Refusal::new(reason, best_seen));
    }
    Ok(tally.assignment())
}

/// The search a pattern's kind asks for: a record's stored instances
/// against the page's clusters, or a field's stored context against the
/// page's regions, with the views of the tree-gram it compares.
fn search_kind<'a>(
    env: &'a Env<'_>,
    pattern: &'a Pattern,
    gram: &'a TreeGram,
    scopes: &[Item],
    how: Attempt,
    labels: &mut Labels,
) -> Result<Kind<'a>, Refusal> {
    // A pattern of the page's own content is never healed onto the frame
    // every page shares: a menu's label or items, a footer's.
    let frame = if gram.header.frame == Some(false) {
        env.frame()
    } else {
        None
    };
    if pattern.is_record() {
        let views: Vec<LabeledTree> = gram
            .instances
            .iter()
            .filter_map(|gi| {
                LabeledTree::build_masked(&gram.doc, gi.root, how.label, &GramMask, labels).ok()
            })
            .collect();
        if views.is_empty() {
            return Err(Refusal::new("the tree-gram has no usable instance", None));
        }
        return Ok(Kind::Record(RecordSearch {
            pattern,
            views,
            repeated: gram.header.matched >= 2 * scopes.len().max(1),
            frame,
        }));
    }
    let sentinel = labels.intern("\u{1}instance");
    Ok(Kind::Field(FieldSearch {
        views: gram_views(gram, how.label, labels, sentinel),
        sentinel,
        gram,
        field: Field {
            pattern,
            doc: env.doc,
            base: env.base.as_ref(),
            frame,
        },
    }))
}

/// What one parent instance's ranked candidates come to.
enum InScope<'r> {
    /// This candidate, with the best score of the others.
    Taken(&'r Ranked, f64),
    /// A field's candidates too close to call.
    Ambiguous,
    /// No candidate clears the threshold.
    Nothing,
    /// A record's clusters too close to call: the whole search refuses.
    Refused(String),
}

/// The choice among one parent instance's `ranked` candidates, best first.
fn choose_in_scope<'r>(
    env: &Env<'_>,
    pattern: &Pattern,
    kind: &Kind<'_>,
    ranked: &'r [Ranked],
    how: Attempt,
    scope: Item,
    voted: Option<&Vec<Item>>,
) -> InScope<'r> {
    let best = &ranked[0];
    let runner = ranked.get(1).map(|r| r.score);
    let too_close = runner.is_some_and(|r| best.score - r < how.margin);
    // The best candidate of a field's search that the target's text as
    // written names alone (no other element of its tag carried it at
    // capture) is the target, however far the structure around it moved or
    // however close a decoy beside it ranks: neither a decoy nor a
    // lookalike left by a deletion carries that text.
    let named_by_text = matches!(kind, Kind::Field(search)
        if (best.similarity < how.threshold || too_close)
            && votes::text_locator_selects(env.doc, search.gram, scope, &best.set));
    if named_by_text {
        tracing::debug!(pattern = %pattern.name, "the best candidate is named by the stored text");
    }
    // A field's candidates too close to call may still be told apart by
    // the locators' answer or by an edited sentence's words.
    if let Kind::Field(search) = kind
        && too_close
        && !named_by_text
        && best.similarity >= how.threshold
    {
        let close: Vec<&Ranked> = ranked
            .iter()
            .take_while(|r| best.score - r.score < how.margin)
            .collect();
        if let Some(chosen) = settle(env, search.gram, &close, voted) {
            tracing::debug!(pattern = %pattern.name, "a search too close to call is settled");
            // The runner-up of a candidate is the best of the others.
            let other = if std::ptr::eq(chosen, best) {
                runner.unwrap_or(0.0)
            } else {
                best.score
            };
            return InScope::Taken(chosen, other);
        }
    }
    // A record's clusters hold only sub-trees over the threshold already.
    if best.similarity < how.threshold && !named_by_text {
        return InScope::Nothing;
    }
    if too_close && !named_by_text {
        return match kind {
            Kind::Field(_) => InScope::Ambiguous,
            Kind::Record(_) => InScope::Refused(format!(
                "two clusters are too close to call: {} at {:.3} and {} at {:.3}",
                best.key, best.score, ranked[1].key, ranked[1].score
            )),
        };
    }
    InScope::Taken(best, runner.unwrap_or(0.0))
}

/// The candidates taken in each parent instance, and their scores summed.
#[derive(Default)]
struct Tally {
    targets: Vec<Vec<Item>>,
    decided: usize,
    scores: f64,
    runners: f64,
    similarities: f64,
}

impl Tally {
    fn take(&mut self, chosen: &Ranked, runner_up: f64) {
        self.decided += 1;
        self.scores += chosen.score;
        self.runners += runner_up;
        self.similarities += chosen.similarity;
        self.targets.push(chosen.set.clone());
    }

    /// The choice in every instance, scored by the means over the
    /// instances decided.
    fn assignment(self) -> Assignment {
        let n = self.decided as f64;
        Assignment {
            targets: self.targets,
            score: self.scores / n,
            runner_up: Some(self.runners / n),
            similarity: self.similarities / n,
        }
    }
}

impl FieldSearch<'_> {
    /// A field's candidate node sets in one scope, best first; `None` when the
    /// scope has no tree to search.
    fn rank(
        &self,
        env: &Env<'_>,
        scope: Item,
        within: Option<NodeId>,
        how: Attempt,
        labels: &mut Labels,
        reports: Option<&mut Vec<CandidateReport>>,
    ) -> Option<Vec<Ranked>> {
        let FieldSearch {
            field,
            gram,
            views,
            sentinel,
        } = self;
        let (gram, sentinel) = (*gram, *sentinel);
        let page = scope_view(env.doc, scope, within, how.label, labels, sentinel)?;
        // The best score of each candidate node set, with its region's similarity.
        let mut by_set: HashMap<Vec<Item>, (f64, f64)> = HashMap::new();
        for (gi, view) in gram.instances.iter().zip(views) {
            let Some(view) = view else { continue };
            let Some((owner, target)) = gi.targets.first() else {
                continue;
            };
            for region in locate::regions(view, gi, &page, how.algorithm, &env.search) {
                let choices =
                    locate::rank_targets(field, gram, view, (*owner, target), &page, &region);
                // A target the page showed is never healed onto a copy its
                // markup hides: a suggestion panel's buttons, a mobile menu.
                let shown = |c: &&locate::NodeChoice| {
                    gram.header.hidden != Some(false)
                        || !crate::dom::hidden::is_hidden(env.doc, c.owner)
                };
                for choice in choices.iter().filter(|c| c.fits).filter(shown).take(5) {
                    // A list field takes the node's alike siblings only when
                    // it held several alike nodes at capture.
                    let set = if field.pattern.is_single() || gi.targets.len() < 2 {
                        vec![choice.item]
                    } else {
                        locate::list_siblings(env.doc, choice, target)
                    };
                    let score = region.similarity * choice.node_score;
                    let e = by_set.entry(set).or_insert((0.0, 0.0));
                    if score > e.0 {
                        *e = (score, region.similarity);
                    }
                }
            }
        }
        let mut ranked: Vec<Ranked> = by_set
            .into_iter()
            .map(|(set, (score, similarity))| Ranked {
                set,
                score,
                similarity,
                key: String::new(),
            })
            .collect();
        ranked.sort_by(|x, y| y.score.total_cmp(&x.score).then(x.set.cmp(&y.set)));
        if let Some(reports) = reports {
            for (i, r) in ranked.iter().take(REPORTED).enumerate() {
                reports.push(CandidateReport {
                    nodes: r.set.iter().take(3).map(|i| i.path(env.doc)).collect(),
                    count: r.set.len(),
                    score: r.score,
                    similarity: r.similarity,
                    algorithm: how.algorithm,
                    label: how.label,
                    verdict: if i == 0 { "best" } else { "runner-up" }.to_owned(),
                });
            }
        }
        Some(ranked)
    }
}

impl RecordSearch<'_> {
    /// A record's viable clusters in one scope, best first, or why none is
    /// viable; `None` when the scope has no tree to search.
    fn rank(
        &self,
        env: &Env<'_>,
        scope: Item,
        how: Attempt,
        labels: &mut Labels,
        reports: Option<&mut Vec<CandidateReport>>,
    ) -> Option<Result<Vec<Ranked>, String>> {
        let RecordSearch {
            pattern,
            views,
            repeated,
            frame,
        } = self;
        let (pattern, repeated) = (*pattern, *repeated);
        let root = scope_root(env.doc, scope)?;
        let page = LabeledTree::build(env.doc, root, how.label, labels).ok()?;
        let found = clusters(
            env.doc,
            views,
            &page,
            how.algorithm,
            &Rule {
                threshold: how.threshold,
                constraints: &pattern.constraints,
                repeated,
            },
            &env.search,
        );
        let mut found = found;
        if let Some(frame) = frame {
            for c in &mut found {
                if c.not_viable.is_none() && c.members.iter().any(|m| frame.contains(m)) {
                    c.not_viable = Some("its items lie in the site's frame".to_owned());
                }
            }
        }
        if let Some(reports) = reports {
            for c in found.iter().take(REPORTED) {
                reports.push(CandidateReport {
                    nodes: c.members.iter().take(3).map(|&n| env.doc.path(n)).collect(),
                    count: c.members.len(),
                    score: c.score,
                    similarity: c.score,
                    algorithm: how.algorithm,
                    label: how.label,
                    verdict: c
                        .not_viable
                        .clone()
                        .unwrap_or_else(|| format!("a cluster at {}", c.key)),
                });
            }
        }
        let viable: Vec<Ranked> = found
            .iter()
            .filter(|c| c.not_viable.is_none())
            .map(|c| Ranked {
                set: c.members.iter().map(|&n| Item::Node(n)).collect(),
                score: c.score,
                similarity: c.score,
                key: c.key.clone(),
            })
            .collect();
        if viable.is_empty() {
            return Some(Err(match found.first() {
                Some(c) => format!(
                    "no viable cluster; the best, {} nodes at {} scoring {:.3}, is not: {}",
                    c.members.len(),
                    c.key,
                    c.score,
                    c.not_viable.as_deref().unwrap_or("")
                ),
                None => format!("no sub-tree reaches the threshold {}", how.threshold),
            }));
        }
        Some(Ok(viable))
    }
}

/// Generates the XPath for an assignment and proves it by extracting again.
fn prove(
    env: &Env<'_>,
    wrapper: &Wrapper,
    pattern: &Pattern,
    path: &PatternPath,
    scopes: &[Item],
    chosen: &Assignment,
) -> Result<(String, Wrapper, Extraction), String> {
    let instances: Vec<Instance> = scopes
        .iter()
        .zip(&chosen.targets)
        .map(|(&context, targets)| Instance {
            context,
            targets: targets.clone(),
        })
        .collect();
    let options = GenerateOptions {
        max_alternatives: 8,
        // What the wrapper learned to change from load to load (`mend
        // learn`) is no anchor: it would select nothing on the next load.
        unstable: env.unstable_parts(),
        // The layout every page of the site shares is the anchor a later
        // page keeps: its landmarks are preferred.
        landmarks: env.frame().cloned().unwrap_or_default(),
        ..GenerateOptions::default()
    };
    let generated = generate_for_instances(env.doc, &instances, &options)
        .map_err(|e| format!("no XPath could be written for the chosen nodes: {e}"))?;
    // A record's instances are named by one expression of container and
    // item; a union of one positional path per instance fits this page only
    // and breaks at the next added item.
    if pattern.is_record() && generated.fallback && generated.xpath.contains(" | ") {
        return Err(format!(
            "no single expression selects the chosen instances, only a union of their positions ({})",
            generated.xpath
        ));
    }
    let xpath = std::iter::once(generated.xpath.clone())
        .chain(generated.alternatives.iter().cloned())
        .find(|x| !env.rejections.contains(path, x) && x != pattern.xpath.source())
        .ok_or_else(|| "every XPath written for the chosen nodes was rejected before".to_owned())?;
    let compiled = XPath::compile(&xpath)
        .map_err(|e| format!("the generated XPath {xpath} does not compile: {e}"))?;
    let mut healed = wrapper.clone();
    if let Some(p) = healed.pattern_mut(path) {
        p.xpath = compiled;
    }
    let extraction = extract(&healed, env.doc, env.page_url);
    let own: Vec<&Violation> = extraction
        .violations
        .iter()
        .filter(|v| v.pattern == *path)
        .filter(|v| {
            !pattern.is_record()
                || matches!(
                    v.constraint,
                    ViolationKind::Min
                        | ViolationKind::Max
                        | ViolationKind::Required
                        | ViolationKind::Xpath
                )
        })
        .collect();
    if let Some(v) = own.first() {
        return Err(format!(
            "{xpath} fails the constraints: {} expected {}, found {}{}",
            v.constraint,
            v.expected,
            v.found,
            if own.len() > 1 {
                format!(" (and {} more)", own.len() - 1)
            } else {
                String::new()
            }
        ));
    }
    Ok((xpath, healed, extraction))
}

/// The constraints of `pattern`, each with whether it holds after the adaptation.
fn checks(pattern: &Pattern, path: &PatternPath, violations: &[Violation]) -> Vec<Check> {
    use ViolationKind as K;
    let c = &pattern.constraints;
    let declared = [
        (K::Min, c.min.is_some()),
        (K::Max, c.max.is_some()),
        (K::Required, c.required),
        (K::Regex, c.regex.is_some()),
        (K::MinLength, c.min_length.is_some()),
        (K::MaxLength, c.max_length.is_some()),
        (K::Enum, c.one_of.is_some()),
        (K::Minimum, c.minimum.is_some()),
        (K::Maximum, c.maximum.is_some()),
        (K::Schema, c.schema.is_some()),
        (
            K::Type,
            pattern.value_type != crate::wrapper::ValueType::String,
        ),
    ];
    declared
        .into_iter()
        .filter(|&(_, on)| on)
        .map(|(kind, _)| {
            let failed = violations
                .iter()
                .find(|v| v.pattern == *path && v.constraint == kind);
            Check {
                constraint: kind.as_str().to_owned(),
                passed: failed.is_none(),
                detail: failed
                    .map(|v| format!("expected {}, found {}", v.expected, v.found))
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// The views of a tree-gram's instances; an instance rooted at its parent
/// instance gets the shared root label, so that it pairs with the new parent
/// instance whatever that is named now.
fn gram_views(
    gram: &TreeGram,
    label: LabelMode,
    labels: &mut Labels,
    sentinel: crate::similarity::Label,
) -> Vec<Option<LabeledTree>> {
    gram.instances
        .iter()
        .map(|gi| {
            let mut view =
                LabeledTree::build_masked(&gram.doc, gi.root, label, &GramMask, labels).ok()?;
            if gi.at_instance {
                view.relabel_root(sentinel);
            }
            Some(view)
        })
        .collect()
}

/// The view of a scope, or of the region `within` it that a local change is
/// searched in first. A parent instance's root is relabelled to pair with
/// instance-rooted contexts; a region inside it keeps its own label, since
/// it pairs with a stored context root that kept its own (relabelling it
/// made the stored root unmatchable, so a local search ranked only the
/// pieces of the region and took a weaker, sometimes wrong, node).
fn scope_view(
    doc: &Document,
    scope: Item,
    within: Option<NodeId>,
    label: LabelMode,
    labels: &mut Labels,
    sentinel: crate::similarity::Label,
) -> Option<LabeledTree> {
    let instance = scope_root(doc, scope)?;
    let root = within.filter(|&w| doc.is_element(w)).unwrap_or(instance);
    let mut view = LabeledTree::build(doc, root, label, labels).ok()?;
    if root == instance && root != doc.root_element()? {
        view.relabel_root(sentinel);
    }
    Some(view)
}

/// The element a scope's view is rooted at: the instance, or the page's root element.
fn scope_root(doc: &Document, scope: Item) -> Option<NodeId> {
    match scope {
        Item::Node(n) if doc.is_element(n) => Some(n),
        Item::Node(_) => doc.root_element(),
        _ => None,
    }
}

/// The first values of the pattern at `path` in a page's record.
pub(crate) fn values_at(record: &Map<String, Value>, path: &[String]) -> Vec<Value> {
    let mut current: Vec<&Value> = Vec::new();
    let Some((first, rest)) = path.split_first() else {
        return Vec::new();
    };
    if let Some(v) = record.get(first) {
        current.push(v);
    }
    for name in rest {
        current = current
            .into_iter()
            .flat_map(|v| match v {
                Value::Array(items) => items.iter().collect::<Vec<_>>(),
                other => vec![other],
            })
            .filter_map(|v| v.as_object()?.get(name))
            .collect();
    }
    let mut out = Vec::new();
    for v in current {
        match v {
            Value::Array(items) if path.len() == 1 || !items.iter().all(Value::is_object) => {
                out.extend(items.iter().cloned())
            }
            other => out.push(other.clone()),
        }
        if out.len() >= SAMPLES {
            break;
        }
    }
    out.truncate(SAMPLES);
    out
}

fn name(algorithm: Algorithm) -> &'static str {
    algorithm.as_str()
}
