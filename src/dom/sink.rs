//! The html5ever `TreeSink` that builds a [`Document`](super::Document)'s
//! own tables while the tree builder runs.
//!
//! Every node is a [`Node`] of the finished document from the moment it is
//! created: names are interned, attribute values and text are written once
//! into the document's string buffer, and attributes into its table. Only
//! the order is provisional. html5ever moves nodes around while it builds
//! (foster parenting, the adoption agency algorithm, reparenting), so nodes
//! are kept in creation order with explicit sibling links (`Links`), and
//! `layout.rs` puts them in document order in place when parsing ends. No
//! second copy of the tree, its text or its attributes is ever made: on a
//! dense page this halves the peak memory of parsing.
//!
//! While building, a node's `end` holds its depth (what the depth bound of
//! `build.rs` reads); its final value is written by the layout.
//!
//! ## What it refuses
//!
//! Nothing: every call of the tree builder is honoured. Text appended to a
//! text node whose characters are no longer at the end of the buffer (text
//! fostered out of a table, say) is gathered in a string of its own and
//! written back once at the end, so that no input makes appending quadratic;
//! the same holds for attributes added to `<html>` or `<body>` by a second
//! such tag.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::HashMap;

use html5ever::interface::{ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::{Attribute, LocalName, QualName, ns};

use super::{Attr, Doctype, NONE, Names, Namespace, Node, NodeKind, Sym};

/// A node as the tree builder holds it: its id in creation order and, for an
/// element, its interned name and namespace, so that the name the tree
/// builder asks for again and again is one lookup away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Handle {
    pub(super) node: u32,
    /// The element's name; `NONE` for nodes that are not elements.
    name: u32,
    namespace: Namespace,
}

impl Handle {
    fn other(node: u32) -> Handle {
        Handle {
            node,
            name: NONE,
            namespace: Namespace::Html,
        }
    }
}

/// The links a node has while the tree is built, beside those a [`Node`]
/// keeps (parent, previous sibling, last child).
#[derive(Clone, Copy)]
pub(super) struct Links {
    pub(super) first_child: u32,
    pub(super) next: u32,
}

const UNLINKED: Links = Links {
    first_child: NONE,
    next: NONE,
};

/// The document being built, in creation order.
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) links: Vec<Links>,
    pub(super) attrs: Vec<Attr>,
    pub(super) text: String,
    pub(super) names: Names,
    atoms: AtomCache,
    /// Text nodes whose text grew after other text was written: their whole
    /// text, by node id, written to `text` when parsing ends.
    pub(super) detached_text: HashMap<u32, String>,
    /// Elements that gained attributes after others were written: their
    /// whole list, by node id, written to `attrs` when parsing ends.
    pub(super) grown_attrs: HashMap<u32, GrownAttrs>,
}

/// The attributes of an element that a later tag added to.
pub(super) struct GrownAttrs {
    pub(super) list: Vec<Attr>,
    names: hashbrown::HashSet<Sym>,
}

pub(super) struct Sink {
    pub(super) tree: RefCell<Tree>,
    /// The atom of each element name, by its symbol, as the tree builder
    /// asks for it: one entry a distinct name, not one an element.
    atoms_by_sym: RefCell<Vec<Option<LocalName>>>,
    pub(super) doctype: RefCell<Option<Doctype>>,
    quirks: Cell<QuirksMode>,
    /// Depth of the node most recently inserted: close to the depth of the
    /// tree builder's stack of open elements.
    pub(super) current_depth: Cell<u32>,
}

impl Sink {
    /// A sink for a text of `bytes` bytes with about `markup` tags in it: the
    /// tables are sized from both, so that they rarely grow by doubling.
    pub(super) fn new(bytes: usize, markup: usize) -> Self {
        let mut nodes = Vec::with_capacity(markup + 4);
        nodes.push(new_node(
            NodeKind::Document,
            Namespace::Html,
            Sym(0),
            (0, 0),
        ));
        let mut links = Vec::with_capacity(markup + 4);
        links.push(UNLINKED);
        Sink {
            tree: RefCell::new(Tree {
                nodes,
                links,
                attrs: Vec::new(),
                text: String::with_capacity(bytes / 2),
                names: Names::default(),
                atoms: AtomCache::default(),
                detached_text: HashMap::new(),
                grown_attrs: HashMap::new(),
            }),
            atoms_by_sym: RefCell::new(Vec::new()),
            doctype: RefCell::new(None),
            quirks: Cell::new(QuirksMode::NoQuirks),
            current_depth: Cell::new(0),
        }
    }

    /// The finished tree, still in creation order, and the doctype.
    pub(super) fn into_tree(self) -> (Tree, Option<Doctype>) {
        (self.tree.into_inner(), self.doctype.into_inner())
    }
}

fn new_node(kind: NodeKind, namespace: Namespace, name: Sym, data: (u32, u32)) -> Node {
    Node {
        parent: NONE,
        end: 0,
        prev_sibling: NONE,
        last_child: NONE,
        kind,
        namespace,
        name,
        data,
    }
}

