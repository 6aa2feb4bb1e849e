//! The `crawl:` block: how `mend crawl` walks a site, and how the block is
//! read.
//!
//! It says which links are followed (`follow` XPaths, else every `<a
//! href>`), which pages are items whose records are extracted (a URL regex,
//! or one learned from the site's feed or sitemap), what may be fetched
//! (`allow`, `deny`, `same_site`, robots.txt), how far and how much
//! (`max_depth`, `max_pages`), in which order (`frontier`), whether pages
//! are rendered in a browser and what is done on them first (`render`,
//! `actions`), which images are downloaded (`media`), and how politely
//! (`politeness`). A wrapper without the block crawls with
//! [`CrawlSettings::default`].
//!
//! Reading refuses XPaths and regexes that do not compile, and an action
//! that is not exactly one of `click`, `scroll` and `wait_for` (or that has
//! a `max` without `click`, a `timeout` without `wait_for`). The schema has
//! checked shapes and ranges.

use std::time::Duration;

use regex::Regex;

use super::builder::{Builder, as_bool, as_f64, as_usize};
use super::diagnostic::Diagnostic;
use super::node::Node;
use crate::xpath::XPath;

/// The most pages a crawl fetches when neither the wrapper nor the command
/// line says: a budget that a real site's crawl seldom reaches and a trap
/// (a calendar, endless filters) always does.
pub const DEFAULT_MAX_PAGES: u64 = 100_000;

/// How many links from a start URL a crawl goes when neither the wrapper
/// nor the command line says: deeper than a site's paginated listings go
/// (a listing of 20,000 items at 20 a page is 1,000 pages deep), shallow
/// enough that a chain of "next month" links ends long before the page
/// budget.
pub const DEFAULT_MAX_DEPTH: u32 = 1_000;

/// How `mend crawl` walks the site.
#[derive(Clone, Debug)]
pub struct CrawlSettings {
    /// XPaths whose results are the links of a page; empty: every `<a href>`.
    pub follow: Vec<XPath>,
    /// Which pages are items.
    pub items: Items,
    /// Only URLs in which one of these is found are fetched (start URLs
    /// excepted); empty: no such limit.
    pub allow: Vec<Regex>,
    /// URLs in which one of these is found are never fetched.
    pub deny: Vec<Regex>,
    /// Whether only the start URLs' hosts are crawled.
    pub same_site: bool,
    /// How many links away from a start URL a page may be; unset,
    /// [`DEFAULT_MAX_DEPTH`].
    pub max_depth: Option<u32>,
    /// The most pages fetched in one crawl; unset, [`DEFAULT_MAX_PAGES`].
    pub max_pages: Option<u64>,
    /// The order pages are fetched in.
    pub frontier: FrontierOrder,
    /// Whether pages are rendered in a browser first.
    pub render: RenderMode,
    /// How long a rendered page's DOM must stay unchanged to be done.
    pub settle: Duration,
    /// How long a page may take to render, actions included.
    pub render_timeout: Duration,
    /// What is done on a rendered page before it is read.
    pub actions: Vec<PageAction>,
    /// Where the image URLs of an item page are, to download them.
    pub media: Option<XPath>,
    /// How the crawl treats the site.
    pub politeness: Politeness,
}

impl CrawlSettings {
    /// The page budget: the command line's, else the wrapper's, else
    /// [`DEFAULT_MAX_PAGES`].
    pub fn page_budget(&self, given: Option<u64>) -> u64 {
        given.or(self.max_pages).unwrap_or(DEFAULT_MAX_PAGES)
    }

    /// The depth budget: the command line's, else the wrapper's, else
    /// [`DEFAULT_MAX_DEPTH`].
    pub fn depth_budget(&self, given: Option<u32>) -> u32 {
        given.or(self.max_depth).unwrap_or(DEFAULT_MAX_DEPTH)
    }
}

impl Default for CrawlSettings {
    fn default() -> Self {
        CrawlSettings {
            follow: Vec::new(),
            items: Items::All,
            allow: Vec::new(),
            deny: Vec::new(),
            same_site: true,
            max_depth: None,
            max_pages: None,
            frontier: FrontierOrder::Learned,
            render: RenderMode::Never,
            settle: Duration::from_millis(500),
            render_timeout: Duration::from_secs(20),
            actions: Vec::new(),
            media: None,
            politeness: Politeness::default(),
        }
    }
}

