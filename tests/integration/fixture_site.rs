//! The fixture site that crawls are tested against (`tests/fixture_site/`):
//! it serves every kind of page it promises, answers conditional requests,
//! plays its traps, logs what it receives, stops when dropped, and its
//! ground truth agrees with what a crawl following its links finds. The
//! blog's wrapper (`examples/site/blog.yaml`) extracts the truth from its
//! post pages.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::Read;
use std::time::Duration;

use mend::{Document, XPath};
use reqwest::blocking::{Client, Response};
use reqwest::header;
use serde_json::Value;

use crate::support::cli::{Mend, ROOT, Run};
use crate::support::fixture_site::{FixtureSite, HUGE_BYTES, Post, SiteOptions, Trap, Variant};

/// A client that follows no redirect, so that tests see each answer.
fn client() -> Client {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .user_agent("mend-fixture-test/1")
        .build()
        .expect("an HTTP client")
}

fn get(client: &Client, url: &str) -> Response {
    client
        .get(url)
        .send()
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
}

/// The status and body of `url`.
fn fetch(client: &Client, url: &str) -> (u16, String) {
    let r = get(client, url);
    let status = r.status().as_u16();
    (status, r.text().expect("a body"))
}

fn text_of(client: &Client, url: &str) -> String {
    let (status, body) = fetch(client, url);
    assert_eq!(status, 200, "GET {url}");
    body
}

/// The string values `xpath` selects in `html`.
fn select(html: &str, xpath: &str) -> Vec<String> {
    let doc = Document::parse(html.as_bytes());
    XPath::compile(xpath)
        .expect("a valid XPath")
        .select(&doc, doc.root())
        .expect("the XPath evaluates")
        .into_iter()
        .map(|item| item.string_value(&doc))
        .collect()
}

/// The one string value `xpath` selects in `html`.
fn one(html: &str, xpath: &str) -> String {
    let mut values = select(html, xpath);
    assert_eq!(values.len(), 1, "{xpath}: {values:?}");
    values.remove(0)
}

fn blog() -> FixtureSite {
    FixtureSite::start(SiteOptions::default())
}

fn post_with(site: &FixtureSite, check: impl Fn(&Post) -> bool) -> Post {
    site.truth()
        .posts
        .into_iter()
        .find(|p| check(p))
        .expect("a post of that kind")
}

/// A plain post with comments and more than one image.
fn rich_post(site: &FixtureSite) -> Post {
    post_with(site, |p| {
        p.needs_no_browser() && p.trap.is_none() && p.comments.len() >= 2 && p.images.len() >= 2
    })
}

/// The pages a crawl that follows `<a href>` from `/` reaches (200 and
/// HTML), with the links of each, resolved and without fragments. It keeps
/// to the site and out of `/private/`, as robots.txt asks.
fn crawl(site: &FixtureSite) -> BTreeMap<String, Vec<String>> {
    let client = client();
    let base = url::Url::parse(&site.url()).expect("the site's URL");
    let mut pages = BTreeMap::new();
    let mut seen = BTreeSet::from([site.url()]);
    let mut queue = VecDeque::from([site.url()]);
    while let Some(url) = queue.pop_front() {
        let response = get(&client, &url);
        let html = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/html"));
        if response.status().as_u16() != 200 || !html {
            continue;
        }
        let body = response.text().expect("a body");
        let mut links = Vec::new();
        for href in select(&body, "//a/@href") {
            let Ok(mut link) = base.join(&url).and_then(|page| page.join(&href)) else {
                continue;
            };
            link.set_fragment(None);
            if link.origin() != base.origin() || link.path().starts_with("/private/") {
                continue;
            }
            let link = link.to_string();
            if seen.insert(link.clone()) {
                queue.push_back(link.clone());
            }
            links.push(link);
        }
        pages.insert(url, links);
    }
    pages
}

