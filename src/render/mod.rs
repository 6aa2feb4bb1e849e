//! Rendering pages in a headless Chromium, for pages whose content exists
//! only once their JavaScript has run.
//!
//! A [`Renderer`] launches one browser (driven over the DevTools protocol by
//! chromiumoxide, on tokio) and renders many pages in it, each in a tab of
//! its own, from as many tasks as wanted. A page is done when its DOM has
//! not changed for [`RenderOptions::settle`] (nodes, text and attributes,
//! but for the `style` and `class` churn of animations), bounded by
//! [`RenderOptions::timeout`]; [`Action`]s (clicking "Show more" until it is
//! gone, scrolling to the bottom, waiting for an XPath to match) run before
//! the snapshot, each followed by settling again. The snapshot is the
//! serialised DOM, ready for `dom::Document::parse`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), mend::render::RenderError> {
//! use mend::render::{Action, RenderOptions, Renderer};
//! let renderer = Renderer::launch(RenderOptions::default()).await?;
//! let more = Action::Click {
//!     xpath: "//button[normalize-space()='Show more comments']".to_owned(),
//!     until_gone: true,
//!     max_clicks: 20,
//! };
//! let page = renderer.render("https://example.org/post/1", &[more]).await?;
//! println!("{} clicks, {} bytes", page.clicks, page.html.len());
//! renderer.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! The browser is found by [`find_chromium`] (`MEND_CHROMIUM`, else
//! `chromium`, `chromium-browser` or `google-chrome` on `PATH`); without one,
//! launching fails with [`RenderError::NotFound`], which says how to install
//! it. The browser runs without a sandbox, with a fresh profile in a
//! temporary folder, and without the background connections (updates, sync)
//! it would otherwise make; it is killed and its folder removed when the
//! renderer is closed or dropped, and every tab is closed when its page is
//! done, failed or abandoned.
//!
//! What it refuses: URLs other than http and https, zero or day-long
//! durations, a settle time not shorter than the timeout, an action whose
//! XPath mend's parser rejects. What it
//! does not do: fetch the page itself (the browser does, with its own
//! network stack and cookies), judge HTTP statuses (an error page is
//! rendered like any other), or wait for network quiet (only the DOM counts).

mod error;
mod locate;
mod options;
mod page;
mod renderer;
mod script;

pub use error::RenderError;
pub use locate::{CHROMIUM_ENV, find_chromium};
pub use options::{Action, MAX_TIMEOUT, RenderOptions, Watch};
pub use page::Rendered;
pub use renderer::Renderer;

#[cfg(test)]
mod tests {
    use super::*;

    /// Tasks share one renderer, and render futures move between threads.
    #[test]
    fn a_renderer_can_be_shared_between_tasks() {
        fn shared<T: Send + Sync>() {}
        fn sent<T: Send>(_: &T) {}
        shared::<Renderer>();
        shared::<Rendered>();
        shared::<RenderError>();
        // The future of `render` must be `Send` for `tokio::spawn`.
        fn render_future(renderer: &'static Renderer) {
            sent(&renderer.render("http://127.0.0.1/", &[]));
        }
        let _ = render_future;
    }
}
