use super::*;
use crate::dom::{Document, NodeId};
use crate::xpath::{Item, XPath};

/// Checks that `css` translates to `expected`.
fn check(css: &str, expected: &str) {
    assert_eq!(to_xpath(css).unwrap(), expected, "{css}");
}

/// Checks that `css` selects, on `html`, the nodes whose string-values (or
/// attribute values) are `expected`, in document order.
fn selects(html: &str, css: &str, expected: &[&str]) {
    let doc = Document::parse(html.as_bytes());
    let xpath = XPath::compile(&to_xpath(css).unwrap()).unwrap();
    let got: Vec<String> = xpath
        .select_item(&doc, Item::Node(NodeId::ROOT))
        .unwrap()
        .iter()
        .map(|i| i.string_value(&doc))
        .collect();
    assert_eq!(got, expected, "{css}: {}", xpath.source());
}

/// Checks that `css` is refused at `column` with a message holding `words`.
fn refused(css: &str, column: usize, words: &str) {
    let e = to_xpath(css).unwrap_err();
    assert_eq!(e.column, column, "{css}: {e}");
    assert!(e.message.contains(words), "{css}: {e}");
}

#[test]
fn simple_selectors_translate_as_cssselect_writes_them() {
    check("div", "descendant-or-self::div");
    check("*", "descendant-or-self::*");
    check("DIV", "descendant-or-self::div");
    check("#main", "descendant-or-self::*[@id = 'main']");
    check(
        "p.note",
        "descendant-or-self::p[@class and contains(concat(' ', normalize-space(@class), ' '), ' note ')]",
    );
    check("a[HREF]", "descendant-or-self::a[@href]");
    check(
        "a[href^='http']",
        "descendant-or-self::a[@href and starts-with(@href, 'http')]",
    );
    check("div > p", "descendant-or-self::div/p");
    check("div p", "descendant-or-self::div/descendant-or-self::*/p");
    check("h1 ~ p", "descendant-or-self::h1/following-sibling::p");
    check(
        "h1 + p",
        "descendant-or-self::h1/following-sibling::*[(name() = 'p') and (position() = 1)]",
    );
    check("h1, h2", "descendant-or-self::h1 | descendant-or-self::h2");
    check("p::text", "descendant-or-self::p/text()");
    check("a::attr(href)", "descendant-or-self::a/@href");
    check(
        "p:not(.x)",
        "descendant-or-self::p[not(@class and contains(concat(' ', normalize-space(@class), ' '), ' x '))]",
    );
}

const LIST: &str =
    "<ul id=l><li>1</li><li class='a b'>2</li><li>3</li><li lang=en-GB>4</li><li>5</li></ul>";

#[test]
fn positions_count_element_siblings() {
    selects(LIST, "li:first-child", &["1"]);
    selects(LIST, "li:last-child", &["5"]);
    selects(LIST, "li:nth-child(2)", &["2"]);
    selects(LIST, "li:nth-child(odd)", &["1", "3", "5"]);
    selects(LIST, "li:nth-child(even)", &["2", "4"]);
    selects(LIST, "li:nth-child(2n+3)", &["3", "5"]);
    selects(LIST, "li:nth-child(-n+2)", &["1", "2"]);
    selects(LIST, "li:nth-child(3n-1)", &["2", "5"]);
    selects(LIST, "li:nth-last-child(1)", &["5"]);
    selects(LIST, "li:nth-last-child(-2n+3)", &["3", "5"]);
    selects(LIST, "li:nth-child(0)", &[]);
    selects(LIST, "li:nth-child(n)", &["1", "2", "3", "4", "5"]);
}

#[test]
fn of_type_counts_siblings_of_the_same_name() {
    let html = "<div><h2>a</h2><p>1</p><h2>b</h2><p>2</p><p>3</p><span>s</span></div>";
    selects(html, "p:first-of-type", &["1"]);
    selects(html, "p:last-of-type", &["3"]);
    selects(html, "span:only-of-type", &["s"]);
    selects(html, "p:nth-of-type(2)", &["2"]);
    selects(html, "h2:nth-last-of-type(1)", &["b"]);
    selects(html, "div > :only-child", &[]);
}

