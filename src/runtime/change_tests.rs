//! The wrapper-change protocol on files in a temporary folder: a change
//! carried out, one whose write fails, and the three ways an unfinished
//! change is reconciled.

use std::path::{Path, PathBuf};

use super::*;
use crate::store::{
    AdaptationId, AdaptationStatus, ChangeId, ChangeKind, ChangeState, FileChange, NewAdaptation,
    Store, Timestamp,
};
use crate::wrapper::HealMode;

const OLD: &str = "name: w\npatterns:\n  - name: price\n    xpath: //p\n";
const NEW: &str =
    "name: w\npatterns:\n  - name: price\n    xpath: //span\n    history:\n      - //p\n";

/// A wrapper `w.yaml` in a temporary folder, a store in memory holding one
/// page, and a change recorded as pending that applies one adaptation of
/// `price` to `//span` and writes a tree-gram at `treegram`.
struct Pending {
    dir: tempfile::TempDir,
    store: Store,
    change: ChangeId,
    adaptation: AdaptationId,
    files: Vec<FileChange>,
}

impl Pending {
    fn new(treegram_before: Option<&str>) -> Pending {
        let dir = tempfile::tempdir().unwrap();
        let wrapper = dir.path().join("w.yaml");
        std::fs::write(&wrapper, OLD).unwrap();
        let gram = dir.path().join("treegrams/w/price.html");
        if let Some(text) = treegram_before {
            std::fs::create_dir_all(gram.parent().unwrap()).unwrap();
            std::fs::write(&gram, text).unwrap();
        }
        let wrapper = wrapper.canonicalize().unwrap();
        let files = vec![
            FileChange {
                path: gram,
                before: treegram_before.map(|t| t.as_bytes().to_vec()),
                after: b"<p>new gram</p>".to_vec(),
            },
            FileChange {
                path: wrapper.clone(),
                before: Some(OLD.as_bytes().to_vec()),
                after: NEW.as_bytes().to_vec(),
            },
        ];
        let mut store = Store::open_in_memory().unwrap();
        let run = store
            .begin_run("w", &wrapper, HealMode::Auto, at(1))
            .unwrap();
        let page = store.record_page(run, "p.html", b"<p>", true).unwrap();
        let mut batch = store.batch().unwrap();
        let change = batch
            .begin_change(&wrapper, ChangeKind::Heal, &files, at(2))
            .unwrap();
        let adaptation = batch.record_adaptation(&applied(page)).unwrap();
        batch.apply_in_change(adaptation, change).unwrap();
        batch.commit().unwrap();
        Pending {
            dir,
            store,
            change,
            adaptation,
            files,
        }
    }

    fn wrapper(&self) -> PathBuf {
        self.dir.path().join("w.yaml")
    }

    fn gram(&self) -> PathBuf {
        self.dir.path().join("treegrams/w/price.html")
    }

    fn reconcile(&mut self) -> Vec<Reconciled> {
        let lock = WrapperLock::acquire(&self.wrapper()).unwrap();
        reconcile(&mut self.store, &lock).unwrap()
    }

    /// The change's state, and the adaptation's status and reason.
    fn outcome(&self) -> (ChangeState, AdaptationStatus, Option<String>) {
        let change = self.store.change(self.change).unwrap().unwrap();
        let a = self.store.adaptation(self.adaptation).unwrap().unwrap();
        (change.state, a.status, a.reason)
    }
}

fn at(millis: i64) -> Timestamp {
    Timestamp::from_unix_millis(millis)
}