#[test]
fn listing_pages_link_their_posts_the_next_page_and_the_rest_of_the_blog() {
    let site = blog();
    let truth = site.truth();
    let client = client();
    let home = text_of(&client, &site.url());
    let linked = select(&home, "//ul[@class='posts']//a[@class='post-link']/@href");
    let newest: Vec<String> = truth
        .posts
        .iter()
        .rev()
        .take(10)
        .map(|p| p.path.clone())
        .collect();
    assert_eq!(linked, newest);
    assert_eq!(select(&home, "//a[@class='next']/@href"), ["/page/2/"]);
    let hrefs = select(&home, "//a/@href");
    for path in [
        "/tag/garden/",
        "/about/",
        "/private/secret/",
        "/old/post-3",
        "/loop/a",
        "/huge",
        "/missing/",
    ] {
        assert!(
            hrefs.iter().any(|h| h == path),
            "the home page links {path}"
        );
    }
    let last = text_of(&client, &site.url_of("/page/4/"));
    assert!(
        select(&last, "//a[@class='next']").is_empty(),
        "the last page has no next"
    );
    assert_eq!(select(&last, "//a[@class='post-link']").len(), 10);
    assert_eq!(fetch(&client, &site.url_of("/page/5/")).0, 404);

    let tag = text_of(&client, &site.url_of("/tag/garden/"));
    let tagged: Vec<String> = truth
        .posts
        .iter()
        .rev()
        .filter(|p| p.tags.iter().any(|t| t == "garden"))
        .map(|p| p.path.clone())
        .collect();
    assert!(!tagged.is_empty());
    assert_eq!(select(&tag, "//a[@class='post-link']/@href"), tagged);
    assert!(text_of(&client, &site.url_of("/about/")).contains("<h1>About</h1>"));
    assert_eq!(fetch(&client, &site.url_of("/missing/")).0, 404);
}

#[test]
fn a_post_page_holds_what_the_truth_says() {
    let site = blog();
    let post = rich_post(&site);
    let page = text_of(&client(), &post.url);
    assert_eq!(one(&page, "//h1[@class='title']"), post.title);
    assert_eq!(
        one(&page, "//time/@datetime"),
        post.published.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    );
    assert!(post.published.to_rfc3339().starts_with(&post.date));
    assert_eq!(one(&page, "//span[@class='author']"), post.author);
    assert_eq!(select(&page, "//div[@class='body']/p"), post.body);
    assert_eq!(one(&page, "//link[@rel='canonical']/@href"), post.url);
    let images: Vec<String> = post
        .images
        .iter()
        .map(|i| i.replace(&site.truth().base, ""))
        .collect();
    assert_eq!(select(&page, "//ul[@class='images']//img/@src"), images);
    let who = select(&page, "//li[@class='comment']/span[@class='who']");
    let text = select(&page, "//li[@class='comment']/p");
    let comments: Vec<(String, String)> = post
        .comments
        .iter()
        .map(|c| (c.who.clone(), c.text.clone()))
        .collect();
    assert_eq!(who.into_iter().zip(text).collect::<Vec<_>>(), comments);
}

#[test]
fn the_script_only_post_and_the_show_more_post_are_marked_and_served() {
    let site = blog();
    let truth = site.truth();
    let client = client();
    let js: Vec<&Post> = truth.posts.iter().filter(|p| p.js_only).collect();
    assert_eq!(js.len(), 1);
    let js = js[0];
    assert!(js.path.starts_with("/js/post-"), "{}", js.path);
    let page = text_of(&client, &js.url);
    assert!(
        select(&page, "//article[@class='post']/node()").is_empty(),
        "the article is empty"
    );
    let script = select(&page, "//script").concat();
    assert!(
        script.contains("setTimeout") && script.contains(&js.title),
        "{script}"
    );
    assert!(js.comments.iter().all(|c| script.contains(&c.who)));

    let more = truth
        .posts
        .iter()
        .find(|p| p.show_more)
        .expect("a show-more post");
    let page = text_of(&client, &more.url);
    assert_eq!(
        select(&page, "//button[@class='more']"),
        ["Show more comments"]
    );
    let mut whos = select(&page, "//li[@class='comment']/span[@class='who']");
    assert_eq!(whos.len(), 3, "the page shows the first chunk");
    for chunk in 1..=3 {
        let path = format!("/comments/{}?chunk={chunk}", more.number);
        let fragment = text_of(&client, &site.url_of(&path));
        assert!(page.contains(&format!("/comments/{}?chunk=", more.number)));
        whos.extend(select(
            &fragment,
            "//li[@class='comment']/span[@class='who']",
        ));
    }
    let expected: Vec<String> = more.comments.iter().map(|c| c.who.clone()).collect();
    assert_eq!(whos, expected, "the chunks hold the rest, in order");
    assert_eq!(expected.len(), 12);
    assert_eq!(
        fetch(
            &client,
            &site.url_of(&format!("/comments/{}?chunk=4", more.number))
        )
        .0,
        404
    );
    assert_eq!(truth.posts_without_browser().count(), truth.posts.len() - 2);
}

