//! Interned element and attribute names.
//!
//! A document interns every tag and attribute name once, so that name tests in
//! XPath and label functions in tree matching compare two integers instead of two
//! strings. The table is per document: it never grows while a document is read,
//! which keeps documents `Send + Sync` without locks.
//!
//! The names live in one string, and the table that finds them hashes with
//! foldhash seeded per process (hashbrown's default): a page of a million
//! distinct attribute names then costs two allocations that grow by
//! doubling, not two a name, and a page cannot choose names that collide.
//!
//! ## What it refuses
//!
//! Names are kept as given: no case folding or trimming, and the empty name
//! is a name like any other. Nothing is ever removed from a table. A symbol
//! carries no mark of its table, so [`Names::resolve`] given one from another
//! table gives another name, or panics past the table's end.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

/// An interned name, valid within the [`Names`] table (and so the document) that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub(crate) u32);

impl Sym {
    /// The raw index of the name in its table.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// A table of interned names.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// The symbols with their names' hashes, kept so that growing the
    /// table hashes no name again.
    table: HashTable<(u64, Sym)>,
    hasher: DefaultHashBuilder,
    /// Every name, one after another.
    text: String,
    /// Where each name ends in `text`; it starts where the one before ends.
    ends: Vec<u32>,
}

impl Names {
    /// Interns `name`, returning its symbol.
    pub fn intern(&mut self, name: &str) -> Sym {
        let hash = self.hasher.hash_one(name);
        let Names {
            table, text, ends, ..
        } = self;
        let entry = table.entry(
            hash,
            |&(h, sym)| h == hash && span(text, ends, sym) == name,
            |&(h, _)| h,
        );
        entry
            .or_insert_with(|| {
                text.push_str(name);
                ends.push(text.len() as u32);
                (hash, Sym(ends.len() as u32 - 1))
            })
            .get()
            .1
    }

    /// The symbol of `name`, if the table holds it.
    pub fn get(&self, name: &str) -> Option<Sym> {
        let hash = self.hasher.hash_one(name);
        self.table
            .find(hash, |&(h, sym)| h == hash && self.resolve(sym) == name)
            .map(|&(_, sym)| sym)
    }

    /// The text of a symbol.
    pub fn resolve(&self, sym: Sym) -> &str {
        span(&self.text, &self.ends, sym)
    }

    /// How many names the table holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// The text of `sym` in a table's `text` and `ends`.
fn span<'a>(text: &'a str, ends: &[u32], sym: Sym) -> &'a str {
    let i = sym.0 as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &text[start..ends[i] as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_twice_gives_the_same_symbol() {
        let mut names = Names::default();
        let a = names.intern("div");
        let b = names.intern("span");
        assert_eq!(names.intern("div"), a);
        assert_ne!(a, b);
        assert_eq!(names.resolve(b), "span");
        assert_eq!(names.get("p"), None);
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn a_million_names_each_resolve_to_themselves() {
        let mut names = Names::default();
        let syms: Vec<Sym> = (0..1_000_000)
            .map(|i| names.intern(&format!("a{i}")))
            .collect();
        assert_eq!(names.len(), 1_000_000);
        for i in [0, 1, 9, 10, 99_999, 999_999] {
            assert_eq!(names.resolve(syms[i]), format!("a{i}"));
            assert_eq!(names.get(&format!("a{i}")), Some(syms[i]));
            assert_eq!(names.intern(&format!("a{i}")), syms[i]);
        }
        assert_eq!(names.get("a1000000"), None);
        assert_eq!(names.intern(""), Sym(1_000_000));
        assert_eq!(names.resolve(Sym(1_000_000)), "");
    }
}
