//! The routes of the review page's GETs: the list (`list.rs`), one
//! adaptation ([`proposal`]), a pattern's history and a stored page. What
//! every page shares is in `layout.rs`.
//! Every value is escaped by maud; a stored page is written only through
//! [`crate::review::sanitize`].
//!
//! ## What it refuses
//!
//! A path it does not know, an id that is not a whole number, a stored
//! page's side other than `old` or `new`, an adaptation the store does not
//! hold and a wrapper it holds nothing of are answered 404. A store that
//! cannot be read is answered 500, with the error on the review page. It
//! only reads the store: decisions are POSTs, served elsewhere. A `notice`
//! key the server does not keep (any more) shows no notice.

use axum::response::{IntoResponse, Response};

use super::layout::{Notice, layout, not_found, review_failure};
use super::list::{Filters, list};
use super::{ReviewState, proposal};
use crate::review::{ReviewError, Side};
use crate::store::{AdaptationId, Store};

/// The response to a GET of `path` (under the token) with `query`.
pub(super) fn get(state: &ReviewState, path: &str, query: &str) -> Response {
    state.read(|store| read(state, store, path, query))
}

/// The response to a GET of `path` with `query`, read through `store`.
fn read(state: &ReviewState, store: &Store, path: &str, query: &str) -> Response {
    let token = state.guard.token();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let result = match segments.as_slice() {
        [""] => {
            let notice = notice_of(state, query);
            let mut nonce = || state.guard.issue().unwrap_or_default();
            list(
                store,
                &state.store_path,
                token,
                &Filters::parse(query),
                notice.as_ref(),
                &mut nonce,
            )
            .map(IntoResponse::into_response)
            .map_err(ReviewError::from)
        }
        ["a", id] => match id.parse::<i64>() {
            Ok(id) => {
                let notice = notice_of(state, query);
                proposal::adaptation(state, store, AdaptationId(id), notice.as_ref())
            }
            Err(_) => Ok(not_found(token)),
        },
        ["w", wrapper] => {
            let wrapper = url::form_urlencoded::parse(format!("w={wrapper}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            super::history::history(store, token, &wrapper)
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
                proposal::snapshot(state, store, AdaptationId(id), side)
            }
            Err(_) => Ok(not_found(token)),
        },
        _ => Ok(not_found(token)),
    };
    result.unwrap_or_else(|e| review_failure(token, &e))
}

/// The notice a redirect after a decision names in `query`.
fn notice_of(state: &ReviewState, query: &str) -> Option<Notice> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "notice")
        .and_then(|(_, key)| state.notice(&key))
}

#[cfg(test)]
mod tests;
