//! The crawl loop: take URLs from the frontier, fetch (and render) them a
//! few at a time, queue their links, extract item pages in batches through
//! the runtime, write the records, and record each batch in the frontier.
//!
//! ## What it refuses
//!
//! Without a start URL it is [`CrawlError::NoSeeds`]. It queues no link
//! [`Scope::allows`] rules out (another host unless `same_site: false`,
//! deeper than `max_depth`, outside `allow` or inside `deny`) and fetches no
//! more than `max_pages` pages, resumed runs included (pages robots.txt
//! forbids do not count). A page that failed, after the fetcher's retries, is
//! not queued again; a redirect to a page met before is not read again, and
//! under `since` an unchanged item page is not emitted. `--resume` of a
//! finished crawl, one stopped by its budget included, fetches nothing.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::task::JoinSet;
use url::Url;

use super::fetcher::{FetchFailure, Fetcher};
use super::frontier::{
    Completed, Frontier, FrontierError, Link, Outcome, PageLinks, Queued, Resumable,
};
use super::items::{ItemRule, item_rule};
use super::media::{Media, media_dir};
use super::pipeline::{CrawlMemory, Extraction, PagePipeline, PageRead, RecordSink};
use super::render::{PageRenderer, Probes, url_shape};
use super::sink::{Sink, SinkError, SinkFormat};
use super::update::CacheEntry;
use crate::fetch::{PageSource, ParsedPage};
use crate::job::{HealCounts, PageOutput};
use crate::runtime::{self, BatchRun, RuntimeError};
use crate::site::{self, LinkValueModel};
use crate::wrapper::{self, FrontierOrder, HealMode, RenderMode, Wrapper};

/// The priority of a known item page in the learned order, above any
/// page the model rates.
const ITEM_PRIORITY: f64 = 1e6;

/// How often (in pages) the queue is reordered by the learned model.
const REORDER_EVERY: u64 = 16;

/// What a crawl is asked to do.
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// The start URLs.
    pub seeds: Vec<Url>,
    /// UpdateCrawl: only item pages new or changed after this time (Unix
    /// milliseconds) are emitted.
    pub since: Option<i64>,
    /// The most pages fetched, over the wrapper's `max_pages`.
    pub max_pages: Option<u64>,
    /// How deep, over the wrapper's `max_depth`.
    pub max_depth: Option<u32>,
    /// Rendering, over the wrapper's `render`.
    pub render: Option<RenderMode>,
    /// What healing does with item pages that break.
    pub heal: HealMode,
    /// The wrapper's file (an `auto` heal rewrites it).
    pub wrapper_path: PathBuf,
    /// The store heals are recorded in.
    pub store: PathBuf,
    /// The frontier's file.
    pub frontier: PathBuf,
    /// The output file; standard output when `None`.
    pub output: Option<PathBuf>,
    /// The output's format.
    pub format: SinkFormat,
    /// Resume the unfinished crawl of this wrapper and output.
    pub resume: bool,
    /// Item pages extracted together (one healing decision per batch).
    pub batch: usize,
    /// Requests in flight at once, all hosts together.
    pub concurrency: usize,
    /// Set (by a Ctrl-C) to stop taking new URLs: the pages in flight are
    /// finished and written, and the crawl is left unfinished, to resume.
    pub stop: Option<Arc<AtomicBool>>,
}

/// Where a crawl is, for a progress bar.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// Pages fetched (done or failed).
    pub fetched: u64,
    /// URLs waiting.
    pub queued: usize,
    /// Pages that failed.
    pub errors: u64,
    /// Item pages read.
    pub items: u64,
    /// Heals applied or proposed.
    pub heals: u64,
    /// Time since the crawl began.
    pub elapsed: Duration,
}

