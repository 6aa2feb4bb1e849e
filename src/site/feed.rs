//! The post URLs a site lists in its feeds and sitemaps: RSS 2.0 (and the
//! 0.9x it grew from), RSS 1.0 (RDF), Atom, sitemaps and sitemap indexes.
//! A feed's entries are the only URLs a crawler knows to be posts, so they
//! are what an [`ItemPattern`](super::ItemPattern) is learned from.
//!
//! Reading is lenient, as feeds in the wild need: elements are matched by
//! local name whatever their namespace prefix, a stray `&` is text, an end
//! tag that closes nothing is ignored and one that skips open elements
//! closes them, and an XML error after the root element ends reading with
//! the entries found so far ([`Feed::stopped_by`] says why). The reader is
//! a streaming one and keeps no tree: depth, size and malformed input cost
//! time in proportion to the input and never panic. A document that is no
//! feed is refused by what it is ([`FeedError::NotAFeed`]); gzip is
//! refused too, since decompressing is the fetcher's business.

use std::collections::HashSet;
use std::fmt;

use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use url::Url;

use super::charset::decode;
use super::date::parse_date;
use super::fnv;
use super::normalize::resolve;

/// What a feed or sitemap lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feed {
    /// Which kind of document it is.
    pub kind: FeedKind,
    /// The pages it lists, normalised, each once, in document order.
    pub entries: Vec<FeedEntry>,
    /// The sitemaps a sitemap index lists, to fetch in turn (empty for
    /// every other kind), normalised, each once.
    pub sitemaps: Vec<Url>,
    /// The XML error that ended reading before the end of the document;
    /// the entries before it are kept.
    pub stopped_by: Option<FeedError>,
}

/// The kinds of document [`feed_entries`] reads, by their root element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeedKind {
    /// RSS 2.0 or 0.9x: `<rss>` with `channel/item` elements.
    Rss,
    /// RSS 1.0 or 0.90: `<rdf:RDF>` with `item` elements.
    Rdf,
    /// Atom: `<feed>` with `entry` elements.
    Atom,
    /// A sitemap: `<urlset>` with `url` elements.
    Sitemap,
    /// A sitemap index: `<sitemapindex>` with `sitemap` elements.
    SitemapIndex,
}

/// One page a feed or sitemap lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedEntry {
    /// The page, absolute and normalised.
    pub url: Url,
    /// When the page last changed, as the document says, in unix
    /// milliseconds UTC: Atom's `updated` (else `published`), RSS's
    /// `pubDate` or `dc:date`, a sitemap's `lastmod`.
    pub updated: Option<i64>,
}

/// Why a document gave no feed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FeedError {
    /// The document holds nothing but whitespace.
    #[error("the document is empty")]
    Empty,
    /// The document is gzip-compressed (a `.xml.gz` sitemap, most often).
    #[error("the document is gzip-compressed; decompress it before reading it as a feed")]
    Compressed,
    /// The XML is malformed; `position` is a byte offset in the document as
    /// decoded to UTF-8.
    #[error("malformed XML at byte {position}: {message}")]
    Syntax {
        /// Where the error was found.
        position: u64,
        /// What is wrong there.
        message: String,
    },
    /// The document is not a feed or sitemap; `found` says what it is.
    #[error("not a feed or sitemap: the document is {found}")]
    NotAFeed {
        /// What the document is instead, such as "an HTML page".
        found: String,
    },
}

