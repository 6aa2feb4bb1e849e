//! The fixture site: a small blog-like web site, written for mend's crawl
//! tests, benchmarks and examples, served on 127.0.0.1 with axum. Each start
//! serves the same content (no randomness but fixed seeds, no data from
//! elsewhere) and knows its ground truth, so a test can compare what a crawl
//! extracted with what the site holds.
//!
//! ```text
//! let site = FixtureSite::start(SiteOptions::default()); // blocks until it listens
//! let home = site.url();                                 // "http://127.0.0.1:PORT/"
//! let truth = site.truth();                              // posts, item URLs, traps
//! let log = site.requests();                             // every request received
//! drop(site);                                            // stops the server
//! ```
//!
//! [`FixtureSite::start`] is blocking and may be called from a plain test or
//! from inside a tokio runtime: the server runs on a runtime of its own, on a
//! thread of its own, and dropping the site stops it (within a second, even
//! with a response still streaming) and waits for that thread.
//!
//! Two variants ([`Variant`]):
//!
//! - **blog** (40 posts by default): listing pages `/`, `/page/2/`, ... of
//!   ten posts each, newest first, each linking the next (`a.next`); tag
//!   pages `/tag/NAME/`; `/about/`; a link to `/private/secret/`, which
//!   robots.txt disallows. Posts at `/YYYY/MM/SLUG-N/` carry title, date,
//!   author, body, images (`/media/ID.png`, real PNGs; posts 4 and 7 share one
//!   image's bytes) and comments, with an ETag and a Last-Modified that
//!   conditional requests are answered 304 against. Post 9 is written by a
//!   script (`/js/post-9/`), post 10 loads most of its comments through a
//!   "Show more comments" button. Traps, off with `fast`: post 5 answers
//!   after [`SLOW_DELAY`], post 6 answers 500 twice, post 8 answers 429 once;
//!   the home page links `/huge` ([`HUGE_BYTES`], streamed). Always there:
//!   `/old/post-3` (301 to post 3), `/loop/a` and `/loop/b` (302 to each
//!   other), `/missing/` (404). Linked from nowhere, for crawls started on
//!   them: `/files/cover.png`, `/files/report.pdf` and `/api/posts.json`
//!   (answers that are not pages), and `/calendar/YYYY-MM/`, a calendar
//!   whose every month links the next, without end.
//! - **sprawl** (for crawls that learn where items are): posts are a tenth
//!   of the pages, beside a forum (`/forum/t/N`) and a wiki
//!   (`/wiki/Topic_N`) that link among themselves; listing pages `/list/N`
//!   link ten posts each and are reached only through a few links buried in
//!   threads and topics (the home page links `/list/1`).
//!
//! Both serve `/robots.txt`, `/sitemap.xml`, `/feed.xml` (RSS 2.0) and
//! `/atom.xml`. The module refuses to be anything but a local test server:
//! it listens on 127.0.0.1 only and sends nothing anywhere.

mod content;
mod feeds;
mod html;
mod png;
mod server;
mod site;
mod sprawl;
mod truth;

use std::io;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::watch;

pub use content::Roles;
pub use truth::{Comment, Post, Trap, TrapUrl, Truth, http_date, parse_http_date};

/// How long the slow post takes to answer.
pub const SLOW_DELAY: Duration = Duration::from_millis(1500);
/// The size of `/huge`: 64 MiB.
pub const HUGE_BYTES: u64 = 64 << 20;
/// How long a stopping server waits for responses still being sent before
/// it drops them.
const GRACE: Duration = Duration::from_millis(500);

/// Which site to serve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// A blog: listing, tag and post pages, feeds, traps.
    #[default]
    Blog,
    /// Posts among many forum and wiki pages.
    Sprawl,
}

impl Variant {
    /// The variant named `name` (`blog` or `sprawl`).
    pub fn parse(name: &str) -> Option<Variant> {
        match name {
            "blog" => Some(Variant::Blog),
            "sprawl" => Some(Variant::Sprawl),
            _ => None,
        }
    }

    /// The variant's name, as [`Variant::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Blog => "blog",
            Variant::Sprawl => "sprawl",
        }
    }
}

/// How to start the site; [`SiteOptions::default`] is the blog of 40 posts
/// on any free port, traps on, no crawl delay.
#[derive(Clone, Debug)]
pub struct SiteOptions {
    /// Which site.
    pub variant: Variant,
    /// How many posts (from 1, the oldest).
    pub posts: usize,
    /// The port on 127.0.0.1; 0 lets the system choose a free one.
    pub port: u16,
    /// Turns the slow, failing and huge traps off, for throughput
    /// measurements: posts 5, 6 and 8 answer at once, `/huge` is not linked.
    pub fast: bool,
    /// A `Crawl-delay` for robots.txt to ask for; none by default.
    pub crawl_delay: Option<Duration>,
    /// How long every answer takes, as a real server's would; none by
    /// default. With it, requests in flight at once overlap in the log.
    pub latency: Duration,
    /// Whether posts carry `ETag` and `Last-Modified` and answer
    /// conditional requests with 304; on by default.
    pub validators: bool,
    /// Whether the rate-limited post answers 429 once even with `fast`.
    pub rate_limited: bool,
    /// Whether robots.txt answers 500, so that it cannot be read.
    pub robots_fails: bool,
    /// Pages of one URL shape that need a browser and pages that do not,
    /// mixed: instead of posts 9 and 10, every post `4k + 2` is written by a
    /// script (at its usual path) and every post `4k + 3` loads its
    /// comments behind "Show more comments".
    pub script_mix: bool,
    /// Serve the files of this folder instead of the blog (`/` and every
    /// path ending in `/` are its `index.html`): a site the project did not
    /// write, such as `bench/shop_site.py`'s, behind the same fast server.
    pub root: Option<std::path::PathBuf>,
    /// Serve the posts as the blog's redesign does: the same content, the
    /// author in `<span class="author-name">` and the title in
    /// `<h1 class="post-title">`, so that two patterns of
    /// `examples/site/blog.yaml` break on every post.
    pub redesigned: bool,
}

