//! What makes a value worth putting in a locator: generated-value detection,
//! the attribute allowlist with its costs, state classes, short labels and
//! XPath names.
//!
//! Everything here is a judgement about what survives a site's next deploy.
//! The judgements are deliberately conservative: a value wrongly called
//! generated only makes a locator a little less pretty, while a generated
//! value wrongly trusted breaks the locator on the next build.
//!
//! ## What it refuses
//!
//! An attribute off the allowlist (content such as `href` or `src`, styling,
//! event handlers, state, framework `data-*` bookkeeping) is never tested by
//! value. No value is used that is blank, over 100 bytes, holds a control
//! character, starts like a serialised object or looks generated, nor a class
//! token that names a state (`active`, `is-open`). A label has at most 40
//! characters and six words, a letter and few digits, and comes from no
//! sub-tree over [`MAX_LABEL_SUBTREE`] nodes; a name that is not an NCName
//! (`xlink:href`, `@click`) is refused.

use super::super::lexer::{is_name_char, is_name_start, is_xml_space};
use super::super::strings::normalize_space;
use crate::dom::{Document, NodeId, NodeKind};

/// The cost of an `@id` test whose value looks hand-written.
pub(super) const COST_ID: u32 = 10;
/// The cost of an attribute that exists to be located (`data-testid` and kin).
pub(super) const COST_TEST_HOOK: u32 = 12;
/// The cost of the attributes the issue ranks second: `name`, `itemprop`,
/// `aria-label` and `data-*`.
pub(super) const COST_SEMANTIC_ATTR: u32 = 20;
/// The cost of other descriptive attributes (`title`, `alt`, `role`, …) and of
/// a bare presence test such as `[@data-sku]`.
pub(super) const COST_OTHER_ATTR: u32 = 25;
/// The cost of one class token.
pub(super) const COST_CLASS: u32 = 30;
/// The cost of a test that the node has no class, where same-name siblings
/// have one: a negative test breaks when a class is added, so it costs more
/// than a class token.
pub(super) const COST_NO_CLASS: u32 = 40;
/// The cost of a label anchor: a sibling, child or own-text prefix label.
pub(super) const COST_LABEL: u32 = 45;
/// The cost of a positional predicate, the last resort.
pub(super) const COST_POSITION: u32 = 100;
/// The cost of every location step above the target's own.
pub(super) const COST_LEVEL: u32 = 35;
/// The cost of anchoring the path at the context with `./` instead of `.//`.
pub(super) const COST_CHILD_START: u32 = 5;
/// The cost of a `//` jump to an ancestor anchor, on top of the anchor's own
/// predicate.
pub(super) const COST_ANCHOR: u32 = 15;
/// What an ancestor anchor in the site's template (a landmark of the layout
/// every page shares: its menu, its content column) costs less: the same
/// on every page of the site, it is what a later page keeps. A landmark's
/// class then costs what a semantic attribute costs.
pub(super) const LANDMARK_DISCOUNT: u32 = 10;

/// The longest attribute value or label worth writing into a locator: longer
/// values are content, not identifiers.
const MAX_VALUE_LEN: usize = 100;
/// The longest label text, in characters.
const MAX_LABEL_CHARS: usize = 40;
/// The most words a label may have.
const MAX_LABEL_WORDS: usize = 6;
/// The largest sub-tree whose text is read as a possible label, so that a
/// label search never reads a whole page.
pub(super) const MAX_LABEL_SUBTREE: usize = 32;

