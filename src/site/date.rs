//! The dates feeds and sitemaps carry, read leniently: RSS writes RFC 2822
//! (`Tue, 07 May 2024 10:00:00 +0000`), Atom RFC 3339, sitemaps and Dublin
//! Core the W3C profile of ISO 8601, which allows a bare date or year. Each
//! field is tried in every form, since feeds in the wild mix them up.
//!
//! ## What it refuses
//!
//! Text that is empty or longer than 64 bytes is no date, nor is any form not
//! listed above: relative dates (`yesterday`), days or months out of range,
//! zone names RFC 2822 does not know (but `UTC`). A date without a time is
//! taken as midnight UTC and a time without an offset as UTC: no local zone
//! is ever assumed.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime};

/// The instant a feed's date names, in unix milliseconds UTC, or `None`
/// when it is in no form this reads. A date without a time is midnight
/// UTC, a time without an offset is UTC.
pub(crate) fn parse_date(text: &str) -> Option<i64> {
    let text = text.trim();
    // No date needs more; longer text is not worth handing to the parsers.
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    with_offset(text)
        .map(|date| date.timestamp_millis())
        .or_else(|| without_offset(text).map(|date| date.and_utc().timestamp_millis()))
}

fn with_offset(text: &str) -> Option<DateTime<FixedOffset>> {
    if let Ok(date) = DateTime::parse_from_rfc3339(text) {
        return Some(date);
    }
    if let Ok(date) = DateTime::parse_from_rfc2822(text) {
        return Some(date);
    }
    // RFC 2822 knows `UT` and `GMT` but many feeds write `UTC`.
    if let Some(head) = text.strip_suffix("UTC")
        && let Ok(date) = DateTime::parse_from_rfc2822(&format!("{head}+0000"))
    {
        return Some(date);
    }
    // The W3C profile allows a time without seconds.
    let zulu = zulu_as_offset(text);
    DateTime::parse_from_str(&zulu, "%Y-%m-%dT%H:%M%:z").ok()
}

fn without_offset(text: &str) -> Option<NaiveDateTime> {
    const TIMES: [&str; 4] = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ];
    for format in TIMES {
        if let Ok(time) = NaiveDateTime::parse_from_str(text, format) {
            return Some(time);
        }
    }
    let date = match text.len() {
        4 => NaiveDate::parse_from_str(&format!("{text}-01-01"), "%Y-%m-%d"),
        7 => NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d"),
        _ => NaiveDate::parse_from_str(text, "%Y-%m-%d"),
    };
    date.ok()?.and_hms_opt(0, 0, 0)
}

/// `Z` at the end spelled `+00:00`, for the formats whose `%:z` does not
/// take it.
fn zulu_as_offset(text: &str) -> String {
    match text.strip_suffix(['Z', 'z']) {
        Some(head) => format!("{head}+00:00"),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` reads as `expected` (an RFC 3339 instant) or not at all.
    fn check(text: &str, expected: Option<&str>) {
        let expected =
            expected.map(|e| DateTime::parse_from_rfc3339(e).unwrap().timestamp_millis());
        assert_eq!(parse_date(text), expected, "{text:?}");
    }

    #[test]
    fn rss_dates() {
        check(
            "Tue, 07 May 2024 10:00:00 +0000",
            Some("2024-05-07T10:00:00Z"),
        );
        check(
            "Tue, 07 May 2024 12:00:00 +0200",
            Some("2024-05-07T10:00:00Z"),
        );
        check(
            "Tue, 07 May 2024 10:00:00 GMT",
            Some("2024-05-07T10:00:00Z"),
        );
        check(
            "Tue, 07 May 2024 10:00:00 UTC",
            Some("2024-05-07T10:00:00Z"),
        );
        check("7 May 2024 10:00 EST", Some("2024-05-07T15:00:00Z"));
    }

    #[test]
    fn atom_dates() {
        check("2024-05-07T10:00:00Z", Some("2024-05-07T10:00:00Z"));
        check(
            "2024-05-07T12:00:00.250+02:00",
            Some("2024-05-07T10:00:00.250Z"),
        );
    }

    #[test]
    fn w3c_dates_of_every_precision() {
        check("2024-05-07", Some("2024-05-07T00:00:00Z"));
        check("2024-05", Some("2024-05-01T00:00:00Z"));
        check("2024", Some("2024-01-01T00:00:00Z"));
        check("2024-05-07T10:00Z", Some("2024-05-07T10:00:00Z"));
        check("2024-05-07T10:00+01:00", Some("2024-05-07T09:00:00Z"));
        check(" 2024-05-07T10:00:00 ", Some("2024-05-07T10:00:00Z"));
        check("2024-05-07 10:00:00", Some("2024-05-07T10:00:00Z"));
    }

    #[test]
    fn what_is_no_date_is_none() {
        check("", None);
        check("yesterday", None);
        check("2024-13-45", None);
        check("Tue, 32 May 2024 10:00:00 +0000", None);
        check(&"9".repeat(200), None);
        check("é2024", None);
    }
}
