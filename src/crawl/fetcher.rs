//! The crawl's HTTP side: one async client, every request through its
//! host's gate, retries with backoff, a timeout and a size limit on every
//! response, conditional requests, and robots.txt.
//!
//! A request that failed to connect or timed out, or was answered 429 or
//! 5xx, is retried up to `retries` times, waiting `Retry-After` when the
//! server gave one, else an exponential backoff (0.5 s, 1 s, 2 s, ... at
//! most 30 s). A 429 or 503 holds the whole host back for that wait, once;
//! the host's delay is then what it was (see `politeness.rs`). Redirects are followed up to ten; a loop is an error. A body
//! is read piece by piece and refused one byte past `max_bytes`, so a huge
//! response never sits in memory.
//!
//! robots.txt is fetched once per host, before its first page. A 4xx answer
//! (none there) allows everything; a 5xx or a failure forbids the host, as
//! RFC 9309 asks of a robots.txt that cannot be read, and each of its URLs
//! is then a failure of the crawl, not a page robots.txt forbids: a host
//! that is down is an error, never a quiet crawl of nothing.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap, HeaderValue};
use tokio::sync::Mutex as AsyncMutex;
use tokio::time::Instant;
use url::Url;

use super::politeness::{Hosts, Slot};
use crate::wrapper::Politeness;

/// The User-Agent that names mend, when the wrapper gives none.
pub const USER_AGENT: &str = concat!(
    "mend/",
    env!("CARGO_PKG_VERSION"),
    " (+https://crates.io/crates/mend)"
);

/// The longest backoff between two tries.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How many redirects are followed.
const MAX_REDIRECTS: usize = 10;

/// Why a URL could not be fetched.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchFailure {
    /// The server answered with an error status, after every retry.
    #[error("HTTP {status}")]
    Status {
        /// The status code.
        status: u16,
        /// The answer's `Retry-After`, when it gave one.
        retry_after: Option<Duration>,
    },
    /// The body was larger than the limit.
    #[error("the body is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// The request failed: connection, timeout, redirects.
    #[error("{0}")]
    Request(String),
    /// robots.txt forbids the URL.
    #[error("forbidden by robots.txt")]
    Robots,
    /// The host's robots.txt could not be read (the host is down, or it
    /// answered 5xx or never finished), so nothing is fetched from it.
    #[error(
        "robots.txt could not be read (the host is down or failing): nothing is fetched from it"
    )]
    RobotsUnreadable,
    /// The response is not an HTML page.
    #[error("not an HTML page: {0}")]
    NotHtml(String),
}

/// A response that was read.
#[derive(Debug, Clone)]
pub struct Response {
    /// The URL after redirects.
    pub final_url: Url,
    /// The status: 2xx, or 304 for a conditional request that found the
    /// page unchanged.
    pub status: u16,
    /// The body (empty for a 304).
    pub body: Vec<u8>,
    /// The charset of the `Content-Type` header.
    pub charset: Option<String>,
    /// The `Content-Type` header's media type.
    pub media_type: Option<String>,
    /// The `ETag` header.
    pub etag: Option<String>,
    /// The `Last-Modified` header, as sent.
    pub last_modified: Option<String>,
    /// How many tries it took.
    pub tries: u32,
}

impl Response {
    /// The response, if it is an HTML page. One that is not (an image, a
    /// PDF, JSON) is an error for its URL, as `mend run` refuses such
    /// bytes; a 304 has no body to judge.
    pub fn html_only(self) -> Result<Response, FetchFailure> {
        if self.status == 304 {
            return Ok(self);
        }
        match crate::fetch::not_a_page_response(
            self.media_type.as_deref(),
            &self.body,
            self.charset.as_deref(),
        ) {
            Some(why) => Err(FetchFailure::NotHtml(why)),
            None => Ok(self),
        }
    }
}

/// What a request may ask: send the page only if it changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conditions {
    /// `If-None-Match`.
    pub etag: Option<String>,
    /// `If-Modified-Since`, an HTTP date.
    pub modified_since: Option<String>,
}

/// The crawl's HTTP client.
#[derive(Debug)]
pub struct Fetcher {
    client: reqwest::Client,
    settings: Politeness,
    hosts: Hosts,
    agent: String,
    robots: AsyncMutex<HashMap<String, Arc<Robots>>>,
    /// A 429 or 503 is given back at once rather than waited out and
    /// retried: a PostgreSQL worker holds the whole host back for every
    /// worker instead, and gives the URL back to the queue.
    overload_to_caller: bool,
}

