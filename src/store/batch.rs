//! Batches: many writes in one transaction.
//!
//! ## What it refuses
//!
//! A batch dropped without [`Batch::commit`] writes nothing. Beginning one
//! takes SQLite's write lock at once: it waits for another process's write
//! up to the store's busy timeout (`BUSY_TIMEOUT`, five seconds) and then
//! fails, and other writers wait for it likewise. [`Store::act_as`] names
//! the actor of the batches begun after it only.

use rusqlite::Transaction;

use super::{IMMEDIATE, Store, StoreError};

/// Writes that commit together or not at all.
///
/// Each write on [`Store`] is a transaction of its own, and a commit is the
/// expensive part of a write. A run records each page with its adaptations in
/// one batch, so that the history never holds an adaptation without its
/// candidates; a long run may put many pages in one batch to go faster.
///
/// Dropping a batch without [`Batch::commit`] undoes its writes.
pub struct Batch<'a> {
    pub(super) tx: Transaction<'a>,
    /// Who the decisions of this batch are made by.
    pub(super) actor: Option<String>,
}

impl Store {
    /// Begins a batch. The store is borrowed until the batch ends, and other
    /// processes wait for the store (up to a few seconds) until then too.
    pub fn batch(&mut self) -> Result<Batch<'_>, StoreError> {
        Ok(Batch {
            tx: self.conn.transaction_with_behavior(IMMEDIATE)?,
            actor: self.actor.clone(),
        })
    }

    /// Records the decisions and reverts made through this store from now
    /// on as made by `who` (a person's name, or `NAME via the review page`);
    /// `None` records no one.
    pub fn act_as(&mut self, who: Option<String>) {
        self.actor = who;
    }
}

impl Batch<'_> {
    /// Makes the batch's writes permanent.
    pub fn commit(self) -> Result<(), StoreError> {
        Ok(self.tx.commit()?)
    }
}
