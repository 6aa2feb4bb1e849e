//! The evaluator: expressions, conversions and comparisons.
//!
//! An [`Evaluator`] lives for one top-level evaluation. It resolves the
//! expression's names to the document's interned symbols once, keeps scratch
//! buffers for location steps, and evaluates each expression in the form its
//! consumer needs — a boolean, a number, a string borrowed from the document
//! or the expression where possible, or a node-set — so that predicates such
//! as `[@class='x']` or `[text()='y']` run without building strings. The
//! evaluator recurses on the expression tree (whose depth the parser bounds),
//! never on the depth of the document. It also keeps the evaluation's
//! account against its [`Budget`]: the charges for
//! comparisons and string-values are made here, those for axis steps in
//! `axes.rs` and those for the function library in `call.rs`.
//!
//! ## What it refuses
//!
//! Asking a node-set of an expression that yields none fails with an
//! invalid-kind [`EvalError`]; work past the budget, or more node-set items
//! held at once than it allows (a left operand's node-set is held while the
//! right one is evaluated), fails with the budget's kind, never with part of
//! a result. A name the document does not hold resolves to nothing once, so
//! tests on it are false without a look. Spare buffers over
//! [`POOL_MAX_ITEMS`] items are freed, not kept. No clock is read.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::dom::{Document, NodeId, NodeKind, Sym};

use super::EvalError;
use super::ast::{ArithOp, CmpOp, Expr, NameId, Start};
use super::budget::{Budget, Meter, VALUE};
use super::functions::Type;
use super::item::Item;
use super::lexer::is_xml_space;
use super::number::{number_to_string, string_to_number};
use super::strings::NormalizedMatch;
use super::value::Value;

pub(crate) type R<T> = Result<T, EvalError>;

/// The dynamic context: the context item, its position and the context size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    pub item: Item,
    pub pos: usize,
    pub size: usize,
}

/// State for one evaluation of a compiled expression against one document.
pub(crate) struct Evaluator<'a> {
    pub doc: &'a Document,
    pub names: &'a [Box<str>],
    /// The document's symbol for each name of the expression; `None` when the
    /// document has no element or attribute of that name.
    pub syms: Vec<Option<Sym>>,
    /// Spare node buffers, so that steps do not allocate per context node.
    pub pool: Vec<Vec<Item>>,
    /// The work and memory spent so far against the budget.
    pub meter: Meter,
    /// The expression as written, for the budget's error messages.
    pub source: &'a str,
}

/// The largest buffer, in items, kept for reuse: bigger ones are freed, so
/// that spare buffers do not hold memory the node budget no longer sees.
const POOL_MAX_ITEMS: usize = 1 << 17;

impl<'a> Evaluator<'a> {
    pub(crate) fn new(
        doc: &'a Document,
        names: &'a [Box<str>],
        budget: Budget,
        source: &'a str,
    ) -> Self {
        Evaluator {
            doc,
            names,
            syms: names.iter().map(|n| doc.sym(n)).collect(),
            pool: Vec::new(),
            meter: Meter::new(budget),
            source,
        }
    }

    #[inline]
    pub(crate) fn sym(&self, id: NameId) -> Option<Sym> {
        self.syms.get(id as usize).copied().flatten()
    }

    pub(crate) fn take_buf(&mut self) -> Vec<Item> {
        self.pool.pop().unwrap_or_default()
    }

    pub(crate) fn give_buf(&mut self, mut buf: Vec<Item>) {
        if self.pool.len() < 16 && buf.capacity() <= POOL_MAX_ITEMS {
            buf.clear();
            self.pool.push(buf);
        }
    }

