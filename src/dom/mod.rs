//! The HTML5 document model: an arena tree parsed with html5gum's tokenizer and
//! html5ever's tree builder.
//!
//! Every page is parsed once into a [`Document`], a flat arena in which nodes are
//! stored in document (pre-order) order. A node's id is its index, so document
//! order is integer order, the descendants of a node are the contiguous range
//! `id + 1 .. subtree_end(id)`, and sorting or de-duplicating node sets is sorting
//! integers. Names are interned per document; text and attribute values live in
//! one string buffer.
//!
//! The module refuses nothing: any bytes parse, following the HTML5 tree
//! construction rules (html5ever), with `<noscript>` parsed as markup because
//! pages are parsed as a non-scripting user agent would. No function here
//! recurses on the depth of the tree, so a page nested 100,000 levels deep is as
//! safe as a flat one. The module does no I/O.

mod attr_index;
mod build;
pub mod hidden;
mod layout;
pub(crate) mod markup;
pub use build::MAX_DEPTH;
pub mod encoding;
mod gathered;
mod name_index;
mod names;
mod path;
mod serialize;
mod sink;
mod text_index;
mod tokenizer;

use std::ops::Range;
use std::sync::OnceLock;

pub use attr_index::AttrQuery;
pub use encoding::EncodingSource;
pub use names::{Names, Sym};
pub use path::PathCache;
pub use serialize::escape;

/// The id of a node in a [`Document`]: its index in document order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The document node, parent of the root element.
    pub const ROOT: NodeId = NodeId(0);

    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

const NONE: u32 = u32::MAX;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// The document node at the root of the tree.
    Document,
    /// An element with a name and attributes.
    Element,
    /// A run of character data (adjacent runs are always merged).
    Text,
    /// A comment, including the bogus comments HTML makes of `<?…>` and `<!…>`.
    Comment,
}

/// The namespace an element was created in by the HTML5 tree builder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Namespace {
    /// An HTML element.
    Html,
    /// An element inside `<svg>`.
    Svg,
    /// An element inside `<math>`.
    MathMl,
}

impl Namespace {
    /// The namespace URI.
    pub fn uri(self) -> &'static str {
        match self {
            Namespace::Html => "http://www.w3.org/1999/xhtml",
            Namespace::Svg => "http://www.w3.org/2000/svg",
            Namespace::MathMl => "http://www.w3.org/1998/Math/MathML",
        }
    }
}

/// One attribute of an element.
#[derive(Clone, Copy, Debug)]
pub struct Attr {
    /// The attribute's interned name.
    pub name: Sym,
    value: (u32, u32),
}

#[derive(Clone, Copy, Debug)]
struct Node {
    parent: u32,
    /// One past the last descendant.
    end: u32,
    prev_sibling: u32,
    last_child: u32,
    kind: NodeKind,
    namespace: Namespace,
    /// The element name (elements only).
    name: Sym,
    /// For text and comments, the byte range of the data in `Document::text`;
    /// for elements, the range of the attributes in `Document::attrs`.
    data: (u32, u32),
}

/// A `<!DOCTYPE>` declaration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Doctype {
    /// The name, usually `html`.
    pub name: String,
    /// The public identifier.
    pub public_id: String,
    /// The system identifier.
    pub system_id: String,
}

/// A parsed HTML document.
#[derive(Clone, Debug)]
pub struct Document {
    nodes: Vec<Node>,
    attrs: Vec<Attr>,
    text: String,
    names: Names,
    doctype: Option<Doctype>,
    encoding: &'static encoding_rs::Encoding,
    encoding_source: EncodingSource,
    /// The elements by name, built on the first search that is worth it.
    by_name: OnceLock<name_index::NameIndex>,
    /// The elements by attribute value and token, one index per attribute
    /// name (by its symbol), each built on the first search of its name
    /// once searches are worth it.
    by_attr: OnceLock<Box<[OnceLock<attr_index::AttrIndex>]>>,
    /// How many ids searches that the index of attributes could have
    /// answered have walked, until it is built.
    attr_searched: attr_index::Searched,
    /// The elements by name and normalised text, built on the first search.
    by_text: OnceLock<text_index::TextIndex>,
}

impl Document {
    /// Parses bytes as HTML, sniffing the encoding. Never fails.
    pub fn parse(bytes: &[u8]) -> Document {
        Document::parse_with_transport(bytes, None)
    }

