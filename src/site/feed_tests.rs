//! Feeds and sitemaps of each kind, the lenient reading of broken ones, and
//! the refusal of documents that are no feed.

use proptest::prelude::*;

use super::*;

const BASE: &str = "https://blog.example.com/feed.xml";

fn read(xml: &str) -> Result<Feed, FeedError> {
    feed_entries(xml.as_bytes(), &Url::parse(BASE).unwrap())
}

fn millis(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .timestamp_millis()
}

/// `xml` reads as a feed of `kind` whose entries are `expected`: each a URL
/// and its date (RFC 3339), or no date.
fn check(xml: &str, kind: FeedKind, expected: &[(&str, Option<&str>)]) {
    let feed = read(xml).unwrap_or_else(|error| panic!("{error}\n{xml}"));
    assert_eq!(feed.kind, kind);
    let got: Vec<(String, Option<i64>)> = feed
        .entries
        .iter()
        .map(|entry| (entry.url.to_string(), entry.updated))
        .collect();
    let expected: Vec<(String, Option<i64>)> = expected
        .iter()
        .map(|(url, date)| ((*url).to_owned(), date.map(millis)))
        .collect();
    assert_eq!(got, expected, "{xml}");
}

/// `xml` is refused with an error whose message contains `expected`.
fn check_refused(xml: &[u8], expected: &str) {
    let error = feed_entries(xml, &Url::parse(BASE).unwrap()).unwrap_err();
    assert!(
        error.to_string().contains(expected),
        "{error} should say {expected:?}"
    );
}

#[test]
fn rss2_items_give_their_link_else_a_permalink_guid() {
    check(
        r#"<?xml version="1.0"?>
        <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
          <title>Blog</title><link>https://blog.example.com/</link>
          <atom:link href="https://blog.example.com/feed.xml" rel="self"/>
          <image><link>https://blog.example.com/logo-page</link></image>
          <item><title>One</title><link>https://blog.example.com/2024/05/one/?utm_source=rss</link>
            <pubDate>Tue, 07 May 2024 10:00:00 +0000</pubDate></item>
          <item><guid>https://blog.example.com/2024/04/two/</guid>
            <pubDate>not a date</pubDate></item>
          <item><guid isPermaLink="false">tag:blog.example.com,2024:3</guid></item>
          <item><guid isPermaLink="true">/2024/03/four/</guid><link>  </link></item>
          <item><link>https://blog.example.com/2024/05/one/#comments</link></item>
        </channel></rss>"#,
        FeedKind::Rss,
        &[
            (
                "https://blog.example.com/2024/05/one/",
                Some("2024-05-07T10:00:00Z"),
            ),
            ("https://blog.example.com/2024/04/two/", None),
            ("https://blog.example.com/2024/03/four/", None),
        ],
    );
}

#[test]
fn rss2_links_with_entities_and_cdata() {
    check(
        "<rss><channel>\
         <item><link>https://blog.example.com/?p=1&amp;lang=en</link></item>\
         <item><link><![CDATA[https://blog.example.com/?p=2&lang=en]]></link></item>\
         <item><link>https://blog.example.com/?p=3&lang=en</link></item>\
         <item><link>https://blog.example.com/caf&#xE9;/&#49;</link></item>\
         </channel></rss>",
        FeedKind::Rss,
        &[
            ("https://blog.example.com/?lang=en&p=1", None),
            ("https://blog.example.com/?lang=en&p=2", None),
            ("https://blog.example.com/?lang=en&p=3", None),
            ("https://blog.example.com/caf%C3%A9/1", None),
        ],
    );
}

#[test]
fn rss1_items_give_their_link_else_rdf_about() {
    check(
        r#"<?xml version="1.0"?>
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
                 xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <channel rdf:about="https://blog.example.com/"><link>https://blog.example.com/</link></channel>
          <item rdf:about="https://blog.example.com/a"><link>https://blog.example.com/posts/a</link>
            <dc:date>2024-05-07T10:00:00+02:00</dc:date></item>
          <item rdf:about="https://blog.example.com/posts/b"><dc:date>2024-05</dc:date></item>
        </rdf:RDF>"#,
        FeedKind::Rdf,
        &[
            (
                "https://blog.example.com/posts/a",
                Some("2024-05-07T08:00:00Z"),
            ),
            (
                "https://blog.example.com/posts/b",
                Some("2024-05-01T00:00:00Z"),
            ),
        ],
    );
}

