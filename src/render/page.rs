//! One page in one tab: load, settle, run the actions, settle, snapshot.
//!
//! Every wait here is bounded by the page's deadline. Settling that the
//! deadline cuts short is not an error: the page is snapshotted as it is,
//! with `settled: false`, and the actions not yet run are skipped. Loading
//! that the deadline cuts short is an error only when nothing was loaded.
//!
//! ## What it refuses
//!
//! It fails with [`RenderError::Timeout`] when the deadline passes before any
//! document loaded, when a `WaitFor` does not match within its own timeout or
//! the page's, and when the snapshot does not come within [`SNAPSHOT_GRACE`]
//! past the deadline. A click whose element is missing, hidden or disabled
//! ends the action without error only with `until_gone`; otherwise it is
//! [`RenderError::Action`]. A watch takes at most [`MAX_WATCH_SNAPSHOTS`]
//! snapshots and stops once its `max` has passed. Closing a tab runs no
//! `beforeunload` handler and waits at most [`CLOSE_TIMEOUT`].

use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::target::CloseTargetParams;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::error::CdpError;
use chromiumoxide::layout::Point;
use serde::de::DeserializeOwned;
use tokio::time::{Instant, sleep, timeout_at};
use tracing::Instrument;

use super::script::{self, ClickTarget, Match, Snapshot};
use super::{Action, RenderError, RenderOptions};

/// What a page looks like once rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The document after the actions and the final settling, serialised:
    /// its doctype, if it has one, then `document.documentElement.outerHTML`.
    /// The doctype is kept so that the page is parsed again in the mode the
    /// browser parsed it in.
    pub html: String,
    /// The URL of the document snapshotted, after redirects and any
    /// navigation the actions caused.
    pub final_url: String,
    /// How many clicks the `Click` actions made, over all of them.
    pub clicks: u32,
    /// Whether the DOM settled; `false` when the page's timeout cut loading,
    /// settling or the actions short, in which case the actions not yet run
    /// were skipped and the snapshot is of the page as it was.
    pub settled: bool,
    /// The HTTP status of the navigation that loaded the document, when the
    /// browser says.
    pub status: Option<u16>,
    /// The document's media type (`text/html`, `image/png`), when the
    /// browser says.
    pub media_type: Option<String>,
}

impl Rendered {
    fn of(snapshot: Snapshot, clicks: u32, settled: bool) -> Rendered {
        Rendered {
            html: snapshot.html,
            final_url: snapshot.url,
            clicks,
            settled,
            status: (snapshot.status != 0).then_some(snapshot.status),
            media_type: (!snapshot.media_type.is_empty()).then_some(snapshot.media_type),
        }
    }
}

/// How often the DOM is looked at while it settles or while a `WaitFor`
/// waits.
const POLL: Duration = Duration::from_millis(100);

/// How long the snapshot may take once the deadline has passed; a page
/// whose script never yields does not answer at all.
pub(super) const SNAPSHOT_GRACE: Duration = Duration::from_secs(5);

/// How long closing a tab may take.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// Renders `url` in the blank tab `page` before `deadline`.
pub(super) async fn render(
    page: &Page,
    url: &str,
    actions: &[Action],
    options: &RenderOptions,
    deadline: Instant,
) -> Result<Rendered, RenderError> {
    let mut run = Run::new(page, url, options, deadline);
    let loaded = run.load().await?;
    let mut settled = loaded && run.settle().await?;
    if settled {
        for (index, action) in actions.iter().enumerate() {
            let span = tracing::debug_span!("action", index = index + 1, %action);
            if !run.act(index + 1, action).instrument(span).await? {
                settled = false;
                break;
            }
        }
        settled = settled && run.settle().await?;
    }
    if !settled {
        tracing::warn!(
            url,
            timeout_ms = options.timeout.as_millis() as u64,
            "the page did not settle in time; its snapshot is taken as it is"
        );
    }
    let snapshot = run.snapshot().await?;
    Ok(Rendered::of(snapshot, run.clicks, settled))
}

/// How often a watched page's DOM is looked at.
pub(super) const WATCH_POLL: Duration = Duration::from_millis(500);

/// The most snapshots one watch takes: a page that changes on every poll
/// (a clock with tenths) gives enough values long before this.
pub(super) const MAX_WATCH_SNAPSHOTS: usize = 40;

