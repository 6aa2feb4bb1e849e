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
//! count or a date says little on its own), stored targets or items the
//! tree-gram marks unstable, patterns with several parent instances or
//! stored targets, and neighbourhoods over [`witness::MAX_NODES`] nodes.

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

/// The element near `current` (one node in one parent instance) whose item
/// reads like the stored target's item, when the selection's does not (see
/// the module doc).
pub(crate) fn item_witness(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Witness> {
    let [selected] = current else {
        return None;
    };
    let &[Item::Node(node)] = selected.as_slice() else {
        return None;
    };
    let stored = stored_item(gram)?;
    if !doc.is_element(node) || doc.name(node) != stored.tag {
        return None;
    }
    let similarity = |element: NodeId| {
        item_text(doc, element, stored.levels)
            .map_or(0.0, |t| strsim::normalized_levenshtein(&t, &stored.text))
    };
    let ours = similarity(node);
    if ours > 1.0 - SELECTED_MARGIN {
        return None;
    }
    let area = witness::neighbourhood(doc, node)?;
    let mut best: Option<(NodeId, f64)> = None;
    let mut runner_up = 0.0f64;
    for e in doc.descendants(area) {
        if e == node
            || !doc.is_element(e)
            || doc.name(e) != stored.tag
            || doc.subtree_size(e) > stored.limit
            || rank_among_its_tag(doc, e) != stored.rank
        {
            continue;
        }
        let s = similarity(e);
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
    if text.chars().filter(|c| c.is_alphabetic()).count() < MIN_LETTERS {
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

/// The text of the element `levels` above `element`, spaces normalized.
fn item_text(doc: &Document, element: NodeId, levels: usize) -> Option<String> {
    let item = if levels == 0 {
        element
    } else {
        doc.ancestors(element).nth(levels - 1)?
    };
    Some(normalized(&Item::Node(item).string_value(doc)))
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
    fn an_item_without_enough_letters_witnesses_nothing() {
        let old = list(&[("A", "1"), ("B", "2"), ("C", "3")]);
        let new = list(&[("A", "1"), ("C", "3"), ("D", "4")]);
        check(COUNT, &old, &new, None);
    }
}
