//! Loader tests: every diagnostic kind at its exact line and column, defaults,
//! the YAML 1.1 traps, merge keys, limits, and the wrappers shipped in `wrappers/`.

use super::*;

/// Loads `yaml` and returns its one-line diagnostics (`line:column: severity: message`).
fn diagnostics(yaml: &str) -> Vec<String> {
    check_str(yaml, "w.yaml")
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}: {}: {}", d.line, d.column, d.severity, d.message))
        .collect()
}

/// Asserts that `yaml` yields exactly the `expected` diagnostics.
#[track_caller]
fn check(yaml: &str, expected: &[&str]) {
    assert_eq!(diagnostics(yaml), expected, "for:\n{yaml}");
}

/// Loads `yaml`, which must be valid.
#[track_caller]
fn load(yaml: &str) -> Wrapper {
    match load_str(yaml, "w.yaml") {
        Ok(wrapper) => wrapper,
        Err(errors) => panic!("{}", render_all(&errors)),
    }
}

const MINIMAL: &str = "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n";

#[test]
fn a_minimal_wrapper_gets_every_default() {
    let w = load(MINIMAL);
    assert_eq!(w.name, "shop");
    assert!(w.start.is_empty());
    assert_eq!(w.adapt, AdaptSettings::default());
    let p = &w.patterns[0];
    assert_eq!(p.name, "title");
    assert_eq!(p.xpath.source(), "//h1");
    assert_eq!(p.extract, Extract::Text);
    assert_eq!(p.value_type, ValueType::String);
    assert_eq!(p.date_format, None);
    assert!(!p.is_record() && p.history.is_empty() && p.treegram.is_none());
    assert_eq!(p.location, Location { line: 3, column: 5 });
}

#[test]
fn partial_adapt_settings_keep_the_other_defaults() {
    let w = load(&format!(
        "{MINIMAL}adapt:\n  mode: auto\n  triggers: {{bottom_up: false}}\n"
    ));
    assert_eq!(w.adapt.mode, HealMode::Auto);
    assert!(w.adapt.triggers.top_down);
    assert!(!w.adapt.triggers.bottom_up);
    assert_eq!(w.adapt.threshold, 0.75);
    assert_eq!(w.adapt.treegram_instances, 3);
}

#[test]
fn the_design_example_loads_as_written() {
    let w = load_file("tests/fixtures/wrappers/design-example.yaml").unwrap();
    assert_eq!(
        w.source.as_deref(),
        Some(std::path::Path::new(
            "tests/fixtures/wrappers/design-example.yaml"
        ))
    );
    assert_eq!(w.start, ["https://shop.example/books?page=1"]);
    assert_eq!(w.adapt.label, crate::similarity::LabelMode::TagClass);
    let book = &w.patterns[1];
    assert!(book.is_record());
    assert_eq!(
        book.treegram.as_deref(),
        Some("treegrams/bookshop/book.html")
    );
    assert_eq!(book.constraints.min, Some(10));
    let price = &book.patterns[1];
    assert_eq!(price.value_type, ValueType::Number);
    assert!(price.is_single());
    assert_eq!(price.constraints.minimum, Some(0.0));
    assert!(price.constraints.regex.as_ref().unwrap().is_match("£12.50"));
    assert_eq!(book.patterns[2].value_type, ValueType::Url);
    assert_eq!(
        book.patterns[0].location,
        Location {
            line: 23,
            column: 9
        }
    );
}

#[test]
fn every_shipped_wrapper_is_valid_and_lint_free() {
    let mut count = 0;
    for entry in std::fs::read_dir("wrappers").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            let report = check_file(&path).unwrap();
            assert_eq!(report.diagnostics, [], "{}", path.display());
            assert!(report.wrapper.is_some());
            count += 1;
        }
    }
    assert!(count >= 3, "expected the sample wrappers, found {count}");
}

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
    assert!(jsonschema::draft202012::meta::is_valid(&schema));
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[test]
fn every_schema_property_has_a_description() {
    fn walk(value: &serde_json::Value, path: &str, missing: &mut Vec<String>) {
        if let Some(object) = value.as_object() {
            if let Some(properties) = object.get("properties").and_then(|p| p.as_object()) {
                for (key, property) in properties {
                    if property.get("description").is_none() && property.get("$ref").is_none() {
                        missing.push(format!("{path}/{key}"));
                    }
                }
            }
            for (key, child) in object {
                walk(child, &format!("{path}/{key}"), missing);
            }
        }
    }
    let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
    let mut missing = Vec::new();
    walk(&schema, "", &mut missing);
    assert_eq!(missing, Vec::<String>::new());
}

