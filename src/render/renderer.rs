//! One headless browser serving many pages, each in a tab of its own.
//!
//! ## What it refuses
//!
//! Launching refuses invalid options before any browser starts, and fails
//! with [`RenderError::Launch`] when the browser does not start within
//! [`LAUNCH_TIMEOUT`] or does not answer. A render or a watch refuses a URL
//! other than http or https, an invalid action or watch, before a tab is
//! opened; a tab not opened by the page's deadline is a
//! [`RenderError::Timeout`]. HTTPS errors are not ignored: a certificate the
//! browser rejects fails the page. A browser that has not quit within
//! [`QUIT_TIMEOUT`] of being asked is killed.

use std::path::PathBuf;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::target::{CloseTargetParams, GetTargetsParams, TargetId};
use chromiumoxide::{Browser, BrowserConfig};
use futures_util::StreamExt;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::Instrument;

use super::locate::locate;
use super::options::check_url;
use super::page::{self, OpenTab, Rendered, SNAPSHOT_GRACE};
use super::{Action, RenderError, RenderOptions, Watch};

/// Command-line switches of the browser, besides the profile folder, the
/// user agent and what chromiumoxide adds itself (`--headless`,
/// `--no-sandbox`, a DevTools port). The background-networking switches keep
/// the browser from calling home, which on a closed network would leave
/// connections hanging; the throttling switches keep timers of tabs that are
/// not in front running at full speed, since several pages render at once.
const SWITCHES: [&str; 14] = [
    "disable-gpu",
    "disable-quic",
    "no-first-run",
    "no-default-browser-check",
    "disable-background-networking",
    "disable-component-update",
    "disable-sync",
    "disable-default-apps",
    "disable-breakpad",
    "disable-dev-shm-usage",
    "disable-background-timer-throttling",
    "disable-backgrounding-occluded-windows",
    "disable-renderer-backgrounding",
    "metrics-recording-only",
];

/// How long the browser may take to start and open its DevTools port.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the browser may take to quit when asked, before it is killed.
const QUIT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long dropping a renderer waits for the browser to exit after each
/// signal, so that its profile folder can be removed after it.
const DROP_WAIT: Duration = Duration::from_secs(2);

/// How many times removing the profile folder is tried.
const REMOVE_ATTEMPTS: u32 = 10;

/// The size of the window pages are laid out in: a common desktop size, so
/// that sites serve their desktop layout.
const WINDOW: (u32, u32) = (1366, 768);

/// A headless Chromium and the tabs it renders pages in. It is `Send` and
/// `Sync`: tasks share it by reference (or in an `Arc`) and render pages at
/// once, each in its own tab.
///
/// The browser runs with a fresh profile in a temporary folder. [`close`]
/// asks it to quit (and kills it if it does not), then removes the folder;
/// dropping the renderer without `close` kills the browser and removes the
/// folder too. It must be launched, used and dropped inside a tokio runtime.
///
/// [`close`]: Renderer::close
pub struct Renderer {
    browser: Browser,
    /// The task that carries the DevTools messages between the browser and
    /// the tabs.
    connection: JoinHandle<()>,
    /// The browser's profile folder, removed when the renderer is closed or
    /// dropped (after the browser is gone).
    profile: Option<tempfile::TempDir>,
    options: RenderOptions,
    executable: PathBuf,
    /// The browser's process id.
    pid: Option<u32>,
}

