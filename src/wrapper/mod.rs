//! Wrappers: the YAML format, its schema, and the typed model it loads into.
//!
//! Loading goes text → YAML node tree with positions → duplicate-key check →
//! schema check (`schemas/wrapper.schema.json`) → typed [`Wrapper`] with the
//! checks the schema cannot express → lints. Every problem is a
//! [`Diagnostic`] naming file, line and column; the loader reports all it can
//! find rather than stopping at the first.
//!
//! This module does no network I/O. The only file it reads is the wrapper
//! itself, in [`load_file`]; everything else works on text handed to it. It
//! refuses wrappers over [`MAX_BYTES`], alias bombs, deeply nested or huge
//! documents, and anything the schema or the semantic checks reject.

mod builder;
mod crawl;
mod diagnostic;
mod lint;
mod model;
mod monitor;
mod node;
mod path;
mod rewrite;
mod scalar;
mod schema;
mod suggestion;
mod yaml;

#[cfg(test)]
mod tests;

use std::io::Read;
use std::path::{Path, PathBuf};

use node::Node;

pub use crawl::{
    CrawlSettings, DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES, FrontierOrder, Items, PageAction,
    Politeness, RenderMode,
};
pub use diagnostic::{Diagnostic, Severity, render_all};
pub use model::*;
pub use monitor::{FieldLimits, HealthLimits, MAX_DROP, MIN_ITEMS, Monitor};
pub use path::{BadPatternPath, PatternPath};
pub use rewrite::{RewriteError, replace_xpath, set_treegram, set_treegrams, take_back_xpath};
pub use schema::SCHEMA;
pub use yaml::{MAX_BYTES, MAX_DEPTH, MAX_NODES};

/// A wrapper: start URLs, adaptation settings and a tree of patterns.
#[derive(Clone, Debug)]
pub struct Wrapper {
    /// The wrapper's name, used for tree-gram folders and in the store.
    pub name: String,
    /// Start URLs for crawling.
    pub start: Vec<String>,
    /// How healing behaves.
    pub adapt: AdaptSettings,
    /// How `mend crawl` walks the site.
    pub crawl: CrawlSettings,
    /// How field health is judged, when the wrapper has a `monitor` block;
    /// [`Wrapper::monitor`] gives the limits in force either way.
    pub monitor: Option<Monitor>,
    /// The top-level patterns, evaluated from the document node.
    pub patterns: Vec<Pattern>,
    /// The file the wrapper was loaded from, if any.
    pub source: Option<PathBuf>,
}

impl Wrapper {
    /// The health limits in force: the `monitor` block's, else the defaults.
    pub fn monitor(&self) -> &Monitor {
        static DEFAULT: std::sync::LazyLock<Monitor> = std::sync::LazyLock::new(Monitor::default);
        self.monitor.as_ref().unwrap_or(&DEFAULT)
    }
}

/// Builds the wrapper, adding a diagnostic for every problem found.
///
/// Returns `None` when a part of the model could not be built; the
/// diagnostics then say why.
fn build(root: &Node, text: &str, file: &str, out: &mut Vec<Diagnostic>) -> Option<Wrapper> {
    let builder = builder::Builder::new(text, file);
    let start = builder.start(root.get("start"), out);
    let adapt = root
        .get("adapt")
        .map_or_else(AdaptSettings::default, builder::adapt);
    let patterns = builder.patterns(root.get("patterns"), "/patterns", out);
    let monitor = root
        .get("monitor")
        .map(|m| monitor::build(m, patterns.as_deref(), text, file, out));
    let crawl = root
        .get("crawl")
        .map_or_else(CrawlSettings::default, |c| crawl::build(c, &builder, out));
    Some(Wrapper {
        name: root.get("name")?.as_str()?.to_owned(),
        start,
        adapt,
        crawl,
        monitor,
        patterns: patterns?,
        source: None,
    })
}

/// Why a wrapper file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file as given.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file was read but is not a valid wrapper.
    #[error("{}", render_all(.0))]
    Invalid(Vec<Diagnostic>),
}

