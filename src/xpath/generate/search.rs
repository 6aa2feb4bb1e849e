//! The top-down search: start from the most general path, `.//name`, and
//! specialise it one test at a time, cheapest first, until it selects exactly
//! the owners.
//!
//! Like Robula+, the search only ever specialises: each refinement adds a
//! predicate to some level, adds a level above the top one, anchors the path
//! at the context (`./`), or adds a `//` jump from an ancestor anchor. Every
//! refinement costs more than its parent, so taking candidates from a
//! priority queue ordered by (cost, length) means the first candidate found
//! exact is the cheapest exact one among those the budget let us see.
//! Because every option holds for all owners, a candidate can only lose
//! owners through the engine disagreeing with the options' construction;
//! such a candidate is dropped with everything below it.
//!
//! ## What it refuses
//!
//! It stops at the evaluation budget it is given, at [`ALTERNATIVE_BUDGET`]
//! more after the first exact candidate, or once enough are found; at most
//! [`MAX_QUEUE`] candidates wait, and no path grows past `max_steps` levels.
//! A candidate that does not compile or evaluate is a dead end, a test that
//! removed nothing is not refined, and no level takes more than one position
//! or sibling label. The result is the cheapest exact path among those the
//! budget reached, not among all.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};

use super::heuristics::{COST_ANCHOR, COST_CHILD_START, COST_LEVEL};
use super::levels::{Anchor, Level, Scope};
use super::render::{Pred, write_step};
use super::selections::Selections;
use crate::dom::NodeId;
use crate::xpath::{Item, XPath};

/// How many more candidates are evaluated, after the first exact one, to
/// find alternatives.
const ALTERNATIVE_BUDGET: usize = 64;
/// The most candidates kept waiting in the queue, so memory stays bounded
/// whatever the branching.
const MAX_QUEUE: usize = 100_000;

/// An owner path that selects exactly the owners, with its cost.
#[derive(Clone, Debug)]
pub(super) struct Found {
    pub xpath: String,
    pub cost: u32,
}

/// One candidate: the options chosen at each level (level 0 first), and how
/// the path starts.
#[derive(Clone, Debug)]
struct Cand {
    /// For each level, indexes into that level's options, increasing.
    levels: Vec<Vec<u16>>,
    child_start: bool,
    anchor: Option<u16>,
    cost: u32,
    /// Whether the last refinement added structure (a level, or `./`) that
    /// may select as much as before and still enable cheaper tests above it.
    structural: bool,
    /// How many nodes the parent candidate selected.
    parent_count: usize,
}

pub(super) struct Search<'s, 'd> {
    scope: &'s Scope<'d>,
    /// Answers shared with other searches on the same document.
    selections: Option<&'s Selections>,
    document_context: bool,
    max_steps: usize,
    levels: Vec<Level>,
    anchors: Vec<Option<Vec<Anchor>>>,
    /// How many candidates were evaluated.
    pub evaluations: usize,
}

impl<'s, 'd> Search<'s, 'd> {
    pub fn new(
        scope: &'s Scope<'d>,
        document_context: bool,
        max_steps: usize,
        selections: Option<&'s Selections>,
    ) -> Self {
        Search {
            scope,
            selections,
            document_context,
            max_steps: max_steps.max(1),
            levels: Vec::new(),
            anchors: Vec::new(),
            evaluations: 0,
        }
    }

    fn level(&mut self, i: usize) -> &Level {
        while self.levels.len() <= i {
            let next = self.scope.level(self.levels.len());
            self.levels.push(next);
        }
        &self.levels[i]
    }

    fn anchors(&mut self, top: usize) -> &[Anchor] {
        if self.anchors.len() <= top {
            self.anchors.resize(top + 1, None);
        }
        if self.anchors[top].is_none() {
            self.anchors[top] = Some(self.scope.anchors(top));
        }
        self.anchors[top].as_deref().unwrap_or(&[])
    }

