//! A parsed selector list as XPath 1.0, as cssselect's HTML translator
//! writes it: each selector from `descendant-or-self::`, its conditions in
//! one predicate per step (so that `position()` in `a + b` counts the
//! step's whole axis), and the selectors of a list joined with `|`.
//!
//! ## What it refuses
//!
//! Nothing: every selector the parser accepts has a translation, and what
//! XPath 1.0 cannot say is refused by the parser.

use super::parse::{AttrOp, Combinator, Compound, Condition, Nth, Pseudo, PseudoElement, Selector};

/// The XPath of a selector list.
pub fn translate(list: &[Selector]) -> String {
    list.iter().map(selector).collect::<Vec<_>>().join(" | ")
}

fn selector(s: &Selector) -> String {
    let mut out = format!("descendant-or-self::{}", step(&s.first));
    for (combinator, compound) in &s.rest {
        match combinator {
            Combinator::Descendant => {
                out.push_str("/descendant-or-self::*/");
                out.push_str(&step(compound));
            }
            Combinator::Child => {
                out.push('/');
                out.push_str(&step(compound));
            }
            Combinator::Adjacent => {
                // The element right after: the first following element,
                // its name tested in the same predicate as its conditions.
                out.push_str("/following-sibling::");
                out.push_str(&step_with(compound, true, &["position() = 1".to_owned()]));
            }
            Combinator::Sibling => {
                out.push_str("/following-sibling::");
                out.push_str(&step(compound));
            }
        }
    }
    match &s.pseudo_element {
        Some(PseudoElement::Text) => out.push_str("/text()"),
        Some(PseudoElement::Attr(name)) => {
            out.push('/');
            out.push_str(&attribute(name));
        }
        None => {}
    }
    out
}

/// A location step: the name test, then every condition in one predicate.
fn step(c: &Compound) -> String {
    step_with(c, false, &[])
}

