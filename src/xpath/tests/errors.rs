use super::*;

#[test]
fn syntax_errors_name_the_position_and_what_was_expected() {
    fails("//p[", 4, "expected an expression");
    fails("//p/", 4, "expected a location step after '/'");
    fails("//", 2, "expected a location step after '//'");
    fails("//p[@id='x']]", 12, "unmatched ']'");
    fails("//p[)", 4, "expected an expression");
    fails("1 +", 3, "expected an expression");
    fails("//@", 3, "expected a node test");
    fails("(1", 2, "expected ')'");
    fails("'abc", 0, "unterminated string literal");
    fails("p ! q", 2, "expected '='");
    fails("p q", 2, "expected an operator");
    fails("foo::p", 0, "unknown axis 'foo'");
    fails("", 0, "expected an expression");
    fails("#", 0, "unexpected character");
}

#[test]
fn semantic_errors_are_compile_errors() {
    fails("$x", 0, "variables are not supported");
    fails("//svg:path", 2, "namespace prefixes are not supported");
    fails("//svg:*", 2, "namespace prefixes are not supported");
    fails("no-such-function()", 0, "unknown function");
    fails("contain(., 'x')", 0, "did you mean 'contains'");
    fails("count()", 0, "count() takes 1 argument, found 0");
    fails("concat('a')", 0, "at least 2");
    fails("string(1, 2)", 0, "takes 0 to 1 arguments");
    fails("count(3)", 6, "node-set");
    fails("sum('1')", 4, "node-set");
    fails("'a' | //p", 0, "must be node-sets");
    fails("'a'[1]", 3, "can only filter a node-set");
    fails("(1)/p", 0, "only a node-set");
    fails("matches('a', '(')", 13, "invalid regular expression");
    fails("matches('a', 'a', 'q')", 13, "flag");
    fails("ex:f()", 0, "namespace prefixes");
}

#[test]
fn nesting_and_length_are_bounded() {
    let deep = format!("{}1{}", "(".repeat(30_000), ")".repeat(30_000));
    let e = XPath::compile(&deep).unwrap_err();
    assert!(e.message.contains("nested too deeply"), "{e}");
    assert!(e.position <= deep.len());
    let preds = format!("//p{}", "[p".repeat(1000));
    assert!(
        XPath::compile(&preds)
            .unwrap_err()
            .message
            .contains("nested too deeply")
    );
    let calls = format!("{}1{}", "not(".repeat(1000), ")".repeat(1000));
    assert!(
        XPath::compile(&calls)
            .unwrap_err()
            .message
            .contains("nested too deeply")
    );
    let ok = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    assert!(XPath::compile(&ok).is_ok());
    let minus = format!("{}1", "-".repeat(60_000));
    let x = XPath::compile(&minus).unwrap();
    let d = Document::parse_str("");
    assert_eq!(render(&d, &x.evaluate(&d, NodeId::ROOT).unwrap()), "1");
    let long = "1+".repeat(30_000) + "1";
    let x = XPath::compile(&long).unwrap();
    assert_eq!(render(&d, &x.evaluate(&d, NodeId::ROOT).unwrap()), "30001");
    let too_long = "1".repeat(MAX_LEN + 1);
    assert!(
        XPath::compile(&too_long)
            .unwrap_err()
            .message
            .contains("too long")
    );
}

#[test]
fn compiled_expressions_are_shareable() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<XPath>();
    let x = XPath::compile(" //p ").unwrap();
    assert_eq!(x.source(), " //p ");
    assert!(x.returns_nodes());
    assert!(!XPath::compile("count(//p)").unwrap().returns_nodes());
}

#[test]
fn the_deepest_accepted_expressions_evaluate_without_overflow() {
    let d = Document::parse_str(super::PAGE);
    let n = MAX_DEPTH - 1;
    let forms = [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("//*{}", "[*".repeat(n) + &"]".repeat(n)),
        format!("{}true(){}", "not(".repeat(n), ")".repeat(n)),
        format!("{}'x'{}", "concat('a', ".repeat(n), ")".repeat(n)),
        format!("{}//li{}", "string(".repeat(n), ")".repeat(n)),
        format!(
            "//li{}",
            "[position() < last() or .//li[1]".repeat(n / 2) + &"]".repeat(n / 2)
        ),
        format!("{}//li{}", "(".repeat(n), ")[1]".repeat(n)),
    ];
    for expr in &forms {
        let x = XPath::compile(expr).unwrap_or_else(|e| panic!("{e}"));
        assert!(x.evaluate(&d, NodeId::ROOT).is_ok());
    }
    let too_deep = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    let e = XPath::compile(&too_deep).unwrap_err();
    // The error points at the first token of the level that is one too deep.
    assert_eq!(e.position, MAX_DEPTH);
}