/// A host's robots.txt as read, before it is parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsTxt {
    /// The file's bytes.
    Body(Vec<u8>),
    /// There is none (a 4xx), or robots.txt is not obeyed: everything is allowed.
    Absent,
    /// It could not be read (5xx, network): nothing is fetched from the host.
    Unreadable,
}

/// robots.txt's Crawl-delay, when it gives one.
pub fn robots_delay(robots: &Robots) -> Option<Duration> {
    match robots {
        Robots::Rules(robot) => robot
            .delay
            .and_then(|d| Duration::try_from_secs_f32(d).ok()),
        _ => None,
    }
}

/// One host's robots.txt, as far as the crawl needs it.
#[derive(Debug)]
pub enum Robots {
    /// Everything is allowed (no robots.txt, or robots are not obeyed).
    All,
    /// robots.txt could not be read: nothing is fetched from the host.
    Nothing,
    /// The rules of a robots.txt.
    Rules(Box<texting_robots::Robot>),
}

impl Robots {
    /// Whether `url` may be fetched.
    pub fn allows(&self, url: &Url) -> bool {
        match self {
            Robots::All => true,
            Robots::Nothing => false,
            Robots::Rules(robot) => robot.allowed(url.as_str()),
        }
    }

    /// The `Sitemap:` lines.
    pub fn sitemaps(&self) -> &[String] {
        match self {
            Robots::Rules(robot) => &robot.sitemaps,
            _ => &[],
        }
    }
}

impl Fetcher {
    /// A client with these settings.
    pub fn new(settings: Politeness) -> Result<Fetcher, FetchFailure> {
        let agent = settings
            .user_agent
            .clone()
            .unwrap_or_else(|| USER_AGENT.to_owned());
        let client = reqwest::Client::builder()
            .user_agent(agent.clone())
            .connect_timeout(settings.timeout.min(Duration::from_secs(10)))
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
            .build()
            .map_err(|e| FetchFailure::Request(e.to_string()))?;
        Ok(Fetcher {
            client,
            hosts: Hosts::new(settings.clone()),
            settings,
            agent,
            robots: AsyncMutex::new(HashMap::new()),
            overload_to_caller: false,
        })
    }

    /// This client, giving a 429 or 503 back at once as a
    /// [`FetchFailure::Status`] with its `Retry-After`, for a caller that
    /// holds the host back itself.
    pub fn overload_to_caller(mut self) -> Fetcher {
        self.overload_to_caller = true;
        self
    }

    /// The User-Agent sent.
    pub fn user_agent(&self) -> &str {
        &self.agent
    }

    /// The robots.txt of `url`'s host, fetched on first use.
    pub async fn robots(&self, url: &Url) -> Arc<Robots> {
        let key = origin(url);
        let mut known = self.robots.lock().await;
        if let Some(robots) = known.get(&key) {
            return robots.clone();
        }
        let robots = Arc::new(if self.settings.robots {
            self.read_robots(url).await
        } else {
            Robots::All
        });
        if let Robots::Rules(robot) = &*robots
            && let Some(delay) = robot.delay
            && let Ok(delay) = Duration::try_from_secs_f32(delay)
        {
            self.hosts.set_crawl_delay(&key, delay);
        }
        known.insert(key, robots.clone());
        robots
    }

    async fn read_robots(&self, url: &Url) -> Robots {
        self.parse_robots(&self.robots_txt(url).await)
    }

    /// Reads `url`'s host's robots.txt as it was sent, without parsing
    /// it: what the PostgreSQL backend keeps for every worker.
    pub async fn robots_txt(&self, url: &Url) -> RobotsTxt {
        if !self.settings.robots {
            return RobotsTxt::Absent;
        }
        let Ok(robots_url) = url.join("/robots.txt") else {
            return RobotsTxt::Absent;
        };
        match self.get(&robots_url, &Conditions::default()).await {
            Ok(response) => RobotsTxt::Body(response.body),
            Err(FetchFailure::Status { status, .. }) if (400..500).contains(&status) => {
                RobotsTxt::Absent
            }
            Err(e) => {
                tracing::warn!(%robots_url, error = %e, "robots.txt cannot be read: the host is not crawled");
                RobotsTxt::Unreadable
            }
        }
    }

