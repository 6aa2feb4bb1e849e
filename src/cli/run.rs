//! `mend run WRAPPER PAGE...`: extract records from pages.
//!
//! ## What it refuses
//!
//! It exits 2 before any page is read for a wrapper that is invalid or
//! missing, a `--flatten` that names no top-level record pattern, page
//! arguments that name nothing that exists or no HTML page, and an `--out`
//! that is the wrapper file or a page file under any name; a store that is
//! not a mend store is exit 2 too. A page that fails, a store or healer
//! failure, or a `--summary-json` that cannot be written is exit 3;
//! violations, waiting proposals and health drops are exit 1.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_VIOLATED, load_wrapper};
use mend::fetch;
use mend::job::{self, Healer as _, HealthObserver, OutputFormat, OutputWriter, RunOptions};
use mend::runtime::{RunHealth, Runtime, RuntimeError, Session, judge_runtime_health};
use mend::store::StoreError;
use mend::wrapper::{HealMode, Wrapper};

/// Runs a wrapper over pages and prints one JSON object per page.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The wrapper file (YAML).
    pub wrapper: PathBuf,
    /// Pages: files, directories (read recursively for *.html and *.htm, gzipped too),
    /// `-` for standard input, http(s) URLs, or files named .ndjson or .jsonl of one page a
    /// line, {"html": "...", "url": "..."}.
    #[arg(required = true)]
    pub pages: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RunFormat::Ndjson)]
    pub format: RunFormat,
    /// Write records to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Emit one record per instance of this top-level record pattern, each
    /// with the page's other top-level fields after its own (as `page.NAME`
    /// where the record has a field of that name).
    #[arg(long, value_name = "NAME")]
    pub flatten: Option<String>,
    /// Worker threads (default: one per core, but no more than the memory
    /// available holds pages of the largest size given at their peak, about
    /// ten times their size).
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
    /// Also write the run's summary to this file, as one JSON object.
    #[arg(long, value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// The URL saved pages came from: relative links (and `type: url`
    /// fields) resolve against it. Pages fetched from a URL keep their own.
    #[arg(long, value_name = "URL")]
    pub url: Option<url::Url>,
    /// Decode every page with this charset (utf-8, windows-1252,
    /// shift_jis, ...), whatever it declares: for a page saved in another
    /// charset than its <meta> says.
    #[arg(long, value_name = "LABEL", value_parser = encoding_label)]
    pub encoding: Option<String>,
    /// POST a JSON notice to URL when the run leaves something for a person
    /// (violations, proposals, health drops); overrides `adapt.notify`.
    #[arg(long, value_name = "URL", value_parser = http_url)]
    pub notify: Option<String>,
}

/// An http(s) URL, as text.
fn http_url(text: &str) -> Result<String, String> {
    match url::Url::parse(text) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(text.to_owned()),
        _ => Err(format!("{text:?} is not an http(s) URL")),
    }
}

/// The output formats of `mend run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RunFormat {
    /// One JSON object per page, one per line.
    Ndjson,
    /// With one page, exactly that page's object; with several, an array.
    Json,
    /// One row per record, then what went wrong on the page.
    Csv,
    /// An SQLite file (`--out` is required): the tables `mend crawl
    /// --format sqlite` writes, a table per top-level record pattern and
    /// `pages`; a file that exists gains the run's rows.
    Sqlite,
}

impl RunFormat {
    /// The text format this is, or none for SQLite.
    fn text(self) -> Option<OutputFormat> {
        match self {
            RunFormat::Ndjson => Some(OutputFormat::Ndjson),
            RunFormat::Json => Some(OutputFormat::Json),
            RunFormat::Csv => Some(OutputFormat::Csv),
            RunFormat::Sqlite => None,
        }
    }
}

/// Where a run's pages go: text in one of the text formats, or SQLite.
enum RunOutput {
    Text(OutputWriter<BufWriter<Box<dyn Write + Send>>>),
    Sqlite(mend::crawl::Sink),
}

impl RunOutput {
    fn write(&mut self, page: job::PageOutput) -> anyhow::Result<()> {
        match self {
            RunOutput::Text(writer) => Ok(writer.write(page)?),
            RunOutput::Sqlite(sink) => Ok(sink.write(page, mend::runtime::now().unix_millis())?),
        }
    }

