//! Heals decided elsewhere, merged into a wrapper file: a crawl job's
//! workers decide heals on the job's copy of the wrapper (in PostgreSQL),
//! and the command that submitted the job brings them home.
//!
//! The merge goes through the wrapper-change protocol like every other
//! change: under the wrapper's lock, reconciling first, it reads the file
//! as it is now and, pattern by pattern, writes the decided XPath only
//! where the file still holds the XPath the decision replaced (the decided
//! wrapper's `history` holds it); a pattern someone changed meanwhile is
//! left as it is and reported. The healed patterns' tree-grams come along
//! when the decided ones differ. The change is journaled in the store
//! beside the wrapper, so a crash midway is rolled forward or back.
//!
//! It refuses to merge anything but XPaths: the decided wrapper's other
//! edits (none are made by healing) are not carried over.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Carried, Project, RuntimeError, WrapperLock, make_change, reconcile};
use crate::store::{ChangeKind, FileChange, Store};
use crate::wrapper::{self, PatternPath};

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Patterns whose XPath the file now holds, with the old and new XPath.
    pub written: Vec<(PatternPath, String, String)>,
    /// Patterns left alone, with why.
    pub left: Vec<(PatternPath, String)>,
    /// Tree-gram files written.
    pub treegrams: Vec<PathBuf>,
}

/// Merges the XPaths of `decided` (a wrapper's text) into the wrapper file
/// at `wrapper_path`, with the decided tree-grams (`treegrams`, by path
/// relative to the project folder) of the patterns it heals, as one change
/// journaled in `store`.
pub fn merge_decided(
    wrapper_path: &Path,
    store: &mut Store,
    decided: &str,
    treegrams: &BTreeMap<String, String>,
) -> Result<Merged, RuntimeError> {
    let project = Project::of(wrapper_path);
    let name = wrapper_path.display().to_string();
    let load = |text: &str| {
        wrapper::load_str(text, &name).map_err(|d| RuntimeError::Load {
            path: wrapper_path.to_owned(),
            message: wrapper::render_all(&d),
        })
    };
    let decided_wrapper = load(decided)?;
    let lock = WrapperLock::acquire(wrapper_path)?;
    reconcile(store, &lock)?;
    let before = project.read_wrapper()?;
    let current = load(&before)?;
    let mut merged = Merged::default();
    let mut text = before.clone();
    let mut files = Vec::new();
    for path in decided_wrapper.pattern_paths() {
        let (Some(new), Some(now)) = (decided_wrapper.pattern(&path), current.pattern(&path))
        else {
            continue;
        };
        let (new_xpath, old_xpath) = (new.xpath.source(), now.xpath.source());
        if new_xpath == old_xpath {
            continue;
        }
        if !new.history.iter().any(|h| h == old_xpath) {
            merged.left.push((
                path.clone(),
                format!("the file's XPath {old_xpath} is not the one the job healed"),
            ));
            continue;
        }
        let names: Vec<&str> = path.names().iter().map(String::as_str).collect();
        match wrapper::replace_xpath(&text, &names, new_xpath) {
            Ok(t) => text = t,
            Err(e) => {
                merged.left.push((path.clone(), e.to_string()));
                continue;
            }
        }
        merged
            .written
            .push((path.clone(), old_xpath.to_owned(), new_xpath.to_owned()));
        let file = project.treegram_path(&current, &path, now);
        let Ok(relative) = file.strip_prefix(&project.dir) else {
            continue;
        };
        let key = relative.to_string_lossy().replace('\\', "/");
        let Some(gram) = treegrams.get(&key) else {
            continue;
        };
        let old = super::read_current(&file)?;
        if old.as_deref() != Some(gram.as_bytes()) {
            merged.treegrams.push(file.clone());
            files.push(FileChange {
                path: file,
                before: old,
                after: gram.clone().into_bytes(),
            });
        }
    }
    if merged.written.is_empty() {
        return Ok(merged);
    }
    files.push(FileChange {
        path: lock.wrapper().to_owned(),
        before: Some(before.into_bytes()),
        after: text.into_bytes(),
    });
    let ((), carried) = make_change(store, &lock, ChangeKind::Heal, &files, |_, _| Ok(()))?;
    if let Carried::Unmarked(e) = carried {
        tracing::warn!(error = %e, "files written; the store could not mark the change done");
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRAPPER: &str = "name: shop\npatterns:\n  # the price\n  - name: price\n    xpath: //span[@class='price']\n  - name: title\n    xpath: //h1\n";

    fn project() -> (tempfile::TempDir, PathBuf, Store) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.yaml");
        std::fs::write(&path, WRAPPER).unwrap();
        let store = Store::open(&dir.path().join(".mend/mend.db")).unwrap();
        (dir, path, store)
    }

    fn decided(price: &str, title: &str) -> String {
        let mut text = WRAPPER.to_owned();
        if price != "//span[@class='price']" {
            text = wrapper::replace_xpath(&text, &["price"], price).unwrap();
        }
        if title != "//h1" {
            text = wrapper::replace_xpath(&text, &["title"], title).unwrap();
        }
        text
    }

    #[test]
    fn a_decided_xpath_is_written_with_its_history_and_the_comments_kept() {
        let (_dir, path, mut store) = project();
        let merged = merge_decided(
            &path,
            &mut store,
            &decided("//b[@itemprop='price']", "//h1"),
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(merged.written.len(), 1);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("# the price"), "{text}");
        let w = wrapper::load_str(&text, "shop.yaml").unwrap();
        let price = w.pattern(&"price".parse().unwrap()).unwrap();
        assert_eq!(price.xpath.source(), "//b[@itemprop='price']");
        assert_eq!(price.history, ["//span[@class='price']"]);
        assert!(store.pending_changes(None).unwrap().is_empty());
    }

    #[test]
    fn a_pattern_someone_changed_meanwhile_is_left_alone() {
        let (_dir, path, mut store) = project();
        let edited = WRAPPER.replace("//h1", "//h1[@id='t']");
        std::fs::write(&path, &edited).unwrap();
        let merged = merge_decided(
            &path,
            &mut store,
            &decided("//span[@class='price']", "//h2"),
            &BTreeMap::new(),
        )
        .unwrap();
        assert!(merged.written.is_empty());
        assert_eq!(merged.left.len(), 1);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    }

    #[test]
    fn the_healed_patterns_tree_gram_comes_along() {
        let (dir, path, mut store) = project();
        let grams = BTreeMap::from([(
            "treegrams/shop/price.html".to_owned(),
            "<b itemprop=\"price\">1</b>".to_owned(),
        )]);
        let merged = merge_decided(
            &path,
            &mut store,
            &decided("//b[@itemprop='price']", "//h1"),
            &grams,
        )
        .unwrap();
        let file = dir.path().join("treegrams/shop/price.html");
        assert_eq!(merged.treegrams, std::slice::from_ref(&file));
        assert_eq!(
            std::fs::read_to_string(file).unwrap(),
            "<b itemprop=\"price\">1</b>"
        );
    }
}
