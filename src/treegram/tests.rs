use super::*;
use crate::similarity::{LabelMode, LabeledTree, Labels, Mask, NoMask};
use crate::wrapper;

const WRAPPER: &str = r#"
name: shop
patterns:
  - name: heading
    xpath: //h1
  - name: item
    xpath: //table[@id='items']/tbody/tr
    patterns:
      - name: price
        xpath: ./td[@class='price']
      - name: link
        xpath: .//a/@href
      - name: note
        xpath: ./td[3]/text()
"#;

const PAGE: &str = r#"<!DOCTYPE html><html><body>
<div id="page"><header><h1>Shop</h1></header>
<table id="items"><tbody>
<tr id="row-83412"><td><a href="/a">A &amp; B</a></td><td class="price">£1.00</td><td>first <b>x</b> second</td></tr>
<tr><td><a href="/b">B</a></td><td class="price">£2.00</td><td>n</td></tr>
<tr><td><a href="/c">C</a></td><td class="price">£3.00</td><td>n</td></tr>
<tr><td><a href="/d">D</a></td><td class="price">£4.00</td><td>n</td></tr>
</tbody></table></div><script>var x = "<p>";</script></body></html>"#;

fn captured(k: usize, min: usize) -> (Vec<Captured>, Vec<Skipped>) {
    let w = wrapper::load_str(WRAPPER, "shop.yaml").expect("the wrapper loads");
    let doc = Document::parse_str(PAGE);
    let options = CaptureOptions {
        url: Some("https://shop.example/"),
        sha256: "ab12",
        captured: "2026-11-22T01:00:00Z",
        instances: k,
        min_context: min,
        only: None,
        unstable: &NoMask,
        frame: None,
    };
    capture(&w, &doc, &options)
}

fn gram(pattern: &str, k: usize, min: usize) -> TreeGram {
    let (all, _) = captured(k, min);
    let c = all
        .iter()
        .find(|c| c.pattern == pattern)
        .unwrap_or_else(|| panic!("no tree-gram for {pattern}"));
    TreeGram::parse(c.html.as_bytes()).expect("the file reads back")
}

#[test]
fn every_pattern_gets_a_file_named_after_its_path() {
    let (all, skipped) = captured(3, 4);
    let files: Vec<&str> = all.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(
        files,
        [
            "treegrams/shop/heading.html",
            "treegrams/shop/item.html",
            "treegrams/shop/item/price.html",
            "treegrams/shop/item/link.html",
            "treegrams/shop/item/note.html",
        ]
    );
    assert!(skipped.is_empty(), "{skipped:?}");
}

#[test]
fn header_round_trips() {
    let g = gram("item/price", 3, 4);
    let locators: Vec<(LocatorKind, &str)> = g
        .header
        .locators
        .iter()
        .map(|l| (l.kind, l.xpath.as_str()))
        .collect();
    insta::assert_debug_snapshot!(locators);
    assert_eq!(
        Header {
            locators: Vec::new(),
            ..g.header
        },
        Header {
            wrapper: "shop".into(),
            pattern: "item/price".into(),
            xpath: "./td[@class='price']".into(),
            url: Some("https://shop.example/".into()),
            sha256: "ab12".into(),
            captured: "2026-11-22T01:00:00Z".into(),
            matched: 4,
            locators: Vec::new(),
            frame: None,
            hidden: Some(false),
            neighbours: None,
            across: None,
            copies: None,
        }
    );
}

#[test]
fn record_keeps_k_instances_and_table_rows_survive_the_template() {
    let g = gram("item", 3, 4);
    assert_eq!(g.instances.len(), 3);
    let sizes: Vec<usize> = g.instances.iter().map(|i| g.instance_size(i)).collect();
    assert_eq!(
        sizes,
        [6, 5, 5],
        "tr, three td, a, and a b in the first row"
    );
    for i in &g.instances {
        assert_eq!(g.doc.name(i.root), "tr");
        assert_eq!(i.targets, vec![(i.root, Target::Element)]);
    }
}

