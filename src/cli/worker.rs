//! `mend worker --backend postgres://…`: a stateless crawl worker, and
//! `mend status --backend …`: a job's progress.
//!
//! ## What it refuses
//!
//! `mend worker` exits 2 for a `--lease` or `--patience` that is not a
//! positive finite number of seconds (more than a day counts as a day), and
//! both commands exit 2 for a `--backend` that is not a PostgreSQL
//! connection string or a `--job` the backend does not hold (for `mend
//! status`, also a backend with no job at all); any other backend failure
//! is exit 3. A `--concurrency` of 0 is taken as 1, and `--job` implies
//! `--until-done`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use mend::cluster::{self, WorkerOptions};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};

/// Arguments of `mend worker`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The PostgreSQL database of the jobs (postgres://USER@HOST:PORT/DB).
    #[arg(long, value_name = "URL", required_unless_present = "backend_file")]
    pub backend: Option<String>,
    /// A file (mode 600) whose first line is the connection string, so
    /// that its password is not on the command line.
    #[arg(long, value_name = "FILE", conflicts_with = "backend")]
    pub backend_file: Option<PathBuf>,
    /// Work on this job only (default: open jobs, oldest first).
    #[arg(long, value_name = "ID")]
    pub job: Option<i64>,
    /// Pages in flight at once in this worker (each host also keeps to
    /// the wrapper's `politeness`, across all workers).
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Seconds a lease lasts without renewal: how soon a dead worker's
    /// pages go to the others.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub lease: f64,
    /// Stop when no job is open, instead of waiting for the next one.
    #[arg(long)]
    pub until_done: bool,
    /// Seconds to keep trying to reach the database, at start and after
    /// it restarts.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub patience: f64,
    /// The worker's name in `mend status` (default: host, process, random).
    #[arg(long)]
    pub name: Option<String>,
    /// Print no summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Arguments of `mend status`.
#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// The PostgreSQL database of the jobs.
    #[arg(long, value_name = "URL", required_unless_present = "backend_file")]
    pub backend: Option<String>,
    /// A file (mode 600) whose first line is the connection string.
    #[arg(long, value_name = "FILE", conflicts_with = "backend")]
    pub backend_file: Option<PathBuf>,
    /// The job (default: the newest).
    #[arg(long, value_name = "ID")]
    pub job: Option<i64>,
    /// Print the status as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print the job's wrapper as it stands now (after any heal a worker
    /// applied), instead of the status.
    #[arg(long, conflicts_with = "json")]
    pub wrapper: bool,
    /// List the heals the job's pages tried, with the entries of the
    /// user's store the output cites once the job was brought home.
    #[arg(long, conflicts_with = "wrapper")]
    pub adaptations: bool,
}

/// The connection string from `--backend` or `--backend-file`, or `None`
/// after saying why there is none.
fn resolve(backend: Option<&str>, file: Option<&Path>) -> Option<String> {
    match super::backend_file::backend_url(backend, file) {
        Ok(Some(url)) => Some(url),
        Ok(None) => {
            say!("error: give --backend URL or --backend-file FILE");
            None
        }
        Err(e) => {
            say!("error: {e}");
            None
        }
    }
}

/// Seconds from the command line as a duration; `None` when not a
/// positive finite number.
pub fn seconds(value: f64) -> Option<Duration> {
    (value.is_finite() && value > 0.0).then(|| Duration::from_secs_f64(value.min(86_400.0)))
}

