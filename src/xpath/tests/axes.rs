use super::*;

#[test]
fn child_descendant_and_abbreviations() {
    on_page(
        "/html/body/div/p",
        "[/html/body/div/p[1], /html/body/div/p[2], /html/body/div/p[3]]",
    );
    on_page("html/body/ul/li[2]", "[/html/body/ul/li[2]]");
    on_page("//b", "[/html/body/div/p[2]/b]");
    on_page("//div//b/..", "[/html/body/div/p[2]]");
    on_page(
        "//li/.",
        "[/html/body/ul/li[1], /html/body/ul/li[2], /html/body/ul/li[3]]",
    );
    on_page("count(//node())", "27");
    on_page("count(/descendant::*)", "16");
    on_page("count(//li/descendant-or-self::node())", "6");
    on_page("/", "[/]");
    on_page("/..", "[]");
}

#[test]
fn unprefixed_names_match_foreign_elements_by_local_name() {
    on_page("//svg/path/@d", "[/html/body/svg/path/@d]");
    on_page("//title", "[/html/head/title, /html/body/svg/title]");
    on_page("namespace-uri(//path)", "http://www.w3.org/2000/svg");
    on_page("name(//svg/*[1])", "title");
    on_page("namespace-uri(//p)", "");
}

#[test]
fn parent_ancestor_and_self() {
    on_page("//b/parent::p/@class", "[/html/body/div/p[2]/@class]");
    on_page(
        "//b/ancestor::*",
        "[/html, /html/body, /html/body/div, /html/body/div/p[2]]",
    );
    on_page("//b/ancestor::*[1]", "[/html/body/div/p[2]]");
    on_page("//b/ancestor::*[last()]", "[/html]");
    on_page("//b/ancestor-or-self::*[1]", "[/html/body/div/p[2]/b]");
    on_page("count(//b/ancestor::node())", "5");
    on_page("//p/self::p[@class]", "[/html/body/div/p[2]]");
    on_page("//p/self::div", "[]");
}

#[test]
fn sibling_axes_count_positions_from_the_context() {
    on_page(
        "//li[1]/following-sibling::li",
        "[/html/body/ul/li[2], /html/body/ul/li[3]]",
    );
    on_page("//li[3]/preceding-sibling::li[1]", "[/html/body/ul/li[2]]");
    on_page(
        "//li[3]/preceding-sibling::li[last()]",
        "[/html/body/ul/li[1]]",
    );
    on_page(
        "//div/p[1]/following-sibling::node()[1]",
        "[/html/body/div/comment()[1]]",
    );
    on_page("//div/p[2]/preceding-sibling::*", "[/html/body/div/p[1]]");
}

#[test]
fn following_and_preceding_exclude_descendants_and_ancestors() {
    on_page(
        "//p[3]/following::*",
        "[/html/body/ul, /html/body/ul/li[1], /html/body/ul/li[2], /html/body/ul/li[3], /html/body/svg, /html/body/svg/title, /html/body/svg/path]",
    );
    on_page(
        "//p[2]/preceding::*",
        "[/html/head, /html/head/title, /html/body/div/p[1]]",
    );
    on_page("//p[2]/preceding::*[1]", "[/html/body/div/p[1]]");
    on_page(
        "//p[2]/preceding::text()[1]",
        "[/html/body/div/p[1]/text()[1]]",
    );
    on_page("count(//li[2]/following::node())", "6");
}

#[test]
fn attribute_and_namespace_axes() {
    on_page("//div/@*", "[/html/body/div/@id, /html/body/div/@class]");
    on_page("//div/attribute::class", "[/html/body/div/@class]");
    on_page("count(//@*)", "4");
    on_page(
        "//div/@node()",
        "[/html/body/div/@id, /html/body/div/@class]",
    );
    on_page("//div/@text()", "[]");
    on_page("count(//div/namespace::*)", "1");
    on_page("name(//div/namespace::*)", "xml");
    on_page("string(//div/namespace::xml)", XML_NAMESPACE);
    on_page("count(//div/namespace::svg)", "0");
    on_page("//div/namespace::*", "[/html/body/div/namespace::xml]");
}

