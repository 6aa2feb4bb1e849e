//! Locators relaxed when the page lost what they named. When a field's
//! XPath and every locator of its ensemble find nothing, a locator is asked
//! again without what a redesign takes away. An attribute locator loses:
//!
//! - the steps above the target (`//div[3]/center/input[@name='btnK']` is
//!   asked as `//input[@name='btnK']`): the layout around a button moved,
//!   its own attributes did not. The answer must be one shown element per
//!   scope (a hidden copy in a suggestion panel does not count when the
//!   target was shown) that looks wholly like the target, as a locator's
//!   answer must ([`MIN_LOCATOR_EVIDENCE`]);
//! - the tag (`//input[@name='q']` is asked as `//*[@name='q']`): a search
//!   box became a `textarea`. The element found must have kept
//!   [`MIN_KEPT`] of the target's attributes.
//!
//! Any locator but the text one loses:
//!
//! - the levels between a locator's anchor and its last step
//!   (`//h4[…='Overview']/following-sibling::div[1]/div/ul/li[strong[…]]` is
//!   asked as `//h4[…='Overview']/following-sibling::div[1]//li[strong[…]]`,
//!   then with `following-sibling::*[1]`): a wrap or an unwrap moved the
//!   levels, the heading that tells a details list from its copy in another
//!   tab did not. Where the anchor is a heading's following sibling, every
//!   form asks that the nearest heading before the answer is that heading
//!   (`[preceding::h4[1][…='Overview']]`): once the list is lifted out of
//!   its block, the first `div` after "Overview" is the next tab's. The
//!   block may then be gone altogether, and an element like the last step
//!   in the heading's section is asked for
//!   (`//li[strong[…]][preceding::h4[1][…='Overview']]`). The
//!   answer must be one shown element per scope with a locator answer's
//!   evidence.
//!
//! A field of the whole page whose stored text is a paragraph
//! (`witness::MIN_LONG_TEXT` characters or more) is found as the one
//! element of the page with that text as written, whatever its tag and
//! attributes: a lead paragraph retagged to a `div` has neither locators
//! that still hold (they end in `p[1]`) nor a text locator (its text is too
//! long to be one), and two sentences of a page recur word for word only as
//! a copy of the target, which makes it no answer (an element in a link
//! answers only for a target that was in one: a title recurs in a link to
//! its story).
//!
//! The text locator loses:
//!
//! - its tag (`//a[normalize-space(.)='Settings']` is
//!   asked as `//*[normalize-space(.)='Settings']`): a link became a `div`
//!   with other classes. Of nested elements with that text the innermost
//!   counts; the text must be telling (`signals::telling_stored_text`) and the
//!   one element with it on the page, shown.
//!
//! Locators are relaxed on their parsed steps (`xpath::path_syntax`), never
//! by cutting their text, so a `/` or a `]` inside a literal cannot cut a
//! step.
//!
//! It refuses a relaxed locator that finds several elements in a scope, and
//! a retagged element that kept less of the target's attributes: one `name`
//! or `id` alone is reused by unrelated elements, a whole set of them is
//! not.

use super::likeness::{Profile, kept_attributes};
use super::signals::{evidence, stored_profile, telling_stored_text};
use super::votes::MIN_LOCATOR_EVIDENCE;
use super::votes::selections;
use crate::dom::Document;
use crate::similarity::NoMask;
use crate::treegram::{LocatorKind, TreeGram};
use crate::xpath::path_syntax::{LocationPath, PathStep, Predicate, PredicateKind, Separator};
use crate::xpath::{Item, XPath};

/// The least share of the stored target's attributes a retagged element
/// must have kept.
pub(crate) const MIN_KEPT: f64 = 0.75;

