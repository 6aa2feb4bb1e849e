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
//! trying costs one extraction of the pattern's top-level part per
//! alternative and never a tree matching.

use url::Url;

use super::TreeGrams;
use super::drift::drift;
use crate::dom::Document;
use crate::extract::{Extraction, Violation, extract};
use crate::wrapper::{PatternPath, Wrapper};
use crate::xpath::XPath;

/// Where an alternative XPath comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The pattern's `history`: an XPath it had before.
    History,
    /// A heal found on another page of the run.
    Fix,
    /// A heal another process working on the same job found, whose
    /// decision is still open (a crawl job's workers count the pages it
    /// holds on before it is written).
    Pending,
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
        let top = PatternPath::top(top_name(&path));
        for (i, alt) in alternatives.iter().enumerate() {
            if alt.pattern != path || alt.xpath.source() == now {
                continue;
            }
            let mut tried = out.wrapper.clone();
            if let Some(p) = tried.pattern_mut(&path) {
                p.xpath = alt.xpath.clone();
            }
            let part = checked_part(&tried, &top, doc, page_url, grams);
            if !violated(&part, &path) {
                tracing::debug!(pattern = %path, xpath = %alt.xpath.source(), origin = ?alt.origin, "an alternative holds");
                out.extraction = merged(&tried, &out.extraction, &top, part);
                out.wrapper = tried;
                out.used.push(i);
                break;
            }
        }
    }
    out
}

/// The extraction, drift included, of the top-level pattern `top` of
/// `wrapper` alone. Top-level patterns are extracted and checked for drift
/// independently of one another, so trying an XPath in one of them only
/// needs that pattern's part of the page read again.
fn checked_part(
    wrapper: &Wrapper,
    top: &PatternPath,
    doc: &Document,
    page_url: Option<&Url>,
    grams: &TreeGrams,
) -> Extraction {
    let mut alone = wrapper.clone();
    alone.patterns.retain(|p| p.name == top.name());
    let mut extraction = extract(&alone, doc, page_url);
    let drifted = drift(&alone, doc, grams, &extraction);
    extraction.violations.extend(drifted);
    extraction
}

/// `whole` with the part of `top` replaced by `part`, in the order a whole
/// extraction gives: the record's keys in the wrapper's order, then the
/// constraints' violations pattern by pattern, then the drift check's.
fn merged(
    wrapper: &Wrapper,
    whole: &Extraction,
    top: &PatternPath,
    part: Extraction,
) -> Extraction {
    let mut record = whole.record.clone();
    if let Some(value) = part.record.get(top.name()) {
        record.insert(top.name().to_owned(), value.clone());
    }
    let of = |v: &Violation, name: &str| top_name(&v.pattern) == name;
    let mut violations = Vec::with_capacity(whole.violations.len() + part.violations.len());
    for drift_pass in [false, true] {
        for pattern in &wrapper.patterns {
            let source = if pattern.name == top.name() {
                &part.violations
            } else {
                &whole.violations
            };
            violations.extend(
                source
                    .iter()
                    .filter(|v| v.is_drift() == drift_pass && of(v, &pattern.name))
                    .cloned(),
            );
        }
    }
    Extraction { record, violations }
}

/// The name of the top-level pattern a path lies in.
fn top_name(path: &PatternPath) -> &str {
    path.names().first().map_or("", String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::treegram::CaptureOptions;
    use crate::wrapper::load_str;

    const WRAPPER: &str = "name: shop
patterns:
  - name: title
    xpath: /html/body/h1
    constraints: {min: 1, max: 1}
  - name: price
    xpath: //p[@class='price']
    constraints: {min: 1, max: 1, regex: '^\\$'}
  - name: items
    xpath: //ul[@id='items']/li
    constraints: {min: 2}
    patterns:
      - name: name
        xpath: ./b
        constraints: {min: 1, max: 1}
  - name: badge
    xpath: //span[@class='badge']
  - name: note
    xpath: //p[@class='note']
    constraints: {min: 1}
";

    const BEFORE: &str = "<body><h1>Lamp</h1><p class=price>$3</p>\
        <ul id=items><li><b>a</b></li><li><b>b</b></li></ul><p class=note>n</p><span class=badge>new</span></body>";

    /// The page after a redesign: the title moved into a div, the items'
    /// names into `<i>`, the price lost its dollar, the note and the badge are
    /// gone.
    const AFTER: &str = "<body><div><h1>Lamp</h1></div><p class=price>3</p>\
        <ul id=items><li><i>a</i></li><li><i>b</i></li></ul></body>";

    fn alternative(pattern: &[&str], xpath: &str) -> Alternative {
        Alternative {
            pattern: PatternPath::from_names(pattern.iter().map(|s| (*s).to_owned()).collect()),
            xpath: XPath::compile(xpath).unwrap(),
            origin: Origin::Fix,
        }
    }

    /// The extraction of the whole page with `wrapper`, drift included.
    fn whole(wrapper: &Wrapper, doc: &Document, grams: &TreeGrams) -> Extraction {
        let mut e = extract(wrapper, doc, None);
        let drifted = drift(wrapper, doc, grams, &e);
        e.violations.extend(drifted);
        e
    }

    #[test]
    fn a_substituted_page_reads_as_the_whole_page_with_the_alternatives_in_place() {
        let wrapper = load_str(WRAPPER, "shop.yaml").unwrap();
        let grams = TreeGrams::capture(
            &wrapper,
            &Document::parse_str(BEFORE),
            &CaptureOptions::of(&wrapper),
        );
        let doc = Document::parse_str(AFTER);
        let first = whole(&wrapper, &doc, &grams);
        let alternatives = [
            alternative(&["title"], "//h2"),
            alternative(&["title"], "//div/h1"),
            alternative(&["items", "name"], "./i"),
            alternative(&["price"], "//p[@class='nothing']"),
        ];
        let out = substitute(&wrapper, &doc, None, &grams, first, &alternatives);
        assert_eq!(out.used, [1, 2]);
        assert_eq!(out.wrapper.patterns[0].xpath.source(), "//div/h1");
        // What is left (the price's regex, the missing note, the badge that
        // the drift check misses) is what the whole page gives with the
        // alternatives that held in place, in the same order: constraints
        // first, drift after.
        assert_eq!(out.extraction, whole(&out.wrapper, &doc, &grams));
        let left: Vec<String> = out
            .extraction
            .violations
            .iter()
            .map(|v| format!("{} {}", v.pattern, v.constraint))
            .collect();
        assert_eq!(left, ["price regex", "note min", "badge treegram"]);
    }

    #[test]
    fn a_page_without_violations_tries_nothing() {
        let wrapper = load_str(WRAPPER, "shop.yaml").unwrap();
        let doc = Document::parse_str(BEFORE);
        let first = whole(&wrapper, &doc, &TreeGrams::new());
        let out = substitute(
            &wrapper,
            &doc,
            None,
            &TreeGrams::new(),
            first.clone(),
            &[alternative(&["title"], "//h2")],
        );
        assert!(out.used.is_empty());
        assert_eq!(out.extraction, first);
    }
}
