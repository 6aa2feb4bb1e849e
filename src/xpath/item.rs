//! Items of a node-set: tree nodes, attributes and namespace nodes.
//!
//! The DOM numbers tree nodes in document order, but attributes and namespace
//! nodes are not tree nodes, so an [`Item`] names them through their element.
//! Items order as XPath 1.0 orders them: an element, then its namespace node,
//! then its attributes in source order, then its children. The module also
//! answers the per-item questions of the data model: string-value, names and
//! the canonical path.
//!
//! ## What it refuses
//!
//! An item does not carry its document: using it with another document than
//! its own is a caller's error that nothing here detects. Each element has
//! one namespace node, for `xml`, and no other; an attribute is in a
//! namespace only on an SVG or MathML element and only with an `xlink:`,
//! `xml:` or `xmlns` name, so `xlink:href` on an HTML element has none. An
//! element's string-value gathers its text nodes only, comments left out.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::dom::{Document, Namespace, NodeId, NodeKind};

/// The namespace URI bound to the `xml` prefix, the string-value of the one
/// namespace node every element has.
pub const XML_NAMESPACE: &str = "http://www.w3.org/XML/1998/namespace";
const XLINK_NAMESPACE: &str = "http://www.w3.org/1999/xlink";
const XMLNS_NAMESPACE: &str = "http://www.w3.org/2000/xmlns/";

/// A node in an XPath node-set: a tree node, an attribute of an element, or the
/// namespace node of an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    /// A document, element, text or comment node.
    Node(NodeId),
    /// The namespace node of an element (the `xml` prefix, the only one an
    /// HTML document has in scope).
    Namespace(NodeId),
    /// The attribute at `index` of the document's attribute table, owned by `element`.
    Attr {
        /// The element that owns the attribute.
        element: NodeId,
        /// The attribute's index in the document-wide attribute table.
        index: u32,
    },
}

impl Ord for Item {
    fn cmp(&self, other: &Self) -> Ordering {
        self.order_key().cmp(&other.order_key())
    }
}

impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Item {
    /// A key whose integer order is document order. Attribute indexes grow in
    /// document order, because the attribute table is filled in document order.
    #[inline]
    pub fn order_key(self) -> u64 {
        match self {
            Item::Node(n) => (n.0 as u64) << 33,
            Item::Namespace(e) => ((e.0 as u64) << 33) | 1,
            Item::Attr { element, index } => ((element.0 as u64) << 33) | (index as u64 + 2),
        }
    }

    /// The tree node, if the item is one.
    #[inline]
    pub fn node(self) -> Option<NodeId> {
        match self {
            Item::Node(n) => Some(n),
            _ => None,
        }
    }

    /// The tree node itself, or the element that owns an attribute or namespace node.
    #[inline]
    pub fn owner(self) -> NodeId {
        match self {
            Item::Node(n) | Item::Namespace(n) => n,
            Item::Attr { element, .. } => element,
        }
    }

    /// The XPath string-value of the item.
    pub fn string_value(self, doc: &Document) -> String {
        self.str_value(doc).into_owned()
    }

    /// The string-value, borrowed from the document whenever it is one
    /// contiguous piece of text (an attribute, a text node, an element with a
    /// single non-empty text descendant).
    pub(crate) fn str_value(self, doc: &Document) -> Cow<'_, str> {
        match self {
            Item::Node(n) => node_str_value(doc, n),
            Item::Namespace(_) => Cow::Borrowed(XML_NAMESPACE),
            Item::Attr { index, .. } => Cow::Borrowed(doc.attr_value(doc.attr_at(index as usize))),
        }
    }

    /// The canonical path of the item, as [`Item::path`] gives it, with
    /// element steps from `cache` (see [`Document::path_cached`]).
    pub fn path_cached(self, doc: &Document, cache: &mut crate::dom::PathCache) -> String {
        match self {
            Item::Node(n) => doc.path_cached(n, cache),
            Item::Namespace(e) => {
                let mut p = doc.path_cached(e, cache);
                p.push_str("/namespace::xml");
                p
            }
            Item::Attr { element, index } => {
                let mut p = doc.path_cached(element, cache);
                p.push_str("/@");
                p.push_str(doc.attr_name(doc.attr_at(index as usize)));
                p
            }
        }
    }

    /// The canonical absolute path of the item: the DOM's path for tree nodes,
    /// `…/@name` for attributes and `…/namespace::xml` for namespace nodes.
    pub fn path(self, doc: &Document) -> String {
        match self {
            Item::Node(n) => doc.path(n),
            Item::Namespace(e) => {
                let mut p = doc.path(e);
                p.push_str("/namespace::xml");
                p
            }
            Item::Attr { element, index } => {
                doc.attr_path(element, doc.attr_name(doc.attr_at(index as usize)))
            }
        }
    }

    /// The qualified name (XPath `name()`): an element's local name, an
    /// attribute's name as written, `xml` for a namespace node, else `""`.
    pub fn name(self, doc: &Document) -> &str {
        match self {
            Item::Node(n) => doc.name(n),
            Item::Namespace(_) => "xml",
            Item::Attr { index, .. } => doc.attr_name(doc.attr_at(index as usize)),
        }
    }

    /// The local part of the name (XPath `local-name()`).
    pub fn local_name(self, doc: &Document) -> &str {
        match self {
            Item::Attr { element, index } => {
                let name = doc.attr_name(doc.attr_at(index as usize));
                match foreign_attr_namespace(doc, element, name) {
                    Some((_, local)) => local,
                    None => name,
                }
            }
            other => other.name(doc),
        }
    }

    /// The namespace URI (XPath `namespace-uri()`): `""` for HTML elements and
    /// their attributes, the SVG or MathML URI for foreign elements, and the
    /// XLink, XML or XMLNS URI for the adjusted attributes of foreign elements.
    pub fn namespace_uri(self, doc: &Document) -> &'static str {
        match self {
            Item::Node(n) if doc.is_element(n) => match doc.namespace(n) {
                Namespace::Html => "",
                ns => ns.uri(),
            },
            Item::Attr { element, index } => {
                let name = doc.attr_name(doc.attr_at(index as usize));
                match foreign_attr_namespace(doc, element, name) {
                    Some((uri, _)) => uri,
                    None => "",
                }
            }
            _ => "",
        }
    }
}

/// The namespace and local name of an attribute that the HTML5 tree builder
/// placed in a namespace: on SVG and MathML elements, `xlink:*`, `xml:*`,
/// `xmlns` and `xmlns:*` attributes are namespaced; on HTML elements nothing is.
fn foreign_attr_namespace<'a>(
    doc: &Document,
    element: NodeId,
    name: &'a str,
) -> Option<(&'static str, &'a str)> {
    if doc.namespace(element) == Namespace::Html {
        return None;
    }
    if name == "xmlns" {
        return Some((XMLNS_NAMESPACE, name));
    }
    let (prefix, local) = name.split_once(':')?;
    let uri = match prefix {
        "xlink" => XLINK_NAMESPACE,
        "xml" => XML_NAMESPACE,
        "xmlns" => XMLNS_NAMESPACE,
        _ => return None,
    };
    Some((uri, local))
}

/// The string-value of a tree node, borrowed when it is one piece of text.
pub(crate) fn node_str_value(doc: &Document, n: NodeId) -> Cow<'_, str> {
    match doc.kind(n) {
        NodeKind::Text | NodeKind::Comment => Cow::Borrowed(doc.text(n)),
        NodeKind::Element | NodeKind::Document => {
            let mut first: &str = "";
            let mut owned: Option<String> = None;
            for d in doc.descendants(n) {
                if doc.kind(d) != NodeKind::Text {
                    continue;
                }
                let t = doc.text(d);
                if t.is_empty() {
                    continue;
                }
                match owned.as_mut() {
                    Some(s) => s.push_str(t),
                    None if first.is_empty() => first = t,
                    None => {
                        let mut s = String::with_capacity(first.len() + t.len() + 16);
                        s.push_str(first);
                        s.push_str(t);
                        owned = Some(s);
                    }
                }
            }
            match owned {
                Some(s) => Cow::Owned(s),
                None => Cow::Borrowed(first),
            }
        }
    }
}
