//! The `crawl` block: defaults, every setting read, and every refusal at
//! its line and column.

use std::time::Duration;

use crate::wrapper::{FrontierOrder, Items, PageAction, RenderMode, check_str, load_str};

/// A blog wrapper with one pattern; `crawl` is appended as written.
fn blog(crawl: &str) -> String {
    format!("name: blog\npatterns:\n  - name: title\n    xpath: //h1\n{crawl}")
}

#[track_caller]
fn settings(crawl: &str) -> crate::wrapper::CrawlSettings {
    match load_str(&blog(crawl), "w.yaml") {
        Ok(w) => w.crawl,
        Err(e) => panic!("{}", crate::wrapper::render_all(&e)),
    }
}

/// Asserts that the blog with `crawl` gives exactly these diagnostics.
#[track_caller]
fn check(crawl: &str, expected: &[&str]) {
    let report = check_str(&blog(crawl), "w.yaml");
    let found: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}: {}: {}", d.line, d.column, d.severity, d.message))
        .collect();
    assert_eq!(found, expected, "for:\n{crawl}");
}

#[test]
fn a_wrapper_without_crawl_follows_every_link_of_the_start_hosts_politely() {
    let c = settings("");
    assert!(c.follow.is_empty());
    assert!(matches!(c.items, Items::All));
    assert!(c.same_site);
    assert_eq!((c.max_depth, c.max_pages), (None, None));
    assert_eq!(c.frontier, FrontierOrder::Learned);
    assert_eq!(c.render, RenderMode::Never);
    assert!(c.politeness.robots);
    assert_eq!(c.politeness.concurrency, 2);
    assert_eq!(c.politeness.retries, 3);
}

#[test]
fn every_setting_is_read() {
    let c = settings(
        "crawl:
  follow: [\"//a[@class='next']/@href\", //h2/a]
  items: '/\\d{4}/\\d{2}/[^/]+/$'
  allow: ['^http://127\\.0\\.0\\.1']
  deny: [/private/, '\\?replytocom=']
  same_site: false
  max_depth: 4
  max_pages: 500
  frontier: bfs
  render: auto
  settle: 0.25
  render_timeout: 5
  actions:
    - {click: \"//button[@class='more']\", max: 5}
    - scroll: 2
    - {wait_for: \"//ul[@class='comments']\", timeout: 3}
  media: //article//img/@src
  politeness: {robots: false, user_agent: test-bot, delay: 0, concurrency: 8, autothrottle: false, retries: 1, timeout: 2.5, max_bytes: 4096}
",
    );
    assert_eq!(c.follow.len(), 2);
    match &c.items {
        Items::Pattern(re) => assert!(re.is_match("http://h/2024/05/a-post/")),
        other => panic!("{other:?}"),
    }
    assert_eq!((c.allow.len(), c.deny.len()), (1, 2));
    assert!(!c.same_site);
    assert_eq!((c.max_depth, c.max_pages), (Some(4), Some(500)));
    assert_eq!(c.frontier, FrontierOrder::Bfs);
    assert_eq!(c.render, RenderMode::Auto);
    assert_eq!(c.settle, Duration::from_millis(250));
    assert_eq!(c.render_timeout, Duration::from_secs(5));
    assert_eq!(
        c.actions,
        [
            PageAction::Click {
                xpath: "//button[@class='more']".to_owned(),
                max: 5
            },
            PageAction::Scroll { times: 2 },
            PageAction::WaitFor {
                xpath: "//ul[@class='comments']".to_owned(),
                timeout: Duration::from_secs(3)
            },
        ]
    );
    assert!(c.media.is_some());
    let p = &c.politeness;
    assert!(!p.robots && !p.autothrottle);
    assert_eq!(p.user_agent.as_deref(), Some("test-bot"));
    assert_eq!(p.delay, Duration::ZERO);
    assert_eq!((p.concurrency, p.retries, p.max_bytes), (8, 1, 4096));
    assert_eq!(p.timeout, Duration::from_millis(2500));
}

#[test]
fn items_can_be_learned_from_the_feed_or_the_sitemap() {
    assert!(matches!(
        settings("crawl:\n  items: {learn: feed}\n").items,
        Items::LearnFromFeed
    ));
    assert!(matches!(
        settings("crawl:\n  items: {learn: sitemap}\n").items,
        Items::LearnFromSitemap
    ));
}

#[test]
fn bad_xpaths_and_regexes_are_found_where_they_are_written() {
    check(
        "crawl:\n  follow: ['//a[']\n  items: 'a(b'\n  deny: ['[z-a]']\n",
        &[
            "6:17: error: invalid XPath: expected an expression, found the end",
            "7:12: error: invalid regex: unclosed group",
            "8:12: error: invalid regex: invalid character class range, the start must be <= the end",
        ],
    );
}

#[test]
fn an_action_is_one_thing_to_do_with_its_own_options() {
    check(
        "crawl:\n  actions:\n    - {click: //button, scroll: 2}\n    - {scroll: 2, max: 3}\n    - {timeout: 3}\n",
        &[
            "7:7: error: an action is one thing to do, not click and scroll",
            "8:7: error: \"max\" belongs to a click action, not a scroll action",
            "9:7: error: an action needs one of click, scroll and wait_for",
        ],
    );
}

#[test]
fn shapes_and_ranges_are_the_schema_s() {
    let report = check_str(
        &blog("crawl:\n  render: sometimes\n  politeness: {concurrency: 0}\n"),
        "w.yaml",
    );
    let errors: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
}
