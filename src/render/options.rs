//! How pages are rendered, and what is done on a page before its snapshot.
//!
//! ## What it refuses
//!
//! Validation refuses, as [`RenderError::InvalidOptions`], a timeout of zero
//! or longer than [`MAX_TIMEOUT`], a settle time of zero or not shorter than
//! the timeout, a user agent that is blank or holds a control character, a
//! watch whose minimum exceeds its maximum or whose maximum is over a day,
//! and an action whose XPath is empty or does not compile, or whose wait is
//! zero or over a day. A URL other than http or https is refused as
//! [`RenderError::Navigate`], so that a link cannot point the browser at
//! `file:` or `javascript:`.

use std::path::PathBuf;
use std::time::Duration;

use super::RenderError;
use crate::xpath::XPath;

/// The longest timeout accepted, for a page or a `WaitFor`: longer ones are
/// surely mistakes, and deadlines stay far from the clock's end.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// How a [`Renderer`](super::Renderer) launches its browser and decides that
/// a page is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// How long the DOM must stay unchanged for a page to count as done,
    /// after it loads and after each click or scroll.
    pub settle: Duration,
    /// The hard limit for one page, from opening its tab to its snapshot.
    pub timeout: Duration,
    /// The browser to launch; `None` looks for one with
    /// [`find_chromium`](super::find_chromium).
    pub executable: Option<PathBuf>,
    /// The `User-Agent` the browser sends; `None` keeps the browser's own.
    pub user_agent: Option<String>,
}

impl Default for RenderOptions {
    /// Half a second of quiet, thirty seconds a page, the browser found on
    /// this machine with its own user agent.
    fn default() -> Self {
        RenderOptions {
            settle: Duration::from_millis(500),
            timeout: Duration::from_secs(30),
            executable: None,
            user_agent: None,
        }
    }
}

impl RenderOptions {
    /// Checks that pages can be rendered with these options: both durations
    /// are positive, settling fits in the timeout, and the user agent is one
    /// line of text.
    pub fn validate(&self) -> Result<(), RenderError> {
        let invalid = |why: &str| Err(RenderError::InvalidOptions(why.to_owned()));
        if self.timeout.is_zero() {
            return invalid("the timeout must be longer than zero");
        }
        if self.timeout > MAX_TIMEOUT {
            return invalid("the timeout must be at most a day");
        }
        if self.settle.is_zero() {
            return invalid("the settle time must be longer than zero");
        }
        if self.settle >= self.timeout {
            return invalid("the settle time must be shorter than the timeout");
        }
        if self
            .user_agent
            .as_deref()
            .is_some_and(|ua| ua.trim().is_empty() || ua.chars().any(char::is_control))
        {
            return invalid("the user agent must be one line of text, not empty");
        }
        Ok(())
    }
}

/// How long a rendered page is watched for change after it settles, for
/// learning what changes on its own (a clock, a rotating teaser): at least
/// `min`, and, while it keeps changing, at most `max`. The Demodocus
/// crawler's settings, 8 and 20 seconds, are the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watch {
    /// The least time watched.
    pub min: Duration,
    /// The most time watched.
    pub max: Duration,
}

impl Default for Watch {
    fn default() -> Self {
        Watch {
            min: Duration::from_secs(8),
            max: Duration::from_secs(20),
        }
    }
}

impl Watch {
    /// Checks that `min` is not longer than `max`, and `max` at most a day.
    pub fn validate(&self) -> Result<(), RenderError> {
        if self.min > self.max || self.max > MAX_TIMEOUT {
            return Err(RenderError::InvalidOptions(
                "the watch must be at least as long as its minimum, and at most a day".to_owned(),
            ));
        }
        Ok(())
    }
}

