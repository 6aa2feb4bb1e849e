//! Unstable content: what changes across loads of the same page, or over
//! time on one load (dates in an event list, a clock, rotating teasers, ad
//! slots), learned so that drift detection and healing do not take it for
//! a redesign and XPath generation never anchors on it.
//!
//! [`HtmlTemplate`] follows the HtmlTemplate of the Demodocus accessibility
//! crawler: ADD combines another load of a page into the template (text that
//! differs becomes unstable, keeping every value seen, `Jul 23||Jun 8`;
//! attributes that differ become unstable by name; children that come and go
//! make their parent's content unstable), MATCH checks a page against it
//! (the same attributes in any order, equal text unless unstable, children
//! matched in any order), and UPDATE refreshes it from a page known to have
//! changed while what was unstable stays unstable. [`TemplateMask`] lays a
//! template over a page as the [`crate::similarity::Mask`] that comparisons
//! take.
//!
//! Pure: no I/O, no clock. Fetching the loads and watching a rendered page
//! for change within the settle window is the caller's. Every walk is
//! iterative, so no page, however deep, overflows the stack.
//!
//! ## What it refuses
//!
//! A change is not unstable content: where a page does not pair with the
//! template, [`TemplateMask`] marks nothing, and MATCH reports the first
//! difference as a [`Mismatch`]. Children are never paired by a best
//! assignment over all pairs (see `pairing.rs`), and an unstable text or
//! attribute keeps at most `MAX_VALUES` (32) distinct values. Comments,
//! white-space-only text and raw-text content are never part of a template.

mod combine;
mod html_template;
mod mask;
mod matching;
mod pairing;

#[cfg(test)]
mod tests;

pub use html_template::{Content, HtmlTemplate, Mismatch, TemplateNode, TemplateNodeId};
pub use mask::TemplateMask;

/// The custom element an unstable text is written as by
/// [`HtmlTemplate::to_html`], its values in its `values` attribute joined
/// by [`VALUE_SEPARATOR`].
pub const UNSTABLE_TEXT_ELEMENT: &str = "mend-unstable";

/// How the values seen of unstable content are joined when written, as the
/// Demodocus paper writes them (`Jul 23||Jun 8`).
pub const VALUE_SEPARATOR: &str = "||";

/// The attribute that marks an element left out of comparisons, in a tree-gram
/// and in a page template: its content came and went across loads.
pub const UNSTABLE_ATTR: &str = "data-mend-unstable";
/// The attribute that lists the attributes of an element that are left out of
/// comparisons, in a tree-gram and in a page template.
pub const MASKED_ATTR: &str = "data-mend-masked";
