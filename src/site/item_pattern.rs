//! Which URLs of a site are items (posts, articles, threads): a regular
//! expression over a URL's path and query, learned from the URLs a site's
//! feed lists, which are the only URLs known to be posts, or written by a
//! person.
//!
//! Learning generalises the examples' paths position by position, so that
//! the pattern matches every post of the same shape (older ones included)
//! and, as far as the examples allow, none of the site's listing, tag,
//! category, archive, author or pagination pages. Those differ from posts
//! mostly in their number of segments (`/2024/05/` against
//! `/2024/05/a-post/`) or in a literal segment (`/tag/x` against
//! `/posts/x`), which is what the pattern keeps. It cannot tell apart pages
//! that have the shape of a post and are not (`/about/` on a site whose
//! posts are `/a-post/`): no regular expression learned from posts alone
//! can.
//!
//! A written expression that does not compile, or compiles past
//! `REGEX_SIZE_LIMIT` (1 MiB), is refused with `PatternError::Regex` rather
//! than slowing every match. Learning drops the examples that are not
//! `http(s)` URLs and learns nothing when none is left; it keeps at most four
//! groups, and leaves out any but the largest that holds less than a tenth
//! of the examples, or one example among more than four. A pattern bound
//! to hosts matches no URL without a host.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use regex::{Regex, RegexBuilder};
use url::Url;

use super::generalize::{Example, GroupKey, group_pattern};
use super::normalize::normalize;

/// A regular expression over the path and query of a site's item URLs,
/// with the hosts it applies to.
///
/// The expression is matched against the URL's path, followed by `?` and
/// the query when the URL has one: `/2024/05/a-post/`,
/// `/viewtopic.php?t=12`. Learned patterns are anchored at both ends, so a
/// URL with a query matches only a pattern learned from examples with
/// that query key.
#[derive(Clone, Debug)]
pub struct ItemPattern {
    /// Lowercase hosts; empty for every host.
    hosts: Vec<String>,
    regex: Regex,
}

/// Why a written item pattern was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The regular expression does not compile, or compiles too large.
    #[error("invalid item pattern: {0}")]
    Regex(#[from] regex::Error),
}

/// The pattern of the item URLs among `examples` (a feed's entries), or
/// `None` when none of them is an `http(s)` URL.
///
/// The examples are grouped by their number of path segments and their
/// query keys (a path's trailing slash counts as an empty last segment, so
/// it is kept). The largest group is always kept; another is kept when it
/// holds a tenth of the examples and at least two of them (any, with four
/// examples or fewer), up to four groups, and the pattern is the
/// alternation of the kept groups'. Within a group, each position becomes:
/// numbers a digit class (`\d{4}` for years, `\d{1,2}` for months and
/// days after a year, `\d+` for ids), a segment the same in every example
/// that literal, a segment with at most four values each seen twice or
/// more an alternation of them (sections), and any other segment a class
/// that keeps what every example shares: a file extension
/// (`[^/]+\.html`), a trailing or leading number (`[^/]+-\d+`,
/// `post-\d+`), and with five examples or more any common prefix or
/// suffix.
///
/// The item's own name, the last non-empty segment of a path without a
/// query, must hold a character other than a digit when no example's is a
/// bare number (`[^/]*[^/\d][^/]*`), which rejects day archives
/// (`/2024/05/07/`) and listing pages (`/posts/2`).
///
/// One example alone gives the pattern of its shape: numbers become digit
/// classes as above, the item's name becomes any name of its form (its
/// extension and a trailing or leading number kept), and every other
/// segment, and query value but numbers, stays literal. So
/// `/2024/05/a-post/` gives `^/\d{4}/\d{1,2}/[^/]*[^/\d][^/]*/$`, and
/// `/read.php?id=12` gives `^/read\.php\?id=\d+$`.
pub fn learn(examples: &[Url]) -> Option<ItemPattern> {
    let urls: Vec<Url> = examples.iter().filter_map(normalize).collect();
    let examples: Vec<Example<'_>> = urls.iter().map(Example::of).collect();
    let total = examples.len();
    let mut groups: BTreeMap<GroupKey<'_>, Vec<&Example<'_>>> = BTreeMap::new();
    for example in &examples {
        groups.entry(example.key()).or_default().push(example);
    }
    let mut groups: Vec<(GroupKey<'_>, Vec<&Example<'_>>)> = groups.into_iter().collect();
    // Stable: groups of equal size stay in key order, so learning is
    // deterministic.
    groups.sort_by_key(|(_, members)| std::cmp::Reverse(members.len()));
    let mut fragments: Vec<String> = Vec::new();
    let mut hosts = BTreeSet::new();
    for (i, (_, members)) in groups.iter().enumerate() {
        let size = members.len();
        let kept = i == 0 || (size * 10 >= total && (size >= 2 || total <= 4));
        if !kept || fragments.len() == MAX_GROUPS {
            continue;
        }
        let fragment = group_pattern(members);
        if !fragments.contains(&fragment) {
            fragments.push(fragment);
        }
        hosts.extend(members.iter().map(|example| example.host.to_owned()));
    }
    let source = match fragments.as_slice() {
        [] => return None,
        [one] => format!("^{one}$"),
        many => format!("^(?:{})$", many.join("|")),
    };
    let regex = compile(&source).ok()?;
    Some(ItemPattern {
        hosts: hosts.into_iter().collect(),
        regex,
    })
}

