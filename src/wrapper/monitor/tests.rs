//! The `monitor` block: defaults, inheritance, `null`, and every refusal
//! at its line and column.

use crate::wrapper::{
    FieldLimits, HealthLimits, MAX_DROP, MIN_ITEMS, Monitor, PatternPath, Severity, check_str,
    load_str,
};

/// A shop with a record pattern, a priced field with a regex, a text field
/// and a top-level title; `monitor` is appended as written.
fn shop(monitor: &str) -> String {
    format!(
        "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n  - name: book\n    \
         xpath: //li\n    patterns:\n      - name: price\n        xpath: ./p\n        \
         type: number\n        constraints: {{regex: '^\\d+$'}}\n      - name: name\n        \
         xpath: ./h3\n{monitor}"
    )
}

/// Loads the shop with `monitor`, which must be valid, and gives its monitor.
#[track_caller]
fn monitor(monitor: &str) -> Monitor {
    let yaml = shop(monitor);
    match load_str(&yaml, "w.yaml") {
        Ok(w) => w.monitor.expect("a monitor block"),
        Err(e) => panic!("{}", crate::wrapper::render_all(&e)),
    }
}

/// Asserts that the shop with `monitor` gives exactly these diagnostics.
#[track_caller]
fn check(monitor: &str, expected: &[&str]) {
    let report = check_str(&shop(monitor), "w.yaml");
    let found: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}: {}: {}", d.line, d.column, d.severity, d.message))
        .collect();
    assert_eq!(found, expected, "for:\n{monitor}");
}

fn path(s: &str) -> PatternPath {
    s.parse().unwrap()
}

#[test]
fn a_wrapper_without_monitor_gets_the_defaults() {
    let w = load_str(&shop(""), "w.yaml").unwrap();
    assert_eq!(w.monitor, None);
    let m = w.monitor();
    assert_eq!(m.min_items, MIN_ITEMS);
    let limits = m.limits(&path("book/price"));
    assert_eq!(limits, HealthLimits::default());
    assert_eq!(limits.max_fill_drop, Some(MAX_DROP));
    assert_eq!(limits.max_type_pass_drop, Some(MAX_DROP));
    assert_eq!(limits.max_regex_pass_drop, Some(MAX_DROP));
    assert_eq!((limits.min_fill, limits.max_distinct_drop), (None, None));
}

#[test]
fn field_limits_override_the_blocks_key_by_key() {
    let m = monitor(
        "monitor:\n  min_items: 5\n  max_fill_drop: 0.2\n  min_type_pass: 0.9\n  fields:\n    \
         book/price: {min_fill: 0.95, max_fill_drop: 0.05}\n    book: {max_fill_drop: null}\n",
    );
    assert_eq!(m.min_items, 5);
    let all = HealthLimits {
        max_fill_drop: Some(0.2),
        min_type_pass: Some(0.9),
        ..HealthLimits::default()
    };
    assert_eq!(m.all, all);
    assert_eq!(
        m.fields,
        [
            FieldLimits {
                pattern: path("book/price"),
                limits: HealthLimits {
                    min_fill: Some(0.95),
                    max_fill_drop: Some(0.05),
                    ..all
                },
            },
            FieldLimits {
                pattern: path("book"),
                limits: HealthLimits {
                    max_fill_drop: None,
                    ..all
                },
            },
        ]
    );
    assert_eq!(m.limits(&path("title")), all);
    assert_eq!(m.limits(&path("book")).max_fill_drop, None);
}

#[test]
fn null_turns_a_default_off_for_every_field() {
    let m = monitor("monitor:\n  max_type_pass_drop: null\n  min_distinct: 2\n");
    assert_eq!(m.all.max_type_pass_drop, None);
    assert_eq!(m.all.max_fill_drop, Some(MAX_DROP));
    assert_eq!(m.all.min_distinct, Some(2));
}

#[test]
fn unknown_paths_suggest_the_pattern_meant() {
    check(
        "monitor:\n  fields:\n    book/prcie: {min_fill: 0.9}\n",
        &[
            "16:5: error: monitor.fields names \"book/prcie\", which is not a pattern of this \
             wrapper; did you mean \"book/price\"?",
        ],
    );
    check(
        "monitor:\n  fields:\n    price: {min_fill: 0.9}\n",
        &[
            "16:5: error: monitor.fields names \"price\", which is not a pattern of this \
             wrapper; did you mean \"book/price\"?",
        ],
    );
    check(
        "monitor:\n  fields:\n    isbn: {min_fill: 0.9}\n    book//name: {}\n",
        &[
            "16:5: error: monitor.fields names \"isbn\", which is not a pattern of this wrapper; \
             its patterns are title, book, book/price, book/name",
            "17:5: error: \"book//name\" is not a pattern path; expected names joined by '/', \
             such as book/price",
        ],
    );
}

#[test]
fn limits_on_measures_a_pattern_lacks_are_refused() {
    check(
        "monitor:\n  fields:\n    book: {min_fill: 0.5, min_distinct: 3}\n    \
         book/name: {max_regex_pass_drop: 0.1, min_regex_pass: null}\n",
        &[
            "16:27: error: min_distinct does not apply to book: it is a record pattern, of \
             which only the fill rate is measured",
            "17:17: error: max_regex_pass_drop does not apply to book/name: it has no regex \
             constraint to pass",
        ],
    );
    check(
        "monitor:\n  fields:\n    book/name: {min_type_pass: 0.9}\n",
        &[
            "16:17: warning: min_type_pass on book/name judges nothing: its type is string, \
             which every value converts to",
        ],
    );
}

#[test]
fn shapes_and_ranges_come_from_the_schema() {
    check(
        "monitor:\n  max_fill_drp: 0.1\n  min_items: 0\n  fields:\n    book/price: {min_fill: 1.5, \
         min_distinct: 1.5}\n",
        &[
            "15:3: error: unknown key \"max_fill_drp\" in \"monitor\"; did you mean \"max_fill_drop\"?",
            "16:14: error: expected a number of at least 1, found 0",
            "18:28: error: expected a number of at most 1, found 1.5",
            "18:47: error: expected nothing or a whole number, found 1.5",
        ],
    );
    check(
        "monitor:\n  fields:\n    book/price: {min_fil: 0.9}\n",
        &["16:18: error: unknown key \"min_fil\" in \"book/price\"; did you mean \"min_fill\"?"],
    );
    let severe = check_str(&shop("monitor: {fields: {nothing: {}}}\n"), "w.yaml");
    assert!(severe.wrapper.is_none());
    assert_eq!(severe.diagnostics[0].severity, Severity::Error);
}
