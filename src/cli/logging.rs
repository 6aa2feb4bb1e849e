//! The operators' log: the one tracing subscriber, installed by the binary,
//! writing to standard error.
//!
//! `MEND_LOG` filters it. A bare level (`MEND_LOG=debug`) is how much mend
//! itself says: it applies to the `mend` target, and other libraries say no
//! more than their warnings (fewer when the level is `error` or `off`).
//! html5ever logs a stale "foster parenting not implemented" warning for
//! every table with stray content (it is implemented), and thousands of
//! lines a page at `debug`, so it is silent unless named. A directive that
//! names a target (`html5ever=debug`, `mend::adapt=trace`) applies as
//! written, and wins over these defaults. Unset or empty, the filter is
//! mend's warnings and other libraries' warnings but html5ever's.
//!
//! What it refuses: a value it cannot read is never ignored in silence.
//! Each directive that is not one (`mend=loud`) or that looks like a
//! misspelt level (`warning`, `debgu`) is left out, and one line on
//! standard error names the variable and each problem.
//!
//! Colour follows the rules clap follows (anstream's): none when
//! `NO_COLOR` is set to anything, always with `CLICOLOR_FORCE`, else only
//! when standard error is a terminal that takes colour.

use std::str::FromStr as _;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{Directive, LevelFilter};

/// The environment variable that filters the operators' log.
pub const LOG_ENV: &str = "MEND_LOG";

