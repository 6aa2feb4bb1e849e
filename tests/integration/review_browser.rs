//! `mend review` in headless Chromium, driven with the keyboard alone: the
//! list, a proposal opened with j and Enter, approved with a and Enter,
//! another rejected with r, a reason and Enter, the first reverted by
//! tabbing to its button. After each decision the wrapper file is byte for
//! byte what the commands (`mend approve`, `mend reject`, `mend revert`)
//! leave in a twin project. Screenshots of the list and of a proposal go
//! to `target/review-screenshots/`, and axe-core checks both pages when
//! `MEND_AXE_JS` names its script (CI installs it).
//!
//! Without Chromium the test says it is skipped (and fails where
//! `MEND_REQUIRE_CHROMIUM` asks for a browser).

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, InsertTextParams,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::page::ScreenshotParams;
use chromiumoxide::{Browser, BrowserConfig, Page};
use futures_util::StreamExt;
use serde_json::Value;

use super::review_page::{Review, healed_project};
use crate::support::cli::{Mend, ROOT, bookshop_project};

#[test]
#[ignore = "needs Chromium"]
fn the_whole_review_flow_works_from_the_keyboard_and_writes_what_the_commands_write() {
    let Some(chromium) = crate::support::needs::chromium("review_browser") else {
        return;
    };
    let axe = axe_script();
    let by_commands = healed_project();
    let on_page = healed_project();
    let review = Review::start(on_page.path());
    let shots = Path::new(ROOT).join("target/review-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    runtime().block_on(async {
        let profile = tempfile::tempdir().unwrap();
        let (mut browser, connection) = launch(chromium, profile.path(), (1280, 900)).await;
        let page = browser.new_page(review.url.as_str()).await.unwrap();
        ready(&page).await;
        let wrapper = |dir: &Path| std::fs::read(dir.join("wrappers/bookshop.yaml")).unwrap();

        // The list: j selects the first row, Enter opens it.
        assert!(text(&page).await.contains("bookshop"));
        page.save_screenshot_to(&shots.join("list.png")).await;
        if let Some(axe) = &axe {
            check_axe(&page, axe, "the list").await;
        }
        key(&page, "j").await;
        key(&page, "Enter").await;
        wait_for(&page, "location.pathname.endsWith('/a/1')").await;
        ready(&page).await;
        page.save_screenshot_to(&shots.join("proposal.png")).await;
        if let Some(axe) = &axe {
            check_axe(&page, axe, "a proposal").await;
        }
        hover_links_the_pair(&page).await;

        // a takes the focus to Approve; Enter approves.
        key(&page, "a").await;
        assert_eq!(
            eval(&page, "document.activeElement.closest('form').id").await,
            "approve"
        );
        key(&page, "Enter").await;
        wait_for(
            &page,
            "document.body && document.body.innerText.includes('Approved.')",
        )
        .await;
        // The notice is on the new page before its script has run; a key
        // pressed then is lost.
        ready(&page).await;
        commands(by_commands.path(), &["approve", "1"]);
        assert_eq!(wrapper(on_page.path()), wrapper(by_commands.path()));

        // j goes to the next proposal in the list's order; r to the
        // reason; Tab to Reject.
        key(&page, "j").await;
        wait_for(&page, "!location.pathname.endsWith('/a/1')").await;
        let next = eval(&page, "location.pathname.split('/').pop()").await;
        ready(&page).await;
        key(&page, "r").await;
        assert_eq!(eval(&page, "document.activeElement.id").await, "reason");
        page.execute(InsertTextParams::new("the aside is not a book"))
            .await
            .unwrap();
        key(&page, "Tab").await;
        assert_eq!(
            eval(&page, "document.activeElement.closest('form').id").await,
            "reject"
        );
        key(&page, "Enter").await;
        wait_for(
            &page,
            "document.body && document.body.innerText.includes('Rejected.')",
        )
        .await;
        ready(&page).await;
        commands(
            by_commands.path(),
            &["reject", &next, "--reason", "the aside is not a book"],
        );
        assert_eq!(wrapper(on_page.path()), wrapper(by_commands.path()));

        // k goes back to the approved one; Tab reaches Revert.
        key(&page, "k").await;
        wait_for(&page, "location.pathname.endsWith('/a/1')").await;
        ready(&page).await;
        let mut tabs = 0;
        while eval(
            &page,
            "(document.activeElement.closest('form') || {}).id || ''",
        )
        .await
            != "revert"
        {
            tabs += 1;
            assert!(tabs < 40, "Tab never reached Revert");
            key(&page, "Tab").await;
        }
        key(&page, "Enter").await;
        wait_for(
            &page,
            "document.body && document.body.innerText.includes('Reverted.')",
        )
        .await;
        commands(by_commands.path(), &["revert", "1"]);
        assert_eq!(wrapper(on_page.path()), wrapper(by_commands.path()));

        browser.close().await.unwrap();
        browser.wait().await.unwrap();
        connection.abort();
    });
    eprintln!(
        "review_browser: screenshots in {} (list.png, proposal.png){}",
        shots.display(),
        if axe.is_some() {
            "; axe-core found nothing"
        } else {
            "; axe-core not run (set MEND_AXE_JS)"
        }
    );
}

