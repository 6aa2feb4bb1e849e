//! XPath 1.0 over the arena DOM: compile an expression once, evaluate it on
//! any number of documents and context nodes.
//!
//! The engine implements the XPath 1.0 recommendation: all thirteen axes,
//! every node test, predicates with proximity positions (counted backwards on
//! reverse axes), unions, filter expressions, the operators with their
//! precedence and comparison rules, and the whole core function library. A
//! top-level expression is evaluated with the given node as context node,
//! position 1 and size 1; pass [`NodeId::ROOT`] for the document node.
//!
//! ## How the data model maps onto HTML
//!
//! * Element name tests match an element's **local name whatever its
//!   namespace**: `//svg/path` selects inline SVG as scrapers write it with
//!   lxml.html or parsel. This is a deliberate extension of XPath 1.0, where an
//!   unprefixed name only matches elements in no namespace. Names are
//!   case-sensitive, and the HTML parser lower-cases HTML names. `name()` and
//!   `local-name()` of an element are its local name; `namespace-uri()` is
//!   `""` for HTML elements and the SVG or MathML URI for foreign ones.
//! * Every element has exactly one namespace node, for the `xml` prefix.
//! * `id()` follows HTML: an element's ID is its `id` attribute, the argument
//!   is split on whitespace, and the first element in document order wins.
//! * `lang()` reads only `xml:lang` attributes in the XML namespace, which the
//!   HTML parser creates only on SVG and MathML elements; HTML's `lang`
//!   attribute does not count, as the specification says.
//! * The DOCTYPE is not a node; HTML has no processing instructions, so
//!   `processing-instruction()` matches nothing.
//!
//! ## Extensions
//!
//! Besides the core library, these functions (from XPath 2.0, with the same
//! names) are available: `lower-case(s)`, `upper-case(s)`, `ends-with(s, t)`,
//! `matches(s, re[, flags])`, `replace(s, re, rep[, flags])` (regular
//! expressions in the syntax of the `regex` crate, flags `i`, `s`, `m`, `x`,
//! `$1` in replacements; a literal pattern is compiled once, with the
//! expression) and `string-join(nodes-or-string, sep)`.
//!
//! ## What it refuses
//!
//! Variables, namespace prefixes in name tests, unknown functions (with a
//! suggestion when a known name is close), wrong arities and type errors
//! (such as `count(3)`) are compile errors with a byte position. Expressions
//! longer than 64 KiB or nested more than 128 levels deep are refused, so no
//! input can exhaust the stack; evaluation never recurses on the depth of the
//! document. The module does no I/O and reads no clock.
//!
//! Every evaluation runs under a [`Budget`] of work units, string bytes and
//! node-set items, so that an expression that is quadratic on a large page,
//! or that multiplies a string at each level of nesting, fails with an
//! [`EvalError`] of a budget kind within a fraction of a second instead of
//! running for minutes or exhausting memory (see the `budget` module). The
//! default budget is far above what ordinary scraping expressions need;
//! [`XPath::with_budget`] sets another one.

mod ast;
mod axes;
mod budget;
mod call;
mod charge;
mod eval;
mod functions;
pub mod generate;
mod item;
mod lexer;
mod number;
mod optimize;
mod parser;
pub(crate) mod path_syntax;
mod strings;
mod value;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::dom::{Document, NodeId};

pub use budget::Budget;
pub use item::{Item, XML_NAMESPACE};
pub use number::{number_to_string, round, string_to_number};
pub use parser::{MAX_DEPTH, MAX_LEN};
pub use strings::normalize_space;
pub use value::Value;

use ast::Expr;
use eval::{Ctx, Evaluator};
use functions::Type;

/// A compiled XPath expression. Cloning is cheap; it can be shared between threads.
#[derive(Clone, Debug)]
pub struct XPath {
    source: Arc<str>,
    compiled: Arc<Compiled>,
    /// The limits each evaluation runs under.
    budget: Budget,
}

#[derive(Debug)]
struct Compiled {
    expr: Expr,
    /// The names used by node tests, resolved per document at evaluation.
    names: Vec<Box<str>>,
}

/// An expression that does not compile, with the byte offset where it went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at position {position}")]
pub struct XPathError {
    /// Byte offset into the expression (at most its length).
    pub position: usize,
    /// What was wrong and what was expected.
    pub message: String,
}

/// An error that only shows at evaluation time: a regular expression computed
/// from the document that does not compile, a non-node-set result where
/// nodes were asked for, or an evaluation that ran out of its [`Budget`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    /// Which kind of failure it is.
    pub kind: EvalErrorKind,
    /// What went wrong, and for a budget, what to do about it.
    pub message: String,
}

/// The kinds of [`EvalError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EvalErrorKind {
    /// The expression cannot be evaluated as asked: a regular expression
    /// computed from the document does not compile, nodes were asked of an
    /// expression that yields none, or the context is not in the document.
    Invalid,
    /// The evaluation did more work than [`Budget::work`] allows.
    WorkBudget,
    /// A string would have grown past [`Budget::string_bytes`].
    StringBudget,
    /// The evaluation would have held more node-set items than [`Budget::nodes`].
    NodeBudget,
}

