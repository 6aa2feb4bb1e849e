//! What a person is shown of one adaptation before deciding it, whoever
//! shows it (`mend show`, the review page): the wrapper file the run used
//! and the diff approving would make to it, the XPaths of a nested
//! pattern's parents on each side (so that the old and new XPath are
//! evaluated in their parents' instances, not from the root), and the
//! preview of the new XPath on the stored pages.
//! The presentation (text, JSON, HTML) is the caller's.
//!
//! ## What it refuses
//!
//! What cannot be shown (the wrapper file moved or no longer loads, the
//! pattern gone from it, no new XPath, a parent not found) is a note, not
//! an error: a reviewer still sees the rest. Only a store that cannot be
//! read, or a run missing from it, is an error. A parent adapted on the
//! same page stands in for the wrapper's only while proposed or applied.
//! It writes nothing: the diff is of the file's text rewritten in memory.
//! [`Parents::select`] fails, naming the XPath, on one that does not
//! compile or evaluate.

use std::path::{Path, PathBuf};

use super::ReviewError;
use super::preview::{self, PagePreview};
use crate::dom::Document;
use crate::store::{AdaptationFilter, AdaptationId, AdaptationRecord, AdaptationStatus, Store};
use crate::wrapper::{PatternPath, Wrapper, replace_xpath};
use crate::xpath::{Item, XPath};

/// What a reviewer is shown besides the record.
#[derive(Debug)]
pub struct Inspection {
    /// The wrapper file as the run recorded it.
    pub recorded_wrapper: PathBuf,
    /// The wrapper file found from that, if it was found.
    pub wrapper_file: Option<PathBuf>,
    /// The wrapper as that file holds it now, if it loads.
    pub wrapper: Option<Wrapper>,
    /// Where the adaptation's page came from.
    pub page: Option<String>,
    /// The unified diff of the wrapper file that approving would make.
    pub yaml_diff: Option<String>,
    /// The parents' XPaths on each side, when every parent was found.
    pub parents: Option<Parents>,
    /// The new XPath on every stored page of the run and of the entry.
    pub preview: Option<Vec<PagePreview>>,
    /// Parents adapted on the same page whose proposals still wait, by
    /// pattern path: the preview evaluates this pattern in the wrapper
    /// file's parent instances, so it says what approving this one alone
    /// would do, and a person should decide the parent first.
    pub pending_parents: Vec<(String, AdaptationId)>,
    /// What could not be shown, and why.
    pub notes: Vec<String>,
}

/// The XPaths of a nested pattern's parents, outermost first, on the side
/// of the old XPath and on the side of the new one. A top-level pattern
/// has none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parents {
    /// With the old XPath: a parent adapted on the same page has its old
    /// XPath here.
    pub before: Vec<String>,
    /// With the new XPath: that parent's new XPath.
    pub after: Vec<String>,
}

/// Which XPath of an adaptation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The XPath the adaptation replaces.
    Old,
    /// The XPath it proposes or applied.
    New,
}

impl Parents {
    /// The items `source` selects on `doc` when it is evaluated in every
    /// instance of the parents of `side`, in document order without
    /// repeats; the error says which XPath failed and how.
    pub fn select(&self, doc: &Document, side: Side, source: &str) -> Result<Vec<Item>, String> {
        let chain = match side {
            Side::Old => &self.before,
            Side::New => &self.after,
        };
        let parents = chain
            .iter()
            .map(|p| XPath::compile(p).map_err(|e| format!("the parent XPath {p}: {}", e.message)))
            .collect::<Result<Vec<_>, _>>()?;
        let target = XPath::compile(source).map_err(|e| format!("{source}: {}", e.message))?;
        let parents: Vec<&XPath> = parents.iter().collect();
        select_nested(doc, &parents, &target).map_err(|e| format!("{source}: {}", e.message))
    }
}