/// A step whose name is tested in the predicate (after the conditions)
/// when `name_in_predicate`, with `extra` conditions last.
fn step_with(c: &Compound, name_in_predicate: bool, extra: &[String]) -> String {
    let mut conditions: Vec<String> = c
        .conditions
        .iter()
        .map(|k| condition(k, c.element.as_deref()))
        .collect();
    let test = match &c.element {
        Some(name) if is_ncname(name) && !name_in_predicate => name.clone(),
        Some(name) => {
            let at = if name_in_predicate {
                conditions.len()
            } else {
                0
            };
            conditions.insert(at, format!("name() = {}", literal(name)));
            "*".to_owned()
        }
        None => "*".to_owned(),
    };
    conditions.extend(extra.iter().cloned());
    match conditions.len() {
        0 => test,
        1 => format!("{test}[{}]", conditions[0]),
        _ => format!(
            "{test}[{}]",
            conditions
                .iter()
                .map(|c| format!("({c})"))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
}

/// One condition as an XPath boolean; `element` is the compound's name,
/// which the `-of-type` pseudo-classes count by.
fn condition(c: &Condition, element: Option<&str>) -> String {
    match c {
        Condition::Class(name) => words_contain("@class", name),
        Condition::Id(id) => format!("@id = {}", literal(id)),
        Condition::Attr { name, test } => attr_condition(name, test.as_ref()),
        Condition::Pseudo(p) => pseudo(p, element),
        Condition::Not(compounds) => compounds
            .iter()
            .map(|c| format!("not({})", compound_condition(c)))
            .collect::<Vec<_>>()
            .join(" and "),
    }
}

/// A compound as one boolean on the context node (for `:not()`).
fn compound_condition(c: &Compound) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(name) = &c.element {
        parts.push(format!("name() = {}", literal(name)));
    }
    parts.extend(
        c.conditions
            .iter()
            .map(|k| condition(k, c.element.as_deref())),
    );
    match parts.len() {
        0 => "true()".to_owned(),
        1 => parts.remove(0),
        _ => parts
            .iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(" and "),
    }
}

fn attr_condition(name: &str, test: Option<&(AttrOp, String)>) -> String {
    let a = attribute(name);
    let Some((op, value)) = test else {
        return a;
    };
    let v = literal(value);
    match op {
        AttrOp::Equals => format!("{a} = {v}"),
        AttrOp::NotEqual => format!("not({a}) or {a} != {v}"),
        AttrOp::Includes if value.is_empty() || value.chars().any(char::is_whitespace) => {
            "false()".to_owned()
        }
        AttrOp::Includes => words_contain(&a, value),
        AttrOp::DashMatch => format!(
            "{a} and ({a} = {v} or starts-with({a}, {}))",
            literal(&format!("{value}-"))
        ),
        AttrOp::Prefix | AttrOp::Suffix | AttrOp::Substring if value.is_empty() => {
            "false()".to_owned()
        }
        AttrOp::Prefix => format!("{a} and starts-with({a}, {v})"),
        AttrOp::Suffix => {
            let n = value.chars().count();
            format!(
                "{a} and substring({a}, string-length({a}) - {}) = {v}",
                n - 1
            )
        }
        AttrOp::Substring => format!("{a} and contains({a}, {v})"),
    }
}

/// `@name`, or `@*[name() = '…']` for a name XPath cannot spell.
fn attribute(name: &str) -> String {
    if is_ncname(name) {
        format!("@{name}")
    } else {
        format!("@*[name() = {}]", literal(name))
    }
}

/// Whether the whitespace-separated words of `value` (an XPath) hold `word`.
fn words_contain(value: &str, word: &str) -> String {
    format!(
        "{value} and contains(concat(' ', normalize-space({value}), ' '), {})",
        literal(&format!(" {word} "))
    )
}

fn pseudo(p: &Pseudo, element: Option<&str>) -> String {
    let of_type = |axis: &str| match element {
        Some(name) if is_ncname(name) => format!("count({axis}::{name})"),
        Some(name) => format!("count({axis}::*[name() = {}])", literal(name)),
        // The parser refuses an unnamed type; were one to come, it would
        // match nothing.
        None => "-1".to_owned(),
    };
    let child = |axis: &str| format!("count({axis}::*)");
    match p {
        Pseudo::FirstChild => format!("{} = 0", child("preceding-sibling")),
        Pseudo::LastChild => format!("{} = 0", child("following-sibling")),
        Pseudo::OnlyChild => format!(
            "{} = 0 and {} = 0",
            child("preceding-sibling"),
            child("following-sibling")
        ),
        Pseudo::FirstOfType => format!("{} = 0", of_type("preceding-sibling")),
        Pseudo::LastOfType => format!("{} = 0", of_type("following-sibling")),
        Pseudo::OnlyOfType => format!(
            "{} = 0 and {} = 0",
            of_type("preceding-sibling"),
            of_type("following-sibling")
        ),
        Pseudo::NthChild(n) => nth(&child("preceding-sibling"), *n),
        Pseudo::NthLastChild(n) => nth(&child("following-sibling"), *n),
        Pseudo::NthOfType(n) => nth(&of_type("preceding-sibling"), *n),
        Pseudo::NthLastOfType(n) => nth(&of_type("following-sibling"), *n),
        Pseudo::Empty => "not(*) and not(string-length())".to_owned(),
        Pseudo::Root => "not(parent::*)".to_owned(),
        Pseudo::Checked => "(@selected and name() = 'option') or (@checked and (name() = 'input' or name() = 'command') and (@type = 'checkbox' or @type = 'radio'))".to_owned(),
        Pseudo::Link => "@href and (name() = 'a' or name() = 'link' or name() = 'area')".to_owned(),
        Pseudo::Contains(text) => format!("contains(string(.), {})", literal(text)),
    }
}

/// Whether the position `count + 1` is one of `an+b` (n = 0, 1, …), where
/// `count` counts the siblings before (or after) the node.
fn nth(count: &str, Nth { a, b }: Nth) -> String {
    // With c = position - 1 and k = b - 1: c = a*n + k for some n >= 0.
    let k = b.saturating_sub(1);
    if a == 0 {
        return if k < 0 {
            "false()".to_owned()
        } else {
            format!("{count} = {k}")
        };
    }
    let shifted = match k {
        0 => count.to_owned(),
        k if k > 0 => format!("({count} - {k})"),
        k => format!("({count} + {})", k.unsigned_abs()),
    };
    if a > 0 {
        let bound = (k > 0).then(|| format!("{count} >= {k}"));
        let step = (a != 1).then(|| format!("{shifted} mod {a} = 0"));
        match (bound, step) {
            (Some(b), Some(s)) => format!("{b} and {s}"),
            (Some(b), None) => b,
            (None, Some(s)) => s,
            (None, None) => "true()".to_owned(),
        }
    } else {
        if k < 0 {
            return "false()".to_owned();
        }
        let bound = format!("{count} <= {k}");
        let a = a.unsigned_abs();
        if a == 1 {
            bound
        } else {
            format!("{bound} and ({k} - {count}) mod {a} = 0")
        }
    }
}

/// An XPath string literal of `s`: quoted with `'` or `"`, or a `concat()`
/// when it holds both.
pub fn literal(s: &str) -> String {
    if !s.contains('\'') {
        return format!("'{s}'");
    }
    if !s.contains('"') {
        return format!("\"{s}\"");
    }
    let parts: Vec<String> = s.split('\'').map(|part| format!("'{part}'")).collect();
    format!("concat({})", parts.join(", \"'\", "))
}

/// Whether `name` can be written as an XPath name test.
fn is_ncname(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