#[test]
fn the_norway_problem_does_not_happen() {
    let w = load(
        "name: shop\npatterns:\n  - name: country\n    xpath: //td\n    \
         constraints: {enum: [NO, SE, yes, off, 0755, 1_000]}\n",
    );
    let one_of = w.patterns[0].constraints.one_of.clone().unwrap();
    assert_eq!(one_of, ["NO", "SE", "yes", "off", "0755", "1_000"]);
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    constraints: {required: yes}\n",
        &["5:29: error: expected true or false, found \"yes\""],
    );
}

#[test]
fn merge_keys_and_aliases_are_applied() {
    let w = load(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    constraints: &one {min: 1, max: 1}\n  \
         - name: b\n    xpath: //b\n    constraints:\n      <<: *one\n      max: 3\n      \
         regex: x\n  - name: c\n    xpath: //c\n    constraints: *one\n",
    );
    let [a, b, c] = &w.patterns[..] else { panic!() };
    assert_eq!((a.constraints.min, a.constraints.max), (Some(1), Some(1)));
    assert_eq!((b.constraints.min, b.constraints.max), (Some(1), Some(3)));
    assert!(b.constraints.regex.is_some());
    assert_eq!((c.constraints.min, c.constraints.max), (Some(1), Some(1)));
}

#[test]
fn a_deep_pattern_tree_loads_with_locations() {
    let mut yaml = String::from("name: deep\npatterns:\n");
    let depth = 12;
    for level in 0..depth {
        let indent = "  ".repeat(2 * level + 1);
        yaml.push_str(&format!(
            "{indent}- name: level{level}\n{indent}  xpath: ./div\n"
        ));
        if level + 1 < depth {
            yaml.push_str(&format!("{indent}  patterns:\n"));
        }
    }
    let w = load(&yaml);
    let mut pattern = &w.patterns[0];
    for level in 1..depth {
        assert!(pattern.is_record());
        pattern = &pattern.patterns[0];
        assert_eq!(pattern.name, format!("level{level}"));
    }
    assert_eq!(
        pattern.location,
        Location {
            line: 3 * depth,
            column: 4 * depth + 1
        }
    );
}

#[test]
fn unknown_keys_suggest_the_closest_key() {
    check(
        "name: shop\npatterns:\n  - name: a\n    xpth: //a\n",
        &[
            "3:5: error: missing required key \"xpath\" in pattern",
            "4:5: error: unknown key \"xpth\" in pattern; did you mean \"xpath\"?",
        ],
    );
    check(
        "name: shop\nadapt: {mode: off, treshold: 0.5}\npatterns:\n  - {name: a, xpath: //a}\n",
        &["2:20: error: unknown key \"treshold\" in \"adapt\"; did you mean \"threshold\"?"],
    );
}

#[test]
fn unknown_keys_are_found_at_any_depth() {
    check(
        "name: shop\nadapt:\n  triggers: {top_dwn: true}\npatterns:\n  - name: a\n    xpath: //a\n    \
         patterns:\n      - name: b\n        xpath: .\n        contraints: {mn: 1}\n",
        &[
            "3:14: error: unknown key \"top_dwn\" in \"triggers\"; did you mean \"top_down\"?",
            "10:9: error: unknown key \"contraints\" in pattern; did you mean \"constraints\"?",
        ],
    );
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    constraints: {mn: 1}\n",
        &["5:19: error: unknown key \"mn\" in \"constraints\"; did you mean \"min\"?"],
    );
}

#[test]
fn unknown_keys_without_a_close_match_list_the_valid_keys() {
    check(
        "name: shop\nselector: x\npatterns:\n  - {name: a, xpath: //a}\n",
        &[
            "2:1: error: unknown key \"selector\" in the wrapper; expected one of name, start, adapt, crawl, monitor, patterns",
        ],
    );
}

#[test]
fn wrong_values_say_what_was_expected() {
    check(
        "name: shop\nadapt:\n  mode: sometimes\n  threshold: 1.5\n  algorithms: [ctm, ctm]\npatterns:\n  - {name: a, xpath: //a, extract: txt, type: money}\n",
        &[
            "3:9: error: expected one of off, propose, auto, found \"sometimes\"",
            "4:14: error: expected a number of at most 1, found 1.5",
            "5:15: error: \"ctm\" is listed twice; each item may appear once",
            "7:36: error: expected text, normalized, inner_html, outer_html or an attribute such as \"@href\", found \"txt\"",
            "7:47: error: expected one of string, integer, number, boolean, date, url, found \"money\"",
        ],
    );
    check(
        "name: shop\nadapt: {mode: propse}\npatterns: []\n",
        &[
            "2:15: error: expected one of off, propose, auto, found \"propse\"; did you mean \"propose\"?",
            "3:11: error: patterns must have at least 1 item, found an empty list",
        ],
    );
}

