//! Elements by attribute: for an attribute name and a value, or a
//! whitespace-separated token of a value, the ids of the elements that
//! carry it, in document order. There is one index per attribute name,
//! built when that name is first asked about: the questions are nearly all
//! of `class` and `id`, and indexing every `href`, `style` and `data-`
//! value of the page as well, which no question reads, was most of the
//! index's cost on a heal of a large page.
//!
//! The XPath generator tries dozens of candidates per target, most of them
//! `//tr[@class='x']` or a class token test, and each of them, without an
//! index, tests the attribute of every element of its name. Capturing the
//! tree-grams of a wrapper of 2,000 patterns on one page asked some 50,000
//! such questions of the same page. Like [`super::name_index`], the index is
//! built on the first large question and read by every later one.
//!
//! The index is one array of (key, id) pairs sorted by key then id, where
//! the key is a hash of what is asked: whether a whole value or a token,
//! the attribute's name and the text. Hashes may collide, so what the index
//! returns is checked against the attribute itself: it is exact. Building
//! it is one pass over the attributes and a sort; it holds sixteen bytes per
//! attribute value and per token.
//!
//! ## What it refuses
//!
//! An empty token answers no query, and tokens split at XML whitespace only
//! (space, tab, carriage return, line feed): other spaces stay inside a
//! token. Values are compared as written, with no case folding or trimming.
//! An empty or reversed range gives nothing. The index alone may return
//! extra ids when hashes collide; it is exact only through
//! `Document::elements_with_attr`, which checks each one.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Document, NodeId, Sym};

/// What an `AttrIndex` finds: elements whose attribute is a value, or
/// whose attribute holds a token among its whitespace-separated tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrQuery<'q> {
    /// The attribute's value is this text.
    Value(&'q str),
    /// The attribute's value, split at XML whitespace (space, tab, carriage
    /// return, line feed), has this token, which is not empty.
    Token(&'q str),
}

impl AttrQuery<'_> {
    /// Whether the value `value` answers the query.
    pub fn matches(self, value: &str) -> bool {
        match self {
            AttrQuery::Value(v) => value == v,
            AttrQuery::Token(t) => !t.is_empty() && tokens(value).any(|x| x == t),
        }
    }
}

/// The elements of one document by the values and tokens of one
/// attribute name.
#[derive(Clone, Debug, Default)]
pub(crate) struct AttrIndex {
    /// (key, element id), sorted; a pair appears once even when a value has
    /// the same token twice.
    entries: Vec<(u64, u32)>,
}

impl AttrIndex {
    /// The index of `doc`'s attributes named `name`.
    pub(crate) fn build(doc: &Document, name: Sym) -> AttrIndex {
        let mut entries = Vec::new();
        for n in doc.all().filter(|&n| doc.is_element(n)) {
            for a in doc.attrs(n).iter().filter(|a| a.name == name) {
                let value = doc.attr_value(a);
                entries.push((key(a.name, AttrQuery::Value(value)), n.0));
                for t in tokens(value) {
                    entries.push((key(a.name, AttrQuery::Token(t)), n.0));
                }
            }
        }
        let mut entries = sorted_by_key_then_id(entries);
        entries.dedup();
        entries.shrink_to_fit();
        AttrIndex { entries }
    }

    /// The ids of the elements within `from..end` whose key is `name` and
    /// `query`'s: a superset of the answer when hashes collide.
    pub(crate) fn candidates(
        &self,
        name: Sym,
        query: AttrQuery<'_>,
        from: NodeId,
        end: NodeId,
    ) -> &[(u64, u32)] {
        let k = key(name, query);
        let lo = self.entries.partition_point(|&e| e < (k, from.0));
        let hi = self.entries.partition_point(|&e| e < (k, end.0));
        &self.entries[lo..hi.max(lo)]
    }
}

