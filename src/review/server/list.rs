//! The review page's list of adaptations: the filters of its query, its
//! order (which `j` and `k` follow on an adaptation's page too), one page
//! of 50 rows at a time, and the forms that decide a pattern's pending
//! proposals together.
//!
//! ## What it refuses
//!
//! A query never fails: a `min_score` that is not a finite number, a
//! `class` it does not name, and a `page` below 1 or not a number are
//! ignored, a page past the last shows the last, and an unknown `status`
//! matches nothing. A record without a score never passes `min_score`. It
//! shows at most [`PAGE_SIZE`] rows and 8 candidate bars a row, and a bulk
//! form only where two or more of a wrapper's proposals on the page wait.

use std::path::Path;

use maud::{Markup, html};

use super::layout::{Notice, encode, href, layout, notice_box, score, status_of};
use crate::review::ChangeClass;
use crate::store::{
    AdaptationFilter, AdaptationId, AdaptationRecord, STATES, State, Store, StoreError,
};

/// The list's filters and page, from the query string.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Filters {
    /// Only this status (`proposed`, `applied`, ...), or `pending`.
    status: Option<String>,
    /// Only scores at or above this.
    min_score: Option<f64>,
    /// Only this class of change.
    class: Option<ChangeClass>,
    /// Which page of [`PAGE_SIZE`] rows, from 1.
    page: usize,
}

/// Rows on one page of the list: a store of thousands of proposals is read
/// page by page, never as one endless page.
pub(super) const PAGE_SIZE: usize = 50;

impl Filters {
    pub(super) fn parse(query: &str) -> Filters {
        let mut f = Filters {
            page: 1,
            ..Filters::default()
        };
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "status" if !v.is_empty() => f.status = Some(v.into_owned()),
                "min_score" => f.min_score = v.parse().ok().filter(|s: &f64| s.is_finite()),
                "class" => f.class = ChangeClass::parse(&v),
                "page" => f.page = v.parse().ok().filter(|&p| p >= 1).unwrap_or(1),
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

    /// The query string of these filters on page `page`.
    fn query(&self, page: usize) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        if let Some(s) = &self.status {
            q.append_pair("status", s);
        }
        if let Some(c) = self.class {
            q.append_pair("class", c.as_str());
        }
        if let Some(m) = self.min_score {
            q.append_pair("min_score", &m.to_string());
        }
        q.append_pair("page", &page.to_string());
        q.finish()
    }
}

/// `records` in the order the list shows them, which `j` and `k` follow on
/// an adaptation's page too: by wrapper and pattern, and in the store's
/// order (the newest first) within a pattern.
pub(super) fn list_order<'r>(
    records: impl IntoIterator<Item = &'r AdaptationRecord>,
) -> Vec<&'r AdaptationRecord> {
    let mut rows: Vec<&AdaptationRecord> = records.into_iter().collect();
    // A stable sort: the store's order stays within a pattern.
    rows.sort_by(|a, b| (&a.wrapper, &a.pattern).cmp(&(&b.wrapper, &b.pattern)));
    rows
}

