use super::*;

fn doc(html: &str) -> Document {
    Document::parse_str(html)
}

/// Checks the canonical paths of all elements in document order.
fn check_paths(html: &str, expected: &[&str]) {
    let d = doc(html);
    let paths: Vec<String> = d
        .all()
        .filter(|&n| d.is_element(n))
        .map(|n| d.path(n))
        .collect();
    assert_eq!(paths, expected);
}

#[test]
fn parse_builds_html_head_body() {
    check_paths(
        "<p>hi",
        &["/html", "/html/head", "/html/body", "/html/body/p"],
    );
}

#[test]
fn paths_index_only_siblings_that_share_a_name() {
    check_paths(
        "<div><a></a><b></b><a></a></div><div></div>",
        &[
            "/html",
            "/html/head",
            "/html/body",
            "/html/body/div[1]",
            "/html/body/div[1]/a[1]",
            "/html/body/div[1]/b",
            "/html/body/div[1]/a[2]",
            "/html/body/div[2]",
        ],
    );
}

#[test]
fn text_and_comment_paths_count_within_their_kind() {
    let d = doc("<p>one<b>x</b>two<!--c--></p>");
    let paths: Vec<String> = d
        .all()
        .filter(|&n| !d.is_element(n) && n != NodeId::ROOT)
        .map(|n| d.path(n))
        .collect();
    assert_eq!(
        paths,
        [
            "/html/body/p/text()[1]",
            "/html/body/p/b/text()[1]",
            "/html/body/p/text()[2]",
            "/html/body/p/comment()[1]"
        ]
    );
    assert_eq!(d.path(NodeId::ROOT), "/");
}

#[test]
fn ids_are_document_order_even_after_foster_parenting() {
    // The text "x" is foster-parented before the table although it came later.
    let d = doc("<table><tr><td>a</td></tr>x</table>");
    let texts: Vec<&str> = d
        .all()
        .filter(|&n| d.kind(n) == NodeKind::Text)
        .map(|n| d.text(n))
        .collect();
    assert_eq!(texts, ["x", "a"]);
    for n in d.all() {
        for c in d.children(n) {
            assert!(c > n && c < d.subtree_end(n));
            assert_eq!(d.parent(c), Some(n));
        }
    }
}

#[test]
fn tbody_is_inserted_as_browsers_do() {
    check_paths(
        "<table><tr><td>1</td></tr></table>",
        &[
            "/html",
            "/html/head",
            "/html/body",
            "/html/body/table",
            "/html/body/table/tbody",
            "/html/body/table/tbody/tr",
            "/html/body/table/tbody/tr/td",
        ],
    );
}

/// Checks the string-value of the first element named `name`.
fn check_text(html: &str, name: &str, expected: &str) {
    let d = doc(html);
    let element = d
        .all()
        .find(|&n| d.name(n) == name)
        .unwrap_or_else(|| panic!("no <{name}> in {html:?}"));
    assert_eq!(d.string_value(element), expected, "{html:?}");
}

#[test]
fn raw_text_rcdata_and_plaintext_follow_the_tree_builder() {
    check_text("<script>if (a<b) {}</script>", "script", "if (a<b) {}");
    check_text(
        "<script><!--<script></script>x</script>y",
        "script",
        "<!--<script></script>x",
    );
    check_text("<title>a<b>&amp;</title>", "title", "a<b>&");
    check_text("<style>p > a { }</style>", "style", "p > a { }");
    check_text("<plaintext><b>x</b>", "plaintext", "<b>x</b>");
}

#[test]
fn cdata_sections_are_text_only_in_foreign_content() {
    check_text("<svg><![CDATA[a<b]]></svg>", "svg", "a<b");
    check_text("<svg><![CDATA[a\0b]]></svg>", "svg", "a\u{FFFD}b");
    let d = doc("<div><![CDATA[a]]></div>");
    let div = d.all().find(|&n| d.name(n) == "div").unwrap();
    let comment = d.first_child(div).unwrap();
    assert_eq!(d.kind(comment), NodeKind::Comment);
    assert_eq!(d.text(comment), "[CDATA[a]]");
}

