//! UpdateCrawl's rules: how an item page is asked for when only what
//! changed since a time is wanted, and when it counts as unchanged. The
//! local crawl and the PostgreSQL workers both decide through these, with
//! the HTTP cache kept in their own stores.
//!
//! The module does no I/O: it turns a cached entry and an answer into
//! request headers and a verdict.
//!
//! ## What it refuses
//!
//! It asks conditionally only for item pages, and only when `since` is set;
//! the cached `ETag` goes along only when the cached body last changed before
//! `since`. No page is unchanged without `since` or when it is not an item
//! page. A body matching the cache counts as unchanged only if it last
//! changed before `since`, and a `Last-Modified` that does not read as an RFC
//! 2822 date says nothing. A `304`'s empty body never replaces the cached
//! hash.

use sha2::{Digest, Sha256};

use super::fetcher::Conditions;

/// What the HTTP cache knows of a URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheEntry {
    /// The last `ETag`.
    pub etag: Option<String>,
    /// The last `Last-Modified`.
    pub last_modified: Option<String>,
    /// The SHA-256 of the last body.
    pub sha256: Option<String>,
    /// When the body last changed, as far as mend saw (Unix milliseconds).
    pub changed_at: Option<i64>,
}

/// The request headers for a page: for an item page, when `since` is set,
/// `If-Modified-Since` (and the cached `ETag`, when the cached body had
/// not changed after `since`); nothing otherwise.
pub fn conditions(since: Option<i64>, item: bool, cached: Option<&CacheEntry>) -> Conditions {
    match (since, item) {
        (Some(since), true) => Conditions {
            etag: cached
                .filter(|c| c.changed_at.is_some_and(|t| t < since))
                .and_then(|c| c.etag.clone()),
            modified_since: Some(http_date(since)),
        },
        _ => Conditions::default(),
    }
}

/// What the HTTP cache keeps of an answer.
pub fn cache_entry(etag: Option<String>, last_modified: Option<String>, body: &[u8]) -> CacheEntry {
    CacheEntry {
        etag,
        last_modified,
        sha256: Some(sha256_hex(body)),
        changed_at: None,
    }
}

/// What the HTTP cache should hold after an answer: the answer's entry,
/// but for a `304`, whose body is empty, the entry cached before (the
/// body it stands for), with the answer's validators when it sent any;
/// with nothing cached before, a `304`'s validators and no hash.
pub fn remembered(status: u16, answer: &CacheEntry, cached: Option<&CacheEntry>) -> CacheEntry {
    match (status, cached) {
        (304, None) => CacheEntry {
            sha256: None,
            ..answer.clone()
        },
        (304, Some(before)) => CacheEntry {
            etag: answer.etag.clone().or_else(|| before.etag.clone()),
            last_modified: answer
                .last_modified
                .clone()
                .or_else(|| before.last_modified.clone()),
            ..before.clone()
        },
        _ => answer.clone(),
    }
}

/// Whether an item page is unchanged since `since`: the server said so
/// (304), or its body is the one the cache saw before `since`, or its
/// `Last-Modified` is before `since`. Never when `since` is not set.
pub fn unchanged(
    since: Option<i64>,
    item: bool,
    status: u16,
    answer: &CacheEntry,
    cached: Option<&CacheEntry>,
) -> bool {
    let Some(since) = since.filter(|_| item) else {
        return false;
    };
    status == 304
        || cached.is_some_and(|c| {
            c.sha256.is_some()
                && c.sha256 == answer.sha256
                && c.changed_at.is_some_and(|t| t < since)
        })
        || answer
            .last_modified
            .as_deref()
            .and_then(parse_http_date)
            .is_some_and(|t| t < since)
}

/// When the body last changed, given what the cache held before: now when
/// it is new or its hash differs, else when it changed before.
pub fn changed_at(before: Option<&CacheEntry>, answer: &CacheEntry, now: i64) -> Option<i64> {
    match before {
        Some(b) if b.sha256.is_some() && b.sha256 == answer.sha256 => b.changed_at,
        _ => Some(now),
    }
}

