//! `mend run WRAPPER PAGE...`: extract records from pages.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_VIOLATED, load_wrapper};
use mend::fetch;
use mend::job::{self, OutputFormat, OutputWriter, RunOptions};
use mend::runtime::{Runtime, Session};
use mend::wrapper::HealMode;

/// Runs a wrapper over pages and prints one JSON object per page.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The wrapper file (YAML).
    pub wrapper: PathBuf,
    /// Pages: files, directories (read recursively for *.html and *.htm, gzipped too),
    /// `-` for standard input, or http(s) URLs.
    #[arg(required = true)]
    pub pages: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Ndjson)]
    pub format: OutputFormat,
    /// Write records to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Emit one record per instance of this top-level record pattern, each
    /// with the page's other top-level fields after its own (as `page.NAME`
    /// where the record has a field of that name).
    #[arg(long, value_name = "NAME")]
    pub flatten: Option<String>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print no summary on standard error.
    #[arg(long, short)]
    pub quiet: bool,
    /// What to do when a pattern is violated: only report it (off), heal and
    /// store a proposal (propose), or heal and rewrite the wrapper file (auto).
    /// Default: the wrapper's `adapt.mode`.
    #[arg(long, value_parser = super::names(HealMode::ALL, HealMode::as_str, heal_help))]
    pub heal: Option<HealMode>,
    /// The store for runs, pages and adaptations (default: $MEND_STORE, else
    /// `.mend/mend.db` beside the wrapper).
    #[arg(long)]
    pub store: Option<PathBuf>,
}

/// What each `--heal` value does, for the help.
fn heal_help(mode: HealMode) -> &'static str {
    match mode {
        HealMode::Off => "Only report violations",
        HealMode::Propose => {
            "Heal, emit healed records marked with the proposal, store the proposal"
        }
        HealMode::Auto => "Heal and rewrite the wrapper file in place",
    }
}

/// Runs the command.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let wrapper = match load_wrapper(&args.wrapper) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    let columns = match &args.flatten {
        None => wrapper.patterns.iter().map(|p| p.name.clone()).collect(),
        Some(name) => match wrapper.patterns.iter().find(|p| &p.name == name) {
            Some(p) if p.is_record() => {
                // The record's fields, then the page's (as `job::shape` puts them).
                let own: Vec<String> = p.patterns.iter().map(|c| c.name.clone()).collect();
                let page = wrapper.patterns.iter().filter(|q| &q.name != name);
                let page: Vec<String> = page
                    .map(|q| job::page_field_key(&q.name, |k| own.iter().any(|o| o == k)))
                    .collect();
                own.into_iter().chain(page).collect()
            }
            _ => {
                say!(
                    "error: --flatten {name}: the wrapper has no top-level record pattern of that name"
                );
                return Ok(ExitCode::from(EXIT_BAD_INPUT));
            }
        },
    };
    let sources = match fetch::expand(&args.pages) {
        Ok(s) if s.is_empty() => {
            say!("error: no pages found in {}", args.pages.join(" "));
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
        Ok(s) => s,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    };

    if let Some(out) = &args.out
        && let Some(input) = clobbered_input(out, &args.wrapper, &sources)
    {
        say!(
            "error: --out {} is {input}: writing the output there would destroy it",
            out.display()
        );
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    }
    let sink: Box<dyn Write + Send> = match &args.out {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        ),
        None => Box::new(super::stdout::Stdout::new()),
    };
    let mut writer = OutputWriter::new(BufWriter::new(sink), args.format, columns);
    let progress = progress_bar(sources.len());
    let options = RunOptions {
        flatten: args.flatten.clone(),
    };
    let mut write_error = None;
    let mode = args.heal.unwrap_or(wrapper.adapt.mode);
    let store_path = super::store_for(args.store.as_deref(), &args.wrapper);
    let mut healer = match Runtime::new(
        mode,
        wrapper,
        &args.wrapper,
        Session::at(store_path),
        options.clone(),
    ) {
        Ok(runtime) => runtime,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(if e.is_bad_input() {
                EXIT_BAD_INPUT
            } else {
                EXIT_FAILURE
            }));
        }
    };
    let mut emit = |page: job::PageOutput| {
        if let Some(e) = &page.error {
            progress.suspend(|| say!("error: {e}"));
        }
        progress.inc(1);
        if write_error.is_none()
            && let Err(e) = writer.write(page)
        {
            write_error = Some(e);
        }
    };
    let summary = match args.jobs {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .context("cannot start worker threads")?
            .install(|| job::run_pages_healing(&mut healer, &sources, &options, &mut emit)),
        None => job::run_pages_healing(&mut healer, &sources, &options, &mut emit),
    };
    healer.finish();
    progress.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e).context("cannot write output");
    }
    writer.finish().context("cannot write output")?;

    if !args.quiet {
        say!(
            "mend: {} page{}, {} record{}, {} violation{} on {} page{}, {} failed",
            summary.pages,
            s(summary.pages),
            summary.records,
            s(summary.records),
            summary.violations,
            s(summary.violations),
            summary.violated_pages,
            s(summary.violated_pages),
            summary.failed_pages
        );
    }
    if let Some(e) = healer.failure() {
        say!("error: {e}");
    }
    Ok(ExitCode::from(
        if summary.failed_pages > 0 || healer.failure().is_some() {
            EXIT_FAILURE
        } else if summary.violations > 0 {
            EXIT_VIOLATED
        } else {
            0
        },
    ))
}

/// What `out` would overwrite among the run's inputs (the wrapper file or
/// a page file), in words; the same file under another name counts too.
fn clobbered_input(
    out: &std::path::Path,
    wrapper: &std::path::Path,
    sources: &[fetch::PageSource],
) -> Option<String> {
    let out = std::fs::canonicalize(out).ok()?;
    let same = |p: &std::path::Path| std::fs::canonicalize(p).is_ok_and(|c| c == out);
    if same(wrapper) {
        return Some("the wrapper file".to_owned());
    }
    sources.iter().find_map(|source| match source {
        fetch::PageSource::File(page) if same(page) => Some(format!("the page {}", page.display())),
        _ => None,
    })
}

fn s(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A progress bar on standard error when more than a few pages run and a
/// person is watching; hidden otherwise.
fn progress_bar(pages: usize) -> ProgressBar {
    if pages <= 3 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(pages as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} pages  {per_sec}  eta {eta}")
    {
        bar.set_style(style);
    }
    bar
}
