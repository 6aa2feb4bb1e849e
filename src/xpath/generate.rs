//! Robust XPath generation: given the nodes that adaptation chose on a new
//! page, write the XPath that selects exactly those nodes, relative to the
//! parent pattern's instance, and is likely to keep selecting them after the
//! site's next change.
//!
//! [`generate`] takes a context (the document node or a parent instance) and
//! a set of targets (elements, attributes, text or comment nodes) and returns
//! an expression that, compiled with mend's engine and evaluated from the
//! context, selects exactly the targets, in document order. Nothing is
//! returned unverified: every candidate is evaluated, and the result is
//! evaluated once more as a whole before it is handed back.
//!
//! A field's XPath is evaluated from every instance of its parent pattern, so
//! [`generate_for_instances`] takes several contexts, each with the targets
//! chosen in it (possibly none, for an optional field), and returns one
//! expression that is exact from each of them. Tests that hold for one
//! instance only (a title, a record id) then cannot be used, which is what
//! keeps a field's locator from fitting the one record it was built on.
//!
//! ## How a locator is built
//!
//! The search follows the idea of Robula+ (Leotta, Stocco, Ricca and Tonella,
//! 2016): start from the most general path (`.//li`, or `//li` from the
//! document node) and specialise it one test at a time until it selects the
//! targets and nothing else. Targets that are attributes or text are located
//! through the element that holds them (their *owner*) and a final step:
//! `/@href`, `/text()`, `/text()[normalize-space()]` or `/text()[k]`; a text
//! node that follows a label element is also tried from the label, as in
//! `//b[normalize-space(.)='ISBN-13:']/following-sibling::text()[1]`, and
//! the cheaper of the two wins. A record set is handled as one set, so the
//! result is a common step structure with shared tests
//! (`.//li[contains(concat(' ', normalize-space(@class), ' '), ' product ')]`),
//! not a union of positional paths.
//!
//! ## Ranking
//!
//! Every test has a cost, and candidates are tried cheapest first, ties going
//! to the shorter expression; the first exact candidate wins. The costs encode
//! the order of preference, most robust first:
//!
//! | test | cost |
//! | --- | --- |
//! | `@id`, unless it looks generated | 10 |
//! | an attribute made for locating (`data-testid`, `data-qa`, `data-cy`, …) | 12 |
//! | `@name`, `@itemprop`, `@aria-label`, other `data-*` | 20 |
//! | other descriptive attributes (`title`, `alt`, `role`, `type`, …); a bare `[@data-x]` | 25 |
//! | one stable class token | 30 |
//! | a label anchor: `dt[normalize-space(.)='Price']/following-sibling::dd[1]`, a child `[strong[normalize-space(.)='ISBN-13']]`, `[starts-with(normalize-space(.), 'Price:')]`, or a label element's own text when text after it is the target | 45 |
//! | a position, `[k]` or `[last()]`, and a final `/text()[k]` | 100 |
//! | each location step above the target's own (more than a class token: a wrap or an unwrap moves levels, a class stays) | 35 |
//! | starting at the context with `./` rather than `.//` | 5 |
//! | a `//` jump from an ancestor anchor (`.//div[@id='main']//span`), plus the anchor's test | 15 |
//! | an anchor in the site's template (a landmark of the layout), off its test | −10 |
//!
//! Element names are always written when the nodes of a step share one, as
//! scrapers expect (`//h1[@itemprop='name']`), and `*` otherwise. A
//! target's own text is never compared whole, only a leading `Label:` in it:
//! the rest is the data a pattern extracts, which changes from record to
//! record and from load to load. A label's text is used only when it is
//! short and reads like a label (a few words, few digits).
//!
//! ## Bounds
//!
//! The search evaluates at most [`GenerateOptions::max_candidates`]
//! candidates (2,000 by default) in all, of which at most 64 after the first
//! exact one (to collect alternatives); it uses at most
//! [`GenerateOptions::max_steps`] levels, keeps at most 100,000 candidates
//! waiting, refines each distinct selection once, and evaluates every
//! candidate from the context, so only the context's sub-tree is scanned. On
//! a page of 60,000 elements one evaluation takes well under a millisecond.
//! When the search finds nothing, a positional path is built instead, with
//! at most 32 more evaluations (or what is left of the budget, if more):
//! first the shortest exact tail of the targets' positional paths, keeping
//! only the positions they all share; then, with a single context, a union
//! of one positional path per target, which always exists. So with one
//! context generation fails only on invalid input or an expression too long
//! for the engine; with several, it also fails when no common expression was
//! found.
//!
//! ## What it refuses
//!
//! Namespace nodes as targets; targets outside the context's sub-tree (a
//! pattern's XPath is relative to its parent's instance and must stay inside
//! it); contexts that are not the document node or an element, the document
//! node among several contexts, the same context twice; items that do not
//! belong to the document; an empty target set. Values that look
//! generated (hashes, long digit runs, UUIDs, CSS-module suffixes, framework
//! ids, see [`looks_generated`]) and state classes (`active`, `is-open`) are
//! never used in tests. Only XPath 1.0 core functions are written, so the
//! result works the same in lxml, parsel and browsers. The module is pure: no
//! I/O, no clock, and no input makes it panic.

