//! Which pages are items: the wrapper's URL regex, or a pattern learned
//! from the site's feed or sitemap, whose entries are the only URLs known to
//! be posts.
//!
//! Learning reads, for each start host: with `learn: feed`, the feeds the
//! start page announces (`<link rel="alternate">` of an RSS or Atom type),
//! else `/feed.xml`, `/rss.xml`, `/atom.xml`, `/feed/`, `/index.xml`; and
//! when no feed is found, or with `learn: sitemap`, the sitemaps robots.txt
//! names, else `/sitemap.xml`, following a sitemap index one level. The
//! entries found are queued too, as pages one link from the start.
//!
//! It refuses to guess: when no feed or sitemap gives an example, every page
//! is an item, and the crawl says so.

use regex::Regex;
use url::Url;

use super::fetcher::{Conditions, Fetcher};
use crate::dom::{Document, NodeId};
use crate::site::{self, ItemPattern};
use crate::wrapper::Items;

/// The rule that says which pages are items.
#[derive(Clone, Debug)]
pub enum ItemRule {
    /// Every page.
    All,
    /// The wrapper's regex, searched for in the URL.
    Pattern(Regex),
    /// A pattern learned from a feed or sitemap.
    Learned(ItemPattern),
}

impl ItemRule {
    /// Whether `url` is an item page.
    pub fn is_item(&self, url: &Url) -> bool {
        match self {
            ItemRule::All => true,
            ItemRule::Pattern(re) => re.is_match(url.as_str()),
            ItemRule::Learned(p) => p.matches(url),
        }
    }

    /// The rule in words, for the summary.
    pub fn describe(&self) -> String {
        match self {
            ItemRule::All => "every page".to_owned(),
            ItemRule::Pattern(re) => format!("URLs matching {}", re.as_str()),
            ItemRule::Learned(p) => format!("URLs like {} (learned)", p.as_str()),
        }
    }
}

/// The item rule of the wrapper's `items`, learning it when asked; gives
/// the rule and the example URLs found (feed or sitemap entries).
pub async fn item_rule(items: &Items, fetcher: &Fetcher, seeds: &[Url]) -> (ItemRule, Vec<Url>) {
    let sitemap_only = match items {
        Items::All => return (ItemRule::All, Vec::new()),
        Items::Pattern(re) => return (ItemRule::Pattern(re.clone()), Vec::new()),
        Items::LearnFromFeed => false,
        Items::LearnFromSitemap => true,
    };
    let mut examples = Vec::new();
    for seed in seeds {
        if !sitemap_only {
            examples.extend(from_feeds(fetcher, seed).await);
        }
        if examples.is_empty() {
            examples.extend(from_sitemaps(fetcher, seed).await);
        }
    }
    let mut seen = std::collections::HashSet::new();
    examples.retain(|u| seen.insert(u.to_string()));
    match site::learn(&examples) {
        Some(pattern) => {
            tracing::info!(
                pattern = pattern.as_str(),
                examples = examples.len(),
                "item pattern learned"
            );
            (ItemRule::Learned(pattern), examples)
        }
        None => {
            tracing::warn!("no feed or sitemap entries to learn items from: every page is an item");
            (ItemRule::All, examples)
        }
    }
}

async fn from_feeds(fetcher: &Fetcher, seed: &Url) -> Vec<Url> {
    let mut candidates: Vec<Url> = Vec::new();
    if let Ok(page) = fetcher.fetch(seed, &Conditions::default()).await {
        let doc = Document::parse_with_transport(&page.body, page.charset.as_deref());
        for node in doc.descendants(NodeId::ROOT) {
            let announces_feed = doc.name(node) == "link"
                && doc
                    .attr(node, "rel")
                    .is_some_and(|r| r.to_ascii_lowercase().contains("alternate"))
                && doc
                    .attr(node, "type")
                    .is_some_and(|t| t.contains("rss") || t.contains("atom"));
            if announces_feed
                && let Some(url) = doc
                    .attr(node, "href")
                    .and_then(|h| site::resolve(&page.final_url, h))
            {
                candidates.push(url);
            }
        }
    }
    if candidates.is_empty() {
        candidates.extend(
            ["/feed.xml", "/rss.xml", "/atom.xml", "/feed/", "/index.xml"]
                .iter()
                .filter_map(|p| seed.join(p).ok()),
        );
    }
    for feed in candidates {
        let entries = entries_of(fetcher, &feed).await;
        if !entries.0.is_empty() {
            return entries.0;
        }
    }
    Vec::new()
}

async fn from_sitemaps(fetcher: &Fetcher, seed: &Url) -> Vec<Url> {
    let robots = fetcher.robots(seed).await;
    let mut sitemaps: Vec<Url> = robots
        .sitemaps()
        .iter()
        .filter_map(|s| Url::parse(s).ok())
        .collect();
    if sitemaps.is_empty() {
        sitemaps.extend(seed.join("/sitemap.xml").ok());
    }
    let mut found = Vec::new();
    for sitemap in sitemaps {
        let (entries, more) = entries_of(fetcher, &sitemap).await;
        found.extend(entries);
        // A sitemap index lists sitemaps: one level is followed.
        for inner in more {
            found.extend(entries_of(fetcher, &inner).await.0);
        }
    }
    found
}

/// The entries of the feed or sitemap at `url`, and the sitemaps it lists.
async fn entries_of(fetcher: &Fetcher, url: &Url) -> (Vec<Url>, Vec<Url>) {
    let Ok(response) = fetcher.fetch(url, &Conditions::default()).await else {
        return (Vec::new(), Vec::new());
    };
    match site::feed_entries(&response.body, &response.final_url) {
        Ok(feed) => (
            feed.entries.into_iter().map(|e| e.url).collect(),
            feed.sitemaps,
        ),
        Err(e) => {
            tracing::debug!(%url, error = %e, "not a feed");
            (Vec::new(), Vec::new())
        }
    }
}