fn applied(page: crate::store::PageId) -> NewAdaptation {
    NewAdaptation {
        page_id: page,
        pattern: "price".to_owned(),
        old_xpath: "//p".to_owned(),
        new_xpath: Some("//span".to_owned()),
        algorithm: Some("ctm".to_owned()),
        score: Some(0.9),
        runner_up: Some(0.1),
        status: AdaptationStatus::Applied,
        change_scope: None,
        reason: None,
        model: None,
        confidence: None,
        candidates: Vec::new(),
        samples_before: Vec::new(),
        samples_after: Vec::new(),
        constraint_results: Vec::new(),
        created_at: at(2),
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[test]
fn a_change_carried_out_writes_every_file_and_is_done() {
    let mut p = Pending::new(None);
    let lock = WrapperLock::acquire(&p.wrapper()).unwrap();
    let carried = carry_out(&mut p.store, &lock, p.change, &p.files).unwrap();
    assert!(matches!(carried, Carried::Done));
    drop(lock);
    assert_eq!(read(&p.wrapper()).as_deref(), Some(NEW));
    assert_eq!(read(&p.gram()).as_deref(), Some("<p>new gram</p>"));
    assert_eq!(
        p.outcome(),
        (ChangeState::Done, AdaptationStatus::Applied, None)
    );
    assert!(p.store.pending_changes(None).unwrap().is_empty());
}

#[test]
fn a_write_that_fails_puts_back_what_was_written_and_undoes_the_heal() {
    let mut p = Pending::new(Some("<p>old gram</p>"));
    // The tree-gram is written first; the wrapper's write then fails, as on
    // a full disk, because a file stands where its folder should be.
    let blocked = p.dir.path().join("blocker");
    std::fs::write(&blocked, "").unwrap();
    let mut files = p.files.clone();
    files[1].path = blocked.join("w.yaml");
    let lock = WrapperLock::acquire(&p.wrapper()).unwrap();
    assert!(carry_out(&mut p.store, &lock, p.change, &files).is_err());
    drop(lock);
    assert_eq!(read(&p.gram()).as_deref(), Some("<p>old gram</p>"));
    assert_eq!(read(&p.wrapper()).as_deref(), Some(OLD));
    let (state, status, reason) = p.outcome();
    assert_eq!(
        (state, status),
        (ChangeState::RolledBack, AdaptationStatus::Proposed)
    );
    assert!(
        reason
            .unwrap()
            .starts_with("not applied: the wrapper file could not be written")
    );
}

#[test]
fn a_change_killed_before_the_wrapper_was_written_is_rolled_back() {
    // The process died after writing the new tree-gram, before the wrapper.
    let mut p = Pending::new(None);
    std::fs::create_dir_all(p.gram().parent().unwrap()).unwrap();
    std::fs::write(p.gram(), "<p>new gram</p>").unwrap();
    std::fs::write(p.dir.path().join(".w.yaml.mend-Xy12ab.tmp"), NEW).unwrap();
    let settled = p.reconcile();
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].state, ChangeState::RolledBack);
    assert_eq!(settled[0].undone, [p.adaptation]);
    // The tree-gram that did not exist before is gone again, and so is the
    // temporary file the killed write left.
    assert_eq!(read(&p.gram()), None);
    assert_eq!(read(&p.dir.path().join(".w.yaml.mend-Xy12ab.tmp")), None);
    assert_eq!(read(&p.wrapper()).as_deref(), Some(OLD));
    let (_, status, reason) = p.outcome();
    assert_eq!(status, AdaptationStatus::Proposed);
    assert!(
        reason
            .unwrap()
            .contains("stopped before the wrapper file was written")
    );
    // Reconciling again finds nothing.
    assert!(p.reconcile().is_empty());
}

#[test]
fn a_change_killed_after_the_wrapper_was_written_is_completed() {
    // The process died after the wrapper's rename, before the change was
    // marked done; the tree-gram was not written yet.
    let mut p = Pending::new(Some("<p>old gram</p>"));
    std::fs::write(p.wrapper(), NEW).unwrap();
    let settled = p.reconcile();
    assert_eq!(settled[0].state, ChangeState::Done);
    assert!(settled[0].undone.is_empty());
    assert_eq!(read(&p.gram()).as_deref(), Some("<p>new gram</p>"));
    assert_eq!(
        p.outcome(),
        (ChangeState::Done, AdaptationStatus::Applied, None)
    );
}

