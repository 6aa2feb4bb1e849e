//! The item witness: the list item that held a field's target, found again
//! by its text beside the item an XPath of positions now selects.
//!
//! An item removed above the target (or added, or the list reordered)
//! shifts every item after it. `//ul/li[21]/a/span[2]` then selects the
//! count of the next topic, locators of positions and classes move with it,
//! and the value is silently another one. The target's own text may say
//! nothing (`160+ courses` is the count of two topics) or may have changed a
//! little (`990+ courses` became `99o+ courses`), so the exact-text witness
//! of `witness.rs` cannot tell. The item that held it still reads almost as
//! it did: `Software Development 990+ courses` against
//! `Web Development 1,000+ courses` for what the XPath selects now.
//!
//! The stored target's *item* is its highest ancestor in the tree-gram that
//! is still about as small as the target ([`witness::SIZE_FACTOR`] times its
//! nodes, plus a slack), [`LEVELS`] up at most: the `li` of a `span` in a
//! link, not the list. Its text, spaces normalized, is compared by
//! normalized Levenshtein similarity with the text of the element as many
//! levels above each element of the stored tag near the selection (under
//! its [`LEVELS`]-th ancestor). The witness is the one such element whose
//! item reads like the stored one ([`MIN_ITEM_SIMILARITY`]), clearly more
//! than any other ([`ITEM_MARGIN`]) and than the selection's item
//! ([`SELECTED_MARGIN`]).
//!
//! On another page of the site the stored item's text is the capture page's
//! value and recurs nowhere near; in a list of alike items (every post
//! "Posted Jan 12") no item stands out by the margin, and no witness is
//! given. It refuses item texts with fewer than [`MIN_LETTERS`] letters (a
//! count or a date says little on its own) or more than [`MAX_ITEM_TEXT`]
//! characters, stored targets or items the tree-gram marks unstable,
//! patterns with several parent instances or stored targets, neighbourhoods
//! over [`witness::MAX_NODES`] nodes and over [`MAX_CANDIDATES`] elements
//! of the stored tag and rank. It runs on every page where a field's
//! selection lost its stored text, so each element costs a bounded walk: no
//! item far larger than the stored one is read, and no two texts whose
//! lengths alone keep them apart are compared.

use crate::dom::{Document, NodeId};
use crate::treegram::{GramMask, TreeGram};
use crate::xpath::Item;

use super::likeness::Profile;
use super::witness::{self, LEVELS, Witness};

/// The least similarity of a witness's item text to the stored item's.
pub(crate) const MIN_ITEM_SIMILARITY: f64 = 0.85;
/// How much less like the stored item any other element's item must read.
pub(crate) const ITEM_MARGIN: f64 = 0.1;
/// How much less like the stored item the selection's item must read than
/// the witness's: closer, the selection is as likely the item, changed.
pub(crate) const SELECTED_MARGIN: f64 = 0.25;
/// The fewest letters a stored item's text needs to witness anything.
pub(crate) const MIN_LETTERS: usize = 8;
/// The most characters of a stored item's text: an item is a name and a
/// few words; a paragraph is witnessed by its own text (`witness.rs`), and
/// comparing long texts, character by character, near every field on every
/// page would cost what the drift check may not.
pub(crate) const MAX_ITEM_TEXT: usize = 120;
/// An element's item is read only up to this many times the stored
/// target's size limit: far larger, it is a list, not an item.
const ITEM_GROWTH: usize = 2;
/// The most elements of the stored tag and rank read near a selection;
/// a neighbourhood with more gives no witness rather than a slow page.
pub(crate) const MAX_CANDIDATES: usize = 2_000;

