//! Approving a proposal: its XPath written to the wrapper file, the
//! pattern's tree-gram refreshed, and the approval recorded, as one change
//! of the wrapper-change protocol.
//!
//! ## What it refuses
//!
//! Only a proposal that waits for a person is approved: one decided
//! already, applied by a run, abstained or refused by the run is refused,
//! and nothing is changed. So is a wrapper file that does not load, holds
//! another wrapper (unless named), lacks the pattern, or gives it an XPath
//! that is neither the adaptation's old nor its new one (unless forced). A
//! save that lands during the change is met by making it again, at most
//! [`MAX_SAVES_MEANWHILE`](crate::runtime::MAX_SAVES_MEANWHILE) times.

use std::path::{Path, PathBuf};

use super::{
    Action, Changed, DecisionOptions, ReviewError, adaptation, change, check_wrapper_name,
    current_xpath, load_wrapper_text, wrapper_of,
};
use crate::dom::Document;
use crate::runtime::{self, Planned, Project, RuntimeError};
use crate::store::{
    AdaptationId, AdaptationRecord, AdaptationStatus, ChangeKind, FileChange, Store,
};
use crate::wrapper::{PatternPath, replace_xpath};

/// What an approval did.
#[derive(Debug)]
pub struct Approved {
    /// The adaptation, as it was read before the approval.
    pub record: AdaptationRecord,
    /// The wrapper file.
    pub file: PathBuf,
    /// The XPath the pattern has now.
    pub new_xpath: String,
    /// Whether the pattern's XPath was rewritten: not when the file held
    /// the new XPath already, and the approval alone was recorded.
    pub rewritten: bool,
    /// The proposals of the same XPath that an earlier mend recorded one
    /// per page, approved with it.
    pub twins: Vec<AdaptationId>,
    /// The tree-gram files refreshed from the stored page.
    pub refreshed: Vec<PathBuf>,
    /// When the file named in place of the run's is another wrapper: that
    /// it was changed as asked.
    pub wrapper_note: Option<String>,
    /// When no tree-gram was refreshed: why, and the command that captures
    /// it by hand.
    pub treegram_note: Option<String>,
    /// The files are written, but the change could not be marked done in
    /// the store (the next command completes it).
    pub unmarked: Option<RuntimeError>,
}

/// Approves proposal `id` of `store` (opened from `store_path`), as of
/// `options.now`.
///
/// Only a proposal that waits for a person is approved. The wrapper file
/// the run used (or `options.wrapper`) is rewritten in place with the
/// format-preserving rewrite (comments, layout and quoting stay; the old
/// XPath goes to the pattern's history), and only if the pattern still has
/// the XPath the adaptation replaced, unless `options.force`. The pattern's
/// tree-gram is refreshed from the stored page in the same change. The
/// rewrite and the approval are one change of the wrapper-change protocol:
/// locked and journaled, so that two approvals of one id cannot both win,
/// and the file and the store never disagree.
pub fn approve(
    store: &mut Store,
    store_path: &Path,
    id: AdaptationId,
    options: &DecisionOptions<'_>,
) -> Result<Approved, ReviewError> {
    let record = adaptation(store, store_path, id)?;
    approvable(&record)?;
    let file = wrapper_of(store, &record, store_path, options.wrapper)?;
    let lock = change::lock(store, &file)?;
    // Read again under the lock: another approval may have decided it while
    // this one waited.
    let record = adaptation(store, store_path, id)?;
    let new = approvable(&record)?.to_owned();
    // A person's save may land between the read and the rename (an editor
    // takes no lock): the change is then rolled back with the save kept, and
    // made again from the file as saved, where the pattern still has the
    // XPath the adaptation replaced; otherwise it is refused as changed.
    let mut saves = 0;
    let (made, rewritten, refreshed, twins, wrapper_note) = loop {
        let (text, wrapper) = change::read(&file, Action::Approve)?;
        let wrapper_note = check_wrapper_name(&wrapper, &record, &file, options.wrapper.is_some())?;
        let current = current_xpath(&wrapper, &record, &file)?;
        let rewritten = current != new;
        if rewritten && current != record.old_xpath && !options.force {
            return Err(ReviewError::ChangedSinceAdaptation(Box::new(Changed {
                file,
                id,
                pattern: record.pattern.clone(),
                current: current.to_owned(),
                new,
                old: record.old_xpath.clone(),
            })));
        }
        let mut edited = if rewritten {
            let names: Vec<&str> = record.pattern.split('/').collect();
            replace_xpath(&text, &names, &new).map_err(|e| ReviewError::rewrite(&file, e))?
        } else {
            text.clone()
        };
        // The pattern's tree-gram is refreshed from the stored page in the
        // same change, so that the next heal starts from what the pattern
        // matches now.
        let mut refreshed = refresh_treegram(store, &record, &file, &mut edited)?;
        let mut files = std::mem::take(&mut refreshed.files);
        files.push(FileChange {
            path: lock.wrapper().to_owned(),
            before: Some(text.into_bytes()),
            after: edited.into_bytes(),
        });
        // Proposals of the same XPath that an earlier mend recorded one per
        // page are approved with it, so that none is left waiting.
        let twins = store.pending_twins(id)?;
        let twin_reason = format!("the same XPath as adaptation {id}, approved with it");
        let made = runtime::make_change(
            store,
            &lock,
            ChangeKind::Approve,
            &files,
            |batch, change| {
                batch.approve_in_change(id, options.reason, options.now, change)?;
                for twin in &twins {
                    batch.approve_in_change(*twin, Some(&twin_reason), options.now, change)?;
                }
                Ok(())
            },
        );
        match made {
            Err(RuntimeError::EditedMeanwhile { .. }) if saves < runtime::MAX_SAVES_MEANWHILE => {
                saves += 1;
            }
            made => break (made, rewritten, refreshed, twins, wrapper_note),
        }
    };
    let ((), unmarked) = change::made(made, &file, Action::Approve)?;
    drop(lock);
    let refreshed: Vec<PathBuf> = refreshed.captured.into_iter().map(|(p, _)| p).collect();
    let treegram_note = refreshed.is_empty().then(|| {
        format!(
            "the tree-gram of {} is not refreshed (no snapshot of page {} was kept, or the new \
             XPath captures nothing there); run `mend snapshot {} PAGE --pattern {}` on a page \
             where it works",
            record.pattern,
            record.page_id,
            file.display(),
            record.pattern
        )
    });
    Ok(Approved {
        record,
        file,
        new_xpath: new,
        rewritten,
        twins,
        refreshed,
        wrapper_note,
        treegram_note,
        unmarked,
    })
}