#[test]
fn field_context_climbs_to_the_minimum_size_but_not_above_the_parent_instance() {
    let g = gram("item/price", 2, 4);
    assert_eq!(g.instances.len(), 2);
    let i = &g.instances[0];
    assert_eq!(g.doc.name(i.root), "tr", "the row holds 5 elements");
    let (owner, target) = &i.targets[0];
    assert_eq!(g.doc.name(*owner), "td");
    assert_eq!(target, &Target::Element);
    // A minimum larger than the record still stops at the record.
    let g = gram("item/price", 1, 50);
    assert_eq!(g.doc.name(g.instances[0].root), "tr");
}

#[test]
fn top_level_context_stops_below_body() {
    let g = gram("heading", 1, 1000);
    assert_eq!(g.doc.name(g.instances[0].root), "div");
    let g = gram("heading", 1, 2);
    assert_eq!(g.doc.name(g.instances[0].root), "header");
}

#[test]
fn attribute_and_text_targets_are_marked() {
    let g = gram("item/link", 1, 1);
    let (owner, target) = &g.instances[0].targets[0];
    assert_eq!(target, &Target::Attr("href".into()));
    assert!(target.item(&g.doc, *owner).is_some());
    let g = gram("item/note", 1, 1);
    let targets = &g.instances[0].targets;
    assert_eq!(
        targets.len(),
        2,
        "both text nodes of one element are marked"
    );
    let text = |i: usize| {
        let item = targets[i]
            .1
            .item(&g.doc, targets[i].0)
            .expect("the text node");
        item.string_value(&g.doc).trim().to_owned()
    };
    assert_eq!(
        (text(0), text(1)),
        ("first".to_owned(), "second".to_owned())
    );
}