    /// Takes `url`'s host's robots.txt as another process read it, instead
    /// of fetching it; gives robots.txt's Crawl-delay, if any.
    pub async fn adopt_robots(&self, url: &Url, txt: &RobotsTxt) -> Option<Duration> {
        let robots = Arc::new(if self.settings.robots {
            self.parse_robots(txt)
        } else {
            Robots::All
        });
        let delay = robots_delay(&robots);
        if let Some(delay) = delay {
            self.hosts.set_crawl_delay(&origin(url), delay);
        }
        self.robots.lock().await.insert(origin(url), robots);
        delay
    }

    fn parse_robots(&self, txt: &RobotsTxt) -> Robots {
        match txt {
            RobotsTxt::Body(body) => match texting_robots::Robot::new(&self.agent, body) {
                Ok(robot) => Robots::Rules(Box::new(robot)),
                Err(_) => Robots::All,
            },
            RobotsTxt::Absent => Robots::All,
            RobotsTxt::Unreadable => Robots::Nothing,
        }
    }

    /// Fetches `url` through its host's gate, with retries; a robots.txt
    /// that forbids it is a [`FetchFailure::Robots`], one that cannot be
    /// read a [`FetchFailure::RobotsUnreadable`].
    pub async fn fetch(
        &self,
        url: &Url,
        conditions: &Conditions,
    ) -> Result<Response, FetchFailure> {
        self.allowed(url).await?;
        self.get(url, conditions).await
    }

    /// Takes `url`'s turn at its host for a request another client makes
    /// (a browser's navigation): robots.txt first, as for a fetch, then the
    /// host's gate. Tell the slot how the request went.
    pub async fn turn(&self, url: &Url) -> Result<Slot, FetchFailure> {
        self.allowed(url).await?;
        Ok(self.hosts.acquire(&origin(url)).await)
    }

    /// Whether `url`'s host's robots.txt lets it be fetched.
    async fn allowed(&self, url: &Url) -> Result<(), FetchFailure> {
        match &*self.robots(url).await {
            Robots::Nothing => Err(FetchFailure::RobotsUnreadable),
            robots if !robots.allows(url) => Err(FetchFailure::Robots),
            _ => Ok(()),
        }
    }

    /// [`Fetcher::fetch`] without robots.txt (for robots.txt itself).
    async fn get(&self, url: &Url, conditions: &Conditions) -> Result<Response, FetchFailure> {
        let host = origin(url);
        let mut tries = 0;
        loop {
            tries += 1;
            let slot = self.hosts.acquire(&host).await;
            let started = Instant::now();
            let result = self.once(url, conditions).await;
            let latency = started.elapsed();
            let retry = match &result {
                Ok(Attempt::Done(response)) => {
                    slot.done(latency, Some(response.status));
                    let mut response = response.clone();
                    response.tries = tries;
                    return Ok(response);
                }
                Ok(Attempt::Status {
                    status,
                    retry_after,
                }) if self.overload_to_caller && matches!(status, 429 | 503) => {
                    slot.done(latency, Some(*status));
                    return Err(FetchFailure::Status {
                        status: *status,
                        retry_after: *retry_after,
                    });
                }
                Ok(Attempt::Status {
                    status,
                    retry_after,
                }) => {
                    let wait = retry_after.unwrap_or_else(|| backoff(tries));
                    // A host that says it is overloaded gets the whole wait
                    // from every request, not only from this URL's retry.
                    if retry_after.is_some() || matches!(status, 429 | 503) {
                        slot.hold_off(wait);
                    }
                    slot.done(latency, Some(*status));
                    let retriable = *status == 429 || *status >= 500;
                    if !retriable || tries > self.settings.retries {
                        return Err(FetchFailure::Status {
                            status: *status,
                            retry_after: *retry_after,
                        });
                    }
                    wait
                }
                Err(Failure::Final(e)) => {
                    slot.done(latency, None);
                    return Err(e.clone());
                }
                Err(Failure::Transient(e)) => {
                    slot.done(latency, None);
                    if tries > self.settings.retries {
                        return Err(e.clone());
                    }
                    backoff(tries)
                }
            };
            tracing::debug!(%url, tries, wait_ms = retry.as_millis() as u64, "retrying");
            tokio::time::sleep(retry.min(MAX_BACKOFF)).await;
        }
    }