/// The elements, one per scope at most, that a locator of `gram` finds
/// once relaxed (see the module doc), with the relaxed locator and
/// what was relaxed. `None` when no relaxed locator finds such elements.
pub(crate) fn relaxed_answer(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
) -> Option<(Vec<Vec<Item>>, String)> {
    let wanted = stored_profile(gram)?;
    let shown_only = gram.header.hidden == Some(false);
    let attribute_locators = gram
        .locators()
        .map(|(l, _)| l)
        .filter(|l| l.kind == LocatorKind::Attribute);
    for locator in attribute_locators {
        let own_step = own_step(&locator.xpath);
        if let Some(step) = own_step.as_deref().filter(|s| *s != locator.xpath)
            && let Some(found) = one_per_scope(doc, step, scopes, shown_only)
            && evidence(doc, gram, &found).is_some_and(|e| e >= MIN_LOCATOR_EVIDENCE)
        {
            return Some((
                found,
                format!(
                    "a locator relaxed finds it: its own step {step}, without the layout above it"
                ),
            ));
        }
        let Some(widened) = own_step.as_deref().and_then(any_tag) else {
            continue;
        };
        let Some(found) = one_per_scope(doc, &widened, scopes, shown_only) else {
            continue;
        };
        let kept = found.iter().flatten().all(|&item| match item {
            Item::Node(n) if doc.is_element(n) && doc.name(n) != wanted.tag() => {
                kept_attributes(&wanted, &Profile::of(doc, n, item, &NoMask)) >= MIN_KEPT
            }
            _ => false,
        });
        if kept {
            return Some((
                found,
                format!(
                    "a locator relaxed finds it: {widened} on any tag, retagged, with at least {:.0}% of the target's attributes kept",
                    100.0 * MIN_KEPT
                ),
            ));
        }
    }
    let anchored_locators = gram
        .locators()
        .map(|(l, _)| l)
        .filter(|l| l.kind != LocatorKind::Text);
    for locator in anchored_locators {
        for relaxed in under_anchor(&locator.xpath) {
            if let Some(found) = one_per_scope(doc, &relaxed, scopes, shown_only)
                && evidence(doc, gram, &found).is_some_and(|e| e >= MIN_LOCATOR_EVIDENCE)
            {
                return Some((
                    found,
                    format!(
                        "a locator relaxed finds it: {relaxed}, with the levels between its anchor and the target let go"
                    ),
                ));
            }
        }
    }
    if let Some(found) = long_text_anywhere(doc, gram, scopes, shown_only) {
        return Some((
            found,
            format!(
                "the one element of the page with the stored text as written ({} characters or more), whatever its tag",
                super::witness::MIN_LONG_TEXT
            ),
        ));
    }
    let text_locator = gram
        .locators()
        .map(|(l, _)| l)
        .find(|l| l.kind == LocatorKind::Text)?;
    let widened = any_tag(&text_locator.xpath)?;
    if !telling_stored_text(gram) {
        return None;
    }
    let compiled = XPath::compile(&widened).ok()?;
    let mut selected = selections(&compiled, doc, scopes);
    for items in &mut selected {
        innermost(doc, items);
    }
    let found = one_per_scope_of(doc, selected, shown_only)?;
    let retagged = found.iter().flatten().all(|&item| match item {
        Item::Node(n) => doc.is_element(n) && doc.name(n) != wanted.tag(),
        _ => false,
    });
    retagged.then(|| {
        (
            found,
            format!("a locator relaxed finds it: {widened}, retagged, the one element with the stored text"),
        )
    })
}

/// For a field of the whole page, the one element with the stored target's
/// long text as written (`witness::with_long_stored_text`), shown if the
/// target was.
fn long_text_anywhere(
    doc: &Document,
    gram: &TreeGram,
    scopes: &[Item],
    shown_only: bool,
) -> Option<Vec<Vec<Item>>> {
    if scopes != [Item::Node(doc.root())] {
        return None;
    }
    let found = super::witness::with_long_stored_text(doc, gram)?;
    one_per_scope_of(doc, vec![vec![found]], shown_only)
}

/// Leaves out of `items` every element that holds another of them: an
/// element and its only child share a text, and the child is the one that
/// holds it.
fn innermost(doc: &Document, items: &mut Vec<Item>) {
    let all = items.clone();
    items.retain(|&item| match item {
        Item::Node(n) => !all
            .iter()
            .any(|&other| matches!(other, Item::Node(o) if o != n && doc.is_ancestor(n, o))),
        _ => true,
    });
}

/// What `xpath` selects in each scope, hidden elements left out when
/// `shown_only`, when that is at most one node in every scope and one in
/// some.
fn one_per_scope(
    doc: &Document,
    xpath: &str,
    scopes: &[Item],
    shown_only: bool,
) -> Option<Vec<Vec<Item>>> {
    let compiled = XPath::compile(xpath).ok()?;
    one_per_scope_of(doc, selections(&compiled, doc, scopes), shown_only)
}

/// `selected`, hidden elements left out when `shown_only`, when that is at
/// most one node in every scope and one in some.
fn one_per_scope_of(
    doc: &Document,
    mut selected: Vec<Vec<Item>>,
    shown_only: bool,
) -> Option<Vec<Vec<Item>>> {
    if shown_only {
        for items in &mut selected {
            items.retain(|&item| match item {
                Item::Node(n) => !crate::dom::hidden::is_hidden(doc, n),
                _ => true,
            });
        }
    }
    let fits = selected.iter().all(|s| s.len() <= 1) && selected.iter().any(|s| !s.is_empty());
    fits.then_some(selected)
}

