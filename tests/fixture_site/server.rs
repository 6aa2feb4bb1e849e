//! Serving the site: one handler routes every request by its path, answers
//! it from the content (with conditional requests for posts), plays the
//! traps, and logs what it received. The listening socket and the runtime
//! belong to `FixtureSite` (mod.rs), the state to `Site` (site.rs).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;

use super::content::{self, COMMENTS_PER_CHUNK, PER_PAGE, Roles, SHOW_MORE_CHUNKS};
use super::site::{Site, lock};
use super::truth::{self, Post, Trap};
use super::{HUGE_BYTES, SLOW_DELAY, Variant, feeds, html, png, sprawl};

impl Site {
    /// The answer to one request.
    async fn respond(&self, method: &Method, uri: &Uri, headers: &HeaderMap) -> Response {
        if method != Method::GET && method != Method::HEAD {
            return reply(StatusCode::METHOD_NOT_ALLOWED, TEXT, "GET or HEAD only\n");
        }
        let path = uri.path();
        if let Some(root) = &self.options.root {
            return static_file(root, path);
        }
        let variant = self.options.variant;
        let name = match variant {
            Variant::Blog => html::BLOG_NAME,
            Variant::Sprawl => html::SPRAWL_NAME,
        };
        if let Some(answer) = self.not_pages(path) {
            return answer;
        }
        match path {
            "/robots.txt" if self.options.robots_fails => {
                return reply(StatusCode::INTERNAL_SERVER_ERROR, TEXT, "robots are down\n");
            }
            "/robots.txt" => {
                return reply(
                    StatusCode::OK,
                    TEXT,
                    feeds::robots(&self.base, self.options.crawl_delay),
                );
            }
            "/feed.xml" => {
                return reply(
                    StatusCode::OK,
                    "application/rss+xml; charset=utf-8",
                    feeds::rss(&self.base, name, &Self::newest_first(&self.posts())),
                );
            }
            "/atom.xml" => {
                return reply(
                    StatusCode::OK,
                    "application/atom+xml; charset=utf-8",
                    feeds::atom(&self.base, name, &Self::newest_first(&self.posts())),
                );
            }
            "/sitemap.xml" => {
                let listings = match variant {
                    Variant::Blog => (1..=self.listing_pages()).map(html::listing_path).collect(),
                    Variant::Sprawl => Vec::new(),
                };
                return reply(
                    StatusCode::OK,
                    "application/xml; charset=utf-8",
                    feeds::sitemap(&self.base, &Self::by_number(&self.posts()), &listings),
                );
            }
            _ => {}
        }
        if path.starts_with("/private/") {
            return reply(StatusCode::OK, HTML, html::private_page(variant, path));
        }
        if let Some(id) = path
            .strip_prefix("/media/")
            .and_then(|r| r.strip_suffix(".png"))
        {
            return self.media(id);
        }
        if let Some(&index) = self.by_path.get(path) {
            return self.post(index, headers).await;
        }
        let found = match variant {
            Variant::Blog => self.blog_page(path, uri.query()),
            Variant::Sprawl => self.sprawl_page(path),
        };
        found.unwrap_or_else(|| reply(StatusCode::NOT_FOUND, HTML, html::not_found_page(variant)))
    }

