//! One search for a pattern's nodes: a field's stored context aligned with
//! regions of each scope and its nodes ranked against the marked target, or
//! a record's stored instances against the scope's clusters; then the
//! choice in each scope by threshold and margin over the runner-up, with
//! what settles candidates too close to call (the locators' votes, a
//! stored name, an edited sentence's words). The labeled views of the
//! tree-gram and of the scope it compares are built here too; a scope's
//! view is built once per pass over a page, and every search of the pass
//! (each algorithm under each label mode) reads it.
//!
//! ## What it refuses
//!
//! A region under the similarity threshold, a best candidate too close to
//! its runner-up that neither the stored text nor the locators settle, a
//! target the page showed healed onto a hidden copy, and a record cluster
//! that is not viable (its items in the site's frame, too few or too many).

use std::rc::Rc;

use super::*;

/// One way of looking for a pattern's nodes: an algorithm under a label
/// mode, and the bar its choice must clear.
#[derive(Clone, Copy, Debug)]
pub(super) struct Attempt {
    pub(super) algorithm: Algorithm,
    pub(super) label: LabelMode,
    /// The least tree similarity of the winner's region.
    pub(super) threshold: f64,
    /// How far the winner's score must beat the runner-up's.
    pub(super) margin: f64,
}

/// What the steps before a field's tree search know about where it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hints<'a> {
    /// The old parent's region, for a local change searched there first.
    pub(super) within: Option<NodeId>,
    /// Per parent instance, the nodes the locators chose, sure or not.
    pub(super) voted: Option<&'a [Vec<Item>]>,
}

/// The best candidate a decision saw: its score, the runner-up's and its
/// region's similarity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Best {
    pub score: f64,
    pub runner_up: Option<f64>,
    pub similarity: f64,
}

/// Why a decision chose nothing, and the best candidate it saw.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    pub reason: String,
    pub best: Option<Best>,
}

impl Refusal {
    pub(super) fn new(reason: impl Into<String>, best: Option<Best>) -> Refusal {
        Refusal {
            reason: reason.into(),
            best,
        }
    }
}

/// What a decision chooses: a field's node set in each parent instance, or
/// a record's cluster of instances. The two differ in how candidates are
/// found and in two rules of the choice; the pipeline is the same.
pub(super) enum Kind<'a> {
    /// A field: the stored context is aligned with regions of the scope, and
    /// the nodes in them are ranked against the marked target.
    Field(FieldSearch<'a>),
    /// A record: every sub-tree of the scope is compared with the stored
    /// instances and alike ones are clustered.
    Record(RecordSearch<'a>),
}

/// What a field's candidates are looked for with.
pub(super) struct FieldSearch<'a> {
    pub(super) field: Field<'a>,
    pub(super) gram: &'a TreeGram,
    pub(super) views: Vec<Option<LabeledTree>>,
    pub(super) sentinel: crate::similarity::Label,
}

/// What a record's candidates are looked for with.
pub(super) struct RecordSearch<'a> {
    pub(super) pattern: &'a Pattern,
    pub(super) views: Vec<LabeledTree>,
    /// Whether the pattern matched several instances per scope at capture.
    pub(super) repeated: bool,
    /// The page's elements in the site's frame, which a record of the
    /// page's own content takes none of.
    pub(super) frame: Option<&'a std::collections::HashSet<NodeId>>,
}

/// One candidate node set in one scope.
pub(super) struct Ranked {
    pub(super) set: Vec<Item>,
    pub(super) score: f64,
    pub(super) similarity: f64,
    /// A record cluster's path of tags, for messages; empty for a field.
    pub(super) key: String,
}

