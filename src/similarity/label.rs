//! Node labels: the name under which an element is compared.
//!
//! Tree matching asks one question of two nodes, "do they have the same
//! label?", and the answer depends on configuration ([`LabelMode`]):
//!
//! * `tag`: the element's local name, `div`;
//! * `tag+id`: the name and the `id` attribute, `div#main` (just `div` when
//!   the element has no id or an empty one);
//! * `tag+class`: the name and the class tokens, sorted and without
//!   duplicates, `div.card.wide` for `class="wide card card"` (just `div`
//!   when there are none).
//!
//! Labels from two documents must be comparable, so they are interned as
//! strings into one [`Labels`] table that both trees share; after that a label
//! is a small integer. Content that the unstable-content work marks through a
//! [`Mask`] never reaches a label: a masked attribute is left out of it, and a
//! masked element is left out of the tree altogether.
//!
//! ## What it refuses
//!
//! A label holds no text and no attribute but `id` (under `tag+id`) or
//! `class` (under `tag+class`): an empty id, a class of whitespace alone, or a
//! masked one leaves just the tag. Class tokens split on ASCII whitespace only
//! and keep their case, so `Card` and `card` make different labels. A label
//! from another table reads as `""` rather than failing, and whether two
//! trees share a table is not checked: the labels are just integers.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::dom::{Document, NodeId};
use serde::Serialize;

/// How tree nodes are labelled for matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum LabelMode {
    /// The tag name.
    #[serde(rename = "tag")]
    Tag,
    /// The tag name and the id.
    #[serde(rename = "tag+id")]
    TagId,
    /// The tag name and the sorted class tokens.
    #[serde(rename = "tag+class")]
    TagClass,
}

/// An interned label, valid within the [`Labels`] table that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub(crate) u32);

impl Label {
    /// The raw index of the label in its table.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// A table of interned labels, shared by every tree that is compared with
/// another, so that equal labels are equal integers whatever document they
/// come from.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    map: HashMap<Box<str>, Label>,
    texts: Vec<Box<str>>,
}

impl Labels {
    /// An empty table.
    pub fn new() -> Labels {
        Labels::default()
    }

    /// Interns `text`, returning its label.
    pub fn intern(&mut self, text: &str) -> Label {
        if let Some(&label) = self.map.get(text) {
            return label;
        }
        // A table never holds more distinct labels than the documents it read
        // have elements, and documents index their nodes with u32, so the
        // count always fits.
        let label = Label(self.texts.len() as u32);
        self.texts.push(text.into());
        self.map.insert(text.into(), label);
        label
    }

    /// The label of `text`, if the table holds it.
    pub fn get(&self, text: &str) -> Option<Label> {
        self.map.get(text).copied()
    }

    /// The text of a label, or `""` for a label from another table.
    pub fn text(&self, label: Label) -> &str {
        self.texts.get(label.0 as usize).map_or("", |t| t)
    }

    /// How many labels the table holds.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

/// What a comparison must not see: elements left out with their whole
/// sub-tree, and attributes left out of labels.
///
/// The unstable-content work decides what is unstable and records it in the
/// tree-gram; this trait is how that decision reaches the similarity
/// functions, which never look at masked content and so can never be
/// influenced by it.
///
/// A mask is shared by the threads that capture a wrapper's patterns side
/// by side, so it is `Sync`.
pub trait Mask: Sync {
    /// Whether `node` and everything below it are left out.
    fn skips(&self, doc: &Document, node: NodeId) -> bool {
        let _ = (doc, node);
        false
    }

    /// Whether the attribute `name` of `node` is left out of its label.
    fn masks_attr(&self, doc: &Document, node: NodeId, name: &str) -> bool {
        let _ = (doc, node, name);
        false
    }

    /// Whether the text node `node` is unstable: its words change from
    /// load to load (a date, a clock, a counter), so that comparing them
    /// says nothing and no locator may lean on them. Labels never hold
    /// text, so the similarity functions need not ask; what compares text
    /// (a node's own evidence, witnesses, generated locators) does.
    fn masks_text(&self, doc: &Document, node: NodeId) -> bool {
        let _ = (doc, node);
        false
    }

