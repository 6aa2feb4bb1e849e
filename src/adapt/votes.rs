//! What a pattern's locators say of its selection: the other XPaths that
//! selected exactly the target at capture (`treegram::Locator`), evaluated
//! on the page and counted as votes for the XPath's node set or for another
//! one (see `drift.rs` for when a vote counts).
//!
//! It refuses to let a locator vote that selects nothing, or that only adds
//! to the XPath's selection: either says more about that locator than about
//! the XPath.

use crate::dom::Document;
use crate::treegram::{LocatorKind, TreeGram};
use crate::xpath::path_syntax::LocationPath;
use crate::xpath::{Item, XPath};

use super::signals::{evidence, same_tag_and_text, same_text, telling_stored_text};

/// The least evidence (see `signals::evidence`) a node set chosen by the
/// locators needs: its nodes must look almost wholly like the stored target
/// (tag, text or its shape, attributes). On the mutation track, locator
/// answers under 0.9 were wrong on 10 of 14 cases, above it on 12 of 165
/// (`bench/heal_harness.py --tracks mutation`).
pub(crate) const MIN_LOCATOR_EVIDENCE: f64 = 0.9;

/// How much more like the stored target a set that only one locator chose,
/// or that the locators tie on, must look than the XPath's selection.
const TIE_EVIDENCE_MARGIN: f64 = 0.15;

/// The same, when the other set carries the stored target's text exactly and
/// the XPath's selection does not.
const SAME_TEXT_EVIDENCE_MARGIN: f64 = 0.05;

/// How much less like the stored target, in attributes, a node with its
/// exact text may look than the XPath's node, when a locator alone finds it
/// and none sides with the XPath: a renamed class costs about this much.
const RENAMED_ATTRIBUTES_ALLOWANCE: f64 = 0.3;

/// What a pattern's locators say of its selection on a page.
#[derive(Clone, Debug, Default)]
pub(crate) struct Votes {
    /// How many locators selected something.
    pub voting: usize,
    /// How many of them selected exactly what the XPath selects.
    pub agree: usize,
    /// The other selections, each with its locators, most votes first.
    pub others: Vec<Ballot>,
}

/// One node set that locators other than the XPath agree on.
#[derive(Clone, Debug)]
pub(crate) struct Ballot {
    /// Per parent instance, the nodes.
    pub targets: Vec<Vec<Item>>,
    /// The locators that selected it.
    pub xpaths: Vec<String>,
}

