//! The raw material of the search: for each level above the targets, the name
//! test and the predicates that hold for every node at that level, and the
//! ancestor anchors a path may jump from.
//!
//! Level 0 is the targets themselves (the "owners": the elements the targets
//! are, or belong to); level `i` is, for each target, its `i`-th ancestor.
//! A predicate is offered for a level only when every node at that level
//! satisfies it, so a path built from these options always selects every
//! target; the search only has to make it select nothing else.
//!
//! ## What it refuses
//!
//! No predicate is offered that some node of its level fails, that tests
//! what is marked unstable, or whose attribute value repeats the element's
//! own text (the record's data). Reading is bounded: [`MAX_CLASS_OPTIONS`]
//! class tokens and [`MAX_CHILD_LABELS`] child labels a level, a sibling
//! label at most [`LABEL_LOOKBACK`] elements back, anchors from at most
//! [`ANCHOR_LOOKUP`] ancestors below the context, [`MAX_ANCHORS`] a height.
//! A position is offered only where the siblings give a choice.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::super::strings::normalize_space;
use super::heuristics::{
    COST_CLASS, COST_ID, COST_LABEL, COST_NO_CLASS, COST_OTHER_ATTR, COST_POSITION,
    LANDMARK_DISCOUNT, MAX_LABEL_SUBTREE, attribute_cost, is_ncname, own_prefix_label,
    presence_worthy, short_label, usable_class, usable_value,
};
use super::render::Pred;
use super::siblings::{Among, Siblings};
use crate::dom::{Document, NodeId, NodeKind, Sym};
use crate::xpath::Item;

/// How many element siblings back a sibling label is looked for.
const LABEL_LOOKBACK: usize = 4;
/// How many children are read when looking for child labels.
const CHILD_LABEL_SCAN: usize = 16;
/// The most class tokens offered for one level.
const MAX_CLASS_OPTIONS: usize = 6;
/// The most child labels offered for one level.
const MAX_CHILD_LABELS: usize = 3;
/// The most ancestors above a path's top step read for anchors.
const ANCHOR_LOOKUP: usize = 16;
/// The most anchors offered for one path height.
const MAX_ANCHORS: usize = 8;
/// The largest sub-tree whose own text is read for a `Label:` prefix.
const MAX_PREFIX_SUBTREE: usize = 64;

/// A predicate with its cost.
#[derive(Clone, Debug)]
pub(super) struct Opt {
    pub pred: Pred,
    pub cost: u32,
}

/// What the search may say about one level.
#[derive(Clone, Debug)]
pub(super) struct Level {
    /// The shared element name, or `None` for `*`.
    pub name: Option<String>,
    /// The predicates that hold for every node of the level, cheapest first.
    pub opts: Vec<Opt>,
}

/// An ancestor test a path may start from: `.//name[pred]//…`.
#[derive(Clone, Debug)]
pub(super) struct Anchor {
    pub name: Option<String>,
    pub pred: Pred,
    pub cost: u32,
}

/// The owners of a target set seen from their contexts: their ancestor
/// chains up to the highest level the search may use.
pub(super) struct Scope<'a> {
    pub doc: &'a Document,
    /// Each context with the owners the expression must select from it, as
    /// items, sorted.
    pub instances: Vec<(NodeId, Vec<Item>)>,
    /// Every owner, sorted, all proper descendants of their contexts.
    owners: Vec<NodeId>,
    /// For each (context, owner) pair: the owner and then its ancestors, up
    /// to the search's height.
    chains: Vec<Vec<NodeId>>,
    /// The context of each chain.
    chain_contexts: Vec<NodeId>,
    /// How far each chain's owner is below its context (a child is at depth 1).
    depths: Vec<usize>,
    /// Whether the owners are labels, so that their own text may be tested.
    labels: bool,
    /// What no predicate may test.
    unstable: Option<&'a super::UnstableParts>,
    /// The site template's elements, preferred as anchors.
    landmarks: Option<&'a std::collections::HashSet<NodeId>>,
    /// The values the capture page held: a test of another value costs more.
    seen: Option<&'a super::SeenValues>,
}