impl Renderer {
    /// Starts the browser: the executable of the options, or the one
    /// [`find_chromium`](super::find_chromium) finds.
    pub async fn launch(options: RenderOptions) -> Result<Renderer, RenderError> {
        options.validate()?;
        let executable = locate(options.executable.as_deref())?;
        let launch_failed = |message: String| RenderError::Launch {
            executable: executable.clone(),
            message,
        };
        let profile = tempfile::Builder::new()
            .prefix("mend-chromium-")
            .tempdir()
            .map_err(|e| launch_failed(format!("cannot create a profile folder: {e}")))?;
        let mut config = BrowserConfig::builder()
            .chrome_executable(&executable)
            .disable_default_args()
            .no_sandbox()
            .user_data_dir(profile.path())
            .args(SWITCHES)
            .window_size(WINDOW.0, WINDOW.1)
            .viewport(None)
            .respect_https_errors()
            // What the browser puts in the temporary folder (its singleton
            // socket, shared memory files) goes in the profile folder, and
            // goes with it, even when the browser is killed.
            .env("TMPDIR", profile.path().display().to_string())
            .launch_timeout(LAUNCH_TIMEOUT)
            // Each wait is bounded by the page's own deadline; the
            // connection's limit only needs to be beyond it.
            .request_timeout(options.timeout + SNAPSHOT_GRACE);
        if let Some(agent) = &options.user_agent {
            config = config.arg(("user-agent", agent.as_str()));
        }
        let config = config.build().map_err(launch_failed)?;
        let started = Instant::now();
        let (mut browser, mut handler) = Browser::launch(config)
            .await
            .map_err(|e| launch_failed(e.to_string()))?;
        let connection = tokio::spawn(
            async move {
                // The stream ends when the browser's connection closes; an
                // error is one message that could not be handled.
                while let Some(event) = handler.next().await {
                    if let Err(e) = event {
                        tracing::debug!(error = %e, "DevTools message not handled");
                    }
                }
                tracing::debug!("browser connection closed");
            }
            .instrument(tracing::debug_span!("browser")),
        );
        let pid = browser
            .get_mut_child()
            .and_then(|child| child.as_mut_inner().id());
        let renderer = Renderer {
            browser,
            connection,
            profile: Some(profile),
            options,
            executable,
            pid,
        };
        match renderer.browser.version().await {
            Ok(version) => tracing::info!(
                executable = %renderer.executable.display(),
                pid = renderer.pid,
                product = %version.product,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "browser launched"
            ),
            Err(e) => {
                let error = RenderError::Launch {
                    executable: renderer.executable.clone(),
                    message: format!("the browser does not answer: {e}"),
                };
                renderer.close().await;
                return Err(error);
            }
        }
        // The browser starts with a blank tab of its own, which would only
        // hold a renderer process and be counted as open.
        match renderer.page_targets().await {
            Ok(blank) => {
                for target in blank {
                    if let Err(e) = renderer
                        .browser
                        .execute(CloseTargetParams::new(target))
                        .await
                    {
                        tracing::debug!(error = %e, "the browser's first tab was not closed");
                    }
                }
            }
            Err(e) => tracing::debug!(error = %e, "the browser's tabs could not be listed"),
        }
        Ok(renderer)
    }

    /// Renders one page: loads `url` (http or https) in a new tab, waits
    /// for its DOM to settle, runs `actions` in order, waits again, and
    /// takes the snapshot. The tab is closed whatever happens, even when the
    /// future is dropped before it ends (but for a future dropped while the
    /// tab is being opened, whose tab stays until the browser is closed).
    pub async fn render(&self, url: &str, actions: &[Action]) -> Result<Rendered, RenderError> {
        check_url(url)?;
        for action in actions {
            action.validate()?;
        }
        let span = tracing::info_span!("render", url);
        async {
            let started = Instant::now();
            let deadline = started + self.options.timeout;
            let page = self.new_tab(url, deadline).await?;
            let tab = OpenTab::new(page.clone());
            let result = page::render(&page, url, actions, &self.options, deadline).await;
            tab.close().await;
            match &result {
                Ok(rendered) => tracing::debug!(
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    bytes = rendered.html.len(),
                    clicks = rendered.clicks,
                    settled = rendered.settled,
                    "page rendered"
                ),
                Err(e) => tracing::debug!(error = %e, "page not rendered"),
            }
            result
        }
        .instrument(span)
        .await
    }

    /// Renders `url` as [`Renderer::render`] does (without actions), then
    /// watches the page for change as `watch` says: the DOM is looked at
    /// every half second, and each version seen is snapshotted, the settled
    /// page first, at most 40 in all.
    /// Watching ends at `watch.max`, or once `watch.min` has passed and the
    /// DOM has been quiet for the settle time. The page's timeout bounds
    /// loading and settling; the watch comes on top of it.
    pub async fn watch(&self, url: &str, watch: Watch) -> Result<Vec<Rendered>, RenderError> {
        check_url(url)?;
        watch.validate()?;
        let span = tracing::info_span!("watch", url);
        async {
            let deadline = Instant::now() + self.options.timeout;
            let page = self.new_tab(url, deadline).await?;
            let tab = OpenTab::new(page.clone());
            let result = page::watch(&page, url, &self.options, watch, deadline).await;
            tab.close().await;
            if let Ok(versions) = &result {
                tracing::debug!(versions = versions.len(), "page watched");
            }
            result
        }
        .instrument(span)
        .await
    }

    /// Watches `url` as [`Renderer::watch`] does, `loads` times and `delay`
    /// apart, in this one browser: what changes from one load of a page to
    /// the next and within a load, as `mend learn --render` asks. The
    /// versions of each load, in order; the first load that fails ends it.
    pub async fn watch_loads(
        &self,
        url: &str,
        loads: usize,
        delay: Duration,
        watch: Watch,
    ) -> Result<Vec<Vec<Rendered>>, RenderError> {
        let mut out = Vec::new();
        for i in 0..loads {
            if i > 0 {
                tokio::time::sleep(delay).await;
            }
            out.push(self.watch(url, watch).await?);
        }
        Ok(out)
    }

