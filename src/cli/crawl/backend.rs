//! `mend crawl … --backend postgres://…`: the crawl as a job of the
//! PostgreSQL backend. The command submits the job (or, with `--resume`,
//! finds the newest one of this wrapper, output and start URLs; with
//! `--job ID`, that one, if it crawls with this wrapper), works on it as one
//! worker beside any `mend worker` processes, and when nothing is left
//! writes the job's records, in URL order, to `--out` or standard output.
//! With `--detach` it only submits, and prints the job's id.
//!
//! ## What it refuses
//!
//! `--format sqlite` without `--out`, a `--job` that the backend does not hold
//! or that crawls with another wrapper, and a `--since` that is not a time:
//! each before anything is submitted, with exit 2.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use url::Url;

use mend::cluster::{self, JobSpec, WorkerOptions};
use mend::crawl::{SinkFormat, start_urls};
use mend::wrapper::{HealMode, RenderMode, Wrapper};

use super::Args;
use crate::cli::{EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_VIOLATED};

/// How long the command keeps trying to reach the database.
const PATIENCE: Duration = Duration::from_secs(60);

/// How long a lease of the command's own worker lasts.
const LEASE: Duration = Duration::from_secs(10);

/// Runs the crawl on the backend.
pub fn run(
    args: &Args,
    wrapper: Wrapper,
    seeds: Vec<Url>,
    backend: &str,
) -> anyhow::Result<ExitCode> {
    if let Some(refusal) = refusal(args) {
        say!("error: {refusal}");
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    }
    if let Some(Err(e)) = args.since.as_deref().map(super::parse_time) {
        say!("error: --since {e}");
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    }
    let runtime = crate::cli::runtime()?;
    let outcome = runtime.block_on(crawl(args, wrapper, seeds, backend));
    match outcome {
        Ok(code) => Ok(code),
        Err(e) => {
            say!("error: {e:#}");
            Ok(ExitCode::from(EXIT_FAILURE))
        }
    }
}

/// The job's rendering mode: `--render`, else the wrapper's.
fn render_mode(args: &Args, wrapper: &Wrapper) -> RenderMode {
    args.render
        .as_deref()
        .and_then(|r| r.parse::<RenderMode>().ok())
        .unwrap_or(wrapper.crawl.render)
}

/// What the backend refuses, said before anything is submitted.
fn refusal(args: &Args) -> Option<String> {
    (args.format == SinkFormat::Sqlite && args.out.is_none())
        .then(|| "--format sqlite needs --out FILE".to_owned())
}

