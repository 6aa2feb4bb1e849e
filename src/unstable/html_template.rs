//! The HtmlTemplate of a page: its element tree with what changes across
//! loads marked unstable, and how it is
//! written and read back.
//!
//! What a template keeps of a page: elements with their attributes, and
//! text with its white space collapsed; white-space-only text, comments,
//! and the content of `script`, `style` and the other raw-text elements are
//! left out (they say nothing a person sees, and a script's content changes
//! with every build).
//!
//! The operations that pair a template with a page, ADD, MATCH and
//! UPDATE, are in `combine.rs`.
//!
//! ## What it refuses
//!
//! An unstable text or attribute keeps at most [`MAX_VALUES`] distinct
//! values, the first seen. Reading a file never fails: any HTML reads as
//! some template, unmarked content is stable, and a missing header counts
//! as one load. A page without a root element gives a template of one empty
//! `html` element. Indentation in the file stops deepening at 64 levels.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{MASKED_ATTR, UNSTABLE_ATTR, UNSTABLE_TEXT_ELEMENT, VALUE_SEPARATOR};
use crate::dom::markup::{RAW, VOID, escape_attr, escape_text, markup_children};
use crate::dom::{Document, NodeId, NodeKind};

/// The most distinct values kept of one unstable text or attribute: a
/// clock watched for minutes shows hundreds; the first few say enough.
pub const MAX_VALUES: usize = 32;

/// A page's template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HtmlTemplate {
    pub(super) nodes: Vec<TemplateNode>,
    pub(super) loads: usize,
}

/// The index of a node in its template; the root element is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TemplateNodeId(pub u32);

/// One element or text of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateNode {
    /// The element's name, or `None` for text.
    pub name: Option<String>,
    /// An element's attributes, in the order first seen.
    pub attrs: Vec<(String, Content)>,
    /// A text's content (empty for an element).
    pub text: Content,
    /// Its children, elements and texts in document order.
    pub children: Vec<TemplateNodeId>,
    /// Whether its children came and went across loads: everything below
    /// it is unstable.
    pub unstable_children: bool,
}

/// A text or an attribute value: the same on every load, or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// The same on every load.
    Stable(String),
    /// It differed; the distinct values seen, first seen first.
    Unstable(Vec<String>),
}

/// Why a page does not match a template: where, as the template's path of
/// tags, and what differed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {why}")]
pub struct Mismatch {
    /// The template node's path, `/html/body/div[2]` (positions among
    /// same-tag siblings, from 1).
    pub path: String,
    /// What differed.
    pub why: String,
}

impl Content {
    /// Whether it differed across loads.
    pub fn is_unstable(&self) -> bool {
        matches!(self, Content::Unstable(_))
    }

    /// The stable value, if it is stable.
    pub fn stable(&self) -> Option<&str> {
        match self {
            Content::Stable(s) => Some(s),
            Content::Unstable(_) => None,
        }
    }

    /// Every value seen, as the paper writes them: `Jul 23||Jun 8`.
    pub fn values(&self) -> String {
        match self {
            Content::Stable(s) => s.clone(),
            Content::Unstable(values) => values.join(VALUE_SEPARATOR),
        }
    }

    /// Takes in `value` seen on another load: a stable content that differs
    /// becomes unstable.
    pub(super) fn see(&mut self, value: &str) {
        match self {
            Content::Stable(s) if s == value => {}
            Content::Stable(s) => *self = Content::Unstable(vec![std::mem::take(s), value.into()]),
            Content::Unstable(values) => {
                if values.len() < MAX_VALUES && !values.iter().any(|v| v == value) {
                    values.push(value.to_owned());
                }
            }
        }
    }

    /// `self`, made unstable with every value of `before` kept first.
    pub(super) fn keep_unstable(&mut self, before: &Content) {
        if let Content::Unstable(old) = before {
            let now = self.values_list();
            *self = Content::Unstable(old.clone());
            for v in now {
                self.see(&v);
            }
        }
    }

    fn values_list(&self) -> Vec<String> {
        match self {
            Content::Stable(s) => vec![s.clone()],
            Content::Unstable(values) => values.clone(),
        }
    }
}

