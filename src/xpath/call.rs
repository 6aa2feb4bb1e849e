//! Evaluating function calls: the XPath 1.0 core library and mend's extensions.
//!
//! Each function is evaluated in the form of its result type (boolean, number,
//! string or node-set) so that, for instance, `contains(@class, 'x')` compares
//! strings borrowed from the document without copying them. Arity and argument
//! types were checked at compile time, so a missing argument here can only
//! mean the optional one.

use std::borrow::Cow;

use regex::Regex;

use crate::dom::{Namespace, NodeId};

use super::EvalError;
use super::ast::{Expr, Type};
use super::eval::{Ctx, Evaluator, R};
use super::functions::Func;
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
            None => Ok(ctx.item.str_value(self.doc)),
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
        build_regex(&p, &f)
            .map(Cow::Owned)
            .map_err(|message| EvalError { message })
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
                None => string_to_number(&ctx.item.str_value(self.doc)),
            },
            Func::Sum => {
                let v = self.nodes(&args[0], ctx)?;
                let s = v
                    .iter()
                    .map(|i| string_to_number(&i.str_value(self.doc)))
                    .sum();
                self.give_buf(v);
                s
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
                    out.push_str(&self.string(a, ctx)?);
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
                    Cow::Owned(strings::normalize_space(&s))
                }
            }
            Func::Translate => {
                let s = self.string(&args[0], ctx)?;
                let from = self.string(&args[1], ctx)?;
                let to = self.string(&args[2], ctx)?;
                Cow::Owned(strings::translate(&s, &from, &to))
            }
            Func::LowerCase => Cow::Owned(self.string(&args[0], ctx)?.to_lowercase()),
            Func::UpperCase => Cow::Owned(self.string(&args[0], ctx)?.to_uppercase()),
            Func::Replace => {
                let s = self.string(&args[0], ctx)?;
                let re = self.regex_arg(regex, args, 3, ctx)?;
                let rep = self.string(&args[2], ctx)?;
                Cow::Owned(re.replace_all(&s, rep.as_ref()).into_owned())
            }
            Func::StringJoin => {
                let sep = self.string(&args[1], ctx)?;
                if args[0].ty() == Type::NodeSet {
                    let v = self.nodes(&args[0], ctx)?;
                    let mut out = String::new();
                    for (i, item) in v.iter().enumerate() {
                        if i > 0 {
                            out.push_str(&sep);
                        }
                        out.push_str(&item.str_value(doc));
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
            return Err(EvalError {
                message: format!("{}() does not yield a node-set", func.name()),
            });
        }
        let doc = self.doc;
        let mut text = String::new();
        if args[0].ty() == Type::NodeSet {
            let v = self.nodes(&args[0], ctx)?;
            for item in &v {
                text.push_str(&item.str_value(doc));
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
