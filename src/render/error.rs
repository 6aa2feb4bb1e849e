//! Why a page could not be rendered.
//!
//! A page's failure is not folded into the renderer's: only `NotFound`,
//! `InvalidOptions` and `Launch` concern the renderer as a whole, and the
//! others fail the one page. It does not tell apart the causes the browser
//! gives for a page that will not load (a malformed URL, a refused
//! connection, a name that does not resolve, a rejected certificate): they
//! stay in the one `Navigate` variant, in the browser's own words, which are
//! not parsed.

use std::path::PathBuf;
use std::time::Duration;

/// A failure of the browser or of one page. Only [`RenderError::NotFound`],
/// [`RenderError::InvalidOptions`] and [`RenderError::Launch`] concern the
/// renderer as a whole; the others concern the one page being rendered, and
/// the renderer goes on serving other pages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// No Chromium browser was found to launch: install the `chromium`
    /// package (or Google Chrome), or name the browser in `MEND_CHROMIUM`.
    #[error(
        "no Chromium browser found ({why}): install the chromium package \
         (apt-get install chromium) or set MEND_CHROMIUM to the browser's path"
    )]
    NotFound {
        /// Where the browser was looked for, in words.
        why: String,
    },
    /// The options or an action are not ones a page can be rendered with
    /// (a zero duration, a settle time not shorter than the timeout, an XPath
    /// that does not compile).
    #[error("invalid render options: {0}")]
    InvalidOptions(String),
    /// The browser did not start, or its DevTools connection failed.
    #[error("cannot launch the browser {}: {message}", executable.display())]
    Launch {
        /// The browser executable.
        executable: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The page could not be loaded: a malformed URL, a connection refused,
    /// a name that does not resolve, a certificate the browser rejects.
    #[error("{url}: cannot load the page: {message}")]
    Navigate {
        /// The URL asked for.
        url: String,
        /// What the browser said.
        message: String,
    },
    /// The page did not load, a `WaitFor` action did not match, or the
    /// snapshot did not come back, within the time allowed.
    #[error("{url}: {what} took longer than {}", humanize(*limit))]
    Timeout {
        /// The URL asked for.
        url: String,
        /// What was waited for, in words (`loading`, `waiting for //div`).
        what: String,
        /// The limit that was reached.
        limit: Duration,
    },
    /// An action could not be carried out: its XPath fails in the page or
    /// selects no element, or the element to click was not there.
    #[error("{url}: action {index} ({action}): {message}")]
    Action {
        /// The URL asked for.
        url: String,
        /// The action's position in the list, from 1.
        index: usize,
        /// The action, in words.
        action: String,
        /// What went wrong.
        message: String,
    },
    /// The browser stopped answering or failed a DevTools command while the
    /// page was rendered (it may have crashed).
    #[error("{url}: the browser failed: {message}")]
    Browser {
        /// The URL asked for.
        url: String,
        /// What went wrong.
        message: String,
    },
}

/// A duration in the unit a person would say it in.
fn humanize(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_to_do_and_how_long_was_waited() {
        let not_found = RenderError::NotFound {
            why: "chromium is not on PATH".to_owned(),
        };
        assert_eq!(
            not_found.to_string(),
            "no Chromium browser found (chromium is not on PATH): install the chromium \
             package (apt-get install chromium) or set MEND_CHROMIUM to the browser's path"
        );
        let check = |limit: Duration, expected: &str| {
            let timeout = RenderError::Timeout {
                url: "http://127.0.0.1/".to_owned(),
                what: "loading".to_owned(),
                limit,
            };
            assert_eq!(timeout.to_string(), expected);
        };
        check(
            Duration::from_millis(250),
            "http://127.0.0.1/: loading took longer than 250 ms",
        );
        check(
            Duration::from_millis(30_000),
            "http://127.0.0.1/: loading took longer than 30.0 s",
        );
    }
}