impl HtmlTemplate {
    /// The template of one load of a page: everything stable.
    pub fn from_document(doc: &Document) -> HtmlTemplate {
        let mut template = HtmlTemplate {
            nodes: Vec::new(),
            loads: 1,
        };
        let Some(root) = doc.root_element() else {
            template.nodes.push(element_node("html", Vec::new()));
            return template;
        };
        template
            .nodes
            .push(element_node(doc.name(root), attrs_of(doc, root)));
        let mut stack = vec![(TemplateNodeId(0), root)];
        while let Some((t, d)) = stack.pop() {
            for child in DocView(doc).kids(d) {
                let node = match doc.kind(child) {
                    NodeKind::Element => element_node(doc.name(child), attrs_of(doc, child)),
                    _ => text_node(Content::Stable(normalized(doc.text(child)))),
                };
                let id = template.push(node);
                template.nodes[t.0 as usize].children.push(id);
                if doc.is_element(child) {
                    stack.push((id, child));
                }
            }
        }
        template
    }

    /// How many loads it combines.
    pub fn loads(&self) -> usize {
        self.loads
    }

    /// The root element.
    pub fn root(&self) -> TemplateNodeId {
        TemplateNodeId(0)
    }

    /// A node.
    pub fn node(&self, id: TemplateNodeId) -> &TemplateNode {
        &self.nodes[id.0 as usize]
    }

    /// Every node, the root first, in document order of the first load.
    pub fn nodes(&self) -> impl Iterator<Item = (TemplateNodeId, &TemplateNode)> {
        let mut stack = vec![self.root()];
        std::iter::from_fn(move || {
            let id = stack.pop()?;
            stack.extend(self.node(id).children.iter().rev());
            Some((id, self.node(id)))
        })
    }

    /// The template as a readable HTML file: one element a line, indented
    /// by depth; an unstable attribute keeps its values (`Jul 23||Jun 8`)
    /// and is named in `data-mend-masked`; an element with unstable
    /// children carries `data-mend-unstable`; an unstable text is written
    /// as a `<mend-unstable values="…">` element (an attribute, not content,
    /// so that it reads back the same below the parser's depth bound, where
    /// elements are left empty).
    pub fn to_html(&self) -> String {
        let mut out = String::from("<!DOCTYPE html>\n");
        out.push_str(&format!(
            "<!-- mend unstable-content template of {} loads: data-mend-masked names the \
             attributes that differed, data-mend-unstable marks content that came and went, \
             <{UNSTABLE_TEXT_ELEMENT}> holds the values of a text that differed. -->\n",
            self.loads
        ));
        // (node, depth, closing): an element is visited to open it, then
        // again after its children to close it.
        let mut stack = vec![(self.root(), 0usize, false)];
        while let Some((id, depth, closing)) = stack.pop() {
            let node = self.node(id);
            let indent = "  ".repeat(depth.min(64));
            let Some(name) = &node.name else {
                match &node.text {
                    Content::Stable(s) => {
                        let _ = writeln!(out, "{indent}{}", escape_text(s));
                    }
                    Content::Unstable(_) => {
                        let _ = writeln!(
                            out,
                            "{indent}<{UNSTABLE_TEXT_ELEMENT} values=\"{}\"></{UNSTABLE_TEXT_ELEMENT}>",
                            escape_attr(&node.text.values())
                        );
                    }
                }
                continue;
            };
            if closing {
                let _ = writeln!(out, "{indent}</{name}>");
                continue;
            }
            let mut open = format!("{indent}<{name}");
            let mut masked = Vec::new();
            for (attr, content) in &node.attrs {
                let _ = write!(open, " {attr}=\"{}\"", escape_attr(&content.values()));
                if content.is_unstable() {
                    masked.push(attr.as_str());
                }
            }
            if !masked.is_empty() {
                let _ = write!(open, " {MASKED_ATTR}=\"{}\"", masked.join(" "));
            }
            if node.unstable_children {
                let _ = write!(open, " {UNSTABLE_ATTR}=\"\"");
            }
            open.push('>');
            let _ = writeln!(out, "{open}");
            if !VOID.contains(&name.as_str()) {
                stack.push((id, depth, true));
                for &child in node.children.iter().rev() {
                    stack.push((child, depth + 1, false));
                }
            }
        }
        out
    }

