//! The review page's decisions: approve, reject (with a reason) and revert,
//! posted by the forms of an adaptation's page.
//!
//! Each is the library's decision ([`crate::review::approve()`],
//! [`crate::review::reject()`], [`crate::review::revert()`]) that `mend
//! approve`, `mend reject` and `mend revert` make, with the same options, so
//! the wrapper file ends byte for byte as the command would leave it and the
//! change goes through the same locked, journaled protocol.
//!
//! A POST is taken only from the page itself (see [`super::guard`]): its
//! `Origin` is this server and its form carries a nonce the server issued
//! and that was not used before. After a decision the browser is sent back
//! to the adaptation's page (303), which says what was done; a refusal is
//! shown on that page at once, with the reason, and changes nothing.
//!
//! ## What it refuses
//!
//! A POST without a fresh nonce of this server (a forgery, answered 403), a
//! decision word other than approve, reject and revert, and every decision
//! the library refuses (one decided already, a wrapper file changed since,
//! an abstention with no XPath to decide): the refusal is shown on the
//! adaptation's page with its reason, and nothing changes.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::ReviewState;
use super::layout::{Notice, review_failure};
use super::list::PAGE_SIZE;
use crate::review::{self, DecisionOptions, ReviewError};
use crate::store::{AdaptationId, Store};

/// The largest form the server reads: a nonce, a reason, a checkbox.
const MAX_FORM: usize = 16 * 1024;

/// The longest reason kept, in characters.
const MAX_REASON: usize = 2000;

/// A decision a form asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decision {
    Approve,
    Reject,
    Revert,
}

impl Decision {
    fn parse(word: &str) -> Option<Decision> {
        match word {
            "approve" => Some(Decision::Approve),
            "reject" => Some(Decision::Reject),
            "revert" => Some(Decision::Revert),
            _ => None,
        }
    }
}

/// The fields of a decision's form; a bulk form names its decision and
/// the adaptations it applies to.
#[derive(Debug, Default, PartialEq)]
struct Form {
    nonce: String,
    reason: Option<String>,
    force: bool,
    decision: Option<Decision>,
    ids: Vec<AdaptationId>,
}

impl Form {
    fn parse(body: &[u8]) -> Form {
        let mut form = Form::default();
        for (k, v) in url::form_urlencoded::parse(body) {
            match &*k {
                "nonce" => form.nonce = v.into_owned(),
                "reason" => {
                    let reason: String = v.trim().chars().take(MAX_REASON).collect();
                    form.reason = (!reason.is_empty()).then_some(reason);
                }
                "force" => form.force = v == "1" || v == "on",
                "decision" => form.decision = Decision::parse(&v),
                "id" if form.ids.len() < PAGE_SIZE => {
                    if let Ok(id) = v.parse::<i64>() {
                        form.ids.push(AdaptationId(id));
                    }
                }
                _ => {}
            }
        }
        form
    }
}

