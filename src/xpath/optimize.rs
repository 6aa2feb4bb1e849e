//! Compile-time rewrites into forms that evaluate faster with the same result.
//!
//! * `descendant-or-self::node()/child::T[p]` (what `//T[p]` abbreviates)
//!   becomes `descendant::T[p]` when no predicate depends on positions, so
//!   `//a` is one scan of an id range; with positional predicates it becomes
//!   the fused [`Axis::DescendantChildren`] step, which still counts
//!   positions among siblings.
//! * `@name = 'literal'` and `@name != 'literal'` become [`Expr::AttrEq`].
//! * `contains(concat(' ', normalize-space(@name), ' '), ' token ')` becomes
//!   [`Expr::AttrToken`] when the token has no whitespace.
//! * `normalize-space(.) = 'literal'` and `normalize-space() != 'literal'`
//!   become [`Expr::NormalizedEq`] when the literal is normalized (a literal
//!   that is not never equals a normalized string, and is left to the
//!   general form).
//!
//! Each rewrite is exact; none changes what an expression means. The walk
//! recurses on the expression tree, whose depth the parser bounds.
//!
//! ## What it refuses
//!
//! It rewrites only the exact forms above and leaves any other as written: a
//! value that is not a literal, a comparison chain (`a = b = c`), an
//! attribute step with predicates, a token that is empty or holds whitespace,
//! `normalize-space` of anything but the context, or `<` and `>`. Nothing
//! here fails, and a `//` before a step on another axis than `child` keeps
//! its two steps.

use super::ast::{Axis, CmpOp, Expr, NameId, NodeTest, Start, Step};
use super::functions::Func;
use super::lexer::is_xml_space;
use super::strings::is_normalized;

/// Rewrites `e` in place, children first.
pub(crate) fn optimize(e: &mut Expr) {
    match e {
        Expr::Number(_)
        | Expr::Literal(_)
        | Expr::AttrEq { .. }
        | Expr::AttrToken { .. }
        | Expr::NormalizedEq { .. } => {}
        Expr::Or(v) | Expr::And(v) | Expr::Union(v) => v.iter_mut().for_each(optimize),
        Expr::Compare(first, rest) => {
            optimize(first);
            rest.iter_mut().for_each(|(_, x)| optimize(x));
        }
        Expr::Arith(first, rest) => {
            optimize(first);
            rest.iter_mut().for_each(|(_, x)| optimize(x));
        }
        Expr::Neg { expr, .. } => optimize(expr),
        Expr::Path { start, steps } => {
            if let Start::Filter(f) = start {
                optimize(f);
            }
            for s in steps.iter_mut() {
                s.preds.iter_mut().for_each(optimize);
                s.positional = s.preds.iter().any(Expr::is_positional_predicate);
            }
            fuse_descendants(steps);
        }
        Expr::Filter { expr, preds } => {
            optimize(expr);
            preds.iter_mut().for_each(optimize);
        }
        Expr::Call { args, .. } => args.iter_mut().for_each(optimize),
    }
    if let Some(fast) = attr_eq(e)
        .or_else(|| attr_token(e))
        .or_else(|| normalized_eq(e))
    {
        *e = fast;
    }
}

fn fuse_descendants(steps: &mut Vec<Step>) {
    let old = std::mem::take(steps);
    let mut pending_dos = false;
    for s in old {
        if pending_dos {
            pending_dos = false;
            if s.axis == Axis::Child {
                let axis = if s.positional {
                    Axis::DescendantChildren
                } else {
                    Axis::Descendant
                };
                steps.push(Step { axis, ..s });
                continue;
            }
            steps.push(plain_dos());
        }
        if s.axis == Axis::DescendantOrSelf && s.test == NodeTest::Node && s.preds.is_empty() {
            pending_dos = true;
            continue;
        }
        steps.push(s);
    }
    if pending_dos {
        steps.push(plain_dos());
    }
}

fn plain_dos() -> Step {
    Step {
        axis: Axis::DescendantOrSelf,
        test: NodeTest::Node,
        preds: Vec::new(),
        positional: false,
    }
}

/// The name of a bare `@name` (a relative path of one predicate-free step).
fn attr_name(e: &Expr) -> Option<NameId> {
    match e {
        Expr::Path {
            start: Start::Context,
            steps,
        } => match steps.as_slice() {
            [
                Step {
                    axis: Axis::Attribute,
                    test: NodeTest::Name(id),
                    preds,
                    ..
                },
            ] if preds.is_empty() => Some(*id),
            _ => None,
        },
        _ => None,
    }
}

