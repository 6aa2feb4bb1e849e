//! The page pipeline: the one way a page of a crawl goes, in `mend crawl`
//! and in a PostgreSQL worker alike. [`PagePipeline::read`] fetches it (or,
//! under `render: always`, reads the browser's navigation), judges it
//! against the HTTP cache, renders it when the mode asks, parses it once,
//! finds its links and downloads its images. [`PagePipeline::extract_items`]
//! then runs the item pages read through the runtime with the document that
//! parse gave, gives their records the images, and writes them.
//!
//! What differs between the two crawls is behind three traits, each with
//! one implementation per crawl:
//! - [`CrawlMemory`], what a crawl keeps between pages (the HTTP cache of
//!   `--since`, the votes on rendering each URL shape, the images
//!   downloaded): the crawl's frontier file and media folder, a worker's
//!   job tables;
//! - [`Extraction`], how pages go through the runtime: the crawl heals a
//!   batch of item pages at once on the wrapper file, a worker one page at a
//!   time under the job's healing lock, on the job's newest wrapper;
//! - [`RecordSink`], where records go: the crawl's output file, committed
//!   with its frontier, or a worker's acknowledgement in the job's tables.
//!
//! Which links are followed, and in what order, stays with the caller: the
//! crawl queues them by its learned priority, a worker in the job's queue.
//!
//! ## What it refuses
//!
//! An answer that is not HTML is a [`FetchFailure`], as is a page robots.txt
//! forbids. An item page unchanged since `since` is not rendered, keeps no
//! document and has no images downloaded: it is not extracted. Links are
//! given as found; the caller's [`super::Scope`] decides which are followed.

mod extract;

pub use extract::{Extraction, RecordSink};

use std::future::Future;
use std::sync::Arc;

use url::Url;

use super::fetcher::{FetchFailure, Fetcher, Response};
use super::items::ItemRule;
use super::links::links_of;
use super::render::{PageRenderer, RenderAsk, navigate, render_if_wanted, url_shape};
use super::update::{self, CacheEntry};
use crate::dom::Document;
use crate::fetch::Page;
use crate::wrapper::{RenderMode, Wrapper};

/// What a crawl keeps between pages, as reading a page needs it.
pub trait CrawlMemory: Sync {
    /// Why the memory could not be read or written.
    type Error: Send;

    /// What the HTTP cache holds of `url`; asked for item pages under
    /// `since` only.
    fn cached(
        &self,
        url: &Url,
    ) -> impl Future<Output = Result<Option<CacheEntry>, Self::Error>> + Send;

    /// Whether rendering is known not to help pages of this URL shape (and
    /// this page is no probe); asked only before rendering an item page in
    /// `auto` mode.
    fn render_useless(
        &self,
        shape: String,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send;

    /// The `_media` entries of an item page's images, downloading those not
    /// downloaded before.
    fn media(
        &self,
        urls: &[Url],
    ) -> impl Future<Output = Result<Vec<serde_json::Value>, Self::Error>> + Send;
}

/// How a crawl reads its pages: the same for every page of a run.
#[derive(Clone, Copy)]
pub struct PagePipeline<'a> {
    /// The crawl's HTTP client.
    pub fetcher: &'a Fetcher,
    /// The browser, when the crawl renders pages.
    pub renderer: Option<&'a Arc<dyn PageRenderer>>,
    /// The wrapper (its `follow` and `media` XPaths, its actions, and its
    /// patterns, to judge a raw page in `auto` mode).
    pub wrapper: &'a Wrapper,
    /// Which URLs are item pages.
    pub rule: &'a ItemRule,
    /// The crawl's rendering mode.
    pub render: RenderMode,
    /// UpdateCrawl: item pages unchanged after this time (Unix
    /// milliseconds) are not extracted.
    pub since: Option<i64>,
}

/// A page read.
pub struct PageRead {
    /// The page as extracted: the rendered DOM when it was rendered.
    pub page: Page,
    /// The page parsed, kept when it is an item page to extract (`item`
    /// and not `unchanged`): a page is parsed once, for its links and its
    /// records.
    pub document: Option<Document>,
    /// The answer's HTTP status (200 for a browser's navigation).
    pub status: u16,
    /// The URL the page came from, redirects followed.
    pub final_url: Url,
    /// Whether it is an item page, by its URL as queued or as redirected.
    pub item: bool,
    /// The links the wrapper's `follow` XPaths find, unfiltered.
    pub links: Vec<Url>,
    /// How many of them are item pages.
    pub item_links: u32,
    /// An item page unchanged since `since`: not to be emitted.
    pub unchanged: bool,
    /// The `_media` entries of an item page's images.
    pub media: Vec<serde_json::Value>,
    /// Whether the page's bytes are the browser's rendering.
    pub rendered: bool,
    /// The URL shape and whether rendering helped, when the page was
    /// rendered in `auto` mode: a vote for the memory to keep.
    pub render_vote: Option<(String, bool)>,
    /// What the HTTP cache should keep of the answer.
    pub cache: CacheEntry,
    /// What the HTTP cache held of the URL before, when it was asked (an
    /// item page under `since`).
    pub cached: Option<CacheEntry>,
    /// When the page was asked for (Unix milliseconds): the time its
    /// records are emitted at.
    pub fetched_at: i64,
}

