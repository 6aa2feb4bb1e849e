//! Property tests of the XPath engine on random small documents.
//!
//! Each property states an identity of XPath 1.0 (or a fact checked against
//! the DOM directly) that must hold on every document: counts agree with the
//! tree, unions are idempotent, node-sets come out in document order without
//! duplicates, the `//` abbreviation means what it abbreviates, positional
//! predicates and reverse axes count as the specification says, a
//! node-set is true exactly when it is non-empty, and the optimiser's fast
//! forms mean what they replace.

use mend::dom::{Document, NodeId};
use mend::xpath::{Item, Value, XPath};
use proptest::prelude::*;

use crate::support::documents::documents;

#[derive(Clone, Debug)]
enum Node {
    Element(&'static str, Option<&'static str>, Vec<Node>),
    Text(&'static str),
}

fn render(n: &Node, out: &mut String) {
    match n {
        Node::Text(t) => out.push_str(t),
        Node::Element(name, class, children) => {
            out.push('<');
            out.push_str(name);
            if let Some(c) = class {
                out.push_str(&format!(" class='{c}'"));
            }
            out.push('>');
            for c in children {
                render(c, out);
            }
            out.push_str(&format!("</{name}>"));
        }
    }
}

fn tree() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["t", "1", " 2 ", "u v"]).prop_map(Node::Text),
        (
            prop::sample::select(vec!["x", "y", "z"]),
            prop::option::of(prop::sample::select(vec!["k", "k m", "m"]))
        )
            .prop_map(|(n, c)| Node::Element(n, c, Vec::new())),
    ];
    leaf.prop_recursive(5, 40, 5, |inner| {
        (
            prop::sample::select(vec!["x", "y", "z"]),
            prop::option::of(prop::sample::select(vec!["k", "k m", "m"])),
            prop::collection::vec(inner, 0..5),
        )
            .prop_map(|(n, c, kids)| Node::Element(n, c, kids))
    })
}

fn document() -> impl Strategy<Value = Document> {
    documents(tree(), render)
}

fn eval(doc: &Document, ctx: NodeId, expr: &str) -> Value {
    XPath::compile(expr)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
        .evaluate(doc, ctx)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
}

fn nodes(doc: &Document, ctx: NodeId, expr: &str) -> Vec<Item> {
    match eval(doc, ctx, expr) {
        Value::Nodes(v) => v,
        other => panic!("{expr} gave {other:?}"),
    }
}

fn number(doc: &Document, ctx: NodeId, expr: &str) -> f64 {
    match eval(doc, ctx, expr) {
        Value::Number(n) => n,
        other => panic!("{expr} gave {other:?}"),
    }
}

fn elements(doc: &Document) -> Vec<NodeId> {
    doc.all().filter(|&n| doc.is_element(n)).collect()
}

