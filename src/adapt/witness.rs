//! Witnesses: the stored targets' own text, found again beside the nodes an
//! XPath now selects.
//!
//! A near-duplicate inserted before a target (a copy of it with other text,
//! a second copy of a list) takes the target's position. An XPath of
//! positions then selects the copy, locators that lean on positions move
//! with it, and a class or a label selects both; no locator outvotes the
//! XPath, and the value is silently another one. The target itself is still
//! there, close by, with the text it had when its tree-gram was captured.
//! That text is the witness.
//!
//! - **A field** (one node in its one parent instance) is witnessed by the
//!   only element near its selection (within [`LEVELS`] ancestors, never the
//!   whole body) that has the stored tag and exactly the stored text, when
//!   its selection has other text.
//! - **A record** (two or more stored items in one container) is witnessed
//!   by its stored items' texts: when its selection spans several
//!   containers, the one that holds the most stored texts (two at least,
//!   more than any other) gives the witness, its items of the found items'
//!   class; when the selection holds fewer stored texts than a container
//!   nearby that holds most of them, and more than any other container
//!   does, that container's items are (the whole
//!   page is searched only when the XPath selects nothing, as a heal
//!   follows then anyway); when the selection's one container holds most
//!   of them beside items of a class no stored item had (an advert), the
//!   others are, if they are as many as at capture.
//!
//! - **A retagged field** (`h1` become `h2`, a copy left in the `h1` with
//!   other text, which the locators and the tree search then take) is
//!   witnessed by the one element of the whole page with its stored text
//!   and its classes or tag ([`retagged`]); a heal asks for it first.
//!
//! On another page of the same site the stored text is the capture page's
//! value, and it does not recur next to the field with the same tag, so the
//! check stays silent there. It refuses texts without a letter or shorter
//! than [`MIN_TEXT`] characters (a year or a count recurs by chance), texts
//! the tree-gram marks unstable (the next load has another),
//! neighbourhoods over [`MAX_NODES`] nodes, patterns with several parent
//! instances, and more than one witness: it points at a node only when
//! exactly one answers.

use std::collections::{HashMap, HashSet};

use crate::dom::{Document, NodeId};
use crate::similarity::NoMask;
use crate::treegram::{GramMask, TreeGram};
use crate::xpath::Item;

use super::likeness::{Profile, share_telling_attribute};

/// How many ancestors above the selection a witness is looked for under.
pub(crate) const LEVELS: usize = 3;
/// The most nodes a neighbourhood searched for witnesses may hold.
pub(crate) const MAX_NODES: usize = 20_000;
/// A witness's sub-tree holds at most this many times the nodes of the
/// largest stored target's, plus [`SIZE_SLACK`].
pub(crate) const SIZE_FACTOR: usize = 4;
/// See [`SIZE_FACTOR`].
const SIZE_SLACK: usize = 16;
/// The fewest characters a stored text needs to witness anything.
pub(crate) const MIN_TEXT: usize = 3;

/// Nodes that carry the stored targets' text where the XPath's do not.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Witness {
    /// Per parent instance, the witnessing nodes.
    pub targets: Vec<Vec<Item>>,
    /// What they witness, for a person: the stored text, or how many
    /// stored items were found.
    pub why: String,
}

/// The fewest characters of a stored text that is looked for in the whole
/// page (see [`retagged`]).
const MIN_PAGE_TEXT: usize = 20;

/// The one element of the page whose whole text is the stored target's
/// text, as written, and that shares a class token or an attribute value
/// with it, or its tag: the target, after a retag (`h1` to `h2`) that left a
/// copy with the old tag and other text to the locators, or after a wrap
/// or a move that lost it to the XPath. A title's text recurs in a link
/// to the same article or an underlined caption; those share neither, and
/// are passed over, while a second element alike with the target and with
/// the text means no answer. Asked
/// only when a heal's answer has other text. The text must be telling (at least [`MIN_PAGE_TEXT`]
/// characters with a letter, stable across loads); it is looked for among
/// text nodes, so a target whose text is split over several nodes is not
/// found. `None` for a field with several stored targets.
pub(crate) fn retagged(doc: &Document, gram: &TreeGram) -> Option<Item> {
    with_stored_text(doc, gram, MIN_PAGE_TEXT, true)
}