/// Chooses the pattern's nodes in every scope: candidates, then the choice
/// (threshold, margin over the runner-up), scope by scope.
pub(super) fn decide(
    env: &Env<'_>,
    pattern: &Pattern,
    gram: &TreeGram,
    scopes: &[Item],
    hints: Hints<'_>,
    how: Attempt,
    reports: &mut Vec<CandidateReport>,
) -> Result<Assignment, Refusal> {
    let Hints { within, voted } = hints;
    let mut views = env.views.borrow_mut();
    let PageViews { labels, built } = &mut *views;
    let kind = search_kind(env, pattern, gram, scopes, how, labels)?;
    let mut tally = Tally::default();
    let mut best_seen: Option<Best> = None;
    let mut ambiguous = 0usize;
    let mut refusal = None;
    for (s, &scope) in scopes.iter().enumerate() {
        let reports = (s < 2).then_some(&mut *reports);
        let ranked = match &kind {
            // A field's search of a local change looks in the old parent's
            // region only; what it finds is still written from the scope.
            Kind::Field(search) => search.rank(env, scope, within, how, (labels, built), reports),
            Kind::Record(search) => search
                .rank(env, scope, how, labels, reports)
                .map(|r| r.map_err(|why| refusal = Some(why)).unwrap_or_default()),
        };
        let Some(best) = ranked.as_ref().and_then(|r| r.first()) else {
            tally.targets.push(Vec::new());
            continue;
        };
        let runner = ranked.as_ref().and_then(|r| r.get(1)).map(|r| r.score);
        if best_seen.is_none_or(|b| best.score > b.score) {
            best_seen = Some(Best {
                score: best.score,
                runner_up: runner,
                similarity: best.similarity,
            });
        }
        let ranked = ranked.as_deref().unwrap_or_default();
        match choose_in_scope(
            env,
            pattern,
            &kind,
            ranked,
            how,
            scope,
            voted.and_then(|v| v.get(s)),
        ) {
            InScope::Taken(chosen, runner_up) => tally.take(chosen, runner_up),
            InScope::Ambiguous => {
                ambiguous += 1;
                tally.targets.push(Vec::new());
            }
            InScope::Nothing => tally.targets.push(Vec::new()),
            InScope::Refused(reason) => return Err(Refusal::new(reason, best_seen)),
        }
    }
    if ambiguous > 0 {
        let (b, r) = best_seen.map_or((0.0, None), |b| (b.score, b.runner_up));
        return Err(Refusal::new(
            format!(
                "too close to call in {ambiguous} of {} instances (best {b:.3}, runner-up {})",
                scopes.len(),
                r.map_or("none".to_owned(), |r| format!("{r:.3}"))
            ),
            best_seen,
        ));
    }
    if tally.decided == 0 {
        let reason = match &kind {
            Kind::Field(_) => best_seen.map_or(
                "no candidate passed the field's value constraints".to_owned(),
                |b| {
                    format!(
                        "the best region's similarity {:.3} is under the threshold {}",
                        b.similarity, how.threshold
                    )
                },
            ),
            Kind::Record(_) => refusal.unwrap_or_else(|| "no scope to search".to_owned()),
        };
        return Err(Refusal::new(reason, best_seen));
    }
    Ok(tally.assignment())
}

/// The search a pattern's kind asks for: a record's stored instances
/// against the page's clusters, or a field's stored context against the
/// page's regions, with the views of the tree-gram it compares.
pub(super) fn search_kind<'a>(
    env: &'a Env<'_>,
    pattern: &'a Pattern,
    gram: &'a TreeGram,
    scopes: &[Item],
    how: Attempt,
    labels: &mut Labels,
) -> Result<Kind<'a>, Refusal> {
    // A pattern of the page's own content is never healed onto the frame
    // every page shares: a menu's label or items, a footer's.
    let frame = if gram.header.frame == Some(false) {
        env.frame()
    } else {
        None
    };
    if pattern.is_record() {
        let views: Vec<LabeledTree> = gram
            .instances
            .iter()
            .filter_map(|gi| {
                LabeledTree::build_masked(&gram.doc, gi.root, how.label, &GramMask, labels).ok()
            })
            .collect();
        if views.is_empty() {
            return Err(Refusal::new("the tree-gram has no usable instance", None));
        }
        return Ok(Kind::Record(RecordSearch {
            pattern,
            views,
            repeated: gram.header.matched >= 2 * scopes.len().max(1),
            frame,
        }));
    }
    let sentinel = labels.intern("\u{1}instance");
    Ok(Kind::Field(FieldSearch {
        views: gram_views(gram, how.label, labels, sentinel),
        sentinel,
        gram,
        field: Field {
            pattern,
            doc: env.doc,
            base: env.base.as_ref(),
            frame,
        },
    }))
}

/// What one parent instance's ranked candidates come to.
pub(super) enum InScope<'r> {
    /// This candidate, with the best score of the others.
    Taken(&'r Ranked, f64),
    /// A field's candidates too close to call.
    Ambiguous,
    /// No candidate clears the threshold.
    Nothing,
    /// A record's clusters too close to call: the whole search refuses.
    Refused(String),
}

