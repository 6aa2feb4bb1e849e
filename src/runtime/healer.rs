//! The healing side of a run: the heals each broken page finds or reuses,
//! kept in a [`Ledger`] as one entry per change, and at the end of the run
//! one decision per entry: the wrapper file rewritten in `auto` mode through
//! the wrapper-change protocol, or a proposal stored (added to a waiting
//! twin when there is one), with every page it stands for.
//!
//! ## What it refuses
//!
//! In `off` mode it heals nothing. `auto` writes no heal that held on fewer
//! distinct pages than `adapt.min_pages`, or on no more than half of the
//! pages its pattern broke on, that changes what the old XPath gave on one of
//! the [`SERVED_SAMPLE`] served pages kept, or whose pattern the wrapper file
//! no longer has with the XPath it replaces: each stays a proposal, saying
//! why, as does every heal when the store cannot be written. A pending heal
//! that does not compile, or is the pattern's XPath already, is not offered.
//! A store or file failure does not stop the run ([`Runtime::failure`]).

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use super::ledger::{self, Ledger};
use super::{Carried, Project, RunAdaptation, RuntimeError, Session, WrapperLock};
use super::{
    Planned, capture_treegrams_across, carry_out, load_treegrams, make_change, plan_treegrams,
    reconcile,
};
use crate::adapt::{self, Alternative, Origin, Rejections, Search, Substituted, TreeGrams};
use crate::dom::Document;
use crate::extract::{Extraction, extract};
use crate::fetch;
use crate::job::{HealCounts, Healer, PageOutput, RunOptions, fallbacks, page_output as output};
use crate::store::{
    AdaptationId, AdaptationStatus, ChangeKind, Compressed, FileChange, StoreError, page_hash,
};
use crate::treegram::TreeGram;
use crate::wrapper::{self, HealMode, PatternPath, Wrapper};
use crate::xpath::XPath;

/// A thread making a page's snapshot; it gives back the page's bytes too.
type SnapshotThread = std::thread::JoinHandle<(Arc<Vec<u8>>, Result<Compressed, StoreError>)>;

/// How many of the pages the wrapper served are kept to check a heal
/// against before `auto` writes it: a heal must give on each the values the
/// old XPath gave. They are the pages whose names hash lowest, so the
/// choice does not depend on the order pages are read in.
pub const SERVED_SAMPLE: usize = 16;

/// A run of one wrapper with healing: the wrapper as the run began, its
/// tree-grams in memory, the heals found so far, and the store session.
#[derive(Debug)]
pub struct Runtime {
    mode: HealMode,
    wrapper: Wrapper,
    project: Project,
    session: Session,
    grams: TreeGrams,
    rejections: Rejections,
    options: RunOptions,
    /// The history XPaths, then each heal found, in the order found.
    alternatives: Vec<Alternative>,
    /// The entry of each alternative that is a heal, by its index.
    entry_of: Vec<Option<usize>>,
    ledger: Ledger,
    served: Vec<(u64, fetch::Page)>,
    /// Snapshots being made on their own threads, of pages whose bytes are
    /// kept, by ticket; each thread gives the bytes back with the snapshot.
    snapshots: Vec<(usize, SnapshotThread)>,
    pages: u64,
    violations: u64,
    failure: Option<RuntimeError>,
    /// The capture pages already asked of the store, by SHA-256, found or not.
    pages_asked: HashSet<String>,
}

impl Runtime {
    /// A runtime for `wrapper`, loaded from `wrapper_path`; its tree-grams
    /// are read now (in every mode: drift is checked in every mode), the
    /// store when first needed. A tree-gram file that mend will not read is
    /// an error.
    pub fn new(
        mode: HealMode,
        wrapper: Wrapper,
        wrapper_path: &Path,
        session: Session,
        options: RunOptions,
    ) -> Result<Runtime, RuntimeError> {
        let project = Project::of(wrapper_path);
        let grams = load_treegrams(&project, &wrapper)?;
        let alternatives = adapt::history_alternatives(&wrapper);
        let entry_of = vec![None; alternatives.len()];
        Ok(Runtime {
            mode,
            wrapper,
            project,
            session,
            grams,
            rejections: Rejections::new(),
            options,
            alternatives,
            entry_of,
            ledger: Ledger::default(),
            served: Vec::new(),
            snapshots: Vec::new(),
            pages: 0,
            violations: 0,
            failure: None,
            pages_asked: HashSet::new(),
        })
    }