/// The list of the store's adaptations that pass `filters`, one page of
/// it, each pattern's pending proposals with forms to decide them together
/// (each form with a nonce from `nonce`), and `notice` at the top.
pub(super) fn list(
    store: &Store,
    store_path: &Path,
    token: &str,
    filters: &Filters,
    notice: Option<&Notice>,
    nonce: &mut dyn FnMut() -> String,
) -> Result<Markup, StoreError> {
    let records = store.adaptations(&AdaptationFilter::default())?;
    let tag = store.tag()?;
    let rows = list_order(records.iter().filter(|r| filters.keeps(r)));
    let pages = rows.len().div_ceil(PAGE_SIZE).max(1);
    let page = filters.page.min(pages);
    let shown = &rows[(page - 1) * PAGE_SIZE..(page * PAGE_SIZE).min(rows.len())];
    // A proposal that waits is shown as `pending`, in the list and here.
    let statuses = STATES.map(|s| match s {
        State::Proposed => "pending",
        other => other.as_str(),
    });
    let body = html! {
        p.store { "Store " code { (store_path.display()) } " (tag " code { (tag) } ")" }
        @if let Some(n) = notice { (notice_box(n)) }
        form.filters method="get" action=(href(token, "")) {
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
        @if rows.is_empty() {
            p { "No adaptation matches." }
        }
        (pager(token, filters, page, pages, rows.len()))
        @for of_wrapper in shown.chunk_by(|a, b| a.wrapper == b.wrapper) {
            @for group in of_wrapper.chunk_by(|a, b| a.pattern == b.pattern) {
                (list_group(token, group))
            }
            (bulk_form(token, of_wrapper, nonce))
        }
        @if pages > 1 { (pager(token, filters, page, pages, rows.len())) }
    };
    Ok(layout(token, "Adaptations", body))
}

/// The rows of one wrapper's pattern.
fn list_group(token: &str, rows: &[&AdaptationRecord]) -> Markup {
    let Some(first) = rows.first() else {
        return html! {};
    };
    html! {
        section.group {
            h2 {
                a href=(href(token, &format!("w/{}", encode(&first.wrapper)))) { (first.wrapper) }
                " · " code { (first.pattern) }
            }
            div.scroll { table {
                thead { tr {
                    th scope="col" { "Id" } th scope="col" { "Status" } th scope="col" { "Change" }
                    th scope="col" { "New XPath" } th scope="col" { "Pages" }
                    th scope="col" { "Score" } th scope="col" { "Candidates" }
                } }
                tbody {
                    @for r in rows {
                        tr.row data-id=(r.id) {
                            td { a href=(href(token, &format!("a/{}", r.id))) { (r.id) } }
                            td { (status_of(r)) }
                            td { (ChangeClass::of(r)) }
                            td { code { (r.new_xpath.as_deref().unwrap_or("(none)")) } }
                            td { (r.page_count) }
                            td { (score(r.score)) }
                            td { (candidate_bars(r)) }
                        }
                    }
                }
            } }
        }
    }
}

/// One form to approve or reject the pending proposals of one wrapper on
/// this page of the list (`rows`, all of that wrapper), each decided as its
/// own page would decide it. Nothing when fewer than two wait.
fn bulk_form(token: &str, rows: &[&AdaptationRecord], nonce: &mut dyn FnMut() -> String) -> Markup {
    let pending: Vec<AdaptationId> = rows
        .iter()
        .filter(|r| r.is_pending())
        .map(|r| r.id)
        .collect();
    let (Some(first), true) = (rows.first(), pending.len() > 1) else {
        return html! {};
    };
    let key = format!("bulk-{}", first.id);
    html! {
        form.bulk method="post" action=(href(token, "bulk"))
            aria-label={ "Decide the " (pending.len()) " pending proposals of " (first.wrapper) " shown" } {
            input type="hidden" name="nonce" value=(nonce());
            @for id in &pending { input type="hidden" name="id" value=(id); }
            p {
                (pending.len()) " of " (first.wrapper) "'s proposals on this page wait ("
                @for (i, id) in pending.iter().enumerate() { @if i > 0 { ", " } (id) }
                "), each decided as its own page would decide it:"
            }
            p {
                button type="submit" name="decision" value="approve" { "Approve all " (pending.len()) }
                " "
                label for=(key) { "or reject them, because " }
                input #(key) type="text" name="reason" maxlength="2000";
                " "
                button type="submit" name="decision" value="reject" { "Reject all " (pending.len()) }
            }
        }
    }
}

/// Where the list is, and links to the pages before and after.
fn pager(token: &str, filters: &Filters, page: usize, pages: usize, rows: usize) -> Markup {
    let first = (page - 1) * PAGE_SIZE + 1;
    let last = (page * PAGE_SIZE).min(rows);
    html! {
        @if rows > 0 {
            nav.pager aria-label="Pages of the list" {
                span { "Rows " (first) "–" (last) " of " (rows) " (page " (page) " of " (pages) ")" }
                @if page > 1 {
                    a rel="prev" href={ (href(token, "")) "?" (filters.query(page - 1)) } { "Previous " (PAGE_SIZE) }
                }
                @if page < pages {
                    a rel="next" href={ (href(token, "")) "?" (filters.query(page + 1)) } { "Next " (PAGE_SIZE) }
                }
            }
        }
    }
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