impl Default for SiteOptions {
    fn default() -> SiteOptions {
        SiteOptions {
            variant: Variant::Blog,
            posts: 40,
            port: 0,
            fast: false,
            crawl_delay: None,
            latency: Duration::ZERO,
            validators: true,
            rate_limited: false,
            robots_fails: false,
            script_mix: false,
            root: None,
            redesigned: false,
        }
    }
}

/// One request the site received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedRequest {
    /// `GET`, `HEAD`, ...
    pub method: String,
    /// The path with its query, as requested (`/comments/10?chunk=1`).
    pub path: String,
    /// The `User-Agent` header.
    pub user_agent: Option<String>,
    /// The `If-None-Match` header.
    pub if_none_match: Option<String>,
    /// The `If-Modified-Since` header.
    pub if_modified_since: Option<String>,
    /// The status answered; `None` while the answer is being made (the slow
    /// post).
    pub status: Option<u16>,
    /// When it arrived, from the site's start.
    pub at: Duration,
    /// When its answer was ready, from the site's start; `None` until then.
    pub answered: Option<Duration>,
}

/// A running fixture site; dropping it stops the server.
pub struct FixtureSite {
    site: Arc<site::Site>,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl FixtureSite {
    /// Starts the site and returns once it accepts connections.
    ///
    /// # Panics
    ///
    /// When the port cannot be had; [`FixtureSite::try_start`] returns the
    /// error instead.
    pub fn start(options: SiteOptions) -> FixtureSite {
        FixtureSite::try_start(options).expect("the fixture site starts on 127.0.0.1")
    }

    /// Starts the site, or says why it could not listen.
    pub fn try_start(options: SiteOptions) -> io::Result<FixtureSite> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = watch::channel(false);
        let thread = std::thread::Builder::new()
            .name("fixture-site".to_owned())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("fixture-site-worker")
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                runtime.block_on(serve(options, ready_tx, stop_rx));
                runtime.shutdown_timeout(Duration::from_millis(100));
            })?;
        let site = ready_rx.recv().map_err(|_| {
            io::Error::other("the fixture site's thread ended before it listened")
        })??;
        Ok(FixtureSite {
            site,
            stop,
            thread: Some(thread),
        })
    }

    /// The home page's URL, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("{}/", self.site.base())
    }

    /// The absolute URL of `path` (which starts with `/`).
    pub fn url_of(&self, path: &str) -> String {
        format!("{}{path}", self.site.base())
    }

    /// Every request received so far, in the order received.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.site.requests()
    }

    /// How many answers the site held back by [`SLOW_DELAY`] on purpose
    /// (the slow post's), so that a test says what the site did rather than
    /// timing it.
    pub fn held_back(&self) -> usize {
        self.site
            .held_back
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The requests received for `path` (with its query, if any).
    pub fn requests_for(&self, path: &str) -> Vec<LoggedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    /// What the site holds now.
    pub fn truth(&self) -> Truth {
        self.site.truth()
    }

    /// Changes post `n`'s content (a paragraph more), its ETag and its
    /// Last-Modified (now, and at least a second later than before); feeds
    /// and sitemap follow. Returns the post as it is now.
    ///
    /// # Panics
    ///
    /// When the site has no post `n`.
    pub fn update_post(&self, n: usize) -> Post {
        self.site.update_post(n)
    }

    /// Stops the server and waits for it, as dropping the site does.
    pub fn stop(self) {}
}

impl Drop for FixtureSite {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Listens, says so through `ready`, and serves until `stop` turns true
/// (or its sender is gone); then lets responses in flight finish for up to
/// [`GRACE`].
async fn serve(
    options: SiteOptions,
    ready: std::sync::mpsc::Sender<io::Result<Arc<site::Site>>>,
    stop: watch::Receiver<bool>,
) {
    let listener = match tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, options.port)).await {
        Ok(listener) => listener,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let address = match listener.local_addr() {
        Ok(address) => address,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let site = Arc::new(site::Site::new(options, format!("http://{address}")));
    if ready.send(Ok(site.clone())).is_err() {
        return;
    }
    let mut graceful = stop.clone();
    let server = axum::serve(listener, server::router(site)).with_graceful_shutdown(async move {
        let _ = graceful.wait_for(|stopped| *stopped).await;
    });
    let mut hard = stop;
    let deadline = async move {
        let _ = hard.wait_for(|stopped| *stopped).await;
        tokio::time::sleep(GRACE).await;
    };
    tokio::select! {
        _ = async move { server.await } => {}
        () = deadline => {}
    }
}
