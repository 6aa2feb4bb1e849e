//! `mend worker`: a stateless crawl worker over the PostgreSQL backend.
//!
//! A worker keeps nothing of its own between pages. It takes a job from
//! the database (the one it is given, or the oldest open one), runs
//! `concurrency` tasks that each lease a URL, fetch it, read its links,
//! extract and heal it if it is an item page, and acknowledge it; one task
//! that sends the acknowledgements waiting at any moment in one statement;
//! and one that renews its leases and writes its counts while it lives. A
//! lease of several URLs (a host without a delay) is shared by the tasks. Any number of workers may
//! run at once, be killed or be added: a killed worker's leases run out and
//! its URLs are taken by the others. Under `render: always` a page is read
//! from the browser's navigation, one request, as the local crawl reads it;
//! under `render: auto` it is fetched, and rendered when the raw page fails.
//!
//! Healing state is the job's: its wrapper, tree-grams and store, versioned
//! in `mend_jobs`. A worker unpacks the current version into a folder of
//! its own and runs the healing runtime there (`healing.rs`). In `auto`
//! mode a heal is decided once for the job, over pages counted across
//! workers (`decision.rs`), and published as the job's next version under
//! a PostgreSQL advisory lock: one heal, which every worker then uses.
//! When its tasks find nothing left to do, a worker decides the heals that
//! held on every page that broke, as a local run does at its end.
//!
//! A lost connection (PostgreSQL restarting, say) is waited out: the task
//! reconnects with backoff and sends its acknowledgement again; the
//! acknowledgement counts once, whatever was sent before the connection
//! dropped.
//!
//! ## What it refuses
//!
//! A worker without a browser refuses a job that renders pages, and works on
//! no job already finished. Links the job's scope does not allow are not
//! queued; a page robots.txt forbids is skipped, and one that fails to fetch
//! is no item and gets no record (a 429 or 503 instead holds its host back
//! for every worker, for its `Retry-After`, and puts the URL back in the
//! queue). Under `since`, an unchanged item page is neither
//! extracted nor has its images downloaded. Only a lost connection is waited
//! out, and only an acknowledgement rolled back over a conflict is sent
//! again; any other error fails its URL alone, and only when that cannot be
//! written either does the worker stop, giving its leases back.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{Mutex, Notify, mpsc, oneshot};
use tokio_postgres::Client;

use super::BackendError;
use super::database::{listen, open};
use super::healing::{Healing, HealingContext, extract, settle};
use super::job::{self, Job, robots_columns, robots_from_columns};
use super::queue::{self, Ack, Claim, Lease, QueueClient};
use crate::crawl::{
    self, CacheEntry, Conditions, CrawlMemory, Extraction, FetchFailure, Fetcher, PagePipeline,
    PageRead, PageRenderer, Probes, RecordSink, ShapeVotes,
};
use crate::fetch::ParsedPage;
use crate::job::PageOutput;
use crate::wrapper::{RenderMode, Wrapper};

/// What a worker is asked to do.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The database's connection string.
    pub backend: String,
    /// Work on this job only; otherwise on open jobs, oldest first.
    pub job: Option<i64>,
    /// Pages in flight at once in this worker.
    pub concurrency: usize,
    /// How long a lease lasts without renewal.
    pub lease: Duration,
    /// Stop when no job is open (otherwise wait for one).
    pub until_done: bool,
    /// How long to keep trying to reach the database.
    pub patience: Duration,
    /// The worker's name (a unique one is made up when `None`).
    pub name: Option<String>,
    /// Starts the browser for a job that renders pages; a worker without
    /// one refuses such a job.
    pub renderer: Option<LaunchRenderer>,
}

/// Starts a browser for a job's wrapper: called once per job, and only for
/// a job that renders pages.
#[derive(Clone)]
pub struct LaunchRenderer(
    #[allow(clippy::type_complexity)]
    pub  Arc<
        dyn Fn(
                Wrapper,
            )
                -> Pin<Box<dyn Future<Output = Result<Arc<dyn PageRenderer>, String>> + Send>>
            + Send
            + Sync,
    >,
);

impl LaunchRenderer {
    /// Headless Chromium, launched with the job's wrapper's crawl settings
    /// ([`crate::crawl::launch_browser`]).
    pub fn chromium() -> Self {
        LaunchRenderer(Arc::new(|wrapper| {
            Box::pin(async move {
                crate::crawl::launch_browser(&wrapper)
                    .await
                    .map_err(|e| e.to_string())
            })
        }))
    }
}

