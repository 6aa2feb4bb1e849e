//! The groups of ignored tests, each run by one command that README.md
//! documents and `.ci/run` runs: every `#[ignore = "…"]` test of `tests/`
//! and `src/` belongs to a group by its reason, and its group's command
//! selects it, so that no test is ignored everywhere.

use std::path::Path;

use crate::support::source::rust_files;

/// Each group: the reason its tests give (or begin with), and its command.
const GROUPS: &[(&str, &str)] = &[
    (
        "needs Chromium",
        "cargo test --test integration -- --ignored render:: review_browser:: cli_crawl::render cli_learn::a_url_rendered",
    ),
    (
        "needs PostgreSQL",
        "cargo test --test integration -- --ignored cli_backend::",
    ),
    (
        "slow: kill -9 trials",
        "cargo test --test integration -- --ignored a_crawl_killed_at_random runs_killed_at_random a_run_killed_at_random",
    ),
    (
        "needs strace",
        "cargo test --test integration -- --ignored rename_is_delayed a_persons_save",
    ),
    (
        "needs ../shared/data",
        "cargo test --test integration -- --ignored xpath_conformance:: swde_booksamillion:: generate_ heal_real_pages:: site_template_swde::",
    ),
    (
        "needs ../shared/data",
        "cargo test --test peak_memory -- --ignored",
    ),
];

#[test]
fn every_ignored_test_is_in_a_group_whose_command_runs_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = rust_files(&root.join("tests"), false);
    files.extend(rust_files(&root.join("src"), false));
    let mut ignored = 0;
    let mut lost = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let binary = binary_of(root, file);
        let module = file.file_stem().unwrap().to_string_lossy().into_owned();
        for (reason, name) in ignored_tests(&text) {
            ignored += 1;
            let full = format!("{module}::{name}");
            let runs = GROUPS.iter().any(|(group, command)| {
                reason.starts_with(group) && selects(command, binary.as_deref(), &full)
            });
            if !runs {
                lost.push(format!("{} ({reason:?})", file.display()) + &format!(": {name}"));
            }
        }
    }
    assert!(ignored >= 30, "only {ignored} ignored tests found");
    assert!(
        lost.is_empty(),
        "ignored tests no group's command runs (add them to a group here, in README.md and .ci/run):\n{}",
        lost.join("\n")
    );
}

#[test]
fn each_group_command_is_in_the_readme_and_in_ci() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    for (_, command) in GROUPS {
        assert!(
            readme.contains(command),
            "README.md does not document `{command}`"
        );
        assert!(ci.contains(command), ".ci/run does not run `{command}`");
    }
}

/// The test binary of an integration-test file (`tests/integration/x.rs`
/// is `integration`, `tests/peak_memory.rs` is `peak_memory`); `None` for a
/// file of `src`, whose tests are the library's.
fn binary_of(root: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(root.join("tests")).ok()?;
    let first = rel
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    Some(first.trim_end_matches(".rs").to_owned())
}

/// Whether `command` runs the test `full` (`module::name`) of `binary`:
/// its `--test` is that binary, and one of its filters is in the name (or
/// it has none).
fn selects(command: &str, binary: Option<&str>, full: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let target = words
        .iter()
        .position(|w| *w == "--test")
        .map(|i| words[i + 1]);
    if target.is_some() && target != binary {
        return false;
    }
    let filters: Vec<&&str> = match words.iter().position(|w| *w == "--ignored") {
        Some(i) => words[i + 1..]
            .iter()
            .filter(|w| !w.starts_with('-'))
            .collect(),
        None => Vec::new(),
    };
    filters.is_empty() || filters.iter().any(|f| full.contains(**f))
}

/// The `(reason, function name)` of each `#[ignore = "…"]` test in `text`.
fn ignored_tests(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix("#[ignore = \"") else {
            continue;
        };
        let reason = rest.split('"').next().unwrap_or("").to_owned();
        let name = lines[i + 1..]
            .iter()
            .find_map(|l| {
                let l = l.trim().trim_start_matches("async ");
                l.strip_prefix("fn ")
                    .map(|f| f.split('(').next().unwrap_or("").to_owned())
            })
            .unwrap_or_default();
        out.push((reason, name));
    }
    out
}
