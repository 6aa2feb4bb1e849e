//! `mend approve ID`: accept a proposal and write its XPath to the wrapper.
//!
//! Only a proposal that waits for a person can be approved. The wrapper file
//! the run used is rewritten in place (`wrapper::replace_xpath`: comments,
//! layout and quoting stay; the old XPath goes to the pattern's history),
//! atomically, and only if the pattern still has the XPath the adaptation
//! replaced, unless `--force`. Then the approval is recorded, and the
//! pattern's tree-gram is refreshed from the stored page, so that the next
//! heal starts from what the pattern matches now.

use std::path::Path;
use std::process::ExitCode;

use mend::runtime::{self, write_atomically};
use mend::store::{AdaptationId, AdaptationRecord, AdaptationStatus, Store, Verdict};
use mend::wrapper::{PatternPath, RewriteError, replace_xpath};

use super::review::{self, StoreArg};

/// Approve a proposal: rewrite the wrapper's XPath and record the decision.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
pub struct Args {
    /// The adaptation's id, as `mend log` lists it.
    id: AdaptationId,
    /// Why, for the history.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Rewrite the XPath even if the wrapper file no longer has the XPath
    /// the adaptation replaced.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    store: StoreArg,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    Ok(approve(&args).unwrap_or_else(|code| code))
}

fn approve(args: &Args) -> Result<ExitCode, ExitCode> {
    let (mut store, path) = review::open_store(&args.store)?;
    let record = review::adaptation(&store, &path, args.id)?;
    let new = check_approvable(&record)?;
    let recorded = review::recorded_wrapper_path(&store, &record)?;
    let file = review::wrapper_file(&recorded, &path).map_err(review::failure)?;
    let text = std::fs::read_to_string(&file)
        .map_err(|e| review::failure(format!("cannot read {}: {e}", file.display())))?;
    let wrapper = review::load_wrapper_text(&text, &file).map_err(|diagnostics| {
        say_raw!("{diagnostics}");
        review::bad_input(format!(
            "{} does not load; fix it before approving",
            file.display()
        ))
    })?;
    let names: Vec<&str> = record.pattern.split('/').collect();
    let Some(pattern) = record
        .pattern
        .parse::<PatternPath>()
        .ok()
        .and_then(|path| wrapper.pattern(&path))
    else {
        return Err(review::bad_input(format!(
            "{} has no pattern {} now",
            file.display(),
            record.pattern
        )));
    };
    let current = pattern.xpath.source();

    let rewrite = if current == new {
        println!(
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
    if rewrite {
        let edited = replace_xpath(&text, &names, new).map_err(|e| match e {
            RewriteError::Verification { .. } => review::failure(&e),
            _ => review::bad_input(format!("{}: {e}", file.display())),
        })?;
        write_atomically(&file, &edited).map_err(review::failure)?;
    }
    let decided = review::decide(
        &mut store,
        &path,
        record.id,
        Verdict::Approved,
        args.reason.as_deref(),
    );
    if let Err(code) = decided {
        if rewrite {
            restore(&file, &text);
        }
        return Err(code);
    }
    if rewrite {
        println!(
            "approved adaptation {} of {} in {}: {} now has\n  xpath: {new}\n(the old XPath is \
             kept in the pattern's history)",
            record.id,
            record.pattern,
            record.wrapper,
            file.display()
        );
    } else {
        println!(
            "approved adaptation {} of {} in {}",
            record.id, record.pattern, record.wrapper
        );
    }
    refresh_treegram(&store, &record, &file)
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
             has its XPath; there is nothing to approve (`mend reject {id}` records it as wrong)"
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

/// Puts the wrapper file back as it was, after the approval could not be
/// recorded; says what to do if even that fails.
fn restore(file: &Path, text: &str) {
    match write_atomically(file, text) {
        Ok(()) => say!("note: {} was put back as it was", file.display()),
        Err(e) => say!(
            "error: {} was rewritten but the approval was not recorded, and putting the file \
             back failed too ({e}); revert it by hand",
            file.display()
        ),
    }
}

/// Refreshes the pattern's tree-gram from the stored page, now that the
/// wrapper file has the approved XPath. The approval stands either way; a
/// tree-gram that cannot be refreshed is reported (exit 3 when writing
/// failed) with the command that captures it by hand.
fn refresh_treegram(
    store: &Store,
    record: &AdaptationRecord,
    file: &Path,
) -> Result<ExitCode, ExitCode> {
    let by_hand = format!(
        "`mend snapshot {} PAGE --pattern {}` on a page where it works",
        file.display(),
        record.pattern
    );
    let html = match store.page_html(record.page_id) {
        Ok(Some(html)) => html,
        Ok(None) => {
            say!(
                "note: no snapshot of page {} was kept, so the tree-gram of {} is not refreshed; \
                 run {by_hand}",
                record.page_id,
                record.pattern
            );
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            say!("note: the approval is recorded");
            return Err(review::store_failure(&e));
        }
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
    match runtime::refresh_treegrams(file, &html, url.as_deref(), &[pattern]) {
        Ok(files) if files.is_empty() => {
            say!(
                "note: the new XPath of {} captured no tree-gram on page {}; run {by_hand}",
                record.pattern,
                record.page_id
            );
            Ok(ExitCode::SUCCESS)
        }
        Ok(files) => {
            for written in files {
                println!("refreshed the tree-gram {}", written.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(review::failure(format!(
            "the approval is recorded, but the tree-gram of {} could not be refreshed: {e:#}; \
             run {by_hand}",
            record.pattern
        ))),
    }
}

/// The page's URL, when the run read it from the web; a file path is not one.
fn page_url(url_or_path: &str) -> Option<String> {
    url::Url::parse(url_or_path)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .map(|_| url_or_path.to_owned())
}
