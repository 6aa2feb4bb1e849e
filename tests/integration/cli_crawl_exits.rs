//! How `mend crawl` ends and what it says: a host that is down, answers
//! that are not pages, budgets, rules that find nothing, an output that
//! would be overwritten, the cache a plain crawl leaves for `--since`, and
//! Ctrl-C. Each test names what used to go wrong silently.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::cli_crawl::{NO_TRAPS, POSTS, QUICK, crawl, crawl_then_update, pages, wrapper};
use crate::support::fixture_site::{FixtureSite, SiteOptions};

/// A site without traps, with `posts` posts.
fn quiet_site(posts: usize) -> FixtureSite {
    FixtureSite::start(SiteOptions {
        fast: true,
        posts,
        ..SiteOptions::default()
    })
}

fn summary(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("s.json")).unwrap()).unwrap()
}

#[test]
fn a_host_that_is_down_exits_3_and_names_its_urls() {
    let site = quiet_site(3);
    let url = site.url();
    drop(site);
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        "  politeness: {delay: 0, timeout: 2, retries: 0}\n",
    );
    let run = crawl(
        dir.path(),
        &[w.to_str().unwrap(), &url, "--out", "o.ndjson"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("failed: {url}: robots.txt could not be read")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_robots_txt_that_cannot_be_read_exits_3_and_fetches_nothing_else() {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 3,
        robots_fails: true,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        "  politeness: {delay: 0, timeout: 2, retries: 0}\n",
    );
    let run = crawl(
        dir.path(),
        &[w.to_str().unwrap(), &site.url(), "--out", "o.ndjson"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    let paths: Vec<String> = site.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/robots.txt"]);
}

#[test]
fn images_pdfs_and_json_are_errors_for_their_urls_not_records() {
    let site = quiet_site(3);
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(dir.path(), QUICK);
    let urls: Vec<String> = ["/files/cover.png", "/files/report.pdf", "/api/posts.json"]
        .iter()
        .map(|p| site.url_of(p))
        .collect();
    let mut args = vec![w.to_str().unwrap()];
    args.extend(urls.iter().map(String::as_str));
    args.extend(["--out", "o.ndjson", "--depth", "0"]);
    let run = crawl(dir.path(), &args);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("o.ndjson")).unwrap(),
        ""
    );
    for (url, what) in urls
        .iter()
        .zip(["a PNG image", "a PDF document", "application/json"])
    {
        assert!(
            run.stderr
                .contains(&format!("failed: {url}: not an HTML page"))
                && run.stderr.contains(what),
            "{url}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_calendar_trap_stops_at_the_default_depth_with_a_warning() {
    let site = quiet_site(3);
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(dir.path(), &format!("  items: '/calendar/'\n{QUICK}"));
    let run = crawl(
        dir.path(),
        &[
            w.to_str().unwrap(),
            &site.url_of("/calendar/2026-01/"),
            "--out",
            "o.ndjson",
            "--summary-json",
            "s.json",
        ],
    );
    let s = summary(dir.path());
    // Depths 0 to 1,000: the start and a thousand months after it.
    assert_eq!(s["summary"]["fetched"], 1001, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: links deeper than the depth budget (1000)"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_page_budget_warns_with_the_urls_left() {
    let site = quiet_site(12);
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!("  items: '{POSTS}'\n{NO_TRAPS}{QUICK}"),
    );
    let run = crawl(
        dir.path(),
        &[
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "o.ndjson",
            "--max-pages",
            "4",
        ],
    );
    assert!(
        run.stderr
            .contains("warning: the crawl stopped at its page budget (4 pages)"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_items_rule_that_matches_nothing_and_follow_xpaths_that_find_nothing_are_warned_of() {
    let site = quiet_site(3);
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!(
            "  items: '/no-such-page/'\n  follow: ['//a[@class=\"no-such-class\"]/@href']\n{QUICK}"
        ),
    );
    let run = crawl(
        dir.path(),
        &[w.to_str().unwrap(), &site.url(), "--out", "o.ndjson"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: no item page among the 1 pages read"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("warning: the `follow` XPaths found no link on any of the 1 pages read"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_output_that_exists_is_refused_without_force_or_resume() {
    let site = quiet_site(3);
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!("  items: '{POSTS}'\n{NO_TRAPS}{QUICK}"),
    );
    std::fs::write(dir.path().join("o.ndjson"), "yesterday's records\n").unwrap();
    let args = [w.to_str().unwrap(), &site.url(), "--out", "o.ndjson"];
    let run = crawl(dir.path(), &args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("o.ndjson")).unwrap(),
        "yesterday's records\n"
    );
    let mut forced = args.to_vec();
    forced.push("--force");
    assert_eq!(crawl(dir.path(), &forced).code, 0);
    assert_eq!(pages(&dir.path().join("o.ndjson")).len(), 3);
}

#[test]
fn failed_urls_are_listed_ten_then_counted() {
    let site = quiet_site(3);
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(dir.path(), QUICK);
    let urls: Vec<String> = (0..13)
        .map(|i| site.url_of(&format!("/missing/{i}")))
        .collect();
    let mut args = vec![w.to_str().unwrap()];
    args.extend(urls.iter().map(String::as_str));
    args.extend(["--out", "o.ndjson", "--summary-json", "s.json"]);
    let run = crawl(dir.path(), &args);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("  failed: ").count(),
        10,
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("... and 3 more failed URLs (all in --summary-json)"),
        "{}",
        run.stderr
    );
    let failures = summary(dir.path())["summary"]["failures"].clone();
    assert_eq!(failures.as_array().unwrap().len(), 13);
}

#[test]
fn a_plain_crawl_fills_the_cache_that_since_reads() {
    // Without ETag or Last-Modified, only the cache's hashes tell which
    // posts changed: a first `--since` crawl used to emit every post.
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 6,
        validators: false,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!("  items: '{POSTS}'\n{NO_TRAPS}{QUICK}"),
    );
    crawl_then_update(&site, dir.path(), &w, 2);
}

#[test]
fn ctrl_c_finishes_the_pages_in_flight_and_leaves_the_crawl_to_resume() {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 12,
        latency: Duration::from_millis(150),
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!("  items: '{POSTS}'\n{NO_TRAPS}  politeness: {{delay: 0, concurrency: 1}}\n"),
    );
    let args = [
        "crawl",
        w.to_str().unwrap(),
        &site.url(),
        "--out",
        "o.ndjson",
        "--batch",
        "1",
        "--concurrency",
        "1",
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(args)
        .current_dir(dir.path())
        .env_remove("MEND_STORE")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once a few posts are written, well before the end.
    let out = dir.path().join("o.ndjson");
    while std::fs::read_to_string(&out).map_or(0, |t| t.lines().count()) < 2 {
        std::thread::sleep(Duration::from_millis(20));
    }
    let signalled = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let stopped = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("mend: crawled"), "{stderr}");
    assert!(
        stderr.contains("warning: the crawl was stopped"),
        "{stderr}"
    );
    // Post 9 is written by a script, and the raw HTML has no post there.
    let posts = site.truth().posts.iter().filter(|p| !p.js_only).count();
    let before = pages(&out).len();
    assert!(before < posts, "{before} posts before the stop");
    let mut resume = args[1..].to_vec();
    resume.push("--resume");
    let resumed = crawl(dir.path(), &resume);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    // Every post once: none lost, none twice (`pages` refuses a repeat).
    assert_eq!(pages(&out).len(), posts);
}

#[test]
fn a_backend_file_other_users_may_read_is_refused_by_every_backend_command() {
    // A password on the command line is readable by other users from
    // /proc; a file is the way out only if it is private.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backend");
    std::fs::write(&file, "postgres://mend:secret@127.0.0.1:1/db\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let w = wrapper(dir.path(), "  politeness: {delay: 0}\n");
    let file = file.to_str().unwrap();
    let commands: [Vec<&str>; 3] = [
        vec![
            "crawl",
            w.to_str().unwrap(),
            "http://127.0.0.1:1/",
            "--backend-file",
            file,
        ],
        vec!["worker", "--backend-file", file],
        vec!["status", "--backend-file", file],
    ];
    for args in commands {
        let out = Command::new(env!("CARGO_BIN_EXE_mend"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("chmod 600"), "{args:?}: {stderr}");
        assert!(!stderr.contains("secret"), "{args:?}: {stderr}");
    }
}
