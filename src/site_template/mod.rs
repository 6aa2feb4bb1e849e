//! Site templates: the part of a site's pages that they all share (the
//! header, the menus, the footer, the layout's frame), found as Alarte,
//! Insa, Silva and Tamarit find it.
//!
//! Two steps:
//!
//! 1. [`complete_subdigraph`] (their Algorithm 1) picks, among the key
//!    page's links to its own site, pages that all link to each other and
//!    to the key page: `n` pages (4 by default) that are typically reached
//!    from the menu, and so share the template. Pages are loaded one at a
//!    time through a callback, and the number loaded is counted.
//! 2. [`SiteTemplate::learn`] (their Algorithm 2) maps the key page onto
//!    each of the others by an *equal top-down mapping*
//!    ([`equal_top_down_mapping`]): the roots map if they are equal, and a
//!    child maps to the child at the same position of its parent's image if
//!    they are equal, where equal means the same tag, the same classes, the
//!    same attributes and values, as many element children, and the same
//!    own text (the paper compares no text; pages of one kind share their
//!    content area's shape, and only the text tells it from the frame). The
//!    template is what maps on every page.
//!
//! The template is written as readable HTML ([`SiteTemplate::to_html`]):
//! the key page's elements that map everywhere, with their attributes and
//! the text that is the same on every page, and, where a page's own content
//! goes, a placeholder of the same tag marked `data-mend-content`, so that
//! the file keeps each element's children count and positions. Read back
//! ([`SiteTemplate::from_html`]), it is laid over another page of the site
//! ([`SiteTemplate::regions`]): the page's elements that belong to the
//! template, and how much of the template the page still has.
//!
//! Pure: the caller fetches pages (the callback of step 1) and reads and
//! writes files. Every walk is iterative, so no page overflows the stack.
//! It refuses nothing: with no other page the key page is its own template,
//! and any HTML reads back as a template (the runtime decides which files
//! it reads).

mod mapping;
mod subdigraph;
mod template;

#[cfg(test)]
mod tests;

pub use mapping::{equal_nodes, equal_top_down_mapping};
pub use subdigraph::{DEFAULT_PAGES, MAX_LOADS, Subdigraph, complete_subdigraph};
pub use template::{CONTENT_ATTR, Regions, SiteTemplate};
