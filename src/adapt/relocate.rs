//! One pattern's adaptation: candidates under each algorithm and label mode,
//! the choice, the generated XPath, and the proof by re-extraction.

use std::collections::HashMap;

use serde_json::{Map, Value};
use url::Url;

use super::cluster::{Rule, clusters};
use super::locate::{self, Field};
use super::{Adaptation, CandidateReport, Check, Outcome, Rejections, Search, TreeGrams, Trigger};
use crate::dom::{Document, NodeId};
use crate::extract::{Extraction, Violation, extract};
use crate::similarity::{Algorithm, LabelMode, LabeledTree, Labels};
use crate::treegram::{GramMask, TreeGram};
use crate::wrapper::{Pattern, Wrapper};
use crate::xpath::generate::{GenerateOptions, Instance, generate_for_instances};
use crate::xpath::{Item, XPath};

/// How many sample values an adaptation keeps from before and after.
const SAMPLES: usize = 5;
/// How many candidates of each scope are reported, for the first scopes.
const REPORTED: usize = 3;

/// What an adaptation reads besides the wrapper.
pub(crate) struct Env<'a> {
    pub doc: &'a Document,
    pub page_url: Option<&'a Url>,
    pub base: Option<Url>,
    pub grams: &'a TreeGrams,
    pub rejections: &'a Rejections,
    pub search: Search,
}

/// An adaptation and, when it healed, the wrapper and extraction it led to.
pub(crate) struct Attempted {
    pub adaptation: Adaptation,
    pub healed: Option<(Wrapper, Extraction)>,
    /// The pattern was re-located to exactly the nodes its XPath already selects.
    pub unchanged: bool,
    /// For a healed record, the adaptations of its fields made to prove it
    /// (already applied in `healed`).
    pub children: Vec<Adaptation>,
}

/// A choice of nodes in every parent instance, with its evidence.
#[derive(Clone, Debug)]
struct Assignment {
    targets: Vec<Vec<Item>>,
    score: f64,
    runner_up: Option<f64>,
    similarity: f64,
}