impl Votes {
    /// The selection that outvotes the XPath's, if one does. A set that
    /// only adds nodes to the XPath's selection is no evidence against it:
    /// that locator has grown looser on this page. Otherwise the nodes the
    /// two selections do not share are weighed against the stored target.
    pub(crate) fn outvoting(
        &self,
        doc: &Document,
        gram: &TreeGram,
        current: &[Vec<Item>],
        record: bool,
    ) -> Option<&Ballot> {
        let mut others = self
            .others
            .iter()
            .filter(|b| !is_superset(&b.targets, current));
        let best = others.next()?;
        let count = best.xpaths.len();
        // A looser locator that holds the XPath's nodes but none of the
        // other set's still sides with the XPath.
        let agree = self.agree
            + self
                .others
                .iter()
                .filter(|b| {
                    is_superset(&b.targets, current)
                        && difference(&best.targets, &b.targets) == best.targets
                })
                .map(|b| b.xpaths.len())
                .sum::<usize>();
        if count < agree {
            return None;
        }
        // A set inside the XPath's selection says the XPath now selects
        // more. A field whose list grew (a second author) does that too, and
        // its constraints allowed it, so only a record is held to it; and it
        // takes two locators, more than agree with the XPath.
        if is_superset(current, &best.targets) && (!record || count < 2 || count == agree) {
            return None;
        }
        // Two sets with as many votes: the locators cannot tell them apart.
        if others.next().is_some_and(|b| b.xpaths.len() == count) {
            return None;
        }
        let only_theirs = difference(&best.targets, current);
        let theirs_set = if only_theirs.iter().all(Vec::is_empty) {
            &best.targets[..]
        } else {
            &only_theirs[..]
        };
        let theirs = evidence(doc, gram, theirs_set)?;
        let ours_set = difference(current, &best.targets);
        let ours = evidence(doc, gram, &ours_set).unwrap_or(0.0);
        // Two or more locators outvoting the XPath suffice with better
        // evidence. A lone locator, or a tie, must also look clearly
        // more like the target; or carry the stored target's very text where
        // the XPath's nodes do not, with evidence better by a smaller step:
        // the data itself moved (on another page of the site the text
        // differs, and this never applies).
        // A locator that finds the stored text as written, on a node of
        // the stored tag, where no locator sides with the XPath and the
        // XPath's node has other text: in a list of alike items, the item
        // at the XPath's position shares the target's classes and the shape
        // of its text ("570+ courses" for "350+ courses"), so it looks more
        // like the target than the target does once its own class was
        // renamed. The text is the item's identity; it must be telling (a
        // few words, or a long one) for another page to be unlikely to hold
        // it by chance, and the attributes may differ by what a rename costs.
        if agree == 0
            && telling_stored_text(gram)
            && same_tag_and_text(doc, gram, theirs_set)
            && !same_text(doc, gram, &ours_set)
        {
            return (theirs + RENAMED_ATTRIBUTES_ALLOWANCE >= ours).then_some(best);
        }
        let needed = if count >= 2 && count > agree {
            ours
        } else if same_text(doc, gram, theirs_set) && !same_text(doc, gram, &ours_set) {
            ours + SAME_TEXT_EVIDENCE_MARGIN
        } else {
            ours + TIE_EVIDENCE_MARGIN
        };
        // Nodes that look exactly alike (a second link to the same author)
        // leave the XPath's choice standing: evidence must be better, not equal.
        (theirs >= needed && theirs > ours + 1e-9).then_some(best)
    }
}

/// Whether `a` holds every node of `b`, scope by scope, and more.
fn is_superset(a: &[Vec<Item>], b: &[Vec<Item>]) -> bool {
    a != b
        && a.iter()
            .zip(b)
            .all(|(a, b)| b.iter().all(|i| a.contains(i)))
}

/// The nodes of `a` that `b` does not hold, scope by scope.
fn difference(a: &[Vec<Item>], b: &[Vec<Item>]) -> Vec<Vec<Item>> {
    a.iter()
        .zip(b)
        .map(|(a, b)| a.iter().filter(|i| !b.contains(i)).copied().collect())
        .collect()
}

