//! What a candidate is judged on: the evidence of its nodes (likeness,
//! locator votes, count, vetoes) and of the search that found it, and the
//! small choices the locators and stored texts settle before any search.
//!
//! ## What it refuses
//!
//! A locator whose nodes give a value the field refuses counts neither for
//! nor against a candidate. A locators' answer is used only when enough of
//! them vote and the stored text or words bear it out.

use super::*;

/// What a chosen node set's confidence is computed from.
pub(super) fn evidence_of(
    env: &Env<'_>,
    gram: &TreeGram,
    pattern: &Pattern,
    scopes: &[Item],
    chosen: &Assignment,
    source: Source,
    facts: Facts,
) -> Evidence {
    let key = (std::ptr::from_ref(gram) as usize, chosen.targets.clone());
    let cached = env.judged.borrow().get(&key).copied();
    let mut evidence =
        cached.unwrap_or_else(|| nodes_evidence(env, gram, pattern, scopes, &chosen.targets));
    if cached.is_none() {
        env.judged.borrow_mut().insert(key, evidence);
    }
    let ranked = source == Source::Tree;
    evidence.source = source;
    // A candidate the search ranked has its region's similarity; any other
    // keeps its nodes' own (`context_similarity`).
    if ranked {
        evidence.similarity = chosen.similarity;
    }
    evidence.margin = if ranked {
        chosen
            .runner_up
            .map_or(1.0, |r| (chosen.score - r).clamp(0.0, 1.0))
    } else {
        0.0
    };
    evidence.selection_empty = facts.selection_empty;
    evidence.change_scope = Some(facts.change_scope);
    evidence
}

/// What a candidate's evidence owes to its nodes alone: their likeness to
/// the stored target, the locators' votes, the count, the vetoes and the
/// similarity of the structure around them to the stored context become
/// features. The rest (who proposed them, the searched region's similarity
/// and margin, the page's change) is the caller's.
pub(super) fn nodes_evidence(
    env: &Env<'_>,
    gram: &TreeGram,
    pattern: &Pattern,
    scopes: &[Item],
    targets: &[Vec<Item>],
) -> Evidence {
    let votes = votes::all_votes(env.doc, gram, scopes, targets);
    // A locator whose nodes give values the field refuses is no evidence
    // against the choice: it has moved onto something else (a struck-out
    // price, a label), and a candidate like that could never be chosen.
    let implausible: usize = votes
        .others
        .iter()
        .filter(|b| !pattern.is_record() && !plausible(env, pattern, &b.targets))
        .map(|b| b.xpaths.len())
        .sum();
    let voting = votes.voting - implausible;
    let against = voting - votes.agree;
    let share = |n: usize| {
        if voting == 0 {
            0.0
        } else {
            n as f64 / voting as f64
        }
    };
    let parts = signals::likeness_parts(env.doc, gram, targets).unwrap_or_default();
    let chosen_count: usize = targets.iter().map(Vec::len).sum();
    let stored_count = gram.header.matched.max(1);
    let field = !pattern.is_record();
    Evidence {
        likeness: parts.weighed(),
        tag_like: parts.tag,
        text_like: parts.text,
        attrs_like: parts.attrs,
        words: parts.words,
        name_words: parts.names,
        votes_for: share(votes.agree),
        votes_against: share(against),
        voted: voting > 0,
        record: pattern.is_record(),
        count_fit: chosen_count.min(stored_count) as f64 / chosen_count.max(stored_count) as f64,
        carries_evidence: !field || signals::carries_evidence(env.doc, gram, targets),
        lookalike: field && crate::adapt::surroundings::lookalike(env.doc, gram, targets),
        labels_contradict: field && signals::labels_contradict(env.doc, gram, targets),
        similarity: if field {
            crate::adapt::context_similarity::context_similarity(env.doc, gram, targets)
        } else {
            0.0
        },
        copy_survivor: field && copy_survivor(env, gram, targets),
        // What the drift check weighs of a current selection says nothing
        // of a candidate the search found.
        ..Evidence::default()
    }
}

