//! Change sensing: before searching for a broken pattern's data, say how the
//! page changed around it, so that the search knows where to look first and
//! the adaptation records what kind of change it answered.
//!
//! The classes follow the change sensing of Liu et al. (local against
//! structural), with the two that mend's templates add:
//!
//! - **none**: the stored context is on the page as it was, and the
//!   pattern's XPath still selects the target in it (what broke is a value,
//!   not the page's shape);
//! - **unstable**: only content known to change from load to load differs:
//!   the page matches the wrapper's unstable-content template (`mend learn`),
//!   or the context is intact but for texts marked unstable;
//! - **template**: the context is intact, the XPath no longer reaches it, and
//!   the site's frame (`mend template`) changed on this page: a redesign of
//!   the menus or the header moved the content's absolute position;
//! - **local**: the target's parent is on the page unchanged, and the target
//!   moved or changed inside it (or the whole unchanged context moved, with
//!   no change of the frame to explain it: the parent still holds it);
//! - **structural**: the parent itself changed: no element of the page is
//!   the old parent under the old grandparent.
//!
//! "Unchanged" compares an element's tag and its attributes with their
//! values, except the attributes the tree-gram masks (generated ids,
//! unstable attributes); a text compares as the tree-gram keeps it. The
//! parent is the old parent when it and its own parent are unchanged
//! ([`PARENT_LEVELS`]): an ancestor further up may be renamed without the
//! parent itself changing, as Liu et al. define a local change, and the
//! grandparent keeps a bare `div` from being found in every `div` of the
//! page.
//!
//! The class chooses the search scope: a local change is searched for
//! inside the page's counterpart of the stored context's root first (it
//! holds the old parent), and the whole page only when that fails.
//!
//! ## What it refuses
//!
//! Sensing reads only the page, the tree-gram and what the caller knows of
//! the page as a whole; it never reads the page the tree-gram was captured
//! on, so what lies above the stored context is judged by the XPath alone.
//! It compares at most [`MAX_CANDIDATES`] elements that could be the old
//! parent, each walk bounded by the stored context's size, and keeps no
//! recursion: a deep page costs a loop, not a stack.

use std::str::FromStr;

use serde::Serialize;

use crate::dom::{Document, NodeId, NodeKind};
use crate::treegram::{
    MASKED_ATTR, TreeGram, UNSTABLE_ATTR, UNSTABLE_TEXT_ATTR, kept_attr, kept_text,
};

/// How many elements of the page are compared as the old parent's counterpart.
pub const MAX_CANDIDATES: usize = 256;
/// How many levels, from the target's parent up, must be unchanged for the
/// parent to be the old parent.
pub const PARENT_LEVELS: usize = 2;
/// How many of a tree-gram's instances are sensed.
const MAX_INSTANCES: usize = 3;

/// How a page changed around a broken pattern, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeScope {
    /// The stored context is intact and the XPath still selects the target.
    None,
    /// Only content that changes from load to load differs.
    Unstable,
    /// The site's frame changed; the content's context is intact.
    Template,
    /// The target's parent is unchanged; the target moved or changed inside it.
    Local,
    /// The parent itself changed, or the intact context moved.
    Structural,
}

impl ChangeScope {
    /// Every class, narrowest first.
    pub const ALL: [ChangeScope; 5] = [
        ChangeScope::None,
        ChangeScope::Unstable,
        ChangeScope::Template,
        ChangeScope::Local,
        ChangeScope::Structural,
    ];

    /// Its name, as the store and `mend log` write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeScope::None => "none",
            ChangeScope::Unstable => "unstable",
            ChangeScope::Template => "template",
            ChangeScope::Local => "local",
            ChangeScope::Structural => "structural",
        }
    }
}

impl std::fmt::Display for ChangeScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ChangeScope {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ChangeScope::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                format!("unknown change class {s:?}: none, unstable, template, local or structural")
            })
    }
}

/// What is known of the page as a whole, from the wrapper's templates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageFacts {
    /// The page matches the unstable-content template: nothing but what
    /// changes from load to load differs from what was learned.
    pub only_unstable: bool,
    /// A site template is known and the page no longer has all of its frame.
    pub frame_changed: bool,
}

/// What sensing found for one pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sensed {
    /// The class of the change.
    pub class: ChangeScope,
    /// For a local change, the page's counterpart of the stored context's
    /// root (which holds the old parent), when one element is clearly it:
    /// the scope searched first.
    pub within: Option<NodeId>,
}

/// Senses how `doc` changed around the pattern whose tree-gram is `gram`.
/// `selected` says whether the pattern's XPath, as it stands, selects the
/// page element given (or an attribute or text of it).
pub fn sense(
    doc: &Document,
    gram: &TreeGram,
    facts: PageFacts,
    selected: &dyn Fn(NodeId) -> bool,
) -> Sensed {
    if facts.only_unstable {
        return Sensed {
            class: ChangeScope::Unstable,
            within: None,
        };
    }
    let mut best: Option<Sensed> = None;
    for instance in gram.instances.iter().take(MAX_INSTANCES) {
        let Some(&(owner, _)) = instance.targets.first() else {
            continue;
        };
        let sensed = sense_instance(doc, &gram.doc, instance.root, owner, facts, selected);
        // The instance that changed least tells: a record whose first item
        // was edited while the others stand is a local change.
        if best.is_none_or(|b| {
            sensed.class < b.class || (sensed.class == b.class && b.within.is_none())
        }) {
            best = Some(sensed);
        }
    }
    best.unwrap_or(Sensed {
        class: ChangeScope::Structural,
        within: None,
    })
}

