//! Unit tests of the XPath engine through small `check(html, expr, expected)`
//! helpers: one file per area (axes, functions, operators, errors, budget).

use super::*;

mod axes;
mod budget;
mod errors;
mod functions;
mod operators;

pub(super) const PAGE: &str = "<html><head><title>T</title></head><body>\
<div id='main' class='a  b'><p>one</p><!--c1--><p class='x'>two <b>bold</b></p>text<p>three</p></div>\
<ul><li>1</li><li>2</li><li>3</li></ul>\
<svg><title>icon</title><path d='M0'/></svg>\
</body></html>";

/// Renders a value compactly: node-sets as their paths, scalars as XPath strings.
pub(super) fn render(doc: &Document, v: &Value) -> String {
    match v {
        Value::Nodes(items) => {
            let paths: Vec<String> = items.iter().map(|i| i.path(doc)).collect();
            format!("[{}]", paths.join(", "))
        }
        other => other.to_string_value(doc),
    }
}

/// Evaluates `expr` on `html` from the document node.
pub(super) fn eval(html: &str, expr: &str) -> String {
    let d = Document::parse_str(html);
    let x = XPath::compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let v = x
        .evaluate(&d, NodeId::ROOT)
        .unwrap_or_else(|e| panic!("{expr}: {e}"));
    render(&d, &v)
}

pub(super) fn check(html: &str, expr: &str, expected: &str) {
    assert_eq!(eval(html, expr), expected, "expression: {expr}");
}

/// Checks an expression on [`PAGE`].
pub(super) fn on_page(expr: &str, expected: &str) {
    check(PAGE, expr, expected);
}

/// Checks that `expr` does not compile, at `position`, with a message containing `needle`.
pub(super) fn fails(expr: &str, position: usize, needle: &str) {
    match XPath::compile(expr) {
        Ok(_) => panic!("{expr} compiled"),
        Err(e) => {
            assert_eq!(e.position, position, "{expr}: {e}");
            assert!(e.message.contains(needle), "{expr}: {e}");
        }
    }
}
