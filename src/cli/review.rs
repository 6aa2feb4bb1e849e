//! What the review commands (`log`, `show`, `approve`, `reject`, `revert`)
//! share: finding and opening the store, the adaptations a command names,
//! and printing what `mend::review` refused.
//!
//! Each helper prints its own error and gives the exit code to end with, so
//! a command reads as a straight line of `?`s over `Result<_, ExitCode>`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mend::review::{DecisionOptions, Reverted, ReviewError};
use mend::runtime;
use mend::store::{
    AdaptationId, AdaptationRecord, AdaptationRef, ChangeState, STORE_DIR, STORE_FILE, Store,
    StoreError, Timestamp,
};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};

/// The environment variable that names the store when `--store` is not given.
pub const STORE_ENV: &str = "MEND_STORE";

/// Where the store is, as every review command takes it.
#[derive(clap::Args, Debug)]
pub struct StoreArg {
    /// The store (an SQLite file). Default: $MEND_STORE, else .mend/mend.db
    /// under the current directory, else wrappers/.mend/mend.db. `mend run`
    /// keeps a wrapper's store at .mend/mend.db beside the wrapper file.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

/// The wrapper file a review command changes, when not the one the run used.
#[derive(clap::Args, Debug)]
pub struct WrapperArg {
    /// The wrapper file to change, instead of the one the run used (the
    /// store keeps its canonical path and name); needed when that file has
    /// moved, or to apply the change to another copy of the wrapper.
    #[arg(long = "wrapper", value_name = "PATH")]
    pub wrapper: Option<PathBuf>,
}

/// Which adaptations a decision command (`approve`, `reject`) acts on:
/// ids, or a filter over the proposals that wait for a person.
#[derive(clap::Args, Debug)]
pub struct Targets {
    /// The adaptations' ids, as `mend log` lists them, or as TAG:ID (the
    /// store's tag and the id, as a run's output names them).
    #[arg(value_name = "ID")]
    pub ids: Vec<AdaptationRef>,
    /// Every proposal that waits for a person, instead of ids.
    #[arg(long, conflicts_with = "ids")]
    pub pending: bool,
    /// Only the waiting proposals of this pattern (a path of names, such as
    /// `book/price`), instead of ids.
    #[arg(long, value_name = "PATH", conflicts_with = "ids")]
    pub pattern: Option<String>,
}

/// The ids `targets` names, in the order given (a filter: oldest first);
/// exit 2 when it names none at all, or names one of another store (then
/// nothing is done: the person is looking at another store's ids).
pub fn resolve(
    store: &Store,
    path: &Path,
    targets: &Targets,
    verb: &str,
) -> Result<Vec<AdaptationId>, ExitCode> {
    if !targets.ids.is_empty() {
        return targets.ids.iter().map(|r| own_id(store, path, r)).collect();
    }
    if !targets.pending && targets.pattern.is_none() {
        return Err(bad_input(format!(
            "name the adaptations to {verb}: their ids, or --pending (every waiting proposal), or --pattern PATH (the waiting proposals of one pattern)"
        )));
    }
    let filter = mend::store::AdaptationFilter {
        pattern: targets.pattern.as_deref(),
        pending: true,
        ..Default::default()
    };
    let mut ids: Vec<AdaptationId> = store
        .adaptations(&filter)
        .map_err(|e| store_failure(&e))?
        .into_iter()
        .map(|r| r.id)
        .collect();
    ids.reverse();
    Ok(ids)
}

/// Opens the store, resolves `targets` and does `each` to every adaptation
/// they name, in order, each on its own: one that fails does not stop the
/// others. Gives the worst exit code of theirs.
pub fn for_each_target(
    store: &StoreArg,
    targets: &Targets,
    verb: &str,
    mut each: impl FnMut(&mut Store, &Path, AdaptationId) -> Result<ExitCode, ExitCode>,
) -> ExitCode {
    let (mut store, path) = match open_store(store) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let ids = match resolve(&store, &path, targets, verb) {
        Ok(ids) => ids,
        Err(code) => return code,
    };
    if ids.is_empty() {
        out!("no proposal waits for a person in {}", path.display());
    }
    let codes: Vec<ExitCode> = ids
        .into_iter()
        .map(|id| each(&mut store, &path, id).unwrap_or_else(|code| code))
        .collect();
    worst(&codes)
}

/// The exit code of a command that acted on several adaptations: the
/// worst of theirs (0 when each went through).
pub fn worst(codes: &[ExitCode]) -> ExitCode {
    [EXIT_FAILURE, EXIT_BAD_INPUT]
        .into_iter()
        .map(ExitCode::from)
        .find(|bad| codes.contains(bad))
        .unwrap_or(ExitCode::SUCCESS)
}

/// The rule for finding the store, shown in each command's long help.
pub const STORE_RULE: &str = "The store is --store PATH if given, else the file named by the \
    MEND_STORE environment variable, else .mend/mend.db under the current directory, else \
    wrappers/.mend/mend.db if that exists. A store \
    that does not exist is an error (exit 2): the review commands never create one. `mend run` \
    keeps a wrapper's store at .mend/mend.db beside the wrapper file.";

/// Prints `error: MESSAGE` and gives exit code 2 (bad input).
pub fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    say!("error: {message}");
    ExitCode::from(EXIT_BAD_INPUT)
}

