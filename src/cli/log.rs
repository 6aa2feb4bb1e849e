//! `mend log`: list adaptations from the store, newest first.
//!
//! The plain form is a table for a terminal: one line per adaptation with
//! its id, time (UTC), wrapper, pattern, state (where it stands now:
//! `reverted` once its XPath was taken back out, whatever the run did), the scope of the page's
//! change (`none`, `unstable`, `template`, `local`, `structural`; `-` when
//! it was not sensed), the pages it stands for
//! (one entry per change: identical heals of a run are one line), decision,
//! score, runner-up and its old → new XPath, long values cut with an
//! ellipsis. `--json` prints a JSON array of the full records instead.
//!
//! `mend log --health` lists the field health of runs and snapshots
//! instead (`health.rs`).
//!
//! ## What it refuses
//!
//! `--health` with `--status` or `--pending`, and a `--status` word not in
//! [`STATES`], are clap's refusals (exit 2). A store that is missing, not a
//! mend store, or one of two that could be meant is exit 2, one that cannot
//! be read exit 3. A filter that matches nothing is no error (exit 0). The
//! table cuts names to [`NAME_CHARS`] and XPaths to [`XPATH_CHARS`]
//! characters; `--json` cuts nothing, and with `--health` it prints every
//! sample, `--pattern` narrowing its fields and drops as it narrows the
//! table.

mod health;

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context as _;

use mend::store::{AdaptationFilter, AdaptationRecord, STATES, State, Store};

use super::review::{self, StoreArg, score};

/// List adaptations, newest first; or, with --health, the field health of
/// the last runs.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
pub struct Args {
    /// Show the field health of runs and snapshots instead of adaptations:
    /// per pattern, its measures over the last runs (by default the last
    /// 10 of each wrapper), with the drops.
    #[arg(long, conflicts_with_all = ["status", "pending"])]
    health: bool,
    /// Only this wrapper's adaptations (the wrapper's `name`).
    #[arg(long, value_name = "NAME")]
    wrapper: Option<String>,
    /// Only this pattern's (a path of names, such as book/price); with
    /// --health, this pattern and those under it.
    #[arg(long, value_name = "PATH")]
    pattern: Option<String>,
    /// Only adaptations in this state: where they stand now, after what
    /// the run did and what people did with them.
    #[arg(long, value_parser = state_parser())]
    status: Option<State>,
    /// Only proposals still waiting for a person.
    #[arg(long)]
    pending: bool,
    /// At most this many, the newest (with --health: samples per wrapper).
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Print a JSON array of the full records.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArg,
}

/// The parser of `--status`: the words of [`STATES`], listed in the help.
fn state_parser() -> impl clap::builder::TypedValueParser<Value = State> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(STATES.map(State::as_str))
        .try_map(|word| word.parse::<State>())
}

/// The widest an XPath is shown in the table, in characters.
const XPATH_CHARS: usize = 40;
/// The widest a wrapper or pattern name is shown in the table.
const NAME_CHARS: usize = 24;

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (store, path) = match review::open_store(&args.store) {
        Ok(opened) => opened,
        Err(code) => return Ok(code),
    };
    if args.health {
        return health_log(&args, &store, &path);
    }
    let filter = AdaptationFilter {
        wrapper: args.wrapper.as_deref(),
        pattern: args.pattern.as_deref(),
        status: None,
        state: args.status,
        run: None,
        pending: args.pending,
        limit: args.limit,
    };
    let records = match store.adaptations(&filter) {
        Ok(records) => records,
        Err(e) => return Ok(review::store_failure(&e)),
    };
    let mut out = BufWriter::new(super::stdout::Stdout::new());
    if args.json {
        // Each record names its store's tag, so that a tool can pass it on
        // as TAG:ID to the other review commands.
        let tag = match store.tag() {
            Ok(tag) => tag,
            Err(e) => return Ok(review::store_failure(&e)),
        };
        let mut tagged = Vec::with_capacity(records.len());
        for record in &records {
            let mut json = serde_json::to_value(record).context("writing the records")?;
            if let serde_json::Value::Object(o) = &mut json {
                o.insert("store".to_owned(), serde_json::Value::from(tag.as_str()));
            }
            tagged.push(json);
        }
        serde_json::to_writer_pretty(&mut out, &tagged).context("writing the records")?;
        writeln!(out)?;
    } else if records.is_empty() {
        say!("no adaptations in {} match", path.display());
    } else {
        out.write_all(table(&records).as_bytes())?;
    }
    out.flush().context("writing the records")?;
    Ok(ExitCode::SUCCESS)
}

/// The samples a person asked `--health` for, newest first.
const HEALTH_SAMPLES: u64 = 10;

