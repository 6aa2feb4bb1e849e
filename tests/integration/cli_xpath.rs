//! `mend xpath` end to end: the binary run on a page written for the project.

use std::io::Write;

use crate::support::cli::{Mend, mend, stdout};

const PAGE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/xpath_page.html"
);

#[test]
fn json_node_sets_carry_paths_and_values() {
    let o = mend(&["xpath", PAGE, "//a/@href", "--json"]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o).trim(),
        r#"{"nodes":[{"path":"/html/body/ol/li[1]/article/h3/a/@href","value":"/b/1"},{"path":"/html/body/ol/li[2]/article/h3/a/@href","value":"/b/2"}]}"#
    );
}

#[test]
fn json_scalars_write_special_numbers_as_strings() {
    for (expr, want) in [
        ("count(//li)", r#"{"value":2}"#),
        ("1 div 0", r#"{"value":"Infinity"}"#),
        ("-1 div 0", r#"{"value":"-Infinity"}"#),
        ("0 div 0", r#"{"value":"NaN"}"#),
        ("0.5 * 3", r#"{"value":1.5}"#),
        ("string(//h1)", r#"{"value":"Books"}"#),
        ("boolean(//ol)", r#"{"value":true}"#),
    ] {
        let o = mend(&["xpath", PAGE, expr, "--json"]);
        assert!(o.status.success(), "{expr}");
        assert_eq!(stdout(&o).trim(), want, "{expr}");
    }
}

#[test]
fn human_form_is_one_line_per_node() {
    let o = mend(&["xpath", PAGE, "//p"]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "/html/body/ol/li[1]/article/p\t£10.00\n/html/body/ol/li[2]/article/p\t£12.50\n/html/body/p\tLine one\\nline two\n"
    );
    let o = mend(&["xpath", PAGE, "count(//a) * 2"]);
    assert_eq!(stdout(&o), "4\n");
}

#[test]
fn compile_errors_show_a_caret_and_exit_2() {
    let o = mend(&["xpath", PAGE, "//li[", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("expected an expression"), "{err}");
    assert!(err.contains("  //li[\n       ^"), "{err}");
}

#[test]
fn missing_pages_exit_3() {
    let o = mend(&["xpath", "/nonexistent/page.html", "//p"]);
    assert_eq!(o.status.code(), Some(3));
}

#[test]
fn batch_mode_prints_one_line_per_expression_and_continues_after_errors() {
    let dir = tempfile::tempdir().unwrap();
    let exprs = dir.path().join("exprs.txt");
    std::fs::write(&exprs, "//h1\ncount(\n\n//title/text()\nnope()\n").unwrap();
    let o = mend(&["xpath", PAGE, "--exprs", exprs.to_str().unwrap(), "--json"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(
        lines[0],
        r#"{"nodes":[{"path":"/html/body/h1","value":"Books"}]}"#
    );
    assert!(lines[1].starts_with(r#"{"error":"#), "{}", lines[1]);
    assert_eq!(
        lines[2],
        r#"{"nodes":[{"path":"/html/head/title/text()[1]","value":"Bookshop"}]}"#
    );
    assert!(lines[3].contains("unknown function"), "{}", lines[3]);
}

#[test]
fn gzipped_pages_and_stdin_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("page.html.gz");
    let html = std::fs::read(PAGE).unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&html).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let o = mend(&["xpath", gz.to_str().unwrap(), "string(//title)", "--json"]);
    assert_eq!(stdout(&o).trim(), r#"{"value":"Bookshop"}"#);

    let o = Mend::new(&["xpath", "-", "count(//article)"])
        .stdin(html)
        .output();
    assert_eq!(stdout(&o), "2\n");
}

#[test]
fn a_css_selector_selects_what_its_xpath_selects() {
    let o = mend(&["xpath", PAGE, "li:nth-child(2) h3 > a::attr(href)", "--css"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "/html/body/ol/li[2]/article/h3/a/@href\t/b/2\n");
    let o = mend(&["xpath", PAGE, "article p::text, h1", "--css", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let values: Vec<&str> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["value"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["Books", "£10.00", "£12.50"]);
}

#[test]
fn an_unsupported_pseudo_class_is_exit_2_with_its_column() {
    let o = mend(&["xpath", PAGE, "li a:hover", "--css"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unsupported pseudo-class :hover"), "{err}");
    assert!(err.contains("  li a:hover\n      ^"), "{err}");
}

#[test]
fn html_prints_each_elements_outer_html() {
    let o = mend(&["xpath", PAGE, "//li[1]//h3", "--html"]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "<h3><a href=\"/b/1\" title=\"First\">First</a></h3>\n"
    );
}

#[test]
fn a_selection_of_nothing_says_so_and_exits_1() {
    let o = mend(&["xpath", PAGE, "//table"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert!(String::from_utf8_lossy(&o.stderr).contains("selects no node"));
    // A value that happens to be empty is not nothing.
    let o = mend(&["xpath", PAGE, "string(//table)"]);
    assert!(o.status.success());
}