#[test]
fn atom_entries_give_their_alternate_link() {
    check(
        r#"<?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example.com/en/">
          <link href="https://blog.example.com/" rel="alternate"/>
          <entry><title>A</title>
            <link rel="edit" href="https://blog.example.com/api/a"/>
            <link rel="alternate" type="text/html" href="posts/a"/>
            <link href="posts/a-copy"/>
            <updated>2024-05-07T10:00:00Z</updated><published>2024-05-01T10:00:00Z</published></entry>
          <entry><link href="/posts/b"></link><published>2024-04-01T00:00:00Z</published></entry>
          <entry xml:base="https://other.example.org/"><link href="c"/></entry>
          <entry><link rel="replies" href="/posts/d#comments"/></entry>
          <entry><source><link href="/elsewhere"/></source><id>tag:x</id></entry>
        </feed>"#,
        FeedKind::Atom,
        &[
            (
                "https://blog.example.com/en/posts/a",
                Some("2024-05-07T10:00:00Z"),
            ),
            (
                "https://blog.example.com/posts/b",
                Some("2024-04-01T00:00:00Z"),
            ),
            ("https://other.example.org/c", None),
        ],
    );
}

#[test]
fn sitemap_urls_with_lastmod_of_any_precision() {
    check(
        r#"<?xml version="1.0" encoding="UTF-8"?>
        <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <url><loc>https://blog.example.com/</loc><lastmod>2024-05-07</lastmod></url>
          <url><loc>https://blog.example.com/posts/a</loc><lastmod>2024-05-07T10:00:00+00:00</lastmod>
               <changefreq>weekly</changefreq></url>
          <url><loc> https://blog.example.com/posts/b </loc></url>
          <url><loc>ftp://blog.example.com/file</loc></url>
        </urlset>"#,
        FeedKind::Sitemap,
        &[
            ("https://blog.example.com/", Some("2024-05-07T00:00:00Z")),
            (
                "https://blog.example.com/posts/a",
                Some("2024-05-07T10:00:00Z"),
            ),
            ("https://blog.example.com/posts/b", None),
        ],
    );
}

#[test]
fn sitemap_index_lists_more_sitemaps() {
    let feed = read(
        r#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <sitemap><loc>https://blog.example.com/sitemap-posts.xml</loc><lastmod>2024-05-07</lastmod></sitemap>
          <sitemap><loc>/sitemap-pages.xml.gz</loc></sitemap>
          <sitemap><loc>/sitemap-pages.xml.gz</loc></sitemap>
        </sitemapindex>"#,
    )
    .unwrap();
    assert_eq!(feed.kind, FeedKind::SitemapIndex);
    assert!(feed.entries.is_empty());
    let sitemaps: Vec<&str> = feed.sitemaps.iter().map(Url::as_str).collect();
    assert_eq!(
        sitemaps,
        [
            "https://blog.example.com/sitemap-posts.xml",
            "https://blog.example.com/sitemap-pages.xml.gz"
        ]
    );
}

#[test]
fn documents_in_other_encodings_are_decoded() {
    let xml = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\
        <rss><channel><item><link>https://blog.example.com/caf\xe9</link></item></channel></rss>";
    let feed = feed_entries(xml, &Url::parse(BASE).unwrap()).unwrap();
    assert_eq!(
        feed.entries[0].url.as_str(),
        "https://blog.example.com/caf%C3%A9"
    );
}

#[test]
fn stray_and_skipped_end_tags_are_recovered_from() {
    // HTML in a description that is neither escaped nor CDATA: `<br>` is
    // never closed and `</p>` closes nothing.
    check(
        "<rss><channel>\
         <item><description>a<br>b</p></description><link>https://blog.example.com/a</link></item>\
         <item><link>https://blog.example.com/b</link></item>\
         </channel></rss>",
        FeedKind::Rss,
        &[
            ("https://blog.example.com/a", None),
            ("https://blog.example.com/b", None),
        ],
    );
}

#[test]
fn an_error_after_the_root_keeps_the_entries_before_it() {
    let feed = read(
        "<rss><channel><item><link>https://blog.example.com/a</link></item>\
         <item><link>https://blog.example.com/b</link></item><item <<<",
    )
    .unwrap();
    assert_eq!(feed.entries.len(), 2);
    assert!(
        matches!(feed.stopped_by, Some(FeedError::Syntax { .. })),
        "{:?}",
        feed.stopped_by
    );
}