    /// Evaluates to a value of the expression's own type.
    pub(crate) fn eval(&mut self, e: &'a Expr, ctx: Ctx) -> R<Value> {
        Ok(match e {
            Expr::Number(n) => Value::Number(*n),
            Expr::Literal(s) => Value::String(s.to_string()),
            Expr::Union(_) | Expr::Path { .. } => Value::Nodes(self.nodes(e, ctx)?),
            Expr::Filter { expr, .. } if expr.ty() == Type::NodeSet => {
                Value::Nodes(self.nodes(e, ctx)?)
            }
            Expr::Filter { expr, .. } => self.eval(expr, ctx)?,
            Expr::Call { func, args, regex } => self.call(*func, args, regex.as_deref(), ctx)?,
            _ => match e.ty() {
                Type::Number => Value::Number(self.number(e, ctx)?),
                _ => Value::Boolean(self.boolean(e, ctx)?),
            },
        })
    }

    /// Evaluates a node-set expression.
    pub(crate) fn nodes(&mut self, e: &'a Expr, ctx: Ctx) -> R<Vec<Item>> {
        match e {
            Expr::Path { start, steps } => {
                let mut cur = match start {
                    Start::Root => {
                        let mut v = self.take_buf();
                        v.push(Item::Node(NodeId::ROOT));
                        v
                    }
                    Start::Context => {
                        let mut v = self.take_buf();
                        v.push(ctx.item);
                        v
                    }
                    Start::Filter(f) => self.nodes(f, ctx)?,
                };
                for step in steps {
                    if cur.is_empty() {
                        break;
                    }
                    let next = self.step(&cur, step)?;
                    self.give_buf(std::mem::replace(&mut cur, next));
                }
                Ok(cur)
            }
            Expr::Union(parts) => {
                let base = self.meter.held;
                let mut acc: Vec<Item> = Vec::new();
                for p in parts {
                    // The union so far is held while the next part is evaluated.
                    self.hold(base, acc.len())?;
                    let v = self.nodes(p, ctx)?;
                    acc = if acc.is_empty() { v } else { merge(&acc, &v) };
                }
                self.meter.held = base;
                Ok(acc)
            }
            Expr::Filter { expr, preds } => {
                let mut v = self.nodes(expr, ctx)?;
                for p in preds {
                    self.filter(&mut v, p)?;
                }
                Ok(v)
            }
            Expr::Call { func, args, .. } => self.call_nodes(*func, args, ctx),
            _ => Err(EvalError::invalid(
                "the expression does not yield a node-set".to_owned(),
            )),
        }
    }

    /// The first node of a node-set expression in document order.
    pub(crate) fn first_node(&mut self, e: &'a Expr, ctx: Ctx) -> R<Option<Item>> {
        if let Some(found) = self.first_simple(e, ctx) {
            self.check_work()?;
            return Ok(found);
        }
        let v = self.nodes(e, ctx)?;
        let first = v.first().copied();
        self.give_buf(v);
        Ok(first)
    }