impl std::fmt::Debug for LaunchRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LaunchRenderer")
    }
}

/// What a worker did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct WorkerSummary {
    /// The worker's name.
    pub worker: String,
    /// Jobs it worked on.
    pub jobs: Vec<i64>,
    /// Pages it acknowledged.
    pub pages: u64,
    /// Item pages whose records it wrote.
    pub items: u64,
    /// Pages that failed.
    pub errors: u64,
    /// Pages whose lease it lost to another worker.
    pub lost: u64,
    /// Times it reconnected to the database.
    pub reconnects: u64,
    /// Heals it published as a new wrapper version.
    pub published: u64,
}

/// Runs a worker until its job is done (or, with `until_done`, until no
/// job is open).
pub async fn work(options: WorkerOptions) -> Result<WorkerSummary, BackendError> {
    let name = options.name.clone().unwrap_or_else(worker_name);
    let mut summary = WorkerSummary {
        worker: name.clone(),
        ..WorkerSummary::default()
    };
    let swept = super::healing::sweep_stale_tempdirs();
    if swept > 0 {
        tracing::info!(swept, "removed the folders of workers that were killed");
    }
    let mut client = open(&options.backend, options.patience).await?;
    loop {
        let id = match options.job {
            Some(id) => id,
            None => match job::oldest_open(&client).await? {
                Some(id) => id,
                None if options.until_done => return Ok(summary),
                None => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            },
        };
        let job = job::load(&client, id).await?;
        if !job.finished {
            summary.jobs.push(id);
            work_on(job, &options, &name, &mut summary).await?;
        }
        // The database may have restarted while the job ran.
        client = open(&options.backend, options.patience).await?;
        job::try_finish(&client, id).await?;
        if options.job.is_some() {
            return Ok(summary);
        }
    }
}

/// What the tasks of one worker on one job share.
pub(super) struct Context {
    /// The job, the worker's name and the job's healing state.
    pub healing: HealingContext,
    options: WorkerOptions,
    fetcher: Fetcher,
    /// Hosts whose robots.txt this worker has taken from the database.
    robots: Mutex<HashSet<String>>,
    /// The browser, for a job that renders pages.
    renderer: Option<Arc<dyn PageRenderer>>,
    /// Pages this worker met of each URL shape rendering does not help, to
    /// render one in ten all the same.
    shapes: Mutex<Probes>,
    /// What this worker did.
    pub counts: Mutex<WorkerSummary>,
    /// Adaptations in the pages it acknowledged.
    heals: AtomicU64,
    /// URLs leased in a batch and not yet taken by a task.
    pending: Mutex<VecDeque<Lease>>,
    /// Woken when a host that had no work gets some (`NOTIFY mend_work`).
    wake: Arc<Notify>,
}

/// A page's acknowledgement, and who waits for it to be written.
type Acknowledging = (Ack, oneshot::Sender<()>);

