//! CSS selectors, translated to XPath 1.0: what a pattern's `css:` key and
//! `mend xpath --css` evaluate.
//!
//! The translation follows cssselect's HTML translator, which parsel (and so
//! Scrapy) uses: element and attribute names are matched in lower case,
//! class and attribute values as written; `a b` is
//! `descendant-or-self::a/descendant-or-self::*/b`; an `:nth-*` position
//! counts element siblings; and parsel's pseudo-elements `::text` and
//! `::attr(name)` select a node's text children and its attribute. The rest
//! of mend (healing, history, rewriting) works on the XPath this gives.
//!
//! Supported: type and universal selectors, `#id`, `.class`, attributes
//! with `=`, `~=`, `|=`, `^=`, `$=`, `*=` and cssselect's `!=`, the four
//! combinators, selector lists, `:not()` (of compound selectors),
//! `:first-child`, `:last-child`, `:only-child`, `:first-of-type`,
//! `:last-of-type`, `:only-of-type`, `:nth-child()`, `:nth-last-child()`,
//! `:nth-of-type()`, `:nth-last-of-type()`, `:empty`, `:root`, `:checked`,
//! `:link` and cssselect's `:contains()`.
//!
//! ## What it refuses
//!
//! Anything else is an error with the column it starts at: pseudo-classes
//! that depend on a browser's state (`:hover`, `:visited`, `:focus`),
//! namespaces, attribute case flags, a pseudo-element anywhere but at the
//! end of a selector, and an `*:…-of-type` that names no element (XPath 1.0
//! cannot compare a sibling's name with the context's). A selector is at
//! most [`MAX_SELECTOR_CHARS`] characters and `:not()` nests at most
//! [`MAX_NESTING`] deep, so no input takes long or overflows the stack.

mod parse;
mod translate;

#[cfg(test)]
mod tests;

pub use parse::{
    AttrOp, Combinator, Compound, Condition, Nth, Pseudo, PseudoElement, Selector, parse,
};
pub use translate::translate;

/// The longest selector accepted, in characters.
pub const MAX_SELECTOR_CHARS: usize = 10_000;

/// How deep `:not()` may nest.
pub const MAX_NESTING: usize = 16;

/// Why a selector cannot be translated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct CssError {
    /// Where the problem starts: a column counted in characters, from 1.
    pub column: usize,
    /// What is wrong, in words.
    pub message: String,
}

/// The XPath 1.0 expression that selects what CSS `selector` selects,
/// evaluated from a context node as parsel's `.css()` is.
pub fn to_xpath(selector: &str) -> Result<String, CssError> {
    Ok(translate(&parse(selector)?))
}
