//! The page of one adaptation: its facts and the decisions it can take, the
//! old page and the new page side by side with each XPath's selection
//! marked, the old and new sub-trees aligned with their pairs linked, the
//! diff approving would make to the wrapper file, the sample values, and
//! the preview of the new XPath on the run's stored pages.
//!
//! Everything a person is shown is what `mend show` shows
//! ([`crate::review::inspect()`]): the same diff, the same preview, nested
//! patterns evaluated in their parents' instances on both. The old side is
//! the page the tree-gram was captured on when the store kept it (a
//! `mend snapshot` of this version), else the run's page, where the old
//! XPath selects what it selects now; the caption says which.
//!
//! It shows only what the store kept: an unknown id gets the not-found page,
//! a side whose page was not kept (or a proposal with no new XPath) says so
//! rather than fetching the page again, and a stored page is served only
//! sanitized, under the snapshot policy. An XPath that does not compile or
//! fails on the page is a note on the page, not a failure of it. It offers
//! only the decisions the adaptation can take now, none for one that neither
//! waits nor is in the wrapper, and carries out none itself: its forms post
//! to the handlers of `actions.rs`.

use axum::response::{IntoResponse, Response};
use maud::{Markup, html};

use super::ReviewState;
use super::layout::{
    Notice, href, layout, not_found, notice_box, score, status_of, with_snapshot_policy,
};
use super::list::list_order;
use crate::dom::{Document, NodeId};
use crate::review::alignment::{AlignedTrees, TreeLine, align_subtrees};
use crate::review::preview::{self, Effect, PagePreview};
use crate::review::sanitize::{sanitize, targets_of};
use crate::review::{ChangeClass, Inspection, Parents, ReviewError, Side};
use crate::store::{AdaptationFilter, AdaptationId, AdaptationRecord, Store, StoreError};
use crate::xpath::{Item, Value, XPath};