impl<'a> Scope<'a> {
    /// Builds the chains, at most `max_levels` long. Each instance pairs a
    /// context with owners that are its proper descendants.
    pub fn new(doc: &'a Document, instances: &[(NodeId, Vec<NodeId>)], max_levels: usize) -> Self {
        let mut chains = Vec::new();
        let mut chain_contexts = Vec::new();
        let mut depths = Vec::new();
        let mut owners = Vec::new();
        for (context, list) in instances {
            for &o in list {
                let mut chain = vec![o];
                let mut depth = 1;
                let mut cur = o;
                while let Some(p) = doc.parent(cur) {
                    if p == *context {
                        break;
                    }
                    depth += 1;
                    if chain.len() < max_levels {
                        chain.push(p);
                    }
                    cur = p;
                }
                chains.push(chain);
                chain_contexts.push(*context);
                depths.push(depth);
                owners.push(o);
            }
        }
        owners.sort_unstable();
        owners.dedup();
        Scope {
            doc,
            instances: instances
                .iter()
                .map(|(c, list)| (*c, list.iter().map(|&n| Item::Node(n)).collect()))
                .collect(),
            owners,
            chains,
            chain_contexts,
            depths,
            labels: false,
            unstable: None,
            landmarks: None,
            seen: None,
        }
    }

    /// Declares the owners to be labels (the `<b>ISBN:</b>` before a text
    /// target), whose own text is then a test the search may use.
    pub fn with_label_owners(mut self) -> Self {
        self.labels = true;
        self
    }

    /// Keeps every predicate off `unstable`'s texts and attributes.
    pub fn with_unstable(mut self, unstable: &'a super::UnstableParts) -> Self {
        self.unstable = Some(unstable).filter(|u| !u.is_empty());
        self
    }

    /// Prefers ancestor anchors among `landmarks` (the site template's elements).
    pub fn with_landmarks(mut self, landmarks: &'a std::collections::HashSet<NodeId>) -> Self {
        self.landmarks = Some(landmarks).filter(|l| !l.is_empty());
        self
    }

    /// Prices a test of a value the capture page did not hold higher
    /// ([`super::SeenValues`]); nothing changes without one.
    pub fn with_seen(mut self, seen: &'a super::SeenValues) -> Self {
        self.seen = Some(seen).filter(|s| !s.is_empty());
        self
    }

    /// How an exact path for the owners misses the capture page, when it is
    /// the path for one target from the document and does: it was exact
    /// here by chance, and costs [`super::seen::COST_CHANCE`] more.
    pub fn chance_miss(&self, document_context: bool, xpath: &str) -> Option<super::seen::Miss> {
        let one_target = self.instances.len() == 1 && self.owners.len() == 1;
        if !(document_context && one_target) {
            return None;
        }
        self.seen?.misses_capture(xpath)
    }

    /// What `pred` costs here: its own `cost`, more for an unseen value.
    fn price(&self, pred: &Pred, cost: u32) -> u32 {
        self.seen.map_or(cost, |s| s.price(pred, cost))
    }

    /// Whether the attribute `name` of `node` is unstable.
    fn unstable_attr(&self, node: NodeId, name: &str) -> bool {
        self.unstable.is_some_and(|u| u.attr(node, name))
    }

    /// The label text of `node`, when it is a label whose text is stable.
    fn label(&self, node: NodeId) -> Option<String> {
        if self.unstable.is_some_and(|u| u.in_text_of(self.doc, node)) {
            return None;
        }
        short_label(self.doc, node)
    }

    /// How many levels every owner has below the context (at least one).
    pub fn height(&self) -> usize {
        self.chains.iter().map(Vec::len).min().unwrap_or(0)
    }

    /// Whether every owner is exactly `levels` steps below the context, so a
    /// path of that many child steps can start with `./`.
    pub fn all_at_depth(&self, levels: usize) -> bool {
        self.depths.iter().all(|&d| d == levels)
    }