    async fn once(&self, url: &Url, conditions: &Conditions) -> Result<Attempt, Failure> {
        let mut request = self.client.get(url.clone());
        if let Some(etag) = &conditions.etag {
            request = request.header(header::IF_NONE_MATCH, etag);
        }
        if let Some(since) = &conditions.modified_since {
            request = request.header(header::IF_MODIFIED_SINCE, since);
        }
        let mut response = request.send().await.map_err(|e| {
            let message = crate::fetch::describe_reqwest(&e);
            if e.is_timeout() || e.is_connect() {
                Failure::Transient(FetchFailure::Request(message))
            } else {
                Failure::Final(FetchFailure::Request(message))
            }
        })?;
        let status = response.status();
        let headers = response.headers().clone();
        if status == StatusCode::NOT_MODIFIED {
            return Ok(Attempt::Done(read_headers(
                response.url().clone(),
                304,
                &headers,
                Vec::new(),
            )));
        }
        if !status.is_success() {
            return Ok(Attempt::Status {
                status: status.as_u16(),
                retry_after: headers.get(header::RETRY_AFTER).and_then(retry_after),
            });
        }
        let limit = self.settings.max_bytes;
        if response.content_length().is_some_and(|n| n > limit) {
            return Err(Failure::Final(FetchFailure::TooLarge { limit }));
        }
        let final_url = response.url().clone();
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(piece)) => {
                    if body.len() as u64 + piece.len() as u64 > limit {
                        return Err(Failure::Final(FetchFailure::TooLarge { limit }));
                    }
                    body.extend_from_slice(&piece);
                }
                Ok(None) => break,
                Err(e) => {
                    return Err(Failure::Transient(FetchFailure::Request(format!(
                        "reading the body failed: {}",
                        crate::fetch::describe_reqwest(&e)
                    ))));
                }
            }
        }
        Ok(Attempt::Done(read_headers(
            final_url,
            status.as_u16(),
            &headers,
            body,
        )))
    }
}

/// What one try came to.
enum Attempt {
    Done(Response),
    Status {
        status: u16,
        retry_after: Option<Duration>,
    },
}

/// Why one try failed: worth another try, or not.
enum Failure {
    Transient(FetchFailure),
    Final(FetchFailure),
}

fn read_headers(final_url: Url, status: u16, headers: &HeaderMap, body: Vec<u8>) -> Response {
    let text = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = text(header::CONTENT_TYPE);
    Response {
        final_url,
        status,
        body,
        charset: content_type.as_deref().and_then(charset),
        media_type: content_type
            .as_deref()
            .and_then(|t| t.split(';').next())
            .map(|t| t.trim().to_ascii_lowercase()),
        etag: text(header::ETAG),
        last_modified: text(header::LAST_MODIFIED),
        tries: 1,
    }
}

/// The `charset` parameter of a `Content-Type`.
fn charset(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_owned())
    })
}

/// A `Retry-After`: seconds, or an HTTP date.
fn retry_after(value: &HeaderValue) -> Option<Duration> {
    let text = value.to_str().ok()?.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(text).ok()?;
    let now = u64::try_from(crate::runtime::now().unix_millis()).ok()?;
    let at = u64::try_from(at.timestamp_millis()).ok()?;
    Some(Duration::from_millis(at.saturating_sub(now)))
}

/// The backoff before try `tries + 1`.
fn backoff(tries: u32) -> Duration {
    (Duration::from_millis(500) * 2u32.saturating_pow(tries.saturating_sub(1))).min(MAX_BACKOFF)
}

/// A host's key: scheme, host and port.
pub fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds_or_a_date() {
        assert_eq!(
            retry_after(&HeaderValue::from_static("3")),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            retry_after(&HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT")),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&HeaderValue::from_static("soon")), None);
    }

    #[test]
    fn backoff_doubles_up_to_a_cap() {
        let waits: Vec<u128> = (1..=8).map(|t| backoff(t).as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    }

    #[test]
    fn the_charset_and_media_type_are_read_from_content_type() {
        assert_eq!(
            charset("text/html; charset=\"ISO-8859-1\""),
            Some("ISO-8859-1".to_owned())
        );
        assert_eq!(charset("text/html"), None);
    }

    #[test]
    fn the_user_agent_names_mend() {
        assert!(USER_AGENT.starts_with("mend/"));
    }
}
