//! The witnesses against a selection that the drift check accepts: the
//! stored target's own text found again beside the selection
//! (`witness.rs`), or the item that held the target read again
//! (`item_witness.rs`), each only when it looks more like the target than
//! the selection does.
//!
//! ## What it refuses
//!
//! A field's witness is refused when any locator agrees with the XPath's
//! selection, and when it looks no more like the stored target than the
//! selection does; one found by the stored text alone needs
//! [`MIN_WITNESS_EVIDENCE`] too. A record's witness is held to no likeness:
//! the stored items' texts are its evidence. Nothing is applied here; the
//! caller decides what a witness is worth.

use crate::dom::Document;
use crate::treegram::TreeGram;
use crate::xpath::Item;

use super::signals::evidence;
use super::votes::Votes;
use super::witness::{Witness, witness};

/// The least evidence a field's witness needs: with the stored text as
/// written, its attributes must be three quarters the stored target's.
const MIN_WITNESS_EVIDENCE: f64 = 0.9;

/// The witness against a record's selection (see `witness.rs`). It stands
/// on the stored items' texts alone: locators that select the items of two
/// containers moved with the XPath.
pub(crate) fn witnessed_record(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
) -> Option<Witness> {
    witness(doc, gram, current, true)
}

/// The witness against a field's selection that the drift check accepts:
/// only when no locator confirms the XPath's node, and when the witness
/// looks more like the stored target. The item that held the target, read
/// again (`item_witness.rs`), is asked first: it tells a target from
/// another item's field with the same text ("160+ courses"), which the
/// stored text alone (`witness.rs`) cannot.
pub(crate) fn witnessed_field(
    doc: &Document,
    gram: &TreeGram,
    current: &[Vec<Item>],
    votes: &Votes,
) -> Option<Witness> {
    if votes.agree > 0 {
        return None;
    }
    if let Some(w) = super::item_witness::item_witness(doc, gram, current) {
        // The target's own text may have changed with its item's, so no
        // bar is set on its likeness beyond the selection's.
        let theirs = evidence(doc, gram, &w.targets)?;
        let ours = evidence(doc, gram, current).unwrap_or(0.0);
        return (theirs > ours + 1e-9).then_some(w);
    }
    let w = witness(doc, gram, current, false)?;
    // The witness has the stored text as written and the XPath's node does
    // not; a near copy of a long text is nearly as alike by Jaro-Winkler, so
    // no margin is asked on top, but the witness must look at least as much
    // like the target in everything and almost wholly like it.
    let theirs = evidence(doc, gram, &w.targets)?;
    let ours = evidence(doc, gram, current).unwrap_or(0.0);
    (theirs > ours + 1e-9 && theirs >= MIN_WITNESS_EVIDENCE).then_some(w)
}
