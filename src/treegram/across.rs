//! What a pattern's matches did over the several pages a tree-gram was
//! captured on: on how many pages it matched at all, how many nodes it
//! matched, which labels its target held on every page, which of its
//! locators held on every page, and which of its target's texts were the
//! page's own (a product's name, its description) rather than the site's.
//!
//! Ordinary differences between pages of one site are not drift: a field
//! that was absent on a capture page may be absent again, a label that only
//! one product's description carried names nothing, a record list that held
//! 4 to 40 items may hold 12, and a text that differed from page to page is
//! no witness of where the target went. One page cannot tell these apart
//! from the site's own structure; several can.
//!
//! Pure: the pages come parsed, and nothing is read or written.
//!
//! ## What it refuses
//!
//! A page where the pattern's XPath fails, or gives something other than
//! nodes, counts as one where it matched nothing, and no locator holds there.
//! Labels are read from the first target's element only, and kept only when
//! every page where the pattern matched had them. A text is the page's own
//! only against a page where the pattern matched; texts compare exactly once
//! whitespace is collapsed, and a value seen is cut to [`MAX_VALUE`]
//! characters.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::Mask;
use crate::wrapper::{Pattern, PatternPath, Wrapper};
use crate::xpath::{Item, Value};

use super::labels::labels;
use super::locators::{Locator, exact};

/// What the capture pages showed of one pattern (`<meta name="mend:pages">`
/// and its neighbours in the tree-gram's header), present only in a
/// tree-gram captured over more than one page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Across {
    /// How many pages the tree-gram was captured over.
    pub pages: usize,
    /// On how many of them the pattern matched anything.
    pub present: usize,
    /// The fewest nodes it matched on a page where it matched (`mend:matched-range`).
    pub matched_min: usize,
    /// The most nodes it matched on a page.
    pub matched_max: usize,
    /// The labels its first target held on every page where it matched
    /// (`mend:label`, one per label; none when no label held throughout).
    pub labels: BTreeSet<String>,
}

impl Across {
    /// Whether the pattern matched nothing on some capture page: a page
    /// where it matches nothing is then ordinary, not a break.
    pub fn optional(&self) -> bool {
        self.present < self.pages
    }

    /// Whether `n` nodes is a count the capture pages showed (within the
    /// fewest and the most).
    pub fn count_seen(&self, n: usize) -> bool {
        (self.matched_min..=self.matched_max).contains(&n)
    }
}

/// A pattern's matches on one page: each parent instance with its matches.
pub(super) type PerContext = Vec<(Item, Vec<Item>)>;

/// The matches of the pattern at `path` on `doc`, from each of its parent
/// instances there; `None` when its XPath fails or gives no nodes.
pub(super) fn matches_on(
    wrapper: &Wrapper,
    path: &PatternPath,
    pattern: &Pattern,
    doc: &Document,
) -> Option<PerContext> {
    let scopes = if path.parent().is_none() {
        vec![Item::Node(NodeId::ROOT)]
    } else {
        wrapper.instances(doc, path)
    };
    scopes
        .into_iter()
        .map(|scope| match pattern.xpath.evaluate_item(doc, scope) {
            Ok(Value::Nodes(items)) => Some((scope, items)),
            _ => None,
        })
        .collect()
}

/// What `first` (the pattern's matches on the page captured) and `others`
/// (its matches on each other capture page, with the page) show together.
pub(super) fn across(
    doc: &Document,
    first: &PerContext,
    others: &[(&Document, Option<PerContext>)],
) -> Across {
    let mut out = Across {
        pages: 1 + others.len(),
        ..Across::default()
    };
    let mut label_sets = Vec::new();
    let mut count = |d: &Document, per: &PerContext| {
        let n: usize = per.iter().map(|(_, items)| items.len()).sum();
        if n > 0 {
            out.present += 1;
            out.matched_min = if out.present == 1 {
                n
            } else {
                out.matched_min.min(n)
            };
            out.matched_max = out.matched_max.max(n);
            label_sets.push(
                first_element(d, per)
                    .map(|e| labels(d, e))
                    .unwrap_or_default(),
            );
        }
    };
    count(doc, first);
    for (d, per) in others {
        count(d, per.as_ref().unwrap_or(&Vec::new()));
    }
    let mut sets = label_sets.into_iter();
    let first_set = sets.next().unwrap_or_default();
    out.labels = sets.fold(first_set, |kept, next| {
        kept.intersection(&next).cloned().collect()
    });
    out
}

