//! What the library's tests share across modules.
//!
//! ## What it refuses
//!
//! It is compiled only for tests: the library's unit tests, and the
//! integration tests, whose support module reads this file (`#[path]`) so
//! that their properties scale as the library's do. `CI` or
//! `MEND_FULL_PROPERTIES` counts as set unless empty, `0` or `false`;
//! without `MEND_PROPERTY_SCALE`, [`cases`] never gives more than `full`,
//! nor fewer than 16 unless `full` itself is fewer. A scale that is not a
//! whole number from 1 up is ignored.

/// The cases a property test runs: `full` under CI (`CI` set, as `.ci/run`
/// and CI services set it, or `MEND_FULL_PROPERTIES`), a quarter of it (16
/// at the least) otherwise, so that the README's `cargo test` stays quick
/// while CI runs every property at its full count. `MEND_PROPERTY_SCALE=N`
/// runs `N` times the full count, to hunt the rare input that a CI run
/// would otherwise meet first (a property's inputs are drawn anew on every
/// run).
pub(crate) fn cases(full: u32) -> u32 {
    let set = |name: &str| {
        std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
    };
    let scale = std::env::var("MEND_PROPERTY_SCALE")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|&n| n >= 1);
    if let Some(scale) = scale {
        full.saturating_mul(scale)
    } else if set("CI") || set("MEND_FULL_PROPERTIES") {
        full
    } else {
        (full / 4).max(16).min(full)
    }
}