    /// Opens a blank tab for the page at `url` before `deadline`.
    async fn new_tab(
        &self,
        url: &str,
        deadline: Instant,
    ) -> Result<chromiumoxide::Page, RenderError> {
        match tokio::time::timeout_at(deadline, self.browser.new_page("about:blank")).await {
            Ok(Ok(page)) => Ok(page),
            Ok(Err(e)) => Err(RenderError::Browser {
                url: url.to_owned(),
                message: format!("cannot open a tab: {e}"),
            }),
            Err(_) => Err(RenderError::Timeout {
                url: url.to_owned(),
                what: "opening a tab".to_owned(),
                limit: self.options.timeout,
            }),
        }
    }

    /// How many tabs the browser has open: none between renders, one per
    /// page being rendered.
    /// A tab is closed in the background once its page is done, and is
    /// gone from this count a moment later.
    pub async fn open_tabs(&self) -> Result<usize, RenderError> {
        self.page_targets()
            .await
            .map(|tabs| tabs.len())
            .map_err(|message| RenderError::Browser {
                url: String::new(),
                message,
            })
    }

    /// The browser's tabs.
    async fn page_targets(&self) -> Result<Vec<TargetId>, String> {
        let targets = self
            .browser
            .execute(GetTargetsParams::default())
            .await
            .map_err(|e| e.to_string())?;
        Ok(targets
            .result
            .target_infos
            .into_iter()
            .filter(|t| t.r#type == "page")
            .map(|t| t.target_id)
            .collect())
    }

    /// The browser's process id, while it runs.
    pub fn browser_pid(&self) -> Option<u32> {
        self.pid
    }

    /// The browser's profile folder, a fresh temporary one, removed when
    /// the renderer is closed or dropped.
    pub fn profile_dir(&self) -> Option<&std::path::Path> {
        self.profile.as_ref().map(|p| p.path())
    }

    /// Asks the browser to quit, kills it if it has not within a few
    /// seconds, and removes its profile folder.
    pub async fn close(mut self) {
        let started = Instant::now();
        let quit = tokio::time::timeout(QUIT_TIMEOUT, async {
            // The connection may close before the answer comes: the
            // browser's exit is what counts.
            let _ = self.browser.close().await;
            self.browser.wait().await
        })
        .await;
        if !matches!(quit, Ok(Ok(_))) {
            tracing::warn!("the browser did not quit when asked; killing it");
            if let Some(Err(e)) = self.browser.kill().await {
                tracing::warn!(error = %e, "the browser could not be killed");
            }
        }
        self.connection.abort();
        self.remove_profile();
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            "browser closed"
        );
    }

    /// Removes the profile folder, once the browser is gone. Its helper
    /// processes may outlive it by a moment and still write there, so a
    /// removal that fails is tried again a few times.
    fn remove_profile(&mut self) {
        let Some(profile) = self.profile.take() else {
            return;
        };
        let path = profile.keep();
        for attempt in 1.. {
            match std::fs::remove_dir_all(&path) {
                Ok(()) => return,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
                Err(_) if attempt < REMOVE_ATTEMPTS => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => {
                    tracing::warn!(
                        path = %path.display(),
                        error = %e,
                        "the browser's profile folder could not be removed"
                    );
                    return;
                }
            }
        }
    }
}

impl Drop for Renderer {
    /// Ends the browser (if `close` did not) and removes its profile
    /// folder.
    fn drop(&mut self) {
        self.connection.abort();
        if let Some(child) = self.browser.get_mut_child() {
            let child = child.as_mut_inner();
            if matches!(child.try_wait(), Ok(None)) {
                end(child);
            }
        }
        self.remove_profile();
    }
}

/// Ends the browser from a destructor, which cannot wait on the runtime.
/// SIGTERM first: Chromium then shuts down as when asked, ending its helper
/// processes, which SIGKILL would leave to notice on their own. SIGKILL
/// when it has not exited in [`DROP_WAIT`].
fn end(child: &mut tokio::process::Child) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process};
        // The child is not yet reaped (`try_wait` said so), so its pid is
        // still this process's child and no other.
        let pid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        if let Some(pid) = pid
            && kill_process(pid, Signal::TERM).is_ok()
            && exited_within(child, DROP_WAIT)
        {
            return;
        }
    }
    if let Err(e) = child.start_kill() {
        tracing::warn!(error = %e, "the browser could not be killed");
    }
    exited_within(child, DROP_WAIT);
}

/// Whether the child exits (and is reaped) within `limit`.
fn exited_within(child: &mut tokio::process::Child, limit: Duration) -> bool {
    let until = std::time::Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(None) if std::time::Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None) => return false,
            Ok(Some(_)) | Err(_) => return true,
        }
    }
}
