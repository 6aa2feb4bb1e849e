//! Tree-grams of a run: loaded from the project once, captured from a page
//! and saved, and kept in memory so that a refresh needs no second read.

use std::path::PathBuf;
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::{Project, RuntimeError, write_atomically};
use crate::adapt::TreeGrams;
use crate::dom::Document;
use crate::similarity::NoMask;
use crate::store::Timestamp;
use crate::treegram::{CaptureOptions, Captured, Skipped, TreeGram, capture};
use crate::wrapper::{self, PatternPath, Wrapper};

/// Loads every tree-gram the wrapper's patterns have, by their `treegram:`
/// key or at the default place; files that cannot be read or parsed are
/// reported as warnings and skipped.
pub fn load_treegrams(project: &Project, wrapper: &Wrapper) -> TreeGrams {
    let mut grams = TreeGrams::new();
    for path in wrapper.pattern_paths() {
        let Some(p) = wrapper.pattern(&path) else {
            continue;
        };
        let full = project.treegram_path(wrapper, &path, p);
        match std::fs::read(&full) {
            Ok(bytes) => match TreeGram::parse(&bytes) {
                Ok(g) => grams.insert(path, g),
                Err(e) => tracing::warn!(file = %full.display(), error = %e, "tree-gram skipped"),
            },
            Err(e) if p.treegram.is_some() => {
                tracing::warn!(file = %full.display(), error = %e, "tree-gram not readable")
            }
            Err(_) => {}
        }
    }
    grams
}

/// Captures the tree-grams of `wrapper`'s patterns (of `only`, when given)
/// on a page, stamped with the page's hash and the time now.
pub fn capture_treegrams(
    wrapper: &Wrapper,
    doc: &Document,
    bytes: &[u8],
    url: Option<&str>,
    only: Option<&[PatternPath]>,
) -> (Vec<Captured>, Vec<Skipped>) {
    let sha: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let captured_at = Timestamp::from(SystemTime::now()).to_string();
    let options = CaptureOptions {
        url,
        sha256: &sha,
        captured: &captured_at,
        instances: wrapper.adapt.treegram_instances,
        min_context: wrapper.adapt.treegram_min_context,
        only,
        unstable: &NoMask,
    };
    capture(wrapper, doc, &options)
}

/// What saving captured tree-grams wrote.
#[derive(Debug)]
pub struct Written {
    /// Each file written, with what it holds.
    pub files: Vec<(PathBuf, Captured)>,
    /// Whether the wrapper file was edited to name the files.
    pub wrapper_changed: bool,
}

/// Writes captured tree-grams under the project directory, sets each
/// pattern's `treegram:` key in the wrapper file (its formatting kept), and
/// puts each into `grams`, so that the run heals with them from now on.
pub fn save_treegrams(
    project: &Project,
    captured: Vec<Captured>,
    grams: &mut TreeGrams,
) -> Result<Written, RuntimeError> {
    let mut text = project.read_wrapper()?;
    let original = text.clone();
    let mut files = Vec::new();
    for c in captured {
        let path = project.dir.join(&c.file);
        write_atomically(&path, &c.html)?;
        let names: Vec<&str> = c.pattern.names().iter().map(String::as_str).collect();
        text = wrapper::set_treegram(&text, &names, &c.file).map_err(|error| {
            RuntimeError::Rewrite {
                pattern: c.pattern.clone(),
                error,
            }
        })?;
        match TreeGram::parse(c.html.as_bytes()) {
            Ok(g) => grams.insert(c.pattern.clone(), g),
            Err(e) => tracing::warn!(file = %path.display(), error = %e, "tree-gram skipped"),
        }
        files.push((path, c));
    }
    let wrapper_changed = text != original;
    if wrapper_changed {
        write_atomically(&project.wrapper_path, &text)?;
    }
    Ok(Written {
        files,
        wrapper_changed,
    })
}

/// Refreshes the tree-grams of `patterns` of the wrapper at `wrapper_path`
/// from a stored page (after an approval), and gives the files written.
pub fn refresh_treegrams(
    wrapper_path: &std::path::Path,
    page_html: &[u8],
    url: Option<&str>,
    patterns: &[PatternPath],
) -> Result<Vec<PathBuf>, RuntimeError> {
    let wrapper = wrapper::load_file(wrapper_path).map_err(|e| RuntimeError::Load {
        path: wrapper_path.to_owned(),
        message: e.to_string(),
    })?;
    let doc = Document::parse(page_html);
    let (captured, skipped) = capture_treegrams(&wrapper, &doc, page_html, url, Some(patterns));
    for s in &skipped {
        tracing::warn!(pattern = %s.pattern, reason = %s.reason, "no tree-gram refreshed");
    }
    let project = Project::of(wrapper_path);
    let written = save_treegrams(&project, captured, &mut TreeGrams::new())?;
    Ok(written.files.into_iter().map(|(p, _)| p).collect())
}