/// The entries of a feed or sitemap, its relative URLs resolved against
/// `base` (the URL the document was fetched from) or the document's
/// `xml:base`.
///
/// Entries are the item's link: RSS's `link`, else a `guid` whose
/// `isPermaLink` is not `false`, else (RSS 1.0) the item's `rdf:about`;
/// Atom's first `link` with `rel="alternate"` or no `rel`; a sitemap's
/// `loc`. Entries that are not `http(s)` URLs are left out.
pub fn feed_entries(xml: &[u8], base: &Url) -> Result<Feed, FeedError> {
    if xml.starts_with(&[0x1f, 0x8b]) {
        return Err(FeedError::Compressed);
    }
    let text = decode(xml);
    let start = text.trim_start();
    if start.is_empty() {
        return Err(FeedError::Empty);
    }
    if start.starts_with(['{', '[']) {
        return Err(FeedError::NotAFeed {
            found: "JSON (JSON Feed is not read)".to_owned(),
        });
    }
    // An HTML page is seldom well-formed XML up to its root element, so it
    // is recognised before the XML reader can call it malformed.
    let lead = start.as_bytes()[..start.len().min(14)].to_ascii_lowercase();
    if lead.starts_with(b"<!doctype html") || lead.starts_with(b"<html") {
        return Err(not_a_feed("html"));
    }
    let mut reader = Reader::from_str(&text);
    let config = reader.config_mut();
    // Matching end tags is done here, with recovery, rather than failing.
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    let mut walker = Walker::new(base);
    loop {
        let event = match reader.read_event() {
            Ok(Event::Eof) => break,
            Ok(event) => event,
            Err(error) => {
                let error = FeedError::Syntax {
                    position: reader.error_position(),
                    message: error.to_string(),
                };
                if walker.kind.is_none() {
                    return Err(error);
                }
                walker.stopped_by = Some(error);
                break;
            }
        };
        walker.event(event)?;
    }
    walker.finish()
}

impl FeedKind {
    /// The kind's name, as in messages: `rss`, `rdf`, `atom`, `sitemap`,
    /// `sitemap-index`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Rss => "rss",
            Self::Rdf => "rdf",
            Self::Atom => "atom",
            Self::Sitemap => "sitemap",
            Self::SitemapIndex => "sitemap-index",
        }
    }

    /// The kind a root element's local name starts, if any.
    fn of_root(local: &str) -> Option<Self> {
        match local {
            "rss" => Some(Self::Rss),
            "RDF" => Some(Self::Rdf),
            "feed" => Some(Self::Atom),
            "urlset" => Some(Self::Sitemap),
            "sitemapindex" => Some(Self::SitemapIndex),
            _ => None,
        }
    }

    /// The local name of the element that holds one entry.
    fn record(self) -> &'static str {
        match self {
            Self::Rss | Self::Rdf => "item",
            Self::Atom => "entry",
            Self::Sitemap => "url",
            Self::SitemapIndex => "sitemap",
        }
    }

    /// What a child of an entry with this local name holds, if it matters.
    fn field(self, local: &str) -> Option<Field> {
        match (self, local) {
            (Self::Rss | Self::Rdf | Self::Atom, "link") => Some(Field::Link),
            (Self::Rss | Self::Rdf, "guid") => Some(Field::Guid),
            (Self::Sitemap | Self::SitemapIndex, "loc") => Some(Field::Link),
            (Self::Rss | Self::Rdf, "pubDate" | "date") => Some(Field::Published),
            (_, "published" | "issued") => Some(Field::Published),
            (_, "updated" | "modified" | "lastmod") => Some(Field::Updated),
            _ => None,
        }
    }
}

impl fmt::Display for FeedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Longer text in a field is no URL or date worth keeping; capping it
/// keeps a hostile document from growing one string without bound.
const MAX_FIELD_BYTES: usize = 8 * 1024;

/// How far down the open elements an end tag looks for its start tag; past
/// that it is ignored, so that stray end tags in deep documents cost a
/// bounded time each.
const END_TAG_SEARCH: usize = 64;

/// What a child element of an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Link,
    Guid,
    Published,
    Updated,
}

/// An entry element being read.
struct Record {
    /// Its depth in the stack of open elements.
    depth: usize,
    /// What relative URLs inside it are resolved against.
    base: Url,
    link: Option<String>,
    guid: Option<String>,
    about: Option<String>,
    published: Option<i64>,
    updated: Option<i64>,
}

/// A child element of an entry whose text is being read.
struct OpenField {
    depth: usize,
    field: Field,
    text: String,
    too_long: bool,
}

