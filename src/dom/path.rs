//! Canonical absolute paths, in the form of lxml's `getpath`.
//!
//! An element's path names every ancestor element from the root element down,
//! adding a 1-based index `[k]` only where a sibling element shares the name:
//! `/html/body/div[3]/a`. Text and comment nodes add `text()[k]` or
//! `comment()[k]` to their parent's path, with k counted among the parent's
//! children of that kind; attributes add `@name`. The document node is `/`.
//! These paths are how mend names nodes to people and to outside tools, and
//! they are valid XPath that selects the node again.

use super::{Document, NodeId, NodeKind};

impl Document {
    /// The canonical absolute path of `node`.
    pub fn path(&self, node: NodeId) -> String {
        let mut steps: Vec<String> = Vec::new();
        let mut cur = node;
        loop {
            match self.kind(cur) {
                NodeKind::Document => break,
                NodeKind::Element => steps.push(self.element_step(cur)),
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