mod brittle;
mod fallback;
mod heuristics;
mod levels;
mod render;
mod search;
mod seen;
mod selections;
mod siblings;
mod targets;
mod unstable;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use super::{Item, MAX_LEN, XPath};
use crate::dom::{Document, NodeId, NodeKind};

pub use brittle::brittleness;
pub use heuristics::looks_generated;
pub use seen::{RoundTrip, SeenValues};
pub use selections::Selections;
use targets::{
    Group, Targets, attribute_suffix, check_instances, child_suffix, group_of, label_owners, owner,
};
pub use unstable::UnstableParts;

/// How hard [`generate`] may look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateOptions {
    /// The most location steps (levels above and including the target's own)
    /// a searched path may have; an ancestor anchor adds one more.
    pub max_steps: usize,
    /// The most candidate expressions evaluated by the search, which bounds
    /// the time spent on a large page.
    pub max_candidates: usize,
    /// How many runner-up expressions to report besides the chosen one.
    pub max_alternatives: usize,
    /// Text and attributes no expression may test, as they change from one
    /// load of the page to the next.
    pub unstable: UnstableParts,
    /// The elements of the site's template on the page (`mend template`),
    /// the layout every page shares: an ancestor anchor among them is
    /// preferred (its test costs 10 less).
    pub landmarks: std::collections::HashSet<NodeId>,
    /// The values the page the pattern was captured on held
    /// ([`SeenValues::of`]): a test of a value it lacked costs more, so that
    /// a heal's expression prefers what two pages of the site share. Empty,
    /// the default, prices every test at its own cost.
    pub seen: std::sync::Arc<SeenValues>,
    /// Answers of candidates already evaluated on the same document by
    /// earlier searches (the searches for a wrapper's patterns on one
    /// page), shared with later ones; `None` evaluates every candidate.
    pub selections: Option<std::sync::Arc<Selections>>,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            max_steps: 5,
            max_candidates: 2_000,
            max_alternatives: 3,
            unstable: UnstableParts::default(),
            landmarks: std::collections::HashSet::new(),
            seen: std::sync::Arc::default(),
            selections: None,
        }
    }
}

/// One parent instance and the nodes chosen in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The document node, or the element the expression is evaluated from.
    pub context: Item,
    /// The nodes the expression must select from `context`: possibly none,
    /// for an instance where an optional field is absent.
    pub targets: Vec<Item>,
}

/// A generated, verified expression.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The expression, relative to the context.
    pub xpath: String,
    /// The expression compiled.
    pub compiled: XPath,
    /// Its cost in the ranking of the module documentation: lower is more
    /// robust; `u32::MAX` for a positional fallback.
    pub cost: u32,
    /// Other exact expressions the search found, best first, each verified.
    pub alternatives: Vec<String>,
    /// Whether the expression is a positional fallback because the search
    /// found no exact one within its budget.
    pub fallback: bool,
    /// How many expressions were evaluated.
    pub evaluations: usize,
}