#[test]
fn images_are_real_pngs_and_two_posts_share_one_images_bytes() {
    let site = blog();
    let truth = site.truth();
    let client = client();
    let bytes = |url: &str| {
        let r = get(&client, url);
        assert_eq!(r.status().as_u16(), 200, "{url}");
        assert_eq!(r.headers()[header::CONTENT_TYPE], "image/png");
        r.bytes().expect("a body").to_vec()
    };
    let [(a, b)] = truth.duplicate_media.as_slice() else {
        panic!("one pair of duplicate images: {:?}", truth.duplicate_media);
    };
    let (a, b) = (bytes(a), bytes(b));
    assert_eq!(a, b);
    assert!(a.starts_with(b"\x89PNG\r\n\x1a\n") && a.ends_with(b"IEND\xaeB`\x82"));
    let mut all = BTreeSet::new();
    for post in &truth.posts {
        for image in &post.images {
            all.insert(bytes(image));
        }
    }
    let images: usize = truth.posts.iter().map(|p| p.images.len()).sum();
    assert_eq!(all.len(), images - 1, "only the one pair shares its bytes");
}

#[test]
fn feeds_and_sitemap_list_the_posts() {
    let site = blog();
    let truth = site.truth();
    let client = client();
    let newest: Vec<&Post> = truth.posts.iter().rev().take(10).collect();
    let rss = text_of(&client, &site.url_of("/feed.xml"));
    assert!(rss.starts_with("<?xml") && rss.contains("<rss version=\"2.0\""));
    assert_eq!(rss.matches("<item>").count(), 10);
    for post in &newest {
        assert!(
            rss.contains(&format!("<link>{}</link>", post.url)),
            "{}",
            post.url
        );
        assert!(rss.contains(&format!(
            "<pubDate>{}</pubDate>",
            post.published.to_rfc2822()
        )));
    }
    let atom = text_of(&client, &site.url_of("/atom.xml"));
    assert!(atom.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
    assert_eq!(atom.matches("<entry>").count(), 10);
    assert!(
        newest
            .iter()
            .all(|p| atom.contains(&format!("<id>{}</id>", p.url)))
    );
    let sitemap = text_of(&client, &site.url_of("/sitemap.xml"));
    for post in &truth.posts {
        assert!(
            sitemap.contains(&format!("<loc>{}</loc><lastmod>", post.url)),
            "{}",
            post.url
        );
    }
    assert!(sitemap.contains(&format!("<loc>{}</loc>", site.url_of("/page/4/"))));
    assert_eq!(sitemap.matches("<url>").count(), truth.posts.len() + 4);
}

#[test]
fn robots_txt_disallows_private_and_names_the_sitemap() {
    let site = blog();
    let robots = text_of(&client(), &site.url_of("/robots.txt"));
    assert_eq!(
        robots,
        format!(
            "User-agent: *\nDisallow: /private/\n\nSitemap: {}\n",
            site.url_of("/sitemap.xml")
        )
    );
    assert_eq!(
        site.truth().disallowed_urls[0],
        site.url_of("/private/secret/")
    );
    drop(site);

    let site = FixtureSite::start(SiteOptions {
        crawl_delay: Some(Duration::from_millis(500)),
        ..SiteOptions::default()
    });
    let robots = text_of(&client(), &site.url_of("/robots.txt"));
    assert!(robots.contains("\nCrawl-delay: 0.5\n"), "{robots}");
}

#[test]
fn a_repeated_request_with_the_etag_is_answered_304() {
    let site = blog();
    let client = client();
    let post = rich_post(&site);
    let first = get(&client, &post.url);
    assert_eq!(first.status().as_u16(), 200);
    let etag = first.headers()[header::ETAG].to_str().unwrap().to_owned();
    let modified = first.headers()[header::LAST_MODIFIED]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(etag, post.etag());
    assert_eq!(modified, post.last_modified());
    let conditional = |name: header::HeaderName, value: &str| {
        client
            .get(&post.url)
            .header(name, value)
            .send()
            .expect("an answer")
            .status()
            .as_u16()
    };
    assert_eq!(conditional(header::IF_NONE_MATCH, &etag), 304);
    assert_eq!(
        conditional(header::IF_NONE_MATCH, &format!("W/{etag}")),
        304
    );
    assert_eq!(conditional(header::IF_NONE_MATCH, "\"other\""), 200);
    assert_eq!(conditional(header::IF_MODIFIED_SINCE, &modified), 304);
    let earlier =
        crate::support::fixture_site::http_date(post.modified - chrono::Duration::seconds(1));
    assert_eq!(conditional(header::IF_MODIFIED_SINCE, &earlier), 200);

    let updated = site.update_post(post.number);
    assert_ne!(updated.etag(), etag);
    assert!(updated.modified > post.modified);
    assert_eq!(updated.body.len(), post.body.len() + 1);
    assert_eq!(site.truth().post(post.number), Some(&updated));
    assert_eq!(conditional(header::IF_NONE_MATCH, &etag), 200);
    assert_eq!(conditional(header::IF_MODIFIED_SINCE, &modified), 200);
    assert_eq!(conditional(header::IF_NONE_MATCH, &updated.etag()), 304);
    let page = text_of(&client, &post.url);
    assert_eq!(select(&page, "//div[@class='body']/p"), updated.body);
    let again = site.update_post(post.number);
    assert!(
        again.modified > updated.modified,
        "every update moves Last-Modified on"
    );
    let sitemap = text_of(&client, &site.url_of("/sitemap.xml"));
    let lastmod = again.modified.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    assert!(sitemap.contains(&format!(
        "<loc>{}</loc><lastmod>{lastmod}</lastmod>",
        post.url
    )));
}

#[test]
fn the_request_log_records_method_path_and_the_conditional_headers() {
    let site = blog();
    let post = rich_post(&site);
    let client = client();
    get(&client, &site.url_of("/feed.xml?x=1"));
    client
        .get(&post.url)
        .header(header::IF_NONE_MATCH, "\"nope\"")
        .header(header::IF_MODIFIED_SINCE, "Mon, 01 Jan 2024 00:00:00 GMT")
        .send()
        .unwrap();
    client.head(&post.url).send().unwrap();
    let log = site.requests();
    assert_eq!(log.len(), 3, "{log:?}");
    assert_eq!(
        (log[0].method.as_str(), log[0].path.as_str()),
        ("GET", "/feed.xml?x=1")
    );
    assert_eq!(log[0].user_agent.as_deref(), Some("mend-fixture-test/1"));
    assert_eq!(log[0].status, Some(200));
    assert_eq!(log[1].path, post.path);
    assert_eq!(log[1].if_none_match.as_deref(), Some("\"nope\""));
    assert_eq!(
        log[1].if_modified_since.as_deref(),
        Some("Mon, 01 Jan 2024 00:00:00 GMT")
    );
    assert_eq!(log[2].method, "HEAD");
    assert!(log[0].at <= log[1].at && log[1].at <= log[2].at);
    assert_eq!(site.requests_for(&post.path).len(), 2);
}

#[test]
fn trap_posts_answer_429_once_500_twice_and_slowly() {
    let site = blog();
    let truth = site.truth();
    let client = client();
    let trap = |t: Trap| {
        truth
            .posts
            .iter()
            .find(|p| p.trap == Some(t.clone()))
            .expect("the trap post")
    };

    let limited = trap(Trap::RateLimitedOnce);
    let r = get(&client, &limited.url);
    assert_eq!(r.status().as_u16(), 429);
    assert_eq!(r.headers()[header::RETRY_AFTER], "1");
    assert_eq!(fetch(&client, &limited.url).0, 200);
    assert_eq!(fetch(&client, &limited.url).0, 200);

    let failing = trap(Trap::FailsTwice);
    let statuses: Vec<u16> = (0..4).map(|_| fetch(&client, &failing.url).0).collect();
    assert_eq!(statuses, [500, 500, 200, 200]);

    let slow = trap(Trap::SlowPost);
    assert_eq!(fetch(&client, &slow.url).0, 200);
    assert_eq!(
        site.held_back(),
        1,
        "the slow post is held back by SLOW_DELAY"
    );
    let log = site.requests_for(&failing.path);
    assert_eq!(
        log.iter().map(|r| r.status).collect::<Vec<_>>(),
        [Some(500), Some(500), Some(200), Some(200)]
    );
}

#[test]
fn with_fast_the_traps_are_off() {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        ..SiteOptions::default()
    });
    let truth = site.truth();
    let client = client();
    assert!(truth.posts.iter().all(|p| p.trap.is_none()));
    for n in [5, 6, 8] {
        assert_eq!(fetch(&client, &truth.posts[n - 1].url).0, 200, "post {n}");
    }
    assert_eq!(site.held_back(), 0, "with --fast no answer is held back");
    assert_eq!(fetch(&client, &site.url_of("/huge")).0, 404);
    assert!(!select(&text_of(&client, &site.url()), "//a/@href").contains(&"/huge".to_owned()));
    assert!(truth.traps.iter().all(|t| t.trap != Trap::Huge));
}

