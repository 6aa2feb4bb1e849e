//! Tokenizing: html5gum's WHATWG tokenizer, its events turned into the tokens
//! that html5ever's tree builder consumes.
//!
//! html5ever's own tokenizer reads its input one character at a time through
//! a queue of shared string buffers and grows every tag name, attribute and
//! text run a character at a time; on real pages it was about two thirds of
//! parsing. html5gum implements the same tokenization rules (it passes the
//! html5lib tokenizer tests) over bytes and hands out whole runs of text,
//! names and values as slices of the input. Measured with callgrind on 30
//! Zyte article pages, tokenizing alone took about 8.7 million instructions
//! a page with html5ever's tokenizer and 3.9 million with html5gum's; parse
//! plus extraction (`examples/parse_extract_throughput.rs`) fell from about
//! 13.6 to 6.9 million, and against lxml (`bench/parse_vs_lxml.py`) mend went
//! from 0.98 to 1.82 times lxml's speed on the Zyte pages and from 1.05 to
//! 1.97 times on the SWDE book pages (BENCHMARKS.md, "Parsing against lxml").
//! The trees are the same as with html5ever's tokenizer on all 595 pages of
//! the shared data folder. On generated input (10,000 malformed pages,
//! 300,000 token soups) they differ in two ways only, both where html5gum
//! agrees with html5lib and the specification: html5ever's tokenizer
//! dropped a U+FEFF wherever it resumed after a `</script>` or a
//! `<meta charset>`, not only at the start of the input, and it kept a
//! newline written as a character reference without its semicolon right
//! after `<pre>` or `<textarea>` (`<pre>&#xa`), which the tree builder drops.
//!
//! Tree construction still belongs to html5ever, and so does every decision
//! that feeds back into tokenizing: a start tag is handed to the tree builder
//! as soon as it is complete, and the state the tree builder asks for (raw
//! text after `<script>` or `<style>`, RCDATA after `<title>`, plaintext) is
//! the state html5gum goes on in; whether `<![CDATA[` opens a CDATA section
//! is the tree builder's answer about the adjusted current node. Character
//! data is gathered until the next token of another kind, and every U+0000
//! in it becomes its own null-character token, as html5ever's tokenizer
//! emits it, so the tree builder drops or replaces it by the same rules.
//! Duplicate attributes are dropped after the first, as the tokenization
//! rules say; end tags lose their attributes.
//!
//! The module refuses nothing: any string tokenizes. One input makes
//! html5gum recurse: within a tag, its states for a double-quoted attribute
//! value call one another directly, so the stack grows with the number of
//! attributes in one tag (a million of them overflow any thread's stack).
//! Past [`MAX_CHAINED_ATTRS`] attributes in one tag, tokenizing therefore
//! unwinds with [`LongTag`] (no panic message: `resume_unwind`), and
//! `build::parse` tokenizes the page again on a thread whose stack is sized
//! for the input, where the guard is off ([`tokenize`]'s `guarded`).

use std::convert::Infallible;

use hashbrown::HashSet;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::{Attribute, LocalName, QualName, ns};
use html5gum::{Emitter, State};

use super::gathered::{Gathered, checked, text};

/// The most attributes one tag may have while tokenizing on an ordinary
/// stack: html5gum's recursion within a tag costs about 300 bytes of stack
/// an attribute (measured on a release build), so this many stay under a
/// sixth of a 2 MiB thread stack. Real pages stay far below it.
pub(super) const MAX_CHAINED_ATTRS: usize = 1_024;

/// Stack, in bytes, that each attribute of a tag may cost html5gum: what
/// the large stack of a page with a long tag is sized by (`build::parse`),
/// with room to spare over the measured 300.
pub(super) const STACK_PER_ATTR: usize = 512;

/// How tokenizing stops, by unwinding, at a tag of more than
/// [`MAX_CHAINED_ATTRS`] attributes when guarded.
pub(super) struct LongTag;

/// Tokenizes `text` into `sink`, the end-of-file token included. A leading
/// byte order mark is skipped, as html5ever's tokenizer does. When
/// `guarded`, a tag of more than [`MAX_CHAINED_ATTRS`] attributes unwinds
/// with [`LongTag`], the sink left part-way.
pub(super) fn tokenize<S: TokenSink>(text: &str, sink: &S, guarded: bool) {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut events = Events::new(sink, text);
    events.guarded = guarded;
    // The emitter produces no tokens of its own (it hands them to the sink
    // as they complete), and reading a string cannot fail.
    let Ok(()) = html5gum::Tokenizer::new_with_emitter(text, events).finish();
}