    /// Offers heals that another process working on the same job found and
    /// that are not decided yet, as alternatives tried after the history
    /// and before any heal of this run's own. A page they serve reports
    /// them among its fallbacks, marked pending; an XPath that does not
    /// compile, or that is the pattern's now, is left out.
    pub fn offer_pending(&mut self, heals: &[(PatternPath, String)]) {
        for (pattern, xpath) in heals {
            let Some(now) = self.wrapper.pattern(pattern) else {
                continue;
            };
            if now.xpath.source() == xpath {
                continue;
            }
            let Ok(xpath) = XPath::compile(xpath) else {
                continue;
            };
            self.alternatives.push(Alternative {
                pattern: pattern.clone(),
                xpath,
                origin: Origin::Pending,
            });
            self.entry_of.push(None);
        }
    }

    /// The first failure of the store or of a file write. The run went on
    /// without what failed; the caller reports it.
    pub fn failure(&self) -> Option<&RuntimeError> {
        self.failure.as_ref()
    }

    /// The proposals the run's decisions left for a person, new or joined
    /// to a waiting twin, as `TAG:ID` for `mend show`: what a notice lists.
    /// Empty before [`Healer::settle`].
    pub fn proposal_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        let proposed = self.ledger.entries.iter().map(|e| &e.run);
        for run in proposed.filter(|r| r.status == AdaptationStatus::Proposed) {
            if let (Some(store), Some(id)) = (&run.store, run.id) {
                let reference = format!("{store}:{id}");
                if !ids.contains(&reference) {
                    ids.push(reference);
                }
            }
        }
        ids
    }

    /// The store session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The healing mode of the run.
    pub fn mode(&self) -> HealMode {
        self.mode
    }

    /// The wrapper file, as given.
    pub fn wrapper_path(&self) -> &Path {
        &self.project.wrapper_path
    }

    /// Runs `sources` through this runtime on the current rayon pool, as
    /// [`crate::job::run_pages_healing`] does, calling `emit` with each
    /// page's output in input order, then records the end of the run
    /// ([`Runtime::finish`]). This is how every command and worker runs a
    /// job's pages with healing; the caller reports [`Runtime::failure`].
    pub fn run(
        &mut self,
        sources: &[fetch::PageSource],
        emit: impl FnMut(PageOutput),
    ) -> crate::job::Summary {
        let options = self.options.clone();
        let summary = crate::job::run_pages_healing(self, sources, &options, emit);
        self.finish();
        summary
    }

    /// Records the end of the run in the store, if it was opened.
    pub fn finish(&mut self) {
        if let Err(e) = self.session.finish(self.pages, self.violations) {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: RuntimeError) {
        tracing::warn!(error = %e, "the run goes on without what failed");
        if self.failure.is_none() {
            self.failure = Some(e);
        }
    }

    /// Opens the store and begins the run, once; reads the rejected XPaths.
    fn open_store(&mut self) {
        if self.session.is_open() || self.failure.is_some() {
            return;
        }
        match self
            .session
            .begin(&self.wrapper, &self.project.wrapper_path, self.mode)
        {
            Ok(rejections) => self.rejections = rejections,
            Err(e) => return self.fail(e),
        }
        // A change that an earlier process left unfinished is settled before
        // this run adds to the history. The lock is taken only when there is
        // one, so that a run that changes nothing writes nothing beside the
        // wrapper (which may sit in a read-only folder).
        let Ok(canonical) = self.project.wrapper_path.canonicalize() else {
            return;
        };
        let store = self.session.store_mut().expect("the run has begun");
        let unfinished = store
            .pending_changes(Some(&canonical))
            .map(|p| !p.is_empty())
            .unwrap_or(true);
        if unfinished {
            let reconciled =
                WrapperLock::acquire(&canonical).and_then(|lock| reconcile(store, &lock));
            if let Err(e) = reconciled {
                self.fail(e);
            }
        }
    }

    /// Heals what is still broken on a page, and puts each adaptation in
    /// its entry; new heals become alternatives for the pages after it.
    /// Keeps the parsed page when a new heal was found on it, the run will
    /// capture its tree-gram there and the ledger has room for it.
    fn heal_page(
        &mut self,
        page: &fetch::Page,
        doc: Document,
        tried: Substituted,
        ticket: usize,
        keep_bytes: &mut bool,
    ) -> Extraction {
        self.read_capture_pages();
        let healing = adapt::heal_extracted(
            &tried.wrapper,
            &doc,
            page.url.as_ref(),
            tried.extraction,
            &self.grams,
            &self.rejections,
            &Search::default(),
        );
        let mut found = false;
        for a in healing.adaptations {
            self.ledger.pages[ticket].broke.insert(a.pattern.clone());
            let (entry, new) = self.ledger.entry_for(a);
            *keep_bytes |= self.ledger.join(entry, ticket);
            if !new || !self.ledger.entries[entry].is_heal() {
                continue;
            }
            let a = &self.ledger.entries[entry].run.adaptation;
            let Some(xpath) = a.new_xpath.as_deref().and_then(|x| XPath::compile(x).ok()) else {
                continue;
            };
            self.alternatives.push(Alternative {
                pattern: a.pattern.clone(),
                xpath,
                origin: Origin::Fix,
            });
            self.entry_of.push(Some(entry));
            found = true;
        }
        // Only an `auto` run whose wrapper refreshes tree-grams captures one
        // on the page when it writes the heal; others would hold it for nothing.
        let captures = self.mode == HealMode::Auto && self.wrapper.adapt.update_treegrams;
        if found && captures && self.ledger.keeps_document(ticket) {
            self.ledger.pages[ticket].doc = Some(doc);
        }
        healing.extraction
    }

    /// Hands the tree-grams the pages they were captured on, which the
    /// store keeps (`mend snapshot`), each asked once: a heal's XPath is
    /// tried there before it is written. A page the store lacks, cannot
    /// read, or keeps over [`adapt::MAX_CAPTURE_PAGE_BYTES`] leaves its
    /// tree-gram's proofs to its own neighbourhood.
    fn read_capture_pages(&mut self) {
        let Some(store) = self.session.store() else {
            return;
        };
        for sha256 in self.grams.missing_pages() {
            if !self.pages_asked.insert(sha256.clone()) {
                continue;
            }
            // A page too large for a proof to read is not loaded at all.
            let fits = store
                .kept_page_size(&sha256)
                .is_ok_and(|s| s.is_some_and(|s| s <= adapt::MAX_CAPTURE_PAGE_BYTES as u64));
            if !fits {
                continue;
            }
            match store.kept_page(&sha256) {
                Ok(Some(bytes)) => self.grams.keep_page(&sha256, bytes),
                Ok(None) => tracing::debug!(%sha256, "the store does not keep this capture page"),
                Err(e) => tracing::warn!(%sha256, error = %e, "a capture page could not be read"),
            }
        }
    }

    /// Puts the snapshots made on their own threads, and their pages'
    /// bytes, in the ledger. A snapshot that failed is left to the store to
    /// make again, which reports why.
    fn take_snapshots(&mut self) {
        for (ticket, thread) in std::mem::take(&mut self.snapshots) {
            let page = &mut self.ledger.pages[ticket];
            match thread.join() {
                Ok((bytes, compressed)) => {
                    // The run's own handle on the bytes went when the page's
                    // output was made: these are the last, and are moved.
                    page.bytes = Some(Arc::unwrap_or_clone(bytes));
                    page.snapshot = compressed.ok().map(|c| c.hashed(page.sha256.clone()));
                }
                // The thread panicked (out of memory, say): the page is kept by its hash alone.
                Err(_) => {
                    tracing::warn!(page = %page.name, "the page's snapshot could not be made")
                }
            }
        }
    }

    /// Decides every heal of the run: `auto` writes those the rule of one
    /// decision per change lets through and that change no page the old
    /// XPaths served; every other heal is a proposal.
    fn decide(&mut self) {
        let auto = self.mode == HealMode::Auto;
        let min_pages = self.wrapper.adapt.min_pages;
        let mut served: Option<Vec<Served>> = None;
        for i in 0..self.ledger.entries.len() {
            if !self.ledger.entries[i].is_heal() {
                continue;
            }
            let earlier = self
                .session
                .earlier_pages(&self.ledger.entries[i].run.adaptation);
            let mut why = ledger::held_back(&self.ledger, i, min_pages, &earlier);
            if auto && why.is_none() {
                let served = served.get_or_insert_with(|| self.parse_served());
                why = self.changes_served(&self.ledger.entries[i].run, served);
            }
            let pages = self.ledger.entries[i].pages.len();
            let e = &mut self.ledger.entries[i].run;
            match why {
                None if auto => e.status = AdaptationStatus::Applied,
                None => {}
                Some(why) if auto => e.reason = Some(format!("not applied: {why}")),
                Some(_) => {}
            }
            if pages > 1 && e.reason.is_none() {
                e.reason = Some(format!("held on {pages} pages"));
            }
        }
    }

    /// The served pages kept, parsed and extracted with the wrapper as the run began.
    fn parse_served(&self) -> Vec<Served> {
        self.served
            .iter()
            .map(|(_, page)| {
                let doc = page.document();
                let before = extract(&self.wrapper, &doc, page.url.as_ref());
                Served {
                    name: page.name.clone(),
                    url: page.url.clone(),
                    doc,
                    before,
                }
            })
            .collect()
    }

    /// Why a heal must not be written because it changes what a page the old
    /// XPath served gives, if it does.
    fn changes_served(&self, heal: &RunAdaptation, served: &[Served]) -> Option<String> {
        let a = &heal.adaptation;
        let xpath = XPath::compile(a.new_xpath.as_deref()?).ok()?;
        let mut healed = self.wrapper.clone();
        healed.pattern_mut(&a.pattern)?.xpath = xpath;
        let changed: Vec<&str> = served
            .iter()
            .filter(|s| {
                let after = extract(&healed, &s.doc, s.url.as_ref());
                after.record != s.before.record
                    || after.violations.len() > s.before.violations.len()
            })
            .map(|s| s.name.as_str())
            .collect();
        let first = changed.first()?;
        Some(format!(
            "it changes what the old XPath gave on {} of the {} pages it served that were checked, e.g. {first}",
            changed.len(),
            served.len()
        ))
    }

    /// Stores the run's entries, with the change to the wrapper file that
    /// writes the applied ones, and carries the change out. When a person
    /// saved the wrapper file between the read and the rename, the change is
    /// rolled back with the save kept, and the heals are merged again into
    /// the file as saved, each where its pattern still has the XPath it
    /// replaces (see [`Self::reapply`]).
    fn store(&mut self) -> Result<(), RuntimeError> {
        self.take_snapshots();
        let applied: Vec<usize> = (0..self.ledger.entries.len())
            .filter(|&i| self.ledger.entries[i].run.is_applied())
            .collect();
        if applied.is_empty() {
            return self
                .session
                .record_entries(&mut self.ledger, None)
                .map(|_| ());
        }
        let lock = WrapperLock::acquire(&self.project.wrapper_path)?;
        let store = self.session.store_mut().ok_or_else(|| RuntimeError::Io {
            action: "record a change to",
            path: self.project.wrapper_path.clone(),
            error: std::io::Error::other("the store is not open"),
        })?;
        reconcile(store, &lock)?;
        let wrapper_path = lock.wrapper().to_owned();
        let MergedHeals {
            written,
            files,
            grams,
        } = self.merge_heals(&applied, &wrapper_path)?;
        if written.is_empty() && files.len() <= 1 {
            return self
                .session
                .record_entries(&mut self.ledger, None)
                .map(|_| ());
        }
        let change = self
            .session
            .record_entries(&mut self.ledger, Some((&wrapper_path, &files)))?
            .expect("a change was asked for");
        let store = self.session.store_mut().expect("the store is open");
        let grams = match carry_out(store, &lock, change, &files) {
            Ok(Carried::Done) => grams,
            Ok(Carried::Unmarked(e)) => {
                self.fail(e);
                grams
            }
            Err(RuntimeError::EditedMeanwhile { .. }) => self.reapply(&lock, &written)?,
            Err(e) => return Err(e),
        };
        drop(lock);
        for (pattern, g) in grams {
            self.grams.insert(pattern, g);
        }
        Ok(())
    }

    /// Merges the heals of the entries `applied` into the wrapper file as it
    /// is now (read under the lock), pattern by pattern: an entry whose
    /// pattern no longer has the XPath it replaces is not applied. Gives the
    /// entries written, the files of the change (the healed patterns'
    /// refreshed tree-grams when asked for, the wrapper file last) and the
    /// refreshed tree-grams.
    fn merge_heals(
        &mut self,
        applied: &[usize],
        wrapper_path: &Path,
    ) -> Result<MergedHeals, RuntimeError> {
        let name = self.project.wrapper_path.display().to_string();
        let load = |text: &str| {
            wrapper::load_str(text, &name).map_err(|d| RuntimeError::Load {
                path: self.project.wrapper_path.clone(),
                message: wrapper::render_all(&d),
            })
        };
        let before = self.project.read_wrapper()?;
        let current = load(&before)?;
        let mut text = before.clone();
        let mut written: Vec<usize> = Vec::new();
        for &i in applied {
            let e = &mut self.ledger.entries[i].run;
            let pattern = e.adaptation.pattern.clone();
            let new = e.adaptation.new_xpath.clone().unwrap_or_default();
            let now = current
                .pattern(&pattern)
                .map(|p| p.xpath.source().to_owned());
            match now {
                Some(x) if x == new => {}
                Some(x) if x == e.adaptation.old_xpath => {
                    let names: Vec<&str> = pattern.names().iter().map(String::as_str).collect();
                    match wrapper::replace_xpath(&text, &names, &new) {
                        Ok(t) => {
                            text = t;
                            written.push(i);
                        }
                        Err(err) => e.not_applied(&format!(
                            "the wrapper file could not be rewritten: {err}"
                        )),
                    }
                }
                Some(x) => e.not_applied(&format!(
                    "the wrapper file changed during the run: {pattern} now has the XPath {x}"
                )),
                None => e.not_applied("the wrapper file no longer has this pattern"),
            }
        }
        let next = load(&text)?;
        let mut planned = Planned::default();
        if next.adapt.update_treegrams && !written.is_empty() {
            // Each healed pattern's tree-gram is taken on the page that found
            // its heal, and learns what varies across the other pages the
            // heal stands for whose bytes the run kept (`treegram::Across`),
            // as `mend snapshot` over several pages does: a tree-gram
            // refreshed on one page would take that page's labels and counts
            // for the pattern's own, and an optional field's absence for a
            // break.
            let mut captured = Vec::new();
            for &i in &written {
                let e = &self.ledger.entries[i];
                let page = &self.ledger.pages[e.pages[0]];
                let (Some(bytes), Some(doc)) = (&page.bytes, page.document()) else {
                    continue;
                };
                let doc = doc.as_ref();
                let others: Vec<_> = e.pages[1..]
                    .iter()
                    .filter_map(|&t| self.ledger.pages[t].document())
                    .collect();
                let others: Vec<&Document> = others.iter().map(AsRef::as_ref).collect();
                let only = [e.run.adaptation.pattern.clone()];
                // What the wrapper learned about its pages stays marked in them.
                let marks = super::CaptureMarks::of(&self.project, &next, doc)?;
                let (c, _) =
                    capture_treegrams_across(&next, doc, &others, bytes, None, Some(&only), &marks);
                captured.extend(c);
            }
            planned = plan_treegrams(&self.project, &mut text, captured)?;
        }
        let Planned {
            mut files, grams, ..
        } = planned;
        files.push(FileChange {
            path: wrapper_path.to_owned(),
            before: Some(before.into_bytes()),
            after: text.into_bytes(),
        });
        Ok(MergedHeals {
            written,
            files,
            grams,
        })
    }

    /// After a person's save rolled the run's change back (its heals stored
    /// as proposals), merges the heals of `written` again into the file as
    /// saved and makes that a change of its own, at most
    /// [`super::MAX_SAVES_MEANWHILE`] times; gives the refreshed tree-grams.
    /// A heal whose pattern the save changed stays a proposal, saying why.
    fn reapply(
        &mut self,
        lock: &WrapperLock,
        written: &[usize],
    ) -> Result<Vec<(PatternPath, TreeGram)>, RuntimeError> {
        let mut saves = 0;
        loop {
            let MergedHeals {
                written: again,
                files,
                grams,
            } = self.merge_heals(written, lock.wrapper())?;
            if again.is_empty() {
                return Ok(Vec::new());
            }
            let ids: Vec<AdaptationId> = again
                .iter()
                .filter_map(|&i| self.ledger.entries[i].run.id)
                .collect();
            let store = self.session.store_mut().expect("the store is open");
            let made = make_change(store, lock, ChangeKind::Heal, &files, |batch, change| {
                for &id in &ids {
                    batch.promote_to_applied(id, None)?;
                    batch.apply_in_change(id, change)?;
                }
                Ok(())
            });
            match made {
                Ok(((), Carried::Done)) => return Ok(grams),
                Ok(((), Carried::Unmarked(e))) => {
                    self.fail(e);
                    return Ok(grams);
                }
                Err(RuntimeError::EditedMeanwhile { .. }) if saves < super::MAX_SAVES_MEANWHILE => {
                    saves += 1;
                }
                Err(e) => {
                    // Nothing of this attempt stands: its heals wait as
                    // proposals, as the store says.
                    for &i in &again {
                        self.ledger.entries[i]
                            .run
                            .not_applied("the wrapper file was edited while mend was writing it");
                    }
                    return Err(e);
                }
            }
        }
    }

    /// Completes the output of a page that joined entries: each entry's
    /// adaptation with its id and status, and the proposals on its records.
    /// `json` holds each entry's output, made once for all its pages.
    fn complete(&self, out: &mut PageOutput, ticket: usize, json: &[Arc<serde_json::Value>]) {
        let page = &self.ledger.pages[ticket];
        let entries: Vec<&RunAdaptation> = page
            .entries
            .iter()
            .map(|&i| &self.ledger.entries[i].run)
            .collect();
        out.adaptations = page.entries.iter().map(|&i| Arc::clone(&json[i])).collect();
        let proposals: Vec<serde_json::Value> = entries
            .iter()
            .filter(|a| a.status == AdaptationStatus::Proposed)
            .filter_map(|a| {
                a.reference()
                    .map(|r| serde_json::Value::from(r.to_string()))
            })
            .collect();
        if proposals.is_empty() {
            return;
        }
        out.set_in_records("_proposals", Some(&serde_json::Value::Array(proposals)));
    }
}