/// Whether `targets` look exactly like the stored target (its tag and
/// text, or attribute value) while the page holds fewer elements like that
/// than the capture page did: one of the copies is gone, and these are
/// more likely a copy that outlived the target than the target itself.
fn copy_survivor(env: &Env<'_>, gram: &TreeGram, targets: &[Vec<Item>]) -> bool {
    let Some(then) = gram.header.copies else {
        return false;
    };
    let key = std::ptr::from_ref(gram) as usize;
    let mut cache = env.copies.borrow_mut();
    let known = cache.entry(key).or_insert_with(|| {
        let (node, target) = gram.instances.first()?.targets.first()?;
        Some((Signature::of(&gram.doc, *node, target)?, None))
    });
    let Some((signature, now)) = known else {
        return false;
    };
    // The nodes are checked first: most candidates do not look exactly
    // like the target, and then the page's copies need no counting (nor
    // its index of texts building).
    let alike = targets.iter().flatten().count() > 0
        && targets
            .iter()
            .flatten()
            .all(|item| signature.fits(env.doc, item.owner()));
    alike && *now.get_or_insert_with(|| signature.count(env.doc)) < then
}

/// Whether every node of `targets` gives a value that meets the field's
/// value constraints (type, regex, lengths, range).
pub(super) fn plausible(env: &Env<'_>, pattern: &Pattern, targets: &[Vec<Item>]) -> bool {
    targets.iter().flatten().all(|&item| {
        crate::extract::item_text(env.doc, item, &pattern.extract).is_some_and(|text| {
            crate::extract::check_value(pattern, &text, env.base.as_ref())
                .1
                .is_empty()
        })
    })
}

/// The same for one node chosen by the text locator among others: the
/// stored tag and text as written (0.2 + 0.4), whatever its attributes.
pub(super) const MIN_TEXT_LOCATOR_EVIDENCE: f64 = 0.6;

/// The least share of a stored sentence's words (see
/// `signals::StoredWords`) that names a candidate as the target
/// edited: a third of the words replaced leaves half of them shared.
pub(super) const MIN_WORDS_KEPT: f64 = 0.4;
/// The most that the other candidates too close to call may share then.
pub(super) const MAX_WORDS_ELSEWHERE: f64 = 0.15;

/// The locators' answer for a field (see [`locator_choice`]).
pub(super) struct LocatorAnswer {
    /// The nodes, scored by their evidence.
    pub(super) chosen: Assignment,
    /// Who chose them, for a person.
    pub(super) reason: String,
    /// Whether their evidence clears the bar for an answer of the locators
    /// alone; under it they only settle a tree search too close to call.
    pub(super) sure: bool,
}

/// The node sets the locators agree on instead of the XPath's selection:
/// when the XPath selects nothing, the set with the most votes, or on a tie
/// the set a plain text locator votes for (see [`plainly_named`]), if any;
/// otherwise the set that outvotes it as the drift check decides, or the
/// node that witnesses the stored text beside it (`witness.rs`). Its score
/// is its evidence, and it is `sure` when that clears the bar for an answer
/// of the locators alone (under it, it only settles a tree search too close
/// to call, see [`settle`]); the reason says who chose it. `Err` with the reason to
/// abstain when the nodes the locators agree on are a lookalike out of the
/// target's place (`surroundings.rs`): whatever else looks like the target
/// then is a lookalike too.
pub(super) fn locator_choice(
    env: &Env<'_>,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Option<Result<LocatorAnswer, String>> {
    let votes = votes::votes(env.doc, gram, scopes, current);
    let ballot = if current.iter().all(Vec::is_empty) {
        let best = votes.others.first()?;
        let tied = votes
            .others
            .get(1)
            .is_some_and(|b| b.xpaths.len() == best.xpaths.len());
        // Locators that cannot agree leave the stored text as written to
        // decide: a plain text locator was proven at capture to select the
        // target alone, and a decoy or a copy beside the target that draws
        // the other locators carries other text.
        if tied {
            votes.others.iter().find(|b| plainly_named(gram, b))
        } else {
            Some(best)
        }
    } else {
        votes.outvoting(env.doc, gram, current, false)
    };
    // A text locator's answer carries the stored text as written; where the
    // page's classes were all renamed (a redesign), its attributes differ,
    // and the tag and the text are what is left to ask for.
    let by_text = ballot.is_some_and(|b| {
        gram.locators()
            .any(|(l, _)| l.kind == LocatorKind::Text && b.xpaths.contains(&l.xpath))
            && b.targets.iter().all(|t| t.len() <= 1)
    });
    let (targets, reason) = match ballot {
        Some(b) => match signals::narrowed_to_stored_text(env.doc, gram, &b.targets) {
            Some(narrowed) => (
                narrowed,
                format!(
                    "its locators agree on these nodes and a copy beside them ({} of {}: {}); only these carry the stored text",
                    b.xpaths.len(),
                    votes.voting,
                    b.xpaths.join(", ")
                ),
            ),
            None => (
                b.targets.clone(),
                format!(
                    "its locators agree on these nodes ({} of {}: {})",
                    b.xpaths.len(),
                    votes.voting,
                    b.xpaths.join(", ")
                ),
            ),
        },
        None if current.iter().any(|c| !c.is_empty()) => {
            let w = witnessed::witnessed_field(env.doc, gram, current, &votes)?;
            (
                w.targets,
                format!("these nodes carry {} and the XPath's do not", w.why),
            )
        }
        None => return None,
    };
    if scopes == [Item::Node(env.doc.root())]
        && crate::adapt::surroundings::lookalike(env.doc, gram, &targets)
    {
        return Some(Err(format!(
            "{reason}, but they have another text than the target and stand among none of the texts that surrounded it: a lookalike elsewhere, and the target is gone"
        )));
    }
    let score = signals::evidence(env.doc, gram, &targets)?;
    let bar = if by_text {
        MIN_TEXT_LOCATOR_EVIDENCE
    } else {
        MIN_LOCATOR_EVIDENCE
    };
    Some(Ok(LocatorAnswer {
        chosen: Assignment {
            targets,
            score,
            runner_up: None,
            similarity: score,
        },
        reason,
        sure: score >= bar,
    }))
}