/// Gathers what a reviewer is shown of `record`, from `store` (read from
/// `store_path`, beside which a wrapper file named by a relative path is
/// looked for).
pub fn inspect(
    store: &Store,
    store_path: &Path,
    record: &AdaptationRecord,
) -> Result<Inspection, ReviewError> {
    let recorded_wrapper = super::recorded_wrapper_path(store, record)?;
    let mut notes = Vec::new();
    let page = store.page(record.page_id)?.map(|p| p.url_or_path);
    let wrapper_file = super::wrapper_file(&recorded_wrapper, store_path)
        .map_err(|message| notes.push(message))
        .ok();
    let text = wrapper_file.as_ref().and_then(|file| {
        std::fs::read_to_string(file)
            .map_err(|e| notes.push(format!("cannot read {}: {e}", file.display())))
            .ok()
    });
    let wrapper = match (&text, &wrapper_file) {
        (Some(text), Some(file)) => super::load_wrapper_text(text, file)
            .map_err(|d| notes.push(format!("the wrapper file does not load now:\n{d}")))
            .ok(),
        _ => None,
    };
    let current = wrapper
        .as_ref()
        .zip(record.pattern.parse::<PatternPath>().ok())
        .and_then(|(w, path)| w.pattern(&path))
        .map(|p| p.xpath.source().to_owned());
    if wrapper.is_some() && current.is_none() {
        notes.push(format!(
            "the wrapper file has no pattern {} now",
            record.pattern
        ));
    }
    let yaml_diff = match (&text, &wrapper_file) {
        (Some(text), Some(file)) => yaml_diff(record, text, file, current.as_deref(), &mut notes),
        _ => None,
    };
    if record.new_xpath.is_none() {
        notes.push(format!(
            "the adaptation is {} and has no new XPath, so there is no change to show",
            record.status
        ));
    }
    let mut pending_parents = Vec::new();
    let parents = parent_xpaths(
        store,
        record,
        wrapper.as_ref(),
        &mut notes,
        &mut pending_parents,
    )?;
    if parents.is_none() {
        notes.push(format!(
            "cannot find the parents of {} in the wrapper, so no matches can be shown",
            record.pattern
        ));
    }
    let preview = match &wrapper {
        Some(w) if record.new_xpath.is_some() => match preview::preview(store, record, w)? {
            Ok(pages) => Some(pages),
            Err(why) => {
                notes.push(format!("no preview on the stored pages: {why}"));
                None
            }
        },
        _ => None,
    };
    Ok(Inspection {
        recorded_wrapper,
        wrapper_file,
        wrapper,
        page,
        yaml_diff,
        parents,
        preview,
        pending_parents,
        notes,
    })
}

/// The parents' XPaths of `record`'s pattern on each side, as [`inspect`]
/// finds them, without the rest of an inspection: what a page that only
/// marks a selection needs. `None` when a parent is not found.
pub fn parents_of(
    store: &Store,
    store_path: &Path,
    record: &AdaptationRecord,
) -> Result<Option<Parents>, ReviewError> {
    if !record.pattern.contains('/') {
        return Ok(Some(Parents::default()));
    }
    let recorded = super::recorded_wrapper_path(store, record)?;
    let wrapper = super::find_wrapper_file(&recorded, store_path)
        .and_then(|file| Some((std::fs::read_to_string(&file).ok()?, file)))
        .and_then(|(text, file)| super::load_wrapper_text(&text, &file).ok());
    parent_xpaths(
        store,
        record,
        wrapper.as_ref(),
        &mut Vec::new(),
        &mut Vec::new(),
    )
}

/// The diff approving `record` would make to the wrapper `text` read from
/// `file`, whose pattern has the XPath `current` now; `None`, with a note,
/// where there is none to show.
fn yaml_diff(
    record: &AdaptationRecord,
    text: &str,
    file: &Path,
    current: Option<&str>,
    notes: &mut Vec<String>,
) -> Option<String> {
    let new = record.new_xpath.as_deref()?;
    if current == Some(new) {
        notes.push("the wrapper file already holds the new XPath".to_owned());
        return None;
    }
    if let Some(current) = current.filter(|c| *c != record.old_xpath) {
        notes.push(format!(
            "the wrapper file has changed since: the XPath of {} is now {current}, not the \
             adaptation's old XPath {}",
            record.pattern, record.old_xpath
        ));
    }
    let names: Vec<&str> = record.pattern.split('/').collect();
    match replace_xpath(text, &names, new) {
        Ok(edited) => Some(unified_diff(text, &edited, file)),
        Err(e) => {
            notes.push(format!("cannot show the change to the wrapper: {e}"));
            None
        }
    }
}

/// The unified diff from `old` to `new`, both named `file`, with three
/// lines of context.
pub(crate) fn unified_diff(old: &str, new: &str, file: &Path) -> String {
    let name = file.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
}