/// The locators of `locators` that select exactly the pattern's matches on
/// every other capture page too: one that held only on the first page (a
/// product's name in a text locator, a position that moves) would outvote
/// the XPath on the next page.
pub(super) fn held_everywhere(
    locators: Vec<Locator>,
    others: &[(&Document, Option<PerContext>)],
) -> Vec<Locator> {
    locators
        .into_iter()
        .filter(|l| {
            others.iter().all(|(d, per)| match per {
                Some(per) => exact(d, &l.xpath, per),
                None => false,
            })
        })
        .collect()
}

/// The text nodes inside the targets of a field on the page captured whose
/// words were not among its target's texts on some other capture page where
/// it matched: the page's own data, not the site's. Each comes with the
/// other pages' texts of the target, for a person reading the file.
pub(super) fn page_own_texts(
    doc: &Document,
    first: &PerContext,
    others: &[(&Document, Option<PerContext>)],
) -> HashMap<NodeId, Vec<String>> {
    let mut out = HashMap::new();
    let Some(target) = first_element(doc, first) else {
        return out;
    };
    let elsewhere: Vec<(HashSet<String>, String)> = others
        .iter()
        .filter_map(|(d, per)| {
            let e = first_element(d, per.as_ref()?)?;
            Some((
                texts(d, e).into_iter().map(|(_, t)| t).collect(),
                clip(&d.string_value(e)),
            ))
        })
        .collect();
    for (node, text) in texts(doc, target) {
        if elsewhere.iter().any(|(seen, _)| !seen.contains(&text)) {
            let mut values = vec![clip(&text)];
            values.extend(elsewhere.iter().map(|(_, v)| v.clone()));
            out.insert(node, values);
        }
    }
    out
}

/// A mask that adds the page's own texts ([`page_own_texts`]) to another
/// mask: they are compared by nothing, as texts that change from load to
/// load are.
pub(super) struct WithPageTexts<'a> {
    /// The mask of what changes from load to load.
    pub inner: &'a dyn Mask,
    /// The page's own text nodes, each with the values seen.
    pub texts: HashMap<NodeId, Vec<String>>,
}

impl Mask for WithPageTexts<'_> {
    fn skips(&self, doc: &Document, node: NodeId) -> bool {
        self.inner.skips(doc, node)
    }

    fn masks_attr(&self, doc: &Document, node: NodeId, name: &str) -> bool {
        self.inner.masks_attr(doc, node, name)
    }

    fn masks_text(&self, doc: &Document, node: NodeId) -> bool {
        self.texts.contains_key(&node) || self.inner.masks_text(doc, node)
    }

    fn text_values(&self, doc: &Document, node: NodeId) -> Option<String> {
        match self.texts.get(&node) {
            Some(values) => Some(values.join(crate::unstable::VALUE_SEPARATOR)),
            None => self.inner.text_values(doc, node),
        }
    }
}

/// The longest text kept as a value seen, in characters.
const MAX_VALUE: usize = 60;

/// `text` cut to [`MAX_VALUE`] characters, spaces normalized.
fn clip(text: &str) -> String {
    let normal: Vec<&str> = text.split_whitespace().collect();
    normal.join(" ").chars().take(MAX_VALUE).collect()
}

/// The first element the matches select (an attribute's or a text's owner).
fn first_element(doc: &Document, per: &PerContext) -> Option<NodeId> {
    per.iter()
        .flat_map(|(_, items)| items)
        .map(|i| i.owner())
        .find(|&n| doc.is_element(n))
}

/// The non-blank text nodes inside `element`, each with its text, spaces
/// normalized.
fn texts(doc: &Document, element: NodeId) -> Vec<(NodeId, String)> {
    (element.0..doc.subtree_end(element).0)
        .map(NodeId)
        .filter(|&n| doc.kind(n) == NodeKind::Text)
        .filter_map(|n| {
            let t = doc.text(n).split_whitespace().collect::<Vec<_>>().join(" ");
            (!t.is_empty()).then_some((n, t))
        })
        .collect()
}