/// Prints `error: MESSAGE` and gives exit code 3 (I/O or internal failure).
pub fn failure(message: impl std::fmt::Display) -> ExitCode {
    say!("error: {message}");
    ExitCode::from(EXIT_FAILURE)
}

/// Maps a store error to its message and exit code: a file that is not a
/// mend store is bad input; anything else is a failure.
pub fn store_failure(e: &StoreError) -> ExitCode {
    if e.is_not_a_store() {
        bad_input(e)
    } else {
        failure(e)
    }
}

/// The store's path by the documented rule ([`STORE_RULE`]); `env` is the
/// value of [`STORE_ENV`], if set.
pub fn store_path(arg: Option<&Path>, env: Option<&str>) -> PathBuf {
    match (arg, env.filter(|v| !v.is_empty())) {
        (Some(path), _) => path.to_owned(),
        (None, Some(env)) => PathBuf::from(env),
        (None, None) => {
            // A project laid out as `wrappers/` beside `treegrams/` keeps its
            // wrappers' store in `wrappers/.mend/`, where `mend run` puts it.
            let here = Path::new(STORE_DIR).join(STORE_FILE);
            let beside_wrappers = Path::new("wrappers").join(STORE_DIR).join(STORE_FILE);
            if !here.is_file() && beside_wrappers.is_file() {
                beside_wrappers
            } else {
                here
            }
        }
    }
}

/// Finds and opens the store; the path is given back for messages.
pub fn open_store(arg: &StoreArg) -> Result<(Store, PathBuf), ExitCode> {
    let env = std::env::var(STORE_ENV).ok();
    let named = arg.store.is_some() || env.as_deref().is_some_and(|v| !v.is_empty());
    let here = Path::new(STORE_DIR).join(STORE_FILE);
    let beside_wrappers = Path::new("wrappers").join(STORE_DIR).join(STORE_FILE);
    // Two stores that could both be meant: ids collide across stores, so
    // guessing could decide another adaptation than the one meant.
    if !named && here.is_file() && beside_wrappers.is_file() {
        return Err(bad_input(format!(
            "there are two stores here, {} and {}; pass --store PATH (or set MEND_STORE) to say which one to read",
            here.display(),
            beside_wrappers.display()
        )));
    }
    let path = store_path(arg.store.as_deref(), env.as_deref());
    if !path.is_file() {
        let how = if arg.store.is_some() {
            "check the path given to --store"
        } else if env.as_deref().is_some_and(|v| !v.is_empty()) {
            "check the path in MEND_STORE, or pass --store PATH"
        } else {
            "pass --store PATH (a wrapper's store is .mend/mend.db beside the wrapper file), \
             or set MEND_STORE"
        };
        return Err(bad_input(format!("no store at {}: {how}", path.display())));
    }
    let mut store = Store::open(&path).map_err(|e| store_failure(&e))?;
    store.act_as(person());
    let tag = store.tag().map_err(|e| store_failure(&e))?;
    say!("mend: store {} (tag {tag})", path.display());
    // A change to a wrapper that a killed process left unfinished is settled
    // before anything is read, so the history never says applied of an XPath
    // that the wrapper file does not hold.
    match runtime::reconcile_all(&mut store) {
        Ok(settled) => {
            for r in settled {
                say!(
                    "note: an unfinished change to {} was {}{}",
                    r.wrapper.display(),
                    match r.state {
                        ChangeState::Done => "completed",
                        _ => "rolled back",
                    },
                    match r.undone.len() {
                        0 => String::new(),
                        n => format!(" ({n} adaptation{} no longer applied)", plural(n)),
                    }
                );
            }
        }
        Err(e) => say!("warning: an unfinished change to a wrapper could not be settled: {e}"),
    }
    Ok((store, path))
}