/// Something done on a loaded page before its snapshot, in the order given.
/// Selectors are XPath 1.0 expressions, evaluated in the page by the
/// browser's `document.evaluate`; mend compiles each first, so that a
/// malformed one is refused with its position before a browser is involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Click the first visible element `xpath` selects, wait for the DOM to
    /// settle, and again. With `until_gone`, the clicks stop without error
    /// once no visible, enabled element matches ("Show more" that disappears
    /// after the last chunk), or after `max_clicks`. Without it, exactly
    /// `max_clicks` clicks are made, and an element missing before then is
    /// an error.
    Click {
        /// The element to click.
        xpath: String,
        /// Whether the element going away is the expected end.
        until_gone: bool,
        /// The most clicks (with `until_gone`), or the number of clicks.
        max_clicks: u32,
    },
    /// Scroll to the bottom of the page `times` times, letting the DOM settle
    /// after each (for pages that load more as they are scrolled).
    Scroll {
        /// How many times to scroll.
        times: u32,
    },
    /// Wait until `xpath` matches (a non-empty node-set, or a true, non-zero
    /// or non-empty value), failing with [`RenderError::Timeout`] after
    /// `timeout` or at the page's own timeout, whichever comes first.
    WaitFor {
        /// What must match.
        xpath: String,
        /// How long to wait at most.
        timeout: Duration,
    },
}

impl Action {
    /// Checks the action: its XPath compiles and its durations are positive.
    pub fn validate(&self) -> Result<(), RenderError> {
        match self {
            Action::Click { xpath, .. } => compiles(xpath),
            Action::Scroll { .. } => Ok(()),
            Action::WaitFor { xpath, timeout } => {
                if timeout.is_zero() || *timeout > MAX_TIMEOUT {
                    return Err(RenderError::InvalidOptions(format!(
                        "{self}: the timeout must be longer than zero and at most a day"
                    )));
                }
                compiles(xpath)
            }
        }
    }
}

impl std::fmt::Display for Action {
    /// The action in words, as errors and traces name it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Click {
                xpath,
                until_gone: true,
                max_clicks,
            } => write!(f, "click {xpath} until gone, at most {max_clicks} times"),
            Action::Click {
                xpath, max_clicks, ..
            } => write!(f, "click {xpath} {max_clicks} times"),
            Action::Scroll { times } => write!(f, "scroll to the bottom {times} times"),
            Action::WaitFor { xpath, timeout } => {
                write!(f, "wait for {xpath} at most {} ms", timeout.as_millis())
            }
        }
    }
}

/// Refuses a URL the browser is not to be pointed at: only http and https
/// pages are rendered, so that a link found on the web cannot make the
/// browser read local files (`file:`) or run code (`javascript:`).
pub(super) fn check_url(url: &str) -> Result<(), RenderError> {
    let refused = |message: String| {
        Err(RenderError::Navigate {
            url: url.to_owned(),
            message,
        })
    };
    match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => Ok(()),
        Ok(parsed) => refused(format!(
            "only http and https URLs are rendered, not {}:",
            parsed.scheme()
        )),
        Err(e) => refused(format!("not a URL: {e}")),
    }
}