/// Markup that a sanitizer reading the page once and a browser reading it
/// twice disagree on, each trying to run code or load from `origin`.
fn hostile_markup(origin: &str) -> String {
    format!(
        "<svg><style>&lt;img src=x onerror=&quot;fetch('{origin}/svg')&quot;&gt;</style></svg>\
         <math><mtext><mglyph><style>&lt;img src=x onerror=&quot;fetch('{origin}/math')&quot;&gt;</style></mglyph></mtext></math>\
         <svg><style>&lt;meta http-equiv=refresh content=&quot;0;url={origin}/refresh&quot;&gt;</style></svg>\
         <math><mtext><table><mglyph><style><!--</style><img title=\"--&gt;&lt;img src={origin}/title onerror=alert(1)&gt;\">\
         <img src=\"{origin}/img\" onerror=\"alert(2)\"><div style=\"background:url({origin}/css)\">bg</div>\
         <svg><image href=\"{origin}/image\"/></svg><a href=\"{origin}/link\" ping=\"{origin}/ping\">a link</a>"
    )
}

/// A server on 127.0.0.1 that counts the connections made to it, for a
/// minute at most.
struct Witness {
    origin: String,
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Witness {
    fn start() -> Witness {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let hits = std::sync::Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        std::thread::spawn(move || {
            for _ in 0..1200 {
                if listener.accept().is_ok() {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        Witness { origin, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
#[ignore = "needs Chromium"]
fn a_hostile_page_runs_and_loads_nothing_and_the_pages_fit_a_phone() {
    let Some(chromium) = crate::support::needs::chromium("review_browser") else {
        return;
    };
    let witness = Witness::start();
    let dir = bookshop_project();
    for page in ["pages/bookshop.html", "pages/bookshop-redesign.html"] {
        let path = dir.path().join(page);
        let html = std::fs::read_to_string(&path).unwrap();
        let open = html.find("<body").unwrap();
        let at = open + html[open..].find('>').unwrap() + 1;
        let hostile = format!(
            "{}{}{}",
            &html[..at],
            hostile_markup(&witness.origin),
            &html[at..]
        );
        std::fs::write(&path, hostile).unwrap();
    }
    for args in [
        &["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"][..],
        &[
            "run",
            "wrappers/bookshop.yaml",
            "pages/bookshop-redesign.html",
            "--heal",
            "propose",
        ],
    ] {
        let out = Mend::new(args).dir(dir.path()).output();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{args:?}: {out:?}"
        );
    }
    let review = Review::start(dir.path());
    runtime().block_on(async {
        let profile = tempfile::tempdir().unwrap();
        let (mut browser, connection) = launch(chromium, profile.path(), (390, 844)).await;
        let page = browser.new_page("about:blank").await.unwrap();
        // A phone: without a viewport tag the page would be laid out 980
        // pixels wide and shrunk.
        page.execute(
            chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams::new(
                390, 844, 3.0, true,
            ),
        )
        .await
        .unwrap();
        for path in ["", "a/1", "w/bookshop"] {
            page.goto(format!("{}{path}", review.url)).await.unwrap();
            ready(&page).await;
            assert_eq!(eval(&page, "String(window.innerWidth)").await, "390", "{path}");
            let overflow = eval(
                &page,
                "String(document.documentElement.scrollWidth - window.innerWidth)",
            )
            .await;
            assert_eq!(overflow, "0", "{path}: the page is wider than the phone");
        }
        // Each side's frame, opened as the frame opens it.
        for side in ["old", "new"] {
            page.goto(format!("{}a/1/page/{side}#mend-target", review.url))
                .await
                .unwrap();
            ready(&page).await;
            let live = eval(
                &page,
                "String(Array.from(document.querySelectorAll('*')).filter(e =>
                   Array.from(e.attributes).some(a => a.name.toLowerCase().startsWith('on'))).length)",
            )
            .await;
            assert_eq!(live, "0", "{side}: an element with an event handler");
            let loaders = eval(
                &page,
                "String(document.querySelectorAll('img[src], image, svg, math, meta[http-equiv], \
                   script, iframe, object, embed, link, [ping], [href]').length)",
            )
            .await;
            assert_eq!(loaders, "0", "{side}: an element that loads or runs");
            let fetched = eval(
                &page,
                "String(performance.getEntriesByType('resource').length)",
            )
            .await;
            assert_eq!(fetched, "0", "{side}: the frame fetched something");
            // The selection is where the frame opens.
            let seen = eval(
                &page,
                "(() => { const t = document.getElementById('mend-target');
                          if (!t) return 'no target';
                          const r = t.getBoundingClientRect();
                          return String(r.bottom > 0 && r.top < window.innerHeight); })()",
            )
            .await;
            assert_eq!(seen, "true", "{side}: the selection is not in view");
            assert!(text(&page).await.contains("bg"), "{side}: the page's text is gone");
        }
        browser.close().await.unwrap();
        browser.wait().await.unwrap();
        connection.abort();
    });
    assert_eq!(
        witness.hits(),
        0,
        "something was fetched from {}",
        witness.origin
    );
}

/// The runtime a browser test drives Chromium from.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Chromium at `executable`, headless, with its profile in `profile` and a
/// window of `size`; and the task that carries its messages.
async fn launch(
    executable: PathBuf,
    profile: &Path,
    size: (u32, u32),
) -> (Browser, tokio::task::JoinHandle<()>) {
    let config = BrowserConfig::builder()
        .chrome_executable(executable)
        .no_sandbox()
        .user_data_dir(profile)
        .window_size(size.0, size.1)
        .args(["disable-gpu", "disable-dev-shm-usage", "no-first-run"])
        .build()
        .unwrap();
    let (browser, mut handler) = Browser::launch(config).await.unwrap();
    let connection = tokio::spawn(async move { while handler.next().await.is_some() {} });
    (browser, connection)
}

/// The axe-core script `MEND_AXE_JS` names; where `MEND_REQUIRE_CHROMIUM`
/// asks for the browser tests, it must be there.
fn axe_script() -> Option<String> {
    match std::env::var_os("MEND_AXE_JS") {
        Some(path) => Some(std::fs::read_to_string(PathBuf::from(path)).unwrap()),
        None => {
            assert!(
                !crate::support::needs::required("MEND_REQUIRE_CHROMIUM"),
                "MEND_AXE_JS is not set, and under CI the accessibility check must run"
            );
            None
        }
    }
}

/// Runs axe-core's WCAG 2 A and AA rules on the page; fails on any
/// violation, naming the rule and the elements.
async fn check_axe(page: &Page, axe: &str, what: &str) {
    evaluate(page, axe, false).await;
    let found = evaluate(
        page,
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
           .then(r => ({
             passes: r.passes.map(p => p.id),
             violations: r.violations.map(v => v.id + ': ' + v.help + ' at '
               + v.nodes.map(n => n.target.join(' ')).join(', ')),
           }))",
        true,
    )
    .await;
    let violations = found["violations"].as_array().cloned().unwrap_or_default();
    assert!(violations.is_empty(), "axe-core on {what}: {violations:#?}");
    // The rules the issue names were run and passed, not skipped.
    let passes: Vec<&str> = found["passes"]
        .as_array()
        .map(|p| p.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for rule in ["color-contrast", "label", "html-has-lang", "document-title"] {
        assert!(
            passes.contains(&rule),
            "axe-core on {what} did not pass {rule}: {passes:?}"
        );
    }
}

/// Points the mouse at the new sub-tree's line of the first pair: it and
/// its pair in the old sub-tree are marked, and nothing else; moving away
/// unmarks them.
async fn hover_links_the_pair(page: &Page) {
    let at = evaluate(
        page,
        "(() => { const line = document.querySelectorAll('ol.tree')[1]
                      .querySelector('li[data-pair=\"0\"]');
                  line.scrollIntoView({block: 'center'});
                  const r = line.getBoundingClientRect();
                  return [r.left + 10, r.top + r.height / 2]; })()",
        false,
    )
    .await;
    let point = |x: f64, y: f64| chromiumoxide::layout::Point { x, y };
    let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
    page.move_mouse(point(x, y)).await.unwrap();
    let linked = "Array.from(document.querySelectorAll('ol.tree li.linked'))
                    .map(l => l.dataset.pair).join(',')";
    wait_for(page, &format!("{linked} === '0,0'")).await;
    page.move_mouse(point(1.0, 1.0)).await.unwrap();
    wait_for(page, &format!("{linked} === ''")).await;
}

/// Presses `name` on the keyboard, as a person would.
async fn key(page: &Page, name: &str) {
    let (code, key_code, text) = match name {
        "Enter" => ("Enter".to_owned(), 13, Some("\r".to_owned())),
        "Tab" => ("Tab".to_owned(), 9, None),
        letter => (
            format!("Key{}", letter.to_ascii_uppercase()),
            i64::from(letter.to_ascii_uppercase().as_bytes()[0]),
            Some(letter.to_owned()),
        ),
    };
    let mut down = DispatchKeyEventParams::builder()
        .key(name)
        .code(code.clone())
        .windows_virtual_key_code(key_code)
        .native_virtual_key_code(key_code);
    let kind = if let Some(text) = text {
        down = down.text(text);
        DispatchKeyEventType::KeyDown
    } else {
        DispatchKeyEventType::RawKeyDown
    };
    page.execute(down.r#type(kind).build().unwrap())
        .await
        .unwrap();
    let up = DispatchKeyEventParams::builder()
        .r#type(DispatchKeyEventType::KeyUp)
        .key(name)
        .code(code)
        .windows_virtual_key_code(key_code)
        .native_virtual_key_code(key_code)
        .build()
        .unwrap();
    page.execute(up).await.unwrap();
}

async fn evaluate(page: &Page, expression: &str, promise: bool) -> Value {
    let params = EvaluateParams::builder()
        .expression(expression)
        .return_by_value(true)
        .await_promise(promise)
        .build()
        .unwrap();
    page.evaluate_expression(params)
        .await
        .unwrap()
        .value()
        .cloned()
        .unwrap_or(Value::Null)
}

/// The string `expression` gives in the page.
async fn eval(page: &Page, expression: &str) -> String {
    match evaluate(page, expression, false).await {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

async fn text(page: &Page) -> String {
    eval(page, "document.body ? document.body.innerText : ''").await
}

/// Waits (up to ten seconds) until `condition` holds in the page; a page
/// in the middle of loading counts as not yet.
async fn wait_for(page: &Page, condition: &str) {
    let expression =
        format!("(() => {{ try {{ return !!({condition}); }} catch (e) {{ return false; }} }})()");
    for _ in 0..200 {
        let params = EvaluateParams::builder()
            .expression(expression.clone())
            .return_by_value(true)
            .build()
            .unwrap();
        if let Ok(result) = page.evaluate_expression(params).await
            && result.value() == Some(&Value::Bool(true))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let url = page.url().await.ok().flatten().unwrap_or_default();
    panic!("{condition} never held; at {url}: {}", text(page).await);
}

/// Waits until the page has loaded and its script has run.
async fn ready(page: &Page) {
    wait_for(page, "document.readyState === 'complete'").await;
}

/// Runs `mend ARGS --store ...` in `dir`; it must succeed.
fn commands(dir: &Path, args: &[&str]) {
    let mut all = args.to_vec();
    all.extend(["--store", "wrappers/.mend/mend.db"]);
    let out = Mend::new(&all).dir(dir).output();
    assert!(out.status.success(), "{all:?}: {out:?}");
}

trait Screenshot {
    async fn save_screenshot_to(&self, path: &Path);
}

impl Screenshot for Page {
    /// Saves the whole page as a PNG at `path`.
    async fn save_screenshot_to(&self, path: &Path) {
        let png = self
            .screenshot(ScreenshotParams::builder().full_page(true).build())
            .await
            .unwrap();
        std::fs::write(path, png).unwrap();
    }
}
