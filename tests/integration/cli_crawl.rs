//! `mend crawl` against the fixture site on 127.0.0.1: the records against
//! the site's ground truth, robots.txt from the server's own log, traps,
//! `kill -9` and `--resume`, the learned frontier against breadth first, and
//! `--since`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::cli::{Mend, ROOT, Run};
use crate::support::fixture_site::{FixtureSite, SiteOptions, Truth, Variant};
use crate::support::rng::Rng;

/// The post pages' URLs: `/2024/05/a-title-7/`.
pub(crate) const POSTS: &str = r"/\d{4}/\d{2}/[^/]+-\d+/$";

/// The fixture blog's wrapper with a crawl block: `crawl` is appended.
pub(crate) fn wrapper(dir: &Path, crawl: &str) -> PathBuf {
    let blog = std::fs::read_to_string(Path::new(ROOT).join("examples/site/blog.yaml")).unwrap();
    // The shipped crawl block gives way to the test's own.
    let blog = blog.split("\ncrawl:").next().unwrap();
    let path = dir.join("blog.yaml");
    std::fs::write(&path, format!("{blog}\ncrawl:\n{crawl}")).unwrap();
    path
}

/// Fast politeness for tests: no delay, short timeouts, a small body limit.
pub(crate) const QUICK: &str =
    "  politeness: {delay: 0, timeout: 5, max_bytes: 1048576, retries: 3}\n";

/// The trap links a `fast` site keeps (a redirect loop, a 404), left out
/// where a test wants a crawl without errors.
pub(crate) const NO_TRAPS: &str = "  deny: [/loop/, /missing/]\n";

pub(crate) fn crawl(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["crawl"];
    all.extend_from_slice(args);
    Mend::new(&all).dir(dir).output().into()
}

/// The output's lines as JSON, by page.
pub(crate) fn pages(out: &Path) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(out).unwrap();
    let mut pages = BTreeMap::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let page = v["page"].as_str().unwrap().to_owned();
        assert!(pages.insert(page.clone(), v).is_none(), "{page} twice");
    }
    pages
}

#[test]
fn a_crawl_of_the_blog_extracts_every_post_as_the_site_holds_it_and_obeys_robots() {
    let site = FixtureSite::start(SiteOptions::default());
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(dir.path(), &format!("  items: '{POSTS}'\n{QUICK}"));
    let run = crawl(
        dir.path(),
        &[
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "out.ndjson",
            "--summary-json",
            "s.json",
        ],
    );
    // The loop, the huge body and the 404 are errors: exit 3.
    assert_eq!(run.code, 3, "{}", run.stderr);
    let truth = site.truth();
    let got = pages(&dir.path().join("out.ndjson"));
    let expected: Vec<&str> = truth
        .posts
        .iter()
        .filter(|p| !p.js_only)
        .map(|p| p.url.as_str())
        .collect();
    assert_eq!(got.keys().map(String::as_str).collect::<Vec<_>>(), {
        let mut e = expected.clone();
        e.sort();
        e
    });
    for post in truth.posts.iter().filter(|p| !p.js_only) {
        let record = &got[&post.url]["records"][0];
        assert_eq!(record["title"], post.title.as_str(), "{}", post.url);
        assert_eq!(record["author"], post.author.as_str(), "{}", post.url);
        assert_eq!(record["date"], post.date.as_str(), "{}", post.url);
        assert_eq!(record["body"], serde_json::json!(post.body), "{}", post.url);
        if !post.show_more {
            let comments: Vec<Value> = post
                .comments
                .iter()
                .map(|c| serde_json::json!({"who": c.who, "text": c.text}))
                .collect();
            assert_eq!(record["comments"], Value::Array(comments), "{}", post.url);
        }
    }
    // robots.txt: nothing disallowed was asked for, and every request named mend.
    let requests = site.requests();
    for r in &requests {
        assert!(!r.path.starts_with("/private/"), "fetched {}", r.path);
        assert!(
            r.user_agent
                .as_deref()
                .is_some_and(|a| a.starts_with("mend/")),
            "{r:?}"
        );
    }
    // The 429 was waited for (Retry-After: 1), the 500s retried.
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["summary"]["errors"], 3, "{summary:#}");
    assert!(
        summary["summary"]["robots_skipped"].as_u64().unwrap() >= 1,
        "{summary:#}"
    );
}

