//! Throws 10,000 generated malformed documents at the HTML parser: tag soup,
//! unclosed and misnested tags, deep nesting, huge attributes and invalid
//! UTF-8. Parsing must never panic, and every parsed tree must keep the arena's
//! invariants, serialise, and give every node a path.

#[path = "support/rng.rs"]
mod rng;
use mend::dom::{Document, NodeId, NodeKind};
use rng::Rng;

const TAGS: &[&str] = &[
    "div",
    "p",
    "span",
    "a",
    "b",
    "i",
    "table",
    "tr",
    "td",
    "th",
    "tbody",
    "ul",
    "li",
    "ol",
    "form",
    "input",
    "select",
    "option",
    "script",
    "style",
    "title",
    "textarea",
    "template",
    "svg",
    "math",
    "frameset",
    "noscript",
    "html",
    "head",
    "body",
    "br",
    "img",
    "h1",
    "pre",
    "plaintext",
    "xmp",
    "iframe",
    "object",
    "applet",
    "marquee",
    "nobr",
    "font",
];

const FRAGMENTS: &[&str] = &[
    "<!--",
    "-->",
    "<!DOCTYPE html>",
    "<![CDATA[x]]>",
    "&amp;",
    "&#0;",
    "&#x110000;",
    "&notanentity;",
    "<?php ?>",
    "</",
    "<",
    ">",
    "\"",
    "'",
    "=",
    "\u{0}",
    "\u{feff}",
    "\r\n",
    "<a href=x<b>",
    "</p></p></p>",
    "<table><td>",
    "&",
    "<!",
];

fn random_document(rng: &mut Rng) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let pieces = 1 + rng.below(120);
    for _ in 0..pieces {
        match rng.below(10) {
            0..=2 => {
                let tag = rng.pick(TAGS);
                out.extend_from_slice(format!("<{tag}").as_bytes());
                for _ in 0..rng.below(3) {
                    let value_len = if rng.below(50) == 0 {
                        50_000
                    } else {
                        rng.below(12)
                    };
                    let value: String = (0..value_len)
                        .map(|i| (b'a' + (i % 26) as u8) as char)
                        .collect();
                    out.extend_from_slice(
                        format!(
                            " {}=\"{value}\"",
                            rng.pick(&["class", "id", "href", "x:y", "data-z", "on"])
                        )
                        .as_bytes(),
                    );
                }
                out.extend_from_slice(if rng.below(5) == 0 { b"/>" } else { b">" });
            }
            3..=4 => {
                let tag = rng.pick(TAGS);
                out.extend_from_slice(format!("</{tag}>").as_bytes());
            }
            5..=6 => out.extend_from_slice(
                rng.pick(&["text", " ", "\n", "some words here", "é", "\u{1F600}"])
                    .as_bytes(),
            ),
            7 => out.extend_from_slice(rng.pick(FRAGMENTS).as_bytes()),
            8 => {
                // Invalid UTF-8 and stray control bytes.
                for _ in 0..1 + rng.below(8) {
                    out.push(
                        rng.pick(&["\u{80}", "x"]).as_bytes()[0] | (rng.below(2) as u8 * 0xC0),
                    );
                }
                out.push(0xFF);
            }
            _ => {
                let depth = if rng.below(20) == 0 {
                    3_000
                } else {
                    rng.below(40)
                };
                let tag = rng.pick(TAGS);
                for _ in 0..depth {
                    out.extend_from_slice(format!("<{tag}>").as_bytes());
                }
            }
        }
    }
    out
}

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
    for seed in 1..=10_000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let bytes = random_document(&mut rng);
        let doc = Document::parse(&bytes);
        check_invariants(&doc, seed);
    }
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