/// Adapts the pattern at `path` of `wrapper` on the page; `before` is the
/// wrapper's extraction of the page.
pub(crate) fn attempt(
    env: &Env<'_>,
    wrapper: &Wrapper,
    before: &Extraction,
    path: &[String],
    trigger: Trigger,
) -> Attempted {
    let key = path.join("/");
    let pattern = find(&wrapper.patterns, path).expect("paths come from the wrapper");
    let mut adaptation = Adaptation {
        pattern: key.clone(),
        old_xpath: pattern.xpath.source().to_owned(),
        new_xpath: None,
        outcome: Outcome::Abstained,
        trigger,
        algorithm: None,
        label: None,
        score: None,
        runner_up: None,
        similarity: None,
        reason: None,
        candidates: Vec::new(),
        before: values_at(&before.record, path),
        after: Vec::new(),
        checks: Vec::new(),
        violations: before
            .violations
            .iter()
            .filter(|v| v.pattern == key)
            .cloned()
            .collect(),
    };
    let abstain = |mut a: Adaptation, reason: String| {
        a.reason = Some(reason);
        Attempted {
            adaptation: a,
            healed: None,
            unchanged: false,
            children: Vec::new(),
        }
    };
    let Some(gram) = env.grams.get(&key) else {
        return abstain(
            adaptation,
            "no tree-gram for this pattern: run `mend snapshot` on a page where the wrapper works"
                .to_owned(),
        );
    };
    let scopes = scopes(wrapper, env.doc, path);
    if scopes.is_empty() {
        return abstain(adaptation, "its parent pattern matches nothing".to_owned());
    }
    let current: Vec<Vec<Item>> = scopes
        .iter()
        .map(|&s| pattern.xpath.select_item(env.doc, s).unwrap_or_default())
        .collect();
    let rejected: Vec<(&str, Vec<Vec<Item>>)> = env
        .rejections
        .of(&key)
        .into_iter()
        .filter_map(|x| {
            let compiled = XPath::compile(x).ok()?;
            let sel = scopes
                .iter()
                .map(|&s| compiled.select_item(env.doc, s).unwrap_or_default())
                .collect();
            Some((x, sel))
        })
        .collect();

    let settings = &wrapper.adapt;
    let mut labels_tried = vec![settings.label];
    if settings.label != LabelMode::Tag {
        labels_tried.push(LabelMode::Tag);
    }
    let mut last_reason = String::from("no candidate reached the threshold");
    let mut best_seen: Option<(f64, Option<f64>, f64)> = None;
    let mut only_rejected = false;
    let mut fallback: Option<Attempted> = None;
    for &label in &labels_tried {
        for &algorithm in &settings.algorithms {
            let decision = if pattern.is_record() {
                decide_record(
                    env,
                    pattern,
                    gram,
                    &scopes,
                    algorithm,
                    label,
                    settings.threshold,
                    settings.margin,
                    &mut adaptation.candidates,
                )
            } else {
                decide_field(
                    env,
                    pattern,
                    gram,
                    &scopes,
                    algorithm,
                    label,
                    settings.threshold,
                    settings.margin,
                    &mut adaptation.candidates,
                )
            };
            let chosen = match decision {
                Ok(chosen) => chosen,
                Err((reason, best)) => {
                    if best.is_some_and(|b| best_seen.is_none_or(|s| b.0 > s.0)) {
                        best_seen = best;
                    }
                    last_reason = format!("{} with {label:?} labels: {reason}", name(algorithm));
                    continue;
                }
            };
            if chosen.targets == current {
                adaptation.algorithm = Some(algorithm);
                adaptation.label = Some(label);
                adaptation.score = Some(chosen.score);
                adaptation.runner_up = chosen.runner_up;
                adaptation.similarity = Some(chosen.similarity);
                return Attempted {
                    adaptation: Adaptation {
                        reason: Some(
                            "re-located to the nodes its XPath already selects".to_owned(),
                        ),
                        ..adaptation
                    },
                    healed: None,
                    unchanged: true,
                    children: Vec::new(),
                };
            }
            if let Some((x, _)) = rejected.iter().find(|(_, sel)| *sel == chosen.targets) {
                only_rejected = true;
                last_reason = format!("the best candidate is what the rejected XPath {x} selects");
                continue;
            }
            match prove(env, wrapper, pattern, path, &scopes, &chosen) {
                Ok((xpath, healed_wrapper, extraction)) => {
                    let mut done = adaptation.clone();
                    done.outcome = Outcome::Healed;
                    done.new_xpath = Some(xpath);
                    done.algorithm = Some(algorithm);
                    done.label = Some(label);
                    done.score = Some(chosen.score);
                    done.runner_up = chosen.runner_up;
                    done.similarity = Some(chosen.similarity);
                    done.after = values_at(&extraction.record, path);
                    done.checks = checks(pattern, &key, &extraction.violations);
                    // A record is proven by its fields too: if they cannot
                    // all be found in the chosen instances, another
                    // candidate may be the real one.
                    if !pattern.is_record() || !settings.triggers.top_down {
                        return Attempted {
                            adaptation: done,
                            healed: Some((healed_wrapper, extraction)),
                            unchanged: false,
                            children: Vec::new(),
                        };
                    }
                    if let Some((w, e, children)) =
                        fields_heal(env, &healed_wrapper, &extraction, path)
                    {
                        return Attempted {
                            adaptation: done,
                            healed: Some((w, e)),
                            unchanged: false,
                            children,
                        };
                    }
                    let proven = Attempted {
                        adaptation: done,
                        healed: Some((healed_wrapper, extraction)),
                        unchanged: false,
                        children: Vec::new(),
                    };
                    only_rejected = false;
                    last_reason = format!(
                        "{} with {label:?} labels: the record's fields could not all be found in the chosen instances",
                        name(algorithm)
                    );
                    fallback.get_or_insert(proven);
                }
                Err(reason) => {
                    only_rejected = false;
                    last_reason = format!("{} with {label:?} labels: {reason}", name(algorithm));
                }
            }
        }
    }
    if let Some(mut proven) = fallback {
        proven.adaptation.reason = Some(format!(
            "no candidate let every field be found; kept the first that meets the record's own constraints ({last_reason})"
        ));
        return proven;
    }
    if let Some((score, runner_up, similarity)) = best_seen {
        adaptation.score = Some(score);
        adaptation.runner_up = runner_up;
        adaptation.similarity = Some(similarity);
    }
    if only_rejected {
        adaptation.outcome = Outcome::Rejected;
    }
    abstain(adaptation, last_reason)
}