async fn work_on(
    job: Job,
    options: &WorkerOptions,
    name: &str,
    summary: &mut WorkerSummary,
) -> Result<(), BackendError> {
    let client = open(&options.backend, options.patience).await?;
    queue::register(&client, job.id, name).await?;
    let fetcher = job_fetcher(&job, options)?;
    let renderer = job_renderer(&job, options).await?;
    let state = Healing::unpack(job)?;
    // Without a listener, waits end on their timeouts only.
    let listener = listen(
        &options.backend,
        options.patience,
        "mend_work",
        state.job.id.to_string(),
    )
    .await
    .inspect_err(|e| tracing::warn!(error = %e, "cannot listen for new work; polling"))
    .ok();
    let wake = listener
        .as_ref()
        .map_or_else(|| Arc::new(Notify::new()), |l| l.wake.clone());
    let context = Arc::new(Context {
        healing: HealingContext {
            id: state.job.id,
            name: name.to_owned(),
            state: Mutex::new(state),
            published: AtomicU64::new(0),
        },
        options: options.clone(),
        fetcher,
        robots: Mutex::new(HashSet::new()),
        renderer,
        shapes: Mutex::new(Probes::default()),
        counts: Mutex::new(WorkerSummary::default()),
        heals: AtomicU64::new(0),
        pending: Mutex::new(VecDeque::new()),
        wake,
    });
    let renewer = {
        let context = context.clone();
        tokio::spawn(async move { renew_leases(context).await })
    };
    let failure = run_tasks(&context).await;
    if failure.is_none()
        && let Err(e) = settle(&context.healing, &client).await
    {
        // Another worker may still settle the job; this one's pages are done.
        tracing::warn!(error = %e, "cannot decide the job's last heals");
    }
    renewer.abort();
    drop(listener);
    wind_down(&context, &client, failure.is_some()).await;
    let counts = context.counts.lock().await;
    summary.pages += counts.pages;
    summary.items += counts.items;
    summary.errors += counts.errors;
    summary.lost += counts.lost;
    summary.reconnects += counts.reconnects;
    summary.published += context.healing.published.load(Ordering::Relaxed);
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The job's HTTP client. The database holds each host's delay and
/// concurrency for all workers (`queue::claim`); the client's own gate
/// would only add its delay after the lease, shortening the gap the next
/// worker sees.
fn job_fetcher(job: &Job, options: &WorkerOptions) -> Result<Fetcher, BackendError> {
    let mut politeness = job.wrapper.crawl.politeness.clone();
    politeness.delay = Duration::ZERO;
    politeness.autothrottle = false;
    politeness.concurrency = u32::try_from(options.concurrency.max(1)).unwrap_or(u32::MAX);
    let fetcher = Fetcher::new(politeness)
        .map_err(|e| BackendError::Wrapper(format!("cannot start the HTTP client: {e}")))?;
    Ok(fetcher.overload_to_caller())
}

/// The browser, for a job that renders pages; refused without one.
async fn job_renderer(
    job: &Job,
    options: &WorkerOptions,
) -> Result<Option<Arc<dyn PageRenderer>>, BackendError> {
    match (job.render, &options.renderer) {
        (RenderMode::Never, _) => Ok(None),
        (_, Some(launch)) => {
            Ok(Some((launch.0)(job.wrapper.clone()).await.map_err(
                |e| BackendError::Wrapper(format!("cannot start the browser: {e}")),
            )?))
        }
        (_, None) => Err(BackendError::Wrapper(
            "the job renders pages, and this worker has no browser".to_owned(),
        )),
    }
}

/// Runs `concurrency` tasks and the one that writes their
/// acknowledgements until the job has nothing left for this worker; why it
/// stopped early, if it did.
async fn run_tasks(context: &Arc<Context>) -> Option<BackendError> {
    let (acks, received) = mpsc::channel(queue::ACK_BATCH * 4);
    let acker = {
        let context = context.clone();
        tokio::spawn(async move { acknowledge_in_batches(context, received).await })
    };
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..context.options.concurrency.max(1) {
        let (context, acks) = (context.clone(), acks.clone());
        tasks.spawn(async move { task(context, acks).await });
    }
    // The acknowledgements end when the last task does.
    drop(acks);
    let mut failure = None;
    while let Some(joined) = tasks.join_next().await {
        let error = match joined {
            Ok(Ok(())) => continue,
            Ok(Err(e)) => e,
            Err(e) => BackendError::Wrapper(format!("a worker task failed: {e}")),
        };
        // A task that failed holds a lease the others wait for: the worker
        // stops, and gives its leases back rather than renew them.
        tracing::error!(error = %error, "the worker stops");
        failure = Some(error);
        tasks.abort_all();
        break;
    }
    // The tasks are done: what they handed over is written before the job
    // is settled (a stopped worker's unwritten pages run out their leases).
    if failure.is_none() {
        match acker.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failure = Some(e),
            Err(e) => {
                failure = Some(BackendError::Wrapper(format!(
                    "the acknowledgements failed: {e}"
                )));
            }
        }
    } else {
        acker.abort();
    }
    failure
}

/// Gives the leases back after a failure, and the budget's tokens always;
/// writes what the worker did.
async fn wind_down(context: &Context, client: &Client, failed: bool) {
    let (job, name) = (context.healing.id, &context.healing.name);
    if failed && let Err(e) = queue::release(client, job, name).await {
        tracing::warn!(error = %e, "cannot give the leases back; they will run out");
    }
    if let Err(e) = queue::return_tokens(client, job, name).await {
        tracing::warn!(error = %e, "cannot give the budget's tokens back; they wait for this worker to be seen dead");
    }
    if let Err(e) = write_counts(context, client).await {
        tracing::warn!(error = %e, "cannot write what the worker did");
    }
}