/// The run's heals merged into the wrapper file as it is under the lock.
struct MergedHeals {
    /// The entries whose XPath the new content holds.
    written: Vec<usize>,
    /// The change's files: refreshed tree-grams, the wrapper file last.
    files: Vec<FileChange>,
    /// The refreshed tree-grams, by pattern.
    grams: Vec<(PatternPath, TreeGram)>,
}

/// A page the wrapper served, parsed and extracted with it.
struct Served {
    name: String,
    url: Option<url::Url>,
    doc: Document,
    before: Extraction,
}

/// A hash of a page's name that does not depend on the process.
fn name_hash(name: &str) -> u64 {
    // SipHash with fixed keys: the same name hashes the same in every run.
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    name.hash(&mut h);
    h.finish()
}

impl Healer for Runtime {
    fn wrapper(&self) -> &Wrapper {
        &self.wrapper
    }

    fn enabled(&self) -> bool {
        self.mode != HealMode::Off
    }

    fn grams(&self) -> &TreeGrams {
        &self.grams
    }

    fn alternatives(&self) -> &[Alternative] {
        &self.alternatives
    }

    fn served(&mut self, page: &fetch::Page) {
        if self.mode != HealMode::Auto {
            return;
        }
        let h = name_hash(&page.name);
        if self.served.len() >= SERVED_SAMPLE {
            let (worst, &(wh, _)) = self
                .served
                .iter()
                .enumerate()
                .max_by_key(|(_, (h, _))| *h)
                .expect("the sample is full");
            if h >= wh {
                return;
            }
            self.served.swap_remove(worst);
        }
        self.served.push((h, page.clone()));
    }

