//! Pattern paths: how a pattern is named across mend, from the output's
//! `"pattern": "book/price"` to the store's rows and the tree-gram files.
//!
//! A path is the list of names from a top-level pattern down to one pattern.
//! It is written with `/` between the names, and a name never holds a `/`
//! (the schema forbids it), so the written form reads back as the same path.
//! The [`Wrapper`] methods here are the one place that looks a pattern up by
//! its path, walks every pattern parents first, and selects the instances a
//! nested pattern is evaluated in.
//!
//! ## What it refuses
//!
//! Parsing refuses, with [`BadPatternPath`], empty text and any empty name
//! (a leading, trailing or doubled `/`); names are not trimmed, and parsing
//! does not check that a wrapper has the pattern. Lookups give `None` for a
//! path the wrapper does not have, and [`Wrapper::instances`] gives no
//! instance when a parent on the path is missing or its XPath fails. The
//! walk over every pattern keeps its own stack, never recursing.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::{Pattern, Wrapper};
use crate::dom::Document;
use crate::xpath::{Item, XPath, select_nested};

/// The names from a top-level pattern down to one pattern: `book/price`.
///
/// A path is never empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PatternPath(Vec<String>);

/// Text that is not a pattern path: empty, or with an empty name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a pattern path: expected names joined by '/', such as book/price")]
pub struct BadPatternPath(pub String);

impl PatternPath {
    /// The path of a top-level pattern.
    pub fn top(name: impl Into<String>) -> PatternPath {
        PatternPath(vec![name.into()])
    }

    /// The path of `names`, which the caller knows to be a pattern's: not
    /// empty, and each a pattern's name.
    pub(crate) fn from_names(names: Vec<String>) -> PatternPath {
        debug_assert!(!names.is_empty() && names.iter().all(|n| !n.is_empty()));
        PatternPath(names)
    }

    /// The path of the child `name` of this pattern.
    pub fn child(&self, name: impl Into<String>) -> PatternPath {
        let mut names = self.0.clone();
        names.push(name.into());
        PatternPath(names)
    }

    /// The path of the parent pattern, if this one is not top-level.
    pub fn parent(&self) -> Option<PatternPath> {
        (self.0.len() > 1).then(|| PatternPath(self.0[..self.0.len() - 1].to_vec()))
    }

    /// The names, top-level first.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// The pattern's own name, the last of the path.
    pub fn name(&self) -> &str {
        self.0.last().map_or("", String::as_str)
    }

    /// How many names the path has: 1 for a top-level pattern.
    pub fn depth(&self) -> usize {
        self.0.len()
    }

    /// Whether this path is `ancestor` or lies below it.
    pub fn is_within(&self, ancestor: &PatternPath) -> bool {
        self.0.starts_with(&ancestor.0)
    }
}

impl fmt::Display for PatternPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl FromStr for PatternPath {
    type Err = BadPatternPath;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let names: Vec<String> = s.split('/').map(str::to_owned).collect();
        if names.iter().any(String::is_empty) {
            return Err(BadPatternPath(s.to_owned()));
        }
        Ok(PatternPath(names))
    }
}

impl Serialize for PatternPath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for PatternPath {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl PartialEq<str> for PatternPath {
    fn eq(&self, other: &str) -> bool {
        let mut rest = other;
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                let Some(r) = rest.strip_prefix('/') else {
                    return false;
                };
                rest = r;
            }
            let Some(r) = rest.strip_prefix(name.as_str()) else {
                return false;
            };
            rest = r;
        }
        rest.is_empty()
    }
}

impl PartialEq<&str> for PatternPath {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl Wrapper {
    /// The pattern at `path`.
    pub fn pattern(&self, path: &PatternPath) -> Option<&Pattern> {
        find_in(&self.patterns, path)
    }

    /// The pattern at `path`, to change.
    pub fn pattern_mut(&mut self, path: &PatternPath) -> Option<&mut Pattern> {
        let (first, rest) = path.0.split_first()?;
        let mut pattern = self.patterns.iter_mut().find(|p| &p.name == first)?;
        for name in rest {
            pattern = pattern.patterns.iter_mut().find(|p| &p.name == name)?;
        }
        Some(pattern)
    }

    /// Every pattern's path, parents before their children, siblings in the
    /// wrapper's order.
    pub fn pattern_paths(&self) -> Vec<PatternPath> {
        paths_of(&self.patterns)
    }