    /// Evaluates to a boolean.
    pub(crate) fn boolean(&mut self, e: &'a Expr, ctx: Ctx) -> R<bool> {
        match e {
            Expr::Or(v) => {
                for x in v {
                    if self.boolean(x, ctx)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Expr::And(v) => {
                for x in v {
                    if !self.boolean(x, ctx)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Expr::Compare(first, rest) => {
                if let [(op, rhs)] = rest.as_slice() {
                    return self.compare(first, *op, rhs, ctx);
                }
                let mut left = self.eval(first, ctx)?;
                for (op, rhs) in rest {
                    let right = self.eval(rhs, ctx)?;
                    left = Value::Boolean(self.compare_values(&left, *op, &right)?);
                }
                Ok(left.to_boolean())
            }
            Expr::AttrEq {
                name,
                value,
                negate,
            } => Ok(match (ctx.item, self.sym(*name)) {
                (Item::Node(n), Some(sym)) => match self.doc.attr_sym(n, sym) {
                    Some(v) => (v == &**value) != *negate,
                    None => false,
                },
                _ => false,
            }),
            Expr::AttrToken { name, token } => Ok(match (ctx.item, self.sym(*name)) {
                (Item::Node(n), Some(sym)) => match self.doc.attr_sym(n, sym) {
                    Some(v) => v.split(is_xml_space).any(|t| t == &**token),
                    None => false,
                },
                _ => false,
            }),
            Expr::NormalizedEq { value, negate } => {
                Ok(self.normalized_eq(ctx.item, value)? != *negate)
            }
            Expr::Number(n) => Ok(*n != 0.0 && !n.is_nan()),
            Expr::Literal(s) => Ok(!s.is_empty()),
            Expr::Path { .. } | Expr::Union(_) => self.exists(e, ctx),
            Expr::Filter { expr, .. } if expr.ty() == Type::NodeSet => self.exists(e, ctx),
            Expr::Call { func, args, regex } if func.return_type() == Type::Boolean => {
                self.call_bool(*func, args, regex.as_deref(), ctx)
            }
            _ => Ok(self.eval(e, ctx)?.to_boolean()),
        }
    }

    /// Whether `item`'s string-value, normalized, is `value` (normalized):
    /// read a text node at a time, up to the first difference, and paid for
    /// by the nodes and bytes read.
    fn normalized_eq(&mut self, item: Item, value: &str) -> R<bool> {
        let mut m = NormalizedMatch::new(value);
        let n = match item {
            Item::Node(n) => n,
            other => {
                let s = other.str_value(self.doc);
                self.charge(s.len() as u64)?;
                m.feed(&s);
                return Ok(m.matches());
            }
        };
        if matches!(self.doc.kind(n), NodeKind::Text | NodeKind::Comment) {
            let s = self.doc.text(n);
            self.charge(s.len() as u64)?;
            m.feed(s);
            return Ok(m.matches());
        }
        let mut units = 0u64;
        for d in self.doc.descendants(n) {
            units += 1;
            if self.doc.kind(d) != NodeKind::Text {
                continue;
            }
            let t = self.doc.text(d);
            units += t.len() as u64;
            if !m.feed(t) {
                break;
            }
        }
        self.charge(units)?;
        Ok(m.matches())
    }

    /// Whether a node-set expression selects anything.
    #[inline]
    fn exists(&mut self, e: &'a Expr, ctx: Ctx) -> R<bool> {
        if let Some(found) = self.first_simple(e, ctx) {
            self.check_work()?;
            return Ok(found.is_some());
        }
        let v = self.nodes(e, ctx)?;
        let found = !v.is_empty();
        self.give_buf(v);
        Ok(found)
    }

    /// Evaluates to a number.
    pub(crate) fn number(&mut self, e: &'a Expr, ctx: Ctx) -> R<f64> {
        match e {
            Expr::Number(n) => Ok(*n),
            Expr::Arith(first, rest) => {
                let mut acc = self.number(first, ctx)?;
                for (op, rhs) in rest {
                    let r = self.number(rhs, ctx)?;
                    acc = match op {
                        ArithOp::Add => acc + r,
                        ArithOp::Sub => acc - r,
                        ArithOp::Mul => acc * r,
                        ArithOp::Div => acc / r,
                        // Rust's `%` on floats truncates like XPath's mod.
                        ArithOp::Mod => acc % r,
                    };
                }
                Ok(acc)
            }
            Expr::Neg { expr, double } => {
                let n = self.number(expr, ctx)?;
                Ok(if *double { n } else { -n })
            }
            Expr::Call { func, args, .. } if func.return_type() == Type::Number => {
                self.call_number(*func, args, ctx)
            }
            _ => match e.ty() {
                Type::Boolean => Ok(if self.boolean(e, ctx)? { 1.0 } else { 0.0 }),
                _ => Ok(string_to_number(&self.string(e, ctx)?)),
            },
        }
    }

    /// Evaluates to a string, borrowing from the document or the expression
    /// where the value is one piece of text already.
    pub(crate) fn string(&mut self, e: &'a Expr, ctx: Ctx) -> R<Cow<'a, str>> {
        match e.ty() {
            Type::NodeSet => Ok(match self.first_node(e, ctx)? {
                Some(item) => self.str_value(item)?,
                None => Cow::Borrowed(""),
            }),
            Type::Number => Ok(Cow::Owned(number_to_string(self.number(e, ctx)?))),
            Type::Boolean => Ok(Cow::Borrowed(if self.boolean(e, ctx)? {
                "true"
            } else {
                "false"
            })),
            Type::String => match e {
                Expr::Literal(s) => Ok(Cow::Borrowed(s)),
                Expr::Call { func, args, regex } => {
                    self.call_string(*func, args, regex.as_deref(), ctx)
                }
                Expr::Filter { expr, .. } => self.string(expr, ctx),
                _ => Ok(Cow::Owned(self.eval(e, ctx)?.to_string_value(self.doc))),
            },
        }
    }

    /// One comparison `lhs op rhs`, following section 3.4.
    fn compare(&mut self, lhs: &'a Expr, op: CmpOp, rhs: &'a Expr, ctx: Ctx) -> R<bool> {
        let (lt, rt) = (lhs.ty(), rhs.ty());
        // A node-set against a string: compare string-values one by one,
        // borrowed from the document, without building the whole value list.
        if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            let (ns, other) = match (lt, rt) {
                (Type::NodeSet, Type::String) => (lhs, rhs),
                (Type::String, Type::NodeSet) => (rhs, lhs),
                _ => (lhs, lhs),
            };
            if !std::ptr::eq(ns, other) {
                let s = self.string(other, ctx)?;
                let v = self.nodes(ns, ctx)?;
                let want_eq = op == CmpOp::Eq;
                let mut found = false;
                for &i in &v {
                    if (self.value_of(i)?.as_ref() == s.as_ref()) == want_eq {
                        found = true;
                        break;
                    }
                }
                self.give_buf(v);
                return Ok(found);
            }
        }
        if lt != Type::NodeSet && rt != Type::NodeSet {
            return Ok(match op {
                CmpOp::Eq | CmpOp::Ne => {
                    let eq = if lt == Type::Boolean || rt == Type::Boolean {
                        self.boolean(lhs, ctx)? == self.boolean(rhs, ctx)?
                    } else if lt == Type::Number || rt == Type::Number {
                        self.number(lhs, ctx)? == self.number(rhs, ctx)?
                    } else {
                        self.string(lhs, ctx)? == self.string(rhs, ctx)?
                    };
                    eq == (op == CmpOp::Eq)
                }
                _ => num_cmp(self.number(lhs, ctx)?, op, self.number(rhs, ctx)?),
            });
        }
        let l = self.eval(lhs, ctx)?;
        // The left node-set is held while the right one is evaluated.
        let base = self.meter.held;
        self.hold(base, l.as_nodes().map_or(0, <[_]>::len))?;
        let r = self.eval(rhs, ctx)?;
        self.meter.held = base;
        self.compare_values(&l, op, &r)
    }

    /// The string-value of a node-set's item taken to compare, sum, join or
    /// look up, paid for: [`VALUE`] more than [`Evaluator::str_value`].
    #[inline]
    pub(crate) fn value_of(&mut self, item: Item) -> R<Cow<'a, str>> {
        let s = item.str_value(self.doc);
        self.charge(VALUE + self.value_units(item, &s))?;
        Ok(s)
    }

    /// The string-value of an item taken to work on, paid for by its length
    /// and the nodes it is gathered from.
    pub(crate) fn str_value(&mut self, item: Item) -> R<Cow<'a, str>> {
        let s = item.str_value(self.doc);
        self.charge(self.value_units(item, &s))?;
        Ok(s)
    }

    /// Compares two values by the rules of section 3.4, paying for each
    /// string-value taken from a node-set.
    pub(crate) fn compare_values(&mut self, l: &Value, op: CmpOp, r: &Value) -> R<bool> {
        let doc = self.doc;
        Ok(match (l, r) {
            (Value::Nodes(a), Value::Nodes(b)) => match op {
                CmpOp::Eq | CmpOp::Ne => {
                    let mut bs: HashSet<Cow<'a, str>> = HashSet::with_capacity(b.len());
                    for &i in b {
                        bs.insert(self.value_of(i)?);
                    }
                    if op == CmpOp::Eq {
                        let mut found = false;
                        for &i in a {
                            if bs.contains(&self.value_of(i)?) {
                                found = true;
                                break;
                            }
                        }
                        found
                    } else {
                        // Some pair differs unless both sides hold one and the
                        // same string (or either side is empty).
                        if a.is_empty() || bs.is_empty() {
                            return Ok(false);
                        }
                        let mut as_: HashSet<Cow<'a, str>> = HashSet::with_capacity(a.len());
                        for &i in a {
                            as_.insert(self.value_of(i)?);
                        }
                        !(as_.len() == 1 && bs.len() == 1 && as_ == bs)
                    }
                }
                _ => {
                    // Some pair satisfies `x < y` exactly when the least x is
                    // below the greatest y (NaN satisfies nothing), and so on.
                    let (Some((amin, amax)), Some((bmin, bmax))) =
                        (self.min_max(a)?, self.min_max(b)?)
                    else {
                        return Ok(false);
                    };
                    match op {
                        CmpOp::Lt | CmpOp::Le => num_cmp(amin, op, bmax),
                        _ => num_cmp(amax, op, bmin),
                    }
                }
            },
            (Value::Nodes(a), other) => self.node_set_vs(a, op, other)?,
            (other, Value::Nodes(b)) => self.node_set_vs(b, op.swapped(), other)?,
            _ => match op {
                CmpOp::Eq | CmpOp::Ne => {
                    let eq = match (l, r) {
                        (Value::Boolean(_), _) | (_, Value::Boolean(_)) => {
                            l.to_boolean() == r.to_boolean()
                        }
                        (Value::Number(_), _) | (_, Value::Number(_)) => {
                            l.to_number(doc) == r.to_number(doc)
                        }
                        _ => l.to_string_value(doc) == r.to_string_value(doc),
                    };
                    eq == (op == CmpOp::Eq)
                }
                _ => num_cmp(l.to_number(doc), op, r.to_number(doc)),
            },
        })
    }

    /// A node-set `a` compared with a non-node-set value.
    fn node_set_vs(&mut self, a: &[Item], op: CmpOp, other: &Value) -> R<bool> {
        let n = match other {
            Value::Boolean(b) => {
                let l = !a.is_empty();
                return Ok(match op {
                    CmpOp::Eq => l == *b,
                    CmpOp::Ne => l != *b,
                    _ => num_cmp(l as u8 as f64, op, *b as u8 as f64),
                });
            }
            Value::Nodes(_) => return Ok(false),
            Value::Number(n) => Some(*n),
            Value::String(s) if !matches!(op, CmpOp::Eq | CmpOp::Ne) => Some(string_to_number(s)),
            Value::String(_) => None,
        };
        for &i in a {
            let v = self.value_of(i)?;
            let holds = match (n, other) {
                (Some(n), _) => num_cmp(string_to_number(&v), op, n),
                (None, Value::String(s)) => (v == s.as_str()) == (op == CmpOp::Eq),
                _ => false,
            };
            if holds {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The least and greatest number among the nodes' values, NaN left out.
    fn min_max(&mut self, items: &[Item]) -> R<Option<(f64, f64)>> {
        let mut acc: Option<(f64, f64)> = None;
        for &i in items {
            let n = string_to_number(&self.value_of(i)?);
            if n.is_nan() {
                continue;
            }
            acc = Some(match acc {
                None => (n, n),
                Some((lo, hi)) => (lo.min(n), hi.max(n)),
            });
        }
        Ok(acc)
    }
}

#[inline]
pub(crate) fn num_cmp(a: f64, op: CmpOp, b: f64) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// The union of two node-sets in document order, without duplicates.
pub(crate) fn merge(a: &[Item], b: &[Item]) -> Vec<Item> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].order_key(), b[j].order_key());
        if x < y {
            out.push(a[i]);
            i += 1;
        } else if y < x {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Puts a node list into document order without duplicates; a list that is
/// already in order (the usual case) costs one pass.
pub(crate) fn normalize(v: &mut Vec<Item>) {
    if v.windows(2).all(|w| w[0].order_key() < w[1].order_key()) {
        return;
    }
    v.sort_unstable_by_key(|i| i.order_key());
    v.dedup();
}