    /// The values seen of the unstable text node `node`, joined by `||`,
    /// when the mask knows them (written into tree-grams for a person).
    fn text_values(&self, doc: &Document, node: NodeId) -> Option<String> {
        let _ = (doc, node);
        None
    }
}

/// The mask that hides nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMask;

impl Mask for NoMask {}

impl Mask for HashSet<NodeId> {
    fn skips(&self, _: &Document, node: NodeId) -> bool {
        self.contains(&node)
    }
}

impl Mask for BTreeSet<NodeId> {
    fn skips(&self, _: &Document, node: NodeId) -> bool {
        self.contains(&node)
    }
}

/// A mask given by a function of the node and, for attributes, the
/// attribute's name (`None` asks about the node itself).
pub struct MaskFn<F>(pub F);

impl<F> Mask for MaskFn<F>
where
    F: Fn(&Document, NodeId, Option<&str>) -> bool + Sync,
{
    fn skips(&self, doc: &Document, node: NodeId) -> bool {
        (self.0)(doc, node, None)
    }

    fn masks_attr(&self, doc: &Document, node: NodeId, name: &str) -> bool {
        (self.0)(doc, node, Some(name))
    }
}

/// Writes the label text of the element `node` into `out` (cleared first).
///
/// Returns `false`, leaving `out` empty, when the label is just the tag name,
/// so that callers can use a cached tag label instead of hashing a string.
pub fn write_label(
    doc: &Document,
    node: NodeId,
    mode: LabelMode,
    mask: &dyn Mask,
    out: &mut String,
) -> bool {
    out.clear();
    match mode {
        LabelMode::Tag => false,
        LabelMode::TagId => {
            let Some(id) = doc.attr(node, "id").filter(|v| !v.is_empty()) else {
                return false;
            };
            if mask.masks_attr(doc, node, "id") {
                return false;
            }
            out.push_str(doc.name(node));
            out.push('#');
            out.push_str(id);
            true
        }
        LabelMode::TagClass => {
            let Some(class) = doc.attr(node, "class") else {
                return false;
            };
            let mut tokens: Vec<&str> = class.split_ascii_whitespace().collect();
            if tokens.is_empty() || mask.masks_attr(doc, node, "class") {
                return false;
            }
            tokens.sort_unstable();
            tokens.dedup();
            out.push_str(doc.name(node));
            for t in tokens {
                out.push('.');
                out.push_str(t);
            }
            true
        }
    }
}

/// The label text of the element `node`, as [`write_label`] builds it.
pub fn label_text(doc: &Document, node: NodeId, mode: LabelMode, mask: &dyn Mask) -> String {
    let mut out = String::new();
    if !write_label(doc, node, mode, mask, &mut out) {
        out.push_str(doc.name(node));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(doc: &Document, name: &str) -> NodeId {
        doc.all()
            .find(|&n| doc.is_element(n) && doc.name(n) == name)
            .expect("the element exists")
    }

    #[test]
    fn labels_follow_the_mode() {
        let doc = Document::parse_str(
            r#"<div id="main" class="wide  card card"></div><span id="" class=" "></span>"#,
        );
        let div = first(&doc, "div");
        let span = first(&doc, "span");
        let text = |n, mode| label_text(&doc, n, mode, &NoMask);
        assert_eq!(text(div, LabelMode::Tag), "div");
        assert_eq!(text(div, LabelMode::TagId), "div#main");
        assert_eq!(text(div, LabelMode::TagClass), "div.card.wide");
        assert_eq!(text(span, LabelMode::TagId), "span");
        assert_eq!(text(span, LabelMode::TagClass), "span");
    }

    #[test]
    fn masked_attributes_leave_the_label() {
        let doc = Document::parse_str(r#"<div id="x1" class="a b"></div>"#);
        let div = first(&doc, "div");
        let mask = MaskFn(|_: &Document, _: NodeId, attr: Option<&str>| attr == Some("class"));
        assert_eq!(label_text(&doc, div, LabelMode::TagClass, &mask), "div");
        assert_eq!(label_text(&doc, div, LabelMode::TagId, &mask), "div#x1");
    }

    #[test]
    fn interning_is_shared() {
        let mut labels = Labels::new();
        let a = labels.intern("div.a");
        assert_eq!(labels.intern("div.a"), a);
        assert_ne!(labels.intern("div"), a);
        assert_eq!(labels.text(a), "div.a");
        assert_eq!(labels.text(Label(99)), "");
        assert_eq!(labels.get("p"), None);
        assert_eq!(labels.len(), 2);
    }
}