/// How long every worker holds back a host that answered 429 or 503
/// without a `Retry-After`.
const OVERLOAD_WAIT: Duration = Duration::from_secs(1);

/// The state of an [`Ack`] whose URL went back to the queue: nothing is
/// acknowledged.
const REQUEUED: &str = "requeued";

/// One task: lease, fetch, read, acknowledge, until the job is done.
async fn task(
    context: Arc<Context>,
    acks: mpsc::Sender<Acknowledging>,
) -> Result<(), BackendError> {
    let options = &context.options;
    let mut client = QueueClient::new(open(&options.backend, options.patience).await?);
    let batch = i32::try_from(options.concurrency).unwrap_or(i32::MAX);
    loop {
        let lease = match next_lease(&context, &mut client, batch).await {
            Ok(Some(lease)) => lease,
            Ok(None) => return Ok(()),
            Err(e) if e.is_connection() => {
                client = QueueClient::new(reconnect(&context, e).await?);
                continue;
            }
            Err(e) => return Err(e),
        };
        let ack = loop {
            match read(&context, client.client(), &lease).await {
                Ok(ack) => break Some(ack),
                Err(e) if e.is_connection() => {
                    client = QueueClient::new(reconnect(&context, e).await?)
                }
                Err(e) => {
                    fail_alone(&context, client.client(), &lease.url, e).await?;
                    break None;
                }
            }
        };
        let Some(ack) = ack else { continue };
        if ack.state == REQUEUED {
            continue;
        }
        // The task waits for its page to be written before it takes the
        // next URL: pages are then healed in the order their predecessors
        // were written, as a local crawl heals them. (Going on at once gave
        // other heals on a stale wrapper in `bench/backend_scaling.py
        // --heal-stale`.)
        let (written, done) = oneshot::channel();
        if acks.send((ack, written)).await.is_err() || done.await.is_err() {
            return Err(BackendError::Wrapper(
                "the worker's acknowledgements stopped".to_owned(),
            ));
        }
    }
}

/// The next URL this task fetches: one left from the worker's last batch,
/// or the first of a new batch (the rest kept for the worker's other
/// tasks). `None` when the job is done.
async fn next_lease(
    context: &Context,
    client: &mut QueueClient,
    batch: i32,
) -> Result<Option<Lease>, BackendError> {
    loop {
        let kept = context.pending.lock().await.pop_front();
        if let Some(lease) = kept {
            return Ok(Some(lease));
        }
        // Armed before asking, so that work announced while the database
        // answers is not missed.
        let woken = context.wake.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let claimed = queue::claim(
            client,
            context.healing.id,
            &context.healing.name,
            context.options.lease,
            batch,
        )
        .await?;
        match claimed {
            Claim::Done => return Ok(None),
            Claim::Wait(wait) => {
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = woken => {}
                }
            }
            Claim::Leased(leases) => {
                let mut leases = leases.into_iter();
                let Some(first) = leases.next() else { continue };
                context.pending.lock().await.extend(leases);
                return Ok(Some(first));
            }
        }
    }
}

/// Writes what the worker did so far and that it is alive, and renews its
/// leases.
async fn write_counts(context: &Context, client: &Client) -> Result<u64, BackendError> {
    let counts = {
        let c = context.counts.lock().await;
        let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        [
            n(c.pages),
            n(c.items),
            n(c.errors),
            n(context.heals.load(Ordering::Relaxed)),
            n(c.lost),
        ]
    };
    queue::renew(
        client,
        context.healing.id,
        &context.healing.name,
        context.options.lease,
        counts,
    )
    .await
}