/// What a crawl came to.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CrawlSummary {
    /// Pages fetched in this process (done or failed).
    pub fetched: u64,
    /// Pages fetched in all, resumed runs included.
    pub fetched_total: u64,
    /// Item pages whose records were written.
    pub items: u64,
    /// Records written.
    pub records: u64,
    /// Item pages not emitted because unchanged since `--since`.
    pub unchanged: u64,
    /// Pages that could not be fetched or read.
    pub errors: u64,
    /// URLs robots.txt forbade.
    pub robots_skipped: u64,
    /// Pages rendered in a browser.
    pub rendered: u64,
    /// Violations on item pages.
    pub violations: u64,
    /// Item pages with violations.
    pub violated_pages: u64,
    /// What the heals came to.
    pub heals: HealCounts,
    /// Images downloaded (distinct URLs).
    pub media: u64,
    /// How many pages had been fetched when the last item page was: what
    /// the learned frontier lowers against breadth first.
    pub last_item_at: u64,
    /// URLs still queued when the crawl stopped (the page budget).
    pub queued: usize,
    /// Which pages were items.
    pub items_rule: String,
    /// Seconds the crawl took.
    pub seconds: f64,
    /// Pages per second.
    pub pages_per_second: f64,
    /// Whether this crawl resumed an earlier one.
    pub resumed: bool,
    /// Whether `--resume` found the crawl finished already, so that nothing
    /// was fetched and the output was left as it was.
    pub finished_before: bool,
    /// Whether the crawl was stopped (Ctrl-C) and left to resume.
    pub interrupted: bool,
    /// The crawl's id in the frontier.
    pub crawl_id: i64,
    /// Every failure, with its URL, in the order they happened.
    pub failures: Vec<(String, String)>,
    /// The page budget the crawl ran under.
    pub max_pages: u64,
    /// The depth budget the crawl ran under.
    pub max_depth: u32,
    /// Pages with links not followed only because they were deeper than
    /// `max_depth`.
    pub depth_limited_pages: u64,
    /// Pages on which the wrapper's `follow` XPaths found a link (every
    /// page with a link when there are none).
    pub linked_pages: u64,
    /// What a person should know about how the crawl went: a budget hit,
    /// no item page, a follow rule that found nothing.
    pub warnings: Vec<String>,
}

/// Why a crawl stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// The frontier failed.
    #[error(transparent)]
    Frontier(#[from] FrontierError),
    /// The output failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// The HTTP client could not be made.
    #[error("cannot start the HTTP client: {0}")]
    Client(FetchFailure),
    /// The runtime failed (the store, a wrapper change).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The wrapper file could not be loaded again after a heal.
    #[error("the wrapper changed during the crawl and no longer loads: {0}")]
    Wrapper(String),
    /// No start URL.
    #[error("no start URL: give URLs, or list them under the wrapper's `start`")]
    NoSeeds,
}

/// Which URLs a crawl follows: the start URLs' hosts (unless `same_site:
/// false`), `max_depth`, and the wrapper's `allow` and `deny`.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The wrapper's crawl settings.
    pub settings: wrapper::CrawlSettings,
    /// The start URLs' hosts.
    pub hosts: Vec<String>,
    /// How deep, after the command line's override.
    pub max_depth: Option<u32>,
}

impl Scope {
    /// Whether `url`, `depth` links from a start URL, is followed.
    pub fn allows(&self, url: &Url, depth: u32) -> bool {
        self.max_depth.is_none_or(|d| depth <= d) && self.allows_at_any_depth(url)
    }

    /// Whether `url`, `depth` links from a start URL, is left out only for
    /// being deeper than `max_depth`: what the depth budget cut.
    pub fn too_deep(&self, url: &Url, depth: u32) -> bool {
        self.max_depth.is_some_and(|d| depth > d) && self.allows_at_any_depth(url)
    }

    fn allows_at_any_depth(&self, url: &Url) -> bool {
        let settings = &self.settings;
        let host = url.host_str().unwrap_or_default();
        (!settings.same_site || self.hosts.iter().any(|h| h == host))
            && (settings.allow.is_empty()
                || settings.allow.iter().any(|r| r.is_match(url.as_str())))
            && !settings.deny.iter().any(|r| r.is_match(url.as_str()))
    }
}

/// Everything a fetch task needs, shared.
struct Shared {
    fetcher: Fetcher,
    wrapper: Wrapper,
    rule: ItemRule,
    renderer: Option<Arc<dyn PageRenderer>>,
    render: RenderMode,
    media: Option<Media>,
    since: Option<i64>,
    /// Pages of URL shapes rendering does not help, counted as a worker
    /// counts them: when a page would be rendered, not when it is queued.
    probes: std::sync::Mutex<Probes>,
}

