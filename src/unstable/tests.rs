use proptest::prelude::*;

use super::*;
use crate::dom::Document;
use crate::similarity::Mask;
use crate::xpath::{Value, XPath};

fn doc(html: &str) -> Document {
    Document::parse_str(html)
}

/// The template of `loads`, added one after another.
fn learned(loads: &[&str]) -> HtmlTemplate {
    let mut template = HtmlTemplate::from_document(&doc(loads[0]));
    for load in &loads[1..] {
        template.add(&doc(load));
    }
    template
}

/// The usajobs event card of the Demodocus paper, on a given date.
fn event_card(date: &str, title: &str) -> String {
    format!(
        "<html><body><div class='event-card'><span class='date'>{date}</span>\
         <h3><a href='/events/1'>{title}</a></h3><p>Online</p></div></body></html>"
    )
}

/// The texts of a template that are unstable, with their values.
fn unstable_texts(template: &HtmlTemplate) -> Vec<String> {
    template
        .nodes()
        .filter(|(_, n)| n.name.is_none() && n.text.is_unstable())
        .map(|(_, n)| n.text.values())
        .collect()
}

#[test]
fn the_event_cards_date_is_unstable_with_every_value_seen_then_updated() {
    let title = "Federal Resume Writing";
    let mut template = learned(&[&event_card("Jul 23", title), &event_card("Jun 8", title)]);
    assert_eq!(template.loads(), 2);
    assert_eq!(unstable_texts(&template), ["Jul 23||Jun 8"]);
    // Another date is still the same page; another title is not.
    assert_eq!(template.matches(&doc(&event_card("Sep 1", title))), Ok(()));
    let other = template
        .matches(&doc(&event_card("Sep 1", "Interview Skills")))
        .unwrap_err();
    assert_eq!(other.path, "/html/body/div/h3/a/text()");
    // UPDATE with a page known to have changed: the date stays unstable
    // with its values, the title is refreshed and stable.
    template.update(&doc(&event_card("Aug 15", "Interview Skills")));
    assert_eq!(unstable_texts(&template), ["Jul 23||Jun 8||Aug 15"]);
    assert_eq!(
        template.matches(&doc(&event_card("Oct 2", "Interview Skills"))),
        Ok(())
    );
    assert!(template.matches(&doc(&event_card("Oct 2", title))).is_err());
}

#[test]
fn the_clock_and_its_changing_attribute_are_unstable() {
    let clock = |time: &str, stamp: &str| {
        format!(
            "<html><body><h1>Official U.S. time</h1>\
             <div id='myTime' data-ts='{stamp}' class='clock'>{time}</div></body></html>"
        )
    };
    let template = learned(&[
        &clock("12:01:05", "1"),
        &clock("12:01:06", "2"),
        &clock("12:01:09", "3"),
    ]);
    assert_eq!(unstable_texts(&template), ["12:01:05||12:01:06||12:01:09"]);
    let (_, div) = template
        .nodes()
        .find(|(_, n)| n.name.as_deref() == Some("div"))
        .unwrap();
    let unstable: Vec<&str> = div
        .attrs
        .iter()
        .filter(|(_, c)| c.is_unstable())
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(unstable, ["data-ts"]);
    let page = doc(&clock("18:30:00", "99"));
    assert_eq!(template.matches(&page), Ok(()));
    // Laid over a later load, the clock's text and its stamp are masked,
    // its id and class are not.
    let mask = TemplateMask::new(&template, &page);
    let node = |xpath: &str| match XPath::compile(xpath)
        .unwrap()
        .evaluate(&page, crate::dom::NodeId::ROOT)
        .unwrap()
    {
        Value::Nodes(items) => items[0].owner(),
        other => panic!("{other:?}"),
    };
    let (clock, time, heading) = (node("//div"), node("//div/text()"), node("//h1/text()"));
    assert!(mask.masks_attr(&page, clock, "data-ts"));
    assert!(!mask.masks_attr(&page, clock, "id"));
    assert!(mask.is_unstable_text(&page, time));
    assert!(!mask.is_unstable_text(&page, heading));
    assert_eq!(mask.counts(), (0, 1, 1));
}

#[test]
fn a_changed_attribute_or_a_new_one_is_a_mismatch() {
    let template = learned(&["<div class='a' id='x'><p>1</p></div>"]);
    let check = |html: &str, expected: Option<&str>| {
        assert_eq!(
            template.matches(&doc(html)).err().map(|m| m.why),
            expected.map(str::to_owned),
            "{html}"
        );
    };
    check("<div id='x' class='a'><p>1</p></div>", None);
    check(
        "<div class='b' id='x'><p>1</p></div>",
        Some("class=\"b\", not \"a\""),
    );
    check("<div class='a'><p>1</p></div>", Some("no attribute id"));
    check(
        "<div class='a' id='x' title='t'><p>1</p></div>",
        Some("an attribute title it never had"),
    );
    check(
        "<div class='a' id='x'><p>1</p><p>2</p></div>",
        Some("its children differ"),
    );
}

