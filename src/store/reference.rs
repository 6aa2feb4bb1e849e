//! A store's tag and the `TAG:ID` form of an adaptation's id.
//!
//! Ids are row numbers, so every store has an adaptation 1. A review command
//! that read another store than the run wrote would decide the wrong
//! adaptation and say nothing. Each store therefore carries a tag, drawn
//! once when it is made, and an adaptation is named across stores as
//! `TAG:ID` (`3fa9c2:17`). A plain `17` still means adaptation 17 of the
//! store a command reads; the commands say which store that is.
//!
//! This module refuses anything but six lowercase hexadecimal digits as a
//! tag, and anything but a positive number as an id.

use std::fmt;
use std::str::FromStr;

use super::AdaptationId;

/// A store's tag: six lowercase hexadecimal digits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct StoreTag(String);

impl StoreTag {
    /// The tag as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StoreTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for StoreTag {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim().to_ascii_lowercase();
        if s.len() == 6 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(StoreTag(s))
        } else {
            Err(format!(
                "{s:?} is not a store tag (six hexadecimal digits, as in 3fa9c2:17)"
            ))
        }
    }
}

/// An adaptation named by its id, and optionally by the tag of its store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AdaptationRef {
    /// The store it belongs to, when given as `TAG:ID`.
    pub tag: Option<StoreTag>,
    /// Its id in that store.
    pub id: AdaptationId,
}

impl AdaptationRef {
    /// The adaptation `id` of the store tagged `tag`.
    pub fn new(tag: StoreTag, id: AdaptationId) -> AdaptationRef {
        AdaptationRef { tag: Some(tag), id }
    }
}

impl fmt::Display for AdaptationRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tag {
            Some(tag) => write!(f, "{tag}:{}", self.id),
            None => write!(f, "{}", self.id),
        }
    }
}

impl FromStr for AdaptationRef {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let (tag, id) = match s.split_once(':') {
            Some((tag, id)) => (Some(tag.parse::<StoreTag>()?), id),
            None => (None, s),
        };
        match id.trim().parse::<i64>() {
            Ok(n) if n > 0 => Ok(AdaptationRef {
                tag,
                id: AdaptationId(n),
            }),
            _ => Err(format!(
                "{s:?} is not an adaptation id: give its number as `mend log` lists it (17), or TAG:ID (3fa9c2:17)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: Result<&str, ()>) {
        let parsed = input.parse::<AdaptationRef>();
        match expected {
            Ok(shown) => assert_eq!(parsed.map(|r| r.to_string()), Ok(shown.to_owned())),
            Err(()) => assert!(parsed.is_err(), "{input:?} parsed as {parsed:?}"),
        }
    }

    #[test]
    fn an_id_is_a_number_or_a_tag_and_a_number() {
        check("17", Ok("17"));
        check(" 17 ", Ok("17"));
        check("3fa9c2:17", Ok("3fa9c2:17"));
        check("3FA9C2:17", Ok("3fa9c2:17"));
    }

    #[test]
    fn anything_else_is_refused() {
        check("", Err(()));
        check("0", Err(()));
        check("-3", Err(()));
        check("abc", Err(()));
        check("3fa9c2:", Err(()));
        check(":17", Err(()));
        check("3fa9:17", Err(()));
        check("3fa9cz:17", Err(()));
        check("3fa9c2:17:1", Err(()));
    }
}