    fn render(&mut self, c: &Cand) -> String {
        let mut out = String::from(match (self.document_context, c.child_start) {
            (true, true) => "/",
            (true, false) => "//",
            (false, true) => "./",
            (false, false) => ".//",
        });
        let top = c.levels.len() - 1;
        if let Some(a) = c.anchor {
            let anchor = &self.anchors(top)[a as usize];
            write_step(
                &mut out,
                anchor.name.as_deref(),
                std::iter::once(&anchor.pred),
            );
            out.push_str("//");
        }
        for i in (0..=top).rev() {
            let level = self.level(i);
            let preds = c.levels[i].iter().map(|&j| &level.opts[j as usize].pred);
            write_step(&mut out, level.name.as_deref(), preds);
            if i > 0 {
                out.push('/');
            }
        }
        out
    }

    /// Runs the search with at most `budget` evaluations and returns up to
    /// `want` exact owner paths, cheapest first.
    pub fn run(&mut self, budget: usize, want: usize) -> Vec<Found> {
        let scope = self.scope;
        let mut found: Vec<Found> = Vec::new();
        if scope.height() == 0 || budget == 0 {
            return found;
        }
        let mut store: Vec<(Cand, String)> = Vec::new();
        let mut queue: BinaryHeap<Reverse<(u32, usize, usize)>> = BinaryHeap::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut expanded: HashSet<u64> = HashSet::new();
        let root = Cand {
            levels: vec![Vec::new()],
            child_start: false,
            anchor: None,
            cost: 0,
            structural: true,
            parent_count: usize::MAX,
        };
        self.push(root, &mut store, &mut queue, &mut seen);
        let mut stop_at = budget;
        // Exact paths sent back to the queue at a higher price, as they
        // missed the capture page, with that price.
        let mut repriced: HashMap<usize, u32> = HashMap::new();
        while let Some(Reverse((_, _, id))) = queue.pop() {
            if self.evaluations >= stop_at || found.len() >= want {
                break;
            }
            self.evaluations += 1;
            let (cand, xpath) = store[id].clone();
            let Some(got) = evaluate(scope, &xpath, self.selections) else {
                continue;
            };
            if !got.covers {
                continue;
            }
            // An exact path that missed the capture page goes back to the
            // queue at its higher price. When it selected the captured node
            // among others there, a narrower path may hold on both pages,
            // and its refinements are queued as an inexact path's would be;
            // otherwise no refinement can reach the captured node.
            let miss = if got.exact && !repriced.contains_key(&id) {
                scope.chance_miss(self.document_context, &xpath)
            } else {
                None
            };
            if let Some(miss) = miss {
                let cost = cand.cost.saturating_add(super::seen::COST_CHANCE);
                repriced.insert(id, cost);
                queue.push(Reverse((cost, xpath.len(), id)));
                if miss == super::seen::Miss::Elsewhere {
                    continue;
                }
            }
            if got.exact && miss.is_none() {
                if found.is_empty() {
                    stop_at = stop_at.min(self.evaluations + ALTERNATIVE_BUDGET);
                }
                found.push(Found {
                    xpath,
                    cost: repriced.get(&id).copied().unwrap_or(cand.cost),
                });
                continue;
            }
            if !cand.structural && got.count >= cand.parent_count {
                // The last test removed nothing: whatever could follow it is
                // cheaper without it, and is queued from the parent already.
                continue;
            }
            if !cand.structural && !expanded.insert(got.hash) {
                // A cheaper candidate selected the same nodes and was
                // refined already; refining this one too would mostly find
                // the same sets again at a higher cost. Structural
                // candidates are exempt, as they are what opens the levels
                // above to tests.
                continue;
            }
            for child in self.refinements(&cand, got.count) {
                if queue.len() >= MAX_QUEUE {
                    break;
                }
                self.push(child, &mut store, &mut queue, &mut seen);
            }
        }
        found
    }

    fn push(
        &mut self,
        cand: Cand,
        store: &mut Vec<(Cand, String)>,
        queue: &mut BinaryHeap<Reverse<(u32, usize, usize)>>,
        seen: &mut HashSet<String>,
    ) {
        let xpath = self.render(&cand);
        if !seen.insert(xpath.clone()) {
            return;
        }
        queue.push(Reverse((cand.cost, xpath.len(), store.len())));
        store.push((cand, xpath));
    }