/// The state of one pass over the events.
struct Walker {
    base: Url,
    kind: Option<FeedKind>,
    /// The open elements, by the hash of their qualified name.
    open: Vec<u64>,
    record: Option<Record>,
    field: Option<OpenField>,
    seen: HashSet<String>,
    entries: Vec<FeedEntry>,
    sitemaps: Vec<Url>,
    stopped_by: Option<FeedError>,
}

impl Walker {
    fn new(base: &Url) -> Self {
        Self {
            base: base.clone(),
            kind: None,
            open: Vec::new(),
            record: None,
            field: None,
            seen: HashSet::new(),
            entries: Vec::new(),
            sitemaps: Vec::new(),
            stopped_by: None,
        }
    }

    fn event(&mut self, event: Event<'_>) -> Result<(), FeedError> {
        match event {
            Event::Start(start) => self.start(&start)?,
            Event::Empty(start) => {
                self.start(&start)?;
                self.close_top();
            }
            Event::End(end) => self.end(fnv::hash(end.name().as_ref().as_bytes())),
            Event::Text(text) => self.text(&text),
            Event::CData(text) => self.text(&text),
            Event::GeneralRef(reference) => self.reference(&reference),
            _ => {}
        }
        Ok(())
    }

    fn start(&mut self, start: &BytesStart<'_>) -> Result<(), FeedError> {
        let name = start.name();
        let local = name.local_name();
        let local = local.as_ref();
        self.open.push(fnv::hash(name.as_ref().as_bytes()));
        let depth = self.open.len();
        let Some(kind) = self.kind else {
            let kind = FeedKind::of_root(local).ok_or_else(|| not_a_feed(local))?;
            self.kind = Some(kind);
            self.base = rebased(&self.base, start);
            return Ok(());
        };
        match &mut self.record {
            None if local == kind.record() => {
                self.record = Some(Record {
                    depth,
                    base: rebased(&self.base, start),
                    link: None,
                    guid: None,
                    about: attribute(start, "about"),
                    published: None,
                    updated: None,
                });
            }
            Some(record) if depth == record.depth + 1 && self.field.is_none() => {
                let Some(field) = kind.field(local) else {
                    return Ok(());
                };
                if field == Field::Link && record.link.is_some() {
                    return Ok(());
                }
                if field == Field::Guid
                    && attribute(start, "isPermaLink")
                        .is_some_and(|v| v.trim().eq_ignore_ascii_case("false"))
                {
                    return Ok(());
                }
                if field == Field::Link
                    && let Some(href) = attribute(start, "href")
                {
                    // Atom's links, and the odd `atom:link` in an RSS item,
                    // are in `href`; only alternates are the page itself.
                    let rel = attribute(start, "rel");
                    let alternate = rel.as_deref().is_none_or(|rel| {
                        let rel = rel.trim();
                        rel.eq_ignore_ascii_case("alternate")
                            || rel == "http://www.iana.org/assignments/relation/alternate"
                    });
                    if alternate && !href.trim().is_empty() {
                        record.link = Some(href);
                    }
                    return Ok(());
                }
                self.field = Some(OpenField {
                    depth,
                    field,
                    text: String::new(),
                    too_long: false,
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// Closes the element `name` ends and every element opened inside it;
    /// an end tag that matches none of the nearest open elements is
    /// ignored.
    fn end(&mut self, name: u64) {
        let mut searched = self.open.iter().rev().take(END_TAG_SEARCH);
        let Some(above) = searched.position(|&open| open == name) else {
            return;
        };
        for _ in 0..=above {
            self.close_top();
        }
    }

    fn close_top(&mut self) {
        let depth = self.open.len();
        if depth == 0 {
            return;
        }
        self.open.pop();
        if self
            .field
            .as_ref()
            .is_some_and(|field| field.depth == depth)
        {
            self.close_field();
        }
        if self
            .record
            .as_ref()
            .is_some_and(|record| record.depth == depth)
        {
            self.close_record();
        }
    }

    fn close_field(&mut self) {
        let (Some(field), Some(record)) = (self.field.take(), self.record.as_mut()) else {
            return;
        };
        let text = field.text.trim();
        if field.too_long || text.is_empty() {
            return;
        }
        match field.field {
            Field::Link => record.link = Some(text.to_owned()),
            Field::Guid => record.guid = Some(text.to_owned()),
            Field::Published => record.published = record.published.or(parse_date(text)),
            Field::Updated => record.updated = record.updated.or(parse_date(text)),
        }
    }

    fn close_record(&mut self) {
        let (Some(record), Some(kind)) = (self.record.take(), self.kind) else {
            return;
        };
        let Some(url) = [&record.link, &record.guid, &record.about]
            .into_iter()
            .flatten()
            .find_map(|href| resolve(&record.base, href))
        else {
            return;
        };
        if !self.seen.insert(url.as_str().to_owned()) {
            return;
        }
        if kind == FeedKind::SitemapIndex {
            self.sitemaps.push(url);
        } else {
            self.entries.push(FeedEntry {
                url,
                updated: record.updated.or(record.published),
            });
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(field) = &mut self.field {
            field.push(text);
        }
    }

    fn reference(&mut self, reference: &BytesRef<'_>) {
        let Some(field) = &mut self.field else { return };
        let named = match reference.as_ref() {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => reference.resolve_char_ref().ok().flatten(),
        };
        match named {
            Some(c) => field.push(c.encode_utf8(&mut [0; 4])),
            // An entity the document never declared (HTML's `&nbsp;` in a
            // title, say) stays as written.
            None => {
                field.push("&");
                field.push(reference);
                field.push(";");
            }
        }
    }

    fn finish(mut self) -> Result<Feed, FeedError> {
        // A truncated document still gives the entry it was in the middle
        // of, if that entry's link was read.
        while !self.open.is_empty() {
            self.close_top();
        }
        let Some(kind) = self.kind else {
            return Err(FeedError::NotAFeed {
                found: "text without elements".to_owned(),
            });
        };
        Ok(Feed {
            kind,
            entries: self.entries,
            sitemaps: self.sitemaps,
            stopped_by: self.stopped_by,
        })
    }
}

impl OpenField {
    fn push(&mut self, text: &str) {
        if self.text.len() + text.len() > MAX_FIELD_BYTES {
            self.too_long = true;
        } else if !self.too_long {
            self.text.push_str(text);
        }
    }
}

/// The value of the attribute with this local name, unescaped when it can
/// be and as written when it cannot.
fn attribute(start: &BytesStart<'_>, local: &str) -> Option<String> {
    // An element's attributes are bounded by its tag, but a hostile tag can
    // be long: a few hundred attributes is more than any feed writes.
    start
        .attributes()
        .take(256)
        .filter_map(Result::ok)
        .find(|attribute| attribute.key.local_name().as_ref() == local)
        .map(|attribute| value_of(&attribute))
}

/// An attribute's value with its references resolved, or as written when
/// one does not resolve.
fn value_of(attribute: &Attribute<'_>) -> String {
    match attribute.normalized_value(XmlVersion::Implicit1_0) {
        Ok(value) => value.into_owned(),
        Err(_) => attribute.value.to_string(),
    }
}

/// `base`, or the element's `xml:base` resolved against it when it has one
/// that is an http(s) URL.
fn rebased(base: &Url, start: &BytesStart<'_>) -> Url {
    let declared = start
        .attributes()
        .take(256)
        .filter_map(Result::ok)
        .find(|attribute| attribute.key.as_ref() == "xml:base");
    declared
        .and_then(|attribute| base.join(value_of(&attribute).trim()).ok())
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .unwrap_or_else(|| base.clone())
}

fn not_a_feed(root: &str) -> FeedError {
    let found = if root.eq_ignore_ascii_case("html") {
        "an HTML page".to_owned()
    } else {
        let shown: String = root.chars().take(40).collect();
        format!("an XML document whose root is <{shown}>")
    };
    FeedError::NotAFeed { found }
}

#[cfg(test)]
#[path = "feed_tests.rs"]
mod tests;