/// The html5gum emitter: it keeps the token being built and hands every
/// finished one to the sink.
struct Events<'a, S: TokenSink> {
    sink: &'a S,
    /// The text being tokenized, which most pieces html5gum hands on are
    /// slices of.
    input: &'a str,
    /// Character data not yet handed on.
    text: Gathered,
    /// The tag being built.
    tag_kind: TagKind,
    tag_name: Vec<u8>,
    self_closing: bool,
    attrs: Vec<Attribute>,
    /// The names of `attrs`, once a tag has more than [`LINEAR_ATTRS`] of
    /// them: a duplicate is then found in constant time, so that a tag of a
    /// million attributes parses in linear time.
    attr_names: HashSet<LocalName>,
    duplicate_attrs: bool,
    /// The tag's attributes so far, duplicates included.
    attrs_seen: usize,
    /// Whether a tag of too many attributes unwinds (see [`LongTag`]).
    guarded: bool,
    /// The attribute being built, if any.
    in_attr: bool,
    attr_name: Vec<u8>,
    attr_value: Gathered,
    /// The name of the last start tag, for the appropriate end tag check.
    last_start_tag: Vec<u8>,
    comment: Vec<u8>,
    doctype: DoctypeParts,
    names: NameCache,
}

#[derive(Default)]
struct DoctypeParts {
    name: Option<Vec<u8>>,
    public_id: Option<Vec<u8>>,
    system_id: Option<Vec<u8>>,
    force_quirks: bool,
}

impl<'a, S: TokenSink> Events<'a, S> {
    fn new(sink: &'a S, input: &'a str) -> Self {
        Events {
            sink,
            input,
            text: Gathered::default(),
            tag_kind: TagKind::StartTag,
            tag_name: Vec::new(),
            self_closing: false,
            attrs: Vec::new(),
            attr_names: HashSet::new(),
            duplicate_attrs: false,
            attrs_seen: 0,
            guarded: false,
            in_attr: false,
            attr_name: Vec::new(),
            attr_value: Gathered::default(),
            last_start_tag: Vec::new(),
            comment: Vec::new(),
            doctype: DoctypeParts::default(),
            names: NameCache::default(),
        }
    }

    fn process(&self, token: Token) -> TokenSinkResult<S::Handle> {
        self.sink.process_token(token, 1)
    }

    /// Hands the gathered character data on, each U+0000 as its own token.
    fn flush_text(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let mut rest = self.text.bytes(self.input);
        while let Some(nul) = memchr::memchr(0, rest) {
            if nul > 0 {
                let text = StrTendril::from_slice(&text(self.input, &rest[..nul]));
                let _ = self.process(Token::CharacterTokens(text));
            }
            let _ = self.process(Token::NullCharacterToken);
            rest = &rest[nul + 1..];
        }
        if !rest.is_empty() {
            let text = StrTendril::from_slice(&text(self.input, rest));
            let _ = self.process(Token::CharacterTokens(text));
        }
        self.text.clear();
    }

    /// Puts the attribute being built on the tag, unless the tag has one of
    /// that name already.
    fn finish_attr(&mut self) {
        if !self.in_attr {
            return;
        }
        self.in_attr = false;
        let local = self.names.get(&self.attr_name);
        let duplicate = if self.attrs.len() < LINEAR_ATTRS {
            self.attrs.iter().any(|a| a.name.local == local)
        } else {
            if self.attr_names.is_empty() {
                self.attr_names
                    .extend(self.attrs.iter().map(|a| a.name.local.clone()));
            }
            !self.attr_names.insert(local.clone())
        };
        if duplicate {
            self.duplicate_attrs = true;
        } else {
            self.attrs.push(Attribute {
                name: QualName::new(None, ns!(), local),
                value: StrTendril::from_slice(&text(self.input, self.attr_value.bytes(self.input))),
            });
        }
        self.attr_name.clear();
        self.attr_value.clear();
    }