/// Heals the fields under the record at `path` top-down, with the record's
/// new XPath in `wrapper`: the wrapper, extraction and adaptations that
/// follow, when every field then holds.
fn fields_heal(
    env: &Env<'_>,
    wrapper: &Wrapper,
    extraction: &Extraction,
    path: &[String],
) -> Option<(Wrapper, Extraction, Vec<Adaptation>)> {
    let prefix = format!("{}/", path.join("/"));
    let mut current = wrapper.clone();
    let mut ext = extraction.clone();
    let mut adaptations = Vec::new();
    let record = find(&wrapper.patterns, path)?;
    for child in &record.patterns {
        let mut child_path = path.to_vec();
        child_path.push(child.name.clone());
        let key = child_path.join("/");
        if !ext.violations.iter().any(|v| v.pattern == key) {
            continue;
        }
        let tried = attempt(env, &current, &ext, &child_path, Trigger::TopDown);
        let (w, e) = tried.healed?;
        current = w;
        ext = e;
        adaptations.push(tried.adaptation);
        adaptations.extend(tried.children);
    }
    let clean = !ext
        .violations
        .iter()
        .any(|v| v.pattern.starts_with(&prefix));
    clean.then_some((current, ext, adaptations))
}

/// The failure of a decision: why, and the best (score, runner-up, similarity) seen.
type Refusal = (String, Option<(f64, Option<f64>, f64)>);

/// Chooses a field's nodes in every scope.
#[allow(clippy::too_many_arguments)]
fn decide_field(
    env: &Env<'_>,
    pattern: &Pattern,
    gram: &TreeGram,
    scopes: &[Item],
    algorithm: Algorithm,
    label: LabelMode,
    threshold: f64,
    margin: f64,
    reports: &mut Vec<CandidateReport>,
) -> Result<Assignment, Refusal> {
    let mut labels = Labels::new();
    let sentinel = labels.intern("\u{1}instance");
    let gram_views = gram_views(gram, label, &mut labels, sentinel);
    let field = Field {
        pattern,
        doc: env.doc,
        base: env.base.as_ref(),
    };
    let mut targets = Vec::with_capacity(scopes.len());
    let (mut decided, mut scores, mut runners, mut sims) = (0usize, 0.0, 0.0, 0.0);
    let mut best_seen: Option<(f64, Option<f64>, f64)> = None;
    let mut ambiguous = 0usize;
    for (s, &scope) in scopes.iter().enumerate() {
        let Some(page) = scope_view(env.doc, scope, label, &mut labels, sentinel) else {
            targets.push(Vec::new());
            continue;
        };
        // The best score of each candidate node set, with its region's similarity.
        let mut by_set: HashMap<Vec<Item>, (f64, f64)> = HashMap::new();
        for (gi, view) in gram.instances.iter().zip(&gram_views) {
            let Some(view) = view else { continue };
            let Some((owner, target)) = gi.targets.first() else {
                continue;
            };
            for region in locate::regions(view, gi, &page, algorithm, &env.search) {
                let choices =
                    locate::rank_targets(&field, gram, view, (*owner, target), &page, &region);
                for choice in choices.iter().filter(|c| c.fits).take(5) {
                    // A list field takes the node's alike siblings only when
                    // it held several alike nodes at capture.
                    let set = if pattern.is_single() || gi.targets.len() < 2 {
                        vec![choice.item]
                    } else {
                        locate::list_siblings(env.doc, choice, target)
                    };
                    let score = region.similarity * choice.node_score;
                    let e = by_set.entry(set).or_insert((0.0, 0.0));
                    if score > e.0 {
                        *e = (score, region.similarity);
                    }
                }
            }
        }
        let mut ranked: Vec<(Vec<Item>, f64, f64)> = by_set
            .into_iter()
            .map(|(k, (c, sim))| (k, c, sim))
            .collect();
        ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        if s < 2 {
            for (i, (set, score, sim)) in ranked.iter().take(REPORTED).enumerate() {
                reports.push(CandidateReport {
                    nodes: set.iter().take(3).map(|i| i.path(env.doc)).collect(),
                    count: set.len(),
                    score: *score,
                    similarity: *sim,
                    algorithm,
                    label,
                    verdict: if i == 0 { "best" } else { "runner-up" }.to_owned(),
                });
            }
        }
        let Some((set, score, sim)) = ranked.first().cloned() else {
            targets.push(Vec::new());
            continue;
        };
        let runner = ranked.get(1).map(|r| r.1);
        if best_seen.is_none_or(|b| score > b.0) {
            best_seen = Some((score, runner, sim));
        }
        if sim < threshold {
            targets.push(Vec::new());
            continue;
        }
        if runner.is_some_and(|r| score - r < margin) {
            ambiguous += 1;
            targets.push(Vec::new());
            continue;
        }
        decided += 1;
        scores += score;
        runners += runner.unwrap_or(0.0);
        sims += sim;
        targets.push(set);
    }
    if ambiguous > 0 {
        let (b, r) = best_seen.map_or((0.0, None), |b| (b.0, b.1));
        return Err((
            format!(
                "too close to call in {ambiguous} of {} instances (best {b:.3}, runner-up {})",
                scopes.len(),
                r.map_or("none".to_owned(), |r| format!("{r:.3}"))
            ),
            best_seen,
        ));
    }
    if decided == 0 {
        let best = best_seen.map_or(
            "no candidate passed the field's value constraints".to_owned(),
            |b| {
                format!(
                    "the best region's similarity {:.3} is under the threshold {threshold}",
                    b.2
                )
            },
        );
        return Err((best, best_seen));
    }
    let n = decided as f64;
    Ok(Assignment {
        targets,
        score: scores / n,
        runner_up: Some(runners / n),
        similarity: sims / n,
    })
}