/// The last step of `xpath` on its own, from the same start (`//` or
/// `.//`), when it names an element and tests attributes only:
/// `input[@name='btnK']` of `//div[3]/center/input[@name='btnK']` is
/// `//input[@name='btnK']`.
fn own_step(xpath: &str) -> Option<String> {
    let path = LocationPath::parse(xpath)?;
    let start = path.steps[0].separator;
    let last = path.last();
    let named = last.is_element_test() && last.test != "*";
    (start.is_descendant() && named && last.tests_attributes_only()).then(|| {
        let step = PathStep {
            separator: start,
            ..last.clone()
        };
        LocationPath { steps: vec![step] }.to_string()
    })
}

/// `xpath` with the plain steps between its deepest anchor and its last
/// step replaced by one `//`: `//h4[normalize-space(.)='Overview']/following-sibling::div[1]/div/ul/li[strong[…]]`
/// is asked as `//h4[normalize-space(.)='Overview']/following-sibling::div[1]//li[strong[…]]`,
/// then, when the anchor has sibling steps, with their tags widened too
/// (`following-sibling::*[1]`: the block after a heading became a
/// `section`). When the anchor is a following sibling of a heading, each
/// form asks that the answer's nearest heading before it is that heading,
/// and a last form is an element like the last step in that heading's
/// section (`//li[strong[…]][preceding::h4[1][…]]`). An anchor is a step with a test other than a position, and
/// a sibling step after it belongs to it; the steps let go are a tag with a
/// position at most, which is what a wrap or an unwrap adds or takes away.
/// Empty when there is no anchor above the last step, or nothing to let go
/// under an anchor that follows no heading.
fn under_anchor(xpath: &str) -> Vec<String> {
    let Some(path) = LocationPath::parse(xpath) else {
        return Vec::new();
    };
    let start = path.steps[0].separator;
    let Some((last, above)) = path.steps.split_last() else {
        return Vec::new();
    };
    let anchor = above
        .iter()
        .rposition(|step| step.is_sibling() || !step.is_plain());
    let Some(anchor) = anchor.filter(|_| start != Separator::Relative) else {
        return Vec::new();
    };
    let section = heading_section(&path.steps[..=anchor]);
    let write = |widen: bool| {
        let mut steps: Vec<PathStep> = path.steps[..=anchor]
            .iter()
            .map(|step| {
                if widen && step.is_sibling() {
                    step.any_tag()
                } else {
                    step.clone()
                }
            })
            .collect();
        let mut target = PathStep {
            separator: Separator::Descendant,
            ..last.clone()
        };
        target.predicates.extend(section.clone());
        steps.push(target);
        LocationPath { steps }.to_string()
    };
    let mut out = Vec::new();
    if anchor + 1 < above.len() {
        out.push(write(false));
        let widened = write(true);
        if widened != out[0] {
            out.push(widened);
        }
    }
    // The block after the anchor may be gone altogether (an unwrap lifted
    // the list to the heading's level): what the heading introduces is then
    // an element like the last step in the heading's section.
    if let Some(section) = section {
        let separator = match start {
            Separator::Context | Separator::ContextDescendant => Separator::ContextDescendant,
            _ => Separator::RootDescendant,
        };
        let mut alone = PathStep {
            separator,
            ..last.clone()
        };
        alone.predicates.push(section);
        out.push(LocationPath { steps: vec![alone] }.to_string());
    }
    out
}

/// Where the last of `steps` (an anchor) is a following sibling of a
/// heading, what the heading introduces comes before the next heading of
/// its tag: the first `div` after "Overview" is the next tab's once the
/// Overview list was lifted out of its block. The predicate that asks
/// that the nearest heading before a node is that heading
/// (`[preceding::h4[1][…='Overview']]`); `None` when the anchor is no
/// following sibling, or the heading is not a named element with tests.
fn heading_section(steps: &[PathStep]) -> Option<Predicate> {
    let anchor = steps.len() - 1;
    let first_sibling = steps
        .iter()
        .rposition(|step| step.axis.as_deref() != Some("following-sibling"))
        .map_or(0, |i| i + 1);
    // The heading is the step just before the run of sibling steps that
    // ends at the anchor; there is none when the anchor is no sibling step.
    if first_sibling > anchor {
        return None;
    }
    let heading = &steps[first_sibling.checked_sub(1)?];
    let named = heading.is_element_test() && !heading.predicates.is_empty();
    named.then(|| {
        let tests: String = heading
            .predicates
            .iter()
            .map(|p| format!("[{}]", p.source))
            .collect();
        Predicate {
            source: format!("preceding::{}[1]{tests}", heading.test),
            kind: PredicateKind::Other,
            reads_attribute: heading.predicates.iter().any(|p| p.reads_attribute),
        }
    })
}