#[test]
fn wrong_types_are_named_in_yaml_words() {
    check(
        "name: shop\nstart: https://a.example\npatterns:\n  - name: a\n    xpath:\n    constraints: {min: many}\n",
        &[
            "2:8: error: expected a list, found \"https://a.example\"",
            "5:5: error: expected text, found nothing",
            "6:24: error: expected a whole number, found \"many\"",
        ],
    );
    check(
        "- a\n- b\n",
        &["1:1: error: a wrapper is a mapping with `name` and `patterns`; found a list"],
    );
}

#[test]
fn names_and_urls_must_be_well_formed() {
    check(
        "name: Book Shop\nstart: [ftp://x.example, 'http://']\npatterns:\n  - {name: 2nd, xpath: //a}\n",
        &[
            "1:7: error: expected a name of lower-case letters, digits, '-' and '_', found \"Book Shop\"",
            "2:9: error: expected an absolute http or https URL, found \"ftp://x.example\"",
            "2:26: error: expected an absolute http or https URL, found \"http://\"",
            "4:12: error: expected a name that starts with a letter or '_' and has only letters, digits, '_' and '-', found \"2nd\"",
        ],
    );
}

#[test]
fn duplicate_keys_name_both_places() {
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    xpath: //b\nname: other\n",
        &[
            "5:5: error: duplicate key \"xpath\"; it is first set at line 4, column 5",
            "6:1: error: duplicate key \"name\"; it is first set at line 1, column 1",
        ],
    );
}

#[test]
fn sibling_pattern_names_are_unique() {
    check(
        "name: shop\npatterns:\n  - {name: a, xpath: //a}\n  - name: b\n    xpath: //b\n    patterns:\n      - {name: a, xpath: .}\n  - {name: a, xpath: //c}\n",
        &["8:12: error: duplicate pattern name \"a\"; the first is at line 3, column 12"],
    );
}

#[test]
fn ranges_must_be_in_order() {
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    constraints: {min: 3, max: 2, min_length: 5, max_length: 4, minimum: 1.5, maximum: -1}\n",
        &[
            "5:32: error: max (2) is less than min (3) on line 5",
            "5:62: error: max_length (4) is less than min_length (5) on line 5",
            "5:88: error: maximum (-1) is less than minimum (1.5) on line 5",
        ],
    );
}

#[test]
fn invalid_regexes_point_at_the_offending_character() {
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    constraints:\n      regex: ^a(b\n",
        &["6:16: error: invalid regex: unclosed group"],
    );
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    constraints: {regex: '[''x''](?P<>y)'}\n",
        &["5:38: error: invalid regex: empty capture group name"],
    );
}

#[test]
fn record_schemas_must_compile() {
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    constraints:\n      schema: {type: objekt}\n    patterns:\n      - {name: b, xpath: .}\n",
        &[
            "6:22: error: invalid record schema: \"objekt\" is not valid under any of the schemas listed in the 'anyOf' keyword",
        ],
    );
}

#[test]
fn record_patterns_cannot_extract_or_convert() {
    check(
        "name: shop\npatterns:\n  - name: a\n    xpath: //a\n    extract: text\n    type: string\n    patterns:\n      - {name: b, xpath: .}\n",
        &[
            "5:5: error: \"extract\" does not apply to record pattern \"a\": it has child patterns, so it yields records (line 8); move \"extract\" to a child",
            "6:5: error: \"type\" does not apply to record pattern \"a\": it has child patterns, so it yields records (line 8); move \"type\" to a child",
        ],
    );
}

#[test]
fn formats_belong_to_dates() {
    check(
        "name: shop\npatterns:\n  - {name: a, xpath: //a, format: '%Y'}\n  - {name: b, xpath: //b, type: date, format: '%Q-%m'}\n  - {name: c, xpath: //c, type: date, format: '%d %B %Y'}\n",
        &[
            "3:27: error: \"format\" applies only to fields with `type: date`",
            "4:47: error: invalid date format \"%Q-%m\"; expected strftime fields such as %Y-%m-%d",
        ],
    );
}

