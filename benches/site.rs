//! Criterion benchmark of the site module on generated input, at the rates
//! a crawler needs: every link of every page is resolved, matched against
//! the item pattern and scored, and every page fetched is learned from.
//! Four groups:
//!
//! * `links/*`: resolving and normalising the 1,000 links of a page, and
//!   matching them against a learned item pattern;
//! * `feed/*`: reading a sitemap of 50,000 URLs and an RSS feed of 100
//!   items;
//! * `pattern/learn`: learning an item pattern from 100 feed entries;
//! * `priority/*`: predicting the value of 1,000 links, and learning from
//!   1,000 pages, on a model that has learned from 3,000 pages before.
//!
//! Run with `cargo bench --bench site`; add a filter such as `-- links/` to
//! run one group.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mend::site::{LinkValueModel, feed_entries, learn, resolve};
use url::Url;

const SECTIONS: [&str; 5] = ["news", "tag", "category", "author", "page"];

/// The hrefs of a page of a blog: posts, listings, tracking-tagged links,
/// fragments and a few links that are not followed.
fn hrefs() -> Vec<String> {
    (0..1_000)
        .map(|i| match i % 10 {
            0..=3 => format!(
                "/{}/{:02}/post-title-number-{i}/",
                2000 + i % 25,
                i % 12 + 1
            ),
            4 => format!(
                "/{}/{i}/?utm_source=feed&utm_medium=rss&ref={i}",
                SECTIONS[i % 5]
            ),
            5 => format!("https://Blog.Example.com:443/page/{i}/#content"),
            6 => format!("../../{}/x-{i}", SECTIONS[i % 5]),
            7 => format!("?s=query+{i}&b=2&a=1"),
            8 => "javascript:void(0)".to_owned(),
            _ => format!("https://other.example.org/{i}/%7euser/caf%c3%a9"),
        })
        .collect()
}

fn sitemap(urls: usize) -> String {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
    );
    for i in 0..urls {
        xml.push_str(&format!(
            "<url><loc>https://blog.example.com/{}/{:02}/post-{i}/</loc><lastmod>2024-05-07T10:00:00+00:00</lastmod></url>",
            2000 + i % 25,
            i % 12 + 1
        ));
    }
    xml.push_str("</urlset>");
    xml
}

fn rss(items: usize) -> String {
    let mut xml =
        String::from(r#"<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>"#);
    for i in 0..items {
        xml.push_str(&format!(
            "<item><title>Post {i}</title><link>https://blog.example.com/2024/05/post-{i}/?utm_source=rss</link>\
             <pubDate>Tue, 07 May 2024 10:00:00 +0000</pubDate>\
             <description><![CDATA[<p>Some <b>text</b> of post {i}.</p>]]></description></item>"
        ));
    }
    xml.push_str("</channel></rss>");
    xml
}

fn links(c: &mut Criterion) {
    let base = Url::parse("https://blog.example.com/2024/05/a-post/").unwrap();
    let hrefs = hrefs();
    c.bench_function("links/resolve-1000", |b| {
        b.iter(|| {
            hrefs
                .iter()
                .filter_map(|href| resolve(&base, black_box(href)))
                .count()
        })
    });
    let posts: Vec<Url> = (0..50)
        .map(|i| {
            Url::parse(&format!(
                "https://blog.example.com/2024/{:02}/title-{i}-words/",
                i % 12 + 1
            ))
            .unwrap()
        })
        .collect();
    let pattern = learn(&posts).unwrap();
    let resolved: Vec<Url> = hrefs
        .iter()
        .filter_map(|href| resolve(&base, href))
        .collect();
    c.bench_function("links/match-1000", |b| {
        b.iter(|| {
            resolved
                .iter()
                .filter(|url| pattern.matches(black_box(url)))
                .count()
        })
    });
}

fn feeds(c: &mut Criterion) {
    let base = Url::parse("https://blog.example.com/sitemap.xml").unwrap();
    let sitemap = sitemap(50_000);
    c.bench_function("feed/sitemap-50000", |b| {
        b.iter(|| feed_entries(black_box(sitemap.as_bytes()), &base).map(|feed| feed.entries.len()))
    });
    let rss = rss(100);
    c.bench_function("feed/rss-100", |b| {
        b.iter(|| feed_entries(black_box(rss.as_bytes()), &base).map(|feed| feed.entries.len()))
    });
}

fn pattern(c: &mut Criterion) {
    let base = Url::parse("https://blog.example.com/feed.xml").unwrap();
    let entries: Vec<Url> = feed_entries(rss(100).as_bytes(), &base)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.url)
        .collect();
    c.bench_function("pattern/learn-100", |b| {
        b.iter(|| learn(black_box(&entries)).map(|p| p.as_str().len()))
    });
}

fn priority(c: &mut Criterion) {
    let base = Url::parse("https://blog.example.com/").unwrap();
    let urls: Vec<Url> = hrefs()
        .iter()
        .filter_map(|href| resolve(&base, href))
        .collect();
    let mut model = LinkValueModel::default();
    for round in 0..3 {
        for (i, url) in urls.iter().enumerate() {
            model.learn(url, ((i + round) % 7) as u32);
        }
    }
    c.bench_function("priority/predict-1000", |b| {
        b.iter(|| {
            urls.iter()
                .map(|url| model.predict(black_box(url)))
                .sum::<f64>()
        })
    });
    c.bench_function("priority/learn-1000", |b| {
        b.iter_batched(
            || model.clone(),
            |mut model| {
                for url in &urls {
                    model.learn(black_box(url), 3);
                }
                model.observations()
            },
            criterion::BatchSize::LargeInput,
        )
    });
}

criterion_group!(benches, links, feeds, pattern, priority);
criterion_main!(benches);