/// Why no expression was generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// The target set was empty: there is nothing to locate.
    #[error("no targets to locate")]
    NoTargets,
    /// A context is neither the document node nor an element of the
    /// document, or the document node is given with other contexts.
    #[error("the context {0:?} is not the document node or an element of the document")]
    BadContext(Item),
    /// The same context was given twice.
    #[error("the context {0:?} is given twice")]
    DuplicateContext(Item),
    /// A target does not belong to the document.
    #[error("the target {0:?} is not in the document")]
    NotInDocument(Item),
    /// A target lies outside its context's sub-tree.
    #[error("the target {0:?} is outside the context's sub-tree")]
    OutsideContext(Item),
    /// A target is of a kind that locators do not address (a namespace node).
    #[error("the target {0:?} cannot be located: namespace nodes are not supported")]
    Unsupported(Item),
    /// Even the positional fallback could not be written within the engine's
    /// limits (too many targets for one expression).
    #[error("no expression within {MAX_LEN} bytes selects exactly the {0} targets")]
    TooLong(usize),
    /// With several contexts, no expression was found that is exact from
    /// each of them.
    #[error("no common expression selects exactly the targets from each of the {0} contexts")]
    NoCommonExpression(usize),
    /// The expression built did not select exactly the targets. This is a bug.
    #[error("the generated expression '{0}' does not select exactly the targets")]
    Unverified(String),
}

/// An XPath, relative to `context` (the document node or an element), that
/// selects exactly `targets` on `doc`, ranked for robustness as the module
/// documentation describes.
///
/// Targets may be elements, attributes (the path then ends in `/@name`),
/// text nodes (`/text()`, `/text()[k]`) or comments, in any order and with
/// repeats; the expression selects the distinct targets in document order.
/// From the document node the expression is absolute (`//h1[@itemprop='name']`);
/// from an element it is relative (`./h3/a/@href`, `.//p[...]`). A target
/// equal to the context is written `.`.
pub fn generate(
    doc: &Document,
    context: Item,
    targets: &[Item],
    options: &GenerateOptions,
) -> Result<Generated, GenerateError> {
    let instance = Instance {
        context,
        targets: targets.to_vec(),
    };
    generate_for_instances(doc, std::slice::from_ref(&instance), options)
}

/// One expression that, evaluated from each instance's context, selects
/// exactly that instance's targets: the locator of a field under a record
/// pattern, built from all the record's instances at once. With one
/// instance it is [`generate`].
pub fn generate_for_instances(
    doc: &Document,
    instances: &[Instance],
    options: &GenerateOptions,
) -> Result<Generated, GenerateError> {
    let checked = check_instances(doc, instances)?;
    let document_context = checked.len() == 1 && doc.kind(checked[0].0) == NodeKind::Document;
    let env = Env {
        doc,
        document_context,
        options,
    };
    let total: usize = checked.iter().map(|(_, t)| t.len()).sum();

    // Targets of different kinds need different final steps, so each kind is
    // located on its own, with the other kinds' targets left out.
    let mut groups: BTreeMap<Group, Targets> = BTreeMap::new();
    for (i, (_, targets)) in checked.iter().enumerate() {
        for &t in targets {
            groups
                .entry(group_of(doc, t))
                .or_insert_with(|| checked.iter().map(|(c, _)| (*c, Vec::new())).collect())[i]
                .1
                .push(t);
        }
    }
    let mut budget = options.max_candidates;
    let mut evaluations = 0;
    let mut parts = Vec::with_capacity(groups.len());
    for (group, targets) in &groups {
        let part = env
            .group(group, targets, &mut budget)
            .ok_or(GenerateError::NoCommonExpression(checked.len()))?;
        evaluations += part.evaluations;
        parts.push(part);
    }

    let (xpath, cost, alternatives, fallback) = if parts.len() == 1 {
        let p = parts.remove(0);
        (p.xpath, p.cost, p.alternatives, p.fallback)
    } else {
        let xpath = parts
            .iter()
            .map(|p| p.xpath.as_str())
            .collect::<Vec<_>>()
            .join(" | ");
        let cost = parts.iter().map(|p| p.cost).fold(0u32, u32::saturating_add);
        let fallback = parts.iter().any(|p| p.fallback);
        (xpath, cost, Vec::new(), fallback)
    };
    if xpath.len() > MAX_LEN {
        return Err(GenerateError::TooLong(total));
    }
    evaluations += 1;
    if let Some(compiled) = env.verify(&xpath, &checked) {
        return Ok(Generated {
            xpath,
            compiled,
            cost,
            alternatives,
            fallback,
            evaluations,
        });
    }
    // Each part was verified on its own, so this only happens if their union
    // does not behave as the parts did; with one context, the per-target
    // positional union is the answer that cannot be wrong.
    let xpath = env
        .positional_union(&checked)
        .ok_or(GenerateError::NoCommonExpression(checked.len()))?;
    if xpath.len() > MAX_LEN {
        return Err(GenerateError::TooLong(total));
    }
    let compiled = env
        .verify(&xpath, &checked)
        .ok_or_else(|| GenerateError::Unverified(xpath.clone()))?;
    Ok(Generated {
        xpath,
        compiled,
        cost: u32::MAX,
        alternatives: Vec::new(),
        fallback: true,
        evaluations: evaluations + 1,
    })
}

