//! The unstable-content template of a wrapper's pages: learned by
//! `mend learn` over several loads of a page (`mend::unstable`'s ADD), kept
//! beside the tree-grams as `treegrams/<wrapper>/page.unstable.html`, and
//! laid over a page whenever tree-grams are captured from it again (a heal's
//! refresh, an approval), so that what changes from load to load stays
//! marked unstable in every tree-gram the wrapper gets.
//!
//! The template and the tree-grams captured with it are written as one
//! change of the wrapper-change protocol: a crash leaves both as they were
//! or both new.

use std::path::Path;

use super::treegrams::commit_with_treegrams;
use super::{Project, RuntimeError, WrapperLock, Written, read_current, reconcile};
use crate::adapt::TreeGrams;
use crate::dom::Document;
use crate::store::{ChangeKind, FileChange, Store};
use crate::treegram::{Captured, treegram_dir};
use crate::unstable::HtmlTemplate;
use crate::wrapper::Wrapper;

/// The template's file name in the wrapper's tree-gram folder. It has a
/// dot, which no pattern name has, so it never takes a pattern's place.
pub const UNSTABLE_TEMPLATE_NAME: &str = "page.unstable.html";

/// The site template's file name (`mend template`) in the same folder.
pub const SITE_TEMPLATE_NAME: &str = "site.template.html";

/// Where the site template of the wrapper named `wrapper` goes, relative
/// to its project directory.
pub fn site_template_file(wrapper: &str) -> String {
    format!("{}/{SITE_TEMPLATE_NAME}", treegram_dir(wrapper))
}

/// Writes a site template (`mend template`) beside the wrapper's
/// tree-grams, as a `snapshot` change of the wrapper-change protocol; the
/// wrapper file is not changed. Gives the file's path.
pub fn save_site_template(
    store: &mut Store,
    wrapper_path: &Path,
    wrapper: &Wrapper,
    html: &str,
) -> Result<std::path::PathBuf, RuntimeError> {
    let lock = WrapperLock::acquire(wrapper_path)?;
    reconcile(store, &lock)?;
    let project = Project::of(wrapper_path);
    let before = project.read_wrapper()?;
    let path = project.dir.join(site_template_file(&wrapper.name));
    let file = planned_file(&path, html.as_bytes().to_vec())?;
    let text = before.clone();
    commit_with_treegrams(
        store,
        &lock,
        &project,
        (before, text),
        Vec::new(),
        vec![file],
        ChangeKind::Snapshot,
    )?;
    Ok(path)
}

/// The change of the file at `path` to `after`, with what it holds now.
fn planned_file(path: &Path, after: Vec<u8>) -> Result<FileChange, RuntimeError> {
    let absolute = std::path::absolute(path).map_err(|error| RuntimeError::Io {
        action: "find",
        path: path.to_owned(),
        error,
    })?;
    Ok(FileChange {
        before: read_current(&absolute)?,
        path: absolute,
        after,
    })
}

/// The largest template file mend reads: a whole page's skeleton, so
/// larger than a tree-gram may be.
pub const MAX_TEMPLATE_BYTES: u64 = 64 * 1024 * 1024;

/// Where the template of the wrapper named `wrapper` goes, relative to its
/// project directory.
pub fn unstable_template_file(wrapper: &str) -> String {
    format!("{}/{UNSTABLE_TEMPLATE_NAME}", treegram_dir(wrapper))
}

/// Reads the wrapper's learned template, if it has one. A file that is not
/// a regular file, is too large or does not read as a template is an
/// error: the wrapper's project is wrong, and capturing without it would
/// lose what was learned.
pub fn load_unstable_template(
    project: &Project,
    wrapper: &Wrapper,
) -> Result<Option<HtmlTemplate>, RuntimeError> {
    let path = project.dir.join(unstable_template_file(&wrapper.name));
    let bad = |why: String| RuntimeError::BadTemplate {
        path: path.clone(),
        why,
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(RuntimeError::Io {
                action: "read",
                path,
                error,
            });
        }
    };
    if !meta.is_file() {
        return Err(bad(
            "not a regular file (mend writes it; a link or a folder here is not its own)"
                .to_owned(),
        ));
    }
    if meta.len() > MAX_TEMPLATE_BYTES {
        return Err(bad(format!(
            "{} bytes, over the limit of {MAX_TEMPLATE_BYTES}",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(&path).map_err(|error| RuntimeError::Io {
        action: "read",
        path: path.clone(),
        error,
    })?;
    let template = HtmlTemplate::from_html(&text);
    if template.loads() == 0 {
        return Err(bad(
            "it does not read as a template mend learn wrote (no count of loads)".to_owned(),
        ));
    }
    Ok(Some(template))
}

/// The template of `loads` (loads of one page, the first being the one
/// the tree-grams are captured from), combined into `existing` when the
/// wrapper has one: what was unstable stays unstable. When the first load
/// no longer matches the existing template (the page changed since), the
/// template is first refreshed from it (UPDATE), so that the change is
/// not taken for unstable content.
pub fn learn_template(existing: Option<HtmlTemplate>, loads: &[&Document]) -> Option<HtmlTemplate> {
    let (&first, rest) = loads.split_first()?;
    let mut template = match existing {
        Some(mut t) => {
            if t.matches(first).is_err() {
                t.update(first);
            } else {
                t.add(first);
            }
            t
        }
        None => HtmlTemplate::from_document(first),
    };
    for doc in rest {
        template.add(doc);
    }
    Some(template)
}

/// Saves a learned template with the tree-grams captured under it, as one
/// `snapshot` change of the wrapper-change protocol in `store`, and puts
/// the tree-grams into `grams`.
pub fn save_learned(
    store: &mut Store,
    wrapper_path: &Path,
    wrapper: &Wrapper,
    captured: Vec<Captured>,
    template: &HtmlTemplate,
    grams: &mut TreeGrams,
) -> Result<Written, RuntimeError> {
    let lock = WrapperLock::acquire(wrapper_path)?;
    reconcile(store, &lock)?;
    let project = Project::of(wrapper_path);
    let before = project.read_wrapper()?;
    let path = project.dir.join(unstable_template_file(&wrapper.name));
    let template_file = planned_file(&path, template.to_html().into_bytes())?;
    let text = before.clone();
    let (written, saved) = commit_with_treegrams(
        store,
        &lock,
        &project,
        (before, text),
        captured,
        vec![template_file],
        ChangeKind::Snapshot,
    )?;
    for (pattern, g) in saved {
        grams.insert(pattern, g);
    }
    Ok(written)
}
