//! The wrapper file a decision changes: the one the run used, found from
//! the path the store recorded, or the one the person names instead; and
//! what it holds now.
//!
//! ## What it refuses
//!
//! A named path that is not a file is [`ReviewError::NoSuchWrapperFile`]. A
//! recorded one is looked for as recorded and, when relative and the store
//! is in a `.mend` folder, beside that folder, and nowhere else
//! ([`ReviewError::WrapperNotFound`]). A file of another wrapper than the
//! adaptation's is [`ReviewError::WrongWrapper`] unless the person named
//! it; a pattern gone from the file is [`ReviewError::NoPattern`].

use std::path::{Path, PathBuf};

use super::ReviewError;
use crate::store::{AdaptationRecord, STORE_DIR, Store};
use crate::wrapper::{self, PatternPath, Wrapper};

/// The wrapper file of the run that made `record`: its canonical path, or
/// for runs of an older mend, the path as the run was given it.
pub fn recorded_wrapper_path(
    store: &Store,
    record: &AdaptationRecord,
) -> Result<PathBuf, ReviewError> {
    match store.run(record.run_id)? {
        Some(run) => Ok(run.wrapper_file.unwrap_or(run.wrapper_path)),
        None => Err(ReviewError::NoRun {
            run: record.run_id,
            id: record.id,
        }),
    }
}

/// Finds the wrapper file a run recorded as `recorded`, from the store at
/// `store_path`: the path as it is if absolute or found from the current
/// directory; else, for a store in a `.mend` folder, the file of that name
/// beside the folder (where `mend run` keeps a wrapper's store), since a
/// relative path was relative to wherever the run was started.
pub fn find_wrapper_file(recorded: &Path, store_path: &Path) -> Option<PathBuf> {
    if recorded.is_file() {
        return Some(recorded.to_owned());
    }
    if recorded.is_absolute() {
        return None;
    }
    let store_dir = store_path.parent()?;
    if store_dir.file_name()? != STORE_DIR {
        return None;
    }
    let beside = store_dir.parent()?.join(recorded.file_name()?);
    beside.is_file().then_some(beside)
}

/// [`find_wrapper_file`], or a message saying where it was looked for.
pub fn wrapper_file(recorded: &Path, store_path: &Path) -> Result<PathBuf, String> {
    find_wrapper_file(recorded, store_path).ok_or_else(|| {
        format!(
            "the wrapper file {} that the run used is not found (looked from the current \
             directory and beside the store's folder)",
            recorded.display()
        )
    })
}

/// The wrapper file a decision on `record` changes: `given` (the person
/// named it), else the file the run used, found from its canonical path.
pub fn wrapper_of(
    store: &Store,
    record: &AdaptationRecord,
    store_path: &Path,
    given: Option<&Path>,
) -> Result<PathBuf, ReviewError> {
    if let Some(given) = given {
        return if given.is_file() {
            Ok(given.to_owned())
        } else {
            Err(ReviewError::NoSuchWrapperFile {
                given: given.to_owned(),
            })
        };
    }
    let recorded = recorded_wrapper_path(store, record)?;
    wrapper_file(&recorded, store_path).map_err(|why| ReviewError::WrapperNotFound { why })
}

/// Refuses a wrapper file whose name is not that of the wrapper the
/// adaptation belongs to (another project's file at the same place, say),
/// unless the person named the file (`given`); then the mismatch is a note
/// to show them.
pub fn check_wrapper_name(
    wrapper: &Wrapper,
    record: &AdaptationRecord,
    file: &Path,
    given: bool,
) -> Result<Option<String>, ReviewError> {
    if wrapper.name == record.wrapper {
        return Ok(None);
    }
    if given {
        return Ok(Some(format!(
            "{} is the wrapper {:?}; adaptation {} was made for {:?}, applied as asked",
            file.display(),
            wrapper.name,
            record.id,
            record.wrapper
        )));
    }
    Err(ReviewError::WrongWrapper {
        file: file.to_owned(),
        name: wrapper.name.clone(),
        id: record.id,
        wrapper: record.wrapper.clone(),
    })
}

/// The XPath that `record`'s pattern has now in `wrapper` (loaded from
/// `file`), or [`ReviewError::NoPattern`].
pub fn current_xpath<'w>(
    wrapper: &'w Wrapper,
    record: &AdaptationRecord,
    file: &Path,
) -> Result<&'w str, ReviewError> {
    record
        .pattern
        .parse::<PatternPath>()
        .ok()
        .and_then(|path| wrapper.pattern(&path))
        .map(|p| p.xpath.source())
        .ok_or_else(|| ReviewError::NoPattern {
            file: file.to_owned(),
            pattern: record.pattern.clone(),
        })
}

/// Loads wrapper text read from `file`; the error is the rendered
/// diagnostics.
pub fn load_wrapper_text(text: &str, file: &Path) -> Result<Wrapper, String> {
    wrapper::load_str(text, &file.display().to_string())
        .map_err(|diagnostics| wrapper::render_all(&diagnostics))
}