/// The response to a POST of `path` (under the token) with `body`; the
/// request's origin was checked already.
pub(super) async fn post(state: std::sync::Arc<ReviewState>, path: String, body: Body) -> Response {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    if segments == ["bulk"] {
        return bulk(state, body).await;
    }
    let (id, decision) = match segments.as_slice() {
        ["a", id, word] => match (id.parse::<i64>(), Decision::parse(word)) {
            (Ok(id), Some(decision)) => (AdaptationId(id), decision),
            _ => return StatusCode::NOT_FOUND.into_response(),
        },
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let form = Form::parse(&bytes);
    if state.guard.redeem(&form.nonce).is_err() {
        return super::refused(super::guard::Refusal::Forgery);
    }
    let worker = state.clone();
    let outcome = tokio::task::spawn_blocking(move || {
        let mut store = worker.store.lock().unwrap_or_else(|e| e.into_inner());
        let notice = decide(&mut store, &worker.store_path, id, decision, &form);
        if notice.done {
            let key = worker.remember(notice);
            Ok(key)
        } else {
            Err(Box::new(super::proposal::adaptation(
                &worker,
                &store,
                id,
                Some(&notice),
            )))
        }
    })
    .await;
    match outcome {
        Ok(Ok(key)) => {
            let location = format!("/{}/a/{}?notice={key}", state.guard.token(), id.0);
            let mut response = StatusCode::SEE_OTHER.into_response();
            if let Ok(value) = HeaderValue::from_str(&location) {
                response.headers_mut().insert(header::LOCATION, value);
            }
            response
        }
        Ok(Err(page)) => {
            let mut page = (*page).unwrap_or_else(|e| review_failure(state.guard.token(), &e));
            *page.status_mut() = StatusCode::CONFLICT;
            page
        }
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// The response to a bulk form: each adaptation it names that still waits
/// is decided as its own page would decide it (the same library call, the
/// same guards, no force), in order, and the list says what each came to.
async fn bulk(state: std::sync::Arc<ReviewState>, body: Body) -> Response {
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let form = Form::parse(&bytes);
    if state.guard.redeem(&form.nonce).is_err() {
        return super::refused(super::guard::Refusal::Forgery);
    }
    let Some(decision @ (Decision::Approve | Decision::Reject)) = form.decision else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let worker = state.clone();
    let key = tokio::task::spawn_blocking(move || {
        let mut store = worker.store.lock().unwrap_or_else(|e| e.into_inner());
        let notice = decide_each(&mut store, &worker.store_path, decision, &form);
        worker.remember(notice)
    })
    .await;
    let Ok(key) = key else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let location = format!("/{}/?notice={key}", state.guard.token());
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// Makes `decision` on each adaptation of `form` that is still pending; one
/// line for each. An adaptation decided meanwhile (an approved proposal's
/// twin, say) is said to be so and left alone.
fn decide_each(
    store: &mut Store,
    store_path: &std::path::Path,
    decision: Decision,
    form: &Form,
) -> Notice {
    let mut lines = Vec::new();
    let mut done = false;
    for &id in &form.ids {
        let line = match store.adaptation(id) {
            Ok(Some(r)) if r.is_pending() => {
                let notice = decide(store, store_path, id, decision, form);
                done |= notice.done;
                notice.lines.into_iter().next().unwrap_or_default()
            }
            Ok(Some(r)) => format!("No longer pending ({}); left as it is.", r.state),
            Ok(None) => "Not in the store.".to_owned(),
            Err(e) => format!("Nothing was changed: {e}"),
        };
        lines.push(format!("Adaptation {id}: {line}"));
    }
    Notice {
        done,
        lines,
        diagnostics: None,
        may_force: false,
    }
}

/// Makes `decision` on adaptation `id` as the command would, and says what
/// it came to.
fn decide(
    store: &mut Store,
    store_path: &std::path::Path,
    id: AdaptationId,
    decision: Decision,
    form: &Form,
) -> Notice {
    let options = DecisionOptions {
        reason: form.reason.as_deref(),
        force: form.force,
        wrapper: None,
        now: crate::runtime::now(),
    };
    let result = match decision {
        Decision::Approve => review::approve(store, store_path, id, &options).map(|a| {
            let mut lines = vec![if a.rewritten {
                format!(
                    "Approved. {} now has the new XPath for {}; the old one is kept in the pattern's history.",
                    a.file.display(),
                    a.record.pattern
                )
            } else {
                format!(
                    "Approved. {} already had the new XPath for {}; the approval is recorded.",
                    a.file.display(),
                    a.record.pattern
                )
            }];
            if !a.twins.is_empty() {
                lines.push(format!(
                    "Approved with it (the same XPath): {}.",
                    ids(&a.twins)
                ));
            }
            lines.extend(
                a.refreshed
                    .iter()
                    .map(|f| format!("Refreshed the tree-gram {}.", f.display())),
            );
            lines.extend(a.wrapper_note.iter().chain(&a.treegram_note).cloned());
            lines.extend(a.unmarked.iter().map(|e| format!("Warning: {e}")));
            lines
        }),
        Decision::Reject => review::reject(store, store_path, id, &options).map(|r| {
            let mut lines = vec![match &r.reverted {
                Some(reverted) => format!(
                    "Rejected. It was in the wrapper: {} has the old XPath again.",
                    reverted.file.display()
                ),
                None => "Rejected. The wrapper file is unchanged.".to_owned(),
            }];
            if !r.twins.is_empty() {
                lines.push(format!(
                    "Rejected with it (the same XPath): {}.",
                    ids(&r.twins)
                ));
            }
            lines
        }),
        Decision::Revert => review::revert(store, store_path, id, &options).map(|r| {
            let mut lines = vec![format!(
                "Reverted. {} has the old XPath for {} again: {}; {} was taken out.",
                r.file.display(),
                r.record.pattern,
                r.record.old_xpath,
                r.new_xpath
            )];
            lines.extend(
                r.left_alone
                    .iter()
                    .map(|f| format!("{} is left as it is (new or changed since).", f.display())),
            );
            lines.extend(r.unmarked.iter().map(|e| format!("Warning: {e}")));
            lines
        }),
    };
    match result {
        Ok(lines) => Notice {
            done: true,
            lines,
            diagnostics: None,
            may_force: false,
        },
        Err(e) => refusal(&e),
    }
}

/// What a refused decision tells the person.
fn refusal(e: &ReviewError) -> Notice {
    if !e.is_bad_input() {
        tracing::error!(error = %e, "a decision on the review page failed");
    }
    Notice {
        done: false,
        lines: vec![format!("Nothing was changed: {e}")],
        diagnostics: e.diagnostics().map(str::to_owned),
        may_force: matches!(
            e,
            ReviewError::ChangedSinceAdaptation(_) | ReviewError::ChangedSinceWritten(_)
        ),
    }
}

fn ids(ids: &[AdaptationId]) -> String {
    ids.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str, expected: Form) {
        assert_eq!(Form::parse(body.as_bytes()), expected, "{body}");
    }

    #[test]
    fn a_form_gives_its_nonce_a_trimmed_reason_and_force() {
        check(
            "nonce=ab12&reason=++wrong+price+&force=on",
            Form {
                nonce: "ab12".to_owned(),
                reason: Some("wrong price".to_owned()),
                force: true,
                ..Form::default()
            },
        );
        check(
            "nonce=ab12&reason=+++",
            Form {
                nonce: "ab12".to_owned(),
                reason: None,
                force: false,
                ..Form::default()
            },
        );
        check(
            "nonce=n&decision=reject&id=3&id=x&id=5&reason=dup",
            Form {
                nonce: "n".to_owned(),
                reason: Some("dup".to_owned()),
                decision: Some(Decision::Reject),
                ids: vec![AdaptationId(3), AdaptationId(5)],
                ..Form::default()
            },
        );
        check("", Form::default());
    }

    #[test]
    fn a_long_reason_is_cut_at_a_character_boundary() {
        let reason = "é".repeat(MAX_REASON + 10);
        let form = Form::parse(format!("reason={reason}").as_bytes());
        assert_eq!(form.reason.unwrap().chars().count(), MAX_REASON);
    }

    #[test]
    fn only_the_three_decisions_are_posted() {
        assert_eq!(Decision::parse("approve"), Some(Decision::Approve));
        assert_eq!(Decision::parse("reject"), Some(Decision::Reject));
        assert_eq!(Decision::parse("revert"), Some(Decision::Revert));
        assert_eq!(Decision::parse("delete"), None);
    }
}