#[test]
fn a_wrapper_edited_by_hand_meanwhile_keeps_only_the_xpaths_it_holds() {
    let mut p = Pending::new(None);
    let edited = NEW.replace("name: w", "name: w  # edited");
    std::fs::write(p.wrapper(), &edited).unwrap();
    assert_eq!(p.reconcile()[0].state, ChangeState::Done);
    assert_eq!(p.outcome().1, AdaptationStatus::Applied);
    assert_eq!(read(&p.wrapper()), Some(edited), "the files are left alone");

    let mut q = Pending::new(None);
    std::fs::write(q.wrapper(), OLD.replace("//p", "//div")).unwrap();
    assert_eq!(q.reconcile()[0].state, ChangeState::RolledBack);
    assert_eq!(q.outcome().1, AdaptationStatus::Proposed);
}

#[test]
fn review_commands_reconcile_changes_of_every_wrapper() {
    let mut p = Pending::new(None);
    let settled = reconcile_all(&mut p.store).unwrap();
    assert_eq!(settled.len(), 1);
    assert_eq!(settled[0].state, ChangeState::RolledBack);
    assert_eq!(settled[0].wrapper, p.wrapper().canonicalize().unwrap());
}

#[test]
fn a_persons_save_after_mend_read_the_wrapper_is_kept_and_the_heal_waits() {
    // The person saves while mend holds the lock: after mend read the file
    // (the change's `before`) and before it writes.
    let mut p = Pending::new(Some("<p>old gram</p>"));
    let edited = "name: w\n# my note\npatterns:\n  - name: price\n    xpath: //p\n";
    std::fs::write(p.wrapper(), edited).unwrap();
    let lock = WrapperLock::acquire(&p.wrapper()).unwrap();
    let error = carry_out(&mut p.store, &lock, p.change, &p.files).unwrap_err();
    drop(lock);
    assert!(
        matches!(error, RuntimeError::EditedMeanwhile { .. }),
        "{error}"
    );
    assert_eq!(read(&p.wrapper()).as_deref(), Some(edited));
    assert_eq!(read(&p.gram()).as_deref(), Some("<p>old gram</p>"));
    let (state, status, reason) = p.outcome();
    assert_eq!(
        (state, status),
        (ChangeState::RolledBack, AdaptationStatus::Proposed)
    );
    assert!(reason.unwrap().contains("edited meanwhile"));
    // No temporary file is left beside the wrapper.
    let left: Vec<_> = std::fs::read_dir(p.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".mend-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn replace_if_unchanged_writes_only_over_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.yaml");
    std::fs::write(&path, "a").unwrap();
    assert_eq!(
        replace_if_unchanged(&path, b"b", Some(b"a")).unwrap(),
        Replaced::Done
    );
    assert_eq!(read(&path).as_deref(), Some("b"));
    assert_eq!(
        replace_if_unchanged(&path, b"c", Some(b"a")).unwrap(),
        Replaced::EditedMeanwhile
    );
    assert_eq!(read(&path).as_deref(), Some("b"));
    // A file that was not there must still not be there.
    let new = dir.path().join("new.yaml");
    assert_eq!(
        replace_if_unchanged(&new, b"x", None).unwrap(),
        Replaced::Done
    );
    assert_eq!(
        replace_if_unchanged(&new, b"y", None).unwrap(),
        Replaced::EditedMeanwhile
    );
    assert_eq!(read(&new).as_deref(), Some("x"));
}

#[test]
fn a_wrapper_deleted_meanwhile_is_left_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.yaml");
    assert_eq!(
        replace_if_unchanged(&path, b"new", Some(b"old")).unwrap(),
        Replaced::EditedMeanwhile
    );
    assert!(!path.exists());
}