impl Shared {
    /// The page pipeline of the crawl.
    fn pipeline(&self) -> PagePipeline<'_> {
        PagePipeline {
            fetcher: &self.fetcher,
            renderer: self.renderer.as_ref(),
            wrapper: &self.wrapper,
            rule: &self.rule,
            render: self.render,
            since: self.since,
        }
    }
}

/// What a fetch task brings back.
struct Fetched {
    queued: Queued,
    fetched_at: i64,
    result: Result<PageRead, Failed>,
}

struct Failed {
    status: Option<u16>,
    error: String,
    robots: bool,
}

/// The URLs a crawl starts from: those given, else the wrapper's `start`,
/// normalised.
pub fn start_urls(wrapper: &Wrapper, given: &[Url]) -> Vec<Url> {
    let listed: Vec<Url>;
    let urls = if given.is_empty() {
        listed = wrapper
            .start
            .iter()
            .filter_map(|s| Url::parse(s).ok())
            .collect();
        &listed
    } else {
        given
    };
    urls.iter().filter_map(site::normalize).collect()
}

/// Crawls the site and writes its records; `progress` is called after each
/// page.
pub async fn crawl(
    wrapper: Wrapper,
    options: CrawlOptions,
    renderer: Option<Arc<dyn PageRenderer>>,
    mut progress: impl FnMut(&Progress),
) -> Result<CrawlSummary, CrawlError> {
    let started = Instant::now();
    let seeds = start_urls(&wrapper, &options.seeds);
    if seeds.is_empty() {
        return Err(CrawlError::NoSeeds);
    }
    let (frontier, resume_at) = match open_frontier(&wrapper, &options, &seeds)? {
        Opened::Unfinished(frontier, resume_at) => (frontier, resume_at),
        Opened::Finished(summary) => return Ok(summary),
    };
    let mut crawler =
        Crawler::start(wrapper, options, renderer, frontier, resume_at, &seeds).await?;
    loop {
        crawler.fetch_more()?;
        let Some(joined) = crawler.tasks.join_next().await else {
            break;
        };
        match joined {
            Ok(fetched) => crawler.take(fetched).await?,
            // A task that panicked is a bug; its URL stays queued for a resume.
            Err(e) => {
                tracing::error!(error = %e, "a fetch task failed");
                continue;
            }
        }
        progress(&crawler.progress(started));
    }
    crawler.finish(started).await
}

/// The frontier a crawl goes on with, or what a finished one came to.
enum Opened {
    /// The frontier, and the output's length to cut back to on a resume.
    Unfinished(Frontier, Option<u64>),
    /// The output is whole already: going on means doing nothing, so a
    /// `--resume` retried after a crawl that ended is harmless.
    Finished(CrawlSummary),
}

/// Resumes the crawl of this wrapper and output, or begins one.
fn open_frontier(
    wrapper: &Wrapper,
    options: &CrawlOptions,
    seeds: &[Url],
) -> Result<Opened, CrawlError> {
    let output_name = options
        .output
        .as_ref()
        .map_or_else(|| "-".to_owned(), |p| p.display().to_string());
    let found = if options.resume {
        Frontier::resume(&options.frontier, &wrapper.name, &output_name)?
    } else {
        Resumable::Nothing
    };
    Ok(match found {
        Resumable::Unfinished {
            frontier,
            output_len,
        } => Opened::Unfinished(*frontier, Some(output_len)),
        Resumable::Finished { crawl, fetched } => Opened::Finished(CrawlSummary {
            fetched_total: fetched,
            resumed: true,
            finished_before: true,
            crawl_id: crawl,
            ..CrawlSummary::default()
        }),
        // Seeds go in with the crawl's first record; their priorities are
        // set once the item rule is known.
        Resumable::Nothing => {
            let first: Vec<Link> = seeds.iter().map(|u| (u.clone(), 0, 0.0)).collect();
            let now = crate::runtime::now().unix_millis();
            let frontier =
                Frontier::begin(&options.frontier, &wrapper.name, &output_name, &first, now)?;
            Opened::Unfinished(frontier, None)
        }
    })
}