const EXPRS: &[&str] = &[
    "//x",
    "//y//z",
    "//*[@class]",
    "//x/ancestor::*",
    "//z/preceding::node()",
    "//y/following::*",
    "//x/preceding-sibling::*[1]",
    "//text()/..",
    "//x | //y/..",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' k ')]",
    "//x[1]",
    "//y[last()]",
    "//@class/..",
    "(//x)[position() > 1]/z",
    "//x/descendant-or-self::node()/@*",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::support::needs::property_cases(64)))]

    #[test]
    fn counts_agree_with_the_tree(doc in document()) {
        for name in ["x", "y", "z"] {
            let want = elements(&doc).iter().filter(|&&n| doc.name(n) == name).count();
            prop_assert_eq!(number(&doc, NodeId::ROOT, &format!("count(//{name})")), want as f64);
        }
        prop_assert_eq!(number(&doc, NodeId::ROOT, "count(//node())"), (doc.len() - 1) as f64);
    }

    #[test]
    fn results_are_sorted_unique_and_unions_idempotent(doc in document()) {
        for e in EXPRS {
            let v = nodes(&doc, NodeId::ROOT, e);
            prop_assert!(v.windows(2).all(|w| w[0] < w[1]), "{} not in document order", e);
            let twice = nodes(&doc, NodeId::ROOT, &format!("{e} | {e}"));
            prop_assert_eq!(&twice, &v, "{} | {}", e, e);
            prop_assert_eq!(
                number(&doc, NodeId::ROOT, &format!("count({e})")) > 0.0,
                matches!(eval(&doc, NodeId::ROOT, &format!("boolean({e})")), Value::Boolean(true)),
                "boolean({})", e
            );
        }
    }

    #[test]
    fn double_slash_abbreviates_descendant_or_self(doc in document()) {
        for name in ["x", "y", "*", "text()", "node()"] {
            let short = nodes(&doc, NodeId::ROOT, &format!("//{name}"));
            // The predicate on the first step keeps the optimiser from fusing
            // the two steps, so this is the literal meaning of the abbreviation.
            let long = nodes(&doc, NodeId::ROOT, &format!("/descendant-or-self::node()[true()]/child::{name}"));
            prop_assert_eq!(&short, &long, "//{}", name);
            let positional = nodes(&doc, NodeId::ROOT, &format!("//{name}[1]"));
            let literal = nodes(&doc, NodeId::ROOT, &format!("/descendant-or-self::node()[true()]/child::{name}[1]"));
            prop_assert_eq!(&positional, &literal, "//{}[1]", name);
        }
    }

    #[test]
    fn a_normalized_text_test_means_what_normalize_space_compares(doc in document()) {
        // `concat(...)` is a literal the optimiser does not see, so the
        // right side is the general form the fast one replaces.
        for value in ["t", "u v", "2", "t1", "1 2", "", "t 2", "u v t"] {
            for (from, op) in [("//*", "="), ("//text()", "="), ("//@class", "="), ("//*", "!=")] {
                let fast = nodes(&doc, NodeId::ROOT, &format!("{from}[normalize-space(.) {op} '{value}']"));
                let short = nodes(&doc, NodeId::ROOT, &format!("{from}['{value}' {op} normalize-space()]"));
                let plain = nodes(&doc, NodeId::ROOT, &format!("{from}[normalize-space(.) {op} concat('{value}', '')]"));
                prop_assert_eq!(&fast, &plain, "{}[normalize-space(.) {} '{}']", from, op, value);
                prop_assert_eq!(&short, &plain, "{}['{}' {} normalize-space()]", from, value, op);
            }
        }
    }

    #[test]
    fn steps_from_many_contexts_equal_the_union_of_each_context(doc in document()) {
        // A predicate that reads position() (but keeps everything) forces the
        // plain per-context walk, which the other forms are checked against.
        for from in ["//*", "//text()", "//@*", "//x | //@class"] {
            for axis in ["following", "preceding", "following-sibling", "preceding-sibling", "descendant", "ancestor"] {
                let fast = nodes(&doc, NodeId::ROOT, &format!("({from})/{axis}::node()"));
                let filtered = nodes(&doc, NodeId::ROOT, &format!("({from})/{axis}::node()[not(self::y)]"));
                let plain = nodes(&doc, NodeId::ROOT, &format!("({from})/{axis}::node()[position() > 0]"));
                let plain_filtered = nodes(&doc, NodeId::ROOT, &format!("({from})/{axis}::node()[position() > 0][not(self::y)]"));
                prop_assert_eq!(&fast, &plain, "({})/{}::node()", from, axis);
                prop_assert_eq!(&filtered, &plain_filtered, "({})/{}::node()[…]", from, axis);
            }
        }
    }

    #[test]
    fn positional_predicates_take_a_prefix(doc in document(), k in 0usize..5) {
        for e in elements(&doc) {
            let all = number(&doc, e, "count(*)") as usize;
            let some = number(&doc, e, &format!("count(*[position() <= {k}])")) as usize;
            prop_assert_eq!(some, k.min(all));
        }
    }

    #[test]
    fn reverse_axes_count_backwards(doc in document(), k in 1usize..4) {
        for e in elements(&doc) {
            for axis in ["ancestor", "preceding-sibling", "preceding", "ancestor-or-self"] {
                let by_axis = nodes(&doc, e, &format!("{axis}::node()[{k}]"));
                let by_order = nodes(&doc, e, &format!("({axis}::node())[last() - {k} + 1]"));
                prop_assert_eq!(&by_axis, &by_order, "{}::node()[{}]", axis, k);
            }
            let parent = nodes(&doc, e, "..");
            prop_assert_eq!(nodes(&doc, e, "ancestor::node()[1]"), parent);
        }
    }
}
