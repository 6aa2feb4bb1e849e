//! What is known of a field's current selection, the nodes its XPath
//! selects on a page, against its tree-gram: the signals the drift check
//! reads (the locators outvoting the XPath, the stored text found on other
//! nodes, the target inside a wrapper, the target's neighbour or another
//! element of the stored context, an emptied element) and the evidence the
//! learned model weighs them in, as it weighs a heal's candidates.
//!
//! The drift check asks this of every field on every page and flags the
//! field when the model's confidence in its selection is under the bar; a
//! heal asks it of the selection it starts from, so that adaptations
//! report what the model saw of the nodes they replaced.
//!
//! ## What it refuses
//!
//! It decides nothing: it gathers signals and evidence, and flagging or
//! healing is the caller's. The checks of the target's neighbours, its
//! labels, an emptied element and a stored paragraph found elsewhere are
//! asked of top-level fields only. The model judges only a top-level field
//! whose tree-gram matched one node ([`Domain::Model`]); records and every
//! other field are left to the rules. It reads no file and changes no
//! wrapper.

use super::TreeGrams;
use super::confidence::{Evidence, Source};
use super::signals;
use super::votes::{self, Ballot};
use super::witness::Witness;
use super::witnessed;
use crate::dom::Document;
use crate::treegram::TreeGram;
use crate::wrapper::{PatternPath, Wrapper};
use crate::xpath::Item;

/// Who judges a pattern's nodes. The model was fitted on fields of one
/// node with no parent record (the training corpus's targets): it judges
/// those. A record, a list field and a field of a record are outside what
/// it learned, and the signals that decided before decide for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Domain {
    /// The learned model.
    Model,
    /// A record pattern.
    Record,
    /// A field outside the model's training; `top_level` when it has no
    /// parent record.
    Rules { top_level: bool },
}

impl Domain {
    /// Who judges the pattern at `path`.
    pub(crate) fn of(wrapper: &Wrapper, path: &PatternPath, grams: &TreeGrams) -> Domain {
        let top_level = path.parent().is_none();
        match wrapper.pattern(path) {
            Some(p) if p.is_record() => Domain::Record,
            _ if top_level && grams.get(path).is_some_and(|g| g.header.matched == 1) => {
                Domain::Model
            }
            _ => Domain::Rules { top_level },
        }
    }
}

/// A field's current selection, checked.
#[derive(Clone, Debug)]
pub(crate) struct SelectionCheck {
    /// What the model reads of it.
    pub evidence: Evidence,
    /// The locators' choice that outvotes the XPath's, if any.
    pub outvoting: Option<Ballot>,
    /// The nodes that carry the stored text where the selection does not,
    /// or the target inside the wrapper the selection is.
    pub witness: Option<Witness>,
    /// The text of the target's neighbour at capture that the selection has.
    pub neighbour: Option<String>,
    /// The text of another element of the stored context that the
    /// selection has, with that element's siblings around it.
    pub other_stored: Option<String>,
    /// How many locators voted, and how many agree with the XPath.
    pub voting: usize,
    /// How many locators agree with the XPath.
    pub agree: usize,
}

/// Checks a field's non-empty `current` selection (per parent instance of
/// `scopes`) against `gram`. `top_level` says the field has no parent
/// record: the checks of the target's neighbours, labels and emptied
/// element are asked of such fields only, as a record's items differ.
pub(crate) fn check_field(
    doc: &Document,
    gram: &TreeGram,
    top_level: bool,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> SelectionCheck {
    let mut check = signals(doc, gram, top_level, scopes, current);
    weigh(doc, gram, current, &mut check.evidence);
    check
}

/// The signals against a field's selection, without the likeness the
/// model also reads: what the drift check asks of every field on every
/// page before it asks the model anything (see [`SelectionCheck::signalled`]).
pub(crate) fn signals(
    doc: &Document,
    gram: &TreeGram,
    top_level: bool,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> SelectionCheck {
    let votes = votes::votes(doc, gram, scopes, current);
    let outvoting = votes.outvoting(doc, gram, current, false).cloned();
    let witness = witnessed::witnessed_field(doc, gram, current, &votes).or_else(|| {
        top_level
            .then(|| {
                signals::paragraph_elsewhere(doc, gram, current)
                    .or_else(|| signals::wrapped_target(doc, gram, current))
                    .or_else(|| signals::retagged_beside(doc, gram, current))
            })
            .flatten()
    });
    let shifted = top_level
        .then(|| signals::shifted_selection(doc, gram, current))
        .flatten();
    let neighbour = shifted
        .as_ref()
        .and_then(|s| signals::selects_a_neighbour(doc, gram, s));
    // The target's own neighbour says it already; another stored element
    // is looked for only where it does not.
    let other_stored = shifted
        .as_ref()
        .filter(|_| neighbour.is_none())
        .and_then(|s| super::other_stored::selects_other_stored(doc, gram, s));
    let against = votes.voting - votes.agree;
    let share = |n: usize| {
        if votes.voting == 0 {
            0.0
        } else {
            n as f64 / votes.voting as f64
        }
    };
    let count: usize = current.iter().map(Vec::len).sum();
    let stored = gram.header.matched.max(1);
    let evidence = Evidence {
        source: Source::Current,
        votes_for: share(votes.agree),
        votes_against: share(against),
        voted: votes.voting > 0,
        count_fit: count.min(stored) as f64 / count.max(stored) as f64,
        labels_contradict: top_level && signals::labels_contradict(doc, gram, current),
        outvoted: outvoting.is_some(),
        witnessed_elsewhere: witness.is_some(),
        neighbour: neighbour.is_some(),
        other_stored: other_stored.is_some(),
        emptied: top_level && signals::emptied_unlike(doc, gram, current),
        ..Evidence::default()
    };
    SelectionCheck {
        evidence,
        outvoting,
        witness,
        neighbour,
        other_stored,
        voting: votes.voting,
        agree: votes.agree,
    }
}

/// Adds to `evidence` what the model reads of the selection's likeness to
/// the stored target: its parts, whether it carries the target's evidence
/// at all, whether it is a lookalike out of the target's place, and how
/// much the structure around it looks like the stored context.
pub(crate) fn weigh(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
    evidence: &mut Evidence,
) {
    let parts = signals::likeness_parts(doc, gram, current).unwrap_or_default();
    evidence.likeness = parts.weighed();
    evidence.tag_like = parts.tag;
    evidence.text_like = parts.text;
    evidence.attrs_like = parts.attrs;
    evidence.words = parts.words;
    evidence.name_words = parts.names;
    evidence.carries_evidence = signals::carries_evidence(doc, gram, current);
    evidence.lookalike = super::surroundings::lookalike(doc, gram, current);
    evidence.similarity = super::context_similarity::context_similarity(doc, gram, current);
}

impl SelectionCheck {
    /// Whether any signal speaks against the selection.
    pub(crate) fn signalled(&self) -> bool {
        let e = &self.evidence;
        e.outvoted
            || e.witnessed_elsewhere
            || e.neighbour
            || e.other_stored
            || e.labels_contradict
            || e.emptied
    }
}