#[test]
fn axes_from_attribute_nodes() {
    on_page("//div/@id/..", "[/html/body/div]");
    on_page("count(//div/@id/ancestor::*)", "3");
    on_page("//div/@id/ancestor::*[1]", "[/html/body/div]");
    on_page("//div/@id/self::node()", "[/html/body/div/@id]");
    on_page("//div/@id/self::*", "[]");
    on_page("count(//div/@id/child::node())", "0");
    on_page("count(//div/@id/following-sibling::node())", "0");
    on_page("(//div/@id/following::*)[1]", "[/html/body/div/p[1]]");
    on_page("(//div/@id/preceding::*)[last()]", "[/html/head/title]");
    on_page(
        "//div/@class/ancestor-or-self::node()[1]",
        "[/html/body/div/@class]",
    );
}

#[test]
fn node_tests() {
    on_page("//div/text()", "[/html/body/div/text()[1]]");
    on_page("//div/comment()", "[/html/body/div/comment()[1]]");
    on_page("//comment()[1]", "[/html/body/div/comment()[1]]");
    on_page("count(//processing-instruction())", "0");
    on_page("count(//processing-instruction('x'))", "0");
    on_page("count(//div/node())", "5");
    on_page("count(/*)", "1");
    on_page("count(/node())", "1");
}

#[test]
fn positional_predicates() {
    on_page("//li[2]", "[/html/body/ul/li[2]]");
    on_page("//li[last()]", "[/html/body/ul/li[3]]");
    on_page(
        "//li[position() < 3]",
        "[/html/body/ul/li[1], /html/body/ul/li[2]]",
    );
    on_page("//li[last() - 1]", "[/html/body/ul/li[2]]");
    on_page("//li[1.5]", "[]");
    on_page("//li[0]", "[]");
    on_page("(//li)[2]", "[/html/body/ul/li[2]]");
    on_page("(//p | //li)[last()]", "[/html/body/ul/li[3]]");
    on_page("//p[@class][1]", "[/html/body/div/p[2]]");
    on_page("//p[1][@class]", "[]");
    on_page("//li[position() = last()]", "[/html/body/ul/li[3]]");
    on_page("//p[.='three']", "[/html/body/div/p[3]]");
}

#[test]
fn descendant_positions_count_per_parent() {
    let html = "<div><p>a</p><div><p>b</p><p>c</p></div><p>d</p></div>";
    check(
        html,
        "//p[1]",
        "[/html/body/div/p[1], /html/body/div/div/p[1]]",
    );
    check(
        html,
        "//p[last()]",
        "[/html/body/div/div/p[2], /html/body/div/p[2]]",
    );
    check(html, "(//p)[last()]", "[/html/body/div/p[2]]");
    check(
        html,
        "//div//p[2]",
        "[/html/body/div/div/p[2], /html/body/div/p[2]]",
    );
    check(html, "/descendant::p[2]", "[/html/body/div/div/p[1]]");
    check(html, "count(//div//p)", "4");
}

#[test]
fn deep_documents_do_not_overflow() {
    let depth = 5000;
    let html = format!("{}x{}", "<span>".repeat(depth), "</span>".repeat(depth));
    let d = Document::parse_str(&html);
    for expr in [
        "count(//span)",
        "count(//text()/ancestor::*)",
        "count((//span)[last()]/preceding::node())",
        "string-length(string(/))",
        "count(//span[1])",
    ] {
        let x = XPath::compile(expr).unwrap();
        assert!(x.evaluate(&d, NodeId::ROOT).is_ok(), "{expr}");
    }
}