/// An uninterrupted crawl's output lines, sorted.
pub(crate) fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

#[test]
fn the_shipped_wrapper_learns_its_items_from_the_feed_and_crawls_the_blog() {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let run = crawl(
        dir.path(),
        &[
            &format!("{ROOT}/examples/site/blog.yaml"),
            &site.url(),
            "--out",
            "out.ndjson",
            "--store",
            "s/mend.db",
            "--summary-json",
            "s.json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    let rule = summary["summary"]["items_rule"].as_str().unwrap();
    assert!(rule.contains("(learned)"), "{rule}");
    let got = pages(&dir.path().join("out.ndjson"));
    let expected: Vec<String> = {
        let mut e: Vec<String> = site
            .truth()
            .posts
            .iter()
            .filter(|p| !p.js_only)
            .map(|p| p.url.clone())
            .collect();
        e.sort();
        e
    };
    assert_eq!(got.keys().cloned().collect::<Vec<_>>(), expected);
}

#[test]
#[ignore = "slow: kill -9 trials"]
fn a_crawl_killed_at_random_moments_resumes_to_the_same_output_with_nothing_twice() {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 60,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    // Slow enough to be killed in the middle: one request at a time, 10 ms apart.
    let w = wrapper(
        dir.path(),
        &format!(
            "  items: '{POSTS}'\n{NO_TRAPS}  politeness: {{delay: 0.01, concurrency: 1, timeout: 5}}\n"
        ),
    );
    let whole = crawl(
        dir.path(),
        &[
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "whole.ndjson",
            "--batch",
            "4",
            "--store",
            "whole/mend.db",
        ],
    );
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let expected = sorted_lines(&dir.path().join("whole.ndjson"));
    // Every post but the one whose content only a script writes.
    assert_eq!(
        expected.len(),
        site.truth().posts.iter().filter(|p| !p.js_only).count()
    );
    let mut rng = Rng(0x6d656e64);
    for trial in 0..10 {
        let out = format!("t{trial}.ndjson");
        let store = format!("t{trial}/mend.db");
        let mut kills = 0;
        // `--resume` with nothing to resume begins the crawl: odd trials
        // start that way, as a retry loop that always passes it would.
        let mut resume = trial % 2 == 1;
        loop {
            let mut args = vec![
                "crawl".to_owned(),
                w.display().to_string(),
                site.url(),
                "--out".to_owned(),
                out.clone(),
                "--batch".to_owned(),
                "4".to_owned(),
                "--store".to_owned(),
                store.clone(),
                "--quiet".to_owned(),
            ];
            if resume {
                args.push("--resume".to_owned());
            }
            let mut child = Command::new(env!("CARGO_BIN_EXE_mend"))
                .args(&args)
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            if kills < 3 {
                std::thread::sleep(Duration::from_millis(100 + rng.below(900) as u64));
                if child.try_wait().unwrap().is_none() {
                    child.kill().unwrap(); // SIGKILL
                    child.wait().unwrap();
                    kills += 1;
                    resume = true;
                    continue;
                }
            }
            let status = child.wait().unwrap();
            assert!(status.success(), "trial {trial}: {status:?}");
            break;
        }
        assert_eq!(
            sorted_lines(&dir.path().join(&out)),
            expected,
            "trial {trial}, {kills} kills"
        );
    }
    // Resuming a crawl that finished leaves its output as it is.
    let before = std::fs::read(dir.path().join("t0.ndjson")).unwrap();
    let again = crawl(
        dir.path(),
        &[
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "t0.ndjson",
            "--batch",
            "4",
            "--store",
            "t0/mend.db",
            "--resume",
        ],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains("nothing to resume"),
        "{}",
        again.stderr
    );
    assert_eq!(std::fs::read(dir.path().join("t0.ndjson")).unwrap(), before);
}

#[test]
fn the_learned_frontier_reaches_every_item_in_fewer_fetches_than_breadth_first() {
    let site = FixtureSite::start(SiteOptions {
        variant: Variant::Sprawl,
        fast: true,
        ..SiteOptions::default()
    });
    let truth = site.truth();
    let dir = tempfile::tempdir().unwrap();
    let mut last = Vec::new();
    for order in ["bfs", "learned"] {
        let w = wrapper(
            dir.path(),
            &format!("  items: '{POSTS}'\n  frontier: {order}\n{NO_TRAPS}{QUICK}"),
        );
        let summary = dir.path().join(format!("{order}.json"));
        let run = crawl(
            dir.path(),
            &[
                w.to_str().unwrap(),
                &site.url(),
                "--out",
                &format!("{order}.ndjson"),
                "--store",
                &format!("{order}/mend.db"),
                "--concurrency",
                "1",
                "--summary-json",
                summary.to_str().unwrap(),
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let s: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
        assert_eq!(
            s["summary"]["items"].as_u64(),
            Some(truth.item_urls.len() as u64),
            "{order}"
        );
        last.push(s["summary"]["last_item_at"].as_u64().unwrap());
    }
    let (bfs, learned) = (last[0], last[1]);
    eprintln!(
        "fetches until the last item: breadth first {bfs}, learned {learned}, ratio {:.2}",
        bfs as f64 / learned as f64
    );
    assert!(learned < bfs, "learned {learned} vs bfs {bfs}");
}

#[test]
fn since_emits_only_the_posts_changed_after_it() {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 12,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!("  items: '{POSTS}'\n{NO_TRAPS}{QUICK}"),
    );
    let (changed, got) = crawl_then_update(&site, dir.path(), &w, 3);
    assert_eq!(
        got[&changed.url]["records"][0]["body"],
        serde_json::json!(changed.body)
    );
    // The unchanged posts were asked for conditionally.
    assert!(
        site.requests()
            .iter()
            .any(|r| r.if_modified_since.is_some())
    );
}

/// Crawls the site, changes post `n`, and crawls again with `--since` a
/// time between the two: checks that the first crawl wrote every post and
/// the second only the changed one; gives that post and the second's pages.
pub(crate) fn crawl_then_update(
    site: &FixtureSite,
    dir: &Path,
    w: &Path,
    n: usize,
) -> (crate::support::fixture_site::Post, BTreeMap<String, Value>) {
    let w = w.to_str().unwrap();
    let first = crawl(dir, &[w, &site.url(), "--out", "first.ndjson"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        pages(&dir.join("first.ndjson")).len(),
        site.truth().posts.iter().filter(|p| !p.js_only).count()
    );
    let since = since_between();
    let changed = site.update_post(n);
    let update = crawl(
        dir,
        &[w, &site.url(), "--out", "update.ndjson", "--since", &since],
    );
    assert_eq!(update.code, 0, "{}", update.stderr);
    let got = pages(&dir.join("update.ndjson"));
    assert_eq!(got.keys().collect::<Vec<_>>(), [&changed.url]);
    (changed, got)
}

/// A `--since` time with a second of quiet on each side: what was written
/// before the call is older, what changes after it is newer.
pub(crate) fn since_between() -> String {
    std::thread::sleep(Duration::from_millis(1100));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    std::thread::sleep(Duration::from_millis(1100));
    chrono::DateTime::from_timestamp(now as i64, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Checks that every post's title and comments are as the site holds them.
pub(crate) fn assert_posts_as_the_site_holds(
    got: &BTreeMap<String, Value>,
    truth: &Truth,
    context: &str,
) {
    assert_eq!(got.len(), truth.posts.len(), "{context}");
    for post in &truth.posts {
        let record = &got[&post.url]["records"][0];
        assert_eq!(
            record["title"],
            post.title.as_str(),
            "{context}: {}",
            post.url
        );
        let comments: Vec<Value> = post
            .comments
            .iter()
            .map(|c| serde_json::json!({"who": c.who, "text": c.text}))
            .collect();
        assert_eq!(
            record["comments"],
            Value::Array(comments),
            "{context}: {}",
            post.url
        );
    }
}

/// Whether Chromium is here; without it, a rendering test says it is
/// skipped (see `tests/support/needs.rs`).
pub(crate) fn chromium_or_skip(test: &str) -> bool {
    crate::support::needs::chromium(&format!("cli_crawl::{test}")).is_some()
}

/// Post pages, and the post whose content only a script writes.
pub(crate) const POSTS_AND_SCRIPTED: &str = r"(/\d{4}/\d{2}/[^/]+-\d+/|/js/post-\d+/)$";

#[test]
#[ignore = "needs Chromium"]
fn rendering_reads_the_scripted_post_and_every_comment_behind_show_more() {
    if !chromium_or_skip("rendering_reads_the_scripted_post_and_every_comment_behind_show_more") {
        return;
    }
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 10,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!(
            "  items: '{POSTS_AND_SCRIPTED}'\n{NO_TRAPS}  render: always\n  settle: 0.3\n  actions:\n    - {{click: \"//button[@class='more']\", max: 10}}\n{QUICK}"
        ),
    );
    let run = crawl(
        dir.path(),
        &[w.to_str().unwrap(), &site.url(), "--out", "out.ndjson"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got = pages(&dir.path().join("out.ndjson"));
    let truth = site.truth();
    assert_posts_as_the_site_holds(&got, &truth, "render: always");
    // The chunks were asked for by the browser, as a reader's clicks would.
    assert_eq!(
        site.requests()
            .iter()
            .filter(|r| r.path.starts_with("/comments/"))
            .count(),
        3
    );
    // Each page is read from the browser's navigation: asked for once, not
    // fetched and then asked for again by the browser.
    for post in &truth.posts {
        assert_eq!(site.requests_for(&post.path).len(), 1, "{}", post.path);
    }
}

#[test]
#[ignore = "needs Chromium"]
fn render_auto_renders_only_the_pages_the_raw_html_fails() {
    if !chromium_or_skip("render_auto_renders_only_the_pages_the_raw_html_fails") {
        return;
    }
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 12,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!(
            "  items: '{POSTS_AND_SCRIPTED}'\n{NO_TRAPS}  render: auto\n  settle: 0.3\n{QUICK}"
        ),
    );
    let run = crawl(
        dir.path(),
        &[
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "out.ndjson",
            "--summary-json",
            "s.json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got = pages(&dir.path().join("out.ndjson"));
    let truth = site.truth();
    let scripted = truth.posts.iter().find(|p| p.js_only).unwrap();
    assert_eq!(
        got[&scripted.url]["records"][0]["title"],
        scripted.title.as_str()
    );
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["summary"]["rendered"], 1, "{summary:#}");
}

#[test]
#[ignore = "needs Chromium"]
fn render_auto_gets_every_scripted_value_among_pages_of_one_shape_in_every_run() {
    if !chromium_or_skip(
        "render_auto_gets_every_scripted_value_among_pages_of_one_shape_in_every_run",
    ) {
        return;
    }
    // Used to be decided once per URL shape by whichever page came first:
    // 2 of 6 scripted values, varying from run to run.
    for run in 0..5 {
        let site = FixtureSite::start(SiteOptions {
            fast: true,
            posts: 12,
            script_mix: true,
            ..SiteOptions::default()
        });
        let dir = tempfile::tempdir().unwrap();
        let w = wrapper(
            dir.path(),
            &format!(
                "  items: '{POSTS}'\n{NO_TRAPS}  render: auto\n  settle: 0.3\n  actions:\n    - {{click: \"//button[@class='more']\", max: 10}}\n{QUICK}"
            ),
        );
        let crawled = crawl(
            dir.path(),
            &[
                w.to_str().unwrap(),
                &site.url(),
                "--out",
                "out.ndjson",
                "--summary-json",
                "s.json",
            ],
        );
        assert_eq!(crawled.code, 0, "run {run}: {}", crawled.stderr);
        let got = pages(&dir.path().join("out.ndjson"));
        let truth = site.truth();
        assert_posts_as_the_site_holds(&got, &truth, &format!("run {run}"));
        // Only the pages that need a browser were rendered: a page that
        // needs none is asked for once, as `render: never` would.
        let needs: usize = truth
            .posts
            .iter()
            .filter(|p| p.js_only || p.show_more)
            .count();
        let summary: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
        assert_eq!(summary["summary"]["rendered"], needs, "run {run}");
        for post in truth.posts.iter().filter(|p| !p.js_only && !p.show_more) {
            assert_eq!(
                site.requests_for(&post.path).len(),
                1,
                "run {run}: {}",
                post.path
            );
        }
    }
}
