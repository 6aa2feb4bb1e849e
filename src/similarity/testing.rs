//! Test helpers: a compact tree notation that becomes a real HTML document,
//! and random trees in that notation.
//!
//! `a(b(d,e),c(f))` is an `a` with children `b` and `c`, and so on; a name may
//! carry classes and an id, `li.x.y#z`. Every name `n` becomes the custom
//! element `<t-n>`, because plain one-letter names such as `a`, `b`, `i` or
//! `p` are HTML elements with parsing rules of their own; custom elements nest
//! exactly as written, so the tests exercise the real parser and DOM.
//!
//! ## What it refuses
//!
//! It validates no notation, being for tests only: whitespace is dropped, a
//! `)` with nothing open is ignored, elements left open are closed at the
//! end, and names and classes go into the HTML unescaped. `root` and
//! `view_with` panic when the body holds no element, and `html_elements`
//! promises no tree: the parser may close, move or drop its elements.

use proptest::prelude::*;

use crate::dom::{Document, NodeId};
use crate::similarity::LabelMode;

use super::label::Labels;
use super::tree::LabeledTree;

/// The HTML of a tree in compact notation, inside a `<body>`.
pub(crate) fn html(notation: &str) -> String {
    render(notation, "t-")
}

/// The HTML of a tree in compact notation whose names are HTML's own
/// elements (`p`, `table`, `form`), written as they are, so that the
/// parser's rules for them apply: it may close, move or drop them.
pub(crate) fn html_elements(notation: &str) -> String {
    render(notation, "")
}

fn render(notation: &str, prefix: &str) -> String {
    let mut out = String::from("<!DOCTYPE html><html><head></head><body>");
    let mut open: Vec<String> = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String, open_next: bool, open: &mut Vec<String>| {
        if word.is_empty() {
            return;
        }
        let mut parts = word.splitn(2, '#');
        let head = parts.next().unwrap_or_default();
        let id = parts.next();
        let mut names = head.split('.');
        let tag = format!("{prefix}{}", names.next().unwrap_or_default());
        let classes: Vec<&str> = names.collect();
        out.push('<');
        out.push_str(&tag);
        if !classes.is_empty() {
            out.push_str(&format!(" class=\"{}\"", classes.join(" ")));
        }
        if let Some(id) = id {
            out.push_str(&format!(" id=\"{id}\""));
        }
        out.push('>');
        if open_next {
            open.push(tag);
        } else {
            out.push_str(&format!("</{tag}>"));
        }
        word.clear();
    };
    for c in notation.chars() {
        match c {
            '(' => flush(&mut word, &mut out, true, &mut open),
            ',' => flush(&mut word, &mut out, false, &mut open),
            ')' => {
                flush(&mut word, &mut out, false, &mut open);
                if let Some(tag) = open.pop() {
                    out.push_str(&format!("</{tag}>"));
                }
            }
            c if c.is_whitespace() => {}
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out, false, &mut open);
    while let Some(tag) = open.pop() {
        out.push_str(&format!("</{tag}>"));
    }
    out.push_str("</body></html>");
    out
}

/// The document of a tree in compact notation.
pub(crate) fn doc(notation: &str) -> Document {
    Document::parse_str(&html(notation))
}

/// The tree's root element: the first element in `<body>`.
pub(crate) fn root(doc: &Document) -> NodeId {
    let body = doc
        .all()
        .find(|&n| doc.is_element(n) && doc.name(n) == "body")
        .expect("the parser always makes a body");
    doc.element_children(body).next().expect("a tree")
}

/// The view of a document's tree, labelled by `mode`.
pub(crate) fn view_with(doc: &Document, mode: LabelMode, labels: &mut Labels) -> LabeledTree {
    LabeledTree::build(doc, root(doc), mode, labels).expect("an element root")
}

/// The views of two trees in compact notation, tag labels, one label table.
pub(crate) fn pair(a: &str, b: &str) -> (LabeledTree, LabeledTree) {
    let mut labels = Labels::new();
    let ta = view_with(&doc(a), LabelMode::Tag, &mut labels);
    let tb = view_with(&doc(b), LabelMode::Tag, &mut labels);
    (ta, tb)
}

/// Compact notation for a tree given as `(parent choice, label)` per node:
/// node `i > 0` hangs below node `choice % i`, children in index order.
pub(crate) fn notation(nodes: &[(usize, u8)]) -> String {
    notation_named(nodes, |label| char::from(b'a' + label % 26).to_string())
}

/// [`notation`] with the names given by `name(label)`.
pub(crate) fn notation_named(nodes: &[(usize, u8)], name: impl Fn(u8) -> String) -> String {
    let n = nodes.len().max(1);
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &(choice, _)) in nodes.iter().enumerate().skip(1) {
        kids[choice % i].push(i);
    }
    let name = |i: usize| name(nodes.get(i).map_or(0, |&(_, l)| l));
    let mut out = String::new();
    // Entries: Some(node) to open, None to close the innermost open node.
    let mut stack: Vec<Option<usize>> = vec![Some(0)];
    let mut need_comma = false;
    while let Some(entry) = stack.pop() {
        match entry {
            Some(i) => {
                if need_comma {
                    out.push(',');
                }
                out.push_str(&name(i));
                if kids[i].is_empty() {
                    need_comma = true;
                } else {
                    out.push('(');
                    need_comma = false;
                    stack.push(None);
                    stack.extend(kids[i].iter().rev().map(|&k| Some(k)));
                }
            }
            None => {
                out.push(')');
                need_comma = true;
            }
        }
    }
    out
}