impl PagePipeline<'_> {
    /// Reads the page at `url`, queued as an item page or not by its URL.
    ///
    /// The outer error is the memory's; the inner one says why the page
    /// could not be read.
    pub async fn read<M: CrawlMemory>(
        &self,
        memory: &M,
        url: &Url,
    ) -> Result<Result<PageRead, FetchFailure>, M::Error> {
        let fetched_at = crate::runtime::now().unix_millis();
        let queued_item = self.rule.is_item(url);
        let cached = match (self.since, queued_item) {
            (Some(_), true) => memory.cached(url).await?,
            _ => None,
        };
        let (response, navigated) = match self.fetch_or_navigate(url, queued_item, &cached).await {
            Ok(fetched) => fetched,
            Err(e) => return Ok(Err(e)),
        };
        let answer = update::cache_entry(
            response.etag.clone(),
            response.last_modified.clone(),
            &response.body,
        );
        let status = response.status;
        let unchanged =
            update::unchanged(self.since, queued_item, status, &answer, cached.as_ref());
        let cache = update::remembered(status, &answer, cached.as_ref());
        let final_url = response.final_url;
        let item = queued_item || self.rule.is_item(&final_url);
        let mut page = Page {
            name: final_url.to_string(),
            url: Some(final_url.clone()),
            bytes: response.body,
            charset: response.charset,
        };
        let (rendered, render_vote) = if navigated {
            (true, None)
        } else {
            let ask = Ask {
                queued: url,
                url: &final_url,
                item,
                unchanged,
            };
            self.render(memory, ask, &mut page).await?
        };
        let document = page.document();
        let follow = &self.wrapper.crawl.follow;
        let links = links_of(&document, &final_url, follow);
        let item_links = links.iter().filter(|u| self.rule.is_item(u)).count() as u32;
        let extract = item && !unchanged;
        let media = match (&self.wrapper.crawl.media, extract) {
            (Some(xpath), true) => {
                let urls = links_of(&document, &final_url, std::slice::from_ref(xpath));
                match urls.is_empty() {
                    true => Vec::new(),
                    false => memory.media(&urls).await?,
                }
            }
            _ => Vec::new(),
        };
        Ok(Ok(PageRead {
            page,
            document: extract.then_some(document),
            status,
            final_url,
            item,
            links,
            item_links,
            unchanged,
            media,
            rendered,
            render_vote,
            cache,
            cached,
            fetched_at,
        }))
    }

    /// The page as fetched, conditionally for an item page under `since`;
    /// or under `render: always` as the browser's navigation read it (one
    /// request instead of a fetch and the browser's own; an update crawl
    /// fetches first, to ask only for what changed). Whether it was
    /// navigated.
    async fn fetch_or_navigate(
        &self,
        url: &Url,
        item: bool,
        cached: &Option<CacheEntry>,
    ) -> Result<(Response, bool), FetchFailure> {
        let navigated = match (self.renderer, self.render, self.since) {
            (Some(renderer), RenderMode::Always, None) => {
                navigate(renderer, self.fetcher, self.wrapper, url).await
            }
            _ => None,
        };
        match navigated {
            Some(read) => read.map(|page| (navigated_response(page, url), true)),
            None => {
                let conditions = update::conditions(self.since, item, cached.as_ref());
                let fetched = self.fetcher.fetch(url, &conditions).await;
                fetched.and_then(Response::html_only).map(|r| (r, false))
            }
        }
    }

    /// Renders `page` in place when the mode asks for it; whether it was,
    /// and the vote it gives its URL shape.
    async fn render<M: CrawlMemory>(
        &self,
        memory: &M,
        ask: Ask<'_>,
        page: &mut Page,
    ) -> Result<(bool, Option<(String, bool)>), M::Error> {
        let could_render = self.renderer.is_some() && !ask.unchanged;
        let useless = match self.render {
            RenderMode::Auto if ask.item && could_render => {
                memory.render_useless(url_shape(ask.queued)).await?
            }
            _ => false,
        };
        let ask = RenderAsk {
            mode: self.render,
            useless,
            item: ask.item,
            unchanged: ask.unchanged,
            queued: ask.queued,
            url: ask.url,
        };
        let choice = render_if_wanted(self.renderer, self.wrapper, &ask, page).await;
        Ok((choice.rendered, choice.vote))
    }
}

/// What rendering a page depends on, besides the crawl's settings.
#[derive(Clone, Copy)]
struct Ask<'a> {
    queued: &'a Url,
    url: &'a Url,
    item: bool,
    unchanged: bool,
}

/// The browser's navigation to `url` as the fetcher's answer: a page read
/// that way passed the fetcher's checks in [`navigate`] (a status under
/// 400, an HTML document) and carries no validators to ask with.
fn navigated_response(page: Page, url: &Url) -> Response {
    Response {
        final_url: page.url.unwrap_or_else(|| url.clone()),
        status: 200,
        body: page.bytes,
        charset: page.charset,
        media_type: None,
        etag: None,
        last_modified: None,
        tries: 1,
    }
}

#[cfg(test)]
mod tests;