/// Chooses a record's cluster in every scope.
#[allow(clippy::too_many_arguments)]
fn decide_record(
    env: &Env<'_>,
    pattern: &Pattern,
    gram: &TreeGram,
    scopes: &[Item],
    algorithm: Algorithm,
    label: LabelMode,
    threshold: f64,
    margin: f64,
    reports: &mut Vec<CandidateReport>,
) -> Result<Assignment, Refusal> {
    let mut labels = Labels::new();
    let views: Vec<LabeledTree> = gram
        .instances
        .iter()
        .filter_map(|gi| {
            LabeledTree::build_masked(&gram.doc, gi.root, label, &GramMask, &mut labels).ok()
        })
        .collect();
    if views.is_empty() {
        return Err(("the tree-gram has no usable instance".to_owned(), None));
    }
    let repeated = gram.header.matched >= 2 * scopes.len().max(1);
    let mut targets = Vec::with_capacity(scopes.len());
    let (mut scores, mut runners, mut decided) = (0.0, 0.0, 0usize);
    let mut best_seen: Option<(f64, Option<f64>, f64)> = None;
    let mut refusal = None;
    for (s, &scope) in scopes.iter().enumerate() {
        let Some(root) = scope_root(env.doc, scope) else {
            targets.push(Vec::new());
            continue;
        };
        let Ok(page) = LabeledTree::build(env.doc, root, label, &mut labels) else {
            targets.push(Vec::new());
            continue;
        };
        let found = clusters(
            env.doc,
            &views,
            &page,
            algorithm,
            &Rule {
                threshold,
                constraints: &pattern.constraints,
                repeated,
            },
            &env.search,
        );
        if s < 2 {
            for c in found.iter().take(REPORTED) {
                reports.push(CandidateReport {
                    nodes: c.members.iter().take(3).map(|&n| env.doc.path(n)).collect(),
                    count: c.members.len(),
                    score: c.score,
                    similarity: c.score,
                    algorithm,
                    label,
                    verdict: c
                        .not_viable
                        .clone()
                        .unwrap_or_else(|| format!("a cluster at {}", c.key)),
                });
            }
        }
        let viable: Vec<_> = found.iter().filter(|c| c.not_viable.is_none()).collect();
        let Some(best) = viable.first() else {
            refusal = Some(match found.first() {
                Some(c) => format!(
                    "no viable cluster; the best, {} nodes at {} scoring {:.3}, is not: {}",
                    c.members.len(),
                    c.key,
                    c.score,
                    c.not_viable.as_deref().unwrap_or("")
                ),
                None => format!("no sub-tree reaches the threshold {threshold}"),
            });
            targets.push(Vec::new());
            continue;
        };
        let runner = viable.get(1).map(|c| c.score);
        if best_seen.is_none_or(|b| best.score > b.0) {
            best_seen = Some((best.score, runner, best.score));
        }
        if runner.is_some_and(|r| best.score - r < margin) {
            return Err((
                format!(
                    "two clusters are too close to call: {} at {:.3} and {} at {:.3}",
                    best.key, best.score, viable[1].key, viable[1].score
                ),
                best_seen,
            ));
        }
        scores += best.score;
        runners += runner.unwrap_or(0.0);
        decided += 1;
        targets.push(best.members.iter().map(|&n| Item::Node(n)).collect());
    }
    if decided == 0 {
        return Err((
            refusal.unwrap_or_else(|| "no scope to search".to_owned()),
            best_seen,
        ));
    }
    let n = decided as f64;
    Ok(Assignment {
        targets,
        score: scores / n,
        runner_up: Some(runners / n),
        similarity: scores / n,
    })
}