/// Everything the loader found: the wrapper if it is valid, and every
/// diagnostic (errors and warnings) in source order.
#[derive(Debug)]
pub struct Report {
    /// The wrapper, when there are no errors.
    pub wrapper: Option<Wrapper>,
    /// Errors and warnings, ordered by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads a wrapper from YAML text; `file` names it in messages.
///
/// Warnings are dropped; use [`check_str`] to see them.
pub fn load_str(text: &str, file: &str) -> Result<Wrapper, Vec<Diagnostic>> {
    let report = check_str(text, file);
    match report.wrapper {
        Some(wrapper) => Ok(wrapper),
        None => Err(report
            .diagnostics
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect()),
    }
}

/// Loads a wrapper file; the wrapper remembers where it came from.
pub fn load_file(path: impl AsRef<Path>) -> Result<Wrapper, LoadError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let text = read_text(path, &name)?;
    let mut wrapper = load_str(&text, &name).map_err(LoadError::Invalid)?;
    wrapper.source = Some(path.to_owned());
    Ok(wrapper)
}

/// Checks a wrapper file and returns every diagnostic, warnings included.
pub fn check_file(path: impl AsRef<Path>) -> Result<Report, LoadError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let text = read_text(path, &name)?;
    let mut report = check_str(&text, &name);
    if let Some(wrapper) = &mut report.wrapper {
        wrapper.source = Some(path.to_owned());
    }
    Ok(report)
}

/// Opens `path` for reading when it is a regular file. A FIFO, a socket or
/// a device is refused, as tree-grams are: opening a FIFO with no writer
/// would wait for one forever. The file is opened without waiting and then
/// checked, so that it cannot be swapped for a FIFO in between.
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// Reads a wrapper file as UTF-8 text, refusing one that is too large
/// without reading more of it than the limit.
fn read_text(path: &Path, name: &str) -> Result<String, LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_owned(),
        source,
    };
    let file = open_regular(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() > MAX_BYTES {
        return Err(LoadError::Invalid(vec![Diagnostic::error(
            name,
            "",
            1,
            1,
            format!("the wrapper is larger than {MAX_BYTES} bytes; refusing it"),
        )]));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let valid = std::str::from_utf8(valid).unwrap_or_default();
        let line = valid.matches('\n').count() + 1;
        let column = valid.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        LoadError::Invalid(vec![Diagnostic::error(
            name,
            valid,
            line,
            column,
            "the wrapper is not UTF-8 text",
        )])
    })
}

/// Checks wrapper text and returns the wrapper (if valid) with every diagnostic.
pub fn check_str(text: &str, file: &str) -> Report {
    let root = match yaml::parse(text, file) {
        Ok(root) => root,
        Err(diagnostic) => {
            return Report {
                wrapper: None,
                diagnostics: vec![diagnostic],
            };
        }
    };
    let mut diagnostics: Vec<Diagnostic> = root
        .duplicates()
        .into_iter()
        .map(|(_, first, repeat)| {
            Diagnostic::error(
                file,
                text,
                repeat.key_at.line,
                repeat.key_at.column,
                format!(
                    "duplicate key {:?}; it is first set at line {}, column {}",
                    repeat.key, first.key_at.line, first.key_at.column
                ),
            )
            .with_expected("each key once per mapping")
        })
        .collect();
    let schema_errors = schema::check(&root, text, file);
    let mut semantic = Vec::new();
    let wrapper = build(&root, text, file, &mut semantic);
    // The builder reads what it can even from a document the schema refused,
    // so that one run reports every problem; where both speak about the same
    // place, the schema's message is the one about the shape and is kept.
    semantic.retain(|d| {
        !schema_errors
            .iter()
            .any(|s| (s.line, s.column) == (d.line, d.column))
    });
    diagnostics.extend(semantic);
    diagnostics.extend(schema_errors);
    diagnostics.extend(lint::lint(&root, text, file));
    diagnostics.sort_by_key(|d| (d.line, d.column));
    diagnostics.dedup();
    let valid = !diagnostics.iter().any(Diagnostic::is_error);
    Report {
        wrapper: wrapper.filter(|_| valid),
        diagnostics,
    }
}
