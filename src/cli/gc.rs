//! `mend gc`: bound the store. It lets go of the page snapshots and
//! captures the retention does not keep, moves older changes' file copies
//! into the shared, compressed form, deletes what nothing names, and
//! compacts the file (see `mend::store::Retention` for what is kept). It
//! prints what it did and the store's size before and after.
//!
//! It refuses nothing by itself: what a waiting proposal, a pending change
//! or a revert may read is never let go.

use std::process::ExitCode;

use mend::store::{Collected, Retention};

use super::review::{self as cli, StoreArg};

/// Let go of old page snapshots and captures, and compact the store.
#[derive(clap::Args, Debug)]
#[command(after_long_help = cli::STORE_RULE)]
pub struct Args {
    /// Keep the page snapshots of each wrapper's last N runs (and those of
    /// every page a waiting proposal was found on).
    #[arg(long, value_name = "N", default_value_t = Retention::default().runs)]
    keep_runs: u32,
    /// Keep the last N pages `mend snapshot` captured each pattern on.
    #[arg(long, value_name = "N", default_value_t = Retention::default().captures)]
    keep_captures: u32,
    /// Leave the file its size (compacting rewrites it, and waits for no
    /// other mend to use the store).
    #[arg(long)]
    no_compact: bool,
    /// Print what was done as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArg,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (mut store, path) = match cli::open_store(&args.store) {
        Ok(opened) => opened,
        Err(code) => return Ok(code),
    };
    let keep = Retention {
        runs: args.keep_runs,
        captures: args.keep_captures,
    };
    let before = store.size_in_bytes().unwrap_or(0);
    let collected = match store.collect_garbage(keep) {
        Ok(c) => c,
        Err(e) => return Ok(cli::store_failure(&e)),
    };
    let compacted = if args.no_compact {
        None
    } else {
        Some(store.compact())
    };
    let after = store.size_in_bytes().unwrap_or(0);
    if let Some(Err(e)) = &compacted {
        say!(
            "warning: the store was not compacted ({e}); run `mend gc` again when no other mend \
             uses it"
        );
    }
    let compacted = compacted.is_some_and(|c| c.is_ok());
    if args.json {
        out!(
            "{}",
            serde_json::json!({
                "store": path,
                "pages_cleared": collected.pages_cleared,
                "captures_deleted": collected.captures_deleted,
                "copies_moved": collected.copies_moved,
                "snapshots_deleted": collected.snapshots_deleted,
                "compacted": compacted,
                "bytes_before": before,
                "bytes_after": after,
            })
        );
    } else {
        print_summary(&path, &collected, compacted, before, after);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(path: &std::path::Path, c: &Collected, compacted: bool, before: u64, after: u64) {
    out!("store {}", path.display());
    out!(
        "  {} page snapshots and {} captures let go, {} change file copies shared, {} contents deleted",
        c.pages_cleared,
        c.captures_deleted,
        c.copies_moved,
        c.snapshots_deleted
    );
    if compacted {
        out!("  {} bytes before, {} after", before, after);
    } else {
        out!("  {} bytes (not compacted)", after);
    }
}