    fn init_tag(&mut self, kind: TagKind) {
        self.tag_kind = kind;
        self.tag_name.clear();
        self.self_closing = false;
        self.attrs.clear();
        self.attr_names.clear();
        self.duplicate_attrs = false;
        self.attrs_seen = 0;
        self.in_attr = false;
        self.attr_name.clear();
        self.attr_value.clear();
    }
}

/// How many attributes a tag may have before its names are kept in a set:
/// below it, a scan of the few there are is faster than hashing.
const LINEAR_ATTRS: usize = 8;

/// Tag and attribute names as html5ever's atoms, through a small cache keyed
/// by the name's bytes. Making an atom hashes the name with SipHash to find
/// it in html5ever's static table; a page uses a few dozen names thousands
/// of times. A slot keeps the name's bytes beside its atom, packed in three
/// words, so a hit is a few word operations and no look-up in the atom
/// table. A name longer than a slot holds, and a miss, cost what making the
/// atom costs anyway.
struct NameCache {
    slots: Vec<Option<(NameKey, LocalName)>>,
}

/// Slots in the cache: a power of two.
const NAME_SLOTS: usize = 256;

/// The longest name a slot keeps: three words.
const NAME_KEY_BYTES: usize = 24;

/// A name of at most [`NAME_KEY_BYTES`] bytes, zero-padded, with its length.
#[derive(Clone, Copy, PartialEq, Eq)]
struct NameKey {
    words: [u64; 3],
    len: usize,
}

impl NameKey {
    fn new(bytes: &[u8]) -> Option<NameKey> {
        if bytes.len() > NAME_KEY_BYTES {
            return None;
        }
        // Byte by byte into the words: names are a few bytes long, and a copy
        // into a padded buffer read back as words stalls on the read.
        let mut words = [0u64; 3];
        for (i, &b) in bytes.iter().enumerate() {
            words[i / 8] |= u64::from(b) << ((i % 8) * 8);
        }
        Some(NameKey {
            words,
            len: bytes.len(),
        })
    }

    fn slot(&self) -> usize {
        let [a, b, c] = self.words;
        let mixed = (a ^ b.rotate_left(21) ^ c.rotate_left(42) ^ self.len as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> (64 - NAME_SLOTS.trailing_zeros())) as usize
    }
}

impl Default for NameCache {
    fn default() -> Self {
        NameCache {
            slots: vec![None; NAME_SLOTS],
        }
    }
}

impl NameCache {
    fn get(&mut self, bytes: &[u8]) -> LocalName {
        let Some(key) = NameKey::new(bytes) else {
            return LocalName::from(checked(bytes));
        };
        let slot = &mut self.slots[key.slot()];
        if let Some((cached, atom)) = slot
            && *cached == key
        {
            return atom.clone();
        }
        let atom = LocalName::from(checked(bytes));
        *slot = Some((key, atom.clone()));
        atom
    }
}

/// The bytes as a tendril, checked (see [`checked`]).
fn tendril(bytes: &[u8]) -> StrTendril {
    StrTendril::from_slice(&checked(bytes))
}

