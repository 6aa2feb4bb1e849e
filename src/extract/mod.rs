//! Extraction: evaluate a wrapper on a parsed page, producing one record and
//! the list of violated constraints.
//!
//! Top-level patterns are evaluated from the document node; each record
//! pattern's children are evaluated relative to each of its instances. Every
//! constraint is checked on every instance. The module is pure: it reads the
//! document and the wrapper and returns data.
//!
//! Values: a field whose `max` is 1 yields a single value or `null`, any other
//! field a list; a record pattern yields a list of objects. A field whose XPath
//! returns a string, number or boolean (such as `normalize-space(//h1)`) yields
//! that value as its one instance.
//!
//! It refuses nothing and never fails: an XPath that cannot be evaluated on
//! a page (its budget spent, say) is an `xpath` violation of its pattern on
//! that page, and a value that does not convert to the pattern's type is a
//! `type` violation with the value `null`.

mod convert;
mod violation;
mod withhold;

use serde_json::{Map, Value};
use url::Url;

pub use convert::{ConvertError, convert, parse_number};
pub use violation::{Violation, ViolationKind};

use crate::dom::{Document, NodeId};
use crate::wrapper::{Extract, Pattern, PatternPath, ValueType, Wrapper};
use crate::xpath::{self, Item};

/// The outcome of evaluating a wrapper on one page.
#[derive(Clone, Debug, PartialEq)]
pub struct Extraction {
    /// The page's record: an object keyed by the top-level pattern names.
    pub record: Map<String, Value>,
    /// Every failed constraint.
    pub violations: Vec<Violation>,
}

/// Evaluates `wrapper` on `doc`. `base` is the page URL that relative URLs
/// resolve against (a `<base href>` in the page takes precedence).
pub fn extract(wrapper: &Wrapper, doc: &Document, base: Option<&Url>) -> Extraction {
    let _span = tracing::debug_span!("extract", wrapper = %wrapper.name).entered();
    let base = page_base(doc, base);
    let mut ctx = Context {
        doc,
        base: base.as_ref(),
        violations: Vec::new(),
        paths: crate::dom::PathCache::new(),
    };
    let mut path = Vec::new();
    let record = ctx.record(&wrapper.patterns, Item::Node(NodeId::ROOT), &mut path);
    Extraction {
        record,
        violations: ctx.violations,
    }
}

/// The nodes a pattern matches in the context of one parent instance. Node-set
/// results are returned as items; other results are turned into their string
/// value as a single pseudo-instance.
pub fn instances(pattern: &Pattern, doc: &Document, context: Item) -> Instances {
    match pattern.xpath.evaluate_item(doc, context) {
        Ok(xpath::Value::Nodes(items)) => Instances::Nodes(items),
        Ok(other) => Instances::Value(other),
        Err(e) => Instances::Error(e.to_string()),
    }
}

/// What a pattern's XPath gave in one context.
#[derive(Clone, Debug)]
pub enum Instances {
    /// A node-set.
    Nodes(Vec<Item>),
    /// A string, number or boolean.
    Value(xpath::Value),
    /// The evaluation failed (for example, a regular expression built at run time was invalid).
    Error(String),
}

/// The text a field takes from one matched item.
pub fn item_text(doc: &Document, item: Item, extract: &Extract) -> Option<String> {
    match (item, extract) {
        (Item::Node(n), Extract::Attribute(name)) => {
            let name = name.strip_prefix('@').unwrap_or(name);
            doc.attr(n, name).map(str::to_owned)
        }
        (Item::Node(n), Extract::InnerHtml) => Some(doc.inner_html(n)),
        (Item::Node(n), Extract::OuterHtml) => Some(doc.outer_html(n)),
        (_, Extract::Normalized) => Some(xpath::normalize_space(&item.string_value(doc))),
        (Item::Attr { .. }, Extract::Attribute(_)) => None,
        _ => Some(item.string_value(doc)),
    }
}

/// A value constraint that one field value fails.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The constraint.
    pub constraint: ViolationKind,
    /// What the constraint asks for, in words.
    pub expected: String,
    /// What the value is instead.
    pub found: String,
}

