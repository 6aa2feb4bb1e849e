//! What a selection shows of its stored target, read from the page and the
//! tree-gram alone: how much it looks like the target (`likeness_parts`,
//! `evidence`), whether it holds the target's text as written, its labels
//! or its words, and the signs that a field's XPath was left on something
//! else (the target's neighbour, a stored paragraph standing elsewhere,
//! an emptied wrapper, a wrapper put around the target, the target
//! retagged beside the selection).
//!
//! These are features, not decisions: the drift check (`drift.rs`) and the
//! model's evidence (`selection.rs`) read them. Nothing here evaluates a
//! locator or searches the whole page, except `paragraph_elsewhere`, which
//! looks for a stored paragraph's first word in the page's text nodes.
//!
//! ## What it refuses
//!
//! Likeness, labels and evidence read at most [`EVIDENCE_SCOPES`] parent
//! instances, the first node of each, against the first stored target only.
//! The signs of drift are asked only of a selection of one node in one
//! parent instance; a neighbour's text needs [`MIN_TELLING_TEXT`] characters
//! and a letter, and a stored sentence's words count only with
//! [`MIN_TELLING_WORDS`] distinct words. An unstable stored text tells no
//! node apart, and a paragraph edited by a word is not found.

use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::NoMask;
use crate::treegram::{GramMask, TreeGram};
use crate::xpath::Item;

use super::likeness::{
    Profile, fits_attributes, kept_attributes, labels, likeness, share_telling_attribute,
    shares_evidence,
};
use super::witness::Witness;

/// The least length of a stored text that identifies its node.
const MIN_TELLING_TEXT: usize = 8;

/// How many parent instances the evidence of a selection is read from.
const EVIDENCE_SCOPES: usize = 3;

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
        && !share_telling_attribute(&wanted, &found)
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

/// A sign of drift that names where the target is: from a page, a field's
/// tree-gram and its selection, the nodes that carry the target.
pub(crate) type Signal = fn(&Document, &TreeGram, &[Vec<Item>]) -> Option<Witness>;