/// Whether a record's stored items, two or more, all had one parent on the
/// capture page: the paths their instances were captured at
/// (`data-mend-path`) differ in their last step only.
pub(super) fn stored_in_one_container(gram: &TreeGram) -> bool {
    let doc = &gram.doc;
    let parents: Option<std::collections::BTreeSet<&str>> = gram
        .instances
        .iter()
        .map(|i| {
            let mut n = Some(i.root);
            while let Some(e) = n {
                if let Some(path) = doc.attr(e, crate::treegram::PATH_ATTR) {
                    return path.rsplit_once('/').map(|(parent, _)| parent);
                }
                n = doc.parent(e);
            }
            None
        })
        .collect();
    gram.instances.len() >= 2 && parents.is_some_and(|p| p.len() == 1)
}

/// How many distinct parents `items` have.
pub(super) fn containers(doc: &Document, items: &[Item]) -> usize {
    let parents: std::collections::BTreeSet<_> = items
        .iter()
        .map(|&item| match item {
            Item::Node(n) => doc.parent(n),
            Item::Attr { element, .. } => Some(element),
            _ => None,
        })
        .collect();
    parents.len()
}

/// The retagged target (see `witness::retagged`) of a top-level field, or
/// the one element with its stored paragraph whatever its tag
/// (`witness::with_long_stored_text`), in place of `current`, the XPath's
/// selection, when that is at most one node and has other text than the
/// stored target; with the reason to give.
pub(super) fn retagged_instead(
    env: &Env<'_>,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Option<(Vec<Vec<Item>>, &'static str)> {
    let [Item::Node(scope)] = scopes else {
        return None;
    };
    let [selected] = current else {
        return None;
    };
    if *scope != env.doc.root() || selected.len() > 1 || signals::same_text(env.doc, gram, current)
    {
        return None;
    }
    let (found, why) = match crate::adapt::witness::retagged(env.doc, gram) {
        Some(found) => (
            found,
            "the only element with the stored text as written, with the target's classes or tag; the XPath's nodes have other text",
        ),
        None => (
            crate::adapt::witness::with_long_stored_text(env.doc, gram)?,
            "the only element with the stored paragraph as written, whatever its tag; the XPath's nodes have other text",
        ),
    };
    (selected.first() != Some(&found)).then(|| (vec![vec![found]], why))
}

/// Whether a ballot is the answer of a plain text locator (not of its rank
/// form among copies) that selects one node in every parent instance.
pub(super) fn plainly_named(gram: &TreeGram, ballot: &votes::Ballot) -> bool {
    ballot.targets.iter().all(|t| t.len() == 1)
        && gram.locators().any(|(l, _)| {
            l.kind == LocatorKind::Text
                && !l.xpath.starts_with('(')
                && ballot.xpaths.contains(&l.xpath)
        })
}