/// `entries` sorted by key, then id: the order `sort_unstable` gives, made
/// by spreading them first into buckets by the top bits of their key and
/// then sorting each small bucket.
///
/// The keys are hashes, so the buckets fill evenly, a few entries each: a
/// counting pass, a scatter and tiny sorts, where a comparison sort of a
/// page's quarter million entries took most of the index's eleven
/// milliseconds on a page of 60,000 elements, which a heal on such a page
/// waits for. The scatter needs a second array as large as the entries, so
/// lists outside [`BUCKETED`] are sorted in place as before: tiny ones,
/// where buckets gain nothing, and huge ones, whose copy would add tens of
/// megabytes to the peak of a page of hundreds.
fn sorted_by_key_then_id(mut entries: Vec<(u64, u32)>) -> Vec<(u64, u32)> {
    if !BUCKETED.contains(&entries.len()) {
        entries.sort_unstable();
        return entries;
    }
    // About one bucket for every two entries, as a power of two.
    let bits = usize::BITS - (entries.len() / 2).leading_zeros();
    let bucket = |key: u64| (key >> (64 - bits)) as usize;
    let mut starts = vec![0u32; (1 << bits) + 1];
    for &(key, _) in &entries {
        starts[bucket(key) + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    let mut out = vec![(0u64, 0u32); entries.len()];
    for e in entries {
        let b = bucket(e.0);
        out[next[b] as usize] = e;
        next[b] += 1;
    }
    for pair in starts.windows(2) {
        out[pair[0] as usize..pair[1] as usize].sort_unstable();
    }
    out
}

/// How many entries [`sorted_by_key_then_id`] spreads into buckets; outside
/// these bounds it sorts in place.
const BUCKETED: std::ops::Range<usize> = 1 << 10..1 << 22;

/// What building the indexes of a page of `attrs` attributes costs, in the
/// ids a search walks in the same time (the index of one name costs at most
/// that): the sort of its entries (about two
/// per attribute, with the tokens) dominates, some thirty comparisons an
/// entry on a large page, against one id test per id walked.
pub(crate) fn build_cost(attrs: usize) -> u64 {
    64 * attrs as u64
}

/// A count of the ids walked by searches the index could have answered.
/// Documents are shared between threads, so it is atomic; a clone starts
/// from the count so far.
#[derive(Debug, Default)]
pub(crate) struct Searched(AtomicU64);

impl Searched {
    /// Adds `ids` and gives the new count.
    pub(crate) fn add(&self, ids: u64) -> u64 {
        self.0.fetch_add(ids, Ordering::Relaxed).saturating_add(ids)
    }
}

impl Clone for Searched {
    fn clone(&self) -> Self {
        Searched(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

/// The whitespace-separated tokens of an attribute value, none empty.
fn tokens(value: &str) -> impl Iterator<Item = &str> {
    value
        .split([' ', '\t', '\r', '\n'])
        .filter(|t| !t.is_empty())
}

/// The key of a query on the attribute `name`: a fixed-seed hash, so that
/// the index of a page is the same from run to run.
fn key(name: Sym, query: AttrQuery<'_>) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x6d65_6e64).build_hasher();
    name.hash(&mut h);
    match query {
        AttrQuery::Value(v) => (0u8, v).hash(&mut h),
        AttrQuery::Token(t) => (1u8, t).hash(&mut h),
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids of the elements within `from..end` whose attribute `name`
    /// answers `query`, by the index and by a walk: they must agree, and be
    /// `expected`.
    fn check(html: &str, name: &str, query: AttrQuery<'_>, from: u32, end: u32, expected: &[u32]) {
        let doc = Document::parse_str(html);
        let sym = doc.names().get(name).expect("the name is on the page");
        let by_index: Vec<u32> = doc
            .elements_with_attr(sym, query, NodeId(from), NodeId(end))
            .map(|n| n.0)
            .collect();
        let by_walk: Vec<u32> = (from..end.min(doc.all().len() as u32))
            .filter(|&x| {
                doc.attr_sym(NodeId(x), sym)
                    .is_some_and(|v| query.matches(v))
            })
            .collect();
        assert_eq!(by_index, by_walk, "{html} {name} {query:?}");
        assert_eq!(by_index, expected, "{html} {name} {query:?}");
    }

    const PAGE: &str = "<div class='a b'><p class='b' id='x'>1</p><p class='a  b\tc'>2</p>\
                        <span class='b b'>3</span><p class=''>4</p><p id='b'>5</p></div>";

    #[test]
    fn values_are_found_whole_and_only_whole() {
        // html 1, head 2, body 3, div 4, p 5, text 6, p 7, text 8, span 9,
        // text 10, p 11, text 12, p 13.
        check(PAGE, "class", AttrQuery::Value("b"), 0, 100, &[5]);
        check(PAGE, "class", AttrQuery::Value("a b"), 0, 100, &[4]);
        check(PAGE, "class", AttrQuery::Value(""), 0, 100, &[11]);
        check(PAGE, "id", AttrQuery::Value("b"), 0, 100, &[13]);
        check(PAGE, "class", AttrQuery::Value("nothing"), 0, 100, &[]);
    }

    #[test]
    fn tokens_are_found_once_per_element_within_the_range() {
        check(PAGE, "class", AttrQuery::Token("b"), 0, 100, &[4, 5, 7, 9]);
        check(PAGE, "class", AttrQuery::Token("c"), 0, 100, &[7]);
        check(PAGE, "class", AttrQuery::Token("b"), 5, 9, &[5, 7]);
        check(PAGE, "class", AttrQuery::Token(""), 0, 100, &[]);
        check(PAGE, "class", AttrQuery::Token("a b"), 0, 100, &[]);
    }

    proptest::proptest! {
        /// The buckets give exactly the order of a comparison sort, keys
        /// of every spread and repeats included.
        #[test]
        fn the_bucket_sort_is_the_comparison_sort(
            entries in proptest::collection::vec((proptest::prelude::any::<u64>(), 0u32..50), 0..5_000),
            narrow in proptest::prelude::any::<bool>(),
        ) {
            // Narrow keys crowd a few buckets, as colliding hashes would.
            let entries: Vec<(u64, u32)> = entries
                .into_iter()
                .map(|(k, id)| (if narrow { k % 7 } else { k }, id))
                .collect();
            let mut expected = entries.clone();
            expected.sort_unstable();
            proptest::prop_assert_eq!(sorted_by_key_then_id(entries), expected);
        }
    }

    #[test]
    fn an_element_of_many_classes_is_found_by_each() {
        let html = format!(
            "<p class='{}'>x</p>",
            (0..500)
                .map(|i| format!("c{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for i in [0, 1, 250, 499] {
            check(
                &html,
                "class",
                AttrQuery::Token(&format!("c{i}")),
                0,
                100,
                &[4],
            );
        }
    }
}
