//! What `mend snapshot` and `mend learn` share: refusing a `--pattern` the
//! wrapper does not have, and once their tree-grams are captured, saying
//! what was written, keeping the captured page in the
//! store, recording the health baseline, and refusing a page on which the
//! wrapper's constraints fail.
//!
//! It refuses (exit 2) a `--pattern` that names no pattern of the wrapper;
//! for a page whose constraints fail it only explains, and the exit and the
//! `--force` that overrides it are the command's. Once the tree-grams are
//! saved nothing here undoes them: a page that cannot be kept in the store is
//! a warning, and a baseline that cannot be recorded is a failure (exit 3)
//! that says the tree-grams stay.

use std::process::ExitCode;

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};
use mend::health::HealthTally;
use mend::runtime::{Written, record_health_baseline};
use mend::store::Store;
use mend::treegram::Skipped;
use mend::wrapper::{PatternPath, Wrapper};

/// Refuses (exit 2) a `--pattern` the wrapper has no pattern for.
pub(super) fn check_patterns(wrapper: &Wrapper, patterns: &[PatternPath]) -> Result<(), ExitCode> {
    match patterns.iter().find(|p| wrapper.pattern(p).is_none()) {
        Some(p) => {
            say!("error: --pattern {p}: the wrapper has no pattern with that path");
            Err(ExitCode::from(EXIT_BAD_INPUT))
        }
        None => Ok(()),
    }
}

/// Records the field statistics of the snapshot's pages as the wrapper's
/// health baseline; the tree-grams are saved already, so a failure here
/// leaves them and says so.
pub(super) fn record_baseline(
    store: &mut Store,
    wrapper: &Wrapper,
    pages: usize,
    health: &HealthTally,
) -> ExitCode {
    let stats = health.stats();
    let at = mend::runtime::now();
    match record_health_baseline(store, wrapper, pages as u64, &stats, at) {
        Ok(_) => {
            say!(
                "mend: health baseline of {} recorded over {}",
                plural(stats.len(), "pattern"),
                plural(pages, "page")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!(
                "error: the tree-grams are saved, but the health baseline could not be recorded: {e}"
            );
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// Keeps the page the tree-grams were captured on in the store, for the
/// review page to show beside a proposal's new page. The tree-grams are
/// saved already: a failure here is a warning.
pub(super) fn keep_capture(
    store: &mut Store,
    wrapper: &Wrapper,
    written: &Written,
    name: &str,
    bytes: &[u8],
) {
    let names: Vec<String> = written
        .files
        .iter()
        .map(|(_, c)| c.pattern.to_string())
        .collect();
    let patterns: Vec<&str> = names.iter().map(String::as_str).collect();
    if patterns.is_empty() {
        return;
    }
    let at = mend::runtime::now();
    if let Err(e) = store.record_capture(&wrapper.name, &patterns, name, bytes, at) {
        say!(
            "warning: the tree-grams are saved, but their page could not be kept in the store: {e}"
        );
    }
}

/// Explains that the wrapper's constraints fail on a page, which a
/// snapshot refuses without --force.
pub(super) fn refuse_violated(page: &str, violations: &[mend::extract::Violation]) {
    say!(
        "error: the wrapper's constraints fail on {page} ({}, the first: {} {} expected {}, found \
         {}); a tree-gram must capture a page where the wrapper works (--force to capture anyway)",
        plural(violations.len(), "violation"),
        violations[0].pattern,
        violations[0].constraint,
        violations[0].expected,
        violations[0].found,
    );
}

/// Lists the tree-grams written (standard output) and the patterns that
/// got none (standard error).
pub(super) fn report_written(written: &Written, skipped: &[Skipped]) {
    for (path, c) in &written.files {
        out!(
            "{}: {} ({})",
            c.pattern,
            path.display(),
            plural(c.instances, "instance")
        );
    }
    for s in skipped {
        say!("{}: no tree-gram: {}", s.pattern, s.reason);
    }
}

/// `n` and the word, with an `s` unless `n` is 1.
pub(super) fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
