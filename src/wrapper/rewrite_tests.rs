//! Tests for in-place XPath rewrites: each edit is shown as the lines it
//! changes, and the result is loaded again to prove what it means.

use super::super::{Wrapper, load_str};
use super::*;

/// A wrapper with comments, flow mappings and every quoting style.
const SHOP: &str = r#"# yaml-language-server: $schema=../schemas/wrapper.schema.json
# A shop, with every way of writing a pattern.
name: shop
adapt: {mode: auto}   # heal without asking
patterns:
  - name: title          # plain
    xpath: //h1          # the page heading
    constraints: {min: 1, max: 1}
  - {name: banner, xpath: "//div[@id='banner']", extract: text}
  - name: book
    xpath: '//ol[@class=''books'']/li'
    history:
      - //ol/li   # first version
    patterns:
      - name: price
        xpath: ".//p[@class=\"price\"]"
        type: number
      - {name: url, xpath: ./h3/a/@href, history: [./a/@href], type: url}
      - name: blurb
        xpath: >-
          .//div[@class='blurb']
        extract: normalized
# The end.
"#;

/// The lines that differ between `before` and `after`, as `-`/`+` lines in
/// hunks headed by the line number they start at (a small LCS diff).
fn changed_lines(before: &str, after: &str) -> String {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    // common[i][j]: length of the longest common subsequence of old[i..] and new[j..].
    let mut common = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    let mut in_hunk = false;
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            i += 1;
            j += 1;
            in_hunk = false;
            continue;
        }
        if !in_hunk {
            out.push(format!("@@ line {} @@", i + 1));
            in_hunk = true;
        }
        if i < old.len() && (j == new.len() || common[i + 1][j] >= common[i][j + 1]) {
            out.push(format!("-{}", old[i]));
            i += 1;
        } else {
            out.push(format!("+{}", new[j]));
            j += 1;
        }
    }
    out.join("\n")
}

/// Rewrites, checks the result loads, and returns it with its pattern's history.
fn rewrite(text: &str, path: &[&str], new_xpath: &str) -> (String, Wrapper) {
    let out = replace_xpath(text, path, new_xpath).unwrap();
    let wrapper = load_str(&out, "w.yaml")
        .unwrap_or_else(|e| panic!("{}\n{out}", super::super::render_all(&e)));
    let mut patterns = &wrapper.patterns;
    let mut pattern = None;
    for name in path {
        let p = patterns.iter().find(|p| p.name == *name).unwrap();
        patterns = &p.patterns;
        pattern = Some(p);
    }
    assert_eq!(pattern.unwrap().xpath.source(), new_xpath);
    (out, wrapper)
}

fn history<'a>(wrapper: &'a Wrapper, path: &[&str]) -> &'a [String] {
    let mut patterns = &wrapper.patterns;
    let mut found = &[][..];
    for name in path {
        let p = patterns.iter().find(|p| p.name == *name).unwrap();
        found = &p.history;
        patterns = &p.patterns;
    }
    found
}

#[test]
fn the_fixture_is_a_valid_wrapper() {
    load_str(SHOP, "shop.yaml").unwrap();
}

#[test]
fn plain_xpath_gains_a_history_and_keeps_its_comment() {
    let (out, w) = rewrite(SHOP, &["title"], "//header/h1[@class='title']");
    assert_eq!(history(&w, &["title"]), ["//h1"]);
    insta::assert_snapshot!(changed_lines(SHOP, &out));
}

#[test]
fn double_quoted_xpath_in_a_flow_mapping() {
    let (out, w) = rewrite(SHOP, &["banner"], r#"//div[@class="hero"]"#);
    assert_eq!(history(&w, &["banner"]), ["//div[@id='banner']"]);
    insta::assert_snapshot!(changed_lines(SHOP, &out));
}

#[test]
fn single_quoted_xpath_appends_to_a_block_history() {
    let (out, w) = rewrite(SHOP, &["book"], "//ol[@class='books']/li[.//h3]");
    assert_eq!(
        history(&w, &["book"]),
        ["//ol/li", "//ol[@class='books']/li"]
    );
    insta::assert_snapshot!(changed_lines(SHOP, &out));
}

#[test]
fn nested_double_quoted_xpath_gets_a_history_at_its_indentation() {
    let (out, w) = rewrite(SHOP, &["book", "price"], ".//span[@itemprop='price']");
    assert_eq!(history(&w, &["book", "price"]), [r#".//p[@class="price"]"#]);
    insta::assert_snapshot!(changed_lines(SHOP, &out));
}

#[test]
fn plain_xpath_in_flow_context_is_quoted_when_it_must_be() {
    let (out, w) = rewrite(SHOP, &["book", "url"], "./h3/a[1]/@href");
    assert_eq!(history(&w, &["book", "url"]), ["./a/@href", "./h3/a/@href"]);
    insta::assert_snapshot!(changed_lines(SHOP, &out));
}

#[test]
fn block_scalar_becomes_a_one_line_scalar() {
    let (out, w) = rewrite(SHOP, &["book", "blurb"], ".//section[@class='blurb']");
    assert_eq!(history(&w, &["book", "blurb"]), [".//div[@class='blurb']"]);
    insta::assert_snapshot!(changed_lines(SHOP, &out));
}

#[test]
fn empty_flow_history_and_missing_final_newline() {
    let text = "name: a\npatterns:\n  - name: x\n    history: []\n    xpath: //a";
    let (out, w) = rewrite(text, &["x"], "//b");
    assert_eq!(history(&w, &["x"]), ["//a"]);
    assert_eq!(
        out,
        "name: a\npatterns:\n  - name: x\n    history: [//a]\n    xpath: //b"
    );
    let text = "name: a\npatterns:\n  - name: x\n    xpath: //a";
    let (out, _) = rewrite(text, &["x"], "//b");
    assert_eq!(
        out,
        "name: a\npatterns:\n  - name: x\n    xpath: //b\n    history:\n      - //a\n"
    );
}

#[test]
fn awkward_xpaths_are_quoted_to_stay_text() {
    let text = "name: a\npatterns:\n  - name: x\n    xpath: //a\n";
    for awkward in [
        "1",
        "true",
        "- x",
        "//a[@b='c: d']",
        "//a[@b='#x y']",
        "//a[@b and\n@c]",
        "'q'",
        "@href",
    ] {
        let (_, w) = rewrite(text, &["x"], awkward);
        assert_eq!(history(&w, &["x"]), ["//a"], "{awkward:?}");
    }
}

#[test]
fn refusals_leave_no_half_edits() {
    assert!(matches!(
        replace_xpath(SHOP, &[], "//a"),
        Err(RewriteError::EmptyPath)
    ));
    assert!(matches!(
        replace_xpath(SHOP, &["book", "nope"], "//a"),
        Err(RewriteError::NotFound { path }) if path == "book/nope"
    ));
    assert!(matches!(
        replace_xpath("a: [", &["x"], "//a"),
        Err(RewriteError::Yaml(_))
    ));
    let aliased = "name: a\npatterns:\n  - {name: x, xpath: &p //a}\n  - {name: y, xpath: *p}\n";
    assert!(matches!(
        replace_xpath(aliased, &["y"], "//b"),
        Err(RewriteError::NotEditable { .. })
    ));
    // The anchored original may change: the alias then follows it, and that
    // is what the verification sees, so it refuses.
    assert!(matches!(
        replace_xpath(aliased, &["x"], "//b"),
        Err(RewriteError::Verification { .. })
    ));
}
