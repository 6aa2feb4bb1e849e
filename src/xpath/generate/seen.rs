//! The values another page of the site held: attribute values, class tokens
//! and short texts read from the page a pattern was captured on, so that a
//! generated expression prefers the tests both pages pass.
//!
//! A heal writes its expression from one page. A test that holds there may
//! name that page's content rather than the element: a pin button's
//! `data-description` is the recipe's name, a heading's `id` is its text
//! made into a slug, a card's `id` carries the record's number. Each holds
//! on the page it was read from and on no other page of the site. The page
//! the wrapper was captured on is a second witness the healer already has:
//! a value it held too has survived a change of page, one it lacked has
//! not. A test on a value the capture lacked is not refused (a redesign
//! renames ids and classes, and the new name may be the best test there is);
//! it costs more, so that a test both pages pass is taken when there is one.
//!
//! The same holds for a path with no value at all: `//span` is exact on a
//! post whose author is its one `span`, and selects the commenters too on
//! the next post. A path for one target that misses the capture page is
//! exact here by chance, and costs what a position costs. With the whole
//! capture page and what the wrapper selected there, a path misses it when
//! it selects anything else: another node, more, or nothing. With only the
//! tree-gram's neighbourhood, which lacks most of what a path from the
//! document passes through, it misses when it selects several nodes.
//!
//! ## What it refuses
//!
//! It judges no value by its look: [`super::looks_generated`] does that. It
//! reads names as they are, so `ID` and `id` are different attributes, and a
//! text is kept only when it is short enough to be a label (at most 40
//! characters once normalized). mend's own marks (`data-mend-*`) are not
//! values of the page. Empty, which is the default, it prices nothing.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use super::super::strings::normalize_space;
use super::render::Pred;
use crate::dom::{Document, NodeKind};

/// What an expression's test costs on top of its own price when the
/// capture page did not hold its value. It is more than the spread between
/// an id and a class token (20), so that a class both pages carry wins over
/// an id only this page has, and less than a location step (35), so that a
/// path does not grow a level to avoid a value.
pub(super) const COST_UNSEEN: u32 = 25;

/// What a path for one target costs on top of its own price when it
/// misses the capture page ([`SeenValues::misses_capture`]): what a
/// position costs, as both hold on this page and not on the site's others.
pub(super) const COST_CHANCE: u32 = super::heuristics::COST_POSITION;

/// How a path misses the capture page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Miss {
    /// It selects what the pattern selected there and more: a narrower
    /// path may hold on both pages.
    Wider,
    /// It does not select what the pattern selected there: no narrower
    /// path of it can.
    Elsewhere,
}

/// What an XPath selects on the whole capture page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundTrip {
    /// How many nodes it selects there.
    pub selected: usize,
    /// How many of them the pattern selected there too.
    pub shared: usize,
}

/// The longest text, in characters, kept as a possible label.
const MAX_TEXT_CHARS: usize = 40;

/// Values read from one page. Empty by default: nothing is known of
/// another page, and every test costs its own price.
#[derive(Clone, Debug, Default)]
pub struct SeenValues {
    attrs: HashSet<(String, String)>,
    classes: HashSet<String>,
    texts: BTreeSet<String>,
    /// The page itself, on which a path's selection is counted.
    page: Option<Arc<Document>>,
    /// The nodes the pattern selected on the page (by document order, in
    /// order), when the page is the whole capture page and they are known;
    /// empty otherwise.
    captured: Vec<u64>,
}

impl PartialEq for SeenValues {
    fn eq(&self, other: &SeenValues) -> bool {
        let same_page = match (&self.page, &other.page) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_page
            && self.captured == other.captured
            && self.attrs == other.attrs
            && self.classes == other.classes
            && self.texts == other.texts
    }
}

impl Eq for SeenValues {}

impl SeenValues {
    /// The attribute values, class tokens and short texts of `doc`: every
    /// element's attributes but mend's marks, every text node's normalized
    /// text, and each element's normalized string-value when it is short.
    pub fn of(doc: &Document) -> SeenValues {
        SeenValues {
            page: Some(Arc::new(doc.clone())),
            ..SeenValues::values_of(doc)
        }
    }

    /// The values of `part`, the tree-gram's neighbourhood of the capture
    /// page, with the whole capture `page` and the nodes the pattern
    /// selected there: a path for one target is then priced by whether it
    /// selects those nodes ([`SeenValues::round_trip`]). The values are
    /// the neighbourhood's, not the whole page's: every id and class of a
    /// page held once makes an anchor anywhere on it look shared, and on
    /// validation sites the whole page's values kept fewer heal XPaths that
    /// select the captured node there (215 against 216 of 296 mutations),
    /// and reading them took some 40 ms on a page of 60,000 elements. With
    /// no nodes the page reads as a part of the page, as in
    /// [`SeenValues::of`].
    pub fn of_capture(
        part: &Document,
        page: Arc<Document>,
        captured: Vec<crate::xpath::Item>,
    ) -> SeenValues {
        let mut captured: Vec<u64> = captured
            .into_iter()
            .map(crate::xpath::Item::order_key)
            .collect();
        captured.sort_unstable();
        captured.dedup();
        SeenValues {
            captured,
            page: Some(page),
            ..SeenValues::values_of(part)
        }
    }