#[test]
fn children_match_in_any_order() {
    let template = learned(&["<ul><li>tea</li><li>coffee</li></ul><p>menu</p>"]);
    assert_eq!(
        template.matches(&doc("<p>menu</p><ul><li>coffee</li><li>tea</li></ul>")),
        Ok(())
    );
}

#[test]
fn rotating_teasers_make_their_container_unstable_and_are_masked() {
    let teasers = |items: &[&str]| {
        let lis: String = items.iter().map(|i| format!("<li>{i}</li>")).collect();
        format!("<html><body><h1>News</h1><ul class='teasers'>{lis}</ul></body></html>")
    };
    let template = learned(&[&teasers(&["a", "b"]), &teasers(&["c", "d", "e"])]);
    let (_, ul) = template
        .nodes()
        .find(|(_, n)| n.name.as_deref() == Some("ul"))
        .unwrap();
    assert!(ul.unstable_children);
    assert_eq!(template.matches(&doc(&teasers(&["x"]))), Ok(()));
    let page = doc(&teasers(&["f", "g", "h", "i"]));
    let mask = TemplateMask::new(&template, &page);
    assert_eq!(mask.counts(), (4, 0, 0));
    let html = template.to_html();
    assert!(
        html.contains("<ul class=\"teasers\" data-mend-unstable=\"\">"),
        "{html}"
    );
}

#[test]
fn the_template_file_is_readable_and_reads_back() {
    let template = learned(&[
        &event_card("Jul 23", "Resumes &amp; &lt;you&gt;"),
        &event_card("Jun 8", "Resumes &amp; &lt;you&gt;"),
    ]);
    let html = template.to_html();
    for line in [
        "  <body>",
        "    <div class=\"event-card\">",
        "      <span class=\"date\">",
        "        <mend-unstable values=\"Jul 23||Jun 8\"></mend-unstable>",
        "          Resumes &amp; &lt;you&gt;",
    ] {
        assert!(html.lines().any(|l| l == line), "{line:?} not in\n{html}");
    }
    let back = HtmlTemplate::from_html(&html);
    assert_eq!(back.loads(), 2);
    assert_eq!(back.to_html(), html);
    assert_eq!(unstable_texts(&back), ["Jul 23||Jun 8"]);
}

#[test]
fn a_deep_nest_is_walked_without_recursion() {
    let depth = 100_000;
    let html = format!("{}x{}", "<div>".repeat(depth), "</div>".repeat(depth));
    let other = format!("{}y{}", "<div>".repeat(depth), "</div>".repeat(depth));
    let mut template = learned(&[&html]);
    template.add(&doc(&other));
    assert_eq!(unstable_texts(&template), ["x||y"]);
    assert_eq!(template.matches(&doc(&html)), Ok(()));
    let page = doc(&other);
    assert_eq!(TemplateMask::new(&template, &page).counts().2, 1);
    template.update(&page);
    let written = template.to_html();
    assert_eq!(HtmlTemplate::from_html(&written).to_html(), written);
}

/// Random small pages: nested elements of a few names, some with a class,
/// some with text.
fn arb_page() -> impl Strategy<Value = String> {
    let node = (0u8..4, 0u8..4, 0u8..3, 0u8..5);
    prop::collection::vec(node, 1..40).prop_map(|nodes| {
        let mut html = String::from("<html><body>");
        let mut open = Vec::new();
        for (tag, class, text, close) in nodes {
            let name = ["div", "p", "span", "li"][tag as usize];
            match class {
                0 => html.push_str(&format!("<{name}>")),
                c => html.push_str(&format!("<{name} class='k{c}'>")),
            }
            if text > 0 {
                html.push_str(&format!("t{text}"));
            }
            open.push(name);
            for _ in 0..close.min(open.len() as u8) {
                html.push_str(&format!("</{}>", open.pop().unwrap_or("div")));
            }
        }
        html
    })
}

proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
    #[test]
    fn a_page_matches_its_own_template_and_adding_it_again_changes_nothing(page in arb_page()) {
        let d = doc(&page);
        let mut template = HtmlTemplate::from_document(&d);
        prop_assert_eq!(template.matches(&d), Ok(()));
        let before = template.to_html();
        template.add(&d);
        prop_assert_eq!(template.to_html().replace("template of 2", "template of 1"), before);
        prop_assert!(template.nodes().all(|(_, n)| !n.unstable_children
            && !n.text.is_unstable()
            && n.attrs.iter().all(|(_, c)| !c.is_unstable())));
    }

    #[test]
    fn a_template_matches_every_load_it_learned(a in arb_page(), b in arb_page()) {
        let mut template = HtmlTemplate::from_document(&doc(&a));
        template.add(&doc(&b));
        prop_assert_eq!(template.matches(&doc(&a)), Ok(()));
        prop_assert_eq!(template.matches(&doc(&b)), Ok(()));
        let written = template.to_html();
        prop_assert_eq!(HtmlTemplate::from_html(&written).to_html(), written);
    }
}

#[test]
fn texts_below_a_skipped_deep_nest_are_unstable_without_walking_their_ancestors() {
    // The slot's children came and went between the loads: everything in
    // it is unstable, down to the text at the bottom of a deep nest.
    let depth = 50_000;
    let nest = format!(
        "{}deep text{}",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let a = Document::parse_str(&format!(
        "<main><section id=\"slot\">{nest}</section></main>"
    ));
    let b = Document::parse_str("<main><section id=\"slot\"><p>x</p><p>y</p></section></main>");
    let mut template = HtmlTemplate::from_document(&a);
    template.add(&b);
    let mask = TemplateMask::new(&template, &a);
    let deepest = a
        .all()
        .rfind(|&n| a.kind(n) == crate::dom::NodeKind::Text)
        .unwrap();
    assert!(mask.is_unstable_text(&a, deepest));
    // One skipped element (the nest's root); no text unstable in its own right.
    assert_eq!(mask.counts(), (1, 0, 0));
    let parts = crate::treegram::unstable_parts(&a, &mask);
    assert!(parts.text(deepest));
}

#[test]
fn a_class_unstable_on_one_sibling_does_not_blur_the_others() {
    // The second load has a `p` whose class came; that class is unstable on
    // that `p` alone, so its stable siblings still pair by their own class
    // and text, and the template matches both loads it learned.
    let a = "<html><body><div></div><li><li></li><div></div><span></span>\
             <p class='k2'>t2</p><span></span><div></div><span></span><li></li><p><p>";
    let b = "<html><body><span></span><div></div><div></div><li></li><p>t2</p><span></span>\
             <div><div></div></div><li></li><p class='k1'></p><span><div></div></span><li></li>\
             <p class='k2'>t2";
    let template = learned(&[a, b]);
    assert_eq!(template.matches(&doc(a)), Ok(()));
    assert_eq!(template.matches(&doc(b)), Ok(()));
}

/// Both loads `a` and `b` match the template learned from them.
fn check_learned_loads_match(a: &str, b: &str) {
    let mut template = HtmlTemplate::from_document(&doc(a));
    template.add(&doc(b));
    assert_eq!(template.matches(&doc(a)), Ok(()), "{}", template.to_html());
    assert_eq!(template.matches(&doc(b)), Ok(()), "{}", template.to_html());
}

#[test]
fn an_empty_span_whose_class_came_and_went_leaves_a_span_with_children_to_its_own() {
    // The last `span` of `a` is empty and paired with `b`'s classed span,
    // so its class came and went; with the class masked it also keyed
    // like `a`'s `span class=k2` that holds a `div`, and took it.
    check_learned_loads_match(
        "<html><body><div><div></div></div><p></p><span>t1</span><span class='k2'><div></div></span>\
         <span></span><span></span><li><div></div></li><span>",
        "<html><body><span></span><li></li><span>t1</span><div></div><span>t1</span><p></p>\
         <span class='k1'></span><span><div>",
    );
}

#[test]
fn children_masked_in_different_ways_do_not_take_each_others_loads() {
    // One `p` keeps its class but its children came and went; two others
    // keep their children but their class came and went. Served in a fixed
    // order, the two took both `p class=k3` of `a` and left the first the
    // `p class=k1` it rejects.
    check_learned_loads_match(
        "<html><body><div></div><div></div><div></div><li></li><p class='k3'></p><div><div><div></div>\
         </div></div><div><div></div></div><li><li><div></div></li><span></span><span></span>\
         <p class='k3'><p></p><span></span><li><div></div></li><div></div><div></div><p class='k1'>\
         </p><li></li><p></p><span></span></p>",
        "<html><body><div></div><div></div><span></span><li></li><p class='k3'>t1<p class='k2'></p>\
         <div><div></div></div><div></div><li></li><span></span><li><li></li><div><div></div></div>\
         <p><li></li><span></span><div></div><div></div><p class='k2'></p></p></li></p><span>",
    );
}
