//! Shaping a page's record into the records a run emits.

use serde_json::{Map, Value, json};

use super::{RunOptions, shape};

fn check(record: Value, flatten: Option<&str>, expected: Value) {
    let Value::Object(record) = record else {
        panic!("a record is an object");
    };
    let options = RunOptions {
        flatten: flatten.map(str::to_owned),
        ..RunOptions::default()
    };
    assert_eq!(Value::Array(shape(record, &options)), expected);
}

#[test]
fn unflattened_the_page_record_is_the_one_record() {
    let record = json!({"heading": "Fiction", "book": [{"title": "A"}]});
    check(record.clone(), None, json!([record]));
}

#[test]
fn flattened_instances_lost_the_page_fields_and_now_carry_them_after_their_own() {
    check(
        json!({
            "heading": "Fiction",
            "book": [{"title": "A", "price": 1.5}, {"title": "B", "price": null}],
            "tags": ["new", "sale"],
        }),
        Some("book"),
        json!([
            {"title": "A", "price": 1.5, "heading": "Fiction", "tags": ["new", "sale"]},
            {"title": "B", "price": null, "heading": "Fiction", "tags": ["new", "sale"]},
        ]),
    );
}

#[test]
fn a_page_field_named_like_a_record_field_is_page_dot_name() {
    let flat = shape(
        Map::from_iter([
            ("title".to_owned(), json!("Fiction")),
            ("book".to_owned(), json!([{"title": "A"}])),
        ]),
        &RunOptions {
            flatten: Some("book".to_owned()),
            ..RunOptions::default()
        },
    );
    assert_eq!(flat, [json!({"title": "A", "page.title": "Fiction"})]);
    // The key order is the record's fields, then the page's.
    let keys: Vec<&String> = flat[0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["title", "page.title"]);
}

#[test]
fn a_page_without_instances_flattens_to_no_record() {
    check(
        json!({"heading": "Fiction", "book": []}),
        Some("book"),
        json!([]),
    );
    check(json!({"heading": "Fiction"}), Some("book"), json!([]));
}

/// A page given with its document is extracted from that document: a page
/// a crawler parsed for its links is not parsed again for its record.
#[test]
fn a_parsed_page_is_extracted_from_its_document_not_parsed_again() {
    use std::sync::Arc;

    use crate::dom::Document;
    use crate::fetch::{Page, PageSource, ParsedPage};

    let wrapper = crate::wrapper::load_str(
        "name: t\npatterns:\n  - name: title\n    xpath: //h1\n",
        "t.yaml",
    )
    .unwrap();
    let page = Page {
        name: "p".to_owned(),
        url: None,
        bytes: b"<h1>as fetched</h1>".to_vec(),
        charset: None,
    };
    // The document given stands for the page: were the page parsed again,
    // the title would be the bytes' own.
    let given = Document::parse(b"<h1>as parsed</h1>");
    let sources = [PageSource::Parsed(Arc::new(ParsedPage::new(page, given)))];
    let mut titles = Vec::new();
    super::run_pages(&wrapper, &sources, &RunOptions::default(), |o| {
        titles.push(o.records[0]["title"].clone());
    });
    assert_eq!(titles, [json!(["as parsed"])]);
    // Once taken, the document is the page's own again.
    let PageSource::Parsed(parsed) = &sources[0] else {
        unreachable!()
    };
    let again = parsed.take_document();
    assert_eq!(again.string_value(again.root()), "as fetched");
}

#[test]
fn a_page_wide_value_goes_into_every_object_record_and_comes_out_again() {
    let mut out = super::PageOutput {
        page: "p.html".to_owned(),
        records: vec![
            json!({"title": "A"}),
            json!("not an object"),
            json!({"title": "B"}),
        ],
        violations: Vec::new(),
        adaptations: Vec::new(),
        fallbacks: Vec::new(),
        error: None,
        ticket: None,
    };
    out.set_in_records("_proposals", Some(&json!(["tag:1"])));
    assert_eq!(
        out.records,
        [
            json!({"title": "A", "_proposals": ["tag:1"]}),
            json!("not an object"),
            json!({"title": "B", "_proposals": ["tag:1"]}),
        ]
    );
    out.set_in_records("_proposals", None);
    assert_eq!(
        out.records,
        [
            json!({"title": "A"}),
            json!("not an object"),
            json!({"title": "B"})
        ]
    );
}