#[test]
fn generated_ids_are_masked_and_scripts_emptied() {
    let (all, _) = captured(1, 1);
    let item = &all.iter().find(|c| c.pattern == "item").unwrap().html;
    assert!(
        item.contains(r#"<tr id="" data-mend-masked="id" data-mend-target="">"#),
        "{item}"
    );
    let g = TreeGram::parse(item.as_bytes()).unwrap();
    let root = g.instances[0].root;
    assert!(g.mask().masks_attr(&g.doc, root, "id"));
    let mut labels = Labels::new();
    let view =
        LabeledTree::build_masked(&g.doc, root, LabelMode::TagId, &g.mask(), &mut labels).unwrap();
    assert_eq!(labels.text(view.label(0)), "tr");
}

#[test]
fn the_file_is_one_element_per_line() {
    let (all, _) = captured(1, 4);
    let price = &all.iter().find(|c| c.pattern == "item/price").unwrap().html;
    let body: Vec<&str> = price
        .lines()
        .skip_while(|l| !l.starts_with("<template"))
        .collect();
    assert_eq!(
        body,
        [
            r#"<template data-mend-instance="1" data-mend-context="instance" data-mend-path="/html/body/div/table/tbody/tr[1]">"#,
            r#"  <tr id="" data-mend-masked="id">"#,
            "    <td>",
            r#"      <a href="/a">A &amp; B</a>"#,
            "    </td>",
            r#"    <td class="price" data-mend-target="">£1.00</td>"#,
            "    <td>",
            "      first",
            "      <b>x</b>",
            "      second",
            "    </td>",
            "  </tr>",
            "</template>",
        ]
    );
}

#[test]
fn unstable_elements_are_marked_and_skipped() {
    let w = wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
    let doc = Document::parse_str(PAGE);
    let hide_links = crate::similarity::MaskFn(|d: &Document, n: NodeId, attr: Option<&str>| {
        attr.is_none() && d.name(n) == "a"
    });
    let options = CaptureOptions {
        url: None,
        sha256: "",
        captured: "",
        instances: 1,
        min_context: 1,
        only: Some(&["item".parse().unwrap()]),
        unstable: &hide_links,
        frame: None,
    };
    let (all, _) = capture(&w, &doc, &options);
    assert_eq!(all.len(), 1);
    let g = TreeGram::parse(all[0].html.as_bytes()).unwrap();
    let mut labels = Labels::new();
    let view = LabeledTree::build_masked(
        &g.doc,
        g.instances[0].root,
        LabelMode::Tag,
        &g.mask(),
        &mut labels,
    )
    .unwrap();
    assert_eq!(view.len(), 5, "tr, three td and b; the link is left out");
}

#[test]
fn not_a_treegram_is_an_error() {
    assert_eq!(
        TreeGram::parse(b"<p>hello</p>").unwrap_err(),
        TreeGramError::NoHeader
    );
    let no_instances = br#"<meta name="mend:pattern" content="a">"#;
    assert_eq!(
        TreeGram::parse(no_instances).unwrap_err(),
        TreeGramError::NoInstances
    );
    let unmarked = br#"<meta name="mend:pattern" content="a"><template data-mend-instance="1"><p></p></template>"#;
    assert_eq!(
        TreeGram::parse(unmarked).unwrap_err(),
        TreeGramError::NoTarget(1)
    );
}

#[test]
fn file_names_are_safe() {
    assert_eq!(
        treegram_file("my shop", &"a/b c".parse().unwrap()),
        "treegrams/my_shop/a/b_c.html"
    );
    assert_eq!(
        treegram_file("..", &"x".parse().unwrap()),
        "treegrams/_/x.html"
    );
}

/// Captures the field at `xpath` on a page of `body`, with contexts of at
/// least `min` elements.
fn capture_field(xpath: &str, body: &str, min: usize) -> (Vec<Captured>, Vec<Skipped>) {
    let text = format!("name: t\npatterns:\n  - name: f\n    xpath: \"{xpath}\"\n");
    let w = wrapper::load_str(&text, "t.yaml").expect("the wrapper loads");
    let doc = Document::parse_str(&format!("<!DOCTYPE html><html><body>{body}</body></html>"));
    let options = CaptureOptions {
        url: None,
        sha256: "",
        captured: "",
        instances: 3,
        min_context: min,
        only: None,
        unstable: &NoMask,
        frame: None,
    };
    capture(&w, &doc, &options)
}

/// Regression: the parser moves an `<h1>` out of a table into the `<h1>`
/// around it, a nesting it would never build from markup. The context was
/// written as it stood, and read back as two sibling headings with the
/// table beside them, outside the instance: `TreeGram::parse` failed with
/// `NoTarget`, so `mend snapshot` wrote a tree-gram that was then skipped.
#[test]
fn a_heading_foster_parented_into_a_heading_is_not_written() {
    let (all, skipped) = capture_field(
        "//table",
        "<h1><table><h1>Sale</h1></table><span>x</span></h1>",
        4,
    );
    assert!(all.is_empty(), "{all:?}");
    assert!(
        skipped[0].reason.contains("would not read back"),
        "{skipped:?}"
    );
}

/// Regression: a `<form>` directly in a `<table>` is kept by the parser as
/// an empty child of the table, but dropped inside a `<template>`, so the
/// tree-gram of the table read back as an empty table, and healing chose
/// another, empty, table on the same page.
#[test]
fn a_form_directly_in_a_table_is_not_lost_from_its_context() {
    let (all, skipped) = capture_field(
        "(//table)[2]",
        "<table></table><table><form></form></table>",
        1,
    );
    assert!(all.is_empty(), "{all:?}");
    assert!(
        skipped[0].reason.contains("would not read back"),
        "{skipped:?}"
    );
}

#[test]
fn only_the_instances_that_would_not_read_back_are_left_out() {
    let text = "name: t\npatterns:\n  - name: card\n    xpath: //div[@class='card']\n    patterns:\n      - name: title\n        xpath: .//h3\n";
    let w = wrapper::load_str(text, "t.yaml").expect("the wrapper loads");
    let body = "<div class=\"card\"><h3>A</h3></div>\
        <div class=\"card\"><h3><table><h3>B</h3></table></h3></div>\
        <div class=\"card\"><h3>C</h3></div>";
    let doc = Document::parse_str(&format!("<!DOCTYPE html><html><body>{body}</body></html>"));
    let options = CaptureOptions {
        url: None,
        sha256: "",
        captured: "",
        instances: 3,
        min_context: 1,
        only: Some(&["card".parse().unwrap()]),
        unstable: &NoMask,
        frame: None,
    };
    let (all, skipped) = capture(&w, &doc, &options);
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(all[0].instances, 2);
    let g = TreeGram::parse(all[0].html.as_bytes()).unwrap();
    let texts: Vec<String> = g
        .instances
        .iter()
        .map(|i| Item::Node(i.root).string_value(&g.doc).trim().to_owned())
        .collect();
    assert_eq!(texts, ["A", "C"]);
    assert_eq!(g.header.matched, 3, "the header still counts every match");
}

/// Regression: a formatting element that the parser reopens inside a
/// `<plaintext>` is an element in a raw-text element, whose content a
/// tree-gram leaves out; as a field's target it was never written, and the
/// file failed to read back with `NoTarget`.
#[test]
fn a_target_inside_a_plaintext_is_not_written_unmarked() {
    let (all, skipped) = capture_field("//plaintext/b", "<p><b>x</p><plaintext>y", 4);
    assert!(all.is_empty(), "{all:?}");
    assert!(
        skipped[0].reason.contains("would not read back"),
        "{skipped:?}"
    );
}

/// What a template learned over two loads of `PAGE` marks: the prices
/// changed (with the values seen), and so did the first row's id.
fn learned_mask(doc: &Document) -> crate::unstable::TemplateMask {
    let mut template = crate::unstable::HtmlTemplate::from_document(doc);
    let next = PAGE
        .replace("£1.00", "£1.10")
        .replace("£2.00", "£2.20")
        .replace("row-83412", "row-90007");
    template.add(&Document::parse_str(&next));
    crate::unstable::TemplateMask::new(&template, doc)
}

#[test]
fn unstable_text_is_marked_with_its_values_and_masked_when_read_back() {
    let w = wrapper::load_str(WRAPPER, "shop.yaml").expect("the wrapper loads");
    let doc = Document::parse_str(PAGE);
    let mask = learned_mask(&doc);
    let options = CaptureOptions {
        instances: 4,
        min_context: 1,
        unstable: &mask,
        ..CaptureOptions::of(&w)
    };
    let (all, _) = capture(&w, &doc, &options);
    let price = all.iter().find(|c| c.pattern == "item/price").unwrap();
    assert!(
        price
            .html
            .contains(r#"<td class="price" data-mend-unstable-text="£1.00||£1.10" data-mend-target="">£1.00</td>"#),
        "{}",
        price.html
    );
    assert!(
        price
            .html
            .contains(r#"<td class="price" data-mend-target="">£3.00</td>"#)
    );
    let g = TreeGram::parse(price.html.as_bytes()).unwrap();
    let texts: Vec<(String, bool, Option<String>)> = g
        .doc
        .all()
        .filter(|&n| g.doc.kind(n) == crate::dom::NodeKind::Text && g.doc.text(n).contains('£'))
        .map(|n| {
            (
                g.doc.text(n).trim().to_owned(),
                GramMask.masks_text(&g.doc, n),
                GramMask.text_values(&g.doc, n),
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            ("£1.00".into(), true, Some("£1.00||£1.10".into())),
            ("£2.00".into(), true, Some("£2.00||£2.20".into())),
            ("£3.00".into(), false, None),
            ("£4.00".into(), false, None),
        ]
    );
    // No locator leans on the row's id that changed.
    let heading = all.iter().find(|c| c.pattern == "item").unwrap();
    assert!(
        heading.html.contains(r#"data-mend-masked="id""#),
        "{}",
        heading.html
    );
    assert!(!heading.html.contains("row-83412"), "{}", heading.html);
}

#[test]
fn unstable_parts_cover_a_skipped_sub_tree_and_masked_texts_and_attributes() {
    let doc =
        Document::parse_str(r#"<div id="a" title="x"><p>one <b>two</b></p><i>three</i></div>"#);
    let find = |name: &str| {
        doc.all()
            .find(|&n| doc.is_element(n) && doc.name(n) == name)
            .unwrap()
    };
    let (div, p, i) = (find("div"), find("p"), find("i"));
    let mask = crate::similarity::MaskFn(move |_: &Document, n: NodeId, attr: Option<&str>| {
        (n == p && attr.is_none()) || (n == div && attr == Some("title"))
    });
    let parts = unstable_parts(&doc, &mask);
    let text_of = |e: NodeId| {
        doc.children(e)
            .find(|&c| doc.kind(c) == crate::dom::NodeKind::Text)
    };
    assert!(parts.text(text_of(p).unwrap()));
    assert!(parts.text(text_of(find("b")).unwrap()));
    assert!(!parts.text(text_of(i).unwrap()));
    assert!(parts.attr(div, "title"));
    assert!(!parts.attr(div, "id"));
}

#[test]
fn whether_the_markup_hid_the_targets_is_kept_in_the_header() {
    let w = wrapper::load_str(
        "name: s\npatterns:\n  - name: shown\n    xpath: //p\n  - name: hidden\n    xpath: //span\n",
        "s.yaml",
    )
    .expect("the wrapper loads");
    let doc = Document::parse_str(
        "<!DOCTYPE html><html><body><p>Shown</p><div style='display:none'><span>Hidden</span></div></body></html>",
    );
    let hidden = |pattern: &str| {
        let (all, _) = capture(&w, &doc, &CaptureOptions::of(&w));
        let c = all.iter().find(|c| c.pattern == pattern).unwrap();
        TreeGram::parse(c.html.as_bytes()).unwrap().header.hidden
    };
    assert_eq!(hidden("shown"), Some(false));
    assert_eq!(hidden("hidden"), Some(true));
    // A tree-gram written before mend read it says nothing either way.
    let (all, _) = capture(&w, &doc, &CaptureOptions::of(&w));
    let old = all[0]
        .html
        .replace("<meta name=\"mend:hidden\" content=\"no\">\n", "");
    assert_eq!(TreeGram::parse(old.as_bytes()).unwrap().header.hidden, None);
}

/// A details cell large enough to be its own context: the texts of its row
/// are kept in the header, read back as written, and a field whose context
/// holds its neighbours keeps none there.
#[test]
fn a_cell_that_is_its_own_context_keeps_its_neighbours_in_the_header() {
    let body = "<table><tr><td><b>Format:</b> Paperback<br><b>Vendor:</b> Augsburg<br>\
                <b>Pages:</b> 96</td><td><b>ISBN:</b> 0800601092<br><b>Stock:</b> 4</td></tr>\
                </table><p>Other</p>";
    let (all, _) = capture_field("//td[1]", body, 4);
    let g = TreeGram::parse(all[0].html.as_bytes()).unwrap();
    assert_eq!(
        g.doc.name(g.instances[0].root),
        "td",
        "the cell is its own context"
    );
    let n = g.header.neighbours.expect("the row's texts");
    assert_eq!(n.levels, 1);
    assert_eq!(
        n.texts,
        ["ISBN:", "0800601092", "Stock:"],
        "a lone digit says nothing"
    );
    assert!(
        all[0]
            .html
            .contains("<meta name=\"mend:neighbour\" data-levels=\"1\"")
    );
    // With a larger minimum, the row is the context and holds them.
    let (all, _) = capture_field("//td[1]", body, 12);
    let g = TreeGram::parse(all[0].html.as_bytes()).unwrap();
    assert_ne!(g.doc.name(g.instances[0].root), "td");
    assert_eq!(g.header.neighbours, None);
}

#[test]
fn copies_of_the_target_are_counted_only_when_it_has_some() {
    let copies = |xpath: &str, body: &str| {
        let (captured, _) = capture_field(xpath, body, 1);
        TreeGram::parse(captured[0].html.as_bytes())
            .expect("it reads back")
            .header
            .copies
    };
    let page = "<main><h2>Lead story</h2></main><aside><h2>Lead  story</h2><h2>Other</h2></aside>";
    assert_eq!(copies("//main/h2", page), Some(2));
    assert_eq!(copies("//aside/h2[2]", page), None);
    // A link's target is compared by the attribute selected, not its text.
    let links = "<a href=\"/x\">One</a><a href=\"/x\">Two</a><a href=\"/y\">Three</a>";
    assert_eq!(copies("//a[1]/@href", links), Some(2));
}