    /// Parses bytes as HTML with a transport charset label, such as the one in an
    /// HTTP `Content-Type` header, which wins over any `<meta>` declaration.
    pub fn parse_with_transport(bytes: &[u8], transport: Option<&str>) -> Document {
        let (encoding, source) = encoding::sniff(bytes, transport);
        let text = encoding::decode(bytes, encoding);
        let mut doc = build::parse(&text);
        doc.encoding = encoding;
        doc.encoding_source = source;
        doc
    }

    /// Parses a string as HTML. Never fails.
    pub fn parse_str(html: &str) -> Document {
        build::parse(html)
    }

    /// The encoding the bytes were decoded with.
    pub fn encoding(&self) -> &'static encoding_rs::Encoding {
        self.encoding
    }

    /// Where the encoding came from.
    pub fn encoding_source(&self) -> EncodingSource {
        self.encoding_source
    }

    /// The document's `<!DOCTYPE>`, if it had one.
    pub fn doctype(&self) -> Option<&Doctype> {
        self.doctype.as_ref()
    }

    /// The document node.
    pub fn root(&self) -> NodeId {
        NodeId::ROOT
    }

    /// The `<html>` element (the tree builder always makes one).
    pub fn root_element(&self) -> Option<NodeId> {
        self.children(NodeId::ROOT).find(|&n| self.is_element(n))
    }

    /// The number of nodes, the document node included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the document has only its document node (never true after parsing).
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The number of element nodes.
    pub fn element_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Element)
            .count()
    }

    /// The interned name table.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// The elements named `sym` among the nodes `from..end`, in document
    /// order.
    ///
    /// The first call builds an index of the document's elements by name
    /// (two passes over the nodes, four bytes an element); every call after
    /// it costs two binary searches and the ids it returns. Worth it for a
    /// search over much of a large page, asked more than once; a small range
    /// is quicker walked (see [`NodeId`] ranges and [`Document::subtree_end`]).
    pub fn elements_named(
        &self,
        sym: Sym,
        from: NodeId,
        end: NodeId,
    ) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + '_ {
        self.by_name
            .get_or_init(|| name_index::NameIndex::build(self))
            .within(sym, from, end)
            .iter()
            .map(|&id| NodeId(id))
    }

    /// The elements among the nodes `from..end` whose attribute `name`
    /// answers `query`, in document order.
    ///
    /// The first call for an attribute name builds an index of that
    /// attribute's values and their tokens (one pass and a sort, sixteen
    /// bytes each); every call after it costs two binary searches and the
    /// ids it returns.
    pub fn elements_with_attr<'q>(
        &'q self,
        name: Sym,
        query: AttrQuery<'q>,
        from: NodeId,
        end: NodeId,
    ) -> impl Iterator<Item = NodeId> + 'q {
        let slots = self
            .by_attr
            .get_or_init(|| (0..self.names.len()).map(|_| OnceLock::new()).collect());
        // A name of another document has no slot here, and no element of
        // this one carries it.
        let found = slots.get(name.index() as usize).map_or(&[][..], |slot| {
            slot.get_or_init(|| attr_index::AttrIndex::build(self, name))
                .candidates(name, query, from, end)
        });
        // The index finds by hash: each candidate is checked.
        found
            .iter()
            .map(|&(_, id)| NodeId(id))
            .filter(move |&n| self.attr_sym(n, name).is_some_and(|v| query.matches(v)))
    }

    /// The elements named `name` whose string-value, its whitespace
    /// normalised as `normalize-space()` does, is `text` (itself
    /// normalised), in document order.
    ///
    /// The first call builds an index of every element's name and
    /// normalised text (one pass over the nodes, children first, reading
    /// each text once); every call after it costs a lookup and the check of
    /// what it finds.
    pub fn elements_with_text<'q>(
        &'q self,
        name: Sym,
        text: &'q str,
    ) -> impl Iterator<Item = NodeId> + 'q {
        self.by_text
            .get_or_init(|| text_index::TextIndex::build(self))
            .candidates(name, text)
            .iter()
            .map(|&id| NodeId(id))
            .filter(move |&n| text_index::normalized_text_is(self, n, text))
    }

    /// Whether the string-value of `node`, its whitespace normalised as
    /// `normalize-space()` does, is `text` (itself normalised), reading it
    /// no further than its first difference and building no index.
    pub fn normalized_text_is(&self, node: NodeId, text: &str) -> bool {
        text_index::normalized_text_is(self, node, text)
    }

    /// Whether a search of `ids` ids that [`Document::elements_with_attr`]
    /// could answer should: once an index is built, or once such searches
    /// have walked more ids than building it costs. The searches walked
    /// until then cost at most what the index does, so no mix of questions
    /// makes the index cost more than twice the cheaper of the two ways; a
    /// run that asks a page's attributes a few times never builds it, and a
    /// search for XPaths that asks thousands of times reads it.
    pub fn attr_index_pays(&self, ids: u64) -> bool {
        self.by_attr.get().is_some()
            || self.attr_searched.add(ids) >= attr_index::build_cost(self.attrs.len())
    }

    /// Whether an index of [`Document::elements_with_attr`] is built.
    pub fn has_attr_index(&self) -> bool {
        self.by_attr.get().is_some()
    }

    /// Whether the index of [`Document::elements_named`] is built, so that
    /// a name search costs no more than the ids it returns.
    pub fn has_name_index(&self) -> bool {
        self.by_name.get().is_some()
    }

    /// Every node id, in document order.
    pub fn all(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// What `node` is.
    #[inline]
    pub fn kind(&self, node: NodeId) -> NodeKind {
        self.nodes[node.index()].kind
    }

    /// Whether `node` is an element.
    #[inline]
    pub fn is_element(&self, node: NodeId) -> bool {
        self.kind(node) == NodeKind::Element
    }

    /// The namespace of an element (HTML for other nodes).
    pub fn namespace(&self, node: NodeId) -> Namespace {
        self.nodes[node.index()].namespace
    }

    /// The interned name of an element; meaningless for other nodes.
    #[inline]
    pub fn name_sym(&self, node: NodeId) -> Sym {
        self.nodes[node.index()].name
    }

    /// The name of an element, or `""` for other nodes.
    pub fn name(&self, node: NodeId) -> &str {
        match self.kind(node) {
            NodeKind::Element => self.names.resolve(self.name_sym(node)),
            _ => "",
        }
    }

    /// The symbol of a name, if any element or attribute of this document has it.
    pub fn sym(&self, name: &str) -> Option<Sym> {
        self.names.get(name)
    }

    /// The text of a symbol.
    pub fn resolve(&self, sym: Sym) -> &str {
        self.names.resolve(sym)
    }

    /// The parent of `node`, `None` for the document node.
    #[inline]
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        some(self.nodes[node.index()].parent)
    }

    /// The first child of `node`.
    #[inline]
    pub fn first_child(&self, node: NodeId) -> Option<NodeId> {
        let next = node.0 + 1;
        (next < self.nodes[node.index()].end).then_some(NodeId(next))
    }

    /// The last child of `node`.
    #[inline]
    pub fn last_child(&self, node: NodeId) -> Option<NodeId> {
        some(self.nodes[node.index()].last_child)
    }

    /// The next sibling of `node`.
    #[inline]
    pub fn next_sibling(&self, node: NodeId) -> Option<NodeId> {
        let n = &self.nodes[node.index()];
        if n.parent == NONE {
            return None;
        }
        (n.end < self.nodes[n.parent as usize].end).then_some(NodeId(n.end))
    }

    /// The previous sibling of `node`.
    #[inline]
    pub fn prev_sibling(&self, node: NodeId) -> Option<NodeId> {
        some(self.nodes[node.index()].prev_sibling)
    }

    /// One past the last descendant of `node`: its descendants are
    /// `node + 1 .. subtree_end(node)`.
    #[inline]
    pub fn subtree_end(&self, node: NodeId) -> NodeId {
        NodeId(self.nodes[node.index()].end)
    }

    /// The number of nodes in the sub-tree of `node`, itself included.
    #[inline]
    pub fn subtree_size(&self, node: NodeId) -> usize {
        (self.nodes[node.index()].end - node.0) as usize
    }

    /// Whether `ancestor` is a proper ancestor of `node`.
    #[inline]
    pub fn is_ancestor(&self, ancestor: NodeId, node: NodeId) -> bool {
        ancestor.0 < node.0 && node.0 < self.nodes[ancestor.index()].end
    }

    /// The children of `node`, in order.
    pub fn children(&self, node: NodeId) -> Children<'_> {
        Children {
            doc: self,
            next: self.first_child(node),
        }
    }

    /// The element children of `node`, in order.
    pub fn element_children(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(node).filter(|&c| self.is_element(c))
    }

    /// The proper descendants of `node`, in document order.
    pub fn descendants(
        &self,
        node: NodeId,
    ) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + use<> {
        (node.0 + 1..self.nodes[node.index()].end).map(NodeId)
    }

    /// The proper ancestors of `node`, nearest first.
    pub fn ancestors(&self, node: NodeId) -> Ancestors<'_> {
        Ancestors {
            doc: self,
            next: self.parent(node),
        }
    }

    /// The depth of `node`: 0 for the document node.
    pub fn depth(&self, node: NodeId) -> usize {
        self.ancestors(node).count()
    }

    /// The attributes of an element (empty for other nodes).
    #[inline]
    pub fn attrs(&self, node: NodeId) -> &[Attr] {
        let n = &self.nodes[node.index()];
        match n.kind {
            NodeKind::Element => &self.attrs[n.data.0 as usize..(n.data.0 + n.data.1) as usize],
            _ => &[],
        }
    }

    /// The index range of an element's attributes in the document-wide attribute table.
    pub fn attr_range(&self, node: NodeId) -> Range<usize> {
        let n = &self.nodes[node.index()];
        match n.kind {
            NodeKind::Element => n.data.0 as usize..(n.data.0 + n.data.1) as usize,
            _ => 0..0,
        }
    }

    /// The attribute at an index of the document-wide attribute table.
    pub fn attr_at(&self, index: usize) -> &Attr {
        &self.attrs[index]
    }

    /// The name of an attribute.
    pub fn attr_name(&self, attr: &Attr) -> &str {
        self.names.resolve(attr.name)
    }

    /// The value of an attribute.
    #[inline]
    pub fn attr_value(&self, attr: &Attr) -> &str {
        &self.text[attr.value.0 as usize..(attr.value.0 + attr.value.1) as usize]
    }

    /// The value of the attribute `name` of `node`.
    pub fn attr(&self, node: NodeId, name: &str) -> Option<&str> {
        let sym = self.names.get(name)?;
        self.attr_sym(node, sym)
    }

    /// The value of the attribute with the interned name `sym`.
    #[inline]
    pub fn attr_sym(&self, node: NodeId, sym: Sym) -> Option<&str> {
        self.attrs(node)
            .iter()
            .find(|a| a.name == sym)
            .map(|a| self.attr_value(a))
    }

    /// Every text, comment and attribute value of the document in one
    /// buffer, unseparated, and possibly with text that tree building set
    /// aside: whatever no node's text holds, this holds too, so a search
    /// of the whole page that finds nothing here needs to visit no node.
    pub fn text_buffer(&self) -> &str {
        &self.text
    }

    /// The character data of a text or comment node (`""` for other nodes).
    #[inline]
    pub fn text(&self, node: NodeId) -> &str {
        let n = &self.nodes[node.index()];
        match n.kind {
            NodeKind::Text | NodeKind::Comment => {
                &self.text[n.data.0 as usize..(n.data.0 + n.data.1) as usize]
            }
            _ => "",
        }
    }

    /// The XPath string-value of `node`: its data for text and comments, the
    /// concatenation of all descendant text for elements and the document.
    pub fn string_value(&self, node: NodeId) -> String {
        let mut out = String::new();
        self.push_string_value(node, &mut out);
        out
    }

    /// Appends the string-value of `node` to `out`.
    pub fn push_string_value(&self, node: NodeId, out: &mut String) {
        match self.kind(node) {
            NodeKind::Text | NodeKind::Comment => out.push_str(self.text(node)),
            NodeKind::Element | NodeKind::Document => {
                for d in self.descendants(node) {
                    if self.kind(d) == NodeKind::Text {
                        out.push_str(self.text(d));
                    }
                }
            }
        }
    }

    /// Whether the string-value of `node` is non-empty, without building it.
    pub fn has_string_value(&self, node: NodeId) -> bool {
        match self.kind(node) {
            NodeKind::Text | NodeKind::Comment => !self.text(node).is_empty(),
            _ => self
                .descendants(node)
                .any(|d| self.kind(d) == NodeKind::Text && !self.text(d).is_empty()),
        }
    }
}

#[inline]
fn some(raw: u32) -> Option<NodeId> {
    (raw != NONE).then_some(NodeId(raw))
}

/// Iterator over the children of a node.
pub struct Children<'a> {
    doc: &'a Document,
    next: Option<NodeId>,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        let cur = self.next?;
        self.next = self.doc.next_sibling(cur);
        Some(cur)
    }
}

/// Iterator over the ancestors of a node, nearest first.
pub struct Ancestors<'a> {
    doc: &'a Document,
    next: Option<NodeId>,
}

impl Iterator for Ancestors<'_> {
    type Item = NodeId;
    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        let cur = self.next?;
        self.next = self.doc.parent(cur);
        Some(cur)
    }
}

#[cfg(test)]
mod tests;