/// Whether a value (an id, a class token, an attribute value) looks
/// machine-generated, and so likely to change with the next build or the next
/// page load: content hashes, long digit runs, UUIDs, CSS-module and CSS-in-JS
/// suffixes (`price__3xK9a`, `css-1x2y3z`, `sc-bdfBwQ`), framework ids
/// (`ember123`, `react-select-2-input`, React's `:r1:`) and template leftovers.
///
/// ```
/// use mend::xpath::generate::looks_generated;
/// assert!(looks_generated("price__3xK9a"));
/// assert!(looks_generated("ember123"));
/// assert!(!looks_generated("product-title"));
/// assert!(!looks_generated("col-md-6"));
/// ```
pub fn looks_generated(value: &str) -> bool {
    let v = value.trim_matches(is_xml_space);
    if v.is_empty() {
        return false;
    }
    // Record ids, timestamps and counters: three digits in a row are almost
    // never part of a hand-written name, and a value of digits alone is a key.
    if v.chars().all(|c| c.is_ascii_digit()) || longest_digit_run(v) >= 3 {
        return true;
    }
    // Template placeholders that were never filled in, and React's `useId`
    // values (`:r1:`), change whenever the page is rendered differently.
    if v.contains("{{") || v.contains("${") || (v.len() > 2 && v.starts_with(':')) {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    if framework_generated(&lower) {
        return true;
    }
    v.split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
        .any(hash_like_segment)
}

/// Prefixes that frameworks put in front of counters or hashes. Each is
/// generated only when what follows it carries the counter, so that
/// library class names such as `react-tabs__tab` stay usable.
fn framework_generated(lower: &str) -> bool {
    const COUNTED: [&str; 9] = [
        "ember",
        "react-",
        "mui-",
        "radix-",
        "headlessui-",
        "ui-id-",
        "ext-gen",
        "gwt-uid",
        "jquery",
    ];
    for prefix in COUNTED {
        if let Some(rest) = lower.strip_prefix(prefix)
            && rest.chars().any(|c| c.is_ascii_digit())
        {
            return true;
        }
    }
    // These are always added by a framework at run time, whatever follows.
    const ALWAYS: [&str; 5] = ["yui_", "yui-", "ng-tns-", "ng-star-inserted", "sc-"];
    ALWAYS.iter().any(|p| lower.starts_with(p))
}

fn longest_digit_run(s: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for c in s.chars() {
        if c.is_ascii_digit() {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// Whether one alphanumeric segment of a value reads like a hash rather than
/// a word: letters and digits interleaved (`3xK9a`), hexadecimal with both
/// digits and letters (`7ba5bd90`), case flipping inside a short word
/// (`bdfBwQ`), or simply too long to be a word.
fn hash_like_segment(seg: &str) -> bool {
    let len = seg.chars().count();
    let has_digit = seg.chars().any(|c| c.is_ascii_digit());
    let has_alpha = seg.chars().any(|c| c.is_alphabetic());
    let mixed_case = seg.chars().any(|c| c.is_uppercase()) && seg.chars().any(|c| c.is_lowercase());
    let mut kind_changes = 0;
    let mut case_changes = 0;
    let mut prev: Option<char> = None;
    for c in seg.chars() {
        if let Some(p) = prev {
            if p.is_ascii_digit() != c.is_ascii_digit() {
                kind_changes += 1;
            }
            if p.is_alphabetic() && c.is_alphabetic() && p.is_uppercase() != c.is_uppercase() {
                case_changes += 1;
            }
        }
        prev = Some(c);
    }
    if len >= 5
        && has_digit
        && has_alpha
        && (kind_changes >= 3 || (kind_changes >= 2 && mixed_case))
    {
        return true;
    }
    if len >= 6 && has_digit && has_alpha && seg.chars().all(|c| c.is_ascii_hexdigit()) {
        return true;
    }
    if (5..=10).contains(&len) && !has_digit && case_changes >= 3 {
        return true;
    }
    (len >= 16 && has_digit) || len >= 24
}

/// Whether a class token describes a passing state (or a position) rather
/// than what the element is: such tokens differ between loads and between the
/// members of a record set.
pub(super) fn is_state_class(token: &str) -> bool {
    const STATES: [&str; 28] = [
        "active",
        "selected",
        "current",
        "open",
        "opened",
        "closed",
        "hidden",
        "show",
        "shown",
        "visible",
        "invisible",
        "disabled",
        "enabled",
        "focus",
        "focused",
        "hover",
        "collapsed",
        "expanded",
        "checked",
        "loading",
        "loaded",
        "in",
        "fade",
        "odd",
        "even",
        "first",
        "last",
        "clearfix",
    ];
    let lower = token.to_ascii_lowercase();
    STATES.contains(&lower.as_str()) || ["is-", "has-", "ng-"].iter().any(|p| lower.starts_with(p))
}

/// The cost of testing an attribute by value, or `None` when the attribute
/// should never be used: content (`href`, `src`, `value`, `content`), styling,
/// event handlers, state (`aria-expanded`, `checked`), and the `data-*`
/// attributes that frameworks stamp on every element. `id` and `class` have
/// their own rules and are not handled here.
pub(super) fn attribute_cost(name: &str) -> Option<u32> {
    const TEST_HOOKS: [&str; 7] = [
        "data-testid",
        "data-test-id",
        "data-test",
        "data-qa",
        "data-cy",
        "data-automation-id",
        "data-e2e",
    ];
    const SEMANTIC: [&str; 3] = ["name", "itemprop", "aria-label"];
    const OTHER: [&str; 14] = [
        "title",
        "alt",
        "role",
        "type",
        "for",
        "rel",
        "property",
        "itemtype",
        "placeholder",
        "headers",
        "scope",
        "label",
        "summary",
        "aria-labelledby",
    ];
    if TEST_HOOKS.contains(&name) {
        return Some(COST_TEST_HOOK);
    }
    if SEMANTIC.contains(&name) {
        return Some(COST_SEMANTIC_ATTR);
    }
    if OTHER.contains(&name) {
        return Some(COST_OTHER_ATTR);
    }
    if name.starts_with("data-") && usable_data_attribute(name) {
        return Some(COST_SEMANTIC_ATTR);
    }
    None
}

/// Whether a `data-*` attribute may be tested for presence alone, as the
/// members of a record set often share `data-product-id` with different values.
pub(super) fn presence_worthy(name: &str) -> bool {
    name == "itemscope" || (name.starts_with("data-") && usable_data_attribute(name))
}

/// `data-*` attributes that frameworks add for their own bookkeeping, or whose
/// names carry a build hash (`data-v-7ba5bd90`), are not part of the page's
/// meaning.
fn usable_data_attribute(name: &str) -> bool {
    const FRAMEWORK: [&str; 10] = [
        "data-reactid",
        "data-reactroot",
        "data-react-",
        "data-v-",
        "data-styled",
        "data-emotion",
        "data-n-",
        "data-server-rendered",
        "data-hydrated",
        "data-ssr",
    ];
    name.len() > 5 && !FRAMEWORK.iter().any(|p| name.starts_with(p)) && !looks_generated(&name[5..])
}

/// Whether an attribute value may be written into a locator: not empty, not
/// long content, no control characters, not a serialised object, and not
/// generated-looking.
pub(super) fn usable_value(value: &str) -> bool {
    !value.trim_matches(is_xml_space).is_empty()
        && value.len() <= MAX_VALUE_LEN
        && !value.chars().any(char::is_control)
        && !value.starts_with('{')
        && !value.starts_with('[')
        && !looks_generated(value)
}

/// Whether a class token may be written into a locator.
pub(super) fn usable_class(token: &str) -> bool {
    token.len() <= MAX_VALUE_LEN
        && !token.chars().any(char::is_control)
        && !looks_generated(token)
        && !is_state_class(token)
}

/// Whether `name` can be written as an XPath name test or attribute name:
/// an XML NCName, so prefixed names (`xlink:href`) and the odd characters of
/// framework attributes (`@click`, `:class`) are left out.
pub(super) fn is_ncname(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_name_start) && chars.all(is_name_char)
}

/// The normalized text of `node` if it reads like a short label (`Price`,
/// `ISBN-13`, `Availability:`): a few words with letters in them, few digits,
/// nothing generated-looking. Large sub-trees are not read at all.
pub(super) fn short_label(doc: &Document, node: NodeId) -> Option<String> {
    if doc.subtree_size(node) > MAX_LABEL_SUBTREE {
        return None;
    }
    let text = match doc.kind(node) {
        NodeKind::Element | NodeKind::Text => normalize_space(&doc.string_value(node)),
        _ => return None,
    };
    label_text(&text).then_some(text)
}

/// Whether normalized text reads like a label rather than data.
pub(super) fn label_text(text: &str) -> bool {
    let chars = text.chars().count();
    let digits = text.chars().filter(char::is_ascii_digit).count();
    let non_space = text.chars().filter(|c| *c != ' ').count();
    chars > 0
        && chars <= MAX_LABEL_CHARS
        && text.split(' ').count() <= MAX_LABEL_WORDS
        && text.chars().any(char::is_alphabetic)
        && digits * 3 <= non_space
        && !text.chars().any(char::is_control)
        && !looks_generated(text)
}

/// The label at the start of a text such as `Price: £3.20`: the words before
/// the first colon, colon included, when they read like a label.
pub(super) fn own_prefix_label(text: &str) -> Option<String> {
    let colon = text.find(':')?;
    let label = text[..colon].trim_end();
    (label_text(label) && label.chars().count() <= 30).then(|| format!("{label}:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_values_are_recognised() {
        for v in [
            "a8f3c9e1b2",
            "price__3xK9a",
            "Price_price__2Tq7F",
            "styles_title__Ab3dE",
            "ember123",
            "ember12",
            "react-select-2-input",
            ":r1:",
            "550e8400-e29b-41d4-a716-446655440000",
            "12345",
            "7",
            "post-1234",
            "sc-bdfBwQ",
            "css-1x2y3z",
            "yui_3_5_1_1_1234",
            "ng-tns-c12-3",
            "x{{id}}",
            "dGhpcyBpcyBhIGxvbmcgYmFzZTY0IHN0cmluZw",
        ] {
            assert!(looks_generated(v), "{v} should look generated");
        }
    }

    #[test]
    fn hand_written_values_are_kept() {
        for v in [
            "price",
            "product-title",
            "main",
            "col-md-6",
            "btn-primary",
            "ISBN",
            "add-to-cart",
            "productTitle",
            "h1",
            "item2",
            "nav__link",
            "price--large",
            "facade",
            "s-result-item",
            "react-tabs__tab",
            "Add to basket",
            "",
        ] {
            assert!(!looks_generated(v), "{v} should not look generated");
        }
    }

    #[test]
    fn labels_are_short_words() {
        assert!(label_text("Price"));
        assert!(label_text("ISBN-13"));
        assert!(label_text("Number of reviews"));
        assert!(!label_text("£3.20"));
        assert!(!label_text("978-0-13-468599-1"));
        assert!(!label_text(
            "a very long description that goes on and on for a while"
        ));
        assert_eq!(own_prefix_label("Price: £3").as_deref(), Some("Price:"));
        assert_eq!(own_prefix_label("12:30"), None);
    }

    #[test]
    fn attributes_are_ranked() {
        assert_eq!(attribute_cost("data-testid"), Some(COST_TEST_HOOK));
        assert_eq!(attribute_cost("itemprop"), Some(COST_SEMANTIC_ATTR));
        assert_eq!(attribute_cost("data-sku"), Some(COST_SEMANTIC_ATTR));
        assert_eq!(attribute_cost("title"), Some(COST_OTHER_ATTR));
        assert_eq!(attribute_cost("href"), None);
        assert_eq!(attribute_cost("style"), None);
        assert_eq!(attribute_cost("data-v-7ba5bd90"), None);
        assert_eq!(attribute_cost("data-reactid"), None);
        assert!(is_ncname("data-sku"));
        assert!(!is_ncname("xlink:href"));
        assert!(!is_ncname("@click"));
        assert!(!is_ncname(""));
    }
}
