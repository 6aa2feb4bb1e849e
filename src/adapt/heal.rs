//! The healing pass over a page: which patterns to adapt, in which order, and
//! the two triggers.

use std::collections::HashSet;

use url::Url;

use super::relocate::{Env, attempt, find};
use super::{Adaptation, Rejections, Search, TreeGrams, Trigger};
use crate::dom::Document;
use crate::extract::{Extraction, extract, page_base};
use crate::wrapper::{Pattern, Wrapper};

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
    let _span = tracing::debug_span!("heal", wrapper = %wrapper.name).entered();
    let env = Env {
        doc,
        page_url,
        base: page_base(doc, page_url),
        grams,
        rejections,
        search: *search,
    };
    let mut current = wrapper.clone();
    let extract_all = |w: &Wrapper| {
        let mut e = extract(w, doc, page_url);
        e.violations.extend(drift(w, doc, grams, &e));
        e
    };
    let mut extraction = extract_all(&current);
    let mut adaptations = Vec::new();
    if extraction.violations.is_empty() {
        return Healing {
            wrapper: current,
            extraction,
            adaptations,
        };
    }
    let triggers = wrapper.adapt.triggers;
    let mut healed: HashSet<String> = HashSet::new();
    let mut tried: HashSet<String> = HashSet::new();
    for path in preorder(&wrapper.patterns) {
        let key = path.join("/");
        let parent_key = path[..path.len() - 1].join("/");
        let parent_healed = path.len() > 1 && healed.contains(&parent_key);
        if parent_healed && !triggers.top_down {
            continue;
        }
        if tried.contains(&key) || !extraction.violations.iter().any(|v| v.pattern == key) {
            continue;
        }
        tried.insert(key.clone());
        let trigger = if parent_healed {
            Trigger::TopDown
        } else {
            Trigger::Violation
        };
        tracing::debug!(pattern = %key, ?trigger, "adapting");
        let first = attempt(&env, &current, &extraction, &path, trigger);
        if let Some((w, _)) = first.healed {
            extraction = extract_all(&w);
            current = w;
            healed.insert(key);
            adaptations.push(first.adaptation);
            for child in first.children {
                tried.insert(child.pattern.clone());
                healed.insert(child.pattern.clone());
                adaptations.push(child);
            }
            continue;
        }
        // Bottom-up: re-locate the parent record, then try the child again.
        let parent_path = &path[..path.len() - 1];
        if !triggers.bottom_up || parent_path.is_empty() || tried.contains(&parent_key) {
            adaptations.push(first.adaptation);
            continue;
        }
        tried.insert(parent_key.clone());
        let parent = attempt(&env, &current, &extraction, parent_path, Trigger::BottomUp);
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
        let _ = e;
        extraction = extract_all(&w);
        current = w;
        healed.insert(parent_key);
        adaptations.push(parent.adaptation);
        for child in parent.children {
            tried.insert(child.pattern.clone());
            healed.insert(child.pattern.clone());
            adaptations.push(child);
        }
        if !extraction.violations.iter().any(|v| v.pattern == key) {
            continue;
        }
        let second = attempt(&env, &current, &extraction, &path, Trigger::BottomUp);
        if let Some((w, _)) = second.healed {
            extraction = extract_all(&w);
            current = w;
            healed.insert(key);
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
    path: &str,
    doc: &Document,
    page_url: Option<&Url>,
    grams: &TreeGrams,
    rejections: &Rejections,
    search: &Search,
) -> Option<Adaptation> {
    let names: Vec<String> = path.split('/').map(str::to_owned).collect();
    find(&wrapper.patterns, &names)?;
    let env = Env {
        doc,
        page_url,
        base: page_base(doc, page_url),
        grams,
        rejections,
        search: *search,
    };
    let extraction = extract(wrapper, doc, page_url);
    let mut attempted = attempt(&env, wrapper, &extraction, &names, Trigger::Forced);
    if attempted.unchanged {
        // Re-located to the same nodes: for an evaluation that is a success.
        attempted.adaptation.outcome = super::Outcome::Healed;
        attempted.adaptation.new_xpath = Some(attempted.adaptation.old_xpath.clone());
    }
    Some(attempted.adaptation)
}

/// The silent breakage that constraints cannot see: a pattern that matched
/// nodes when its tree-gram was captured and now matches nothing in any
/// instance of its parent, though its constraints allow that (an optional
/// field). Each is reported as a violation of the `treegram` constraint.
fn drift(
    wrapper: &Wrapper,
    doc: &Document,
    grams: &TreeGrams,
    extraction: &Extraction,
) -> Vec<crate::extract::Violation> {
    let mut out = Vec::new();
    for path in preorder(&wrapper.patterns) {
        let key = path.join("/");
        let Some(gram) = grams.get(&key) else {
            continue;
        };
        if gram.header.matched == 0 || extraction.violations.iter().any(|v| v.pattern == key) {
            continue;
        }
        let Some(pattern) = find(&wrapper.patterns, &path) else {
            continue;
        };
        let scopes = super::relocate::scopes(wrapper, doc, &path);
        let matches_somewhere = scopes.iter().any(|&s| {
            !matches!(pattern.xpath.evaluate_item(doc, s), Ok(crate::xpath::Value::Nodes(n)) if n.is_empty())
        });
        if !scopes.is_empty() && !matches_somewhere {
            out.push(crate::extract::Violation {
                pattern: key,
                constraint: "treegram",
                expected: format!(
                    "matches, as its {} when the tree-gram was captured",
                    plural(gram.header.matched)
                ),
                found: format!("no match in any of {}", plural_instances(scopes.len())),
                context: "/".to_owned(),
                node: None,
            });
        }
    }
    out
}

fn plural(n: usize) -> String {
    if n == 1 {
        "1 match did".to_owned()
    } else {
        format!("{n} matches did")
    }
}

fn plural_instances(n: usize) -> String {
    if n == 1 {
        "1 parent instance".to_owned()
    } else {
        format!("{n} parent instances")
    }
}

/// Every pattern's path of names, parents before children.
fn preorder(patterns: &[Pattern]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<String>, &Pattern)> = patterns
        .iter()
        .rev()
        .map(|p| (vec![p.name.clone()], p))
        .collect();
    while let Some((path, p)) = stack.pop() {
        for child in p.patterns.iter().rev() {
            let mut child_path = path.clone();
            child_path.push(child.name.clone());
            stack.push((child_path, child));
        }
        out.push(path);
    }
    out
}
