//! Evaluating function calls: the XPath 1.0 core library and mend's extensions.
//!
//! Each function is evaluated in the form of its result type (boolean, number,
//! string or node-set) so that, for instance, `contains(@class, 'x')` compares
//! strings borrowed from the document without copying them. Arity and argument
//! types were checked at compile time, so a missing argument here can only
//! mean the optional one.
//!
//! Functions that build strings pay the work budget one unit per byte they
//! write and check the string budget before each piece they append, so that
//! `concat()`, `replace()` or `string-join()` nested to multiply a string's
//! length fail before they allocate it; functions that take the
//! string-values of a node-set pay for each.
//!
//! ## What it refuses
//!
//! A regular expression built during evaluation that does not compile, has a
//! flag other than `i`, `s`, `m` or `x`, or outgrows the 1 MiB size limit
//! fails with an invalid-kind [`EvalError`], as does asking any function but
//! `id()` for a node-set. A `replace()` whose `$` references alone could pass
//! the string budget is refused before it expands. `lang()` ignores HTML's
//! `lang` attribute, and `id()` gives only the first element in document
//! order for each token.

use std::borrow::Cow;

use regex::Regex;

use crate::dom::{Namespace, NodeId};

use super::EvalError;
use super::ast::Expr;
use super::budget::{EXPANSION, MATCH, REGEX};
use super::eval::{Ctx, Evaluator, R};
use super::functions::Func;
use super::functions::Type;
use super::item::Item;
use super::lexer::is_xml_space;
use super::number::{round, string_to_number};
use super::parser::build_regex;
use super::strings;
use super::value::Value;

impl<'a> Evaluator<'a> {
    /// Evaluates a call to a value of its result type.
    pub(crate) fn call(
        &mut self,
        func: Func,
        args: &'a [Expr],
        regex: Option<&'a Regex>,
        ctx: Ctx,
    ) -> R<Value> {
        Ok(match func.return_type() {
            Type::Boolean => Value::Boolean(self.call_bool(func, args, regex, ctx)?),
            Type::Number => Value::Number(self.call_number(func, args, ctx)?),
            Type::String => Value::String(self.call_string(func, args, regex, ctx)?.into_owned()),
            Type::NodeSet => Value::Nodes(self.call_nodes(func, args, ctx)?),
        })
    }

    /// The string of argument `i`, or of the context node when it is absent.
    fn arg_or_context(&mut self, args: &'a [Expr], i: usize, ctx: Ctx) -> R<Cow<'a, str>> {
        match args.get(i) {
            Some(e) => self.string(e, ctx),
            None => self.str_value(ctx.item),
        }
    }

    /// The node a name function asks about: the first of its argument, or the
    /// context node.
    fn name_subject(&mut self, args: &'a [Expr], ctx: Ctx) -> R<Option<Item>> {
        match args.first() {
            Some(e) => self.first_node(e, ctx),
            None => Ok(Some(ctx.item)),
        }
    }

    fn regex_arg(
        &mut self,
        compiled: Option<&'a Regex>,
        args: &'a [Expr],
        flags: usize,
        ctx: Ctx,
    ) -> R<Cow<'a, Regex>> {
        if let Some(r) = compiled {
            return Ok(Cow::Borrowed(r));
        }
        let p = self.string(&args[1], ctx)?.into_owned();
        let f = match args.get(flags) {
            Some(e) => self.string(e, ctx)?.into_owned(),
            None => String::new(),
        };
        self.charge(REGEX + p.len() as u64)?;
        build_regex(&p, &f)
            .map(Cow::Owned)
            .map_err(EvalError::invalid)
    }

    pub(crate) fn call_bool(
        &mut self,
        func: Func,
        args: &'a [Expr],
        regex: Option<&'a Regex>,
        ctx: Ctx,
    ) -> R<bool> {
        Ok(match func {
            Func::True => true,
            Func::False => false,
            Func::Not => !self.boolean(&args[0], ctx)?,
            Func::Boolean => self.boolean(&args[0], ctx)?,
            Func::Contains | Func::StartsWith | Func::EndsWith => {
                let s = self.string(&args[0], ctx)?;
                let t = self.string(&args[1], ctx)?;
                match func {
                    Func::Contains => s.contains(t.as_ref()),
                    Func::StartsWith => s.starts_with(t.as_ref()),
                    _ => s.ends_with(t.as_ref()),
                }
            }
            Func::Lang => {
                let want = self.string(&args[0], ctx)?;
                self.lang(ctx.item)
                    .is_some_and(|l| strings::lang_matches(l, &want))
            }
            Func::Matches => {
                let s = self.string(&args[0], ctx)?;
                let re = self.regex_arg(regex, args, 2, ctx)?;
                re.is_match(&s)
            }
            _ => self.eval(&args[0], ctx)?.to_boolean(),
        })
    }

