//! How much a page node looks like a tree-gram's target, on its own: its tag,
//! the shape of its text, its attributes; whether it shares any of the
//! target's own evidence at all (a node that shares none is not the target,
//! whatever its place); and the labels inside it that name a field.
//!
//! A field's value changes from record to record (`£12.99`, `£8.50`), so text
//! is compared both as written and by *shape*, digits and letters folded into
//! classes (`£9.9`); a label that stays (`Gmail`, `In stock`) matches as
//! written. Attributes compare by name, class token, and name with value;
//! a value that is long or looks generated (a session token, a record id)
//! is left out, as it changes from load to load.
//!
//! ## What it refuses
//!
//! Text is compared by its first [`MAX_TEXT`] characters or so, without the
//! bodies of raw-text elements (scripts, styles, text areas), masked
//! elements or unstable texts; an `input`'s value is text only for a
//! submit, reset or plain button. Of a `style` attribute, and of one whose
//! value is empty, longer than 80 bytes or looks generated, only the name
//! counts; masked attributes and mend's own `data-mend-` marks do not count
//! at all. For [`shares_evidence`], bare attribute names, a shape of words
//! alone and a Jaro-Winkler score of unrelated texts are no evidence.

use std::collections::BTreeSet;

use crate::dom::markup::RAW;
use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::{Mask, jaro_winkler};
pub(crate) use crate::treegram::labels;
use crate::xpath::Item;
use crate::xpath::generate::looks_generated;

/// Text longer than this many characters is compared by its start only.
pub(crate) const MAX_TEXT: usize = 200;

/// The fewest characters of a word that says something: shorter runs
/// (`a`, `of`, `12`) stand in most texts and names alike.
const MIN_WORD: usize = 3;

/// What a node is, for comparing it with another.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Profile {
    tag: String,
    text: String,
    shape: String,
    attrs: BTreeSet<String>,
    /// Whether some of the text was unstable (it changed across loads) and
    /// is left out of `text`.
    unstable: bool,
}

impl Profile {
    /// The profile of `item` (owned by the element `owner`) in `doc`; masked
    /// attributes and mend's own marks are left out.
    pub(crate) fn of(doc: &Document, owner: NodeId, item: Item, mask: &dyn Mask) -> Profile {
        let (raw, unstable) = match item {
            Item::Attr { index, .. } => {
                let attr = doc.attr_at(index as usize);
                if mask.masks_attr(doc, owner, doc.attr_name(attr)) {
                    (String::new(), true)
                } else {
                    (doc.attr_value(attr).to_owned(), false)
                }
            }
            Item::Node(n) if doc.is_element(n) => match button_label(doc, n) {
                Some(label) => (label.to_owned(), false),
                None => element_text(doc, n, mask),
            },
            Item::Node(n) if doc.kind(n) == NodeKind::Text && mask.masks_text(doc, n) => {
                (String::new(), true)
            }
            other => (other.string_value(doc), false),
        };
        let text: String = raw
            .split_ascii_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(MAX_TEXT)
            .collect();
        let attrs = attributes(doc, owner, mask);
        Profile {
            tag: doc.name(owner).to_owned(),
            shape: shape(&text),
            text,
            attrs,
            unstable,
        }
    }

    /// The profile of the element `owner` without its text: its tag and
    /// attributes, read without walking the sub-tree under it.
    pub(crate) fn bare(doc: &Document, owner: NodeId, mask: &dyn Mask) -> Profile {
        Profile {
            tag: doc.name(owner).to_owned(),
            text: String::new(),
            shape: String::new(),
            attrs: attributes(doc, owner, mask),
            unstable: false,
        }
    }

