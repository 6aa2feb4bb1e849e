//! Locator ensembles: besides the pattern's own XPath, a tree-gram keeps a few
//! other XPaths that selected exactly the captured nodes on the capture page,
//! each leaning on a different kind of evidence (an id or descriptive
//! attribute, a class token, a label, a position under a landmark). On a
//! later page they vote: when they agree with the pattern's XPath the
//! selection is confirmed cheaply; when most of them agree on other nodes,
//! the XPath has drifted onto the wrong element; when the XPath matches
//! nothing, their common answer is the first candidate of a heal.
//!
//! The locators come from mend's own generator (`xpath::generate`), which
//! verifies every expression it returns; one of each kind is kept, the most
//! robust first, and never the pattern's XPath itself. The module is pure and
//! bounded: one generation per pattern, within the generator's budget.
//!
//! ## What it refuses
//!
//! A pattern that matched nothing gets no locators, and a failed generation
//! gives none of the generator's. No locator is a union, the pattern's own
//! XPath or the generator's positional fallback, and none tests what the mask
//! marks unstable or an attribute or class value that looks generated. A
//! [`LocatorKind::Text`] locator needs a pattern that matched one element in
//! all, with a text of at most [`MAX_OWN_TEXT`] characters, a letter and
//! nothing unstable in it; it takes a rank only from the document node, among
//! at most [`MAX_TEXT_TWINS`] twins, none with the target's very attributes.

use std::fmt;
use std::sync::Arc;

use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::Mask;
use crate::xpath::generate::{
    GenerateOptions, Instance, Selections, generate_for_instances, looks_generated,
};
use crate::xpath::{Item, XPath};

/// How many locators a tree-gram keeps per pattern, at most: one per kind.
pub const MAX_LOCATORS: usize = 5;

/// One alternative locator of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locator {
    /// What evidence it leans on.
    pub kind: LocatorKind,
    /// The expression, relative to the parent pattern's instance like the
    /// pattern's own XPath.
    pub xpath: String,
}

/// The kind of evidence a locator leans on, in the order of preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LocatorKind {
    /// An id, or an attribute made for locating or describing (`name`,
    /// `itemprop`, `data-testid`, `aria-label`, ...).
    Attribute,
    /// A class token.
    Class,
    /// A label's text: `li[b='ISBN-13:']`, `dt[.='Price']/following-sibling::dd[1]`.
    Label,
    /// Tags and positions, possibly under an anchored ancestor.
    Position,
    /// The target's own text, as captured: `//span[normalize-space(.)='Leadership']`.
    /// It finds the data itself where it moved on the same page, and selects
    /// nothing on a page with other data, where it does not vote. It never
    /// replaces a pattern's XPath (`snapshot --harden` passes it over).
    Text,
}

impl LocatorKind {
    /// The kind's name, as a tree-gram file writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            LocatorKind::Attribute => "attribute",
            LocatorKind::Class => "class",
            LocatorKind::Label => "label",
            LocatorKind::Position => "position",
            LocatorKind::Text => "text",
        }
    }

    /// Reads a kind's name.
    pub fn parse(s: &str) -> Option<LocatorKind> {
        Some(match s.trim() {
            "attribute" => LocatorKind::Attribute,
            "class" => LocatorKind::Class,
            "label" => LocatorKind::Label,
            "position" => LocatorKind::Position,
            "text" => LocatorKind::Text,
            _ => return None,
        })
    }

    /// The kind of evidence `xpath` leans on most: a label's text before an
    /// attribute, an attribute before a class token.
    pub fn of(xpath: &str) -> LocatorKind {
        if xpath.contains("normalize-space(.)=")
            || xpath.contains("starts-with(normalize-space(.)")
            || xpath.contains("following-sibling::")
        {
            LocatorKind::Label
        } else if has_attribute_test(xpath) {
            LocatorKind::Attribute
        } else if xpath.contains("@class") {
            LocatorKind::Class
        } else {
            LocatorKind::Position
        }
    }
}

