//! Drift: a pattern whose XPath still matches, or matches nothing where its
//! constraints allow it, but no longer selects what it selected when its
//! tree-gram was captured. Constraints cannot see this (an absolute path that
//! now lands on a decoy inserted before the target still gives one value of
//! the right type), so every page is checked against the tree-gram, in every
//! heal mode, `off` included.
//!
//! Two violations come out of it:
//!
//! - `treegram`: the pattern matched at capture and matches nothing now in
//!   any instance of its parent.
//! - `drift`: the pattern's locator ensemble (other XPaths that selected
//!   exactly the same nodes at capture, see `treegram::Locator`) outvotes the
//!   XPath: more locators agree on another node set than on the XPath's, and
//!   that set looks more like the stored target than the XPath's
//!   selection does (its tag, text or its shape, attributes). When the votes
//!   are tied, or one locator alone disagrees, the other set must look
//!   clearly more like the target. A set
//!   that only adds to the XPath's selection is no evidence (that locator
//!   grew looser); a set inside it counts only for a record, with two
//!   locators and a majority over those that agree with the XPath (a list
//!   field whose list grew selects more too, as its constraints allow).
//!   When no locator outvotes it, the stored target's own text, found again
//!   beside the selection, may (`witness.rs`): a copy inserted before the
//!   target moves an XPath of positions and the positional locators with
//!   it, and a class or a label selects both. A top-level field's node
//!   with other text than a stored paragraph (`witness::MIN_LONG_TEXT`
//!   characters or more) that one other element of the page has as
//!   written has drifted, whatever the locators say: a lead retagged to a
//!   `div` leaves `p[1]` and every positional locator on the next
//!   paragraph. So has a top-level field whose node has the text of one
//!   of the target's siblings at capture, and whose next sibling with text
//!   the text of that sibling's, or which is last as that sibling was
//!   (`selects_a_neighbour`): a lead removed leaves `p[1]` on a paragraph
//!   that followed it. So has one whose node is, by its tag, its text and
//!   its siblings' texts, another element of the target's context at
//!   capture (`other_stored.rs`): a story removed leaves an XPath of
//!   positions on the next story. A top-level field's
//!   node that holds nothing but an element with the target's tag and a
//!   class or attribute value of the target's, which it lacks itself, is a
//!   wrapper a redesign put around the target (`wrapped_target`); one
//!   with other text and none of the target's attributes, beside the one
//!   sibling with the target's attributes and its text as written, is the
//!   element an XPath of positions counts after a retag
//!   (`retagged_beside`). Last, a
//!   field's node that
//!   holds none of the labels its target held (`<b>ISBN-13:</b>` inside a
//!   cell, see `likeness::labels`) is another row or cell; this is asked of
//!   top-level fields only, as the instances of a record differ: a positional
//!   XPath lands on the next row when its own is removed. And a top-level
//!   field's node without any text that shares no class or attribute value
//!   with its target (`emptied_unlike`) is the empty wrapper a deleted
//!   target left behind.
//!
//! Locators vote only while the pattern has the XPath they were captured
//! beside: a heal replaces the XPath after weighing the page as a whole, and
//! a locator it overruled would otherwise flag the healed pattern on every
//! page after it. A locator that selects nothing does not vote: labels and classes of the
//! capture page may be missing on another page of the same site, and that
//! alone says nothing about the XPath. The check evaluates at most
//! [`MAX_LOCATORS`](crate::treegram::MAX_LOCATORS) expressions per parent
//! instance, and looks for a witness only near the selection, never in the
//! whole page, except for a stored paragraph, whose first word is looked
//! for in the page's text nodes: it costs a few XPath evaluations per
//! pattern, and a search of the page otherwise happens only when a heal
//! follows.
//!
//! The check's parts live beside it: the locators' votes in `votes.rs`,
//! what a selection shows of its stored target in `signals.rs`, and the
//! witnesses the check accepts in `witnessed.rs`.
//!
//! ## What it refuses
//!
//! It checks no pattern without a tree-gram, none whose tree-gram matched
//! nothing at capture, none that has a violation already and none without a
//! parent instance on the page. A field that matched nothing on one of its
//! capture pages may match nothing here unflagged, unless a locator selects
//! nodes now. Once a heal has replaced the XPath the tree-gram was captured
//! beside, only the `treegram` violation is asked. A selection no signal
//! speaks against is not flagged. It only reports: it heals nothing.

use crate::dom::Document;
use crate::extract::{Extraction, Violation, ViolationKind};
use crate::treegram::TreeGram;
use crate::wrapper::{PatternPath, Wrapper};
use crate::xpath::Item;

use super::TreeGrams;
use super::signals::stored_labels;
use super::votes::{selections, votes};
use super::witnessed::witnessed_record;

