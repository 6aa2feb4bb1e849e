//! Throws 10,000 generated malformed documents at the HTML parser: tag soup,
//! unclosed and misnested tags, deep nesting, huge attributes and invalid
//! UTF-8. Parsing must never panic, and every parsed tree must keep the arena's
//! invariants, serialise, and give every node a path.

use mend::dom::{Document, NodeId, NodeKind};
use rayon::prelude::*;

use crate::support::random_html::seeded_document;

fn check_invariants(doc: &Document, seed: u64) {
    assert_eq!(doc.kind(NodeId::ROOT), NodeKind::Document, "seed {seed}");
    assert!(doc.root_element().is_some(), "seed {seed}: no root element");
    for n in doc.all().skip(1) {
        let parent = doc
            .parent(n)
            .unwrap_or_else(|| panic!("seed {seed}: node {n:?} without parent"));
        assert!(
            parent < n && n < doc.subtree_end(parent),
            "seed {seed}: {n:?} outside its parent's range"
        );
        if let Some(next) = doc.next_sibling(n) {
            assert_eq!(doc.prev_sibling(next), Some(n), "seed {seed}");
        }
    }
    // Paths and serialisation work everywhere; sample to keep the test quick.
    for n in doc.all().step_by(17) {
        assert!(doc.path(n).starts_with('/'), "seed {seed}");
    }
    let html = doc.outer_html(NodeId::ROOT);
    // Serialising and re-parsing gives a document again, never a panic.
    let again = Document::parse_str(&html);
    assert!(again.root_element().is_some(), "seed {seed}");
}

#[test]
fn ten_thousand_malformed_documents_parse_without_panicking() {
    (1..=10_000u64).into_par_iter().for_each(|seed| {
        let bytes = seeded_document(seed);
        let doc = Document::parse(&bytes);
        check_invariants(&doc, seed);
    });
}

#[test]
fn empty_and_whitespace_inputs_still_have_html_head_body() {
    for input in [&b""[..], b" ", b"\xff", b"<", b"</html>", b"<!--"] {
        let doc = Document::parse(input);
        let names: Vec<&str> = doc
            .all()
            .filter(|&n| doc.is_element(n))
            .map(|n| doc.name(n))
            .collect();
        assert_eq!(&names[..3], ["html", "head", "body"], "{input:?}");
    }
}
