//! Tree construction: an html5ever `TreeSink` over a scratch arena, then one
//! pass that lays the finished tree out in document order.
//!
//! html5ever moves nodes around while it builds (foster parenting, the adoption
//! agency algorithm, reparenting), so the scratch arena keeps explicit sibling
//! links. When parsing ends, an iterative pre-order walk copies every reachable
//! node into the final [`Document`], whose ids are then document order. Template
//! contents are kept as the children of their `<template>`, as lxml and html5lib
//! present them, so that XPath sees them.
//!
//! ## What it refuses
//!
//! Parse errors are ignored: every text gives a document. Elements nest at
//! most [`MAX_DEPTH`] levels; a deeper start tag becomes an empty element
//! with its content after it, unless it switched the tokenizer to raw text.
//! Scripting is off, so `noscript` content is parsed as markup. Nodes the
//! tree builder removed are dropped, and adjacent texts merge. A page whose
//! tag holds too many attributes to tokenize on any stack that can be had
//! parses as empty, with a warning.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use std::collections::HashMap;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{Attribute, LocalName, QualName, ns};

use super::{Attr, Doctype, Document, NONE, Names, Namespace, Node, NodeKind, Sym};

/// How deep elements may nest. Deeper start tags become empty elements placed
/// at this depth (their would-be content follows them as siblings), which is
/// what Blink does at 512 levels. The HTML5 tree builder scans its stack of open
/// elements for every tag, so without a bound a page nested 100,000 levels deep
/// takes quadratic time to parse.
pub const MAX_DEPTH: u32 = 512;

/// Parses decoded HTML text into a document.
///
/// A page with a tag of more attributes than an ordinary stack holds while
/// tokenizing (see `tokenizer.rs`) is parsed again on a thread of its own
/// whose stack is sized for the input; if no such thread can be made, the
/// page parses as empty, with a warning, rather than overflow the stack.
pub(super) fn parse(text: &str) -> Document {
    let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_with(text, true)));
    match guarded {
        Ok(doc) => doc,
        Err(payload) if payload.is::<super::tokenizer::LongTag>() => parse_on_large_stack(text),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// [`parse_with`] unguarded, on a thread whose stack holds any tag of
/// `text`. html5gum recurses only through attributes whose values are
/// double-quoted, so half the double quotes of the text bound how many
/// attributes one recursion holds.
fn parse_on_large_stack(text: &str) -> Document {
    let quoted = memchr::memchr_iter(b'"', text.as_bytes()).count() / 2 + 1;
    let stack = (8 << 20) + quoted.saturating_mul(super::tokenizer::STACK_PER_ATTR);
    let parsed = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mend-parse".to_owned())
            .stack_size(stack)
            .spawn_scoped(scope, || parse_with(text, false))
            .ok()
            .and_then(|thread| thread.join().ok())
    });
    parsed.unwrap_or_else(|| {
        tracing::warn!(
            bytes = text.len(),
            "a tag of too many attributes to tokenize: the page is parsed as empty"
        );
        parse_with("", true)
    })
}

/// Parses `text`, guarded against tags of too many attributes or not (see
/// `tokenizer::tokenize`).
fn parse_with(text: &str, guarded: bool) -> Document {
    let builder = TreeBuilder::new(
        Sink::new(),
        TreeBuilderOpts {
            scripting_enabled: false,
            ..Default::default()
        },
    );
    let limiter = DepthLimiter {
        inner: builder,
        suppressed: RefCell::new(HashMap::new()),
    };
    super::tokenizer::tokenize(text, &limiter, guarded);
    limiter.end();
    limiter.inner.sink.into_document()
}

/// Sits between the tokenizer and the tree builder and keeps nesting bounded
/// (see [`MAX_DEPTH`]).
struct DepthLimiter {
    inner: TreeBuilder<Handle, Sink>,
    /// End tags still to drop, by name, because their element was closed early.
    suppressed: RefCell<HashMap<LocalName, u32>>,
}

impl TokenSink for DepthLimiter {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        match token {
            Token::TagToken(tag)
                if tag.kind == TagKind::StartTag
                    && !tag.self_closing
                    && self.inner.sink.current_depth.get() >= MAX_DEPTH =>
            {
                let mut end = tag.clone();
                end.kind = TagKind::EndTag;
                end.attrs.clear();
                let result = self.inner.process_token(Token::TagToken(tag), line_number);
                // A start tag that switched the tokenizer to raw text (script,
                // style, textarea, title) must keep its content, so it stays open.
                if !matches!(result, TokenSinkResult::Continue) {
                    return result;
                }
                *self
                    .suppressed
                    .borrow_mut()
                    .entry(end.name.clone())
                    .or_insert(0) += 1;
                self.inner.process_token(Token::TagToken(end), line_number)
            }
            Token::TagToken(tag) if tag.kind == TagKind::EndTag => {
                {
                    let mut suppressed = self.suppressed.borrow_mut();
                    if let Some(count) = suppressed.get_mut(&tag.name)
                        && *count > 0
                    {
                        *count -= 1;
                        return TokenSinkResult::Continue;
                    }
                }
                self.inner.process_token(Token::TagToken(tag), line_number)
            }
            other => self.inner.process_token(other, line_number),
        }
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// A node as the tree builder holds it: its scratch node and, for an
/// element, its index in `Sink::elements`, so that the name the tree builder
/// asks for again and again is one lookup away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Handle {
    node: u32,
    /// `NONE` for nodes that are not elements.
    element: u32,
}