    /// Reads back a template that [`HtmlTemplate::to_html`] wrote (or a
    /// person edited): the marks become unstable content again. Any HTML
    /// reads as some template; what is not marked is stable.
    pub fn from_html(html: &str) -> HtmlTemplate {
        let doc = Document::parse_str(html);
        let mut template = HtmlTemplate::from_document(&doc);
        template.loads = loads_in_comment(&doc).unwrap_or(1);
        let view = DocView(&doc);
        // The template was built from `doc` itself: its nodes pair with
        // the document's in order.
        let Some(root) = doc.root_element() else {
            return template;
        };
        let mut stack = vec![(template.root(), root)];
        while let Some((t, d)) = stack.pop() {
            if !doc.is_element(d) {
                continue;
            }
            let masked: Vec<&str> = doc
                .attr(d, MASKED_ATTR)
                .map(|m| m.split_ascii_whitespace().collect())
                .unwrap_or_default();
            let node = &mut template.nodes[t.0 as usize];
            node.unstable_children = doc.attr(d, UNSTABLE_ATTR).is_some();
            node.attrs
                .retain(|(n, _)| n != MASKED_ATTR && n != UNSTABLE_ATTR);
            for (name, content) in &mut node.attrs {
                if masked.contains(&name.as_str()) {
                    *content = split_values(&content.values());
                }
            }
            let kids: Vec<TemplateNodeId> = node.children.clone();
            for (k, child) in kids.into_iter().zip(view.kids(d)) {
                if doc.name(child) == UNSTABLE_TEXT_ELEMENT {
                    let values = split_values(doc.attr(child, "values").unwrap_or_default());
                    template.nodes[k.0 as usize] = text_node(values);
                } else {
                    stack.push((k, child));
                }
            }
        }
        template
    }

    fn push(&mut self, node: TemplateNode) -> TemplateNodeId {
        self.nodes.push(node);
        TemplateNodeId(self.nodes.len() as u32 - 1)
    }

    pub(super) fn see_attrs(&mut self, t: TemplateNodeId, seen: &[(&str, &str)]) {
        let attrs = &mut self.nodes[t.0 as usize].attrs;
        for (name, content) in attrs.iter_mut() {
            match seen.iter().find(|(n, _)| n == name) {
                Some((_, value)) => content.see(value),
                // Gone on this load: unstable, with what was seen before.
                None => content.see(""),
            }
        }
        for (name, value) in seen {
            if !attrs.iter().any(|(n, _)| n == name) {
                attrs.push((
                    (*name).to_owned(),
                    Content::Unstable(vec![String::new(), (*value).to_owned()]),
                ));
            }
        }
    }

    /// The path of `target`: tags from the root, with positions among
    /// same-tag siblings.
    pub(super) fn path(&self, target: TemplateNodeId) -> String {
        let mut parent = vec![None; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            for c in &node.children {
                parent[c.0 as usize] = Some(TemplateNodeId(i as u32));
            }
        }
        let mut steps = Vec::new();
        let mut at = target;
        while let Some(p) = parent[at.0 as usize] {
            let label = label_of(self.node(at));
            let same: Vec<TemplateNodeId> = self
                .node(p)
                .children
                .iter()
                .copied()
                .filter(|&c| label_of(self.node(c)) == label)
                .collect();
            let step = if label == "#text" { "text()" } else { label };
            steps.push(if same.len() > 1 {
                let position = same.iter().position(|&c| c == at).unwrap_or(0) + 1;
                format!("{step}[{position}]")
            } else {
                step.to_owned()
            });
            at = p;
        }
        steps.push(label_of(self.node(at)).to_owned());
        steps.reverse();
        format!("/{}", steps.join("/"))
    }

    pub(super) fn mismatch(&self, t: TemplateNodeId, why: String) -> Mismatch {
        Mismatch {
            path: self.path(t),
            why,
        }
    }
}

fn element_node(name: &str, attrs: Vec<(String, Content)>) -> TemplateNode {
    TemplateNode {
        name: Some(name.to_owned()),
        attrs,
        text: Content::Stable(String::new()),
        children: Vec::new(),
        unstable_children: false,
    }
}

fn text_node(text: Content) -> TemplateNode {
    TemplateNode {
        name: None,
        attrs: Vec::new(),
        text,
        children: Vec::new(),
        unstable_children: false,
    }
}

fn attrs_of(doc: &Document, node: NodeId) -> Vec<(String, Content)> {
    doc.attrs(node)
        .iter()
        .map(|a| {
            (
                doc.attr_name(a).to_owned(),
                Content::Stable(doc.attr_value(a).to_owned()),
            )
        })
        .collect()
}

