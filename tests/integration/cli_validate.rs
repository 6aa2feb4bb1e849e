//! `mend validate` as a user runs it: exit codes, `ok:` lines and diagnostics.

use crate::support::cli::{Run, mend};

/// Runs `mend validate` on fixture files; returns (exit code, stdout, stderr).
fn validate(files: &[&str]) -> (i32, String, String) {
    let paths: Vec<String> = files
        .iter()
        .map(|f| format!("tests/fixtures/wrappers/{f}"))
        .collect();
    let mut args = vec!["validate"];
    args.extend(paths.iter().map(String::as_str));
    let run = Run::from(mend(&args));
    (run.code, run.stdout, run.stderr)
}

#[test]
fn a_valid_wrapper_is_ok() {
    let (code, stdout, stderr) = validate(&["good.yaml"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "ok: tests/fixtures/wrappers/good.yaml (3 patterns)\n"
    );
    assert_eq!(stderr, "");
}

#[test]
fn the_shipped_wrappers_are_ok() {
    let output = mend(&[
        "validate",
        "wrappers/bookshop.yaml",
        "wrappers/article.yaml",
        "wrappers/exchange-rates.yaml",
        "wrappers/booksamillion.yaml",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "ok: wrappers/bookshop.yaml (6 patterns)\nok: wrappers/article.yaml (6 patterns)\n\
         ok: wrappers/exchange-rates.yaml (6 patterns)\nok: wrappers/booksamillion.yaml (5 patterns)\n"
    );
}

#[test]
fn a_missing_tbody_is_a_warning_not_an_error() {
    let (code, stdout, stderr) = validate(&["tbody.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "ok: tests/fixtures/wrappers/tbody.yaml (2 patterns)\n"
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn every_mistake_is_reported_with_its_position() {
    let (code, stdout, stderr) = validate(&["typos.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    insta::assert_snapshot!(stderr);
}

#[test]
fn yaml_syntax_errors_are_located() {
    let (code, _, stderr) = validate(&["broken.yaml"]);
    assert_eq!(code, 2);
    insta::assert_snapshot!(stderr);
}

#[test]
fn one_bad_file_fails_the_run_but_the_others_are_checked() {
    let (code, stdout, stderr) = validate(&["good.yaml", "broken.yaml", "tbody.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(
        stdout,
        "ok: tests/fixtures/wrappers/good.yaml (3 patterns)\nok: tests/fixtures/wrappers/tbody.yaml (2 patterns)\n"
    );
    assert!(stderr.contains("broken.yaml:5:"), "{stderr}");
}

#[test]
fn a_missing_file_is_bad_input_and_the_others_are_checked() {
    let (code, stdout, stderr) = validate(&["good.yaml", "missing.yaml"]);
    assert_eq!(code, 2);
    assert!(stdout.starts_with("ok: "));
    assert!(
        stderr.starts_with("error: cannot read tests/fixtures/wrappers/missing.yaml: "),
        "{stderr}"
    );
}

/// A missing wrapper file was an I/O failure (exit 3) for `run` and
/// `snapshot`; a path that names no file is the caller's to fix.
#[test]
fn a_missing_wrapper_file_is_bad_input_for_every_command_that_takes_one() {
    let page = "examples/pages/bookshop.html";
    for wrapper in ["wrappers/missing.yaml", "wrappers", "README.md/w.yaml"] {
        for args in [
            vec!["validate", wrapper],
            vec!["run", wrapper, page],
            vec!["snapshot", wrapper, page],
        ] {
            let out = mend(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "mend {}: {stderr}",
                args.join(" ")
            );
            assert!(
                stderr.starts_with(&format!("error: cannot read {wrapper}: ")),
                "mend {}: {stderr}",
                args.join(" ")
            );
        }
    }
}

#[test]
fn no_files_is_a_usage_error() {
    let output = mend(&["validate"]);
    assert_eq!(output.status.code(), Some(2));
}

/// `mend validate` (and `run`) on a FIFO once waited forever for a writer.
/// It is refused as bad input, without waiting. The process is killed and
/// the test fails if it is still running after a generous while, so that a
/// regression fails instead of hanging the suite.
#[cfg(unix)]
#[test]
fn a_fifo_wrapper_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("w.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<h1>T</h1>").unwrap();
    let fifo = fifo.to_str().unwrap();
    for args in [
        vec!["validate", fifo],
        vec!["run", fifo, page.to_str().unwrap()],
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mend"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut waited = 0;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if waited == 600 {
                child.kill().unwrap();
                panic!("mend {args:?} still waits on the FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            waited += 1;
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{stderr}");
    }
}

/// A tree-gram that `mend run` refuses (a device, a path out of the
/// project) once passed `mend validate`.
#[test]
fn a_treegram_that_run_would_refuse_fails_validation() {
    let dir = tempfile::tempdir().unwrap();
    for named in ["/dev/zero", "../../etc/passwd"] {
        let wrapper = dir.path().join("w.yaml");
        std::fs::write(
            &wrapper,
            format!(
                "name: t\npatterns:\n  - name: title\n    xpath: //h2\n    treegram: {named}\n"
            ),
        )
        .unwrap();
        let run = Run::from(mend(&["validate", wrapper.to_str().unwrap()]));
        assert_eq!(run.code, 2, "{named}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{named}");
        assert!(
            run.stderr.contains("the tree-gram of title"),
            "{}",
            run.stderr
        );
    }
}
