//! The typed parts of a wrapper: what a YAML wrapper file's patterns and
//! settings mean once they have been checked. The [`Wrapper`](super::Wrapper)
//! that holds them is in `mod.rs`, with the `crawl` and `monitor` blocks in
//! their own files, so that none of these depends on another.
//!
//! Everything here is plain data. Loading (YAML, schema validation, spanned
//! diagnostics) lives in the loader; evaluation lives in `extract`.
//!
//! ## What it refuses
//!
//! Parsing a value type, heal mode or search scope accepts only the exact
//! lower-case names (`integer`, `propose`, `parent-first`) and refuses any
//! other with an [`UnknownName`] that lists the valid ones. Nothing else is
//! checked here: ranges, thresholds and the shape of patterns are the
//! loader's to check, and a value built by hand is taken as it is.

use regex::Regex;

use crate::similarity::{Algorithm, LabelMode, UnknownName};
use crate::xpath::XPath;

/// Where a pattern is defined in its file, for messages that point at it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// A named XPath; a record pattern (with child patterns) or a field pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The pattern's name, unique among its siblings.
    pub name: String,
    /// The compiled XPath, relative to the parent pattern's instance.
    pub xpath: XPath,
    /// How a field's value is taken from a matched node.
    pub extract: Extract,
    /// What type a field's value is converted to.
    pub value_type: ValueType,
    /// A `strftime`-style format for `date` values, when they are not ISO 8601.
    pub date_format: Option<String>,
    /// What correct output looks like.
    pub constraints: Constraints,
    /// The tree-gram file, relative to the wrapper file.
    pub treegram: Option<String>,
    /// Child patterns; a pattern that has any is a record pattern.
    pub patterns: Vec<Pattern>,
    /// Earlier XPaths of this pattern, oldest first.
    pub history: Vec<String>,
    /// The CSS selector the wrapper file gives instead of an XPath, when it
    /// does: `xpath` is its translation.
    pub css: Option<String>,
    /// Where the pattern starts in the wrapper file.
    pub location: Location,
}

impl Pattern {
    /// Whether this pattern holds child patterns (and so yields records).
    pub fn is_record(&self) -> bool {
        !self.patterns.is_empty()
    }

    /// Whether a field yields a single value rather than a list.
    pub fn is_single(&self) -> bool {
        self.constraints.max == Some(1)
    }
}

/// How a field's value is taken from a matched node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extract {
    /// The string-value of the node (all descendant text).
    Text,
    /// The string-value with whitespace collapsed, as `normalize-space()`.
    Normalized,
    /// The value of an attribute of the matched element (`"@href"`).
    Attribute(String),
    /// The HTML of the node's children.
    InnerHtml,
    /// The HTML of the node itself.
    OuterHtml,
}

/// The type a field's value is converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// Text, unchanged.
    String,
    /// A whole number; thousands separators and currency symbols are dropped.
    Integer,
    /// A decimal number; thousands separators and currency symbols are dropped.
    Number,
    /// true/false, yes/no, on/off, 1/0.
    Boolean,
    /// A calendar date, written as ISO 8601 (`YYYY-MM-DD`).
    Date,
    /// A URL, resolved against the page's base URL.
    Url,
}

impl ValueType {
    /// Every type.
    pub const ALL: [ValueType; 6] = [
        ValueType::String,
        ValueType::Integer,
        ValueType::Number,
        ValueType::Boolean,
        ValueType::Date,
        ValueType::Url,
    ];

    /// The name as wrappers and the store spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ValueType::String => "string",
            ValueType::Integer => "integer",
            ValueType::Number => "number",
            ValueType::Boolean => "boolean",
            ValueType::Date => "date",
            ValueType::Url => "url",
        }
    }
}

impl std::str::FromStr for ValueType {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ValueType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownName::new("type", s, &ValueType::ALL.map(ValueType::as_str)))
    }
}

/// What correct output looks like for one pattern.
#[derive(Clone, Debug, Default)]
pub struct Constraints {
    /// The least number of instances per parent instance.
    pub min: Option<usize>,
    /// The most instances per parent instance.
    pub max: Option<usize>,
    /// Every instance must yield a non-empty value.
    pub required: bool,
    /// Every value must match this expression.
    pub regex: Option<Regex>,
    /// The least length of every value, in characters.
    pub min_length: Option<usize>,
    /// The most length of every value, in characters.
    pub max_length: Option<usize>,
    /// Every value must be one of these.
    pub one_of: Option<Vec<String>>,
    /// Every numeric value must be at least this.
    pub minimum: Option<f64>,
    /// Every numeric value must be at most this.
    pub maximum: Option<f64>,
    /// A JSON Schema that every record of a record pattern must satisfy.
    pub schema: Option<RecordSchema>,
}