/// What differs between a template element's attributes and `seen`.
pub(super) fn attrs_differ(node: &TemplateNode, seen: &[(&str, &str)]) -> Option<String> {
    for (name, content) in &node.attrs {
        let value = seen.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        match (content.stable(), value) {
            (Some(_), None) => return Some(format!("no attribute {name}")),
            (Some(stable), Some(v)) if stable != v => {
                return Some(format!("{name}={v:?}, not {stable:?}"));
            }
            _ => {}
        }
    }
    seen.iter()
        .find(|(n, _)| !node.attrs.iter().any(|(name, _)| name == n))
        .map(|(n, _)| format!("an attribute {n} it never had"))
}

pub(super) fn label_of(node: &TemplateNode) -> &str {
    node.name.as_deref().unwrap_or("#text")
}

/// Text with its white space collapsed.
pub(super) fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn split_values(values: &str) -> Content {
    let mut content: Option<Content> = None;
    for v in values.split(VALUE_SEPARATOR) {
        match &mut content {
            None => content = Some(Content::Unstable(vec![v.to_owned()])),
            Some(c) => c.see(v),
        }
    }
    content.unwrap_or(Content::Unstable(Vec::new()))
}

fn loads_in_comment(doc: &Document) -> Option<usize> {
    doc.children(NodeId::ROOT)
        .filter(|&n| doc.kind(n) == NodeKind::Comment)
        .find_map(|n| {
            let text = doc.text(n);
            let rest = text.split("template of ").nth(1)?;
            rest.split_whitespace().next()?.parse().ok()
        })
}

/// A tree that a template's children pair with: a page, or another
/// template.
pub(super) trait View {
    type Node: Copy;
    /// The element's name, or `#text`.
    fn label(&self, node: Self::Node) -> &str;
    /// Its children as a template keeps them.
    fn kids(&self, node: Self::Node) -> Vec<Self::Node>;
    /// A text's collapsed text, or an element's own text; `None` where it is
    /// unstable (a template's).
    fn text(&self, node: Self::Node) -> Option<Cow<'_, str>>;
    /// Its attributes whose values are known.
    fn attrs(&self, node: Self::Node) -> Vec<(&str, &str)>;
}

/// A page, as a template sees it.
pub(super) struct DocView<'d>(pub &'d Document);

impl View for DocView<'_> {
    type Node = NodeId;

    fn label(&self, node: NodeId) -> &str {
        if self.0.is_element(node) {
            self.0.name(node)
        } else {
            "#text"
        }
    }

    fn kids(&self, node: NodeId) -> Vec<NodeId> {
        let doc = self.0;
        if RAW.contains(&doc.name(node)) {
            return Vec::new();
        }
        markup_children(doc, node).collect()
    }

    fn text(&self, node: NodeId) -> Option<Cow<'_, str>> {
        let doc = self.0;
        if doc.is_element(node) {
            let own: Vec<&str> = doc
                .children(node)
                .filter(|&c| doc.kind(c) == NodeKind::Text)
                .map(|c| doc.text(c))
                .collect();
            Some(Cow::Owned(normalized(&own.join(" "))))
        } else {
            Some(Cow::Owned(normalized(doc.text(node))))
        }
    }

    fn attrs(&self, node: NodeId) -> Vec<(&str, &str)> {
        self.0
            .attrs(node)
            .iter()
            .map(|a| (self.0.attr_name(a), self.0.attr_value(a)))
            .collect()
    }
}

/// A template, as another template sees it.
pub(super) struct TemplateView<'t>(pub &'t HtmlTemplate);

impl View for TemplateView<'_> {
    type Node = TemplateNodeId;

    fn label(&self, node: TemplateNodeId) -> &str {
        label_of(self.0.node(node))
    }

    fn kids(&self, node: TemplateNodeId) -> Vec<TemplateNodeId> {
        self.0.node(node).children.clone()
    }

    fn text(&self, node: TemplateNodeId) -> Option<Cow<'_, str>> {
        let n = self.0.node(node);
        if n.name.is_none() {
            return n.text.stable().map(Cow::Borrowed);
        }
        let mut own = Vec::new();
        for &c in &n.children {
            let child = self.0.node(c);
            if child.name.is_none() {
                own.push(child.text.stable()?);
            }
        }
        Some(Cow::Owned(own.join(" ")))
    }

    fn attrs(&self, node: TemplateNodeId) -> Vec<(&str, &str)> {
        self.0
            .node(node)
            .attrs
            .iter()
            .filter_map(|(n, c)| Some((n.as_str(), c.stable()?)))
            .collect()
    }
}