fn attr_eq(e: &Expr) -> Option<Expr> {
    let Expr::Compare(first, rest) = e else {
        return None;
    };
    let [(op @ (CmpOp::Eq | CmpOp::Ne), second)] = rest.as_slice() else {
        return None;
    };
    let (name, value) = match (attr_name(first), &**first, attr_name(second), second) {
        (Some(name), _, _, Expr::Literal(v)) | (_, Expr::Literal(v), Some(name), _) => (name, v),
        _ => return None,
    };
    Some(Expr::AttrEq {
        name,
        value: value.clone(),
        negate: *op == CmpOp::Ne,
    })
}

fn attr_token(e: &Expr) -> Option<Expr> {
    let Expr::Call {
        func: Func::Contains,
        args,
        ..
    } = e
    else {
        return None;
    };
    let [
        Expr::Call {
            func: Func::Concat,
            args: parts,
            ..
        },
        Expr::Literal(needle),
    ] = args.as_slice()
    else {
        return None;
    };
    let [
        Expr::Literal(l),
        Expr::Call {
            func: Func::NormalizeSpace,
            args: inner,
            ..
        },
        Expr::Literal(r),
    ] = parts.as_slice()
    else {
        return None;
    };
    if &**l != " " || &**r != " " {
        return None;
    }
    let [attr] = inner.as_slice() else {
        return None;
    };
    let name = attr_name(attr)?;
    let token = needle.strip_prefix(' ')?.strip_suffix(' ')?;
    if token.is_empty() || token.contains(is_xml_space) {
        return None;
    }
    Some(Expr::AttrToken {
        name,
        token: token.into(),
    })
}

/// Whether `e` is `normalize-space(.)` or `normalize-space()`: the context
/// item's string-value, normalized.
fn is_normalized_context(e: &Expr) -> bool {
    let Expr::Call {
        func: Func::NormalizeSpace,
        args,
        ..
    } = e
    else {
        return false;
    };
    match args.as_slice() {
        [] => true,
        [
            Expr::Path {
                start: Start::Context,
                steps,
            },
        ] => matches!(
            steps.as_slice(),
            [Step {
                axis: Axis::SelfNode,
                test: NodeTest::Node,
                preds,
                ..
            }] if preds.is_empty()
        ),
        _ => false,
    }
}

fn normalized_eq(e: &Expr) -> Option<Expr> {
    let Expr::Compare(first, rest) = e else {
        return None;
    };
    let [(op @ (CmpOp::Eq | CmpOp::Ne), second)] = rest.as_slice() else {
        return None;
    };
    let value = match (&**first, second) {
        (f, Expr::Literal(v)) if is_normalized_context(f) => v,
        (Expr::Literal(v), s) if is_normalized_context(s) => v,
        _ => return None,
    };
    if !is_normalized(value) {
        return None;
    }
    Some(Expr::NormalizedEq {
        value: value.clone(),
        negate: *op == CmpOp::Ne,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xpath::parser::parse;

    /// The predicate of the one step of `src`, optimized.
    fn predicate(src: &str) -> Expr {
        let mut e = parse(src).unwrap().expr;
        optimize(&mut e);
        let Expr::Path { mut steps, .. } = e else {
            panic!("{src} is not a path");
        };
        steps.pop().unwrap().preds.pop().unwrap()
    }

    fn check_normalized_eq(src: &str, expected: Option<(&str, bool)>) {
        let found = match predicate(src) {
            Expr::NormalizedEq { value, negate } => Some((value.to_string(), negate)),
            _ => None,
        };
        assert_eq!(found, expected.map(|(v, n)| (v.to_owned(), n)), "{src}");
    }

    #[test]
    fn a_normalized_text_test_becomes_its_fast_form() {
        check_normalized_eq(
            "//td[normalize-space(.)='Format:']",
            Some(("Format:", false)),
        );
        check_normalized_eq(
            "//td['ISBN :' = normalize-space()]",
            Some(("ISBN :", false)),
        );
        check_normalized_eq("//td[normalize-space() != 'x']", Some(("x", true)));
        // A literal that is not normalized, another argument, or another
        // operator keep the general form.
        check_normalized_eq("//td[normalize-space(.)=' x']", None);
        check_normalized_eq("//td[normalize-space(b)='x']", None);
        check_normalized_eq("//td[normalize-space(.) < 'x']", None);
    }
}