/// Random trees of 1 to `max` nodes over the first `labels` letters, in
/// compact notation.
pub(crate) fn arb_tree(max: usize, labels: u8) -> impl Strategy<Value = String> {
    prop::collection::vec((any::<usize>(), 0..labels), 1..=max).prop_map(|v| notation(&v))
}

/// Random trees of 1 to `max` nodes whose elements are `a`, `b` or `c`, half
/// of them with one of two classes, so that `tag+class` labels differ from tags.
pub(crate) fn arb_classed_tree(max: usize) -> impl Strategy<Value = String> {
    arb_classed_tree_sized(1..=max)
}

/// [`arb_classed_tree`] with a number of nodes in `sizes`.
pub(crate) fn arb_classed_tree_sized(
    sizes: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = String> {
    prop::collection::vec((any::<usize>(), 0u8..6), sizes).prop_map(|v| {
        notation_named(&v, |label| {
            let tag = char::from(b'a' + label % 3);
            match label / 3 {
                0 => tag.to_string(),
                _ => format!("{tag}.k{}", label % 2),
            }
        })
    })
}

/// Random trees of 1 to `max` nodes named after HTML elements with rules of
/// their own (tables, forms, headings, lists, formatting and raw text
/// elements), half of them with one of two classes; for [`html_elements`].
pub(crate) fn arb_element_tree(max: usize) -> impl Strategy<Value = String> {
    const NAMES: [&str; 24] = [
        "div",
        "p",
        "span",
        "a",
        "li",
        "ul",
        "table",
        "tr",
        "td",
        "h1",
        "b",
        "i",
        "template",
        "select",
        "option",
        "form",
        "button",
        "img",
        "br",
        "dl",
        "dd",
        "section",
        "textarea",
        "plaintext",
    ];
    prop::collection::vec((any::<usize>(), 0..2 * NAMES.len()), 1..=max).prop_map(|v| {
        let v: Vec<(usize, u8)> = v.into_iter().map(|(c, l)| (c, l as u8)).collect();
        notation_named(&v, |label| {
            let name = NAMES[usize::from(label) % NAMES.len()];
            if usize::from(label) < NAMES.len() {
                name.to_owned()
            } else {
                format!("{name}.k{}", label % 2)
            }
        })
    })
}

#[test]
fn notation_round_trips_through_html() {
    let d = doc("a(b(d,e),c.x.y#k(f))");
    let mut labels = Labels::new();
    let t = view_with(&d, LabelMode::TagClass, &mut labels);
    let names: Vec<&str> = (0..t.len()).map(|i| labels.text(t.label(i))).collect();
    assert_eq!(names, ["t-a", "t-b", "t-d", "t-e", "t-c.x.y", "t-f"]);
    assert_eq!(notation(&[(0, 0), (0, 1), (0, 2), (1, 3)]), "a(b(d),c)");
    assert_eq!(notation(&[(0, 0)]), "a");
}