    /// The distinct words of its text of three or more letters or digits,
    /// case folded.
    pub(crate) fn words(&self) -> BTreeSet<String> {
        self.text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= MIN_WORD)
            .map(str::to_lowercase)
            .collect()
    }

    /// The element's tag.
    pub(crate) fn tag(&self) -> &str {
        &self.tag
    }

    /// Whether some of its text was unstable and is left out of
    /// [`Profile::text`].
    pub(crate) fn is_unstable(&self) -> bool {
        self.unstable
    }

    /// The text, its words joined by one space (its first
    /// [`MAX_TEXT`] characters or so).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Whether it has a class token or an attribute with its value: what
    /// [`share_telling_attribute`] can find in common.
    pub(crate) fn has_telling_attribute(&self) -> bool {
        self.attrs.iter().any(|x| telling_attribute(x))
    }
}

/// The label a button made of an `input` shows, its `value`: such a button
/// has no text, and two buttons side by side (`Google Search`, `I'm Feeling
/// Lucky`) differ in little else.
fn button_label(doc: &Document, element: NodeId) -> Option<&str> {
    if doc.name(element) != "input" {
        return None;
    }
    let kind = doc.attr(element, "type")?;
    ["submit", "button", "reset"]
        .iter()
        .any(|k| kind.eq_ignore_ascii_case(k))
        .then(|| doc.attr(element, "value"))
        .flatten()
}

/// The text of an element as a tree-gram keeps it, whether `element` is in
/// a page or in a tree-gram: the words of its text nodes, one space between
/// them and between nodes (a tree-gram file writes each node on its own
/// line), leaving out what a tree-gram leaves out, the bodies of raw-text
/// elements (scripts, styles, text areas) and of masked elements. Only the
/// first [`MAX_TEXT`] characters or so are gathered. Unstable texts are left
/// out too, and the flag returned says whether there were any.
fn element_text(doc: &Document, element: NodeId, mask: &dyn Mask) -> (String, bool) {
    let mut out = String::new();
    let mut unstable = false;
    if RAW.contains(&doc.name(element)) {
        return (out, unstable);
    }
    let end = doc.subtree_end(element);
    let mut chars = 0;
    let mut n = NodeId(element.0 + 1);
    while n < end && chars < MAX_TEXT {
        if doc.is_element(n) && (RAW.contains(&doc.name(n)) || mask.skips(doc, n)) {
            unstable |= mask.skips(doc, n);
            n = doc.subtree_end(n);
            continue;
        }
        if doc.kind(n) == NodeKind::Text && mask.masks_text(doc, n) {
            unstable = true;
        } else if doc.kind(n) == NodeKind::Text {
            for word in doc.text(n).trim().split_ascii_whitespace() {
                if !out.is_empty() {
                    out.push(' ');
                    chars += 1;
                }
                out.push_str(word);
                chars += word.chars().count();
            }
        }
        n = NodeId(n.0 + 1);
    }
    (out, unstable)
}

/// The parts of a likeness, each in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Likeness {
    /// 1 when the tags are equal.
    pub tag: f64,
    /// How alike the texts are, as written or by shape.
    pub text: f64,
    /// The Jaccard index of attribute names, class tokens and stable ids.
    pub attrs: f64,
}

/// How much `b` looks like `a`.
pub(crate) fn likeness(a: &Profile, b: &Profile) -> Likeness {
    let tag = f64::from(u8::from(a.tag == b.tag));
    let text = if a.unstable || b.unstable {
        unstable_text_likeness(a, b)
    } else {
        text_likeness(a, b)
    };
    let union = a.attrs.union(&b.attrs).count();
    let attrs = if union == 0 {
        1.0
    } else {
        a.attrs.intersection(&b.attrs).count() as f64 / union as f64
    };
    Likeness { tag, text, attrs }
}

/// The share of `a`'s attributes (names, class tokens, names with values)
/// that `b` kept; 1 when `a` has none. Unlike the Jaccard index of
/// [`likeness`], attributes that `b` gained cost nothing: a redesign adds
/// tracking keys, roles and classes to the elements it keeps.
pub(crate) fn kept_attributes(a: &Profile, b: &Profile) -> f64 {
    if a.attrs.is_empty() {
        return 1.0;
    }
    a.attrs.intersection(&b.attrs).count() as f64 / a.attrs.len() as f64
}