    fn blog_page(&self, path: &str, query: Option<&str>) -> Option<Response> {
        let posts = self.posts();
        let newest = Self::newest_first(&posts);
        let archive: Vec<(&str, &str)> =
            self.trap_links().iter().map(|(p, t, _)| (*p, *t)).collect();
        let listing = |page: usize| {
            let chunk = newest.chunks(PER_PAGE).nth(page - 1).unwrap_or(&[]);
            let body = html::blog_listing(
                page,
                self.listing_pages(),
                chunk,
                &html::ArchiveLinks(&archive),
            );
            reply(StatusCode::OK, HTML, body)
        };
        if path == "/" {
            return Some(listing(1));
        }
        if let Some(page) = path
            .strip_prefix("/page/")
            .and_then(|r| r.strip_suffix('/'))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&p| (2..=self.listing_pages()).contains(&p))
        {
            return Some(listing(page));
        }
        if let Some(tag) = path
            .strip_prefix("/tag/")
            .and_then(|r| r.strip_suffix('/'))
            .filter(|t| content::tags().contains(t))
        {
            let tagged: Vec<&Post> = newest
                .iter()
                .copied()
                .filter(|p| p.tags.iter().any(|t| t == tag))
                .collect();
            return Some(reply(StatusCode::OK, HTML, html::tag_page(tag, &tagged)));
        }
        if path == "/about/" {
            return Some(reply(StatusCode::OK, HTML, html::about_page()));
        }
        if let Some(n) = path
            .strip_prefix("/comments/")
            .and_then(|n| n.parse::<usize>().ok())
        {
            return self.comments_chunk(&posts, n, query);
        }
        if path == "/loop/b" {
            return Some(redirect(StatusCode::FOUND, "/loop/a"));
        }
        let (_, _, trap) = self.trap_links().into_iter().find(|(p, _, _)| *p == path)?;
        match trap {
            Trap::RedirectToPost(url) => Some(redirect(StatusCode::MOVED_PERMANENTLY, &url)),
            Trap::RedirectLoop => Some(redirect(StatusCode::FOUND, "/loop/b")),
            Trap::Huge => Some(huge(
                query.is_some_and(|q| q.split('&').any(|p| p == "chunked")),
            )),
            // The link to nowhere is answered like any unknown path.
            _ => None,
        }
    }

    fn comments_chunk(
        &self,
        posts: &[Arc<Post>],
        n: usize,
        query: Option<&str>,
    ) -> Option<Response> {
        let post = posts.get(n.checked_sub(1)?).filter(|p| p.show_more)?;
        let chunk: usize = query?
            .split('&')
            .find_map(|p| p.strip_prefix("chunk="))?
            .parse()
            .ok()
            .filter(|&k| k <= SHOW_MORE_CHUNKS)?;
        let start = chunk * COMMENTS_PER_CHUNK;
        let end = (start + COMMENTS_PER_CHUNK).min(post.comments.len());
        let comments = post.comments.get(start..end)?;
        Some(reply(StatusCode::OK, HTML, html::comment_items(comments)))
    }

    fn sprawl_page(&self, path: &str) -> Option<Response> {
        let s = &self.sprawl;
        let number = |prefix: &str, max: usize| {
            path.strip_prefix(prefix)
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=max).contains(n))
        };
        let body = if path == "/" {
            sprawl::home()
        } else if path == "/forum/" {
            sprawl::forum_index(s)
        } else if path == "/wiki/Main_Page" {
            sprawl::wiki_main(s)
        } else if let Some(n) = number("/forum/t/", s.threads) {
            sprawl::thread(s, n)
        } else if let Some(n) = number("/wiki/Topic_", s.topics) {
            sprawl::topic(s, n)
        } else if let Some(k) = number("/list/", s.lists) {
            let posts = self.posts();
            let newest = Self::newest_first(&posts);
            let chunk = newest.chunks(PER_PAGE).nth(k - 1).unwrap_or(&[]);
            sprawl::list_page(k, chunk)
        } else {
            return None;
        };
        Some(reply(StatusCode::OK, HTML, body))
    }

    fn media(&self, id: &str) -> Response {
        let Some(id) = id.parse::<usize>().ok() else {
            return reply(StatusCode::NOT_FOUND, TEXT, "no such image\n");
        };
        let (n, k) = (id / 10, id % 10);
        if !self.has_post(n) || !(1..=1 + n % 3).contains(&k) {
            return reply(StatusCode::NOT_FOUND, TEXT, "no such image\n");
        }
        let [a, b] = Roles::SAME_IMAGE;
        let seed = if id == content::media_id(b, 1) {
            content::media_id(a, 1)
        } else {
            id
        };
        reply(StatusCode::OK, "image/png", png::png(seed))
    }

    /// What a trap post does before it is served: waits, or answers an
    /// error instead (`Some`) while it has errors left to give.
    async fn play_trap(&self, trap: Option<&Trap>) -> Option<Response> {
        match trap? {
            Trap::SlowPost => {
                self.held_back.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(SLOW_DELAY).await;
                None
            }
            Trap::FailsTwice => self
                .failures
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |f| {
                    (f < 2).then_some(f + 1)
                })
                .is_ok()
                .then(|| {
                    reply(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        TEXT,
                        "something broke; try again\n",
                    )
                }),
            Trap::RateLimitedOnce => (!self.rate_limited.swap(true, Ordering::SeqCst)).then(|| {
                let mut r = reply(StatusCode::TOO_MANY_REQUESTS, TEXT, "slow down\n");
                r.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                r
            }),
            _ => None,
        }
    }

    /// The answers that are not pages, and the endless calendar.
    fn not_pages(&self, path: &str) -> Option<Response> {
        match path {
            "/files/cover.png" => return Some(reply(StatusCode::OK, "image/png", png::png(1))),
            "/files/report.pdf" => {
                return Some(reply(
                    StatusCode::OK,
                    "application/pdf",
                    "%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n",
                ));
            }
            "/api/posts.json" => {
                return Some(reply(
                    StatusCode::OK,
                    "application/json",
                    "{\"posts\": [{\"title\": \"<h1>not a page</h1>\"}]}\n",
                ));
            }
            _ => {}
        }
        let month = path.strip_prefix("/calendar/")?.strip_suffix('/')?;
        let (year, month) = month.split_once('-')?;
        let (year, month) = (year.parse::<u32>().ok()?, month.parse::<u32>().ok()?);
        let (next_year, next_month) = if month >= 12 {
            (year + 1, 1)
        } else {
            (year, month + 1)
        };
        let body = format!(
            "<!doctype html><title>{year}-{month:02}</title><h1>Events of {year}-{month:02}</h1>\
             <p>Nothing on this day.</p><a class=\"next\" href=\"/calendar/{next_year}-{next_month:02}/\">next month</a>"
        );
        Some(reply(StatusCode::OK, HTML, body))
    }

    async fn post(&self, index: usize, headers: &HeaderMap) -> Response {
        let post = lock(&self.posts)[index].clone();
        if let Some(answer) = self.play_trap(post.trap.as_ref()).await {
            return answer;
        }
        let validators = self.options.validators;
        let mut response = if validators && not_modified(headers, &post) {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r
        } else {
            let page = html::post_page(
                self.options.variant,
                self.options.redesigned,
                &post,
                &self.base,
            );
            reply(StatusCode::OK, HTML, page)
        };
        if !validators {
            return response;
        }
        let h = response.headers_mut();
        if let Ok(v) = HeaderValue::from_str(&post.etag()) {
            h.insert(header::ETAG, v);
        }
        if let Ok(v) = HeaderValue::from_str(&post.last_modified()) {
            h.insert(header::LAST_MODIFIED, v);
        }
        response
    }
}