    /// The distinct nodes at level `i`, sorted.
    pub fn nodes_at(&self, i: usize) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self
            .chains
            .iter()
            .filter_map(|c| c.get(i).copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether `node` is an owner or has one among its descendants.
    fn holds_owner(&self, node: NodeId) -> bool {
        let end = self.doc.subtree_end(node);
        let i = self.owners.partition_point(|&o| o < node);
        self.owners.get(i).is_some_and(|&o| o < end)
    }

    /// The name test and predicate options of level `i`.
    pub fn level(&self, i: usize) -> Level {
        let nodes = self.nodes_at(i);
        let doc = self.doc;
        let name = nodes.first().and_then(|&first| {
            let n = doc.name(first);
            (is_ncname(n) && nodes.iter().all(|&x| doc.name(x) == n)).then(|| n.to_owned())
        });
        let mut opts = Vec::new();
        if let Some(&first) = nodes.first() {
            self.attribute_options(&nodes, first, &mut opts);
            self.class_options(&nodes, first, &mut opts);
            self.label_options(&nodes, name.as_deref(), &mut opts);
            if i == 0 && self.labels {
                self.own_text_option(&nodes, &mut opts);
            }
            self.position_options(&nodes, name.as_deref(), &mut opts);
        }
        for o in &mut opts {
            o.cost = self.price(&o.pred, o.cost);
        }
        // A stable sort keeps the document's attribute order among equals,
        // which makes the output deterministic.
        opts.sort_by_key(|o| o.cost);
        Level { name, opts }
    }

    fn attribute_options(&self, nodes: &[NodeId], first: NodeId, opts: &mut Vec<Opt>) {
        let doc = self.doc;
        for attr in doc.attrs(first) {
            let name = doc.attr_name(attr);
            let value = doc.attr_value(attr);
            if !is_ncname(name) || nodes.iter().any(|&n| self.unstable_attr(n, name)) {
                continue;
            }
            let cost = if name == "id" {
                Some(COST_ID)
            } else {
                attribute_cost(name)
            };
            let same = |n: &NodeId| doc.attr(*n, name) == Some(value);
            if let Some(cost) = cost
                && usable_value(value)
                && nodes.iter().all(same)
                && !repeats_own_text(doc, first, value)
            {
                opts.push(Opt {
                    pred: Pred::AttrEq {
                        name: name.to_owned(),
                        value: value.to_owned(),
                    },
                    cost,
                });
            } else if presence_worthy(name) && nodes.iter().all(|&n| doc.attr(n, name).is_some()) {
                opts.push(Opt {
                    pred: Pred::AttrPresent {
                        name: name.to_owned(),
                    },
                    cost: COST_OTHER_ATTR,
                });
            }
        }
    }

    fn class_options(&self, nodes: &[NodeId], first: NodeId, opts: &mut Vec<Opt>) {
        let doc = self.doc;
        // No element of the page has a class: nothing to test, and the
        // symbol lookup is done once, not per node (a deep nest has as many
        // levels as nodes).
        let Some(class_sym) = doc.sym("class") else {
            return;
        };
        let classless = |n: NodeId| {
            doc.attr_sym(n, class_sym)
                .is_none_or(|c| c.trim().is_empty())
        };
        if nodes.iter().all(|&n| classless(n)) {
            // Worth saying only where a sibling of the same name has a class.
            // Each parent's children are read once: the nodes of a level are
            // often all siblings, and reading the children again for each
            // made a list of 60,000 items take a minute.
            let mut parents: Vec<NodeId> = nodes.iter().filter_map(|&n| doc.parent(n)).collect();
            parents.sort_unstable();
            parents.dedup();
            let classed: HashSet<(NodeId, Sym)> = parents
                .iter()
                .flat_map(|&p| doc.element_children(p).map(move |c| (p, c)))
                .filter(|&(_, c)| !classless(c))
                .map(|(p, c)| (p, doc.name_sym(c)))
                .collect();
            let classed_sibling = !classed.is_empty()
                && nodes.iter().any(|&n| {
                    doc.parent(n)
                        .is_some_and(|p| classed.contains(&(p, doc.name_sym(n))))
                });
            if classed_sibling {
                opts.push(Opt {
                    pred: Pred::NoClass,
                    cost: COST_NO_CLASS,
                });
            }
            return;
        }
        let Some(class) = doc.attr_sym(first, class_sym) else {
            return;
        };
        if nodes.iter().any(|&n| self.unstable_attr(n, "class")) {
            return;
        }
        let mut seen = BTreeSet::new();
        for token in class_tokens(class) {
            if seen.len() >= MAX_CLASS_OPTIONS || !usable_class(token) || !seen.insert(token) {
                continue;
            }
            let shared = nodes[1..].iter().all(|&n| {
                doc.attr_sym(n, class_sym)
                    .is_some_and(|c| class_tokens(c).any(|t| t == token))
            });
            if shared {
                opts.push(Opt {
                    pred: Pred::ClassToken(token.to_owned()),
                    cost: COST_CLASS,
                });
            }
        }
    }

    fn label_options(&self, nodes: &[NodeId], name: Option<&str>, opts: &mut Vec<Opt>) {
        // A label before the node, shared by all of them.
        if let Some(name) = name {
            let mut shared: Option<(String, String)> = None;
            let mut ok = true;
            for &n in nodes {
                match self.sibling_label(n, name) {
                    Some(l) if shared.as_ref().is_none_or(|s| *s == l) => shared = Some(l),
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if let (true, Some((tag, text))) = (ok, shared) {
                opts.push(Opt {
                    pred: Pred::SiblingLabel { tag, text },
                    cost: COST_LABEL,
                });
            }
        }
        // Labels among the children, shared by all of them.
        let mut common: Option<BTreeSet<(String, String)>> = None;
        for &n in nodes {
            let mine = self.child_labels(n);
            common = Some(match common {
                None => mine,
                Some(c) => c.intersection(&mine).cloned().collect(),
            });
            if common.as_ref().is_some_and(BTreeSet::is_empty) {
                break;
            }
        }
        for (tag, text) in common
            .unwrap_or_default()
            .into_iter()
            .take(MAX_CHILD_LABELS)
        {
            opts.push(Opt {
                pred: Pred::ChildLabel { tag, text },
                cost: COST_LABEL,
            });
        }
        // A `Label:` at the start of the node's own text.
        let mut prefix: Option<String> = None;
        for &n in nodes {
            let own = self.own_prefix(n);
            match (&prefix, own) {
                (_, None) => return,
                (None, Some(p)) => prefix = Some(p),
                (Some(a), Some(b)) if *a == b => {}
                _ => return,
            }
        }
        if let Some(p) = prefix {
            opts.push(Opt {
                pred: Pred::OwnPrefix(p),
                cost: COST_LABEL,
            });
        }
    }

    fn own_text_option(&self, nodes: &[NodeId], opts: &mut Vec<Opt>) {
        let mut shared: Option<String> = None;
        for &n in nodes {
            match (self.label(n), &shared) {
                (Some(t), None) => shared = Some(t),
                (Some(t), Some(s)) if t == *s => {}
                _ => return,
            }
        }
        if let Some(text) = shared {
            opts.push(Opt {
                pred: Pred::OwnText(text),
                cost: COST_LABEL,
            });
        }
    }

    /// The nearest preceding sibling with text, if that text is a label and
    /// no element named `name` stands between it and `n` (so that
    /// `following-sibling::name[1]` leads from the label to `n`).
    fn sibling_label(&self, n: NodeId, name: &str) -> Option<(String, String)> {
        let doc = self.doc;
        let mut cur = n;
        let mut elements = 0;
        while let Some(p) = doc.prev_sibling(cur) {
            cur = p;
            match doc.kind(p) {
                NodeKind::Element => {
                    // A large sibling is a block of content, not a label, and
                    // reading its text could mean reading much of the page.
                    if doc.name(p) == name
                        || self.holds_owner(p)
                        || doc.subtree_size(p) > MAX_LABEL_SUBTREE
                    {
                        return None;
                    }
                    elements += 1;
                    if elements > LABEL_LOOKBACK {
                        return None;
                    }
                    if !doc.has_string_value(p) {
                        continue;
                    }
                    let tag = doc.name(p);
                    if !is_ncname(tag) {
                        return None;
                    }
                    return self.label(p).map(|t| (tag.to_owned(), t));
                }
                NodeKind::Text => {
                    let text = doc.text(p);
                    if text
                        .trim_matches(super::super::lexer::is_xml_space)
                        .is_empty()
                    {
                        continue;
                    }
                    return self.label(p).map(|t| ("text()".to_owned(), t));
                }
                _ => continue,
            }
        }
        None
    }

    /// The children of `n` whose text is a label and that hold no target.
    fn child_labels(&self, n: NodeId) -> BTreeSet<(String, String)> {
        let doc = self.doc;
        let mut out = BTreeSet::new();
        for c in doc.element_children(n).take(CHILD_LABEL_SCAN) {
            let tag = doc.name(c);
            if !is_ncname(tag) || self.holds_owner(c) {
                continue;
            }
            if let Some(text) = self.label(c) {
                out.insert((tag.to_owned(), text));
            }
        }
        out
    }

    fn own_prefix(&self, n: NodeId) -> Option<String> {
        let doc = self.doc;
        if doc.subtree_size(n) > MAX_PREFIX_SUBTREE
            || self.unstable.is_some_and(|u| u.in_text_of(doc, n))
        {
            return None;
        }
        own_prefix_label(&normalize_space(&doc.string_value(n)))
    }

    fn position_options(&self, nodes: &[NodeId], name: Option<&str>, opts: &mut Vec<Opt>) {
        let doc = self.doc;
        let mut position = None;
        let mut all_last = true;
        let mut any_choice = false;
        let mut same_position = true;
        let mut siblings = Siblings::new(doc);
        let among = Among::name(name);
        for &n in nodes {
            let Some((k, count)) = siblings.position(n, &among) else {
                return;
            };
            any_choice |= count > 1;
            all_last &= k == count;
            match position {
                None => position = Some(k),
                Some(p) if p == k => {}
                Some(_) => same_position = false,
            }
        }
        if !any_choice {
            return;
        }
        if let (true, Some(k)) = (same_position, position) {
            opts.push(Opt {
                pred: Pred::Position(k),
                cost: COST_POSITION,
            });
        }
        if all_last && !(same_position && position == Some(1)) {
            opts.push(Opt {
                pred: Pred::Last,
                cost: COST_POSITION,
            });
        }
    }

    /// The ancestor anchors for a path whose top step is level `top`: tests
    /// that some ancestor above that level (and below the context) passes,
    /// for every owner.
    pub fn anchors(&self, top: usize) -> Vec<Anchor> {
        let doc = self.doc;
        let mut tops: Vec<(NodeId, NodeId)> = self
            .chains
            .iter()
            .zip(&self.chain_contexts)
            .filter_map(|(chain, &ctx)| chain.get(top).map(|&t| (t, ctx)))
            .collect();
        tops.sort_unstable();
        tops.dedup();
        if tops.is_empty() {
            return Vec::new();
        }
        // For each test: how many tops have an ancestor passing it, and the
        // names of those ancestors.
        let mut tally: BTreeMap<Pred, (usize, u32, BTreeSet<String>)> = BTreeMap::new();
        for &(t, context) in &tops {
            let mut mine: BTreeMap<Pred, (u32, BTreeSet<String>)> = BTreeMap::new();
            let mut cur = t;
            for _ in 0..ANCHOR_LOOKUP {
                let Some(p) = doc.parent(cur) else { break };
                if p == context || !doc.is_element(p) {
                    break;
                }
                cur = p;
                let landmark = self.landmarks.is_some_and(|l| l.contains(&p));
                for (pred, cost) in anchor_preds(doc, p, self.unstable) {
                    let cost = if landmark {
                        cost.saturating_sub(LANDMARK_DISCOUNT)
                    } else {
                        cost
                    };
                    let cost = self.price(&pred, cost);
                    mine.entry(pred)
                        .or_insert_with(|| (cost, BTreeSet::new()))
                        .1
                        .insert(doc.name(p).to_owned());
                }
            }
            for (pred, (cost, names)) in mine {
                let e = tally
                    .entry(pred)
                    .or_insert_with(|| (0, cost, BTreeSet::new()));
                e.0 += 1;
                e.2.extend(names);
            }
        }
        let mut out: Vec<Anchor> = tally
            .into_iter()
            .filter(|(_, (count, _, _))| *count == tops.len())
            .map(|(pred, (_, cost, names))| {
                let name = match names.len() {
                    1 => names.into_iter().next().filter(|n| is_ncname(n)),
                    _ => None,
                };
                Anchor { name, pred, cost }
            })
            .collect();
        out.sort_by_key(|a| a.cost);
        out.truncate(MAX_ANCHORS);
        out
    }
}

/// Whether an attribute value repeats the element's own text, three
/// characters or more (`title="View Stephenie Meyer author page"` on the
/// link "Stephenie Meyer"): the value then carries the record's data, and a
/// test on it fits this record only. Case counts: `data-action="buy"` on a
/// "Buy" button names an action, not data.
fn repeats_own_text(doc: &Document, element: NodeId, value: &str) -> bool {
    let text = normalize_space(&doc.string_value(element));
    text.chars().count() >= 3 && value.contains(text.as_str())
}

/// The strong tests of one element that make good anchors: a hand-written
/// id, an allowlisted attribute value, a stable class token.
fn anchor_preds(
    doc: &Document,
    node: NodeId,
    unstable: Option<&super::UnstableParts>,
) -> Vec<(Pred, u32)> {
    let mut out = Vec::new();
    let unstable = |name: &str| unstable.is_some_and(|u| u.attr(node, name));
    for attr in doc.attrs(node) {
        let name = doc.attr_name(attr);
        let value = doc.attr_value(attr);
        if !is_ncname(name) || !usable_value(value) || unstable(name) {
            continue;
        }
        let cost = if name == "id" {
            Some(COST_ID)
        } else {
            attribute_cost(name)
        };
        if let Some(cost) = cost {
            out.push((
                Pred::AttrEq {
                    name: name.to_owned(),
                    value: value.to_owned(),
                },
                cost,
            ));
        }
    }
    if let Some(class) = doc.attr(node, "class").filter(|_| !unstable("class")) {
        for token in class_tokens(class)
            .filter(|t| usable_class(t))
            .take(MAX_CLASS_OPTIONS)
        {
            out.push((Pred::ClassToken(token.to_owned()), COST_CLASS));
        }
    }
    out
}

/// The tokens of a class attribute, split as `normalize-space` splits them.
fn class_tokens(class: &str) -> impl Iterator<Item = &str> {
    class
        .split(super::super::lexer::is_xml_space)
        .filter(|t| !t.is_empty())
}