/// Whether `a` and `b` share a class token or an attribute with its value.
pub(crate) fn share_telling_attribute(a: &Profile, b: &Profile) -> bool {
    a.attrs.intersection(&b.attrs).any(|x| telling_attribute(x))
}

/// The attributes of the element `owner` as a profile compares them: bare
/// names, class tokens, and names with short values that do not look
/// generated; masked attributes and mend's own marks left out.
fn attributes(doc: &Document, owner: NodeId, mask: &dyn Mask) -> BTreeSet<String> {
    let mut attrs = BTreeSet::new();
    for attr in doc.attrs(owner) {
        let name = doc.attr_name(attr);
        if name.starts_with("data-mend-") || mask.masks_attr(doc, owner, name) {
            continue;
        }
        let value = doc.attr_value(attr);
        match name {
            "class" => {
                for token in value.split_ascii_whitespace() {
                    attrs.insert(format!(".{token}"));
                }
            }
            "style" => {}
            // Short values that do not look generated say what the node
            // is for: ids, names, roles, placeholders, tracking keys.
            _ if !value.is_empty() && value.len() <= 80 && !looks_generated(value) => {
                attrs.insert(format!("{name}={value}"));
            }
            _ => {}
        }
        attrs.insert(name.to_owned());
    }
    attrs
}

/// Whether `b` has `a`'s attributes as far as they tell: a class token or
/// an attribute value in common, or, where `a` has none to share, the same
/// attribute names (none, say) as `a`.
pub(crate) fn fits_attributes(a: &Profile, b: &Profile) -> bool {
    share_telling_attribute(a, b) || (!a.has_telling_attribute() && a.attrs == b.attrs)
}

/// Whether an attribute of a profile is a class token (`.name`) or a name
/// with its value (`name=value`), not a bare name.
fn telling_attribute(attr: &str) -> bool {
    attr.starts_with('.') || attr.contains('=')
}

/// Whether `b` carries any of `a`'s own evidence: the same tag, a class
/// token or an attribute value in common, or text that is the same, has
/// the same telling shape (digits or punctuation in it), or shares a fifth
/// of its words. A node that shares none of these with a
/// target is not that target moved, whatever its place says: two elements
/// without attributes are not alike for having none, and unrelated texts
/// still score half or more under Jaro-Winkler, so neither counts here.
pub(crate) fn shares_evidence(a: &Profile, b: &Profile) -> bool {
    // A bare attribute name (`style`, `class`) is on most elements of a
    // page; a class token or a name with its value says what the node is.
    if a.tag == b.tag || share_telling_attribute(a, b) {
        return true;
    }
    if a.unstable || b.unstable {
        return unstable_text_likeness(a, b) >= 0.5;
    }
    if a.text.is_empty() || b.text.is_empty() {
        return a.text.is_empty() && b.text.is_empty();
    }
    let telling = |s: &str| s.chars().any(|c| c != 'a' && c != ' ');
    a.text == b.text || (a.shape == b.shape && telling(&a.shape)) || word_overlap(a, b) >= 0.2
}

/// The Jaccard index of the words of three or more letters or digits of two
/// texts, case folded.
pub(crate) fn word_overlap(a: &Profile, b: &Profile) -> f64 {
    jaccard(&a.words(), &b.words())
}

/// The Jaccard index of two sets of words; 0 when both are empty.
fn jaccard(x: &BTreeSet<String>, y: &BTreeSet<String>) -> f64 {
    let union = x.union(y).count();
    if union == 0 {
        return 0.0;
    }
    x.intersection(y).count() as f64 / union as f64
}