/// An HTTP date (RFC 9110's IMF-fixdate) for Unix milliseconds.
pub fn http_date(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .unwrap_or_default()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

/// Unix milliseconds of an HTTP date, when it is one.
pub fn parse_http_date(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc2822(text.trim())
        .ok()
        .map(|d| d.timestamp_millis())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SINCE: i64 = 1_700_000_000_000;

    fn entry(sha: &str, changed_at: Option<i64>, etag: Option<&str>) -> CacheEntry {
        CacheEntry {
            etag: etag.map(Into::into),
            last_modified: None,
            sha256: Some(sha.into()),
            changed_at,
        }
    }

    #[test]
    fn http_dates_go_both_ways() {
        let t = 1_700_000_000_000;
        let text = http_date(t);
        assert_eq!(text, "Tue, 14 Nov 2023 22:13:20 GMT");
        assert_eq!(parse_http_date(&text), Some(t));
    }

    #[test]
    fn only_item_pages_are_asked_for_conditionally() {
        assert_eq!(conditions(Some(SINCE), false, None), Conditions::default());
        assert_eq!(conditions(None, true, None), Conditions::default());
        let c = conditions(Some(SINCE), true, None);
        assert_eq!(
            c.modified_since.as_deref(),
            Some("Tue, 14 Nov 2023 22:13:20 GMT")
        );
    }

    #[test]
    fn the_cached_etag_is_sent_only_for_a_body_unchanged_since() {
        let old = entry("a", Some(SINCE - 1), Some("\"v1\""));
        let new = entry("a", Some(SINCE + 1), Some("\"v2\""));
        assert_eq!(
            conditions(Some(SINCE), true, Some(&old)).etag.as_deref(),
            Some("\"v1\"")
        );
        assert_eq!(conditions(Some(SINCE), true, Some(&new)).etag, None);
    }

    #[test]
    fn a_body_seen_before_since_is_unchanged_and_a_new_one_is_not() {
        let seen = entry("a", Some(SINCE - 1), None);
        assert!(unchanged(
            Some(SINCE),
            true,
            200,
            &entry("a", None, None),
            Some(&seen)
        ));
        assert!(!unchanged(
            Some(SINCE),
            true,
            200,
            &entry("b", None, None),
            Some(&seen)
        ));
        assert!(unchanged(
            Some(SINCE),
            true,
            304,
            &entry("b", None, None),
            None
        ));
        assert!(!unchanged(None, true, 304, &entry("b", None, None), None));
        assert!(!unchanged(
            Some(SINCE),
            false,
            304,
            &entry("b", None, None),
            None
        ));
    }

    #[test]
    fn a_last_modified_before_since_is_unchanged() {
        let mut answer = entry("b", None, None);
        answer.last_modified = Some(http_date(SINCE - 1000));
        assert!(unchanged(Some(SINCE), true, 200, &answer, None));
        answer.last_modified = Some(http_date(SINCE + 1000));
        assert!(!unchanged(Some(SINCE), true, 200, &answer, None));
    }

    #[test]
    fn a_304_keeps_the_body_cached_before_not_the_hash_of_nothing() {
        let before = entry("a", Some(5), Some("\"v1\""));
        let not_modified = cache_entry(None, None, b"");
        let kept = remembered(304, &not_modified, Some(&before));
        assert_eq!(kept, before);
        assert_eq!(changed_at(Some(&before), &kept, 9), Some(5));
        // A new validator is taken; a 200 is taken whole.
        let renewed = cache_entry(Some("\"v2\"".into()), None, b"");
        assert_eq!(
            remembered(304, &renewed, Some(&before)).etag.as_deref(),
            Some("\"v2\"")
        );
        let fresh = entry("b", None, None);
        assert_eq!(remembered(200, &fresh, Some(&before)), fresh);
        // With nothing cached, a 304 leaves its validators and no hash.
        let first = remembered(304, &renewed, None);
        assert_eq!(
            (first.etag.as_deref(), first.sha256),
            (Some("\"v2\""), None)
        );
    }

    #[test]
    fn a_body_keeps_its_change_time_until_its_hash_changes() {
        let before = entry("a", Some(5), None);
        assert_eq!(
            changed_at(Some(&before), &entry("a", None, None), 9),
            Some(5)
        );
        assert_eq!(
            changed_at(Some(&before), &entry("b", None, None), 9),
            Some(9)
        );
        assert_eq!(changed_at(None, &entry("a", None, None), 9), Some(9));
    }
}
