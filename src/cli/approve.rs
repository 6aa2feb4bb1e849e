//! `mend approve ID...`: accept proposals and write their XPaths to the
//! wrapper; `--pending` or `--pattern PATH` approves every waiting proposal
//! (of one pattern), oldest first, each on its own.
//!
//! Only a proposal that waits for a person can be approved. The wrapper file
//! the run used (its canonical path, as the store recorded it, and only if
//! it is still the wrapper of that name, unless `--wrapper PATH`) is
//! rewritten in place (`wrapper::replace_xpath`: comments, layout and
//! quoting stay; the old XPath goes to the pattern's history), and only if
//! the pattern still has the XPath the adaptation replaced, unless
//! `--force`. The pattern's tree-gram is refreshed from the stored page in
//! the same change. The rewrite and the approval are one change of the
//! wrapper-change protocol (`mend::runtime`): locked, journaled in the store,
//! so that two approvals of one id cannot both win, and the file and the
//! store never disagree.

use std::path::Path;
use std::process::ExitCode;

use mend::dom::Document;
use mend::runtime::{self, Carried, Planned, Project, RuntimeError, WrapperLock};
use mend::store::{
    AdaptationId, AdaptationRecord, AdaptationStatus, ChangeKind, FileChange, Store, StoreError,
};
use mend::wrapper::{PatternPath, RewriteError, replace_xpath};

use super::review::{self, StoreArg, WrapperArg};

/// Approve a proposal: rewrite the wrapper's XPath and record the decision.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
pub struct Args {
    #[command(flatten)]
    targets: review::Targets,
    /// Why, for the history.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Rewrite the XPath even if the wrapper file no longer has the XPath
    /// the adaptation replaced.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    wrapper: WrapperArg,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    Ok(review::for_each_target(
        &args.store,
        &args.targets,
        "approve",
        |store, path, id| approve(&args, store, path, id),
    ))
}

