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
//! The heals themselves, as the deciding store recorded them, are recorded
//! in the store in the same transaction as the change, tied to it as a
//! local run's applied heals are, so that `mend show`, `revert` and the
//! review page act on them; a heal of a pattern someone changed meanwhile
//! is recorded as a proposal for a person to decide.
//!
//! It refuses to merge anything but XPaths: the decided wrapper's other
//! edits (none are made by healing) are not carried over.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{
    Carried, DecidedHeal, Project, RuntimeError, WrapperLock, clock::now, make_change, reconcile,
};
use crate::store::{
    AdaptationId, AdaptationStatus, Batch, ChangeId, ChangeKind, FileChange, RunId, Store,
    StoreError,
};
use crate::wrapper::{self, HealMode, PatternPath};

/// What was decided elsewhere: the wrapper's text, tree-grams and heals.
#[derive(Clone, Copy, Debug)]
pub struct Decided<'a> {
    /// The decided wrapper's text.
    pub wrapper: &'a str,
    /// The decided tree-grams, by path relative to the project folder.
    pub treegrams: &'a BTreeMap<String, String>,
    /// The heals that decided it, as the deciding store recorded them.
    pub heals: &'a [DecidedHeal],
    /// Who decided, in words (`crawl job 7`), for the heals' reasons.
    pub by: &'a str,
}

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Patterns whose XPath the file now holds, with the old and new XPath.
    pub written: Vec<(PatternPath, String, String)>,
    /// Patterns left alone, with why.
    pub left: Vec<(PatternPath, String)>,
    /// Tree-gram files written.
    pub treegrams: Vec<PathBuf>,
    /// The heals recorded in the store.
    pub recorded: Vec<RecordedHeal>,
}

/// A decided heal as the store now holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedHeal {
    /// The pattern's path of names.
    pub pattern: String,
    /// The XPath it found.
    pub new_xpath: String,
    /// Its id in the store.
    pub id: AdaptationId,
    /// Applied (the file holds it), or proposed (the file had changed).
    pub status: AdaptationStatus,
}

/// Merges the XPaths of `decided` into the wrapper file at `wrapper_path`,
/// with the decided tree-grams of the patterns it heals and the heals
/// recorded, as one change journaled in `store`.
pub fn merge_decided(
    wrapper_path: &Path,
    store: &mut Store,
    decided: Decided<'_>,
) -> Result<Merged, RuntimeError> {
    let project = Project::of(wrapper_path);
    let name = wrapper_path.display().to_string();
    let load = |text: &str| {
        wrapper::load_str(text, &name).map_err(|d| RuntimeError::Load {
            path: wrapper_path.to_owned(),
            message: wrapper::render_all(&d),
        })
    };
    let decided_wrapper = load(decided.wrapper)?;
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
        let Some(gram) = decided.treegrams.get(&key) else {
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
    let (applied, proposed) = sort_heals(&decided, &decided_wrapper, &merged);
    let run = match applied.is_empty() && proposed.is_empty() {
        true => None,
        false => Some(
            store
                .begin_run(&current.name, wrapper_path, HealMode::Auto, now())
                .map_err(|e| RuntimeError::store("cannot record the decided heals", e))?,
        ),
    };
    if !merged.written.is_empty() {
        files.push(FileChange {
            path: lock.wrapper().to_owned(),
            before: Some(before.into_bytes()),
            after: text.into_bytes(),
        });
        let (recorded, carried) =
            make_change(store, &lock, ChangeKind::Heal, &files, |batch, change| {
                record_heals(batch, run, &applied, Some(change), decided.by)
            })?;
        if let Carried::Unmarked(e) = carried {
            tracing::warn!(error = %e, "files written; the store could not mark the change done");
        }
        merged.recorded = recorded;
    }
    if let Some(run) = run {
        let failed = |e| RuntimeError::store("cannot record the decided heals", e);
        let mut batch = store.batch().map_err(failed)?;
        let proposals = record_heals(&mut batch, Some(run), &proposed, None, decided.by);
        merged.recorded.extend(proposals.map_err(failed)?);
        batch.commit().map_err(failed)?;
        let count = u64::try_from(merged.recorded.len()).unwrap_or(0);
        store.finish_run(run, now(), count, 0).map_err(failed)?;
    }
    Ok(merged)
}

/// The decided heals the merge records: those of the patterns it wrote
/// (every step, oldest first), applied; and the last step of those of the
/// patterns it left, proposed. Heals of a pattern whose file already held
/// the decided XPath were recorded by the merge that wrote it.
fn sort_heals<'a>(
    decided: &Decided<'a>,
    wrapper: &wrapper::Wrapper,
    merged: &Merged,
) -> (Vec<&'a DecidedHeal>, Vec<&'a DecidedHeal>) {
    let written = |h: &DecidedHeal| {
        merged
            .written
            .iter()
            .any(|(p, ..)| p.to_string() == h.record.pattern)
    };
    let left = |h: &DecidedHeal| {
        merged.left.iter().any(|(p, _)| {
            p.to_string() == h.record.pattern
                && wrapper.pattern(p).map(|p| p.xpath.source()) == h.record.new_xpath.as_deref()
        })
    };
    let applied = decided.heals.iter().filter(|h| written(h)).collect();
    let proposed = decided.heals.iter().filter(|h| left(h)).collect();
    (applied, proposed)
}

