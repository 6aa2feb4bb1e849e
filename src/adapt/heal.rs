//! The healing pass over a page: which patterns to adapt, in which order, and
//! the two triggers.
//!
//! ## What it refuses
//!
//! A pass adapts only patterns with a violation (drift included) and tries
//! each at most once: a page without violations comes back as extracted. A
//! child of a healed parent is left alone unless the wrapper's `top_down`
//! trigger is on, and a parent is re-located for a child only with
//! `bottom_up` and only if it was not tried already. [`relocate`] gives
//! `None` for a path that names no pattern. Nothing is written: the healed
//! wrapper and the adaptations are returned to the caller.

use std::collections::HashSet;

use url::Url;

use super::drift::drift;
use super::relocate::{Attempted, Env, attempt};
use super::{Adaptation, Rejections, Search, TreeGrams, Trigger};
use crate::dom::Document;
use crate::extract::{Extraction, extract};
use crate::wrapper::{PatternPath, Wrapper};

/// The outcome of healing one page.
#[derive(Clone, Debug)]
pub struct Healing {
    /// The wrapper with every healed XPath in place (unchanged if none healed).
    pub wrapper: Wrapper,
    /// The page extracted with that wrapper.
    pub extraction: Extraction,
    /// Every adaptation, in the order made.
    pub adaptations: Vec<Adaptation>,
}

impl Healing {
    /// Whether any pattern was healed.
    pub fn healed_any(&self) -> bool {
        self.adaptations.iter().any(Adaptation::is_healed)
    }
}

/// Extracts `doc` with `wrapper` and heals every violated pattern that can
/// be healed, parents before children, with the wrapper's triggers.
/// `page_url` is the page's URL, for resolving links.
pub fn heal(
    wrapper: &Wrapper,
    doc: &Document,
    page_url: Option<&Url>,
    grams: &TreeGrams,
    rejections: &Rejections,
) -> Healing {
    heal_with(
        wrapper,
        doc,
        page_url,
        grams,
        rejections,
        &Search::default(),
    )
}

/// [`heal`] with other candidate pre-filters than the measured defaults.
pub fn heal_with(
    wrapper: &Wrapper,
    doc: &Document,
    page_url: Option<&Url>,
    grams: &TreeGrams,
    rejections: &Rejections,
    search: &Search,
) -> Healing {
    let extraction = extract(wrapper, doc, page_url);
    heal_extracted(
        wrapper, doc, page_url, extraction, grams, rejections, search,
    )
}

/// [`heal_with`] for a page the caller has extracted with `wrapper`
/// already: `extraction` is that result, and it is not made again.
pub fn heal_extracted(
    wrapper: &Wrapper,
    doc: &Document,
    page_url: Option<&Url>,
    extraction: Extraction,
    grams: &TreeGrams,
    rejections: &Rejections,
    search: &Search,
) -> Healing {
    let _span = tracing::debug_span!("heal", wrapper = %wrapper.name).entered();
    let env = Env::new(doc, page_url, grams, rejections, search);
    let mut pass = Pass {
        env: &env,
        extraction: with_drift(wrapper, doc, grams, extraction),
        current: wrapper.clone(),
        adaptations: Vec::new(),
        healed: HashSet::new(),
        tried: HashSet::new(),
    };
    if pass.extraction.violations.is_empty() {
        return pass.into_healing();
    }
    let triggers = wrapper.adapt.triggers;
    for path in wrapper.pattern_paths() {
        let parent = path.parent();
        let parent_healed = parent.as_ref().is_some_and(|p| pass.healed.contains(p));
        if parent_healed && !triggers.top_down {
            continue;
        }
        if pass.tried.contains(&path) || !pass.violated(&path) {
            continue;
        }
        pass.tried.insert(path.clone());
        let trigger = if parent_healed {
            Trigger::TopDown
        } else {
            Trigger::Violation
        };
        tracing::debug!(pattern = %path, ?trigger, "adapting");
        let first = attempt(&env, &pass.current, &pass.extraction, &path, trigger);
        if first.healed.is_some() {
            pass.take(&path, first);
            continue;
        }
        match parent.filter(|p| triggers.bottom_up && !pass.tried.contains(p)) {
            Some(parent_path) => pass.bottom_up(&path, parent_path, first.adaptation),
            None => pass.adaptations.push(first.adaptation),
        }
    }
    pass.into_healing()
}