/// Generates the XPath for an assignment and proves it by extracting again.
fn prove(
    env: &Env<'_>,
    wrapper: &Wrapper,
    pattern: &Pattern,
    path: &[String],
    scopes: &[Item],
    chosen: &Assignment,
) -> Result<(String, Wrapper, Extraction), String> {
    let key = path.join("/");
    let instances: Vec<Instance> = scopes
        .iter()
        .zip(&chosen.targets)
        .map(|(&context, targets)| Instance {
            context,
            targets: targets.clone(),
        })
        .collect();
    let options = GenerateOptions {
        max_alternatives: 8,
        ..GenerateOptions::default()
    };
    let generated = generate_for_instances(env.doc, &instances, &options)
        .map_err(|e| format!("no XPath could be written for the chosen nodes: {e}"))?;
    let xpath = std::iter::once(generated.xpath.clone())
        .chain(generated.alternatives.iter().cloned())
        .find(|x| !env.rejections.contains(&key, x) && x != pattern.xpath.source())
        .ok_or_else(|| "every XPath written for the chosen nodes was rejected before".to_owned())?;
    let compiled = XPath::compile(&xpath)
        .map_err(|e| format!("the generated XPath {xpath} does not compile: {e}"))?;
    let mut healed = wrapper.clone();
    if let Some(p) = find_mut(&mut healed.patterns, path) {
        p.xpath = compiled;
    }
    let extraction = extract(&healed, env.doc, env.page_url);
    let own: Vec<&Violation> = extraction
        .violations
        .iter()
        .filter(|v| v.pattern == key)
        .filter(|v| {
            !pattern.is_record() || matches!(v.constraint, "min" | "max" | "required" | "xpath")
        })
        .collect();
    if let Some(v) = own.first() {
        return Err(format!(
            "{xpath} fails the constraints: {} expected {}, found {}{}",
            v.constraint,
            v.expected,
            v.found,
            if own.len() > 1 {
                format!(" (and {} more)", own.len() - 1)
            } else {
                String::new()
            }
        ));
    }
    Ok((xpath, healed, extraction))
}

