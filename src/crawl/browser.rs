//! Headless Chromium as a crawl's page renderer: the adapter from
//! [`crate::render::Renderer`] to [`PageRenderer`], launched with the
//! wrapper's `crawl` settings. `mend crawl` and `mend worker` both render
//! through it.
//!
//! It refuses nothing itself: a browser that cannot be found or started is
//! the [`RenderError`] of [`launch_browser`], and a page it cannot render is
//! that page's [`RenderFailure`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use url::Url;

use super::render::{PageRenderer, RenderFailure, Rendered};
use crate::render::{Action, RenderError, RenderOptions, Renderer};
use crate::wrapper::{PageAction, Wrapper};

/// Starts headless Chromium for `wrapper`'s crawl: its settle time, its
/// render timeout and its user agent (else mend's).
pub async fn launch_browser(wrapper: &Wrapper) -> Result<Arc<dyn PageRenderer>, RenderError> {
    let settings = &wrapper.crawl;
    let options = RenderOptions {
        settle: settings.settle,
        timeout: settings.render_timeout,
        executable: None,
        user_agent: Some(
            settings
                .politeness
                .user_agent
                .clone()
                .unwrap_or_else(|| super::fetcher::USER_AGENT.to_owned()),
        ),
    };
    let browser = Renderer::launch(options).await?;
    Ok(Arc::new(Browser(browser)))
}

/// Headless Chromium as the crawl's renderer.
struct Browser(Renderer);

impl PageRenderer for Browser {
    fn render<'a>(
        &'a self,
        url: &'a Url,
        actions: &'a [PageAction],
    ) -> Pin<Box<dyn Future<Output = Rendered> + Send + 'a>> {
        Box::pin(async move {
            let actions: Vec<Action> = actions.iter().map(action).collect();
            self.0
                .render(url.as_str(), &actions)
                .await
                .map_err(|e| RenderFailure(e.to_string()))
        })
    }
}

/// A wrapper's action as the browser takes it: a click goes on until what
/// it clicks is gone.
fn action(action: &PageAction) -> Action {
    match action {
        PageAction::Click { xpath, max } => Action::Click {
            xpath: xpath.clone(),
            until_gone: true,
            max_clicks: *max,
        },
        PageAction::Scroll { times } => Action::Scroll { times: *times },
        PageAction::WaitFor { xpath, timeout } => Action::WaitFor {
            xpath: xpath.clone(),
            timeout: *timeout,
        },
    }
}