/// The order pages are fetched in: breadth first, or item pages first
/// (shallow ones first) and the pages that lead to them by the learned
/// model.
struct Priorities {
    order: FrontierOrder,
    rule: ItemRule,
    model: LinkValueModel,
}

impl Priorities {
    fn of(&self, url: &Url, depth: u32) -> f64 {
        match self.order {
            FrontierOrder::Bfs => -f64::from(depth),
            FrontierOrder::Learned if self.rule.is_item(url) => ITEM_PRIORITY - f64::from(depth),
            FrontierOrder::Learned => site::priority(depth, self.model.predict(url)),
        }
    }
}

/// A crawl under way: its frontier and output, the fetches in flight, and
/// the item pages waiting to be extracted.
struct Crawler {
    frontier: Frontier,
    sink: Sink,
    shared: Arc<Shared>,
    scope: Scope,
    priorities: Priorities,
    max_pages: u64,
    max_depth: u32,
    options: CrawlOptions,
    summary: CrawlSummary,
    tasks: JoinSet<Fetched>,
    batch: Vec<(Fetched, Vec<Link>)>,
    extractor: Extractor,
    since_reorder: u64,
}

impl Crawler {
    /// Opens the output, learns the item rule and queues the seeds'
    /// examples of item pages.
    async fn start(
        wrapper: Wrapper,
        options: CrawlOptions,
        renderer: Option<Arc<dyn PageRenderer>>,
        mut frontier: Frontier,
        resume_at: Option<u64>,
        seeds: &[Url],
    ) -> Result<Crawler, CrawlError> {
        let settings = wrapper.crawl.clone();
        let sink = Sink::open(
            options.output.as_deref(),
            options.format,
            &wrapper,
            resume_at,
        )?;
        let fetcher = Fetcher::new(settings.politeness.clone()).map_err(CrawlError::Client)?;
        let (rule, examples) = item_rule(&settings.items, &fetcher, seeds).await;
        let scope = Scope {
            settings: settings.clone(),
            hosts: seeds
                .iter()
                .filter_map(|u| u.host_str().map(str::to_owned))
                .collect(),
            max_depth: Some(settings.depth_budget(options.max_depth)),
        };
        let mut priorities = Priorities {
            order: settings.frontier,
            rule: rule.clone(),
            model: LinkValueModel::default(),
        };
        if resume_at.is_some() {
            for (url, n) in frontier.done_pages()? {
                priorities.model.learn(&url, n);
            }
        }
        frontier.reorder(|u, d| priorities.of(u, d));
        // The seeds' examples of item pages, when the item rule was learned
        // from them; a crawl killed before they were queued queues them on
        // resume, and those already met are left as they are.
        let first: Vec<Link> = examples
            .iter()
            .filter(|u| scope.allows(u, 1))
            .map(|u| (u.clone(), 1, priorities.of(u, 1)))
            .collect();
        frontier.push(&first)?;
        let shared = Arc::new(Shared {
            fetcher,
            media: settings
                .media
                .as_ref()
                .map(|_| Media::new(media_dir(options.output.as_deref()))),
            wrapper: wrapper.clone(),
            rule,
            renderer,
            render: options.render.unwrap_or(settings.render),
            since: options.since,
            probes: std::sync::Mutex::default(),
        });
        let summary = CrawlSummary {
            items_rule: shared.rule.describe(),
            resumed: resume_at.is_some(),
            crawl_id: frontier.crawl(),
            ..CrawlSummary::default()
        };
        Ok(Crawler {
            max_pages: settings.page_budget(options.max_pages),
            max_depth: settings.depth_budget(options.max_depth),
            extractor: Extractor {
                wrapper,
                options: options.clone(),
                heals: HealCounts::default(),
            },
            frontier,
            sink,
            shared,
            scope,
            priorities,
            options,
            summary,
            tasks: JoinSet::new(),
            batch: Vec::new(),
            since_reorder: 0,
        })
    }

