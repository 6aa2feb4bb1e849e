//! One decision per change: the heals of a run, each found once and counted
//! on every page it held on, and the rule that decides which of them `auto`
//! writes to the wrapper.
//!
//! A heal found on a page becomes an entry keyed by (pattern, old XPath, new
//! XPath); the pages after it that break the same way try it first
//! (`adapt::substitute`) and, when it holds, join the entry instead of
//! healing again. Abstentions and refusals are grouped the same way, by
//! (pattern, old XPath, status). So 200 pages broken by one redesign are one
//! entry with 200 pages, not 200 rows.
//!
//! The ledger is plain data and the rule a pure function of it: storing the
//! entries and rewriting the file are the healer's.
//!
//! ## What it refuses
//!
//! [`held_back`] keeps a heal from the wrapper until it held on
//! `adapt.min_pages` distinct pages, earlier runs' included, and on more than
//! half of the pages where its pattern broke in this run. Joining an entry
//! needs the page's own heal to be the entry's (same pattern, old and new
//! XPath); nothing else is grouped.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::RunAdaptation;
use crate::adapt::Adaptation;
use crate::dom::Document;
use crate::store::{AdaptationStatus, Snapshot};
use crate::wrapper::PatternPath;

/// How many pages of an entry keep their bytes, so that the store holds a
/// snapshot of each (`mend show` previews on them, `approve` refreshes
/// tree-grams from them); the others are kept by hash.
pub const EXAMPLE_PAGES: usize = 5;

/// How many parsed pages a run keeps for capturing its heals' tree-grams
/// (see [`Ledger::keeps_document`]): a page of 60,000 elements holds some
/// tens of megabytes parsed.
pub const KEPT_DOCUMENTS: usize = 4;

/// What makes two adaptations one entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// A heal: the same new XPath for the same old one.
    Healed {
        pattern: PatternPath,
        old: String,
        new: String,
    },
    /// An abstention or a refusal of the same old XPath.
    Unhealed {
        pattern: PatternPath,
        old: String,
        status: AdaptationStatus,
    },
}

/// One decision: an adaptation found on a page, and every page it stands for.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The adaptation as the first page found it, with the status decided.
    pub run: RunAdaptation,
    /// The pages it stands for, by ticket, the finding page first.
    pub pages: Vec<usize>,
}

impl Entry {
    /// Whether it is a heal (a new XPath), not an abstention or a refusal.
    pub fn is_heal(&self) -> bool {
        self.run.adaptation.new_xpath.is_some() && self.run.adaptation.is_healed()
    }
}

/// A page that broke and that an entry stands for.
#[derive(Clone, Debug)]
pub struct BrokenPage {
    /// The page's name: its path, `-` or its URL.
    pub name: String,
    /// Its bytes, for the first pages of each entry (see [`EXAMPLE_PAGES`]).
    pub bytes: Option<Vec<u8>>,
    /// The snapshot of those bytes, when it was made before the entries
    /// were stored (the store makes it otherwise).
    pub snapshot: Option<Snapshot>,
    /// The page as the run parsed it, kept when a heal was found on it (see
    /// [`Ledger::keeps_document`]): the healed pattern's tree-gram is
    /// captured on it when the heal is written.
    pub doc: Option<Document>,
    /// The charset its transport declared (an HTTP `Content-Type`), which
    /// parsing its bytes again must be given as the run was.
    pub charset: Option<String>,
    /// The SHA-256 of its bytes.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// The entries it joined, in the order of its output.
    pub entries: Vec<usize>,
    /// The patterns that broke on it.
    pub broke: HashSet<PatternPath>,
}

impl BrokenPage {
    /// The page as the run parsed it: the kept document, or else its kept
    /// bytes parsed again with the charset its transport declared; nothing
    /// when its bytes were not kept.
    pub fn document(&self) -> Option<Cow<'_, Document>> {
        match (&self.doc, &self.bytes) {
            (Some(doc), _) => Some(Cow::Borrowed(doc)),
            (None, Some(bytes)) => Some(Cow::Owned(Document::parse_with_transport(
                bytes,
                self.charset.as_deref(),
            ))),
            (None, None) => None,
        }
    }
}

