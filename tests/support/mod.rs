//! Helpers shared by the modules of the integration-test binary
//! (`tests/integration/main.rs`). `counting_alloc.rs` is not among them: it
//! belongs to `tests/peak_memory.rs` (and the `peak_memory` example), which
//! install it as their global allocator; `heal_cases.rs` is also read by the
//! `heal_eval` example.

pub mod cli;
pub mod documents;
pub mod heal_cases;
pub mod random_html;
pub mod rng;
