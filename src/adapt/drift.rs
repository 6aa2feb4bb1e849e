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
//!   paragraph. So has a top-level field whose node has the text of the
//!   target's sibling at capture, and whose own sibling beyond it the text
//!   of that sibling's (`selects_a_neighbour`): a lead removed leaves
//!   `p[1]` on the next paragraph. Last, a field's node that
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

use crate::dom::{Document, NodeId, NodeKind};
use crate::extract::{Extraction, Violation, ViolationKind};
use crate::similarity::NoMask;
use crate::treegram::{GramMask, LocatorKind, TreeGram};
use crate::wrapper::{PatternPath, Wrapper};
use crate::xpath::{Item, XPath};

use super::TreeGrams;
use super::likeness::{Profile, kept_attributes, labels, likeness, shares_evidence};
use super::witness::{Witness, witness};

/// How much more like the stored target a set that only one locator chose,
/// or that the locators tie on, must look than the XPath's selection.
const TIE_EVIDENCE_MARGIN: f64 = 0.15;
/// The same, when the other set carries the stored target's text exactly and
/// the XPath's selection does not.
const SAME_TEXT_EVIDENCE_MARGIN: f64 = 0.05;
/// The least evidence a field's witness needs: with the stored text as
/// written, its attributes must be three quarters the stored target's.
const MIN_WITNESS_EVIDENCE: f64 = 0.9;
/// How much less like the stored target, in attributes, a node with its
/// exact text may look than the XPath's node, when a locator alone finds it
/// and none sides with the XPath: a renamed class costs about this much.
const RENAMED_ATTRIBUTES_ALLOWANCE: f64 = 0.3;
/// The least length of a stored text that identifies its node.
const MIN_TELLING_TEXT: usize = 8;
/// How many parent instances the evidence of a selection is read from.
const EVIDENCE_SCOPES: usize = 3;

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
    // fitted mostly on changed pages, takes that alone for drift. The
    // likeness is weighed only then, as this runs on every page.
    if !check.signalled() {
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
    let xpath = pattern.xpath.source();
    let (expected, found, other) = if let Some(other) = &check.outvoting {
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
    } else if let Some(text) = &check.neighbour {
        (
            "its target, not the node that stood beside it at capture".to_owned(),
            format!(
                "{xpath} selects a node with the text of the target's neighbour at capture ({:?}; {said})",
                super::witness::clip(text)
            ),
            Vec::new(),
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
    };
    Some(drift_violation(
        doc,
        path.clone(),
        expected,
        found,
        &other,
        current,
    ))
}

/// Whether a field's selection, one element, has no text at all and
/// shares no class token or attribute value with the stored target, an
/// element with telling text and such attributes: an XPath of positions
/// left on the empty wrapper that held a deleted target. An element whose
/// text a script fills keeps its classes, and a node with any text is
/// weighed by the other checks.
pub(crate) fn emptied_unlike(doc: &Document, gram: &TreeGram, current: &[Vec<Item>]) -> bool {
    let Some(node) = single_node(current).filter(|&n| doc.is_element(n)) else {
        return false;
    };
    // Asked of every field on every page: most nodes have text, and saying
    // so reads one text node, before any profile is built.
    let has_text = doc
        .descendants(node)
        .any(|d| doc.kind(d) == NodeKind::Text && !doc.text(d).trim().is_empty());
    if has_text {
        return false;
    }
    let Some(&(owner, ref target)) = gram.instances.first().and_then(|i| i.targets.first()) else {
        return false;
    };
    if target.item(&gram.doc, owner) != Some(Item::Node(owner)) || !telling_stored_text(gram) {
        return false;
    }
    let Some(wanted) = stored_profile(gram) else {
        return false;
    };
    let found = Profile::of(doc, node, Item::Node(node), &NoMask);
    found.text().is_empty()
        && wanted.has_telling_attribute()
        && !super::likeness::share_telling_attribute(&wanted, &found)
}

/// The witness against a record's selection (see `witness.rs`). It stands
/// on the stored items' texts alone: locators that select the items of two
/// containers moved with the XPath.
pub(crate) fn witnessed_record(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Witness> {
    witness(doc, gram, current, true)
}

/// The witness against a field's selection that the drift check accepts:
/// only when no locator confirms the XPath's node, and when the witness
/// looks more like the stored target. The item that held the target, read
/// again (`item_witness.rs`), is asked first: it tells a target from
/// another item's field with the same text ("160+ courses"), which the
/// stored text alone (`witness.rs`) cannot.
pub(crate) fn witnessed_field(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
    votes: &Votes,
) -> Option<Witness> {
    if votes.agree > 0 {
        return None;
    }
    if let Some(w) = super::item_witness::item_witness(doc, gram, current) {
        // The target's own text may have changed with its item's, so no
        // bar is set on its likeness beyond the selection's.
        let theirs = evidence(doc, gram, &w.targets)?;
        let ours = evidence(doc, gram, current).unwrap_or(0.0);
        return (theirs > ours + 1e-9).then_some(w);
    }
    let w = witness(doc, gram, current, false)?;
    // The witness has the stored text as written and the XPath's node does
    // not; a near copy of a long text is nearly as alike by Jaro-Winkler, so
    // no margin is asked on top, but the witness must look at least as much
    // like the target in everything and almost wholly like it.
    let theirs = evidence(doc, gram, &w.targets)?;
    let ours = evidence(doc, gram, current).unwrap_or(0.0);
    (theirs > ours + 1e-9 && theirs >= MIN_WITNESS_EVIDENCE).then_some(w)
}

/// The one element of the page with the stored target's paragraph as
/// written (`witness::with_long_stored_text`), against a selection of one
/// node with other text: a lead paragraph retagged to a `div`, whose XPath
/// (`…/p[1]`) and positional locators now name the next paragraph together.
/// Two sentences of a page recur word for word only as the target itself,
/// so this stands against any number of locators; a paragraph edited by a
/// word is not found, and the check stays silent.
pub(crate) fn paragraph_elsewhere(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Witness> {
    let node = single_node(current)?;
    // Most fields are not paragraphs: their stored text's length says so
    // before any text of the page is read.
    let long = stored_profile(gram)
        .is_some_and(|p| p.text().chars().count() >= super::witness::MIN_LONG_TEXT);
    if !long || same_text(doc, gram, current) {
        return None;
    }
    let found = super::witness::with_long_stored_text(doc, gram)?;
    (found != Item::Node(node)).then(|| Witness {
        targets: vec![vec![found]],
        why: "the stored paragraph as written".to_owned(),
    })
}

/// The text of the stored target's element sibling at capture that a
/// field's selection, one node, now has as written, when the selection's
/// own sibling on the far side has the text that sibling's sibling had: a
/// lead paragraph removed or moved away leaves `p[1]`, and every
/// positional locator, on what was the next paragraph, followed by what
/// followed it. The text must be telling (`MIN_TELLING_TEXT` characters, a
/// letter) and not the target's own. On another page of the site the
/// neighbours' texts are that page's (a home team may be the capture
/// page's away team, but not with the same team after it), and on the
/// same page the selection has the target's text, so neither drifts.
pub(crate) fn selects_a_neighbour(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<String> {
    let node = single_node(current)?;
    let item = Item::Node(node);
    let &(owner, ref target) = gram.instances.first()?.targets.first()?;
    if !doc.is_element(node) || target.item(&gram.doc, owner) != Some(Item::Node(owner)) {
        return None;
    }
    // A target without element siblings had no neighbour to be taken for.
    element_sibling_after(&gram.doc, owner).or_else(|| element_sibling_before(&gram.doc, owner))?;
    let wanted = stored_profile(gram)?;
    let text = Profile::of(doc, node, item, &NoMask).text().to_owned();
    if text == wanted.text()
        || text.chars().count() < MIN_TELLING_TEXT
        || !text.chars().any(char::is_alphabetic)
    {
        return None;
    }
    let stored_text = |n: NodeId| {
        let p = Profile::of(&gram.doc, n, Item::Node(n), &GramMask);
        (!p.is_unstable() && !p.text().is_empty()).then(|| p.text().to_owned())
    };
    let page_text = |n: NodeId| {
        let p = Profile::of(doc, n, Item::Node(n), &NoMask);
        (!p.text().is_empty()).then(|| p.text().to_owned())
    };
    let sides: [fn(&Document, NodeId) -> Option<NodeId>; 2] =
        [element_sibling_after, element_sibling_before];
    sides.into_iter().find_map(|side| {
        let neighbour = side(&gram.doc, owner)?;
        if stored_text(neighbour)? != text {
            return None;
        }
        let beyond = stored_text(side(&gram.doc, neighbour)?)?;
        (page_text(side(doc, node)?)? == beyond).then(|| text.clone())
    })
}

/// The one node of a selection of one parent instance, when it is one node
/// and not an attribute.
pub(crate) fn single_node(current: &[Vec<Item>]) -> Option<NodeId> {
    match current {
        [selected] => match selected[..] {
            [Item::Node(node)] => Some(node),
            _ => None,
        },
        _ => None,
    }
}

/// The next element sibling of `node`.
fn element_sibling_after(doc: &Document, node: NodeId) -> Option<NodeId> {
    std::iter::successors(doc.next_sibling(node), |&n| doc.next_sibling(n))
        .find(|&n| doc.is_element(n))
}

/// The previous element sibling of `node`.
fn element_sibling_before(doc: &Document, node: NodeId) -> Option<NodeId> {
    std::iter::successors(doc.prev_sibling(node), |&n| doc.prev_sibling(n))
        .find(|&n| doc.is_element(n))
}

/// What a pattern's locators say of its selection on a page.
#[derive(Clone, Debug, Default)]
pub(crate) struct Votes {
    /// How many locators selected something.
    pub voting: usize,
    /// How many of them selected exactly what the XPath selects.
    pub agree: usize,
    /// The other selections, each with its locators, most votes first.
    pub others: Vec<Ballot>,
}

/// One node set that locators other than the XPath agree on.
#[derive(Clone, Debug)]
pub(crate) struct Ballot {
    /// Per parent instance, the nodes.
    pub targets: Vec<Vec<Item>>,
    /// The locators that selected it.
    pub xpaths: Vec<String>,
}

impl Votes {
    /// The selection that outvotes the XPath's, if one does. A set that
    /// only adds nodes to the XPath's selection is no evidence against it:
    /// that locator has grown looser on this page. Otherwise the nodes the
    /// two selections do not share are weighed against the stored target.
    pub(crate) fn outvoting(
        &self,
        doc: &Document,
        gram: &TreeGram,
        current: &[Vec<Item>],
        record: bool,
    ) -> Option<&Ballot> {
        let mut others = self
            .others
            .iter()
            .filter(|b| !is_superset(&b.targets, current));
        let best = others.next()?;
        let count = best.xpaths.len();
        // A looser locator that holds the XPath's nodes but none of the
        // other set's still sides with the XPath.
        let agree = self.agree
            + self
                .others
                .iter()
                .filter(|b| {
                    is_superset(&b.targets, current)
                        && difference(&best.targets, &b.targets) == best.targets
                })
                .map(|b| b.xpaths.len())
                .sum::<usize>();
        if count < agree {
            return None;
        }
        // A set inside the XPath's selection says the XPath now selects
        // more. A field whose list grew (a second author) does that too, and
        // its constraints allowed it, so only a record is held to it; and it
        // takes two locators, more than agree with the XPath.
        if is_superset(current, &best.targets) && (!record || count < 2 || count == agree) {
            return None;
        }
        // Two sets with as many votes: the locators cannot tell them apart.
        if others.next().is_some_and(|b| b.xpaths.len() == count) {
            return None;
        }
        let only_theirs = difference(&best.targets, current);
        let theirs_set = if only_theirs.iter().all(Vec::is_empty) {
            &best.targets[..]
        } else {
            &only_theirs[..]
        };
        let theirs = evidence(doc, gram, theirs_set)?;
        let ours_set = difference(current, &best.targets);
        let ours = evidence(doc, gram, &ours_set).unwrap_or(0.0);
        // Two or more locators outvoting the XPath suffice with better
        // evidence. A lone locator, or a tie, must also look clearly
        // more like the target; or carry the stored target's very text where
        // the XPath's nodes do not, with evidence better by a smaller step:
        // the data itself moved (on another page of the site the text
        // differs, and this never applies).
        // A locator that finds the stored text as written, on a node of
        // the stored tag, where no locator sides with the XPath and the
        // XPath's node has other text: in a list of alike items, the item
        // at the XPath's position shares the target's classes and the shape
        // of its text ("570+ courses" for "350+ courses"), so it looks more
        // like the target than the target does once its own class was
        // renamed. The text is the item's identity; it must be telling (a
        // few words, or a long one) for another page to be unlikely to hold
        // it by chance, and the attributes may differ by what a rename costs.
        if agree == 0
            && telling_stored_text(gram)
            && same_tag_and_text(doc, gram, theirs_set)
            && !same_text(doc, gram, &ours_set)
        {
            return (theirs + RENAMED_ATTRIBUTES_ALLOWANCE >= ours).then_some(best);
        }
        let needed = if count >= 2 && count > agree {
            ours
        } else if same_text(doc, gram, theirs_set) && !same_text(doc, gram, &ours_set) {
            ours + SAME_TEXT_EVIDENCE_MARGIN
        } else {
            ours + TIE_EVIDENCE_MARGIN
        };
        // Nodes that look exactly alike (a second link to the same author)
        // leave the XPath's choice standing: evidence must be better, not equal.
        (theirs >= needed && theirs > ours + 1e-9).then_some(best)
    }
}

/// Whether `a` holds every node of `b`, scope by scope, and more.
fn is_superset(a: &[Vec<Item>], b: &[Vec<Item>]) -> bool {
    a != b
        && a.iter()
            .zip(b)
            .all(|(a, b)| b.iter().all(|i| a.contains(i)))
}

/// The nodes of `a` that `b` does not hold, scope by scope.
fn difference(a: &[Vec<Item>], b: &[Vec<Item>]) -> Vec<Vec<Item>> {
    a.iter()
        .zip(b)
        .map(|(a, b)| a.iter().filter(|i| !b.contains(i)).copied().collect())
        .collect()
}

/// Evaluates the tree-gram's locators from every scope and counts their
/// votes against `current`, the XPath's selection.
pub(crate) fn votes(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Votes {
    count_votes(doc, gram, scopes, current, true)
}

/// Every locator's vote, without settling early: what a heal's confidence
/// is computed from.
pub(crate) fn all_votes(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Votes {
    count_votes(doc, gram, scopes, current, false)
}

fn count_votes(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
    settle_early: bool,
) -> Votes {
    // Locators that lean on positions move with an XPath that leans on
    // positions (an item removed above shifts both onto the next item), so
    // beside such an XPath they are no independent evidence and do not vote.
    let positional = has_position(&gram.header.xpath);
    let votes = count_votes_of(doc, gram, scopes, current, settle_early, |l| {
        !(positional && has_position(l))
    });
    // An XPath that selects nothing has moved onto nothing: when no other
    // locator finds anything, a positional one that still finds nodes by
    // the target's own attributes (`//div[3]/center/input[@name='btnK']`)
    // did not move with it, and votes. One that finds them by position
    // alone (`//ul[@id='x']/li[1]`) stands in for the same layout, and
    // never does.
    if positional && votes.voting == 0 && current.iter().all(Vec::is_empty) {
        return count_votes_of(doc, gram, scopes, current, settle_early, |l| {
            has_position(l) && last_step_tests_attribute(l)
        });
    }
    votes
}

/// The votes of the locators of `gram` that `admitted` lets vote.
fn count_votes_of(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
    settle_early: bool,
    admitted: impl Fn(&str) -> bool,
) -> Votes {
    let mut votes = Votes::default();
    // Cheap locators first, so that the two that settle a clean page are
    // usually found before a label's or a text's scan of the whole page.
    let mut ordered: Vec<_> = gram.locators().collect();
    ordered.sort_by_key(|(l, _)| evaluation_cost(l));
    for (locator, compiled) in ordered {
        if !admitted(&locator.xpath) {
            continue;
        }
        // Two locators that confirm the selection, with no other set as
        // well supported, settle it: this is the common case, and the check
        // runs on every page.
        let best_other = votes.others.iter().map(|b| b.xpaths.len()).max();
        if settle_early && votes.agree >= 2 && best_other.is_none_or(|b| b < votes.agree) {
            break;
        }
        // A text locator scans every element of its tag for its whole text;
        // a page that does not hold the text's first word anywhere cannot
        // match it, and one pass over the text nodes says so far cheaper.
        if locator.kind == LocatorKind::Text && !page_may_hold(doc, &locator.xpath) {
            continue;
        }
        let Some(compiled) = compiled else {
            continue;
        };
        let selected = selections(compiled, doc, scopes);
        if selected.iter().all(Vec::is_empty) {
            continue;
        }
        votes.voting += 1;
        if selected == current {
            votes.agree += 1;
        } else if let Some(b) = votes.others.iter_mut().find(|b| b.targets == selected) {
            b.xpaths.push(locator.xpath.clone());
        } else {
            votes.others.push(Ballot {
                targets: selected,
                xpaths: vec![locator.xpath.clone()],
            });
        }
    }
    votes
        .others
        .sort_by_key(|b| std::cmp::Reverse(b.xpaths.len()));
    votes
}

/// Whether a stored text locator of the plain form (not one that picks
/// the target by its rank among copies) selects exactly `set`, one node,
/// in `scope`. Such a locator was proven at capture to select the target
/// and nothing else, so the stored text as written stood on no other
/// element of its tag then; the one node that carries it now is the
/// target's heir unless the page copied it since.
pub(crate) fn text_locator_selects(
    doc: &Document,
    gram: &TreeGram,
    scope: Item,
    set: &[Item],
) -> bool {
    set.len() == 1
        && gram.locators().any(|(locator, compiled)| {
            locator.kind == LocatorKind::Text
                && !locator.xpath.starts_with('(')
                && page_may_hold(doc, &locator.xpath)
                && compiled.is_some_and(|x| x.select_item(doc, scope).is_ok_and(|got| got == set))
        })
}

/// The fewest distinct words (see `Profile::words`) a stored text needs
/// for the words a candidate shares with it to tell candidates apart: a
/// sentence, not a name or a value, which an edit changes whole.
pub(crate) const MIN_TELLING_WORDS: usize = 8;

/// A stored target's sentence, for the share of its words a candidate
/// carries: made once per search, since a field's candidates too close to
/// call are two or three.
pub(crate) struct StoredWords(Profile);

impl StoredWords {
    /// The stored target's words; `None` when its text is unstable or has
    /// fewer than [`MIN_TELLING_WORDS`] distinct words.
    pub(crate) fn of(gram: &TreeGram) -> Option<Self> {
        let wanted = stored_profile(gram).filter(|w| !w.is_unstable())?;
        (wanted.words().len() >= MIN_TELLING_WORDS).then_some(Self(wanted))
    }

    /// The share of the stored words (the Jaccard index) that the one node
    /// of `set` carries; `None` when `set` is not one node.
    pub(crate) fn shared(&self, doc: &Document, set: &[Item]) -> Option<f64> {
        let [item] = set else {
            return None;
        };
        let owner = owner_of(doc, *item)?;
        Some(super::likeness::word_overlap(
            &self.0,
            &Profile::of(doc, owner, *item, &NoMask),
        ))
    }
}

/// How much a selection looks like the stored target, in [0, 1]: the mean,
/// over its first parent instances that select something, of the first
/// node's likeness to the first stored target (tag 0.2, text 0.4,
/// attributes 0.4). `None` when it selects nothing.
pub(crate) fn evidence(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> Option<f64> {
    likeness_parts(doc, gram, selection).map(|p| p.weighed())
}

/// The parts of a selection's likeness to the stored target (see
/// [`evidence`]), each the mean over its first parent instances that
/// select something.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LikenessParts {
    /// The same tag.
    pub tag: f64,
    /// The text, as written or by shape.
    pub text: f64,
    /// The attributes: the Jaccard index and the share kept, averaged, as
    /// attributes the node gained weigh half as much as those it lost.
    pub attrs: f64,
    /// The Jaccard index of the words of the two texts.
    pub words: f64,
}

impl LikenessParts {
    /// The parts weighed into one likeness.
    pub(crate) fn weighed(&self) -> f64 {
        0.2 * self.tag + 0.4 * self.text + 0.4 * self.attrs
    }
}

/// The parts of a selection's likeness to the stored target; `None` when
/// it selects nothing.
pub(crate) fn likeness_parts(
    doc: &Document,
    gram: &TreeGram,
    selection: &[Vec<Item>],
) -> Option<LikenessParts> {
    let instance = gram.instances.first()?;
    let &(owner, ref target) = instance.targets.first()?;
    let stored_item = target.item(&gram.doc, owner).unwrap_or(Item::Node(owner));
    let wanted = Profile::of(&gram.doc, owner, stored_item, &GramMask);
    let mut sum = LikenessParts::default();
    let mut n = 0usize;
    for items in selection
        .iter()
        .filter(|s| !s.is_empty())
        .take(EVIDENCE_SCOPES)
    {
        let item = items[0];
        let Some(owner) = owner_of(doc, item) else {
            continue;
        };
        let found = Profile::of(doc, owner, item, &NoMask);
        let like = likeness(&wanted, &found);
        sum.tag += like.tag;
        sum.text += like.text;
        sum.attrs += 0.5 * (like.attrs + kept_attributes(&wanted, &found));
        sum.words += super::likeness::word_overlap(&wanted, &found);
        n += 1;
    }
    (n > 0).then(|| {
        let k = n as f64;
        LikenessParts {
            tag: sum.tag / k,
            text: sum.text / k,
            attrs: sum.attrs / k,
            words: sum.words / k,
        }
    })
}

/// A selection of several nodes per parent instance, for a field that had
/// one node at capture, narrowed to the one node in each instance that
/// carries the stored target's text as written: a label locator selects the
/// target and a copy of it inserted beside it, and the stored text says
/// which is which. `None` when the field had several nodes, when no instance
/// has several, or when an instance with several has no such node or more
/// than one.
pub(crate) fn narrowed_to_stored_text(
    doc: &Document,
    gram: &TreeGram,
    selection: &[Vec<Item>],
) -> Option<Vec<Vec<Item>>> {
    let instance = gram.instances.first()?;
    let [(owner, target)] = instance.targets.as_slice() else {
        return None;
    };
    if selection.iter().all(|s| s.len() <= 1) {
        return None;
    }
    let stored_item = target.item(&gram.doc, *owner).unwrap_or(Item::Node(*owner));
    let wanted = Profile::of(&gram.doc, *owner, stored_item, &GramMask);
    if wanted.text().is_empty() || wanted.is_unstable() {
        return None;
    }
    selection
        .iter()
        .map(|items| {
            if items.len() <= 1 {
                return Some(items.clone());
            }
            let same: Vec<Item> = items
                .iter()
                .copied()
                .filter(|&item| {
                    owner_of(doc, item).is_some_and(|o| {
                        let found = Profile::of(doc, o, item, &NoMask);
                        found.tag() == wanted.tag() && found.text() == wanted.text()
                    })
                })
                .collect();
            (same.len() == 1).then_some(same)
        })
        .collect()
}

/// Whether the selection holds none of the labels the stored target held
/// (see `likeness::labels`): in one of its first parent instances, the
/// first node is an element without any of them, where the stored target, an
/// element, had some. A reworded label reads as missing too, so this is
/// asked only of nodes that are to be answered with, never to find them.
pub(crate) fn labels_contradict(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    let Some(&(owner, ref target)) = gram.instances.first().and_then(|i| i.targets.first()) else {
        return false;
    };
    if !matches!(target.item(&gram.doc, owner), Some(Item::Node(n)) if gram.doc.is_element(n)) {
        return false;
    }
    let stored = stored_labels(gram);
    if stored.is_empty() {
        return false;
    }
    selection
        .iter()
        .filter_map(|s| s.first())
        .take(EVIDENCE_SCOPES)
        .any(|&item| match item {
            Item::Node(n) if doc.is_element(n) => labels(doc, n).is_disjoint(&stored),
            _ => false,
        })
}

/// The labels the stored target held: on a tree-gram captured over several
/// pages, those it held on every page (a bold word of one product's
/// description names nothing); else those of the stored instance.
fn stored_labels(gram: &TreeGram) -> std::collections::BTreeSet<String> {
    if let Some(a) = &gram.header.across {
        return a.labels.clone();
    }
    gram.instances
        .first()
        .and_then(|i| i.targets.first())
        .map(|&(owner, _)| labels(&gram.doc, owner))
        .unwrap_or_default()
}

/// Whether the selection carries any of the stored target's own evidence
/// (see `likeness::shares_evidence`): in each of its first parent instances
/// that select something, the first node shares the first stored target's
/// tag, an attribute, or its text. `true` when it selects nothing.
pub(crate) fn carries_evidence(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    let Some(wanted) = stored_profile(gram) else {
        return true;
    };
    selection
        .iter()
        .filter(|s| !s.is_empty())
        .take(EVIDENCE_SCOPES)
        .all(|items| {
            owner_of(doc, items[0]).is_none_or(|page_owner| {
                shares_evidence(&wanted, &Profile::of(doc, page_owner, items[0], &NoMask))
            })
        })
}

/// Whether the stored target's text says which node it is: at least
/// [`MIN_TELLING_TEXT`] characters with a letter among them, stable across
/// loads.
pub(crate) fn telling_stored_text(gram: &TreeGram) -> bool {
    stored_profile(gram).is_some_and(|wanted| {
        !wanted.is_unstable()
            && wanted.text().chars().count() >= MIN_TELLING_TEXT
            && wanted.text().chars().any(char::is_alphabetic)
    })
}

/// What the first stored target is, for comparing nodes with it.
pub(crate) fn stored_profile(gram: &TreeGram) -> Option<Profile> {
    let &(owner, ref target) = gram.instances.first()?.targets.first()?;
    let stored_item = target.item(&gram.doc, owner).unwrap_or(Item::Node(owner));
    Some(Profile::of(&gram.doc, owner, stored_item, &GramMask))
}

/// How much the first node of the selection's first parent instance that
/// selects something looks like the first stored target.
fn first_likeness(
    doc: &Document,
    gram: &TreeGram,
    selection: &[Vec<Item>],
) -> Option<super::likeness::Likeness> {
    let wanted = stored_profile(gram)?;
    let item = selection.iter().find_map(|s| s.first().copied())?;
    let page_owner = owner_of(doc, item)?;
    Some(likeness(
        &wanted,
        &Profile::of(doc, page_owner, item, &NoMask),
    ))
}

/// Whether the first node of the selection's first parent instance that
/// selects something has the stored target's tag and text, as written.
fn same_tag_and_text(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    first_likeness(doc, gram, selection).is_some_and(|l| l.tag >= 1.0 && l.text >= 1.0)
}

/// Whether the first node of the selection's first parent instance that
/// selects something has the stored target's text, as written.
pub(crate) fn same_text(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    first_likeness(doc, gram, selection).is_some_and(|l| l.text >= 1.0)
}

/// Whether `xpath` has a numeric position predicate (`[3]`) on a child or
/// descendant step: the layout's positions. The first sibling after a label
/// (`following-sibling::span[1]`) is adjacency, not layout.
fn has_position(xpath: &str) -> bool {
    let bytes = xpath.as_bytes();
    (0..bytes.len()).any(|i| {
        if bytes[i] != b'[' {
            return false;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || bytes.get(i + 1 + digits) != Some(&b']') {
            return false;
        }
        // A rank among the matches of a whole expression,
        // `(//a[normalize-space(.)='Gmail'])[1]`, counts elements with the
        // target's text, not the layout's positions (`text()[1]` is a step).
        if i > 1 && bytes[i - 1] == b')' && bytes[i - 2] != b'(' {
            return false;
        }
        let step = &xpath[xpath[..i].rfind('/').map_or(0, |s| s + 1)..i];
        !(step.starts_with("following-sibling::") || step.starts_with("preceding-sibling::"))
    })
}

/// Whether the last step of `xpath` has a predicate on an attribute of the
/// node it selects (`input[@name='btnK']`, not `li[1]` under `ul[@id]`).
fn last_step_tests_attribute(xpath: &str) -> bool {
    let step = last_step(xpath);
    step.find('[').is_some_and(|b| step[b..].contains('@'))
}

/// The last location step of `xpath`: what follows its last `/` outside
/// predicates and parentheses (`input[@name='a/b']` of
/// `//div[3]/center/input[@name='a/b']`).
pub(crate) fn last_step(xpath: &str) -> &str {
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in xpath.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = depth.saturating_sub(1),
            '/' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    &xpath[start..]
}

/// A rough rank of what evaluating a locator costs: a path from the root
/// walks one branch; an attribute or class test scans one tag; a label or a
/// text compares the text of every candidate.
fn evaluation_cost(locator: &crate::treegram::Locator) -> u8 {
    match locator.kind {
        LocatorKind::Position if !locator.xpath.starts_with("//") => 0,
        LocatorKind::Attribute | LocatorKind::Class | LocatorKind::Position => 1,
        LocatorKind::Label | LocatorKind::Text => 2,
    }
}

/// Whether some text node of `doc` holds the first word of the text that the
/// text locator `xpath` compares (`//a[normalize-space(.)='First words']`).
/// A locator whose text cannot be read is evaluated.
fn page_may_hold(doc: &Document, xpath: &str) -> bool {
    let Some(rest) = xpath.split_once("normalize-space(.)=").map(|(_, r)| r) else {
        return true;
    };
    let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
        return true;
    };
    let Some(word) = rest[1..]
        .split(quote)
        .next()
        .and_then(|text| text.split_whitespace().next())
    else {
        return true;
    };
    // One searcher for the whole page: `str::contains` would prepare its
    // search again for each of the page's text nodes.
    let finder = memchr::memmem::Finder::new(word);
    doc.all()
        .any(|n| doc.kind(n) == NodeKind::Text && finder.find(doc.text(n).as_bytes()).is_some())
}

/// The element that owns `item`: itself, its attribute's element, or a text
/// node's parent.
pub(crate) fn owner_of(doc: &Document, item: Item) -> Option<NodeId> {
    match item {
        Item::Node(n) if doc.is_element(n) => Some(n),
        Item::Node(n) => doc.parent(n).filter(|&p| doc.is_element(p)),
        Item::Attr { element, .. } => Some(element),
        _ => None,
    }
}

/// What `xpath` selects from each scope (nothing where it fails).
pub(crate) fn selections(xpath: &XPath, doc: &Document, scopes: &[Item]) -> Vec<Vec<Item>> {
    scopes
        .iter()
        .map(|&s| xpath.select_item(doc, s).unwrap_or_default())
        .collect()
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

#[cfg(test)]
mod tests {
    use super::{has_position, last_step_tests_attribute};

    #[test]
    fn positions_are_layout_steps_not_adjacency() {
        assert!(has_position("/html/body/ul/li[2]/span"));
        assert!(has_position("//li[6]/a/span[contains(@class, 'x')]"));
        assert!(has_position("/html/body/div/text()[1]"));
        assert!(!has_position(
            "//b[normalize-space(.)='ISBN-13:']/following-sibling::span[1]"
        ));
        assert!(!has_position("//h1[@itemprop='name']"));
        assert!(!has_position(
            "//a[span[normalize-space(.)='Leadership and Management']]"
        ));
        assert!(!has_position("(//a[normalize-space(.)='Gmail'])[1]"));
        assert!(has_position("(//div[2]/a[normalize-space(.)='Gmail'])[1]"));
    }

    #[test]
    fn the_last_step_tests_the_targets_own_attributes() {
        assert!(last_step_tests_attribute(
            "//div[3]/center/input[@name='btnK']"
        ));
        assert!(last_step_tests_attribute(
            "//input[contains(concat(' ', normalize-space(@class), ' '), ' x ')]"
        ));
        assert!(!last_step_tests_attribute("//ul[@id='list']/li[1]"));
        assert!(!last_step_tests_attribute("//div[@id='body']//p[1]"));
        assert!(!last_step_tests_attribute("//a[@href]/span"));
    }
}