#[test]
fn old_links_redirect_to_their_post_and_the_loop_never_ends() {
    let site = blog();
    let truth = site.truth();
    let client = client();
    let r = get(&client, &site.url_of("/old/post-3"));
    assert_eq!(r.status().as_u16(), 301);
    assert_eq!(r.headers()[header::LOCATION], truth.posts[2].url.as_str());
    assert!(
        truth
            .traps
            .iter()
            .any(|t| t.trap == Trap::RedirectToPost(truth.posts[2].url.clone()))
    );
    for (from, to) in [("/loop/a", "/loop/b"), ("/loop/b", "/loop/a")] {
        let r = get(&client, &site.url_of(from));
        assert_eq!(r.status().as_u16(), 302, "{from}");
        assert_eq!(r.headers()[header::LOCATION], to, "{from}");
    }
    let following = Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let error = following
        .get(site.url_of("/loop/a"))
        .send()
        .expect_err("a loop");
    assert!(error.is_redirect(), "{error}");
    let found = following.get(site.url_of("/old/post-3")).send().unwrap();
    assert_eq!(found.url().as_str(), truth.posts[2].url);
}

#[test]
fn huge_is_streamed_with_its_length_and_reading_part_of_it_is_enough() {
    let site = blog();
    let client = client();
    for (path, length) in [("/huge", Some(HUGE_BYTES)), ("/huge?chunked", None)] {
        let r = get(&client, &site.url_of(path));
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.content_length(), length, "{path}");
        let mut first = Vec::new();
        r.take(1 << 20)
            .read_to_end(&mut first)
            .expect("the first MiB");
        assert_eq!(first.len(), 1 << 20);
        assert!(first.starts_with(b"<!doctype html>"));
    }
    // The answers cut short do not keep the site from stopping.
    let url = site.url();
    drop(site);
    assert!(client.get(url).send().is_err(), "nothing listens any more");
}