#[test]
fn context_items_other_than_the_root() {
    let d = Document::parse_str(PAGE);
    let div = XPath::compile("//div")
        .unwrap()
        .select(&d, NodeId::ROOT)
        .unwrap()[0];
    let p = XPath::compile("p[2]").unwrap();
    let got = p.evaluate_item(&d, div).unwrap();
    assert_eq!(render(&d, &got), "[/html/body/div/p[2]]");
    let attr = XPath::compile("@class")
        .unwrap()
        .select_item(&d, div)
        .unwrap()[0];
    let v = XPath::compile("concat(name(), '=', ., '/', name(..))")
        .unwrap()
        .evaluate_item(&d, attr)
        .unwrap();
    assert_eq!(render(&d, &v), "class=a  b/div");
    assert_eq!(attr.string_value(&d), "a  b");
    assert!(
        XPath::compile("1")
            .unwrap()
            .evaluate(&d, NodeId(u32::MAX))
            .is_err()
    );
    assert!(
        XPath::compile("1")
            .unwrap()
            .select(&d, NodeId::ROOT)
            .is_err()
    );
}

#[test]
fn items_order_elements_then_namespace_then_attributes_then_children() {
    on_page(
        "//div/@* | //div | //div/p[1] | //div/namespace::*",
        "[/html/body/div, /html/body/div/namespace::xml, /html/body/div/@id, /html/body/div/@class, /html/body/div/p[1]]",
    );
}

/// [`PAGE`]'s body repeated `copies` times inside one `div`, and 20 times
/// inside an `article` (some 400 nodes), with a small `section` beside them:
/// with 800 copies, some 17,000 nodes, so that name tests run over ranges
/// above the size from which they always read the document's index of
/// elements by name, between it and the smallest that ever reads it, and
/// below.
fn large_page(copies: usize) -> String {
    let body = PAGE
        .split_once("<body>")
        .and_then(|(_, rest)| rest.split_once("</body>"))
        .map(|(body, _)| body)
        .expect("PAGE has a body");
    let repeat = |n: usize, tag: &str| -> String {
        (0..n)
            .map(|i| body.replace("id='main'", &format!("id='{tag}{i}'")))
            .collect()
    };
    format!(
        "<html><body><section><p>small</p><ul><li>s</li></ul></section>\
         <div id='big'>{}</div><article>{}</article><p>last</p></body></html>",
        repeat(copies, "main"),
        repeat(20, "article")
    )
}

/// Each pair: a name test, and the same question asked with `*` and a
/// `self::` predicate, which walks every node.
const NAMED_AND_WALKED: &[(&str, &str)] = &[
    ("//p", "//*[self::p]"),
    ("//p[@class='x']", "//*[self::p][@class='x']"),
    ("//p[2]", "//*[self::p][2]"),
    ("//li[last()]", "//*[self::li][last()]"),
    ("(//p)[99]", "(//*[self::p])[99]"),
    ("//div[@id='big']//b", "//div[@id='big']//*[self::b]"),
    ("//div[@id='big']//p", "//div[@id='big']//*[self::p]"),
    ("//div[@id='big']//p[1]", "//div[@id='big']//*[self::p][1]"),
    (
        "//div[@id='big']//p[@class]",
        "//div[@id='big']//*[self::p][@class]",
    ),
    (
        "//div[@id='big']//li[3]",
        "//div[@id='big']//*[self::li][3]",
    ),
    ("//article//p", "//article//*[self::p]"),
    ("//article//li[2]", "//article//*[self::li][2]"),
    ("//article//p[@class]", "//article//*[self::p][@class]"),
    ("//section//li", "//section//*[self::li]"),
    ("//section//p[1]", "//section//*[self::p][1]"),
    ("//title", "//*[self::title]"),
    ("//path/@d", "//*[self::path]/@d"),
    ("//ul[2]/li", "//*[self::ul][2]/*[self::li]"),
    ("count(//p)", "count(//*[self::p])"),
    ("count(//li[. = '2'])", "count(//*[self::li][. = '2'])"),
];