/// Renders `url` in the blank tab `page` (loading and settling before
/// `deadline`), then watches it as `watch` says, snapshotting each version
/// of its DOM (see [`super::Renderer::watch`]).
pub(super) async fn watch(
    page: &Page,
    url: &str,
    options: &RenderOptions,
    watch: super::Watch,
    deadline: Instant,
) -> Result<Vec<Rendered>, RenderError> {
    let mut run = Run::new(page, url, options, deadline);
    let loaded = run.load().await?;
    let settled = loaded && run.settle().await?;
    let rendered = |snapshot: Snapshot| Rendered::of(snapshot, 0, settled);
    let mut out = vec![rendered(run.snapshot().await?)];
    let started = Instant::now();
    let mut last_change = started;
    let mut version = run
        .eval::<String>(script::DOM_VERSION, Instant::now() + SNAPSHOT_GRACE)
        .await
        .ok();
    // Each poll may take up to the snapshot grace; the watch ends by then.
    run.deadline = started + watch.max;
    loop {
        let now = Instant::now();
        let watched = now.duration_since(started);
        if watched >= watch.max
            || (watched >= watch.min && now.duration_since(last_change) >= options.settle)
            || out.len() >= MAX_WATCH_SNAPSHOTS
        {
            break;
        }
        sleep(WATCH_POLL.min(watch.max - watched)).await;
        let now_version = run
            .eval::<String>(script::DOM_VERSION, Instant::now() + SNAPSHOT_GRACE)
            .await
            .ok();
        if now_version.is_some() && now_version != version {
            version = now_version;
            last_change = Instant::now();
            out.push(rendered(run.snapshot().await?));
        }
    }
    Ok(out)
}

/// A tab that is closed when it is done with, or when the render is
/// abandoned (its future dropped), so that no tab outlives its page.
pub(super) struct OpenTab {
    page: Option<Page>,
}

impl OpenTab {
    /// Takes charge of closing `page`.
    pub(super) fn new(page: Page) -> OpenTab {
        OpenTab { page: Some(page) }
    }

    /// Closes the tab; the browser answers once the close is under way, and
    /// the tab is gone a moment later.
    pub(super) async fn close(mut self) {
        if let Some(page) = self.page.take() {
            close_tab(page).await;
        }
    }
}

impl Drop for OpenTab {
    fn drop(&mut self) {
        // The render was abandoned mid-way: the tab is closed in the
        // background, since drop cannot wait.
        if let Some(page) = self.page.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(close_tab(page));
        }
    }
}

/// Closes a tab with `Target.closeTarget`, which does not wait for the
/// page's scripts (`Page.close` would run its `beforeunload` handlers, and
/// a page whose script never yields would never answer).
async fn close_tab(page: Page) {
    let target = page.target_id().clone();
    match tokio::time::timeout(CLOSE_TIMEOUT, page.execute(CloseTargetParams::new(target))).await {
        Ok(Ok(_)) => tracing::trace!("tab closed"),
        Ok(Err(e)) => tracing::warn!(error = %e, "the browser did not close a tab"),
        Err(_) => tracing::warn!("the browser did not close a tab in time"),
    }
}

/// The state of one render.
struct Run<'a> {
    page: &'a Page,
    url: &'a str,
    /// The page's timeout, for messages.
    limit: Duration,
    deadline: Instant,
    /// Clicks made so far, over every action.
    clicks: u32,
    settler: Settler,
}

/// Why an evaluation in the page gave no answer.
enum EvalError {
    /// The deadline passed first.
    Timeout,
    /// The script threw, or the page went away under it (a navigation).
    Script(String),
    /// The browser failed or the connection to it is gone.
    Browser(String),
}

