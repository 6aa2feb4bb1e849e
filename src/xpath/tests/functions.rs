use super::*;

#[test]
fn node_set_functions() {
    on_page("count(//li)", "3");
    on_page("//li[position() = 2]", "[/html/body/ul/li[2]]");
    on_page("last()", "1");
    on_page("position()", "1");
    on_page("local-name(//div)", "div");
    on_page("name(//div/@class)", "class");
    on_page("name()", "");
    on_page("name(/)", "");
    on_page("local-name(//nothing)", "");
    on_page("namespace-uri(//svg)", "http://www.w3.org/2000/svg");
}

#[test]
fn id_follows_html() {
    let html = "<p id='a'>1</p><p id='b'>2</p><p id='a'>3</p><p id='c d'>4</p><i>b a</i>";
    check(html, "id('a')", "[/html/body/p[1]]");
    check(html, "id(' b  a ')", "[/html/body/p[1], /html/body/p[2]]");
    check(html, "id(//i)", "[/html/body/p[1], /html/body/p[2]]");
    check(html, "id('c')", "[]");
    check(html, "id('')", "[]");
    check(html, "count(id('a')/@id)", "1");
}

#[test]
fn string_functions() {
    on_page("string(//p[2])", "two bold");
    on_page("string(//li)", "1");
    on_page("string(1 div 0)", "Infinity");
    on_page("string(true())", "true");
    on_page("concat('a', 1, true(), //li)", "a1true1");
    on_page("starts-with('abc', 'ab')", "true");
    on_page("starts-with('abc', '')", "true");
    on_page("contains(//div, 'bold')", "true");
    on_page("substring-before('1999/04/01', '/')", "1999");
    on_page("substring-after('1999/04/01', '/')", "04/01");
    on_page("substring-after('abc', 'x')", "");
    on_page("string-length('héllo')", "5");
    on_page("string-length(//p[1])", "3");
    on_page("normalize-space('  a \n b  ')", "a b");
    on_page("normalize-space(//div/@class)", "a b");
    on_page("translate('bar', 'abc', 'ABC')", "BAr");
    on_page("translate('--aaa--', 'abc-', 'ABC')", "AAA");
}

#[test]
fn substring_edge_cases() {
    for (args, want) in [
        ("1.5, 2.6", "234"),
        ("0, 3", "12"),
        ("0 div 0, 3", ""),
        ("1, 0 div 0", ""),
        ("-42, 1 div 0", "12345"),
        ("-1 div 0, 1 div 0", ""),
        ("2", "2345"),
        ("-0.5", "12345"),
        ("0.5, 1.4", "1"),
        ("3, -1", ""),
        ("1 div 0", ""),
        ("-1, 3", "1"),
    ] {
        on_page(&format!("substring('12345', {args})"), want);
    }
}

#[test]
fn boolean_functions_and_lang() {
    on_page("boolean(//li)", "true");
    on_page("boolean(//nothing)", "false");
    on_page("not(0)", "true");
    on_page("boolean('0')", "true");
    on_page("boolean(0 div 0)", "false");
    on_page("true() and not(false())", "true");
    let html = "<html lang='en'><body><p xml:lang='en'>x</p>\
                <svg xml:lang='en-GB'><g><text>t</text></g></svg></body></html>";
    check(html, "count(//p[lang('en')])", "0");
    check(html, "count(//*[lang('en')])", "3");
    check(html, "count(//text[lang('EN-gb')])", "1");
    check(html, "count(//text[lang('fr')])", "0");
    check(html, "boolean(//svg//text()[lang('en')])", "true");
}

#[test]
fn number_functions() {
    on_page("number('  12  ')", "12");
    on_page("number('1e3')", "NaN");
    on_page("number('-.5')", "-0.5");
    on_page("number('+5')", "NaN");
    on_page("number(true())", "1");
    on_page("number(//li[3])", "3");
    on_page("sum(//li)", "6");
    on_page("sum(//nothing)", "0");
    on_page("floor(-0.5)", "-1");
    on_page("ceiling(-0.5)", "0");
    on_page("1 div ceiling(-0.5)", "-Infinity");
    on_page("round(-0.5)", "0");
    on_page("1 div round(-0.5)", "-Infinity");
    on_page("round(0.5)", "1");
    on_page("round(2.5)", "3");
    on_page("round(-2.5)", "-2");
    on_page("round(0 div 0)", "NaN");
    on_page(
        "1000000 * 1000000 * 1000000 * 1000",
        "1000000000000000000000",
    );
    on_page("0.1 + 0.2", "0.30000000000000004");
    on_page("-0", "0");
}

#[test]
fn extension_functions() {
    on_page("lower-case('ÀB')", "àb");
    on_page("upper-case(//title)", "T");
    on_page("ends-with('file.pdf', '.pdf')", "true");
    on_page("matches('abc123', '^[a-z]+\\d+$')", "true");
    on_page("matches('ABC', 'abc', 'i')", "true");
    on_page("matches('ABC', 'abc')", "false");
    on_page("replace('a-b-c', '-', '+')", "a+b+c");
    on_page("replace('2024-05', '(\\d+)-(\\d+)', '$2/$1')", "05/2024");
    on_page("string-join(//li, ',')", "1,2,3");
    on_page("string-join('x', ',')", "x");
    on_page("count(//p[matches(., '^t')])", "2");
    let d = Document::parse_str("<p data-re='('>x</p>");
    let x = XPath::compile("matches('a', //p/@data-re)").unwrap();
    let e = x.evaluate(&d, NodeId::ROOT).unwrap_err();
    assert!(e.message.contains("regular expression"), "{e}");
}