/// The page's extraction `e` with `w`, with the drift violations added:
/// every extraction the pass keeps carries them.
fn with_drift(w: &Wrapper, doc: &Document, grams: &TreeGrams, mut e: Extraction) -> Extraction {
    let found = drift(w, doc, grams, &e);
    e.violations.extend(found);
    e
}

/// One healing pass over a page: the wrapper as healed so far, the page's
/// extraction with it, and what was tried and healed.
struct Pass<'a, 'e> {
    env: &'a Env<'e>,
    current: Wrapper,
    extraction: Extraction,
    adaptations: Vec<Adaptation>,
    healed: HashSet<PatternPath>,
    tried: HashSet<PatternPath>,
}

impl Pass<'_, '_> {
    fn violated(&self, path: &PatternPath) -> bool {
        self.extraction
            .violations
            .iter()
            .any(|v| v.pattern == *path)
    }

    /// Takes a heal of `path`: the extraction that proved it is the page's
    /// extraction now, and the fields healed with a record are healed too.
    fn take(&mut self, path: &PatternPath, done: Attempted) {
        if let Some((w, e)) = done.healed {
            self.extraction = with_drift(&w, self.env.doc, self.env.grams, e);
            self.current = w;
            self.healed.insert(path.clone());
        }
        self.adaptations.push(done.adaptation);
        for child in done.children {
            self.tried.insert(child.pattern.clone());
            self.healed.insert(child.pattern.clone());
            self.adaptations.push(child);
        }
    }

    /// Bottom-up: re-locates the parent record of a pattern that could not
    /// be healed (`child`, its adaptation), then tries the pattern again.
    fn bottom_up(&mut self, path: &PatternPath, parent_path: PatternPath, mut child: Adaptation) {
        self.tried.insert(parent_path.clone());
        let parent = attempt(
            self.env,
            &self.current,
            &self.extraction,
            &parent_path,
            Trigger::BottomUp,
        );
        if parent.healed.is_none() {
            let why = if parent.unchanged {
                "its parent was re-located to the instances it already has".to_owned()
            } else {
                format!(
                    "its parent could not be re-located either: {}",
                    parent.adaptation.reason.as_deref().unwrap_or("")
                )
            };
            child.reason = Some(format!(
                "{}; {why}",
                child.reason.as_deref().unwrap_or("not healed")
            ));
            if !parent.unchanged {
                self.adaptations.push(parent.adaptation);
            }
            self.adaptations.push(child);
            return;
        }
        self.take(&parent_path, parent);
        if !self.violated(path) {
            return;
        }
        let second = attempt(
            self.env,
            &self.current,
            &self.extraction,
            path,
            Trigger::BottomUp,
        );
        if let Some((w, e)) = second.healed {
            self.extraction = with_drift(&w, self.env.doc, self.env.grams, e);
            self.current = w;
            self.healed.insert(path.clone());
        }
        self.adaptations.push(second.adaptation);
        self.adaptations.extend(second.children);
    }

    fn into_healing(self) -> Healing {
        Healing {
            wrapper: self.current,
            extraction: self.extraction,
            adaptations: self.adaptations,
        }
    }
}

/// Re-locates the pattern at `path` (names joined by `/`) whether or not it
/// is violated, as an evaluation does: the adaptation says what mend would
/// choose for it on this page.
pub fn relocate(
    wrapper: &Wrapper,
    path: &PatternPath,
    doc: &Document,
    page_url: Option<&Url>,
    grams: &TreeGrams,
    rejections: &Rejections,
    search: &Search,
) -> Option<Adaptation> {
    wrapper.pattern(path)?;
    let env = Env::new(doc, page_url, grams, rejections, search);
    let extraction = extract(wrapper, doc, page_url);
    let mut attempted = attempt(&env, wrapper, &extraction, path, Trigger::Forced);
    if attempted.unchanged {
        // Re-located to the same nodes: for an evaluation that is a success.
        attempted.adaptation.outcome = super::Outcome::Healed;
        attempted.adaptation.new_xpath = Some(attempted.adaptation.old_xpath.clone());
    }
    Some(attempted.adaptation)
}
