//! Crawl jobs: a polite, resumable crawler that feeds fetched pages through
//! the runtime (`job` and `runtime`: extraction, drift checks, healing) and
//! writes their records to a sink.
//!
//! The pipeline per page is fetch → render → links → extract and heal →
//! media → sink, all of it [`PagePipeline`]'s, which the PostgreSQL workers
//! (`cluster`) use too, with their own [`CrawlMemory`], [`Extraction`] and
//! [`RecordSink`]. Fetching goes through one async client (`fetcher.rs`) with robots.txt,
//! a gate per host with an adaptive delay (`politeness.rs`), retries with
//! backoff, and a timeout and size limit on every response. Pages are taken
//! from the frontier (`frontier.rs`) in the order of a learned priority, an
//! online model of how many item links a URL's page holds, trained after
//! every download (`site::LinkValueModel`), or breadth first. Item pages,
//! recognised by URL (a pattern in the wrapper, or one learned from the
//! site's feed or sitemap, `items.rs`), are extracted in batches by the
//! runtime, so that healing decides once per batch as `mend run` decides
//! once per run; their records go to the sink (`sink.rs`) and the frontier
//! records each batch with the output's length in one transaction, which is
//! what makes `--resume` after a `kill -9` lose nothing and repeat nothing.
//!
//! The two crawls are functions of their arguments. [`CrawlOptions::since`]
//! unset is *NewCrawl* (site → records); set, it is *UpdateCrawl* (site,
//! time → the records of item pages new or changed after that time, asked
//! of the server with `If-Modified-Since` and checked against the HTTP
//! cache). The frontier file holds a crawl's progress only so that a killed
//! crawl can be resumed; another instance given the same arguments computes
//! the same records.
//!
//! This module refuses URLs that are not http(s), hosts other than the start
//! URLs' (unless `same_site: false`), URLs the wrapper's `allow` and `deny`
//! rule out, pages deeper than `max_depth`, and more pages than `max_pages`.

mod browser;
mod fetcher;
mod frontier;
mod items;
mod links;
mod media;
mod pipeline;
mod politeness;
mod render;
mod run;
mod sink;
mod update;

pub use browser::launch_browser;
pub use fetcher::{
    Conditions, FetchFailure, Fetcher, Response, Robots, RobotsTxt, USER_AGENT, origin,
    robots_delay,
};
pub use frontier::{CrawlId, Frontier, FrontierError, Link, Resumable};
pub use items::{ItemRule, item_rule};
pub use links::links_of;
pub use media::{media_dir, media_entry, media_name, write_media};
pub use pipeline::{CrawlMemory, Extraction, PagePipeline, PageRead, RecordSink};
pub use politeness::{Hosts, MAX_DELAY};
pub use render::{
    AGREEMENT, PROBE_EVERY, PageRenderer, Probes, RenderAsk, RenderChoice, RenderFailure, Rendered,
    ShapeVotes, navigate, render_if_wanted, url_shape,
};
pub use run::{CrawlError, CrawlOptions, CrawlSummary, Progress, Scope, crawl, start_urls};
pub use sink::{Sink, SinkError, SinkFormat};
pub use update::{
    CacheEntry, cache_entry, changed_at, conditions, http_date, parse_http_date, remembered,
    unchanged,
};
