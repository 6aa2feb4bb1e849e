//! Decisions: a person's verdict on a proposal, and the negative examples
//! that rejections leave behind.
//!
//! A proposal is decided once. A rejected XPath is never proposed again for
//! that wrapper's pattern: healing asks [`Store::is_rejected`] (or
//! [`Store::rejected_xpaths`], once per pattern) before it proposes, and
//! treats a hit as a candidate to pass over. XPaths are compared as text,
//! which is enough because the engine generates them in one canonical form.
//!
//! It refuses a verdict on an unknown adaptation, a second verdict on one
//! already decided (a verdict is never edited, since the wrapper file may
//! have been rewritten on its strength), approving an adaptation a run
//! applied, and any verdict on an abstention or a refusal. A verdict the store
//! does not know how to read is `StoreError::Corrupt`, not a guess.

use std::collections::HashSet;
use std::fmt;

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use super::{AdaptationId, AdaptationStatus, Store, StoreError, Timestamp};

/// What a person decided about a proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The new XPath was accepted and written to the wrapper.
    Approved,
    /// The new XPath was refused; it becomes a negative example.
    Rejected,
}

impl Verdict {
    /// The verdict as the store spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::Rejected => "rejected",
        }
    }

    fn parse(word: &str) -> Option<Verdict> {
        match word {
            "approved" => Some(Verdict::Approved),
            "rejected" => Some(Verdict::Rejected),
            _ => None,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A person's decision on a proposal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The proposal decided.
    pub adaptation_id: AdaptationId,
    /// Approved or rejected.
    pub verdict: Verdict,
    /// Why, if the person said (`mend reject ID --reason R`).
    pub reason: Option<String>,
    /// When.
    pub decided_at: Timestamp,
    /// Who, when it was recorded.
    pub by: Option<String>,
}

impl Store {
    /// Records a person's verdict on proposal `id` and gives the decision.
    ///
    /// Proposals can be approved or rejected. An adaptation that a run
    /// applied on its own (`auto` mode) can be rejected too, after the fact:
    /// its XPath then becomes a negative example like any other, though the
    /// wrapper file still holds it until someone reverts it.
    ///
    /// Fails for an unknown id, for any other adaptation (approving an
    /// applied one, deciding an abstention or a refusal), and for an
    /// adaptation that was already decided: a verdict is not edited, as the
    /// wrapper file may already have been rewritten on its strength.
    pub fn decide(
        &mut self,
        id: AdaptationId,
        verdict: Verdict,
        reason: Option<&str>,
        decided_at: Timestamp,
    ) -> Result<Decision, StoreError> {
        let by = self.actor.clone();
        self.write(|tx| decide_in(tx, id, verdict, reason, decided_at, by.as_deref()))
    }

    /// The decision on adaptation `id`, or `None` if it has none.
    pub fn decision(&self, id: AdaptationId) -> Result<Option<Decision>, StoreError> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT d.verdict, d.reason, d.decided_at, d.decided_by FROM adaptations a
                 LEFT JOIN decisions d ON d.adaptation_id = a.id
                 WHERE a.id = ?1",
            )?
            .query_row([id.0], |row| Ok(read_joined(row, 0, id)))
            .optional()?;
        match row {
            None => Err(StoreError::UnknownAdaptation(id)),
            Some(decision) => decision,
        }
    }

    /// Every XPath that a person rejected for the pattern `pattern` (a path
    /// of names, such as `book/price`) of the wrapper named `wrapper`.
    pub fn rejected_xpaths(
        &self,
        wrapper: &str,
        pattern: &str,
    ) -> Result<HashSet<String>, StoreError> {
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT DISTINCT a.new_xpath {REJECTED} AND a.new_xpath IS NOT NULL"
        ))?;
        let rows = statement.query_map(params![wrapper, pattern], |row| row.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether a person rejected `xpath` for the pattern `pattern` of the
    /// wrapper named `wrapper`.
    pub fn is_rejected(
        &self,
        wrapper: &str,
        pattern: &str,
        xpath: &str,
    ) -> Result<bool, StoreError> {
        let hit = self
            .conn
            .prepare_cached(&format!("SELECT 1 {REJECTED} AND a.new_xpath = ?3 LIMIT 1"))?
            .query_row(params![wrapper, pattern, xpath], |_| Ok(()))
            .optional()?;
        Ok(hit.is_some())
    }
}

/// [`Store::decide`] inside a transaction that is already open.
pub(super) fn decide_in(
    tx: &Connection,
    id: AdaptationId,
    verdict: Verdict,
    reason: Option<&str>,
    decided_at: Timestamp,
    by: Option<&str>,
) -> Result<Decision, StoreError> {
    let found: Option<(String, Option<String>)> = tx
        .prepare_cached(
            "SELECT a.status, d.verdict FROM adaptations a
             LEFT JOIN decisions d ON d.adaptation_id = a.id
             WHERE a.id = ?1",
        )?
        .query_row([id.0], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let Some((status, earlier)) = found else {
        return Err(StoreError::UnknownAdaptation(id));
    };
    if let Some(earlier) = earlier {
        let verdict = parse_verdict(id, &earlier)?;
        return Err(StoreError::AlreadyDecided { id, verdict });
    }
    let status: AdaptationStatus = status
        .parse()
        .map_err(|_| StoreError::Corrupt(format!("adaptation {id} has status {status:?}")))?;
    if !can_decide(status, verdict) {
        return Err(StoreError::NotProposed { id, status });
    }
    tx.prepare_cached(
        "INSERT INTO decisions (adaptation_id, verdict, reason, decided_at, decided_by)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        id.0,
        verdict.as_str(),
        reason,
        decided_at.unix_millis(),
        by
    ])?;
    Ok(Decision {
        adaptation_id: id,
        verdict,
        reason: reason.map(str::to_owned),
        decided_at,
        by: by.map(str::to_owned),
    })
}

/// Whether an adaptation with `status` can receive `verdict`.
fn can_decide(status: AdaptationStatus, verdict: Verdict) -> bool {
    match status {
        AdaptationStatus::Proposed => true,
        AdaptationStatus::Applied => verdict == Verdict::Rejected,
        AdaptationStatus::Abstained | AdaptationStatus::Rejected => false,
    }
}

/// The rejected proposals of wrapper `?1`'s pattern `?2`.
const REJECTED: &str = "
    FROM adaptations a
    JOIN decisions d ON d.adaptation_id = a.id
    JOIN pages p ON p.id = a.page_id
    JOIN runs r ON r.id = p.run_id
    WHERE d.verdict = 'rejected' AND r.wrapper = ?1 AND a.pattern = ?2";

/// Reads a decision from the four columns starting at `first` (verdict,
/// reason, time, who) of a query that left-joined the decisions table: all
/// are NULL when adaptation `id` has no decision.
pub(super) fn read_joined(
    row: &Row<'_>,
    first: usize,
    id: AdaptationId,
) -> Result<Option<Decision>, StoreError> {
    let Some(verdict) = row.get::<_, Option<String>>(first)? else {
        return Ok(None);
    };
    Ok(Some(Decision {
        adaptation_id: id,
        verdict: parse_verdict(id, &verdict)?,
        reason: row.get(first + 1)?,
        decided_at: Timestamp::from_unix_millis(row.get(first + 2)?),
        by: row.get(first + 3)?,
    }))
}

fn parse_verdict(id: AdaptationId, word: &str) -> Result<Verdict, StoreError> {
    Verdict::parse(word)
        .ok_or_else(|| StoreError::Corrupt(format!("the decision on {id} has verdict {word:?}")))
}