impl ItemPattern {
    /// A pattern a person wrote: `re` is searched in the path (and `?`
    /// query) of URLs of `host` (any host when `None`); anchor it with `^`
    /// and `$` to match the whole.
    pub fn from_regex(host: Option<&str>, re: &str) -> Result<Self, PatternError> {
        let regex = compile(re)?;
        let hosts = host
            .map(|host| vec![host.trim().to_ascii_lowercase()])
            .unwrap_or_default();
        Ok(Self { hosts, regex })
    }

    /// A pattern as [`ItemPattern::as_str`] and [`ItemPattern::hosts`]
    /// give it back: how a pattern is kept outside the process (the
    /// PostgreSQL backend hands a learned pattern to its workers).
    pub fn from_parts(hosts: Vec<String>, re: &str) -> Result<Self, PatternError> {
        let regex = compile(re)?;
        let hosts = hosts
            .into_iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
        Ok(Self { hosts, regex })
    }

    /// Whether `url` is an item: its host is one of the pattern's and its
    /// path and query match. `url` should be normalised (as
    /// [`normalize`](fn@super::normalize) and [`resolve`](super::resolve)
    /// give it), since the pattern was learned from normal forms. A host
    /// matches with or without a leading `www.`.
    pub fn matches(&self, url: &Url) -> bool {
        self.applies_to(url) && self.regex.is_match(&target(url))
    }

    /// The regular expression, as it would be written.
    pub fn as_str(&self) -> &str {
        self.regex.as_str()
    }

    /// The hosts the pattern applies to, lowercase; empty for every host.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    fn applies_to(&self, url: &Url) -> bool {
        if self.hosts.is_empty() {
            return true;
        }
        let Some(host) = url.host_str() else {
            return false;
        };
        let host = without_www(host);
        self.hosts
            .iter()
            .any(|own| without_www(own).eq_ignore_ascii_case(host))
    }
}

impl fmt::Display for ItemPattern {
    /// The hosts, comma-separated (or `*`), a space, and the expression:
    /// `blog.example.com ^/posts/[^/]+$`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.hosts.is_empty() {
            f.write_str("*")?;
        } else {
            f.write_str(&self.hosts.join(","))?;
        }
        write!(f, " {}", self.regex.as_str())
    }
}

/// More alternatives would be a list of examples rather than a pattern.
const MAX_GROUPS: usize = 4;

/// A learned expression is small; one written by a person that compiles
/// past this is refused rather than slowing every match.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

fn compile(source: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(source)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
}

/// What a pattern is matched against: the path, and `?` and the query if
/// there is one.
fn target(url: &Url) -> Cow<'_, str> {
    match url.query() {
        Some(query) => Cow::Owned(format!("{}?{query}", url.path())),
        None => Cow::Borrowed(url.path()),
    }
}

fn without_www(host: &str) -> &str {
    host.strip_prefix("www.").unwrap_or(host)
}

#[cfg(test)]
#[path = "item_pattern_tests.rs"]
mod tests;