/// The expression for one group of targets.
struct Part {
    xpath: String,
    cost: u32,
    alternatives: Vec<String>,
    fallback: bool,
    evaluations: usize,
}

/// A way to reach a group's targets: the owners to locate and the final step
/// that leads from them to the targets.
struct Plan {
    /// Per instance, the owners, sorted, without repeats.
    owners: Vec<(NodeId, Vec<NodeId>)>,
    suffix: String,
    /// What the final step adds to the cost: a positional `text()[k]` is
    /// charged as a position.
    suffix_cost: u32,
    /// Whether the owners are labels rather than the targets' own parents.
    labels: bool,
}

impl Plan {
    /// Whether some context is one of its own owners, so the expression
    /// needs a `.` branch.
    fn with_self(&self) -> bool {
        self.owners.iter().any(|(c, o)| o.contains(c))
    }

    /// The owners below their contexts, per instance.
    fn proper_owners(&self) -> Vec<(NodeId, Vec<NodeId>)> {
        self.owners
            .iter()
            .map(|(c, o)| (*c, o.iter().copied().filter(|n| n != c).collect()))
            .collect()
    }
}

struct Env<'a> {
    doc: &'a Document,
    document_context: bool,
    options: &'a GenerateOptions,
}

/// The fallback may always spend this many evaluations on a short positional
/// path, even when the search used up the budget.
const FALLBACK_MIN_BUDGET: usize = 32;

