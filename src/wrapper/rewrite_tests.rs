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

/// A heal then its revert: the wrong XPath must not stay behind as a
/// fallback, in a block history, a flow history or one that listed it.
#[test]
fn a_reverted_xpath_is_not_kept_in_the_history() {
    let (healed, w) = rewrite(SHOP, &["book"], "//section/ol/li");
    assert_eq!(
        history(&w, &["book"]),
        ["//ol/li", "//ol[@class='books']/li"]
    );
    let back = take_back_xpath(&healed, &["book"], "//ol[@class='books']/li").unwrap();
    let w = load_str(&back, "w.yaml").unwrap();
    assert_eq!(history(&w, &["book"]), ["//ol/li"]);
    assert_eq!(
        pattern(&w, &["book"]).xpath.source(),
        "//ol[@class='books']/li"
    );

    let (healed, _) = rewrite(SHOP, &["book", "url"], "./h4/a/@href");
    let back = take_back_xpath(&healed, &["book", "url"], "./h3/a/@href").unwrap();
    let w = load_str(&back, "w.yaml").unwrap();
    assert_eq!(history(&w, &["book", "url"]), ["./a/@href"]);

    // An XPath that a person had listed by hand and that a heal made
    // current again leaves the history when it is taken back.
    let listed = SHOP.replace(
        "      - //ol/li   # first version",
        "      - //ol/li   # first version\n      - //main//li",
    );
    let (healed, _) = rewrite(&listed, &["book"], "//main//li");
    let back = take_back_xpath(&healed, &["book"], "//ol[@class='books']/li").unwrap();
    let w = load_str(&back, "w.yaml").unwrap();
    assert!(
        !history(&w, &["book"]).iter().any(|x| x == "//main//li"),
        "{back}"
    );
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

// Setting a pattern's tree-gram file.

/// The pattern at a path of names.
fn pattern<'a>(wrapper: &'a Wrapper, path: &[&str]) -> &'a super::super::Pattern {
    let mut patterns = &wrapper.patterns;
    let mut found = None;
    for name in path {
        let p = patterns.iter().find(|p| p.name == *name).unwrap();
        patterns = &p.patterns;
        found = Some(p);
    }
    found.unwrap()
}

