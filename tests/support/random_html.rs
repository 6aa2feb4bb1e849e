//! Generated malformed HTML, shared by the tests that throw thousands of
//! pages at the library: tag soup, unclosed and misnested tags, deep nesting
//! (3,000 levels now and then), huge attributes and invalid UTF-8, all drawn
//! from one seeded [`Rng`] so that a failing page is reproducible from its seed.

use super::rng::Rng;

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

/// One malformed document of up to 120 pieces.
pub fn random_document(rng: &mut Rng) -> Vec<u8> {
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

/// The document of seed `seed`: the same bytes on every run.
pub fn seeded_document(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    random_document(&mut rng)
}
