//! Tree-grams: what each pattern matched when its wrapper was last known
//! good, kept as readable HTML so that healing can find the data again after
//! a redesign, and a person can read and diff what was kept.
//!
//! A tree-gram file holds, for one pattern, up to `k` *instances*. Each is a
//! sub-tree copied from the page: for a record pattern, one matched instance;
//! for a field, the field's node with enough ancestor context to be
//! distinctive (a field is often a single text node, and a lone `<span>`
//! matches anything). The nodes the pattern selected are marked with a
//! `data-mend-target` attribute: empty for the element itself, or a list of
//! tokens, `.` for the element, `@name` for one of its attributes, `text:N`
//! for its N-th text child. A header of
//! `<meta name="mend:*">` elements records the wrapper, the pattern path, its
//! XPath, the page's URL and SHA-256, the capture time, how many nodes the
//! pattern matched, the pattern's *locator ensemble*: other XPaths that
//! selected exactly the same nodes, one per kind of evidence (`locators.rs`),
//! and, when the site's template was known, whether the targets lay in it.
//!
//! The file is written one element per line with two-space indentation, so
//! that a tree-gram diffs well in git, and every instance sits inside a
//! `<template>` element, where the HTML parser accepts table rows, list items
//! and options without the context they need elsewhere. Script and style
//! bodies are left out, long text is cut, and what is known to be unstable is
//! masked: an element marked `data-mend-unstable` is left out of every
//! comparison with its sub-tree, and attributes named in `data-mend-masked`
//! are left out of labels (their values are blanked), and the text directly
//! in an element marked `data-mend-unstable-text` (the values seen, joined by
//! `||`) is compared by nothing. Ids that look generated
//! are masked at capture, because they change from one load to the next.
//!
//! ## What it refuses
//!
//! The module is pure: [`capture()`] builds file contents and [`TreeGram::parse`]
//! reads them; reading and writing files is the caller's job. A pattern
//! whose instance is `html`, `head` or `body` gets no tree-gram (the page
//! itself is its context); a field's context never climbs above its parent
//! pattern's instance, nor to `body`. An instance that would not read back
//! from the file as it stands on the page (the parser builds some trees that
//! it would not build again from their markup: a heading foster-parented
//! out of a table into another heading, a form directly in a table) is left
//! out, and a pattern left with none gets no tree-gram, with the reason.

mod across;
mod capture;
mod copies;
mod format;
mod labels;
mod locators;
mod mask;
mod neighbours;

pub use crate::unstable::{MASKED_ATTR, UNSTABLE_ATTR};
pub use across::Across;
pub use capture::{
    CaptureOptions, Captured, Skipped, capture, capture_across, treegram_dir, treegram_file,
};
pub use copies::Signature;
pub(crate) use format::{kept_attr, kept_text};
pub use labels::labels;
pub use locators::{Locator, LocatorKind, MAX_LOCATORS, ensemble};
pub use mask::{GramMask, unstable_parts};
pub use neighbours::{MIN_NEIGHBOUR_TEXTS, Neighbours, neighbours};

use crate::dom::{Document, NodeId};
use crate::xpath::Item;

/// The attribute that marks a target node in a tree-gram.
pub const TARGET_ATTR: &str = "data-mend-target";
/// The attribute that marks the root of each instance (on its `<template>`).
pub const INSTANCE_ATTR: &str = "data-mend-instance";
/// The attribute that gives, on each instance's `<template>`, the
/// canonical path (`Document::path`) its root had on the capture page.
pub const PATH_ATTR: &str = "data-mend-path";
/// The attribute that says an instance's root is its parent pattern's
/// instance (value `instance`), so that healing compares it with each new
/// parent instance instead of searching for it.
pub const CONTEXT_ATTR: &str = "data-mend-context";
/// The attribute that marks an element whose own text is unstable (it
/// changed across loads of the page), its value the values seen joined by
/// `||` (`Jul 23||Jun 8`): no comparison, witness or locator leans on it.
pub const UNSTABLE_TEXT_ATTR: &str = "data-mend-unstable-text";