/// The heals, abstentions and refusals of a run, and the pages behind them.
#[derive(Debug, Default)]
pub struct Ledger {
    /// Every entry, in the order found.
    pub entries: Vec<Entry>,
    /// Every page that joined an entry, by ticket.
    pub pages: Vec<BrokenPage>,
    /// Pages served by an XPath of a pattern's history, by (pattern, XPath).
    pub fallbacks: BTreeMap<(String, String), u64>,
    by_key: HashMap<Key, usize>,
}

impl Ledger {
    /// Adds a page that broke, with the charset its transport declared and
    /// the patterns that broke on it; gives its ticket.
    pub fn add_page(
        &mut self,
        name: &str,
        charset: Option<&str>,
        sha256: String,
        size: u64,
        broke: HashSet<PatternPath>,
    ) -> usize {
        self.pages.push(BrokenPage {
            name: name.to_owned(),
            bytes: None,
            snapshot: None,
            doc: None,
            charset: charset.map(str::to_owned),
            sha256,
            size,
            entries: Vec::new(),
            broke,
        });
        self.pages.len() - 1
    }

    /// Joins page `ticket` to entry `entry`; says whether the page is one of
    /// the entry's first [`EXAMPLE_PAGES`], whose bytes are kept.
    pub fn join(&mut self, entry: usize, ticket: usize) -> bool {
        let e = &mut self.entries[entry];
        if !e.pages.contains(&ticket) {
            e.pages.push(ticket);
        }
        let page = &mut self.pages[ticket];
        if !page.entries.contains(&entry) {
            page.entries.push(entry);
        }
        e.pages.len() <= EXAMPLE_PAGES
    }

    /// Whether the page `ticket`, on which the heal of a new entry was just
    /// found, keeps its parsed document: a page's tree-gram is captured on
    /// the first page of its entry, and parsing a large page again costs as
    /// much as healing it. At most [`KEPT_DOCUMENTS`] are kept in a run, so
    /// that a run of many heals holds no more than a few pages in memory;
    /// the others are parsed again from their bytes.
    pub fn keeps_document(&self, ticket: usize) -> bool {
        self.pages[ticket].doc.is_none()
            && self.pages.iter().filter(|p| p.doc.is_some()).count() < KEPT_DOCUMENTS
    }

    /// Whether a page on which `broke` broke may be one whose bytes are
    /// kept: whether some pattern of them has no entry yet that holds
    /// [`EXAMPLE_PAGES`] pages. It is a forecast, made before the page is
    /// healed, so that its snapshot can be made meanwhile; it is wrong only
    /// when the page makes a new entry for a pattern whose entries are full.
    pub fn may_keep(&self, broke: &HashSet<PatternPath>) -> bool {
        broke.iter().any(|pattern| {
            !self
                .entries
                .iter()
                .any(|e| &e.run.adaptation.pattern == pattern && e.pages.len() >= EXAMPLE_PAGES)
        })
    }

    /// The entry for `adaptation`, made when it is the first of its kind;
    /// gives its index and whether it is new.
    pub fn entry_for(&mut self, adaptation: Adaptation) -> (usize, bool) {
        let key = match (&adaptation.new_xpath, adaptation.is_healed()) {
            (Some(new), true) => Key::Healed {
                pattern: adaptation.pattern.clone(),
                old: adaptation.old_xpath.clone(),
                new: new.clone(),
            },
            _ => Key::Unhealed {
                pattern: adaptation.pattern.clone(),
                old: adaptation.old_xpath.clone(),
                status: RunAdaptation::decide(adaptation.clone(), false).status,
            },
        };
        if let Some(&i) = self.by_key.get(&key) {
            return (i, false);
        }
        self.entries.push(Entry {
            run: RunAdaptation::decide(adaptation, false),
            pages: Vec::new(),
        });
        let i = self.entries.len() - 1;
        self.by_key.insert(key, i);
        (i, true)
    }

    /// On how many pages the pattern at `path` broke.
    pub fn broke(&self, path: &PatternPath) -> usize {
        self.pages.iter().filter(|p| p.broke.contains(path)).count()
    }
}