/// The level names a bare directive may spell, as `MEND_LOG` takes them.
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// Installs the subscriber, filtered by `MEND_LOG`; a value it cannot read
/// in full is reported on standard error first.
pub fn install() {
    let value = std::env::var_os(LOG_ENV);
    let filter = match value.as_deref().map(|v| v.to_str()) {
        None => Filter::from_value(""),
        Some(Some(text)) => Filter::from_value(text),
        Some(None) => Filter {
            directives: Filter::from_value("").directives,
            problems: vec!["it is not UTF-8 text, so it is ignored".to_owned()],
        },
    };
    if !filter.problems.is_empty() {
        say!("warning: {LOG_ENV}: {}", filter.problems.join("; "));
    }
    // Every directive was checked on its own, so the whole parses; should it
    // not, mend's warnings are still shown.
    let env_filter = EnvFilter::builder()
        .parse(filter.directives.join(","))
        .unwrap_or_else(|_| EnvFilter::new("warn,html5ever=off"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(env_filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_on_stderr())
        .with_target(false)
        .try_init();
}

/// Whether standard error takes colour, by the rules clap's own messages
/// follow, so that mend's output is coloured all alike or not at all.
pub fn colour_on_stderr() -> bool {
    anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
}

/// `MEND_LOG` read: the directives of the filter, in order (later ones win
/// over earlier ones for the same target), and what could not be read.
#[derive(Debug, PartialEq, Eq)]
pub struct Filter {
    /// Directives as EnvFilter takes them.
    pub directives: Vec<String>,
    /// One sentence per directive left out.
    pub problems: Vec<String>,
}

impl Filter {
    /// Reads a value of `MEND_LOG` (empty when unset).
    pub fn from_value(value: &str) -> Filter {
        let mut level = None;
        let mut written = Vec::new();
        let mut problems = Vec::new();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if let Some(l) = bare_level(item) {
                level = Some(l);
            } else if let Some(meant) = misspelt_level(item) {
                problems.push(format!(
                    "ignoring `{item}`: not a level (did you mean `{meant}`?)"
                ));
            } else {
                match Directive::from_str(item) {
                    Ok(_) => written.push(item.to_owned()),
                    Err(e) => problems.push(format!("ignoring `{item}`: {e}")),
                }
            }
        }
        let mend = level.unwrap_or(LevelFilter::WARN);
        let others = mend.min(LevelFilter::WARN);
        let mut directives = vec![
            others.to_string().to_lowercase(),
            "html5ever=off".to_owned(),
            format!("mend={}", mend.to_string().to_lowercase()),
        ];
        directives.extend(written);
        Filter {
            directives,
            problems,
        }
    }
}

/// The level a bare directive names (`debug`, `DEBUG`, `4`), if it is one.
fn bare_level(item: &str) -> Option<LevelFilter> {
    if item.contains(['=', '[', ':']) {
        return None;
    }
    LevelFilter::from_str(item).ok()
}

/// The level a bare word most likely meant, when it is not a level but
/// looks like a misspelt one (`warning`, `deubg`, `inf`): such a word would
/// otherwise be taken as a target name and enable nothing.
fn misspelt_level(item: &str) -> Option<&'static str> {
    if !item.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let word = item.to_ascii_lowercase();
    LEVELS.into_iter().find(|level| {
        word.starts_with(level)
            || (word.len() >= 2 && level.starts_with(&word))
            || strsim::damerau_levenshtein(&word, level) <= 2
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(value: &str, directives: &[&str], problems: &[&str]) {
        let filter = Filter::from_value(value);
        assert_eq!(filter.directives, directives, "{value:?}");
        assert_eq!(filter.problems, problems, "{value:?}");
        EnvFilter::builder()
            .parse(filter.directives.join(","))
            .unwrap_or_else(|e| panic!("{value:?}: {e}"));
    }

    #[test]
    fn unset_shows_warnings_but_html5evers() {
        check("", &["warn", "html5ever=off", "mend=warn"], &[]);
    }

    #[test]
    fn a_bare_level_is_mends_own_and_others_stay_at_warnings() {
        check("debug", &["warn", "html5ever=off", "mend=debug"], &[]);
        check("TRACE", &["warn", "html5ever=off", "mend=trace"], &[]);
        check("error", &["error", "html5ever=off", "mend=error"], &[]);
        check("off", &["off", "html5ever=off", "mend=off"], &[]);
    }

    #[test]
    fn directives_with_a_target_apply_as_written_after_the_defaults() {
        check(
            "html5ever=debug",
            &["warn", "html5ever=off", "mend=warn", "html5ever=debug"],
            &[],
        );
        check(
            "info,mend::adapt=trace",
            &["warn", "html5ever=off", "mend=info", "mend::adapt=trace"],
            &[],
        );
    }

    #[test]
    fn invalid_directives_are_reported_and_left_out() {
        check(
            "mend=loud,debug",
            &["warn", "html5ever=off", "mend=debug"],
            &[
                "ignoring `mend=loud`: error parsing level filter: expected one of \"off\", \
               \"error\", \"warn\", \"info\", \"debug\", \"trace\", or a number 0-5",
            ],
        );
        check(
            "warning",
            &["warn", "html5ever=off", "mend=warn"],
            &["ignoring `warning`: not a level (did you mean `warn`?)"],
        );
        check(
            "debgu, info",
            &["warn", "html5ever=off", "mend=info"],
            &["ignoring `debgu`: not a level (did you mean `debug`?)"],
        );
    }

    #[test]
    fn a_bare_word_far_from_any_level_names_a_target() {
        check(
            "html5ever",
            &["warn", "html5ever=off", "mend=warn", "html5ever"],
            &[],
        );
    }

    /// The events a filter made from `value` lets through, of one event
    /// per target and level that matters here.
    fn shown(value: &str) -> Vec<String> {
        use std::sync::{Arc, Mutex};

        #[derive(Clone, Default)]
        struct Lines(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Lines {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }

        let lines = Lines::default();
        let writer = lines.clone();
        let filter = EnvFilter::builder()
            .parse(Filter::from_value(value).directives.join(","))
            .unwrap();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_target(false)
            .without_time()
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(target: "mend::job", "mend-error");
            tracing::warn!(target: "mend::job", "mend-warn");
            tracing::info!(target: "mend::job", "mend-info");
            tracing::debug!(target: "mend::job", "mend-debug");
            tracing::trace!(target: "mend::adapt::heal", "adapt-trace");
            tracing::warn!(target: "html5ever::tree_builder", "html5ever-warn");
            tracing::debug!(target: "html5ever::tokenizer", "html5ever-debug");
            tracing::warn!(target: "reqwest::connect", "reqwest-warn");
            tracing::debug!(target: "reqwest::connect", "reqwest-debug");
        });
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .filter_map(|l| l.split_whitespace().last())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn the_defaults_give_way_to_what_the_value_names() {
        let check =
            |value: &str, expected: &[&str]| assert_eq!(shown(value), expected, "{value:?}");
        check("", &["mend-error", "mend-warn", "reqwest-warn"]);
        check(
            "debug",
            &[
                "mend-error",
                "mend-warn",
                "mend-info",
                "mend-debug",
                "reqwest-warn",
            ],
        );
        check("error", &["mend-error"]);
        check("off", &[]);
        check(
            "html5ever=debug",
            &[
                "mend-error",
                "mend-warn",
                "html5ever-warn",
                "html5ever-debug",
                "reqwest-warn",
            ],
        );
        check(
            "mend::adapt=trace",
            &["mend-error", "mend-warn", "adapt-trace", "reqwest-warn"],
        );
    }
}
