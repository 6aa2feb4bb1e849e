//! What `mend crawl` leaves behind besides NDJSON: the images of `media`,
//! one file per distinct content; CSV with a row per post; and SQLite with
//! a table per record pattern. Each is checked against the fixture site's
//! ground truth.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::cli_crawl::{NO_TRAPS, POSTS, QUICK, crawl, pages, wrapper};
use crate::support::fixture_site::{FixtureSite, Post, Roles, SiteOptions, Truth};

/// Where the fixture blog's images are.
const IMAGES: &str = "//article[@class='post']/ul[@class='images']/li/img/@src";

/// A site without slow or failing pages, and a wrapper that crawls its
/// posts with `extra` in its crawl block.
fn quick_site(extra: &str) -> (FixtureSite, tempfile::TempDir, String) {
    let site = FixtureSite::start(SiteOptions {
        fast: true,
        ..SiteOptions::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let w = wrapper(
        dir.path(),
        &format!("  items: '{POSTS}'\n{NO_TRAPS}{extra}{QUICK}"),
    );
    (site, dir, w.display().to_string())
}

/// The posts a crawl without a browser reads whole or in part: all but the
/// one whose content a script writes.
fn readable(truth: &Truth) -> Vec<&Post> {
    truth.posts.iter().filter(|p| !p.js_only).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn media_downloads_each_image_once_and_names_it_by_its_content() {
    let (site, dir, w) = quick_site(&format!("  media: \"{IMAGES}\"\n"));
    let run = crawl(
        dir.path(),
        &[
            &w,
            &site.url(),
            "--out",
            "out.ndjson",
            "--summary-json",
            "s.json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let truth = site.truth();
    let got = pages(&dir.path().join("out.ndjson"));
    let mut contents = BTreeSet::new();
    let mut image_urls = 0;
    for post in readable(&truth) {
        let media = got[&post.url]["records"][0]["_media"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no _media", post.url));
        let urls: Vec<&str> = media.iter().map(|m| m["url"].as_str().unwrap()).collect();
        assert_eq!(urls, post.images, "{}", post.url);
        image_urls += urls.len();
        for m in media {
            let file = m["file"].as_str().unwrap();
            assert!(file.starts_with("out-media/"), "{m}");
            let bytes = std::fs::read(dir.path().join(file)).unwrap();
            assert!(
                bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
                "{file} is not a PNG"
            );
            assert_eq!(m["sha256"], hex(&Sha256::digest(&bytes)), "{m}");
            assert!(file.ends_with(".png"), "{file}");
            contents.insert(m["sha256"].as_str().unwrap().to_owned());
        }
    }
    // The two posts whose first images are the same bytes share one file.
    let [a, b] =
        Roles::SAME_IMAGE.map(|n| &got[&truth.posts[n - 1].url]["records"][0]["_media"][0]);
    assert_ne!(a["url"], b["url"]);
    assert_eq!(a["file"], b["file"]);
    assert_eq!(contents.len(), image_urls - 1);
    // One file per content, and no temporary file left behind.
    let files: BTreeSet<String> = std::fs::read_dir(dir.path().join("out-media"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let expected: BTreeSet<String> = contents.iter().map(|h| format!("{h}.png")).collect();
    assert_eq!(files, expected);
    // Each image was asked for once.
    let mut asked: BTreeMap<String, usize> = BTreeMap::new();
    for r in site
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/media/"))
    {
        *asked.entry(r.path.clone()).or_default() += 1;
    }
    assert_eq!(asked.len(), image_urls);
    assert!(asked.values().all(|&n| n == 1), "{asked:?}");
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(summary["summary"]["media"], image_urls, "{summary:#}");
}

/// A CSV file's rows as maps from column to cell.
fn csv_rows(path: &Path) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let rows = reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect();
    (header, rows)
}

#[test]
fn csv_output_has_a_row_per_post_with_its_fields_and_media() {
    let (site, dir, w) = quick_site(&format!("  media: \"{IMAGES}\"\n"));
    let run = crawl(
        dir.path(),
        &[&w, &site.url(), "--out", "out.csv", "--format", "csv"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (header, rows) = csv_rows(&dir.path().join("out.csv"));
    assert_eq!(
        header,
        [
            "page",
            "title",
            "date",
            "author",
            "body",
            "images",
            "comments",
            "_media",
            "_violations",
            "_proposals",
            "_error"
        ]
    );
    let truth = site.truth();
    let by_page: BTreeMap<&str, &BTreeMap<String, String>> =
        rows.iter().map(|r| (r["page"].as_str(), r)).collect();
    assert_eq!(by_page.len(), rows.len(), "a page twice");
    let expected: BTreeSet<&str> = readable(&truth).iter().map(|p| p.url.as_str()).collect();
    assert_eq!(by_page.keys().copied().collect::<BTreeSet<_>>(), expected);
    for post in readable(&truth) {
        let row = by_page[post.url.as_str()];
        assert_eq!(row["title"], post.title, "{}", post.url);
        assert_eq!(row["date"], post.date, "{}", post.url);
        assert_eq!(row["author"], post.author, "{}", post.url);
        // Lists are joined for a person to read, not JSON-encoded.
        assert_eq!(row["body"], post.body.join("; "), "{}", post.url);
        assert_eq!(row["images"], post.images.join("; "), "{}", post.url);
        let media: Vec<Value> = serde_json::from_str(&row["_media"]).unwrap();
        assert_eq!(media.len(), post.images.len(), "{}", post.url);
        assert_eq!(row["_violations"], "", "{}", post.url);
        assert_eq!(row["_error"], "", "{}", post.url);
    }
}

/// The rows of an SQLite query, each as its columns' texts.
fn query(db: &rusqlite::Connection, sql: &str) -> Vec<Vec<String>> {
    let mut stmt = db.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |row| {
        (0..n)
            .map(|i| {
                Ok(match row.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => String::new(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                        String::from_utf8_lossy(t).into_owned()
                    }
                })
            })
            .collect()
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn now_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

#[test]
fn sqlite_output_has_a_table_per_record_pattern_with_each_rows_page_and_fetch_time() {
    let (site, dir, w) = quick_site("");
    let started = now_ms();
    let run = crawl(
        dir.path(),
        &[&w, &site.url(), "--out", "out.db", "--format", "sqlite"],
    );
    let ended = now_ms();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let db = rusqlite::Connection::open(dir.path().join("out.db")).unwrap();
    let truth = site.truth();
    let posts = readable(&truth);
    let pages = query(
        &db,
        "SELECT page_url, fetched_at, title, date, author, _violations, _error FROM pages ORDER BY page_url",
    );
    let mut expected: Vec<&Post> = posts.clone();
    expected.sort_by(|a, b| a.url.cmp(&b.url));
    assert_eq!(pages.len(), expected.len());
    for (row, post) in pages.iter().zip(&expected) {
        assert_eq!(row[0], post.url);
        let fetched: i64 = row[1].parse().unwrap();
        assert!((started..=ended).contains(&fetched), "{row:?}");
        assert_eq!(row[2..], [&post.title, &post.date, &post.author, "", ""]);
    }
    // Each comment is a row of `comments`, in the page's order; the posts
    // behind "show more" give the comments their raw HTML holds.
    let comments = query(
        &db,
        "SELECT page_url, who, text FROM comments ORDER BY page_seq, rowid",
    );
    let mut by_page: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for row in &comments {
        by_page
            .entry(row[0].as_str())
            .or_default()
            .push((row[1].as_str(), row[2].as_str()));
    }
    for post in posts.iter().filter(|p| !p.show_more) {
        let want: Vec<(&str, &str)> = post
            .comments
            .iter()
            .map(|c| (c.who.as_str(), c.text.as_str()))
            .collect();
        assert_eq!(
            by_page.get(post.url.as_str()).cloned().unwrap_or_default(),
            want,
            "{}",
            post.url
        );
    }
}