/// `mend log --health`: a table per wrapper, or the samples as JSON.
fn health_log(args: &Args, store: &Store, path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let limit = args.limit.unwrap_or(HEALTH_SAMPLES);
    let mut samples = match store.health_samples(args.wrapper.as_deref(), Some(limit)) {
        Ok(samples) => samples,
        Err(e) => return Ok(review::store_failure(&e)),
    };
    let mut out = BufWriter::new(super::stdout::Stdout::new());
    if args.json {
        // `--pattern` narrows the samples as it narrows the table.
        if let Some(only) = args.pattern.as_deref() {
            for sample in &mut samples {
                sample
                    .fields
                    .retain(|f| health::within(&f.pattern.to_string(), only));
                sample
                    .drops
                    .retain(|d| health::within(&d.field.to_string(), only));
            }
        }
        serde_json::to_writer_pretty(&mut out, &samples).context("writing the samples")?;
        writeln!(out)?;
    } else if samples.is_empty() {
        say!("no field health in {} matches", path.display());
    } else {
        let mut first = true;
        for group in samples.chunk_by(|a, b| a.wrapper == b.wrapper) {
            if !first {
                writeln!(out)?;
            }
            first = false;
            let text = health::table(&group[0].wrapper, group, args.pattern.as_deref());
            out.write_all(text.as_bytes())?;
        }
    }
    out.flush().context("writing the samples")?;
    Ok(ExitCode::SUCCESS)
}

/// The plain table: a header line, then one line per record, columns padded
/// to their widest cell.
fn table(records: &[AdaptationRecord]) -> String {
    let header = [
        "ID",
        "TIME (UTC)",
        "WRAPPER",
        "PATTERN",
        "STATUS",
        "CHANGE",
        "PAGES",
        "DECISION",
        "SCORE",
        "RUNNER-UP",
        "OLD → NEW XPATH",
    ];
    let rows: Vec<[String; 11]> = records.iter().map(row).collect();
    // Numbers line up on the right, words on the left.
    health::columns(&header.map(str::to_owned), &rows, &[0, 6, 8, 9])
}

fn row(record: &AdaptationRecord) -> [String; 11] {
    let decision = match (&record.decision, record.is_pending()) {
        (Some(decision), _) => decision.verdict.to_string(),
        (None, true) => "pending".to_owned(),
        (None, false) => "-".to_owned(),
    };
    let new = record
        .new_xpath
        .as_deref()
        .map_or_else(|| "(none)".to_owned(), |x| truncate_middle(x, XPATH_CHARS));
    [
        record.id.to_string(),
        short_time(&record.created_at.to_string()),
        truncate(&record.wrapper, NAME_CHARS),
        truncate(&record.pattern, NAME_CHARS),
        record.state.to_string(),
        record
            .change_scope
            .clone()
            .unwrap_or_else(|| "-".to_owned()),
        record.page_count.to_string(),
        decision,
        score(record.score),
        score(record.runner_up),
        format!(
            "{} → {new}",
            truncate_middle(&record.old_xpath, XPATH_CHARS)
        ),
    ]
}

/// An RFC 3339 time as `2024-05-01 12:00:00`, to the second; anything else as it is.
fn short_time(rfc3339: &str) -> String {
    match rfc3339.get(..19) {
        Some(head) if rfc3339.ends_with('Z') && head.as_bytes().get(10) == Some(&b'T') => {
            head.replacen('T', " ", 1)
        }
        _ => rfc3339.to_owned(),
    }
}

/// `text` on one line, at most `max` characters, cut with an ellipsis.
pub(super) fn truncate(text: &str, max: usize) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `text` on one line, at most `max` characters, its middle cut out with an
/// ellipsis: an XPath's last steps and predicates tell it apart.
fn truncate_middle(text: &str, max: usize) -> String {
    let one_line = truncate(text, usize::MAX);
    let len = one_line.chars().count();
    if len <= max {
        return one_line;
    }
    let head = max.saturating_sub(1) * 2 / 5;
    let tail = max.saturating_sub(1) - head;
    let mut cut: String = one_line.chars().take(head).collect();
    cut.push('…');
    cut.extend(one_line.chars().skip(len - tail));
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut_to_one_line() {
        assert_eq!(truncate("//a", 5), "//a");
        assert_eq!(truncate("//a/b/c/d", 5), "//a/…");
        assert_eq!(truncate("a\nb", 5), "a b");
        assert_eq!(truncate_middle("//a", 5), "//a");
        assert_eq!(truncate_middle("//div/span[@x]", 11), "//di…an[@x]");
    }

    #[test]
    fn times_show_to_the_second() {
        assert_eq!(
            short_time("2024-05-01T12:00:00.123Z"),
            "2024-05-01 12:00:00"
        );
        assert_eq!(
            short_time("5ms after the Unix epoch"),
            "5ms after the Unix epoch"
        );
    }
}
