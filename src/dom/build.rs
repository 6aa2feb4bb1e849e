//! Tree construction: html5gum's tokens through a bound on nesting into
//! html5ever's tree builder, whose sink (`sink.rs`) builds the document's
//! tables in creation order; `layout.rs` then puts them in document order.
//! Template contents are kept as the children of their `<template>`, as lxml
//! and html5lib present them, so that XPath sees them.
//!
//! ## What it refuses
//!
//! Parse errors are ignored: every text gives a document. Elements nest at
//! most [`MAX_DEPTH`] levels; a deeper start tag becomes an empty element
//! with its content after it, unless it switched the tokenizer to raw text.
//! Scripting is off, so `noscript` content is parsed as markup. Nodes the
//! tree builder removed are dropped, and adjacent texts merge. A page whose
//! tag holds too many attributes to tokenize on any stack that can be had
//! parses as empty, with a warning.

use std::cell::RefCell;
use std::collections::HashMap;

use html5ever::LocalName;
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};

use super::Document;
use super::sink::{Handle, Sink};

/// How deep elements may nest. Deeper start tags become empty elements placed
/// at this depth (their would-be content follows them as siblings), which is
/// what Blink does at 512 levels. The HTML5 tree builder scans its stack of open
/// elements for every tag, so without a bound a page nested 100,000 levels deep
/// takes quadratic time to parse.
pub const MAX_DEPTH: u32 = 512;

/// Parses decoded HTML text into a document.
///
/// A page with a tag of more attributes than an ordinary stack holds while
/// tokenizing (see `tokenizer.rs`) is parsed again on a thread of its own
/// whose stack is sized for the input; if no such thread can be made, the
/// page parses as empty, with a warning, rather than overflow the stack.
pub(super) fn parse(text: &str) -> Document {
    let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_with(text, true)));
    match guarded {
        Ok(doc) => doc,
        Err(payload) if payload.is::<super::tokenizer::LongTag>() => parse_on_large_stack(text),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// [`parse_with`] unguarded, on a thread whose stack holds any tag of
/// `text`. html5gum recurses only through attributes whose values are
/// double-quoted, so half the double quotes of the text bound how many
/// attributes one recursion holds.
fn parse_on_large_stack(text: &str) -> Document {
    let quoted = memchr::memchr_iter(b'"', text.as_bytes()).count() / 2 + 1;
    let stack = (8 << 20) + quoted.saturating_mul(super::tokenizer::STACK_PER_ATTR);
    let parsed = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mend-parse".to_owned())
            .stack_size(stack)
            .spawn_scoped(scope, || parse_with(text, false))
            .ok()
            .and_then(|thread| thread.join().ok())
    });
    parsed.unwrap_or_else(|| {
        tracing::warn!(
            bytes = text.len(),
            "a tag of too many attributes to tokenize: the page is parsed as empty"
        );
        parse_with("", true)
    })
}

/// Parses `text`, guarded against tags of too many attributes or not (see
/// `tokenizer::tokenize`).
fn parse_with(text: &str, guarded: bool) -> Document {
    // Every node but the document's comes from a `<` (an element, a comment)
    // or sits between two (a text), so the tags bound the node tables well.
    let markup = memchr::memchr_iter(b'<', text.as_bytes()).count();
    let builder = TreeBuilder::new(
        Sink::new(text.len(), markup),
        TreeBuilderOpts {
            scripting_enabled: false,
            ..Default::default()
        },
    );
    let limiter = DepthLimiter {
        inner: builder,
        suppressed: RefCell::new(HashMap::new()),
    };
    super::tokenizer::tokenize(text, &limiter, guarded);
    limiter.end();
    let (tree, doctype) = limiter.inner.sink.into_tree();
    super::layout::into_document(tree, doctype)
}

/// Sits between the tokenizer and the tree builder and keeps nesting bounded
/// (see [`MAX_DEPTH`]).
struct DepthLimiter {
    inner: TreeBuilder<Handle, Sink>,
    /// End tags still to drop, by name, because their element was closed early.
    suppressed: RefCell<HashMap<LocalName, u32>>,
}

impl TokenSink for DepthLimiter {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        match token {
            Token::TagToken(tag)
                if tag.kind == TagKind::StartTag
                    && !tag.self_closing
                    && self.inner.sink.current_depth.get() >= MAX_DEPTH =>
            {
                let mut end = tag.clone();
                end.kind = TagKind::EndTag;
                end.attrs.clear();
                let result = self.inner.process_token(Token::TagToken(tag), line_number);
                // A start tag that switched the tokenizer to raw text (script,
                // style, textarea, title) must keep its content, so it stays open.
                if !matches!(result, TokenSinkResult::Continue) {
                    return result;
                }
                *self
                    .suppressed
                    .borrow_mut()
                    .entry(end.name.clone())
                    .or_insert(0) += 1;
                self.inner.process_token(Token::TagToken(end), line_number)
            }
            Token::TagToken(tag) if tag.kind == TagKind::EndTag => {
                {
                    let mut suppressed = self.suppressed.borrow_mut();
                    if let Some(count) = suppressed.get_mut(&tag.name)
                        && *count > 0
                    {
                        *count -= 1;
                        return TokenSinkResult::Continue;
                    }
                }
                self.inner.process_token(Token::TagToken(tag), line_number)
            }
            other => self.inner.process_token(other, line_number),
        }
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
