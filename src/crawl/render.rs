//! What the crawl asks of a browser: a page rendered, with the wrapper's
//! actions done first. The crawl holds a renderer as a trait object, so
//! that it builds and runs without a browser at all (`render: never`), and
//! tests can give it one of their own.
//!
//! `render: auto` decides page by page. An item page is rendered when its
//! raw HTML breaks the wrapper (violations), or when the wrapper's actions
//! have something to do on it (a `click` target is there, a `wait_for`
//! target is not yet, or there are scrolls to make); the rendered page is
//! kept when it breaks the wrapper less (or, with actions to do, no more).
//! A URL shape is remembered only to stop rendering where it never helps:
//! after [`AGREEMENT`] rendered pages of the shape that it did not help and
//! none that it did. Even then one broken page in [`PROBE_EVERY`] is
//! rendered, so that a shape whose pages change is looked at again.
//!
//! `render: always` reads a page from the browser's navigation
//! ([`navigate`]): one request for it, not a fetch and then the browser's
//! own, with the navigation's status and media type judged as a fetch's.
//!
//! ## What it refuses
//!
//! It renders nothing without a renderer, in `never` mode, or for a page
//! unchanged since the last crawl; in `auto` mode it renders no page that is
//! not an item page, and none whose raw HTML passes with nothing for the
//! actions to do. A page that fails to render is no error: it is read as
//! fetched, and it says nothing of its shape.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use url::Url;

use super::fetcher::{FetchFailure, Fetcher};
use crate::dom::Document;
use crate::extract::extract;
use crate::fetch::Page;
use crate::wrapper::{PageAction, RenderMode, Wrapper};
use crate::xpath::XPath;

/// Why a page could not be rendered.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct RenderFailure(pub String);

/// A rendered page: its HTML, final URL, and the navigation's status and
/// media type when the browser says.
pub type Rendered = Result<crate::render::Rendered, RenderFailure>;

/// Renders pages: the HTML of the DOM once the page has settled and the
/// actions are done.
pub trait PageRenderer: Send + Sync {
    /// Renders `url`, doing `actions` before the DOM is read.
    fn render<'a>(
        &'a self,
        url: &'a Url,
        actions: &'a [PageAction],
    ) -> Pin<Box<dyn Future<Output = Rendered> + Send + 'a>>;
}

/// How many rendered pages of a URL shape must agree that rendering did not
/// help before the crawl stops rendering pages of that shape.
pub const AGREEMENT: u32 = 5;

/// Of the broken pages of a shape rendering did not help, one in this many
/// is rendered all the same, to see whether that is still so.
pub const PROBE_EVERY: u32 = 10;

/// What a crawl knows about a fetched page when it decides to render it.
#[derive(Debug, Clone, Copy)]
pub struct RenderAsk<'a> {
    /// The crawl's rendering mode.
    pub mode: RenderMode,
    /// Rendering did not help on [`AGREEMENT`] pages of this URL's shape
    /// (and this page is no probe): a broken page is read as fetched.
    pub useless: bool,
    /// Whether the page is an item page.
    pub item: bool,
    /// Whether the page is unchanged since the last crawl (never rendered).
    pub unchanged: bool,
    /// The URL as queued (its shape is what a vote is kept under).
    pub queued: &'a Url,
    /// The URL the page was fetched from, redirects followed.
    pub url: &'a Url,
}

/// Whether a page was rendered, and what rendering it showed of its URL's
/// shape, when it was tried.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderChoice {
    /// The page's bytes are the rendered DOM.
    pub rendered: bool,
    /// The URL shape and whether rendering helped this page, when the page
    /// was rendered in `auto` mode.
    pub vote: Option<(String, bool)>,
}

/// What the votes of a URL shape's pages say: how many rendered pages
/// rendering helped, and how many it did not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShapeVotes {
    /// Rendered pages that broke the wrapper less than their raw HTML.
    pub helped: u32,
    /// Rendered pages that did not.
    pub useless: u32,
}

impl ShapeVotes {
    /// Whether rendering this shape's pages is known not to help.
    pub fn useless(&self) -> bool {
        self.helped == 0 && self.useless >= AGREEMENT
    }
}

/// Which pages of URL shapes rendering does not help are rendered all the
/// same: one in [`PROBE_EVERY`] of each shape's.
#[derive(Debug, Default)]
pub struct Probes(HashMap<String, u32>);

impl Probes {
    /// Counts a page of `shape` rendering does not help; whether it is the
    /// one to render all the same.
    pub fn is_probe(&mut self, shape: String) -> bool {
        let seen = self.0.entry(shape).or_default();
        *seen += 1;
        seen.is_multiple_of(PROBE_EVERY)
    }
}

