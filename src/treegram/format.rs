//! The tree-gram file: writing it one element per line, and reading it back.
//!
//! ## What it refuses
//!
//! Writing leaves out comments, white-space-only text, the content of
//! raw-text elements and of elements marked unstable, and the page's own
//! `data-mend-*` attributes; it blanks masked attributes and ids that look
//! generated, and cuts text and attribute values at [`MAX_TEXT`] and
//! [`MAX_ATTR`] characters. Reading fails ([`TreeGramError`]) without a
//! `mend:pattern` header, with no instance, or on an instance without a
//! target or with a mark it cannot read; unknown headers are ignored, an
//! unreadable count reads as 0, and a locator of unknown kind is dropped.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::{
    CONTEXT_ATTR, GramInstance, Header, INSTANCE_ATTR, Locator, LocatorKind, MASKED_ATTR,
    PATH_ATTR, TARGET_ATTR, Target, TreeGram, TreeGramError, UNSTABLE_ATTR, UNSTABLE_TEXT_ATTR,
};
use crate::dom::markup::{RAW, VOID, escape_attr, escape_text, markup_children};
use crate::dom::{Document, NodeId, NodeKind};
use crate::similarity::Mask;
use crate::xpath::generate::looks_generated;

/// Text longer than this, in characters, is cut in the file: healing
/// compares only the start of a node's text (`adapt::likeness`), and a
/// person reading the file needs only its start too.
const MAX_TEXT: usize = 200;
/// Attribute values longer than this are cut too (inline styles, srcsets, JSON).
const MAX_ATTR: usize = 200;

/// One instance to write: its root in the page and its targets.
pub(super) struct Draft {
    pub root: NodeId,
    pub targets: Vec<(NodeId, Target)>,
    /// Whether the root is the parent pattern's instance itself.
    pub at_instance: bool,
}

/// Writes a whole tree-gram file; with it, the elements of each instance in
/// the order written, for [`misread`].
pub(super) fn write(
    doc: &Document,
    header: &Header,
    drafts: &[Draft],
    unstable: &dyn Mask,
) -> (String, Vec<Vec<NodeId>>) {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n");
    out.push_str(
        "<!-- mend tree-gram: the pattern's matches when the wrapper was last known good. \
         Healing compares a changed page with it; data-mend-* attributes are mend's marks. -->\n",
    );
    let mut meta = |name: &str, value: &str| {
        let _ = writeln!(
            out,
            "<meta name=\"mend:{name}\" content=\"{}\">",
            escape_attr(value)
        );
    };
    meta("wrapper", &header.wrapper);
    meta("pattern", &header.pattern);
    meta("xpath", &header.xpath);
    if let Some(url) = &header.url {
        meta("url", url);
    }
    meta("sha256", &header.sha256);
    meta("captured", &header.captured);
    meta("matched", &header.matched.to_string());
    if let Some(frame) = header.frame {
        meta("frame", if frame { "yes" } else { "no" });
    }
    if let Some(hidden) = header.hidden {
        meta("hidden", if hidden { "yes" } else { "no" });
    }
    if let Some(copies) = header.copies {
        meta("copies", &copies.to_string());
    }
    if let Some(n) = &header.neighbours {
        for text in &n.texts {
            let _ = writeln!(
                out,
                "<meta name=\"mend:neighbour\" data-levels=\"{}\" data-nodes=\"{}\" content=\"{}\">",
                n.levels,
                n.nodes,
                escape_attr(text)
            );
        }
    }
    if let Some(a) = &header.across {
        let _ = writeln!(out, "<meta name=\"mend:pages\" content=\"{}\">", a.pages);
        let _ = writeln!(
            out,
            "<meta name=\"mend:present\" content=\"{}\">",
            a.present
        );
        let _ = writeln!(
            out,
            "<meta name=\"mend:matched-range\" content=\"{} {}\">",
            a.matched_min, a.matched_max
        );
        for label in &a.labels {
            let _ = writeln!(
                out,
                "<meta name=\"mend:label\" content=\"{}\">",
                escape_attr(label)
            );
        }
    }
    for locator in &header.locators {
        let _ = writeln!(
            out,
            "<meta name=\"mend:locator\" data-kind=\"{}\" content=\"{}\">",
            locator.kind,
            escape_attr(&locator.xpath)
        );
    }
    let mut written = Vec::with_capacity(drafts.len());
    for (i, draft) in drafts.iter().enumerate() {
        let _ = writeln!(
            out,
            "<template {INSTANCE_ATTR}=\"{}\"{} {PATH_ATTR}=\"{}\">",
            i + 1,
            if draft.at_instance {
                format!(" {CONTEXT_ATTR}=\"instance\"")
            } else {
                String::new()
            },
            escape_attr(&doc.path(draft.root))
        );
        written.push(write_tree(doc, draft, unstable, &mut out));
        out.push_str("</template>\n");
    }
    (out, written)
}

