//! `mend crawl WRAPPER URL...`: crawl a site with the wrapper's `crawl`
//! block and write the records of its item pages.
//!
//! The crawl runs on a tokio runtime; pages are rendered in headless
//! Chromium only when the wrapper or `--render` asks. The frontier lives in
//! `crawl.db` beside the store, so `--resume` after a kill goes on where the
//! crawl stopped. Exit codes are `mend run`'s: 1 when item pages had
//! violations or heals wait for a person, 3 when pages could not be fetched
//! (a host that is down, a robots.txt that cannot be read, a response that
//! is not HTML). Ctrl-C stops taking new URLs, finishes the pages in
//! flight, prints the summary and exits 130, leaving the crawl to
//! `--resume`; a second Ctrl-C exits at once. The summary lists the first
//! failed URLs and warns of a budget hit (`max_pages` is 100,000 and
//! `max_depth` 1,000 unless the wrapper or the command line says), of no item
//! page, and of `follow` XPaths that found no link.
//!
//! ## What it refuses
//!
//! It exits 2 for a wrapper that is invalid or missing, an `--out` file that
//! exists (without `--force` or `--resume`), a start URL that is not http(s), a `--since` that is neither RFC 3339 nor a date, and
//! `--format sqlite` without `--out`; crawling locally, also for no start
//! URL at all, `--resume` without `--out`, and a browser that cannot be
//! launched when pages are to be rendered. `--detach` without `--backend`
//! is clap's refusal. Any other failure is exit 3, and so is a
//! `--summary-json` that cannot be written once the crawl is done.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use url::Url;

use mend::crawl::{self, CrawlOptions, Frontier, SinkFormat};
use mend::wrapper::{HealMode, RenderMode};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_VIOLATED, load_wrapper};

mod backend;

/// Arguments of `mend crawl`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The wrapper file (YAML), with its `crawl` block.
    pub wrapper: PathBuf,
    /// Start URLs (default: the wrapper's `start`).
    pub urls: Vec<String>,
    /// UpdateCrawl: emit only item pages new or changed after this time
    /// (RFC 3339, `2026-11-01T00:00:00Z`, or a date, `2026-11-01`).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// The most pages fetched (over the wrapper's `max_pages`).
    #[arg(long, value_name = "N")]
    pub max_pages: Option<u64>,
    /// How many links from a start URL (over the wrapper's `max_depth`).
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
    /// Render pages in headless Chromium: never, always, or auto (only where
    /// the patterns fail on the raw HTML). Default: the wrapper's `render`.
    #[arg(long, value_parser = ["never", "auto", "always"])]
    pub render: Option<String>,
    /// Write records to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SinkFormat::Ndjson)]
    pub format: SinkFormat,
    /// Go on with the unfinished crawl of this wrapper and output.
    #[arg(long)]
    pub resume: bool,
    /// Overwrite an output file that exists (without it, and without
    /// --resume, such a file is refused).
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// What to do when an item page breaks (default: off; propose and auto
    /// heal once per batch of item pages, as `mend run` does once per run).
    #[arg(long, value_parser = super::names(HealMode::ALL, HealMode::as_str, heal_help))]
    pub heal: Option<HealMode>,
    /// The store (default: $MEND_STORE, else `.mend/mend.db` beside the
    /// wrapper); the frontier is `crawl.db` beside it.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Requests in flight at once, all hosts together (each host also
    /// keeps to the wrapper's `politeness.concurrency`).
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// Item pages extracted together.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    /// Also write the crawl's summary to this file, as one JSON object.
    #[arg(long, value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// Print no summary on standard error.
    #[arg(long, short)]
    pub quiet: bool,
    /// Run the crawl as a job in this PostgreSQL database
    /// (postgres://USER@HOST:PORT/DB), which `mend worker` processes also
    /// work on; without it, the frontier is the local `crawl.db`.
    #[arg(long, value_name = "URL", group = "backend_source")]
    pub backend: Option<String>,
    /// As --backend, the connection string read from the first line of
    /// this file (mode 600), so that its password is not on the command
    /// line.
    #[arg(long, value_name = "FILE", group = "backend_source")]
    pub backend_file: Option<PathBuf>,
    /// With --backend: submit the job, print its id and leave it to the
    /// workers.
    #[arg(long, requires = "backend_source")]
    pub detach: bool,
    /// With --backend: go on with this job (its id, as --detach prints
    /// it), rather than the newest of this wrapper, output and start URLs.
    #[arg(
        long,
        value_name = "ID",
        requires = "backend_source",
        conflicts_with = "detach"
    )]
    pub job: Option<i64>,
}

