//! The healing runtime: a wrapper run over pages with healing, as a library.
//!
//! The pure core decides (`extract` finds what broke, `adapt` finds it
//! again); this module does what a run needs around those decisions, so that
//! the command line only parses arguments and prints:
//!
//! - the project directory, where tree-grams live beside the wrappers, and
//!   atomic writes of the files in it (`project.rs`);
//! - tree-grams in memory: loaded once per run, captured and planned for
//!   saving after a heal, a snapshot or an approval (`treegrams.rs`);
//! - the store session of a run: opened on the first page that needs it,
//!   each page and its adaptations recorded in one transaction
//!   (`session.rs`);
//! - the wrapper-change protocol: the lock on a wrapper file, the journal of
//!   each change in the store, the files written and synced, and unfinished
//!   changes reconciled (`lock.rs`, `change.rs`); every change to a wrapper
//!   or a tree-gram goes through it;
//! - heals decided elsewhere (a crawl job's workers) merged into the
//!   wrapper file through the same protocol (`merge.rs`);
//! - hardening: brittle XPaths replaced by robust members of their locator
//!   ensembles, proven on several pages and written as one change with the
//!   tree-grams (`harden.rs`);
//! - field health: a run's statistics judged against the baselines in the
//!   store and recorded with the run, a snapshot's recorded as the baseline
//!   (`health.rs`);
//! - the per-page decision: which pages heal, what the mode makes of each
//!   adaptation, the wrapper file rewritten in `auto` mode, and the one
//!   shape of an adaptation that both the store and the output are made from
//!   (`healer.rs`, `adaptation.rs`).
//!
//! It reads the clock (capture and record times) and touches files and the
//! store; it refuses to print: failures are returned as [`RuntimeError`]s for
//! the caller to explain.

mod adaptation;
mod change;
mod clock;
mod decided_heal;
mod error;
mod harden;
mod healer;
mod health;
mod in_memory;
mod ledger;
mod lock;
mod merge;
mod project;
mod session;
mod templates;
mod treegrams;

#[cfg(test)]
mod change_tests;
#[cfg(test)]
mod tests;

pub use adaptation::RunAdaptation;
pub use change::{
    Carried, MAX_SAVES_MEANWHILE, Reconciled, carry_out, make_change, read_current, reconcile,
    reconcile_all,
};
pub use clock::now;
pub use decided_heal::DecidedHeal;
pub use error::RuntimeError;
pub use harden::{
    HardenPlan, HardenWritten, Hardened, LeftAlone, choose_hardenings, save_hardened,
};
pub use healer::{Runtime, SERVED_SAMPLE};
pub use health::{
    BASELINE_RUNS, RunHealth, judge_run_health, judge_runtime_health, record_health_baseline,
};
pub use in_memory::{BatchRun, run_batch};
pub use ledger::EXAMPLE_PAGES;
pub use lock::{WrapperLock, remove_stale_temp_files};
pub use merge::{Decided, Merged, RecordedHeal, merge_decided};
pub use project::{
    Project, Replaced, Staged, replace_if_unchanged, stage_files, write_atomically,
    write_bytes_atomically,
};
pub use session::Session;
pub use templates::{
    CaptureMarks, MAX_TEMPLATE_BYTES, SITE_TEMPLATE_NAME, UNSTABLE_TEMPLATE_NAME, learn_template,
    load_site_template, load_unstable_template, save_learned, save_site_template,
    site_template_file, unstable_template_file,
};
pub use treegrams::{
    MAX_TREEGRAM_BYTES, Planned, Written, capture_treegrams, capture_treegrams_across,
    load_treegrams, plan_treegrams, save_treegrams,
};