/// Why a heal is not written to the wrapper in `auto` mode, when it is not:
/// the rule of one decision per change. `min_pages` is the wrapper's
/// `adapt.min_pages`; `earlier` are the pages (by content) that earlier
/// runs found the same heal on, waiting as its proposal in the store.
///
/// A heal is written when it held on at least `min_pages` distinct pages,
/// this run's and the earlier runs' together, with no exception for a run
/// of fewer pages: until then it is a proposal, and the pages still get its
/// values, marked. Within this run it must also have held on more than half
/// of the pages where its pattern broke (so on more of them than any other
/// heal of the same pattern, which keeps a proposal of its own): a single
/// odd page among many never rewrites the wrapper. Whether it would change
/// a page the old XPath served is the caller's check, as it needs those
/// pages.
pub fn held_back(
    ledger: &Ledger,
    entry: usize,
    min_pages: usize,
    earlier: &[String],
) -> Option<String> {
    let e = &ledger.entries[entry];
    let pattern = &e.run.adaptation.pattern;
    let held = e.pages.len();
    let broke = ledger.broke(pattern).max(held);
    let mut seen: HashSet<&str> = earlier.iter().map(String::as_str).collect();
    let before = seen.len();
    seen.extend(e.pages.iter().map(|&t| ledger.pages[t].sha256.as_str()));
    let needed = min_pages.max(1);
    if seen.len() < needed {
        let earlier = match before {
            0 => String::new(),
            n => format!(", {n} of them in earlier runs"),
        };
        return Some(format!(
            "held on {} distinct pages{earlier}; adapt.min_pages asks for {needed}",
            seen.len()
        ));
    }
    if held * 2 <= broke {
        return Some(format!(
            "held on {held} of the {broke} pages where {pattern} broke, not on most of them"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::{Outcome, Trigger};

    fn heal(pattern: &str, new: &str) -> Adaptation {
        Adaptation {
            new_xpath: Some(new.to_owned()),
            outcome: Outcome::Healed,
            ..Adaptation::undecided(
                pattern.parse::<PatternPath>().unwrap(),
                "//old".to_owned(),
                Trigger::Violation,
            )
        }
    }

    /// A ledger of `pages` pages on which `isbn` broke, where the heals
    /// named in `held` (one letter per page, `-` for none) held.
    fn ledger(held: &str) -> Ledger {
        let mut ledger = Ledger::default();
        for (i, c) in held.chars().enumerate() {
            let broke = HashSet::from(["isbn".parse::<PatternPath>().unwrap()]);
            let ticket = ledger.add_page(&format!("p{i}"), None, format!("sha{i}"), 0, broke);
            if c != '-' {
                let (entry, _) = ledger.entry_for(heal("isbn", &format!("//{c}")));
                ledger.join(entry, ticket);
            }
        }
        ledger
    }

    fn check(held: &str, min_pages: usize, expected: &[Option<&str>]) {
        check_with(held, min_pages, &[], expected);
    }

    /// [`check`], with `earlier` the pages earlier runs found every heal on.
    fn check_with(held: &str, min_pages: usize, earlier: &[&str], expected: &[Option<&str>]) {
        let ledger = ledger(held);
        let earlier: Vec<String> = earlier.iter().map(|s| (*s).to_owned()).collect();
        let got: Vec<Option<String>> = (0..ledger.entries.len())
            .map(|i| held_back(&ledger, i, min_pages, &earlier))
            .collect();
        assert_eq!(got.len(), expected.len(), "{held}: {got:?}");
        for (g, e) in got.iter().zip(expected) {
            match (g, e) {
                (None, None) => {}
                (Some(g), Some(e)) => assert!(g.contains(e), "{held}: {g:?} lacks {e:?}"),
                _ => panic!("{held}: got {got:?}, expected {expected:?}"),
            }
        }
    }

    #[test]
    fn a_heal_is_written_when_it_holds_on_enough_of_the_pages_that_broke() {
        check("aaaa", 3, &[None]);
        check("aaa", 3, &[None]);
        check("aa-", 3, &[Some("adapt.min_pages asks for 3")]);
        check("a", 1, &[None]);
    }

    #[test]
    fn a_run_of_fewer_pages_than_min_pages_only_proposes() {
        check(
            "a",
            3,
            &[Some("held on 1 distinct pages; adapt.min_pages asks for 3")],
        );
        check("aa", 3, &[Some("adapt.min_pages asks for 3")]);
    }

    #[test]
    fn the_pages_of_earlier_runs_count_towards_min_pages() {
        check_with("a", 3, &["old1", "old2"], &[None]);
        check_with(
            "a",
            3,
            &["old1"],
            &[Some("held on 2 distinct pages, 1 of them in earlier runs")],
        );
        // The same page found again in an earlier run is one page.
        check_with(
            "aa",
            3,
            &["sha0", "sha1"],
            &[Some("held on 2 distinct pages")],
        );
    }

    #[test]
    fn one_odd_page_among_many_never_rewrites_the_wrapper() {
        check_with(
            "a-----",
            3,
            &["old1", "old2", "old3"],
            &[Some("not on most of them")],
        );
    }

    #[test]
    fn a_heal_that_holds_on_a_minority_of_the_broken_pages_waits() {
        check("aaa---", 3, &[Some("not on most of them")]);
        check("aaab", 3, &[None, Some("adapt.min_pages")]);
    }

    #[test]
    fn two_heals_of_one_pattern_that_tie_are_both_held_back() {
        check("aaabbb", 3, &[Some("not on most"), Some("not on most")]);
        check("aaaabbb", 3, &[None, Some("not on most")]);
    }

    #[test]
    fn identical_heals_are_one_entry_with_every_page() {
        let ledger = ledger("aaaa");
        assert_eq!(ledger.entries.len(), 1);
        assert_eq!(ledger.entries[0].pages, vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_page_may_be_kept_until_its_patterns_entries_hold_enough_pages() {
        let isbn = HashSet::from(["isbn".parse::<PatternPath>().unwrap()]);
        let title = HashSet::from(["title".parse::<PatternPath>().unwrap()]);
        assert!(Ledger::default().may_keep(&isbn));
        let four = ledger(&"a".repeat(EXAMPLE_PAGES - 1));
        assert!(four.may_keep(&isbn));
        let full = ledger(&"a".repeat(EXAMPLE_PAGES));
        assert!(!full.may_keep(&isbn));
        // Another pattern has no entry: its first page is kept.
        assert!(full.may_keep(&title));
        assert!(!full.may_keep(&HashSet::new()));
    }

    #[test]
    fn a_run_keeps_a_few_parsed_pages_and_each_once() {
        let mut ledger = ledger(&"-".repeat(KEPT_DOCUMENTS + 2));
        for ticket in 0..KEPT_DOCUMENTS {
            assert!(ledger.keeps_document(ticket), "page {ticket}");
            ledger.pages[ticket].doc = Some(Document::parse_str("<p>x</p>"));
            // A page already kept is not kept again.
            assert!(!ledger.keeps_document(ticket));
        }
        assert!(!ledger.keeps_document(KEPT_DOCUMENTS));
        assert!(!ledger.keeps_document(KEPT_DOCUMENTS + 1));
    }

    /// The text of the first `p` of the page `ledger` gives for `ticket`.
    fn text_of_p(ledger: &Ledger, ticket: usize) -> Option<String> {
        let doc = ledger.pages[ticket].document()?;
        let p = doc.all().find(|&n| doc.name(n) == "p")?;
        Some(doc.string_value(p))
    }

    #[test]
    fn a_page_past_the_kept_ones_is_parsed_again_with_its_transport_charset() {
        // "Привет" in windows-1251, on a page that declares no charset: only
        // the HTTP header said what the bytes are.
        let bytes = b"<p>\xcf\xf0\xe8\xe2\xe5\xf2</p>".to_vec();
        let mut ledger = Ledger::default();
        let served = ledger.add_page("a", Some("windows-1251"), String::new(), 0, HashSet::new());
        let unlabelled = ledger.add_page("b", None, String::new(), 0, HashSet::new());
        for ticket in [served, unlabelled] {
            assert_eq!(text_of_p(&ledger, ticket), None, "no bytes, no page");
            ledger.pages[ticket].bytes = Some(bytes.clone());
        }
        assert_eq!(text_of_p(&ledger, served).as_deref(), Some("Привет"));
        assert_ne!(text_of_p(&ledger, unlabelled).as_deref(), Some("Привет"));
        // A kept document is the page as the run parsed it.
        ledger.pages[unlabelled].doc = Some(Document::parse_str("<p>kept</p>"));
        assert_eq!(text_of_p(&ledger, unlabelled).as_deref(), Some("kept"));
    }
}