fn heal_help(mode: HealMode) -> &'static str {
    match mode {
        HealMode::Off => "Only report violations",
        HealMode::Propose => "Heal, mark healed records, store the proposals",
        HealMode::Auto => "Heal and rewrite the wrapper file in place",
    }
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wrapper = match load_wrapper(&args.wrapper) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    let seeds = match seeds(&args.urls) {
        Ok(seeds) => seeds,
        Err(code) => return Ok(code),
    };
    match crate::cli::backend_file::backend_url(
        args.backend.as_deref(),
        args.backend_file.as_deref(),
    ) {
        Ok(Some(backend)) => return backend::run(&args, wrapper, seeds, &backend),
        Ok(None) => {}
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let options = match options(&args, seeds, stop.clone()) {
        Ok(options) => options,
        Err(code) => return Ok(code),
    };
    let mode = options.render.unwrap_or(wrapper.crawl.render);
    let runtime = super::runtime()?;
    let bar = progress_bar(args.quiet);
    let outcome = runtime.block_on(async {
        let interrupts = tokio::spawn(stop_on_interrupt(stop));
        let renderer = match mode {
            RenderMode::Never => None,
            _ => match crawl::launch_browser(&wrapper).await {
                Ok(r) => Some(r),
                Err(e) => {
                    say!("error: {e}");
                    return Err(ExitCode::from(EXIT_BAD_INPUT));
                }
            },
        };
        let result = crawl::crawl(wrapper, options, renderer, |p| {
            bar.set_message(format!(
                "{} pages, {} queued, {} items, {} errors, {} heals, {:.1} pages/s",
                p.fetched,
                p.queued,
                p.items,
                p.errors,
                p.heals,
                p.fetched as f64 / p.elapsed.as_secs_f64().max(1e-3)
            ));
            bar.tick();
        })
        .await;
        interrupts.abort();
        Ok(result)
    });
    bar.finish_and_clear();
    let summary = match outcome {
        Err(code) => return Ok(code),
        Ok(Err(e)) => {
            say!("error: {e}");
            return Ok(ExitCode::from(match e {
                crawl::CrawlError::NoSeeds
                | crawl::CrawlError::Sink(
                    crawl::SinkError::ResumeStdout | crawl::SinkError::SqliteStdout,
                ) => EXIT_BAD_INPUT,
                _ => EXIT_FAILURE,
            }));
        }
        Ok(Ok(summary)) => summary,
    };
    report(&args, &summary)
}

/// The start URLs given, each an http(s) URL.
fn seeds(urls: &[String]) -> Result<Vec<Url>, ExitCode> {
    urls.iter()
        .map(|u| match Url::parse(u) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(url),
            _ => {
                say!("error: {u:?} is not an http(s) URL");
                Err(ExitCode::from(EXIT_BAD_INPUT))
            }
        })
        .collect()
}

/// What the local crawl is asked to do, refusing a `--since` that is no
/// time and an output that would be overwritten without `--force`.
fn options(args: &Args, seeds: Vec<Url>, stop: Arc<AtomicBool>) -> Result<CrawlOptions, ExitCode> {
    let since = match args.since.as_deref().map(parse_time).transpose() {
        Ok(t) => t,
        Err(e) => {
            say!("error: --since {e}");
            return Err(ExitCode::from(EXIT_BAD_INPUT));
        }
    };
    if let Some(out) = args.out.as_deref().filter(|_| !args.resume && !args.force)
        && std::fs::metadata(out).is_ok_and(|m| m.len() > 0)
    {
        say!(
            "error: {} exists: give --force to overwrite it, or --resume to go on with the crawl that writes it",
            out.display()
        );
        return Err(ExitCode::from(EXIT_BAD_INPUT));
    }
    let store = super::store_for(args.store.as_deref(), &args.wrapper);
    Ok(CrawlOptions {
        seeds,
        since,
        max_pages: args.max_pages,
        max_depth: args.depth,
        render: args
            .render
            .as_deref()
            .and_then(|r| r.parse::<RenderMode>().ok()),
        heal: args.heal.unwrap_or(HealMode::Off),
        wrapper_path: args.wrapper.clone(),
        frontier: Frontier::path_beside(&store),
        store,
        output: args.out.clone(),
        format: args.format,
        resume: args.resume,
        batch: args.batch,
        concurrency: args.concurrency,
        stop: Some(stop),
    })
}