/// Sends the worker's acknowledgements, as many as are waiting (up to
/// [`queue::ACK_BATCH`]) in one statement: under load, pages that end
/// together cost the database one statement. A lost connection is waited out and the batch sent
/// again, as is a batch PostgreSQL chose to end a deadlock with; a page the
/// database refuses fails alone. Counts what was written.
async fn acknowledge_in_batches(
    context: Arc<Context>,
    mut received: mpsc::Receiver<Acknowledging>,
) -> Result<(), BackendError> {
    let options = &context.options;
    let mut client = QueueClient::new(open(&options.backend, options.patience).await?);
    while let Some(first) = received.recv().await {
        let mut batch = vec![first];
        while batch.len() < queue::ACK_BATCH {
            match received.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let rule = context.healing.state.lock().await.job.items.clone();
        let acks: Vec<&Ack> = batch.iter().map(|(a, _)| a).collect();
        let outcomes = loop {
            match queue::acknowledge_all(
                &mut client,
                context.healing.id,
                &context.healing.name,
                &acks,
                &rule,
            )
            .await
            {
                Ok(outcomes) => break outcomes,
                Err(e) if e.is_connection() => {
                    client = QueueClient::new(reconnect(&context, e).await?);
                }
                // PostgreSQL chose this statement to end a deadlock: again.
                Err(e) => {
                    tracing::debug!(error = %e, "acknowledging again after a conflict");
                }
            }
        };
        for ((ack, written), outcome) in batch.into_iter().zip(outcomes) {
            match outcome {
                Ok(accepted) => count(&context, &ack, accepted).await,
                Err(e) => fail_alone(&context, client.client(), &ack.url, e).await?,
            }
            // A task that is gone wants no answer.
            let _ = written.send(());
        }
    }
    Ok(())
}

/// Counts an acknowledged page: written, or its lease lost.
async fn count(context: &Context, ack: &Ack, accepted: bool) {
    let heals = u64::try_from(ack.adaptations.len()).unwrap_or(0);
    let mut counts = context.counts.lock().await;
    if accepted {
        context.heals.fetch_add(heals, Ordering::Relaxed);
        counts.pages += 1;
        counts.items += u64::from(ack.record.is_some());
        counts.errors += u64::from(ack.state == "failed");
    } else {
        counts.lost += 1;
    }
}

/// A URL whose reading or acknowledgement failed with an error of its own
/// (not a lost connection) fails alone: the error is written as its
/// outcome and the worker goes on. Only when that write fails too does the
/// worker stop, with the first error.
async fn fail_alone(
    context: &Context,
    client: &Client,
    url: &url::Url,
    error: BackendError,
) -> Result<(), BackendError> {
    tracing::warn!(%url, error = %error, "the URL failed; the worker goes on");
    match queue::fail(
        client,
        context.healing.id,
        &context.healing.name,
        url,
        &error.to_string(),
    )
    .await
    {
        Ok(_) => {
            context.counts.lock().await.errors += 1;
            Ok(())
        }
        Err(_) => Err(error),
    }
}

async fn reconnect(context: &Context, e: BackendError) -> Result<Client, BackendError> {
    tracing::warn!(error = %e, "lost the database; reconnecting");
    context.counts.lock().await.reconnects += 1;
    open(&context.options.backend, context.options.patience).await
}

/// Every third of a lease: renews this worker's leases, writes what it
/// did, and puts back in the queue the URLs whose leases ran out (a dead
/// worker's), so that they are taken again even while every worker is busy.
async fn renew_leases(context: Arc<Context>) {
    let every = context.options.lease / 3;
    let mut client: Option<Client> = None;
    loop {
        tokio::time::sleep(every).await;
        if client.as_ref().is_none_or(Client::is_closed) {
            client = open(&context.options.backend, every).await.ok();
        }
        let Some(c) = &client else { continue };
        let renewed = match write_counts(&context, c).await {
            Ok(_) => queue::reclaim(c, context.healing.id).await.map(|_| ()),
            Err(e) => Err(e),
        };
        if let Err(e) = renewed {
            tracing::warn!(error = %e, "cannot renew leases");
            client = None;
        }
    }
}

/// The acknowledgement of a URL that could not be read: skipped for
/// robots.txt, put back in the queue for a host that says it is
/// overloaded, failed otherwise.
async fn failed(
    context: &Context,
    client: &Client,
    lease: &Lease,
    mut ack: Ack,
    e: FetchFailure,
) -> Result<Ack, BackendError> {
    match &e {
        FetchFailure::Robots => ack.state = "skipped",
        // The host says it is overloaded: every worker holds it back
        // for its `Retry-After`, and the URL goes back to the queue
        // (its lease counted, so that a host that always says so
        // fails the URL in the end).
        FetchFailure::Status {
            status: status @ (429 | 503),
            retry_after,
        } => {
            let wait = retry_after.unwrap_or(OVERLOAD_WAIT);
            queue::hold_back(
                client,
                context.healing.id,
                lease,
                &context.healing.name,
                wait,
            )
            .await?;
            ack.state = REQUEUED;
            ack.status = Some(*status);
        }
        FetchFailure::Status { status, .. } => {
            ack.state = "failed";
            ack.status = Some(*status);
        }
        _ => ack.state = "failed",
    }
    ack.error = Some(e.to_string());
    ack.item = false;
    Ok(ack)
}

/// Fetches and reads a leased URL: its outcome, links and record.
async fn read(context: &Context, client: &Client, lease: &Lease) -> Result<Ack, BackendError> {
    ensure_robots(context, client, lease).await?;
    let (scope, rule, since, render, wrapper) = {
        let state = context.healing.state.lock().await;
        (
            state.job.scope.clone(),
            state.job.items.clone(),
            state.job.since,
            state.job.render,
            state.job.wrapper.clone(),
        )
    };
    let ack = Ack {
        url: lease.url.clone(),
        state: "done",
        status: None,
        error: None,
        item: rule.is_item(&lease.url),
        final_url: None,
        links: Vec::new(),
        record: None,
        adaptations: Vec::new(),
        wrapper_version: 0,
        cache: None,
    };
    let pipeline = PagePipeline {
        fetcher: &context.fetcher,
        renderer: context.renderer.as_ref(),
        wrapper: &wrapper,
        rule: &rule,
        render,
        since,
    };
    let memory = JobMemory { context, client };
    let mut read = match pipeline.read(&memory, &lease.url).await? {
        Ok(read) => read,
        Err(e) => return failed(context, client, lease, ack, e).await,
    };
    if let Some((shape, helped)) = &read.render_vote {
        vote_render(context, client, shape, *helped).await?;
    }
    let mut ack = acknowledged(lease, &scope, ack, &mut read);
    let mut extraction = JobExtraction {
        context,
        client,
        version: 0,
    };
    pipeline
        .extract_items(&mut extraction, [&mut read], &mut ack)
        .await?;
    ack.wrapper_version = extraction.version;
    Ok(ack)
}

/// The acknowledgement of a page read, before its record: its cache entry
/// and its links in the job's scope.
fn acknowledged(lease: &Lease, scope: &crawl::Scope, mut ack: Ack, read: &mut PageRead) -> Ack {
    ack.status = Some(read.status);
    ack.item = read.item;
    // Every crawl fills the cache that `--since` reads; the database keeps
    // a body's first `changed_at` while its hash stays the same.
    if read.item {
        let now = crate::runtime::now().unix_millis();
        let changed_at = crawl::changed_at(read.cached.as_ref(), &read.cache, now);
        ack.cache = Some(CacheEntry {
            changed_at,
            ..read.cache.clone()
        });
    }
    if read.final_url != lease.url {
        ack.final_url = Some(read.final_url.clone());
    }
    ack.links = std::mem::take(&mut read.links)
        .into_iter()
        .filter(|u| scope.allows(u, lease.depth + 1))
        .map(|u| (u, lease.depth + 1))
        .collect();
    ack
}

/// A worker's [`Extraction`]: each page healed as the job says, one at a
/// time under the job's healing lock, on the job's newest wrapper.
struct JobExtraction<'a> {
    context: &'a Context,
    client: &'a Client,
    /// The version of the job's wrapper the last page was read with.
    version: i32,
}

