//! Finding the adaptation that an id or a `TAG:ID` reference names.
//!
//! ## What it refuses
//!
//! A `TAG:ID` whose tag is not this store's is [`ReviewError::ForeignId`],
//! never read as an id of this store; a bare id is taken as this store's.
//! An id the store does not hold is [`ReviewError::UnknownAdaptation`],
//! which names the store's newest id if it has one.

use std::path::Path;

use super::ReviewError;
use crate::store::{AdaptationFilter, AdaptationId, AdaptationRecord, AdaptationRef, Store};

/// The id `reference` names in `store` (read from `store_path`): its own,
/// or [`ReviewError::ForeignId`] when it carries the tag of another store.
pub fn own_id(
    store: &Store,
    store_path: &Path,
    reference: &AdaptationRef,
) -> Result<AdaptationId, ReviewError> {
    let Some(theirs) = &reference.tag else {
        return Ok(reference.id);
    };
    let ours = store.tag()?;
    if *theirs == ours {
        return Ok(reference.id);
    }
    Err(ReviewError::ForeignId {
        reference: reference.clone(),
        theirs: theirs.clone(),
        ours,
        store: store_path.to_owned(),
    })
}

/// The adaptation `id` of `store` (read from `store_path`), or
/// [`ReviewError::UnknownAdaptation`], which names the store's newest id: an
/// id printed by a run that used another store means nothing here.
pub fn adaptation(
    store: &Store,
    store_path: &Path,
    id: AdaptationId,
) -> Result<AdaptationRecord, ReviewError> {
    if let Some(record) = store.adaptation(id)? {
        return Ok(record);
    }
    let filter = AdaptationFilter {
        limit: Some(1),
        ..Default::default()
    };
    let newest = store
        .adaptations(&filter)
        .ok()
        .and_then(|r| r.first().map(|r| r.id));
    Err(ReviewError::UnknownAdaptation {
        id,
        store: store_path.to_owned(),
        newest,
    })
}
