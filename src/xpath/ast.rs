//! The compiled form of an expression: a tree of [`Expr`] nodes.
//!
//! Operator chains are kept flat (`a + b - c` is one node with three operands)
//! and runs of unary minus are folded, so the depth of the tree grows only with
//! parentheses, predicates and function arguments, which the parser bounds.
//! That keeps evaluating and dropping a tree safe for any accepted input.
//! The tree also carries the fast forms the optimiser substitutes for common
//! scraping predicates; each is documented with the general form it replaces.
//!
//! ## What it refuses
//!
//! The tree has no form for a variable or a prefixed name, so neither can
//! reach evaluation. [`Axis::from_name`] knows only the thirteen XPath axis
//! names; the fused `DescendantChildren` step comes from the optimiser alone.
//! A `processing-instruction()` test matches nothing, HTML having no such
//! nodes. Nothing here checks types, arities or depth: the parser does,
//! bounding depth by [`MAX_DEPTH`](super::MAX_DEPTH), before a tree exists.

use regex::Regex;

use super::functions::{Func, Type};

/// An index into a compiled expression's table of names, resolved to the
/// document's interned symbol once per evaluation.
pub(crate) type NameId = u32;

/// The thirteen axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Axis {
    Ancestor,
    AncestorOrSelf,
    Attribute,
    Child,
    Descendant,
    DescendantOrSelf,
    Following,
    FollowingSibling,
    Namespace,
    Parent,
    Preceding,
    PrecedingSibling,
    SelfNode,
    /// Not an XPath axis: the optimiser's fusion of `descendant-or-self::node()`
    /// and a following `child::` step with positional predicates (`//li[1]`).
    /// It selects the same nodes as the two steps, with each node's proximity
    /// position counted among the matching children of its parent.
    DescendantChildren,
}

impl Axis {
    pub(crate) fn from_name(name: &str) -> Option<Axis> {
        Some(match name {
            "ancestor" => Axis::Ancestor,
            "ancestor-or-self" => Axis::AncestorOrSelf,
            "attribute" => Axis::Attribute,
            "child" => Axis::Child,
            "descendant" => Axis::Descendant,
            "descendant-or-self" => Axis::DescendantOrSelf,
            "following" => Axis::Following,
            "following-sibling" => Axis::FollowingSibling,
            "namespace" => Axis::Namespace,
            "parent" => Axis::Parent,
            "preceding" => Axis::Preceding,
            "preceding-sibling" => Axis::PrecedingSibling,
            "self" => Axis::SelfNode,
            _ => return None,
        })
    }

    /// Whether proximity positions count backwards in document order.
    pub(crate) fn is_reverse(self) -> bool {
        matches!(
            self,
            Axis::Ancestor | Axis::AncestorOrSelf | Axis::Preceding | Axis::PrecedingSibling
        )
    }
}

/// A node test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeTest {
    /// A name: an element's local name, an attribute's name, or `xml` for the
    /// namespace node.
    Name(NameId),
    /// `*`: every node of the axis's principal node type.
    Any,
    /// `node()`.
    Node,
    /// `text()`.
    Text,
    /// `comment()`.
    Comment,
    /// `processing-instruction()`: HTML has none, so it matches nothing.
    Pi,
}

/// One location step.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub axis: Axis,
    pub test: NodeTest,
    pub preds: Vec<Expr>,
    /// Whether any predicate depends on the proximity position or size; when
    /// none does, the step may be evaluated without per-context positions.
    pub positional: bool,
}

/// Where a path starts.
#[derive(Clone, Debug)]
pub(crate) enum Start {
    /// The root node of the context node's document (`/…`).
    Root,
    /// The context node (a relative path).
    Context,
    /// The node-set of a filter expression (`(…)[…]/…`).
    Filter(Box<Expr>),
}

/// An arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub(crate) fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }
}