impl<S: TokenSink> Emitter for Events<'_, S> {
    type Token = Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start_tag.clear();
        self.last_start_tag
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_text();
        let _ = self.process(Token::EOFToken);
    }

    fn emit_error(&mut self, _error: html5gum::Error) {}

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }

    fn emit_string(&mut self, c: &[u8]) {
        self.text.push(self.input, c);
    }

    fn init_start_tag(&mut self) {
        self.init_tag(TagKind::StartTag);
    }

    fn init_end_tag(&mut self) {
        self.init_tag(TagKind::EndTag);
    }

    fn init_comment(&mut self) {
        self.comment.clear();
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        self.flush_text();
        self.finish_attr();
        let name = self.names.get(&self.tag_name);
        let attrs = match self.tag_kind {
            TagKind::StartTag => {
                self.last_start_tag.clear();
                self.last_start_tag.extend_from_slice(&self.tag_name);
                // A list of exactly the right size, which the tree keeps as
                // it is; the scratch list keeps its capacity for the next tag,
                // unless the tag was a long one: then the list itself goes,
                // and the set of its names is freed, so that a tag of a
                // million attributes is not held twice while the tree is built.
                if self.attrs.len() > LINEAR_ATTRS {
                    self.attr_names = HashSet::new();
                    let mut attrs = std::mem::take(&mut self.attrs);
                    attrs.shrink_to_fit();
                    attrs
                } else {
                    let mut attrs = Vec::with_capacity(self.attrs.len());
                    attrs.append(&mut self.attrs);
                    attrs
                }
            }
            TagKind::EndTag => Vec::new(),
        };
        let tag = Tag {
            kind: self.tag_kind,
            name,
            self_closing: self.self_closing,
            attrs,
            had_duplicate_attributes: self.duplicate_attrs,
        };
        match self.process(Token::TagToken(tag)) {
            TokenSinkResult::RawData(RawKind::Rcdata) => Some(State::RcData),
            TokenSinkResult::RawData(RawKind::Rawtext) => Some(State::RawText),
            TokenSinkResult::RawData(_) => Some(State::ScriptData),
            TokenSinkResult::Plaintext => Some(State::PlainText),
            // A finished script (never run: scripting is off) and an
            // encoding declaration (the text is decoded already) change
            // nothing here.
            TokenSinkResult::Continue
            | TokenSinkResult::Script(_)
            | TokenSinkResult::EncodingIndicator(_) => None,
        }
    }

    fn emit_current_comment(&mut self) {
        self.flush_text();
        let comment = tendril(&self.comment);
        let _ = self.process(Token::CommentToken(comment));
    }

    fn emit_current_doctype(&mut self) {
        self.flush_text();
        let parts = std::mem::take(&mut self.doctype);
        let doctype = Doctype {
            name: parts.name.as_deref().map(tendril),
            public_id: parts.public_id.as_deref().map(tendril),
            system_id: parts.system_id.as_deref().map(tendril),
            force_quirks: parts.force_quirks,
        };
        let _ = self.process(Token::DoctypeToken(doctype));
    }

    fn set_self_closing(&mut self) {
        self.self_closing = true;
    }

    fn set_force_quirks(&mut self) {
        self.doctype.force_quirks = true;
    }

    fn push_tag_name(&mut self, s: &[u8]) {
        self.tag_name.extend_from_slice(s);
    }

    fn push_comment(&mut self, s: &[u8]) {
        self.comment.extend_from_slice(s);
    }

    fn push_doctype_name(&mut self, s: &[u8]) {
        self.doctype
            .name
            .get_or_insert_with(Vec::new)
            .extend_from_slice(s);
    }

    fn init_doctype(&mut self) {
        self.doctype = DoctypeParts::default();
    }

    fn init_attribute(&mut self) {
        self.finish_attr();
        self.in_attr = true;
        self.attrs_seen += 1;
        if self.guarded && self.attrs_seen > MAX_CHAINED_ATTRS {
            // Not a failure: the parse goes on where the stack allows it.
            std::panic::resume_unwind(Box::new(LongTag));
        }
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        self.attr_name.extend_from_slice(s);
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        self.attr_value.push(self.input, s);
    }

    fn set_doctype_public_identifier(&mut self, value: &[u8]) {
        self.doctype.public_id = Some(value.to_vec());
    }

    fn set_doctype_system_identifier(&mut self, value: &[u8]) {
        self.doctype.system_id = Some(value.to_vec());
    }

    fn push_doctype_public_identifier(&mut self, s: &[u8]) {
        self.doctype
            .public_id
            .get_or_insert_with(Vec::new)
            .extend_from_slice(s);
    }

    fn push_doctype_system_identifier(&mut self, s: &[u8]) {
        self.doctype
            .system_id
            .get_or_insert_with(Vec::new)
            .extend_from_slice(s);
    }

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.tag_kind == TagKind::EndTag
            && !self.last_start_tag.is_empty()
            && self.tag_name == self.last_start_tag
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        // Pending text can still change the tree builder's current node (it
        // may open `<body>`), so it goes first.
        self.flush_text();
        self.sink
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name comes back as its own atom, whatever its length and
    /// whichever names share its slot or its first bytes.
    #[test]
    fn name_cache_gives_each_name_its_own_atom() {
        let mut cache = NameCache::default();
        let names: Vec<String> = (0..600)
            .map(|i| format!("{}{i}", "x".repeat(i % 30)))
            .chain(["a", "a\0", "div", "data-a-very-long-attribute-name-indeed"].map(String::from))
            .collect();
        for round in 0..2 {
            for name in &names {
                let atom = cache.get(name.as_bytes());
                assert_eq!(&*atom, name.as_str(), "round {round}");
            }
        }
    }
}