/// How much of the stored target's words a node's text keeps, as the model
/// reads it: the Jaccard index of [`Profile::words`], or, for a stored text
/// without any (a price, a count, a short date), of all the runs of letters
/// and digits of both texts. Without that, such a text read as one whose
/// words were all lost, whatever the node held.
pub(crate) fn words_kept(wanted: &Profile, found: &Profile) -> f64 {
    let stored = wanted.words();
    if !stored.is_empty() {
        return jaccard(&stored, &found.words());
    }
    let runs = |p: &Profile| -> BTreeSet<String> {
        p.text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    jaccard(&runs(wanted), &runs(found))
}

/// The share of the words in the stored target's class tokens and attribute
/// values (`product-price`, `priceNow`, `id=main-title`) that a node's own
/// class tokens and attribute values keep; 0 when the target had none.
///
/// A redesign that renames a class often keeps its word (`price` becomes
/// `price-now`, `c-price` or `productPrice`), and the Jaccard index of whole
/// tokens reads that as a lost class. Words it gained cost nothing, as
/// for [`kept_attributes`].
pub(crate) fn name_words_kept(wanted: &Profile, found: &Profile) -> f64 {
    let stored = name_words(wanted);
    if stored.is_empty() {
        return 0.0;
    }
    let now = name_words(found);
    stored.intersection(&now).count() as f64 / stored.len() as f64
}

/// The words of a profile's class tokens and attribute values: runs of
/// letters split at camel-case humps, lower-cased, of three letters or more.
/// Digits end a word, so a hash or a counter adds none of its own.
fn name_words(p: &Profile) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for attr in &p.attrs {
        let value = match attr.strip_prefix('.') {
            Some(token) => token,
            None => match attr.split_once('=') {
                Some((_, value)) => value,
                None => continue,
            },
        };
        let mut word = String::new();
        let mut prev_lower = false;
        for c in value.chars().chain(std::iter::once(' ')) {
            let hump = prev_lower && c.is_uppercase();
            if !c.is_alphabetic() || hump {
                if word.chars().count() >= MIN_WORD {
                    out.insert(std::mem::take(&mut word));
                } else {
                    word.clear();
                }
            }
            if c.is_alphabetic() {
                word.extend(c.to_lowercase());
            }
            prev_lower = c.is_lowercase();
        }
    }
    out
}

/// How alike two texts are, neither holding unstable parts: equal, or alike
/// as written or by shape.
fn text_likeness(a: &Profile, b: &Profile) -> f64 {
    match (a.text.is_empty(), b.text.is_empty()) {
        (true, true) => 1.0,
        (true, false) | (false, true) => 0.0,
        _ if a.text == b.text => 1.0,
        _ => {
            let written = jaro_winkler(&a.text, &b.text);
            // A shape of words alone (`a`, `a a`) says nothing: every label
            // has it. Digits and punctuation make a shape worth comparing.
            let telling = |s: &str| s.chars().any(|c| c != 'a' && c != ' ');
            let shaped = if !telling(&a.shape) && !telling(&b.shape) {
                0.0
            } else if a.shape == b.shape {
                0.95
            } else {
                0.8 * jaro_winkler(&a.shape, &b.shape)
            };
            written.max(shaped)
        }
    }
}

/// How alike two texts are when one or both had unstable parts, which say
/// nothing and are left out: a date that changed is no evidence either way.
/// What stays is whether each side still has text, and how many of the
/// stable words of one are among the words of the other (the larger share
/// either way, so the measure is symmetric).
fn unstable_text_likeness(a: &Profile, b: &Profile) -> f64 {
    let has_text = |p: &Profile| p.unstable || !p.text.is_empty();
    if has_text(a) != has_text(b) {
        return 0.0;
    }
    let share = |kept: &Profile, other: &Profile| -> f64 {
        let words: Vec<&str> = kept.text.split(' ').filter(|w| !w.is_empty()).collect();
        if words.is_empty() {
            return 1.0;
        }
        let theirs: BTreeSet<&str> = other.text.split(' ').collect();
        words.iter().filter(|w| theirs.contains(*w)).count() as f64 / words.len() as f64
    };
    share(a, b).max(share(b, a))
}