#[test]
fn character_references_nulls_and_newlines_are_tokenized_as_html5lib_does() {
    check_text("<p>&notin; &notit; &amp</p>", "p", "\u{2209} \u{AC}it; &");
    check_text("<p>a\0b</p>", "p", "ab");
    check_text("<p>a\r\nb\rc</p>", "p", "a\nb\nc");
    let d = doc("<a title=\"&notit;\" href=x HREF=y id=1 id=2>");
    let a = d.all().find(|&n| d.name(n) == "a").unwrap();
    assert_eq!(d.attr(a, "title"), Some("&notit;"));
    assert_eq!(d.attr(a, "href"), Some("x"));
    assert_eq!(d.attr(a, "id"), Some("1"));
    assert_eq!(d.attrs(a).len(), 3);
}

#[test]
fn a_newline_from_a_character_reference_after_pre_or_textarea_is_dropped() {
    // html5lib-tests tests3.dat; html5ever's own tokenizer kept the newline
    // when the reference had no semicolon.
    check_text("<pre>&#x0a;&#x0a;A</pre>", "pre", "\nA");
    check_text("<textarea>&#xa x</textarea>", "textarea", " x");
    check_text("<textarea>\nfoo</textarea>", "textarea", "foo");
}

#[test]
fn a_byte_order_mark_after_a_script_is_kept_as_text() {
    // Only a leading byte order mark is not text; html5ever's own tokenizer
    // also dropped one wherever it resumed after a script or a `<meta charset>`.
    check_text("<script>x</script>\u{FEFF}Y", "body", "\u{FEFF}Y");
    check_text("<meta charset=utf-8>\u{FEFF}Y", "body", "\u{FEFF}Y");
    check_text("\u{FEFF}<p>x", "html", "x");
}

