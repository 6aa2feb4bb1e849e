//! What the library's tests share across modules.
//!
//! ## What it refuses
//!
//! It is compiled only for the library's unit tests. `CI` or
//! `MEND_FULL_PROPERTIES` counts as set unless empty, `0` or `false`;
//! [`cases`] never gives more than `full`, nor fewer than 16 unless `full`
//! itself is fewer.

/// The cases a property test runs: `full` under CI (`CI` set, as `.ci/run`
/// and CI services set it, or `MEND_FULL_PROPERTIES`), a quarter of it (16
/// at the least) otherwise, so that the README's `cargo test` stays quick
/// while CI runs every property at its full count.
pub(crate) fn cases(full: u32) -> u32 {
    let set = |name: &str| {
        std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
    };
    if set("CI") || set("MEND_FULL_PROPERTIES") {
        full
    } else {
        (full / 4).max(16).min(full)
    }
}