    /// The instances the pattern at `path` is evaluated in: the document
    /// node for a top-level pattern, else every element instance of its
    /// parent, in the order extraction visits them. A path the wrapper does
    /// not have, or a parent XPath that fails, gives none.
    pub fn instances(&self, doc: &Document, path: &PatternPath) -> Vec<Item> {
        let mut chain: Vec<&XPath> = Vec::with_capacity(path.depth());
        let mut patterns = &self.patterns;
        for name in &path.0[..path.depth().saturating_sub(1)] {
            let Some(p) = patterns.iter().find(|p| &p.name == name) else {
                return Vec::new();
            };
            chain.push(&p.xpath);
            patterns = &p.patterns;
        }
        select_nested(doc, &chain).unwrap_or_default()
    }
}

/// The pattern at `path` among the top-level `patterns`; the loader looks
/// patterns up through this before the wrapper is whole.
pub(super) fn find_in<'a>(patterns: &'a [Pattern], path: &PatternPath) -> Option<&'a Pattern> {
    let (first, rest) = path.0.split_first()?;
    let mut pattern = patterns.iter().find(|p| &p.name == first)?;
    for name in rest {
        pattern = pattern.patterns.iter().find(|p| &p.name == name)?;
    }
    Some(pattern)
}

/// The path of every pattern under the top-level `patterns`, parents before
/// their children, siblings in the wrapper's order.
pub(super) fn paths_of(patterns: &[Pattern]) -> Vec<PatternPath> {
    let mut out = Vec::new();
    let mut stack: Vec<(PatternPath, &Pattern)> = patterns
        .iter()
        .rev()
        .map(|p| (PatternPath::top(p.name.clone()), p))
        .collect();
    while let Some((path, p)) = stack.pop() {
        for child in p.patterns.iter().rev() {
            stack.push((path.child(child.name.clone()), child));
        }
        out.push(path);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> PatternPath {
        s.parse().unwrap()
    }

    #[test]
    fn a_path_reads_back_as_it_is_written() {
        for s in ["book", "book/price", "a/b/c"] {
            assert_eq!(path(s).to_string(), s);
            assert_eq!(path(s), *s);
            assert_eq!(serde_json::to_value(path(s)).unwrap(), s);
        }
        for bad in ["", "/", "book/", "/book", "a//b"] {
            assert!(bad.parse::<PatternPath>().is_err(), "{bad}");
        }
        assert_ne!(path("book/price"), *"book/pric");
        assert_ne!(path("book/price"), *"book");
        assert_ne!(path("book"), *"book/price");
    }

    #[test]
    fn parents_and_children_are_paths_too() {
        let price = PatternPath::top("book").child("price");
        assert_eq!(price, path("book/price"));
        assert_eq!(price.parent(), Some(path("book")));
        assert_eq!(path("book").parent(), None);
        assert_eq!(price.name(), "price");
        assert!(price.is_within(&path("book")));
        assert!(!path("books").is_within(&path("book")));
    }

    fn wrapper() -> Wrapper {
        crate::wrapper::load_str(
            "name: w\npatterns:\n  - name: book\n    xpath: //li\n    patterns:\n      \
             - name: price\n        xpath: ./p\n      - name: title\n        xpath: ./h3\n  \
             - name: price\n    xpath: //h1\n",
            "w.yaml",
        )
        .unwrap()
    }

    #[test]
    fn patterns_are_found_by_their_path() {
        let w = wrapper();
        assert_eq!(
            w.pattern(&path("book/price")).unwrap().xpath.source(),
            "./p"
        );
        assert_eq!(w.pattern(&path("price")).unwrap().xpath.source(), "//h1");
        assert!(w.pattern(&path("book/isbn")).is_none());
        assert!(w.pattern(&path("price/book")).is_none());
    }

    #[test]
    fn paths_come_parents_first_in_the_wrappers_order() {
        let paths: Vec<String> = wrapper()
            .pattern_paths()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(paths, ["book", "book/price", "book/title", "price"]);
    }

    #[test]
    fn a_nested_pattern_is_evaluated_in_every_instance_of_its_parent() {
        let doc = Document::parse(b"<h1>T</h1><ul><li><p>1</p></li><li><p>2</p></li></ul>");
        let w = wrapper();
        assert_eq!(
            w.instances(&doc, &path("price")),
            [Item::Node(crate::dom::NodeId::ROOT)]
        );
        let books = w.instances(&doc, &path("book/price"));
        assert_eq!(books.len(), 2);
        assert!(
            books
                .iter()
                .all(|i| i.path(&doc).ends_with("]") || i.path(&doc).ends_with("li"))
        );
        assert!(w.instances(&doc, &path("nothing/here")).is_empty());
    }
}