    fn broken(&mut self, page: fetch::Page, doc: Document, tried: Substituted) -> PageOutput {
        let history = fallbacks(&self.alternatives, &tried.used);
        if self.mode == HealMode::Off {
            let mut out = output(&page, tried.extraction, &self.options);
            out.fallbacks = history;
            return out;
        }
        for f in history.iter().filter(|f| f.get("pending").is_none()) {
            let key = (
                f["pattern"].as_str().unwrap_or_default().to_owned(),
                f["xpath"].as_str().unwrap_or_default().to_owned(),
            );
            *self.ledger.fallbacks.entry(key).or_default() += 1;
        }
        let reused: Vec<usize> = tried
            .used
            .iter()
            .filter_map(|&i| self.entry_of.get(i).copied().flatten())
            .collect();
        let violated = !tried.extraction.violations.is_empty();
        if reused.is_empty() && !violated {
            self.open_store();
            let mut out = output(&page, tried.extraction, &self.options);
            out.fallbacks = history;
            return out;
        }
        self.pages += 1;
        let broke: HashSet<PatternPath> = reused
            .iter()
            .map(|&e| self.ledger.entries[e].run.adaptation.pattern.clone())
            .chain(
                tried
                    .extraction
                    .violations
                    .iter()
                    .map(|v| v.pattern.clone()),
            )
            .collect();
        // Compressing a large page takes longer than healing it: when the
        // page is likely to be kept, it is compressed meanwhile, on a thread
        // of its own, started first. The page's hash, which the ledger needs
        // now, and the store, which on a new store is some migrations'
        // commits, come after; the hash names the snapshot at the settlement.
        // The page's bytes are shared with that thread, not copied: on an
        // 11 MB page a copy was some thousands of fresh pages of memory.
        let mut page = page;
        let bytes = Arc::new(std::mem::take(&mut page.bytes));
        let snapshot = if violated && self.ledger.may_keep(&broke) {
            let shared = Arc::clone(&bytes);
            std::thread::Builder::new()
                .name("mend-snapshot".to_owned())
                .spawn(move || {
                    let compressed = Compressed::of(&shared);
                    (shared, compressed)
                })
                .ok()
        } else {
            None
        };
        let sha256 = page_hash(&bytes);
        self.open_store();
        let ticket = self.ledger.add_page(
            &page.name,
            page.charset.as_deref(),
            sha256,
            bytes.len() as u64,
            broke,
        );
        let mut keep_bytes = false;
        for &e in &reused {
            keep_bytes |= self.ledger.join(e, ticket);
        }
        let extraction = if violated {
            self.heal_page(&page, doc, tried, ticket, &mut keep_bytes)
        } else {
            tried.extraction
        };
        // A snapshot made for a page that is not kept is dropped: its thread ends by itself.
        match (keep_bytes, snapshot) {
            (true, Some(thread)) => self.snapshots.push((ticket, thread)),
            (true, None) => {
                self.ledger.pages[ticket].bytes = Some(Arc::unwrap_or_clone(bytes));
            }
            (false, _) => {}
        }
        self.violations += extraction.violations.len() as u64;
        let mut out = output(&page, extraction, &self.options);
        out.fallbacks = history;
        if !self.ledger.pages[ticket].entries.is_empty() {
            out.ticket = Some(ticket);
        }
        out
    }

