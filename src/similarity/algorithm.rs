//! The names of the tree similarity algorithms and label modes: one spelling
//! for each, which the command line, wrappers, the store and the output all
//! use through [`Algorithm::as_str`] and [`std::str::FromStr`].
//!
//! ## What it refuses
//!
//! Names are read exactly as written: no case folding, no trimming and no
//! aliases, so `CTM`, ` ctm` and `tag_id` are unknown. An unknown name is an
//! [`UnknownName`] error that lists every accepted spelling. The types only
//! serialize; nothing here deserializes them, so a name is read through
//! [`FromStr`] or not at all.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::LabelMode;

/// A tree similarity algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Clustered tree matching.
    Ctm,
    /// Simple tree matching.
    Stm,
    /// Tree bigram similarity.
    Bigram,
    /// Tree Jaro-Winkler.
    Jw,
}

impl Algorithm {
    /// Every algorithm, in the default order of priority.
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Ctm,
        Algorithm::Stm,
        Algorithm::Bigram,
        Algorithm::Jw,
    ];

    /// The name as the command line and wrappers spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Ctm => "ctm",
            Algorithm::Stm => "stm",
            Algorithm::Bigram => "bigram",
            Algorithm::Jw => "jw",
        }
    }
}

impl LabelMode {
    /// Every label mode.
    pub const ALL: [LabelMode; 3] = [LabelMode::Tag, LabelMode::TagId, LabelMode::TagClass];

    /// The name as the command line and wrappers spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            LabelMode::Tag => "tag",
            LabelMode::TagId => "tag+id",
            LabelMode::TagClass => "tag+class",
        }
    }
}

/// A name that is not one of an enumeration's spellings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {name:?}: expected one of {expected}")]
#[non_exhaustive]
pub struct UnknownName {
    /// What kind of name it was meant to be (`algorithm`, `label mode`).
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The accepted spellings, comma-separated.
    pub expected: String,
}

impl UnknownName {
    /// The error for `name`, listing `accepted`.
    pub fn new(what: &'static str, name: &str, accepted: &[&str]) -> UnknownName {
        UnknownName {
            what,
            name: name.to_owned(),
            expected: accepted.join(", "),
        }
    }
}

impl FromStr for Algorithm {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| UnknownName::new("algorithm", s, &Algorithm::ALL.map(Algorithm::as_str)))
    }
}

impl FromStr for LabelMode {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LabelMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                UnknownName::new("label mode", s, &LabelMode::ALL.map(LabelMode::as_str))
            })
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for LabelMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_itself() {
        for a in Algorithm::ALL {
            assert_eq!(a.as_str().parse::<Algorithm>(), Ok(a));
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
        for m in LabelMode::ALL {
            assert_eq!(m.as_str().parse::<LabelMode>(), Ok(m));
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let e = "tree".parse::<Algorithm>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown algorithm \"tree\": expected one of ctm, stm, bigram, jw"
        );
    }
}