/// The new XPath of a proposal that waits for a person; any other
/// adaptation is refused with the reason.
fn approvable(record: &AdaptationRecord) -> Result<&str, ReviewError> {
    let id = record.id;
    if let Some(decision) = &record.decision {
        return Err(ReviewError::AlreadyDecided {
            id,
            verdict: decision.verdict,
            at: decision.decided_at,
            action: Action::Approve,
        });
    }
    match record.status {
        AdaptationStatus::Proposed => {}
        AdaptationStatus::Applied => return Err(ReviewError::AppliedByRun { id }),
        AdaptationStatus::Abstained => {
            return Err(ReviewError::Abstained {
                id,
                action: Action::Approve,
            });
        }
        AdaptationStatus::Rejected => {
            return Err(ReviewError::RefusedByRun {
                id,
                reason: record.reason.clone(),
                action: Action::Approve,
            });
        }
    }
    record
        .new_xpath
        .as_deref()
        .ok_or(ReviewError::NoNewXPath { id })
}

/// The tree-gram of the record's pattern, captured from the stored page
/// with the wrapper as `text` has it (the `treegram:` key set in `text`);
/// nothing when no snapshot of the page was kept or the new XPath captures
/// nothing there.
fn refresh_treegram(
    store: &Store,
    record: &AdaptationRecord,
    file: &Path,
    text: &mut String,
) -> Result<Planned, ReviewError> {
    let Some(html) = store.page_html(record.page_id)? else {
        return Ok(Planned::default());
    };
    let url = match store.page(record.page_id) {
        Ok(Some(page)) => page_url(&page.url_or_path),
        _ => None,
    };
    let Ok(pattern) = record.pattern.parse::<PatternPath>() else {
        return Err(ReviewError::BadPatternPath {
            pattern: record.pattern.clone(),
        });
    };
    let wrapper = load_wrapper_text(text, file)
        .map_err(|diagnostics| ReviewError::RewrittenDoesNotLoad { diagnostics })?;
    let doc = Document::parse(&html);
    // The other pages the proposal stands for, as far as the store kept
    // them, tell what varies from page to page (`treegram::Across`), as a
    // run's own refresh learns it.
    let mut others = Vec::new();
    for page in store.adaptation_pages(record.id)? {
        if others.len() + 1 >= runtime::EXAMPLE_PAGES {
            break;
        }
        if page != record.page_id
            && let Some(bytes) = store.page_html(page)?
        {
            others.push(Document::parse(&bytes));
        }
    }
    let others: Vec<&Document> = others.iter().collect();
    // What the wrapper learned about its pages stays marked in the new tree-gram.
    let project = Project::of(file);
    let marks = runtime::CaptureMarks::of(&project, &wrapper, &doc)?;
    let (captured, skipped) = runtime::capture_treegrams_across(
        &wrapper,
        &doc,
        &others,
        &html,
        url.as_deref(),
        Some(&[pattern]),
        &marks,
    );
    for s in &skipped {
        tracing::warn!(pattern = %s.pattern, reason = %s.reason, "no tree-gram refreshed");
    }
    Ok(runtime::plan_treegrams(&project, text, captured)?)
}

/// The page's URL, when the run read it from the web; a file path is not one.
fn page_url(url_or_path: &str) -> Option<String> {
    url::Url::parse(url_or_path)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .map(|_| url_or_path.to_owned())
}