    /// Whether a person asked the crawl to stop.
    fn stopped(&self) -> bool {
        self.options
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::SeqCst))
    }

    /// Pages fetched, in flight or waiting to be extracted.
    fn taken(&self) -> u64 {
        self.frontier.fetched() + self.tasks.len() as u64 + self.batch.len() as u64
    }

    /// Starts fetches until `concurrency` are in flight, the page budget is
    /// spent or nothing is queued.
    fn fetch_more(&mut self) -> Result<(), CrawlError> {
        while self.tasks.len() < self.options.concurrency.max(1) && !self.stopped() {
            if self.taken() >= self.max_pages {
                break;
            }
            let Some(queued) = self.frontier.pop() else {
                break;
            };
            let useless = match self.shared.render {
                RenderMode::Auto => {
                    let shape = url_shape(&queued.url);
                    self.frontier
                        .render_votes(&self.shared.wrapper.name, &shape)?
                        .useless()
                }
                _ => false,
            };
            let cached = match self.shared.since {
                Some(_) => self.frontier.cached(&queued.url)?,
                None => None,
            };
            let shared = self.shared.clone();
            self.tasks
                .spawn(async move { fetch_page(&shared, queued, useless, cached).await });
        }
        Ok(())
    }

    /// Takes in a fetched page: learns from its links, records it in the
    /// frontier (or holds an item page for its batch), and extracts the
    /// batch when it is due.
    async fn take(&mut self, fetched: Fetched) -> Result<(), CrawlError> {
        let url = fetched.queued.url.clone();
        let links = self.links_of(&fetched);
        let item_links = fetched.result.as_ref().map_or(0, |read| read.item_links);
        self.priorities.model.learn(&url, item_links);
        self.since_reorder += 1;
        if self.priorities.order == FrontierOrder::Learned && self.since_reorder >= REORDER_EVERY {
            self.since_reorder = 0;
            let priorities = &self.priorities;
            self.frontier.reorder(|u, d| priorities.of(u, d));
        }
        let summary = &mut self.summary;
        summary.fetched += u64::from(!matches!(&fetched.result, Err(f) if f.robots));
        // A redirect to a page met before is that page: read once.
        let final_url = match &fetched.result {
            Ok(read) => Some(read.final_url.clone()).filter(|f| *f != url),
            Err(_) => None,
        };
        if let Some(target) = &final_url {
            if self.frontier.has_seen(target) {
                self.frontier
                    .complete(&completed(&fetched, Outcome::Done), &[], None)?;
                return Ok(());
            }
            self.frontier.mark_seen(target, fetched.queued.depth)?;
        }
        self.record(fetched, links)?;
        let idle = self.tasks.is_empty() && self.frontier.queued() == 0;
        let full = self.batch.len() >= self.options.batch.max(1);
        let out_of_budget = self.frontier.fetched() + self.batch.len() as u64 >= self.max_pages;
        if !self.batch.is_empty() && (full || idle || out_of_budget) {
            self.flush().await?;
        }
        Ok(())
    }

    /// The links of a page read that the crawl follows, with their
    /// priorities; counts the pages that had links, and those whose links
    /// the depth budget cut.
    fn links_of(&mut self, fetched: &Fetched) -> Vec<Link> {
        let Ok(read) = &fetched.result else {
            return Vec::new();
        };
        let depth = fetched.queued.depth;
        let links = read
            .links
            .iter()
            .filter(|u| self.scope.allows(u, depth + 1))
            .map(|u| (u.clone(), depth + 1, self.priorities.of(u, depth + 1)))
            .collect();
        self.summary.linked_pages += u64::from(!read.links.is_empty());
        self.summary.depth_limited_pages += u64::from(
            depth >= self.max_depth && read.links.iter().any(|u| self.scope.too_deep(u, depth + 1)),
        );
        links
    }

    /// Records a page in the frontier, or holds an item page to extract
    /// for the next batch.
    fn record(&mut self, fetched: Fetched, links: Vec<Link>) -> Result<(), CrawlError> {
        let url = &fetched.queued.url;
        let summary = &mut self.summary;
        let read = match &fetched.result {
            Ok(read) => read,
            Err(failed) => {
                let outcome = if failed.robots {
                    summary.robots_skipped += 1;
                    Outcome::Skipped
                } else {
                    summary.errors += 1;
                    summary
                        .failures
                        .push((url.to_string(), failed.error.clone()));
                    Outcome::Failed
                };
                self.frontier
                    .complete(&completed(&fetched, outcome), &[], None)?;
                return Ok(());
            }
        };
        summary.rendered += u64::from(read.rendered);
        if read.item {
            summary.last_item_at = summary.fetched;
        }
        if let Some((shape, helped)) = &read.render_vote {
            self.frontier
                .vote_render(&self.shared.wrapper.name, shape, *helped)?;
        }
        if read.item && read.unchanged {
            summary.unchanged += 1;
        }
        if read.item && !read.unchanged {
            self.batch.push((fetched, links));
            return Ok(());
        }
        self.frontier
            .complete(&completed(&fetched, Outcome::Done), &links, None)?;
        // Every crawl fills the cache, so that the first `--since` crawl
        // after it asks only for what changed.
        if read.item {
            self.frontier
                .remember(url, &read.cache, fetched.fetched_at)?;
        }
        Ok(())
    }

    /// Extracts the waiting item pages, writes their records, commits the
    /// output and records the pages in the frontier with its length, in one
    /// transaction.
    async fn flush(&mut self) -> Result<(), CrawlError> {
        let shared = Arc::clone(&self.shared);
        let reads = self
            .batch
            .iter_mut()
            .filter_map(|(f, _)| f.result.as_mut().ok());
        let mut output = Output {
            sink: &mut self.sink,
            summary: &mut self.summary,
        };
        shared
            .pipeline()
            .extract_items(&mut self.extractor, reads, &mut output)
            .await?;
        self.summary.heals = self.extractor.heals;
        let len = self.sink.commit()?;
        let batch = std::mem::take(&mut self.batch);
        let pages: Vec<PageLinks<'_>> = batch
            .iter()
            .map(|(f, links)| (completed(f, Outcome::Done), links.as_slice()))
            .collect();
        self.frontier.complete_all(&pages, Some(len))?;
        self.frontier
            .remember_all(batch.iter().filter_map(|(f, _)| {
                f.result
                    .as_ref()
                    .ok()
                    .map(|read| (&f.queued.url, &read.cache, f.fetched_at))
            }))?;
        Ok(())
    }

    /// Where the crawl is.
    fn progress(&self, started: Instant) -> Progress {
        let summary = &self.summary;
        Progress {
            fetched: self.frontier.fetched() + self.batch.len() as u64,
            queued: self.frontier.queued(),
            errors: summary.errors,
            items: summary.items,
            heals: (summary.heals.applied + summary.heals.proposed) as u64,
            elapsed: started.elapsed(),
        }
    }

    /// Extracts what is left, marks the crawl finished unless a person
    /// stopped it, and sums it up.
    async fn finish(mut self, started: Instant) -> Result<CrawlSummary, CrawlError> {
        if !self.batch.is_empty() {
            self.flush().await?;
        }
        let interrupted = self.stopped();
        let mut summary = self.summary;
        summary.queued = self.frontier.queued();
        summary.interrupted = interrupted;
        // A crawl that stopped on its page budget is finished too: its
        // output is whole for that budget. One stopped by a person is left
        // to resume.
        if !interrupted {
            self.frontier.finish(crate::runtime::now().unix_millis())?;
        }
        summary.fetched_total = self.frontier.fetched();
        summary.media = match &self.shared.media {
            Some(media) => media.count().await,
            None => 0,
        };
        summary.seconds = started.elapsed().as_secs_f64();
        summary.pages_per_second = summary.fetched as f64 / summary.seconds.max(1e-9);
        summary.max_pages = self.max_pages;
        summary.max_depth = self.max_depth;
        summary.warnings = warnings(&summary, !self.shared.wrapper.crawl.follow.is_empty());
        Ok(summary)
    }
}