/// Runs `mend worker`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (Some(lease), Some(patience)) = (seconds(args.lease), seconds(args.patience)) else {
        say!("error: --lease and --patience take a number of seconds above 0");
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    };
    let Some(backend) = resolve(args.backend.as_deref(), args.backend_file.as_deref()) else {
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    };
    let options = WorkerOptions {
        backend,
        job: args.job,
        concurrency: args.concurrency.max(1),
        lease,
        until_done: args.until_done || args.job.is_some(),
        patience,
        name: args.name,
        renderer: Some(cluster::LaunchRenderer::chromium()),
    };
    let runtime = super::runtime()?;
    match runtime.block_on(cluster::work(options)) {
        Ok(summary) => {
            if !args.quiet {
                say!(
                    "mend worker {}: {} pages, {} items, {} errors, {} lost to other workers, {} reconnects, {} heals published; jobs {:?}",
                    summary.worker,
                    summary.pages,
                    summary.items,
                    summary.errors,
                    summary.lost,
                    summary.reconnects,
                    summary.published,
                    summary.jobs
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            say!("error: {e}");
            Ok(ExitCode::from(match e {
                cluster::BackendError::Url { .. }
                | cluster::BackendError::NoJob(_)
                | cluster::BackendError::NoSchema => EXIT_BAD_INPUT,
                _ => EXIT_FAILURE,
            }))
        }
    }
}

/// Runs `mend status`.
pub fn status(args: StatusArgs) -> anyhow::Result<ExitCode> {
    let Some(backend) = resolve(args.backend.as_deref(), args.backend_file.as_deref()) else {
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    };
    let runtime = super::runtime()?;
    let result = runtime.block_on(async {
        // `connect`, not `open`: a status never migrates the database.
        let client = cluster::connect(&backend, Duration::from_secs(10)).await?;
        let status = cluster::status(&client, args.job).await?;
        let wrapper = match args.wrapper {
            true => Some(cluster::load(&client, status.job).await?.wrapper_yaml),
            false => None,
        };
        let heals = match args.adaptations {
            true => Some(cluster::heals(&client, status.job).await?),
            false => None,
        };
        Ok::<_, cluster::BackendError>((status, wrapper, heals))
    });
    let status = match result {
        Ok((_, Some(wrapper), _)) => {
            print(&wrapper);
            return Ok(ExitCode::SUCCESS);
        }
        Ok((s, None, Some(heals))) => {
            print_heals(&s, &heals, args.json)?;
            return Ok(ExitCode::SUCCESS);
        }
        Ok((s, None, None)) => s,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(match e {
                cluster::BackendError::Url { .. }
                | cluster::BackendError::NoJob(_)
                | cluster::BackendError::NoSchema => EXIT_BAD_INPUT,
                _ => EXIT_FAILURE,
            }));
        }
    };
    if args.json {
        println_json(&status)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "job {} ({}), {}, {:.1} s, wrapper version {}",
        status.job,
        status.wrapper,
        if status.finished {
            "finished"
        } else {
            "running"
        },
        status.seconds,
        status.wrapper_version
    );
    let _ = writeln!(
        out,
        "queue: {} queued, {} leased, {} leases run out; {} done, {} failed, {} skipped; {:.1} pages/s",
        status.queued,
        status.leased,
        status.expired,
        status.done,
        status.failed,
        status.skipped,
        status.pages_per_second
    );
    let _ = writeln!(
        out,
        "output: {} item pages, {} records, {} violations, {} heals",
        status.items, status.records, status.violations, status.heals
    );
    let _ = writeln!(
        out,
        "{:<32} {:>7} {:>7} {:>7} {:>6} {:>5} {:>8} {:>8}",
        "WORKER", "PAGES", "ITEMS", "ERRORS", "HEALS", "LOST", "PAGES/S", "IDLE S"
    );
    for w in &status.workers {
        let _ = writeln!(
            out,
            "{:<32} {:>7} {:>7} {:>7} {:>6} {:>5} {:>8.1} {:>8.1}",
            w.id, w.pages, w.items, w.errors, w.heals, w.lost, w.pages_per_second, w.idle_seconds
        );
    }
    print(&out);
    Ok(ExitCode::SUCCESS)
}

/// Prints a job's heals, one line each, or as a JSON array.
fn print_heals(
    status: &cluster::JobStatus,
    heals: &cluster::JobHeals,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        return println_json(heals);
    }
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "job {} ({}): {} heals tried; {}",
        status.job,
        status.wrapper,
        heals.heals.len(),
        match heals.brought_home {
            true => "brought home: the output cites the entries named",
            false =>
                "not brought home yet (the command that submitted the job does it when the job ends)",
        }
    );
    for h in &heals.heals {
        let found = h.new_xpath.as_deref().unwrap_or("(abstained)");
        let entry = match (&h.entry, &h.entry_status) {
            (Some(entry), Some(s)) => format!("{entry} {s}"),
            _ if heals.brought_home => "no entry at home (its pages were not kept)".to_owned(),
            _ => "no entry yet".to_owned(),
        };
        let _ = writeln!(
            out,
            "v{} {}: {} -> {}; {} pages, {} workers{}; {entry}",
            h.version,
            h.pattern,
            h.old_xpath,
            found,
            h.pages,
            h.workers,
            if h.applied {
                ", applied by the job"
            } else {
                ""
            }
        );
    }
    print(&out);
    Ok(())
}

fn println_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    print(&text);
    Ok(())
}

fn print(text: &str) {
    use std::io::Write as _;
    let mut out = super::stdout::Stdout::new();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
