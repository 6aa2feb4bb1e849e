//! Algorithm 2: the template shared by a set of pages, its readable file,
//! and the template laid over another page of the site.
//!
//! ## What it refuses
//!
//! It never fails: with no other page the key page is its own template, a
//! key page whose root element does not map everywhere gives a template of
//! no element (coverage 0 on any page), and any HTML reads back, as learned
//! from one page when mend's header is missing. Text that differs on any
//! page, comments, mend's own `data-mend-` marks and everything inside
//! raw-text elements are left out of the file. A placeholder's place is
//! never part of a page's regions; indentation stops deepening at 64 levels.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::mapping::{equal_top_down_mapping, own_text};
use crate::dom::markup::{RAW, VOID, escape_attr, escape_text};
use crate::dom::{Document, NodeId, NodeKind};

/// The attribute that marks, in a template file, the place of a page's own
/// content: an element of the key page that does not map on every page,
/// written with its tag only, so that its parent keeps its children count.
pub const CONTENT_ATTR: &str = "data-mend-content";

/// The comment a template file starts with; the number of pages follows.
const HEADER: &str = "mend site template of ";

/// A site's template, as its file holds it.
#[derive(Debug)]
pub struct SiteTemplate {
    /// The template file parsed.
    doc: Document,
    /// How many pages it was learned from.
    pages: usize,
}

/// A template laid over a page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regions {
    /// The page's elements that belong to the template.
    pub nodes: HashSet<NodeId>,
    /// How many elements the template has (placeholders not counted).
    pub template_elements: usize,
    /// How many of them the page still has.
    pub mapped: usize,
}

impl Regions {
    /// The share of the template the page still has, in [0, 1]: 1 when the
    /// page's frame is the template's, lower when the template changed.
    pub fn coverage(&self) -> f64 {
        if self.template_elements == 0 {
            return 0.0;
        }
        self.mapped as f64 / self.template_elements as f64
    }

    /// Whether `node` of the page lies in the template: it is a template
    /// element, or below one that is not a placeholder's place (an
    /// element's text is the template's when its element is).
    pub fn contains(&self, node: NodeId) -> bool {
        self.nodes.contains(&node)
    }
}

impl SiteTemplate {
    /// The template of `key` and `others`: the elements of `key` that the
    /// equal top-down mapping maps onto every other page, with the text
    /// that is the same on every page. With no other page, the whole key
    /// page is its own template.
    pub fn learn(key: &Document, others: &[&Document]) -> SiteTemplate {
        let maps: Vec<HashMap<NodeId, NodeId>> = others
            .iter()
            .map(|o| equal_top_down_mapping(key, o).into_iter().collect())
            .collect();
        let in_template = |k: NodeId| maps.iter().all(|m| m.contains_key(&k));
        let stable_text = |k: NodeId| -> Option<String> {
            let mine = own_text(key, k);
            let same = others
                .iter()
                .zip(&maps)
                .all(|(o, m)| m.get(&k).is_some_and(|&n| own_text(o, n) == mine));
            (same && !mine.is_empty()).then_some(mine)
        };
        let mut html = format!(
            "<!DOCTYPE html>\n<!-- {HEADER}{} pages: the elements every page has, equal in tag, \
             classes, attributes and children count, with the text they all share; an element \
             marked {CONTENT_ATTR} holds a page's own content. -->\n",
            others.len() + 1
        );
        if let Some(root) = key.root_element().filter(|&r| in_template(r)) {
            write(key, root, &in_template, &stable_text, &mut html);
        }
        SiteTemplate::from_html(&html)
    }

    /// Reads a template file. A file without mend's header counts as
    /// learned from one page.
    pub fn from_html(html: &str) -> SiteTemplate {
        let doc = Document::parse_str(html);
        let pages = doc
            .all()
            .filter(|&n| doc.kind(n) == NodeKind::Comment)
            .find_map(|n| {
                let text = doc.text(n).trim_start();
                let rest = text.strip_prefix(HEADER)?;
                rest.split_whitespace().next()?.parse().ok()
            })
            .unwrap_or(1);
        SiteTemplate { doc, pages }
    }

    /// The template written as readable HTML, one element per line.
    pub fn to_html(&self) -> String {
        let mut html = format!(
            "<!DOCTYPE html>\n<!-- {HEADER}{} pages: the elements every page has, equal in tag, \
             classes, attributes and children count, with the text they all share; an element \
             marked {CONTENT_ATTR} holds a page's own content. -->\n",
            self.pages
        );
        if let Some(root) = self.doc.root_element() {
            let all = |_: NodeId| true;
            let text = |n: NodeId| Some(own_text(&self.doc, n)).filter(|t| !t.is_empty());
            write(&self.doc, root, &all, &text, &mut html);
        }
        html
    }

    /// How many pages it was learned from.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// How many elements it has, placeholders not counted.
    pub fn elements(&self) -> usize {
        self.doc
            .all()
            .filter(|&n| self.doc.is_element(n) && self.doc.attr(n, CONTENT_ATTR).is_none())
            .count()
    }

    /// The template laid over `page` by the equal top-down mapping.
    pub fn regions(&self, page: &Document) -> Regions {
        let mut regions = Regions {
            template_elements: self.elements(),
            ..Regions::default()
        };
        for (t, p) in equal_top_down_mapping(&self.doc, page) {
            if self.doc.attr(t, CONTENT_ATTR).is_none() {
                regions.nodes.insert(p);
                regions.mapped += 1;
            }
        }
        regions
    }
}

/// Writes the template sub-tree of `root`: elements for which `keep` holds
/// with their attributes and their `text`, the others as placeholders.
fn write(
    doc: &Document,
    root: NodeId,
    keep: &dyn Fn(NodeId) -> bool,
    text: &dyn Fn(NodeId) -> Option<String>,
    out: &mut String,
) {
    // (node, depth, closing)
    let mut stack = vec![(root, 0usize, false)];
    while let Some((node, depth, closing)) = stack.pop() {
        let indent = "  ".repeat(depth.min(64));
        let name = doc.name(node);
        if closing {
            let _ = writeln!(out, "{indent}</{name}>");
            continue;
        }
        if !keep(node) || doc.attr(node, CONTENT_ATTR).is_some() {
            if VOID.contains(&name) {
                let _ = writeln!(out, "{indent}<{name} {CONTENT_ATTR}=\"\">");
            } else {
                let _ = writeln!(out, "{indent}<{name} {CONTENT_ATTR}=\"\"></{name}>");
            }
            continue;
        }
        let mut open = format!("<{name}");
        for attr in doc.attrs(node) {
            let attr_name = doc.attr_name(attr);
            if attr_name.starts_with("data-mend-") {
                continue;
            }
            let _ = write!(
                open,
                " {attr_name}=\"{}\"",
                escape_attr(doc.attr_value(attr))
            );
        }
        open.push('>');
        if VOID.contains(&name) {
            let _ = writeln!(out, "{indent}{open}");
            continue;
        }
        let own = text(node).map(|t| escape_text(&t)).unwrap_or_default();
        let children: Vec<NodeId> = if RAW.contains(&name) {
            Vec::new()
        } else {
            doc.element_children(node).collect()
        };
        if children.is_empty() {
            let _ = writeln!(out, "{indent}{open}{own}</{name}>");
            continue;
        }
        let _ = writeln!(out, "{indent}{open}{own}");
        stack.push((node, depth, true));
        for &c in children.iter().rev() {
            stack.push((c, depth + 1, false));
        }
    }
}
