//! What a test needs from the machine beyond a Rust toolchain: Chromium,
//! PostgreSQL's binaries, strace, `../shared/data`. Such a test is marked
//! `#[ignore = "needs …"]`, so that the README's `cargo test` reports it
//! ignored, never passed; `.ci/run` runs the ignored groups, one command
//! each (README, "Tests").
//!
//! A test run with `--ignored` on a machine without what it needs says so
//! on standard error and returns, unless it runs under CI (`CI` set, as CI
//! services and `.ci/run` set it, or the `MEND_REQUIRE_*` variable of what
//! is missing): there a skip is a failure, since CI installs everything.

use std::io::Write as _;
use std::path::PathBuf;

/// The Chromium to test with: `MEND_CHROMIUM`, else one on `PATH`. Without
/// one the test is skipped (see [`skip`]).
pub fn chromium(test: &str) -> Option<PathBuf> {
    let found = mend::render::find_chromium();
    if found.is_none() {
        skip(
            test,
            "MEND_REQUIRE_CHROMIUM",
            "no Chromium (install the chromium package or set MEND_CHROMIUM)",
        );
    }
    found
}

/// Whether a test must not be skipped for want of what `require` (a
/// `MEND_REQUIRE_*` variable) names: under CI, or where it is set.
pub fn required(require: &str) -> bool {
    let under_ci =
        std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    under_ci || std::env::var_os(require).is_some()
}

/// Says that `test` is skipped for `why` and returns; fails instead where
/// it is [`required`].
pub fn skip(test: &str, require: &str, why: &str) {
    assert!(
        !required(require),
        "{test}: {why}, and CI must not skip a test (CI or {require} is set)"
    );
    // Written to the stream itself, since the test harness captures
    // `eprintln!`, and in one piece, since the harness writes its own lines
    // to the terminal at the same time.
    let line = format!("{test}: skipped: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// The library's own rule for how many cases a property test runs
/// (`src/testing.rs`), read from the one file so that both kinds of test
/// scale alike.
#[path = "../../src/testing.rs"]
mod testing;

/// The cases a property test runs: `full` under CI (or with
/// `MEND_FULL_PROPERTIES`), a quarter of it (16 at the least) otherwise, and
/// `N` times `full` with `MEND_PROPERTY_SCALE=N`, as the library's
/// properties do.
pub fn property_cases(full: u32) -> u32 {
    testing::cases(full)
}
