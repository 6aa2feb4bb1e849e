//! XPath 1.0 over the arena DOM. (Being written: this is the public surface
//! the rest of mend programs against.)

use crate::dom::{Document, NodeId};

/// A compiled XPath expression.
#[derive(Clone, Debug)]
pub struct XPath {
    source: String,
}

/// An expression that does not parse, with the byte offset where it went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at position {position}")]
pub struct XPathError {
    /// Byte offset into the expression.
    pub position: usize,
    /// What was wrong and what was expected.
    pub message: String,
}

/// A node in an XPath node-set: a tree node, or an attribute of an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Item {
    /// A document, element, text or comment node.
    Node(NodeId),
    /// The attribute at `index` of the document's attribute table, owned by `element`.
    Attr { element: NodeId, index: u32 },
}

/// The result of evaluating an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Nodes in document order, without duplicates.
    Nodes(Vec<Item>),
    /// A string.
    String(String),
    /// A number.
    Number(f64),
    /// A boolean.
    Boolean(bool),
}

impl XPath {
    /// Compiles an expression.
    pub fn compile(source: &str) -> Result<XPath, XPathError> {
        Ok(XPath {
            source: source.to_owned(),
        })
    }

    /// The expression as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Evaluates the expression with `context` as the context node.
    pub fn evaluate(&self, _doc: &Document, _context: NodeId) -> Value {
        Value::Nodes(Vec::new())
    }
}
