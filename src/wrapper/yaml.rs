//! Reading wrapper text as YAML, within limits, into a positioned node tree.
//!
//! We read YAML with serde-saphyr rather than serde_yaml_ng. serde-saphyr is
//! a maintained, pure-Rust YAML reader for serde that forbids `unsafe` and is
//! checked against the YAML test suite; it began on the saphyr parser and now
//! runs on granit-parser, that parser's fork. Every error carries a line and
//! column (it can render a source snippet too; we render our own so that all
//! diagnostics look alike), `<<` merge keys are applied, duplicate keys are
//! rejected by default (here they are handed over so we can name both
//! places), and budgets on events, nodes, depth, aliases and replayed alias
//! events make an alias bomb fail fast instead of exhausting memory.
//! serde_yaml_ng is a fork of the deprecated serde_yaml, follows YAML 1.1, and
//! sits on unsafe-libyaml, a machine translation of libyaml into unsafe Rust
//! whose repository was archived in 2024.
//!
//! YAML 1.1 habits are switched off: only `true`/`false` are booleans (so a
//! country code `NO` stays text — the Norway problem), and numbers written with
//! leading zeros or underscores stay text, as they are usually identifiers.
//!
//! This module refuses documents over [`MAX_BYTES`], more than one document
//! per file, unknown tags, and anything past its budgets. It does no file I/O:
//! it is handed the text.

use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::{DuplicateKeyPolicy, Error, MessageFormatter};

use super::diagnostic::Diagnostic;
use super::node::{Kind, Node};

/// The largest wrapper file accepted, in bytes. Real wrappers are a few
/// kilobytes; this leaves room for generated ones while bounding the work.
pub const MAX_BYTES: usize = 4 * 1024 * 1024;

/// The most YAML nodes (scalars, sequences, mappings) a wrapper may have.
pub const MAX_NODES: usize = 100_000;

/// The most nested sequences and mappings. A pattern level takes two (its
/// list and its mapping), so this allows patterns about thirty levels deep.
pub const MAX_DEPTH: usize = 64;

/// The most events that expanding aliases may add. Aliases are replayed in
/// full, so this is what stops a billion-laughs document.
pub const MAX_REPLAYED_EVENTS: usize = 100_000;

/// The stack the reader runs on. Reading nested YAML through serde recurses
/// once per level, and unoptimised builds spend tens of kilobytes per level,
/// so the 2 MiB of a test or worker thread would overflow well before
/// [`MAX_DEPTH`] refuses the document. Only touched pages are committed.
const READER_STACK: usize = 64 * 1024 * 1024;

/// Runs `read` on a thread with [`READER_STACK`], or says why it could not.
fn on_a_large_stack<T: Send>(read: impl FnOnce() -> T + Send) -> Result<T, &'static str> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("wrapper-reader".to_owned())
            .stack_size(READER_STACK)
            .spawn_scoped(scope, read)
            .map_err(|_| "no thread could be started to read the wrapper")?
            .join()
            .map_err(|_| "the YAML reader failed on this wrapper; please report it")
    })
}

/// The reader's options, as the module documentation explains.
fn options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = MAX_NODES;
    budget.max_events = MAX_NODES * 3;
    budget.max_depth = MAX_DEPTH;
    budget.max_documents = 1;
    budget.max_aliases = MAX_NODES / 10;
    budget.max_anchors = MAX_NODES / 10;
    budget.max_total_scalar_bytes = MAX_BYTES;
    budget.max_recorded_anchor_events = MAX_REPLAYED_EVENTS;
    budget.max_recorded_anchor_bytes = MAX_BYTES;

    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = MAX_REPLAYED_EVENTS;
    // Duplicates are reported by the loader, with both positions and all of
    // them at once, so the reader hands every entry over.
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    options.reject_unsupported_tags = true;
    options.emit_comments = false;
    // Diagnostics render their own snippet.
    options.with_snippet = false;
    options
}

