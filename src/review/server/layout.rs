//! What every page of the review server shares: the layout and its
//! assets' links, links under the token, the notice a decision leaves, the
//! words and numbers a status or score reads as, and the not-found and
//! failure pages.
//!
//! It guards and cleans nothing itself: the token, `Host`, origin and nonce
//! checks are `guard`'s, and a stored page is sanitized by
//! `crate::review::sanitize` before `with_snapshot_policy` serves it under the
//! policy that forbids scripts and loads. The not-found page says nothing of
//! what exists, and a store that could not be read is a failure page (500)
//! naming the error. No link is relative: a refused decision's page is served
//! at the path of its POST, where a relative link would resolve one level too
//! deep.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::SNAPSHOT_POLICY;
use crate::review::ReviewError;
use crate::store::{AdaptationRecord, State};

/// What a decision came to, for the adaptation's page to say.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Notice {
    /// Whether the decision was made.
    pub(super) done: bool,
    /// What happened (or why not), one sentence a line.
    pub(super) lines: Vec<String>,
    /// The wrapper loader's diagnostics, when the wrapper did not load.
    pub(super) diagnostics: Option<String>,
    /// Whether trying again with "even if changed" could succeed: the
    /// wrapper file's pattern no longer has the XPath the change expects.
    pub(super) may_force: bool,
}

/// The page for a store that could not be read, or a run missing from it.
pub(super) fn review_failure(token: &str, e: &ReviewError) -> Response {
    tracing::error!(error = %e, "the review page could not read the store");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        layout(
            token,
            "Error",
            html! { p { "The store could not be read: " (e) } },
        ),
    )
        .into_response()
}

/// What a decision just came to.
pub(super) fn notice_box(n: &Notice) -> Markup {
    html! {
        div.notice.done[n.done].refused[!n.done] role=(if n.done { "status" } else { "alert" }) {
            @for line in &n.lines { p { (line) } }
            @if let Some(d) = &n.diagnostics { pre { (d) } }
        }
    }
}

pub(super) fn with_snapshot_policy(page: String) -> Response {
    let mut response = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(SNAPSHOT_POLICY),
    );
    response
}

/// Where `r` stands, as the list and a proposal's page show it.
pub(super) fn status_of(r: &AdaptationRecord) -> String {
    match r.state {
        State::Proposed => "pending".to_owned(),
        other => other.to_string(),
    }
}

pub(super) fn score(s: Option<f64>) -> String {
    s.map_or_else(|| "–".to_owned(), |s| format!("{s:.3}"))
}

pub(super) fn not_found(token: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        layout(token, "Not found", html! { p { "Nothing here." } }),
    )
        .into_response()
}

pub(super) fn layout(token: &str, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · mend review" }
                link rel="stylesheet" href=(asset_path(token, "review.css"));
                script src=(asset_path(token, "review.js")) defer {}
            }
            body {
                header { h1 { "mend review" } }
                main { (body) }
            }
        }
    }
}

/// The path of an embedded asset: `/TOKEN/assets/NAME`.
fn asset_path(token: &str, name: &str) -> String {
    href(token, &format!("assets/{name}"))
}

/// The absolute path of `rest` under the token. Every link, frame and form
/// of the review page is absolute: a page may be the answer to a POST at
/// another path (a refused decision is shown at `/TOKEN/a/ID/approve`),
/// where a relative link would resolve one level too deep.
pub(super) fn href(token: &str, rest: &str) -> String {
    format!("/{token}/{rest}")
}

/// `text` as one percent-encoded path segment.
pub(super) fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
