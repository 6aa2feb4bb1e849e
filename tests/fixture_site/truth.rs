//! What the fixture site holds, as a crawl should find it: every post with
//! its fields as a browser renders them, the URLs a polite crawler may fetch
//! and the ones it must not, and the traps. Tests compare a crawl's output
//! with it; nothing here serves a page.

use chrono::{DateTime, Utc};

use super::Variant;

/// One comment under a post.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The commenter's name (`<span class="who">`).
    pub who: String,
    /// The comment's text (the `<p>` after the name).
    pub text: String,
}

/// How a URL of the site misbehaves on purpose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trap {
    /// A post that answers after [`super::SLOW_DELAY`].
    SlowPost,
    /// A post that answers 500 to its first two requests, then 200.
    FailsTwice,
    /// A post that answers 429 with `Retry-After: 1` to its first request,
    /// then 200.
    RateLimitedOnce,
    /// A permanent redirect (301) to the canonical URL of the post given.
    RedirectToPost(String),
    /// One of two URLs that redirect (302) to each other.
    RedirectLoop,
    /// A 64 MiB body, streamed, with its `Content-Length`.
    Huge,
    /// A link to a page that does not exist (404).
    NotFound,
}

/// A post as a browser shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Post {
    /// Its number, from 1 (the oldest).
    pub number: usize,
    /// Its canonical URL, absolute.
    pub url: String,
    /// The path of [`Post::url`].
    pub path: String,
    /// The title (`<h1 class="title">`).
    pub title: String,
    /// The publication date, `YYYY-MM-DD` (as `type: date` gives it).
    pub date: String,
    /// The publication time (`<time datetime>`).
    pub published: DateTime<Utc>,
    /// The last change: the publication, or the last `update_post`.
    pub modified: DateTime<Utc>,
    /// The content's version, 1 at the start, one more per `update_post`.
    pub version: u32,
    /// The author's name (`<span class="author">`).
    pub author: String,
    /// The body's paragraphs, in order.
    pub body: Vec<String>,
    /// Every comment, in order, those a button loads included.
    pub comments: Vec<Comment>,
    /// The images' URLs, absolute, in order.
    pub images: Vec<String>,
    /// The tags' names (blog variant only).
    pub tags: Vec<String>,
    /// The content exists only after its script has run.
    pub js_only: bool,
    /// Most comments are loaded by clicking "Show more comments".
    pub show_more: bool,
    /// How the post's URL misbehaves, if it does.
    pub trap: Option<Trap>,
}

impl Post {
    /// The `ETag` the post is served with: it changes with every update.
    pub fn etag(&self) -> String {
        format!("\"post-{}-v{}\"", self.number, self.version)
    }

    /// The `Last-Modified` the post is served with.
    pub fn last_modified(&self) -> String {
        http_date(self.modified)
    }

    /// Whether a crawler without a browser sees the whole post: neither its
    /// content nor some of its comments wait for a script.
    pub fn needs_no_browser(&self) -> bool {
        !self.js_only && !self.show_more
    }

    /// The post's first sentence, as listing pages and feeds summarise it.
    pub fn summary(&self) -> &str {
        let first = self.body.first().map_or("", String::as_str);
        first.find(". ").map_or(first, |end| &first[..=end])
    }
}

/// A URL that misbehaves on purpose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrapUrl {
    /// The URL, absolute.
    pub url: String,
    /// What it does.
    pub trap: Trap,
}

/// Everything the site holds, as the tests compare a crawl with.
#[derive(Clone, Debug)]
pub struct Truth {
    /// The site's base URL, `http://127.0.0.1:PORT` (no trailing slash).
    pub base: String,
    /// Which site this is.
    pub variant: Variant,
    /// The posts, by number (index 0 is post 1).
    pub posts: Vec<Post>,
    /// The posts' canonical URLs, by number: the items a crawl should find.
    pub item_urls: Vec<String>,
    /// Every HTML page that links lead to from `/`, following `<a href>`
    /// only, the items among them; traps and disallowed pages left out.
    /// Sorted.
    pub pages: Vec<String>,
    /// Every URL a polite crawler may fetch: the pages, `robots.txt`, the
    /// feeds and the sitemap, the images, the comment chunks a browser
    /// loads, and the trap URLs. Sorted.
    pub allowed_urls: Vec<String>,
    /// The linked URLs that robots.txt disallows: never to be fetched.
    pub disallowed_urls: Vec<String>,
    /// The URLs that misbehave on purpose, trap posts included.
    pub traps: Vec<TrapUrl>,
    /// Pairs of image URLs that serve the same bytes.
    pub duplicate_media: Vec<(String, String)>,
}

impl Truth {
    /// Post `n` (from 1).
    pub fn post(&self, n: usize) -> Option<&Post> {
        n.checked_sub(1).and_then(|i| self.posts.get(i))
    }

    /// The post whose canonical URL is `url`.
    pub fn post_at(&self, url: &str) -> Option<&Post> {
        self.posts.iter().find(|p| p.url == url)
    }

    /// The posts a crawl without a browser extracts whole, traps included.
    pub fn posts_without_browser(&self) -> impl Iterator<Item = &Post> {
        self.posts.iter().filter(|p| p.needs_no_browser())
    }

    /// The posts with nothing special about them: no script, no trap.
    pub fn plain_posts(&self) -> impl Iterator<Item = &Post> {
        self.posts
            .iter()
            .filter(|p| p.needs_no_browser() && p.trap.is_none())
    }
}

/// `time` as HTTP writes dates (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub fn http_date(time: DateTime<Utc>) -> String {
    time.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// An HTTP date read back; `None` when it is not one.
pub fn parse_http_date(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc2822(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}
