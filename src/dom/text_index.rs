//! Elements by name and normalised text: for each element, a hash of its
//! name and of its string-value with XPath's `normalize-space()` applied.
//!
//! Counting the elements that look exactly like a target (its tag, its
//! text) is a question each pattern of a wrapper asks of the same page, at
//! capture and again when a heal judges a candidate. Answered by a walk,
//! a wrapper of P patterns over a page of n elements costs P × n; with the
//! index it costs one build and P lookups.
//!
//! Building never reads an element's text more than once: elements are
//! taken children first (reverse document order), and each one's
//! normalised text is folded from its children's as a polynomial hash with
//! the whitespace at its two ends, so a deep page costs what a flat one
//! of as many nodes and as much text does. Its memory is some forty bytes
//! a node while it is built, sixteen an element after.
//!
//! ## What it refuses
//!
//! It finds by hash: a caller checks each element it returns. Comments and
//! processing instructions are not text, as for `string()`.

use std::collections::HashMap;

use super::{Document, NodeId, NodeKind, Sym};

/// The hash base: odd, so that powers of it never become 0 modulo 2⁶⁴.
const BASE: u64 = 0x0100_0000_01b3;

/// The elements of one document by (name, normalised text) hash.
#[derive(Clone, Debug, Default)]
pub(crate) struct TextIndex {
    by_key: HashMap<u64, Vec<u32>>,
}

impl TextIndex {
    /// The index of `doc`'s elements.
    pub(crate) fn build(doc: &Document) -> TextIndex {
        let mut pieces = vec![Piece::EMPTY; doc.len()];
        for n in doc.all().rev() {
            pieces[n.index()] = match doc.kind(n) {
                NodeKind::Text => Piece::of_text(doc.text(n)),
                NodeKind::Element | NodeKind::Document => doc
                    .children(n)
                    .fold(Piece::EMPTY, |acc, c| acc.then(&pieces[c.index()])),
                _ => Piece::EMPTY,
            };
        }
        let mut by_key: HashMap<u64, Vec<u32>> = HashMap::new();
        for n in doc.all().filter(|&n| doc.is_element(n)) {
            by_key
                .entry(key(doc.name_sym(n), pieces[n.index()].hash))
                .or_default()
                .push(n.0);
        }
        TextIndex { by_key }
    }

    /// The elements named `sym` whose normalised text may be `text`
    /// (itself normalised), in document order; a caller checks each.
    pub(crate) fn candidates(&self, sym: Sym, text: &str) -> &[u32] {
        let hash = Piece::of_text(text).hash;
        self.by_key.get(&key(sym, hash)).map_or(&[], Vec::as_slice)
    }
}

/// Mixes a name into a text's hash.
fn key(sym: Sym, hash: u64) -> u64 {
    (hash ^ u64::from(sym.0).wrapping_mul(0x9e37_79b9_7f4a_7c15)).rotate_left(17)
}

/// The normalised form of a run of text, as far as joining runs needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    /// The hash of its words joined by single spaces.
    hash: u64,
    /// `BASE` to the power of that joined text's length in bytes.
    power: u64,
    /// Whether it holds any word.
    words: bool,
    /// Whether it starts (ends) with whitespace, or is all whitespace.
    space_before: bool,
    space_after: bool,
}

impl Piece {
    const EMPTY: Piece = Piece {
        hash: 0,
        power: 1,
        words: false,
        space_before: false,
        space_after: false,
    };

    fn of_text(text: &str) -> Piece {
        let mut piece = Piece::EMPTY;
        let mut space = false;
        for &b in text.as_bytes() {
            if is_space(b) {
                space = true;
                if !piece.words {
                    piece.space_before = true;
                }
                continue;
            }
            if space && piece.words {
                piece.push(b' ');
            }
            space = false;
            piece.words = true;
            piece.push(b);
        }
        piece.space_after = space;
        piece
    }

    fn push(&mut self, b: u8) {
        self.hash = self.hash.wrapping_mul(BASE).wrapping_add(u64::from(b) + 1);
        self.power = self.power.wrapping_mul(BASE);
    }

    /// This run followed by `next`.
    fn then(self, next: &Piece) -> Piece {
        if !next.words {
            return Piece {
                space_after: self.space_after || next.space_before || next.space_after,
                space_before: self.space_before || (!self.words && next.space_before),
                ..self
            };
        }
        if !self.words {
            return Piece {
                space_before: self.space_before || self.space_after || next.space_before,
                ..*next
            };
        }
        let mut joined = self;
        if self.space_after || next.space_before {
            joined.push(b' ');
        }
        Piece {
            hash: joined.hash.wrapping_mul(next.power).wrapping_add(next.hash),
            power: joined.power.wrapping_mul(next.power),
            words: true,
            space_before: self.space_before,
            space_after: next.space_after,
        }
    }
}

/// Whether the string-value of `element`, its whitespace normalised, is
/// `want` (itself normalised), reading no further into it than the first
/// difference.
pub(crate) fn normalized_text_is(doc: &Document, element: NodeId, want: &str) -> bool {
    let want = want.as_bytes();
    let (mut at, mut started, mut space) = (0usize, false, false);
    for d in doc.descendants(element) {
        if doc.kind(d) != NodeKind::Text {
            continue;
        }
        for &b in doc.text(d).as_bytes() {
            if is_space(b) {
                space = started;
                continue;
            }
            if space {
                if want.get(at) != Some(&b' ') {
                    return false;
                }
                at += 1;
                space = false;
            }
            if want.get(at) != Some(&b) {
                return false;
            }
            at += 1;
            started = true;
        }
    }
    at == want.len()
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xpath::normalize_space;
    use proptest::prelude::*;

    fn joined(parts: &[&str]) -> Piece {
        parts
            .iter()
            .fold(Piece::EMPTY, |acc, p| acc.then(&Piece::of_text(p)))
    }

    #[test]
    fn text_split_anywhere_hashes_as_the_whole() {
        let whole = Piece::of_text("Lead story of the day").hash;
        for parts in [
            &["Lead ", "story of the day"][..],
            &["Lead", " story", " of the", " day"],
            &["  Lead", "", "   ", " story of the day  "],
            &["Le", "ad story of the d", "ay"],
        ] {
            assert_eq!(joined(parts).hash, whole, "{parts:?}");
        }
        assert_ne!(joined(&["Lead", "story of the day"]).hash, whole);
    }

    proptest! {
        #[test]
        fn the_hash_of_the_joined_runs_is_the_hash_of_their_normalised_text(
            parts in prop::collection::vec("[ a-c\t\n]{0,6}", 0..6),
        ) {
            let strs: Vec<&str> = parts.iter().map(String::as_str).collect();
            let concat: String = parts.concat();
            prop_assert_eq!(joined(&strs).hash, Piece::of_text(&normalize_space(&concat)).hash);
        }
    }

    #[test]
    fn finds_elements_by_name_and_normalised_text() {
        let doc = Document::parse(b"<h2>Lead  story</h2><p><a>Lead story</a></p><h2> Lead\n<b>story</b> </h2><h2>Lead</h2>");
        let index = TextIndex::build(&doc);
        let h2 = doc.sym("h2").unwrap();
        let found: Vec<String> = index
            .candidates(h2, "Lead story")
            .iter()
            .map(|&n| doc.string_value(NodeId(n)))
            .collect();
        assert_eq!(found, ["Lead  story", " Lead\nstory "]);
    }
}