/// The drift violations of `extraction`, the extraction of `doc` with
/// `wrapper`: patterns with a tree-gram and no violation yet whose
/// selection drifted (see the module documentation).
pub fn drift(
    wrapper: &Wrapper,
    doc: &Document,
    grams: &TreeGrams,
    extraction: &Extraction,
) -> Vec<Violation> {
    if grams.is_empty() {
        return Vec::new();
    }
    let _span = tracing::debug_span!("drift", wrapper = %wrapper.name).entered();
    let mut out = Vec::new();
    for path in wrapper.pattern_paths() {
        let Some(gram) = grams.get(&path) else {
            continue;
        };
        if gram.header.matched == 0 || extraction.violations.iter().any(|v| v.pattern == path) {
            continue;
        }
        let Some(pattern) = wrapper.pattern(&path) else {
            continue;
        };
        let scopes = wrapper.instances(doc, &path);
        if scopes.is_empty() {
            continue;
        }
        let current = selections(&pattern.xpath, doc, &scopes);
        // A pattern that matched nothing on one of its capture pages may
        // match nothing here: an optional field, absent on this page. It
        // broke only if a locator that held on every capture page (and so
        // selected nothing where the field was absent) selects nodes now.
        let optional = gram.header.across.as_ref().is_some_and(|a| a.optional());
        if current.iter().all(Vec::is_empty)
            && (!optional || !votes(doc, gram, &scopes, &current).others.is_empty())
        {
            out.push(Violation {
                pattern: path,
                constraint: ViolationKind::Treegram,
                expected: format!(
                    "matches, as its {} when the tree-gram was captured",
                    plural(gram.header.matched)
                ),
                found: format!("no match in any of {}", plural_instances(scopes.len())),
                context: "/".to_owned(),
                node: None,
            });
            continue;
        }
        if current.iter().all(Vec::is_empty) {
            continue;
        }
        // The locators vote on the XPath they were captured beside; once a
        // heal has replaced it, the heal was proven against them already.
        if pattern.xpath.source() != gram.header.xpath {
            continue;
        }
        let violation = if pattern.is_record() {
            record_drift(doc, gram, &path, pattern, &scopes, &current)
        } else {
            let bar = wrapper
                .adapt
                .drift_confidence
                .unwrap_or_else(|| super::model::model().drift_threshold);
            let by_model = gram.header.matched == 1 && path.parent().is_none();
            field_drift(
                doc,
                gram,
                &path,
                pattern,
                &scopes,
                &current,
                by_model.then_some(bar),
            )
        };
        out.extend(violation);
    }
    out
}

