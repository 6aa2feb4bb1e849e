//! The rendering stage (`mend::render`) against pages served on 127.0.0.1
//! by a small axum server: content that exists only after JavaScript runs,
//! comments behind a "Show more comments" button loaded in three chunks, a
//! page whose DOM never settles, and waits that time out.
//!
//! These tests need a Chromium browser, found as mend finds it
//! (`MEND_CHROMIUM`, else `chromium`, `chromium-browser` or `google-chrome`
//! on `PATH`), and are `#[ignore = "needs Chromium"]` (see
//! `tests/support/needs.rs`). The tests that need no browser (a browser
//! named wrongly, malformed actions) always run.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::header::USER_AGENT;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Html;
use axum::routing::get;
use mend::render::{Action, RenderError, RenderOptions, Renderer, Watch};
use mend::{Document, XPath};

/// The browser to test with; `None`, after saying so, when there is none
/// and none is required.
fn chromium(test: &str) -> Option<PathBuf> {
    crate::support::needs::chromium(&format!("render::{test}"))
}

/// Options for a test page: a short settle time, so that the suite is
/// quick, but well above the delays the pages use between changes.
fn options(browser: PathBuf) -> RenderOptions {
    RenderOptions {
        settle: Duration::from_millis(400),
        timeout: Duration::from_secs(20),
        executable: Some(browser),
        user_agent: None,
    }
}

/// A page that has no items until its script adds five, one every 60 ms,
/// starting 150 ms after it runs.
const ITEMS: &str = r#"<!DOCTYPE html>
<html><head><title>items</title></head><body>
<div id="list"></div>
<script>
  let n = 0;
  function add() {
    const item = document.createElement("div");
    item.className = "item";
    item.textContent = "item " + (++n);
    document.getElementById("list").appendChild(item);
    if (n < 5) setTimeout(add, 60);
  }
  setTimeout(add, 150);
</script>
</body></html>"#;

/// Two comments, and a button that fetches three more per click, 150 ms
/// late, disabled while it waits, and removed after the third chunk.
const COMMENTS: &str = r#"<!DOCTYPE html>
<html><head><title>comments</title></head><body>
<ul id="comments"><li class="comment">comment 1</li><li class="comment">comment 2</li></ul>
<button id="more" type="button">Show more comments</button>
<script>
  let chunk = 0;
  const button = document.getElementById("more");
  button.addEventListener("click", async () => {
    button.disabled = true;
    chunk += 1;
    const response = await fetch("/comments/chunk/" + chunk);
    document.getElementById("comments").insertAdjacentHTML("beforeend", await response.text());
    if (chunk === 3) button.remove(); else button.disabled = false;
  });
</script>
</body></html>"#;

/// A page whose DOM changes every 50 ms, for ever.
const RESTLESS: &str = r#"<!DOCTYPE html>
<html><head><title>restless</title></head><body>
<p id="clock">0</p>
<script>
  let ticks = 0;
  setInterval(() => { document.getElementById("clock").textContent = String(++ticks); }, 50);
</script>
</body></html>"#;

/// A page whose content is all there, and whose animations change its
/// elements' `class` and `style` every 50 ms, for ever.
const CAROUSEL: &str = r#"<!DOCTYPE html>
<html><head><title>carousel</title></head><body>
<ul id="slides"><li class="slide">one</li><li class="slide">two</li></ul>
<script>
  let turn = 0;
  setInterval(() => {
    turn += 1;
    for (const [i, slide] of document.querySelectorAll(".slide").entries()) {
      slide.className = i === turn % 2 ? "slide shown" : "slide";
      slide.style.opacity = String((turn % 10) / 10);
    }
  }, 50);
</script>
</body></html>"#;

/// A page whose script never yields, 100 ms after it loads.
const HUNG: &str = r#"<!DOCTYPE html>
<html><head><title>hung</title></head><body><p>hung</p>
<script>setTimeout(() => { for (;;) {} }, 100);</script>
</body></html>"#;