/// A compiled JSON Schema for records, with its source kept for messages.
#[derive(Clone)]
pub struct RecordSchema {
    /// The schema as written.
    pub source: serde_json::Value,
    /// The compiled validator.
    pub validator: std::sync::Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for RecordSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecordSchema({})", self.source)
    }
}

/// How healing behaves for a wrapper.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptSettings {
    /// off, propose or auto.
    pub mode: HealMode,
    /// The least similarity a candidate needs.
    pub threshold: f64,
    /// How far the winner must beat the runner-up.
    pub margin: f64,
    /// The least confidence (0 to 1) a heal needs: the learned model's
    /// chance that the chosen nodes are the right ones (`adapt::confidence`).
    /// `None` takes the model's own threshold, chosen on validation sites.
    pub min_confidence: Option<f64>,
    /// The least confidence (0 to 1) the model must have in what a field's
    /// XPath selects, when a signal speaks against it, for the drift check
    /// to leave it unflagged; 1 flags every field the model judges, as a
    /// training collection asks. `None` takes the model's own, chosen on
    /// validation sites.
    pub drift_confidence: Option<f64>,
    /// The similarity algorithms, in order of priority.
    pub algorithms: Vec<Algorithm>,
    /// How tree nodes are labelled for matching.
    pub label: LabelMode,
    /// Where a field's search begins when the change is local
    /// (`adapt::ChangeClass`).
    pub search_scope: SearchScope,
    /// Which triggers run.
    pub triggers: Triggers,
    /// Whether tree-grams are refreshed after an automatic rewrite.
    pub update_treegrams: bool,
    /// How many instances of a record pattern a tree-gram keeps.
    pub treegram_instances: usize,
    /// The least size, in elements, of a field's tree-gram context.
    pub treegram_min_context: usize,
    /// The most earlier XPaths a pattern's `history` keeps; the oldest are
    /// dropped first when a rewrite would exceed it.
    pub history_limit: usize,
    /// On how many distinct pages a heal must hold before `auto` writes it
    /// to the wrapper, counted across runs from the store (see
    /// `runtime::ledger::held_back`); there is no exception for fewer.
    pub min_pages: usize,
    /// Where a run that leaves something for a person (violations,
    /// proposals, health drops) POSTs its notice (`fetch::notify`).
    pub notify: Option<String>,
}

impl Default for AdaptSettings {
    fn default() -> Self {
        AdaptSettings {
            mode: HealMode::Propose,
            threshold: 0.75,
            margin: 0.10,
            min_confidence: None,
            drift_confidence: None,
            algorithms: vec![
                Algorithm::Ctm,
                Algorithm::Stm,
                Algorithm::Bigram,
                Algorithm::Jw,
            ],
            label: LabelMode::TagClass,
            search_scope: SearchScope::ParentFirst,
            triggers: Triggers {
                top_down: true,
                bottom_up: true,
            },
            update_treegrams: false,
            treegram_instances: 3,
            treegram_min_context: 8,
            history_limit: 10,
            min_pages: 3,
            notify: None,
        }
    }
}

/// What mend does when a pattern is violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HealMode {
    /// Only report violations.
    Off,
    /// Heal, emit healed records marked as such, and store a proposal.
    Propose,
    /// Heal and rewrite the wrapper file.
    Auto,
}

impl HealMode {
    /// Every mode.
    pub const ALL: [HealMode; 3] = [HealMode::Off, HealMode::Propose, HealMode::Auto];

    /// The name as wrappers, the command line and the store spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            HealMode::Off => "off",
            HealMode::Propose => "propose",
            HealMode::Auto => "auto",
        }
    }
}

impl std::str::FromStr for HealMode {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HealMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownName::new("heal mode", s, &HealMode::ALL.map(HealMode::as_str)))
    }
}

impl std::fmt::Display for HealMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a field's search begins when the page changed locally around it
/// (its old parent stands unchanged): inside that parent's region first, or
/// the whole page at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchScope {
    /// Inside the old parent's region first, then the whole page.
    ParentFirst,
    /// The whole page at once, whatever the change.
    Page,
}

impl SearchScope {
    /// Every scope.
    pub const ALL: [SearchScope; 2] = [SearchScope::ParentFirst, SearchScope::Page];

    /// The name as wrappers spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchScope::ParentFirst => "parent-first",
            SearchScope::Page => "page",
        }
    }
}

impl std::str::FromStr for SearchScope {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SearchScope::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                UnknownName::new(
                    "search scope",
                    s,
                    &SearchScope::ALL.map(SearchScope::as_str),
                )
            })
    }
}

/// Which adaptation triggers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triggers {
    /// After a record pattern is adapted, re-check and adapt its children.
    pub top_down: bool,
    /// When a child cannot be adapted, adapt its parent first.
    pub bottom_up: bool,
}