/// What a person should be told about a crawl that ended: the budgets it
/// hit, and rules that found nothing. Each says what to change.
fn warnings(summary: &CrawlSummary, follows: bool) -> Vec<String> {
    let mut said = Vec::new();
    if summary.interrupted {
        said.push(format!(
            "the crawl was stopped with {} URLs still queued; `--resume` goes on where it stopped",
            summary.queued
        ));
    }
    if summary.queued > 0 && summary.fetched_total >= summary.max_pages {
        said.push(format!(
            "the crawl stopped at its page budget ({} pages) with {} URLs still queued; raise `max_pages` or --max-pages to go further",
            summary.max_pages, summary.queued
        ));
    }
    if summary.depth_limited_pages > 0 {
        said.push(format!(
            "links deeper than the depth budget ({}) were not followed, from {} pages; raise `max_depth` or --depth if the site is that deep",
            summary.max_depth, summary.depth_limited_pages
        ));
    }
    let read = summary
        .fetched
        .saturating_sub(summary.errors + summary.robots_skipped);
    if summary.interrupted {
        return said;
    }
    if read > 0 && summary.items == 0 && summary.unchanged == 0 {
        said.push(format!(
            "no item page among the {read} pages read (items: {}); check the `items` rule against the site's URLs",
            summary.items_rule
        ));
    }
    if follows && read > 0 && summary.linked_pages == 0 {
        said.push(format!(
            "the `follow` XPaths found no link on any of the {read} pages read; check them with `mend xpath PAGE XPATH`"
        ));
    }
    said
}