    fn finish(self) -> anyhow::Result<()> {
        match self {
            RunOutput::Text(writer) => writer.finish().map(drop).map_err(Into::into),
            RunOutput::Sqlite(mut sink) => sink.commit().map(drop).map_err(Into::into),
        }
    }
}

/// An encoding label the WHATWG Encoding Standard knows, as its canonical
/// name.
fn encoding_label(label: &str) -> Result<String, String> {
    encoding_rs::Encoding::for_label(label.trim().as_bytes())
        .map(|e| e.name().to_owned())
        .ok_or_else(|| format!("{label:?} is not a charset (try utf-8, windows-1252, iso-8859-2, shift_jis, gb18030)"))
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
    let prepared = columns(&wrapper, args.flatten.as_deref())
        .and_then(|columns| Ok((columns, page_sources(&args)?)));
    let (columns, sources) = match prepared {
        Ok(prepared) => prepared,
        Err(code) => return Ok(code),
    };
    let mut writer = match open_output(&args, &wrapper, &sources, columns)? {
        Ok(writer) => writer,
        Err(code) => return Ok(code),
    };
    let progress = progress_bar(sources.len());
    let options = RunOptions {
        flatten: args.flatten.clone(),
        base_url: args.url.clone(),
        encoding: args.encoding.clone(),
    };
    let mut write_error = None;
    let notify_url = args.notify.clone().or_else(|| wrapper.adapt.notify.clone());
    let started = mend::runtime::now();
    let mut health = HealthObserver::new(&wrapper, &options);
    let mode = args.heal.unwrap_or(wrapper.adapt.mode);
    let store_path = super::store_for(args.store.as_deref(), &args.wrapper);
    let session = Session::at(store_path);
    let mut healer = match Runtime::new(mode, wrapper, &args.wrapper, session, options.clone()) {
        Ok(runtime) => runtime,
        Err(e) => return Ok(super::runtime_failure(&e, "")),
    };
    let mut emit = |page: job::PageOutput| {
        if let Some(e) = &page.error {
            progress.suspend(|| say!("error: {e}"));
        }
        progress.inc(1);
        health.observe(&page);
        if write_error.is_none()
            && let Err(e) = writer.write(page)
        {
            write_error = Some(e);
        }
    };
    let workers = args.jobs.unwrap_or_else(|| workers_for(&sources));
    let summary = rayon::ThreadPoolBuilder::new()
        .num_threads(workers.max(1))
        .build()
        .context("cannot start worker threads")?
        .install(|| healer.run(&sources, &mut emit));
    progress.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e).context("cannot write output");
    }
    writer.finish().context("cannot write output")?;
    let judged = judge_runtime_health(&healer, &summary, &health, started);
    Ok(conclude(&args, &healer, &summary, judged, notify_url))
}

/// The output's columns: the wrapper's top-level patterns, or with
/// `--flatten NAME` the record's fields and then the page's.
fn columns(wrapper: &Wrapper, flatten: Option<&str>) -> Result<Vec<String>, ExitCode> {
    let Some(name) = flatten else {
        return Ok(wrapper.patterns.iter().map(|p| p.name.clone()).collect());
    };
    match wrapper.patterns.iter().find(|p| p.name == name) {
        Some(p) if p.is_record() => {
            // The record's fields, then the page's (as `job::shape` puts them).
            let own: Vec<String> = p.patterns.iter().map(|c| c.name.clone()).collect();
            let page = wrapper.patterns.iter().filter(|q| q.name != name);
            let page: Vec<String> = page
                .map(|q| job::page_field_key(&q.name, |k| own.iter().any(|o| o == k)))
                .collect();
            Ok(own.into_iter().chain(page).collect())
        }
        _ => {
            say!(
                "error: --flatten {name}: the wrapper has no top-level record pattern of that name"
            );
            Err(ExitCode::from(EXIT_BAD_INPUT))
        }
    }
}

