//! `mend review`: the store's adaptations as a local web page.
//!
//! The server listens on 127.0.0.1 and nowhere else, and every path starts
//! with a random token ([`guard`]). It renders HTML on the server
//! (`pages` and `proposal`, maud escaping every value), with its one stylesheet and
//! script embedded in the binary: no CDN, no network. A stored page is shown
//! only sanitized ([`crate::review::sanitize`]), in a sandboxed frame, with
//! a Content-Security-Policy that forbids scripts and every load.
//!
//! Requests are served at once, each in a blocking task. A page is read
//! through a connection of its own from a small pool (SQLite in WAL mode
//! lets readers work beside a writer), so that a large frame being
//! sanitized holds up neither the list nor another page. Decisions share
//! the one connection the server was given, one at a time: SQLite
//! serialises writers anyway.
//!
//! ## What it refuses
//!
//! Every address but 127.0.0.1, a path without the server's token, a `Host`
//! other than the server's own, a POST from another origin or without a fresh
//! nonce ([`guard`]), and any load or script inside a stored page's frame.

mod actions;
pub mod guard;
mod history;
mod layout;
mod list;
mod pages;
mod proposal;

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

use crate::store::Store;
use guard::{Guard, Refusal};

/// The policy of the review page itself: its own script and stylesheet,
/// frames of its own snapshots, forms posted to itself, nothing else.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
img-src 'self' data:; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; \
base-uri 'none'";

/// The policy of a stored page: no script, no load of any kind, its own
/// inline styles only, and sandboxed even when opened outside its frame.
const SNAPSHOT_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; \
img-src data:; frame-ancestors 'self'; form-action 'none'; base-uri 'none'; sandbox";

const STYLESHEET: &str = include_str!("assets/review.css");
const SCRIPT: &str = include_str!("assets/review.js");

/// How many decisions' notices are kept for their pages to show; the
/// oldest go first.
const MAX_NOTICES: usize = 64;

/// How many idle reading connections are kept for the next pages.
const MAX_READERS: usize = 4;

/// What every request handler shares.
pub struct ReviewState {
    /// The connection decisions are made through.
    store: Mutex<Store>,
    /// Idle connections pages are read through.
    readers: Mutex<Vec<Store>>,
    store_path: PathBuf,
    guard: Guard,
    /// What the last decisions came to, by a random key the redirect after
    /// each carries: the page it leads to says what was done.
    notices: Mutex<VecDeque<(String, layout::Notice)>>,
}

impl ReviewState {
    /// Runs `read` on a connection of its own when one can be opened (the
    /// store is a file), else on the decisions' connection.
    fn read<T>(&self, read: impl FnOnce(&Store) -> T) -> T {
        let pooled = self.readers.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let reader = pooled.or_else(|| {
            self.store_path
                .is_file()
                .then(|| Store::open(&self.store_path).ok())
                .flatten()
        });
        match reader {
            Some(store) => {
                let out = read(&store);
                let mut readers = self.readers.lock().unwrap_or_else(|e| e.into_inner());
                if readers.len() < MAX_READERS {
                    readers.push(store);
                }
                out
            }
            None => read(&self.store.lock().unwrap_or_else(|e| e.into_inner())),
        }
    }

    /// Keeps `notice` for the page shown after the decision; gives its key.
    fn remember(&self, notice: layout::Notice) -> String {
        let key = guard::random_hex(8).unwrap_or_default();
        let mut notices = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        if notices.len() >= MAX_NOTICES {
            notices.pop_front();
        }
        notices.push_back((key.clone(), notice));
        key
    }

    /// The notice kept under `key`.
    fn notice(&self, key: &str) -> Option<layout::Notice> {
        let notices = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        notices
            .iter()
            .find(|(k, _)| !k.is_empty() && k == key)
            .map(|(_, n)| n.clone())
    }
}

/// A review server bound to its port, not yet serving.
pub struct ReviewServer {
    listener: TcpListener,
    state: Arc<ReviewState>,
}

