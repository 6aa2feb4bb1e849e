//! Adaptation: when a page breaks a pattern, find its data again, write a new
//! XPath for it and prove the XPath with the pattern's constraints.
//!
//! [`heal()`] extracts the page, and for each violated pattern, parents before
//! children:
//!
//! 1. **Candidates.** The pattern's tree-gram is compared with the page,
//!    within each instance of the parent pattern. A record pattern's stored
//!    instances are compared with every sub-tree of the scope, and similar
//!    sub-trees reached by the same path of tags form clusters
//!    (`cluster.rs`). A field's stored context is compared with the parent
//!    instance (or found by a sweep, `locate.rs`), and inside the best
//!    regions every node that could hold the value is weighed: where the
//!    alignment puts it (`sequence_alignment.rs`, and the tree matching's own
//!    alignment) and how much it looks like the target (`likeness.rs`).
//!    A node whose value fails the field's value constraints is no candidate.
//! 2. **Choice.** The winner's region must reach the wrapper's `threshold`
//!    in tree similarity, and the winner must beat the runner-up (a
//!    different node set) by `margin`. A record takes a whole cluster, and a
//!    cluster must fit the record's `min`/`max` and repeat if the pattern
//!    matched several instances when it was captured.
//! 3. **Proof.** An XPath relative to the parent instance is generated for
//!    the chosen nodes (`xpath::generate`), skipping any that a person
//!    rejected; the page is extracted again with it, and every constraint of
//!    the pattern must hold (a record's own occurrence constraints; its
//!    children are checked and healed next, top-down).
//! 4. **Otherwise** the next algorithm, then the next label mode (the
//!    wrapper's, then plain tags, which survive renamed classes), is tried;
//!    in the end mend abstains and says why, with the best candidates.
//!
//! Triggers, per wrapper: top-down (after a record is healed, its children
//! are re-checked and healed) and bottom-up (a child that cannot be healed
//! has its parent re-located first, then is tried again). A pattern whose
//! XPath still matches but whose values fail their constraints (it points at
//! the wrong element) is healed like one that matches nothing.
//!
//! ## Scores
//!
//! A field candidate's score is `similarity × (0.5 + 0.5 × node)`, where
//! `similarity` is the region's tree similarity in [0, 1] (simple tree
//! matching as the Dice coefficient of its pairs) and `node` the node's own
//! evidence in [0, 1]; a record cluster's score is its members' mean
//! similarity. The threshold applies to the similarity, the margin to the
//! score.
//!
//! ## What it refuses
//!
//! The module is pure: it reads a wrapper, a parsed page, tree-grams and the
//! rejected XPaths, and returns data; storing adaptations and rewriting
//! wrapper files is the caller's job. It never returns a healed pattern whose
//! constraints fail, nor an XPath a person rejected for that pattern, nor a
//! node set that such an XPath selects.

#[cfg(test)]
mod absent_tests;
mod alternative;
#[cfg(test)]
mod beside_tests;
mod capture_pages;
mod change_scope;
#[cfg(test)]
mod change_scope_tests;
mod cluster;
mod confidence;
mod context_similarity;
#[cfg(test)]
mod copies_tests;
mod drift;
#[cfg(test)]
mod first_use_tests;
mod heal;
mod item_witness;
mod likeness;
mod locate;
mod model;
mod other_stored;
mod relaxed;
mod relocate;
#[cfg(test)]
mod second_page_tests;
mod selection;
mod sequence_alignment;
#[cfg(test)]
mod settle_tests;
mod signals;
mod surroundings;
mod votes;
mod witness;
mod witnessed;
#[cfg(test)]
mod wrapped_tests;

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

pub use alternative::{Alternative, Origin, Substituted, history_alternatives, substitute};
pub use capture_pages::MAX_CAPTURE_PAGE_BYTES;
pub use change_scope::{ChangeScope, MAX_CANDIDATES, PageFacts, Sensed, sense};
pub use confidence::{Evidence, Source, confidence};
pub use drift::drift;
pub use heal::{Healing, heal, heal_extracted, heal_with, relocate};
pub use model::{FEATURES, Model, model};

use crate::dom::Document;
use crate::extract::Violation;
use crate::similarity::{Algorithm, LabelMode};
use crate::treegram::{CaptureOptions, TreeGram, capture};
use crate::wrapper::{PatternPath, Wrapper};
use capture_pages::CapturePages;

/// The candidate pre-filters of a search. The defaults are the measured
/// ones (`examples/heal_eval.rs --filters` compares them with none). On the
/// evaluation pages (google.com versions, mutated real pages) the tag filter
/// changes no result and a region size ratio of 10 none either, while
/// halving the time per case on google.com (14.5 ms against 20–23 ms with
/// no ratio); a ratio of 3 cost four correct google.com relocations of 17.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    /// Simple and clustered tree matching consider only candidate roots with
    /// the stored root's tag (their score is 0 for any other root anyway,
    /// unless the root is renamed, which bigram and Jaro-Winkler handle).
    pub same_tag: bool,
    /// Bigram and Jaro-Winkler consider only regions within this factor of
    /// the stored context's size, either way.
    pub region_size_ratio: Option<f64>,
    /// A record's new instances lie within this factor of the stored
    /// instances' size: a card's heading resembles a card too closely under
    /// Jaro-Winkler, which rewards a short sequence found whole.
    pub record_size_ratio: Option<f64>,
}

