//! Interned element and attribute names.
//!
//! A document interns every tag and attribute name once, so that name tests in
//! XPath and label functions in tree matching compare two integers instead of two
//! strings. The table is per document: it never grows while a document is read,
//! which keeps documents `Send + Sync` without locks.

use std::collections::HashMap;

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
    map: HashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
}

impl Names {
    /// Interns `name`, returning its symbol.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.map.get(name) {
            return sym;
        }
        let sym = Sym(self.names.len() as u32);
        self.names.push(name.into());
        self.map.insert(name.into(), sym);
        sym
    }

    /// The symbol of `name`, if the table holds it.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.map.get(name).copied()
    }

    /// The text of a symbol.
    pub fn resolve(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }

    /// How many names the table holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
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
}
