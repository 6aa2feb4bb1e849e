//! mend: a self-healing web wrapper runtime.
//!
//! The pure core (`dom`, `xpath`, `similarity`, `wrapper`, `treegram`,
//! `site_template`, `unstable`, `extract`, `adapt`, `health`, `site`) does
//! no I/O, no async and reads no clock; `fetch`, `render`, `crawl`, `job`, `store`, `runtime`, `review`
//! and the command line sit on top.
//!
//! ## What it refuses
//!
//! No module holds unsafe code: the crate forbids it. The pure core does no
//! I/O and reads no clock or environment, and uses none of the modules
//! above it (`tests/integration/core_purity.rs` checks its source). No
//! module installs a `tracing` subscriber, which is the binary's, and
//! `testing` is compiled for tests only.

#![forbid(unsafe_code)]

pub mod adapt;
pub mod cluster;
pub mod crawl;
pub mod css;
pub mod dom;
pub mod extract;
pub mod fetch;
pub mod health;
pub mod job;
pub mod render;
pub mod review;
pub mod runtime;
pub mod similarity;
pub mod site;
pub mod site_template;
pub mod store;
pub mod treegram;
pub mod unstable;
pub mod wrapper;
pub mod xpath;

#[cfg(test)]
mod testing;

pub use dom::{Document, NodeId};
pub use wrapper::Wrapper;
pub use xpath::{Item, Value, XPath};