    /// The `xml:lang` in scope for an item. Only attributes in the XML
    /// namespace count, and the HTML parser puts `xml:lang` in that namespace
    /// only on SVG and MathML elements.
    fn lang(&self, item: Item) -> Option<&'a str> {
        let doc = self.doc;
        let sym = doc.sym("xml:lang")?;
        let mut cur = Some(item.owner());
        while let Some(n) = cur {
            if doc.is_element(n)
                && doc.namespace(n) != Namespace::Html
                && let Some(v) = doc.attr_sym(n, sym)
            {
                return Some(v);
            }
            cur = doc.parent(n);
        }
        None
    }

    pub(crate) fn call_number(&mut self, func: Func, args: &'a [Expr], ctx: Ctx) -> R<f64> {
        Ok(match func {
            Func::Last => ctx.size as f64,
            Func::Position => ctx.pos as f64,
            Func::Count => {
                let v = self.nodes(&args[0], ctx)?;
                let n = v.len();
                self.give_buf(v);
                n as f64
            }
            Func::StringLength => self.arg_or_context(args, 0, ctx)?.chars().count() as f64,
            Func::Number => match args.first() {
                Some(e) => self.number(e, ctx)?,
                None => string_to_number(&self.str_value(ctx.item)?),
            },
            Func::Sum => {
                let v = self.nodes(&args[0], ctx)?;
                let mut sum = 0.0;
                for &i in &v {
                    sum += string_to_number(&self.value_of(i)?);
                }
                self.give_buf(v);
                sum
            }
            Func::Floor => self.number(&args[0], ctx)?.floor(),
            Func::Ceiling => self.number(&args[0], ctx)?.ceil(),
            Func::Round => round(self.number(&args[0], ctx)?),
            _ => self.eval(&args[0], ctx)?.to_number(self.doc),
        })
    }

    pub(crate) fn call_string(
        &mut self,
        func: Func,
        args: &'a [Expr],
        regex: Option<&'a Regex>,
        ctx: Ctx,
    ) -> R<Cow<'a, str>> {
        let doc = self.doc;
        Ok(match func {
            Func::String => self.arg_or_context(args, 0, ctx)?,
            Func::LocalName | Func::Name | Func::NamespaceUri => {
                match self.name_subject(args, ctx)? {
                    None => Cow::Borrowed(""),
                    Some(item) => Cow::Borrowed(match func {
                        Func::LocalName => item.local_name(doc),
                        Func::Name => item.name(doc),
                        _ => item.namespace_uri(doc),
                    }),
                }
            }
            Func::Concat => {
                let mut out = String::new();
                for a in args {
                    let piece = self.string(a, ctx)?;
                    self.grow_string(out.len() + piece.len(), piece.len())?;
                    out.push_str(&piece);
                }
                Cow::Owned(out)
            }
            Func::SubstringBefore | Func::SubstringAfter => {
                let s = self.string(&args[0], ctx)?;
                let t = self.string(&args[1], ctx)?;
                let part = if func == Func::SubstringBefore {
                    strings::substring_before(&s, &t)
                } else {
                    strings::substring_after(&s, &t)
                };
                let range = range_in(&s, part);
                slice_of(s, range)
            }
            Func::Substring => {
                let s = self.string(&args[0], ctx)?;
                let start = self.number(&args[1], ctx)?;
                let len = match args.get(2) {
                    Some(e) => Some(self.number(e, ctx)?),
                    None => None,
                };
                let range = range_in(&s, strings::substring(&s, start, len));
                slice_of(s, range)
            }
            Func::NormalizeSpace => {
                let s = self.arg_or_context(args, 0, ctx)?;
                if strings::is_normalized(&s) {
                    s
                } else {
                    self.charge(s.len() as u64)?;
                    Cow::Owned(strings::normalize_space(&s))
                }
            }
            Func::Translate => {
                let s = self.string(&args[0], ctx)?;
                let from = self.string(&args[1], ctx)?;
                let to = self.string(&args[2], ctx)?;
                // Each character is looked up among those of `from`.
                let lookups = 1 + from.chars().count() as u64 / 8;
                self.charge((s.len() as u64).saturating_mul(lookups))?;
                let out = strings::translate(&s, &from, &to);
                self.charge_string(out.len())?;
                Cow::Owned(out)
            }
            Func::LowerCase | Func::UpperCase => {
                let s = self.string(&args[0], ctx)?;
                let out = if func == Func::LowerCase {
                    s.to_lowercase()
                } else {
                    s.to_uppercase()
                };
                self.charge_string(out.len())?;
                Cow::Owned(out)
            }
            Func::Replace => {
                let s = self.string(&args[0], ctx)?;
                let re = self.regex_arg(regex, args, 3, ctx)?;
                let rep = self.string(&args[2], ctx)?;
                Cow::Owned(self.replace_all(&re, &s, &rep)?)
            }
            Func::StringJoin => {
                let sep = self.string(&args[1], ctx)?;
                if args[0].ty() == Type::NodeSet {
                    let v = self.nodes(&args[0], ctx)?;
                    let mut out = String::new();
                    for (i, &item) in v.iter().enumerate() {
                        let value = self.value_of(item)?;
                        let sep_len = if i > 0 { sep.len() } else { 0 };
                        self.grow_string(out.len() + sep_len + value.len(), sep_len)?;
                        if i > 0 {
                            out.push_str(&sep);
                        }
                        out.push_str(&value);
                    }
                    self.give_buf(v);
                    Cow::Owned(out)
                } else {
                    self.string(&args[0], ctx)?
                }
            }
            _ => Cow::Owned(self.eval(&args[0], ctx)?.to_string_value(doc)),
        })
    }

    /// `id()`: the elements whose `id` attribute equals one of the
    /// whitespace-separated tokens, the first in document order for each token.
    pub(crate) fn call_nodes(&mut self, func: Func, args: &'a [Expr], ctx: Ctx) -> R<Vec<Item>> {
        if func != Func::Id {
            return Err(EvalError::invalid(format!(
                "{}() does not yield a node-set",
                func.name()
            )));
        }
        let doc = self.doc;
        let mut text = String::new();
        if args[0].ty() == Type::NodeSet {
            let v = self.nodes(&args[0], ctx)?;
            for &item in &v {
                let value = self.value_of(item)?;
                self.check_string(text.len() + value.len() + 1)?;
                text.push_str(&value);
                text.push(' ');
            }
            self.give_buf(v);
        } else {
            text.push_str(&self.string(&args[0], ctx)?);
        }
        let mut wanted: Vec<&str> = text.split(is_xml_space).filter(|t| !t.is_empty()).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut found = vec![false; wanted.len()];
        let mut out = Vec::new();
        let Some(id) = doc.sym("id") else {
            return Ok(out);
        };
        if wanted.is_empty() {
            return Ok(out);
        }
        let mut left = wanted.len();
        // The document is scanned once per call; this pays for it in full.
        self.charge(doc.len() as u64)?;
        for n in 1..doc.len() as u32 {
            let n = NodeId(n);
            if !doc.is_element(n) {
                continue;
            }
            if let Some(v) = doc.attr_sym(n, id)
                && let Ok(i) = wanted.binary_search(&v)
                && !found[i]
            {
                found[i] = true;
                out.push(Item::Node(n));
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        Ok(out)
    }
}

impl Evaluator<'_> {
    /// `replace()`: `re.replace_all(s, rep)`, with `$1` and `${name}` in
    /// `rep` expanded as the `regex` crate does, but paying for each match
    /// and checking the length before each piece is appended, so that a
    /// replacement that multiplies the string fails before it is built.
    fn replace_all(&mut self, re: &Regex, s: &str, rep: &str) -> R<String> {
        let mut out = String::new();
        let mut last = 0;
        let refs = rep.bytes().filter(|&b| b == b'$').count();
        if refs == 0 {
            for m in re.find_iter(s) {
                let added = m.start() - last + rep.len();
                self.charge(MATCH)?;
                self.grow_string(out.len() + added, added)?;
                out.push_str(&s[last..m.start()]);
                out.push_str(rep);
                last = m.end();
            }
        } else {
            let cap = self.meter.budget.string_bytes;
            for caps in re.captures_iter(s) {
                let Some(m) = caps.get(0) else { continue };
                self.charge(MATCH + EXPANSION)?;
                // Each `$` reference expands to a group, which is no longer
                // than the match: a replacement whose expansion could
                // exceed the budget by itself is refused before it is made,
                // and the string is checked once the expansion is appended.
                let most = rep.len().saturating_add(refs.saturating_mul(m.len()));
                if most > cap {
                    return Err(self.string_too_long());
                }
                let before = out.len();
                out.push_str(&s[last..m.start()]);
                caps.expand(rep, &mut out);
                self.grow_string(out.len(), out.len() - before)?;
                last = m.end();
            }
        }
        let tail = s.len() - last;
        self.grow_string(out.len() + tail, tail)?;
        out.push_str(&s[last..]);
        Ok(out)
    }
}

/// The byte range `range` of a string value, borrowed when the value is.
fn slice_of(whole: Cow<'_, str>, range: std::ops::Range<usize>) -> Cow<'_, str> {
    match whole {
        Cow::Borrowed(w) => Cow::Borrowed(&w[range]),
        Cow::Owned(mut o) => {
            o.truncate(range.end);
            o.drain(..range.start);
            Cow::Owned(o)
        }
    }
}

/// Where `part`, a sub-slice of `whole`, lies in it.
fn range_in(whole: &str, part: &str) -> std::ops::Range<usize> {
    let start = (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize);
    start..start + part.len()
}