/// Evaluates the tree-gram's locators from every scope and counts their
/// votes against `current`, the XPath's selection.
pub(crate) fn votes(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Votes {
    count_votes(doc, gram, scopes, current, true)
}

/// Every locator's vote, without settling early: what a heal's confidence
/// is computed from.
pub(crate) fn all_votes(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
) -> Votes {
    count_votes(doc, gram, scopes, current, false)
}

fn count_votes(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
    settle_early: bool,
) -> Votes {
    // Locators that lean on positions move with an XPath that leans on
    // positions (an item removed above shifts both onto the next item), so
    // beside such an XPath they are no independent evidence and do not vote.
    let positional = has_position(&gram.header.xpath);
    let votes = count_votes_of(doc, gram, scopes, current, settle_early, |l| {
        !(positional && has_position(l))
    });
    // An XPath that selects nothing has moved onto nothing: when no other
    // locator finds anything, a positional one that still finds nodes by
    // the target's own attributes (`//div[3]/center/input[@name='btnK']`)
    // did not move with it, and votes. One that finds them by position
    // alone (`//ul[@id='x']/li[1]`) stands in for the same layout, and
    // never does.
    if positional && votes.voting == 0 && current.iter().all(Vec::is_empty) {
        return count_votes_of(doc, gram, scopes, current, settle_early, |l| {
            has_position(l) && last_step_tests_attribute(l)
        });
    }
    votes
}

/// The votes of the locators of `gram` that `admitted` lets vote.
fn count_votes_of(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    current: &[Vec<Item>],
    settle_early: bool,
    admitted: impl Fn(&str) -> bool,
) -> Votes {
    let mut votes = Votes::default();
    // Cheap locators first, so that the two that settle a clean page are
    // usually found before a label's or a text's scan of the whole page.
    let mut ordered: Vec<_> = gram.locators().collect();
    ordered.sort_by_key(|(l, _)| evaluation_cost(l));
    for (locator, compiled) in ordered {
        if !admitted(&locator.xpath) {
            continue;
        }
        // Two locators that confirm the selection, with no other set as
        // well supported, settle it: this is the common case, and the check
        // runs on every page.
        let best_other = votes.others.iter().map(|b| b.xpaths.len()).max();
        if settle_early && votes.agree >= 2 && best_other.is_none_or(|b| b < votes.agree) {
            break;
        }
        // A text locator scans every element of its tag for its whole text;
        // a page that does not hold the text's first word anywhere cannot
        // match it, and one pass over the text nodes says so far cheaper.
        if locator.kind == LocatorKind::Text && !page_may_hold(doc, &locator.xpath) {
            continue;
        }
        let Some(compiled) = compiled else {
            continue;
        };
        let selected = selections(compiled, doc, scopes);
        if selected.iter().all(Vec::is_empty) {
            continue;
        }
        votes.voting += 1;
        if selected == current {
            votes.agree += 1;
        } else if let Some(b) = votes.others.iter_mut().find(|b| b.targets == selected) {
            b.xpaths.push(locator.xpath.clone());
        } else {
            votes.others.push(Ballot {
                targets: selected,
                xpaths: vec![locator.xpath.clone()],
            });
        }
    }
    votes
        .others
        .sort_by_key(|b| std::cmp::Reverse(b.xpaths.len()));
    votes
}

/// Whether `set` is one node that one of the plain text locators'
/// `selections` ([`text_locator_selections`]) is exactly. Such a locator
/// (not one that picks the target by its rank among copies) was proven at
/// capture to select the target and nothing else, so the stored text as
/// written stood on no other element of its tag then; the one node that
/// carries it now is the target's heir unless the page copied it since.
pub(crate) fn names_alone(selections: &[Vec<Item>], set: &[Item]) -> bool {
    set.len() == 1 && selections.iter().any(|got| got == set)
}

/// What each of the tree-gram's plain text locators selects in `scope`,
/// for those the page may hold and that evaluate.
pub(crate) fn text_locator_selections(
    doc: &Document,
    gram: &TreeGram,
    scope: Item,
) -> Vec<Vec<Item>> {
    gram.locators()
        .filter(|(locator, _)| {
            locator.kind == LocatorKind::Text
                && !locator.xpath.starts_with('(')
                && page_may_hold(doc, &locator.xpath)
        })
        .filter_map(|(_, compiled)| compiled?.select_item(doc, scope).ok())
        .collect()
}

/// Whether `xpath` has a numeric position predicate (`[3]`) on a child or
/// descendant step: the layout's positions. The first sibling after a label
/// (`following-sibling::span[1]`) is adjacency, not layout.
fn has_position(xpath: &str) -> bool {
    let bytes = xpath.as_bytes();
    (0..bytes.len()).any(|i| {
        if bytes[i] != b'[' {
            return false;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || bytes.get(i + 1 + digits) != Some(&b']') {
            return false;
        }
        // A rank among the matches of a whole expression,
        // `(//a[normalize-space(.)='Gmail'])[1]`, counts elements with the
        // target's text, not the layout's positions (`text()[1]` is a step).
        if i > 1 && bytes[i - 1] == b')' && bytes[i - 2] != b'(' {
            return false;
        }
        let step = &xpath[xpath[..i].rfind('/').map_or(0, |s| s + 1)..i];
        !(step.starts_with("following-sibling::") || step.starts_with("preceding-sibling::"))
    })
}

/// Whether the last step of `xpath` has a predicate on an attribute of the
/// node it selects (`input[@name='btnK']`, not `li[1]` under `ul[@id]`).
fn last_step_tests_attribute(xpath: &str) -> bool {
    LocationPath::parse(xpath)
        .is_some_and(|path| path.last().predicates.iter().any(|p| p.reads_attribute))
}

/// A rough rank of what evaluating a locator costs: a path from the root
/// walks one branch; an attribute or class test scans one tag; a label or a
/// text compares the text of every candidate.
fn evaluation_cost(locator: &crate::treegram::Locator) -> u8 {
    match locator.kind {
        LocatorKind::Position if !locator.xpath.starts_with("//") => 0,
        LocatorKind::Attribute | LocatorKind::Class | LocatorKind::Position => 1,
        LocatorKind::Label | LocatorKind::Text => 2,
    }
}

/// Whether some text node of `doc` may hold the first word of the text
/// that the text locator `xpath` compares
/// (`//a[normalize-space(.)='First words']`); `false` is sure. A locator
/// whose text cannot be read is evaluated.
fn page_may_hold(doc: &Document, xpath: &str) -> bool {
    let Some(rest) = xpath.split_once("normalize-space(.)=").map(|(_, r)| r) else {
        return true;
    };
    let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
        return true;
    };
    let Some(word) = rest[1..]
        .split(quote)
        .next()
        .and_then(|text| text.split_whitespace().next())
    else {
        return true;
    };
    // Every text node's data is a slice of the document's text buffer, so
    // one search of the buffer answers for all of them; a hit elsewhere (an
    // attribute value, two texts side by side) only means the locator is
    // evaluated, and finds what it finds.
    memchr::memmem::find(doc.text_buffer().as_bytes(), word.as_bytes()).is_some()
}

/// What `xpath` selects from each scope (nothing where it fails).
pub(crate) fn selections(xpath: &XPath, doc: &Document, scopes: &[Item]) -> Vec<Vec<Item>> {
    scopes
        .iter()
        .map(|&s| xpath.select_item(doc, s).unwrap_or_default())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{has_position, last_step_tests_attribute, page_may_hold};
    use crate::dom::Document;

    #[test]
    fn a_page_may_hold_a_text_only_where_its_first_word_stands() {
        let doc = Document::parse_str(
            "<div><p>Our group sites</p><!-- Archive --><a title='Contact'>x</a></div>",
        );
        let check = |xpath: &str, expected: bool| {
            assert_eq!(page_may_hold(&doc, xpath), expected, "{xpath}");
        };
        check("//p[normalize-space(.)='Our group sites']", true);
        check("//p[normalize-space(.)=\"group of sites\"]", true);
        check("//p[normalize-space(.)='Partner sites']", false);
        // A word elsewhere than in a text node (an attribute's value, a
        // comment) only costs an evaluation.
        check("//a[normalize-space(.)='Contact us']", true);
        check("//li[normalize-space(.)='Archive']", true);
        // A locator whose text cannot be read is always evaluated.
        check("//p[@class='x']", true);
    }

    #[test]
    fn positions_are_layout_steps_not_adjacency() {
        assert!(has_position("/html/body/ul/li[2]/span"));
        assert!(has_position("//li[6]/a/span[contains(@class, 'x')]"));
        assert!(has_position("/html/body/div/text()[1]"));
        assert!(!has_position(
            "//b[normalize-space(.)='ISBN-13:']/following-sibling::span[1]"
        ));
        assert!(!has_position("//h1[@itemprop='name']"));
        assert!(!has_position(
            "//a[span[normalize-space(.)='Leadership and Management']]"
        ));
        assert!(!has_position("(//a[normalize-space(.)='Gmail'])[1]"));
        assert!(has_position("(//div[2]/a[normalize-space(.)='Gmail'])[1]"));
    }

    #[test]
    fn the_last_step_tests_the_targets_own_attributes() {
        assert!(last_step_tests_attribute(
            "//div[3]/center/input[@name='btnK']"
        ));
        assert!(last_step_tests_attribute(
            "//input[contains(concat(' ', normalize-space(@class), ' '), ' x ')]"
        ));
        assert!(!last_step_tests_attribute("//ul[@id='list']/li[1]"));
        assert!(!last_step_tests_attribute("//div[@id='body']//p[1]"));
        assert!(!last_step_tests_attribute("//a[@href]/span"));
    }
}