impl Handle {
    fn other(node: u32) -> Handle {
        Handle {
            node,
            element: NONE,
        }
    }
}

/// What a scratch node is; text lives in a side table so that every scratch
/// node has the same small size.
#[derive(Clone, Copy)]
enum Data {
    Document,
    /// An index into `Sink::elements`.
    Element(u32),
    /// An index into `Sink::texts`.
    Text(u32),
    /// An index into `Sink::texts`.
    Comment(u32),
}

struct Scratch {
    parent: u32,
    first_child: u32,
    last_child: u32,
    next: u32,
    prev: u32,
    /// Depth when last linked; only the depth bound reads it, so it is not
    /// updated when the tree builder moves a sub-tree.
    depth: u32,
    data: Data,
}

struct ScratchElement {
    name: QualName,
    attrs: Vec<Attribute>,
}

struct Sink {
    nodes: RefCell<Chunked<Scratch>>,
    elements: RefCell<Chunked<ScratchElement>>,
    texts: RefCell<Chunked<StrTendril>>,
    doctype: RefCell<Option<Doctype>>,
    quirks: Cell<QuirksMode>,
    /// Depth of the node most recently inserted: close to the depth of the
    /// tree builder's stack of open elements.
    current_depth: Cell<u32>,
}

impl Scratch {
    /// A node with `data`, linked to nothing yet.
    fn unlinked(data: Data) -> Self {
        Scratch {
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next: NONE,
            prev: NONE,
            depth: 0,
            data,
        }
    }
}

impl Sink {
    fn new() -> Self {
        let mut arena = Chunked::default();
        arena.push(Scratch::unlinked(Data::Document));
        Sink {
            nodes: RefCell::new(arena),
            elements: RefCell::new(Chunked::default()),
            texts: RefCell::new(Chunked::default()),
            doctype: RefCell::new(None),
            quirks: Cell::new(QuirksMode::NoQuirks),
            current_depth: Cell::new(0),
        }
    }
}