/// Which pages are items, the pages whose records are extracted.
#[derive(Clone, Debug)]
pub enum Items {
    /// Every page.
    All,
    /// The pages whose URL this regex is found in.
    Pattern(Regex),
    /// Pages like the URLs of the site's feed (else its sitemap).
    LearnFromFeed,
    /// Pages like the URLs of the site's sitemap.
    LearnFromSitemap,
}

/// The order pages are fetched in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontierOrder {
    /// The most promising first, by an online model of how many item links
    /// a page holds, trained on every download.
    Learned,
    /// Breadth first.
    Bfs,
}

/// Whether pages are rendered in a browser before they are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderMode {
    /// Never: the raw HTML is read.
    Never,
    /// Where the patterns fail on the raw HTML and succeed once rendered,
    /// remembered per URL pattern.
    Auto,
    /// Every page.
    Always,
}

impl RenderMode {
    /// The word the wrapper and the command line use.
    pub fn as_str(self) -> &'static str {
        match self {
            RenderMode::Never => "never",
            RenderMode::Auto => "auto",
            RenderMode::Always => "always",
        }
    }
}

impl std::str::FromStr for RenderMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "never" => Ok(RenderMode::Never),
            "auto" => Ok(RenderMode::Auto),
            "always" => Ok(RenderMode::Always),
            other => Err(format!("{other:?}: expected never, auto or always")),
        }
    }
}

/// What is done on a rendered page before it is read.
#[derive(Clone, Debug, PartialEq)]
pub enum PageAction {
    /// Click what the XPath matches, again and again once the page has
    /// settled, until it is gone or `max` clicks were made.
    Click {
        /// What to click (an XPath 1.0 expression, evaluated in the browser).
        xpath: String,
        /// The most clicks.
        max: u32,
    },
    /// Scroll to the bottom this many times.
    Scroll {
        /// How many times.
        times: u32,
    },
    /// Wait until the XPath matches.
    WaitFor {
        /// What to wait for.
        xpath: String,
        /// How long at most.
        timeout: Duration,
    },
}

/// How the crawl treats the site.
#[derive(Clone, Debug, PartialEq)]
pub struct Politeness {
    /// Whether robots.txt is obeyed.
    pub robots: bool,
    /// The User-Agent header, when not mend's own.
    pub user_agent: Option<String>,
    /// The time between two requests to one host, where the adaptive delay
    /// starts.
    pub delay: Duration,
    /// Requests in flight to one host at once.
    pub concurrency: u32,
    /// Whether the delay adapts to the host's latency.
    pub autothrottle: bool,
    /// Retries of a failed request.
    pub retries: u32,
    /// How long a response may take.
    pub timeout: Duration,
    /// The largest body read.
    pub max_bytes: u64,
}

impl Default for Politeness {
    fn default() -> Self {
        Politeness {
            robots: true,
            user_agent: None,
            delay: Duration::from_millis(250),
            concurrency: 2,
            autothrottle: true,
            retries: 3,
            timeout: Duration::from_secs(30),
            max_bytes: 10 * 1024 * 1024,
        }
    }
}

/// Reads the `crawl` block, adding a diagnostic for every problem found;
/// what could not be read keeps its default.
pub(super) fn build(
    node: &Node,
    builder: &Builder<'_>,
    out: &mut Vec<Diagnostic>,
) -> CrawlSettings {
    let defaults = CrawlSettings::default();
    let seconds = |key: &str, default: Duration| {
        node.get(key)
            .and_then(as_f64)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .unwrap_or(default)
    };
    let regexes = |key: &str, out: &mut Vec<Diagnostic>| -> Vec<Regex> {
        node.get(key)
            .map(Node::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|item| builder.regex(item, out))
            .collect()
    };
    let follow = node
        .get("follow")
        .map(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|item| builder.xpath(item, out))
        .collect();
    let items = match node.get("items") {
        None => Items::All,
        Some(items) => match items.get("learn").and_then(Node::as_str) {
            Some("sitemap") => Items::LearnFromSitemap,
            Some(_) => Items::LearnFromFeed,
            None => builder.regex(items, out).map_or(Items::All, Items::Pattern),
        },
    };
    let allow = regexes("allow", out);
    let deny = regexes("deny", out);
    let actions = node
        .get("actions")
        .map(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|item| action(item, builder, out))
        .collect();
    let media = node.get("media").and_then(|m| builder.xpath(m, out));
    CrawlSettings {
        follow,
        items,
        allow,
        deny,
        same_site: node
            .get("same_site")
            .and_then(as_bool)
            .unwrap_or(defaults.same_site),
        max_depth: node
            .get("max_depth")
            .and_then(as_usize)
            .map(|d| u32::try_from(d).unwrap_or(u32::MAX)),
        max_pages: node.get("max_pages").and_then(as_usize).map(|n| n as u64),
        frontier: match node.get("frontier").and_then(Node::as_str) {
            Some("bfs") => FrontierOrder::Bfs,
            _ => FrontierOrder::Learned,
        },
        render: node
            .get("render")
            .and_then(Node::as_str)
            .and_then(|r| r.parse().ok())
            .unwrap_or(defaults.render),
        settle: seconds("settle", defaults.settle),
        render_timeout: seconds("render_timeout", defaults.render_timeout),
        actions,
        media,
        politeness: node
            .get("politeness")
            .map_or_else(Politeness::default, politeness),
    }
}

