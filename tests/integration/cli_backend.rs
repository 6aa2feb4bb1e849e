//! `mend crawl --backend`, `mend worker` and `mend status` against a
//! throwaway PostgreSQL (`support::postgres`) and the fixture site: one
//! worker and three give the same records; workers killed with `kill -9`
//! lose nothing and emit nothing twice; a database restart is waited out;
//! politeness holds across workers, as the site's own log shows.
//!
//! Each test is skipped, with a message, when no PostgreSQL binaries are
//! installed; `.ci/run` installs them.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::cli_crawl::{
    NO_TRAPS, POSTS, POSTS_AND_SCRIPTED, assert_posts_as_the_site_holds, chromium_or_skip, pages,
    sorted_lines, wrapper,
};
use crate::support::cli::{Mend, Run};
use crate::support::fixture_site::{FixtureSite, LoggedRequest, Roles, SiteOptions};
use crate::support::postgres::Postgres;
use crate::support::rng::Rng;

fn mend(dir: &Path, args: &[&str]) -> Run {
    Mend::new(args).dir(dir).output().into()
}

fn worker(dir: &Path, backend: &str, job: &str, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(["worker", "--backend", backend, "--job", job, "--quiet"])
        .args(extra)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for a worker; one that has not ended in two minutes is killed
/// and the test fails with what it said, rather than hanging.
fn finish(mut child: Child) {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "a worker did not end in 120 s: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "a worker failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Submits the crawl, gives the job's id.
fn submit(dir: &Path, backend: &str, w: &Path, site: &str, out: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "crawl",
        w.to_str().unwrap(),
        site,
        "--backend",
        backend,
        "--out",
        out,
        "--detach",
    ];
    args.extend_from_slice(extra);
    let run = mend(dir, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.trim().to_owned()
}

/// Submits the crawl with `extra`, works it with `workers.0` worker
/// processes of `--concurrency workers.1` each, and writes its output to
/// `out`; gives the job's id and the export's run.
fn run_job(
    dir: &Path,
    backend: &str,
    w: &Path,
    site: &str,
    out: &str,
    extra: &[&str],
    workers: (usize, &str),
) -> (String, Run) {
    let job = submit(dir, backend, w, site, out, extra);
    let children: Vec<Child> = (0..workers.0)
        .map(|_| worker(dir, backend, &job, &["--concurrency", workers.1]))
        .collect();
    children.into_iter().for_each(finish);
    let run = export(dir, backend, w, site, out);
    (job, run)
}

/// Writes the job's output once its workers are done.
fn export(dir: &Path, backend: &str, w: &Path, site: &str, out: &str) -> Run {
    mend(
        dir,
        &[
            "crawl",
            w.to_str().unwrap(),
            site,
            "--backend",
            backend,
            "--out",
            out,
            "--resume",
            "--summary-json",
            &format!("{out}.summary.json"),
        ],
    )
}

fn status(dir: &Path, backend: &str, job: &str) -> Value {
    let run = mend(
        dir,
        &["status", "--backend", backend, "--job", job, "--json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// What every test here starts from: its own PostgreSQL, the fixture blog
/// with `posts` posts (traps off, answers taking `latency`), a folder, and
/// the blog wrapper with `politeness`; `None` (the test skipped) without
/// PostgreSQL.
struct Setup {
    pg: Postgres,
    backend: String,
    site: FixtureSite,
    dir: tempfile::TempDir,
    wrapper: std::path::PathBuf,
}

fn setup(test: &str, posts: usize, latency: Duration, politeness: &str) -> Option<Setup> {
    let site = SiteOptions {
        fast: true,
        posts,
        latency,
        ..SiteOptions::default()
    };
    let crawl = format!("  items: '{POSTS}'\n{NO_TRAPS}  politeness: {{{politeness}}}\n");
    setup_with(test, site, &crawl)
}

/// The setup of a test of workers that render: Chromium as well (the test
/// skipped without it), the scripted post among the `posts`, and a wrapper
/// that renders as `render` says.
fn render_setup(test: &str, posts: usize, render: &str) -> Option<Setup> {
    if !chromium_or_skip(test) {
        return None;
    }
    let site = SiteOptions {
        fast: true,
        posts,
        ..SiteOptions::default()
    };
    let crawl = format!(
        "  items: '{POSTS_AND_SCRIPTED}'\n{NO_TRAPS}  render: {render}\n  settle: 0.3\n  politeness: {{delay: 0, concurrency: 4, timeout: 5}}\n"
    );
    setup_with(test, site, &crawl)
}

fn setup_with(test: &str, site: SiteOptions, crawl: &str) -> Option<Setup> {
    let pg = Postgres::start(test)?;
    let site = FixtureSite::start(site);
    let dir = tempfile::tempdir().unwrap();
    let wrapper = wrapper(dir.path(), crawl);
    Some(Setup {
        backend: pg.url(),
        pg,
        site,
        dir,
        wrapper,
    })
}

#[test]
#[ignore = "needs PostgreSQL"]
fn one_worker_and_three_give_the_same_records_with_no_page_twice() {
    let Some(Setup {
        pg: _pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = setup(
        "one_worker_and_three",
        30,
        Duration::ZERO,
        "delay: 0, concurrency: 4, timeout: 5",
    )
    else {
        return;
    };
    let one = mend(
        dir.path(),
        &[
            "crawl",
            w.to_str().unwrap(),
            &site.url(),
            "--backend",
            &backend,
            "--out",
            "one.ndjson",
            "--concurrency",
            "2",
        ],
    );
    assert_eq!(one.code, 0, "{}", one.stderr);
    let expected: Vec<String> = site
        .truth()
        .posts
        .iter()
        .filter(|p| !p.js_only)
        .map(|p| p.url.clone())
        .collect();
    let got = pages(&dir.path().join("one.ndjson"));
    assert_eq!(got.len(), expected.len());
    for url in &expected {
        assert!(got.contains_key(url), "{url} missing");
    }
    // The same crawl on three worker processes.
    let (job, three) = run_job(
        dir.path(),
        &backend,
        &w,
        &site.url(),
        "three.ndjson",
        &[],
        (3, "2"),
    );
    assert_eq!(three.code, 0, "{}", three.stderr);
    pages(&dir.path().join("three.ndjson")); // no page twice
    assert_eq!(
        sorted_lines(&dir.path().join("three.ndjson")),
        sorted_lines(&dir.path().join("one.ndjson"))
    );
    let s = status(dir.path(), &backend, &job);
    assert_eq!(s["finished"], true, "{s:#}");
    assert_eq!(s["queued"], 0);
    assert_eq!(s["items"].as_u64().unwrap() as usize, expected.len());
    let workers = s["workers"].as_array().unwrap();
    let by_workers: i64 = workers.iter().map(|w| w["pages"].as_i64().unwrap()).sum();
    // Each URL acknowledged once: by one worker, skipped ones included; a
    // redirect's target is recorded as done without a lease of its own.
    let read = s["done"].as_i64().unwrap() + s["failed"].as_i64().unwrap();
    let skipped = s["skipped"].as_i64().unwrap();
    assert!(
        by_workers <= read + skipped && by_workers + 2 >= read,
        "{s:#}"
    );
    assert!(workers.len() >= 3, "{s:#}");
    // Every page the site served was asked for once per job, robots.txt
    // once per job (by the submitter).
    let robots = site.requests_for("/robots.txt").len();
    assert_eq!(robots, 2, "robots.txt was read {robots} times for two jobs");
}

#[test]
#[ignore = "needs PostgreSQL"]
fn workers_killed_at_random_moments_lose_nothing_and_emit_nothing_twice() {
    let Some(Setup {
        pg: _pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = setup(
        "workers_killed_at_random_moments",
        40,
        Duration::ZERO,
        "delay: 0.01, concurrency: 2, timeout: 5",
    )
    else {
        return;
    };
    let whole = mend(
        dir.path(),
        &[
            "crawl",
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "whole.ndjson",
            "--store",
            "whole/mend.db",
        ],
    );
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let expected = sorted_lines(&dir.path().join("whole.ndjson"));
    let mut rng = Rng(0x6b696c6c);
    let mut mid_job = 0;
    for trial in 0..10 {
        let out = format!("t{trial}.ndjson");
        let job = submit(dir.path(), &backend, &w, &site.url(), &out, &[]);
        let lease = ["--lease", "1", "--concurrency", "2"];
        let mut workers: Vec<Child> = (0..3)
            .map(|_| worker(dir.path(), &backend, &job, &lease))
            .collect();
        std::thread::sleep(Duration::from_millis(50 + rng.below(600) as u64));
        let victim = rng.below(3);
        let mut killed = workers.remove(victim);
        mid_job += usize::from(killed.try_wait().unwrap().is_none());
        killed.kill().unwrap(); // SIGKILL
        killed.wait().unwrap();
        workers.into_iter().for_each(finish);
        let run = export(dir.path(), &backend, &w, &site.url(), &out);
        assert_eq!(run.code, 0, "trial {trial}: {}", run.stderr);
        pages(&dir.path().join(&out)); // no page twice
        assert_eq!(
            sorted_lines(&dir.path().join(&out)),
            expected,
            "trial {trial}: the job's output differs from the local crawl's"
        );
    }
    assert!(
        mid_job >= 8,
        "only {mid_job} of 10 kills landed while the worker ran"
    );
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_database_restart_mid_job_is_waited_out() {
    let Some(Setup {
        pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = setup(
        "a_database_restart_mid_job",
        40,
        Duration::ZERO,
        "delay: 0.02, concurrency: 1, timeout: 5",
    )
    else {
        return;
    };
    let job = submit(dir.path(), &backend, &w, &site.url(), "r.ndjson", &[]);
    let workers: Vec<Child> = (0..2)
        .map(|_| worker(dir.path(), &backend, &job, &["--lease", "2"]))
        .collect();
    std::thread::sleep(Duration::from_millis(400));
    pg.kill();
    std::thread::sleep(Duration::from_millis(1500));
    pg.restart();
    workers.into_iter().for_each(finish);
    let run = export(dir.path(), &backend, &w, &site.url(), "r.ndjson");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got = pages(&dir.path().join("r.ndjson"));
    assert_eq!(
        got.len(),
        site.truth().posts.iter().filter(|p| !p.js_only).count()
    );
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("r.ndjson.summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["status"]["finished"], true, "{summary:#}");
}

#[test]
#[ignore = "needs PostgreSQL"]
fn three_workers_keep_the_hosts_delay_and_concurrency() {
    let Some(Setup {
        pg: _pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = setup(
        "three_workers_keep_politeness",
        20,
        Duration::from_millis(60),
        "delay: 0.04, concurrency: 2, timeout: 5, autothrottle: false",
    )
    else {
        return;
    };
    let delay = Duration::from_millis(40);
    let job = submit(dir.path(), &backend, &w, &site.url(), "p.ndjson", &[]);
    let started = site.requests().len();
    let workers: Vec<Child> = (0..3)
        .map(|_| worker(dir.path(), &backend, &job, &["--concurrency", "4"]))
        .collect();
    workers.into_iter().for_each(finish);
    let log = site.requests();
    let log = &log[started..];
    assert!(log.len() > 20, "{} requests", log.len());
    // Arrivals are at least the delay apart, but for the moment between a
    // lease and its request leaving the worker. A redirect is followed
    // within its request's lease, as the local crawl follows it within its
    // slot: the request that follows a 3xx's answer is not a new one.
    let follows = |r: &LoggedRequest| {
        log.iter().any(|q| {
            q.status.is_some_and(|s| (300..400).contains(&s))
                && q.answered
                    .is_some_and(|a| a <= r.at && r.at <= a + Duration::from_millis(10))
        })
    };
    let new: Vec<&LoggedRequest> = log.iter().filter(|r| !follows(r)).collect();
    let mut gaps: Vec<Duration> = new.windows(2).map(|p| p[1].at - p[0].at).collect();
    gaps.sort();
    let tolerance = Duration::from_millis(15);
    assert!(gaps[0] + tolerance >= delay, "gaps {gaps:?}");
    assert!(
        gaps[gaps.len() / 2] >= delay,
        "median gap {:?}",
        gaps[gaps.len() / 2]
    );
    // Never more than two requests in flight at once.
    let most = log
        .iter()
        .map(|r| {
            log.iter()
                .filter(|o| o.at <= r.at && o.answered.is_none_or(|a| a > r.at))
                .count()
        })
        .max()
        .unwrap();
    assert!(most <= 2, "{most} requests in flight at once");
    // Three workers did share the job.
    let s = status(dir.path(), &backend, &job);
    let busy = s["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["pages"].as_i64().unwrap() > 0)
        .count();
    assert!(busy >= 2, "{s:#}");
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_page_budget_is_kept_exactly_by_three_workers_and_the_rest_is_skipped() {
    // The budget is handed to workers in batches of tokens; none may
    // fetch past it, and a worker's unused tokens go back to the job.
    let Some(Setup {
        pg: _pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = setup(
        "a_page_budget_is_kept_exactly",
        30,
        Duration::from_millis(5),
        "delay: 0, concurrency: 4, timeout: 5, autothrottle: false",
    )
    else {
        return;
    };
    let started = site.requests().len();
    let (job, run) = run_job(
        dir.path(),
        &backend,
        &w,
        &site.url(),
        "out.ndjson",
        &["--max-pages", "9"],
        (3, "4"),
    );
    assert!(run.code <= 1, "{}", run.stderr);
    let log = site.requests();
    let fetched: Vec<&str> = log[started..]
        .iter()
        .map(|r| r.path.as_str())
        .filter(|p| *p != "/robots.txt")
        .collect();
    let s = status(dir.path(), &backend, &job);
    assert_eq!(fetched.len(), 9, "{fetched:?} {s:#} {}", run.stderr);
    assert_eq!(s["queued"], 0, "{s:#}");
    assert_eq!(s["leased"], 0, "{s:#}");
    assert_eq!(
        s["done"].as_i64().unwrap() + s["failed"].as_i64().unwrap(),
        9,
        "{s:#}"
    );
    assert!(s["skipped"].as_i64().unwrap() > 0, "{s:#}");
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_429_holds_the_host_back_for_every_worker_and_its_url_is_fetched_again() {
    // It used to double the host's delay in one worker only, for good,
    // while that worker's tasks held all of the host's slots waiting.
    let Some(pg) = Postgres::start("a_429_holds_the_host_back") else {
        return;
    };
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        rate_limited: true,
        posts: 12,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!(
            "  items: '{POSTS}'\n{NO_TRAPS}  politeness: {{delay: 0, concurrency: 4, timeout: 5, autothrottle: false}}\n"
        ),
    );
    let (_, run) = run_job(
        dir.path(),
        &pg.url(),
        &w,
        &site.url(),
        "out.ndjson",
        &[],
        (2, "4"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let posts = site.truth().posts.iter().filter(|p| !p.js_only).count();
    assert_eq!(pages(&dir.path().join("out.ndjson")).len(), posts);
    let log = site.requests();
    let limited = log
        .iter()
        .find(|r| r.status == Some(429))
        .expect("the rate-limited post was asked for");
    assert_eq!(
        log.iter().filter(|r| r.path == limited.path).count(),
        2,
        "asked again once held back"
    );
    // `Retry-After: 1`: no worker asked the host for anything in the second
    // after the 429 but for requests already on their way.
    let answered = limited.answered.unwrap();
    let during: Vec<&str> = log
        .iter()
        .filter(|r| {
            r.at > answered + Duration::from_millis(200)
                && r.at < answered + Duration::from_millis(900)
        })
        .map(|r| r.path.as_str())
        .collect();
    assert!(during.is_empty(), "asked while held back: {during:?}");
}

#[test]
#[ignore = "needs PostgreSQL"]
fn resume_takes_only_the_job_of_this_wrapper_output_and_start_urls() {
    // A job used to be found by the wrapper's name and `--out` as typed:
    // another crawl into a file of that name took it over.
    let Some(s) = setup(
        "resume_takes_only_its_own_job",
        3,
        Duration::ZERO,
        "delay: 0",
    ) else {
        return;
    };
    let w = s.wrapper.to_str().unwrap();
    let site = s.site.url();
    let job = submit(s.dir.path(), &s.backend, &s.wrapper, &site, "o.ndjson", &[]);
    let detached = |dir: &Path, start: &str, extra: &[&str]| {
        let mut args = vec![
            "crawl",
            w,
            start,
            "--backend",
            &s.backend,
            "--out",
            "o.ndjson",
            "--detach",
        ];
        args.extend_from_slice(extra);
        let run = mend(dir, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        (run.stdout.trim().to_owned(), run.stderr)
    };
    let (again, said) = detached(s.dir.path(), &site, &["--resume"]);
    assert_eq!(again, job);
    assert!(!said.contains("a new job starts"), "{said}");
    // Another start URL, or another folder's `o.ndjson`: another job, and
    // the person is told that nothing was resumed.
    let about = s.site.url_of("/about/");
    let (other_job, said) = detached(s.dir.path(), &about, &["--resume"]);
    assert_ne!(other_job, job);
    assert!(said.contains("no job of the wrapper"), "{said}");
    assert!(said.contains("a new job starts"), "{said}");
    let elsewhere = tempfile::tempdir().unwrap();
    assert_ne!(detached(elsewhere.path(), &site, &["--resume"]).0, job);
    // A job named by its id must be this wrapper's.
    let other = s.dir.path().join("other.yaml");
    let text = std::fs::read_to_string(&s.wrapper).unwrap();
    std::fs::write(&other, text.replacen("name: ", "name: other-", 1)).unwrap();
    let run = mend(
        s.dir.path(),
        &[
            "crawl",
            other.to_str().unwrap(),
            &site,
            "--backend",
            &s.backend,
            "--job",
            &job,
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("job {job} crawls with the wrapper")),
        "{}",
        run.stderr
    );
}

/// The blog wrapper, snapshotted on the first post, whose author XPath
/// then goes stale (its class renamed): every item page needs a heal.
fn broken_wrapper(dir: &Path, site: &FixtureSite) -> std::path::PathBuf {
    stale_wrapper(dir, site, "span[@class='byline']", "")
}

/// The blog wrapper with `adapt`, snapshotted on the first post, whose
/// author step is then replaced by `author`.
fn stale_wrapper(dir: &Path, site: &FixtureSite, author: &str, adapt: &str) -> std::path::PathBuf {
    let w = wrapper(
        dir,
        &format!(
            "  items: '{POSTS}'\n{NO_TRAPS}  politeness: {{delay: 0, concurrency: 4, timeout: 5}}\n{adapt}"
        ),
    );
    let first = &site.truth().posts[0].url;
    let snap = mend(dir, &["snapshot", w.to_str().unwrap(), first]);
    assert_eq!(snap.code, 0, "{}", snap.stderr);
    let text = std::fs::read_to_string(&w).unwrap();
    let stale = text.replace("span[@class='author']", author);
    assert_ne!(stale, text);
    std::fs::write(&w, stale).unwrap();
    w
}

/// Output lines without what a page says about heals: its adaptations,
/// its fallbacks, and the proposals its records point to.
fn without_heals(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let page = v.as_object_mut().unwrap();
            page.remove("adaptations");
            page.remove("fallbacks");
            for r in page["records"].as_array_mut().unwrap() {
                r.as_object_mut().unwrap().remove("_proposals");
            }
            v
        })
        .collect()
}

/// The XPath lines of a wrapper's text.
fn xpaths(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("xpath:"))
        .map(str::to_owned)
        .collect()
}

/// The author's XPath line in a wrapper's text.
fn author_xpath(wrapper: &str) -> &str {
    wrapper
        .lines()
        .skip_while(|l| !l.contains("name: author"))
        .find(|l| l.trim_start().starts_with("xpath:"))
        .unwrap()
}

/// What each page of an output says about the author's heal, with the
/// page: its adaptations, and the pending heals that served it.
fn author_heals(out: &Path) -> Vec<(String, Value)> {
    pages(out)
        .into_iter()
        .flat_map(|(page, v)| {
            let said: Vec<Value> = ["adaptations", "fallbacks"]
                .iter()
                .flat_map(|k| v[k].as_array().cloned().unwrap_or_default())
                .filter(|a| a["pattern"] == "author")
                .collect();
            said.into_iter().map(move |a| (page.clone(), a))
        })
        .collect()
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_heal_one_worker_applies_is_the_one_every_worker_uses() {
    let Some(pg) = Postgres::start("a_heal_one_worker_applies") else {
        return;
    };
    let backend = pg.url();
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 20,
        ..SiteOptions::default()
    });
    let truth = site.truth();
    let mut outputs = Vec::new();
    let mut wrappers = Vec::new();
    for workers in [1, 3] {
        let dir = tempfile::tempdir().unwrap();
        let w = broken_wrapper(dir.path(), &site);
        let job = submit(
            dir.path(),
            &backend,
            &w,
            &site.url(),
            "h.ndjson",
            &["--heal", "auto"],
        );
        let children: Vec<Child> = (0..workers)
            .map(|_| worker(dir.path(), &backend, &job, &["--concurrency", "2"]))
            .collect();
        children.into_iter().for_each(finish);
        let run = export(dir.path(), &backend, &w, &site.url(), "h.ndjson");
        assert!(run.code <= 1, "{workers} workers: {}", run.stderr);
        let got = pages(&dir.path().join("h.ndjson"));
        for post in truth.posts.iter().filter(|p| !p.js_only) {
            let record = &got[&post.url]["records"][0];
            assert_eq!(
                record["author"],
                post.author.as_str(),
                "{workers} workers, {}",
                post.url
            );
        }
        let s = status(dir.path(), &backend, &job);
        assert!(s["wrapper_version"].as_i64().unwrap() >= 2, "{s:#}");
        assert!(s["heals"].as_i64().unwrap() >= 1, "{s:#}");
        let healed = mend(
            dir.path(),
            &["status", "--backend", &backend, "--job", &job, "--wrapper"],
        );
        assert_eq!(healed.code, 0, "{}", healed.stderr);
        assert!(
            !healed
                .stdout
                .contains("xpath: //article[@class='post']/p[@class='meta']/span[@class='byline']"),
            "{}",
            healed.stdout
        );
        // The command that wrote the records brought the job's heals home:
        // the wrapper file holds the job's XPaths, the old ones in history.
        let home = std::fs::read_to_string(&w).unwrap();
        assert_eq!(xpaths(&home), xpaths(&healed.stdout), "{home}");
        assert!(
            run.stderr.contains("author healed by the job"),
            "{}",
            run.stderr
        );
        outputs.push(sorted_lines(&dir.path().join("h.ndjson")));
        wrappers.push(healed.stdout);
    }
    // The records are the same but for what the pages that broke before
    // the heal was decided say about it: their adaptations, the pending
    // heals that served them, and the proposals their records point to.
    assert_eq!(without_heals(&outputs[0]), without_heals(&outputs[1]));
    // Every heal one worker published is what the others used: the job
    // ends on the same XPaths whatever the number of workers (the history
    // may differ: which page healed first decides the steps taken).
    assert_eq!(xpaths(&wrappers[0]), xpaths(&wrappers[1]));
}

/// Every adaptation an output cites, as `TAG:ID`: the pages' adaptations
/// that name an entry, and the records' `_proposals`.
fn cited(out: &Path) -> std::collections::BTreeSet<String> {
    let mut refs = std::collections::BTreeSet::new();
    for (_, page) in pages(out) {
        for a in page["adaptations"].as_array().into_iter().flatten() {
            if let (Some(store), Some(id)) = (a["store"].as_str(), a["id"].as_i64()) {
                refs.insert(format!("{store}:{id}"));
            }
        }
        for r in page["records"].as_array().into_iter().flatten() {
            for p in r["_proposals"].as_array().into_iter().flatten() {
                refs.insert(p.as_str().unwrap().to_owned());
            }
        }
    }
    refs
}

/// Checks that `mend show` finds every id `out` cites in the store the
/// command that wrote it brought the job home to; gives the statuses.
fn show_every_cited_id(dir: &Path, out: &Path) -> Vec<String> {
    let refs = cited(out);
    assert!(!refs.is_empty(), "the output cites no adaptation");
    refs.iter()
        .map(|r| {
            let shown = mend(dir, &["show", r, "--json", "--store", ".mend/mend.db"]);
            assert_eq!(shown.code, 0, "mend show {r}: {}", shown.stderr);
            let v: Value = serde_json::from_str(&shown.stdout).unwrap();
            v["status"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
#[ignore = "needs PostgreSQL"]
fn after_an_auto_job_every_id_the_output_cites_is_an_entry_of_the_users_store() {
    let Some(pg) = Postgres::start("after_an_auto_job_every_id_the_output_cites") else {
        return;
    };
    let backend = pg.url();
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 12,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = broken_wrapper(dir.path(), &site);
    let (job, run) = run_job(
        dir.path(),
        &backend,
        &w,
        &site.url(),
        "h.ndjson",
        &["--heal", "auto"],
        (3, "2"),
    );
    assert!(run.code <= 1, "{}", run.stderr);
    let out = dir.path().join("h.ndjson");
    // The heal the workers applied is an applied entry at home, tied to the
    // change that wrote it, and every page that cites it names it.
    let statuses = show_every_cited_id(dir.path(), &out);
    assert!(statuses.iter().any(|s| s == "applied"), "{statuses:?}");
    let log = mend(dir.path(), &["log", "--json", "--store", ".mend/mend.db"]);
    let entries: Vec<Value> = serde_json::from_str(&log.stdout).unwrap();
    let applied: Vec<&Value> = entries
        .iter()
        .filter(|e| e["pattern"] == "author" && e["status"] == "applied")
        .collect();
    assert_eq!(applied.len(), 1, "{}", log.stdout);
    // `mend status --adaptations` names the same entries.
    let listed = mend(
        dir.path(),
        &[
            "status",
            "--backend",
            &backend,
            "--job",
            &job,
            "--adaptations",
            "--json",
        ],
    );
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let listed: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(listed["brought_home"], true);

    let entries: std::collections::BTreeSet<String> = listed["heals"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["entry"].as_str().map(str::to_owned))
        .collect();
    assert!(cited(&out).is_subset(&entries), "{listed:#}");
    // Writing the output again cites the same entries and records nothing
    // twice.
    let before = std::fs::read_to_string(&out).unwrap();
    let count = |dir: &Path| {
        let log = mend(dir, &["log", "--json", "--store", ".mend/mend.db"]);
        serde_json::from_str::<Vec<Value>>(&log.stdout)
            .unwrap()
            .len()
    };
    let stored = count(dir.path());
    let again = export(dir.path(), &backend, &w, &site.url(), "h.ndjson");
    assert!(again.code <= 1, "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), before);
    assert_eq!(count(dir.path()), stored);
    // The applied heal can be taken back like a local run's.
    let id = &applied[0]["id"];
    let reverted = mend(
        dir.path(),
        &["revert", &id.to_string(), "--store", ".mend/mend.db"],
    );
    assert_eq!(reverted.code, 0, "{}{}", reverted.stdout, reverted.stderr);
    assert!(
        std::fs::read_to_string(&w)
            .unwrap()
            .contains("span[@class='byline']")
    );
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_heal_is_written_once_it_held_on_min_pages_pages_counted_across_workers() {
    let Some(pg) = Postgres::start("a_heal_is_written_once_it_held_on_min_pages") else {
        return;
    };
    let backend = pg.url();
    // Answers take long enough that all three workers hold pages before
    // any of them has read four.
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 20,
        latency: Duration::from_millis(80),
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = stale_wrapper(
        dir.path(),
        &site,
        "span[@class='byline']",
        "adapt: {min_pages: 4}\n",
    );
    let (job, run) = run_job(
        dir.path(),
        &backend,
        &w,
        &site.url(),
        "h.ndjson",
        &["--heal", "auto"],
        (3, "1"),
    );
    assert!(run.code <= 1, "{}", run.stderr);
    let out = dir.path().join("h.ndjson");
    let got = pages(&out);
    for post in site.truth().posts.iter().filter(|p| !p.js_only) {
        assert_eq!(got[&post.url]["records"][0]["author"], post.author.as_str());
    }
    // One decision for the job: the wrapper moved one version on.
    assert_eq!(pg.query("SELECT wrapper_version FROM mend_jobs"), ["2"]);
    // It was taken on pages that several workers read, at least four.
    let voted = pg.query(
        "SELECT count(*), count(DISTINCT worker) FROM mend_heal_pages
         WHERE wrapper_version = 1 AND pattern = 'author' AND new_xpath IS NOT NULL",
    );
    let (held, workers) = voted[0].split_once('|').unwrap();
    let (held, workers): (u32, u32) = (held.parse().unwrap(), workers.parse().unwrap());
    assert!(held >= 4 && workers >= 2, "{voted:?}");
    // The pages before it say how far the heal was; none of them says it
    // was applied with fewer than four pages.
    let heals = author_heals(&out);
    let waiting: Vec<&str> = heals
        .iter()
        .filter(|(_, a)| a["status"] == "proposed" || a["pending"] == true)
        .map(|(_, a)| a["reason"].as_str().unwrap())
        .collect();
    assert!(!waiting.is_empty(), "{heals:?}");
    for reason in &waiting {
        assert!(
            reason.starts_with("not applied yet: held on ")
                && reason.ends_with(
                    " of the 4 pages adapt.min_pages asks for, across the job's workers"
                )
                && !reason.contains("held on 4 "),
            "{reason}"
        );
    }
    let applied: Vec<&Value> = heals
        .iter()
        .filter(|(_, a)| a["status"] == "applied" || a["pending"] == false)
        .map(|(_, a)| a)
        .collect();
    assert!(!applied.is_empty(), "{heals:?}");
    for a in applied {
        let n: u32 = a["reason"]
            .as_str()
            .unwrap()
            .trim_start_matches("held on ")
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(n >= 4, "{a}");
    }
    let healed = mend(
        dir.path(),
        &["status", "--backend", &backend, "--job", &job, "--wrapper"],
    );
    assert!(
        !author_xpath(&healed.stdout).contains("byline"),
        "{}",
        healed.stdout
    );
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_heal_that_held_on_fewer_pages_than_min_pages_stays_a_proposal_when_the_job_ends() {
    let Some(pg) = Postgres::start("a_heal_that_held_on_the_only_page") else {
        return;
    };
    let backend = pg.url();
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 12,
        ..SiteOptions::default()
    });
    let truth = site.truth();
    let odd = truth
        .posts
        .iter()
        .skip(2)
        .find(|p| !p.js_only && !p.title.contains('\''))
        .unwrap();
    // The author XPath selects nothing on one post only.
    let author = format!(
        "span[@class='author'][not(//h1[@class='title'][normalize-space(.)='{}'])]",
        odd.title.trim()
    );
    let dir = tempfile::tempdir().unwrap();
    let w = stale_wrapper(dir.path(), &site, &author, "");
    let (job, run) = run_job(
        dir.path(),
        &backend,
        &w,
        &site.url(),
        "h.ndjson",
        &["--heal", "auto"],
        (2, "2"),
    );
    assert!(run.code <= 1, "{}", run.stderr);
    let out = dir.path().join("h.ndjson");
    let got = pages(&out);
    assert_eq!(got[&odd.url]["records"][0]["author"], odd.author.as_str());
    // While the job ran, one page was not enough (adapt.min_pages is 3) ...
    let heals = author_heals(&out);
    assert_eq!(heals.len(), 1, "{heals:?}");
    assert_eq!(heals[0].0, odd.url);
    assert_eq!(
        heals[0].1["reason"],
        "not applied yet: held on 1 of the 3 pages adapt.min_pages asks for, across the job's workers"
    );
    // ... and the job's end does not decide it either: one odd page never
    // rewrites the wrapper, as in a local run.
    assert_eq!(
        pg.query("SELECT wrapper_version, settled FROM mend_jobs"),
        ["1|t"]
    );
    let kept = mend(
        dir.path(),
        &["status", "--backend", &backend, "--job", &job, "--wrapper"],
    );
    assert!(
        author_xpath(&kept.stdout).contains("not(//h1"),
        "{}",
        kept.stdout
    );
}

#[test]
#[ignore = "needs PostgreSQL and Chromium"]
fn workers_render_what_the_local_crawl_renders_and_share_their_votes_per_shape() {
    let Some(Setup {
        pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = render_setup("workers_render_what_the_local_crawl_renders", 12, "auto")
    else {
        return;
    };
    let local = mend(
        dir.path(),
        &[
            "crawl",
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "local.ndjson",
        ],
    );
    assert_eq!(local.code, 0, "{}", local.stderr);
    let (_, two) = run_job(
        dir.path(),
        &backend,
        &w,
        &site.url(),
        "two.ndjson",
        &[],
        (2, "2"),
    );
    assert_eq!(two.code, 0, "{}", two.stderr);
    // The scripted post is read, rendered, as the local crawl reads it.
    let scripted = site
        .truth()
        .posts
        .iter()
        .find(|p| p.js_only)
        .unwrap()
        .clone();
    let got = pages(&dir.path().join("two.ndjson"));
    assert_eq!(
        got[&scripted.url]["records"][0]["title"],
        scripted.title.as_str()
    );
    assert_eq!(
        sorted_lines(&dir.path().join("two.ndjson")),
        sorted_lines(&dir.path().join("local.ndjson"))
    );
    // The votes of every worker's rendered pages, one row per URL shape:
    // only the scripted post needed rendering, and rendering helped it.
    let shapes = pg.query("SELECT shape, helped, useless FROM mend_render_shapes ORDER BY shape");
    assert_eq!(shapes.len(), 1, "{shapes:?}");
    assert!(shapes[0].contains("/js/*/|1|0"), "{shapes:?}");
}

#[test]
#[ignore = "needs PostgreSQL and Chromium"]
fn workers_read_render_always_pages_from_the_browsers_navigation_once() {
    // A worker fetched each page and then had the browser ask for it
    // again: every page was requested twice.
    let Some(Setup {
        pg,
        site,
        dir,
        wrapper: w,
        ..
    }) = render_setup("workers_read_render_always_pages_once", 8, "always")
    else {
        return;
    };
    let (_, two) = run_job(
        dir.path(),
        &pg.url(),
        &w,
        &site.url(),
        "two.ndjson",
        &[],
        (2, "2"),
    );
    assert_eq!(two.code, 0, "{}", two.stderr);
    let truth = site.truth();
    let got = pages(&dir.path().join("two.ndjson"));
    assert_posts_as_the_site_holds(&got, &truth, "render: always, two workers");
    // The post `/old/post-3` redirects to is asked for once more when the
    // redirect is followed after the post was read.
    let redirected = &truth.posts[Roles::REDIRECTED - 1].path;
    for post in &truth.posts {
        let asked = site.requests_for(&post.path).len();
        let most = if &post.path == redirected { 2 } else { 1 };
        assert!(
            (1..=most).contains(&asked),
            "{}: asked {asked} times",
            post.path
        );
    }
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_link_of_6000_characters_fails_alone_and_the_job_completes() {
    // Keyed by its text, such a URL went over the index's row size: every
    // worker and the coordinator stopped on it.
    let Some(s) = setup("a_link_of_6000_characters", 6, Duration::ZERO, "delay: 0") else {
        return;
    };
    let long = s.site.url_of(&format!("/missing/{}", "x".repeat(6000)));
    let site = s.site.url();
    let run = mend(
        s.dir.path(),
        &[
            "crawl",
            s.wrapper.to_str().unwrap(),
            &site,
            &long,
            "--backend",
            &s.backend,
            "--out",
            "out.ndjson",
            "--detach",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let job = run.stdout.trim().to_owned();
    finish(worker(
        s.dir.path(),
        &s.backend,
        &job,
        &["--concurrency", "2"],
    ));
    let exported = mend(
        s.dir.path(),
        &[
            "crawl",
            s.wrapper.to_str().unwrap(),
            "--backend",
            &s.backend,
            "--out",
            "out.ndjson",
            "--job",
            &job,
        ],
    );
    // The long link is the crawl's one failure: exit 3, every post written.
    assert_eq!(exported.code, 3, "{}", exported.stderr);
    assert_eq!(pages(&s.dir.path().join("out.ndjson")).len(), 6);
    let st = status(s.dir.path(), &s.backend, &job);
    assert_eq!(st["failed"], 1, "{st:#}");
}

#[test]
#[ignore = "needs PostgreSQL"]
fn status_never_creates_the_tables() {
    let Some(pg) = Postgres::start("status_never_creates_the_tables") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = mend(dir.path(), &["status", "--backend", &pg.url()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("holds no mend crawl jobs"),
        "{}",
        run.stderr
    );
    // The same database named by a private file.
    let file = dir.path().join("backend");
    std::fs::write(&file, format!("{}\n", pg.url())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = mend(
        dir.path(),
        &["status", "--backend-file", file.to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("holds no mend crawl jobs"),
        "{}",
        run.stderr
    );
    assert_eq!(
        pg.query("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'mend_%'"),
        ["0"]
    );
}

#[test]
#[ignore = "needs PostgreSQL"]
fn an_update_job_emits_only_the_posts_changed_since() {
    let Some(Setup {
        pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = setup(
        "an_update_job_emits_only_the_posts_changed_since",
        12,
        Duration::ZERO,
        "delay: 0, concurrency: 4, timeout: 5",
    )
    else {
        return;
    };
    let w = w.to_str().unwrap();
    let first = mend(
        dir.path(),
        &[
            "crawl",
            w,
            &site.url(),
            "--backend",
            &backend,
            "--out",
            "first.ndjson",
        ],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let posts = site.truth().posts.iter().filter(|p| !p.js_only).count();
    assert_eq!(pages(&dir.path().join("first.ndjson")).len(), posts);
    std::thread::sleep(Duration::from_millis(1100));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let since = chrono::DateTime::from_timestamp(now as i64, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    std::thread::sleep(Duration::from_millis(1100));
    let changed = site.update_post(3);
    let job = submit(
        dir.path(),
        &backend,
        Path::new(w),
        &site.url(),
        "update.ndjson",
        &["--since", &since],
    );
    let workers: Vec<Child> = (0..2)
        .map(|_| worker(dir.path(), &backend, &job, &["--concurrency", "2"]))
        .collect();
    workers.into_iter().for_each(finish);
    let update = export(
        dir.path(),
        &backend,
        Path::new(w),
        &site.url(),
        "update.ndjson",
    );
    assert_eq!(update.code, 0, "{}", update.stderr);
    let got = pages(&dir.path().join("update.ndjson"));
    assert_eq!(got.keys().collect::<Vec<_>>(), [&changed.url]);
    assert_eq!(
        got[&changed.url]["records"][0]["body"],
        serde_json::json!(changed.body)
    );
    // The posts were asked for conditionally, and what they answered is in
    // the wrapper's HTTP cache for the next update.
    assert!(
        site.requests()
            .iter()
            .any(|r| r.if_modified_since.is_some())
    );
    let cached = pg.query("SELECT count(*) FROM mend_http_cache WHERE sha256 IS NOT NULL");
    assert!(cached[0].parse::<usize>().unwrap() >= 1, "{cached:?}");
    // A --since that is not a time is refused before anything is submitted.
    let bad = mend(
        dir.path(),
        &[
            "crawl",
            w,
            &site.url(),
            "--backend",
            &backend,
            "--since",
            "yesterday",
        ],
    );
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_job_exports_csv_and_sqlite_as_the_local_crawl_writes_them() {
    let Some(Setup {
        pg: _pg,
        backend,
        site,
        dir,
        wrapper: w,
    }) = setup(
        "a_job_exports_csv_and_sqlite",
        10,
        Duration::ZERO,
        "delay: 0, concurrency: 4, timeout: 5",
    )
    else {
        return;
    };
    let w = w.to_str().unwrap();
    for (format, out) in [("csv", "posts.csv"), ("sqlite", "posts.sqlite")] {
        let local_out = format!("local-{out}");
        let local = mend(
            dir.path(),
            &[
                "crawl",
                w,
                &site.url(),
                "--format",
                format,
                "--out",
                &local_out,
            ],
        );
        assert_eq!(local.code, 0, "{}", local.stderr);
        let job = mend(
            dir.path(),
            &[
                "crawl",
                w,
                &site.url(),
                "--backend",
                &backend,
                "--format",
                format,
                "--out",
                out,
            ],
        );
        assert_eq!(job.code, 0, "{format}: {}", job.stderr);
        let (got, expected) = (dir.path().join(out), dir.path().join(&local_out));
        if format == "csv" {
            let text = std::fs::read_to_string(&got).unwrap();
            assert!(text.starts_with("page,title,"), "{text}");
            assert_eq!(sorted_lines(&got), sorted_lines(&expected));
        } else {
            // The same tables with the same rows, but for the fetch times.
            let rows = |path: &Path| -> Vec<String> {
                let db = rusqlite::Connection::open(path).unwrap();
                let mut tables: Vec<String> = db
                    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    .unwrap()
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                tables.retain(|t| !t.starts_with("sqlite_") && !t.starts_with('_'));
                let mut rows = Vec::new();
                for t in tables {
                    let count: i64 = db
                        .query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))
                        .unwrap();
                    rows.push(format!("{t}: {count}"));
                }
                rows
            };
            let got_rows = rows(&got);
            assert!(
                got_rows.iter().any(|r| r.starts_with("pages: ")),
                "{got_rows:?}"
            );
            assert_eq!(got_rows, rows(&expected));
        }
    }
}

#[test]
#[ignore = "needs PostgreSQL"]
fn workers_download_each_image_once_and_the_export_writes_them_beside_the_output() {
    let Some(Setup {
        pg: _pg,
        backend,
        site,
        dir,
        wrapper: _,
    }) = setup(
        "workers_download_each_image_once",
        12,
        Duration::ZERO,
        "delay: 0, concurrency: 4, timeout: 5",
    )
    else {
        return;
    };
    let w = wrapper(
        dir.path(),
        &format!(
            "  items: '{POSTS}'\n{NO_TRAPS}  media: \"//article[@class='post']/ul[@class='images']/li/img/@src\"\n  politeness: {{delay: 0, concurrency: 4, timeout: 5}}\n"
        ),
    );
    let w = Path::new(&w);
    let (_, two) = run_job(
        dir.path(),
        &backend,
        w,
        &site.url(),
        "two.ndjson",
        &[],
        (2, "2"),
    );
    assert_eq!(two.code, 0, "{}", two.stderr);
    // The job asked for each image its records list, once.
    let media_asked = || -> Vec<String> {
        let mut asked: Vec<String> = site
            .requests()
            .iter()
            .filter(|r| r.path.starts_with("/media/"))
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        asked.sort();
        asked
    };
    let mut listed: Vec<String> = pages(&dir.path().join("two.ndjson"))
        .values()
        .flat_map(|p| {
            p["records"][0]["_media"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|m| {
            let url = url::Url::parse(m["url"].as_str().unwrap()).unwrap();
            format!("GET {}", url.path())
        })
        .collect();
    listed.sort();
    assert!(!listed.is_empty());
    assert_eq!(media_asked(), listed);
    // The same records as the local crawl, the images in the job's folder.
    let local = mend(
        dir.path(),
        &[
            "crawl",
            w.to_str().unwrap(),
            &site.url(),
            "--out",
            "local.ndjson",
        ],
    );
    assert_eq!(local.code, 0, "{}", local.stderr);
    let lines = |name: &str, folder: &str| -> Vec<String> {
        sorted_lines(&dir.path().join(name))
            .into_iter()
            .map(|l| l.replace(&format!("\"{folder}/"), "\"MEDIA/"))
            .collect()
    };
    assert_eq!(
        lines("two.ndjson", "two-media"),
        lines("local.ndjson", "local-media")
    );
    let files = |folder: &str| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path().join(folder))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let got = files("two-media");
    assert!(!got.is_empty());
    assert_eq!(got, files("local-media"));
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_propose_job_brings_one_proposal_per_heal_home_and_leaves_the_wrapper_alone() {
    let Some(pg) = Postgres::start("a_propose_job_brings_one_proposal_per_heal_home") else {
        return;
    };
    let backend = pg.url();
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        posts: 16,
        ..SiteOptions::default()
    });
    let mut proposals = Vec::new();
    let mut outputs = Vec::new();
    for workers in [1, 3] {
        let dir = tempfile::tempdir().unwrap();
        let w = broken_wrapper(dir.path(), &site);
        let before = std::fs::read_to_string(&w).unwrap();
        let (job, run) = run_job(
            dir.path(),
            &backend,
            &w,
            &site.url(),
            "p.ndjson",
            &["--heal", "propose"],
            (workers, "2"),
        );
        assert!(run.code <= 1, "{}", run.stderr);
        assert!(run.stderr.contains("1 proposed"), "{}", run.stderr);
        // The records are healed, the wrapper is not: a person decides.
        let got = pages(&dir.path().join("p.ndjson"));
        for post in site.truth().posts.iter().filter(|p| !p.js_only) {
            assert_eq!(got[&post.url]["records"][0]["author"], post.author.as_str());
        }
        assert_eq!(std::fs::read_to_string(&w).unwrap(), before);
        // Every record the heal served names the proposal waiting at home,
        // and every id the output cites is an entry of the user's store.
        for post in site.truth().posts.iter().filter(|p| !p.js_only) {
            let proposals = &got[&post.url]["records"][0]["_proposals"];
            assert!(
                proposals.as_array().is_some_and(|p| p.len() == 1),
                "{}: {}",
                post.url,
                got[&post.url]
            );
        }
        let statuses = show_every_cited_id(dir.path(), &dir.path().join("p.ndjson"));
        assert!(statuses.iter().any(|s| s == "proposed"), "{statuses:?}");
        let version = pg.query(&format!(
            "SELECT wrapper_version FROM mend_jobs WHERE id = {job}"
        ));
        assert_eq!(version, ["1"]);
        // One entry in the user's store, for the heal every page needed;
        // running the export again joins it instead of adding one.
        for _ in 0..2 {
            let log = mend(dir.path(), &["log", "--json", "--store", ".mend/mend.db"]);
            assert_eq!(log.code, 0, "{}", log.stderr);
            let entries: Vec<Value> = serde_json::from_str(&log.stdout).unwrap();
            let author: Vec<&Value> = entries
                .iter()
                .filter(|e| e["pattern"] == "author")
                .collect();
            assert_eq!(author.len(), 1, "{}", log.stdout);
            assert_eq!(author[0]["status"], "proposed", "{}", log.stdout);
            let again = export(dir.path(), &backend, &w, &site.url(), "p.ndjson");
            assert!(again.code <= 1, "{}", again.stderr);
        }
        // Once a person has rejected the proposal, an export no longer
        // says the records wait for it.
        let log = mend(dir.path(), &["log", "--json", "--store", ".mend/mend.db"]);
        let entries: Vec<Value> = serde_json::from_str(&log.stdout).unwrap();
        let author = entries.iter().find(|e| e["pattern"] == "author").unwrap();
        let reference = format!(
            "{}:{}",
            author["store"].as_str().unwrap_or_default(),
            author["id"]
        );
        let rejected = mend(
            dir.path(),
            &[
                "reject",
                &reference,
                "--store",
                ".mend/mend.db",
                "--reason",
                "checked by hand",
            ],
        );
        assert_eq!(rejected.code, 0, "{}", rejected.stderr);
        let after = export(dir.path(), &backend, &w, &site.url(), "after.ndjson");
        assert!(after.code <= 1, "{}", after.stderr);
        let after = pages(&dir.path().join("after.ndjson"));
        for post in site.truth().posts.iter().filter(|p| !p.js_only) {
            let record = &after[&post.url]["records"][0];
            assert!(record.get("_proposals").is_none(), "{}: {record}", post.url);
        }
        proposals.push(
            entries
                .iter()
                .map(|e| {
                    format!(
                        "{} {} {} -> {}",
                        e["status"], e["pattern"], e["old_xpath"], e["new_xpath"]
                    )
                })
                .collect::<Vec<_>>(),
        );
        outputs.push(without_heals(&sorted_lines(&dir.path().join("p.ndjson"))));
    }
    // One worker and three: the same records, the same proposals stored.
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(proposals[0], proposals[1]);
}
