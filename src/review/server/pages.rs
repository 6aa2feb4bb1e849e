//! The review page's HTML: the list of adaptations, one adaptation, and a
//! stored page made safe to show. Every value is escaped by maud; a stored
//! page is written only through [`sanitize`].

use std::collections::BTreeMap;
use std::path::Path;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::actions::Notice;
use super::{ReviewState, SNAPSHOT_POLICY};
use crate::dom::Document;
use crate::review::sanitize::{sanitize, targets_of};
use crate::store::{
    AdaptationFilter, AdaptationId, AdaptationRecord, AdaptationStatus, Store, StoreError,
};
use crate::xpath::{Value, XPath};

/// The response to a GET of `path` (under the token) with `query`.
pub(super) fn get(state: &ReviewState, path: &str, query: &str) -> Response {
    let store = state.store.lock().unwrap_or_else(|e| e.into_inner());
    let token = state.guard.token();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let result = match segments.as_slice() {
        [""] => list(&store, &state.store_path, token, &Filters::parse(query))
            .map(IntoResponse::into_response),
        ["a", id] => match id.parse::<i64>() {
            Ok(id) => {
                let notice = url::form_urlencoded::parse(query.as_bytes())
                    .find(|(k, _)| k == "notice")
                    .and_then(|(_, key)| state.notice(&key));
                adaptation(state, &store, AdaptationId(id), notice.as_ref())
            }
            Err(_) => Ok(not_found(token)),
        },
        ["w", wrapper] => {
            let wrapper = url::form_urlencoded::parse(format!("w={wrapper}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            super::history::history(&store, &wrapper).map(|page| match page {
                Some(body) => layout(token, &format!("History of {wrapper}"), body).into_response(),
                None => not_found(token),
            })
        }
        ["a", id, "page", side @ ("old" | "new")] => match id.parse::<i64>() {
            Ok(id) => snapshot(token, &store, AdaptationId(id), *side == "new"),
            Err(_) => Ok(not_found(token)),
        },
        _ => Ok(not_found(token)),
    };
    result.unwrap_or_else(|e| store_failure(token, &e))
}

/// The page for a store that could not be read.
pub(super) fn store_failure(token: &str, e: &StoreError) -> Response {
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
}