    /// The values of `doc`, with no page to count selections on.
    fn values_of(doc: &Document) -> SeenValues {
        let mut seen = SeenValues::default();
        for n in doc.all() {
            match doc.kind(n) {
                NodeKind::Element => {
                    for a in doc.attrs(n) {
                        let name = doc.attr_name(a);
                        if name.starts_with("data-mend-") {
                            continue;
                        }
                        let value = doc.attr_value(a);
                        if name == "class" {
                            seen.classes.extend(
                                value
                                    .split(super::super::lexer::is_xml_space)
                                    .filter(|t| !t.is_empty())
                                    .map(str::to_owned),
                            );
                        }
                        seen.attrs.insert((name.to_owned(), value.to_owned()));
                    }
                    if doc.subtree_end(n).index() - n.index()
                        <= super::heuristics::MAX_LABEL_SUBTREE
                    {
                        seen.add_text(&doc.string_value(n));
                    }
                }
                NodeKind::Text => seen.add_text(doc.text(n)),
                _ => {}
            }
        }
        seen
    }

    /// How `xpath`, a path from the document for one target, misses the
    /// page read, if it does; `None` when it holds there, when no page was
    /// read, or when it does not evaluate there.
    ///
    /// On the whole capture page, with the nodes the pattern selected there,
    /// a path holds when it selects exactly those nodes. On a part of the
    /// page (the tree-gram's neighbourhood), which lacks most of what a
    /// path from the document may pass through, it holds unless it selects
    /// several nodes.
    pub(super) fn misses_capture(&self, xpath: &str) -> Option<Miss> {
        if self.captured.is_empty() {
            let page = self.page.as_deref()?;
            return (select_from_root(page, xpath)?.len() > 1).then_some(Miss::Wider);
        }
        let trip = self.round_trip(xpath)?;
        match (
            trip.shared == self.captured.len(),
            trip.selected == trip.shared,
        ) {
            (true, true) => None,
            (true, false) => Some(Miss::Wider),
            (false, _) => Some(Miss::Elsewhere),
        }
    }

    /// What `xpath`, from the document, selects on the whole capture page,
    /// counted against what the pattern selected there; `None` without that
    /// page and those nodes, or when it does not evaluate there.
    pub fn round_trip(&self, xpath: &str) -> Option<RoundTrip> {
        if self.captured.is_empty() {
            return None;
        }
        let nodes = select_from_root(self.page.as_deref()?, xpath)?;
        let shared = nodes
            .iter()
            .filter(|n| self.captured.binary_search(&n.order_key()).is_ok())
            .count();
        Some(RoundTrip {
            selected: nodes.len(),
            shared,
        })
    }

    /// Whether nothing was read.
    pub fn is_empty(&self) -> bool {
        self.page.is_none() && self.no_values()
    }

    /// Whether no value was read, so that no test is priced by one.
    fn no_values(&self) -> bool {
        self.attrs.is_empty() && self.classes.is_empty() && self.texts.is_empty()
    }

    fn add_text(&mut self, text: &str) {
        let text = normalize_space(text);
        if !text.is_empty() && text.chars().count() <= MAX_TEXT_CHARS {
            self.texts.insert(text);
        }
    }

    /// Whether the page held the value `pred` tests. Tests of no value (a
    /// position, an attribute's presence, the absence of a class) hold on
    /// any page as far as this can tell.
    pub(super) fn holds(&self, pred: &Pred) -> bool {
        match pred {
            Pred::AttrEq { name, value } => self.attrs.contains(&(name.clone(), value.clone())),
            Pred::ClassToken(token) => self.classes.contains(token),
            Pred::ChildLabel { text, .. }
            | Pred::SiblingLabel { text, .. }
            | Pred::OwnText(text) => self.texts.contains(text),
            Pred::OwnPrefix(prefix) => self
                .texts
                .range(prefix.clone()..)
                .next()
                .is_some_and(|t| t.starts_with(prefix.as_str())),
            Pred::AttrPresent { .. } | Pred::NoClass | Pred::Position(_) | Pred::Last => true,
        }
    }

    /// The price of `pred` at `cost`: more when the page did not hold its
    /// value, the same when it did or when nothing was read.
    pub(super) fn price(&self, pred: &Pred, cost: u32) -> u32 {
        if self.no_values() || self.holds(pred) {
            cost
        } else {
            cost.saturating_add(COST_UNSEEN)
        }
    }
}

/// What `xpath` selects on `page` from its root; `None` when it does not
/// compile or evaluate.
fn select_from_root(page: &Document, xpath: &str) -> Option<Vec<crate::xpath::Item>> {
    crate::xpath::XPath::compile(xpath)
        .ok()?
        .select_item(page, crate::xpath::Item::Node(page.root()))
        .ok()
}
