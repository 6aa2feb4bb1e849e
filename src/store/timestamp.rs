//! Points in time as the store keeps them: milliseconds since the Unix epoch.
//!
//! ## What it refuses
//!
//! It never reads the clock and never fails: a [`SystemTime`] beyond the
//! range of `i64` milliseconds saturates, and a value outside the
//! calendar's range is shown as its raw milliseconds rather than a date.
//! It keeps nothing below the millisecond (truncated toward the epoch), and
//! it parses no text: nothing here reads its RFC 3339 form back.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, SecondsFormat};
use serde::{Serialize, Serializer};

/// A point in time, in whole milliseconds since 1970-01-01T00:00:00Z.
///
/// The store never reads the clock: callers pass timestamps, so that tests
/// are deterministic and a replayed run can carry its original times. The
/// rest of mend asks `runtime::now()`, the one clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The timestamp `millis` milliseconds after the Unix epoch (before it when negative).
    pub const fn from_unix_millis(millis: i64) -> Self {
        Timestamp(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn unix_millis(self) -> i64 {
        self.0
    }
}

impl From<SystemTime> for Timestamp {
    /// Converts, saturating at the ends of the range rather than failing:
    /// a clock set three hundred million years off is not worth an error.
    fn from(time: SystemTime) -> Self {
        let millis = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        match time.duration_since(UNIX_EPOCH) {
            Ok(after) => Timestamp(millis(after)),
            Err(before) => Timestamp(millis(before.duration()).saturating_neg()),
        }
    }
}

impl Timestamp {
    /// The time to the second, as tables show it: `2024-05-01 12:00:00`
    /// (UTC); a value outside the calendar's range as [`Display`](fmt::Display) has it.
    pub fn to_seconds_text(self) -> String {
        match DateTime::from_timestamp_millis(self.0) {
            Some(time) => time.format("%Y-%m-%d %H:%M:%S").to_string(),
            None => self.to_string(),
        }
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339 in UTC with milliseconds, such as `2024-05-01T12:00:00.000Z`;
    /// a value outside the calendar's range is shown as its raw milliseconds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match DateTime::from_timestamp_millis(self.0) {
            Some(time) => f.write_str(&time.to_rfc3339_opts(SecondsFormat::Millis, true)),
            None => write!(f, "{}ms after the Unix epoch", self.0),
        }
    }
}

impl Serialize for Timestamp {
    /// Serialised as its RFC 3339 text, which both people and JSON tools read.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn displays_as_rfc3339_in_utc() {
        assert_eq!(
            Timestamp::from_unix_millis(1_714_564_800_123).to_string(),
            "2024-05-01T12:00:00.123Z"
        );
        assert_eq!(
            Timestamp::from_unix_millis(0).to_string(),
            "1970-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn tables_show_the_time_to_the_second() {
        assert_eq!(
            Timestamp::from_unix_millis(1_714_564_800_123).to_seconds_text(),
            "2024-05-01 12:00:00"
        );
        assert!(
            Timestamp::from_unix_millis(i64::MAX)
                .to_seconds_text()
                .contains("ms")
        );
    }

    #[test]
    fn out_of_range_values_display_without_panicking() {
        assert!(
            Timestamp::from_unix_millis(i64::MAX)
                .to_string()
                .contains("ms")
        );
        assert!(
            Timestamp::from_unix_millis(i64::MIN)
                .to_string()
                .contains("ms")
        );
    }

    #[test]
    fn converts_system_times_on_both_sides_of_the_epoch() {
        let after = UNIX_EPOCH + Duration::from_millis(1500);
        assert_eq!(Timestamp::from(after).unix_millis(), 1500);
        let before = UNIX_EPOCH - Duration::from_millis(2500);
        assert_eq!(Timestamp::from(before).unix_millis(), -2500);
    }

    #[test]
    fn serialises_as_text() {
        let json = serde_json::to_string(&Timestamp::from_unix_millis(0)).unwrap();
        assert_eq!(json, "\"1970-01-01T00:00:00.000Z\"");
    }
}