/// The page of adaptation `id`, saying what `notice` tells of a decision
/// just made or refused.
pub(super) fn adaptation(
    state: &ReviewState,
    store: &Store,
    id: AdaptationId,
    notice: Option<&Notice>,
) -> Result<Response, ReviewError> {
    let token = state.guard.token();
    let Some(r) = store.adaptation(id)? else {
        return Ok(not_found(token));
    };
    // j and k follow the list's order, not the ids'.
    let all = store.adaptations(&AdaptationFilter::default())?;
    let ids: Vec<AdaptationId> = list_order(&all).iter().map(|a| a.id).collect();
    let inspection = crate::review::inspect(store, &state.store_path, &r)?;
    let old = shown(store, &r, inspection.parents.as_ref(), Side::Old)?;
    let new = shown(store, &r, inspection.parents.as_ref(), Side::New)?;
    let aligned = match (&old, &new) {
        (Some(o), Some(n)) => o
            .first()
            .zip(n.first())
            .map(|(a, b)| align_subtrees(&o.doc, a, &n.doc, b)),
        _ => None,
    };
    let mut notes = inspection.notes.clone();
    for (which, side) in [("old", &old), ("new", &new)] {
        if let Some(Err(e)) = side.as_ref().map(|s| &s.items) {
            notes.push(format!("the {which} XPath {e}"));
        }
    }
    let at = ids.iter().position(|&i| i == id);
    let previous = at.and_then(|i| i.checked_sub(1)).and_then(|i| ids.get(i));
    let next = at.and_then(|i| ids.get(i + 1));
    let body = html! {
        nav.moves aria-label="Adaptations" {
            a href=(href(token, "")) { "All adaptations" }
            @if let Some(p) = previous { " · " a #previous rel="prev" href=(href(token, &format!("a/{}", p.0))) { "Previous (k)" } }
            @if let Some(n) = next { " · " a #next rel="next" href=(href(token, &format!("a/{}", n.0))) { "Next (j)" } }
        }
        h2 { "Adaptation " (r.id) " of " code { (r.pattern) } " in " (r.wrapper) }
        @if let Some(n) = notice { (notice_box(n)) }
        (decisions(state, store, &r, notice))
        (facts(&r, &inspection))
        (frames(token, &r, old.as_ref(), new.as_ref()))
        @if let Some(aligned) = &aligned { (subtrees(aligned)) }
        h3 { "Wrapper change" }
        @match &inspection.yaml_diff {
            Some(diff) => (yaml_diff(diff)),
            None => p { "Approving would not change the wrapper file (see the notes)." },
        }
        (evidence(token, &r, &inspection))
        @if !notes.is_empty() {
            h3 { "Notes" }
            ul.notes { @for n in &notes { li { pre { (n) } } } }
        }
    };
    Ok(layout(token, &format!("Adaptation {}", r.id), body).into_response())
}

/// The adaptation's facts: its status, change, XPaths, score, pages,
/// wrapper file and reason.
fn facts(r: &AdaptationRecord, inspection: &Inspection) -> Markup {
    let class = ChangeClass::of(r);
    html! {
    dl.facts {
        dt { "Status" } dd {
            (status_of(r))
            @if let Some(v) = r.reverts.last() {
                " at " (v.reverted_at)
                @if let Some(by) = &v.by { " by " (by) }
            } @else if let Some(d) = &r.decision {
                " at " (d.decided_at)
                @if let Some(by) = &d.by { " by " (by) }
            }
        }
        dt { "Change" } dd { (class) ": " (class.description()) }
        dt { "Old XPath" } dd { code { (r.old_xpath) } }
        dt { "New XPath" } dd { code { (r.new_xpath.as_deref().unwrap_or("(none)")) } }
        dt { "Score" } dd { (score(r.score)) " (runner-up " (score(r.runner_up)) ")" }
        dt { "Pages" } dd { (r.page_count) }
        dt { "Wrapper file" } dd { code { (inspection.wrapper_file.as_deref().unwrap_or(&inspection.recorded_wrapper).display()) } }
        @if let Some(reason) = &r.reason { dt { "Why" } dd { (reason) } }
    }
    }
}

/// The old and new pages in sandboxed frames, each side's selection marked.
fn frames(token: &str, r: &AdaptationRecord, old: Option<&Shown>, new: Option<&Shown>) -> Markup {
    html! {
    div.pages {
        figure {
            @match old {
                Some(o) if o.captured => figcaption { "Old: " code { (o.name) } ", where the tree-gram was captured; " (count(&o.items)) " selected by the old XPath, marked" },
                Some(o) => figcaption { "Old XPath on the run's page " code { (o.name) } " (the page the tree-gram was captured on was not kept); " (count(&o.items)) " selected, marked" },
                None => figcaption { "Old: no copy of the page was kept" },
            }
            iframe sandbox="" title="The old page, the old XPath's selection marked"
                src=(href(token, &format!("a/{}/page/old#mend-target", r.id))) {}
        }
        figure {
            @match new {
                Some(n) => figcaption { "New: " code { (n.name) } "; " (count(&n.items)) " selected by the new XPath, marked" },
                None => figcaption { "New: no copy of the page was kept" },
            }
            iframe sandbox="" title="The new page, the new XPath's selection marked"
                src=(href(token, &format!("a/{}/page/new#mend-target", r.id))) {}
        }
    }
    }
}

/// What the decision rests on: the sample values, a parent that waits,
/// the new XPath on the stored pages, the constraints and the candidates.
fn evidence(token: &str, r: &AdaptationRecord, inspection: &Inspection) -> Markup {
    html! {
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
    @if !inspection.pending_parents.is_empty() {
        div.notice.refused role="note" {
            @for (pattern, parent) in &inspection.pending_parents {
                p {
                    "Its parent " code { (pattern) } " was adapted on this page too, and that proposal waits: "
                    a href=(href(token, &format!("a/{}", parent.0))) { "adaptation " (parent) }
                    ". The preview below uses the wrapper file's XPath for the parent, so it shows what "
                    "approving this one alone would do. Decide the parent first."
                }
            }
        }
    }
    @if let Some(pages) = &inspection.preview { (preview_table(pages)) }
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
    }
}

/// The page of one side of adaptation `id`, sanitized, with what that
/// side's XPath selects on it marked.
pub(super) fn snapshot(
    state: &ReviewState,
    store: &Store,
    id: AdaptationId,
    side: Side,
) -> Result<Response, ReviewError> {
    let token = state.guard.token();
    let Some(r) = store.adaptation(id)? else {
        return Ok(not_found(token));
    };
    let parents = crate::review::parents_of(store, &state.store_path, &r)?;
    let Some(shown) = shown(store, &r, parents.as_ref(), side)? else {
        let page = "<!DOCTYPE html><p>No copy of this page was kept.</p>";
        return Ok(with_snapshot_policy(page.to_owned()));
    };
    let paths: Vec<String> = match &shown.items {
        Ok(items) => items.iter().map(|i| i.path(&shown.doc)).collect(),
        Err(_) => Vec::new(),
    };
    Ok(with_snapshot_policy(sanitize(
        &shown.doc,
        &targets_of(&shown.doc, &paths),
    )))
}

/// One side of an adaptation: the page it is shown on and what its XPath
/// selects there.
struct Shown {
    /// Where the page came from.
    name: String,
    /// Whether it is the page the tree-gram was captured on.
    captured: bool,
    doc: Document,
    /// The selection, or why the XPath could not be evaluated.
    items: Result<Vec<Item>, String>,
}

impl Shown {
    /// The node the sub-trees are aligned at: the first selected.
    fn first(&self) -> Option<NodeId> {
        self.items.as_ref().ok()?.first().map(|i| i.owner())
    }
}

/// The page of `side` of `r` and its selection: nested in the parents'
/// instances when they are known, else from the root. `None` when no copy
/// of the page was kept, or the side has no XPath.
fn shown(
    store: &Store,
    r: &AdaptationRecord,
    parents: Option<&Parents>,
    side: Side,
) -> Result<Option<Shown>, StoreError> {
    let xpath = match side {
        Side::Old => r.old_xpath.as_str(),
        Side::New => match r.new_xpath.as_deref() {
            Some(x) => x,
            None => return Ok(None),
        },
    };
    let capture = match side {
        Side::Old => store.capture_before(&r.wrapper, &r.pattern, r.created_at)?,
        Side::New => None,
    };
    let (html, name, captured) = match &capture {
        Some(c) => (store.capture_html(c)?, c.name.clone(), true),
        None => {
            let name = store
                .page(r.page_id)?
                .map_or_else(|| "(unknown)".to_owned(), |p| p.url_or_path);
            (store.page_html(r.page_id)?, name, false)
        }
    };
    let Some(html) = html else { return Ok(None) };
    let doc = Document::parse(&html);
    let items = match parents {
        Some(parents) => parents.select(&doc, side, xpath),
        None => from_root(&doc, xpath),
    };
    Ok(Some(Shown {
        name,
        captured,
        doc,
        items,
    }))
}

/// What `xpath` selects from the document node.
fn from_root(doc: &Document, xpath: &str) -> Result<Vec<Item>, String> {
    let compiled = XPath::compile(xpath).map_err(|e| format!("{xpath}: {}", e.message))?;
    match compiled.evaluate(doc, NodeId::ROOT) {
        Ok(Value::Nodes(items)) => Ok(items),
        Ok(_) => Ok(Vec::new()),
        Err(e) => Err(format!("{xpath}: {}", e.message)),
    }
}

/// `3 nodes`, or why there are none.
fn count(items: &Result<Vec<Item>, String>) -> String {
    match items {
        Ok(items) if items.len() == 1 => "1 node".to_owned(),
        Ok(items) => format!("{} nodes", items.len()),
        Err(_) => "nothing (the XPath failed)".to_owned(),
    }
}

/// The old and new sub-trees side by side; a line and its pair on the
/// other side carry the same `data-pair`, which the script highlights
/// together on hover or focus.
fn subtrees(aligned: &AlignedTrees) -> Markup {
    let side = |title: &str, lines: &[TreeLine]| {
        html! {
            figure.tree {
                figcaption { (title) }
                ol.tree {
                    @for l in lines {
                        @let indent = "  ".repeat(l.depth.min(40));
                        li.paired[l.pair.is_some()].selected[l.selected] data-pair=[l.pair] {
                            span.indent { (indent) }
                            (l.label)
                            @if let Some(p) = l.pair { " " span.pair { "[" (p + 1) "]" } }
                            @if l.selected { " " span.mark { "◀ selected" } }
                        }
                    }
                }
            }
        }
    };
    html! {
        section.aligned aria-labelledby="aligned" {
            h3 #aligned { "Sub-trees, aligned" }
            p {
                (aligned.pairs) " elements paired by simple tree matching; a pair has the same number "
                "on both sides, and pointing at one line marks its pair."
                @if aligned.cut { " The trees are cut at their first lines." }
            }
            div.trees {
                (side("Old", &aligned.old))
                (side("New", &aligned.new))
            }
        }
    }
}

/// A unified diff with its added and removed lines marked.
fn yaml_diff(diff: &str) -> Markup {
    html! {
        pre.diff aria-label="The unified diff of the wrapper file" {
            @for line in diff.lines() {
                @let class = if line.starts_with("+++") || line.starts_with("---") {
                    "head"
                } else if line.starts_with('+') {
                    "add"
                } else if line.starts_with('-') {
                    "del"
                } else if line.starts_with("@@") {
                    "hunk"
                } else {
                    "same"
                };
                span class=(class) { (line) } "\n"
            }
        }
    }
}

/// What the new XPath does on the run's stored pages.
fn preview_table(pages: &[PagePreview]) -> Markup {
    html! {
        section.preview aria-labelledby="preview" {
            h3 #preview { "The new XPath on the run's pages" }
            p { (preview::tally(pages)) }
            @if pages.len() >= preview::MAX_PAGES { p { "The first " (preview::MAX_PAGES) " pages by id." } }
            table {
                thead { tr {
                    th scope="col" { "Page" } th scope="col" { "Effect" }
                    th scope="col" { "Value: old → new" }
                } }
                tbody {
                    @for p in pages {
                        // A row whose value would change is marked, whatever
                        // its effect: a confident wrong heal shows here.
                        tr.changes[p.values.is_some()] {
                            td { code { (p.name) } }
                            td class=(effect_class(p.effect)) { (p.effect.as_str()) }
                            td.values {
                                @if let Some(v) = &p.values { (v.old) " → " (v.new) }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn effect_class(effect: Effect) -> &'static str {
    match effect {
        Effect::Fixed => "effect good",
        Effect::Broken | Effect::StillViolated => "effect bad",
        Effect::Changed => "effect changed",
        Effect::Unchanged => "effect",
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
    let action = |verb: &str| href(state.guard.token(), &format!("a/{}/{verb}", r.id.0));
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
                form #approve method="post" action=(action("approve")) {
                    input type="hidden" name="nonce" value=(nonce());
                    (force("approve"))
                    button type="submit" aria-keyshortcuts="a" {
                        "Approve: write the new XPath to the wrapper " kbd { "a" }
                    }
                }
            }
            @if in_wrapper {
                form #revert method="post" action=(action("revert")) {
                    input type="hidden" name="nonce" value=(nonce());
                    (force("revert"))
                    button type="submit" { "Revert: put the old XPath back" }
                }
            }
            form #reject method="post" action=(action("reject")) {
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