/// Renders `page` when the crawl's mode asks for it, in place.
///
/// `always` renders every page, `auto` the item pages whose raw HTML breaks
/// the wrapper or leaves its actions something to do (see the module
/// docs). A page that cannot be rendered is read as fetched. Both the local
/// crawl and the PostgreSQL workers decide through this one function.
pub async fn render_if_wanted(
    renderer: Option<&Arc<dyn PageRenderer>>,
    wrapper: &Wrapper,
    ask: &RenderAsk<'_>,
    page: &mut Page,
) -> RenderChoice {
    let mut choice = RenderChoice::default();
    let wants = match ask.mode {
        RenderMode::Never => false,
        RenderMode::Always => true,
        RenderMode::Auto => ask.item,
    };
    let Some(renderer) = renderer.filter(|_| wants && !ask.unchanged) else {
        return choice;
    };
    let raw = (ask.mode == RenderMode::Auto).then(|| RawVerdict::of(wrapper, page));
    if let Some(raw) = &raw
        && (!raw.wants_rendering() || ask.useless)
    {
        return choice;
    }
    match renderer.render(ask.url, &wrapper.crawl.actions).await {
        Ok(rendered) => {
            let bytes = std::mem::replace(&mut page.bytes, rendered.html.into_bytes());
            let charset = page.charset.take();
            choice.rendered = true;
            if let Some(raw) = raw {
                let rendered = violations(wrapper, page);
                let helped = rendered < raw.violations
                    || (raw.actions_pending && rendered <= raw.violations);
                choice.vote = Some((url_shape(ask.queued), helped));
                if !helped {
                    page.bytes = bytes;
                    page.charset = charset;
                    choice.rendered = false;
                }
            }
        }
        Err(e) => {
            tracing::warn!(url = %ask.url, error = %e, "the page could not be rendered; read as fetched");
        }
    }
    choice
}

/// Reads `url` from the browser's navigation instead of fetching it and
/// then rendering it (`render: always`): one request, not two. robots.txt
/// and the host's gate hold as for a fetch. The browser's answer is judged
/// as the fetcher's is: a 4xx is a failure for the URL, as is a document
/// that is not HTML.
///
/// `None` when the fetcher should take the URL instead: the browser could
/// not render it, or the answer was a 429 or 5xx, which the fetcher waits
/// out and retries.
pub async fn navigate(
    renderer: &Arc<dyn PageRenderer>,
    fetcher: &Fetcher,
    wrapper: &Wrapper,
    url: &Url,
) -> Option<Result<Page, FetchFailure>> {
    let slot = match fetcher.turn(url).await {
        Ok(slot) => slot,
        Err(e) => return Some(Err(e)),
    };
    let started = tokio::time::Instant::now();
    let rendered = renderer.render(url, &wrapper.crawl.actions).await;
    let status = rendered.as_ref().ok().and_then(|r| r.status);
    slot.done(started.elapsed(), status);
    let rendered = match rendered {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(%url, error = %e, "the page could not be rendered; fetched instead");
            return None;
        }
    };
    match rendered.status {
        Some(429) | Some(500..) => return None,
        Some(status @ 400..) => {
            return Some(Err(FetchFailure::Status {
                status,
                retry_after: None,
            }));
        }
        _ => {}
    }
    if let Some(why) = crate::fetch::not_a_page_response(
        rendered.media_type.as_deref(),
        rendered.html.as_bytes(),
        None,
    ) {
        return Some(Err(FetchFailure::NotHtml(why)));
    }
    let final_url = Url::parse(&rendered.final_url).unwrap_or_else(|_| url.clone());
    Some(Ok(Page {
        name: final_url.to_string(),
        url: Some(final_url),
        bytes: rendered.html.into_bytes(),
        charset: None,
    }))
}

/// What a page's raw HTML says about rendering it.
struct RawVerdict {
    /// The wrapper's violations on the raw page.
    violations: usize,
    /// Whether the wrapper's actions have something to do on it.
    actions_pending: bool,
}

impl RawVerdict {
    fn of(wrapper: &Wrapper, page: &Page) -> RawVerdict {
        let doc = page.document();
        RawVerdict {
            violations: extract(wrapper, &doc, page.url.as_ref()).violations.len(),
            actions_pending: actions_pending(&wrapper.crawl.actions, &doc),
        }
    }

    fn wants_rendering(&self) -> bool {
        self.violations > 0 || self.actions_pending
    }
}

/// Whether the actions have something to do on a raw page: a `click`
/// target is there, a `wait_for` target is not there yet, or there are
/// scrolls to make. An XPath mend cannot read (the browser may) counts as
/// something to do.
fn actions_pending(actions: &[PageAction], doc: &Document) -> bool {
    let matches = |xpath: &str| {
        XPath::compile(xpath)
            .ok()
            .and_then(|x| x.evaluate_boolean(doc, doc.root()).ok())
    };
    actions.iter().any(|action| match action {
        PageAction::Click { xpath, .. } => matches(xpath).unwrap_or(true),
        PageAction::WaitFor { xpath, .. } => !matches(xpath).unwrap_or(false),
        PageAction::Scroll { times } => *times > 0,
    })
}

/// A URL's shape, for remembering which pages need rendering: each path
/// segment that holds a digit, `-` or `_` is a `*`.
pub fn url_shape(url: &Url) -> String {
    let path: Vec<&str> = url
        .path()
        .split('/')
        .map(|s| {
            if s.chars()
                .any(|c| c.is_ascii_digit() || c == '-' || c == '_')
            {
                "*"
            } else {
                s
            }
        })
        .collect();
    format!("{}{}", url.host_str().unwrap_or_default(), path.join("/"))
}

/// How many violations the wrapper has on `page`.
fn violations(wrapper: &Wrapper, page: &Page) -> usize {
    let doc = page.document();
    extract(wrapper, &doc, page.url.as_ref()).violations.len()
}