/// Refuses an XPath that mend's own parser refuses, naming where it fails.
fn compiles(xpath: &str) -> Result<(), RenderError> {
    if xpath.trim().is_empty() {
        return Err(RenderError::InvalidOptions(
            "an action's XPath is empty".to_owned(),
        ));
    }
    XPath::compile(xpath)
        .map(|_| ())
        .map_err(|e| RenderError::InvalidOptions(format!("XPath {xpath:?}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(settle_ms: u64, timeout_ms: u64) -> RenderOptions {
        RenderOptions {
            settle: Duration::from_millis(settle_ms),
            timeout: Duration::from_millis(timeout_ms),
            ..RenderOptions::default()
        }
    }

    /// `Ok` or the error message.
    fn check(result: Result<(), RenderError>, expected: Result<(), &str>) {
        assert_eq!(
            result.map_err(|e| e.to_string()),
            expected.map_err(str::to_owned)
        );
    }

    #[test]
    fn the_defaults_are_valid() {
        check(RenderOptions::default().validate(), Ok(()));
    }

    #[test]
    fn durations_must_be_positive_and_settling_must_fit_in_the_timeout() {
        check(options(100, 1000).validate(), Ok(()));
        check(
            options(100, 0).validate(),
            Err("invalid render options: the timeout must be longer than zero"),
        );
        check(
            RenderOptions {
                timeout: Duration::MAX,
                ..RenderOptions::default()
            }
            .validate(),
            Err("invalid render options: the timeout must be at most a day"),
        );
        check(
            options(0, 1000).validate(),
            Err("invalid render options: the settle time must be longer than zero"),
        );
        check(
            options(1000, 1000).validate(),
            Err("invalid render options: the settle time must be shorter than the timeout"),
        );
    }

    #[test]
    fn the_user_agent_must_be_one_line() {
        let with_agent = |ua: &str| RenderOptions {
            user_agent: Some(ua.to_owned()),
            ..RenderOptions::default()
        };
        check(
            with_agent("mend/0.1 (+https://example.org)").validate(),
            Ok(()),
        );
        for bad in ["", "  ", "mend\n--remote-debugging-port=1", "mend\0"] {
            check(
                with_agent(bad).validate(),
                Err("invalid render options: the user agent must be one line of text, not empty"),
            );
        }
    }

    #[test]
    fn actions_with_malformed_xpaths_are_refused_before_rendering() {
        let click = |xpath: &str| Action::Click {
            xpath: xpath.to_owned(),
            until_gone: true,
            max_clicks: 5,
        };
        check(click("//button[.='Show more']").validate(), Ok(()));
        check(
            click("   ").validate(),
            Err("invalid render options: an action's XPath is empty"),
        );
        let err = click("//button[").validate().unwrap_err().to_string();
        assert!(
            err.starts_with("invalid render options: XPath \"//button[\": "),
            "{err}"
        );
        check(Action::Scroll { times: 0 }.validate(), Ok(()));
        check(
            Action::WaitFor {
                xpath: "//div".to_owned(),
                timeout: Duration::ZERO,
            }
            .validate(),
            Err(
                "invalid render options: wait for //div at most 0 ms: the timeout must be longer than zero and at most a day",
            ),
        );
        check(
            Action::WaitFor {
                xpath: "//div".to_owned(),
                timeout: Duration::from_secs(2 * 24 * 60 * 60),
            }
            .validate(),
            Err(
                "invalid render options: wait for //div at most 172800000 ms: the timeout must be longer than zero and at most a day",
            ),
        );
    }

    #[test]
    fn only_http_and_https_urls_are_rendered() {
        check(check_url("http://127.0.0.1:8080/a?b#c"), Ok(()));
        check(check_url("HTTPS://example.org"), Ok(()));
        check(
            check_url("file:///etc/passwd"),
            Err(
                "file:///etc/passwd: cannot load the page: only http and https URLs are rendered, not file:",
            ),
        );
        check(
            check_url("javascript:alert(1)"),
            Err(
                "javascript:alert(1): cannot load the page: only http and https URLs are rendered, not javascript:",
            ),
        );
        check(
            check_url("example.org/page"),
            Err("example.org/page: cannot load the page: not a URL: relative URL without a base"),
        );
    }

    #[test]
    fn actions_are_named_in_words() {
        let check = |action: Action, expected: &str| assert_eq!(action.to_string(), expected);
        check(
            Action::Click {
                xpath: "//a".to_owned(),
                until_gone: true,
                max_clicks: 3,
            },
            "click //a until gone, at most 3 times",
        );
        check(
            Action::Click {
                xpath: "//a".to_owned(),
                until_gone: false,
                max_clicks: 2,
            },
            "click //a 2 times",
        );
        check(Action::Scroll { times: 4 }, "scroll to the bottom 4 times");
        check(
            Action::WaitFor {
                xpath: "//li".to_owned(),
                timeout: Duration::from_secs(2),
            },
            "wait for //li at most 2000 ms",
        );
    }
}
