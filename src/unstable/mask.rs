//! A template laid over a page: which of the page's nodes are unstable.
//!
//! ## What it refuses
//!
//! Where the page does not pair with the template (it changed there),
//! nothing is marked: a change is not unstable content. A page without a
//! root element gets an empty mask. Only texts unstable in their own right
//! give values ([`Mask::text_values`]); a text unstable for lying below a
//! skipped element gives none. Laying a mask reads no file and no clock.

use std::collections::{HashMap, HashSet};

use super::html_template::{DocView, HtmlTemplate, View};
use super::pairing::pair_children;
use crate::dom::{Document, NodeId};
use crate::similarity::Mask;

/// The unstable parts of one page by a template: the elements whose
/// sub-trees are unstable (the children of an element whose children came
/// and went), the attributes that differed, by element, and the texts that
/// differed. Where the page does not pair with the template (it changed
/// there), nothing is marked: a change is not unstable content.
#[derive(Clone, Debug, Default)]
pub struct TemplateMask {
    skipped: HashSet<NodeId>,
    attrs: HashMap<NodeId, Vec<String>>,
    texts: HashMap<NodeId, String>,
    /// How many of `texts` are unstable in their own right (not only for
    /// lying below a skipped element).
    own_texts: usize,
}

impl TemplateMask {
    /// Lays `template` over `doc`.
    pub fn new(template: &HtmlTemplate, doc: &Document) -> TemplateMask {
        let mut mask = TemplateMask::default();
        let Some(root) = doc.root_element() else {
            return mask;
        };
        let view = DocView(doc);
        let mut stack = vec![(template.root(), root)];
        while let Some((t, d)) = stack.pop() {
            let node = template.node(t);
            if node.name.is_none() {
                if node.text.is_unstable() {
                    mask.texts.insert(d, node.text.values());
                    mask.own_texts += 1;
                }
                continue;
            }
            let unstable: Vec<String> = node
                .attrs
                .iter()
                .filter(|(_, c)| c.is_unstable())
                .map(|(n, _)| n.clone())
                .collect();
            if !unstable.is_empty() {
                mask.attrs.insert(d, unstable);
            }
            if node.unstable_children {
                for child in view.kids(d) {
                    if doc.is_element(child) {
                        mask.skipped.insert(child);
                        // Every text below is unstable too; recorded here,
                        // once (skipped sub-trees do not nest), so that a
                        // text is looked up, not its ancestors walked.
                        let end = doc.subtree_end(child);
                        for n in (child.0..end.0).map(NodeId) {
                            if doc.kind(n) == crate::dom::NodeKind::Text {
                                mask.texts.insert(n, String::new());
                            }
                        }
                    } else {
                        mask.texts.insert(child, String::new());
                        mask.own_texts += 1;
                    }
                }
                continue;
            }
            stack.extend(pair_children(template, t, &view, d).pairs);
        }
        mask
    }

    /// Whether the text node `node` is unstable (its own, or below an
    /// unstable sub-tree's root).
    pub fn is_unstable_text(&self, _doc: &Document, node: NodeId) -> bool {
        self.texts.contains_key(&node)
    }

    /// How many elements, attributes and texts it marks.
    pub fn counts(&self) -> (usize, usize, usize) {
        (
            self.skipped.len(),
            self.attrs.values().map(Vec::len).sum(),
            self.own_texts,
        )
    }
}

impl Mask for TemplateMask {
    fn skips(&self, _: &Document, node: NodeId) -> bool {
        self.skipped.contains(&node)
    }

    fn masks_attr(&self, _: &Document, node: NodeId, name: &str) -> bool {
        self.attrs
            .get(&node)
            .is_some_and(|names| names.iter().any(|n| n == name))
    }

    fn masks_text(&self, doc: &Document, node: NodeId) -> bool {
        self.is_unstable_text(doc, node)
    }

    fn text_values(&self, _: &Document, node: NodeId) -> Option<String> {
        self.texts.get(&node).filter(|v| !v.is_empty()).cloned()
    }
}
