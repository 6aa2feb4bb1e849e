//! What the crawl asks of a browser: a page rendered, with the wrapper's
//! actions done first. The crawl holds a renderer as a trait object, so
//! that it builds and runs without a browser at all (`render: never`), and
//! tests can give it one of their own.

use std::future::Future;
use std::pin::Pin;

use url::Url;

use crate::wrapper::PageAction;

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
