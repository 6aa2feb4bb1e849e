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
