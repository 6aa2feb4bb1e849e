//! The differential conformance test against lxml (see
//! `tests/xpath_conformance/README.md`), run through `cargo test -- --ignored`
//! where the shared data folder and Python with lxml and html5lib are present.

use std::process::Command;

#[test]
#[ignore = "needs ../shared/data"]
fn mend_agrees_with_lxml_on_generated_expressions() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tests/xpath_conformance/run.py"))
        .args(["--mend", env!("CARGO_BIN_EXE_mend")])
        .args(["--data", &format!("{root}/../shared/data")])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("xpath conformance:"))
        .unwrap_or("no summary line");
    println!("{summary}");
    assert!(
        out.status.success(),
        "{summary}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
