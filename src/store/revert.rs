//! Reverts: an approval or an applied heal undone, the wrapper's XPath put
//! back by a change of its own, and when a person says the XPath was wrong,
//! the verdict turned to a rejection so that it is never proposed again.
//!
//! A revert does not erase what happened: the adaptation keeps its status,
//! an approval keeps its row until the verdict is turned, and each revert
//! is a row of its own that points at the change that wrote it.
//!
//! ## What it refuses
//!
//! Recording a revert fails for an adaptation the store does not hold
//! ([`StoreError::UnknownAdaptation`]), for one that neither a run applied
//! nor a person approved ([`StoreError::NotInWrapper`]), and for one
//! reverted already ([`StoreError::AlreadyReverted`]), checked in the
//! transaction that records it. [`Store::turn_to_rejection`] refuses an
//! unknown id and an adaptation whose XPath never went into the wrapper in
//! the same way.

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::{AdaptationId, Batch, ChangeId, Store, StoreError, Timestamp, Verdict};

/// One revert of an adaptation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Revert {
    /// The adaptation whose XPath was taken back out of the wrapper.
    pub adaptation_id: AdaptationId,
    /// The change that wrote the wrapper back.
    pub change_id: Option<ChangeId>,
    /// Why, if the person said.
    pub reason: Option<String>,
    /// When.
    pub reverted_at: Timestamp,
    /// Who, when it was recorded.
    pub by: Option<String>,
}

impl Batch<'_> {
    /// Records that change `change` reverts adaptation `id`; the record
    /// goes when the change is rolled back. Fails for an unknown id and for
    /// an adaptation that is neither applied nor approved.
    pub fn revert_in_change(
        &mut self,
        id: AdaptationId,
        reason: Option<&str>,
        at: Timestamp,
        change: ChangeId,
    ) -> Result<(), StoreError> {
        went_into_wrapper(&self.tx, id)?;
        // The caller checks this before it writes the wrapper; checked again
        // here, in the transaction that records the revert, two reverts of
        // one adaptation racing past that check cannot both be recorded.
        if !reverts_of(&self.tx, id)?.is_empty() {
            return Err(StoreError::AlreadyReverted { id });
        }
        self.tx
            .prepare_cached(
                "INSERT INTO reverts (adaptation_id, change_id, reason, reverted_at, reverted_by)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                id.0,
                change.0,
                reason,
                at.unix_millis(),
                self.actor
            ])?;
        Ok(())
    }
}

impl Store {
    /// Turns the verdict on adaptation `id` into a rejection (an approval a
    /// person took back, or an applied heal they refuse), so that its XPath
    /// is never proposed again; the earlier verdict's time and reason give
    /// way to these.
    pub fn turn_to_rejection(
        &mut self,
        id: AdaptationId,
        reason: Option<&str>,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let by = self.actor.clone();
        self.write(|tx| {
            // Only an XPath that went into the wrapper is taken back by a
            // rejection; a proposal is rejected by a decision of its own.
            went_into_wrapper(tx, id)?;
            tx.prepare_cached(
                "INSERT INTO decisions (adaptation_id, verdict, reason, decided_at, decided_by)
                 VALUES (?1, 'rejected', ?2, ?3, ?4)
                 ON CONFLICT (adaptation_id) DO UPDATE SET verdict = 'rejected',
                     reason = excluded.reason, decided_at = excluded.decided_at,
                     decided_by = excluded.decided_by",
            )?
            .execute(params![id.0, reason, at.unix_millis(), by])?;
            Ok(())
        })
    }

    /// The reverts of adaptation `id`, oldest first.
    pub fn reverts(&self, id: AdaptationId) -> Result<Vec<Revert>, StoreError> {
        reverts_of(&self.conn, id)
    }

    /// The change that wrote adaptation `id`'s XPath into the wrapper: the
    /// run's change for an applied heal, the approval's for an approved one.
    pub fn writing_change(&self, id: AdaptationId) -> Result<Option<ChangeId>, StoreError> {
        let change: Option<Option<i64>> = self
            .conn
            .prepare_cached(
                "SELECT coalesce(a.change_id, d.change_id) FROM adaptations a
                 LEFT JOIN decisions d ON d.adaptation_id = a.id WHERE a.id = ?1",
            )?
            .query_row([id.0], |row| row.get(0))
            .optional()?;
        match change {
            None => Err(StoreError::UnknownAdaptation(id)),
            Some(c) => Ok(c.map(ChangeId)),
        }
    }
}

/// Checks that adaptation `id` is in the store and that its XPath went into
/// the wrapper: applied by a run, or approved by a person.
fn went_into_wrapper(conn: &Connection, id: AdaptationId) -> Result<(), StoreError> {
    let found: Option<(String, Option<String>)> = conn
        .prepare_cached(
            "SELECT a.status, d.verdict FROM adaptations a
             LEFT JOIN decisions d ON d.adaptation_id = a.id WHERE a.id = ?1",
        )?
        .query_row([id.0], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let Some((status, verdict)) = found else {
        return Err(StoreError::UnknownAdaptation(id));
    };
    if status != "applied" && verdict.as_deref() != Some(Verdict::Approved.as_str()) {
        return Err(StoreError::NotInWrapper { id });
    }
    Ok(())
}

/// The reverts of adaptation `id` read on `conn`, oldest first.
pub(super) fn reverts_of(conn: &Connection, id: AdaptationId) -> Result<Vec<Revert>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT change_id, reason, reverted_at, reverted_by FROM reverts
         WHERE adaptation_id = ?1 ORDER BY id",
    )?;
    let rows = statement.query_map([id.0], |row| {
        Ok(Revert {
            adaptation_id: id,
            change_id: row.get::<_, Option<i64>>(0)?.map(ChangeId),
            reason: row.get(1)?,
            reverted_at: Timestamp::from_unix_millis(row.get(2)?),
            by: row.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
