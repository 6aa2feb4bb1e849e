//! The PostgreSQL backend: crawl jobs whose frontier, politeness, records
//! and healing state live in PostgreSQL, worked on by any number of
//! stateless workers (`mend worker`), on one machine or many.
//!
//! The crawl's two functions (*NewCrawl*, *UpdateCrawl*) depend on their
//! arguments only; distributing them is a matter of where their state
//! lives. Here it lives in these tables (`migrations/postgres/`):
//!
//! - `mend_jobs`: the job, with the wrapper's text, tree-grams and store
//!   image, versioned, so a worker needs nothing but the connection string;
//! - `mend_frontier`: every URL met, leased with `FOR UPDATE SKIP LOCKED`
//!   (`queue.rs`), a lease that runs out making its URL available again;
//! - `mend_hosts`: per-host delay, concurrency, robots.txt and count of
//!   queued URLs, the same for all workers;
//! - `mend_records`: one output line per item page, keyed by URL, written
//!   in the transaction that acknowledges the page, so none is lost or
//!   written twice;
//! - `mend_heal_pages`: each item page's verdict on the heals of a pattern
//!   that broke on it, so that a heal is decided once, over pages counted
//!   across workers (`decision.rs`, `healing.rs`);
//! - `mend_adaptations` and `mend_workers`: what was healed, and by whom;
//!   a worker's row also holds its tokens of the page budget.
//!
//! Pages are rendered in a browser as the job's `render` mode says, each
//! worker with a browser of its own; in `auto` mode each page is decided on
//! its own, and the votes of each URL shape's rendered pages (did rendering
//! help?) are kept in `mend_render_shapes` for every worker.
//!
//! Records are kept as NDJSON lines and exported in URL order, as NDJSON
//! byte for byte, or read back and written as CSV or SQLite through the
//! local crawl's sink. Images of the `media` rule are downloaded once per
//! URL by whichever worker meets them first, kept by content in
//! `mend_media_files`, and written beside the output on export.
//!
//! A worker refuses a job whose wrapper renders pages when it has no
//! browser, and writes a page's record only while the page's lease is its
//! own, so that a page whose lease ran out is written once, by the worker
//! that holds it.

mod citation;
mod credentials;
mod database;
mod decision;
mod end;
mod error;
mod healing;
mod home;
mod job;
mod prepare;
mod queue;
mod status;
mod worker;

pub use citation::{Citation, Citations};
pub use credentials::redact;
pub use database::{Listener, MIGRATIONS, connect, listen, migrate, open};
pub use decision::kept_pages;
pub use end::{JobEnd, Output, end_job};
pub use error::BackendError;
pub use healing::{StoreImage, store_image};
pub use home::{Homecoming, bring_home, citations, citations_now};
pub use job::{
    Exported, Job, JobSpec, export, export_media, export_to_sink, find, load, newest, submit,
    try_finish,
};
pub use prepare::JobRequest;
pub use queue::{
    ACK_BATCH, Ack, Claim, LEASE_BATCH, Lease, MAX_ATTEMPTS, QueueClient, acknowledge,
    acknowledge_all, claim, reclaim, register, renew, return_tokens,
};
pub use status::{JobHeal, JobHeals, JobStatus, WorkerStatus, heals, status};
pub use worker::{LaunchRenderer, WorkerOptions, WorkerSummary, work};