#[test]
fn the_site_stops_when_dropped_even_with_an_answer_pending() {
    let site = blog();
    let url = site.url();
    let slow = post_with(&site, |p| p.trap == Some(Trap::SlowPost)).url;
    let pending = std::thread::spawn(move || client().get(slow).send().map(|r| r.status()));
    std::thread::sleep(Duration::from_millis(200));
    drop(site);
    let _ = pending.join().expect("the request ends");
    assert!(
        client().get(url).send().is_err(),
        "nothing listens any more"
    );
}

#[test]
fn a_crawl_of_the_blog_reaches_exactly_the_pages_of_the_truth() {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        ..SiteOptions::default()
    });
    let truth = site.truth();
    let pages = crawl(&site);
    let reached: Vec<&String> = pages.keys().collect();
    let expected: Vec<&String> = truth.pages.iter().collect();
    assert_eq!(reached, expected);
    assert!(truth.item_urls.iter().all(|u| truth.pages.contains(u)));
    let allowed: BTreeSet<&String> = truth.allowed_urls.iter().collect();
    for (page, links) in &pages {
        for link in links {
            assert!(
                allowed.contains(link),
                "{page} links {link}, which the truth does not allow"
            );
        }
    }
    let log = site.requests();
    assert!(log.iter().all(|r| !r.path.starts_with("/private/")));
    assert!(truth.disallowed_urls.iter().all(|u| !allowed.contains(u)));
}