/// Why the review server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The port could not be bound.
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for (0: any).
        port: u16,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The operating system gave no randomness for the token.
    #[error("cannot draw a random token: {0}")]
    Random(getrandom::Error),
    /// Serving failed.
    #[error("the review server stopped: {0}")]
    Serve(std::io::Error),
}

impl ReviewServer {
    /// Binds 127.0.0.1:`port` (0: a free port) for the store at `store_path`.
    pub async fn bind(store: Store, store_path: PathBuf, port: u16) -> Result<Self, ServeError> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .await
            .map_err(|source| ServeError::Bind { port, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { port, source })?
            .port();
        let guard = Guard::new(bound).map_err(ServeError::Random)?;
        Ok(ReviewServer {
            listener,
            state: Arc::new(ReviewState {
                store: Mutex::new(store),
                readers: Mutex::new(Vec::new()),
                store_path,
                guard,
                notices: Mutex::new(VecDeque::new()),
            }),
        })
    }

    /// The page's address, token included.
    pub fn url(&self) -> String {
        let port = self.listener.local_addr().map_or(0, |a| a.port());
        format!("http://127.0.0.1:{port}/{}/", self.state.guard.token())
    }

    /// Serves until `stop` completes.
    pub async fn serve(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let app = Router::new().fallback(handle).with_state(self.state);
        axum::serve(self.listener, app)
            .with_graceful_shutdown(stop)
            .await
            .map_err(ServeError::Serve)
    }
}

/// The HTML of the list page for `query` (`status=pending&min_score=0.5`),
/// as the server sends it under `token`: what the benchmark of a large store
/// measures.
pub fn list_page(
    store: &Store,
    store_path: &std::path::Path,
    token: &str,
    query: &str,
) -> Result<String, crate::store::StoreError> {
    let mut nonce = String::new;
    list::list(
        store,
        store_path,
        token,
        &list::Filters::parse(query),
        None,
        &mut nonce,
    )
    .map(|m| m.into_string())
}

/// Every request: the guard's checks, then the page the path names.
async fn handle(State(state): State<Arc<ReviewState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(refusal) = state.guard.check_host(&parts.headers) {
        return refused(refusal);
    }
    let path = match state.guard.strip(parts.uri.path()) {
        Ok(rest) => rest.to_owned(),
        Err(refusal) => return refused(refusal),
    };
    let query = parts.uri.query().unwrap_or("").to_owned();
    let mut response = match (&parts.method, path.as_str()) {
        (&Method::GET, "/assets/review.css") => asset(STYLESHEET, "text/css; charset=utf-8"),
        (&Method::GET, "/assets/review.js") => asset(SCRIPT, "text/javascript; charset=utf-8"),
        (&Method::GET, _) => {
            let state = state.clone();
            match tokio::task::spawn_blocking(move || pages::get(&state, &path, &query)).await {
                Ok(response) => response,
                Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
            }
        }
        (&Method::POST, _) => {
            if let Err(refusal) = state.guard.check_origin(&parts.headers) {
                return refused(refusal);
            }
            actions::post(state.clone(), path, body).await
        }
        _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
    };
    let headers = response.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PAGE_POLICY),
        );
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // The address holds the token: it may go to this server only. (With
    // `no-referrer` a browser would send `Origin: null` on the page's own
    // forms, which the guard must refuse.)
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn asset(text: &'static str, media_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, media_type)], text).into_response()
}

/// A refused request: as little as possible said.
pub(super) fn refused(refusal: Refusal) -> Response {
    let (status, text) = match refusal {
        Refusal::Token => (StatusCode::NOT_FOUND, "not found\n"),
        Refusal::Host => (StatusCode::MISDIRECTED_REQUEST, "wrong host\n"),
        Refusal::Forgery => (StatusCode::FORBIDDEN, "refused\n"),
    };
    (
        status,
        [(header::CONTENT_TYPE, "text/plain")],
        Body::from(text),
    )
        .into_response()
}