impl fmt::Display for LocatorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The locators of a pattern whose XPath is `own` and which selected
/// `per_context` (each parent instance with its matches) on `doc`: up to
/// [`MAX_LOCATORS`], one per kind, each verified exact from every instance,
/// none equal to `own`.
///
/// The generator's choice and its alternatives come first; then, for the
/// kinds still missing, simple expressions on the first target's own
/// element (a stable attribute, a stable class token, its path of tags and
/// positions from the parent instance), each kept only if it is exact.
///
/// No locator tests what `unstable` marks: a locator by a date's text
/// selects the target on the capture page and nothing on the next load.
pub fn ensemble(
    doc: &Document,
    own: &str,
    per_context: &[(Item, Vec<Item>)],
    unstable: &dyn Mask,
) -> Vec<Locator> {
    ensemble_sharing(doc, own, per_context, unstable, None)
}

/// [`ensemble`], with the generator's searches sharing `selections`, the
/// answers of candidates evaluated on `doc` for other patterns: the same
/// locators, found sooner when many patterns are captured on one page.
pub(crate) fn ensemble_sharing(
    doc: &Document,
    own: &str,
    per_context: &[(Item, Vec<Item>)],
    unstable: &dyn Mask,
    selections: Option<&Arc<Selections>>,
) -> Vec<Locator> {
    if per_context.iter().all(|(_, t)| t.is_empty()) {
        return Vec::new();
    }
    let mut out = generated(doc, own, per_context, unstable, selections);
    for xpath in simple_candidates(doc, per_context, unstable) {
        if out.len() == MAX_LOCATORS - 1 {
            break;
        }
        let kind = LocatorKind::of(&xpath);
        if xpath == own || out.iter().any(|l| l.kind == kind || l.xpath == xpath) {
            continue;
        }
        if exact(doc, &xpath, per_context) {
            out.push(Locator { kind, xpath });
        }
    }
    if let Some(xpath) =
        own_text(doc, per_context, unstable).and_then(|x| exact_or_nth_match(doc, x, per_context))
    {
        out.push(Locator {
            kind: LocatorKind::Text,
            xpath,
        });
    }
    out.sort_by_key(|l| l.kind);
    out
}

/// The longest own text a [`LocatorKind::Text`] locator compares, in
/// characters: a name or a title, not a paragraph.
const MAX_OWN_TEXT: usize = 80;

/// A locator by the target's own text, for a pattern that matched one
/// element in all: its tag and its whole text, spaces normalized.
fn own_text(
    doc: &Document,
    per_context: &[(Item, Vec<Item>)],
    unstable: &dyn Mask,
) -> Option<String> {
    let mut all = per_context.iter().flat_map(|(_, t)| t.iter());
    let (Some(&Item::Node(n)), None) = (all.next(), all.next()) else {
        return None;
    };
    if !doc.is_element(n) || has_unstable_text(doc, n, unstable) {
        return None;
    }
    let text = Item::Node(n)
        .string_value(doc)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if text.is_empty()
        || text.chars().count() > MAX_OWN_TEXT
        || !text.chars().any(char::is_alphabetic)
    {
        return None;
    }
    Some(format!(
        "//{}[normalize-space(.)={}]",
        doc.name(n),
        quote(&text)?
    ))
}

/// The most elements with the target's own text among which a text
/// locator picks the target by its rank.
const MAX_TEXT_TWINS: usize = 3;

/// `text_locator` when it is exact; otherwise, for a pattern of the whole
/// document whose text a few other elements share (a "Gmail" link in the
/// header and another in the apps menu), the target's rank among them,
/// `(//a[normalize-space(.)='Gmail'])[1]`: where the page's classes and
/// structure were redesigned, the text and its order are what is left. Not
/// when another of them has the target's very attributes: order alone
/// tells such copies apart.
fn exact_or_nth_match(
    doc: &Document,
    text_locator: String,
    per_context: &[(Item, Vec<Item>)],
) -> Option<String> {
    if exact(doc, &text_locator, per_context) {
        return Some(text_locator);
    }
    let [(context, targets)] = per_context else {
        return None;
    };
    let (&[target], true) = (targets.as_slice(), *context == Item::Node(doc.root())) else {
        return None;
    };
    let matches = XPath::compile(&text_locator)
        .ok()?
        .select_item(doc, *context)
        .ok()?;
    if matches.len() > MAX_TEXT_TWINS {
        return None;
    }
    // Copies of the target alike in their attributes too (a details list
    // printed twice, once in a hidden tab) are told apart by their order
    // alone, and a move swaps them.
    let attributes = |item: Item| -> Option<Vec<(String, String)>> {
        let Item::Node(n) = item else {
            return None;
        };
        let mut all: Vec<(String, String)> = doc
            .attrs(n)
            .iter()
            .map(|a| (doc.attr_name(a).to_owned(), doc.attr_value(a).to_owned()))
            .collect();
        all.sort();
        Some(all)
    };
    let own = attributes(target)?;
    if matches
        .iter()
        .any(|&m| m != target && attributes(m).as_ref() == Some(&own))
    {
        return None;
    }
    let rank = matches.iter().position(|&m| m == target)? + 1;
    let xpath = format!("({text_locator})[{rank}]");
    exact(doc, &xpath, per_context).then_some(xpath)
}