impl Extraction for JobExtraction<'_> {
    type Error = BackendError;

    async fn extract(
        &mut self,
        pages: Vec<Arc<ParsedPage>>,
    ) -> Result<Vec<PageOutput>, BackendError> {
        let mut outputs = Vec::with_capacity(pages.len());
        for parsed in pages {
            let (out, version) = extract(&self.context.healing, self.client, parsed).await?;
            self.version = version;
            outputs.push(out);
        }
        Ok(outputs)
    }
}

/// A page's acknowledgement takes its record: the output as one JSON line,
/// with its adaptations for the job's log.
impl RecordSink for Ack {
    type Error = BackendError;

    fn write(&mut self, _read: &PageRead, out: PageOutput) -> Result<(), BackendError> {
        self.adaptations = out.adaptations.iter().map(|a| (**a).clone()).collect();
        let records = i32::try_from(out.records.len()).unwrap_or(i32::MAX);
        let violations = i32::try_from(out.violations.len()).unwrap_or(i32::MAX);
        let line = serde_json::to_string(&out).unwrap_or_default();
        self.record = Some((line, records, violations));
        Ok(())
    }
}

/// A worker's view of the job's memory: its tables in the database.
struct JobMemory<'a> {
    context: &'a Context,
    client: &'a Client,
}