#[test]
fn sprawl_posts_are_a_tenth_of_the_pages_and_all_reachable() {
    let site = FixtureSite::start(SiteOptions {
        variant: Variant::Sprawl,
        ..SiteOptions::default()
    });
    let truth = site.truth();
    let pages = crawl(&site);
    let items = truth
        .item_urls
        .iter()
        .filter(|u| pages.contains_key(*u))
        .count();
    assert_eq!(items, truth.posts.len(), "every post is reachable");
    let share = items as f64 / pages.len() as f64;
    assert!(
        (0.08..=0.12).contains(&share),
        "{items} items of {} pages",
        pages.len()
    );
    assert_eq!(
        pages.keys().collect::<Vec<_>>(),
        truth.pages.iter().collect::<Vec<_>>()
    );
    // Listing pages after the first are linked from two pages at most, and
    // no post page links a post.
    for k in 2..=4 {
        let list = site.url_of(&format!("/list/{k}"));
        let linking = pages.values().filter(|links| links.contains(&list)).count();
        assert!(
            (1..=2).contains(&linking),
            "/list/{k} is linked from {linking} pages"
        );
    }
    for item in &truth.item_urls {
        assert!(pages[item].iter().all(|l| !truth.item_urls.contains(l)));
    }
    // The layout is the same at every start.
    let again = FixtureSite::start(SiteOptions {
        variant: Variant::Sprawl,
        ..SiteOptions::default()
    });
    let paths = |t: &crate::support::fixture_site::Truth| -> Vec<String> {
        t.pages.iter().map(|p| p.replacen(&t.base, "", 1)).collect()
    };
    assert_eq!(paths(&again.truth()), paths(&truth));
}

#[test]
fn the_blog_wrapper_extracts_the_truth_of_plain_posts() {
    let site = blog();
    let truth = site.truth();
    let client = client();
    let dir = tempfile::tempdir().expect("a scratch folder");
    std::fs::copy(
        std::path::Path::new(ROOT).join("examples/site/blog.yaml"),
        dir.path().join("blog.yaml"),
    )
    .expect("a copy of the wrapper");
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    let plain: Vec<&Post> = truth.plain_posts().collect();
    assert!(plain.len() >= 30);
    for post in &plain {
        let page = text_of(&client, &post.url);
        std::fs::write(
            dir.path()
                .join(format!("pages/post-{:02}.html", post.number)),
            page,
        )
        .unwrap();
    }
    Run::from(
        Mend::new(&["validate", "blog.yaml"])
            .dir(dir.path())
            .output(),
    )
    .check(0);
    let run = Run::from(
        Mend::new(&["run", "blog.yaml", "pages", "--heal", "off"])
            .dir(dir.path())
            .output(),
    )
    .check(0);
    let outputs: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(outputs.len(), plain.len());
    for (out, post) in outputs.iter().zip(&plain) {
        assert_eq!(out["page"], format!("pages/post-{:02}.html", post.number));
        assert_eq!(
            out["violations"],
            Value::Array(vec![]),
            "post {}",
            post.number
        );
        let record = &out["records"][0];
        let images: Vec<String> = post
            .images
            .iter()
            .map(|i| i.replace(&truth.base, ""))
            .collect();
        let comments: Vec<Value> = post
            .comments
            .iter()
            .map(|c| serde_json::json!({"who": c.who, "text": c.text}))
            .collect();
        let expected = serde_json::json!({
            "title": post.title,
            "date": post.date,
            "author": post.author,
            "body": post.body,
            "images": images,
            "comments": comments,
        });
        assert_eq!(record, &expected, "post {}", post.number);
    }
}

#[test]
fn a_root_folder_is_served_as_it_is_and_nothing_outside_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    std::fs::create_dir_all(root.join("c")).unwrap();
    std::fs::write(root.join("index.html"), "<h1>home</h1>").unwrap();
    std::fs::write(root.join("c").join("index.html"), "<h1>category</h1>").unwrap();
    std::fs::write(dir.path().join("secret.html"), "outside").unwrap();
    let site = FixtureSite::start(SiteOptions {
        root: Some(root),
        ..SiteOptions::default()
    });
    let client = client();
    assert_eq!(text_of(&client, &site.url()), "<h1>home</h1>");
    assert_eq!(text_of(&client, &site.url_of("/c/")), "<h1>category</h1>");
    let page = get(&client, &site.url_of("/c/"));
    assert_eq!(
        page.headers()[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    assert_eq!(fetch(&client, &site.url_of("/nothing.html")).0, 404);
    assert_eq!(fetch(&client, &site.url_of("/%2e%2e/secret.html")).0, 404);
    assert_eq!(fetch(&client, &site.url_of("/c/../../secret.html")).0, 404);
}
