//! HTTP fetching with reqwest: one blocking client per run, built on first use.

use std::sync::OnceLock;
use std::time::Duration;

use url::Url;

use super::{FetchError, MAX_PAGE_BYTES};

/// How long to wait for a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a whole request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How many redirects to follow.
const MAX_REDIRECTS: usize = 10;

/// A lazily built HTTP client, shared by the pages of a run.
#[derive(Default)]
pub struct HttpClient {
    client: OnceLock<Result<reqwest::blocking::Client, String>>,
}

/// A fetched response body.
pub struct Fetched {
    /// The URL after redirects, which relative links resolve against.
    pub final_url: Url,
    /// The body.
    pub bytes: Vec<u8>,
    /// The charset from the `Content-Type` header.
    pub charset: Option<String>,
}

impl HttpClient {
    /// A client that connects on first use.
    pub fn new() -> HttpClient {
        HttpClient::default()
    }

    /// Fetches `url`, following redirects; any non-2xx status is an error.
    pub fn get(&self, url: &Url) -> Result<Fetched, FetchError> {
        let request_error = |message: String| FetchError::Request {
            url: url.to_string(),
            message,
        };
        let client = self
            .client
            .get_or_init(|| {
                reqwest::blocking::Client::builder()
                    .user_agent(concat!("mend/", env!("CARGO_PKG_VERSION")))
                    .connect_timeout(CONNECT_TIMEOUT)
                    .timeout(REQUEST_TIMEOUT)
                    .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| request_error(e.clone()))?;
        let _span = tracing::debug_span!("fetch", %url).entered();
        let response = client
            .get(url.clone())
            .send()
            .map_err(|e| request_error(describe(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(FetchError::Status {
                url: url.to_string(),
                status: status.to_string(),
            });
        }
        if response
            .content_length()
            .is_some_and(|len| len > MAX_PAGE_BYTES)
        {
            return Err(FetchError::TooLarge(url.to_string()));
        }
        let final_url = response.url().clone();
        let charset = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|ct| {
                ct.split(';').find_map(|part| {
                    part.trim()
                        .strip_prefix("charset=")
                        .map(|c| c.trim_matches('"').to_owned())
                })
            });
        let bytes = response
            .bytes()
            .map_err(|e| request_error(describe(&e)))?
            .to_vec();
        Ok(Fetched {
            final_url,
            bytes,
            charset,
        })
    }
}

/// Names the kind of failure in words a user can act on.
fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_redirect() {
        "too many redirects"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    let mut message = kind.to_owned();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}
