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
//!
//! This file holds the attempt and what its sources share. The parts:
//! `sources.rs` (the candidate sources asked before the tree search),
//! `tree_search.rs` (the tree search over algorithms and label modes, and
//! what it learned from the candidates it did not take), `search.rs` (one
//! search: ranking and the choice in each scope), `evidence.rs` (what a
//! candidate is judged on) and `prove.rs` (the XPath generated and proven).
//! The parts use one another only downwards in that order, and each
//! imports the attempt's names from here.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::rc::Rc;

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
use crate::treegram::{GramMask, LocatorKind, Signature, TreeGram};
use crate::wrapper::{Pattern, PatternPath, SearchScope, Wrapper};
use crate::xpath::generate::{GenerateOptions, Instance, SeenValues, generate_for_instances};
use crate::xpath::{Item, XPath};

mod evidence;
mod prove;
mod search;
mod sources;
mod tree_search;

use evidence::*;
use prove::*;
use search::*;

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
    /// The labelled views of the page its tree searches share.
    pub views: std::cell::RefCell<search::PageViews>,
    /// What the plain text locators of a tree-gram (by address) select in
    /// a scope: every search of a pass asks it of its first choice, and on
    /// a large page each evaluation scans the page.
    pub text_selections: std::cell::RefCell<TextSelections>,
    /// What candidate XPaths selected on the page, shared by every proof
    /// of a heal on it: a proof's search and its verification try many of
    /// the same expressions, and the heals of one page's patterns more.
    pub selections: std::sync::Arc<crate::xpath::generate::Selections>,
    /// The signature of each tree-gram's target that had copies at capture
    /// (by address), with how many elements of the page have it now once a
    /// candidate with that signature asked.
    pub copies: std::cell::RefCell<HashMap<usize, Option<CopiesNow>>>,
    /// What each tree-gram's page held (by address), read once for every
    /// proof of a heal of its pattern on the page.
    pub seen: std::cell::RefCell<HashMap<usize, std::sync::Arc<SeenValues>>>,
}

/// What `gram`'s pattern selected on the whole page it was captured on:
/// its XPath then, from the document for a pattern at the top; nothing for
/// a nested pattern, whose XPath runs from its parent's instances, or for
/// an XPath that does not evaluate there.
fn captured_on(page: &Document, gram: &TreeGram) -> Vec<Item> {
    if gram.header.pattern.contains('/') {
        return Vec::new();
    }
    XPath::compile(&gram.header.xpath)
        .ok()
        .and_then(|x| x.select_item(page, Item::Node(page.root())).ok())
        .unwrap_or_default()
}

/// What the plain text locators of a tree-gram select, by tree-gram
/// address and scope.
pub(crate) type TextSelections = HashMap<(usize, Item), Rc<[Vec<Item>]>>;

/// A tree-gram target's signature, and how many elements of the page have
/// it, counted when first needed.
pub(crate) type CopiesNow = (Signature, Option<usize>);

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
            views: std::cell::RefCell::default(),
            text_selections: std::cell::RefCell::default(),
            selections: std::sync::Arc::new(crate::xpath::generate::Selections::new(doc)),
            copies: std::cell::RefCell::default(),
            seen: std::cell::RefCell::default(),
        }
    }

    /// The values `gram`'s page held, read the first time a proof asks.
    pub(crate) fn seen_values(&self, gram: &TreeGram) -> std::sync::Arc<SeenValues> {
        let key = std::ptr::from_ref(gram) as usize;
        std::sync::Arc::clone(self.seen.borrow_mut().entry(key).or_insert_with(|| {
            // The whole capture page when the store kept it; else
            // the neighbourhood the tree-gram keeps of it.
            let seen = match self.grams.page_of(gram) {
                Some(page) => {
                    let captured = captured_on(&page, gram);
                    SeenValues::of_capture(&gram.doc, page, captured)
                }
                None => SeenValues::of(&gram.doc),
            };
            std::sync::Arc::new(seen)
        }))
    }

    /// Whether `set` is one node that a plain text locator of `gram`
    /// selects alone in `scope` ([`votes::names_alone`]), each
    /// locator evaluated once per scope and page.
    pub(crate) fn named_by_text(&self, gram: &TreeGram, scope: Item, set: &[Item]) -> bool {
        if set.len() != 1 {
            return false;
        }
        let key = (std::ptr::from_ref(gram) as usize, scope);
        let cached = self.text_selections.borrow().get(&key).cloned();
        let selections = cached.unwrap_or_else(|| {
            let made: Rc<[Vec<Item>]> =
                votes::text_locator_selections(self.doc, gram, scope).into();
            self.text_selections
                .borrow_mut()
                .insert(key, Rc::clone(&made));
            made
        });
        votes::names_alone(&selections, set)
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

/// The least confidence a heal needs: the wrapper's own, or the model's,
/// chosen on validation sites.
fn min_confidence(settings: &crate::wrapper::AdaptSettings) -> f64 {
    settings
        .min_confidence
        .unwrap_or_else(|| super::model::model().threshold)
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

/// The element a scope's view is rooted at: the instance, or the page's root element.
fn scope_root(doc: &Document, scope: Item) -> Option<NodeId> {
    match scope {
        Item::Node(n) if doc.is_element(n) => Some(n),
        Item::Node(_) => doc.root_element(),
        _ => None,
    }
}