/// The pages the arguments name: files, folders, globs, URLs, `-`.
fn page_sources(args: &RunArgs) -> Result<Vec<fetch::PageSource>, ExitCode> {
    match fetch::expand(&args.pages) {
        Ok(s) if s.is_empty() => {
            say!("error: no pages found in {}", args.pages.join(" "));
            Err(ExitCode::from(EXIT_BAD_INPUT))
        }
        Ok(s) => Ok(s),
        Err(e) => {
            say!("error: {e}");
            Err(ExitCode::from(EXIT_BAD_INPUT))
        }
    }
}

/// The output the records go to, refusing an `--out` that is one of the
/// run's inputs and SQLite without a file.
fn open_output(
    args: &RunArgs,
    wrapper: &Wrapper,
    sources: &[fetch::PageSource],
    columns: Vec<String>,
) -> anyhow::Result<Result<RunOutput, ExitCode>> {
    if let Some(out) = &args.out
        && let Some(input) = clobbered_input(out, &args.wrapper, sources)
    {
        say!(
            "error: --out {} is {input}: writing the output there would destroy it",
            out.display()
        );
        return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
    }
    Ok(Ok(match (args.format.text(), &args.out) {
        (None, None) => {
            say!("error: --format sqlite needs --out FILE");
            return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
        }
        (None, Some(path)) => RunOutput::Sqlite(
            mend::crawl::Sink::open(Some(path), mend::crawl::SinkFormat::Sqlite, wrapper, None)
                .context("cannot open the output")?,
        ),
        (Some(text_format), Some(path)) => {
            let file: Box<dyn Write + Send> = Box::new(
                std::fs::File::create(path)
                    .with_context(|| format!("cannot write {}", path.display()))?,
            );
            RunOutput::Text(OutputWriter::new(
                BufWriter::new(file),
                text_format,
                columns,
            ))
        }
        (Some(text_format), None) => {
            let out: Box<dyn Write + Send> = Box::new(super::stdout::Stdout::new());
            RunOutput::Text(OutputWriter::new(BufWriter::new(out), text_format, columns))
        }
    }))
}

/// Reports a run that ended (its field health, its summary line, the
/// runtime's failure), sends its notice and writes `--summary-json`; the
/// exit code.
fn conclude(
    args: &RunArgs,
    healer: &Runtime,
    summary: &job::Summary,
    judged: Result<Option<RunHealth>, StoreError>,
    notify_url: Option<String>,
) -> ExitCode {
    let store = healer
        .session()
        .is_open()
        .then(|| healer.session().path().map(|p| p.display().to_string()))
        .flatten();
    let store_tag = healer.session().tag().map(|t| t.to_string());
    let drops = match &judged {
        Ok(Some(run_health)) => report_health(run_health, healer.wrapper(), args.quiet),
        Ok(None) => 0,
        Err(e) => {
            say!("error: cannot record the run's field health: {e}");
            0
        }
    };
    // A store file that is not a mend store is bad input here as in every
    // command that reads the store; other failures are failures.
    let not_a_store = healer.failure().is_some_and(RuntimeError::is_bad_input)
        || judged
            .as_ref()
            .err()
            .is_some_and(StoreError::is_not_a_store);
    let code = if not_a_store {
        EXIT_BAD_INPUT
    } else if summary.failed_pages > 0 || healer.failure().is_some() || judged.is_err() {
        EXIT_FAILURE
    } else if summary.violations > 0 || summary.heals.proposed > 0 || drops > 0 {
        EXIT_VIOLATED
    } else {
        0
    };
    if !args.quiet {
        say!(
            "{}",
            summary_line(summary, drops, store.as_deref(), store_tag.as_deref())
        );
    }
    if let Some(e) = healer.failure() {
        say!("error: {e}");
    }
    if let Some(url) = &notify_url {
        let notice = fetch::Notice {
            source: "mend run".to_owned(),
            wrapper: healer.wrapper().name.clone(),
            wrapper_file: args.wrapper.display().to_string(),
            pages: summary.pages,
            violations: summary.violations,
            violated_pages: summary.violated_pages,
            proposals: summary.heals.proposed,
            applied: summary.heals.applied,
            health_drops: drops,
            proposal_ids: healer.proposal_ids(),
            store: store.clone(),
        };
        // A notice that cannot be delivered is said; the run's exit code
        // stays what the pages made it.
        if notice.is_due()
            && let Err(e) = fetch::notify(url, &notice)
        {
            say!("error: {e}");
        }
    }
    if let Some(path) = &args.summary_json {
        let json = serde_json::json!({
            "summary": summary,
            "health_drops": drops,
            "store": store,
            "store_tag": store_tag,
            "exit_code": code,
        });
        let written = serde_json::to_vec_pretty(&json)
            .map_err(std::io::Error::other)
            .and_then(|bytes| std::fs::write(path, bytes));
        if let Err(e) = written {
            say!("error: cannot write the summary to {}: {e}", path.display());
            return ExitCode::from(EXIT_FAILURE);
        }
    }
    ExitCode::from(code)
}