/// The fewest characters of a stored text that, found as the whole text of
/// one element of the page and of no other, is the target whatever its tag
/// and attributes (see [`with_long_stored_text`]): longer than any text
/// locator's (`treegram::locators`), a paragraph rather than a title.
pub(crate) const MIN_LONG_TEXT: usize = 81;

/// The one element of the page whose whole text is the stored target's
/// long text (a paragraph, [`MIN_LONG_TEXT`] characters at least), as
/// written, whatever its tag and attributes: a lead paragraph retagged to a
/// `div` in a `section` that was a `div`, where no locator and no tree
/// matching by tag finds it. Two sentences of a page recur word for word
/// only as a copy of the target, and a second element with the text means
/// no answer; a headline's text recurs in a link to its story, so an
/// element in a link answers only for a target that was in one. The text
/// may be split over several nodes (a cell of labels and values): the
/// element that holds it whole, up to [`LEVELS`] above a text node with its
/// first word and no larger than the target could have grown, answers; of
/// an element and its only child, the child, and of two nested elements
/// whose texts begin alike, the one whose whole text is as long as the
/// target's. `None` as for [`retagged`].
pub(crate) fn with_long_stored_text(doc: &Document, gram: &TreeGram) -> Option<Item> {
    let found = with_stored_text(doc, gram, MIN_LONG_TEXT, false)?;
    let in_link = |d: &Document, n: NodeId| {
        std::iter::once(n)
            .chain(d.ancestors(n))
            .any(|a| d.is_element(a) && d.name(a) == "a")
    };
    let stored_in_link = gram
        .instances
        .first()
        .and_then(|i| i.targets.first())
        .is_some_and(|&(owner, _)| in_link(&gram.doc, owner));
    match found {
        Item::Node(n) if in_link(doc, n) && !stored_in_link => None,
        _ => Some(found),
    }
}

/// The one element of the page whose whole text is the stored target's
/// text, of `min_chars` characters at least, when `alike` with it (see
/// [`retagged`]) if asked.
fn with_stored_text(
    doc: &Document,
    gram: &TreeGram,
    min_chars: usize,
    alike_only: bool,
) -> Option<Item> {
    let [instance] = gram.instances.as_slice() else {
        return None;
    };
    let [(owner, target)] = instance.targets.as_slice() else {
        return None;
    };
    let stored_item = target.item(&gram.doc, *owner)?;
    if !matches!(stored_item, Item::Node(n) if gram.doc.is_element(n)) {
        return None;
    }
    let wanted = Profile::of(&gram.doc, *owner, stored_item, &GramMask);
    let text = wanted.text();
    if wanted.is_unstable()
        || text.chars().count() < min_chars
        || !text.chars().any(char::is_alphabetic)
    {
        return None;
    }
    // A paragraph's text may be split over several nodes (`<b>ISBN:</b>
    // 0825…`), so the element that holds it may be a few levels above a
    // text node with its first word, and no larger than the target could
    // have grown. A shorter text split so is a label row ("Publisher: North
    // Press"), which a details list printed twice (a second tab) repeats on
    // the capture page as on this one; only the parent of a text node is
    // asked for it.
    let limit = size_limit(gram.doc.subtree_size(*owner));
    let levels = if min_chars >= MIN_LONG_TEXT {
        LEVELS + 1
    } else {
        1
    };
    let first_word = text.split(' ').next().unwrap_or_default();
    // Where the stored context already held the text on another element
    // (a breadcrumb ending with the headline), the text did not name the
    // target then, and the copy that is left names nothing now.
    if copied_at_capture(gram, *owner, text, first_word, levels) {
        return None;
    }
    let mut matches: Vec<NodeId> = Vec::new();
    for n in doc.all() {
        if doc.kind(n) != crate::dom::NodeKind::Text || !doc.text(n).contains(first_word) {
            continue;
        }
        // A page's `title` repeats its headline word for word, and is no
        // copy of a target that stood in the page's body.
        if in_title(doc, n) && wanted.tag() != "title" {
            continue;
        }
        let holders = doc
            .ancestors(n)
            .take(levels)
            .take_while(|&a| doc.is_element(a) && doc.subtree_size(a) <= limit);
        for holder in holders {
            if matches.contains(&holder) {
                break;
            }
            let profile = Profile::of(doc, holder, Item::Node(holder), &NoMask);
            if profile.text() != text {
                continue;
            }
            let alike = share_telling_attribute(&wanted, &profile) || profile.tag() == wanted.tag();
            if !alike_only || alike {
                matches.push(holder);
            }
        }
    }
    // An element and its only child hold the same text: the innermost is
    // the one that answers. Texts are compared by their first characters
    // (see `likeness::Profile::text`), so of two nested holders of a long
    // text, the one whose whole text is nearer the target's in length
    // answers: an element that only begins as the target did is not it.
    // Most searches find no nested holders, and read no sub-tree for it;
    // otherwise each holder's is read once, at most `limit` nodes.
    let nested = |a: NodeId, b: NodeId| doc.is_ancestor(a, b) || doc.is_ancestor(b, a);
    let any_nested = matches
        .iter()
        .enumerate()
        .any(|(i, &m)| matches[i + 1..].iter().any(|&o| nested(m, o)));
    let off: Vec<usize> = if any_nested {
        let stored = text_weight(&gram.doc, *owner);
        matches
            .iter()
            .map(|&m| text_weight(doc, m).abs_diff(stored))
            .collect()
    } else {
        vec![0; matches.len()]
    };
    let innermost: Vec<NodeId> = (0..matches.len())
        .filter(|&i| {
            let m = matches[i];
            !(0..matches.len()).any(|j| {
                let o = matches[j];
                j != i
                    && nested(m, o)
                    && (off[j] < off[i] || (off[j] == off[i] && doc.is_ancestor(m, o)))
            })
        })
        .map(|i| matches[i])
        .collect();
    match innermost[..] {
        [one] => Some(Item::Node(one)),
        _ => None,
    }
}