#[test]
fn a_truncated_document_gives_the_entry_it_was_in() {
    let feed = read("<urlset><url><loc>https://blog.example.com/a</loc><lastmod>2024").unwrap();
    assert_eq!(feed.entries.len(), 1);
    assert_eq!(feed.entries[0].url.as_str(), "https://blog.example.com/a");
}

#[test]
fn documents_that_are_no_feed_are_refused_by_what_they_are() {
    check_refused(b"", "empty");
    check_refused(b"  \n ", "empty");
    check_refused(b"\x1f\x8b\x08\x00\x00", "gzip");
    check_refused(
        b"<!DOCTYPE html><html><head><title>x</title>",
        "an HTML page",
    );
    check_refused(b"<html lang=en><body>", "an HTML page");
    check_refused(b"<?xml version=\"1.0\"?><svg><g/></svg>", "root is <svg>");
    check_refused(
        b"{\"version\": \"https://jsonfeed.org/version/1.1\"}",
        "JSON",
    );
    check_refused(b"just some text", "text without elements");
    check_refused(
        b"<?xml version=\"1.0\"?><!-- only a comment -->",
        "text without elements",
    );
    check_refused(b"<?xml version=\"1.0\"?><!-- never closed", "malformed XML");
    check_refused(b"<<<>>>", "not a feed");
}

#[test]
fn deep_nesting_is_read_without_recursion() {
    let depth = 200_000;
    let mut xml = String::from("<rss><channel><item><link>https://blog.example.com/a</link>");
    xml.push_str(&"<x>".repeat(depth));
    xml.push_str(&"</x>".repeat(depth));
    xml.push_str("</item><item><link>https://blog.example.com/b</link></item></channel></rss>");
    check(
        &xml,
        FeedKind::Rss,
        &[
            ("https://blog.example.com/a", None),
            ("https://blog.example.com/b", None),
        ],
    );
    // Unclosed, and with end tags that close nothing near.
    let mut xml = String::from("<urlset>");
    xml.push_str(&"<url><y>".repeat(depth));
    xml.push_str(&"</z>".repeat(depth));
    assert!(read(&xml).unwrap().entries.is_empty());
}

#[test]
fn a_large_sitemap_is_read_whole() {
    let mut xml = String::from("<urlset>");
    for i in 0..50_000 {
        xml.push_str(&format!(
            "<url><loc>https://blog.example.com/p/{i}</loc></url>"
        ));
    }
    xml.push_str("</urlset>");
    let feed = read(&xml).unwrap();
    assert_eq!(feed.entries.len(), 50_000);
    assert_eq!(
        feed.entries[49_999].url.as_str(),
        "https://blog.example.com/p/49999"
    );
}

#[test]
fn an_oversized_field_is_dropped() {
    let xml = format!(
        "<rss><channel><item><link>https://blog.example.com/{}</link></item></channel></rss>",
        "a".repeat(MAX_FIELD_BYTES)
    );
    check(&xml, FeedKind::Rss, &[]);
}

/// Documents built from the pieces of feeds, in any order, so that the
/// generated inputs reach the entry logic rather than failing at once.
fn feed_like() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "<rss>",
        "<channel>",
        "<item>",
        "</item>",
        "<link>",
        "</link>",
        "<guid isPermaLink=\"false\">",
        "</guid>",
        "<feed>",
        "<entry>",
        "</entry>",
        "<link href=\"/a\"/>",
        "<link rel=\"alternate\" href=\"x\">",
        "<urlset>",
        "<url>",
        "<loc>",
        "</loc>",
        "<sitemapindex>",
        "<sitemap>",
        "<lastmod>",
        "</lastmod>",
        "2024-05-07",
        "https://example.com/p",
        "/rel/",
        "&amp;",
        "&#0;",
        "&#x110000;",
        "&nbsp;",
        "&",
        "<![CDATA[x]]>",
        "<!--c-->",
        "<?pi?>",
        "</x>",
        "<x>",
        "<rdf:RDF>",
        "<item rdf:about=\"/b\">",
        "<pubDate>",
        "</pubDate>",
        "Tue, 07 May 2024",
        "xml:base=",
        "<",
        ">",
        "\"",
        "é",
        "\u{FFFD}",
    ]);
    prop::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = feed_entries(&bytes, &Url::parse(BASE).unwrap());
    }

    #[test]
    fn feed_like_documents_never_panic_and_give_normal_urls(xml in feed_like()) {
        if let Ok(feed) = read(&xml) {
            for entry in &feed.entries {
                prop_assert_eq!(crate::site::normalize(&entry.url), Some(entry.url.clone()));
            }
        }
    }
}