async fn crawl(
    args: &Args,
    wrapper: Wrapper,
    seeds: Vec<Url>,
    backend: &str,
) -> anyhow::Result<ExitCode> {
    let client = cluster::open(backend, PATIENCE).await?;
    // The output as an absolute path: `posts.ndjson` in two folders is two
    // outputs, and so two jobs.
    let output = args.out.as_ref().map_or_else(
        || "-".to_owned(),
        |p| {
            std::path::absolute(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string()
        },
    );
    let id = match job_to_work(args, client, wrapper, seeds, &output).await? {
        Ok(id) => id,
        Err(code) => return Ok(code),
    };
    if args.detach {
        let mut out = crate::cli::stdout::Stdout::new();
        let _ = writeln!(out, "{id}");
        return Ok(ExitCode::SUCCESS);
    }
    let worked = cluster::work(WorkerOptions {
        backend: backend.to_owned(),
        job: Some(id),
        concurrency: args.concurrency.max(1),
        lease: LEASE,
        until_done: true,
        patience: PATIENCE,
        name: None,
        renderer: Some(cluster::LaunchRenderer::chromium()),
    })
    .await?;
    let client = cluster::open(backend, PATIENCE).await?;
    let store_path = crate::cli::store_for(args.store.as_deref(), &args.wrapper);
    let mut stdout = crate::cli::stdout::Stdout::new();
    let media_dir = mend::crawl::media_dir(args.out.as_deref());
    let output = cluster::Output {
        path: args.out.as_deref(),
        format: args.format,
        stdout: &mut stdout,
        media_dir: &media_dir,
    };
    let cluster::JobEnd {
        home,
        exported,
        media,
        status,
    } = cluster::end_job(&client, id, &args.wrapper, &store_path, output).await?;
    if !args.quiet {
        say_home(args, id, &home);
        say!(
            "mend: job {id}: {} URLs read ({} by this process), {} items, {} records, {} violations, {} errors, {} skipped, {} heals, {} images, {} workers; {:.1} pages/s",
            status.done + status.failed + status.skipped,
            worked.pages,
            exported.items,
            exported.records,
            exported.violations,
            status.failed,
            status.skipped,
            status.heals,
            media,
            status.workers.len(),
            status.pages_per_second
        );
    }
    if let Some(path) = &args.summary_json {
        let proposals = home.proposals.as_ref().map(|(counts, _)| counts);
        let merged = home.merged.as_ref().map(|m| {
            serde_json::json!({
                "written": m.written.iter().map(|(p, old, new)| serde_json::json!({"pattern": p, "old_xpath": old, "new_xpath": new})).collect::<Vec<_>>(),
                "left": m.left.iter().map(|(p, why)| serde_json::json!({"pattern": p, "why": why})).collect::<Vec<_>>(),
            })
        });
        let json = serde_json::json!({"job": id, "status": status, "exported": exported, "media": media, "worker": worked, "wrapper_merged": merged, "proposals_stored": proposals});
        std::fs::write(path, serde_json::to_vec_pretty(&json)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::from(if status.failed > 0 {
        EXIT_FAILURE
    } else if exported.violations > 0 {
        EXIT_VIOLATED
    } else {
        0
    }))
}

/// The job to work on: the one `--job` names, the newest of this
/// wrapper, output and start URLs under `--resume`, or a new one submitted.
async fn job_to_work(
    args: &Args,
    mut client: tokio_postgres::Client,
    wrapper: Wrapper,
    seeds: Vec<Url>,
    output: &str,
) -> anyhow::Result<Result<i64, ExitCode>> {
    let resumed = match (args.job, args.resume) {
        (Some(id), _) => match cluster::find(&client, id).await? {
            Some((name, finished)) if name == wrapper.name => Some((id, finished)),
            Some((name, _)) => {
                say!(
                    "error: job {id} crawls with the wrapper {name:?}, not {:?}",
                    wrapper.name
                );
                return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
            }
            None => {
                say!("error: the backend holds no job {id}");
                return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
            }
        },
        (None, true) => {
            let start = start_urls(&wrapper, &seeds);
            cluster::newest(&client, &wrapper.name, output, &start).await?
        }
        (None, false) => None,
    };
    if let Some((id, true)) = resumed
        && !args.quiet
    {
        say!("mend: job {id} had finished; its records are written out again");
    }
    if resumed.is_none() && args.resume && !args.quiet {
        // The person asked to go on with a job; say that none was found
        // rather than start afresh without a word.
        say!(
            "mend: no job of the wrapper {:?} writing {output} from these start URLs to resume; a new job starts",
            wrapper.name
        );
    }
    let id = match resumed {
        Some((id, _)) => id,
        None => {
            let spec = spec(args, wrapper, seeds, output.to_owned()).await?;
            let id = cluster::submit(&mut client, &spec).await?;
            tracing::info!(job = id, "submitted");
            id
        }
    };
    Ok(Ok(id))
}

/// Says what bringing the job home did: the XPaths merged into the
/// wrapper file or left, and the heals stored for a person.
fn say_home(args: &Args, id: i64, home: &cluster::Homecoming) {
    let wrapper = args.wrapper.display();
    if let Some(merged) = &home.merged {
        for (pattern, old, new) in &merged.written {
            say!(
                "mend: {wrapper}: {pattern} healed by the job: {old} -> {new} (the old XPath is kept in its history)"
            );
        }
        for (pattern, why) in &merged.left {
            say!(
                "mend: {wrapper}: {pattern} left as it is: {why}; `mend status --backend ... --job {id} --wrapper` shows the job's"
            );
        }
    }
    if let Some((counts, kept)) = &home.proposals {
        say!(
            "mend: the job's heals, run again on the {kept} pages the workers kept: {} proposed, {} abstained; stored in {} (`mend log` lists them)",
            counts.proposed,
            counts.abstained,
            home.store.display()
        );
    }
    if !home.citations.0.is_empty() && !home.earlier {
        say!(
            "mend: the output cites {} entries of {} (`mend status --backend ... --job {id} --adaptations` lists them)",
            home.citations.0.len(),
            home.store.display()
        );
    }
}

/// The job: the wrapper with its healing state, the item rule and the
/// start hosts' robots.txt, read once here so that workers need not.
async fn spec(
    args: &Args,
    wrapper: Wrapper,
    seeds: Vec<Url>,
    output: String,
) -> anyhow::Result<JobSpec> {
    let request = cluster::JobRequest {
        wrapper_path: args.wrapper.clone(),
        render: render_mode(args, &wrapper),
        wrapper,
        seeds,
        output,
        store: crate::cli::store_for(args.store.as_deref(), &args.wrapper),
        heal: args.heal.unwrap_or(HealMode::Off),
        since: args
            .since
            .as_deref()
            .and_then(|t| super::parse_time(t).ok()),
        depth: args.depth,
        max_pages: args.max_pages,
    };
    Ok(request.prepare().await?)
}