/// Records `heals` in run `run`: applied by `change` when there is one,
/// else proposed for a person (the file had changed meanwhile).
fn record_heals(
    batch: &mut Batch<'_>,
    run: Option<RunId>,
    heals: &[&DecidedHeal],
    change: Option<ChangeId>,
    by: &str,
) -> Result<Vec<RecordedHeal>, StoreError> {
    let Some(run) = run else {
        return Ok(Vec::new());
    };
    let mut recorded = Vec::new();
    for heal in heals {
        let Some(new_xpath) = heal.record.new_xpath.clone() else {
            continue;
        };
        let said = heal.record.reason.as_deref().unwrap_or("applied");
        let (status, reason) = match change {
            Some(_) => (
                AdaptationStatus::Applied,
                format!("decided by {by}: {said}"),
            ),
            None => (
                AdaptationStatus::Proposed,
                format!(
                    "decided by {by}, but the wrapper file had changed since: a person decides ({said})"
                ),
            ),
        };
        let id = heal.record(batch, run, status, &reason)?;
        if let Some(change) = change {
            batch.apply_in_change(id, change)?;
        }
        recorded.push(RecordedHeal {
            pattern: heal.record.pattern.clone(),
            new_xpath,
            id,
            status,
        });
    }
    Ok(recorded)
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

    fn merge(
        path: &Path,
        store: &mut Store,
        wrapper: &str,
        treegrams: &BTreeMap<String, String>,
    ) -> Merged {
        let decided = Decided {
            wrapper,
            treegrams,
            heals: &[],
            by: "a test",
        };
        merge_decided(path, store, decided).unwrap()
    }

    /// Merges `wrapper` with the `heals` a crawl job decided.
    fn merge_heals(path: &Path, store: &mut Store, wrapper: &str, heals: &[DecidedHeal]) -> Merged {
        let decided = Decided {
            wrapper,
            treegrams: &BTreeMap::new(),
            heals,
            by: "crawl job 7",
        };
        merge_decided(path, store, decided).unwrap()
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
        let merged = merge(
            &path,
            &mut store,
            &decided("//b[@itemprop='price']", "//h1"),
            &BTreeMap::new(),
        );
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
        let merged = merge(
            &path,
            &mut store,
            &decided("//span[@class='price']", "//h2"),
            &BTreeMap::new(),
        );
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
        let merged = merge(
            &path,
            &mut store,
            &decided("//b[@itemprop='price']", "//h1"),
            &grams,
        );
        let file = dir.path().join("treegrams/shop/price.html");
        assert_eq!(merged.treegrams, std::slice::from_ref(&file));
        assert_eq!(
            std::fs::read_to_string(file).unwrap(),
            "<b itemprop=\"price\">1</b>"
        );
    }

    /// The heal another store decided for `price`, on one page kept whole.
    fn decided_elsewhere(dir: &Path) -> Vec<DecidedHeal> {
        let mut other = Store::open(&dir.join("job.db")).unwrap();
        let run = other
            .begin_run("shop", &dir.join("shop.yaml"), HealMode::Auto, now())
            .unwrap();
        let page = other
            .record_page(
                run,
                "http://127.0.0.1/p/1",
                b"<b itemprop=price>1</b>",
                true,
            )
            .unwrap();
        let heal = crate::store::NewAdaptation {
            page_id: page,
            pattern: "price".to_owned(),
            old_xpath: "//span[@class='price']".to_owned(),
            new_xpath: Some("//b[@itemprop='price']".to_owned()),
            algorithm: Some("ctm".to_owned()),
            score: Some(0.9),
            runner_up: Some(0.2),
            status: AdaptationStatus::Applied,
            change_scope: None,
            reason: Some("held on 3 pages".to_owned()),
            model: None,
            confidence: Some(0.95),
            candidates: Vec::new(),
            samples_before: Vec::new(),
            samples_after: vec![serde_json::json!("1")],
            constraint_results: Vec::new(),
            created_at: now(),
        };
        other.record_adaptation(&heal).unwrap();
        DecidedHeal::read_all(&other, RunId(0)).unwrap()
    }

    #[test]
    fn a_decided_heal_is_recorded_applied_by_the_change_that_writes_it() {
        let (dir, path, mut store) = project();
        let heals = decided_elsewhere(dir.path());
        assert_eq!(heals.len(), 1);
        let wrapper = decided("//b[@itemprop='price']", "//h1");
        let merged = merge_heals(&path, &mut store, &wrapper, &heals);
        assert_eq!(merged.recorded.len(), 1);
        let entry = store.adaptation(merged.recorded[0].id).unwrap().unwrap();
        assert_eq!(entry.status, AdaptationStatus::Applied);
        assert_eq!(entry.new_xpath.as_deref(), Some("//b[@itemprop='price']"));
        assert_eq!(entry.samples_after, [serde_json::json!("1")]);
        assert!(
            entry
                .reason
                .unwrap()
                .starts_with("decided by crawl job 7: ")
        );
        // It is tied to the change, as a local run's heal is, and its page
        // is kept for `mend show`.
        let changes = store.changes(None, None).unwrap();
        assert_eq!(changes.len(), 1);
        assert!(store.page_html(entry.page_id).unwrap().is_some());
        // The same heal merged again records nothing twice.
        let again = merge_heals(&path, &mut store, &wrapper, &heals);
        assert!(again.recorded.is_empty() && again.written.is_empty());
    }

    #[test]
    fn a_decided_heal_of_a_pattern_someone_changed_is_a_proposal() {
        let (dir, path, mut store) = project();
        let heals = decided_elsewhere(dir.path());
        let edited = WRAPPER.replace("//span[@class='price']", "//em");
        std::fs::write(&path, &edited).unwrap();
        let wrapper = decided("//b[@itemprop='price']", "//h1");
        let merged = merge_heals(&path, &mut store, &wrapper, &heals);
        assert!(merged.written.is_empty());
        assert_eq!(merged.recorded.len(), 1);
        assert_eq!(merged.recorded[0].status, AdaptationStatus::Proposed);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    }
}
