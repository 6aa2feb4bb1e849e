//! Helpers shared by the modules of the integration-test binary
//! (`tests/integration/main.rs`). `counting_alloc.rs` is not among them: it
//! belongs to `tests/peak_memory.rs` (and the `peak_memory` example), which
//! install it as their global allocator; `heal_cases.rs` is also read by the
//! `heal_eval` example; `fixture_site` (kept in `tests/fixture_site/`) is
//! also served by the `fixture_site` example.

pub mod cli;
pub mod documents;
// The site's API serves the crawl tests as well; not every part of it is used
// by this binary's own tests.
#[allow(dead_code, unused_imports)]
#[path = "../fixture_site/mod.rs"]
pub mod fixture_site;
pub mod heal_cases;
pub mod needs;
pub mod postgres;
pub mod random_html;
pub mod rng;
pub mod source;