/// Senses one stored instance: its root, and the element that carries its
/// first target mark.
fn sense_instance(
    doc: &Document,
    gram: &Document,
    root: NodeId,
    owner: NodeId,
    facts: PageFacts,
    selected: &dyn Fn(NodeId) -> bool,
) -> Sensed {
    let structural = Sensed {
        class: ChangeScope::Structural,
        within: None,
    };
    // The old parent, and its ancestors up to the context's root (only
    // the first PARENT_LEVELS must be unchanged; see `climb`).
    let parent = if owner == root {
        owner
    } else {
        gram.parent(owner)
            .filter(|&p| gram.is_element(p))
            .unwrap_or(owner)
    };
    let mut chain = vec![parent];
    let mut at = parent;
    while at != root {
        match gram.parent(at) {
            Some(p) if gram.is_element(p) => {
                chain.push(p);
                at = p;
            }
            _ => break,
        }
    }
    let chain: Vec<Shell> = chain.iter().map(|&g| Shell::of(gram, g)).collect();
    let Some(tag) = doc.sym(&chain[0].tag) else {
        return structural;
    };
    // The page's elements that are the old parent with its ancestors, and
    // for each the counterpart of the context's root.
    let mut roots = Vec::new();
    for p in doc.all() {
        if !doc.is_element(p) || doc.name_sym(p) != tag {
            continue;
        }
        // Two alike parents in one context share its counterpart.
        if let Some(r) = climb(doc, p, &chain)
            && !roots.contains(&r)
        {
            roots.push(r);
            if roots.len() == MAX_CANDIDATES {
                break;
            }
        }
    }
    if roots.is_empty() {
        return structural;
    }
    let mut compared: Vec<(NodeId, Comparison)> = roots
        .into_iter()
        .map(|r| (r, compare(gram, root, owner, doc, r)))
        .collect();
    let intact: Vec<&(NodeId, Comparison)> = compared.iter().filter(|(_, c)| c.intact()).collect();
    if let Some((_, c)) = intact.first() {
        let class = match c.target {
            Some(t) if selected(t) && c.unstable_differs => ChangeScope::Unstable,
            Some(t) if selected(t) => ChangeScope::None,
            _ if facts.frame_changed => ChangeScope::Template,
            // The whole context stands elsewhere: its parent is unchanged
            // and holds the target, so searching in it is the short way.
            _ => ChangeScope::Local,
        };
        let within = match (class, intact.as_slice()) {
            (ChangeScope::Local, [(r, _)]) => Some(*r),
            _ => None,
        };
        return Sensed { class, within };
    }
    // The parent stands and what is below it changed. The search begins in
    // the counterpart most like the stored context, when one is clearly it.
    compared.sort_by(|a, b| b.1.alike.total_cmp(&a.1.alike));
    let within = match compared.as_slice() {
        [only] => Some(only.0),
        [first, second, ..] if first.1.alike - second.1.alike >= 0.1 => Some(first.0),
        _ => None,
    };
    Sensed {
        class: ChangeScope::Local,
        within,
    }
}

/// An element as sensing compares it: its tag, and its attributes with
/// their values as the tree-gram keeps them, masked ones left out.
struct Shell {
    tag: String,
    attrs: Vec<(String, String)>,
    masked: Vec<String>,
}