/// A tree-gram read from its file.
#[derive(Debug)]
pub struct TreeGram {
    /// The tree-gram file parsed as HTML; the instances are sub-trees of it.
    pub doc: Document,
    /// What the header says.
    pub header: Header,
    /// The stored instances, in page order.
    pub instances: Vec<GramInstance>,
    /// The header's locators compiled once, in the same order (`None` for
    /// one that does not compile), as drift checks them on every page.
    compiled: Vec<Option<crate::xpath::XPath>>,
    /// The texts that stood around the first stored target, read once: the
    /// drift check asks for them on every page.
    neighbours: Option<Neighbours>,
}

/// The header of a tree-gram.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The wrapper's name.
    pub wrapper: String,
    /// The pattern's path of names (`book/price`).
    pub pattern: String,
    /// The pattern's XPath when the tree-gram was captured.
    pub xpath: String,
    /// The page's URL, when it was known.
    pub url: Option<String>,
    /// The SHA-256 of the page's bytes, in hex.
    pub sha256: String,
    /// When the tree-gram was captured (RFC 3339).
    pub captured: String,
    /// How many nodes the pattern matched on the page, over all parent instances.
    pub matched: usize,
    /// Other XPaths that selected exactly the same nodes on the page, one
    /// per kind of evidence (`<meta name="mend:locator" data-kind=...>`).
    pub locators: Vec<Locator>,
    /// Whether the pattern's targets lay in the site's template (the frame
    /// every page shares, `mend template`) on the capture page: `yes` for a
    /// menu's or a footer's label, `no` for a page's own content, absent
    /// when no template was known (`<meta name="mend:frame">`). A content
    /// pattern is never healed onto the frame.
    pub frame: Option<bool>,
    /// Whether the page's markup hid every target on the capture page
    /// (`dom::hidden`: a `hidden` attribute, an inline `display: none` on
    /// it or an ancestor), absent in tree-grams written before mend read it
    /// (`<meta name="mend:hidden">`). A shown target is never healed onto
    /// a hidden copy of it.
    pub hidden: Option<bool>,
    /// The texts around the first target on the capture page, when its
    /// stored context is the target alone and so holds none of them
    /// (`<meta name="mend:neighbour" data-levels data-nodes>`, one per
    /// text; see `neighbours.rs`). A lookalike of the target elsewhere on
    /// a page stands among none of them.
    pub neighbours: Option<Neighbours>,
    /// What the other pages showed, for a tree-gram captured over several
    /// (`across.rs`): absent for one page.
    pub across: Option<Across>,
    /// How many elements of the capture page looked exactly like the first
    /// target, itself included, when more than one did (`copies.rs`;
    /// `<meta name="mend:copies">`): absent for a target alone of its kind
    /// or without text, and in tree-grams written before mend counted them.
    pub copies: Option<usize>,
}

/// One stored instance: a context sub-tree with its targets marked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GramInstance {
    /// The root element of the context, in [`TreeGram::doc`].
    pub root: NodeId,
    /// The marked targets: the element that carries the mark and what of it is selected.
    pub targets: Vec<(NodeId, Target)>,
    /// Whether the root is the parent pattern's instance (a record's
    /// instance, or the record that holds a field).
    pub at_instance: bool,
}

/// What a target mark selects of the element that carries it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The element itself.
    Element,
    /// The attribute with this name.
    Attr(String),
    /// The element's N-th text child, counted from 1.
    Text(usize),
}

/// Why a tree-gram file could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TreeGramError {
    /// The file has no `mend:pattern` header: it is not a tree-gram.
    #[error("not a tree-gram: no <meta name=\"mend:pattern\"> header")]
    NoHeader,
    /// The file has no `<template data-mend-instance>` holding an element.
    #[error("the tree-gram holds no instance")]
    NoInstances,
    /// An instance has no marked target.
    #[error("instance {0} of the tree-gram has no data-mend-target mark")]
    NoTarget(usize),
    /// A target mark has a value that is not empty, `@name` or `text:N`.
    #[error(
        "instance {instance} has a target mark {value:?}: expected \"\", \"@name\" or \"text:N\""
    )]
    BadTarget {
        /// The instance, counted from 1.
        instance: usize,
        /// The mark's value.
        value: String,
    },
}