/// A wrapper named `a` whose `patterns:` list is these lines, each ended by a
/// line break.
fn patterns(lines: &[&str]) -> String {
    let mut text = "name: a\npatterns:\n".to_owned();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Sets the tree-gram and checks the text is exactly `expected`, that it
/// loads with that tree-gram, and that setting it again changes nothing.
fn check(input: &str, path: &[&str], file: &str, expected: &str) {
    let out = set_treegram(input, path, file).unwrap_or_else(|e| panic!("{e}\n{input}"));
    assert_eq!(out, expected, "\n{}", changed_lines(expected, &out));
    let wrapper = load_str(&out, "w.yaml")
        .unwrap_or_else(|e| panic!("{}\n{out}", super::super::render_all(&e)));
    assert_eq!(pattern(&wrapper, path).treegram.as_deref(), Some(file));
    assert_eq!(set_treegram(&out, path, file).unwrap(), out);
}

#[test]
fn treegram_keeps_every_comment_and_quote() {
    let input = r#"# A shop.
name: shop   # the name
patterns:
  - name: title          # plain
    xpath: //h1          # the page heading
    constraints: {min: 1, max: 1}
  - name: book
    xpath: '//ol[@class=''books'']/li'   # quoted
    patterns:
      - name: price
        xpath: ".//p[@class=\"price\"]"
        type: number
# The end.
"#;
    let expected = r#"# A shop.
name: shop   # the name
patterns:
  - name: title          # plain
    xpath: //h1          # the page heading
    constraints: {min: 1, max: 1}
  - name: book
    xpath: '//ol[@class=''books'']/li'   # quoted
    treegram: treegrams/shop/book.html
    patterns:
      - name: price
        xpath: ".//p[@class=\"price\"]"
        type: number
# The end.
"#;
    check(input, &["book"], "treegrams/shop/book.html", expected);
}

#[test]
fn treegram_goes_after_a_plain_xpath_and_its_comment() {
    let expected = SHOP.replacen(
        "    xpath: //h1          # the page heading\n",
        "    xpath: //h1          # the page heading\n    treegram: treegrams/shop/title.html\n",
        1,
    );
    check(SHOP, &["title"], "treegrams/shop/title.html", &expected);
}

#[test]
fn treegram_of_a_nested_pattern_takes_its_indentation() {
    let expected = SHOP.replacen(
        "        xpath: \".//p[@class=\\\"price\\\"]\"\n",
        "        xpath: \".//p[@class=\\\"price\\\"]\"\n        treegram: t/book/price.html\n",
        1,
    );
    assert_ne!(expected, SHOP);
    check(SHOP, &["book", "price"], "t/book/price.html", &expected);
    // An xpath on the line of the dash: the key after the dash sets the indentation.
    check(
        &patterns(&["  - xpath: //a", "    name: x"]),
        &["x"],
        "t/x.html",
        &patterns(&["  - xpath: //a", "    treegram: t/x.html", "    name: x"]),
    );
}

#[test]
fn treegram_goes_after_the_last_line_of_a_block_scalar() {
    let block = [
        "  - name: x",
        "    xpath: |",
        "      //div[@id='main']",
        "        //article",
    ];
    check(
        &patterns(&[&block[..], &["    extract: text"]].concat()),
        &["x"],
        "t/x.html",
        &patterns(&[&block[..], &["    treegram: t/x.html", "    extract: text"]].concat()),
    );
    let expected = SHOP.replacen(
        "          .//div[@class='blurb']\n",
        "          .//div[@class='blurb']\n        treegram: t/blurb.html\n",
        1,
    );
    check(SHOP, &["book", "blurb"], "t/blurb.html", &expected);
    // The blank lines after a `|+` block belong to its value.
    let keep = ["  - name: x", "    xpath: |+", "      //a", ""];
    check(
        &patterns(&[&keep[..], &["    extract: text"]].concat()),
        &["x"],
        "t/x.html",
        &patterns(&[&keep[..], &["    treegram: t/x.html", "    extract: text"]].concat()),
    );
    // A block at the end of a file with no final line break.
    let last = ["  - name: x", "    xpath: >", "      //a", "      //b"];
    check(
        patterns(&last).trim_end(),
        &["x"],
        "t/x.html",
        &patterns(&[&last[..], &["    treegram: t/x.html"]].concat()),
    );
}

#[test]
fn treegram_goes_before_a_history_that_follows_the_xpath() {
    check(
        &patterns(&[
            "  - name: x",
            "    xpath: //b",
            "    history:",
            "      - //a",
        ]),
        &["x"],
        "t/x.html",
        &patterns(&[
            "  - name: x",
            "    xpath: //b",
            "    treegram: t/x.html",
            "    history:",
            "      - //a",
        ]),
    );
}

#[test]
fn treegram_after_a_last_line_without_line_break() {
    check(
        patterns(&["  - name: x", "    xpath: //a"]).trim_end(),
        &["x"],
        "t/x.html",
        &patterns(&["  - name: x", "    xpath: //a", "    treegram: t/x.html"]),
    );
}

#[test]
fn treegram_in_a_flow_mapping() {
    check(
        &patterns(&["  - {name: a, xpath: //a}"]),
        &["a"],
        "t/a.html",
        &patterns(&["  - {name: a, xpath: //a, treegram: t/a.html}"]),
    );
    check(
        patterns(&["  - {name: a, xpath: //a}"]).trim_end(),
        &["a"],
        "t/a,b.html",
        patterns(&["  - {name: a, xpath: //a, treegram: 't/a,b.html'}"]).trim_end(),
    );
    let expected = SHOP.replacen(
        "xpath: \"//div[@id='banner']\", extract",
        "xpath: \"//div[@id='banner']\", treegram: t/banner.html, extract",
        1,
    );
    check(SHOP, &["banner"], "t/banner.html", &expected);
    let expected = SHOP.replacen(
        "xpath: ./h3/a/@href, history",
        "xpath: ./h3/a/@href, treegram: t/url.html, history",
        1,
    );
    check(SHOP, &["book", "url"], "t/url.html", &expected);
}

#[test]
fn existing_treegram_is_replaced_in_its_own_style() {
    for text in [
        patterns(&[
            "  - name: x",
            "    xpath: //a",
            "    treegram: old.html  # kept",
        ]),
        patterns(&["  - name: x", "    treegram: 'old.html'", "    xpath: //a"]),
        patterns(&["  - {name: x, treegram: \"old.html\", xpath: //a}"]),
    ] {
        check(
            &text,
            &["x"],
            "new.html",
            &text.replace("old.html", "new.html"),
        );
    }
    let folded = ["    treegram: >-", "      old.html"];
    check(
        &patterns(
            &[
                &["  - name: x", "    xpath: //a"],
                &folded[..],
                &["    extract: text"],
            ]
            .concat(),
        ),
        &["x"],
        "new.html",
        &patterns(&[
            "  - name: x",
            "    xpath: //a",
            "    treegram: new.html",
            "    extract: text",
        ]),
    );
}

#[test]
fn same_treegram_leaves_the_text_alone() {
    let text = patterns(&[
        "  - name: x",
        "    xpath: //a",
        "    treegram: \"t/x.html\" # same",
    ]);
    assert_eq!(set_treegram(&text, &["x"], "t/x.html").unwrap(), text);
    // Even from an alias: there is nothing to change.
    let aliased = patterns(&[
        "  - {name: x, xpath: //a, treegram: &t t.html}",
        "  - {name: y, xpath: //b, treegram: *t}",
    ]);
    assert_eq!(set_treegram(&aliased, &["y"], "t.html").unwrap(), aliased);
}

#[test]
fn awkward_file_names_are_quoted_to_stay_text() {
    for text in [
        patterns(&["  - name: x", "    xpath: //a"]),
        patterns(&["  - {name: x, xpath: //a}"]),
    ] {
        for awkward in [
            "true",
            "1.html",
            "a #b.html",
            "a: b.html",
            "-x.html",
            "x,y{z}.html",
            "'q'.html",
            "@x",
            " x.html",
        ] {
            let out =
                set_treegram(&text, &["x"], awkward).unwrap_or_else(|e| panic!("{awkward:?}: {e}"));
            let wrapper = load_str(&out, "w.yaml").unwrap();
            assert_eq!(
                pattern(&wrapper, &["x"]).treegram.as_deref(),
                Some(awkward),
                "{out}"
            );
        }
    }
}

#[test]
fn treegram_refusals_leave_no_half_edits() {
    assert!(matches!(
        set_treegram(SHOP, &[], "t.html"),
        Err(RewriteError::EmptyPath)
    ));
    assert!(matches!(
        set_treegram(SHOP, &["book", "nope"], "t.html"),
        Err(RewriteError::NotFound { path }) if path == "book/nope"
    ));
    assert!(matches!(
        set_treegram("a: [", &["x"], "t.html"),
        Err(RewriteError::Yaml(_))
    ));
    let refused = |lines: &[&str], path: &[&str]| {
        let text = patterns(lines);
        let result = set_treegram(&text, path, "t.html");
        assert!(
            matches!(result, Err(RewriteError::NotEditable { .. })),
            "{result:?}\n{text}"
        );
    };
    // An xpath from an alias or a merge key: there is no line of its own to follow.
    let alias = ["  - {name: x, xpath: &p //a}", "  - {name: y, xpath: *p}"];
    refused(&alias, &["y"]);
    let merge = ["  - &p {name: x, xpath: //a}", "  - {<<: *p, name: y}"];
    refused(&merge, &["y"]);
    // A treegram from an alias, or not text, or no xpath to put it after.
    refused(
        &[
            "  - {name: x, xpath: //a, treegram: &t t/x.html}",
            "  - {name: y, xpath: //b, treegram: *t}",
        ],
        &["y"],
    );
    refused(&["  - {name: x, xpath: //a, treegram: [a]}"], &["x"]);
    refused(&["  - {name: x}"], &["x"]);
    // A whole pattern that is an alias.
    let aliased = [
        "  - name: book",
        "    xpath: //li",
        "    patterns:",
        "      - &t {name: title, xpath: ./h3}",
        "  - name: other",
        "    xpath: //div",
        "    patterns:",
        "      - *t",
    ];
    refused(&aliased, &["other", "title"]);
    // The anchored original may change only if nothing follows it.
    for (lines, path) in [(&aliased[..], &["book", "title"][..]), (&merge, &["x"])] {
        assert!(matches!(
            set_treegram(&patterns(lines), path, "t.html"),
            Err(RewriteError::Verification { .. })
        ));
    }
}

/// Every pattern of the shipped bookshop wrapper, parents first.
const BOOKSHOP_PATTERNS: [&[&str]; 6] = [
    &["page_title"],
    &["book"],
    &["book", "title"],
    &["book", "price"],
    &["book", "in_stock"],
    &["book", "url"],
];

#[test]
fn the_shipped_bookshop_wrapper_takes_a_treegram_for_every_pattern() {
    let original = include_str!("../../wrappers/bookshop.yaml");
    let paths = BOOKSHOP_PATTERNS;
    let mut text = original.to_owned();
    for path in paths {
        let file = format!("treegrams/bookshop/{}.html", path.join("/"));
        text = set_treegram(&text, path, &file).unwrap();
    }
    let diff = changed_lines(original, &text);
    let added: Vec<&str> = diff.lines().filter(|l| l.starts_with('+')).collect();
    assert_eq!(added.len(), 6, "{diff}");
    assert!(!diff.lines().any(|l| l.starts_with('-')), "{diff}");
    let wrapper = load_str(&text, "bookshop.yaml").unwrap();
    for path in paths {
        let file = format!("treegrams/bookshop/{}.html", path.join("/"));
        assert_eq!(pattern(&wrapper, path).treegram.as_deref(), Some(&*file));
    }
}

// The history: each XPath once, the newest `adapt.history_limit` of them.

/// Rewrites to each XPath of `xpaths` in turn, checking every result loads
/// with that XPath, and returns the last text and wrapper.
fn rewrite_all(text: &str, path: &[&str], xpaths: &[&str]) -> (String, Wrapper) {
    let mut out = (text.to_owned(), load_str(text, "w.yaml").unwrap());
    for xpath in xpaths {
        out = rewrite(&out.0, path, xpath);
    }
    out
}

#[test]
fn flipping_between_two_layouts_keeps_the_history_small() {
    let text = patterns(&[
        "  - name: x",
        "    xpath: //div[@id='a']   # the layout",
        "    history:",
        "      - //old   # before the redesign",
        "    extract: text",
    ]);
    let (a, b) = ("//div[@id='a']", "//div[@class='b']");
    let mut out = text.clone();
    let mut after_two = String::new();
    for flip in 1..=1_000 {
        let new = if flip % 2 == 1 { b } else { a };
        out = replace_xpath(&out, &["x"], new).unwrap();
        if flip == 2 {
            after_two.clone_from(&out);
        }
        assert!(out.len() < text.len() + 40, "flip {flip}:\n{out}");
    }
    // Every second flip gives back the same text: nothing accumulates.
    assert_eq!(out, after_two);
    let wrapper = load_str(&out, "w.yaml").unwrap();
    assert_eq!(pattern(&wrapper, &["x"]).xpath.source(), a);
    assert_eq!(history(&wrapper, &["x"]), ["//old", b]);
    insta::assert_snapshot!(changed_lines(&text, &out));
}

#[test]
fn a_flip_back_takes_its_entry_out_of_the_history() {
    // Back to the XPath before last: it leaves the history, the replaced
    // one takes the last place.
    let (out, w) = rewrite_all(SHOP, &["book"], &["//ol/li"]);
    assert_eq!(history(&w, &["book"]), ["//ol[@class='books']/li"]);
    assert_eq!(
        changed_lines(SHOP, &out),
        "@@ line 11 @@\n\
         -    xpath: '//ol[@class=''books'']/li'\n\
         +    xpath: '//ol/li'\n\
         @@ line 13 @@\n\
         -      - //ol/li   # first version\n\
         +      - '//ol[@class=''books'']/li'"
    );
    // A history written by earlier versions, with repeats: each XPath stays
    // once, at its latest place.
    let legacy = patterns(&[
        "  - name: x",
        "    xpath: //b",
        "    history: [//a, //b, //c, //a, //b, //c, //a]",
    ]);
    let (_, w) = rewrite_all(&legacy, &["x"], &["//c"]);
    assert_eq!(history(&w, &["x"]), ["//a", "//b"]);
    let (_, w) = rewrite_all(&legacy, &["x"], &["//d"]);
    assert_eq!(history(&w, &["x"]), ["//c", "//a", "//b"]);
}

#[test]
fn a_limit_of_three_drops_the_oldest() {
    let block = [
        "  - name: x",
        "    xpath: //d",
        "    history:",
        "      - //a",
        "      - //b",
        "      - //c",
    ];
    let limited = |lines: &[&str]| {
        patterns(lines).replace("name: a\n", "name: a\nadapt:\n  history_limit: 3\n")
    };
    let text = limited(&block);
    assert_eq!(load_str(&text, "w.yaml").unwrap().adapt.history_limit, 3);
    let (out, w) = rewrite_all(&text, &["x"], &["//e"]);
    assert_eq!(history(&w, &["x"]), ["//b", "//c", "//d"]);
    insta::assert_snapshot!(changed_lines(&text, &out));
    let (out, w) = rewrite_all(&text, &["x"], &["//e", "//f", "//g"]);
    assert_eq!(history(&w, &["x"]), ["//d", "//e", "//f"]);
    assert_eq!(
        out,
        limited(&[
            "  - name: x",
            "    xpath: //g",
            "    history:",
            "      - //d",
            "      - //e",
            "      - //f",
        ])
    );
    // The same in flow style, and a history already longer than the limit.
    let text = limited(&["  - {name: x, xpath: //f, history: [//a, //b, //c, //d, //e]}"]);
    let (out, w) = rewrite_all(&text, &["x"], &["//g"]);
    assert_eq!(history(&w, &["x"]), ["//d", "//e", "//f"]);
    assert_eq!(
        out,
        limited(&["  - {name: x, xpath: //g, history: [//d, //e, //f]}"])
    );
    // Without the setting, ten are kept.
    let eleven: Vec<String> = (0..11).map(|i| format!("//p{i}")).collect();
    let text = patterns(&["  - name: x", "    xpath: //start"]);
    let (_, w) = rewrite_all(
        &text,
        &["x"],
        &eleven.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(w.adapt.history_limit, 10);
    // Eleven rewrites replace eleven XPaths: //start, the oldest, is dropped,
    // and the last, //p10, is current.
    assert_eq!(history(&w, &["x"]), &eleven[..10]);
}

#[test]
fn a_flow_style_history() {
    // In a flow mapping, flipping back and forth.
    let (out, w) = rewrite_all(SHOP, &["book", "url"], &["./a/@href"]);
    assert_eq!(history(&w, &["book", "url"]), ["./h3/a/@href"]);
    insta::assert_snapshot!(changed_lines(SHOP, &out));
    let (again, _) = rewrite_all(&out, &["book", "url"], &["./h3/a/@href", "./a/@href"]);
    assert_eq!(again, out);
    // A flow list in a block mapping, over several lines, losing entries
    // at the start, in the middle and at the end.
    let check = |history_lines: &[&str], new: &str, expected: &[&str], want: &[&str]| {
        let text = patterns(
            &[
                &["  - name: x", "    xpath: //x"],
                history_lines,
                &["    extract: text"],
            ]
            .concat(),
        );
        let (out, w) = rewrite_all(&text, &["x"], &[new]);
        assert_eq!(history(&w, &["x"]), want, "{out}");
        let expected = patterns(
            &[
                &["  - name: x", &format!("    xpath: {new}")],
                expected,
                &["    extract: text"],
            ]
            .concat(),
        );
        assert_eq!(out, expected, "\n{}", changed_lines(&expected, &out));
    };
    check(
        &["    history: [//a, //b]"],
        "//a",
        &["    history: [//b, //x]"],
        &["//b", "//x"],
    );
    check(
        &["    history: [//a, //b]"],
        "//b",
        &["    history: [//a, //x]"],
        &["//a", "//x"],
    );
    check(
        &["    history: [ //b ]"],
        "//b",
        &["    history: [ //x ]"],
        &["//x"],
    );
    check(
        &["    history: [//a, //b, //x]"],
        "//b",
        &["    history: [//a, //x]"],
        &["//a", "//x"],
    );
    check(
        &[
            "    history: [",
            "      //a,  # oldest",
            "      //b,",
            "      //c",
            "    ]",
        ],
        "//c",
        &[
            "    history: [",
            "      //a,  # oldest",
            "      //b, //x",
            "    ]",
        ],
        &["//a", "//b", "//x"],
    );
    check(
        &["    history: [//a, //b, //a, //b]"],
        "//a",
        &["    history: [//b, //x]"],
        &["//b", "//x"],
    );
}

#[test]
fn a_history_list_with_comments_in_it() {
    let text = patterns(&[
        "  - name: x",
        "    xpath: //d   # current",
        "    history:   # oldest first",
        "      # the first layout",
        "      - //a   # 2019",
        "      - //b   # 2020",
        "",
        "      # the layout of 2021",
        "      - //c",
        "    # the fields",
        "    extract: text",
    ]);
    let (out, w) = rewrite_all(&text, &["x"], &["//b"]);
    assert_eq!(history(&w, &["x"]), ["//a", "//c", "//d"]);
    insta::assert_snapshot!(changed_lines(&text, &out));
    // Back again, and then to the last entry: it leaves, the one replaced
    // comes after the comments.
    let (out, w) = rewrite_all(&out, &["x"], &["//d", "//c"]);
    assert_eq!(history(&w, &["x"]), ["//a", "//b", "//d"]);
    insta::assert_snapshot!(
        "a_history_list_with_comments_in_it_2",
        changed_lines(&text, &out)
    );
}

#[test]
fn history_entries_written_as_block_scalars_or_below_their_dash() {
    let text = patterns(&[
        "  - name: x",
        "    xpath: //c",
        "    history:",
        "      - >-",
        "        //a",
        "      -",
        "        //b",
        "    extract: text",
    ]);
    let (out, w) = rewrite_all(&text, &["x"], &["//a"]);
    assert_eq!(history(&w, &["x"]), ["//b", "//c"]);
    assert_eq!(
        out,
        patterns(&[
            "  - name: x",
            "    xpath: //a",
            "    history:",
            "      -",
            "        //b",
            "      - //c",
            "    extract: text",
        ])
    );
    let (out, w) = rewrite_all(&text, &["x"], &["//b"]);
    assert_eq!(history(&w, &["x"]), ["//a", "//c"]);
    assert_eq!(
        out,
        patterns(&[
            "  - name: x",
            "    xpath: //b",
            "    history:",
            "      - >-",
            "        //a",
            "      - //c",
            "    extract: text",
        ])
    );
}

#[test]
fn rewriting_to_the_same_xpath_adds_nothing() {
    let text = patterns(&["  - name: x", "    xpath: //a"]);
    assert_eq!(replace_xpath(&text, &["x"], "//a").unwrap(), text);
    // An entry equal to the current XPath leaves; a block list left empty
    // is written as an empty flow list, at the end of the file too.
    let text = patterns(&[
        "  - name: x",
        "    xpath: //a",
        "    history:",
        "      - //a",
        "    extract: text",
    ]);
    let (out, w) = rewrite(&text, &["x"], "//a");
    assert!(history(&w, &["x"]).is_empty());
    assert_eq!(
        out,
        patterns(&[
            "  - name: x",
            "    xpath: //a",
            "    history: []",
            "    extract: text"
        ])
    );
    let text = patterns(&[
        "  - name: x",
        "    xpath: //a",
        "    history:",
        "      - //a",
    ]);
    let (out, _) = rewrite(text.trim_end(), &["x"], "//a");
    assert_eq!(
        out,
        patterns(&["  - name: x", "    xpath: //a", "    history: []"]).trim_end()
    );
    let text = patterns(&["  - {name: x, xpath: //a, history: [//a, //a]}"]);
    let (out, _) = rewrite(&text, &["x"], "//a");
    assert_eq!(out, patterns(&["  - {name: x, xpath: //a, history: []}"]));
}

#[test]
fn the_last_entry_removed_at_the_end_of_the_file() {
    let text = patterns(&[
        "  - name: x",
        "    xpath: //b",
        "    history:",
        "      - //c",
        "      - //a",
    ]);
    let (out, w) = rewrite(text.trim_end(), &["x"], "//a");
    assert_eq!(history(&w, &["x"]), ["//c", "//b"]);
    assert_eq!(
        out,
        patterns(&[
            "  - name: x",
            "    xpath: //a",
            "    history:",
            "      - //c",
            "      - //b"
        ])
    );
}

#[test]
fn history_limit_is_a_setting_of_at_least_one() {
    let text = |limit: &str| {
        format!(
            "name: a\nadapt: {{history_limit: {limit}}}\npatterns:\n  - {{name: x, xpath: //a}}\n"
        )
    };
    assert_eq!(
        load_str(&text("1"), "w.yaml").unwrap().adapt.history_limit,
        1
    );
    for bad in ["0", "-1", "2.5", "ten"] {
        assert!(load_str(&text(bad), "w.yaml").is_err(), "{bad}");
    }
    let (_, w) = rewrite_all(&text("1"), &["x"], &["//b", "//c", "//a"]);
    assert_eq!(history(&w, &["x"]), ["//c"]);
}

#[test]
fn aliases_in_a_history_are_refused() {
    let text = patterns(&[
        "  - {name: x, xpath: //a, history: [&old //z]}",
        "  - {name: y, xpath: //b, history: [*old]}",
    ]);
    assert!(matches!(
        replace_xpath(&text, &["y"], "//c"),
        Err(RewriteError::NotEditable { .. })
    ));
    let text = patterns(&[
        "  - {name: x, xpath: //a, history: &h [//z]}",
        "  - {name: y, xpath: //b, history: *h}",
    ]);
    assert!(matches!(
        replace_xpath(&text, &["y"], "//c"),
        Err(RewriteError::NotEditable { .. })
    ));
}

#[test]
fn setting_every_treegram_at_once_writes_what_one_at_a_time_writes() {
    let original = include_str!("../../wrappers/bookshop.yaml");
    let paths = BOOKSHOP_PATTERNS;
    let files: Vec<String> = paths
        .iter()
        .map(|p| format!("treegrams/bookshop/{}.html", p.join("/")))
        .collect();
    let mut one_by_one = original.to_owned();
    for (path, file) in paths.iter().zip(&files) {
        one_by_one = set_treegram(&one_by_one, path, file).unwrap();
    }
    let changes: Vec<(&[&str], &str)> = paths
        .iter()
        .zip(&files)
        .map(|(p, f)| (*p, f.as_str()))
        .collect();
    assert_eq!(set_treegrams(original, &changes).unwrap(), one_by_one);
    // Set already: the text comes back as it was.
    assert_eq!(set_treegrams(&one_by_one, &changes).unwrap(), one_by_one);
    // One pattern that is not there fails the whole rewrite, naming it.
    let mut missing = changes.clone();
    missing.push((&["book", "nope"], "t.html"));
    match set_treegrams(original, &missing) {
        Err(e @ RewriteError::NotFound { .. }) => assert_eq!(e.pattern(), Some("book/nope")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_healed_css_pattern_is_written_back_as_xpath_with_its_translation_in_history() {
    let text =
        "name: shop\npatterns:\n  - name: price  # the price\n    css: p.price\n    type: number\n";
    let out = replace_xpath(text, &["price"], "//span[@itemprop='price']").unwrap();
    assert_eq!(
        changed_lines(text, &out),
        "@@ line 4 @@\n-    css: p.price\n+    xpath: //span[@itemprop='price']  # was css: p.price\n+    history:\n+      - descendant-or-self::p[@class and contains(concat(' ', normalize-space(@class), ' '), ' price ')]"
    );
    let w = load_str(&out, "shop.yaml").unwrap();
    let price = pattern(&w, &["price"]);
    assert_eq!(price.css, None);
    assert_eq!(price.history, [crate::css::to_xpath("p.price").unwrap()]);
    // In a flow mapping there is no room for a comment.
    let flow = "name: shop\npatterns:\n  - {name: price, css: p.price}\n";
    let out = replace_xpath(flow, &["price"], "//b").unwrap();
    assert!(
        out.contains("{name: price, xpath: //b, history: ["),
        "{out}"
    );
    assert!(load_str(&out, "shop.yaml").is_ok());
}
