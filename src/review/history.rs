//! A wrapper's history as the store keeps it: its versions (each change
//! of the wrapper-change protocol, with the wrapper file as it left it) and
//! the versions of its pages (each page its tree-grams were captured on,
//! each page a heal or a proposal was found on), with their times; and the
//! comparison of any two of them: the YAML diff of two wrapper versions, a
//! structural summary of two pages.
//!
//! ## What it refuses
//!
//! Only changes journaled for the file's canonical path count, and one that
//! did not write the wrapper file is no wrapper version; `w0` exists only
//! when the first change kept the file's text before it. A page prefix of
//! `p` alone names no page. The page summary lists at most 20 tags, ids and
//! classes each, and gives a similarity of 0 when either page has no root
//! element. Only a store that cannot be read is an error.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::ReviewError;
use crate::dom::Document;
use crate::similarity::{Algorithm, LabelMode, LabeledTree, Labels, similarity};
use crate::store::{AdaptationFilter, ChangeState, Store, Timestamp};

/// A wrapper's versions and its pages' versions, oldest first.
#[derive(Clone, Debug, Default, Serialize)]
pub struct History {
    /// The wrapper file's versions.
    pub wrapper_versions: Vec<WrapperVersion>,
    /// The pages met, each content once.
    pub page_versions: Vec<PageVersion>,
}

/// The wrapper file as one change left it.
#[derive(Clone, Debug, Serialize)]
pub struct WrapperVersion {
    /// `w` and the change's id (`w7`), as `mend diff` names it.
    pub name: String,
    /// What made the change: heal, approve, snapshot, revert, harden.
    pub kind: String,
    /// Whether it is done, pending or rolled back.
    pub state: String,
    /// When it began.
    pub at: Timestamp,
    /// The other files it wrote (tree-grams, templates).
    pub files: Vec<String>,
    /// The patterns whose XPath it set, with the XPath.
    pub xpaths: Vec<(String, String)>,
    /// The wrapper file's text after the change; the text before the first
    /// change is version `w0`.
    #[serde(skip)]
    pub text: String,
}

/// A page the wrapper met, by content.
#[derive(Clone, Debug, Serialize)]
pub struct PageVersion {
    /// `p` and the first 12 hexadecimal digits of its SHA-256 (`p3fa9c2d41b07`).
    pub name: String,
    /// Its SHA-256, in hex.
    pub sha256: String,
    /// The page's URL or file, as first met.
    pub page: String,
    /// When it was first met.
    pub at: Timestamp,
    /// Why the store has it: `capture` (a tree-gram's page), `adaptation`
    /// (a page a heal or proposal was found on), or both.
    pub roles: Vec<String>,
    /// The patterns concerned.
    pub patterns: Vec<String>,
}

/// A structural comparison of two pages.
#[derive(Clone, Debug, Serialize)]
pub struct PageDiff {
    /// Elements of each page.
    pub elements: (usize, usize),
    /// The similarity of their element trees by simple tree matching on
    /// tag and class labels, normalised to [0, 1].
    pub similarity: f64,
    /// Tags whose count changed, with the counts before and after, the
    /// largest changes first (at most 20).
    pub tags: Vec<(String, usize, usize)>,
    /// Ids present on one page only: removed, then added (at most 20 each).
    pub ids_removed: Vec<String>,
    /// See `ids_removed`.
    pub ids_added: Vec<String>,
    /// Class tokens present on one page only: removed, then added (at most
    /// 20 each).
    pub classes_removed: Vec<String>,
    /// See `classes_removed`.
    pub classes_added: Vec<String>,
}