impl Shell {
    fn of(gram: &Document, element: NodeId) -> Shell {
        let masked: Vec<String> = gram
            .attr(element, MASKED_ATTR)
            .map(|m| m.split_ascii_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        let attrs = gram
            .attrs(element)
            .iter()
            .map(|a| (gram.attr_name(a), gram.attr_value(a)))
            .filter(|(n, _)| !n.starts_with("data-mend-") && !masked.iter().any(|m| m == n))
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect();
        Shell {
            tag: gram.name(element).to_owned(),
            attrs,
            masked,
        }
    }

    /// Whether the page element `p` is this element unchanged.
    fn is(&self, doc: &Document, p: NodeId) -> bool {
        if doc.name(p) != self.tag {
            return false;
        }
        let mut compared = 0;
        for a in doc.attrs(p) {
            let name = doc.attr_name(a);
            if name.starts_with("data-mend-") || self.masked.iter().any(|m| m == name) {
                continue;
            }
            compared += 1;
            match self.attrs.iter().find(|(n, _)| n == name) {
                Some((_, v)) if *v == kept_attr(doc.attr_value(a)) => {}
                _ => return false,
            }
        }
        compared == self.attrs.len()
    }
}

/// The page ancestor of `p` that stands where the chain's last element
/// stands, when `p` and its first ancestors are the chain's first
/// [`PARENT_LEVELS`] elements unchanged; further up, only the number of
/// levels counts (a page with fewer ends at its highest element).
fn climb(doc: &Document, p: NodeId, chain: &[Shell]) -> Option<NodeId> {
    let mut at = p;
    for (i, shell) in chain.iter().enumerate() {
        if i > 0 {
            match doc.parent(at).filter(|&a| doc.is_element(a)) {
                Some(a) => at = a,
                None if i >= PARENT_LEVELS => return Some(at),
                None => return None,
            }
        }
        if i < PARENT_LEVELS && !shell.is(doc, at) {
            return None;
        }
    }
    Some(at)
}

/// A stored context compared with a page sub-tree.
#[derive(Clone, Copy, Debug, Default)]
struct Comparison {
    /// Same elements in the same order, each unchanged.
    same_shape: bool,
    /// And the same texts, but for those marked unstable.
    same_text: bool,
    /// A text marked unstable differs.
    unstable_differs: bool,
    /// The counterpart of the element that carries the target mark, when
    /// the walk reached it.
    target: Option<NodeId>,
    /// How alike the two are, in [0, 1], for ranking counterparts: the
    /// Dice coefficient of their elements, each taken as its tag, classes
    /// and own text (an inserted sibling costs one element, not the
    /// alignment of every element after it).
    alike: f64,
}

impl Comparison {
    fn intact(&self) -> bool {
        self.same_shape && self.same_text
    }
}

/// Walks the stored sub-tree at `root` and the page's at `p` side by side,
/// element children in order, without recursion.
fn compare(gram: &Document, root: NodeId, owner: NodeId, doc: &Document, p: NodeId) -> Comparison {
    let mut out = Comparison {
        same_shape: true,
        same_text: true,
        ..Comparison::default()
    };
    let mut stack = vec![(root, Some(p))];
    while let Some((g, p)) = stack.pop() {
        let Some(p) = p.filter(|&p| Shell::of(gram, g).is(doc, p)) else {
            out.same_shape = false;
            continue;
        };
        if g == owner {
            out.target = Some(p);
        }
        if gram.attr(g, UNSTABLE_ATTR).is_some() {
            continue;
        }
        if texts(gram, g, true) != texts(doc, p, false) {
            if gram.attr(g, UNSTABLE_TEXT_ATTR).is_some() {
                out.unstable_differs = true;
            } else {
                out.same_text = false;
            }
        }
        let stored_children: Vec<NodeId> = gram.element_children(g).collect();
        let page_children: Vec<NodeId> = doc.element_children(p).collect();
        if stored_children.len() != page_children.len() {
            out.same_shape = false;
        }
        for (i, &c) in stored_children.iter().enumerate().rev() {
            stack.push((c, page_children.get(i).copied()));
        }
    }
    out.alike = alike(gram, root, doc, p);
    out
}

/// The Dice coefficient of the elements of the stored sub-tree at `root`
/// and the page's at `p`, each element taken as its tag, `class` and own
/// text. The page's side is read up to four times the stored size.
fn alike(gram: &Document, root: NodeId, doc: &Document, p: NodeId) -> f64 {
    use std::collections::HashMap;
    let key = |d: &Document, n: NodeId, stored: bool| {
        format!(
            "{}\u{1}{}\u{1}{}",
            d.name(n),
            d.attr(n, "class").unwrap_or(""),
            texts(d, n, stored)
        )
    };
    let mut bag: HashMap<String, isize> = HashMap::new();
    let mut stored = 0usize;
    for n in std::iter::once(root)
        .chain(gram.descendants(root))
        .filter(|&n| gram.is_element(n))
    {
        *bag.entry(key(gram, n, true)).or_default() += 1;
        stored += 1;
    }
    let (mut page, mut common) = (0usize, 0usize);
    for n in std::iter::once(p)
        .chain(doc.descendants(p))
        .filter(|&n| doc.is_element(n))
    {
        if page == 4 * stored {
            break;
        }
        page += 1;
        if let Some(count) = bag.get_mut(&key(doc, n, false))
            && *count > 0
        {
            *count -= 1;
            common += 1;
        }
    }
    if stored + page == 0 {
        return 0.0;
    }
    2.0 * common as f64 / (stored + page) as f64
}

/// The words of the texts directly in `element`, as a tree-gram keeps them
/// (each text cut as the file cuts it); `stored` when they already are. A
/// stored file writes each text on a line of its own, so texts are compared
/// by their words, not by their nodes.
fn texts(doc: &Document, element: NodeId, stored: bool) -> String {
    let mut out = String::new();
    if crate::dom::markup::RAW.contains(&doc.name(element)) {
        return out;
    }
    for c in doc.children(element) {
        if doc.kind(c) != NodeKind::Text {
            continue;
        }
        let kept;
        let text = if stored {
            doc.text(c)
        } else {
            kept = kept_text(doc.text(c));
            &kept
        };
        for word in text.split_ascii_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}
