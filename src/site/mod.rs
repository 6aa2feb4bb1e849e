//! What a crawler knows about a site's URLs, without fetching anything:
//! one spelling per page ([`normalize()`], [`resolve`]), the post URLs a
//! site's feeds and sitemaps list ([`feed_entries`], [`sitemaps_in_robots`]),
//! which URLs are items ([`ItemPattern`], learned from those posts by
//! [`learn`]), and which pages to fetch first ([`LinkValueModel`],
//! [`priority()`]).
//!
//! A crawler built on it fetches a site's feeds, learns an item pattern
//! from their entries, and explores the site from its seeds in the
//! order of [`priority()`] rather than breadth first: after each page it
//! tells the [`LinkValueModel`] how many links to items the page held, so
//! that pages like it (listings, archives, pagination) come first and pages
//! that lead nowhere (wikis, forums, tag clouds) come last.
//!
//! The module is pure: it does no I/O, spawns no threads, uses no async and
//! reads no clock; bytes, URLs and counts are handed in and data comes
//! out. It refuses to fetch, decompress, obey or parse `robots.txt` rules
//! (beyond its `Sitemap:` lines), or read HTML: those are the crawler's.
//! No input panics it: malformed, huge or deeply nested feeds are read by
//! a streaming reader with bounded work per element.

mod charset;
mod date;
mod feed;
mod fnv;
mod generalize;
mod item_pattern;
mod normalize;
mod priority;
mod robots;
mod url_features;

pub use feed::{Feed, FeedEntry, FeedError, FeedKind, feed_entries};
pub use item_pattern::{ItemPattern, PatternError, learn};
pub use normalize::{TRACKING_KEYS, is_tracking_key, normalize, resolve};
pub use priority::{DEPTH_COST, LinkValueModel, priority};
pub use robots::sitemaps_in_robots;