/// Converts one field value as `pattern` says and checks it against the
/// pattern's value constraints (required, length, regex, enum, type, range):
/// the typed value (`null` when it does not convert) and every failed check.
/// Occurrence constraints (`min`, `max`) are about node sets, not values, and
/// are not checked here.
pub fn check_value(pattern: &Pattern, text: &str, base: Option<&Url>) -> (Value, Vec<Problem>) {
    let c = &pattern.constraints;
    let mut problems = Vec::new();
    let mut problem = |constraint: ViolationKind, expected: String, found: String| {
        problems.push(Problem {
            constraint,
            expected,
            found,
        })
    };
    if c.required && text.trim().is_empty() {
        problem(
            ViolationKind::Required,
            "a non-empty value".into(),
            "an empty value".into(),
        );
    }
    let chars = text.chars().count();
    if let Some(min) = c.min_length
        && chars < min
    {
        problem(
            ViolationKind::MinLength,
            format!("at least {min} characters"),
            format!("{chars}: {}", quote(text)),
        );
    }
    if let Some(max) = c.max_length
        && chars > max
    {
        problem(
            ViolationKind::MaxLength,
            format!("at most {max} characters"),
            format!("{chars}: {}", quote(text)),
        );
    }
    if let Some(re) = &c.regex
        && !re.is_match(text)
    {
        problem(
            ViolationKind::Regex,
            format!("a match for /{}/", re.as_str()),
            quote(text),
        );
    }
    if let Some(options) = &c.one_of
        && !options.iter().any(|o| o == text)
    {
        problem(
            ViolationKind::Enum,
            format!("one of {}", options.join(", ")),
            quote(text),
        );
    }
    let value = match convert(
        text,
        pattern.value_type,
        base,
        pattern.date_format.as_deref(),
    ) {
        Ok(v) => v,
        Err(e) => {
            problem(
                ViolationKind::Type,
                format!("{} ({e})", type_name(pattern.value_type)),
                quote(text),
            );
            return (Value::Null, problems);
        }
    };
    if c.minimum.is_some() || c.maximum.is_some() {
        match value.as_f64().or_else(|| parse_number(text)) {
            Some(n) => {
                if let Some(min) = c.minimum
                    && n < min
                {
                    problem(ViolationKind::Minimum, format!(">= {min}"), n.to_string());
                }
                if let Some(max) = c.maximum
                    && n > max
                {
                    problem(ViolationKind::Maximum, format!("<= {max}"), n.to_string());
                }
            }
            None => problem(ViolationKind::Minimum, "a number".into(), quote(text)),
        }
    }
    (value, problems)
}

/// The URL relative links resolve against: the page's `<base href>` joined to the page URL.
pub fn page_base(doc: &Document, page: Option<&Url>) -> Option<Url> {
    let href = doc
        .descendants(NodeId::ROOT)
        .find(|&n| doc.name(n) == "base")
        .and_then(|n| doc.attr(n, "href"));
    match (href, page) {
        (Some(h), Some(p)) => p.join(h.trim()).ok().or_else(|| Some(p.clone())),
        (Some(h), None) => Url::parse(h.trim()).ok(),
        (None, p) => p.cloned(),
    }
}

struct Context<'a> {
    doc: &'a Document,
    base: Option<&'a Url>,
    violations: Vec<Violation>,
    /// Element steps of the paths named so far: a page of 60,000 sibling
    /// records with a violation each is named in linear time.
    paths: crate::dom::PathCache,
}

