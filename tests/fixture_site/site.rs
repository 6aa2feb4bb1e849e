//! The site's state: its posts as they are now (an update replaces one),
//! the request log, the traps' counters, and the ground truth drawn from
//! them. Answering requests is `server.rs`'s part.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime};

use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use chrono::{DateTime, Utc};

use super::content::{self, PER_PAGE, Roles, SHOW_MORE_CHUNKS};
use super::sprawl::Sprawl;
use super::truth::{Post, Trap, TrapUrl, Truth};
use super::{LoggedRequest, SiteOptions, Variant, html};

/// The site's state, shared by every request.
pub struct Site {
    pub(super) options: SiteOptions,
    pub(super) base: String,
    pub(super) started: Instant,
    /// The posts by number, which is also the order of publication.
    pub(super) posts: Mutex<Vec<Arc<Post>>>,
    /// Each post's path to its index in `posts`; paths never change.
    pub(super) by_path: HashMap<String, usize>,
    pub(super) sprawl: Sprawl,
    pub(super) log: Mutex<Vec<LoggedRequest>>,
    /// Requests the failing post has answered with 500 so far.
    pub(super) failures: AtomicUsize,
    /// Whether the rate-limited post has answered 429 yet.
    pub(super) rate_limited: AtomicBool,
    /// Answers the slow post held back by [`super::SLOW_DELAY`] so far.
    pub(super) held_back: AtomicUsize,
}