impl Filters {
    pub(super) fn parse(query: &str) -> Filters {
        let mut f = Filters::default();
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "status" if !v.is_empty() => f.status = Some(v.into_owned()),
                "min_score" => f.min_score = v.parse().ok().filter(|s: &f64| s.is_finite()),
                _ => {}
            }
        }
        f
    }

    fn keeps(&self, r: &AdaptationRecord) -> bool {
        let status = match self.status.as_deref() {
            None => true,
            Some("pending") => r.is_pending(),
            Some(s) => r.status.as_str() == s,
        };
        status
            && self
                .min_score
                .is_none_or(|m| r.score.is_some_and(|s| s >= m))
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
    let statuses = ["pending", "proposed", "applied", "abstained", "rejected"];
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
                        th scope="col" { "Id" } th scope="col" { "Status" }
                        th scope="col" { "New XPath" } th scope="col" { "Pages" }
                        th scope="col" { "Score" } th scope="col" { "Candidates" }
                    } }
                    tbody {
                        @for r in rows {
                            tr.row data-id=(r.id) {
                                td { a href={ "a/" (r.id) } { (r.id) } }
                                td { (status_of(r)) }
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

/// The page of adaptation `id`, saying what `notice` tells of a decision
/// just made or refused.
pub(super) fn adaptation(
    state: &ReviewState,
    store: &Store,
    id: AdaptationId,
    notice: Option<&Notice>,
) -> Result<Response, StoreError> {
    let token = state.guard.token();
    let Some(r) = store.adaptation(id)? else {
        return Ok(not_found(token));
    };
    let ids: Vec<AdaptationId> = store
        .adaptations(&AdaptationFilter::default())?
        .iter()
        .map(|a| a.id)
        .collect();
    let previous = ids.iter().filter(|&&i| i < id).max();
    let next = ids.iter().filter(|&&i| i > id).min();
    let body = html! {
        nav.moves aria-label="Adaptations" {
            a href="../" { "All adaptations" }
            @if let Some(p) = previous { " · " a #previous rel="prev" href=(p.0) { "Previous (k)" } }
            @if let Some(n) = next { " · " a #next rel="next" href=(n.0) { "Next (j)" } }
        }
        h2 { "Adaptation " (r.id) " of " code { (r.pattern) } " in " (r.wrapper) }
        @if let Some(n) = notice { (notice_box(n)) }
        (decisions(state, store, &r, notice))
        dl.facts {
            dt { "Status" } dd {
                (status_of(&r))
                @if !store.reverts(r.id)?.is_empty() { ", then reverted" }
            }
            dt { "Old XPath" } dd { code { (r.old_xpath) } }
            dt { "New XPath" } dd { code { (r.new_xpath.as_deref().unwrap_or("(none)")) } }
            dt { "Score" } dd { (score(r.score)) " (runner-up " (score(r.runner_up)) ")" }
            dt { "Pages" } dd { (r.page_count) }
            @if let Some(reason) = &r.reason { dt { "Why" } dd { (reason) } }
        }
        div.pages {
            figure {
                figcaption { "What the old XPath selects on the stored page" }
                iframe sandbox="" title="The stored page, the old XPath's selection marked"
                    src={ (r.id) "/page/old#mend-target" } {}
            }
            figure {
                figcaption { "What the new XPath selects on the stored page" }
                iframe sandbox="" title="The stored page, the new XPath's selection marked"
                    src={ (r.id) "/page/new#mend-target" } {}
            }
        }
        h3 { "Sample values" }
        table {
            thead { tr { th scope="col" { "Before" } th scope="col" { "After" } } }
            tbody {
                @for i in 0..r.samples_before.len().max(r.samples_after.len()) {
                    tr {
                        td { (r.samples_before.get(i).map(ToString::to_string).unwrap_or_default()) }
                        td { (r.samples_after.get(i).map(ToString::to_string).unwrap_or_default()) }
                    }
                }
            }
        }
        h3 { "Constraints" }
        ul {
            @for c in &r.constraint_results {
                li { (if c.passed { "held" } else { "failed" }) ": " (c.constraint) " — " (c.detail) }
            }
        }
        h3 { "Candidates" }
        ol {
            @for c in &r.candidates {
                li { code { (c.xpath) } " " (format!("{:.3}", c.score)) " (" (c.algorithm) ")" }
            }
        }
    };
    Ok(layout(token, &format!("Adaptation {}", r.id), body).into_response())
}

/// The adaptation's stored page, sanitized, with what the old (or new)
/// XPath selects on it marked.
fn snapshot(
    token: &str,
    store: &Store,
    id: AdaptationId,
    new: bool,
) -> Result<Response, StoreError> {
    let Some(r) = store.adaptation(id)? else {
        return Ok(not_found(token));
    };
    let Some(html) = store.page_html(r.page_id)? else {
        let page = "<!DOCTYPE html><p>No copy of this page was kept.</p>";
        return Ok(with_snapshot_policy(page.to_owned()));
    };
    let doc = Document::parse(&html);
    let xpath = if new {
        r.new_xpath.as_deref()
    } else {
        Some(r.old_xpath.as_str())
    };
    let paths: Vec<String> = xpath
        .and_then(|x| XPath::compile(x).ok())
        .and_then(|x| x.evaluate(&doc, crate::dom::NodeId::ROOT).ok())
        .map(|v| match v {
            Value::Nodes(items) => items.iter().map(|i| i.path(&doc)).collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default();
    Ok(with_snapshot_policy(sanitize(
        &doc,
        &targets_of(&doc, &paths),
    )))
}

/// What a decision just came to.
fn notice_box(n: &Notice) -> Markup {
    html! {
        div.notice.done[n.done].refused[!n.done] role=(if n.done { "status" } else { "alert" }) {
            @for line in &n.lines { p { (line) } }
            @if let Some(d) = &n.diagnostics { pre { (d) } }
        }
    }
}

/// The forms for the decisions that `r` can take now: approve and reject a
/// proposal that waits; revert and reject an adaptation in the wrapper.
fn decisions(
    state: &ReviewState,
    store: &Store,
    r: &AdaptationRecord,
    notice: Option<&Notice>,
) -> Markup {
    let pending = r.is_pending();
    let in_wrapper = !pending && crate::review::in_wrapper(store, r).unwrap_or(false);
    if !pending && !in_wrapper {
        return html! {};
    }
    let may_force = notice.is_some_and(|n| n.may_force);
    let nonce = || state.guard.issue().unwrap_or_default();
    let force = |form: &str| {
        html! {
            @if may_force {
                p {
                    input type="checkbox" name="force" value="1" id={ "force-" (form) };
                    label for={ "force-" (form) } { " even though the wrapper file has changed since" }
                }
            }
        }
    };
    html! {
        section.decide aria-labelledby="decide" {
            h3 #decide { "Decide" }
            @if pending {
                form #approve method="post" action={ (r.id.0) "/approve" } {
                    input type="hidden" name="nonce" value=(nonce());
                    (force("approve"))
                    button type="submit" aria-keyshortcuts="a" {
                        "Approve: write the new XPath to the wrapper " kbd { "a" }
                    }
                }
            }
            @if in_wrapper {
                form #revert method="post" action={ (r.id.0) "/revert" } {
                    input type="hidden" name="nonce" value=(nonce());
                    (force("revert"))
                    button type="submit" { "Revert: put the old XPath back" }
                }
            }
            form #reject method="post" action={ (r.id.0) "/reject" } {
                input type="hidden" name="nonce" value=(nonce());
                label for="reason" { "Why reject " kbd { "r" } }
                textarea #reason name="reason" rows="2" maxlength="2000"
                    aria-keyshortcuts="r" {}
                (force("reject"))
                button type="submit" {
                    @if in_wrapper { "Reject: take it out of the wrapper" } @else { "Reject" }
                }
            }
        }
    }
}

fn with_snapshot_policy(page: String) -> Response {
    let mut response = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(SNAPSHOT_POLICY),
    );
    response
}

fn status_of(r: &AdaptationRecord) -> String {
    match (&r.decision, r.status) {
        (Some(d), _) => d.verdict.to_string(),
        (None, AdaptationStatus::Proposed) => "pending".to_owned(),
        (None, s) => s.to_string(),
    }
}

fn score(s: Option<f64>) -> String {
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

fn not_found(token: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        layout(token, "Not found", html! { p { "Nothing here." } }),
    )
        .into_response()
}

fn layout(token: &str, title: &str, body: Markup) -> Markup {
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