/// A record's drift: its locators outvote its XPath, or its stored items'
/// texts stand together on other items.
fn record_drift(
    doc: &Document,
    gram: &TreeGram,
    path: &PatternPath,
    pattern: &crate::wrapper::Pattern,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Option<Violation> {
    let votes = votes(doc, gram, scopes, current);
    if let Some(other) = votes.outvoting(doc, gram, current, true) {
        let expected = format!(
            "the nodes its locators agree on ({} of {} locators: {})",
            other.xpaths.len(),
            votes.voting,
            other.xpaths.join(", ")
        );
        let found = format!(
            "{} selects other nodes ({} locators agree with it)",
            pattern.xpath.source(),
            votes.agree
        );
        return Some(drift_violation(
            doc,
            path.clone(),
            expected,
            found,
            &other.targets,
            current,
        ));
    }
    let w = witnessed_record(doc, gram, current)?;
    // Stored items found among as many selected items as were captured say
    // nothing against the selection: on the capture page itself they stand
    // among the others. A selection that grew (a copied list, an advert)
    // or moved to other items is what they witness against.
    let selected: std::collections::HashSet<&Item> = current.iter().flatten().collect();
    let count_seen = match &gram.header.across {
        Some(a) => a.count_seen(selected.len()),
        None => selected.len() == gram.header.matched,
    };
    if count_seen
        && w.targets
            .iter()
            .flatten()
            .all(|item| selected.contains(item))
    {
        return None;
    }
    let expected = format!("the nodes that carry {}", w.why);
    let found = format!(
        "{} selects nodes without it ({} locators agree with it)",
        pattern.xpath.source(),
        votes.agree
    );
    Some(drift_violation(
        doc,
        path.clone(),
        expected,
        found,
        &w.targets,
        current,
    ))
}

/// A field's drift: a signal speaks against its selection (the locators
/// outvote it, the stored text stands elsewhere, it has the target's
/// neighbour's text, it lacks the target's labels, it was emptied) and,
/// for a field the model judges (`selection::Domain`), the model's
/// confidence in it is under `bar`. The violation names the strongest
/// signal.
fn field_drift(
    doc: &Document,
    gram: &TreeGram,
    path: &PatternPath,
    pattern: &crate::wrapper::Pattern,
    scopes: &[Item],
    current: &[Vec<Item>],
    bar: Option<f64>,
) -> Option<Violation> {
    let mut check = super::selection::signals(doc, gram, path.parent().is_none(), scopes, current);
    // A selection no signal speaks against is kept: on another page of the
    // site every field's text differs from the capture's, and the model,
    // fitted mostly on changed pages, takes that alone for drift. Asked of
    // every selection, it flagged the author on 143 of 200 pages of one
    // SWDE template, for 22 more right answers of 600 validation cases.
    // The likeness is weighed only then, as this runs on every page. A bar
    // of 1 or more, which no probability reaches, flags every selection the
    // model judges, signalled or not: that is how a collection run for the
    // model's training (`bench/train_model.py`) sees every field.
    if !check.signalled() && bar.is_none_or(|b| b < 1.0) {
        return None;
    }
    super::selection::weigh(doc, gram, current, &mut check.evidence);
    let e = &check.evidence;
    let said = match bar {
        Some(bar) => {
            let confidence = super::confidence(e);
            if confidence >= bar {
                return None;
            }
            format!("the heal model's confidence in it is {confidence:.2}, under {bar:.2}")
        }
        None => "a list or a record's field, judged by these signals".to_owned(),
    };
    let (expected, found, other) = what_speaks(gram, pattern.xpath.source(), &check, &said);
    Some(drift_violation(
        doc,
        path.clone(),
        expected,
        found,
        &other,
        current,
    ))
}

/// What a drift's violation says: the nodes expected, what the XPath
/// selects instead, and the nodes the strongest signal points to (none
/// when it points to no node), in the order the signals are trusted.
fn what_speaks(
    gram: &TreeGram,
    xpath: &str,
    check: &super::selection::SelectionCheck,
    said: &str,
) -> (String, String, Vec<Vec<Item>>) {
    let e = &check.evidence;
    if let Some(other) = &check.outvoting {
        (
            format!(
                "the nodes its locators agree on ({} of {} locators: {})",
                other.xpaths.len(),
                check.voting,
                other.xpaths.join(", ")
            ),
            format!(
                "{xpath} selects other nodes ({} locators agree with it; {said})",
                check.agree
            ),
            other.targets.clone(),
        )
    } else if let Some(w) = &check.witness {
        (
            format!("the nodes that carry {}", w.why),
            format!(
                "{xpath} selects nodes without it ({} locators agree with it; {said})",
                check.agree
            ),
            w.targets.clone(),
        )
    } else if e.labels_contradict {
        let stored = stored_labels(gram);
        (
            format!(
                "a node with the labels its target held ({})",
                stored.into_iter().collect::<Vec<_>>().join(", ")
            ),
            format!("{xpath} selects a node with none of them; {said}"),
            Vec::new(),
        )
    } else if let Some(text) = &check.neighbour {
        (
            "its target, not the node that stood beside it at capture".to_owned(),
            format!(
                "{xpath} selects a node with the text of the target's neighbour at capture ({:?}; {said})",
                super::witness::clip(text)
            ),
            Vec::new(),
        )
    } else if let Some(text) = &check.other_stored {
        (
            "its target, not another element of its context at capture".to_owned(),
            format!(
                "{xpath} selects a node with the text and the siblings of another element of the target's context at capture ({:?}; {said})",
                super::witness::clip(text)
            ),
            Vec::new(),
        )
    } else {
        (
            "its target, as its tree-gram and locators describe it".to_owned(),
            format!(
                "{xpath} selects nodes that look {:.0}% like the target, {} of {} locators agree with it{}{}{}; {said}",
                100.0 * e.likeness,
                check.agree,
                check.voting,
                if e.labels_contradict {
                    ", without the labels the target held"
                } else {
                    ""
                },
                if e.emptied {
                    ", an element emptied of text"
                } else {
                    ""
                },
                if e.lookalike {
                    ", away from the texts around the target"
                } else {
                    ""
                },
            ),
            Vec::new(),
        )
    }
}

fn drift_violation(
    doc: &Document,
    path: PatternPath,
    expected: String,
    found: String,
    other: &[Vec<Item>],
    current: &[Vec<Item>],
) -> Violation {
    let first = |sel: &[Vec<Item>]| {
        sel.iter()
            .find_map(|s| s.first())
            .map(|i| i.path(doc))
            .unwrap_or_default()
    };
    Violation {
        pattern: path,
        constraint: ViolationKind::Drift,
        expected,
        found,
        context: "/".to_owned(),
        node: Some(first(current)).filter(|p| !p.is_empty()).or_else(|| {
            let p = first(other);
            (!p.is_empty()).then_some(p)
        }),
    }
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