fn politeness(node: &Node) -> Politeness {
    let d = Politeness::default();
    let seconds = |key: &str, default: Duration| {
        node.get(key)
            .and_then(as_f64)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .unwrap_or(default)
    };
    let count = |key: &str, default: u32| {
        node.get(key)
            .and_then(as_usize)
            .map_or(default, |n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    Politeness {
        robots: node.get("robots").and_then(as_bool).unwrap_or(d.robots),
        user_agent: node
            .get("user_agent")
            .and_then(Node::as_str)
            .map(str::to_owned),
        delay: seconds("delay", d.delay),
        concurrency: count("concurrency", d.concurrency).max(1),
        autothrottle: node
            .get("autothrottle")
            .and_then(as_bool)
            .unwrap_or(d.autothrottle),
        retries: count("retries", d.retries),
        timeout: seconds("timeout", d.timeout),
        max_bytes: node
            .get("max_bytes")
            .and_then(as_usize)
            .map_or(d.max_bytes, |n| n as u64),
    }
}

/// One action: exactly one of `click`, `scroll` and `wait_for`, with the
/// option that belongs to it.
fn action(node: &Node, builder: &Builder<'_>, out: &mut Vec<Diagnostic>) -> Option<PageAction> {
    let kinds: Vec<&str> = ["click", "scroll", "wait_for"]
        .into_iter()
        .filter(|k| node.get(k).is_some())
        .collect();
    let refuse = |message: String, out: &mut Vec<Diagnostic>| {
        out.push(builder.error_at(node, message).with_expected(
            "one of {click: XPATH, max: N}, {scroll: N}, {wait_for: XPATH, timeout: SECONDS}",
        ));
        None
    };
    let [kind] = kinds[..] else {
        return refuse(
            match kinds.len() {
                0 => "an action needs one of click, scroll and wait_for".to_owned(),
                _ => format!("an action is one thing to do, not {}", kinds.join(" and ")),
            },
            out,
        );
    };
    for (option, owner) in [("max", "click"), ("timeout", "wait_for")] {
        if node.get(option).is_some() && kind != owner {
            return refuse(
                format!("{option:?} belongs to a {owner} action, not a {kind} action"),
                out,
            );
        }
    }
    let value = node.get(kind)?;
    match kind {
        "scroll" => Some(PageAction::Scroll {
            times: as_usize(value).map_or(1, |n| u32::try_from(n).unwrap_or(u32::MAX)),
        }),
        _ => {
            // The XPath runs in the browser, but a typo is caught here.
            builder.xpath(value, out)?;
            let xpath = value.as_str()?.to_owned();
            Some(if kind == "click" {
                PageAction::Click {
                    xpath,
                    max: node
                        .get("max")
                        .and_then(as_usize)
                        .map_or(50, |n| u32::try_from(n).unwrap_or(u32::MAX)),
                }
            } else {
                PageAction::WaitFor {
                    xpath,
                    timeout: node
                        .get("timeout")
                        .and_then(as_f64)
                        .and_then(|s| Duration::try_from_secs_f64(s).ok())
                        .unwrap_or(Duration::from_secs(10)),
                }
            })
        }
    }
}

#[cfg(test)]
mod tests;