/// Locks `mutex`, whether or not a thread panicked while holding it: the
/// data under it stays consistent between statements.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Site {
    /// The site for `options`, served at `base` (no trailing slash).
    pub fn new(options: SiteOptions, base: String) -> Site {
        let posts: Vec<Arc<Post>> = (1..=options.posts)
            .map(|n| Arc::new(content::post(n, &base, &options)))
            .collect();
        let by_path = posts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.path.clone(), i))
            .collect();
        Site {
            sprawl: Sprawl::new(options.posts),
            options,
            base,
            started: Instant::now(),
            posts: Mutex::new(posts),
            by_path,
            log: Mutex::new(Vec::new()),
            failures: AtomicUsize::new(0),
            rate_limited: AtomicBool::new(false),
            held_back: AtomicUsize::new(0),
        }
    }

    /// The base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Every request received so far, in the order received.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.log).clone()
    }

    /// Changes post `n`'s content: a paragraph more, a new version, a new
    /// modification time (now, and at least a second after the last).
    pub fn update_post(&self, n: usize) -> Post {
        let mut posts = lock(&self.posts);
        let count = posts.len();
        let post = n
            .checked_sub(1)
            .and_then(|i| posts.get_mut(i))
            .unwrap_or_else(|| panic!("the site has no post {n} (it has {count})"));
        let mut updated = Post::clone(post);
        updated.version += 1;
        updated
            .body
            .push(content::update_paragraph(updated.number, updated.version));
        let now = DateTime::<Utc>::from(SystemTime::now());
        let now = DateTime::from_timestamp(now.timestamp(), 0).unwrap_or(now);
        updated.modified = now.max(updated.modified + chrono::Duration::seconds(1));
        *post = Arc::new(updated.clone());
        updated
    }

    /// The posts as they are now; an update replaces a post, so these stay
    /// as they were.
    pub(super) fn posts(&self) -> Vec<Arc<Post>> {
        lock(&self.posts).clone()
    }

    /// The posts in the order listings and feeds show them: newest first.
    pub(super) fn newest_first(posts: &[Arc<Post>]) -> Vec<&Post> {
        posts.iter().rev().map(|p| &**p).collect()
    }

    /// The posts by number.
    pub(super) fn by_number(posts: &[Arc<Post>]) -> Vec<&Post> {
        posts.iter().map(|p| &**p).collect()
    }

    /// How many blog listing pages there are.
    pub(super) fn listing_pages(&self) -> usize {
        self.options.posts.div_ceil(PER_PAGE).max(1)
    }

    pub(super) fn has_post(&self, n: usize) -> bool {
        (1..=self.options.posts).contains(&n)
    }

    /// The URLs that misbehave and are not posts, with the text the home
    /// page links them by.
    pub(super) fn trap_links(&self) -> Vec<(&'static str, &'static str, Trap)> {
        if self.options.variant != Variant::Blog {
            return Vec::new();
        }
        let mut out = Vec::new();
        if self.has_post(Roles::REDIRECTED) {
            let url = format!(
                "{}{}",
                self.base,
                lock(&self.posts)[Roles::REDIRECTED - 1].path
            );
            out.push((
                "/old/post-3",
                "An old link to a favourite post",
                Trap::RedirectToPost(url),
            ));
        }
        out.push(("/loop/a", "The archive's archive", Trap::RedirectLoop));
        if !self.options.fast {
            out.push(("/huge", "Everything on one page", Trap::Huge));
        }
        out.push(("/missing/", "A page that moved away", Trap::NotFound));
        out
    }

    /// The paths of the pages that are neither posts nor traps, as a
    /// crawl following links from `/` finds them.
    pub(super) fn other_pages(&self) -> Vec<String> {
        match self.options.variant {
            Variant::Blog => {
                let mut out: Vec<String> =
                    (1..=self.listing_pages()).map(html::listing_path).collect();
                out.extend(content::tags().iter().map(|t| format!("/tag/{t}/")));
                out.push("/about/".to_owned());
                out
            }
            Variant::Sprawl => {
                let s = &self.sprawl;
                let mut out = vec![
                    "/".to_owned(),
                    "/forum/".to_owned(),
                    "/wiki/Main_Page".to_owned(),
                ];
                out.extend((1..=s.threads).map(|n| format!("/forum/t/{n}")));
                out.extend((1..=s.topics).map(|n| format!("/wiki/Topic_{n}")));
                out.extend((1..=s.lists).map(|k| format!("/list/{k}")));
                out
            }
        }
    }

    /// The ground truth, as the site holds it now.
    pub fn truth(&self) -> Truth {
        let base = &self.base;
        let posts: Vec<Post> = self.posts().iter().map(|p| Post::clone(p)).collect();
        let absolute = |path: &str| format!("{base}{path}");
        let item_urls: Vec<String> = posts.iter().map(|p| p.url.clone()).collect();
        let mut pages: BTreeSet<String> = self.other_pages().iter().map(|p| absolute(p)).collect();
        pages.extend(item_urls.iter().cloned());
        let mut allowed = pages.clone();
        for path in ["/robots.txt", "/sitemap.xml", "/feed.xml", "/atom.xml"] {
            allowed.insert(absolute(path));
        }
        for post in &posts {
            allowed.extend(post.images.iter().cloned());
            if post.show_more {
                for k in 1..=SHOW_MORE_CHUNKS {
                    allowed.insert(absolute(&format!("/comments/{}?chunk={k}", post.number)));
                }
            }
        }
        let mut traps: Vec<TrapUrl> = posts
            .iter()
            .filter_map(|p| {
                p.trap.clone().map(|trap| TrapUrl {
                    url: p.url.clone(),
                    trap,
                })
            })
            .collect();
        for (path, _, trap) in self.trap_links() {
            allowed.insert(absolute(path));
            if trap == Trap::RedirectLoop {
                allowed.insert(absolute("/loop/b"));
                traps.push(TrapUrl {
                    url: absolute("/loop/b"),
                    trap: Trap::RedirectLoop,
                });
            }
            traps.push(TrapUrl {
                url: absolute(path),
                trap,
            });
        }
        let [a, b] = Roles::SAME_IMAGE;
        let duplicate_media = if self.has_post(a) && self.has_post(b) {
            vec![(
                absolute(&format!("/media/{}.png", content::media_id(a, 1))),
                absolute(&format!("/media/{}.png", content::media_id(b, 1))),
            )]
        } else {
            Vec::new()
        };
        Truth {
            base: base.clone(),
            variant: self.options.variant,
            item_urls,
            pages: pages.into_iter().collect(),
            allowed_urls: allowed.into_iter().collect(),
            disallowed_urls: ["/private/secret/", "/private/drafts/", "/private/accounts/"]
                .iter()
                .map(|p| absolute(p))
                .collect(),
            traps,
            duplicate_media,
            posts,
        }
    }

    pub(super) fn log_request(&self, method: &Method, uri: &Uri, headers: &HeaderMap) -> usize {
        let text = |name: header::HeaderName| {
            headers
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        let entry = LoggedRequest {
            method: method.as_str().to_owned(),
            path: uri
                .path_and_query()
                .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned()),
            user_agent: text(header::USER_AGENT),
            if_none_match: text(header::IF_NONE_MATCH),
            if_modified_since: text(header::IF_MODIFIED_SINCE),
            status: None,
            at: self.started.elapsed(),
            answered: None,
        };
        let mut log = lock(&self.log);
        log.push(entry);
        log.len() - 1
    }

    pub(super) fn log_status(&self, index: usize, status: StatusCode) {
        if let Some(entry) = lock(&self.log).get_mut(index) {
            entry.status = Some(status.as_u16());
            entry.answered = Some(self.started.elapsed());
        }
    }
}
