//! The equal top-down mapping between two documents.
//!
//! ## What it refuses
//!
//! Only elements map, and nothing maps when the root elements differ. An
//! element with another number of element children is not equal, so nothing
//! below it maps; children are paired by position, never aligned. Nothing
//! below a placeholder is looked at. The walk keeps its own stack, so a deep
//! page costs no recursion.

use std::collections::BTreeSet;

use crate::dom::{Document, NodeId};

use super::CONTENT_ATTR;

/// Whether element `x` of `a` and element `y` of `b` are equal in the sense
/// of the equal top-down mapping: the same tag, the same class tokens (in
/// any order), the same other attributes with the same values (mend's own
/// `data-mend-*` marks aside), as many element children, and the same own
/// text (the words of the text nodes directly in them). An element of `a`
/// marked [`CONTENT_ATTR`] (a template's placeholder for a page's own
/// content) equals any element.
///
/// The own text is compared as well as the structure, which the paper's
/// equality does not: pages of one kind (the detail pages of a shop) share
/// their content area's shape too, and only their text tells the content
/// (a title, a price) from the frame (a menu's labels, the footer's).
pub fn equal_nodes(a: &Document, x: NodeId, b: &Document, y: NodeId) -> bool {
    if !a.is_element(x) || !b.is_element(y) {
        return false;
    }
    if a.attr(x, CONTENT_ATTR).is_some() {
        return true;
    }
    if a.name(x) != b.name(y) {
        return false;
    }
    let classes = |d: &Document, n: NodeId| -> BTreeSet<String> {
        d.attr(n, "class")
            .unwrap_or_default()
            .split_ascii_whitespace()
            .map(str::to_owned)
            .collect()
    };
    let attrs = |d: &Document, n: NodeId| -> BTreeSet<(String, String)> {
        d.attrs(n)
            .iter()
            .map(|at| (d.attr_name(at), d.attr_value(at)))
            .filter(|(name, _)| !name.starts_with("data-mend-") && *name != "class")
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect()
    };
    classes(a, x) == classes(b, y)
        && attrs(a, x) == attrs(b, y)
        && a.element_children(x).count() == b.element_children(y).count()
        && own_text(a, x) == own_text(b, y)
}

/// The words of the text nodes directly in `element`, one space apart
/// (none for a script's or a style's body).
pub(super) fn own_text(doc: &Document, element: NodeId) -> String {
    let mut out = String::new();
    if crate::dom::markup::RAW.contains(&doc.name(element)) {
        return out;
    }
    for c in doc.children(element) {
        if doc.kind(c) == crate::dom::NodeKind::Text {
            for word in doc.text(c).split_whitespace() {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(word);
            }
        }
    }
    out
}

/// The equal top-down mapping of `a` onto `b`: pairs of elements, the root
/// elements first when they are equal, then each mapped pair's children at
/// the same positions, where they are equal (see [`equal_nodes`]). A
/// placeholder of `a` maps, but nothing below it is looked at. In document
/// order of `a`.
pub fn equal_top_down_mapping(a: &Document, b: &Document) -> Vec<(NodeId, NodeId)> {
    let (Some(ra), Some(rb)) = (a.root_element(), b.root_element()) else {
        return Vec::new();
    };
    if !equal_nodes(a, ra, b, rb) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut stack = vec![(ra, rb)];
    while let Some((x, y)) = stack.pop() {
        out.push((x, y));
        if a.attr(x, CONTENT_ATTR).is_some() {
            continue;
        }
        let xs: Vec<NodeId> = a.element_children(x).collect();
        let ys: Vec<NodeId> = b.element_children(y).collect();
        for (&cx, &cy) in xs.iter().zip(&ys).rev() {
            if equal_nodes(a, cx, b, cy) {
                stack.push((cx, cy));
            }
        }
    }
    out.sort_unstable();
    out
}