/// The constraints of `pattern`, each with whether it holds after the adaptation.
fn checks(pattern: &Pattern, key: &str, violations: &[Violation]) -> Vec<Check> {
    let c = &pattern.constraints;
    let declared = [
        ("min", c.min.is_some()),
        ("max", c.max.is_some()),
        ("required", c.required),
        ("regex", c.regex.is_some()),
        ("min_length", c.min_length.is_some()),
        ("max_length", c.max_length.is_some()),
        ("enum", c.one_of.is_some()),
        ("minimum", c.minimum.is_some()),
        ("maximum", c.maximum.is_some()),
        ("schema", c.schema.is_some()),
        (
            "type",
            pattern.value_type != crate::wrapper::ValueType::String,
        ),
    ];
    declared
        .into_iter()
        .filter(|&(_, on)| on)
        .map(|(name, _)| {
            let failed = violations
                .iter()
                .find(|v| v.pattern == key && v.constraint == name);
            Check {
                constraint: name.to_owned(),
                passed: failed.is_none(),
                detail: failed
                    .map(|v| format!("expected {}, found {}", v.expected, v.found))
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// The views of a tree-gram's instances; an instance rooted at its parent
/// instance gets the shared root label, so that it pairs with the new parent
/// instance whatever that is named now.
fn gram_views(
    gram: &TreeGram,
    label: LabelMode,
    labels: &mut Labels,
    sentinel: crate::similarity::Label,
) -> Vec<Option<LabeledTree>> {
    gram.instances
        .iter()
        .map(|gi| {
            let mut view =
                LabeledTree::build_masked(&gram.doc, gi.root, label, &GramMask, labels).ok()?;
            if gi.at_instance {
                view.relabel_root(sentinel);
            }
            Some(view)
        })
        .collect()
}

/// The view of a scope, its root relabelled to pair with instance-rooted contexts.
fn scope_view(
    doc: &Document,
    scope: Item,
    label: LabelMode,
    labels: &mut Labels,
    sentinel: crate::similarity::Label,
) -> Option<LabeledTree> {
    let root = scope_root(doc, scope)?;
    let mut view = LabeledTree::build(doc, root, label, labels).ok()?;
    if root != doc.root_element()? {
        view.relabel_root(sentinel);
    }
    Some(view)
}

/// The element a scope's view is rooted at: the instance, or the page's root element.
fn scope_root(doc: &Document, scope: Item) -> Option<NodeId> {
    match scope {
        Item::Node(n) if doc.is_element(n) => Some(n),
        Item::Node(_) => doc.root_element(),
        _ => None,
    }
}

/// The instances of the parent pattern of `path`: the contexts the pattern is evaluated in.
pub(crate) fn scopes(wrapper: &Wrapper, doc: &Document, path: &[String]) -> Vec<Item> {
    let mut contexts = vec![Item::Node(NodeId::ROOT)];
    let mut patterns = &wrapper.patterns;
    for name in &path[..path.len().saturating_sub(1)] {
        let Some(p) = patterns.iter().find(|p| &p.name == name) else {
            return Vec::new();
        };
        let mut next = Vec::new();
        for &c in &contexts {
            next.extend(
                p.xpath
                    .select_item(doc, c)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|i| matches!(i, Item::Node(n) if doc.is_element(*n))),
            );
        }
        contexts = next;
        patterns = &p.patterns;
    }
    contexts
}

/// The pattern at a path of names.
pub(crate) fn find<'a>(patterns: &'a [Pattern], path: &[String]) -> Option<&'a Pattern> {
    let (first, rest) = path.split_first()?;
    let p = patterns.iter().find(|p| &p.name == first)?;
    if rest.is_empty() {
        Some(p)
    } else {
        find(&p.patterns, rest)
    }
}

fn find_mut<'a>(patterns: &'a mut [Pattern], path: &[String]) -> Option<&'a mut Pattern> {
    let (first, rest) = path.split_first()?;
    let p = patterns.iter_mut().find(|p| &p.name == first)?;
    if rest.is_empty() {
        Some(p)
    } else {
        find_mut(&mut p.patterns, rest)
    }
}

/// The first values of the pattern at `path` in a page's record.
pub(crate) fn values_at(record: &Map<String, Value>, path: &[String]) -> Vec<Value> {
    let mut current: Vec<&Value> = Vec::new();
    let Some((first, rest)) = path.split_first() else {
        return Vec::new();
    };
    if let Some(v) = record.get(first) {
        current.push(v);
    }
    for name in rest {
        current = current
            .into_iter()
            .flat_map(|v| match v {
                Value::Array(items) => items.iter().collect::<Vec<_>>(),
                other => vec![other],
            })
            .filter_map(|v| v.as_object()?.get(name))
            .collect();
    }
    let mut out = Vec::new();
    for v in current {
        match v {
            Value::Array(items) if path.len() == 1 || !items.iter().all(Value::is_object) => {
                out.extend(items.iter().cloned())
            }
            other => out.push(other.clone()),
        }
        if out.len() >= SAMPLES {
            break;
        }
    }
    out.truncate(SAMPLES);
    out
}

fn name(algorithm: Algorithm) -> &'static str {
    crate::similarity::algorithm_name(algorithm)
}
