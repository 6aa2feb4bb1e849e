//! Where an adaptation stands now: the one answer that `mend log`, `mend
//! show` and the review page all give.
//!
//! An adaptation's row keeps what the run did ([`AdaptationStatus`](crate::store::AdaptationStatus)); a
//! person's verdict and any reverts are rows of their own. Read apart, they
//! disagree: a heal the run applied and a person reverted still has the
//! status `applied`. The state is computed from all three, in SQL, so that a
//! filter on it and the value shown can never differ:
//!
//! - `rejected`: a person refused the XPath (after a revert too);
//! - `reverted`: its XPath was taken back out of the wrapper;
//! - `approved`: a person wrote the proposal into the wrapper;
//! - `applied`, `proposed`, `abstained`: what the run did, undecided since;
//! - `refused`: the run found a candidate and refused it itself (a run's
//!   output calls this `rejected`, as the command-line contract says).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// Where an adaptation stands now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// A proposal waiting for a person.
    Proposed,
    /// Written to the wrapper by a run (`auto` mode).
    Applied,
    /// Written to the wrapper by a person's approval.
    Approved,
    /// Refused by a person; never proposed again.
    Rejected,
    /// Taken back out of the wrapper by a revert.
    Reverted,
    /// No candidate was good enough.
    Abstained,
    /// The run refused the candidate it found (constraints, or a person
    /// had rejected that XPath before).
    Refused,
}

/// Every state, in the order help texts list them.
pub const STATES: [State; 7] = [
    State::Proposed,
    State::Applied,
    State::Approved,
    State::Rejected,
    State::Reverted,
    State::Abstained,
    State::Refused,
];

impl State {
    /// The state as the store, `mend log` and the review page spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Proposed => "proposed",
            State::Applied => "applied",
            State::Approved => "approved",
            State::Rejected => "rejected",
            State::Reverted => "reverted",
            State::Abstained => "abstained",
            State::Refused => "refused",
        }
    }

    /// Whether the adaptation's XPath is in the wrapper file now.
    pub fn in_wrapper(self) -> bool {
        matches!(self, State::Applied | State::Approved)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for State {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        STATES
            .into_iter()
            .find(|state| state.as_str() == s)
            .ok_or_else(|| {
                let words: Vec<&str> = STATES.iter().map(|s| s.as_str()).collect();
                format!("unknown state {s:?}: expected {}", words.join(", "))
            })
    }
}

/// The state of the adaptation `a`, with its decision `d` joined (both
/// aliases of the query that uses it), as an SQL expression: a macro, so
/// that queries can be made of it with `concat!`.
macro_rules! state_sql {
    () => {
        "CASE
            WHEN d.verdict = 'rejected' THEN 'rejected'
            WHEN EXISTS (SELECT 1 FROM reverts v WHERE v.adaptation_id = a.id) THEN 'reverted'
            WHEN d.verdict = 'approved' THEN 'approved'
            WHEN a.status = 'rejected' THEN 'refused'
            ELSE a.status
        END"
    };
}
pub(crate) use state_sql;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_reads_back_from_its_word() {
        for state in STATES {
            assert_eq!(state.as_str().parse::<State>(), Ok(state));
        }
        assert!("pending".parse::<State>().unwrap_err().contains("reverted"));
    }
}