/// Reads `text` into a node tree, or says where and why it is not acceptable YAML.
pub(crate) fn parse(text: &str, file: &str) -> Result<Node, Diagnostic> {
    if text.len() > MAX_BYTES {
        return Err(Diagnostic::error(
            file,
            text,
            1,
            1,
            format!(
                "the wrapper is {} bytes long; wrappers are limited to {} bytes",
                text.len(),
                MAX_BYTES
            ),
        ));
    }
    if text.trim().is_empty() {
        return Err(empty(text, file));
    }
    let root = on_a_large_stack(|| {
        serde_saphyr::from_str_with_options::<Node>(text, options())
            .map_err(|error| diagnostic(&error, text, file))
    })
    .map_err(|why| Diagnostic::error(file, text, 1, 1, format!("internal error: {why}")))??;
    if root.kind == Kind::Null {
        return Err(empty(text, file));
    }
    Ok(root)
}

fn empty(text: &str, file: &str) -> Diagnostic {
    Diagnostic::error(
        file,
        text,
        1,
        1,
        "the wrapper is empty; expected a mapping with `name` and `patterns`",
    )
    .with_expected("a mapping")
}

/// Turns a reader error into a diagnostic at its location.
fn diagnostic(error: &Error, text: &str, file: &str) -> Diagnostic {
    let (line, column) = error
        .location()
        .map(|l| (l.line(), l.column()))
        .filter(|&(line, _)| line > 0)
        .map_or((1, 1), |(line, column)| {
            (
                usize::try_from(line).unwrap_or(1),
                usize::try_from(column).unwrap_or(1).max(1),
            )
        });
    Diagnostic::error(file, text, line, column, message(error))
}

/// The innermost error, without the snippet and alias wrappers the reader adds.
fn original(mut error: &Error) -> &Error {
    loop {
        match error {
            Error::WithSnippet { error: inner, .. } | Error::AliasError { error: inner, .. } => {
                error = inner;
            }
            _ => return error,
        }
    }
}

/// The message for a reader error, in the loader's words where ours are clearer.
fn message(error: &Error) -> String {
    let error = original(error);
    match error {
        Error::Budget { breach, .. } => budget_message(breach),
        Error::AliasReplayLimitExceeded { .. }
        | Error::AliasExpansionLimitExceeded { .. }
        | Error::AliasReplayStackDepthExceeded { .. }
        | Error::AliasReplayCounterOverflow { .. } => format!(
            "aliases expand to more than {MAX_REPLAYED_EVENTS} YAML events; \
             refusing the wrapper (is it an alias bomb?)"
        ),
        Error::DuplicateMappingKey { key, .. } => match key {
            Some(key) => format!("duplicate key {key:?}"),
            None => "duplicate key".to_owned(),
        },
        Error::MultipleDocuments { .. } => {
            "a wrapper file holds one YAML document; found a second `---`".to_owned()
        }
        _ => {
            let text = serde_saphyr::DefaultMessageFormatter.format_message(error);
            // The reader's messages may hold control characters from the
            // input; a diagnostic is one line.
            text.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect()
        }
    }
}

fn budget_message(breach: &BudgetBreach) -> String {
    match breach {
        BudgetBreach::Depth { .. } => {
            format!("the wrapper nests deeper than {MAX_DEPTH} levels; refusing it")
        }
        BudgetBreach::Nodes { .. } | BudgetBreach::Events { .. } => {
            format!("the wrapper has more than {MAX_NODES} YAML nodes; refusing it")
        }
        BudgetBreach::Documents { .. } => {
            "a wrapper file holds one YAML document; found a second `---`".to_owned()
        }
        BudgetBreach::RecordedAnchorEvents { .. }
        | BudgetBreach::RecordedAnchorBytes { .. }
        | BudgetBreach::AliasAnchorRatio { .. } => format!(
            "aliases expand to more than {MAX_REPLAYED_EVENTS} YAML events; \
             refusing the wrapper (is it an alias bomb?)"
        ),
        BudgetBreach::Aliases { .. } | BudgetBreach::Anchors { .. } => format!(
            "the wrapper has more than {} aliases or anchors; refusing it",
            MAX_NODES / 10
        ),
        other => format!("the wrapper is too large to read safely ({other:?}); refusing it"),
    }
}