/// The first instance of a written file that does not read back as it was
/// written, with every target: the same elements in the same places, the
/// same ones marked.
///
/// The HTML parser builds some trees that it would not build again from
/// their own serialisation: an `<h1>` or `<a>` foster-parented out of a
/// table into another, a `<form>` directly in a `<table>` (dropped inside a
/// `<template>`). Such an instance would lose elements or its target when
/// the file is read. A target inside a raw-text element (a formatting
/// element the parser reopened in a `<plaintext>`) is never written at all.
pub(super) fn misread(
    html: &str,
    doc: &Document,
    drafts: &[Draft],
    written: &[Vec<NodeId>],
) -> Option<usize> {
    let file = Document::parse_str(html);
    let templates: Vec<NodeId> = file
        .all()
        .filter(|&n| file.is_element(n) && file.attr(n, INSTANCE_ATTR).is_some())
        .collect();
    for (i, (draft, elements)) in drafts.iter().zip(written).enumerate() {
        let number = (i + 1).to_string();
        let root = templates
            .iter()
            .find(|&&t| file.attr(t, INSTANCE_ATTR) == Some(number.as_str()))
            .and_then(|&t| file.element_children(t).next());
        let Some(root) = root else {
            return Some(i);
        };
        let read: Vec<NodeId> = (root.0..file.subtree_end(root).0)
            .map(NodeId)
            .filter(|&n| file.is_element(n))
            .collect();
        let written: HashSet<NodeId> = elements.iter().copied().collect();
        let marked: HashSet<NodeId> = draft.targets.iter().map(|(owner, _)| *owner).collect();
        let same = marked.is_subset(&written)
            && read.len() == elements.len()
            && parents(&file, &read) == parents(doc, elements)
            && read.iter().zip(elements).all(|(&r, &w)| {
                file.name(r) == doc.name(w)
                    && file.attr(r, TARGET_ATTR).is_some() == marked.contains(&w)
            });
        if !same {
            return Some(i);
        }
    }
    None
}

/// For each of `elements`, the position among them of its parent, if there.
fn parents(doc: &Document, elements: &[NodeId]) -> Vec<Option<usize>> {
    let at: HashMap<NodeId, usize> = elements.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    elements
        .iter()
        .map(|&n| doc.parent(n).and_then(|p| at.get(&p).copied()))
        .collect()
}

/// Writes one instance's sub-tree, iteratively; returns its elements in the
/// order written.
fn write_tree(doc: &Document, draft: &Draft, unstable: &dyn Mask, out: &mut String) -> Vec<NodeId> {
    let mut written = Vec::new();
    let mut marks: HashMap<NodeId, Vec<String>> = HashMap::new();
    for (n, t) in &draft.targets {
        marks.entry(*n).or_default().push(t.mark());
    }
    // (node, depth, closing): a closing entry writes the end tag.
    let mut stack: Vec<(NodeId, usize, bool)> = vec![(draft.root, 1, false)];
    while let Some((node, depth, closing)) = stack.pop() {
        let indent = "  ".repeat(depth.min(64));
        let name = doc.name(node);
        if closing {
            let _ = writeln!(out, "{indent}</{name}>");
            continue;
        }
        match doc.kind(node) {
            NodeKind::Text => {
                let text = cut(&normalize(doc.text(node)), MAX_TEXT);
                if !text.is_empty() {
                    let _ = writeln!(out, "{indent}{}", escape_text(&text));
                }
                continue;
            }
            NodeKind::Element => written.push(node),
            _ => continue,
        }
        let skipped = unstable.skips(doc, node);
        let open = open_tag(doc, node, unstable, skipped, marks.get(&node));
        if VOID.contains(&name) {
            let _ = writeln!(out, "{indent}{open}");
            continue;
        }
        let raw = RAW.contains(&name);
        let children: Vec<NodeId> = if skipped || raw {
            Vec::new()
        } else {
            markup_children(doc, node).collect()
        };
        match children.as_slice() {
            [] => {
                let _ = writeln!(out, "{indent}{open}</{name}>");
            }
            [only] if doc.kind(*only) == NodeKind::Text => {
                let text = cut(&normalize(doc.text(*only)), MAX_TEXT);
                let _ = writeln!(out, "{indent}{open}{}</{name}>", escape_text(&text));
            }
            _ => {
                let _ = writeln!(out, "{indent}{open}");
                stack.push((node, depth, true));
                for &c in children.iter().rev() {
                    stack.push((c, depth + 1, false));
                }
            }
        }
    }
    written
}

