//! The one clock of mend. The core and the store read none (their callers
//! pass every time in); what touches the outside world (runs, crawls,
//! workers, the review page, the command line) asks here, so that there is
//! one place that says what "now" is.

use std::time::SystemTime;

use crate::store::Timestamp;

/// The time now.
pub fn now() -> Timestamp {
    Timestamp::from(SystemTime::now())
}
