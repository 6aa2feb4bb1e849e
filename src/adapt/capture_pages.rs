//! The pages the tree-grams were captured on, whole: a second page of the
//! site that a heal's XPath is tried on before it is written.
//!
//! A tree-gram keeps the target's neighbourhood, not the page, and a heal
//! writes its XPath from the broken page alone. The capture page is where
//! the wrapper worked: a value it held is one the site's pages share, and an
//! XPath that selects more nodes there than the pattern allows would break
//! the wrapper on every page still in the old layout. The store keeps each
//! capture page by its SHA-256, which the tree-gram's header names; the
//! runtime hands the bytes in and this parses a page only when a proof asks
//! for it, so a run that heals nothing parses none.
//!
//! ## What it refuses
//!
//! It reads no file and no store: bytes come from the caller. It keeps no
//! page over [`MAX_CAPTURE_PAGE_BYTES`]. A page is kept
//! under the hash the caller names and is never matched to a tree-gram by
//! anything else, so a tree-gram whose page the store no longer keeps gets
//! none, and the proof falls back on the tree-gram's own neighbourhood.

/// The largest capture page, in bytes, a proof reads. Parsing a page costs
/// about 5 ms a megabyte, once per run; the wide corpus's pages are at
/// most 2.3 MB (99% under 1 MB), and this bounds what a heal spends on the
/// capture page (some 20 ms) on pages of tens of thousands of elements. A
/// larger page is not kept, and its tree-gram's proofs read the tree-gram
/// alone, as with no page.
pub const MAX_CAPTURE_PAGE_BYTES: usize = 4 << 20;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::dom::Document;
use crate::treegram::TreeGram;

/// Capture pages by the SHA-256 (hex) of their bytes, parsed on first use.
#[derive(Debug, Default)]
pub struct CapturePages {
    by_hash: HashMap<String, CapturePage>,
}

#[derive(Debug)]
struct CapturePage {
    bytes: Vec<u8>,
    doc: OnceLock<Arc<Document>>,
}

impl CapturePages {
    /// Keeps the bytes of the page whose SHA-256 is `sha256`, replacing any
    /// kept under that hash; a page over [`MAX_CAPTURE_PAGE_BYTES`] is not.
    pub fn keep(&mut self, sha256: &str, bytes: Vec<u8>) {
        if bytes.len() > MAX_CAPTURE_PAGE_BYTES {
            return;
        }
        let page = CapturePage {
            bytes,
            doc: OnceLock::new(),
        };
        self.by_hash.insert(sha256.to_owned(), page);
    }

    /// Whether the page with this hash is kept.
    pub fn has(&self, sha256: &str) -> bool {
        self.by_hash.contains_key(sha256)
    }

    /// The page `gram` was captured on, parsed, when it is kept.
    pub fn of(&self, gram: &TreeGram) -> Option<Arc<Document>> {
        let page = self.by_hash.get(&gram.header.sha256)?;
        Some(Arc::clone(
            page.doc
                .get_or_init(|| Arc::new(Document::parse(&page.bytes))),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrapper::load_str;

    fn gram_on(sha256: &str) -> TreeGram {
        let w = load_str(
            "name: t\npatterns:\n  - name: f\n    xpath: //p\n",
            "t.yaml",
        )
        .unwrap();
        let doc = Document::parse_str("<p>one</p>");
        let options = crate::treegram::CaptureOptions {
            sha256,
            ..crate::treegram::CaptureOptions::of(&w)
        };
        let c = crate::treegram::capture(&w, &doc, &options).0.remove(0);
        TreeGram::parse(c.html.as_bytes()).unwrap()
    }

    #[test]
    fn a_page_is_found_by_the_hash_its_tree_gram_names_and_parsed_once() {
        let mut pages = CapturePages::default();
        pages.keep("ab12", b"<p>one</p><p>two</p>".to_vec());
        let gram = gram_on("ab12");
        let first = pages.of(&gram).unwrap();
        assert_eq!(first.string_value(first.root()), "onetwo");
        assert!(Arc::ptr_eq(&first, &pages.of(&gram).unwrap()));
        assert!(pages.of(&gram_on("cd34")).is_none());
        assert!(pages.of(&gram_on("")).is_none());
    }

    #[test]
    fn a_page_over_the_bound_is_not_kept() {
        let mut pages = CapturePages::default();
        pages.keep("ab12", vec![b' '; MAX_CAPTURE_PAGE_BYTES + 1]);
        assert!(!pages.has("ab12"));
        assert!(pages.of(&gram_on("ab12")).is_none());
    }
}
