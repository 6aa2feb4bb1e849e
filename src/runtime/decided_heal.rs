//! Heals decided in another store, recorded in the user's: a crawl job's
//! workers decide heals in a copy of the user's store, and the command that
//! brings the job home records each of them in the user's own store, with
//! the page it was decided on, so that `mend show`, `log`, `revert` and the
//! review page work on them as on a local run's.
//!
//! It refuses to read a heal it cannot place: an entry whose page is gone
//! from the copy is skipped, not recorded half.

use crate::store::{
    AdaptationFilter, AdaptationId, AdaptationRecord, AdaptationStatus, Batch, NewAdaptation,
    PageRecord, RunId, Snapshot, Store, StoreError,
};

/// A heal another store recorded as applied, with its page.
#[derive(Clone, Debug)]
pub struct DecidedHeal {
    /// The adaptation as the deciding store kept it.
    pub record: AdaptationRecord,
    /// The page it was decided on, as that store kept it.
    pub page: PageRecord,
    /// The page's bytes, when that store kept its snapshot.
    pub html: Option<Vec<u8>>,
}

impl DecidedHeal {
    /// The heals `store` recorded as applied in runs after `after` (the
    /// newest run the store held when it was copied), oldest first.
    pub fn read_all(store: &Store, after: RunId) -> Result<Vec<DecidedHeal>, StoreError> {
        let filter = AdaptationFilter {
            status: Some(AdaptationStatus::Applied),
            ..AdaptationFilter::default()
        };
        let mut heals = Vec::new();
        for record in store.adaptations(&filter)? {
            if record.run_id.0 <= after.0 {
                continue;
            }
            let Some(page) = store.page(record.page_id)? else {
                continue;
            };
            let html = store.page_html(record.page_id)?;
            heals.push(DecidedHeal { record, page, html });
        }
        heals.reverse();
        Ok(heals)
    }

    /// Records the heal in `batch` as an adaptation of run `run`, with its
    /// page (and the page's snapshot, when it came with one), in `status`
    /// with `reason`; gives the new id.
    pub fn record(
        &self,
        batch: &mut Batch<'_>,
        run: RunId,
        status: AdaptationStatus,
        reason: &str,
    ) -> Result<AdaptationId, StoreError> {
        let name = &self.page.url_or_path;
        let page_id = match &self.html {
            Some(bytes) => batch.record_snapshot_page(run, name, &Snapshot::of(bytes)?)?,
            None => batch.record_page_hash(run, name, &self.page.sha256, self.page.size)?,
        };
        let r = &self.record;
        batch.record_adaptation(&NewAdaptation {
            page_id,
            pattern: r.pattern.clone(),
            old_xpath: r.old_xpath.clone(),
            new_xpath: r.new_xpath.clone(),
            algorithm: r.algorithm.clone(),
            score: r.score,
            runner_up: r.runner_up,
            status,
            change_scope: r.change_scope.clone(),
            reason: Some(reason.to_owned()),
            model: r.model.clone(),
            confidence: r.confidence,
            candidates: r.candidates.clone(),
            samples_before: r.samples_before.clone(),
            samples_after: r.samples_after.clone(),
            constraint_results: r.constraint_results.clone(),
            created_at: r.created_at,
        })
    }
}
