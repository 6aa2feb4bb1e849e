//! Tree-grams of a run: loaded from the project once, captured from a page
//! and saved, and kept in memory so that a refresh needs no second read.
//!
//! ## What it refuses
//!
//! A `treegram:` path that is absolute or holds `..`, and a file that
//! resolves outside the project directory, is not a regular file or is over
//! [`MAX_TREEGRAM_BYTES`], make loading fail ([`RuntimeError::BadTreegram`]):
//! the wrapper is wrong. A missing file is no tree-gram (with a warning when
//! the pattern names it); one that cannot be read or does not parse is
//! skipped with a warning. Planning writes nothing, and a captured tree-gram
//! that does not parse back is not kept in memory.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::clock::now;
use super::{Carried, Project, RuntimeError, WrapperLock, make_change, read_current, reconcile};
use crate::adapt::TreeGrams;
use crate::dom::Document;
use crate::store::{ChangeKind, FileChange, Store};
use crate::treegram::{CaptureOptions, Captured, Skipped, TreeGram, capture_across};
use crate::wrapper::{self, PatternPath, Wrapper};

/// The largest tree-gram file mend reads. A tree-gram holds a few instances
/// of a pattern with their context, kilobytes as a rule; anything near this
/// size is not one.
pub const MAX_TREEGRAM_BYTES: u64 = 16 * 1024 * 1024;

/// Loads every tree-gram the wrapper's patterns have, by their `treegram:`
/// key or at the default place, and the site template beside them, if any. A file that cannot be parsed is reported as
/// a warning and skipped; one that mend will not read (outside the project
/// directory, not a regular file such as a FIFO or a device, over
/// [`MAX_TREEGRAM_BYTES`]) is an error, as the wrapper is wrong.
pub fn load_treegrams(project: &Project, wrapper: &Wrapper) -> Result<TreeGrams, RuntimeError> {
    let mut grams = TreeGrams::new();
    for path in wrapper.pattern_paths() {
        let Some(p) = wrapper.pattern(&path) else {
            continue;
        };
        let full = project.treegram_path(wrapper, &path, p);
        let bad = |why: String| RuntimeError::BadTreegram {
            pattern: path.clone(),
            path: full.clone(),
            why,
        };
        if let Some(named) = &p.treegram {
            let named = std::path::Path::new(named);
            if named.is_absolute()
                || named.components().any(|c| {
                    !matches!(
                        c,
                        std::path::Component::Normal(_) | std::path::Component::CurDir
                    )
                })
            {
                return Err(bad(
                    "a tree-gram path is relative to the project directory and stays inside it                      (no absolute path, no `..`)"
                        .to_owned(),
                ));
            }
        }
        let meta = match std::fs::metadata(&full) {
            Ok(meta) => meta,
            Err(e) if p.treegram.is_some() => {
                tracing::warn!(file = %full.display(), error = %e, "tree-gram not readable");
                continue;
            }
            Err(_) => continue,
        };
        // A symbolic link inside the project may still point outside it.
        if let Some(why) =
            project.refusal_of(&full, &meta, MAX_TREEGRAM_BYTES, "not a regular file")
        {
            return Err(bad(why));
        }
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&full).and_then(|f| {
            std::io::Read::read_to_end(
                &mut std::io::Read::take(f, MAX_TREEGRAM_BYTES + 1),
                &mut bytes,
            )
        });
        if let Err(e) = read {
            tracing::warn!(file = %full.display(), error = %e, "tree-gram not readable");
            continue;
        }
        if bytes.len() as u64 > MAX_TREEGRAM_BYTES {
            return Err(bad(format!("over the limit of {MAX_TREEGRAM_BYTES} bytes")));
        }
        match TreeGram::parse(&bytes) {
            Ok(g) => grams.insert(path, g),
            Err(e) => tracing::warn!(file = %full.display(), error = %e, "tree-gram skipped"),
        }
    }
    // The site's frame, which content patterns are never healed onto.
    grams.set_site_template(super::load_site_template(project, wrapper)?);
    // What changes from load to load, which no generated XPath may test.
    grams.set_unstable_template(super::load_unstable_template(project, wrapper)?);
    Ok(grams)
}

/// Captures the tree-grams of `wrapper`'s patterns (of `only`, when given)
/// on a page, stamped with the page's hash and the time now.
///
/// `marks` are the wrapper's templates laid over the page: what changes from
/// load to load (`mend learn`), marked in the files so that no comparison
/// or locator leans on it, and the site's frame (`mend template`), which
/// each file says whether its targets are in.
pub fn capture_treegrams(
    wrapper: &Wrapper,
    doc: &Document,
    bytes: &[u8],
    url: Option<&str>,
    only: Option<&[PatternPath]>,
    marks: &super::CaptureMarks,
) -> (Vec<Captured>, Vec<Skipped>) {
    capture_treegrams_across(wrapper, doc, &[], bytes, url, only, marks)
}

/// Captures the tree-grams on `doc` as [`capture_treegrams`] does, each
/// recording what the `others` pages (more pages where the wrapper works)
/// showed of its pattern (`treegram::Across`).
pub fn capture_treegrams_across(
    wrapper: &Wrapper,
    doc: &Document,
    others: &[&Document],
    bytes: &[u8],
    url: Option<&str>,
    only: Option<&[PatternPath]>,
    marks: &super::CaptureMarks,
) -> (Vec<Captured>, Vec<Skipped>) {
    let sha: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let captured_at = now().to_string();
    let options = CaptureOptions {
        url,
        sha256: &sha,
        captured: &captured_at,
        instances: wrapper.adapt.treegram_instances,
        min_context: wrapper.adapt.treegram_min_context,
        only,
        unstable: marks.unstable(),
        frame: marks.frame(),
    };
    capture_across(wrapper, doc, others, &options)
}