impl Tree {
    fn push(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        self.links.push(UNLINKED);
        (self.nodes.len() - 1) as u32
    }

    /// Writes `s` at the end of the text buffer, returning its range.
    fn write(&mut self, s: &str) -> (u32, u32) {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        (start, s.len() as u32)
    }

    fn attr_name(&mut self, name: &QualName) -> Sym {
        match &name.prefix {
            Some(prefix) => self.names.intern(&format!("{}:{}", prefix, name.local)),
            None => self.atoms.intern(&mut self.names, &name.local),
        }
    }

    fn detach(&mut self, node: u32) {
        let n = &self.nodes[node as usize];
        let (parent, prev, next) = (n.parent, n.prev_sibling, self.links[node as usize].next);
        if parent == NONE {
            return;
        }
        self.stitch(parent, (prev, next), (next, prev));
        let n = &mut self.nodes[node as usize];
        n.parent = NONE;
        n.prev_sibling = NONE;
        self.links[node as usize].next = NONE;
    }

    /// Links `node` as a child of `parent`, before `before` (or last when NONE).
    fn link(&mut self, parent: u32, node: u32, before: u32) {
        let prev = self.prev_of(parent, before);
        let n = &mut self.nodes[node as usize];
        n.parent = parent;
        n.prev_sibling = prev;
        self.links[node as usize].next = before;
        self.stitch(parent, (prev, before), (node, node));
    }

    /// The child of `parent` just before `before` (its last child when NONE).
    fn prev_of(&self, parent: u32, before: u32) -> u32 {
        if before == NONE {
            self.nodes[parent as usize].last_child
        } else {
            self.nodes[before as usize].prev_sibling
        }
    }

    /// Points the siblings `prev` and `next` of `parent`'s children at their
    /// new neighbours `(after_prev, before_next)`: `prev`'s next sibling (or
    /// `parent`'s first child when there is no `prev`) becomes `after_prev`,
    /// and `next`'s previous sibling (or `parent`'s last child) `before_next`.
    fn stitch(
        &mut self,
        parent: u32,
        (prev, next): (u32, u32),
        (after_prev, before_next): (u32, u32),
    ) {
        if prev != NONE {
            self.links[prev as usize].next = after_prev;
        } else {
            self.links[parent as usize].first_child = after_prev;
        }
        if next != NONE {
            self.nodes[next as usize].prev_sibling = before_next;
        } else {
            self.nodes[parent as usize].last_child = before_next;
        }
    }

    /// Appends `text` to the text node `node`.
    fn grow_text(&mut self, node: u32, text: &str) {
        if let Some(own) = self.detached_text.get_mut(&node) {
            own.push_str(text);
            return;
        }
        let (start, len) = self.nodes[node as usize].data;
        if (start + len) as usize == self.text.len() {
            self.text.push_str(text);
            self.nodes[node as usize].data.1 += text.len() as u32;
        } else {
            // Other text was written since: this node's text is gathered
            // apart from now on, each piece copied once.
            let mut own = self.text[start as usize..(start + len) as usize].to_owned();
            own.push_str(text);
            self.detached_text.insert(node, own);
        }
    }
}

impl Sink {
    /// Inserts a node or text under `parent` before `before` (NONE: at the end),
    /// merging text into an adjacent text node as the tree builder requires.
    fn insert(&self, parent: u32, before: u32, child: NodeOrText<Handle>) {
        let mut tree = self.tree.borrow_mut();
        match child {
            NodeOrText::AppendNode(Handle { node, .. }) => {
                tree.detach(node);
                tree.link(parent, node, before);
                let depth = tree.nodes[parent as usize].end + 1;
                tree.nodes[node as usize].end = depth;
                self.current_depth.set(depth);
            }
            NodeOrText::AppendText(text) => {
                let prev = tree.prev_of(parent, before);
                if prev != NONE && tree.nodes[prev as usize].kind == NodeKind::Text {
                    tree.grow_text(prev, &text);
                    return;
                }
                let data = tree.write(&text);
                let node = tree.push(new_node(NodeKind::Text, Namespace::Html, Sym(0), data));
                tree.link(parent, node, before);
            }
        }
    }

    fn create_data_node(&self, kind: NodeKind, text: &str) -> Handle {
        let mut tree = self.tree.borrow_mut();
        let data = tree.write(text);
        Handle::other(tree.push(new_node(kind, Namespace::Html, Sym(0), data)))
    }
}

/// An element's name as the tree builder reads it.
#[derive(Debug)]
pub(super) struct ElementName<'a> {
    local: Ref<'a, LocalName>,
    ns: &'static html5ever::Namespace,
}

static HTML_NS: html5ever::Namespace = ns!(html);
static SVG_NS: html5ever::Namespace = ns!(svg);
static MATHML_NS: html5ever::Namespace = ns!(mathml);

impl ElemName for ElementName<'_> {
    fn ns(&self) -> &html5ever::Namespace {
        self.ns
    }

    fn local_name(&self) -> &LocalName {
        &self.local
    }
}