/// The frontier's record of a fetched page.
fn completed(fetched: &Fetched, outcome: Outcome) -> Completed<'_> {
    let (status, error, item, item_links) = match &fetched.result {
        Ok(read) => (Some(200), None, read.item, read.item_links),
        Err(f) => (f.status, Some(f.error.clone()), false, 0),
    };
    Completed {
        url: &fetched.queued.url,
        outcome,
        status,
        error,
        item,
        item_links,
        fetched_at: fetched.fetched_at,
    }
}

/// Fetches, renders if needed, and reads one page. `shape_useless` is what
/// the frontier's votes said of the page's URL shape before the task began.
async fn fetch_page(
    shared: &Shared,
    queued: Queued,
    shape_useless: bool,
    cached: Option<CacheEntry>,
) -> Fetched {
    let memory = Looked {
        cached,
        shape_useless,
        probes: &shared.probes,
        media: shared.media.as_ref(),
        fetcher: &shared.fetcher,
    };
    let read = match shared.pipeline().read(&memory, &queued.url).await {
        Ok(read) => read,
        Err(never) => match never {},
    };
    let result = read.map_err(|e| Failed {
        status: match e {
            FetchFailure::Status { status, .. } => Some(status),
            _ => None,
        },
        robots: matches!(e, FetchFailure::Robots),
        error: e.to_string(),
    });
    // A page read keeps the time its fetch began; a failure is dated when
    // it is known, so that the crawl reads the clock once a page.
    let fetched_at = match &result {
        Ok(read) => read.fetched_at,
        Err(_) => crate::runtime::now().unix_millis(),
    };
    Fetched {
        queued,
        fetched_at,
        result,
    }
}

/// The local crawl's memory as a fetch task sees it: what the frontier
/// said of the page before the task began (its SQLite connection stays with
/// the crawl loop, which also records the task's render vote and cache
/// entry), and the crawl's media folder.
struct Looked<'a> {
    cached: Option<CacheEntry>,
    shape_useless: bool,
    probes: &'a std::sync::Mutex<Probes>,
    media: Option<&'a Media>,
    fetcher: &'a Fetcher,
}

impl CrawlMemory for Looked<'_> {
    type Error = std::convert::Infallible;

    async fn cached(&self, _url: &Url) -> Result<Option<CacheEntry>, Self::Error> {
        Ok(self.cached.clone())
    }

    async fn render_useless(&self, shape: String) -> Result<bool, Self::Error> {
        // One page in PROBE_EVERY of a shape is rendered all the same; only
        // pages the reader would render count, as in a worker.
        let mut probes = self
            .probes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(self.shape_useless && !probes.is_probe(shape))
    }

    async fn media(&self, urls: &[Url]) -> Result<Vec<serde_json::Value>, Self::Error> {
        Ok(match self.media {
            Some(media) => media.download(self.fetcher, urls).await,
            None => Vec::new(),
        })
    }
}

