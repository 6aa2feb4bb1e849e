//! Throws 10,000 random expressions at the XPath compiler and evaluator.
//!
//! The expressions come from a seeded generator of our own: sequences of
//! tokens of the XPath grammar, mutations of valid expressions (insertions,
//! deletions, swaps, duplications), and random bytes and Unicode. Whatever
//! happens, nothing may panic, and every compile error must point inside the
//! expression (a byte offset no greater than its length).

use mend::dom::{Document, NodeId};
use mend::xpath::XPath;

use crate::support::rng::Rng;

const TOKENS: &[&str] = &[
    "/",
    "//",
    ".",
    "..",
    "@",
    "*",
    "(",
    ")",
    "[",
    "]",
    ",",
    "|",
    "+",
    "-",
    "=",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "and",
    "or",
    "div",
    "mod",
    "::",
    "$v",
    "'lit'",
    "\"q\"",
    "'",
    "1",
    "0",
    "2.5",
    ".5",
    "p",
    "div",
    "a",
    "li",
    "svg",
    "title",
    "x:y",
    "child",
    "descendant",
    "ancestor",
    "following-sibling",
    "preceding",
    "attribute",
    "namespace",
    "self",
    "parent",
    "ancestor-or-self",
    "following",
    "preceding-sibling",
    "descendant-or-self",
    "node()",
    "text()",
    "comment()",
    "processing-instruction()",
    "count(",
    "last()",
    "position()",
    "string(",
    "concat(",
    "substring(",
    "contains(",
    "normalize-space(",
    "translate(",
    "id(",
    "lang(",
    "round(",
    "sum(",
    "name(",
    "matches(",
    "replace(",
    "string-join(",
    "not(",
    "true()",
    " ",
    "\t",
];

const VALID: &[&str] = &[
    "//p[@class='x']/text()",
    "count(//li[position() < 3])",
    "(//a | //p)[last()]/@href",
    "//div[contains(concat(' ', normalize-space(@class), ' '), ' a ')]//p[1]",
    "substring('12345', 1.5, 2.6)",
    "//li[1]/following-sibling::li[last()]",
    "//*[self::p or self::li][not(@id)]",
    "sum(//li) div count(//li)",
    "//b/ancestor::*[2]/preceding::node()[1]",
    "id('main')/p[2]/b/..",
    "string-join(//li, ', ')",
    "replace(//title, '(\\w)', '$1$1', 'i')",
    "//svg/path/@d | //div/namespace::*",
    "-(-(1)) * 3 mod 2 = 1 and 'a' < 'b' or //p != //li",
    "lang('en') or translate(., 'abc', 'ABC') = ''",
];

const PAGE: &str = "<html lang='en'><head><title>Fuzz</title></head><body>\
<div id='main' class='a b'><p class='x'>one</p><!--c--><p>two <b>bold</b></p>tail</div>\
<ul><li>1</li><li>2</li><li>3</li></ul><svg xml:lang='en'><path d='M0'/></svg></body></html>";

fn random_tokens(rng: &mut Rng) -> String {
    let n = 1 + rng.below(12);
    (0..n).map(|_| rng.pick(TOKENS)).collect()
}

fn mutate(rng: &mut Rng) -> String {
    let mut chars: Vec<char> = rng.pick(VALID).chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(4) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 => {
                let tok: Vec<char> = rng.pick(TOKENS).chars().collect();
                chars.splice(at..at, tok);
            }
            2 if at + 1 < chars.len() => chars.swap(at, at + 1),
            _ => {
                let end = (at + rng.below(8)).min(chars.len());
                let piece: Vec<char> = chars[at..end].to_vec();
                chars.splice(at..at, piece);
            }
        }
    }
    chars.into_iter().collect()
}

fn random_text(rng: &mut Rng) -> String {
    let n = rng.below(24);
    (0..n)
        .map(|_| match rng.below(3) {
            0 => char::from(rng.below(128) as u8),
            1 => char::from_u32(rng.below(0x3000) as u32).unwrap_or('?'),
            _ => char::from_u32(0x10000 + rng.below(0x1000) as u32).unwrap_or('?'),
        })
        .collect()
}

#[test]
fn ten_thousand_random_expressions_never_panic() {
    let doc = Document::parse_str(PAGE);
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let (mut compiled, mut evaluated) = (0, 0);
    for i in 0..10_000 {
        let expr = match i % 3 {
            0 => random_tokens(&mut rng),
            1 => mutate(&mut rng),
            _ => random_text(&mut rng),
        };
        match XPath::compile(&expr) {
            Ok(x) => {
                compiled += 1;
                if x.evaluate(&doc, NodeId::ROOT).is_ok() {
                    evaluated += 1;
                }
                let div = NodeId(5);
                let _ = x.evaluate(&doc, div);
            }
            Err(e) => {
                assert!(
                    e.position <= expr.len(),
                    "{expr:?}: position {} beyond the end",
                    e.position
                );
                assert!(!e.message.is_empty(), "{expr:?}: empty message");
            }
        }
    }
    // The generator must exercise the evaluator, not only the parser.
    assert!(compiled > 1000, "only {compiled} expressions compiled");
    assert!(evaluated > 1000, "only {evaluated} expressions evaluated");
}
