//! The site's machine-readable files: robots.txt, the RSS 2.0 and Atom
//! feeds of the newest posts, and the sitemap. URLs in them are absolute, as
//! their formats ask.

use std::fmt::Write;
use std::time::Duration;

use super::html::{self, escape};
use super::truth::Post;

/// Posts in each feed.
pub const FEED_POSTS: usize = 10;

/// robots.txt: `/private/` is off limits; a `Crawl-delay` line only when
/// one is asked for.
pub fn robots(base: &str, crawl_delay: Option<Duration>) -> String {
    let mut out = String::from("User-agent: *\nDisallow: /private/\n");
    if let Some(delay) = crawl_delay {
        let _ = writeln!(out, "Crawl-delay: {}", delay.as_secs_f64());
    }
    let _ = writeln!(out, "\nSitemap: {base}/sitemap.xml");
    out
}

/// The first [`FEED_POSTS`] of `newest_first`.
fn newest<'a>(newest_first: &[&'a Post]) -> Vec<&'a Post> {
    newest_first.iter().copied().take(FEED_POSTS).collect()
}

/// The RSS 2.0 feed of the newest posts (`posts` newest first).
pub fn rss(base: &str, name: &str, posts: &[&Post]) -> String {
    let mut out = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
<title>{name}</title>
<link>{base}/</link>
<description>The newest posts of {name}.</description>
<language>en</language>
"#
    );
    for post in newest(posts) {
        let _ = write!(
            out,
            r#"<item>
<title>{}</title>
<link>{}</link>
<guid isPermaLink="true">{}</guid>
<pubDate>{}</pubDate>
<dc:creator>{}</dc:creator>
<description>{}</description>
</item>
"#,
            escape(&post.title),
            escape(&post.url),
            escape(&post.url),
            post.published.to_rfc2822(),
            escape(&post.author),
            escape(post.summary()),
        );
    }
    out.push_str("</channel>\n</rss>\n");
    out
}

fn rfc3339(time: chrono::DateTime<chrono::Utc>) -> String {
    time.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The Atom feed of the same posts (`posts` newest first).
pub fn atom(base: &str, name: &str, posts: &[&Post]) -> String {
    let newest = newest(posts);
    let updated = newest
        .iter()
        .map(|p| p.modified)
        .max()
        .map(rfc3339)
        .unwrap_or_else(|| "2024-01-01T00:00:00Z".to_owned());
    let mut out = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>{name}</title>
<id>{base}/</id>
<link rel="self" href="{base}/atom.xml"/>
<link href="{base}/"/>
<updated>{updated}</updated>
"#
    );
    for post in newest {
        let _ = write!(
            out,
            r#"<entry>
<title>{}</title>
<id>{}</id>
<link href="{}"/>
<published>{}</published>
<updated>{}</updated>
<author><name>{}</name></author>
<summary>{}</summary>
</entry>
"#,
            escape(&post.title),
            escape(&post.url),
            escape(&post.url),
            rfc3339(post.published),
            rfc3339(post.modified),
            escape(&post.author),
            escape(post.summary()),
        );
    }
    out.push_str("</feed>\n");
    out
}

/// The sitemap: every post with its last change, then the `pages` given
/// (listing pages) without one.
pub fn sitemap(base: &str, posts: &[&Post], pages: &[String]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset \
         xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for post in posts {
        let _ = writeln!(
            out,
            "<url><loc>{}</loc><lastmod>{}</lastmod></url>",
            escape(&post.url),
            rfc3339(post.modified)
        );
    }
    for page in pages {
        let _ = writeln!(out, "<url><loc>{}{}</loc></url>", base, html::escape(page));
    }
    out.push_str("</urlset>\n");
    out
}