/// Who runs this command, as decisions record it: the login name the
/// shell gives (`USER`, else `LOGNAME`, else `USERNAME`), if any.
pub fn person() -> Option<String> {
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|n| !n.trim().is_empty()))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The id `reference` names in `store` (read from `path`): its own, or
/// exit 2 when it carries the tag of another store.
pub fn own_id(
    store: &Store,
    path: &Path,
    reference: &AdaptationRef,
) -> Result<AdaptationId, ExitCode> {
    mend::review::own_id(store, path, reference).map_err(|e| report(&e))
}

/// The adaptation `id`, or exit 2 when the store has none with that id.
pub fn adaptation(
    store: &Store,
    path: &Path,
    id: AdaptationId,
) -> Result<AdaptationRecord, ExitCode> {
    mend::review::adaptation(store, path, id).map_err(|e| report(&e))
}

/// Prints a refused or failed decision (the wrapper's diagnostics first,
/// when it does not load) and gives its exit code: 2 when the person can act
/// on it, else 3.
pub fn report(e: &ReviewError) -> ExitCode {
    if let Some(diagnostics) = e.diagnostics() {
        say_raw!("{diagnostics}");
    }
    if e.is_bad_input() {
        bad_input(e)
    } else {
        failure(e)
    }
}

/// What a decision command was asked along with the decision, now.
pub fn options<'a>(
    reason: Option<&'a str>,
    force: bool,
    wrapper: &'a WrapperArg,
) -> DecisionOptions<'a> {
    DecisionOptions {
        reason,
        force,
        wrapper: wrapper.wrapper.as_deref(),
        now: now(),
    }
}

/// Prints what a revert did (`mend revert`, and `mend reject` of an
/// adaptation that was in the wrapper): notes and warnings on standard error, the
/// revert itself on standard output.
pub fn print_reverted(reverted: &Reverted) {
    for file in &reverted.left_alone {
        say!(
            "note: {} is left as it is (it is new since, or changed since)",
            file.display()
        );
    }
    if let Some(e) = &reverted.unmarked {
        say!("warning: {e}");
    }
    let record = &reverted.record;
    out!(
        "reverted adaptation {} of {} in {}: {} has\n  xpath: {}\nagain ({} is taken out, \
         and is not kept in the pattern's history as a fallback)",
        record.id,
        record.pattern,
        record.wrapper,
        reverted.file.display(),
        record.old_xpath,
        reverted.new_xpath
    );
}

/// Ids as a list in words: `4, 7, 9`.
pub fn ids(ids: &[AdaptationId]) -> String {
    let list: Vec<String> = ids.iter().map(ToString::to_string).collect();
    list.join(", ")
}

/// The current time, as the store records it.
pub fn now() -> Timestamp {
    mend::runtime::now()
}

/// A score to three decimals, or `-`.
pub(super) fn score(score: Option<f64>) -> String {
    score.map_or_else(|| "-".to_owned(), |s| format!("{s:.3}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_is_the_argument_then_the_environment_then_the_current_folder() {
        let arg = Path::new("a.db");
        assert_eq!(store_path(Some(arg), Some("b.db")), PathBuf::from("a.db"));
        assert_eq!(store_path(None, Some("b.db")), PathBuf::from("b.db"));
        assert_eq!(store_path(None, Some("")), PathBuf::from(".mend/mend.db"));
        assert_eq!(store_path(None, None), PathBuf::from(".mend/mend.db"));
    }
}