#[test]
fn yaml_syntax_errors_are_located() {
    let found = diagnostics("name: shop\npatterns:\n  - name: a\n   xpath: //a\n");
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("4:"), "{found:?}");
    let found = diagnostics("name: [shop\n");
    assert!(
        found[0].starts_with("2:") || found[0].starts_with("1:"),
        "{found:?}"
    );
}

#[test]
fn empty_and_multi_document_files_are_refused() {
    check(
        "",
        &["1:1: error: the wrapper is empty; expected a mapping with `name` and `patterns`"],
    );
    check(
        "# nothing\n",
        &["1:1: error: the wrapper is empty; expected a mapping with `name` and `patterns`"],
    );
    let found = diagnostics(&format!("{MINIMAL}---\n{MINIMAL}"));
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("one YAML document"), "{found:?}");
}

#[test]
fn unknown_tags_are_refused() {
    let found = diagnostics("name: !!python/object:os.system shop\npatterns: []\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("1:"), "{found:?}");
}

/// A billion-laughs wrapper: ten `lol`s, and `levels - 1` more anchors that
/// each hold ten aliases of the one before, so `patterns` expands to
/// 10^`levels` scalars.
fn alias_bomb(levels: usize) -> String {
    let mut yaml = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..levels {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        yaml.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    yaml.push_str(&format!("name: bomb\npatterns: *a{}\n", levels - 1));
    yaml
}

/// The events a reader replays to expand [`alias_bomb`]`(levels)`: each list
/// is its start and end event plus its items.
fn alias_bomb_events(levels: u32) -> usize {
    (1..=levels).map(|l| 10usize.pow(l)).sum::<usize>()
        + 2 * (0..levels).map(|l| 10usize.pow(l)).sum::<usize>()
}

/// The refusal is decided by a count, not a clock: the reader stops once
/// aliases have replayed `MAX_REPLAYED_EVENTS` events, so a bomb of 10^10
/// scalars is refused with the same message as one just over the budget, and
/// one just under it is read in full (and then refused for what it is:
/// unknown keys, and strings where patterns belong).
#[test]
fn alias_bombs_are_refused_at_the_replay_budget() {
    use super::yaml::MAX_REPLAYED_EVENTS;
    assert!(alias_bomb_events(4) < MAX_REPLAYED_EVENTS);
    assert!(alias_bomb_events(5) > MAX_REPLAYED_EVENTS);
    let refusal = format!("aliases expand to more than {MAX_REPLAYED_EVENTS} YAML events");
    for levels in [5, 10] {
        let found = diagnostics(&alias_bomb(levels));
        assert_eq!(found.len(), 1, "{levels} levels: {found:?}");
        assert!(found[0].contains(&refusal), "{levels} levels: {found:?}");
        assert!(found[0].contains("alias bomb"), "{found:?}");
    }
    let under = diagnostics(&alias_bomb(4));
    assert!(!under.is_empty(), "the anchors are unknown keys");
    assert!(
        under.iter().all(|d| !d.contains("alias")),
        "under the budget: {under:?}"
    );
}

#[test]
fn oversized_documents_are_refused() {
    let big = format!("{MINIMAL}# {}\n", "x".repeat(MAX_BYTES));
    check(
        &big,
        &[&format!(
            "1:1: error: the wrapper is {} bytes long; wrappers are limited to {MAX_BYTES} bytes",
            big.len()
        )],
    );
    let many = format!(
        "{MINIMAL}history: [{}]\n",
        vec!["a"; MAX_NODES + 1].join(",")
    );
    let found = diagnostics(&many);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains(&format!("more than {MAX_NODES} YAML nodes")),
        "{found:?}"
    );
    let deep = format!(
        "name: x\npatterns: {}{}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    let found = diagnostics(&deep);
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn deep_nesting_is_refused_before_it_overflows_the_stack() {
    let mut yaml = String::from("name: x\npatterns:\n");
    for level in 0..(MAX_DEPTH + 5) {
        yaml.push_str(&format!("{}- \n", "  ".repeat(level + 1)));
    }
    let found = diagnostics(&yaml);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("nests deeper"), "{found:?}");
}

#[test]
fn rows_without_tbody_get_a_warning_but_load() {
    let yaml = "name: shop\npatterns:\n  - name: rows\n    xpath: \"//table[@id='t']/tr\"\n";
    let report = check_str(yaml, "w.yaml");
    assert!(report.wrapper.is_some());
    assert_eq!(report.diagnostics.len(), 1);
    let d = &report.diagnostics[0];
    assert_eq!((d.line, d.column, d.severity), (4, 30, Severity::Warning));
    assert!(load_str(yaml, "w.yaml").is_ok());
}

/// Asserts that the only diagnostic for `yaml` is an invalid-XPath error
/// whose caret sits on the character where the engine says `expression` breaks
/// (or just after the expression when it breaks at its end).
#[track_caller]
fn check_xpath_caret(yaml: &str, expression: &str, line: usize, after_end: &str) {
    let error = crate::xpath::XPath::compile(expression).expect_err("the expression is invalid");
    let found = load_str(yaml, "w.yaml").expect_err("the wrapper is invalid");
    assert_eq!(found.len(), 1, "{}", render_all(&found));
    let d = &found[0];
    assert!(d.message.starts_with("invalid XPath: "), "{d}");
    assert_eq!(d.line, line, "{d}");
    let at_caret: String = d.snippet.chars().skip(d.column - 1).collect();
    let expected = match expression.get(error.position..) {
        Some(rest) if !rest.is_empty() => rest.chars().next().unwrap().to_string(),
        _ => after_end.to_owned(),
    };
    assert!(
        at_caret.starts_with(&expected),
        "{d}\nexpected the caret on {expected:?}"
    );
}

#[test]
fn invalid_xpaths_point_into_the_scalar() {
    check_xpath_caret(
        "name: shop\npatterns:\n  - name: a\n    xpath: //div[@a=1]]/p\n",
        "//div[@a=1]]/p",
        4,
        "",
    );
    check_xpath_caret(
        "name: shop\npatterns:\n  - {name: a, xpath: '//div[@a=''x''] ]', type: url}\n",
        "//div[@a='x'] ]",
        3,
        "'",
    );
    check_xpath_caret(
        "name: shop\npatterns:\n  - {name: a, xpath: \"//div[@a=\\\"x\\\"]]\"}\n",
        "//div[@a=\"x\"]]",
        3,
        "\"",
    );
    check_xpath_caret(
        "name: shop\npatterns:\n  - name: a\n    xpath: |-\n      //div[\n",
        "//div[",
        5,
        "",
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(300)))]

    /// No text makes the loader or the rewriter panic.
    #[test]
    fn arbitrary_text_never_panics(text in "[a-z_:\\-\\[\\]{}'\"#&*!|>@.,/0-9 \n\t<\\\\]{0,300}") {
        let _ = check_str(&text, "fuzz.yaml");
        let _ = replace_xpath(&text, &["a"], "//x[@y='z']");
    }

    /// Neither does any small damage to a real wrapper.
    #[test]
    fn damaged_wrappers_never_panic(
        start in 0usize..1000,
        len in 0usize..20,
        insert in "[a-z:\\-\\[\\]{}'\"#&*|> \n]{0,10}",
    ) {
        let original = include_str!("../../wrappers/bookshop.yaml");
        let start = start.min(original.len());
        let end = (start + len).min(original.len());
        if original.is_char_boundary(start) && original.is_char_boundary(end) {
            let text = format!("{}{insert}{}", &original[..start], &original[end..]);
            let _ = check_str(&text, "fuzz.yaml");
            let _ = replace_xpath(&text, &["book", "price"], "//x");
        }
    }
}

