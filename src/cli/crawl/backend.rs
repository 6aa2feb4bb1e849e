//! `mend crawl … --backend postgres://…`: the crawl as a job of the
//! PostgreSQL backend. The command submits the job (or, with `--resume`,
//! finds the newest one of this wrapper, output and start URLs; with
//! `--job ID`, that one, if it crawls with this wrapper), works on it as one
//! worker beside any `mend worker` processes, and when nothing is left
//! writes the job's records, in URL order, to `--out` or standard output.
//! With `--detach` it only submits, and prints the job's id.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use url::Url;

use mend::cluster::{self, JobSpec, WorkerOptions};
use mend::crawl::{Fetcher, Scope, SinkFormat, item_rule, start_urls};
use mend::runtime::Project;
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
    let resumed = match (args.job, args.resume) {
        (Some(id), _) => match cluster::find(&client, id).await? {
            Some((name, finished)) if name == wrapper.name => Some((id, finished)),
            Some((name, _)) => {
                say!(
                    "error: job {id} crawls with the wrapper {name:?}, not {:?}",
                    wrapper.name
                );
                return Ok(ExitCode::from(EXIT_BAD_INPUT));
            }
            None => {
                say!("error: the backend holds no job {id}");
                return Ok(ExitCode::from(EXIT_BAD_INPUT));
            }
        },
        (None, true) => {
            let start = start_urls(&wrapper, &seeds);
            cluster::newest(&client, &wrapper.name, &output, &start).await?
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
            let spec = spec(args, wrapper, seeds, output).await?;
            let mut client = client;
            let id = cluster::submit(&mut client, &spec).await?;
            tracing::info!(job = id, "submitted");
            id
        }
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
    // Other workers may still hold leases the command's worker waited out;
    // `work` returns only when nothing is queued or leased.
    while !cluster::try_finish(&client, id).await? {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let exported = match (&args.out, args.format) {
        (_, SinkFormat::Csv | SinkFormat::Sqlite) => {
            let job = cluster::load(&client, id).await?;
            let mut sink =
                mend::crawl::Sink::open(args.out.as_deref(), args.format, &job.wrapper, None)?;
            cluster::export_to_sink(&client, id, &mut sink).await?
        }
        (Some(path), SinkFormat::Ndjson) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            let mut file = std::io::BufWriter::new(file);
            cluster::export(&client, id, &mut file).await?
        }
        (None, SinkFormat::Ndjson) => {
            let mut out = std::io::BufWriter::new(crate::cli::stdout::Stdout::new());
            cluster::export(&client, id, &mut out).await?
        }
    };
    let media = match wrapper_has_media(&client, id).await? {
        true => {
            let dir = mend::crawl::media_dir(args.out.as_deref());
            cluster::export_media(&client, id, &dir).await?
        }
        false => 0,
    };
    let status = cluster::status(&client, Some(id)).await?;
    if !args.quiet {
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
    let merged = merge_home(args, &client, id).await?;
    let proposals = proposals_home(args, &client, id).await?;
    if let Some(path) = &args.summary_json {
        let merged = merged.as_ref().map(|m| {
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

/// Whether the job's wrapper downloads images.
async fn wrapper_has_media(client: &tokio_postgres::Client, id: i64) -> anyhow::Result<bool> {
    Ok(cluster::load(client, id)
        .await?
        .wrapper
        .crawl
        .media
        .is_some())
}

/// Brings a `propose` job's proposals home: runs the local decision, in
/// `propose` mode, over the pages the workers kept for each heal, with the
/// wrapper file and the store beside it, so that each heal is one entry of
/// the user's store for `mend log`, `show` and `approve` (an entry already
/// waiting is joined, not repeated). Gives the heals' counts.
async fn proposals_home(
    args: &Args,
    client: &tokio_postgres::Client,
    id: i64,
) -> anyhow::Result<Option<mend::job::HealCounts>> {
    let job = cluster::load(client, id).await?;
    if job.heal != HealMode::Propose {
        return Ok(None);
    }
    let pages = cluster::kept_pages(client, id).await?;
    if pages.is_empty() {
        return Ok(None);
    }
    let kept = pages.len();
    let wrapper_path = args.wrapper.clone();
    let store_path = crate::cli::store_for(args.store.as_deref(), &args.wrapper);
    let shown = store_path.display().to_string();
    let counts = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
        let wrapper = mend::wrapper::load_file(&wrapper_path)
            .with_context(|| format!("cannot load {}", wrapper_path.display()))?;
        let options = mend::job::RunOptions::default();
        let mut runtime = mend::runtime::Runtime::new(
            HealMode::Propose,
            wrapper,
            &wrapper_path,
            mend::runtime::Session::at(store_path),
            options.clone(),
        )?;
        let sources: Vec<mend::fetch::PageSource> = pages
            .into_iter()
            .map(|p| mend::fetch::PageSource::Memory(std::sync::Arc::new(p)))
            .collect();
        let summary = runtime.run(&sources, |_| {});
        if let Some(failure) = runtime.failure() {
            anyhow::bail!("the job's proposals could not be stored: {failure}");
        }
        Ok(summary.heals)
    })
    .await??;
    if !args.quiet {
        say!(
            "mend: the job's heals, run again on the {kept} pages the workers kept: {} proposed, {} abstained; stored in {shown} (`mend log` lists them)",
            counts.proposed,
            counts.abstained
        );
    }
    Ok(Some(counts))
}

/// Brings the heals the job's workers decided home: merges the job's final
/// XPaths (and their tree-grams) into the wrapper file, through the
/// wrapper-change protocol and the store beside it, and says what it did.
async fn merge_home(
    args: &Args,
    client: &tokio_postgres::Client,
    id: i64,
) -> anyhow::Result<Option<mend::runtime::Merged>> {
    let job = cluster::load(client, id).await?;
    if job.wrapper_version <= 1 {
        return Ok(None);
    }
    let wrapper_path = args.wrapper.clone();
    let store_path = crate::cli::store_for(args.store.as_deref(), &args.wrapper);
    let merged = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
        let mut store = mend::store::Store::open(&store_path)
            .with_context(|| format!("cannot open the store {}", store_path.display()))?;
        let merged = mend::runtime::merge_decided(
            &wrapper_path,
            &mut store,
            &job.wrapper_yaml,
            &job.treegrams,
        )?;
        Ok(merged)
    })
    .await??;
    if !args.quiet {
        for (pattern, old, new) in &merged.written {
            say!(
                "mend: {}: {pattern} healed by the job: {old} -> {new} (the old XPath is kept in its history)",
                args.wrapper.display()
            );
        }
        for (pattern, why) in &merged.left {
            say!(
                "mend: {}: {pattern} left as it is: {why}; `mend status --backend ... --job {id} --wrapper` shows the job's",
                args.wrapper.display()
            );
        }
    }
    Ok(Some(merged))
}

/// The job: the wrapper with its healing state, the item rule and the
/// start hosts' robots.txt, read once here so that workers need not.
async fn spec(
    args: &Args,
    wrapper: Wrapper,
    seeds: Vec<Url>,
    output: String,
) -> anyhow::Result<JobSpec> {
    let seeds = start_urls(&wrapper, &seeds);
    anyhow::ensure!(
        !seeds.is_empty(),
        "no start URL: give URLs, or list them under the wrapper's `start`"
    );
    let fetcher = Fetcher::new(wrapper.crawl.politeness.clone())
        .map_err(|e| anyhow::anyhow!("cannot start the HTTP client: {e}"))?;
    let (items, examples) = item_rule(&wrapper.crawl.items, &fetcher, &seeds).await;
    let scope = Scope {
        settings: wrapper.crawl.clone(),
        hosts: seeds
            .iter()
            .filter_map(|u| u.host_str().map(str::to_owned))
            .collect(),
        max_depth: Some(wrapper.crawl.depth_budget(args.depth)),
    };
    let mut robots = Vec::new();
    for seed in &seeds {
        let txt = fetcher.robots_txt(seed).await;
        let delay = fetcher.adopt_robots(seed, &txt).await;
        robots.push((seed.clone(), txt, delay));
    }
    let mut start: Vec<(Url, u32)> = seeds.iter().map(|u| (u.clone(), 0)).collect();
    start.extend(
        examples
            .into_iter()
            .filter(|u| scope.allows(u, 1))
            .map(|u| (u, 1)),
    );
    let wrapper_yaml = std::fs::read_to_string(&args.wrapper)
        .with_context(|| format!("cannot read {}", args.wrapper.display()))?;
    let store = crate::cli::store_for(args.store.as_deref(), &args.wrapper);
    Ok(JobSpec {
        treegrams: treegrams(&args.wrapper, &wrapper),
        store_image: cluster::store_image(&store)?,
        wrapper_file: args.wrapper.file_name().map_or_else(
            || "wrapper.yaml".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        ),
        wrapper_yaml,
        output,
        heal: args.heal.unwrap_or(HealMode::Off),
        render: render_mode(args, &wrapper),
        since: args
            .since
            .as_deref()
            .and_then(|t| super::parse_time(t).ok()),
        items,
        seeds: start,
        scope,
        max_pages: Some(wrapper.crawl.page_budget(args.max_pages)),
        robots,
        wrapper,
    })
}

/// The wrapper's tree-gram files that exist, by path relative to its
/// project folder.
fn treegrams(wrapper_path: &Path, wrapper: &Wrapper) -> BTreeMap<String, String> {
    let project = Project::of(wrapper_path);
    let mut found = BTreeMap::new();
    for path in wrapper.pattern_paths() {
        let Some(pattern) = wrapper.pattern(&path) else {
            continue;
        };
        let file = project.treegram_path(wrapper, &path, pattern);
        if let (Ok(text), Ok(relative)) = (
            std::fs::read_to_string(&file),
            file.strip_prefix(&project.dir),
        ) {
            found.insert(relative.to_string_lossy().into_owned(), text);
        }
    }
    found
}
