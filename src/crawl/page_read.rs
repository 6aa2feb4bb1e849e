//! One page of a crawl read: fetched (or, under `render: always`, read from
//! the browser's navigation), judged against the HTTP cache, rendered when
//! the mode asks, parsed once, its links found and its images downloaded.
//!
//! The local crawl and the PostgreSQL workers read every page through
//! [`PageReader::read`], so that they fetch, render, cache and follow alike.
//! What each keeps between pages (the HTTP cache of `--since`, the votes
//! on rendering each URL shape, the images downloaded) is a
//! [`CrawlMemory`]: the crawl's is its frontier file and media folder, a
//! worker's the job's tables. What comes after reading differs on purpose
//! and stays with the caller: the crawl extracts item pages in batches and
//! queues links by its learned priority, a worker extracts each page under
//! the job's healing lock and acknowledges it.
//!
//! ## What it refuses
//!
//! An answer that is not HTML is a [`FetchFailure`], as is a page robots.txt
//! forbids. An item page unchanged since `since` is not rendered, keeps no
//! document and has no images downloaded: it is not extracted. Links are
//! given as found; the caller's [`super::Scope`] decides which are followed.

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
pub struct PageReader<'a> {
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
}

impl PageReader<'_> {
    /// Reads the page at `url`, queued as an item page or not by its URL.
    ///
    /// The outer error is the memory's; the inner one says why the page
    /// could not be read.
    pub async fn read<M: CrawlMemory>(
        &self,
        memory: &M,
        url: &Url,
    ) -> Result<Result<PageRead, FetchFailure>, M::Error> {
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
mod tests {
    use std::collections::HashMap;
    use std::io::{BufRead, BufReader, Write};
    use std::pin::Pin;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::crawl::render::Rendered;
    use crate::wrapper::{PageAction, Politeness};

    const WRAPPER: &str = "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n    \
        constraints: {min: 1, max: 1}\ncrawl:\n  follow: ['//a/@href']\n  media: '//img/@src'\n";

    /// A server on 127.0.0.1 that answers each path with a fixed response
    /// and keeps the request lines; it stops at a request for `/stop`.
    struct Server {
        port: u16,
        asked: std::sync::Arc<Mutex<Vec<String>>>,
        thread: Option<std::thread::JoinHandle<()>>,
    }

    impl Server {
        fn start(answers: HashMap<&'static str, String>) -> Server {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let asked = std::sync::Arc::new(Mutex::new(Vec::new()));
            let kept = std::sync::Arc::clone(&asked);
            let thread = std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(mut stream) = stream else { break };
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    let _ = reader.read_line(&mut line);
                    let mut headers = String::new();
                    while let Ok(n) = reader.read_line(&mut headers)
                        && n > 2
                    {}
                    let path = line.split(' ').nth(1).unwrap_or("").to_owned();
                    if path == "/stop" {
                        break;
                    }
                    let conditional = headers.to_ascii_lowercase().contains("if-modified-since");
                    kept.lock().unwrap().push(format!("{path} {conditional}"));
                    let answer = answers.get(path.as_str()).cloned().unwrap_or_else(|| {
                        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_owned()
                    });
                    let _ = stream.write_all(answer.as_bytes());
                }
            });
            Server {
                port,
                asked,
                thread: Some(thread),
            }
        }

        fn url(&self, path: &str) -> Url {
            Url::parse(&format!("http://127.0.0.1:{}{path}", self.port)).unwrap()
        }

        fn asked(&self) -> Vec<String> {
            self.asked.lock().unwrap().clone()
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            if let Ok(mut stop) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = stop.write_all(b"GET /stop HTTP/1.1\r\n\r\n");
            }
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }

    fn html(body: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    /// What the browser makes of every page: a title the raw pages lack,
    /// links a script wrote, and an image.
    const RENDERED: &str = "<html><body><h1>Rendered</h1><a href='/item/3'>3</a>\
        <a href='/about'>about</a><img src='/a.png'></body></html>";

    /// A renderer that counts its calls and gives one fixed page.
    #[derive(Default)]
    struct CountingRenderer(AtomicUsize);

    impl PageRenderer for CountingRenderer {
        fn render<'a>(
            &'a self,
            url: &'a Url,
            _actions: &'a [PageAction],
        ) -> Pin<Box<dyn Future<Output = Rendered> + Send + 'a>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                Ok(crate::render::Rendered {
                    html: RENDERED.to_owned(),
                    final_url: url.to_string(),
                    clicks: 0,
                    settled: true,
                    status: Some(200),
                    media_type: Some("text/html".to_owned()),
                })
            })
        }
    }

    /// A memory that holds one cache entry and says what it was asked.
    #[derive(Default)]
    struct Recording {
        cached: Option<CacheEntry>,
        asked: Mutex<Vec<String>>,
    }

    impl CrawlMemory for Recording {
        type Error = std::convert::Infallible;

        async fn cached(&self, url: &Url) -> Result<Option<CacheEntry>, Self::Error> {
            self.asked
                .lock()
                .unwrap()
                .push(format!("cached {}", url.path()));
            Ok(self.cached.clone())
        }

        async fn render_useless(&self, shape: String) -> Result<bool, Self::Error> {
            let _ = shape;
            self.asked.lock().unwrap().push("render_useless".to_owned());
            Ok(false)
        }

        async fn media(&self, urls: &[Url]) -> Result<Vec<serde_json::Value>, Self::Error> {
            self.asked
                .lock()
                .unwrap()
                .push(format!("media {}", urls.len()));
            Ok(urls
                .iter()
                .map(|u| serde_json::json!({"url": u.as_str()}))
                .collect())
        }
    }

    /// Reads `url` in `auto` mode with a counting browser, an item rule of
    /// `/item/` and `memory`; the page and how many pages were rendered.
    async fn read_auto(
        url: &Url,
        since: Option<i64>,
        memory: &Recording,
    ) -> (Result<PageRead, FetchFailure>, usize) {
        let wrapper = crate::wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
        let rule = ItemRule::Pattern(regex::Regex::new("/item/").unwrap());
        let counting = Arc::new(CountingRenderer::default());
        let renderer: Arc<dyn PageRenderer> = counting.clone();
        let fetcher = Fetcher::new(Politeness {
            robots: false,
            delay: std::time::Duration::ZERO,
            retries: 0,
            ..Politeness::default()
        })
        .unwrap();
        let reader = PageReader {
            fetcher: &fetcher,
            renderer: Some(&renderer),
            wrapper: &wrapper,
            rule: &rule,
            render: RenderMode::Auto,
            since,
        };
        let read = match reader.read(memory, url).await {
            Ok(read) => read,
            Err(never) => match never {},
        };
        (read, counting.0.load(Ordering::SeqCst))
    }

    /// Regression (the workers' copy of the pipeline): an item page the
    /// server says is unchanged since `--since` was still rendered by a
    /// worker under `render: auto`. Neither copy may render it, keep its
    /// document or download its images.
    #[tokio::test]
    async fn an_unchanged_item_page_is_not_rendered_kept_or_given_its_images() {
        let server = Server::start(HashMap::from([(
            "/item/1",
            "HTTP/1.1 304 Not Modified\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                .to_owned(),
        )]));
        let memory = Recording {
            cached: Some(CacheEntry {
                sha256: Some("ab".to_owned()),
                changed_at: Some(1_600_000_000_000),
                ..CacheEntry::default()
            }),
            ..Recording::default()
        };
        let (read, renders) =
            read_auto(&server.url("/item/1"), Some(1_700_000_000_000), &memory).await;
        let read = read.unwrap();
        assert!(read.item && read.unchanged);
        assert!(read.document.is_none());
        assert!(read.media.is_empty() && !read.rendered && renders == 0);
        assert_eq!(*memory.asked.lock().unwrap(), ["cached /item/1"]);
        assert_eq!(server.asked(), ["/item/1 true"]);
        assert_eq!(
            read.cache.sha256.as_deref(),
            Some("ab"),
            "a 304 keeps the body cached before"
        );
    }

    /// A listing that redirects to an item page is that item page. Its raw
    /// HTML breaks the wrapper, so in `auto` mode it is rendered (its
    /// shape's memory asked first), and the rendered DOM, parsed once, gives
    /// its links, its images and the document kept for extraction.
    #[tokio::test]
    async fn a_page_redirected_to_an_item_page_is_read_as_one() {
        let server = Server::start(HashMap::from([
            (
                "/go",
                "HTTP/1.1 302 Found\r\nlocation: /item/2\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    .to_owned(),
            ),
            (
                "/item/2",
                html("<p><a href='/item/9'>9</a></p>"),
            ),
        ]));
        let memory = Recording::default();
        let (read, renders) = read_auto(&server.url("/go"), None, &memory).await;
        let read = read.unwrap();
        assert!(read.item && !read.unchanged && read.rendered);
        assert_eq!(read.final_url, server.url("/item/2"));
        assert_eq!(renders, 1);
        assert_eq!(read.render_vote.as_ref().map(|v| v.1), Some(true));
        let paths: Vec<&str> = read.links.iter().map(Url::path).collect();
        assert_eq!(paths, ["/item/3", "/about"]);
        assert_eq!(read.item_links, 1);
        let document = read.document.expect("an item page keeps its document");
        assert_eq!(document.string_value(document.root()), "Rendered3about");
        assert_eq!(*memory.asked.lock().unwrap(), ["render_useless", "media 1"]);
    }
}