    /// The one-step specialisations of `c`, which selected `count` nodes.
    fn refinements(&mut self, c: &Cand, count: usize) -> Vec<Cand> {
        let mut out = Vec::new();
        let child = |c: &Cand, extra: u32, structural: bool| Cand {
            cost: c.cost.saturating_add(extra),
            structural,
            parent_count: count,
            ..c.clone()
        };
        // One more predicate at some level. Options at a level are taken in
        // increasing index order, so each set of options is built once.
        for i in 0..c.levels.len() {
            let special = |p: &Pred| p.positional() || matches!(p, Pred::SiblingLabel { .. });
            let level = self.level(i);
            let has_special = c.levels[i]
                .iter()
                .any(|&j| special(&level.opts[j as usize].pred));
            let start = c.levels[i].last().map_or(0, |&j| j as usize + 1);
            let options: Vec<(usize, u32, bool)> = level
                .opts
                .iter()
                .enumerate()
                .skip(start)
                .map(|(j, o)| (j, o.cost, special(&o.pred)))
                .collect();
            for (j, cost, is_special) in options {
                if is_special && has_special {
                    continue;
                }
                let Ok(j) = u16::try_from(j) else { break };
                let mut next = child(c, cost, false);
                next.levels[i].push(j);
                out.push(next);
            }
        }
        if c.anchor.is_none() && !c.child_start {
            let height = c.levels.len();
            if height < self.scope.height() && height < self.max_steps {
                let mut next = child(c, COST_LEVEL, true);
                next.levels.push(Vec::new());
                out.push(next);
            }
            if self.scope.all_at_depth(height) {
                let mut next = child(c, COST_CHILD_START, true);
                next.child_start = true;
                out.push(next);
            }
            let anchors: Vec<u32> = self.anchors(height - 1).iter().map(|a| a.cost).collect();
            for (a, cost) in anchors.into_iter().enumerate() {
                let Ok(a) = u16::try_from(a) else { break };
                let mut next = child(c, COST_ANCHOR + cost, false);
                next.anchor = Some(a);
                out.push(next);
            }
        }
        out
    }
}

/// What a candidate selected, over all the scope's contexts.
struct Selection {
    /// Whether it selected every owner.
    covers: bool,
    /// Whether it selected the owners and nothing else, from every context.
    exact: bool,
    /// How many nodes it selected in all.
    count: usize,
    /// A hash of everything it selected, to recognise a selection seen before.
    hash: u64,
}

/// What `xpath` selects from each of the scope's contexts, or `None` when it
/// does not compile or evaluate (which the search treats as a dead end);
/// answers kept in `selections` are not evaluated again.
fn evaluate(scope: &Scope<'_>, xpath: &str, selections: Option<&Selections>) -> Option<Selection> {
    let compiled = std::cell::OnceCell::new();
    let select = |ctx: NodeId| -> Option<Vec<Item>> {
        let compiled = compiled
            .get_or_init(|| XPath::compile(xpath).ok())
            .as_ref()?;
        compiled.select_item(scope.doc, Item::Node(ctx)).ok()
    };
    let mut out = Selection {
        covers: true,
        exact: true,
        count: 0,
        hash: 0,
    };
    let mut h = foldhash::fast::FixedState::with_seed(0).build_hasher();
    for (ctx, want) in &scope.instances {
        let got: std::sync::Arc<[Item]> = match selections {
            Some(kept) => kept.get_or_evaluate(scope.doc, xpath, *ctx, || select(*ctx))?,
            None => select(*ctx)?.into(),
        };
        out.covers &= covers(&got, want);
        out.exact &= *got == **want;
        out.count += got.len();
        got.hash(&mut h);
    }
    out.hash = h.finish();
    Some(out)
}

/// Whether the sorted `got` contains every one of the sorted `want`.
fn covers(got: &[Item], want: &[Item]) -> bool {
    let mut it = got.iter();
    want.iter().all(|w| it.any(|g| g == w))
}