/// Prints what a crawl came to and writes `--summary-json`; the exit code.
fn report(args: &Args, summary: &crawl::CrawlSummary) -> anyhow::Result<ExitCode> {
    let code = if summary.interrupted {
        EXIT_INTERRUPTED
    } else if summary.errors > 0 {
        EXIT_FAILURE
    } else if summary.violations > 0 || summary.heals.proposed > 0 {
        EXIT_VIOLATED
    } else {
        0
    };
    if summary.finished_before && !args.quiet {
        say!(
            "mend: the crawl writing to {} had finished ({} pages); nothing to resume. Run without --resume to crawl again.",
            args.out
                .as_ref()
                .map_or_else(|| "-".to_owned(), |p| p.display().to_string()),
            summary.fetched_total
        );
    } else if !args.quiet {
        say!("mend: {}", summary_line(summary));
        print_failures(&summary.failures, args.summary_json.is_some());
        for warning in &summary.warnings {
            say!("warning: {warning}");
        }
    }
    if let Some(path) = &args.summary_json {
        let json = serde_json::json!({"summary": summary, "exit_code": code});
        std::fs::write(path, serde_json::to_vec_pretty(&json)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::from(code))
}

/// What a crawl read and wrote, in one line.
fn summary_line(summary: &crawl::CrawlSummary) -> String {
    let also = |n: u64, what: &str| {
        if n > 0 {
            format!(", {n} {what}")
        } else {
            String::new()
        }
    };
    format!(
        "crawled {} pages ({} in all{}), {} items, {} records, {} violations on {} pages, {} errors, {} forbidden by robots.txt{}{}; items: {}; {:.1} pages/s",
        summary.fetched,
        summary.fetched_total,
        if summary.resumed { ", resumed" } else { "" },
        summary.items,
        summary.records,
        summary.violations,
        summary.violated_pages,
        summary.errors,
        summary.robots_skipped,
        also(summary.unchanged, "unchanged"),
        also(summary.rendered, "rendered"),
        summary.items_rule,
        summary.pages_per_second,
    )
}

/// The exit code of a crawl stopped by Ctrl-C: 128 + SIGINT, as shells
/// report a process the signal ended.
const EXIT_INTERRUPTED: u8 = 130;

/// How many failed URLs are listed on standard error.
const FAILURES_LISTED: usize = 10;

/// Lists the first failed URLs with why they failed, then how many more.
fn print_failures(failures: &[(String, String)], in_json: bool) {
    for (url, why) in failures.iter().take(FAILURES_LISTED) {
        say!("  failed: {url}: {why}");
    }
    if failures.len() > FAILURES_LISTED {
        say!(
            "  ... and {} more failed URLs{}",
            failures.len() - FAILURES_LISTED,
            if in_json {
                " (all in --summary-json)"
            } else {
                "; --summary-json lists them all"
            }
        );
    }
}

/// The first Ctrl-C stops the crawl taking new URLs: the pages in flight
/// are finished and written, and the crawl stays resumable. A second one
/// exits at once, which loses nothing either: every write is a transaction.
async fn stop_on_interrupt(stop: Arc<AtomicBool>) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    stop.store(true, Ordering::SeqCst);
    say!(
        "mend: stopping: the pages in flight are finished and written; press Ctrl-C again to quit at once"
    );
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(i32::from(EXIT_INTERRUPTED));
    }
}

/// `--since`: RFC 3339, or a date (midnight UTC), as Unix milliseconds.
pub(super) fn parse_time(text: &str) -> Result<i64, String> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(t.timestamp_millis());
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_millis())
        .ok_or_else(|| format!("{text:?}: expected a time such as 2026-11-01T00:00:00Z or a date such as 2026-11-01"))
}

fn progress_bar(quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {msg}") {
        bar.set_style(style);
    }
    bar
}
