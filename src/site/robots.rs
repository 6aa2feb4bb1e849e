//! The sitemaps a site announces in its `robots.txt`, where crawlers look
//! for them first. The rest of the file (who may fetch what) is the
//! fetcher's politeness, not read here.
//!
//! ## What it refuses
//!
//! It reads only `Sitemap:` lines. A line with an empty value, a field
//! spelled otherwise (`Sitemaps:`), a commented-out line, or a value that
//! does not resolve to an http or https URL gives nothing, and a sitemap
//! listed twice is given once. A sitemap on another host is kept: where it
//! may be fetched from is the caller's to judge.

use std::collections::HashSet;

use url::Url;

use super::normalize::resolve;

/// The URLs of the `Sitemap:` lines of a `robots.txt`, resolved against
/// `base` (the URL the file was fetched from), normalised, each once, in
/// file order. The field name is matched in any case, wherever the line
/// stands (it belongs to no user-agent group); a `#` starts a comment.
pub fn sitemaps_in_robots(robots_txt: &str, base: &Url) -> Vec<Url> {
    let mut seen = HashSet::new();
    let mut sitemaps = Vec::new();
    for line in robots_txt.lines() {
        let line = line.trim_start_matches('\u{FEFF}');
        let line = line.split('#').next().unwrap_or(line);
        let Some((field, value)) = line.split_once(':') else {
            continue;
        };
        if !field.trim().eq_ignore_ascii_case("sitemap") {
            continue;
        }
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        if let Some(url) = resolve(base, value)
            && seen.insert(url.as_str().to_owned())
        {
            sitemaps.push(url);
        }
    }
    sitemaps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(robots_txt: &str, expected: &[&str]) {
        let base = Url::parse("https://example.com/robots.txt").unwrap();
        let got: Vec<String> = sitemaps_in_robots(robots_txt, &base)
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(got, expected, "{robots_txt:?}");
    }

    #[test]
    fn sitemap_lines_are_found_anywhere() {
        check(
            "\u{FEFF}Sitemap: https://example.com/sitemap.xml\r\n\
             User-agent: *\nDisallow: /private\n\
             sitemap:/news-sitemap.xml # the news\n\
             SITEMAP :  https://cdn.example.com/s.xml.gz  \n\
             Sitemap: https://example.com/sitemap.xml\n",
            &[
                "https://example.com/sitemap.xml",
                "https://example.com/news-sitemap.xml",
                "https://cdn.example.com/s.xml.gz",
            ],
        );
    }

    #[test]
    fn other_lines_and_bad_values_give_nothing() {
        check("", &[]);
        check(
            "User-agent: *\nAllow: /\nSitemaps: /x.xml\n# Sitemap: /y.xml\n",
            &[],
        );
        check(
            "Sitemap:\nSitemap: mailto:x@example.com\nSitemap: http://[::1\n",
            &[],
        );
    }
}
