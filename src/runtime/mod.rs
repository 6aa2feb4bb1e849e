//! The healing runtime: a wrapper run over pages with healing, as a library.
//!
//! The pure core decides (`extract` finds what broke, `adapt` finds it
//! again); this module does what a run needs around those decisions, so that
//! the command line only parses arguments and prints:
//!
//! - the project directory, where tree-grams live beside the wrappers, and
//!   atomic writes of the files in it (`project.rs`);
//! - tree-grams in memory: loaded once per run, captured and saved after a
//!   snapshot or an approval (`treegrams.rs`);
//! - the store session of a run: opened on the first page that needs it,
//!   each page and its adaptations recorded in one transaction
//!   (`session.rs`);
//! - the per-page decision: which pages heal, what the mode makes of each
//!   adaptation, the wrapper file rewritten in `auto` mode, and the one
//!   shape of an adaptation that both the store and the output are made from
//!   (`healer.rs`, `adaptation.rs`).
//!
//! It reads the clock (capture and record times) and touches files and the
//! store; it refuses to print: failures are returned as [`RuntimeError`]s for
//! the caller to explain.

mod adaptation;
mod error;
mod healer;
mod project;
mod session;
mod treegrams;

#[cfg(test)]
mod tests;

pub use adaptation::RunAdaptation;
pub use error::RuntimeError;
pub use healer::Runtime;
pub use project::{Project, write_atomically};
pub use session::Session;
pub use treegrams::{
    MAX_TREEGRAM_BYTES, Written, capture_treegrams, load_treegrams, refresh_treegrams,
    save_treegrams,
};
