//! The templates learned about a wrapper's pages, kept beside its
//! tree-grams:
//!
//! - the unstable-content template (`page.unstable.html`), learned by
//!   `mend learn` over several loads of a page (`mend::unstable`'s ADD):
//!   what changes from load to load;
//! - the site template (`site.template.html`), found by `mend template`
//!   (`mend::site_template`): the frame every page of the site shares.
//!
//! Both are laid over a page whenever tree-grams are captured from it
//! ([`CaptureMarks`]: `mend snapshot`, `mend learn`, a heal's refresh, an
//! approval), so that what changes stays marked unstable in every tree-gram
//! the wrapper gets, and each tree-gram says whether its targets are in the
//! frame. Each is written with the wrapper-change protocol: a crash leaves
//! a template and the tree-grams captured with it as they were or both new.
//!
//! ## What it refuses
//!
//! A template file that is a link or not a regular file, is over
//! [`MAX_TEMPLATE_BYTES`] or resolves outside the project directory is
//! refused ([`RuntimeError::BadTemplate`]) rather than skipped, as is an
//! unstable template with no count of loads; a missing file is no template.
//! Saving the site template never changes the wrapper file, and every save
//! goes through the wrapper's lock. Learning from no loads gives no template.

use std::collections::HashSet;
use std::path::Path;

use super::treegrams::commit_with_treegrams;
use super::{Project, RuntimeError, WrapperLock, Written, read_current, reconcile};
use crate::adapt::TreeGrams;
use crate::dom::{Document, NodeId};
use crate::similarity::{Mask, NoMask};
use crate::site_template::SiteTemplate;
use crate::store::{ChangeKind, FileChange, Store};
use crate::treegram::{Captured, treegram_dir};
use crate::unstable::{HtmlTemplate, TemplateMask};
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
    let Some(text) = read_template(project, &path)? else {
        return Ok(None);
    };
    let template = HtmlTemplate::from_html(&text);
    if template.loads() == 0 {
        return Err(RuntimeError::BadTemplate {
            path,
            why: "it does not read as a template mend learn wrote (no count of loads)".to_owned(),
        });
    }
    Ok(Some(template))
}

/// Reads the wrapper's site template (`mend template`), if it has one, with
/// the same refusals as [`load_unstable_template`].
pub fn load_site_template(
    project: &Project,
    wrapper: &Wrapper,
) -> Result<Option<SiteTemplate>, RuntimeError> {
    let path = project.dir.join(site_template_file(&wrapper.name));
    Ok(read_template(project, &path)?.map(|text| SiteTemplate::from_html(&text)))
}

/// The text of a template file, `None` when there is none. As with
/// tree-grams, a file that resolves outside the project directory (through
/// a linked folder) is refused.
fn read_template(project: &Project, path: &Path) -> Result<Option<String>, RuntimeError> {
    let bad = |why: String| RuntimeError::BadTemplate {
        path: path.to_owned(),
        why,
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(RuntimeError::Io {
                action: "read",
                path: path.to_owned(),
                error,
            });
        }
    };
    let not_regular = "not a regular file (mend writes it; a link or a folder here is not its own)";
    if let Some(why) = project.refusal_of(path, &meta, MAX_TEMPLATE_BYTES, not_regular) {
        return Err(bad(why));
    }
    std::fs::read_to_string(path)
        .map(Some)
        .map_err(|error| RuntimeError::Io {
            action: "read",
            path: path.to_owned(),
            error,
        })
}

/// What a capture marks on its page from the wrapper's templates: the
/// unstable content, and the page's elements in the site's frame.
#[derive(Debug, Default)]
pub struct CaptureMarks {
    unstable: Option<TemplateMask>,
    frame: Option<HashSet<NodeId>>,
}

impl CaptureMarks {
    /// No marks: no template is known.
    pub fn none() -> CaptureMarks {
        CaptureMarks::default()
    }

    /// The wrapper's templates, as its project holds them, laid over `doc`.
    pub fn of(
        project: &Project,
        wrapper: &Wrapper,
        doc: &Document,
    ) -> Result<CaptureMarks, RuntimeError> {
        let unstable =
            load_unstable_template(project, wrapper)?.map(|t| TemplateMask::new(&t, doc));
        let frame = load_site_template(project, wrapper)?.map(|t| t.regions(doc).nodes);
        Ok(CaptureMarks { unstable, frame })
    }

    /// The same, with `template` (just learned) for the unstable content.
    pub fn with_unstable(mut self, template: &HtmlTemplate, doc: &Document) -> CaptureMarks {
        self.unstable = Some(TemplateMask::new(template, doc));
        self
    }

    /// The unstable content, as the mask a capture takes.
    pub fn unstable(&self) -> &dyn Mask {
        match &self.unstable {
            Some(m) => m,
            None => &NoMask,
        }
    }

    /// The unstable template's mask, when there is one.
    pub fn unstable_mask(&self) -> Option<&TemplateMask> {
        self.unstable.as_ref()
    }

    /// The page's elements in the site's frame, when a site template is known.
    pub fn frame(&self) -> Option<&HashSet<NodeId>> {
        self.frame.as_ref()
    }
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