/// A file of `root` for `path`, or 404: `index.html` for a path ending in
/// `/`; no path outside `root` (a `..`, or anything but plain names).
fn static_file(root: &std::path::Path, path: &str) -> Response {
    let mut file = root.to_path_buf();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if part == ".." || part == "." || part.contains('\\') {
            return reply(StatusCode::NOT_FOUND, TEXT, "not found\n");
        }
        file.push(part);
    }
    if path.ends_with('/') {
        file.push("index.html");
    }
    match std::fs::read(&file) {
        Ok(bytes) => {
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => HTML,
                Some("png") => "image/png",
                _ => "application/octet-stream",
            };
            reply(StatusCode::OK, kind, bytes)
        }
        Err(_) => reply(StatusCode::NOT_FOUND, TEXT, "not found\n"),
    }
}

const HTML: &str = "text/html; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

fn reply(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut r = Response::new(body.into());
    *r.status_mut() = status;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

fn redirect(status: StatusCode, to: &str) -> Response {
    let mut r = reply(status, TEXT, format!("moved to {to}\n"));
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// Whether a conditional request may have a 304 for `post`: an
/// `If-None-Match` that names its ETag (or `*`), or, without
/// `If-None-Match`, an `If-Modified-Since` not older than its last change.
fn not_modified(headers: &HeaderMap, post: &Post) -> bool {
    if let Some(tags) = headers.get(header::IF_NONE_MATCH) {
        let etag = post.etag();
        return String::from_utf8_lossy(tags.as_bytes())
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || t.trim_start_matches("W/") == etag);
    }
    headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(truth::parse_http_date)
        .is_some_and(|since| post.modified <= since)
}

/// [`HUGE_BYTES`] of HTML, made 64 KiB at a time as the client reads, so
/// the server holds one chunk, never the page; with its `Content-Length`
/// unless `chunked`.
fn huge(chunked: bool) -> Response {
    const CHUNK: usize = 64 * 1024;
    let line = b"<p>Every post, every comment, every draft, all on one page.</p>\n";
    let mut filler = Vec::with_capacity(CHUNK);
    while filler.len() < CHUNK {
        filler.extend_from_slice(line);
    }
    let mut first =
        b"<!doctype html>\n<html><head><title>Everything</title></head><body>\n".to_vec();
    first.extend_from_slice(&filler);
    first.truncate(CHUNK);
    filler.truncate(CHUNK);
    let (first, filler) = (Bytes::from(first), Bytes::from(filler));
    let chunks = (0..HUGE_BYTES / CHUNK as u64).map(move |i| {
        Ok::<_, Infallible>(if i == 0 {
            first.clone()
        } else {
            filler.clone()
        })
    });
    let mut r = reply(
        StatusCode::OK,
        HTML,
        Body::from_stream(futures_util::stream::iter(chunks)),
    );
    if !chunked {
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(HUGE_BYTES));
    }
    r
}

/// The router: every request goes to one handler, which logs it.
pub fn router(site: Arc<Site>) -> Router {
    Router::new().fallback(handle).with_state(site)
}

async fn handle(
    State(site): State<Arc<Site>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let index = site.log_request(&method, &uri, &headers);
    if !site.options.latency.is_zero() {
        tokio::time::sleep(site.options.latency).await;
    }
    let response = site.respond(&method, &uri, &headers).await;
    site.log_status(index, response.status());
    response
}
