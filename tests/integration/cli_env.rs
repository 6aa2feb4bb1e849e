//! The environment mend reads besides its arguments: `MEND_LOG` (the
//! operators' log filter) and the colour variables (`NO_COLOR`,
//! `CLICOLOR_FORCE`), which clap's messages and the log follow alike; and
//! the shell, which `mend completions` writes a script for.

use crate::support::cli::{Mend, Run, bookshop_project};

/// `mend snapshot` of the bookshop: it parses a page (html5ever logs every
/// token at debug) and takes the wrapper's lock (mend logs that at debug).
fn snapshot(env: &[(&str, &str)]) -> Run {
    let dir = bookshop_project();
    let mut mend = Mend::new(&["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"])
        .dir(dir.path())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("MEND_LOG");
    for (key, value) in env {
        mend = mend.env(key, value);
    }
    Run::from(mend.output()).check(0)
}

/// A command line clap refuses, so that clap writes its own message.
fn refused(env: &[(&str, &str)]) -> Run {
    let mut mend = Mend::new(&["run"])
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    for (key, value) in env {
        mend = mend.env(key, value);
    }
    Run::from(mend.output()).check(2)
}

const ESC: char = '\u{1b}';

#[test]
fn mend_log_debug_is_mends_own_events_not_11000_lines_from_html5ever() {
    let run = snapshot(&[("MEND_LOG", "debug")]);
    assert!(run.stderr.contains("wrapper locked"), "{}", run.stderr);
    assert!(!run.stderr.contains("insertion mode"), "{}", run.stderr);
    assert!(run.stderr.lines().count() < 20, "{}", run.stderr);
}

#[test]
fn mend_log_directives_with_a_target_apply_as_written() {
    let run = snapshot(&[("MEND_LOG", "html5ever=debug")]);
    assert!(run.stderr.contains("insertion mode"));
    assert!(!run.stderr.contains("wrapper locked"));
    let run = snapshot(&[("MEND_LOG", "mend::runtime=debug")]);
    assert!(run.stderr.contains("wrapper locked"), "{}", run.stderr);
    assert!(!run.stderr.contains("insertion mode"));
}

#[test]
fn an_invalid_mend_log_was_silently_ignored_and_is_now_one_warning() {
    let run = snapshot(&[("MEND_LOG", "mend=loud,warning,debug")]);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("MEND_LOG"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(warnings[0].starts_with("warning: MEND_LOG: ignoring `mend=loud`"));
    assert!(warnings[0].contains("ignoring `warning`: not a level (did you mean `warn`?)"));
    // What could be read still applies.
    assert!(run.stderr.contains("wrapper locked"), "{}", run.stderr);
}

#[test]
fn the_log_on_a_pipe_had_colour_and_has_none() {
    let run = snapshot(&[("MEND_LOG", "debug")]);
    assert!(run.stderr.contains("wrapper locked"));
    assert!(!run.stderr.contains(ESC), "{:?}", run.stderr);
    assert!(!refused(&[]).stderr.contains(ESC));
}

#[test]
fn no_color_wins_over_forced_colour_for_the_log_and_for_clap() {
    // Forced colour shows that the test would see it.
    let forced = [("CLICOLOR_FORCE", "1")];
    assert!(
        snapshot(&[("MEND_LOG", "debug"), forced[0]])
            .stderr
            .contains(ESC)
    );
    assert!(refused(&forced).stderr.contains(ESC));
    for no_color in ["1", "0", "yes"] {
        let run = snapshot(&[("MEND_LOG", "debug"), forced[0], ("NO_COLOR", no_color)]);
        assert!(run.stderr.contains("wrapper locked"));
        assert!(
            !run.stderr.contains(ESC),
            "NO_COLOR={no_color}: {:?}",
            run.stderr
        );
        let run = refused(&[forced[0], ("NO_COLOR", no_color)]);
        assert!(
            !run.stderr.contains(ESC),
            "NO_COLOR={no_color}: {:?}",
            run.stderr
        );
    }
    // An empty NO_COLOR is as if it were not set.
    assert!(refused(&[forced[0], ("NO_COLOR", "")]).stderr.contains(ESC));
}

/// `mend completions` is new: a shell could not complete mend's commands.
#[test]
fn bash_completes_commands_and_named_values_from_the_script() {
    let script = Run::from(Mend::new(&["completions", "bash"]).output()).check(0);
    assert!(
        script.stdout.contains("complete -F _mend"),
        "{}",
        script.stdout
    );
    for (shell, expected) in [("zsh", "#compdef mend"), ("fish", "function __fish_mend")] {
        let run = Run::from(Mend::new(&["completions", shell]).output()).check(0);
        assert!(run.stdout.contains(expected), "{shell}: {}", run.stdout);
    }
    Run::from(Mend::new(&["completions", "tcsh"]).output()).check(2);
    // The script, loaded into bash, completes as a person would type.
    let Ok(bash) = which("bash") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mend.bash");
    std::fs::write(&file, &script.stdout).unwrap();
    let complete = |words: &str| -> String {
        let probe = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _mend mend \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             echo \"${{COMPREPLY[@]}}\"",
            file.display()
        );
        let out = std::process::Command::new(&bash)
            .args(["--norc", "-c", &probe])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(complete("mend ap"), "approve");
    assert_eq!(complete("mend run --heal ''"), "off propose auto");
    assert!(complete("mend completions ''").ends_with("bash elvish fish powershell zsh"));
}

/// The first `name` on the `PATH`.
fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    std::env::split_paths(&std::env::var_os("PATH").ok_or(())?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .ok_or(())
}