/// Whether a text of the sub-tree of `element` is unstable, or the
/// sub-tree itself is.
fn has_unstable_text(doc: &Document, element: NodeId, unstable: &dyn Mask) -> bool {
    let end = doc.subtree_end(element);
    (element.0..end.0).map(NodeId).any(|n| match doc.kind(n) {
        NodeKind::Text => unstable.masks_text(doc, n),
        NodeKind::Element => unstable.skips(doc, n),
        _ => false,
    })
}

/// The generator's locators, one per kind.
fn generated(
    doc: &Document,
    own: &str,
    per_context: &[(Item, Vec<Item>)],
    unstable: &dyn Mask,
    selections: Option<&Arc<Selections>>,
) -> Vec<Locator> {
    let instances: Vec<Instance> = per_context
        .iter()
        .map(|(context, targets)| Instance {
            context: *context,
            targets: targets.clone(),
        })
        .collect();
    let options = GenerateOptions {
        max_alternatives: 16,
        unstable: super::unstable_parts(doc, unstable),
        selections: selections.cloned(),
        ..GenerateOptions::default()
    };
    let Ok(generated) = generate_for_instances(doc, &instances, &options) else {
        return Vec::new();
    };
    let mut out: Vec<Locator> = Vec::new();
    let candidates = std::iter::once(generated.xpath.as_str())
        .filter(|_| !generated.fallback)
        .chain(generated.alternatives.iter().map(String::as_str));
    for xpath in candidates {
        if xpath == own || xpath.contains(" | ") {
            continue;
        }
        let kind = LocatorKind::of(xpath);
        if out.iter().any(|l| l.kind == kind) {
            continue;
        }
        out.push(Locator {
            kind,
            xpath: xpath.to_owned(),
        });
        if out.len() == MAX_LOCATORS {
            break;
        }
    }
    out
}

/// Whether `xpath` selects exactly the nodes of `per_context`, from each context.
pub(super) fn exact(doc: &Document, xpath: &str, per_context: &[(Item, Vec<Item>)]) -> bool {
    let Ok(compiled) = XPath::compile(xpath) else {
        return false;
    };
    per_context.iter().all(|(context, targets)| {
        let mut want = targets.clone();
        want.sort_unstable();
        want.dedup();
        compiled
            .select_item(doc, *context)
            .is_ok_and(|got| got == want)
    })
}

/// Attributes that say what an element is for, in the order they are tried.
const DESCRIPTIVE: [&str; 10] = [
    "id",
    "data-testid",
    "name",
    "itemprop",
    "aria-label",
    "role",
    "title",
    "type",
    "rel",
    "for",
];