impl Context<'_> {
    /// Evaluates sibling patterns in one context, building the object for it.
    fn record(
        &mut self,
        patterns: &[Pattern],
        context: Item,
        path: &mut Vec<String>,
    ) -> Map<String, Value> {
        let mut object = Map::new();
        for pattern in patterns {
            path.push(pattern.name.clone());
            let value = self.pattern(pattern, context, path);
            path.pop();
            object.insert(pattern.name.clone(), value);
        }
        object
    }

    fn pattern(&mut self, pattern: &Pattern, context: Item, path: &mut Vec<String>) -> Value {
        let found = instances(pattern, self.doc, context);
        let (items, scalar) = match found {
            Instances::Nodes(items) => (items, None),
            Instances::Value(v) => (Vec::new(), Some(v)),
            Instances::Error(message) => {
                self.push(
                    path,
                    ViolationKind::Xpath,
                    "an XPath that evaluates".into(),
                    message,
                    context,
                    None,
                );
                (Vec::new(), None)
            }
        };
        let count = if scalar.is_some() { 1 } else { items.len() };
        let c = &pattern.constraints;
        if let Some(min) = c.min
            && count < min
        {
            self.push(
                path,
                ViolationKind::Min,
                format!("at least {min}"),
                plural(count),
                context,
                None,
            );
        }
        if let Some(max) = c.max
            && count > max
        {
            self.push(
                path,
                ViolationKind::Max,
                format!("at most {max}"),
                plural(count),
                context,
                None,
            );
        }
        if c.required && count == 0 && c.min.is_none_or(|m| m == 0) {
            self.push(
                path,
                ViolationKind::Required,
                "a value".into(),
                "no match".into(),
                context,
                None,
            );
        }

        if pattern.is_record() {
            let mut records = Vec::with_capacity(items.len());
            for &item in &items {
                let object = self.record(&pattern.patterns, item, path);
                if let Some(schema) = &c.schema {
                    let value = Value::Object(object.clone());
                    for error in schema.validator.iter_errors(&value) {
                        let at = error.instance_path().to_string();
                        let found = if at.is_empty() {
                            error.to_string()
                        } else {
                            format!("{at}: {error}")
                        };
                        self.push(
                            path,
                            ViolationKind::Schema,
                            "a record that satisfies the schema".into(),
                            found,
                            context,
                            Some(item),
                        );
                    }
                }
                records.push(Value::Object(object));
            }
            return Value::Array(records);
        }

        let mut values = Vec::with_capacity(count);
        if let Some(v) = scalar {
            let text = v.to_string_value(self.doc);
            values.push(self.field_value(pattern, path, Some(text), context, None));
        } else {
            for &item in &items {
                let text = item_text(self.doc, item, &pattern.extract);
                values.push(self.field_value(pattern, path, text, context, Some(item)));
            }
        }
        if pattern.is_single() {
            values.into_iter().next().unwrap_or(Value::Null)
        } else {
            Value::Array(values)
        }
    }

    /// Converts and checks one field value.
    fn field_value(
        &mut self,
        pattern: &Pattern,
        name: &[String],
        text: Option<String>,
        context: Item,
        node: Option<Item>,
    ) -> Value {
        let Some(text) = text else {
            if pattern.constraints.required {
                self.push(
                    name,
                    ViolationKind::Required,
                    "a value".into(),
                    format!("no {}", describe_extract(&pattern.extract)),
                    context,
                    node,
                );
            }
            return Value::Null;
        };
        let (value, problems) = check_value(pattern, &text, self.base);
        for p in problems {
            self.push(name, p.constraint, p.expected, p.found, context, node);
        }
        value
    }

    /// Records a violation. Paths are computed here, and only here, because
    /// building a canonical path walks the ancestors and counts siblings: too
    /// much to do for every value of every page when most pages are fine.
    fn push(
        &mut self,
        pattern: &[String],
        constraint: ViolationKind,
        expected: String,
        found: String,
        context: Item,
        node: Option<Item>,
    ) {
        self.violations.push(Violation {
            pattern: PatternPath::from_names(pattern.to_vec()),
            constraint,
            expected,
            found,
            context: context.path_cached(self.doc, &mut self.paths),
            node: node.map(|n| n.path_cached(self.doc, &mut self.paths)),
        });
    }
}

fn plural(count: usize) -> String {
    match count {
        1 => "1 match".to_owned(),
        n => format!("{n} matches"),
    }
}

fn quote(text: &str) -> String {
    const LIMIT: usize = 80;
    if text.chars().count() > LIMIT {
        let cut: String = text.chars().take(LIMIT).collect();
        format!("{cut:?}…")
    } else {
        format!("{text:?}")
    }
}

fn describe_extract(extract: &Extract) -> String {
    match extract {
        Extract::Attribute(a) => format!("attribute {}", a.trim_start_matches('@')),
        _ => "value".to_owned(),
    }
}

fn type_name(ty: ValueType) -> &'static str {
    match ty {
        ValueType::String => "a string",
        ValueType::Integer => "an integer",
        ValueType::Number => "a number",
        ValueType::Boolean => "a boolean",
        ValueType::Date => "a date",
        ValueType::Url => "a URL",
    }
}

#[cfg(test)]
mod tests;