/// Extracts item pages in batches through the runtime: the local crawl's
/// [`Extraction`].
struct Extractor {
    wrapper: Wrapper,
    options: CrawlOptions,
    /// The heals of every batch so far.
    heals: HealCounts,
}

impl Extraction for Extractor {
    type Error = CrawlError;

    async fn extract(
        &mut self,
        pages: Vec<Arc<ParsedPage>>,
    ) -> Result<Vec<PageOutput>, CrawlError> {
        if self.options.heal == HealMode::Auto && self.heals.applied > 0 {
            // An earlier batch rewrote the wrapper: later pages use it.
            self.wrapper = wrapper::load_file(&self.options.wrapper_path)
                .map_err(|e| CrawlError::Wrapper(e.to_string()))?;
        }
        let (wrapper, options) = (self.wrapper.clone(), self.options.clone());
        let pages = pages.into_iter().map(PageSource::Parsed).collect();
        let run = tokio::task::spawn_blocking(move || {
            let path = &options.wrapper_path;
            runtime::run_batch(options.heal, wrapper, path, options.store, pages, &[])
                .map_err(|e| e.to_string())
        })
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
        let run = run.unwrap_or_else(|failure| BatchRun {
            failure: Some(failure),
            ..BatchRun::default()
        });
        if let Some(failure) = &run.failure {
            tracing::warn!(error = %failure, "healing in this batch failed");
        }
        add_heals(&mut self.heals, run.heals);
        Ok(run.outputs)
    }
}

/// The crawl's output as the pipeline writes to it, counting what it
/// writes.
struct Output<'a> {
    sink: &'a mut Sink,
    summary: &'a mut CrawlSummary,
}

impl RecordSink for Output<'_> {
    type Error = CrawlError;

    fn write(&mut self, read: &PageRead, out: PageOutput) -> Result<(), CrawlError> {
        let summary = &mut *self.summary;
        summary.items += 1;
        summary.records += out.records.len() as u64;
        summary.violations += out.violations.len() as u64;
        summary.violated_pages += u64::from(!out.violations.is_empty());
        self.sink.write(out, read.fetched_at)?;
        Ok(())
    }
}

fn add_heals(total: &mut HealCounts, more: HealCounts) {
    total.applied += more.applied;
    total.proposed += more.proposed;
    total.abstained += more.abstained;
    total.rejected += more.rejected;
    total.reused += more.reused;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::PROBE_EVERY;

    #[test]
    fn url_shapes_group_pages_of_one_kind() {
        let s = |u: &str| url_shape(&Url::parse(u).unwrap());
        assert_eq!(s("http://h/js/post-7/"), "h/js/*/");
        assert_eq!(s("http://h/js/post-8/"), "h/js/*/");
        assert_eq!(s("http://h/2024/05/a-b/"), "h/*/*/*/");
        assert_ne!(s("http://h/about/"), s("http://h/js/post-8/"));
    }

    /// The local crawl used to count a probe when it queued a page of a
    /// shape rendering does not help, whether or not the page would be
    /// rendered; a worker counts when the reader asks. Both count on asking.
    #[tokio::test]
    async fn the_crawl_counts_a_probe_only_when_the_reader_asks() {
        let fetcher = Fetcher::new(crate::wrapper::Politeness::default()).unwrap();
        let probes = std::sync::Mutex::default();
        let look = |shape_useless| Looked {
            cached: None,
            shape_useless,
            probes: &probes,
            media: None,
            fetcher: &fetcher,
        };
        let mut rendered = 0;
        for _ in 0..PROBE_EVERY {
            if !look(true).render_useless("h/item/*".into()).await.unwrap() {
                rendered += 1;
            }
        }
        assert_eq!(
            rendered, 1,
            "one page in PROBE_EVERY is rendered all the same"
        );
        assert!(
            !look(false).render_useless("h/item/*".into()).await.unwrap(),
            "a shape with no votes against rendering is rendered"
        );
    }
}
