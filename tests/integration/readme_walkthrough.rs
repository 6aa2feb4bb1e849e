//! The README's walk-through ("Your first wrapper"), run as written: its
//! commands in order, in a folder of their own, each with the exit code the
//! README gives (`# exits N`, else 0) and the output it shows.
//!
//! The section is read from README.md at test time, so an edit to it is
//! tested as it stands. Its code blocks are, in order: `sh` blocks, whose
//! lines are commands (`mkdir`, `cp` and `cd` are carried out here, `mend`
//! runs the binary); `yaml` blocks whose first line names a file
//! (`# book.yaml: …`), written where the commands are; and `text` blocks,
//! the output of the command before them. Each line a `text` block shows
//! must be a line of what the command printed (standard output, then
//! standard error), `…` standing for any text within the line.

use std::path::{Path, PathBuf};

use crate::support::cli::Mend;

/// The section of README.md the test runs.
const SECTION: &str = "## Your first wrapper";

#[test]
fn the_readme_walk_through_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let blocks = blocks_of(section(&readme));
    assert!(
        blocks.iter().filter(|b| b.info == "sh").count() >= 5,
        "the walk-through has too few commands to be the one this test knows"
    );
    let dir = tempfile::tempdir().unwrap();
    let examples = dir.path().join("examples/walkthrough");
    std::fs::create_dir_all(&examples).unwrap();
    for entry in std::fs::read_dir(root.join("examples/walkthrough")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, examples.join(path.file_name().unwrap())).unwrap();
    }
    let mut walk = Walk {
        cwd: dir.path().to_path_buf(),
        last: None,
        mend_runs: 0,
    };
    for block in &blocks {
        match block.info.as_str() {
            "sh" => block
                .body
                .lines()
                .filter(|l| !l.trim().is_empty())
                .for_each(|l| walk.command(l)),
            "yaml" => walk.write_file(&block.body),
            "text" => walk.check_output(&block.body),
            other => {
                panic!("the walk-through has a `{other}` block, which this test does not read")
            }
        }
    }
    assert!(
        walk.mend_runs >= 8,
        "only {} mend commands ran",
        walk.mend_runs
    );
    // The heal the walk-through approves is in the wrapper file.
    let wrapper = std::fs::read_to_string(walk.cwd.join("book.yaml")).unwrap();
    assert!(wrapper.contains("price-now"), "{wrapper}");
}

/// Where the walk-through stands: its working directory and what the last
/// command printed.
struct Walk {
    cwd: PathBuf,
    last: Option<(String, String)>,
    mend_runs: usize,
}

impl Walk {
    fn command(&mut self, line: &str) {
        let (command, expected) = match line.split_once('#') {
            Some((command, comment)) => (command, exit_code_of(comment)),
            None => (line, 0),
        };
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["mkdir", dir] => std::fs::create_dir_all(self.cwd.join(dir)).unwrap(),
            ["cd", dir] => self.cwd = self.cwd.join(dir),
            ["cp", sources @ .., target] => {
                for source in sources {
                    let from = self.cwd.join(source);
                    let to = self.cwd.join(target).join(from.file_name().unwrap());
                    std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("{line}: {e}"));
                }
            }
            ["mend", args @ ..] => {
                let output = Mend::new(args).dir(&self.cwd).output();
                let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
                let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
                assert_eq!(
                    output.status.code(),
                    Some(expected),
                    "`{}` exited otherwise than the README says\nstdout:\n{stdout}\nstderr:\n{stderr}",
                    command.trim()
                );
                self.last = Some((command.trim().to_owned(), format!("{stdout}\n{stderr}")));
                self.mend_runs += 1;
            }
            _ => panic!("the walk-through runs `{line}`, which this test does not carry out"),
        }
    }

    fn write_file(&self, body: &str) {
        let first = body.lines().next().unwrap_or("");
        let name = first
            .trim_start_matches('#')
            .split(':')
            .next()
            .map(str::trim)
            .filter(|n| n.ends_with(".yaml"))
            .unwrap_or_else(|| {
                panic!("a yaml block must start with `# NAME.yaml: …`, not {first:?}")
            });
        std::fs::write(self.cwd.join(name), body).unwrap();
    }

    fn check_output(&self, shown: &str) {
        let (command, printed) = self
            .last
            .as_ref()
            .expect("an output block follows a mend command");
        for line in shown.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                printed.lines().any(|p| matches_shown(p, line)),
                "`{command}` did not print the line the README shows:\n{line}\nit printed:\n{printed}"
            );
        }
    }
}

/// The exit code a command's comment gives (`exits 1: …`), else 0.
fn exit_code_of(comment: &str) -> i32 {
    comment
        .trim()
        .strip_prefix("exits ")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Whether `printed` is the line `shown`, where each `…` of `shown` stands
/// for any text.
fn matches_shown(printed: &str, shown: &str) -> bool {
    let printed = printed.trim_end();
    let pieces: Vec<&str> = shown.trim_end().split('…').collect();
    let (first, rest) = pieces.split_first().unwrap();
    let Some(mut at) = printed.strip_prefix(first).map(|r| printed.len() - r.len()) else {
        return false;
    };
    for (i, piece) in rest.iter().enumerate() {
        let last = i == rest.len() - 1;
        if last {
            return printed[at..].ends_with(piece);
        }
        match printed[at..].find(piece) {
            Some(found) => at += found + piece.len(),
            None => return false,
        }
    }
    at == printed.len()
}

/// The text of the README's walk-through section.
fn section(readme: &str) -> &str {
    let start = readme
        .find(SECTION)
        .expect("README.md has the walk-through section");
    let body = &readme[start + SECTION.len()..];
    let end = body.find("\n## ").unwrap_or(body.len());
    &body[..end]
}

/// One fenced code block: its info string and its text.
struct Block {
    info: String,
    body: String,
}

fn blocks_of(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_owned(),
                    body: String::new(),
                })
            }
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some(block), None) => {
                block.body.push_str(line);
                block.body.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

#[test]
fn shown_lines_match_with_elisions() {
    let check = |printed: &str, shown: &str, expected: bool| {
        assert_eq!(
            matches_shown(printed, shown),
            expected,
            "{printed:?} ~ {shown:?}"
        );
    };
    check("a,b,1:1,", "a,b,…:1,", true);
    check("tag 3f2a)", "tag …)", true);
    check("a,b,2:1,", "a,b,…:2,", false);
    check("the whole line", "the whole", false);
    check(" 1  2026-12-02  book", " 1  …  book", true);
    check("x", "…", true);
    assert_eq!(exit_code_of(" exits 1: a heal waits"), 1);
    assert_eq!(exit_code_of(" a comment"), 0);
}