impl TreeGram {
    /// The header's locators, each with its compiled expression (`None`
    /// when it does not compile).
    pub fn locators(&self) -> impl Iterator<Item = (&Locator, Option<&crate::xpath::XPath>)> {
        self.header.locators.iter().zip(
            self.compiled
                .iter()
                .map(Option::as_ref)
                .chain(std::iter::repeat(None)),
        )
    }

    /// The texts that stood around the first stored target: read from its
    /// instance, or from the header's `mend:neighbour` texts when the
    /// instance is the target alone (see `neighbours`).
    pub fn stored_neighbours(&self) -> Option<&Neighbours> {
        self.neighbours.as_ref()
    }

    /// Reads a tree-gram from the bytes of its file.
    pub fn parse(bytes: &[u8]) -> Result<TreeGram, TreeGramError> {
        let mut gram = format::parse(bytes)?;
        gram.neighbours = gram.first_neighbours();
        Ok(gram)
    }

    /// The texts around the first instance's first target: from the
    /// instance, or the header's when the instance is the target alone.
    fn first_neighbours(&self) -> Option<Neighbours> {
        let first = self.instances.first()?;
        let &(target, _) = first.targets.first()?;
        neighbours(&self.doc, target, Some(first.root), &GramMask)
            .or_else(|| self.header.neighbours.clone())
    }

    /// The mask that hides what the tree-gram marks unstable.
    pub fn mask(&self) -> GramMask {
        GramMask
    }

    /// The number of elements an instance holds, masked ones included.
    pub fn instance_size(&self, instance: &GramInstance) -> usize {
        let end = self.doc.subtree_end(instance.root).0;
        (instance.root.0..end)
            .filter(|&n| self.doc.is_element(NodeId(n)))
            .count()
    }
}

impl Target {
    /// The item of `doc` that this mark on `element` selects, if `element` has it.
    pub fn item(&self, doc: &Document, element: NodeId) -> Option<Item> {
        match self {
            Target::Element => Some(Item::Node(element)),
            Target::Attr(name) => {
                let range = doc.attr_range(element);
                range
                    .into_iter()
                    .find(|&i| doc.attr_name(doc.attr_at(i)) == name)
                    .map(|i| Item::Attr {
                        element,
                        index: i as u32,
                    })
            }
            Target::Text(n) => doc
                .children(element)
                .filter(|&c| doc.kind(c) == crate::dom::NodeKind::Text)
                .nth(n.saturating_sub(1))
                .map(Item::Node),
        }
    }

    /// What a target item is, relative to the element that owns it; `None`
    /// for items that tree-grams do not mark (namespace nodes, comments).
    pub fn of(doc: &Document, item: Item) -> Option<(NodeId, Target)> {
        match item {
            Item::Node(n) if doc.is_element(n) => Some((n, Target::Element)),
            Item::Node(n) if doc.kind(n) == crate::dom::NodeKind::Text => {
                let parent = doc.parent(n).filter(|&p| doc.is_element(p))?;
                let index = doc
                    .children(parent)
                    .filter(|&c| doc.kind(c) == crate::dom::NodeKind::Text)
                    .position(|c| c == n)?;
                Some((parent, Target::Text(index + 1)))
            }
            Item::Attr { element, index } => {
                let name = doc.attr_name(doc.attr_at(index as usize)).to_owned();
                Some((element, Target::Attr(name)))
            }
            _ => None,
        }
    }

    /// The mark's value as written in the file.
    pub fn mark(&self) -> String {
        match self {
            Target::Element => String::new(),
            Target::Attr(name) => format!("@{name}"),
            Target::Text(n) => format!("text:{n}"),
        }
    }

    /// Reads a mark's value.
    pub fn from_mark(value: &str) -> Option<Target> {
        let value = value.trim();
        if value.is_empty() || value == "." {
            Some(Target::Element)
        } else if let Some(name) = value.strip_prefix('@') {
            (!name.is_empty()).then(|| Target::Attr(name.to_owned()))
        } else {
            let n: usize = value.strip_prefix("text:")?.parse().ok()?;
            (n >= 1).then_some(Target::Text(n))
        }
    }
}

#[cfg(test)]
mod tests;