impl Env<'_> {
    /// Compiles `xpath` and checks that from each context it selects exactly
    /// that context's targets.
    fn verify(&self, xpath: &str, want: &Targets) -> Option<XPath> {
        let compiled = XPath::compile(xpath).ok()?;
        for (ctx, targets) in want {
            let evaluate = || compiled.select_item(self.doc, Item::Node(*ctx)).ok();
            // The search may have evaluated the expression already.
            let got: std::sync::Arc<[Item]> = match &self.options.selections {
                Some(kept) => kept.get_or_evaluate(self.doc, xpath, *ctx, evaluate)?,
                None => evaluate()?.into(),
            };
            if *got != **targets {
                return None;
            }
        }
        Some(compiled)
    }

    /// One positional path per target, joined: exact by construction, but
    /// only meaningful with a single context.
    fn positional_union(&self, targets: &Targets) -> Option<String> {
        let [(ctx, items)] = targets.as_slice() else {
            return None;
        };
        let mut siblings = siblings::Siblings::new(self.doc);
        Some(
            items
                .iter()
                .map(|&i| {
                    fallback::item_path(self.doc, &mut siblings, *ctx, self.document_context, i)
                })
                .collect::<Vec<_>>()
                .join(" | "),
        )
    }

    /// Locates one group: for each plan (owners and a final step), the
    /// owners by search, then the final step; the cheapest verified result
    /// wins, and the positional fallback answers when no plan found one.
    fn group(&self, group: &Group, targets: &Targets, budget: &mut usize) -> Option<Part> {
        let plans = self.plans(group, targets);
        let mut evaluations = 0;
        let mut verified: Vec<(String, u32)> = Vec::new();
        for plan in &plans {
            let (found, spent) = self.search_plan(plan, targets, budget);
            evaluations += spent;
            verified.extend(found);
        }
        // Stable: among equals, the earlier plan's result stays first.
        verified.sort_by_key(|(x, cost)| (*cost, x.len()));
        if !verified.is_empty() {
            let (xpath, cost) = verified.remove(0);
            verified.truncate(self.options.max_alternatives);
            return Some(Part {
                xpath,
                cost,
                alternatives: verified.into_iter().map(|(x, _)| x).collect(),
                fallback: false,
                evaluations,
            });
        }
        let positional = |evaluations| {
            Some(Part {
                xpath: self.positional_union(targets)?,
                cost: u32::MAX,
                alternatives: Vec::new(),
                fallback: true,
                evaluations,
            })
        };
        // Only a plan that locates the targets' own owners has a positional
        // form worth trying before one path per target.
        let Some(plan) = plans.first().filter(|p| !p.labels) else {
            return positional(evaluations);
        };
        let rest = plan.proper_owners();
        if rest.iter().all(|(_, o)| o.is_empty()) {
            return positional(evaluations);
        }
        let (path, spent) = fallback::owner_path(
            self.doc,
            self.document_context,
            &rest,
            (*budget).max(FALLBACK_MIN_BUDGET),
        );
        evaluations += spent + 1;
        *budget = budget.saturating_sub(spent);
        let xpath = self.join(plan, path.as_deref());
        if path.is_some() && self.verify(&xpath, targets).is_some() {
            Some(Part {
                xpath,
                cost: u32::MAX,
                alternatives: Vec::new(),
                fallback: true,
                evaluations,
            })
        } else {
            positional(evaluations)
        }
    }

    /// The ways to reach a group's targets. Elements are their own owners;
    /// attributes, text and comments are reached from the element holding
    /// them; a text node that follows a label element (`<b>ISBN:</b> 978…`)
    /// may also be reached from the label.
    fn plans(&self, group: &Group, targets: &Targets) -> Vec<Plan> {
        let doc = self.doc;
        let owners: Vec<(NodeId, Vec<NodeId>)> = targets
            .iter()
            .map(|(c, items)| {
                let mut o: Vec<NodeId> = items.iter().map(|&i| owner(doc, i)).collect();
                o.sort_unstable();
                o.dedup();
                (*c, o)
            })
            .collect();
        let mut plans = Vec::new();
        let own = |suffix: String, suffix_cost: u32| Plan {
            owners: owners.clone(),
            suffix,
            suffix_cost,
            labels: false,
        };
        match group {
            Group::Element => plans.push(own(String::new(), 0)),
            Group::Attr(name) => plans.push(own(attribute_suffix(name), 0)),
            Group::Text | Group::Comment => {
                let (kind, test) = match group {
                    Group::Text => (NodeKind::Text, "text()"),
                    _ => (NodeKind::Comment, "comment()"),
                };
                if let Some((suffix, cost)) = child_suffix(doc, kind, test, targets, &owners) {
                    plans.push(own(suffix, cost));
                }
                if kind == NodeKind::Text
                    && let Some(labels) = label_owners(doc, targets, &self.options.unstable)
                {
                    plans.push(Plan {
                        owners: labels,
                        suffix: "/following-sibling::text()[1]".to_owned(),
                        suffix_cost: 0,
                        labels: true,
                    });
                }
            }
        }
        plans
    }

    /// Searches the owners of one plan and returns its verified expressions
    /// with their costs, and the evaluations spent.
    fn search_plan(
        &self,
        plan: &Plan,
        targets: &Targets,
        budget: &mut usize,
    ) -> (Vec<(String, u32)>, usize) {
        let rest = plan.proper_owners();
        let mut out = Vec::new();
        if rest.iter().all(|(_, o)| o.is_empty()) {
            let xpath = self.join(plan, None);
            if self.verify(&xpath, targets).is_some() {
                out.push((xpath, plan.suffix_cost));
            }
            return (out, 1);
        }
        let mut scope = levels::Scope::new(self.doc, &rest, self.options.max_steps)
            .with_unstable(&self.options.unstable)
            .with_landmarks(&self.options.landmarks)
            .with_seen(&self.options.seen);
        if plan.labels {
            scope = scope.with_label_owners();
        }
        let mut search = search::Search::new(
            &scope,
            self.document_context,
            self.options.max_steps,
            self.options.selections.as_deref(),
        );
        let found = search.run(*budget, self.options.max_alternatives.saturating_add(1));
        let mut evaluations = search.evaluations;
        *budget = budget.saturating_sub(search.evaluations);
        for f in found {
            let xpath = self.join(plan, Some(&f.xpath));
            evaluations += 1;
            if self.verify(&xpath, targets).is_some() {
                out.push((xpath, f.cost.saturating_add(plan.suffix_cost)));
            }
        }
        (out, evaluations)
    }

    /// The whole expression of a plan: the owner path with the final step,
    /// joined with `.` and the final step when a context is an owner too.
    fn join(&self, plan: &Plan, path: Option<&str>) -> String {
        let mut out = String::new();
        let with_self = plan.with_self();
        if with_self {
            out.push('.');
            out.push_str(&plan.suffix);
        }
        if let Some(p) = path {
            if with_self {
                out.push_str(" | ");
            }
            out.push_str(p);
            out.push_str(&plan.suffix);
        }
        out
    }
}