/// The history of the wrapper named `wrapper`, whose file's canonical path
/// is `canonical`, in `store`.
pub fn history(store: &Store, canonical: &Path, wrapper: &str) -> Result<History, ReviewError> {
    let mut out = History::default();
    let mut changes = store.changes(Some(canonical), None)?;
    changes.reverse();
    for change in changes {
        let Some(file) = change.files.iter().find(|f| f.path == change.wrapper_path) else {
            continue;
        };
        if out.wrapper_versions.is_empty()
            && let Some(before) = &file.before
        {
            out.wrapper_versions.push(WrapperVersion {
                name: "w0".to_owned(),
                kind: "before".to_owned(),
                state: "done".to_owned(),
                at: change.started_at,
                files: Vec::new(),
                xpaths: Vec::new(),
                text: String::from_utf8_lossy(before).into_owned(),
            });
        }
        out.wrapper_versions.push(WrapperVersion {
            name: format!("w{}", change.id.0),
            kind: change.kind.as_str().to_owned(),
            state: match change.state {
                ChangeState::Done => "done",
                ChangeState::Pending => "pending",
                ChangeState::RolledBack => "rolled back",
            }
            .to_owned(),
            at: change.started_at,
            files: change
                .files
                .iter()
                .filter(|f| f.path != change.wrapper_path)
                .map(|f| f.path.display().to_string())
                .collect(),
            xpaths: change
                .effects
                .iter()
                .map(|e| (e.pattern.clone(), e.new_xpath.clone()))
                .collect(),
            text: String::from_utf8_lossy(&file.after).into_owned(),
        });
    }
    let mut pages: BTreeMap<String, PageVersion> = BTreeMap::new();
    let mut meet = |sha: &str, page: &str, at: Timestamp, role: &str, pattern: &str| {
        let v = pages.entry(sha.to_owned()).or_insert_with(|| PageVersion {
            name: format!("p{}", &sha[..sha.len().min(12)]),
            sha256: sha.to_owned(),
            page: page.to_owned(),
            at,
            roles: Vec::new(),
            patterns: Vec::new(),
        });
        if at < v.at {
            v.at = at;
            v.page = page.to_owned();
        }
        if !v.roles.iter().any(|r| r == role) {
            v.roles.push(role.to_owned());
        }
        if !v.patterns.iter().any(|p| p == pattern) {
            v.patterns.push(pattern.to_owned());
        }
    };
    for c in store.captures(wrapper)? {
        meet(&c.sha256, &c.name, c.captured_at, "capture", &c.pattern);
    }
    let filter = AdaptationFilter {
        wrapper: Some(wrapper),
        ..AdaptationFilter::default()
    };
    for a in store.adaptations(&filter)? {
        if let Some(page) = store.page(a.page_id)? {
            meet(
                &page.sha256,
                &page.url_or_path,
                a.created_at,
                "adaptation",
                &a.pattern,
            );
        }
    }
    out.page_versions = pages.into_values().collect();
    out.page_versions
        .sort_by(|a, b| a.at.cmp(&b.at).then(a.sha256.cmp(&b.sha256)));
    Ok(out)
}

impl History {
    /// The wrapper version named `name` (`w7`, `w0`).
    pub fn wrapper_version(&self, name: &str) -> Option<&WrapperVersion> {
        self.wrapper_versions.iter().find(|v| v.name == name)
    }

    /// The page versions whose name starts with `name` (`p3fa9`): one, or
    /// several when the prefix is ambiguous.
    pub fn page_versions(&self, name: &str) -> Vec<&PageVersion> {
        self.page_versions
            .iter()
            .filter(|v| name.len() > 1 && format!("p{}", v.sha256).starts_with(name))
            .collect()
    }
}

/// The unified diff of two wrapper versions of the file `file`.
pub fn wrapper_diff(a: &WrapperVersion, b: &WrapperVersion, file: &Path) -> String {
    super::inspect::unified_diff(&a.text, &b.text, file)
}

/// A structural summary of how page `b` differs from page `a`.
pub fn page_diff(a: &Document, b: &Document) -> PageDiff {
    let count = |d: &Document| -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for n in d.all().filter(|&n| d.is_element(n)) {
            *m.entry(d.name(n).to_owned()).or_insert(0) += 1;
        }
        m
    };
    let (ta, tb) = (count(a), count(b));
    let mut tags: Vec<(String, usize, usize)> = ta
        .keys()
        .chain(tb.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|t| {
            (
                t.clone(),
                ta.get(t).copied().unwrap_or(0),
                tb.get(t).copied().unwrap_or(0),
            )
        })
        .filter(|(_, x, y)| x != y)
        .collect();
    tags.sort_by_key(|(t, x, y)| (std::cmp::Reverse(x.abs_diff(*y)), t.clone()));
    tags.truncate(20);
    let ids = |d: &Document| -> std::collections::BTreeSet<String> {
        d.all()
            .filter(|&n| d.is_element(n))
            .filter_map(|n| d.attr(n, "id").map(str::to_owned))
            .collect()
    };
    let (ia, ib) = (ids(a), ids(b));
    let classes = |d: &Document| -> std::collections::BTreeSet<String> {
        d.all()
            .filter(|&n| d.is_element(n))
            .filter_map(|n| d.attr(n, "class"))
            .flat_map(|c| c.split_ascii_whitespace().map(str::to_owned))
            .collect()
    };
    let (ca, cb) = (classes(a), classes(b));
    let similarity = match (a.root_element(), b.root_element()) {
        (Some(ra), Some(rb)) => {
            let mut labels = Labels::new();
            match (
                LabeledTree::build(a, ra, LabelMode::TagClass, &mut labels),
                LabeledTree::build(b, rb, LabelMode::TagClass, &mut labels),
            ) {
                (Ok(x), Ok(y)) if !x.is_empty() || !y.is_empty() => {
                    let matched = similarity(Algorithm::Stm, &x, &y);
                    2.0 * matched / (x.len() + y.len()) as f64
                }
                _ => 0.0,
            }
        }
        _ => 0.0,
    };
    PageDiff {
        elements: (a.element_count(), b.element_count()),
        similarity,
        tags,
        ids_removed: ia.difference(&ib).take(20).cloned().collect(),
        ids_added: ib.difference(&ia).take(20).cloned().collect(),
        classes_removed: ca.difference(&cb).take(20).cloned().collect(),
        classes_added: cb.difference(&ca).take(20).cloned().collect(),
    }
}