    fn settle(&mut self, outputs: &mut [PageOutput]) -> HealCounts {
        let mut counts = HealCounts::default();
        if self.mode == HealMode::Off
            || (self.ledger.entries.is_empty() && self.ledger.fallbacks.is_empty())
        {
            return counts;
        }
        self.decide();
        // Without the store nothing can be journaled: every heal stays the
        // proposal it is, with why, and the failure is the run's.
        let unstored = if self.session.is_open() {
            self.store().err().map(|e| {
                let why = e.to_string();
                self.fail(e);
                why
            })
        } else {
            Some(
                self.failure
                    .as_ref()
                    .map_or_else(|| "the store is not open".to_owned(), ToString::to_string),
            )
        };
        if let Some(why) = unstored {
            for entry in &mut self.ledger.entries {
                entry.run.not_applied(&why);
            }
        }
        for entry in &self.ledger.entries {
            match entry.run.status {
                AdaptationStatus::Applied => counts.applied += 1,
                AdaptationStatus::Proposed => counts.proposed += 1,
                AdaptationStatus::Abstained => counts.abstained += 1,
                AdaptationStatus::Rejected => counts.rejected += 1,
            }
            if entry.is_heal() {
                counts.reused += entry.pages.len().saturating_sub(1);
            }
        }
        // An entry stands for many pages, and its evidence is long: it is
        // written out once, not once per page.
        let json: Vec<Arc<serde_json::Value>> = self
            .ledger
            .entries
            .iter()
            .map(|entry| {
                let mut json = entry.run.to_json();
                json["pages"] = serde_json::Value::from(entry.pages.len());
                Arc::new(json)
            })
            .collect();
        for out in outputs.iter_mut() {
            if let Some(ticket) = out.ticket {
                self.complete(out, ticket, &json);
            }
        }
        counts
    }
}
