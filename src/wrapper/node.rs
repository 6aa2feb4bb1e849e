//! The YAML document as a tree of nodes that remember where they were written.
//!
//! The loader needs two views of one document: a JSON value for the schema
//! check, and the source position of every key and value so that a schema
//! error (which names a JSON pointer) can be reported at a line and column.
//! This tree gives both. It is read through serde-saphyr with `Spanned`, so
//! merge keys, aliases and budgets are handled by the YAML reader, and
//! duplicate keys are kept (not collapsed) so that both places can be named.
//!
//! It refuses mapping keys that are lists or mappings: a wrapper's keys are
//! always words.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};

/// Where a node was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Byte offset of the node's first character in the source, when known.
    pub offset: Option<usize>,
    /// Length in bytes of the node's source text, when known.
    pub len: Option<usize>,
}

impl Pos {
    fn from_location(location: &Location) -> Pos {
        let span = location.span();
        Pos {
            line: usize::try_from(location.line()).unwrap_or(usize::MAX),
            column: usize::try_from(location.column()).unwrap_or(usize::MAX),
            offset: span.byte_offset().and_then(|o| usize::try_from(o).ok()),
            len: span.byte_len().and_then(|o| usize::try_from(o).ok()),
        }
    }
}

/// One YAML node with its positions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    /// What the node holds.
    pub kind: Kind,
    /// Where the node is defined (for an alias, the anchored original).
    pub at: Pos,
    /// Where the node is used (for an alias, the `*name`; for a merged entry, the `<<`).
    pub used: Pos,
}

/// The content of a node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// `~`, `null` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number that fits an `i64`.
    Int(i64),
    /// A whole number above `i64::MAX`.
    UInt(u64),
    /// Any other number.
    Float(f64),
    /// Text.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order, duplicates included.
    Map(Vec<Entry>),
}

/// One key and value of a mapping.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    /// The key as text.
    pub key: String,
    /// Where the key was written.
    pub key_at: Pos,
    /// The value.
    pub value: Node,
}

impl Node {
    /// The entries of a mapping, or none.
    pub fn entries(&self) -> &[Entry] {
        match &self.kind {
            Kind::Map(entries) => entries,
            _ => &[],
        }
    }

    /// The items of a sequence, or none.
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Seq(items) => items,
            _ => &[],
        }
    }

    /// The entry for `key` in a mapping; the last one when the key is repeated,
    /// as the JSON view keeps the last value.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries().iter().rev().find(|e| e.key == key)
    }

    /// The value for `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// The text of a string node.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The node at a JSON pointer (RFC 6901), if there is one.
    pub fn pointer(&self, pointer: &str) -> Option<&Node> {
        let mut node = self;
        for segment in segments(pointer) {
            node = match &node.kind {
                Kind::Map(_) => node.get(&segment)?,
                Kind::Seq(items) => items.get(segment.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The key position of the last segment of `pointer`, when it names a mapping entry.
    pub fn key_pos(&self, pointer: &str) -> Option<Pos> {
        let (parent, last) = split_last(pointer)?;
        self.pointer(parent)?.entry(&last).map(|e| e.key_at)
    }

    /// The JSON view of the node, as the schema sees it.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::UInt(u) => Value::from(*u),
            // JSON has no NaN or infinity; the reader refuses them already, so
            // this only keeps the conversion total.
            Kind::Float(f) => serde_json::Number::from_f64(*f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            Kind::Str(s) => Value::String(s.clone()),
            Kind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }

    /// Every repeated key, as (pointer of the mapping, key, first entry, repeat).
    pub fn duplicates(&self) -> Vec<(String, &Entry, &Entry)> {
        let mut found = Vec::new();
        self.collect_duplicates(&mut String::new(), &mut found);
        found
    }

    fn collect_duplicates<'a>(
        &'a self,
        pointer: &mut String,
        found: &mut Vec<(String, &'a Entry, &'a Entry)>,
    ) {
        let len = pointer.len();
        match &self.kind {
            Kind::Map(entries) => {
                for (i, entry) in entries.iter().enumerate() {
                    if let Some(first) = entries[..i].iter().find(|e| e.key == entry.key) {
                        found.push((pointer.clone(), first, entry));
                    }
                    push_segment(pointer, &entry.key);
                    entry.value.collect_duplicates(pointer, found);
                    pointer.truncate(len);
                }
            }
            Kind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    push_segment(pointer, &i.to_string());
                    item.collect_duplicates(pointer, found);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
}

/// Appends one escaped segment to a JSON pointer.
pub(crate) fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
}

/// The unescaped segments of a JSON pointer.
pub(crate) fn segments(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
}

/// A pointer split into its parent and its unescaped last segment.
pub(crate) fn split_last(pointer: &str) -> Option<(&str, String)> {
    let cut = pointer.rfind('/')?;
    let last = pointer[cut + 1..].replace("~1", "/").replace("~0", "~");
    Some((&pointer[..cut], last))
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Kind>::deserialize(deserializer)?;
        Ok(Node {
            kind: spanned.value,
            at: Pos::from_location(&spanned.defined),
            used: Pos::from_location(&spanned.referenced),
        })
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Kind, E> {
        Ok(Kind::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Kind, E> {
        Ok(Kind::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Kind, E> {
        Ok(i64::try_from(v).map_or(Kind::UInt(v), Kind::Int))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Kind, E> {
        // Numbers beyond 64 bits mean nothing to a wrapper; keeping them as
        // floats lets the schema report them as out of range.
        Ok(i64::try_from(v).map_or(Kind::Float(v as f64), Kind::Int))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Kind, E> {
        Ok(u64::try_from(v).map_or(Kind::Float(v as f64), |u| {
            i64::try_from(u).map_or(Kind::UInt(u), Kind::Int)
        }))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Kind, E> {
        Ok(Kind::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Kind, E> {
        Ok(Kind::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Kind, E> {
        Ok(Kind::Str(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Kind, D::Error> {
        Kind::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Kind::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Key>>()? {
            let value = map.next_value::<Node>()?;
            entries.push(Entry {
                key: key.value.0,
                key_at: Pos::from_location(&key.defined),
                value,
            });
        }
        Ok(Kind::Map(entries))
    }
}

/// A mapping key as text; scalars of any type are spelled as YAML reads them.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key written as a word")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(Key(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Key, E> {
        Ok(Key(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
        Ok(Key("null".to_owned()))
    }

    fn visit_none<E: de::Error>(self) -> Result<Key, E> {
        Ok(Key("null".to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Key, A::Error> {
        Err(de::Error::custom(
            "a mapping key must be a word, not a list",
        ))
    }

    fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<Key, A::Error> {
        Err(de::Error::custom(
            "a mapping key must be a word, not a mapping",
        ))
    }
}