#[test]
fn quirks_mode_decides_whether_a_table_closes_a_paragraph() {
    let table_path = |html: &str| {
        let d = doc(html);
        let table = d.all().find(|&n| d.name(n) == "table").unwrap();
        d.path(table)
    };
    assert_eq!(table_path("<p><table>"), "/html/body/p/table");
    assert_eq!(table_path("<!DOCTYPE html><p><table>"), "/html/body/table");
    assert_eq!(
        table_path("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"><p><table>"),
        "/html/body/p/table"
    );
    let d = doc("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\" \"x\">");
    let doctype = d.doctype().unwrap();
    assert_eq!(
        (
            doctype.name.as_str(),
            doctype.public_id.as_str(),
            doctype.system_id.as_str()
        ),
        ("html", "-//W3C//DTD HTML 4.01//EN", "x")
    );
}

#[test]
fn noscript_content_is_markup() {
    let d = doc("<body><noscript><img src=a.png></noscript>");
    assert!(d.all().any(|n| d.name(n) == "img"));
}

#[test]
fn adjacent_text_is_merged_after_adoption_agency() {
    let d = doc("<p>a<b>b</p>c</b>d");
    for n in d.all() {
        let kids: Vec<NodeId> = d.children(n).collect();
        for w in kids.windows(2) {
            assert!(
                !(d.kind(w[0]) == NodeKind::Text && d.kind(w[1]) == NodeKind::Text),
                "adjacent text under {}",
                d.path(n)
            );
        }
    }
    assert_eq!(d.string_value(d.root_element().unwrap()), "abcd");
}

#[test]
fn siblings_and_children_agree() {
    let d = doc("<ul><li>1</li><li>2</li><li>3</li></ul>");
    let ul = d.all().find(|&n| d.name(n) == "ul").unwrap();
    let kids: Vec<NodeId> = d.children(ul).collect();
    assert_eq!(kids.len(), 3);
    assert_eq!(d.first_child(ul), Some(kids[0]));
    assert_eq!(d.last_child(ul), Some(kids[2]));
    assert_eq!(d.next_sibling(kids[0]), Some(kids[1]));
    assert_eq!(d.prev_sibling(kids[2]), Some(kids[1]));
    assert_eq!(d.prev_sibling(kids[0]), None);
    assert_eq!(d.next_sibling(kids[2]), None);
    assert!(d.is_ancestor(ul, d.first_child(kids[1]).unwrap()));
}

#[test]
fn attributes_are_read_by_name() {
    let d = doc("<a href='/x' class='b c' data-id=7>t</a>");
    let a = d.all().find(|&n| d.name(n) == "a").unwrap();
    assert_eq!(d.attr(a, "href"), Some("/x"));
    assert_eq!(d.attr(a, "data-id"), Some("7"));
    assert_eq!(d.attr(a, "title"), None);
    let names: Vec<&str> = d.attrs(a).iter().map(|at| d.attr_name(at)).collect();
    assert_eq!(names, ["href", "class", "data-id"]);
}

#[test]
fn serialisation_round_trips_simple_markup() {
    let d = doc(
        "<!DOCTYPE html><html><head><title>T &amp; U</title></head><body><p class=\"x\">a<br>b</p><script>if (a<b) {}</script></body></html>",
    );
    assert_eq!(
        d.outer_html(NodeId::ROOT),
        "<!DOCTYPE html><html><head><title>T &amp; U</title></head><body><p class=\"x\">a<br>b</p><script>if (a<b) {}</script></body></html>"
    );
    let p = d.all().find(|&n| d.name(n) == "p").unwrap();
    assert_eq!(d.inner_html(p), "a<br>b");
}

#[test]
fn the_text_of_an_svg_or_mathml_style_is_escaped_when_serialised() {
    // An SVG `style` holds markup, so its text `<img ...>` (written as
    // entities in the page) is text; written raw it would be read back as
    // an element with a handler.
    for html in [
        "<svg><style>&lt;img src=x onerror=alert(1)&gt;</style></svg>",
        "<math><mtext><mglyph><style>&lt;img src=x onerror=alert(1)&gt;</style></mglyph></mtext></math>",
    ] {
        let d = doc(html);
        let out = d.outer_html(NodeId::ROOT);
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt;"), "{out}");
        let again = doc(&out);
        assert!(!again.all().any(|n| again.name(n) == "img"), "{out}");
    }
    // An HTML `style` stays raw text.
    let d = doc("<style>a > b {}</style>");
    assert!(
        d.outer_html(NodeId::ROOT)
            .contains("<style>a > b {}</style>")
    );
}

#[test]
fn content_after_meta_charset_is_kept_and_decoded() {
    let d = Document::parse(b"<meta charset=windows-1252><p>caf\xe9</p>");
    assert_eq!(d.encoding().name(), "windows-1252");
    assert!(d.string_value(NodeId::ROOT).contains("caf\u{e9}"));
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    let d = Document::parse(b"<p>a\xffb</p>");
    assert!(d.string_value(NodeId::ROOT).contains("a\u{fffd}b"));
}

#[test]
fn deep_nesting_is_bounded_and_keeps_every_element_and_text() {
    let depth = 100_000;
    let html = "<div>".repeat(depth) + "x" + &"</div>".repeat(depth) + "<p>after</p>";
    let d = doc(&html);
    assert_eq!(d.all().filter(|&n| d.name(n) == "div").count(), depth);
    let deepest = d.all().max_by_key(|&n| d.depth(n)).unwrap();
    assert!(
        d.depth(deepest) <= MAX_DEPTH as usize + 4,
        "depth {}",
        d.depth(deepest)
    );
    assert_eq!(d.string_value(NodeId::ROOT), "xafter");
    // The paragraph after the deep block is still a child of body.
    let p = d.all().find(|&n| d.name(n) == "p").unwrap();
    assert_eq!(d.path(p), "/html/body/p");
    let out = d.outer_html(NodeId::ROOT);
    assert_eq!(out.matches("<div>").count(), depth);
}

#[test]
fn unclosed_paragraphs_are_not_mistaken_for_deep_nesting() {
    let html = "<p>x".repeat(2_000);
    let d = doc(&html);
    let p = d.all().rfind(|&n| d.name(n) == "p").unwrap();
    assert_eq!(d.path(p), "/html/body/p[2000]");
    assert_eq!(d.text(d.first_child(p).unwrap()), "x");
}

#[test]
fn template_contents_are_children() {
    let d = doc("<template><p>in</p></template>");
    let t = d.all().find(|&n| d.name(n) == "template").unwrap();
    assert_eq!(d.name(d.first_child(t).unwrap()), "p");
}

#[test]
fn svg_elements_keep_their_namespace() {
    let d = doc("<svg><path d='M0'/></svg>");
    let path = d.all().find(|&n| d.name(n) == "path").unwrap();
    assert_eq!(d.namespace(path), Namespace::Svg);
}

#[test]
fn cached_paths_equal_plain_paths() {
    let doc = Document::parse_str(
        "<div><p>a</p><p>b<!--c-->d<b>e</b></p><ul><li>1</li><li>2</li><li>3</li></ul><span></span></div><table><tr><td>x</td></tr></table>",
    );
    let mut cache = crate::dom::PathCache::new();
    for n in doc.all() {
        assert_eq!(doc.path_cached(n, &mut cache), doc.path(n), "node {}", n.0);
    }
}

/// Naming one violation per record used to scan every sibling for each
/// record; on 60,000 sibling records that took seconds.
#[test]
fn violations_on_many_sibling_records_name_each_record_once() {
    let items: String = (0..5_000).map(|i| format!("<li>{i}</li>")).collect();
    let doc = Document::parse_str(&format!("<ul>{items}</ul>"));
    let mut cache = crate::dom::PathCache::new();
    let lis: Vec<NodeId> = doc.all().filter(|&n| doc.name(n) == "li").collect();
    assert_eq!(lis.len(), 5_000);
    for &li in &lis {
        let path = doc.path_cached(li, &mut cache);
        assert!(path.starts_with("/html/body/ul/li["), "{path}");
    }
    assert_eq!(
        doc.path_cached(lis[4_999], &mut cache),
        "/html/body/ul/li[5000]"
    );
}

/// A page whose one tag has `n` attributes, each written `a{i}="v"`, and a
/// second `a1` that must be dropped.
fn long_tag(n: usize) -> String {
    let attrs: String = (0..n).map(|i| format!(" a{i}=\"v\"")).collect();
    format!("<div{attrs} a1=\"dup\">x</div><p id=after>y</p>")
}

#[test]
fn a_tag_of_many_double_quoted_attributes_does_not_overflow_the_stack() {
    // html5gum recurses once per double-quoted attribute of a tag; 200,000
    // of them overflowed an 8 MiB stack before the guard.
    for n in [1_000, 1_025, 200_000] {
        let doc = Document::parse_str(&long_tag(n));
        let div = doc.all().find(|&n| doc.name(n) == "div").unwrap();
        assert_eq!(doc.attrs(div).len(), n, "{n} attributes");
        assert_eq!(
            doc.attr(div, "a1"),
            Some("v"),
            "the first of duplicates wins"
        );
        assert!(doc.all().any(|n| doc.attr(n, "id") == Some("after")));
    }
}

#[test]
fn the_guarded_parse_and_the_parse_on_a_large_stack_build_the_same_tree() {
    // Just over the guard: the page is parsed again on a thread of its own.
    let page = format!(
        "<body><p class=a>one</p>{}<ul><li>two</ul>",
        long_tag(2_000)
    );
    let doc = Document::parse_str(&page);
    let short = Document::parse_str(&page.replacen(&long_tag(2_000), &long_tag(3), 1));
    let names = |d: &Document| d.all().map(|n| d.name(n).to_owned()).collect::<Vec<_>>();
    assert_eq!(names(&doc), names(&short));
}

/// Checks that every node's links agree with its id range and that no two
/// texts are siblings, then returns the texts in document order.
fn check_layout(d: &Document) -> Vec<&str> {
    for n in d.all() {
        let kids: Vec<NodeId> = d.children(n).collect();
        let mut expected = n.0 + 1;
        for &c in &kids {
            assert_eq!(c.0, expected, "children of {n:?} follow one another");
            assert_eq!(d.parent(c), Some(n));
            expected = d.subtree_end(c).0;
        }
        assert_eq!(
            expected,
            d.subtree_end(n).0,
            "{n:?} ends after its last child"
        );
        assert_eq!(d.last_child(n), kids.last().copied());
        for w in kids.windows(2) {
            assert_eq!(d.prev_sibling(w[1]), Some(w[0]));
            assert!(!(d.kind(w[0]) == NodeKind::Text && d.kind(w[1]) == NodeKind::Text));
        }
    }
    d.all()
        .filter(|&n| d.kind(n) == NodeKind::Text)
        .map(|n| d.text(n))
        .collect()
}

#[test]
fn text_fostered_out_of_a_table_between_cells_is_one_text() {
    // Each fostered piece is written after the cell before it, so the text
    // it joins is no longer at the end of the buffer.
    let d = doc("<table>a<tr><td>x</td></tr>b<tr><td>y</td></tr>c</table>");
    assert_eq!(check_layout(&d), ["abc", "x", "y"]);
}

#[test]
fn a_second_body_tag_adds_only_missing_attributes() {
    let d = doc("<body a=1><p>t</p><body b=2 a=3><p>u</p><body c=4>");
    let body = d.all().find(|&n| d.name(n) == "body").unwrap();
    let attrs: Vec<(&str, &str)> = d
        .attrs(body)
        .iter()
        .map(|a| (d.attr_name(a), d.attr_value(a)))
        .collect();
    assert_eq!(attrs, [("a", "1"), ("b", "2"), ("c", "4")]);
    assert_eq!(check_layout(&d), ["t", "u"]);
}

#[test]
fn many_fostered_texts_and_body_tags_parse_whole() {
    // Both would be quadratic if each addition copied what came before.
    let n = 50_000;
    let d = doc(&format!(
        "<table>{}</table>",
        "x<tr><td>y</td></tr>".repeat(n)
    ));
    let texts = check_layout(&d);
    assert_eq!(texts[0].len(), n, "the fostered texts are one");
    assert_eq!(texts.len(), n + 1);
    let tags: String = (0..n).map(|i| format!("<body a{i}=v><i>t</i>")).collect();
    let d = doc(&tags);
    let body = d.all().find(|&n| d.name(n) == "body").unwrap();
    assert_eq!(d.attrs(body).len(), n);
    assert_eq!(d.attr(body, &format!("a{}", n - 1)), Some("v"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Misnested and stray tags move nodes after they are made (foster
    /// parenting, the adoption agency, a second `<body>`): the document is
    /// laid out in document order whatever the tree builder did.
    #[test]
    fn any_token_soup_is_laid_out_in_document_order(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "<table>", "</table>", "<tr>", "<td>", "</td>", "<b>", "</b>", "<i>", "</i>",
            "<p>", "</p>", "<a href=x>", "</a>", "<body c=1>", "<html l=2>", "<select>",
            "<option>", "<svg>", "</svg>", "<math>", "<template>", "</template>", "<li>",
            "text", " ", "<!--c-->", "<br>", "<nobr>", "<caption>", "<form>", "</div>", "<div>",
        ]), 0..80)
    ) {
        let d = doc(&tokens.concat());
        check_layout(&d);
    }
}