/// The stored target inside a field's selection, one element that holds
/// nothing but it: a redesign put a wrapper around the target, and an XPath
/// of positions now selects the wrapper, with the target's text. The
/// element found has the target's tag and fits its attributes (a class
/// token or an attribute value in common, or, for a target without any, the
/// same bare attributes), and the selection does not; the selection holds
/// only that element (one element child, no text of its own), or a chain of
/// such wrappers down to it, read once whatever its length. On another page
/// of the site the selection keeps the target's own attributes, and on the
/// capture page it is the target.
pub(crate) fn wrapped_target(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Witness> {
    let node = single_node(current).filter(|&n| doc.is_element(n))?;
    // Asked of every field on every page: most selections have text of
    // their own, and saying so reads their children, before any profile.
    let mut inner = only_child(doc, node)?;
    let wanted = stored_profile(gram)?;
    // The elements of a chain of wrappers share one text, so only their
    // tags and attributes are read: a chain however long is read once.
    if fits_attributes(&wanted, &Profile::bare(doc, node, &NoMask)) {
        return None;
    }
    loop {
        let found = Profile::bare(doc, inner, &NoMask);
        if found.tag() == wanted.tag() && fits_attributes(&wanted, &found) {
            return Some(Witness {
                targets: vec![vec![Item::Node(inner)]],
                why: "the stored target's tag and attributes, inside the selected wrapper"
                    .to_owned(),
            });
        }
        inner = only_child(doc, inner)?;
    }
}

/// The stored target beside a field's selection, one element with other
/// text that does not fit the target's attributes: a redesign retagged the
/// target (`span` to `em`, `div` to `article`), and an XPath of positions
/// now counts the next element with the old tag, a sibling. The one
/// element sibling of the selection with another tag than the target's
/// that fits the target's attributes (see [`fits_attributes`]) and has the
/// stored text as written is the target. The stored text must be telling
/// (three characters with a letter, stable across loads). On the capture
/// page the selection has the target's text; on another page of the site
/// it keeps the target's attributes, or the sibling with the stored text
/// has the target's tag (a second author's link, where the capture page's
/// author now stands second) and is not taken. Tags are read first,
/// attributes next, and texts only of the siblings that fit: asked of
/// every field on every page, most selections stop before any text.
pub(crate) fn retagged_beside(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Witness> {
    let node = single_node(current).filter(|&n| doc.is_element(n))?;
    let &(owner, ref target) = gram.instances.first()?.targets.first()?;
    if target.item(&gram.doc, owner) != Some(Item::Node(owner)) {
        return None;
    }
    let tag = gram.doc.name(owner);
    let parent = doc.parent(node)?;
    let retagged = |n: NodeId| n != node && doc.is_element(n) && doc.name(n) != tag;
    if !doc.children(parent).any(retagged) || same_attributes(&gram.doc, owner, doc, node) {
        return None;
    }
    let bare = Profile::bare(&gram.doc, owner, &GramMask);
    if fits_attributes(&bare, &Profile::bare(doc, node, &NoMask)) {
        return None;
    }
    let fitting: Vec<NodeId> = doc
        .children(parent)
        .filter(|&n| retagged(n) && fits_attributes(&bare, &Profile::bare(doc, n, &NoMask)))
        .collect();
    if fitting.is_empty() {
        return None;
    }
    let wanted = stored_profile(gram)?;
    let text_of = |n: NodeId| Profile::of(doc, n, Item::Node(n), &NoMask);
    if wanted.is_unstable()
        || !super::witness::telling(wanted.text())
        || text_of(node).text() == wanted.text()
    {
        return None;
    }
    let mut found = fitting
        .into_iter()
        .filter(|&n| text_of(n).text() == wanted.text());
    let beside = found.next()?;
    found.next().is_none().then(|| Witness {
        targets: vec![vec![Item::Node(beside)]],
        why: "the stored target's text and attributes, on an element beside the selection"
            .to_owned(),
    })
}

/// Whether the element `stored` of a tree-gram and the element `node` of a
/// page have the same attributes, names and values, in the same order,
/// mend's own marks aside: such a node fits the target's attributes. It
/// reads no more than the two lists, for the drift check's every field.
fn same_attributes(gram: &Document, stored: NodeId, doc: &Document, node: NodeId) -> bool {
    own_attributes(gram, stored).eq(own_attributes(doc, node))
}

/// The names and values of `node`'s attributes, mend's own marks aside.
fn own_attributes(doc: &Document, node: NodeId) -> impl Iterator<Item = (&str, &str)> {
    doc.attrs(node)
        .iter()
        .filter(|a| !doc.attr_name(a).starts_with("data-mend-"))
        .map(|a| (doc.attr_name(a), doc.attr_value(a)))
}

/// The one element child of `node`, when `node` has no other element child
/// and no text of its own but white space.
fn only_child(doc: &Document, node: NodeId) -> Option<NodeId> {
    let mut only = None;
    for child in doc.children(node) {
        match doc.kind(child) {
            NodeKind::Element if only.is_none() => only = Some(child),
            NodeKind::Element => return None,
            NodeKind::Text if !doc.text(child).trim().is_empty() => return None,
            _ => {}
        }
    }
    only
}

/// A field's selection as the signs of a shifted XPath read it: one
/// element in one parent instance, where the first stored target is an
/// element, with a telling text (`MIN_TELLING_TEXT` characters, a letter)
/// that is not the target's own. Read once per page and field, for
/// [`selects_a_neighbour`] and `other_stored::selects_other_stored`.
pub(crate) struct Shifted {
    /// The selected element.
    pub node: NodeId,
    /// The first stored target, in the tree-gram.
    pub owner: NodeId,
    /// The selection's text, as a profile reads it.
    pub text: String,
}

/// The selection `current` as a [`Shifted`] one, when it is one.
pub(crate) fn shifted_selection(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Shifted> {
    let node = single_node(current)?;
    let &(owner, ref target) = gram.instances.first()?.targets.first()?;
    if !doc.is_element(node) || target.item(&gram.doc, owner) != Some(Item::Node(owner)) {
        return None;
    }
    let text = Profile::of(doc, node, Item::Node(node), &NoMask)
        .text()
        .to_owned();
    if text.chars().count() < MIN_TELLING_TEXT
        || !text.chars().any(char::is_alphabetic)
        || text == stored_profile(gram)?.text()
    {
        return None;
    }
    Some(Shifted { node, owner, text })
}

/// The text of a stored target's element sibling at capture that a field's
/// selection now has as written, when the selection's next
/// sibling with text on the far side has the text that sibling's next
/// sibling with text had, or neither has one: a lead paragraph removed or
/// moved away leaves `p[1]`, and every positional locator, on a paragraph
/// that stood after it, followed by what followed that one; an item removed
/// from a list leaves its position on the next item, the last one. The
/// sibling may stand anywhere on its side (a figure or an advert's slot
/// between the two paragraphs moves with them), and elements without text
/// are passed over on both sides, as an empty slot says nothing of what
/// follows. The selection is a [`Shifted`] one. On another page of the site the
/// siblings' texts are that page's (a home team may be the capture page's
/// away team, but not with the same team after it), and on the same page
/// the selection has the target's text, so neither drifts.
pub(crate) fn selects_a_neighbour(
    doc: &Document,
    gram: &TreeGram,
    selected: &Shifted,
) -> Option<String> {
    let Shifted { node, owner, text } = selected;
    let (node, owner) = (*node, *owner);
    // A target without element siblings had no neighbour to be taken for.
    element_sibling_after(&gram.doc, owner).or_else(|| element_sibling_before(&gram.doc, owner))?;
    let sides: [fn(&Document, NodeId) -> Option<NodeId>; 2] =
        [element_sibling_after, element_sibling_before];
    sides.into_iter().find_map(|side| {
        let mut stored = std::iter::successors(side(&gram.doc, owner), |&n| side(&gram.doc, n))
            .filter_map(|n| Some((n, element_text(&gram.doc, n, true)?)));
        stored.find(|(_, t)| t == text)?;
        // Past the end of its side on both, as where the target's last
        // sibling now stands last: a list one item shorter.
        let beyond = stored.next().map(|(_, t)| t);
        let on_page = std::iter::successors(side(doc, node), |&n| side(doc, n))
            .find_map(|n| element_text(doc, n, false));
        (on_page == beyond).then(|| text.clone())
    })
}

/// The text of the element `n`, when it has one, as a profile reads it; in
/// a tree-gram (`stored`), none when it was unstable.
pub(crate) fn element_text(doc: &Document, n: NodeId, stored: bool) -> Option<String> {
    let p = if stored {
        Profile::of(doc, n, Item::Node(n), &GramMask)
    } else {
        Profile::of(doc, n, Item::Node(n), &NoMask)
    };
    let unusable = p.text().is_empty() || (stored && p.is_unstable());
    (!unusable).then(|| p.text().to_owned())
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
pub(crate) fn element_sibling_after(doc: &Document, node: NodeId) -> Option<NodeId> {
    std::iter::successors(doc.next_sibling(node), |&n| doc.next_sibling(n))
        .find(|&n| doc.is_element(n))
}

/// The previous element sibling of `node`.
pub(crate) fn element_sibling_before(doc: &Document, node: NodeId) -> Option<NodeId> {
    std::iter::successors(doc.prev_sibling(node), |&n| doc.prev_sibling(n))
        .find(|&n| doc.is_element(n))
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
    /// The share of the words of the target's class tokens and attribute
    /// values that the node's keep.
    pub names: f64,
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
        sum.words += super::likeness::words_kept(&wanted, &found);
        sum.names += super::likeness::name_words_kept(&wanted, &found);
        n += 1;
    }
    (n > 0).then(|| {
        let k = n as f64;
        LikenessParts {
            tag: sum.tag / k,
            text: sum.text / k,
            attrs: sum.attrs / k,
            words: sum.words / k,
            names: sum.names / k,
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
pub(crate) fn stored_labels(gram: &TreeGram) -> std::collections::BTreeSet<String> {
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
pub(crate) fn same_tag_and_text(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    first_likeness(doc, gram, selection).is_some_and(|l| l.tag >= 1.0 && l.text >= 1.0)
}

/// Whether the first node of the selection's first parent instance that
/// selects something has the stored target's text, as written.
pub(crate) fn same_text(doc: &Document, gram: &TreeGram, selection: &[Vec<Item>]) -> bool {
    first_likeness(doc, gram, selection).is_some_and(|l| l.text >= 1.0)
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
