//! What the crawl asks of a browser: a page rendered, with the wrapper's
//! actions done first. The crawl holds a renderer as a trait object, so
//! that it builds and runs without a browser at all (`render: never`), and
//! tests can give it one of their own.
//!
//! ## What it refuses
//!
//! It renders nothing without a renderer, in `never` mode, or for a page
//! unchanged since the last crawl; in `auto` mode it renders no page that is
//! not an item page, and none of a URL shape decided not worth rendering. A
//! page of a new shape whose raw form has no violations is not rendered, and
//! a rendered page is kept only when it has strictly fewer violations than
//! the raw one. A page that fails to render is no error: it is read as
//! fetched, and nothing is decided for its shape.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use url::Url;

use crate::extract::extract;
use crate::fetch::Page;
use crate::wrapper::{PageAction, RenderMode, Wrapper};

/// Why a page could not be rendered.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct RenderFailure(pub String);

/// A rendered page.
pub type Rendered = Result<String, RenderFailure>;

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

/// What a crawl knows about a fetched page when it decides to render it.
#[derive(Debug, Clone, Copy)]
pub struct RenderAsk<'a> {
    /// The crawl's rendering mode.
    pub mode: RenderMode,
    /// What was decided before for pages of this URL's shape, if anything.
    pub hint: Option<bool>,
    /// Whether the page is an item page.
    pub item: bool,
    /// Whether the page is unchanged since the last crawl (never rendered).
    pub unchanged: bool,
    /// The URL as queued (its shape is what a decision is kept under).
    pub queued: &'a Url,
    /// The URL the page was fetched from, redirects followed.
    pub url: &'a Url,
}

/// Whether a page was rendered, and the decision to keep for its URL's
/// shape, when one was made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderChoice {
    /// The page's bytes are the rendered DOM.
    pub rendered: bool,
    /// The URL shape and whether its pages are worth rendering.
    pub decision: Option<(String, bool)>,
}

/// Renders `page` when the crawl's mode asks for it, in place.
///
/// `always` renders every page, `auto` item pages only: for a URL shape
/// seen before, as decided then; for a new shape, only when the raw page
/// breaks the wrapper, keeping the rendered page only when it breaks it
/// less, and deciding so for the shape. A page that cannot be rendered is
/// read as fetched. Both the local crawl and the PostgreSQL workers decide
/// through this one function.
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
        RenderMode::Auto => ask.item && ask.hint != Some(false),
    };
    let Some(renderer) = renderer.filter(|_| wants && !ask.unchanged) else {
        return choice;
    };
    let new_shape = ask.mode == RenderMode::Auto && ask.hint.is_none();
    // Unknown shape: render only if the raw page fails.
    if new_shape && violations(wrapper, page) == 0 {
        choice.decision = Some((url_shape(ask.queued), false));
        return choice;
    }
    match renderer.render(ask.url, &wrapper.crawl.actions).await {
        Ok(html) => {
            let raw = std::mem::replace(&mut page.bytes, html.into_bytes());
            let charset = page.charset.take();
            choice.rendered = true;
            if new_shape {
                let before = Page {
                    bytes: raw.clone(),
                    charset: charset.clone(),
                    ..page.clone()
                };
                let better = violations(wrapper, page) < violations(wrapper, &before);
                choice.decision = Some((url_shape(ask.queued), better));
                if !better {
                    page.bytes = raw;
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
