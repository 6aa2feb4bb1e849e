//! The four XPath 1.0 value types and the conversions between them.
//!
//! Conversions follow section 4 of the specification: a node-set becomes the
//! string-value of its first node in document order, or a number through that
//! string; a number becomes true unless it is zero or NaN; a string becomes
//! true unless it is empty.
//!
//! ## What it refuses
//!
//! Nothing converts into a node-set: [`Value::as_nodes`] of any other value
//! is `None`. The conversions never fail and count nothing against a budget,
//! and they trust a node-set to be in document order, so its first node is
//! its first item. An empty node-set is `""`, NaN and false; the string
//! `"false"` is true.

use crate::dom::Document;

use super::item::Item;
use super::number::{number_to_string, string_to_number};

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

impl Value {
    /// XPath `string()` of the value.
    pub fn to_string_value(&self, doc: &Document) -> String {
        match self {
            Value::Nodes(items) => items
                .first()
                .map(|i| i.string_value(doc))
                .unwrap_or_default(),
            Value::String(s) => s.clone(),
            Value::Number(n) => number_to_string(*n),
            Value::Boolean(b) => if *b { "true" } else { "false" }.to_owned(),
        }
    }

    /// XPath `number()` of the value.
    pub fn to_number(&self, doc: &Document) -> f64 {
        match self {
            Value::Nodes(items) => match items.first() {
                Some(i) => string_to_number(&i.str_value(doc)),
                None => f64::NAN,
            },
            Value::String(s) => string_to_number(s),
            Value::Number(n) => *n,
            Value::Boolean(b) => {
                if *b {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// XPath `boolean()` of the value.
    pub fn to_boolean(&self) -> bool {
        match self {
            Value::Nodes(items) => !items.is_empty(),
            Value::String(s) => !s.is_empty(),
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::Boolean(b) => *b,
        }
    }

    /// The nodes, if the value is a node-set.
    pub fn as_nodes(&self) -> Option<&[Item]> {
        match self {
            Value::Nodes(items) => Some(items),
            _ => None,
        }
    }

    /// The value's type as XPath names it: `node-set`, `string`, `number` or `boolean`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nodes(_) => "node-set",
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Boolean(_) => "boolean",
        }
    }
}