impl TreeSink for Sink {
    type Handle = Handle;
    type Output = Self;
    type ElemName<'a> = ElementName<'a>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        Handle::other(0)
    }

    #[inline]
    fn elem_name<'a>(&'a self, target: &'a Handle) -> ElementName<'a> {
        // The tree builder only asks for names of elements, and asks often:
        // it reads the name of every element on its stack to find a scope.
        let ns = match target.namespace {
            Namespace::Html => &HTML_NS,
            Namespace::Svg => &SVG_NS,
            Namespace::MathMl => &MATHML_NS,
        };
        ElementName {
            local: Ref::map(self.atoms_by_sym.borrow(), |atoms| {
                atoms[target.name as usize]
                    .as_ref()
                    .expect("an element's name has its atom")
            }),
            ns,
        }
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        _flags: ElementFlags,
    ) -> Handle {
        let namespace = if name.ns == ns!(svg) {
            Namespace::Svg
        } else if name.ns == ns!(mathml) {
            Namespace::MathMl
        } else {
            Namespace::Html
        };
        let mut tree = self.tree.borrow_mut();
        let Tree { atoms, names, .. } = &mut *tree;
        let sym = atoms.intern(names, &name.local);
        let start = tree.attrs.len() as u32;
        for a in &attrs {
            let name = tree.attr_name(&a.name);
            let value = tree.write(&a.value);
            tree.attrs.push(Attr { name, value });
        }
        let data = (start, attrs.len() as u32);
        let node = tree.push(new_node(NodeKind::Element, namespace, sym, data));
        let mut atoms = self.atoms_by_sym.borrow_mut();
        let slot = sym.0 as usize;
        if atoms.len() <= slot {
            atoms.resize(slot + 1, None);
        }
        atoms[slot].get_or_insert(name.local);
        Handle {
            node,
            name: sym.0,
            namespace,
        }
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        self.create_data_node(NodeKind::Comment, &text)
    }

    fn create_pi(&self, _target: StrTendril, data: StrTendril) -> Handle {
        // HTML has no processing instructions; the HTML tree builder never calls this.
        self.create_data_node(NodeKind::Comment, &data)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        self.insert(parent.node, NONE, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        let has_parent = self.tree.borrow().nodes[element.node as usize].parent != NONE;
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        *self.doctype.borrow_mut() = Some(Doctype {
            name: name.to_string(),
            public_id: public_id.to_string(),
            system_id: system_id.to_string(),
        });
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        *target
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.quirks.set(mode);
    }

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        let parent = self.tree.borrow().nodes[sibling.node as usize].parent;
        if parent == NONE {
            return;
        }
        self.insert(parent, sibling.node, new_node);
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        if target.name == NONE {
            return;
        }
        let mut tree = self.tree.borrow_mut();
        let node = target.node;
        // A second `<html>` or `<body>` tag adds what the element lacks. The
        // element's list moves apart with a set of its names, kept from tag
        // to tag, so that a page of many such tags stays linear.
        let mut grown = match tree.grown_attrs.remove(&node) {
            Some(grown) => grown,
            None => {
                let (start, len) = tree.nodes[node as usize].data;
                let list = tree.attrs[start as usize..(start + len) as usize].to_vec();
                GrownAttrs {
                    names: list.iter().map(|a| a.name).collect(),
                    list,
                }
            }
        };
        for a in &attrs {
            let name = tree.attr_name(&a.name);
            if grown.names.insert(name) {
                let value = tree.write(&a.value);
                grown.list.push(Attr { name, value });
            }
        }
        tree.grown_attrs.insert(node, grown);
    }

    fn remove_from_parent(&self, target: &Handle) {
        self.tree.borrow_mut().detach(target.node);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        let mut tree = self.tree.borrow_mut();
        let mut child = tree.links[node.node as usize].first_child;
        while child != NONE {
            let next = tree.links[child as usize].next;
            tree.detach(child);
            tree.link(new_parent.node, child, NONE);
            child = next;
        }
    }
}

/// Interns html5ever's names through a small cache keyed by the atom itself.
/// An atom compares and hashes as one integer, so the few dozen names a page
/// uses over and over are found without hashing their text; a miss costs one
/// ordinary lookup in [`Names`], so no input makes interning slower than that.
struct AtomCache {
    slots: Vec<Option<(LocalName, Sym)>>,
}

/// Slots in the cache: a power of two.
const ATOM_SLOTS: usize = 512;

impl Default for AtomCache {
    fn default() -> Self {
        AtomCache {
            slots: vec![None; ATOM_SLOTS],
        }
    }
}

impl AtomCache {
    fn intern(&mut self, names: &mut Names, atom: &LocalName) -> Sym {
        // The low bits of a short atom's hash are its tag and length, so the
        // slot comes from the top bits of a multiplicative mix of all of them.
        let slot = (atom.get_hash().wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> (64 - ATOM_SLOTS.trailing_zeros())) as usize;
        if let Some((cached, sym)) = &self.slots[slot]
            && cached == atom
        {
            return *sym;
        }
        let sym = names.intern(atom);
        self.slots[slot] = Some((atom.clone(), sym));
        sym
    }
}