impl Sink {
    fn new_node(&self, data: Data) -> u32 {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Scratch::unlinked(data));
        (nodes.len() - 1) as u32
    }

    fn new_text(&self, text: StrTendril) -> u32 {
        let mut texts = self.texts.borrow_mut();
        texts.push(text);
        (texts.len() - 1) as u32
    }

    fn detach(nodes: &mut Chunked<Scratch>, node: u32) {
        let (parent, prev, next) = {
            let n = &nodes[node as usize];
            (n.parent, n.prev, n.next)
        };
        if parent == NONE {
            return;
        }
        stitch(nodes, parent, (prev, next), (next, prev));
        let n = &mut nodes[node as usize];
        n.parent = NONE;
        n.prev = NONE;
        n.next = NONE;
    }

    /// Links `node` as a child of `parent`, before `before` (or last when NONE).
    fn link(nodes: &mut Chunked<Scratch>, parent: u32, node: u32, before: u32) {
        let prev = if before == NONE {
            nodes[parent as usize].last_child
        } else {
            nodes[before as usize].prev
        };
        {
            let n = &mut nodes[node as usize];
            n.parent = parent;
            n.prev = prev;
            n.next = before;
        }
        stitch(nodes, parent, (prev, before), (node, node));
    }

    /// Inserts a node or text under `parent` before `before` (NONE: at the end),
    /// merging text into an adjacent text node as the tree builder requires.
    fn insert(&self, parent: u32, before: u32, child: NodeOrText<Handle>) {
        match child {
            NodeOrText::AppendNode(Handle { node, .. }) => {
                let mut nodes = self.nodes.borrow_mut();
                Self::detach(&mut nodes, node);
                Self::link(&mut nodes, parent, node, before);
                let depth = nodes[parent as usize].depth + 1;
                nodes[node as usize].depth = depth;
                self.current_depth.set(depth);
            }
            NodeOrText::AppendText(text) => {
                {
                    let nodes = self.nodes.borrow_mut();
                    let prev = if before == NONE {
                        nodes[parent as usize].last_child
                    } else {
                        nodes[before as usize].prev
                    };
                    if prev != NONE
                        && let Data::Text(existing) = nodes[prev as usize].data
                    {
                        self.texts.borrow_mut()[existing as usize].push_tendril(&text);
                        return;
                    }
                }
                let node = self.new_node(Data::Text(self.new_text(text)));
                let mut nodes = self.nodes.borrow_mut();
                Self::link(&mut nodes, parent, node, before);
            }
        }
    }

    /// Lays the scratch tree out in document order.
    fn into_document(self) -> Document {
        let scratch = self.nodes.into_inner();
        let mut elements = self.elements.into_inner();
        let mut texts = self.texts.into_inner();
        let mut names = Names::default();
        let mut atoms = AtomCache::default();
        let mut out: Vec<Node> = Vec::with_capacity(scratch.len());
        // Exact sizes (or upper bounds, counting detached nodes) for the output
        // tables, so that none of them grows by doubling.
        let attr_count: usize = elements.iter().map(|e| e.attrs.len()).sum();
        let text_len: usize = texts.iter().map(|t| t.len()).sum::<usize>()
            + elements
                .iter()
                .flat_map(|e| &e.attrs)
                .map(|a| a.value.len())
                .sum::<usize>();
        let mut attrs: Vec<Attr> = Vec::with_capacity(attr_count);
        let mut text = String::with_capacity(text_len);

        // Iterative pre-order walk: `stack` holds the output index of each open
        // ancestor so that `end` and `last_child` can be filled in on the way out.
        let mut open: Vec<u32> = Vec::new();
        let mut cur = 0u32;
        loop {
            // The scratch node's data is taken, not borrowed, so that its text
            // and attributes are freed as the output grows: the scratch tree and
            // the document are never both whole in memory.
            let data = scratch[cur as usize].data;
            let first_child = scratch[cur as usize].first_child;
            let index = out.len() as u32;
            let parent_out = open.last().copied().unwrap_or(NONE);
            let mut node = Node {
                parent: parent_out,
                end: index + 1,
                prev_sibling: NONE,
                last_child: NONE,
                kind: NodeKind::Document,
                namespace: Namespace::Html,
                name: Sym(0),
                data: (0, 0),
            };
            if parent_out != NONE {
                let p = &mut out[parent_out as usize];
                node.prev_sibling = p.last_child;
                p.last_child = index;
            }
            match data {
                Data::Document => {}
                Data::Element(element) => {
                    let e = &mut elements[element as usize];
                    let element_attrs = std::mem::take(&mut e.attrs);
                    node.kind = NodeKind::Element;
                    node.namespace = if e.name.ns == ns!(svg) {
                        Namespace::Svg
                    } else if e.name.ns == ns!(mathml) {
                        Namespace::MathMl
                    } else {
                        Namespace::Html
                    };
                    node.name = atoms.intern(&mut names, &e.name.local);
                    let start = attrs.len() as u32;
                    for a in &element_attrs {
                        let name = match &a.name.prefix {
                            Some(prefix) => names.intern(&format!("{}:{}", prefix, a.name.local)),
                            None => atoms.intern(&mut names, &a.name.local),
                        };
                        let vstart = text.len() as u32;
                        text.push_str(&a.value);
                        attrs.push(Attr {
                            name,
                            value: (vstart, a.value.len() as u32),
                        });
                    }
                    node.data = (start, attrs.len() as u32 - start);
                }
                Data::Text(t)
                    if node.prev_sibling != NONE
                        && out[node.prev_sibling as usize].kind == NodeKind::Text =>
                {
                    // Removing an element can leave two text runs side by side; the
                    // XPath data model has no adjacent text nodes, so they merge.
                    // The previous text node wrote the buffer last, so its range grows.
                    let t = std::mem::take(&mut texts[t as usize]);
                    let prev = node.prev_sibling as usize;
                    out[parent_out as usize].last_child = prev as u32;
                    out[prev].data.1 += t.len() as u32;
                    text.push_str(&t);
                    advance(&scratch, &mut open, &mut out, &mut cur);
                    if cur == NONE {
                        break;
                    }
                    continue;
                }
                Data::Text(t) => {
                    let t = std::mem::take(&mut texts[t as usize]);
                    node.kind = NodeKind::Text;
                    node.data = (text.len() as u32, t.len() as u32);
                    text.push_str(&t);
                }
                Data::Comment(t) => {
                    let t = std::mem::take(&mut texts[t as usize]);
                    node.kind = NodeKind::Comment;
                    node.data = (text.len() as u32, t.len() as u32);
                    text.push_str(&t);
                }
            }
            out.push(node);

            if first_child != NONE {
                open.push(index);
                cur = first_child;
                continue;
            }
            advance(&scratch, &mut open, &mut out, &mut cur);
            if cur == NONE {
                break;
            }
        }
        Document {
            nodes: out,
            attrs,
            text,
            names,
            doctype: self.doctype.into_inner(),
            encoding: encoding_rs::UTF_8,
            encoding_source: super::EncodingSource::Default,
            by_name: std::sync::OnceLock::new(),
            by_attr: std::sync::OnceLock::new(),
            attr_searched: Default::default(),
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

/// Moves `cur` to the next node in pre-order after a node without children,
/// closing the sub-trees that end there; `cur` becomes NONE at the end.
fn advance(scratch: &Chunked<Scratch>, open: &mut Vec<u32>, out: &mut [Node], cur: &mut u32) {
    let mut climb = *cur;
    loop {
        let next = scratch[climb as usize].next;
        if next != NONE && !open.is_empty() {
            *cur = next;
            return;
        }
        match open.pop() {
            Some(parent) => {
                out[parent as usize].end = out.len() as u32;
                climb = scratch[climb as usize].parent;
            }
            None => {
                *cur = NONE;
                return;
            }
        }
    }
}

impl TreeSink for Sink {
    type Handle = Handle;
    type Output = Self;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        Handle::other(0)
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> Ref<'a, QualName> {
        // The tree builder only asks for names of elements.
        Ref::map(self.elements.borrow(), |e| &e[target.element as usize].name)
    }

    fn create_element(
        &self,
        name: QualName,
        mut attrs: Vec<Attribute>,
        _flags: ElementFlags,
    ) -> Handle {
        // The tokenizer hands over lists of exactly the right size; the tree
        // builder's own (for elements it makes up) may have spare capacity
        // that would otherwise be held until the tree is laid out.
        attrs.shrink_to_fit();
        let element = {
            let mut elements = self.elements.borrow_mut();
            elements.push(ScratchElement { name, attrs });
            (elements.len() - 1) as u32
        };
        Handle {
            node: self.new_node(Data::Element(element)),
            element,
        }
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        Handle::other(self.new_node(Data::Comment(self.new_text(text))))
    }

    fn create_pi(&self, _target: StrTendril, data: StrTendril) -> Handle {
        // HTML has no processing instructions; the HTML tree builder never calls this.
        Handle::other(self.new_node(Data::Comment(self.new_text(data))))
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
        let has_parent = self.nodes.borrow()[element.node as usize].parent != NONE;
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
        let parent = self.nodes.borrow()[sibling.node as usize].parent;
        if parent == NONE {
            return;
        }
        self.insert(parent, sibling.node, new_node);
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        if target.element == NONE {
            return;
        }
        let mut elements = self.elements.borrow_mut();
        let existing = &mut elements[target.element as usize].attrs;
        for a in attrs {
            if !existing.iter().any(|e| e.name == a.name) {
                existing.push(a);
            }
        }
    }

    fn remove_from_parent(&self, target: &Handle) {
        Self::detach(&mut self.nodes.borrow_mut(), target.node);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        let mut nodes = self.nodes.borrow_mut();
        let mut child = nodes[node.node as usize].first_child;
        while child != NONE {
            let next = nodes[child as usize].next;
            Self::detach(&mut nodes, child);
            Self::link(&mut nodes, new_parent.node, child, NONE);
            child = next;
        }
    }
}

/// A growable array in fixed-size chunks. Unlike a `Vec`, growing never copies
/// what is already there, so the scratch tree never briefly exists twice.
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

/// Items per chunk: a power of two, so that indexing is a shift and a mask.
const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    fn push(&mut self, item: T) {
        if self.len.is_multiple_of(CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(item);
        }
        self.len += 1;
    }

    fn len(&self) -> usize {
        self.len
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> CHUNK_BITS][i & (CHUNK - 1)]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> CHUNK_BITS][i & (CHUNK - 1)]
    }
}

/// Points the siblings `prev` and `next` of `parent`'s children at their
/// new neighbours `(after_prev, before_next)`: `prev`'s next sibling (or
/// `parent`'s first child when there is no `prev`) becomes `after_prev`, and
/// `next`'s previous sibling (or `parent`'s last child) `before_next`.
#[inline]
fn stitch(
    nodes: &mut Chunked<Scratch>,
    parent: u32,
    (prev, next): (u32, u32),
    (after_prev, before_next): (u32, u32),
) {
    if prev != NONE {
        nodes[prev as usize].next = after_prev;
    } else {
        nodes[parent as usize].first_child = after_prev;
    }
    if next != NONE {
        nodes[next as usize].prev = before_next;
    } else {
        nodes[parent as usize].last_child = before_next;
    }
}