/// The choice among one parent instance's `ranked` candidates, best first.
pub(super) fn choose_in_scope<'r>(
    env: &Env<'_>,
    pattern: &Pattern,
    kind: &Kind<'_>,
    ranked: &'r [Ranked],
    how: Attempt,
    scope: Item,
    voted: Option<&Vec<Item>>,
) -> InScope<'r> {
    let best = &ranked[0];
    let runner = ranked.get(1).map(|r| r.score);
    let too_close = runner.is_some_and(|r| best.score - r < how.margin);
    // The best candidate of a field's search that the target's text as
    // written names alone (no other element of its tag carried it at
    // capture) is the target, however far the structure around it moved or
    // however close a decoy beside it ranks: neither a decoy nor a
    // lookalike left by a deletion carries that text.
    let named_by_text = matches!(kind, Kind::Field(search)
        if (best.similarity < how.threshold || too_close)
            && env.named_by_text(search.gram, scope, &best.set));
    if named_by_text {
        tracing::debug!(pattern = %pattern.name, "the best candidate is named by the stored text");
    }
    // A field's candidates too close to call may still be told apart by
    // the locators' answer or by an edited sentence's words.
    if let Kind::Field(search) = kind
        && too_close
        && !named_by_text
        && best.similarity >= how.threshold
    {
        let close: Vec<&Ranked> = ranked
            .iter()
            .take_while(|r| best.score - r.score < how.margin)
            .collect();
        if let Some(chosen) = settle(env, search.gram, &close, voted) {
            tracing::debug!(pattern = %pattern.name, "a search too close to call is settled");
            // The runner-up of a candidate is the best of the others.
            let other = if std::ptr::eq(chosen, best) {
                runner.unwrap_or(0.0)
            } else {
                best.score
            };
            return InScope::Taken(chosen, other);
        }
    }
    // A record's clusters hold only sub-trees over the threshold already.
    if best.similarity < how.threshold && !named_by_text {
        return InScope::Nothing;
    }
    if too_close && !named_by_text {
        return match kind {
            Kind::Field(_) => InScope::Ambiguous,
            Kind::Record(_) => InScope::Refused(format!(
                "two clusters are too close to call: {} at {:.3} and {} at {:.3}",
                best.key, best.score, ranked[1].key, ranked[1].score
            )),
        };
    }
    InScope::Taken(best, runner.unwrap_or(0.0))
}

/// The candidates taken in each parent instance, and their scores summed.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) targets: Vec<Vec<Item>>,
    pub(super) decided: usize,
    pub(super) scores: f64,
    pub(super) runners: f64,
    pub(super) similarities: f64,
}

impl Tally {
    pub(super) fn take(&mut self, chosen: &Ranked, runner_up: f64) {
        self.decided += 1;
        self.scores += chosen.score;
        self.runners += runner_up;
        self.similarities += chosen.similarity;
        self.targets.push(chosen.set.clone());
    }

    /// The choice in every instance, scored by the means over the
    /// instances decided.
    pub(super) fn assignment(self) -> Assignment {
        let n = self.decided as f64;
        Assignment {
            targets: self.targets,
            score: self.scores / n,
            runner_up: Some(self.runners / n),
            similarity: self.similarities / n,
        }
    }
}