impl CrawlMemory for JobMemory<'_> {
    type Error = BackendError;

    async fn cached(&self, url: &url::Url) -> Result<Option<CacheEntry>, BackendError> {
        cached(self.client, self.context.healing.id, url).await
    }

    /// The votes of a URL shape's rendered pages are shared through the
    /// database, so that a shape rendering never helps is left alone by
    /// every worker (with a probe now and then, as in the local crawl).
    async fn render_useless(&self, shape: String) -> Result<bool, BackendError> {
        let votes = self
            .client
            .query_opt(
                "SELECT helped, useless FROM mend_render_shapes
                 WHERE job_id = $1 AND md5(shape) = md5($2) AND shape = $2",
                &[&self.context.healing.id, &shape],
            )
            .await?
            .map(|r| ShapeVotes {
                helped: u32::try_from(r.get::<_, i32>(0)).unwrap_or(0),
                useless: u32::try_from(r.get::<_, i32>(1)).unwrap_or(0),
            })
            .unwrap_or_default();
        Ok(votes.useless() && !self.context.shapes.lock().await.is_probe(shape))
    }

    async fn media(&self, urls: &[url::Url]) -> Result<Vec<serde_json::Value>, BackendError> {
        download_media(self.context, self.client, urls).await
    }
}

/// Counts a rendered page's vote on its URL shape.
async fn vote_render(
    context: &Context,
    client: &Client,
    shape: &str,
    helped: bool,
) -> Result<(), BackendError> {
    let (helped, useless) = (i32::from(helped), i32::from(!helped));
    client
        .execute(
            "INSERT INTO mend_render_shapes (job_id, shape, helped, useless) VALUES ($1, $2, $3, $4)
             ON CONFLICT (job_id, md5(shape)) DO UPDATE
                 SET helped = mend_render_shapes.helped + $3,
                     useless = mend_render_shapes.useless + $4",
            &[&context.healing.id, &shape, &helped, &useless],
        )
        .await?;
    Ok(())
}

/// The `_media` entries of a page's images: each URL downloaded once per
/// job, by the first worker that meets it (within this page's lease, as a
/// redirect is followed), its bytes kept once per content.
///
/// A URL not yet known is downloaded under an advisory lock of its own (the
/// two-key space, which never meets the jobs' one-key locks), so that two
/// workers meeting it at once fetch it once: the second waits and then
/// reads the first one's entry. A killed worker's session ends, and its
/// lock with it.
async fn download_media(
    context: &Context,
    client: &Client,
    urls: &[url::Url],
) -> Result<Vec<serde_json::Value>, BackendError> {
    let mut entries = Vec::with_capacity(urls.len());
    let output = context.healing.state.lock().await.job.output.clone();
    let dir = crawl::media_dir((output != "-").then(|| std::path::Path::new(&output)));
    for url in urls {
        if let Some(entry) = known_media(context, client, url).await? {
            entries.push(entry);
            continue;
        }
        let key = format!("{} {}", context.healing.id, url.as_str());
        client
            .execute(
                "SELECT pg_advisory_lock(hashtext('mend_media'), hashtext($1))",
                &[&key],
            )
            .await?;
        let entry = download_one(context, client, url, &dir).await;
        let unlocked = client
            .execute(
                "SELECT pg_advisory_unlock(hashtext('mend_media'), hashtext($1))",
                &[&key],
            )
            .await;
        entries.push(entry?);
        unlocked?;
    }
    Ok(entries)
}

/// The entry the job already holds for `url`, if any.
async fn known_media(
    context: &Context,
    client: &Client,
    url: &url::Url,
) -> Result<Option<serde_json::Value>, BackendError> {
    let known =
        "SELECT entry FROM mend_media WHERE job_id = $1 AND md5(url) = md5($2) AND url = $2";
    let row = client
        .query_opt(known, &[&context.healing.id, &url.as_str()])
        .await?;
    Ok(row.map(|row| entry_of(row.get(0))))
}