/// The parents' XPaths as the run used them on the page. A parent adapted
/// on the same page (healing a record pattern, then its fields) has its old
/// XPath before and its new one after; any other parent has its XPath in
/// the wrapper file. `None` when a parent is neither.
fn parent_xpaths(
    store: &Store,
    record: &AdaptationRecord,
    wrapper: Option<&Wrapper>,
    notes: &mut Vec<String>,
    pending: &mut Vec<(String, AdaptationId)>,
) -> Result<Option<Parents>, ReviewError> {
    let names: Vec<&str> = record.pattern.split('/').collect();
    let mut parents = Parents::default();
    for depth in 1..names.len() {
        let path = names[..depth].join("/");
        let filter = AdaptationFilter {
            run: Some(record.run_id),
            pattern: Some(&path),
            ..AdaptationFilter::default()
        };
        let adapted = store.adaptations(&filter)?.into_iter().find(|a| {
            a.page_id == record.page_id
                && matches!(
                    a.status,
                    AdaptationStatus::Proposed | AdaptationStatus::Applied
                )
        });
        if let Some(parent) = adapted
            && let Some(new) = parent.new_xpath.clone()
        {
            if parent.is_pending() {
                pending.push((path.clone(), parent.id));
            }
            notes.push(format!(
                "{path} was adapted on this page too (adaptation {}, {}{}): the old XPath is \
                 shown in its old instances, the new one in its new instances",
                parent.id,
                parent.status,
                parent
                    .decision
                    .map(|d| format!(", {}", d.verdict))
                    .unwrap_or_default()
            ));
            parents.before.push(parent.old_xpath);
            parents.after.push(new);
            continue;
        }
        let Some(pattern) = wrapper
            .zip(path.parse::<PatternPath>().ok())
            .and_then(|(w, p)| w.pattern(&p))
        else {
            return Ok(None);
        };
        parents.before.push(pattern.xpath.source().to_owned());
        parents.after.push(pattern.xpath.source().to_owned());
    }
    Ok(Some(parents))
}

/// The items `target` selects, in document order without repeats, when it
/// is evaluated in every instance of the last of `parents`, each parent
/// being evaluated in every instance of the one before, from the document
/// node: a nested pattern's matches on a whole page.
fn select_nested(
    doc: &Document,
    parents: &[&XPath],
    target: &XPath,
) -> Result<Vec<Item>, crate::xpath::EvalError> {
    let mut items = Vec::new();
    for context in crate::xpath::select_nested(doc, parents)? {
        items.extend(target.select_item(doc, context)?);
    }
    items.sort_unstable();
    items.dedup();
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(doc: &Document, parents: &[&str], source: &str) -> Vec<String> {
        let parents = Parents {
            before: parents.iter().map(|p| (*p).to_owned()).collect(),
            after: Vec::new(),
        };
        parents
            .select(doc, Side::Old, source)
            .unwrap()
            .iter()
            .map(|i| i.path(doc))
            .collect()
    }

    #[test]
    fn nested_patterns_are_evaluated_in_each_parent_instance() {
        let doc = Document::parse_str(
            "<ul><li><p>1</p><p>2</p></li><li><p>3</p></li></ul><p>outside</p>",
        );
        assert_eq!(
            paths(&doc, &["//li"], "./p[1]"),
            ["/html/body/ul/li[1]/p[1]", "/html/body/ul/li[2]/p"]
        );
        // Overlapping contexts give each node once, in document order.
        assert_eq!(paths(&doc, &["//li"], "//p").len(), 4);
        // From the root, a relative XPath selects what it selects there.
        assert!(paths(&doc, &[], "./p[1]").is_empty());
        assert!(paths(&doc, &[], "//li/@x").is_empty());
    }

    #[test]
    fn a_side_selects_with_its_own_parents() {
        let doc = Document::parse_str("<ul><li><b>1</b></li></ul><ol><li><b>2</b></li></ol>");
        let parents = Parents {
            before: vec!["//ul/li".to_owned()],
            after: vec!["//ol/li".to_owned()],
        };
        let text = |side| -> Vec<String> {
            parents
                .select(&doc, side, "./b")
                .unwrap()
                .iter()
                .map(|i| i.path(&doc))
                .collect()
        };
        assert_eq!(text(Side::Old), ["/html/body/ul/li/b"]);
        assert_eq!(text(Side::New), ["/html/body/ol/li/b"]);
    }

    #[test]
    fn an_xpath_that_does_not_compile_is_named_in_the_error() {
        let doc = Document::parse_str("<p>1</p>");
        let parents = Parents {
            before: vec!["//[".to_owned()],
            after: Vec::new(),
        };
        let e = parents.select(&doc, Side::Old, "./p").unwrap_err();
        assert!(e.starts_with("the parent XPath //["), "{e}");
        let e = parents.select(&doc, Side::New, "//[").unwrap_err();
        assert!(e.starts_with("//["), "{e}");
    }
}
