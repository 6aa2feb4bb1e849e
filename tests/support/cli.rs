//! Running the `mend` binary, for the modules that test its command line:
//! [`mend`] for the plain case, [`Mend`] where a run needs a working
//! directory, an environment variable or standard input.

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The package root, where `wrappers/`, `examples/` and `tests/fixtures/` are.
pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A scratch project to run commands in: `wrappers/bookshop.yaml`, its
/// example page `pages/bookshop.html`, and the redesigned page that breaks
/// it, `pages/bookshop-redesign.html`.
pub fn bookshop_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a scratch folder");
    for (from, to) in [
        ("wrappers/bookshop.yaml", "wrappers/bookshop.yaml"),
        ("examples/pages/bookshop.html", "pages/bookshop.html"),
        (
            "tests/fixtures/pages/bookshop-redesign.html",
            "pages/bookshop-redesign.html",
        ),
    ] {
        let to = dir.path().join(to);
        std::fs::create_dir_all(to.parent().expect("a folder")).expect("a folder");
        std::fs::copy(Path::new(ROOT).join(from), to).expect("a copy");
    }
    dir
}

/// The bookshop wrapper's `text` with `adapt.min_pages: 1`: `auto` then
/// writes a heal found on a single page, which the tests of the
/// wrapper-change protocol and of one page's heal need (by default a heal
/// must hold on 3 distinct pages first).
pub fn single_page_heals(text: &str) -> String {
    assert!(
        text.contains("  margin: 0.10\n"),
        "the bookshop wrapper's adapt block"
    );
    text.replace("  margin: 0.10\n", "  margin: 0.10\n  min_pages: 1\n")
}

/// Sets `adapt.min_pages: 1` in the bookshop wrapper at `path` (see
/// [`single_page_heals`]).
pub fn heal_from_single_pages(path: &Path) {
    let text = std::fs::read_to_string(path).expect("the wrapper");
    std::fs::write(path, single_page_heals(&text)).expect("the wrapper");
}

/// Runs `mend ARGS` in the package root, with `MEND_STORE` unset and
/// nothing on standard input.
pub fn mend(args: &[&str]) -> Output {
    Mend::new(args).output()
}

/// A run of `mend` with more set up than its arguments. It starts as
/// [`mend`] runs: in the package root, with `MEND_STORE` unset and nothing
/// on standard input.
pub struct Mend {
    command: Command,
    stdin: Option<Vec<u8>>,
    stdout_closed: bool,
}

impl Mend {
    pub fn new(args: &[&str]) -> Mend {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mend"));
        command
            .current_dir(ROOT)
            .env_remove("MEND_STORE")
            .args(args);
        Mend {
            command,
            stdin: None,
            stdout_closed: false,
        }
    }

    /// Runs in `dir` instead of the package root.
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Mend {
        self.command.current_dir(dir);
        self
    }

    /// Sets an environment variable for the run.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Mend {
        self.command.env(key, value);
        self
    }

    /// Removes an environment variable for the run.
    pub fn env_remove(mut self, key: &str) -> Mend {
        self.command.env_remove(key);
        self
    }

    /// Gives the binary a standard output whose reader is already gone, as
    /// `mend ... | head -0` does: every write to it fails with a broken
    /// pipe. The output captured is then empty.
    pub fn closed_stdout(mut self) -> Mend {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        self.command.stdout(writer);
        self.stdout_closed = true;
        self
    }

    /// Writes `input` to the binary's standard input.
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Mend {
        self.stdin = Some(input.into());
        self
    }

    /// Runs the binary to the end; its standard output and error are captured.
    pub fn output(mut self) -> Output {
        let Some(input) = self.stdin.take() else {
            return self.command.output().expect("the mend binary runs");
        };
        if !self.stdout_closed {
            self.command.stdout(Stdio::piped());
        }
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the mend binary runs");
        let mut pipe = child.stdin.take().expect("a pipe");
        // From a thread, so that a binary writing before it has read all of
        // its input cannot block on a full pipe.
        let writer = std::thread::spawn(move || pipe.write_all(&input));
        let output = child.wait_with_output().expect("the mend binary ends");
        writer
            .join()
            .expect("the writer ends")
            .expect("standard input is written");
        output
    }
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// What a run of the binary gave: its exit code (-1 when a signal ended it)
/// and its output as text.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: stdout(&o),
            stderr: stderr(&o),
        }
    }
}

impl Run {
    /// Checks the exit code, showing the output when it is not the one expected.
    pub fn check(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Standard output read as one JSON value.
    pub fn json(&self) -> Value {
        json(&self.stdout)
    }
}

/// Standard output read as one JSON value.
pub fn stdout_json(o: &Output) -> Value {
    json(&stdout(o))
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: not JSON:\n{text}"))
}