/// Downloads `url` unless another worker did while this one waited for its
/// lock, and stores its bytes and entry.
async fn download_one(
    context: &Context,
    client: &Client,
    url: &url::Url,
    dir: &std::path::Path,
) -> Result<serde_json::Value, BackendError> {
    if let Some(entry) = known_media(context, client, url).await? {
        return Ok(entry);
    }
    let entry = match context.fetcher.fetch(url, &Conditions::default()).await {
        Ok(response) => {
            let (hash, name) =
                crawl::media_name(url, &response.body, response.media_type.as_deref());
            client
                .execute(
                    "INSERT INTO mend_media_files (job_id, name, bytes) VALUES ($1, $2, $3)
                     ON CONFLICT DO NOTHING",
                    &[&context.healing.id, &name, &response.body],
                )
                .await?;
            crawl::media_entry(url, &hash, dir, &name)
        }
        Err(e) => serde_json::json!({"url": url.as_str(), "error": e.to_string()}),
    };
    // A worker whose lock was lost with its connection may have written
    // the entry meanwhile: its entry stands, so that every page says the
    // same of one URL.
    let row = client
        .query_one(
            "INSERT INTO mend_media (job_id, url, entry) VALUES ($1, $2, $3)
             ON CONFLICT (job_id, md5(url)) DO UPDATE SET entry = mend_media.entry
             RETURNING entry",
            &[&context.healing.id, &url.as_str(), &entry.to_string()],
        )
        .await?;
    Ok(entry_of(row.get(0)))
}

/// A stored `_media` entry, read back.
fn entry_of(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or(serde_json::Value::Null)
}

/// What the job's wrapper's HTTP cache holds of `url`.
async fn cached(
    client: &Client,
    job: i64,
    url: &url::Url,
) -> Result<Option<CacheEntry>, BackendError> {
    let row = client
        .query_opt(
            "SELECT c.etag, c.last_modified, c.sha256, c.changed_at
             FROM mend_http_cache c JOIN mend_jobs j ON j.wrapper_name = c.wrapper_name
             WHERE j.id = $1 AND md5(c.url) = md5($2) AND c.url = $2",
            &[&job, &url.as_str()],
        )
        .await?;
    Ok(row.map(|r| CacheEntry {
        etag: r.get(0),
        last_modified: r.get(1),
        sha256: r.get(2),
        changed_at: r.get(3),
    }))
}

/// The host's robots.txt, from the database; the first worker to need it
/// reads it and keeps it there for the others.
async fn ensure_robots(
    context: &Context,
    client: &Client,
    lease: &Lease,
) -> Result<(), BackendError> {
    if context.robots.lock().await.contains(&lease.host) {
        return Ok(());
    }
    let select = "SELECT robots_state, robots FROM mend_hosts WHERE job_id = $1 AND host = $2";
    // The lease brings the host's robots.txt when a worker has read it.
    let txt = match lease.robots.clone() {
        Some(txt) => txt,
        None => {
            let txt = context.fetcher.robots_txt(&lease.url).await;
            let (state, body) = robots_columns(&txt);
            let delay = context.fetcher.adopt_robots(&lease.url, &txt).await;
            let delay_ms = delay.map_or(0, |d| i32::try_from(d.as_millis()).unwrap_or(i32::MAX));
            client
                .execute(
                    "UPDATE mend_hosts SET robots_state = $3, robots = $4,
                         delay_ms = GREATEST(delay_ms, $5)
                     WHERE job_id = $1 AND host = $2 AND robots_state IS NULL",
                    &[&context.healing.id, &lease.host, &state, &body, &delay_ms],
                )
                .await?;
            let row = client
                .query_one(select, &[&context.healing.id, &lease.host])
                .await?;
            robots_from_columns(row.get::<_, Option<&str>>(0), row.get(1)).unwrap_or(txt)
        }
    };
    context.fetcher.adopt_robots(&lease.url, &txt).await;
    context.robots.lock().await.insert(lease.host.clone());
    Ok(())
}

/// A name no other worker has: the host, the process, and random bits.
fn worker_name() -> String {
    let mut bits = [0u8; 4];
    let _ = getrandom::fill(&mut bits);
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "host".to_owned());
    format!(
        "{host}-{}-{}",
        std::process::id(),
        bits.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_names_differ() {
        assert_ne!(worker_name(), worker_name());
    }
}