/// The rendered value of `expr` on `doc`.
fn evaluated(doc: &Document, expr: &str) -> String {
    let x = XPath::compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let v = x
        .evaluate(doc, NodeId::ROOT)
        .unwrap_or_else(|e| panic!("{expr}: {e}"));
    render(doc, &v)
}

#[test]
fn name_tests_read_from_the_index_select_what_a_walk_selects() {
    // 800 copies: a large page, whose small subtrees are walked until a
    // whole-page search has built the index; 30: a page of a thousand nodes,
    // whose whole-page searches build it.
    for copies in [800, 30] {
        let html = large_page(copies);
        let doc = Document::parse_str(&html);
        assert!(doc.len() > copies * 20, "{} nodes", doc.len());
        // The article's 400 nodes, asked first, are walked on the large page;
        // asked again once the index is built, read from it.
        let cold = evaluated(&doc, "/html/body/article//p[@class]");
        assert!(
            copies < 800 || !doc.has_name_index(),
            "a search of 400 nodes built the index of a page of {}",
            doc.len()
        );
        for &(named, walked) in NAMED_AND_WALKED {
            let got = evaluated(&doc, named);
            assert_eq!(got, evaluated(&doc, walked), "{named} against {walked}");
            assert_ne!(got, "[]", "{named} selects something");
        }
        assert!(
            doc.has_name_index(),
            "{copies} copies: no search read the index"
        );
        assert_eq!(evaluated(&doc, "/html/body/article//p[@class]"), cold);
        check(&html, "//nosuchname", "[]");
    }
}

/// Each pair: a step with a predicate that the index of attributes answers,
/// and the same question in a form that no index answers.
const INDEXED_AND_WALKED: &[(&str, &str)] = &[
    ("//p[@class='x']", "//p[string(@class)='x']"),
    ("//*[@class='x']", "//*[string(@class)='x']"),
    ("//div[@id='main7']", "//div[string(@id)='main7']"),
    (
        "//div[@id='big']//p[@class='x']",
        "//div[@id='big']//p[string(@class)='x']",
    ),
    (
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' b ')]",
        "//*[contains(concat(' ', normalize-space(string(@class)), ' '), ' b ')]",
    ),
    (
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' a ')][@id='main3']",
        "//div[contains(concat(' ', normalize-space(string(@class)), ' '), ' a ')][string(@id)='main3']",
    ),
    ("//p[@class='x'][b]", "//p[string(@class)='x'][b]"),
    ("count(//p[@class='x'])", "count(//p[string(@class)='x'])"),
    ("//div[@class='a  b']", "//div[string(@class)='a  b']"),
];

#[test]
fn attribute_tests_read_from_the_index_select_what_a_walk_selects() {
    let html = large_page(800);
    let doc = Document::parse_str(&html);
    // Asked a few times, the searches walk; asked many times, they have
    // walked enough to pay for the index, and read it.
    let first: Vec<String> = INDEXED_AND_WALKED
        .iter()
        .map(|&(indexed, _)| evaluated(&doc, indexed))
        .collect();
    assert!(!doc.has_attr_index(), "a few searches built the index");
    for _ in 0..40 {
        for &(indexed, _) in INDEXED_AND_WALKED {
            evaluated(&doc, indexed);
        }
    }
    assert!(
        doc.has_attr_index(),
        "many searches did not build the index"
    );
    for (&(indexed, walked), before) in INDEXED_AND_WALKED.iter().zip(&first) {
        let got = evaluated(&doc, indexed);
        assert_eq!(&got, before, "{indexed}: the index changed the answer");
        assert_eq!(got, evaluated(&doc, walked), "{indexed} against {walked}");
        assert_ne!(got, "[]", "{indexed} selects something");
    }
    for absent in [
        "//p[@class='y']",
        "//p[@nosuchname='x']",
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' z ')]",
    ] {
        assert_eq!(evaluated(&doc, absent), "[]", "{absent}");
    }
}