/// Whether an element of the tree-gram's context other than the target
/// `owner` (and other than an element around it or inside it) holds
/// `text` as its whole text, found as [`with_stored_text`] finds it on a
/// page: a holder up to `levels` above a text node with `first_word`.
fn copied_at_capture(
    gram: &TreeGram,
    owner: NodeId,
    text: &str,
    first_word: &str,
    levels: usize,
) -> bool {
    let doc = &gram.doc;
    doc.all()
        .filter(|&n| {
            doc.kind(n) == crate::dom::NodeKind::Text
                && doc.text(n).contains(first_word)
                && !in_title(doc, n)
        })
        .flat_map(|n| {
            doc.ancestors(n)
                .take(levels)
                .take_while(|&a| doc.is_element(a))
        })
        .filter(|&holder| {
            holder != owner && !doc.is_ancestor(holder, owner) && !doc.is_ancestor(owner, holder)
        })
        .filter(|&holder| doc.name(holder) != "template")
        .any(|holder| Profile::of(doc, holder, Item::Node(holder), &GramMask).text() == text)
}

/// How much text an element holds: the characters of its text nodes that
/// are not white space, outside raw-text elements (scripts, styles), read
/// to the end of its sub-tree. Two nested elements whose texts begin alike
/// differ in it when one holds more.
fn text_weight(doc: &Document, element: NodeId) -> usize {
    let end = doc.subtree_end(element);
    let mut n = NodeId(element.0 + 1);
    let mut weight = 0;
    while n < end {
        if doc.is_element(n) && crate::dom::markup::RAW.contains(&doc.name(n)) {
            n = doc.subtree_end(n);
            continue;
        }
        if doc.kind(n) == crate::dom::NodeKind::Text {
            weight += doc.text(n).chars().filter(|c| !c.is_whitespace()).count();
        }
        n = NodeId(n.0 + 1);
    }
    weight
}

/// Whether the text node `n` is the page's `title`.
fn in_title(doc: &Document, n: NodeId) -> bool {
    doc.parent(n)
        .is_some_and(|p| doc.is_element(p) && doc.name(p) == "title")
}