fn approve(
    args: &Args,
    store: &mut Store,
    path: &Path,
    id: AdaptationId,
) -> Result<ExitCode, ExitCode> {
    let record = review::adaptation(store, path, id)?;
    check_approvable(&record)?;
    let file = review::wrapper_of(store, &record, path, args.wrapper.wrapper.as_deref())?;
    // The wrapper-change protocol: the lock is held from the moment the
    // file is read until the change is done, and an earlier change left
    // unfinished is settled first.
    let lock = WrapperLock::acquire(&file).map_err(review::failure)?;
    if let Err(e) = runtime::reconcile(store, &lock) {
        return Err(review::failure(e));
    }
    // Read again under the lock: another `mend approve` may have decided it
    // while this one waited.
    let record = review::adaptation(store, path, id)?;
    let new = check_approvable(&record)?.to_owned();
    let text = std::fs::read_to_string(&file)
        .map_err(|e| review::failure(format!("cannot read {}: {e}", file.display())))?;
    let wrapper = review::load_wrapper_text(&text, &file).map_err(|diagnostics| {
        say_raw!("{diagnostics}");
        review::bad_input(format!(
            "{} does not load; fix it before approving",
            file.display()
        ))
    })?;
    review::check_wrapper_name(&wrapper, &record, &file, args.wrapper.wrapper.is_some())?;
    let names: Vec<&str> = record.pattern.split('/').collect();
    let current = review::current_xpath(&wrapper, &record, &file)?;

    let rewrite = if current == new {
        out!(
            "note: {} already has the new XPath for {}; recording the approval only",
            file.display(),
            record.pattern
        );
        false
    } else if current != record.old_xpath && !args.force {
        return Err(review::bad_input(format!(
            "{} has changed since adaptation {}: the XPath of {} is now\n  {current}\nnot the \
             adaptation's old XPath\n  {}\nsee `mend show {}`, and pass --force to replace it \
             anyway",
            file.display(),
            record.id,
            record.pattern,
            record.old_xpath,
            record.id
        )));
    } else {
        true
    };
    let mut edited = text.clone();
    if rewrite {
        edited = replace_xpath(&text, &names, &new).map_err(|e| match e {
            RewriteError::Verification { .. } => review::failure(&e),
            _ => review::bad_input(format!("{}: {e}", file.display())),
        })?;
    }
    // The pattern's tree-gram is refreshed from the stored page in the same
    // change, so that the next heal starts from what the pattern matches now.
    let refreshed = refresh_treegram(store, &record, &file, &mut edited)?;
    let mut files = refreshed.files.clone();
    files.push(FileChange {
        path: lock.wrapper().to_owned(),
        before: Some(text.clone().into_bytes()),
        after: edited.into_bytes(),
    });
    let id = record.id;
    let reason = args.reason.as_deref();
    // Proposals of the same XPath that an earlier mend recorded one per page
    // are approved with it, so that none is left waiting.
    let twins = store
        .pending_twins(id)
        .map_err(|e| review::store_failure(&e))?;
    let twin_reason = format!("the same XPath as adaptation {id}, approved with it");
    let made = runtime::make_change(
        store,
        &lock,
        ChangeKind::Approve,
        &files,
        |batch, change| {
            let decision = batch.approve_in_change(id, reason, review::now(), change)?;
            for twin in &twins {
                batch.approve_in_change(*twin, Some(&twin_reason), review::now(), change)?;
            }
            Ok(decision)
        },
    );
    match made {
        Ok((_, Carried::Done)) => {}
        Ok((_, Carried::Unmarked(e))) => say!("warning: {e}"),
        Err(RuntimeError::Store {
            error: e @ (StoreError::AlreadyDecided { .. } | StoreError::NotProposed { .. }),
            ..
        }) => return Err(review::bad_input(e)),
        Err(e) => {
            return Err(review::failure(format!(
                "{e}; the approval is not recorded and {} is as it was",
                file.display()
            )));
        }
    }
    drop(lock);
    if rewrite {
        out!(
            "approved adaptation {} of {} in {}: {} now has\n  xpath: {new}\n(the old XPath is \
             kept in the pattern's history)",
            record.id,
            record.pattern,
            record.wrapper,
            file.display()
        );
    } else {
        out!(
            "approved adaptation {} of {} in {}",
            record.id,
            record.pattern,
            record.wrapper
        );
    }
    if !twins.is_empty() {
        let list: Vec<String> = twins.iter().map(ToString::to_string).collect();
        out!("approved with it: {} (the same XPath)", list.join(", "));
    }
    for (written, _) in &refreshed.captured {
        out!("refreshed the tree-gram {}", written.display());
    }
    if let Some(note) = refreshed_note(&record, &file, &refreshed) {
        say!("{note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The new XPath of a proposal that waits for a person; any other
/// adaptation is explained and refused with exit 2.
fn check_approvable(record: &AdaptationRecord) -> Result<&str, ExitCode> {
    let id = record.id;
    if let Some(decision) = &record.decision {
        return Err(review::bad_input(format!(
            "adaptation {id} was already {} at {}; a decision is not changed",
            decision.verdict, decision.decided_at
        )));
    }
    let refusal = match record.status {
        AdaptationStatus::Proposed => None,
        AdaptationStatus::Applied => Some(format!(
            "adaptation {id} was applied by the run (auto mode), so the wrapper file already \
             has its XPath; there is nothing to approve (`mend revert {id}` takes it back out, \
             `mend reject {id}` does that and records it as wrong)"
        )),
        AdaptationStatus::Abstained => Some(format!(
            "adaptation {id} abstained: it found no XPath, so there is nothing to approve"
        )),
        AdaptationStatus::Rejected => Some(format!(
            "adaptation {id} was refused by the run{}, so it cannot be approved",
            record
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        )),
    };
    if let Some(refusal) = refusal {
        return Err(review::bad_input(refusal));
    }
    record
        .new_xpath
        .as_deref()
        .ok_or_else(|| review::failure(format!("proposal {id} has no new XPath")))
}

/// The tree-gram of the record's pattern, captured from the stored page
/// with the wrapper as `text` has it (the `treegram:` key set in `text`);
/// nothing when no snapshot of the page was kept or the new XPath captures
/// nothing there ([`refreshed_note`] says so).
fn refresh_treegram(
    store: &Store,
    record: &AdaptationRecord,
    file: &Path,
    text: &mut String,
) -> Result<Planned, ExitCode> {
    let html = match store.page_html(record.page_id) {
        Ok(Some(html)) => html,
        Ok(None) => return Ok(Planned::default()),
        Err(e) => return Err(review::store_failure(&e)),
    };
    let url = match store.page(record.page_id) {
        Ok(Some(page)) => page_url(&page.url_or_path),
        _ => None,
    };
    let Ok(pattern) = record.pattern.parse::<PatternPath>() else {
        return Err(review::failure(format!(
            "the store names the pattern {:?}, which is not a pattern path",
            record.pattern
        )));
    };
    let wrapper = review::load_wrapper_text(text, file).map_err(|d| {
        say_raw!("{d}");
        review::failure("the rewritten wrapper does not load")
    })?;
    let doc = Document::parse(&html);
    let (captured, skipped) =
        runtime::capture_treegrams(&wrapper, &doc, &html, url.as_deref(), Some(&[pattern]));
    for s in &skipped {
        tracing::warn!(pattern = %s.pattern, reason = %s.reason, "no tree-gram refreshed");
    }
    runtime::plan_treegrams(&Project::of(file), text, captured).map_err(review::failure)
}

/// What to tell a person whose approval refreshed no tree-gram: the command
/// that captures it by hand.
fn refreshed_note(record: &AdaptationRecord, file: &Path, refreshed: &Planned) -> Option<String> {
    if !refreshed.captured.is_empty() {
        return None;
    }
    Some(format!(
        "note: the tree-gram of {} is not refreshed (no snapshot of page {} was kept, or the \
         new XPath captures nothing there); run `mend snapshot {} PAGE --pattern {}` on a page \
         where it works",
        record.pattern,
        record.page_id,
        file.display(),
        record.pattern
    ))
}

/// The page's URL, when the run read it from the web; a file path is not one.
fn page_url(url_or_path: &str) -> Option<String> {
    url::Url::parse(url_or_path)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .map(|_| url_or_path.to_owned())
}