#[test]
fn attributes_match_as_cssselect_matches_them() {
    selects(LIST, "li[class~=b]", &["2"]);
    selects(LIST, "li[class~='']", &[]);
    selects(LIST, "li[lang|=en]", &["4"]);
    selects(LIST, "li[class$=' b']", &["2"]);
    selects(LIST, "li[class*='a b']", &["2"]);
    selects(LIST, "li[class^='']", &[]);
    selects(LIST, "li[class!='a b']", &["1", "3", "4", "5"]);
    selects(LIST, ".a.b", &["2"]);
    selects(LIST, "#l > li.b + li", &["3"]);
    selects(LIST, "li.b ~ li", &["3", "4", "5"]);
    selects(LIST, "li:not(.a, [lang])", &["1", "3", "5"]);
    selects(LIST, "li:contains('4')", &["4"]);
}

#[test]
fn pseudo_elements_select_text_and_attributes() {
    let html = "<p>one<b>two</b>three</p><a href='/x'>x</a><a>y</a>";
    selects(html, "p::text", &["one", "three"]);
    selects(html, "a::attr(href)", &["/x"]);
    selects(html, "p:empty, b:empty", &[]);
    selects(
        "<div><i></i><i> </i><i><!-- c --></i></div>",
        "i:empty",
        &["", ""],
    );
}

#[test]
fn strings_and_escapes_become_literals() {
    check(
        "[title=\"it's\"]",
        "descendant-or-self::*[@title = \"it's\"]",
    );
    check(
        r#"[title='a"b\'c']"#,
        r#"descendant-or-self::*[@title = concat('a"b', "'", 'c')]"#,
    );
    check(r"#a\:b", "descendant-or-self::*[@id = 'a:b']");
    check(
        r".\31 23",
        "descendant-or-self::*[@class and contains(concat(' ', normalize-space(@class), ' '), ' 123 ')]",
    );
}

#[test]
fn what_cannot_be_translated_is_refused_with_its_column() {
    refused("a:hover", 2, "unsupported pseudo-class :hover");
    refused("div:visited", 4, ":visited");
    refused("ns|div", 3, "namespaces");
    refused("[a=b i]", 6, "case flags");
    refused("p::text b", 2, "must end its selector");
    refused("p::before", 2, "::before");
    refused(":first-of-type", 1, "element name");
    refused("p:nth-child(x)", 13, "an+b");
    refused("p:not(a b)", 9, "compound");
    refused("div >", 6, "the end");
    refused("[title='open", 8, "not closed");
    refused("", 1, "the end");
    refused("a,", 3, "the end");
}

#[test]
fn deep_or_long_selectors_are_refused_not_followed() {
    let deep = format!("{}p{}", ":not(".repeat(100), ")".repeat(100));
    assert!(to_xpath(&deep).unwrap_err().message.contains("nests"));
    let long = "a ".repeat(MAX_SELECTOR_CHARS);
    assert!(to_xpath(&long).is_err());
}

proptest::proptest! {
    #[test]
    fn any_text_is_translated_or_refused_without_panicking(s in "\\PC{0,40}") {
        let _ = to_xpath(&s);
    }

    #[test]
    fn every_translation_compiles(s in "[a-z]{1,3}([ >+~][a-z.#:\\-\\[\\]=()0-9n]{1,8}){0,3}") {
        if let Ok(x) = to_xpath(&s) {
            proptest::prop_assert!(XPath::compile(&x).is_ok(), "{} -> {}", s, x);
        }
    }
}

#[test]
fn an_adjacent_of_type_counts_by_its_own_name() {
    // Regression: the name moved into the predicate was lost to the count.
    let html = "<div><div>d</div><li>1</li><li>2</li></div><ol><div>e</div><li>3</li></ol>";
    selects(html, "div + li:first-of-type", &["1", "3"]);
}