/// What saving captured tree-grams changes: the files, with their content
/// before and after, and the tree-grams as the run holds them in memory.
#[derive(Debug, Default)]
pub struct Planned {
    /// Each tree-gram file, its content before and after.
    pub files: Vec<FileChange>,
    /// Each file with what it holds.
    pub captured: Vec<(PathBuf, Captured)>,
    /// The parsed tree-grams, by pattern.
    pub grams: Vec<(PatternPath, TreeGram)>,
}

/// Plans the saving of captured tree-grams under the project directory:
/// the files to write, and each pattern's `treegram:` key set in the
/// wrapper's `text` (its formatting kept). Nothing is written: the files go
/// through the wrapper-change protocol with the wrapper file.
pub fn plan_treegrams(
    project: &Project,
    text: &mut String,
    captured: Vec<Captured>,
) -> Result<Planned, RuntimeError> {
    let mut planned = Planned::default();
    // The wrapper is parsed once for all the patterns: a snapshot of
    // thousands of patterns stays linear.
    let names: Vec<Vec<&str>> = captured
        .iter()
        .map(|c| c.pattern.names().iter().map(String::as_str).collect())
        .collect();
    let changes: Vec<(&[&str], &str)> = names
        .iter()
        .zip(&captured)
        .map(|(n, c)| (n.as_slice(), c.file.as_str()))
        .collect();
    *text = wrapper::set_treegrams(text, &changes).map_err(|error| {
        let pattern = captured
            .iter()
            .map(|c| &c.pattern)
            .find(|p| error.pattern() == Some(p.to_string().as_str()))
            .or(captured.first().map(|c| &c.pattern))
            .cloned()
            .unwrap_or_else(|| PatternPath::top(String::new()));
        RuntimeError::Rewrite { pattern, error }
    })?;
    for c in captured {
        let path = project.dir.join(&c.file);
        match TreeGram::parse(c.html.as_bytes()) {
            Ok(g) => planned.grams.push((c.pattern.clone(), g)),
            Err(e) => tracing::warn!(file = %path.display(), error = %e, "tree-gram skipped"),
        }
        // The journal keeps an absolute path, which names the file from
        // wherever the change is reconciled.
        let absolute = std::path::absolute(&path).map_err(|error| RuntimeError::Io {
            action: "find",
            path: path.clone(),
            error,
        })?;
        planned.files.push(FileChange {
            before: read_current(&absolute)?,
            path: absolute,
            after: c.html.clone().into_bytes(),
        });
        planned.captured.push((path, c));
    }
    Ok(planned)
}

/// What saving captured tree-grams wrote.
#[derive(Debug)]
pub struct Written {
    /// Each file written, with what it holds.
    pub files: Vec<(PathBuf, Captured)>,
    /// Whether the wrapper file was edited to name the files.
    pub wrapper_changed: bool,
}

/// Saves captured tree-grams of the wrapper at `wrapper_path` through the
/// wrapper-change protocol (a `snapshot` change in `store`): writes the
/// files under the project directory, sets each pattern's `treegram:` key in
/// the wrapper file, and puts each into `grams`.
pub fn save_treegrams(
    store: &mut Store,
    wrapper_path: &Path,
    captured: Vec<Captured>,
    grams: &mut TreeGrams,
) -> Result<Written, RuntimeError> {
    let lock = WrapperLock::acquire(wrapper_path)?;
    reconcile(store, &lock)?;
    let project = Project::of(wrapper_path);
    let before = project.read_wrapper()?;
    let text = before.clone();
    let (written, saved) = commit_with_treegrams(
        store,
        &lock,
        &project,
        (before, text),
        captured,
        Vec::new(),
        ChangeKind::Snapshot,
    )?;
    for (pattern, g) in saved {
        grams.insert(pattern, g);
    }
    Ok(written)
}

/// The one change, under `lock`, that writes captured tree-grams and the
/// wrapper file: `texts` is the wrapper's text as read under the lock and
/// as the caller edited it; each tree-gram is named in the edited text
/// ([`plan_treegrams`]), and the files and the wrapper are journaled as a
/// change of `kind` and written, with the `extra` files (the unstable
/// template `mend learn` writes beside the tree-grams). Gives what was
/// written and the parsed tree-grams.
pub(super) fn commit_with_treegrams(
    store: &mut Store,
    lock: &WrapperLock,
    project: &Project,
    texts: (String, String),
    captured: Vec<Captured>,
    extra: Vec<FileChange>,
    kind: ChangeKind,
) -> Result<(Written, Vec<(PatternPath, TreeGram)>), RuntimeError> {
    let (before, mut text) = texts;
    let planned = plan_treegrams(project, &mut text, captured)?;
    let wrapper_changed = text != before;
    let mut files = planned.files;
    files.extend(extra);
    files.push(FileChange {
        path: lock.wrapper().to_owned(),
        before: Some(before.into_bytes()),
        after: text.into_bytes(),
    });
    let ((), carried) = make_change(store, lock, kind, &files, |_, _| Ok(()))?;
    if let Carried::Unmarked(e) = carried {
        tracing::warn!(error = %e, kind = kind.as_str(), "files written; the store could not mark the change done");
    }
    Ok((
        Written {
            files: planned.captured,
            wrapper_changed,
        },
        planned.grams,
    ))
}