impl EvalError {
    pub(crate) fn invalid(message: String) -> EvalError {
        EvalError {
            kind: EvalErrorKind::Invalid,
            message,
        }
    }

    /// Whether the evaluation stopped because it ran out of its [`Budget`]
    /// (the expression is too costly on this page) rather than because it
    /// is invalid.
    pub fn is_budget(&self) -> bool {
        matches!(
            self.kind,
            EvalErrorKind::WorkBudget | EvalErrorKind::StringBudget | EvalErrorKind::NodeBudget
        )
    }
}

impl XPath {
    /// Compiles an expression.
    pub fn compile(source: &str) -> Result<XPath, XPathError> {
        let parsed = parser::parse(source)?;
        let mut expr = parsed.expr;
        optimize::optimize(&mut expr);
        Ok(XPath {
            source: source.into(),
            compiled: Arc::new(Compiled {
                expr,
                names: parsed.names,
            }),
            budget: Budget::DEFAULT,
        })
    }

    /// The same expression, evaluated under `budget` instead of
    /// [`Budget::DEFAULT`] by every evaluation method.
    pub fn with_budget(mut self, budget: Budget) -> XPath {
        self.budget = budget;
        self
    }

    /// The budget each evaluation runs under.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    fn evaluator<'a>(&'a self, doc: &'a Document) -> Evaluator<'a> {
        Evaluator::new(doc, &self.compiled.names, self.budget, &self.source)
    }

    /// The expression as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the expression yields a node-set (rather than a string, number or boolean).
    pub fn returns_nodes(&self) -> bool {
        self.compiled.expr.ty() == Type::NodeSet
    }

    /// Evaluates the expression with the tree node `context` as context node.
    pub fn evaluate(&self, doc: &Document, context: NodeId) -> Result<Value, EvalError> {
        self.evaluate_item(doc, Item::Node(context))
    }

    /// Evaluates the expression with any item (an attribute, say) as context node.
    pub fn evaluate_item(&self, doc: &Document, context: Item) -> Result<Value, EvalError> {
        check_item(doc, context)?;
        let mut ev = self.evaluator(doc);
        ev.eval(&self.compiled.expr, top(context))
    }

    /// Evaluates a node-set expression and returns its nodes in document order.
    pub fn select(&self, doc: &Document, context: NodeId) -> Result<Vec<Item>, EvalError> {
        self.select_item(doc, Item::Node(context))
    }

    /// [`XPath::select`] from any item.
    pub fn select_item(&self, doc: &Document, context: Item) -> Result<Vec<Item>, EvalError> {
        if !self.returns_nodes() {
            return Err(EvalError::invalid(format!(
                "'{}' does not yield a node-set",
                self.source
            )));
        }
        check_item(doc, context)?;
        let mut ev = self.evaluator(doc);
        ev.nodes(&self.compiled.expr, top(context))
    }

    /// Evaluates the expression as XPath `boolean()` would convert it.
    pub fn evaluate_boolean(&self, doc: &Document, context: NodeId) -> Result<bool, EvalError> {
        check_item(doc, Item::Node(context))?;
        let mut ev = self.evaluator(doc);
        ev.boolean(&self.compiled.expr, top(Item::Node(context)))
    }

    /// Evaluates the expression as XPath `string()` would convert it.
    pub fn evaluate_string(&self, doc: &Document, context: NodeId) -> Result<String, EvalError> {
        check_item(doc, Item::Node(context))?;
        let mut ev = self.evaluator(doc);
        Ok(ev
            .string(&self.compiled.expr, top(Item::Node(context)))?
            .into_owned())
    }
}

/// The elements the last XPath of `chain` selects when each XPath is
/// evaluated in every element the one before it selected, starting from the
/// document node: the instances of nested record patterns on a whole page.
/// Items keep the order they are found in, context after context, repeats
/// included, as extraction visits them; what is not an element (an
/// attribute, a text node) is no instance and is left out. An empty chain
/// gives the document node.
pub fn select_nested(doc: &Document, chain: &[&XPath]) -> Result<Vec<Item>, EvalError> {
    let mut contexts = vec![Item::Node(NodeId::ROOT)];
    for xpath in chain {
        let mut next = Vec::new();
        for &context in &contexts {
            next.extend(
                xpath
                    .select_item(doc, context)?
                    .into_iter()
                    .filter(|i| matches!(i, Item::Node(n) if doc.is_element(*n))),
            );
        }
        contexts = next;
    }
    Ok(contexts)
}

fn top(item: Item) -> Ctx {
    Ctx {
        item,
        pos: 1,
        size: 1,
    }
}

/// Refuses a context that does not belong to the document, which would
/// otherwise index outside the arena.
fn check_item(doc: &Document, item: Item) -> Result<(), EvalError> {
    let ok = match item {
        Item::Node(n) => n.index() < doc.len(),
        Item::Namespace(e) => e.index() < doc.len() && doc.is_element(e),
        Item::Attr { element, index } => {
            element.index() < doc.len() && doc.attr_range(element).contains(&(index as usize))
        }
    };
    if ok {
        Ok(())
    } else {
        Err(EvalError::invalid(format!(
            "the context item {item:?} is not in the document"
        )))
    }
}
