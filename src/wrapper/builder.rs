//! From a schema-valid document to the typed parts of a `Wrapper` (its
//! patterns, constraints, start URLs and `adapt` settings), with the checks
//! the schema cannot express. The loader (`mod.rs`) assembles the wrapper
//! from these and the `crawl` and `monitor` blocks, which read themselves
//! with the helpers here.
//!
//! The schema has already vouched for the shape, so this module reads values
//! without re-checking types; where a value still surprises it, it reports
//! rather than panics. It refuses repeated sibling pattern names, `min` above
//! `max` (and the same for lengths and numeric ranges), regexes and record
//! schemas that do not compile, XPaths that do not compile, `extract` or
//! `type` on a record pattern, `format` on anything but a date, start URLs
//! that do not parse, and `monitor` limits on patterns the wrapper does not
//! have (`monitor.rs`).

use std::sync::Arc;

use chrono::format::{Item, StrftimeItems};

use super::diagnostic::Diagnostic;
use super::model::{
    AdaptSettings, Constraints, Extract, Location, Pattern, RecordSchema, Triggers, ValueType,
};
use super::node::{Kind, Node, push_segment};
use super::scalar::position_in;
use crate::similarity::Algorithm;
use crate::xpath::XPath;

/// What reading a part of the wrapper needs: the text and the file's name,
/// for diagnostics that point into it.
pub(super) struct Builder<'a> {
    text: &'a str,
    file: &'a str,
}

impl<'a> Builder<'a> {
    /// A builder for the wrapper `text`, read from `file`.
    pub(super) fn new(text: &'a str, file: &'a str) -> Self {
        Builder { text, file }
    }

    pub(super) fn error_at(&self, node: &Node, message: String) -> Diagnostic {
        Diagnostic::error(self.file, self.text, node.at.line, node.at.column, message)
    }

    pub(super) fn start(&self, node: Option<&Node>, out: &mut Vec<Diagnostic>) -> Vec<String> {
        let Some(node) = node else {
            return Vec::new();
        };
        let mut urls = Vec::new();
        for item in node.items() {
            let Some(text) = item.as_str() else { continue };
            if let Err(e) = url::Url::parse(text) {
                out.push(
                    self.error_at(item, format!("invalid start URL {text:?}: {e}"))
                        .with_expected("an absolute http or https URL"),
                );
            }
            urls.push(text.to_owned());
        }
        urls
    }