/// The element near `current` (one node in one parent instance) whose item
/// reads like the stored target's item, when the selection's does not (see
/// the module doc).
pub(crate) fn item_witness(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Witness> {
    let node = super::signals::single_node(current)?;
    let stored = stored_item(gram)?;
    if !doc.is_element(node) || doc.name(node) != stored.tag {
        return None;
    }
    let stored_chars = stored.text.chars().count();
    // The similarity of an element's item to the stored one. An item far
    // larger than the stored one is not it, and is not read; one whose
    // length alone keeps it under `floor` (what could matter: a witness, or
    // a runner-up close enough to one) is not compared.
    let similarity = |element: NodeId, floor: f64| {
        let item = match stored.levels {
            0 => element,
            up => match doc.ancestors(element).nth(up - 1) {
                Some(item) => item,
                None => return 0.0,
            },
        };
        if doc.subtree_size(item) > stored.limit.saturating_mul(ITEM_GROWTH) {
            return 0.0;
        }
        let text = normalized(&Item::Node(item).string_value(doc));
        let chars = text.chars().count();
        let bound = chars.min(stored_chars) as f64 / chars.max(stored_chars).max(1) as f64;
        if bound < floor {
            return 0.0;
        }
        crate::similarity::normalized_levenshtein(&text, &stored.text)
    };
    let ours = similarity(node, 0.0);
    if ours > 1.0 - SELECTED_MARGIN {
        return None;
    }
    let area = witness::neighbourhood(doc, node)?;
    let mut best: Option<(NodeId, f64)> = None;
    let mut runner_up = 0.0f64;
    let mut read = 0usize;
    for e in doc.descendants(area) {
        if e == node
            || !doc.is_element(e)
            || doc.name(e) != stored.tag
            || doc.subtree_size(e) > stored.limit
            || !has_rank(doc, e, stored.rank)
        {
            continue;
        }
        read += 1;
        if read > MAX_CANDIDATES {
            return None;
        }
        let s = similarity(e, MIN_ITEM_SIMILARITY - ITEM_MARGIN);
        match best {
            Some((_, b)) if s <= b => runner_up = runner_up.max(s),
            _ => {
                runner_up = runner_up.max(best.map_or(0.0, |(_, b)| b));
                best = Some((e, s));
            }
        }
    }
    let (found, score) = best?;
    let stands_out = score - runner_up >= ITEM_MARGIN && score - ours >= SELECTED_MARGIN;
    (score >= MIN_ITEM_SIMILARITY && stands_out).then(|| Witness {
        targets: vec![vec![Item::Node(found)]],
        why: format!(
            "an item that reads like the stored one ({score:.2} against {ours:.2} for the XPath's): {:?}",
            witness::clip(&stored.text)
        ),
    })
}

/// The stored target's item: its tag, how many levels above it the item
/// is, the item's text, and how large a target may be.
struct StoredItem {
    tag: String,
    /// Its rank among its parent's children of its tag: the count of a
    /// topic is the second `span` of its item, the name the first.
    rank: usize,
    levels: usize,
    text: String,
    limit: usize,
}

fn stored_item(gram: &TreeGram) -> Option<StoredItem> {
    let [instance] = gram.instances.as_slice() else {
        return None;
    };
    let [(owner, target)] = instance.targets.as_slice() else {
        return None;
    };
    let doc = &gram.doc;
    let owner = *owner;
    if target.item(doc, owner) != Some(Item::Node(owner)) || !doc.is_element(owner) {
        return None;
    }
    let own = Profile::of(doc, owner, Item::Node(owner), &GramMask);
    if own.is_unstable() {
        return None;
    }
    let limit = witness::size_limit(doc.subtree_size(owner));
    // The highest ancestor about as small as the target, under the stored
    // region's root (the list itself, and what holds it, are not an item).
    let mut levels = 0;
    let mut item = owner;
    for (up, a) in doc.ancestors(owner).take(LEVELS).enumerate() {
        if a == instance.root || !doc.is_element(a) || doc.subtree_size(a) > limit {
            break;
        }
        levels = up + 1;
        item = a;
    }
    let profile = Profile::of(doc, item, Item::Node(item), &GramMask);
    if profile.is_unstable() {
        return None;
    }
    let text = normalized(&Item::Node(item).string_value(doc));
    if text.chars().filter(|c| c.is_alphabetic()).count() < MIN_LETTERS
        || text.chars().count() > MAX_ITEM_TEXT
    {
        return None;
    }
    Some(StoredItem {
        tag: doc.name(owner).to_owned(),
        rank: rank_among_its_tag(doc, owner),
        levels,
        text,
        limit,
    })
}

/// Whether `element` is the `rank`-th of its parent's element children of
/// its tag: counting stops past `rank`, so a long list of siblings costs
/// no more than the stored rank's walk.
fn has_rank(doc: &Document, element: NodeId, rank: usize) -> bool {
    let Some(parent) = doc.parent(element) else {
        return rank == 1;
    };
    let name = doc.name(element);
    let mut seen = 0;
    for c in doc.element_children(parent) {
        if doc.name(c) != name {
            continue;
        }
        seen += 1;
        if c == element {
            return seen == rank;
        }
        if seen >= rank {
            return false;
        }
    }
    false
}

/// The 1-based rank of `element` among its parent's element children of
/// its tag.
fn rank_among_its_tag(doc: &Document, element: NodeId) -> usize {
    let Some(parent) = doc.parent(element) else {
        return 1;
    };
    let name = doc.name(element);
    doc.element_children(parent)
        .take_while(|&c| c != element)
        .filter(|&c| doc.name(c) == name)
        .count()
        + 1
}

fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::TreeGrams;
    use crate::dom::Document;
    use crate::treegram::CaptureOptions;
    use crate::wrapper;

    /// A list of items, each a link with a name and a count.
    fn list(items: &[(&str, &str)]) -> String {
        let lis: String = items
            .iter()
            .map(|(name, count)| {
                format!("<li><a href=\"/t\"><span>{name}</span> <span>{count}</span></a></li>")
            })
            .collect();
        format!("<!DOCTYPE html><html><body><main><ul>{lis}</ul></main></body></html>")
    }

    /// The item text of the witness against what `xpath` selects on `new`,
    /// with the tree-gram captured by `xpath` on `old`.
    fn check(xpath: &str, old: &str, new: &str, expected: Option<&str>) {
        let w = wrapper::load_str(
            &format!("name: t\npatterns:\n  - name: f\n    xpath: {xpath}\n"),
            "t.yaml",
        )
        .unwrap();
        let old_doc = Document::parse_str(old);
        let grams = TreeGrams::capture(&w, &old_doc, &CaptureOptions::of(&w));
        let gram = grams.get(&w.pattern_paths()[0]).unwrap();
        let doc = Document::parse_str(new);
        let compiled = crate::xpath::XPath::compile(xpath).unwrap();
        let current = vec![compiled.select_item(&doc, Item::Node(doc.root())).unwrap()];
        let found = item_witness(&doc, gram, &current).map(|w| match w.targets[..] {
            [ref items] => match items[..] {
                [Item::Node(n)] => normalized(
                    &Item::Node(doc.parent(doc.parent(n).unwrap()).unwrap()).string_value(&doc),
                ),
                _ => panic!("{items:?}"),
            },
            _ => panic!("{:?}", w.targets),
        });
        assert_eq!(found.as_deref(), expected);
    }

    const COUNT: &str = "/html/body/main/ul/li[3]/a/span[2]";

    #[test]
    fn the_item_that_reads_like_the_stored_one_witnesses() {
        let old = list(&[
            ("Video", "60+"),
            ("DevOps", "160+"),
            ("Data Science", "160+"),
        ]);
        // "DevOps" removed, "Photography" added: li[3] is the count of
        // "Photography", and "Data Science" (misspelt now) moved up.
        let shifted = list(&[
            ("Video", "60+"),
            ("Data Sciense", "160+"),
            ("Photography", "160+"),
        ]);
        check(COUNT, &old, &shifted, Some("Data Sciense 160+"));
    }

    #[test]
    fn no_item_stands_out_from_alike_ones_or_from_the_selection() {
        let old = list(&[
            ("Video", "60+"),
            ("DevOps", "160+"),
            ("Posted in April", "14"),
        ]);
        // Two items read as much like the stored one.
        let tied = list(&[
            ("Posted in April", "15"),
            ("Video", "60+"),
            ("Weekly digest", "2"),
            ("Posted in April", "16"),
        ]);
        check(COUNT, &old, &tied, None);
        // The selection reads almost as much like it.
        let close = list(&[
            ("Posted in April", "15"),
            ("Video", "60+"),
            ("Posted in Apr", "14"),
        ]);
        check(COUNT, &old, &close, None);
        // Another page: nothing reads like it.
        let other = list(&[("Garden", "3"), ("Kitchen", "4"), ("Cellar", "5")]);
        check(COUNT, &old, &other, None);
    }

    #[test]
    fn a_neighbourhood_of_more_elements_than_are_read_gives_no_witness() {
        let filler: Vec<(String, String)> = (0..MAX_CANDIDATES)
            .map(|i| (format!("Topic number {i}"), "1+".to_owned()))
            .collect();
        let mut items: Vec<(&str, &str)> = vec![("Video", "60+"), ("DevOps", "160+")];
        items.push(("Data Science", "160+"));
        items.extend(filler.iter().map(|(n, c)| (n.as_str(), c.as_str())));
        let old = list(&items);
        items.remove(1);
        items[1].0 = "Data Sciense";
        check(COUNT, &old, &list(&items), None);
        // The same change in a short list is witnessed.
        items.truncate(3);
        let mut short_old: Vec<(&str, &str)> = vec![("Video", "60+"), ("DevOps", "160+")];
        short_old.push(("Data Science", "160+"));
        short_old.push(items[2]);
        check(
            COUNT,
            &list(&short_old),
            &list(&items),
            Some("Data Sciense 160+"),
        );
    }

    #[test]
    fn a_rank_is_counted_among_siblings_of_the_same_tag() {
        let doc = Document::parse_str("<div><b>x</b><i>y</i><b>z</b><i>w</i><b>v</b></div>");
        let bs: Vec<NodeId> = doc
            .all()
            .filter(|&n| doc.is_element(n) && doc.name(n) == "b")
            .collect();
        assert_eq!(bs.len(), 3);
        for (i, &b) in bs.iter().enumerate() {
            assert_eq!(rank_among_its_tag(&doc, b), i + 1);
            for rank in 1..=4 {
                assert_eq!(has_rank(&doc, b, rank), rank == i + 1, "{i} {rank}");
            }
        }
    }

    #[test]
    fn an_item_without_enough_letters_witnesses_nothing() {
        let old = list(&[("A", "1"), ("B", "2"), ("C", "3")]);
        let new = list(&[("A", "1"), ("C", "3"), ("D", "4")]);
        check(COUNT, &old, &new, None);
    }
}
