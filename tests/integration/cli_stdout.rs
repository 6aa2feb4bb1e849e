//! Every command with its standard output closed before it writes, as
//! `mend approve 1 | head -0` leaves it: no panic, exit code 3 without a
//! word (the reader chose to stop), and whatever the command does besides
//! printing is still done.

use std::path::Path;

use crate::support::cli::{Mend, Run, bookshop_project};

/// Runs `mend ARGS` in `dir` with standard output closed.
fn closed(dir: &Path, args: &[&str]) -> Run {
    Mend::new(args).dir(dir).closed_stdout().output().into()
}

/// Checks that a run with its output closed ended as documented: exit 3,
/// no panic, and no complaint about the closed pipe on standard error.
fn check_closed(run: &Run, args: &[&str]) {
    assert!(
        !run.stderr.contains("panicked"),
        "mend {}: {}",
        args.join(" "),
        run.stderr
    );
    assert!(
        !run.stderr.contains("standard output") && !run.stderr.contains("Broken pipe"),
        "mend {}: a closed pipe is not an error to report: {}",
        args.join(" "),
        run.stderr
    );
    assert_eq!(run.code, 3, "mend {}: {}", args.join(" "), run.stderr);
}

/// The bookshop project, with a file of XPath expressions.
fn project() -> tempfile::TempDir {
    let dir = bookshop_project();
    std::fs::write(dir.path().join("exprs.txt"), "//a\ncount(//li)\n").unwrap();
    dir
}

#[test]
fn approve_into_a_closed_pipe_neither_panics_nor_stops_halfway() {
    let dir = project();
    let dir = dir.path();
    let store = ["--store", "wrappers/.mend/mend.db"];
    let with_store = |args: &[&'static str]| -> Vec<&'static str> {
        args.iter().chain(&store).copied().collect()
    };

    // The commands that change something still do it.
    let snapshot = ["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"];
    check_closed(&closed(dir, &snapshot), &snapshot);
    assert!(dir.join("treegrams/bookshop/book.html").is_file());
    let heal = with_store(&[
        "run",
        "wrappers/bookshop.yaml",
        "pages/bookshop-redesign.html",
        "--heal",
        "propose",
    ]);
    check_closed(&closed(dir, &heal), &heal);
    let listed = Mend::new(&with_store(&["log", "--json"])).dir(dir).output();
    let proposals: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert!(
        proposals.as_array().is_some_and(|a| a.len() >= 2),
        "{proposals}"
    );

    for args in [
        with_store(&["log"]),
        with_store(&["log", "--json"]),
        with_store(&["show", "1"]),
        with_store(&["show", "1", "--json"]),
    ] {
        check_closed(&closed(dir, &args), &args);
    }
    let before = std::fs::read_to_string(dir.join("wrappers/bookshop.yaml")).unwrap();
    let approve = with_store(&["approve", "1"]);
    check_closed(&closed(dir, &approve), &approve);
    let after = std::fs::read_to_string(dir.join("wrappers/bookshop.yaml")).unwrap();
    assert_ne!(before, after, "the approval is written all the same");
    let reject = with_store(&["reject", "2"]);
    check_closed(&closed(dir, &reject), &reject);
    let shown = Mend::new(&with_store(&["show", "2", "--json"]))
        .dir(dir)
        .output();
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["decision"]["verdict"], "rejected", "{shown}");
}

#[test]
fn every_printing_command_ends_with_exit_3_on_a_closed_pipe() {
    let dir = project();
    let dir = dir.path();
    let commands: &[&[&str]] = &[
        &["run", "wrappers/bookshop.yaml", "pages/bookshop.html"],
        &[
            "run",
            "wrappers/bookshop.yaml",
            "pages/bookshop.html",
            "--format",
            "json",
        ],
        &[
            "run",
            "wrappers/bookshop.yaml",
            "pages/bookshop.html",
            "--format",
            "csv",
        ],
        &["validate", "wrappers/bookshop.yaml"],
        &["xpath", "pages/bookshop.html", "//a"],
        &["xpath", "pages/bookshop.html", "//a", "--json"],
        &["xpath", "pages/bookshop.html", "//h1", "--robust"],
        &["xpath", "pages/bookshop.html", "--exprs", "exprs.txt"],
        &[
            "similarity",
            "pages/bookshop.html",
            "pages/bookshop-redesign.html",
            "--algo",
            "ctm",
        ],
        &[
            "similarity",
            "pages/bookshop.html",
            "pages/bookshop-redesign.html",
            "--algo",
            "ctm",
            "--json",
        ],
        &["completions", "bash"],
        &["completions", "zsh"],
        &["completions", "fish"],
        &["--help"],
        &["--version"],
        &["run", "--help"],
    ];
    for args in commands {
        check_closed(&closed(dir, args), args);
    }
}

#[test]
fn a_command_that_prints_nothing_is_not_failed_by_a_closed_pipe() {
    // `mend log` on an empty store prints its note on standard error only.
    let dir = project();
    let dir = dir.path();
    mend::store::Store::open(&dir.join("empty.db")).unwrap();
    let run: Run = Mend::new(&["log", "--store", "empty.db"])
        .dir(dir)
        .closed_stdout()
        .output()
        .into();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("no adaptations"), "{}", run.stderr);
}