    /// Builds a list of sibling patterns; `None` if any of them could not be built.
    pub(super) fn patterns(
        &self,
        node: Option<&Node>,
        pointer: &str,
        out: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Pattern>> {
        let items = node.map(Node::items).unwrap_or_default();
        let mut built = Some(Vec::with_capacity(items.len()));
        for (i, item) in items.iter().enumerate() {
            if let Some(name_node) = item.get("name")
                && let Some(name) = name_node.as_str()
                && let Some(first) = items[..i]
                    .iter()
                    .filter_map(|p| p.get("name"))
                    .find(|n| n.as_str() == Some(name))
            {
                out.push(
                    self.error_at(
                        name_node,
                        format!(
                            "duplicate pattern name {name:?}; the first is at line {}, column {}",
                            first.at.line, first.at.column
                        ),
                    )
                    .with_expected("a name unique among sibling patterns"),
                );
            }
            let mut item_pointer = pointer.to_owned();
            push_segment(&mut item_pointer, &i.to_string());
            let pattern = self.pattern(item, &item_pointer, out);
            match (&mut built, pattern) {
                (Some(list), Some(p)) => list.push(p),
                _ => built = None,
            }
        }
        built
    }

    fn pattern(&self, node: &Node, pointer: &str, out: &mut Vec<Diagnostic>) -> Option<Pattern> {
        let errors_before = out.len();
        let name = node.get("name")?.as_str()?.to_owned();
        let css = node.get("css").and_then(Node::as_str).map(str::to_owned);
        let xpath = match (node.get("xpath"), node.get("css")) {
            (Some(xpath), None) => self.xpath(xpath, out),
            (None, Some(css)) => self.css(css, out),
            (Some(_), Some(css)) => {
                out.push(
                    self.error_at(css, "a pattern has `xpath` or `css`, not both".to_owned())
                        .with_expected("one of \"xpath\" and \"css\""),
                );
                None
            }
            (None, None) => {
                out.push(
                    self.error_at(node, "missing required key \"xpath\" in pattern".to_owned())
                        .with_expected("a key \"xpath\" (or \"css\" with a CSS selector)"),
                );
                None
            }
        };
        let children = node.get("patterns");
        if let Some(children) = children {
            for key in ["extract", "type"] {
                if let Some(entry) = node.entry(key) {
                    out.push(Diagnostic::error(
                        self.file,
                        self.text,
                        entry.key_at.line,
                        entry.key_at.column,
                        format!(
                            "{key:?} does not apply to record pattern {name:?}: it has child \
                             patterns, so it yields records (line {}); move {key:?} to a child",
                            children.at.line
                        ),
                    ));
                }
            }
        }
        let extract = node
            .get("extract")
            .and_then(Node::as_str)
            .map_or(Extract::Text, extract);
        let value_type = node
            .get("type")
            .and_then(Node::as_str)
            .map_or(ValueType::String, value_type);
        let date_format = node.entry("format").and_then(|entry| {
            let format = entry.value.as_str()?;
            if value_type != ValueType::Date {
                out.push(Diagnostic::error(
                    self.file,
                    self.text,
                    entry.key_at.line,
                    entry.key_at.column,
                    "\"format\" applies only to fields with `type: date`".to_owned(),
                ).with_expected("type: date"));
            } else if StrftimeItems::new(format).any(|item| item == Item::Error) {
                out.push(self.error_at(
                    &entry.value,
                    format!("invalid date format {format:?}; expected strftime fields such as %Y-%m-%d"),
                ).with_expected("a strftime format"));
            }
            Some(format.to_owned())
        });
        let constraints = node
            .get("constraints")
            .map(|c| self.constraints(c, out))
            .unwrap_or_default();
        let child_pointer = format!("{pointer}/patterns");
        let patterns = match children {
            Some(_) => self.patterns(children, &child_pointer, out)?,
            None => Vec::new(),
        };
        let strings = |key: &str| -> Vec<String> {
            node.get(key)
                .map(|n| {
                    n.items()
                        .iter()
                        .filter_map(Node::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        if out[errors_before..].iter().any(Diagnostic::is_error) {
            return None;
        }
        Some(Pattern {
            name,
            xpath: xpath?,
            extract,
            value_type,
            date_format,
            constraints,
            treegram: node
                .get("treegram")
                .and_then(Node::as_str)
                .map(str::to_owned),
            patterns,
            history: strings("history"),
            css,
            location: Location {
                line: node.at.line,
                column: node.at.column,
            },
        })
    }

    pub(super) fn xpath(&self, node: &Node, out: &mut Vec<Diagnostic>) -> Option<XPath> {
        let source = node.as_str()?;
        match XPath::compile(source) {
            Ok(xpath) => Some(xpath),
            Err(e) => {
                out.push(self.error_in_scalar(
                    node,
                    e.position,
                    format!("invalid XPath: {}", e.message),
                    "an XPath 1.0 expression",
                ));
                None
            }
        }
    }

    /// An error at byte `at` of the scalar `node`, expecting `expected`.
    fn error_in_scalar(
        &self,
        node: &Node,
        at: usize,
        message: String,
        expected: &str,
    ) -> Diagnostic {
        let (line, column) = position_in(self.text, node, at);
        Diagnostic::error(self.file, self.text, line, column, message).with_expected(expected)
    }

    /// A `css:` selector, translated and compiled; a selector that cannot
    /// be translated is an error at its column.
    fn css(&self, node: &Node, out: &mut Vec<Diagnostic>) -> Option<XPath> {
        let source = node.as_str()?;
        let translated = match crate::css::to_xpath(source) {
            Ok(xpath) => xpath,
            Err(e) => {
                let byte = source
                    .char_indices()
                    .nth(e.column.saturating_sub(1))
                    .map_or(source.len(), |(i, _)| i);
                out.push(self.error_in_scalar(
                    node,
                    byte,
                    format!("invalid CSS selector: {}", e.message),
                    "a CSS selector as parsel takes it",
                ));
                return None;
            }
        };
        match XPath::compile(&translated) {
            Ok(xpath) => Some(xpath),
            Err(e) => {
                out.push(self.error_at(
                    node,
                    format!(
                        "the CSS selector's translation {translated} does not compile: {}",
                        e.message
                    ),
                ));
                None
            }
        }
    }

    fn constraints(&self, node: &Node, out: &mut Vec<Diagnostic>) -> Constraints {
        let mut c = Constraints {
            min: node.get("min").and_then(as_usize),
            max: node.get("max").and_then(as_usize),
            required: node.get("required").and_then(as_bool).unwrap_or(false),
            regex: None,
            min_length: node.get("min_length").and_then(as_usize),
            max_length: node.get("max_length").and_then(as_usize),
            one_of: node.get("enum").map(|n| {
                n.items()
                    .iter()
                    .filter_map(Node::as_str)
                    .map(str::to_owned)
                    .collect()
            }),
            minimum: node.get("minimum").and_then(as_f64),
            maximum: node.get("maximum").and_then(as_f64),
            schema: None,
        };
        self.ordered(node, "min", "max", out);
        self.ordered(node, "min_length", "max_length", out);
        self.ordered(node, "minimum", "maximum", out);
        if let Some(regex) = node.get("regex") {
            c.regex = self.regex(regex, out);
        }
        if let Some(schema) = node.get("schema") {
            c.schema = self.record_schema(schema, out);
        }
        c
    }

    /// Reports `low` above `high`, at the `high` value.
    fn ordered(&self, node: &Node, low: &str, high: &str, out: &mut Vec<Diagnostic>) {
        let (Some(lo), Some(hi)) = (node.get(low), node.get(high)) else {
            return;
        };
        if let (Some(l), Some(h)) = (as_f64(lo), as_f64(hi))
            && l > h
        {
            out.push(
                self.error_at(
                    hi,
                    format!(
                        "{high} ({h}) is less than {low} ({l}) on line {}",
                        lo.at.line
                    ),
                )
                .with_expected(format!("a {high} of at least {l}")),
            );
        }
    }

    pub(super) fn regex(&self, node: &Node, out: &mut Vec<Diagnostic>) -> Option<regex::Regex> {
        let source = node.as_str()?;
        // The regex crate reports syntax errors as text; its own parser has
        // the offset, so it is asked first to point at the exact character.
        if let Err(e) = regex_syntax::Parser::new().parse(source) {
            let (offset, what) = match &e {
                regex_syntax::Error::Parse(e) => (e.span().start.offset, e.kind().to_string()),
                regex_syntax::Error::Translate(e) => (e.span().start.offset, e.kind().to_string()),
                other => (0, other.to_string()),
            };
            let (line, column) = position_in(self.text, node, offset);
            out.push(
                Diagnostic::error(
                    self.file,
                    self.text,
                    line,
                    column,
                    format!("invalid regex: {what}"),
                )
                .with_expected("a regular expression"),
            );
            return None;
        }
        match regex::Regex::new(source) {
            Ok(regex) => Some(regex),
            Err(e) => {
                let what = e
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .trim()
                    .to_owned();
                out.push(self.error_at(node, format!("invalid regex: {what}")));
                None
            }
        }
    }

    fn record_schema(&self, node: &Node, out: &mut Vec<Diagnostic>) -> Option<RecordSchema> {
        let source = node.to_json();
        match jsonschema::validator_for(&source) {
            Ok(validator) => Some(RecordSchema {
                source,
                validator: Arc::new(validator),
            }),
            Err(e) => {
                let inner = e.instance_path().as_str();
                // The error's path points into the schema itself.
                let at = node.pointer(inner).unwrap_or(node);
                out.push(
                    self.error_at(at, format!("invalid record schema: {e}"))
                        .with_expected("a JSON Schema (draft 2020-12)"),
                );
                None
            }
        }
    }
}

/// The adaptation settings of an `adapt` mapping, defaults for what it leaves out.
///
/// The rewriter reads the history limit through this too, so that a
/// rewrite and a load agree on it.
pub(super) fn adapt(node: &Node) -> AdaptSettings {
    let defaults = AdaptSettings::default();
    let triggers = node.get("triggers");
    let trigger = |key: &str, default: bool| {
        triggers
            .and_then(|t| t.get(key))
            .and_then(as_bool)
            .unwrap_or(default)
    };
    AdaptSettings {
        mode: node
            .get("mode")
            .and_then(Node::as_str)
            .and_then(|m| m.parse().ok())
            .unwrap_or(defaults.mode),
        threshold: node
            .get("threshold")
            .and_then(as_f64)
            .unwrap_or(defaults.threshold),
        margin: node
            .get("margin")
            .and_then(as_f64)
            .unwrap_or(defaults.margin),
        min_confidence: node
            .get("min_confidence")
            .and_then(as_f64)
            .or(defaults.min_confidence),
        drift_confidence: node
            .get("drift_confidence")
            .and_then(as_f64)
            .or(defaults.drift_confidence),
        algorithms: node.get("algorithms").map_or(defaults.algorithms, |list| {
            list.items()
                .iter()
                .filter_map(|a| a.as_str()?.parse::<Algorithm>().ok())
                .collect()
        }),
        label: node
            .get("label")
            .and_then(Node::as_str)
            .and_then(|l| l.parse().ok())
            .unwrap_or(defaults.label),
        search_scope: node
            .get("search_scope")
            .and_then(Node::as_str)
            .and_then(|l| l.parse().ok())
            .unwrap_or(defaults.search_scope),
        triggers: Triggers {
            top_down: trigger("top_down", defaults.triggers.top_down),
            bottom_up: trigger("bottom_up", defaults.triggers.bottom_up),
        },
        update_treegrams: node
            .get("update_treegrams")
            .and_then(as_bool)
            .unwrap_or(defaults.update_treegrams),
        treegram_instances: node
            .get("treegram_instances")
            .and_then(as_usize)
            .unwrap_or(defaults.treegram_instances),
        treegram_min_context: node
            .get("treegram_min_context")
            .and_then(as_usize)
            .unwrap_or(defaults.treegram_min_context),
        history_limit: node
            .get("history_limit")
            .and_then(as_usize)
            .unwrap_or(defaults.history_limit),
        min_pages: node
            .get("min_pages")
            .and_then(as_usize)
            .unwrap_or(defaults.min_pages),
        notify: node.get("notify").and_then(Node::as_str).map(str::to_owned),
    }
}

fn extract(text: &str) -> Extract {
    match text {
        "normalized" => Extract::Normalized,
        "inner_html" => Extract::InnerHtml,
        "outer_html" => Extract::OuterHtml,
        _ => match text.strip_prefix('@') {
            Some(attribute) => Extract::Attribute(attribute.to_owned()),
            None => Extract::Text,
        },
    }
}

fn value_type(text: &str) -> ValueType {
    text.parse().unwrap_or(ValueType::String)
}

pub(super) fn as_bool(node: &Node) -> Option<bool> {
    match node.kind {
        Kind::Bool(b) => Some(b),
        _ => None,
    }
}

pub(super) fn as_f64(node: &Node) -> Option<f64> {
    match node.kind {
        Kind::Int(i) => Some(i as f64),
        Kind::UInt(u) => Some(u as f64),
        Kind::Float(f) => Some(f),
        _ => None,
    }
}

/// A count; JSON Schema calls `2.0` an integer, so integral floats count too.
pub(super) fn as_usize(node: &Node) -> Option<usize> {
    match node.kind {
        Kind::Int(i) => usize::try_from(i).ok(),
        Kind::UInt(u) => usize::try_from(u).ok(),
        Kind::Float(f) if f.fract() == 0.0 && f >= 0.0 && f <= usize::MAX as f64 => {
            Some(f as usize)
        }
        _ => None,
    }
}
