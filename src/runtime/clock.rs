//! The one clock of mend. The core and the store read none (their callers
//! pass every time in); what touches the outside world (runs, crawls,
//! workers, the review page, the command line) asks here, so that there is
//! one place that says what "now" is.
//!
//! ## What it refuses
//!
//! It never fails and never waits: a system clock before 1970 gives a
//! negative time, and one beyond the range of a [`Timestamp`] saturates. It
//! is the wall clock only, to the millisecond, with no override; it promises
//! no order between two readings (a clock set back reads earlier), and
//! nothing here measures durations.

use std::time::SystemTime;

use crate::store::Timestamp;

/// The time now.
pub fn now() -> Timestamp {
    Timestamp::from(SystemTime::now())
}