impl FieldSearch<'_> {
    /// A field's candidate node sets in one scope, best first; `None` when the
    /// scope has no tree to search.
    pub(super) fn rank(
        &self,
        env: &Env<'_>,
        scope: Item,
        within: Option<NodeId>,
        how: Attempt,
        (labels, built): (&mut Labels, &mut BuiltViews),
        reports: Option<&mut Vec<CandidateReport>>,
    ) -> Option<Vec<Ranked>> {
        let FieldSearch {
            field,
            gram,
            views,
            sentinel,
        } = self;
        let (gram, sentinel) = (*gram, *sentinel);
        let page = scope_view(env.doc, scope, within, how.label, (labels, built), sentinel)?;
        // The best score of each candidate node set, with its region's similarity.
        let mut by_set: HashMap<Vec<Item>, (f64, f64)> = HashMap::new();
        for (gi, view) in gram.instances.iter().zip(views) {
            let Some(view) = view else { continue };
            let Some((owner, target)) = gi.targets.first() else {
                continue;
            };
            for region in locate::regions(view, gi, &page, how.algorithm, &env.search) {
                let choices =
                    locate::rank_targets(field, gram, view, (*owner, target), &page, &region);
                // A target the page showed is never healed onto a copy its
                // markup hides: a suggestion panel's buttons, a mobile menu.
                let shown = |c: &&locate::NodeChoice| {
                    gram.header.hidden != Some(false)
                        || !crate::dom::hidden::is_hidden(env.doc, c.owner)
                };
                for choice in choices.iter().filter(|c| c.fits).filter(shown).take(5) {
                    // A list field takes the node's alike siblings only when
                    // it held several alike nodes at capture.
                    let set = if field.pattern.is_single() || gi.targets.len() < 2 {
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
        let mut ranked: Vec<Ranked> = by_set
            .into_iter()
            .map(|(set, (score, similarity))| Ranked {
                set,
                score,
                similarity,
                key: String::new(),
            })
            .collect();
        ranked.sort_by(|x, y| y.score.total_cmp(&x.score).then(x.set.cmp(&y.set)));
        if let Some(reports) = reports {
            for (i, r) in ranked.iter().take(REPORTED).enumerate() {
                reports.push(CandidateReport {
                    nodes: r.set.iter().take(3).map(|i| i.path(env.doc)).collect(),
                    count: r.set.len(),
                    score: r.score,
                    similarity: r.similarity,
                    algorithm: how.algorithm,
                    label: how.label,
                    verdict: if i == 0 { "best" } else { "runner-up" }.to_owned(),
                });
            }
        }
        Some(ranked)
    }
}

impl RecordSearch<'_> {
    /// A record's viable clusters in one scope, best first, or why none is
    /// viable; `None` when the scope has no tree to search.
    pub(super) fn rank(
        &self,
        env: &Env<'_>,
        scope: Item,
        how: Attempt,
        labels: &mut Labels,
        reports: Option<&mut Vec<CandidateReport>>,
    ) -> Option<Result<Vec<Ranked>, String>> {
        let RecordSearch {
            pattern,
            views,
            repeated,
            frame,
        } = self;
        let (pattern, repeated) = (*pattern, *repeated);
        let root = scope_root(env.doc, scope)?;
        let page = LabeledTree::build(env.doc, root, how.label, labels).ok()?;
        let found = clusters(
            env.doc,
            views,
            &page,
            how.algorithm,
            &Rule {
                threshold: how.threshold,
                constraints: &pattern.constraints,
                repeated,
            },
            &env.search,
        );
        let mut found = found;
        if let Some(frame) = frame {
            for c in &mut found {
                if c.not_viable.is_none() && c.members.iter().any(|m| frame.contains(m)) {
                    c.not_viable = Some("its items lie in the site's frame".to_owned());
                }
            }
        }
        if let Some(reports) = reports {
            for c in found.iter().take(REPORTED) {
                reports.push(CandidateReport {
                    nodes: c.members.iter().take(3).map(|&n| env.doc.path(n)).collect(),
                    count: c.members.len(),
                    score: c.score,
                    similarity: c.score,
                    algorithm: how.algorithm,
                    label: how.label,
                    verdict: c
                        .not_viable
                        .clone()
                        .unwrap_or_else(|| format!("a cluster at {}", c.key)),
                });
            }
        }
        let viable: Vec<Ranked> = found
            .iter()
            .filter(|c| c.not_viable.is_none())
            .map(|c| Ranked {
                set: c.members.iter().map(|&n| Item::Node(n)).collect(),
                score: c.score,
                similarity: c.score,
                key: c.key.clone(),
            })
            .collect();
        if viable.is_empty() {
            return Some(Err(match found.first() {
                Some(c) => format!(
                    "no viable cluster; the best, {} nodes at {} scoring {:.3}, is not: {}",
                    c.members.len(),
                    c.key,
                    c.score,
                    c.not_viable.as_deref().unwrap_or("")
                ),
                None => format!("no sub-tree reaches the threshold {}", how.threshold),
            }));
        }
        Some(Ok(viable))
    }
}

/// Of a field's candidates too close to call (`close`, best first), the one
/// that the locators chose (`voted`: the XPath selecting nothing, or
/// outvoted), proven at capture to select the target, where the structure
/// cannot tell them apart; else the best, when it carries most of the
/// stored sentence's words and the others next to none (an edited
/// paragraph, and the paragraphs around it; a copy beside it carries them
/// as well, and settles nothing). Only the structure's first choice is
/// settled by words: a lookalike left far from where a deleted target
/// stood carries them too.
pub(super) fn settle<'r>(
    env: &Env<'_>,
    gram: &TreeGram,
    close: &[&'r Ranked],
    voted: Option<&Vec<Item>>,
) -> Option<&'r Ranked> {
    if let Some(nodes) = voted.filter(|n| !n.is_empty())
        && let Some(&chosen) = close.iter().find(|r| r.set == *nodes)
    {
        return Some(chosen);
    }
    let stored = signals::StoredWords::of(gram)?;
    let shared = close
        .iter()
        .map(|r| stored.shared(env.doc, &r.set))
        .collect::<Option<Vec<f64>>>()?;
    let (first, others) = shared.split_first()?;
    (*first >= MIN_WORDS_KEPT && others.iter().all(|&o| o < MAX_WORDS_ELSEWHERE)).then(|| close[0])
}

/// The views of a tree-gram's instances; an instance rooted at its parent
/// instance gets the shared root label, so that it pairs with the new parent
/// instance whatever that is named now.
pub(super) fn gram_views(
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

/// The view of a scope, or of the region `within` it that a local change is
/// searched in first. A parent instance's root is relabelled to pair with
/// instance-rooted contexts; a region inside it keeps its own label, since
/// it pairs with a stored context root that kept its own (relabelling it
/// made the stored root unmatchable, so a local search ranked only the
/// pieces of the region and took a weaker, sometimes wrong, node).
pub(super) fn scope_view(
    doc: &Document,
    scope: Item,
    within: Option<NodeId>,
    label: LabelMode,
    (labels, built): (&mut Labels, &mut BuiltViews),
    sentinel: crate::similarity::Label,
) -> Option<Rc<LabeledTree>> {
    let instance = scope_root(doc, scope)?;
    let root = within.filter(|&w| doc.is_element(w)).unwrap_or(instance);
    let view = match built.get(&(root, label)) {
        Some(view) => Rc::clone(view),
        None => {
            // A view by tags is the view of another mode with its tags for
            // labels, when that is built already.
            let other = built.iter().find(|((r, _), _)| *r == root);
            let view = match other {
                Some((_, other)) if label == LabelMode::Tag => other.with_tag_labels(),
                _ => LabeledTree::build(doc, root, label, labels).ok()?,
            };
            Rc::clone(built.entry((root, label)).or_insert(Rc::new(view)))
        }
    };
    if root == instance && root != doc.root_element()? {
        let mut own = LabeledTree::clone(&view);
        own.relabel_root(sentinel);
        return Some(Rc::new(own));
    }
    Some(view)
}

/// The label interner and the labelled views of the page that a pass's
/// tree searches share (`Env::views`). Each search of a field (one
/// algorithm under one label mode) compares the same view of its scope,
/// and on a page of 60,000 elements building that view was a third of a
/// search; the interner is shared so that the labels of a view built for
/// one search are those of the tree-gram's views built for the next.
#[derive(Default)]
pub(crate) struct PageViews {
    labels: Labels,
    built: BuiltViews,
}

/// Views of the page by root and label mode, before any root is relabelled.
pub(super) type BuiltViews = HashMap<(NodeId, LabelMode), Rc<LabeledTree>>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's view of a scope, built through `views`.
    fn view(doc: &Document, scope: NodeId, views: &mut PageViews) -> Rc<LabeledTree> {
        let sentinel = views.labels.intern("\u{1}instance");
        let shared = (&mut views.labels, &mut views.built);
        scope_view(
            doc,
            Item::Node(scope),
            None,
            LabelMode::Tag,
            shared,
            sentinel,
        )
        .expect("a view of an element")
    }

    #[test]
    fn every_search_of_a_page_reads_one_view_of_its_scope() {
        let doc = Document::parse_str("<div><p>a</p><p>b</p></div>");
        let root = doc.root_element().expect("a root element");
        let mut views = PageViews::default();
        let first = view(&doc, root, &mut views);
        let again = view(&doc, root, &mut views);
        assert!(Rc::ptr_eq(&first, &again));
        assert_eq!(views.built.len(), 1);
    }

    #[test]
    fn a_relabelled_instance_root_leaves_the_shared_view_as_built() {
        let doc = Document::parse_str("<div><article><p>a</p></article></div>");
        let article = doc
            .all()
            .find(|&n| doc.is_element(n) && doc.name(n) == "article")
            .expect("an article");
        let mut views = PageViews::default();
        let relabelled = view(&doc, article, &mut views);
        let built = Rc::clone(&views.built[&(article, LabelMode::Tag)]);
        assert_ne!(relabelled.label(0), built.label(0));
        assert_eq!(relabelled.labels()[1..], built.labels()[1..]);
        // The next search relabels its own copy again, from the same view.
        let again = view(&doc, article, &mut views);
        assert_eq!(again.labels(), relabelled.labels());
        assert_eq!(views.built.len(), 1);
    }
}