/// Simple expressions for the first target's element: by a descriptive
/// attribute, by each stable class token, and by its path of tags and
/// positions from its context, each with the step that leads to the target
/// (`/@href`, `/text()[k]`).
fn simple_candidates(
    doc: &Document,
    per_context: &[(Item, Vec<Item>)],
    unstable: &dyn Mask,
) -> Vec<String> {
    let Some((context, first)) = per_context
        .iter()
        .find_map(|(c, t)| t.first().map(|f| (*c, *f)))
    else {
        return Vec::new();
    };
    let (owner, suffix) = match first {
        Item::Node(n) if doc.is_element(n) => (n, String::new()),
        Item::Node(n) if doc.kind(n) == NodeKind::Text => {
            let Some(parent) = doc.parent(n).filter(|&p| doc.is_element(p)) else {
                return Vec::new();
            };
            let k = doc
                .children(parent)
                .filter(|&c| doc.kind(c) == NodeKind::Text)
                .position(|c| c == n)
                .map_or(1, |i| i + 1);
            (parent, format!("/text()[{k}]"))
        }
        Item::Attr { element, index } => (
            element,
            format!("/@{}", doc.attr_name(doc.attr_at(index as usize))),
        ),
        _ => return Vec::new(),
    };
    let start = if context == Item::Node(NodeId::ROOT) {
        "//"
    } else {
        ".//"
    };
    let tag = doc.name(owner);
    let mut out = Vec::new();
    for name in DESCRIPTIVE {
        if let Some(value) = doc.attr(owner, name)
            && let Some(quoted) = quote(value)
            && !value.trim().is_empty()
            && value.len() <= 80
            && !looks_generated(value)
            && !unstable.masks_attr(doc, owner, name)
        {
            out.push(format!("{start}{tag}[@{name}={quoted}]{suffix}"));
        }
    }
    for token in doc
        .attr(owner, "class")
        .filter(|_| !unstable.masks_attr(doc, owner, "class"))
        .unwrap_or_default()
        .split_ascii_whitespace()
    {
        if looks_generated(token) || token.contains(['\'', '"']) {
            continue;
        }
        out.push(format!(
            "{start}{tag}[contains(concat(' ', normalize-space(@class), ' '), ' {token} ')]{suffix}"
        ));
    }
    let path = doc.path(owner);
    match context {
        Item::Node(NodeId::ROOT) => out.push(format!("{path}{suffix}")),
        Item::Node(c) if doc.is_element(c) => {
            let base = doc.path(c);
            if let Some(rest) = path.strip_prefix(&base).filter(|r| r.starts_with('/')) {
                out.push(format!(".{rest}{suffix}"));
            }
        }
        _ => {}
    }
    out
}

/// `value` as an XPath string literal, when it can be written as one.
fn quote(value: &str) -> Option<String> {
    if !value.contains('\'') {
        Some(format!("'{value}'"))
    } else if !value.contains('"') {
        Some(format!("\"{value}\""))
    } else {
        None
    }
}

/// Whether `xpath` tests an attribute other than `class`.
fn has_attribute_test(xpath: &str) -> bool {
    xpath.match_indices('@').any(|(i, _)| {
        let rest = &xpath[i + 1..];
        !rest.starts_with("class") && rest.starts_with(|c: char| c.is_ascii_alphabetic())
    }) && !ends_in_attribute_step(xpath)
}