/// An expression.
#[derive(Clone, Debug)]
pub(crate) enum Expr {
    Number(f64),
    Literal(Box<str>),
    Or(Vec<Expr>),
    And(Vec<Expr>),
    /// A left-associative chain of comparisons: `first op1 e1 op2 e2 …`.
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    /// A left-associative chain of arithmetic.
    Arith(Box<Expr>, Vec<(ArithOp, Expr)>),
    /// Unary minus; `double` is set for an even number of minus signs, which
    /// still converts to a number.
    Neg {
        expr: Box<Expr>,
        double: bool,
    },
    Union(Vec<Expr>),
    /// A location path, or a filter expression followed by steps.
    Path {
        start: Start,
        steps: Vec<Step>,
    },
    /// A primary expression with predicates (positions in document order).
    Filter {
        expr: Box<Expr>,
        preds: Vec<Expr>,
    },
    Call {
        func: Func,
        args: Vec<Expr>,
        /// The regular expression of `matches`/`replace`, compiled once when
        /// the pattern and flags are literals.
        regex: Option<Box<Regex>>,
    },
    /// Fast form of `@name = 'value'` (or `'value' = @name`): the context
    /// element has the attribute with exactly this value. With `negate`, the
    /// form of `@name != 'value'`: it has the attribute with another value.
    AttrEq {
        name: NameId,
        value: Box<str>,
        negate: bool,
    },
    /// Fast form of
    /// `contains(concat(' ', normalize-space(@name), ' '), ' token ')` where
    /// the token has no whitespace: the attribute's whitespace-separated
    /// tokens include `token`.
    AttrToken {
        name: NameId,
        token: Box<str>,
    },
    /// Fast form of `normalize-space(.) = 'value'` (or `normalize-space()`,
    /// either side) where `value` is already normalized: the context item's
    /// string-value, with its whitespace normalized, is `value`. It is read
    /// text node by text node and stops at the first difference, so a label
    /// test over every cell of a page builds no string. With `negate`, the
    /// form of `!=`.
    NormalizedEq {
        value: Box<str>,
        negate: bool,
    },
}

impl Expr {
    /// The static type of the expression.
    pub(crate) fn ty(&self) -> Type {
        match self {
            Expr::Number(_) | Expr::Arith(..) | Expr::Neg { .. } => Type::Number,
            Expr::Literal(_) => Type::String,
            Expr::Or(_)
            | Expr::And(_)
            | Expr::Compare(..)
            | Expr::AttrEq { .. }
            | Expr::AttrToken { .. }
            | Expr::NormalizedEq { .. } => Type::Boolean,
            Expr::Union(_) | Expr::Path { .. } => Type::NodeSet,
            Expr::Filter { expr, .. } => expr.ty(),
            Expr::Call { func, .. } => func.return_type(),
        }
    }

    /// Whether the value of the expression depends on the context position or
    /// size, looking only at parts evaluated in the same context (predicates of
    /// inner steps and filters have contexts of their own).
    pub(crate) fn uses_position(&self) -> bool {
        match self {
            Expr::Number(_)
            | Expr::Literal(_)
            | Expr::AttrEq { .. }
            | Expr::AttrToken { .. }
            | Expr::NormalizedEq { .. } => false,
            Expr::Or(v) | Expr::And(v) | Expr::Union(v) => v.iter().any(Expr::uses_position),
            Expr::Compare(first, rest) => {
                first.uses_position() || rest.iter().any(|(_, e)| e.uses_position())
            }
            Expr::Arith(first, rest) => {
                first.uses_position() || rest.iter().any(|(_, e)| e.uses_position())
            }
            Expr::Neg { expr, .. } => expr.uses_position(),
            Expr::Path { start, .. } => match start {
                Start::Filter(e) => e.uses_position(),
                _ => false,
            },
            Expr::Filter { expr, .. } => expr.uses_position(),
            Expr::Call { func, args, .. } => {
                matches!(func, Func::Position | Func::Last) || args.iter().any(Expr::uses_position)
            }
        }
    }

    /// Whether a predicate made of this expression depends on the proximity
    /// position: a number is compared with it, and position() or last() read it.
    pub(crate) fn is_positional_predicate(&self) -> bool {
        self.ty() == Type::Number || self.uses_position()
    }
}