/// The witness against `current`, the XPath's selection from each parent
/// instance, if there is one (see the module documentation).
pub(crate) fn witness(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
    record: bool,
) -> Option<Witness> {
    let [selected] = current else {
        return None;
    };
    // Only whole elements witness: an attribute's or a text child's value
    // is the data itself, and it changes from page to page.
    // A witness is about as large as what it witnesses; reading the text
    // of far larger sub-trees (a page's wrappers, a deep nest without text)
    // would cost a walk of each, so they are passed over.
    let limit = size_limit(
        gram.instances
            .iter()
            .flat_map(|i| &i.targets)
            .map(|&(n, _)| gram.doc.subtree_size(n))
            .max()
            .unwrap_or(0),
    );
    let stored_element = |owner: NodeId, target: &crate::treegram::Target| match target
        .item(&gram.doc, owner)
    {
        // A text that changes from load to load witnesses nothing: the
        // next load has another, and the stored one may recur by chance.
        Some(Item::Node(n)) if n == owner => {
            Some(Profile::of(&gram.doc, n, Item::Node(n), &GramMask)).filter(|p| !p.is_unstable())
        }
        _ => None,
    };
    if record {
        // Each stored record is an instance of its own, under a template
        // that names its path on the capture page.
        let stored = gram
            .instances
            .iter()
            .map(|instance| {
                let [(owner, target)] = &instance.targets[..] else {
                    return None;
                };
                let profile = stored_element(*owner, target)?;
                let path = gram
                    .doc
                    .parent(instance.root)
                    .and_then(|t| gram.doc.attr(t, crate::treegram::PATH_ATTR))?;
                Some(StoredItem {
                    container: container_of(path).to_owned(),
                    profile,
                    children: child_tags(&gram.doc, *owner),
                    class: class_of(&gram.doc, *owner),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        record_witness(doc, &stored, selected, limit, gram.header.matched)
    } else {
        let [instance] = &gram.instances[..] else {
            return None;
        };
        let [(owner, target)] = &instance.targets[..] else {
            return None;
        };
        field_witness(doc, &stored_element(*owner, target)?, selected, limit)
    }
}

/// The most nodes a witness's sub-tree may hold, for stored targets of at
/// most `stored` nodes.
pub(crate) fn size_limit(stored: usize) -> usize {
    stored
        .saturating_mul(SIZE_FACTOR)
        .saturating_add(SIZE_SLACK)
}

/// The path of the element that holds the node at `path`.
fn container_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(head, _)| head)
}

/// Whether a stored text can witness: long enough, with a letter.
pub(crate) fn telling(text: &str) -> bool {
    text.chars().count() >= MIN_TEXT && text.chars().any(char::is_alphabetic)
}

fn profile(doc: &Document, n: NodeId) -> Profile {
    Profile::of(doc, n, Item::Node(n), &NoMask)
}

fn field_witness(
    doc: &Document,
    wanted: &Profile,
    selected: &[Item],
    limit: usize,
) -> Option<Witness> {
    let &[Item::Node(node)] = selected else {
        return None;
    };
    if !doc.is_element(node)
        || !telling(wanted.text())
        || profile(doc, node).text() == wanted.text()
    {
        return None;
    }
    let area = neighbourhood(doc, node)?;
    let mut found = doc.descendants(area).filter(|&e| {
        e != node
            && doc.is_element(e)
            && doc.name(e) == wanted.tag()
            && doc.subtree_size(e) <= limit
            && profile(doc, e).text() == wanted.text()
    });
    let first = found.next()?;
    if found.next().is_some() {
        return None;
    }
    Some(Witness {
        targets: vec![vec![Item::Node(first)]],
        why: format!("the stored text {:?}", clip(wanted.text())),
    })
}

/// A stored record item: the path of its container on the capture page,
/// its profile and the tags of its element children.
struct StoredItem {
    container: String,
    profile: Profile,
    children: Vec<String>,
    class: Option<String>,
}

/// An element's class attribute, its tokens joined by one space; `None`
/// where it has none or an empty one.
fn class_of(doc: &Document, element: NodeId) -> Option<String> {
    doc.attr(element, "class")
        .map(|c| c.split_ascii_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|c| !c.is_empty())
}

/// The names of an element's element children, in order.
fn child_tags(doc: &Document, element: NodeId) -> Vec<String> {
    doc.element_children(element)
        .map(|c| doc.name(c).to_owned())
        .collect()
}

/// The witness of a record from its stored items (see the module
/// documentation): a container of the selection that holds the most stored
/// texts, the selection without items of a class no stored item had, or a
/// container nearby that holds most stored texts.
fn record_witness(
    doc: &Document,
    stored: &[StoredItem],
    selected: &[Item],
    limit: usize,
    matched: usize,
) -> Option<Witness> {
    let list = StoredList::of(stored)?;
    let nodes: Vec<NodeId> = selected
        .iter()
        .filter_map(|&i| match i {
            Item::Node(n) if doc.is_element(n) => Some(n),
            _ => None,
        })
        .collect();
    if nodes.len() != selected.len() {
        return None;
    }
    let mut by_parent: HashMap<Option<NodeId>, Vec<(NodeId, bool)>> = HashMap::new();
    for &n in &nodes {
        let carries = list.texts.contains(profile(doc, n).text());
        by_parent
            .entry(doc.parent(n))
            .or_default()
            .push((n, carries));
    }
    if by_parent.len() >= 2 {
        return one_container_of_several(doc, &list, &by_parent);
    }
    if let Some(members) = by_parent.values().next()
        && let Some(w) = without_intruders(doc, stored, &list, members, matched)
    {
        return Some(w);
    }
    container_nearby(doc, &list, &nodes, limit)
}

/// What a record's stored items share, when they can witness it: one
/// container, one tag, and two texts or more that tell them apart.
struct StoredList<'s> {
    texts: HashSet<&'s str>,
    tag: &'s str,
    /// The tags of the first item's children.
    children: &'s [String],
    /// Whether every item had those children: items all built alike (`li` >
    /// `a`) may be found retagged (`div` > `a`) where the XPath selects
    /// nothing, the same children then making a found element an item
    /// rather than its wrapper.
    built_alike: bool,
}

impl<'s> StoredList<'s> {
    fn of(stored: &'s [StoredItem]) -> Option<Self> {
        let containers: HashSet<&str> = stored.iter().map(|i| i.container.as_str()).collect();
        let tag = stored.first()?.profile.tag();
        if containers.len() != 1 || stored.iter().any(|i| i.profile.tag() != tag) {
            return None;
        }
        let children = &stored[0].children;
        let texts: HashSet<&str> = stored
            .iter()
            .map(|i| i.profile.text())
            .filter(|t| telling(t))
            .collect();
        (texts.len() >= 2).then(|| StoredList {
            texts,
            tag,
            children,
            built_alike: stored.iter().all(|i| i.children == *children),
        })
    }
}

/// The selection spans containers: the one that holds the most stored
/// texts, two at least and more than any other.
fn one_container_of_several(
    doc: &Document,
    list: &StoredList<'_>,
    by_parent: &HashMap<Option<NodeId>, Vec<(NodeId, bool)>>,
) -> Option<Witness> {
    let held = |members: &[(NodeId, bool)]| members.iter().filter(|(_, c)| *c).count();
    let mut ranked: Vec<&Vec<(NodeId, bool)>> = by_parent.values().collect();
    ranked.sort_by_key(|m| std::cmp::Reverse(held(m)));
    let count = held(ranked[0]);
    if count < 2 || held(ranked[1]) == count {
        return None;
    }
    Some(Witness {
        targets: vec![alike(doc, ranked[0])],
        why: format!(
            "{count} of its {} stored items' texts, in one of the {} containers it selects from",
            list.texts.len(),
            by_parent.len()
        ),
    })
}

/// One container that holds most stored texts, and items of a class that
/// no stored item had among the record's: intruders (an advert inserted
/// into the list). Only when the stored items all had one class, and
/// leaving the intruders out gives as many items as at capture; on another
/// page of the site the stored texts are not there.
fn without_intruders(
    doc: &Document,
    stored: &[StoredItem],
    list: &StoredList<'_>,
    members: &[(NodeId, bool)],
    matched: usize,
) -> Option<Witness> {
    let holding = members.iter().filter(|(_, holds)| *holds).count();
    if holding < list.texts.len().div_ceil(2).max(2)
        || stored.iter().any(|i| i.class != stored[0].class)
    {
        return None;
    }
    let class = &stored[0].class;
    let items: Vec<Item> = members
        .iter()
        .filter(|&&(m, _)| class_of(doc, m) == *class)
        .map(|&(m, _)| Item::Node(m))
        .collect();
    (items.len() == matched && items.len() < members.len()).then(|| Witness {
        why: format!(
            "its stored items' texts, with {} items of another class among them",
            members.len() - items.len()
        ),
        targets: vec![items],
    })
}

/// The selection holds few stored texts, or none (a copy of the list with
/// its texts churned keeps a short one here and there): a container nearby
/// whose items hold most of them, and more than the selection does. Where
/// the XPath selects nothing, a heal follows anyway and searches the whole
/// page: so does the witness.
fn container_nearby(
    doc: &Document,
    list: &StoredList<'_>,
    nodes: &[NodeId],
    limit: usize,
) -> Option<Witness> {
    let held: HashSet<String> = nodes
        .iter()
        .map(|&n| profile(doc, n).text().to_owned())
        .filter(|t| list.texts.contains(t.as_str()))
        .collect();
    let area = match nodes.first() {
        Some(&first) => neighbourhood(doc, doc.parent(first)?)?,
        None => doc.root(),
    };
    let selected_set: HashSet<NodeId> = nodes.iter().copied().collect();
    let mut found: HashMap<NodeId, (HashSet<String>, Vec<NodeId>)> = HashMap::new();
    for e in doc.descendants(area) {
        if !doc.is_element(e) || doc.subtree_size(e) > limit || selected_set.contains(&e) {
            continue;
        }
        let retagged =
            || nodes.is_empty() && list.built_alike && child_tags(doc, e) == *list.children;
        if doc.name(e) != list.tag && !retagged() {
            continue;
        }
        let text = profile(doc, e).text().to_owned();
        if list.texts.contains(text.as_str())
            && let Some(parent) = doc.parent(e)
        {
            let entry = found.entry(parent).or_default();
            entry.0.insert(text);
            entry.1.push(e);
        }
    }
    // The container that holds the most of them, enough and more than any
    // other: a list of links often shares an item or two with the next one
    // ("Jobs", "Learning"), never most of them.
    let needed = list.texts.len().div_ceil(2).max(2).max(held.len() + 1);
    let mut holding: Vec<_> = found
        .into_iter()
        .filter(|(_, (t, _))| t.len() >= needed)
        .collect();
    holding.sort_by_key(|(_, (t, _))| std::cmp::Reverse(t.len()));
    if holding.len() >= 2 && holding[1].1.0.len() == holding[0].1.0.len() {
        return None;
    }
    let (container, (distinct, members)) = holding.into_iter().next()?;
    let names: HashSet<&str> = members.iter().map(|&m| doc.name(m)).collect();
    let members: Vec<(NodeId, bool)> = doc
        .element_children(container)
        .filter(|&c| names.contains(doc.name(c)))
        .map(|c| (c, members.contains(&c)))
        .collect();
    Some(Witness {
        targets: vec![alike(doc, &members)],
        why: format!(
            "{} of its {} stored items' texts, in another container nearby",
            distinct.len(),
            list.texts.len()
        ),
    })
}

/// The items among `members` that are like those that hold stored texts
/// (marked `true`): their class is one of theirs. The container's other
/// items, whose texts were not stored, belong to the record too; an advert
/// with a class of its own does not.
fn alike(doc: &Document, members: &[(NodeId, bool)]) -> Vec<Item> {
    let classes: HashSet<Option<&str>> = members
        .iter()
        .filter(|(_, holds)| *holds)
        .map(|&(m, _)| doc.attr(m, "class"))
        .collect();
    members
        .iter()
        .filter(|&&(m, _)| classes.contains(&doc.attr(m, "class")))
        .map(|&(m, _)| Item::Node(m))
        .collect()
}

/// The ancestor of `node`, [`LEVELS`] up at most, under which witnesses are
/// looked for: never `body` or `html`, and no larger than [`MAX_NODES`].
pub(crate) fn neighbourhood(doc: &Document, node: NodeId) -> Option<NodeId> {
    let mut area = None;
    for a in doc.ancestors(node).take(LEVELS) {
        if !doc.is_element(a)
            || matches!(doc.name(a), "body" | "html")
            || doc.subtree_size(a) > MAX_NODES
        {
            break;
        }
        area = Some(a);
    }
    area
}

/// The start of a long text, for a message.
pub(crate) fn clip(text: &str) -> String {
    const SHOWN: usize = 60;
    if text.chars().count() <= SHOWN {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(SHOWN).collect::<String>())
    }
}
