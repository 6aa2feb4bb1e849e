//! The review page's HTML: the routes of its GETs, the list of adaptations
//! and the layout every page shares (one adaptation is [`proposal`]'s).
//! Every value is escaped by maud; a stored page is written only through
//! [`crate::review::sanitize`].

use std::collections::BTreeMap;
use std::path::Path;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::{ReviewState, SNAPSHOT_POLICY, proposal};
use crate::review::{ChangeClass, ReviewError, Side};
use crate::store::{
    AdaptationFilter, AdaptationId, AdaptationRecord, STATES, State, Store, StoreError,
};

/// The response to a GET of `path` (under the token) with `query`.
pub(super) fn get(state: &ReviewState, path: &str, query: &str) -> Response {
    let store = state.store.lock().unwrap_or_else(|e| e.into_inner());
    let token = state.guard.token();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let result = match segments.as_slice() {
        [""] => list(&store, &state.store_path, token, &Filters::parse(query))
            .map(IntoResponse::into_response)
            .map_err(ReviewError::from),
        ["a", id] => match id.parse::<i64>() {
            Ok(id) => {
                let notice = url::form_urlencoded::parse(query.as_bytes())
                    .find(|(k, _)| k == "notice")
                    .and_then(|(_, key)| state.notice(&key));
                proposal::adaptation(state, &store, AdaptationId(id), notice.as_ref())
            }
            Err(_) => Ok(not_found(token)),
        },
        ["w", wrapper] => {
            let wrapper = url::form_urlencoded::parse(format!("w={wrapper}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            super::history::history(&store, &wrapper)
                .map(|page| match page {
                    Some(body) => {
                        layout(token, &format!("History of {wrapper}"), body).into_response()
                    }
                    None => not_found(token),
                })
                .map_err(ReviewError::from)
        }
        ["a", id, "page", side @ ("old" | "new")] => match id.parse::<i64>() {
            Ok(id) => {
                let side = if *side == "new" { Side::New } else { Side::Old };
                proposal::snapshot(state, &store, AdaptationId(id), side)
            }
            Err(_) => Ok(not_found(token)),
        },
        _ => Ok(not_found(token)),
    };
    result.unwrap_or_else(|e| review_failure(token, &e))
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

/// The list's filters, from the query string.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Filters {
    /// Only this status (`proposed`, `applied`, ...), or `pending`.
    status: Option<String>,
    /// Only scores at or above this.
    min_score: Option<f64>,
    /// Only this class of change.
    class: Option<ChangeClass>,
}

impl Filters {
    pub(super) fn parse(query: &str) -> Filters {
        let mut f = Filters::default();
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "status" if !v.is_empty() => f.status = Some(v.into_owned()),
                "min_score" => f.min_score = v.parse().ok().filter(|s: &f64| s.is_finite()),
                "class" => f.class = ChangeClass::parse(&v),
                _ => {}
            }
        }
        f
    }

    fn keeps(&self, r: &AdaptationRecord) -> bool {
        // The filter reads the same state as the list shows.
        let status = match self.status.as_deref() {
            None => true,
            Some("pending" | "proposed") => r.state == State::Proposed,
            Some(s) => r.state.as_str() == s,
        };
        status
            && self
                .min_score
                .is_none_or(|m| r.score.is_some_and(|s| s >= m))
            && self.class.is_none_or(|c| ChangeClass::of(r) == c)
    }
}

/// The list of the store's adaptations that pass `filters`.
pub(super) fn list(
    store: &Store,
    store_path: &Path,
    token: &str,
    filters: &Filters,
) -> Result<Markup, StoreError> {
    let records = store.adaptations(&AdaptationFilter::default())?;
    let tag = store.tag()?;
    let mut groups: BTreeMap<(&str, &str), Vec<&AdaptationRecord>> = BTreeMap::new();
    for r in records.iter().filter(|r| filters.keeps(r)) {
        groups
            .entry((r.wrapper.as_str(), r.pattern.as_str()))
            .or_default()
            .push(r);
    }
    // A proposal that waits is shown as `pending`, in the list and here.
    let statuses = STATES.map(|s| match s {
        State::Proposed => "pending",
        other => other.as_str(),
    });
    let body = html! {
        p.store { "Store " code { (store_path.display()) } " (tag " code { (tag) } ")" }
        form.filters method="get" action="./" {
            label for="status" { "Status" }
            select #status name="status" {
                option value="" { "any" }
                @for s in statuses {
                    option value=(s) selected[filters.status.as_deref() == Some(s)] { (s) }
                }
            }
            label for="class" { "Change" }
            select #class name="class" {
                option value="" { "any" }
                @for c in ChangeClass::ALL {
                    option value=(c.as_str()) selected[filters.class == Some(c)] {
                        (c.as_str()) ": " (c.description())
                    }
                }
            }
            label for="min_score" { "Score at least" }
            input #min_score name="min_score" type="number" min="0" max="1" step="0.05"
                value=[filters.min_score];
            button type="submit" { "Filter" }
        }
        @if groups.is_empty() {
            p { "No adaptation matches." }
        }
        @for ((wrapper, pattern), rows) in &groups {
            section.group {
                h2 { a href={ "w/" (encode(wrapper)) } { (wrapper) } " · " code { (pattern) } }
                table {
                    thead { tr {
                        th scope="col" { "Id" } th scope="col" { "Status" } th scope="col" { "Change" }
                        th scope="col" { "New XPath" } th scope="col" { "Pages" }
                        th scope="col" { "Score" } th scope="col" { "Candidates" }
                    } }
                    tbody {
                        @for r in rows {
                            tr.row data-id=(r.id) {
                                td { a href={ "a/" (r.id) } { (r.id) } }
                                td { (status_of(r)) }
                                td { (ChangeClass::of(r)) }
                                td { code { (r.new_xpath.as_deref().unwrap_or("(none)")) } }
                                td { (r.page_count) }
                                td { (score(r.score)) }
                                td { (candidate_bars(r)) }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(layout(token, "Adaptations", body))
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

/// A small bar chart of the best candidates' scores, best first, as SVG (whose
/// sizes are attributes, which the page's policy allows, not styles).
fn candidate_bars(r: &AdaptationRecord) -> Markup {
    const WIDTH: usize = 6;
    const HEIGHT: f64 = 20.0;
    let mut shown: Vec<f64> = r.candidates.iter().map(|c| c.score).collect();
    shown.sort_by(|a, b| b.total_cmp(a));
    shown.truncate(8);
    let label = shown
        .iter()
        .map(|s| format!("{s:.2}"))
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        svg.bars width=(shown.len() * (WIDTH + 2)) height=(HEIGHT) role="img"
            aria-label={ "candidate scores: " (label) } {
            @for (i, s) in shown.iter().enumerate() {
                @let h = (s.clamp(0.0, 1.0) * HEIGHT).max(1.0);
                rect x=(i * (WIDTH + 2)) y=(HEIGHT - h) width=(WIDTH) height=(h)
                    class=(if i == 0 { "best" } else { "other" }) {}
            }
        }
    }
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
    format!("/{token}/assets/{name}")
}

/// `text` as one percent-encoded path segment.
fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