impl Default for Search {
    fn default() -> Self {
        Search {
            same_tag: true,
            region_size_ratio: Some(10.0),
            record_size_ratio: Some(2.0),
        }
    }
}

/// The tree-grams of a wrapper's patterns, by pattern path (`book/price`),
/// and the templates learned about its pages: the site's template (`mend
/// template`), whose frame a pattern of the page's own content is never
/// healed onto, and the template of what changes from load to load (`mend
/// learn`), which no XPath a heal generates tests.
#[derive(Debug, Default)]
pub struct TreeGrams {
    by_pattern: HashMap<PatternPath, TreeGram>,
    site: Option<crate::site_template::SiteTemplate>,
    unstable: Option<crate::unstable::HtmlTemplate>,
    pages: CapturePages,
}

impl TreeGrams {
    /// No tree-grams.
    pub fn new() -> TreeGrams {
        TreeGrams::default()
    }

    /// The tree-grams of `wrapper`'s patterns captured on `doc`, read back
    /// as their files would be, without the files.
    pub fn capture(wrapper: &Wrapper, doc: &Document, options: &CaptureOptions<'_>) -> TreeGrams {
        let mut grams = TreeGrams::new();
        for c in capture(wrapper, doc, options).0 {
            // Capture leaves out what would not read back, so this holds.
            if let Ok(gram) = TreeGram::parse(c.html.as_bytes()) {
                grams.insert(c.pattern, gram);
            }
        }
        grams
    }

    /// Sets the template of what changes from load to load (`mend learn`),
    /// which no XPath a heal generates may test.
    pub fn set_unstable_template(&mut self, template: Option<crate::unstable::HtmlTemplate>) {
        self.unstable = template;
    }

    /// The template of what changes from load to load, when one is known.
    pub fn unstable_template(&self) -> Option<&crate::unstable::HtmlTemplate> {
        self.unstable.as_ref()
    }

    /// Sets the site's template.
    pub fn set_site_template(&mut self, site: Option<crate::site_template::SiteTemplate>) {
        self.site = site;
    }

    /// The site's template, when one is known.
    pub fn site_template(&self) -> Option<&crate::site_template::SiteTemplate> {
        self.site.as_ref()
    }

    /// The SHA-256 of each page a tree-gram was captured on whose bytes are
    /// not kept yet, each once, in a stable order.
    pub fn missing_pages(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .by_pattern
            .values()
            .map(|g| g.header.sha256.clone())
            .filter(|h| !h.is_empty() && !self.pages.has(h))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Keeps the bytes of a page the tree-grams were captured on, by its
    /// SHA-256 (which the caller checked): proofs try a heal's XPath there.
    /// A page over [`MAX_CAPTURE_PAGE_BYTES`] is not kept.
    pub fn keep_page(&mut self, sha256: &str, bytes: Vec<u8>) {
        self.pages.keep(sha256, bytes);
    }

    /// The whole page `gram` was captured on, when it is kept.
    pub fn page_of(&self, gram: &TreeGram) -> Option<std::sync::Arc<Document>> {
        self.pages.of(gram)
    }

    /// Adds the tree-gram of the pattern at `path`.
    pub fn insert(&mut self, path: PatternPath, gram: TreeGram) {
        self.by_pattern.insert(path, gram);
    }

    /// The tree-gram of the pattern at `path`.
    pub fn get(&self, path: &PatternPath) -> Option<&TreeGram> {
        self.by_pattern.get(path)
    }

    /// How many patterns have a tree-gram.
    pub fn len(&self) -> usize {
        self.by_pattern.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_pattern.is_empty()
    }

    /// The same tree-grams without their locator ensembles, as tree-grams
    /// captured before mend kept ensembles read.
    #[cfg(test)]
    pub(crate) fn without_locators(mut self) -> TreeGrams {
        for gram in self.by_pattern.values_mut() {
            gram.header.locators.clear();
        }
        self
    }
}

/// XPaths that people rejected, by pattern path: never proposed again, and
/// the nodes they select are never chosen again.
#[derive(Clone, Debug, Default)]
pub struct Rejections {
    by_pattern: HashMap<PatternPath, HashSet<String>>,
}

impl Rejections {
    /// No rejections.
    pub fn new() -> Rejections {
        Rejections::default()
    }

    /// Records that `xpath` was rejected for the pattern at `path`.
    pub fn insert(&mut self, path: PatternPath, xpath: impl Into<String>) {
        self.by_pattern
            .entry(path)
            .or_default()
            .insert(xpath.into());
    }

    /// The rejected XPaths of the pattern at `path`, in a stable order.
    pub fn of(&self, path: &PatternPath) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .by_pattern
            .get(path)
            .map(|s| s.iter().map(String::as_str).collect())
            .unwrap_or_default();
        out.sort_unstable();
        out
    }

