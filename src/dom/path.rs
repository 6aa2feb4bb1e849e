//! Canonical absolute paths, in the form of lxml's `getpath`.
//!
//! An element's path names every ancestor element from the root element down,
//! adding a 1-based index `[k]` only where a sibling element shares the name:
//! `/html/body/div[3]/a`. Text and comment nodes add `text()[k]` or
//! `comment()[k]` to their parent's path, with k counted among the parent's
//! children of that kind; attributes add `@name`. The document node is `/`.
//! These paths are how mend names nodes to people and to outside tools, and
//! they are valid XPath that selects the node again.
//!
//! ## What it refuses
//!
//! A path uses names and positions only, never ids, classes or text, so it
//! names a node of this document and of no other. [`Document::attr_path`]
//! does not check that the element has the attribute, and a [`PathCache`]
//! used with another document than its own gives wrong paths, undetected.
//! Naming walks up from the node in a loop, never recursing.

use std::collections::HashMap;

use super::{Document, NodeId, NodeKind};

/// Canonical paths of many nodes of one document, with each parent's element
/// children numbered once. Naming a node scans its siblings, so naming every
/// one of 60,000 sibling records (one violation each) would take time
/// quadratic in their number; with the cache it is linear.
#[derive(Debug, Default)]
pub struct PathCache {
    steps: HashMap<NodeId, String>,
}

impl PathCache {
    /// An empty cache, for one document.
    pub fn new() -> PathCache {
        PathCache::default()
    }
}

impl Document {
    /// The canonical absolute path of `node`, as [`Document::path`] gives it,
    /// with element steps taken from (and added to) `cache`, which must only
    /// ever be used with this document.
    pub fn path_cached(&self, node: NodeId, cache: &mut PathCache) -> String {
        self.path_with(node, |cur| {
            if !cache.steps.contains_key(&cur) {
                self.number_children(self.parent(cur), cur, cache);
            }
            cache.steps.get(&cur).cloned().unwrap_or_default()
        })
    }

    /// The canonical absolute path of `node`, each element's step from
    /// `element_step`.
    fn path_with(&self, node: NodeId, mut element_step: impl FnMut(NodeId) -> String) -> String {
        let mut steps: Vec<String> = Vec::new();
        let mut cur = node;
        loop {
            match self.kind(cur) {
                NodeKind::Document => break,
                NodeKind::Element => steps.push(element_step(cur)),
                NodeKind::Text => {
                    steps.push(format!("text()[{}]", self.kind_index(cur, NodeKind::Text)))
                }
                NodeKind::Comment => steps.push(format!(
                    "comment()[{}]",
                    self.kind_index(cur, NodeKind::Comment)
                )),
            }
            match self.parent(cur) {
                Some(p) => cur = p,
                None => break,
            }
        }
        join(&steps)
    }

    /// Puts the step of every element child of `parent` into the cache (of
    /// `node` alone when it has no parent).
    fn number_children(&self, parent: Option<NodeId>, node: NodeId, cache: &mut PathCache) {
        let Some(parent) = parent else {
            cache.steps.insert(node, self.name(node).to_owned());
            return;
        };
        let mut totals: HashMap<u32, usize> = HashMap::new();
        for c in self.children(parent).filter(|&c| self.is_element(c)) {
            *totals.entry(self.name_sym(c).index()).or_default() += 1;
        }
        let mut seen: HashMap<u32, usize> = HashMap::new();
        for c in self.children(parent).filter(|&c| self.is_element(c)) {
            let sym = self.name_sym(c).index();
            let k = seen.entry(sym).or_default();
            *k += 1;
            let step = if totals.get(&sym).copied().unwrap_or(0) > 1 {
                format!("{}[{}]", self.name(c), k)
            } else {
                self.name(c).to_owned()
            };
            cache.steps.insert(c, step);
        }
    }

    /// The canonical absolute path of `node`.
    pub fn path(&self, node: NodeId) -> String {
        self.path_with(node, |cur| self.element_step(cur))
    }

    /// The canonical path of the attribute `name` of `element`.
    pub fn attr_path(&self, element: NodeId, name: &str) -> String {
        let mut out = self.path(element);
        out.push_str("/@");
        out.push_str(name);
        out
    }

    fn element_step(&self, node: NodeId) -> String {
        let name = self.name_sym(node);
        let same = |n: NodeId| self.is_element(n) && self.name_sym(n) == name;
        let Some(parent) = self.parent(node) else {
            return self.name(node).to_owned();
        };
        let mut before = 0;
        let mut total = 0;
        for sibling in self.children(parent) {
            if same(sibling) {
                total += 1;
                if sibling < node {
                    before += 1;
                }
            }
        }
        if total > 1 {
            format!("{}[{}]", self.name(node), before + 1)
        } else {
            self.name(node).to_owned()
        }
    }

    fn kind_index(&self, node: NodeId, kind: NodeKind) -> usize {
        let Some(parent) = self.parent(node) else {
            return 1;
        };
        self.children(parent)
            .take_while(|&c| c != node)
            .filter(|&c| self.kind(c) == kind)
            .count()
            + 1
    }
}

/// Steps collected from the node up, joined from the root down.
fn join(steps: &[String]) -> String {
    if steps.is_empty() {
        return "/".to_owned();
    }
    let mut out = String::with_capacity(steps.iter().map(|s| s.len() + 1).sum());
    for step in steps.iter().rev() {
        out.push('/');
        out.push_str(step);
    }
    out
}