/// A one-step locator `//tag[…]` with its tag widened to `*`.
fn any_tag(xpath: &str) -> Option<String> {
    let path = LocationPath::parse(xpath)?;
    let [step] = path.steps.as_slice() else {
        return None;
    };
    let one =
        step.separator.is_descendant() && step.is_element_test() && !step.predicates.is_empty();
    one.then(|| {
        LocationPath {
            steps: vec![step.any_tag()],
        }
        .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(xpath: &str, step: Option<&str>, widened: Option<&str>) {
        let own = own_step(xpath);
        assert_eq!(own.as_deref(), step, "{xpath}");
        assert_eq!(
            own.as_deref().and_then(any_tag).as_deref(),
            widened,
            "{xpath}"
        );
    }

    #[test]
    fn the_plain_steps_under_a_locators_anchor_are_let_go() {
        let check = |xpath: &str, expected: &[&str]| {
            assert_eq!(under_anchor(xpath), expected, "{xpath}");
        };
        check(
            "//h4[normalize-space(.)='Overview']/following-sibling::div[1]/div/ul/li[strong[normalize-space(.)='Publisher']]",
            &[
                "//h4[normalize-space(.)='Overview']/following-sibling::div[1]//li[strong[normalize-space(.)='Publisher']][preceding::h4[1][normalize-space(.)='Overview']]",
                "//h4[normalize-space(.)='Overview']/following-sibling::*[1]//li[strong[normalize-space(.)='Publisher']][preceding::h4[1][normalize-space(.)='Overview']]",
                "//li[strong[normalize-space(.)='Publisher']][preceding::h4[1][normalize-space(.)='Overview']]",
            ],
        );
        check(
            "//div[@id='main']/div[2]/section/span[@class='x']",
            &["//div[@id='main']//span[@class='x']"],
        );
        check(".//td[b='A/B']/div/a", &[".//td[b='A/B']//a"]);
        // The block after a heading may be gone: an element like the
        // target whose nearest heading before it is the anchor.
        check(
            "//h4[.='Overview']/following-sibling::div[1]/ul/li[strong='Date']",
            &[
                "//h4[.='Overview']/following-sibling::div[1]//li[strong='Date'][preceding::h4[1][.='Overview']]",
                "//h4[.='Overview']/following-sibling::*[1]//li[strong='Date'][preceding::h4[1][.='Overview']]",
                "//li[strong='Date'][preceding::h4[1][.='Overview']]",
            ],
        );
        check(
            "//h4[.='Overview']/following-sibling::ul[1]/li[strong='Date']",
            &["//li[strong='Date'][preceding::h4[1][.='Overview']]"],
        );
        check(
            "//h4[.='Overview']/preceding-sibling::ul[1]/li[strong='Date']",
            &[],
        );
        // Nothing between the anchor and the target, or no anchor at all.
        check("//div[@id='main']/span", &[]);
        check("//div[@id='main']//span", &[]);
        check("/html/body/div[2]/ul/li[3]", &[]);
        check("//a[@id='x'] | //b", &[]);
        check("(//a)[2]", &[]);
    }

    #[test]
    fn a_locator_is_relaxed_to_its_own_step_of_attribute_tests() {
        check(
            "//input[@name='q']",
            Some("//input[@name='q']"),
            Some("//*[@name='q']"),
        );
        check(
            ".//span[@itemprop='price']",
            Some(".//span[@itemprop='price']"),
            Some(".//*[@itemprop='price']"),
        );
        check(
            "//div[3]/center/input[@name='btnK']",
            Some("//input[@name='btnK']"),
            Some("//*[@name='btnK']"),
        );
        check(
            "//input[@name='q'][@type='text']",
            Some("//input[@name='q'][@type='text']"),
            Some("//*[@name='q'][@type='text']"),
        );
        // A literal with `][` in it is one predicate: the step is read by
        // the XPath tokenizer, not by cutting its text at brackets.
        check(
            "//form/input[@value='a][b']",
            Some("//input[@value='a][b']"),
            Some("//*[@value='a][b']"),
        );
        check("//a[@id='x']/@href", None, None);
        check("//ul[@id='x']/li[1]", None, None);
        check("//*[@name='q']", None, None);
        check("/html/body/input[@name='q']", None, None);
    }
}
