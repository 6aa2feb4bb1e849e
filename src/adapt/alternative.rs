//! Alternative XPaths tried in a pattern's place on one page, before any
//! heal: the XPaths of the pattern's `history` (the fallback chain, for a
//! site that serves two layouts at once), and the heals that other pages of
//! the same run found (one decision per change).
//!
//! An alternative holds on a page when, with it in the pattern's place, the
//! pattern has no violation left: its own constraints and the drift check
//! against its tree-gram. The first alternative that holds is kept, in the
//! order given, and the next violated pattern is tried with it in place, so
//! a record's children are tried inside the record's new instances.
//!
//! The module refuses to search: it only tries what it is given, so that
//! trying costs one extraction per alternative and never a tree matching.

use url::Url;

use super::TreeGrams;
use super::drift::drift;
use crate::dom::Document;
use crate::extract::{Extraction, extract};
use crate::wrapper::{PatternPath, Wrapper};
use crate::xpath::XPath;

/// Where an alternative XPath comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The pattern's `history`: an XPath it had before.
    History,
    /// A heal found on another page of the run.
    Fix,
}

/// An XPath to try in a pattern's place.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// The pattern it would replace the XPath of.
    pub pattern: PatternPath,
    /// The XPath, compiled.
    pub xpath: XPath,
    /// Where it comes from.
    pub origin: Origin,
}

/// A page with the alternatives that held on it in place.
#[derive(Clone, Debug)]
pub struct Substituted {
    /// The wrapper with every alternative that held in place.
    pub wrapper: Wrapper,
    /// The page extracted with that wrapper, drift included.
    pub extraction: Extraction,
    /// The indices, in the list given, of the alternatives that held, in
    /// the order they were put in place.
    pub used: Vec<usize>,
}

impl Substituted {
    /// A page that no alternative was tried on.
    pub fn unchanged(wrapper: &Wrapper, extraction: Extraction) -> Substituted {
        Substituted {
            wrapper: wrapper.clone(),
            extraction,
            used: Vec::new(),
        }
    }
}

/// The XPaths of every pattern's `history`, newest first, as alternatives;
/// an entry that no longer compiles, or that is the pattern's XPath now, is
/// left out.
pub fn history_alternatives(wrapper: &Wrapper) -> Vec<Alternative> {
    let mut out = Vec::new();
    for path in wrapper.pattern_paths() {
        let Some(pattern) = wrapper.pattern(&path) else {
            continue;
        };
        for old in pattern.history.iter().rev() {
            if old == pattern.xpath.source() {
                continue;
            }
            match XPath::compile(old) {
                Ok(xpath) => out.push(Alternative {
                    pattern: path.clone(),
                    xpath,
                    origin: Origin::History,
                }),
                Err(e) => {
                    tracing::debug!(pattern = %path, xpath = %old, error = %e, "a history XPath does not compile")
                }
            }
        }
    }
    out
}

/// Tries `alternatives` on a page whose extraction with `wrapper` (drift
/// included) is `extraction`: for each pattern that is violated, parents
/// first, its alternatives in the order given, keeping the first under
/// which the pattern holds.
pub fn substitute(
    wrapper: &Wrapper,
    doc: &Document,
    page_url: Option<&Url>,
    grams: &TreeGrams,
    extraction: Extraction,
    alternatives: &[Alternative],
) -> Substituted {
    let mut out = Substituted::unchanged(wrapper, extraction);
    if out.extraction.violations.is_empty() || alternatives.is_empty() {
        return out;
    }
    let violated =
        |e: &Extraction, path: &PatternPath| e.violations.iter().any(|v| v.pattern == *path);
    for path in wrapper.pattern_paths() {
        if !violated(&out.extraction, &path) {
            continue;
        }
        let Some(now) = out
            .wrapper
            .pattern(&path)
            .map(|p| p.xpath.source().to_owned())
        else {
            continue;
        };
        for (i, alt) in alternatives.iter().enumerate() {
            if alt.pattern != path || alt.xpath.source() == now {
                continue;
            }
            let mut tried = out.wrapper.clone();
            if let Some(p) = tried.pattern_mut(&path) {
                p.xpath = alt.xpath.clone();
            }
            let mut extraction = extract(&tried, doc, page_url);
            let drifted = drift(&tried, doc, grams, &extraction);
            extraction.violations.extend(drifted);
            if !violated(&extraction, &path) {
                tracing::debug!(pattern = %path, xpath = %alt.xpath.source(), origin = ?alt.origin, "an alternative holds");
                out.wrapper = tried;
                out.extraction = extraction;
                out.used.push(i);
                break;
            }
        }
    }
    out
}