/// The one line a run ends with: what it read and wrote, what broke, what
/// the heals came to, the fields below their health limits, and the store
/// they are in.
fn summary_line(
    summary: &job::Summary,
    health_drops: usize,
    store: Option<&str>,
    tag: Option<&str>,
) -> String {
    let n = |count: usize, what: &str| format!("{count} {what}{}", s(count));
    let mut line = format!(
        "mend: {}, {}, {} on {}, {} failed",
        n(summary.pages, "page"),
        n(summary.records, "record"),
        n(summary.violations, "violation"),
        n(summary.violated_pages, "page"),
        summary.failed_pages
    );
    if summary.drifted_pages > 0 {
        line += &format!("; drift on {}", n(summary.drifted_pages, "page"));
    }
    if summary.fallback_pages > 0 {
        line += &format!(
            "; {} served by history XPaths",
            n(summary.fallback_pages, "page")
        );
    }
    let h = summary.heals;
    if h != job::HealCounts::default() {
        line += &format!(
            "; heals: {} applied, {} proposed, {} abstained",
            h.applied, h.proposed, h.abstained
        );
        if h.rejected > 0 {
            line += &format!(", {} refused as rejected before", h.rejected);
        }
        if h.reused > 0 {
            line += &format!(", reused on {} more", n(h.reused, "page"));
        }
    }
    if health_drops > 0 {
        line += &format!(
            "; {} below its health limits",
            n(health_drops, "field measure")
        );
    }
    if let Some(store) = store {
        line += &format!("; store {store}");
        if let Some(tag) = tag {
            line += &format!(" (tag {tag})");
        }
    }
    line
}

/// Prints each health drop (always: it is what the exit code is about) and,
/// unless quiet, the health summary; gives the number of drops.
fn report_health(health: &RunHealth, wrapper: &mend::wrapper::Wrapper, quiet: bool) -> usize {
    let judgement = &health.judgement;
    for drop in &judgement.drops {
        say!("health: {drop}");
    }
    if !quiet {
        let against = match health.baselines.split_first() {
            None => "no baseline yet".to_owned(),
            Some((first, rest)) => {
                let mut against = format!("{} against a baseline ({first}", judgement.compared);
                if !rest.is_empty() {
                    against.push_str(&format!(", or {} earlier run{}", rest.len(), s(rest.len())));
                }
                against.push(')');
                against
            }
        };
        let below = judgement.patterns_below();
        let mut line = format!(
            "mend: health: {} pattern{} judged, {against}; {below} below {} limits",
            judgement.judged,
            s(judgement.judged),
            if below == 1 { "its" } else { "their" },
        );
        if judgement.too_few > 0 {
            line.push_str(&format!(
                ", {} with fewer than {} items to judge",
                judgement.too_few,
                wrapper.monitor().min_items
            ));
        }
        say!("{line}");
    }
    judgement.drops.len()
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

/// The worker count when `--jobs` is not given ([`job::default_workers`]):
/// the cores, the largest local page given (a URL's or standard input's
/// size is not known before it is read, and counts as nothing), and the
/// memory available as Linux reports it.
fn workers_for(sources: &[fetch::PageSource]) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let largest = sources
        .iter()
        .filter_map(|s| match s {
            fetch::PageSource::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    job::default_workers(cores, largest, available_memory())
}

/// `MemAvailable` of `/proc/meminfo`, in bytes; `None` elsewhere.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}