/// An element's start tag as a tree-gram keeps it: its attributes, those
/// the mask hides or that look generated emptied and named, its unstable
/// texts, and the marks of the targets it holds.
fn open_tag(
    doc: &Document,
    node: NodeId,
    unstable: &dyn Mask,
    skipped: bool,
    marks: Option<&Vec<String>>,
) -> String {
    let name = doc.name(node);
    let mut open = format!("<{name}");
    let mut masked: Vec<&str> = Vec::new();
    for attr in doc.attrs(node) {
        let attr_name = doc.attr_name(attr);
        if attr_name.starts_with("data-mend-") {
            continue;
        }
        let value = doc.attr_value(attr);
        let hide = unstable.masks_attr(doc, node, attr_name)
            || (attr_name == "id" && looks_generated(value));
        if hide {
            masked.push(attr_name);
            let _ = write!(open, " {attr_name}=\"\"");
        } else {
            let _ = write!(
                open,
                " {attr_name}=\"{}\"",
                escape_attr(&cut(value, MAX_ATTR))
            );
        }
    }
    if !masked.is_empty() {
        let _ = write!(open, " {MASKED_ATTR}=\"{}\"", masked.join(" "));
    }
    if skipped {
        let _ = write!(open, " {UNSTABLE_ATTR}=\"\"");
    } else if let Some(values) = unstable_text(doc, node, unstable) {
        let _ = write!(
            open,
            " {UNSTABLE_TEXT_ATTR}=\"{}\"",
            escape_attr(&cut(&values, MAX_ATTR))
        );
    }
    if let Some(tokens) = marks {
        let value = if tokens.iter().all(String::is_empty) {
            String::new()
        } else {
            tokens
                .iter()
                .map(|t| if t.is_empty() { "." } else { t.as_str() })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = write!(open, " {TARGET_ATTR}=\"{}\"", escape_attr(&value));
    }
    open.push('>');
    open
}

/// The values seen of the unstable texts directly in `element`, joined by
/// `||` (empty when the mask does not know them), or `None` when none of
/// its texts is unstable.
fn unstable_text(doc: &Document, element: NodeId, unstable: &dyn Mask) -> Option<String> {
    let mut values: Vec<String> = Vec::new();
    let mut any = false;
    for child in doc.children(element) {
        if doc.kind(child) == NodeKind::Text && unstable.masks_text(doc, child) {
            any = true;
            if let Some(v) = unstable.text_values(doc, child) {
                values.push(v);
            }
        }
    }
    any.then(|| values.join(crate::unstable::VALUE_SEPARATOR))
}

/// The header's record of its capture pages, begun when the first of its
/// elements is read.
fn across(header: &mut Header) -> &mut super::Across {
    header.across.get_or_insert_with(|| super::Across {
        matched_max: usize::MAX,
        ..Default::default()
    })
}

/// A count in a header, 0 when it does not read as one.
fn number(value: &str) -> usize {
    value.trim().parse().unwrap_or(0)
}

/// Reads a tree-gram file.
pub(super) fn parse(bytes: &[u8]) -> Result<TreeGram, TreeGramError> {
    let doc = Document::parse(bytes);
    let mut header = Header::default();
    let mut has_pattern = false;
    let mut templates = Vec::new();
    for n in doc.all() {
        if !doc.is_element(n) {
            continue;
        }
        match doc.name(n) {
            "meta" => {
                let Some(name) = doc.attr(n, "name").and_then(|v| v.strip_prefix("mend:")) else {
                    continue;
                };
                let value = doc.attr(n, "content").unwrap_or_default().to_owned();
                has_pattern |= name == "pattern";
                read_meta(&doc, n, name, value, &mut header);
            }
            "template" if doc.attr(n, INSTANCE_ATTR).is_some() => templates.push(n),
            _ => {}
        }
    }
    if !has_pattern {
        return Err(TreeGramError::NoHeader);
    }
    // A header that says nothing of its pages was not captured over several.
    // A tree-gram is captured where its pattern matched, so it was present
    // on one page at least.
    if header.across.as_ref().is_some_and(|a| a.pages < 2) {
        header.across = None;
    }
    if let Some(a) = &mut header.across {
        a.present = a.present.clamp(1, a.pages);
    }
    let mut instances = Vec::new();
    for template in templates {
        if let Some(instance) = read_instance(&doc, template, instances.len() + 1)? {
            instances.push(instance);
        }
    }
    if instances.is_empty() {
        return Err(TreeGramError::NoInstances);
    }
    let compiled = header
        .locators
        .iter()
        .map(|l| crate::xpath::XPath::compile(&l.xpath).ok())
        .collect();
    Ok(TreeGram {
        doc,
        header,
        instances,
        compiled,
        // Filled in by `TreeGram::parse`: reading them takes `neighbours`,
        // which builds on this module.
        neighbours: None,
    })
}

/// Reads one `mend:` header line into `header`; a name it does not know
/// is passed over, for files of later versions.
fn read_meta(doc: &Document, n: NodeId, name: &str, value: String, header: &mut Header) {
    let yes_no = |value: &str| match value.trim() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    };
    match name {
        "wrapper" => header.wrapper = value,
        "pattern" => header.pattern = value,
        "xpath" => header.xpath = value,
        "url" => header.url = Some(value),
        "sha256" => header.sha256 = value,
        "captured" => header.captured = value,
        "matched" => header.matched = value.trim().parse().unwrap_or(0),
        "frame" => header.frame = yes_no(&value),
        "hidden" => header.hidden = yes_no(&value),
        "copies" => header.copies = value.trim().parse().ok(),
        "neighbour" if !value.is_empty() => {
            let number = |name: &str| {
                doc.attr(n, name)
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0)
            };
            let neighbours = header.neighbours.get_or_insert_with(Default::default);
            neighbours.levels = number("data-levels");
            neighbours.nodes = number("data-nodes");
            neighbours.texts.push(value);
        }
        "pages" => across(header).pages = number(&value),
        "present" => across(header).present = number(&value),
        "matched-range" => {
            let mut parts = value.split_whitespace().map(number);
            let a = across(header);
            a.matched_min = parts.next().unwrap_or(0);
            a.matched_max = parts.next().unwrap_or(usize::MAX);
        }
        "label" if !value.trim().is_empty() => {
            across(header).labels.insert(value);
        }
        "locator" => {
            let kind = doc.attr(n, "data-kind").and_then(LocatorKind::parse);
            if let Some(kind) = kind.filter(|_| !value.trim().is_empty()) {
                header.locators.push(Locator { kind, xpath: value });
            }
        }
        _ => {}
    }
}