/// The shape of a text: each run of digits becomes `9`, each run of letters
/// `a`, each run of spaces one space; other characters stay.
pub(crate) fn shape(text: &str) -> String {
    let mut out = String::new();
    let mut last = None;
    for c in text.chars() {
        let class = if c.is_numeric() {
            '9'
        } else if c.is_alphabetic() {
            'a'
        } else if c.is_whitespace() {
            ' '
        } else {
            c
        };
        let run = matches!(class, '9' | 'a' | ' ');
        if run && last == Some(class) {
            continue;
        }
        out.push(class);
        last = Some(class);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::NoMask;

    fn profile(html: &str) -> Profile {
        let doc = Document::parse_str(html);
        let n = doc
            .all()
            .find(|&n| doc.is_element(n) && doc.attr(n, "id") == Some("t"))
            .expect("an element with id t");
        Profile::of(&doc, n, Item::Node(n), &NoMask)
    }

    /// Whether the first element in the body of `b` shares evidence with
    /// the first in the body of `a`.
    fn check_shares(a: &str, b: &str, expected: bool) {
        let first = |html: &str| {
            let doc = Document::parse_str(html);
            let body = doc.all().find(|&n| doc.name(n) == "body").unwrap();
            let n = doc.children(body).find(|&n| doc.is_element(n)).unwrap();
            Profile::of(&doc, n, Item::Node(n), &NoMask)
        };
        let (pa, pb) = (first(a), first(b));
        assert_eq!(shares_evidence(&pa, &pb), expected, "{a} / {b}");
        assert_eq!(shares_evidence(&pb, &pa), expected, "{b} / {a}");
    }

    /// Checks a share of the stored target's evidence that a found node keeps.
    fn check_share(share: fn(&Profile, &Profile) -> f64, stored: &str, found: &str, expected: f64) {
        let got = share(&profile(stored), &profile(found));
        assert!((got - expected).abs() < 1e-9, "{stored} / {found}: {got}");
    }

    fn check_words(stored: &str, found: &str, expected: f64) {
        check_share(words_kept, stored, found, expected);
    }

    #[test]
    fn a_price_kept_as_written_keeps_its_words() {
        check_words("<p id=t>£12.99</p>", "<span id=t>£12.99</span>", 1.0);
        check_words("<p id=t>£12.99</p>", "<p id=t>£12.49</p>", 1.0 / 3.0);
        check_words("<p id=t>£12.99</p>", "<p id=t>Out of stock</p>", 0.0);
    }

    fn check_name_words(stored: &str, found: &str, expected: f64) {
        check_share(name_words_kept, stored, found, expected);
    }

    #[test]
    fn a_renamed_class_that_keeps_its_word_keeps_its_name_words() {
        let stored = "<p id=t class=product-price>£12.99</p>";
        check_name_words(stored, "<p id=t class=price-now>£10.50</p>", 0.5);
        check_name_words(stored, "<p id=t class=productPrice>£10.50</p>", 1.0);
        check_name_words(
            stored,
            "<p id=t class='c-product--price v2'>£10.50</p>",
            1.0,
        );
        check_name_words(stored, "<p id=t class=css-3fa9c1>£10.50</p>", 0.0);
    }

    #[test]
    fn attribute_values_have_name_words_and_digits_end_them() {
        check_name_words(
            "<p id=t itemprop=price>1</p>",
            "<p id=t data-field=price>1</p>",
            1.0,
        );
        check_name_words(
            "<p id=t class=price2024>1</p>",
            "<p id=t class=price>1</p>",
            1.0,
        );
        // A target whose classes and values hold no word says nothing.
        check_name_words("<p id=t class=x1>1</p>", "<p id=t class=x1>1</p>", 0.0);
    }

    #[test]
    fn words_of_three_characters_decide_where_the_stored_text_has_them() {
        check_words("<p id=t>In 12 days</p>", "<p id=t>In 14 days</p>", 1.0);
        check_words(
            "<p id=t>Fresh bread</p>",
            "<p id=t>Fresh rolls</p>",
            1.0 / 3.0,
        );
        check_words("<img id=t>", "<img id=t>", 0.0);
    }

    fn check_kept(stored: &str, found: &str, expected: f64) {
        check_share(kept_attributes, stored, found, expected);
    }

    #[test]
    fn gained_attributes_cost_nothing_to_what_was_kept() {
        // id, id=t, name, name=go: all kept, whatever was added.
        check_kept(
            "<input id=t name=go>",
            "<input id=t name=go class=btn role=button>",
            1.0,
        );
        check_kept("<input id=t name=go>", "<input id=t name=web>", 0.75);
        check_kept("<span id=t></span>", "<span id=t class=x></span>", 1.0);
    }

    #[test]
    fn an_input_buttons_label_is_its_text() {
        assert_eq!(
            profile("<input id=t type=submit value='Google Search'>").text(),
            "Google Search"
        );
        assert_eq!(profile("<input id=t type=BUTTON value='Go'>").text(), "Go");
        // A text box's value is what a visitor typed, not a label.
        assert_eq!(profile("<input id=t type=text value='dune'>").text(), "");
        assert_eq!(profile("<button id=t value=x>Send</button>").text(), "Send");
    }

    #[test]
    fn a_node_shares_evidence_through_its_tag_an_attribute_or_its_text() {
        check_shares("<h1>Heat Seeker</h1>", "<h1>Other Title</h1>", true);
        check_shares(
            "<h1 class=t>Heat Seeker</h1>",
            "<div class='t x'>Q</div>",
            true,
        );
        check_shares("<h1>Heat Seeker</h1>", "<h2>Heat Seeker</h2>", true);
        check_shares("<h1>Heat Seeker</h1>", "<h2>Stone Seeker</h2>", true);
        check_shares("<p>£12.99</p>", "<span>£8.50</span>", true);
    }

    /// Regression: a deleted title healed to a `div` holding the link
    /// "Q & A": neither has attributes, so their attributes compared as
    /// equal, and Jaro-Winkler gave the unrelated texts 0.7.
    #[test]
    fn a_node_without_the_targets_tag_attributes_or_words_shares_nothing() {
        check_shares(
            "<h1>The Purpose Driven Life</h1>",
            "<div><a>Write a Review</a> | <a>Q &amp; A</a></div>",
            false,
        );
        check_shares("<h1>Heat Seeker</h1>", "<div></div>", false);
        check_shares("<h1 class=a>Heat</h1>", "<div class=b>Cold</div>", false);
        check_shares(
            "<h1 style='x'>Heat</h1>",
            "<div style='y'>Cold</div>",
            false,
        );
    }

    #[test]
    fn shapes_fold_digits_and_letters() {
        assert_eq!(shape("£12.99"), "£9.9");
        assert_eq!(shape("£8.50"), "£9.9");
        assert_eq!(shape("4 stars"), "9 a");
        assert_eq!(shape("In  stock"), "a a");
    }

    #[test]
    fn prices_look_alike_by_shape() {
        let a = profile(r#"<p id="t" class="price">£12.99</p>"#);
        let b = profile(r#"<span id="t" class="amount">£8.50</span>"#);
        let l = likeness(&a, &b);
        assert_eq!(l.tag, 0.0);
        assert_eq!(l.text, 0.95);
        assert!(l.attrs > 0.0 && l.attrs < 1.0, "{l:?}");
        let c = profile(r#"<p id="t" class="rating">4 stars</p>"#);
        assert!(likeness(&a, &c).text < 0.6, "{:?}", likeness(&a, &c));
    }

    /// Regression: a node's text was its string-value on the page, but its
    /// tree-gram leaves out script, style and text-area bodies and writes
    /// each text node on a line of its own, so the same node read `£12.99`
    /// on the page and `£ 12 .99` in its tree-gram, and the text of a text
    /// area it held on the page only: healing then preferred a lookalike
    /// with the tree-gram's text over the node itself.
    #[test]
    fn a_node_reads_the_same_on_its_page_and_in_its_treegram() {
        use crate::treegram::{CaptureOptions, GramMask, TreeGram, capture};
        let w = crate::wrapper::load_str(
            "name: t\npatterns:\n  - name: f\n    xpath: //p[@id='t']\n",
            "t.yaml",
        )
        .unwrap();
        let html = "<div><p id=\"t\">£<b>12</b>.99<script>track(1)</script>\
             <textarea>Your note</textarea><style>p{}</style> each</p></div>";
        let doc = Document::parse_str(html);
        let options = CaptureOptions {
            url: None,
            sha256: "",
            captured: "",
            instances: 1,
            min_context: 1,
            only: None,
            unstable: &NoMask,
            frame: None,
        };
        let gram = TreeGram::parse(capture(&w, &doc, &options).0[0].html.as_bytes()).unwrap();
        let (owner, _) = gram.instances[0].targets[0];
        let kept = Profile::of(&gram.doc, owner, Item::Node(owner), &GramMask);
        let page = profile(html);
        assert_eq!(page.text, "£ 12 .99 each");
        assert_eq!(kept.text, page.text);
        assert_eq!(likeness(&kept, &page).text, 1.0);
    }

    /// A profile of the element with id `t` in `html` whose text nodes
    /// holding `unstable` are masked, as a learned template masks them.
    fn profile_masked(html: &str, unstable: &'static str) -> Profile {
        use crate::similarity::Mask;
        struct Texts(&'static str);
        impl Mask for Texts {
            fn masks_text(&self, doc: &Document, node: NodeId) -> bool {
                doc.text(node).contains(self.0)
            }
        }
        let doc = Document::parse_str(html);
        let n = doc
            .all()
            .find(|&n| doc.is_element(n) && doc.attr(n, "id") == Some("t"))
            .expect("an element with id t");
        Profile::of(&doc, n, Item::Node(n), &Texts(unstable))
    }

    #[test]
    fn an_unstable_text_is_no_evidence_either_way() {
        let kept = profile_masked(r#"<span id="t">Jul 23</span>"#, "Jul");
        assert!(kept.is_unstable());
        assert_eq!(kept.text(), "");
        let check = |html: &str, expected: f64| {
            let page = profile(html);
            let l = likeness(&kept, &page);
            assert_eq!(l.text, expected, "{html}");
            assert_eq!(likeness(&page, &kept), l, "symmetric: {html}");
        };
        check(r#"<span id="t">Aug 15</span>"#, 1.0);
        check(r#"<span id="t">Write a review</span>"#, 1.0);
        // A node that lost its text is still unlike one that had some.
        check(r#"<span id="t"></span>"#, 0.0);
    }

    #[test]
    fn the_stable_words_beside_an_unstable_text_still_count() {
        let kept = profile_masked(
            r#"<p id="t">Posted <span>Jul 23</span> in Events</p>"#,
            "Jul",
        );
        assert_eq!(kept.text(), "Posted in Events");
        let same = profile(r#"<p id="t">Posted <span>Aug 15</span> in Events</p>"#);
        assert_eq!(likeness(&kept, &same).text, 1.0);
        let other = profile(r#"<p id="t">Sold by <span>Acme</span></p>"#);
        assert_eq!(likeness(&kept, &other).text, 0.0);
    }

    #[test]
    fn a_node_is_wholly_like_itself() {
        let a = profile(r#"<a id="t" class="gb_P" href="https://mail.google.com/">Gmail</a>"#);
        assert_eq!(
            likeness(&a, &a),
            Likeness {
                tag: 1.0,
                text: 1.0,
                attrs: 1.0
            }
        );
    }
}