impl<'a> Run<'a> {
    /// A render of `url` in `page` with `options`, to end by `deadline`.
    fn new(page: &'a Page, url: &'a str, options: &RenderOptions, deadline: Instant) -> Run<'a> {
        Run {
            page,
            url,
            limit: options.timeout,
            deadline,
            clicks: 0,
            settler: Settler::new(options.settle),
        }
    }
    /// Navigates the tab to the URL and waits for its `load` event. Gives
    /// whether it loaded in time; a page that did not but has a document
    /// (a stylesheet or an image that never comes) is still snapshotted.
    async fn load(&mut self) -> Result<bool, RenderError> {
        let started = Instant::now();
        match timeout_at(self.deadline, self.page.goto(self.url)).await {
            Ok(Ok(_)) => {
                tracing::debug!(
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "page loaded"
                );
                Ok(true)
            }
            Ok(Err(e)) => Err(RenderError::Navigate {
                url: self.url.to_owned(),
                message: e.to_string(),
            }),
            Err(_) => {
                let location = self
                    .eval::<String>("location.href", Instant::now() + SNAPSHOT_GRACE)
                    .await;
                match location {
                    Ok(location) if location != "about:blank" => Ok(false),
                    _ => Err(self.timeout("loading", self.limit)),
                }
            }
        }
    }

    /// Waits until the DOM has been quiet for the settle time; `false` when
    /// the deadline came first.
    async fn settle(&mut self) -> Result<bool, RenderError> {
        let started = Instant::now();
        loop {
            match self
                .eval::<String>(script::DOM_VERSION, self.deadline)
                .await
            {
                Ok(version) => self.settler.saw(version),
                Err(EvalError::Timeout) => return Ok(false),
                // A navigation replaced the document under the script: the
                // DOM changed.
                Err(EvalError::Script(message)) => {
                    tracing::trace!(%message, "the DOM could not be read");
                    self.settler.changed();
                }
                Err(EvalError::Browser(message)) => return Err(self.browser_failed(message)),
            }
            let now = Instant::now();
            let quiet = now.duration_since(self.settler.since);
            if quiet >= self.settler.settle {
                tracing::trace!(
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "the DOM settled"
                );
                return Ok(true);
            }
            if now >= self.deadline {
                return Ok(false);
            }
            sleep(
                POLL.min(self.settler.settle - quiet)
                    .min(self.deadline - now),
            )
            .await;
        }
    }

    /// Runs one action; `false` when the deadline cut it short.
    async fn act(&mut self, index: usize, action: &Action) -> Result<bool, RenderError> {
        match action {
            Action::Click {
                xpath,
                until_gone,
                max_clicks,
            } => {
                for done in 0..*max_clicks {
                    let target = match self
                        .eval::<ClickTarget>(&script::click(xpath), self.deadline)
                        .await
                    {
                        Ok(target) => target,
                        Err(EvalError::Timeout) => return Ok(false),
                        Err(EvalError::Script(message)) => {
                            return Err(self.action_failed(index, action, message));
                        }
                        Err(EvalError::Browser(message)) => {
                            return Err(self.browser_failed(message));
                        }
                    };
                    let absent = match target {
                        ClickTarget::Point { x, y } => {
                            match timeout_at(self.deadline, self.page.click(Point::new(x, y))).await
                            {
                                Ok(Ok(_)) => None,
                                Ok(Err(e)) => return Err(self.browser_failed(e.to_string())),
                                Err(_) => return Ok(false),
                            }
                        }
                        ClickTarget::Clicked => None,
                        ClickTarget::Disabled => Some("disabled"),
                        ClickTarget::Hidden => Some("hidden"),
                        ClickTarget::Missing => Some("not there"),
                        ClickTarget::Error { message } => {
                            return Err(self.action_failed(index, action, message));
                        }
                    };
                    if let Some(state) = absent {
                        if *until_gone {
                            tracing::debug!(clicks = done, state, "nothing more to click");
                            return Ok(true);
                        }
                        return Err(self.action_failed(
                            index,
                            action,
                            format!("after {done} clicks, the element to click is {state}"),
                        ));
                    }
                    self.clicks += 1;
                    tracing::debug!(click = done + 1, "clicked");
                    self.settler.changed();
                    if !self.settle().await? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Action::Scroll { times } => {
                for _ in 0..*times {
                    match self
                        .eval::<bool>(script::SCROLL_TO_BOTTOM, self.deadline)
                        .await
                    {
                        Ok(_) => {}
                        Err(EvalError::Timeout) => return Ok(false),
                        Err(EvalError::Script(message)) => {
                            return Err(self.action_failed(index, action, message));
                        }
                        Err(EvalError::Browser(message)) => {
                            return Err(self.browser_failed(message));
                        }
                    }
                    self.settler.changed();
                    if !self.settle().await? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Action::WaitFor { xpath, timeout } => {
                let own = Instant::now() + *timeout;
                let until = own.min(self.deadline);
                let script = script::matches(xpath);
                loop {
                    match self.eval::<Match>(&script, until).await {
                        Ok(Match::Answer { matched: true }) => return Ok(true),
                        Ok(Match::Answer { matched: false }) | Err(EvalError::Timeout) => {}
                        Ok(Match::Error { message }) | Err(EvalError::Script(message)) => {
                            return Err(self.action_failed(index, action, message));
                        }
                        Err(EvalError::Browser(message)) => {
                            return Err(self.browser_failed(message));
                        }
                    }
                    let now = Instant::now();
                    if now >= until {
                        let limit = if own <= self.deadline {
                            *timeout
                        } else {
                            self.limit
                        };
                        return Err(self.timeout(&format!("waiting for {xpath}"), limit));
                    }
                    sleep(POLL.min(until - now)).await;
                }
            }
        }
    }

    /// The document as it is now; past the deadline, the page has
    /// [`SNAPSHOT_GRACE`] to answer.
    async fn snapshot(&mut self) -> Result<Snapshot, RenderError> {
        let until = self.deadline.max(Instant::now()) + SNAPSHOT_GRACE;
        match self.eval::<Snapshot>(script::SNAPSHOT, until).await {
            Ok(snapshot) => Ok(snapshot),
            Err(EvalError::Timeout) => Err(self.timeout("taking the snapshot", self.limit)),
            Err(EvalError::Script(message) | EvalError::Browser(message)) => {
                Err(self.browser_failed(message))
            }
        }
    }

    /// Evaluates `expression` in the page and reads its value as `T`.
    async fn eval<T: DeserializeOwned>(
        &self,
        expression: &str,
        until: Instant,
    ) -> Result<T, EvalError> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(true)
            .await_promise(false)
            .build()
            .map_err(EvalError::Browser)?;
        match timeout_at(until, self.page.evaluate_expression(params)).await {
            Err(_) => Err(EvalError::Timeout),
            Ok(Ok(result)) => result
                .into_value()
                .map_err(|e| EvalError::Browser(format!("unexpected answer from the page: {e}"))),
            Ok(Err(CdpError::JavascriptException(details))) => Err(EvalError::Script(
                details
                    .exception
                    .and_then(|e| e.description)
                    .unwrap_or(details.text),
            )),
            Ok(Err(
                e @ (CdpError::Ws(_)
                | CdpError::Io(_)
                | CdpError::ChannelSendError(_)
                | CdpError::NoResponse),
            )) => Err(EvalError::Browser(e.to_string())),
            Ok(Err(e)) => Err(EvalError::Script(e.to_string())),
        }
    }

    fn timeout(&self, what: &str, limit: Duration) -> RenderError {
        RenderError::Timeout {
            url: self.url.to_owned(),
            what: what.to_owned(),
            limit,
        }
    }

    fn action_failed(&self, index: usize, action: &Action, message: String) -> RenderError {
        RenderError::Action {
            url: self.url.to_owned(),
            index,
            action: action.to_string(),
            message,
        }
    }

    fn browser_failed(&self, message: String) -> RenderError {
        RenderError::Browser {
            url: self.url.to_owned(),
            message,
        }
    }
}

/// Tells when the DOM has been quiet long enough, from the versions
/// [`script::DOM_VERSION`] gives.
struct Settler {
    /// How long the DOM must stay unchanged.
    settle: Duration,
    /// The version last seen.
    version: Option<String>,
    /// When the DOM last changed, or an action was made that may change it.
    since: Instant,
}

impl Settler {
    fn new(settle: Duration) -> Settler {
        Settler {
            settle,
            version: None,
            since: Instant::now(),
        }
    }

    /// Records the version just read.
    fn saw(&mut self, version: String) {
        if self.version.as_ref() != Some(&version) {
            self.version = Some(version);
            self.since = Instant::now();
        }
    }

    /// Starts the quiet time again: the DOM changed, or an action was just
    /// made that the page may answer only after a delay.
    fn changed(&mut self) {
        self.since = Instant::now();
    }
}