/// Whether the only attribute the expression names is its final `/@name`
/// step (what it selects, not what it tests).
fn ends_in_attribute_step(xpath: &str) -> bool {
    let tests = xpath.matches('@').count();
    tests == 1 && xpath.rfind("/@").is_some_and(|i| !xpath[i..].contains(']'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::NoMask;
    use crate::xpath::XPath;

    fn check_kind(xpath: &str, expected: LocatorKind) {
        assert_eq!(LocatorKind::of(xpath), expected, "{xpath}");
    }

    #[test]
    fn kinds_follow_the_evidence() {
        check_kind("//h1[@itemprop='name']", LocatorKind::Attribute);
        check_kind("//div[@id='main']//span", LocatorKind::Attribute);
        check_kind(
            "//p[contains(concat(' ', normalize-space(@class), ' '), ' price ')]",
            LocatorKind::Class,
        );
        check_kind("//li[b[normalize-space(.)='ISBN-13:']]", LocatorKind::Label);
        check_kind("//aside/p", LocatorKind::Position);
        check_kind("//aside/a/@href", LocatorKind::Position);
        check_kind("//a[@rel='next']/@href", LocatorKind::Attribute);
    }

    #[test]
    fn every_locator_selects_exactly_the_captured_nodes() {
        let doc = Document::parse_str(
            "<main id='m'><ul class='details'><li><b>Author:</b> <span class='author'>Ann</span></li>\
             <li><b>ISBN-13:</b> <span class='isbn'>978</span></li></ul>\
             <aside><p class='promo'>x</p></aside></main>",
        );
        let own = "/html/body/main/ul/li[2]/span";
        let targets = XPath::compile(own)
            .unwrap()
            .select_item(&doc, Item::Node(NodeId::ROOT))
            .unwrap();
        let locators = ensemble(
            &doc,
            own,
            &[(Item::Node(NodeId::ROOT), targets.clone())],
            &NoMask,
        );
        assert!(locators.len() >= 2, "{locators:?}");
        let kinds: Vec<LocatorKind> = locators.iter().map(|l| l.kind).collect();
        let mut distinct = kinds.clone();
        distinct.dedup();
        assert_eq!(kinds, distinct, "one locator per kind");
        for l in &locators {
            assert_ne!(l.xpath, own);
            let got = XPath::compile(&l.xpath)
                .unwrap()
                .select_item(&doc, Item::Node(NodeId::ROOT))
                .unwrap();
            assert_eq!(got, targets, "{}", l.xpath);
        }
    }

    fn text_locator(html: &str, own: &str) -> Option<String> {
        let doc = Document::parse_str(html);
        let targets = XPath::compile(own)
            .unwrap()
            .select_item(&doc, Item::Node(NodeId::ROOT))
            .unwrap();
        ensemble(&doc, own, &[(Item::Node(NodeId::ROOT), targets)], &NoMask)
            .into_iter()
            .find(|l| l.kind == LocatorKind::Text)
            .map(|l| l.xpath)
    }

    /// Regression: google.com's "Gmail" link has a twin in the apps menu,
    /// so no text locator was kept, and after the redesign (every class
    /// renamed, the structure another) nothing was left to find the link
    /// by. Its rank among the links with its text is kept instead.
    #[test]
    fn a_text_shared_with_an_unlike_element_is_kept_with_the_targets_rank() {
        let page = "<div class='bar'><a class='gb_P' href='/mail'>Gmail</a></div>             <ul class='apps'><li><a class='app' href='/mail?apps'>Gmail</a></li></ul>";
        assert_eq!(
            text_locator(page, "/html/body/div/a").as_deref(),
            Some("(//a[normalize-space(.)='Gmail'])[1]")
        );
        assert_eq!(
            text_locator(page, "/html/body/ul/li/a").as_deref(),
            Some("(//a[normalize-space(.)='Gmail'])[2]")
        );
    }

    /// A details list printed twice (once in a hidden tab): the copies are
    /// alike in their attributes too, their order alone tells them apart,
    /// and a move swaps it. No text locator is kept.
    #[test]
    fn a_text_shared_with_an_exact_copy_gives_no_text_locator() {
        let page = "<ul><li><strong>Date</strong>: June 2010</li></ul>             <div class='tab'><ul><li><strong>Date</strong>: June 2010</li></ul></div>";
        assert_eq!(text_locator(page, "/html/body/ul/li"), None);
    }

    #[test]
    fn nothing_matched_gives_no_locators() {
        let doc = Document::parse_str("<p>x</p>");
        assert!(
            ensemble(
                &doc,
                "//q",
                &[(Item::Node(NodeId::ROOT), Vec::new())],
                &NoMask
            )
            .is_empty()
        );
    }

    #[test]
    fn sharing_selections_between_patterns_finds_the_same_locators() {
        // A table of rows with classes and texts: every field's search
        // tries the same whole-table candidates.
        let rows: String = (0..60)
            .map(|i| {
                format!(
                    "<tr class='r{i}'><td class='c{}'>value {i}</td></tr>",
                    i % 7
                )
            })
            .collect();
        let doc = Document::parse_str(&format!("<table id='t'>{rows}</table>"));
        let shared = Arc::new(Selections::new(&doc));
        for i in [0, 1, 17, 59] {
            let own = format!("//tr[@class='r{i}']/td");
            let targets = XPath::compile(&own)
                .unwrap()
                .select_item(&doc, Item::Node(NodeId::ROOT))
                .unwrap();
            let per_context = [(Item::Node(NodeId::ROOT), targets)];
            let alone = ensemble(&doc, &own, &per_context, &NoMask);
            let sharing = ensemble_sharing(&doc, &own, &per_context, &NoMask, Some(&shared));
            assert!(!alone.is_empty(), "{own}");
            assert_eq!(sharing, alone, "{own}");
        }
        assert!(!shared.is_empty(), "the searches kept nothing");
        // A cache made for another document answers nothing from memory.
        let other = Document::parse_str("<table><tr class='r0'><td>other</td></tr></table>");
        let foreign = Arc::new(Selections::new(&other));
        let targets = XPath::compile("//tr[@class='r1']/td")
            .unwrap()
            .select_item(&doc, Item::Node(NodeId::ROOT))
            .unwrap();
        let per_context = [(Item::Node(NodeId::ROOT), targets)];
        assert_eq!(
            ensemble_sharing(
                &doc,
                "//tr[@class='r1']/td",
                &per_context,
                &NoMask,
                Some(&foreign)
            ),
            ensemble(&doc, "//tr[@class='r1']/td", &per_context, &NoMask)
        );
        assert!(
            foreign.is_empty(),
            "a cache kept answers about another document"
        );
    }
}
