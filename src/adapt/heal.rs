//! The healing pass over a page: which patterns to adapt, in which order, and
//! the two triggers.

use std::collections::HashSet;

use url::Url;

use super::drift::drift;
use super::relocate::{Env, attempt};
use super::{Adaptation, Rejections, Search, TreeGrams, Trigger};
use crate::dom::Document;
use crate::extract::{Extraction, extract, page_base};
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
    let env = Env {
        doc,
        page_url,
        base: page_base(doc, page_url),
        grams,
        rejections,
        search: *search,
        frame: std::cell::OnceCell::new(),
        facts: std::cell::OnceCell::new(),
        judged: std::cell::RefCell::default(),
    };
    // Every extraction the pass keeps carries the drift violations too.
    let with_drift = |w: &Wrapper, mut e: Extraction| {
        let found = drift(w, doc, grams, &e);
        e.violations.extend(found);
        e
    };
    let mut current = wrapper.clone();
    let mut extraction = with_drift(&current, extraction);
    let mut adaptations = Vec::new();
    if extraction.violations.is_empty() {
        return Healing {
            wrapper: current,
            extraction,
            adaptations,
        };
    }
    let triggers = wrapper.adapt.triggers;
    let mut healed: HashSet<PatternPath> = HashSet::new();
    let mut tried: HashSet<PatternPath> = HashSet::new();
    let violated =
        |e: &Extraction, path: &PatternPath| e.violations.iter().any(|v| v.pattern == *path);
    for path in wrapper.pattern_paths() {
        let parent = path.parent();
        let parent_healed = parent.as_ref().is_some_and(|p| healed.contains(p));
        if parent_healed && !triggers.top_down {
            continue;
        }
        if tried.contains(&path) || !violated(&extraction, &path) {
            continue;
        }
        tried.insert(path.clone());
        let trigger = if parent_healed {
            Trigger::TopDown
        } else {
            Trigger::Violation
        };
        tracing::debug!(pattern = %path, ?trigger, "adapting");
        let first = attempt(&env, &current, &extraction, &path, trigger);
        if let Some((w, e)) = first.healed {
            // The extraction that proved the heal is the page's extraction now.
            extraction = with_drift(&w, e);
            current = w;
            healed.insert(path);
            adaptations.push(first.adaptation);
            for child in first.children {
                tried.insert(child.pattern.clone());
                healed.insert(child.pattern.clone());
                adaptations.push(child);
            }
            continue;
        }
        // Bottom-up: re-locate the parent record, then try the child again.
        let Some(parent_path) = parent.filter(|p| triggers.bottom_up && !tried.contains(p)) else {
            adaptations.push(first.adaptation);
            continue;
        };
        tried.insert(parent_path.clone());
        let parent = attempt(&env, &current, &extraction, &parent_path, Trigger::BottomUp);
        let Some((w, e)) = parent.healed else {
            let mut child = first.adaptation;
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
                adaptations.push(parent.adaptation);
            }
            adaptations.push(child);
            continue;
        };
        extraction = with_drift(&w, e);
        current = w;
        healed.insert(parent_path);
        adaptations.push(parent.adaptation);
        for child in parent.children {
            tried.insert(child.pattern.clone());
            healed.insert(child.pattern.clone());
            adaptations.push(child);
        }
        if !violated(&extraction, &path) {
            continue;
        }
        let second = attempt(&env, &current, &extraction, &path, Trigger::BottomUp);
        if let Some((w, e)) = second.healed {
            extraction = with_drift(&w, e);
            current = w;
            healed.insert(path);
        }
        adaptations.push(second.adaptation);
        adaptations.extend(second.children);
    }
    Healing {
        wrapper: current,
        extraction,
        adaptations,
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
    let env = Env {
        doc,
        page_url,
        base: page_base(doc, page_url),
        grams,
        rejections,
        search: *search,
        frame: std::cell::OnceCell::new(),
        facts: std::cell::OnceCell::new(),
        judged: std::cell::RefCell::default(),
    };
    let extraction = extract(wrapper, doc, page_url);
    let mut attempted = attempt(&env, wrapper, &extraction, path, Trigger::Forced);
    if attempted.unchanged {
        // Re-located to the same nodes: for an evaluation that is a success.
        attempted.adaptation.outcome = super::Outcome::Healed;
        attempted.adaptation.new_xpath = Some(attempted.adaptation.old_xpath.clone());
    }
    Some(attempted.adaptation)
}