/// Reads the `number`th instance: its root and its marked targets. An
/// empty template is passed over; one without a target is an error.
fn read_instance(
    doc: &Document,
    template: NodeId,
    number: usize,
) -> Result<Option<GramInstance>, TreeGramError> {
    let Some(root) = doc.element_children(template).next() else {
        return Ok(None);
    };
    let mut targets = Vec::new();
    for n in (root.0..doc.subtree_end(root).0).map(NodeId) {
        if !doc.is_element(n) {
            continue;
        }
        if let Some(value) = doc.attr(n, TARGET_ATTR) {
            let bad = || TreeGramError::BadTarget {
                instance: number,
                value: value.to_owned(),
            };
            if value.trim().is_empty() {
                targets.push((n, Target::Element));
            }
            for token in value.split_ascii_whitespace() {
                targets.push((n, Target::from_mark(token).ok_or_else(bad)?));
            }
        }
    }
    if targets.is_empty() {
        return Err(TreeGramError::NoTarget(number));
    }
    let at_instance = doc.attr(template, CONTEXT_ATTR) == Some("instance");
    Ok(Some(GramInstance {
        root,
        targets,
        at_instance,
    }))
}

/// A text as a tree-gram file keeps it: whitespace collapsed, cut to its
/// first [`MAX_TEXT`] characters. What is compared with a stored text is
/// first made this, so that a cut text equals its page's text.
pub(crate) fn kept_text(text: &str) -> String {
    cut(&normalize(text), MAX_TEXT)
}

/// An attribute value as a tree-gram file keeps it: cut to its first
/// [`MAX_ATTR`] characters.
pub(crate) fn kept_attr(value: &str) -> String {
    cut(value, MAX_ATTR)
}

/// Whitespace collapsed, as `normalize-space`.
fn normalize(text: &str) -> String {
    text.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first `max` characters of `text`, with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}
