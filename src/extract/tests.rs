use serde_json::json;

use super::*;
use crate::wrapper::load_str;

/// Runs the wrapper (YAML) on the page and compares the page record and the
/// violations (as `pattern constraint` strings) with what is expected.
fn check(yaml: &str, html: &str, record: Value, violations: &[&str]) {
    let wrapper = load_str(yaml, "test.yaml")
        .unwrap_or_else(|d| panic!("{}", crate::wrapper::render_all(&d)));
    let doc = Document::parse_str(html);
    let base = Url::parse("https://example.test/dir/page.html").unwrap();
    let out = extract(&wrapper, &doc, Some(&base));
    assert_eq!(Value::Object(out.record), record);
    let found: Vec<String> = out
        .violations
        .iter()
        .map(|v| format!("{} {}", v.pattern, v.constraint))
        .collect();
    assert_eq!(found, violations, "{:#?}", out.violations);
}

const LISTING: &str = "<h1> Books </h1><ol>\
    <li><h3><a href='a.html' title='A'>A</a></h3><p class=price>£3.50</p></li>\
    <li><h3><a href='/b' title='B'>B</a></h3><p class=price>£12.00</p></li>\
    <li><h3><a href='c' title=''>C</a></h3><p class=price>free</p></li></ol>";

#[test]
fn records_hold_typed_fields_relative_to_each_instance() {
    check(
        "name: t\npatterns:\n  - name: heading\n    xpath: //h1\n    extract: normalized\n    constraints: {max: 1}\n  - name: book\n    xpath: //li\n    patterns:\n      - {name: title, xpath: ./h3/a/@title, constraints: {max: 1}}\n      - {name: price, xpath: ./p, type: number, constraints: {max: 1}}\n      - {name: url, xpath: .//a/@href, type: url, constraints: {max: 1}}\n",
        LISTING,
        json!({"heading": "Books", "book": [
            {"title": "A", "price": 3.5, "url": "https://example.test/dir/a.html"},
            {"title": "B", "price": 12.0, "url": "https://example.test/b"},
            {"title": "", "price": null, "url": "https://example.test/dir/c"},
        ]}),
        &["book/price type"],
    );
}

#[test]
fn every_constraint_is_checked_on_every_instance() {
    check(
        "name: t\npatterns:\n  - name: book\n    xpath: //li\n    constraints: {min: 4}\n    patterns:\n      - {name: title, xpath: ./h3/a/@title, constraints: {max: 1, required: true, min_length: 1}}\n      - {name: price, xpath: ./p, constraints: {max: 1, regex: '^£\\d+\\.\\d\\d$', maximum: 10}}\n",
        LISTING,
        json!({"book": [
            {"title": "A", "price": "£3.50"},
            {"title": "B", "price": "£12.00"},
            {"title": "", "price": "free"},
        ]}),
        &[
            "book min",
            "book/price maximum",
            "book/title required",
            "book/title min_length",
            "book/price regex",
            "book/price minimum",
        ],
    );
}

#[test]
fn single_fields_are_values_and_others_lists() {
    check(
        "name: t\npatterns:\n  - {name: one, xpath: //h1, constraints: {max: 1}}\n  - {name: many, xpath: //h3}\n  - {name: none, xpath: //h6, constraints: {max: 1}}\n  - {name: count, xpath: count(//li)}\n",
        LISTING,
        json!({"one": " Books ", "many": ["A", "B", "C"], "none": null, "count": ["3"]}),
        &[],
    );
}

#[test]
fn occurrences_outside_min_and_max_are_violations() {
    check(
        "name: t\npatterns:\n  - {name: items, xpath: //li, extract: normalized, constraints: {min: 1, max: 2}}\n  - {name: gone, xpath: //table, constraints: {min: 1}}\n",
        LISTING,
        json!({"items": ["A£3.50", "B£12.00", "Cfree"], "gone": []}),
        &["items max", "gone min"],
    );
}

#[test]
fn attribute_extraction_and_html() {
    check(
        "name: t\npatterns:\n  - {name: href, xpath: '//li[1]//a', extract: '@href', constraints: {max: 1}}\n  - {name: missing, xpath: '//li[1]//a', extract: '@rel', constraints: {max: 1, required: true}}\n  - {name: inner, xpath: '//li[1]/h3', extract: inner_html, constraints: {max: 1}}\n",
        LISTING,
        json!({"href": "a.html", "missing": null, "inner": "<a href=\"a.html\" title=\"A\">A</a>"}),
        &["missing required"],
    );
}

#[test]
fn enum_and_dates() {
    check(
        "name: t\npatterns:\n  - {name: when, xpath: //time, type: date, constraints: {max: 1}}\n  - {name: state, xpath: //b, constraints: {enum: [open, closed]}}\n",
        "<time>March 3rd, 2020</time><b>open</b><b>ajar</b>",
        json!({"when": "2020-03-03", "state": ["open", "ajar"]}),
        &["state enum"],
    );
}

#[test]
fn record_schema_is_checked_per_record() {
    check(
        "name: t\npatterns:\n  - name: row\n    xpath: //tr\n    constraints:\n      schema: {type: object, required: [n], properties: {n: {type: integer, minimum: 2}}}\n    patterns:\n      - {name: n, xpath: ./td, type: integer, constraints: {max: 1}}\n",
        "<table><tr><td>1</td></tr><tr><td>5</td></tr></table>",
        json!({"row": [{"n": 1}, {"n": 5}]}),
        &["row schema"],
    );
}

#[test]
fn a_base_element_wins_over_the_page_url() {
    check(
        "name: t\npatterns:\n  - {name: u, xpath: //a/@href, type: url, constraints: {max: 1}}\n",
        "<base href='https://cdn.example/x/'><a href='y'>y</a>",
        json!({"u": "https://cdn.example/x/y"}),
        &[],
    );
}