/// The rendered form of one diagnostic of every kind, as `mend validate` prints them.
#[test]
fn rendered_diagnostics() {
    let yaml = "\
name: shop
start: [https://shop.example/]
adapt:
  mode: sometimes
  treshold: 0.5
patterns:
  - name: title
    xpth: //h1
  - name: price
    xpath: //table/tr/td[2]
    constraints: {min: 2, max: 1, regex: '£(\\d+'}
    constraints: {}
  - name: price
    xpath: //p
";
    insta::assert_snapshot!(render_all(
        &check_str(yaml, "wrappers/shop.yaml").diagnostics
    ));
}

#[test]
fn a_css_pattern_loads_as_its_translation() {
    let w = load("name: shop\npatterns:\n  - name: price\n    css: li > p.price::text\n");
    let price = &w.patterns[0];
    assert_eq!(price.css.as_deref(), Some("li > p.price::text"));
    assert_eq!(
        price.xpath.source(),
        crate::css::to_xpath("li > p.price::text").unwrap()
    );
}

#[test]
fn a_css_pattern_that_cannot_be_translated_is_an_error_at_its_column() {
    check(
        "name: shop\npatterns:\n  - name: a\n    css: 'a:hover'\n",
        &["4:12: error: invalid CSS selector: unsupported pseudo-class :hover"],
    );
    check(
        "name: shop\npatterns:\n  - {name: a, xpath: //a, css: a}\n",
        &["3:32: error: a pattern has `xpath` or `css`, not both"],
    );
}