/// A clock that ticks every 700 ms (slower than the tests' settle time, so
/// that the page settles between ticks), beside a heading that stays.
const CLOCK: &str = r#"<!DOCTYPE html>
<html><head><title>clock</title></head><body>
<h1>Official time</h1><p id="myTime">tick 0</p>
<script>
  let ticks = 0;
  setInterval(() => { document.getElementById("myTime").textContent = "tick " + (++ticks); }, 700);
</script>
</body></html>"#;

/// A page without scripts.
const PLAIN: &str =
    "<!DOCTYPE html><html><head><title>plain</title></head><body><p>plain</p></body></html>";

/// The fixture server: it serves the pages above, counts the chunks
/// asked for, and stops when dropped (and with the test's runtime anyway).
struct Server {
    addr: SocketAddr,
    chunks: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    async fn start() -> Server {
        let chunks = Arc::new(AtomicUsize::new(0));
        let app = Router::new()
            .route("/items", get(|| async { Html(ITEMS) }))
            .route("/comments", get(|| async { Html(COMMENTS) }))
            .route("/comments/chunk/{n}", get(chunk))
            .route("/restless", get(|| async { Html(RESTLESS) }))
            .route("/plain", get(|| async { Html(PLAIN) }))
            .route("/clock", get(|| async { Html(CLOCK) }))
            .route("/carousel", get(|| async { Html(CAROUSEL) }))
            .route("/agent", get(agent))
            .route("/hung", get(|| async { Html(HUNG) }))
            .with_state(chunks.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Server { addr, chunks, task }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Chunk `n` of the comments (1 to 3), 150 ms late; comments `3n` to
/// `3n + 2`.
async fn chunk(
    State(chunks): State<Arc<AtomicUsize>>,
    UrlPath(n): UrlPath<usize>,
) -> Result<Html<String>, StatusCode> {
    chunks.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(150)).await;
    if !(1..=3).contains(&n) {
        return Err(StatusCode::NOT_FOUND);
    }
    Ok(Html(
        (3 * n..3 * n + 3)
            .map(|i| format!(r#"<li class="comment">comment {i}</li>"#))
            .collect(),
    ))
}

/// How many tabs the browser has open once those closing are gone (or five
/// seconds have passed): a tab is closed in the background.
async fn open_tabs_soon(renderer: &Renderer) -> usize {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let open = renderer.open_tabs().await.unwrap();
        if open == 0 || Instant::now() > until {
            return open;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A page that shows the `User-Agent` it was asked with.
async fn agent(headers: HeaderMap) -> Html<String> {
    let agent = headers
        .get(USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none")
        .replace('&', "&amp;")
        .replace('<', "&lt;");
    Html(format!("<!DOCTYPE html><p id=\"agent\">{agent}</p>"))
}

/// The string-values of what `xpath` selects in `html`, parsed by mend.
fn texts(html: &str, xpath: &str) -> Vec<String> {
    let doc = Document::parse(html.as_bytes());
    XPath::compile(xpath)
        .unwrap()
        .select(&doc, doc.root())
        .unwrap()
        .into_iter()
        .map(|item| item.string_value(&doc))
        .collect()
}

fn numbered(what: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{what} {i}")).collect()
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn content_made_by_javascript_is_in_the_snapshot() {
    let Some(browser) = chromium("content_made_by_javascript_is_in_the_snapshot") else {
        return;
    };
    let server = Server::start().await;
    let renderer = Renderer::launch(options(browser)).await.unwrap();
    let page = renderer.render(&server.url("/items"), &[]).await.unwrap();
    assert!(page.settled);
    assert_eq!(page.clicks, 0);
    assert_eq!(page.final_url, server.url("/items"));
    // The navigation's answer, so that a crawl can judge it as a fetch.
    assert_eq!(page.status, Some(200));
    assert_eq!(page.media_type.as_deref(), Some("text/html"));
    assert!(
        page.html.starts_with("<!DOCTYPE html><html>"),
        "{}",
        page.html
    );
    assert_eq!(
        texts(&page.html, "//div[@class='item']"),
        numbered("item", 5)
    );
    assert_eq!(texts(&page.html, "//title"), ["items"]);
    // The page as served has none: the browser made them.
    assert!(texts(ITEMS, "//div[@class='item']").is_empty());
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn show_more_is_clicked_until_it_is_gone() {
    let Some(browser) = chromium("show_more_is_clicked_until_it_is_gone") else {
        return;
    };
    let server = Server::start().await;
    let renderer = Renderer::launch(options(browser)).await.unwrap();
    let more = Action::Click {
        xpath: "//button[normalize-space()='Show more comments']".to_owned(),
        until_gone: true,
        max_clicks: 10,
    };
    let page = renderer
        .render(&server.url("/comments"), &[more])
        .await
        .unwrap();
    assert!(page.settled);
    assert_eq!(page.clicks, 3);
    assert_eq!(server.chunks.load(Ordering::SeqCst), 3);
    assert_eq!(
        texts(&page.html, "//li[@class='comment']"),
        numbered("comment", 11)
    );
    assert!(texts(&page.html, "//button").is_empty(), "{}", page.html);
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn a_counted_click_clicks_that_many_times_and_fails_when_the_element_goes() {
    let Some(browser) =
        chromium("a_counted_click_clicks_that_many_times_and_fails_when_the_element_goes")
    else {
        return;
    };
    let server = Server::start().await;
    let renderer = Renderer::launch(options(browser)).await.unwrap();
    let more = |until_gone, max_clicks| Action::Click {
        xpath: "//button[@id='more']".to_owned(),
        until_gone,
        max_clicks,
    };
    let page = renderer
        .render(&server.url("/comments"), &[more(false, 2)])
        .await
        .unwrap();
    assert_eq!(page.clicks, 2);
    assert_eq!(
        texts(&page.html, "//li[@class='comment']"),
        numbered("comment", 8)
    );
    assert_eq!(texts(&page.html, "//button"), ["Show more comments"]);
    // A capped click stops at its cap with the button still there.
    let page = renderer
        .render(&server.url("/comments"), &[more(true, 1)])
        .await
        .unwrap();
    assert_eq!(page.clicks, 1);
    assert_eq!(texts(&page.html, "//li").len(), 5);
    // Five clicks were asked for; the button is gone after three.
    let err = renderer
        .render(&server.url("/comments"), &[more(false, 5)])
        .await
        .unwrap_err();
    match &err {
        RenderError::Action { index, message, .. } => {
            assert_eq!(*index, 1);
            assert_eq!(message, "after 3 clicks, the element to click is not there");
        }
        other => panic!("{other}"),
    }
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn a_page_that_never_settles_is_cut_at_the_timeout() {
    let Some(browser) = chromium("a_page_that_never_settles_is_cut_at_the_timeout") else {
        return;
    };
    let server = Server::start().await;
    let options = RenderOptions {
        settle: Duration::from_millis(300),
        timeout: Duration::from_secs(2),
        ..options(browser)
    };
    let renderer = Renderer::launch(options).await.unwrap();
    let page = renderer
        .render(&server.url("/restless"), &[Action::Scroll { times: 2 }])
        .await
        .unwrap();
    // Cut at the timeout, with the snapshot of the page as it was then.
    assert!(!page.settled);
    let ticks: u32 = texts(&page.html, "//p[@id='clock']")[0].parse().unwrap();
    assert!(ticks > 10, "{ticks}");
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn a_page_whose_script_never_yields_is_a_timeout_not_a_hang() {
    let Some(browser) = chromium("a_page_whose_script_never_yields_is_a_timeout_not_a_hang") else {
        return;
    };
    let server = Server::start().await;
    let options = RenderOptions {
        settle: Duration::from_millis(300),
        timeout: Duration::from_secs(2),
        ..options(browser)
    };
    let renderer = Renderer::launch(options).await.unwrap();
    // It ends, with the timeout (then five seconds' grace for the
    // snapshot, and closing the tab), not a hang.
    let err = renderer
        .render(&server.url("/hung"), &[])
        .await
        .unwrap_err();
    match &err {
        RenderError::Timeout { what, limit, .. } => {
            assert_eq!(what, "taking the snapshot");
            assert_eq!(*limit, Duration::from_secs(2));
        }
        other => panic!("{other}"),
    }
    // The browser goes on serving other pages.
    let page = renderer.render(&server.url("/plain"), &[]).await.unwrap();
    assert_eq!(texts(&page.html, "//p"), ["plain"]);
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn style_and_class_changes_do_not_keep_a_page_from_settling() {
    let Some(browser) = chromium("style_and_class_changes_do_not_keep_a_page_from_settling") else {
        return;
    };
    let server = Server::start().await;
    let options = RenderOptions {
        settle: Duration::from_millis(300),
        timeout: Duration::from_secs(5),
        ..options(browser)
    };
    let renderer = Renderer::launch(options).await.unwrap();
    let page = renderer
        .render(&server.url("/carousel"), &[])
        .await
        .unwrap();
    // Settled, not cut at the timeout: the changes that go on are not
    // changes of the DOM's content.
    assert!(page.settled);
    assert_eq!(texts(&page.html, "//li"), ["one", "two"]);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn the_user_agent_of_the_options_is_the_one_sent() {
    let Some(browser) = chromium("the_user_agent_of_the_options_is_the_one_sent") else {
        return;
    };
    let server = Server::start().await;
    let agent = "mend-test/1.0 (rendering; +http://127.0.0.1/)";
    let options = RenderOptions {
        user_agent: Some(agent.to_owned()),
        ..options(browser)
    };
    let renderer = Renderer::launch(options).await.unwrap();
    let page = renderer.render(&server.url("/agent"), &[]).await.unwrap();
    assert_eq!(texts(&page.html, "//p[@id='agent']"), [agent]);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn wait_for_fails_with_a_timeout_when_nothing_matches() {
    let Some(browser) = chromium("wait_for_fails_with_a_timeout_when_nothing_matches") else {
        return;
    };
    let server = Server::start().await;
    let renderer = Renderer::launch(options(browser)).await.unwrap();
    let wait = |xpath: &str, ms| Action::WaitFor {
        xpath: xpath.to_owned(),
        timeout: Duration::from_millis(ms),
    };
    // What appears in time is waited for.
    let page = renderer
        .render(
            &server.url("/items"),
            &[wait("count(//div[@class='item']) = 5", 5000)],
        )
        .await
        .unwrap();
    assert_eq!(texts(&page.html, "//div[@class='item']").len(), 5);
    // What never appears is not.
    let err = renderer
        .render(&server.url("/items"), &[wait("//div[@class='never']", 500)])
        .await
        .unwrap_err();
    match &err {
        RenderError::Timeout { what, limit, .. } => {
            assert_eq!(what, "waiting for //div[@class='never']");
            assert_eq!(*limit, Duration::from_millis(500));
        }
        other => panic!("{other}"),
    }
    assert!(
        err.to_string()
            .ends_with("/items: waiting for //div[@class='never'] took longer than 500 ms"),
        "{err}"
    );
    // An XPath the browser cannot evaluate is the action's error.
    let err = renderer
        .render(
            &server.url("/items"),
            &[wait("//div[matches(., 'x')]", 500)],
        )
        .await
        .unwrap_err();
    assert!(matches!(err, RenderError::Action { index: 1, .. }), "{err}");
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn a_page_that_cannot_be_loaded_is_a_navigation_error() {
    let Some(browser) = chromium("a_page_that_cannot_be_loaded_is_a_navigation_error") else {
        return;
    };
    // A port that was just free, and nothing listens on.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let renderer = Renderer::launch(options(browser)).await.unwrap();
    let err = renderer
        .render(&format!("http://{closed}/"), &[])
        .await
        .unwrap_err();
    match &err {
        RenderError::Navigate { message, .. } => {
            assert!(message.contains("ERR_CONNECTION_REFUSED"), "{message}")
        }
        other => panic!("{other}"),
    }
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    renderer.close().await;
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn pages_render_at_once_from_several_tasks_and_abandoned_ones_close_their_tab() {
    let Some(browser) =
        chromium("pages_render_at_once_from_several_tasks_and_abandoned_ones_close_their_tab")
    else {
        return;
    };
    let server = Arc::new(Server::start().await);
    let renderer = Arc::new(Renderer::launch(options(browser)).await.unwrap());
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let (renderer, server) = (renderer.clone(), server.clone());
            tokio::spawn(async move { renderer.render(&server.url("/items"), &[]).await })
        })
        .collect();
    for task in tasks {
        let page = task.await.unwrap().unwrap();
        assert_eq!(texts(&page.html, "//div[@class='item']").len(), 5);
    }
    // A render given up half-way (the restless page never settles).
    let abandoned = tokio::time::timeout(
        Duration::from_millis(800),
        renderer.render(&server.url("/restless"), &[]),
    )
    .await;
    assert!(abandoned.is_err());
    assert_eq!(open_tabs_soon(&renderer).await, 0);
    Arc::try_unwrap(renderer).ok().unwrap().close().await;
}

/// The processes of the browser: `pid` and every process below it.
fn process_tree(pid: u32) -> Vec<u32> {
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // `pid (name) state ppid ...`; the name may hold spaces.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            if ppid == Some(parent) && !tree.contains(&child) {
                tree.push(child);
            }
        }
        i += 1;
    }
    tree
}

/// Whether a process is still there (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// Waits up to five seconds for every process of `tree` to be gone.
fn all_gone(tree: &[u32]) -> Vec<u32> {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let left: Vec<u32> = tree.iter().copied().filter(|&pid| alive(pid)).collect();
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn closing_or_dropping_the_renderer_ends_the_browser_and_removes_its_profile() {
    let Some(browser) =
        chromium("closing_or_dropping_the_renderer_ends_the_browser_and_removes_its_profile")
    else {
        return;
    };
    let server = Server::start().await;
    for close in [true, false] {
        let renderer = Renderer::launch(options(browser.clone())).await.unwrap();
        renderer.render(&server.url("/items"), &[]).await.unwrap();
        let pid = renderer.browser_pid().unwrap();
        let profile: PathBuf = renderer.profile_dir().unwrap().to_path_buf();
        assert!(profile.is_dir());
        let tree = process_tree(pid);
        assert!(tree.len() > 1, "the browser has helper processes: {tree:?}");
        if close {
            renderer.close().await;
        } else {
            drop(renderer);
        }
        assert_eq!(all_gone(&tree), Vec::<u32>::new(), "close: {close}");
        assert!(!Path::new(&profile).exists(), "close: {close}");
    }
}

#[tokio::test]
async fn a_browser_named_wrongly_is_not_found_and_says_how_to_install_one() {
    let options = RenderOptions {
        executable: Some(PathBuf::from("/no/such/chromium")),
        ..RenderOptions::default()
    };
    let err = Renderer::launch(options).await.err().unwrap();
    assert!(matches!(err, RenderError::NotFound { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "no Chromium browser found (/no/such/chromium is not an executable file): install \
         the chromium package (apt-get install chromium) or set MEND_CHROMIUM to the \
         browser's path"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_program_that_is_not_a_browser_fails_to_launch() {
    let options = RenderOptions {
        executable: Some(PathBuf::from("/bin/false")),
        ..RenderOptions::default()
    };
    let err = Renderer::launch(options).await.err().unwrap();
    assert!(matches!(err, RenderError::Launch { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("cannot launch the browser /bin/false: "),
        "{err}"
    );
}

#[tokio::test]
async fn invalid_options_are_refused_before_a_browser_starts() {
    let options = RenderOptions {
        settle: Duration::from_secs(5),
        timeout: Duration::from_secs(1),
        executable: Some(PathBuf::from("/no/such/chromium")),
        user_agent: None,
    };
    let err = Renderer::launch(options).await.err().unwrap();
    assert_eq!(
        err.to_string(),
        "invalid render options: the settle time must be shorter than the timeout"
    );
}

/// Launch, a simple page, and the three-chunk page, each timed over five
/// runs; the medians are printed.
#[tokio::test]
#[ignore = "needs Chromium; measures render times (--nocapture prints them)"]
async fn render_timings() {
    let Some(browser) = chromium("render_timings") else {
        return;
    };
    let server = Server::start().await;
    let median = |mut times: Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    let (mut launch, mut plain, mut simple, mut comments) = (vec![], vec![], vec![], vec![]);
    let more = [Action::Click {
        xpath: "//button[@id='more']".to_owned(),
        until_gone: true,
        max_clicks: 10,
    }];
    for _ in 0..5 {
        let started = Instant::now();
        let renderer = Renderer::launch(options(browser.clone())).await.unwrap();
        launch.push(started.elapsed());
        let started = Instant::now();
        let page = renderer.render(&server.url("/plain"), &[]).await.unwrap();
        plain.push(started.elapsed());
        assert_eq!(texts(&page.html, "//p"), ["plain"]);
        let started = Instant::now();
        let page = renderer.render(&server.url("/items"), &[]).await.unwrap();
        simple.push(started.elapsed());
        assert!(page.settled);
        let started = Instant::now();
        let page = renderer
            .render(&server.url("/comments"), &more)
            .await
            .unwrap();
        comments.push(started.elapsed());
        assert_eq!(page.clicks, 3);
        renderer.close().await;
    }
    let (launch, plain, simple, comments) = (
        median(launch),
        median(plain),
        median(simple),
        median(comments),
    );
    println!(
        "median of 5 (settle 400 ms): launch {launch:?}, page without script {plain:?}, \
         page of five scripted items {simple:?}, three-chunk page {comments:?}"
    );
    assert!(launch < Duration::from_secs(10) && simple < Duration::from_secs(5));
}

#[tokio::test]
#[ignore = "needs Chromium"]
async fn a_watched_clock_gives_a_version_per_tick_and_its_text_is_learned_unstable() {
    let Some(browser) =
        chromium("a_watched_clock_gives_a_version_per_tick_and_its_text_is_learned_unstable")
    else {
        return;
    };
    let server = Server::start().await;
    let renderer = Renderer::launch(options(browser)).await.unwrap();
    let watch = Watch {
        min: Duration::from_secs(2),
        max: Duration::from_secs(4),
    };
    let versions = renderer.watch(&server.url("/clock"), watch).await.unwrap();
    // A tick every 0.7 s for at least 2 s: three versions at the least, the
    // watch going on while the clock kept changing, up to its maximum.
    assert!(versions.len() >= 3, "{} versions", versions.len());
    let times: Vec<String> = versions
        .iter()
        .map(|v| texts(&v.html, "//p[@id='myTime']").concat())
        .collect();
    let mut distinct = times.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        times.len(),
        "one version per tick: {times:?}"
    );
    let docs: Vec<Document> = versions
        .iter()
        .map(|v| Document::parse_str(&v.html))
        .collect();
    let mut template = mend::unstable::HtmlTemplate::from_document(&docs[0]);
    for d in &docs[1..] {
        template.add(d);
    }
    let mask = mend::unstable::TemplateMask::new(&template, &docs[0]);
    let (_, _, unstable_texts) = mask.counts();
    assert_eq!(
        unstable_texts,
        1,
        "the clock's text alone: {}",
        template.to_html()
    );
    assert!(template.to_html().contains(&times.join("||")));

    // A page that does not change is watched for the minimum only.
    let plain = renderer.watch(&server.url("/plain"), watch).await.unwrap();
    assert_eq!(plain.len(), 1);
    renderer.close().await;
}