    /// Whether `xpath` was rejected for the pattern at `path`.
    pub fn contains(&self, path: &PatternPath, xpath: &str) -> bool {
        self.by_pattern.get(path).is_some_and(|s| s.contains(xpath))
    }
}

/// What an adaptation came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A new XPath was found and proven.
    Healed,
    /// The evidence was too weak or too close to call, or nothing passed the constraints.
    Abstained,
    /// The only candidates were ones a person had rejected.
    Rejected,
}

/// Why a pattern was adapted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// Its own constraints failed.
    Violation,
    /// Its parent record was healed, and it failed in the new instances.
    TopDown,
    /// A child could not be healed, so the parent was re-located first; or
    /// the child's second try after that.
    BottomUp,
    /// The caller asked for it (evaluation, `relocate`).
    Forced,
}

/// One candidate an adaptation considered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CandidateReport {
    /// Canonical paths of its first nodes.
    pub nodes: Vec<String>,
    /// How many nodes it has, over all parent instances.
    pub count: usize,
    /// Its score (see the module documentation).
    pub score: f64,
    /// The tree similarity of its region.
    pub similarity: f64,
    /// The algorithm that scored it.
    pub algorithm: Algorithm,
    /// The label mode it was scored with.
    pub label: LabelMode,
    /// What became of it: chosen, or why not.
    pub verdict: String,
}

/// One candidate the model judged during an adaptation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Proposal {
    /// The path that proposed it.
    pub source: Source,
    /// Canonical paths of its first nodes.
    pub nodes: Vec<String>,
    /// How many nodes it has, over all parent instances.
    pub count: usize,
    /// The model's confidence in it.
    pub confidence: f64,
    /// What the model read.
    pub evidence: Evidence,
}

/// One constraint checked after an adaptation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// The constraint (`min`, `regex`, ...).
    pub constraint: String,
    /// Whether it held.
    pub passed: bool,
    /// What was expected and found, when it failed.
    pub detail: String,
}

/// The record of one adaptation: what broke, what was considered, what was chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Adaptation {
    /// The pattern's path of names (`book/price`).
    pub pattern: PatternPath,
    /// The XPath that broke.
    pub old_xpath: String,
    /// The proven XPath, when healed.
    pub new_xpath: Option<String>,
    /// What it came to.
    pub outcome: Outcome,
    /// Why it ran.
    pub trigger: Trigger,
    /// How the page changed around the pattern (`change_scope.rs`), when
    /// the pattern has a tree-gram to sense it against.
    pub change_scope: Option<ChangeScope>,
    /// Whether the heal was found inside the old parent's region, searched
    /// first for a local change, rather than in the whole scope.
    pub found_in_parent: bool,
    /// The algorithm of the winning candidate.
    pub algorithm: Option<Algorithm>,
    /// The label mode of the winning candidate.
    pub label: Option<LabelMode>,
    /// The winner's score (or the best candidate's, when abstaining).
    pub score: Option<f64>,
    /// The runner-up's score.
    pub runner_up: Option<f64>,
    /// The tree similarity of the winner's region.
    pub similarity: Option<f64>,
    /// What the winner's confidence was computed from.
    pub evidence: Option<Evidence>,
    /// What the model read of the nodes the pattern's XPath selected when
    /// the adaptation began (a field's, when it selected any).
    pub selection: Option<Evidence>,
    /// Every candidate the model judged, in the order the paths proposed
    /// them: the first that cleared the bar and was proven is the heal.
    pub proposals: Vec<Proposal>,
    /// The winner's calibrated confidence in [0, 1]: the estimated chance
    /// that it is the right node set (see `confidence.rs`).
    pub confidence: Option<f64>,
    /// Why, in words, when it did not heal (or what was notable when it did).
    pub reason: Option<String>,
    /// Every candidate considered, in the order considered.
    pub candidates: Vec<CandidateReport>,
    /// Values the old XPath gave (the first few).
    pub before: Vec<Value>,
    /// Values the new XPath gives (the first few).
    pub after: Vec<Value>,
    /// The pattern's constraints after the adaptation.
    pub checks: Vec<Check>,
    /// The violations that triggered it.
    pub violations: Vec<Violation>,
}

impl Adaptation {
    /// An adaptation of `pattern`, whose XPath was `old_xpath`, not yet
    /// decided: it abstains, with nothing considered, read or checked.
    pub fn undecided(pattern: PatternPath, old_xpath: String, trigger: Trigger) -> Adaptation {
        Adaptation {
            pattern,
            old_xpath,
            new_xpath: None,
            outcome: Outcome::Abstained,
            trigger,
            change_scope: None,
            found_in_parent: false,
            algorithm: None,
            label: None,
            score: None,
            runner_up: None,
            similarity: None,
            evidence: None,
            selection: None,
            proposals: Vec::new(),
            confidence: None,
            reason: None,
            candidates: Vec::new(),
            before: Vec::new(),
            after: Vec::new(),
            checks: Vec::new(),
            violations: Vec::new(),
        }
    }

    /// Whether a new XPath was found and proven.
    pub fn is_healed(&self) -> bool {
        self.outcome == Outcome::Healed
    }
}
