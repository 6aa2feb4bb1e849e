use url::Url;

use super::*;
use crate::dom::{Document, NodeId};

/// A page of the site: the same header, menu and footer, and `content` in
/// the main column.
fn page(title: &str, content: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
         <header class=\"top\"><a class=\"logo\" href=\"/\">Books</a>\
         <nav id=\"menu\"><ul><li><a href=\"/new\">New</a></li><li><a href=\"/sale\">Sale</a></li>\
         <li><a href=\"/help\">Help</a></li></ul></nav></header>\
         <div id=\"main\"><h1>{title}</h1>{content}</div>\
         <footer><p class=\"legal\">© Books Ltd</p></footer></body></html>"
    )
}

fn docs() -> Vec<Document> {
    [
        page("New", "<ul class=\"list\"><li>A</li><li>B</li></ul>"),
        page(
            "Sale",
            "<p>Half price</p><table><tr><td>X</td></tr></table>",
        ),
        page("Help", "<p>Ask us</p>"),
        page("Contact", "<form><input name=\"q\"></form><p>Write</p>"),
    ]
    .iter()
    .map(|h| Document::parse_str(h))
    .collect()
}

fn first(doc: &Document, tag: &str) -> NodeId {
    doc.all()
        .find(|&n| doc.is_element(n) && doc.name(n) == tag)
        .unwrap_or_else(|| panic!("no {tag}"))
}

#[test]
fn the_template_is_what_every_page_shares() {
    let docs = docs();
    let others: Vec<&Document> = docs[1..].iter().collect();
    let template = SiteTemplate::learn(&docs[0], &others);
    let html = template.to_html();
    assert!(html.contains("mend site template of 4 pages"), "{html}");
    assert!(html.contains("<nav id=\"menu\">"), "{html}");
    assert!(html.contains("<a href=\"/sale\">Sale</a>"), "{html}");
    assert!(
        html.contains("<p class=\"legal\">© Books Ltd</p>"),
        "{html}"
    );
    // The main column holds as many children as each page has content:
    // it is a placeholder, in its place among the body's children.
    assert!(
        html.contains("<div data-mend-content=\"\"></div>"),
        "{html}"
    );
    assert!(
        !html.contains("Half price") && !html.contains(">A<"),
        "{html}"
    );
    // The title's text differs: it is the page's, a placeholder.
    assert!(
        html.contains("<title data-mend-content=\"\"></title>"),
        "{html}"
    );
    assert_eq!(template.pages(), 4);

    let fifth = Document::parse_str(&page("Gifts", "<p>Wrapping</p><p>Cards</p>"));
    let regions = template.regions(&fifth);
    assert_eq!(regions.coverage(), 1.0, "{regions:?}");
    assert!(regions.contains(first(&fifth, "nav")));
    assert!(regions.contains(first(&fifth, "footer")));
    assert!(
        !regions.contains(first(&fifth, "p")),
        "the content is the page's"
    );
}

#[test]
fn the_file_reads_back_to_the_same_template() {
    let docs = docs();
    let others: Vec<&Document> = docs[1..].iter().collect();
    let template = SiteTemplate::learn(&docs[0], &others);
    let back = SiteTemplate::from_html(&template.to_html());
    assert_eq!(back.to_html(), template.to_html());
    assert_eq!(back.elements(), template.elements());
    let fifth = Document::parse_str(&page("Gifts", "<p>Wrapping</p>"));
    assert_eq!(back.regions(&fifth), template.regions(&fifth));
}

#[test]
fn a_redesigned_header_lowers_the_coverage_and_leaves_the_rest() {
    let docs = docs();
    let others: Vec<&Document> = docs[1..].iter().collect();
    let template = SiteTemplate::learn(&docs[0], &others);
    let redesigned = page("Gifts", "<p>Wrapping</p>")
        .replace("<nav id=\"menu\">", "<nav id=\"menu\" class=\"mega\">");
    let doc = Document::parse_str(&redesigned);
    let regions = template.regions(&doc);
    // The menu's eight elements of the template's fifteen are lost.
    assert_eq!(regions.mapped, 7, "{regions:?}");
    assert_eq!(regions.template_elements, 15, "{regions:?}");
    assert!(!regions.contains(first(&doc, "nav")));
    assert!(regions.contains(first(&doc, "footer")));
}

#[test]
fn a_page_maps_wholly_onto_itself() {
    for d in docs() {
        let elements = d.all().filter(|&n| d.is_element(n)).count();
        let map = equal_top_down_mapping(&d, &d);
        assert_eq!(map.len(), elements);
        assert!(map.iter().all(|(a, b)| a == b));
    }
}

#[test]
fn a_deep_page_does_not_overflow_the_stack() {
    let depth = 100_000;
    let html = format!("{}x{}", "<div>".repeat(depth), "</div>".repeat(depth));
    let a = Document::parse_str(&html);
    let b = Document::parse_str(&html);
    let template = SiteTemplate::learn(&a, &[&b]);
    assert!(template.elements() > 1_000);
    assert!(template.regions(&b).coverage() > 0.99);
}

fn url(s: &str) -> Url {
    Url::parse(&format!("https://books.example{s}")).unwrap()
}

#[test]
fn the_subdigraph_takes_pages_that_all_link_to_each_other() {
    // The menu pages link to each other, home and a book; the book does
    // not link back home; /about links back home, but the menu pages do
    // not link to it; /x is another site.
    let menu = ["/", "/new", "/sale", "/help"];
    let links_of = |page: &str| -> Vec<Url> {
        match page {
            "/new" | "/sale" | "/help" => {
                let mut l: Vec<Url> = menu.iter().map(|m| url(m)).collect();
                l.push(url("/book/1"));
                l
            }
            "/book/1" => vec![url("/sale")],
            "/about" => vec![url("/"), url("/sale")],
            _ => Vec::new(),
        }
    };
    let key_links: Vec<Url> = vec![
        url("/book/1"),
        Url::parse("https://elsewhere.example/x").unwrap(),
        url("/new#top"),
        url("/about"),
        url("/sale"),
        url("/help"),
    ];
    let mut asked = Vec::new();
    let sub = complete_subdigraph(&url("/"), &key_links, 4, |u| {
        asked.push(u.path().to_owned());
        Some(links_of(u.path()))
    });
    assert_eq!(
        sub.pages.iter().map(|u| u.path()).collect::<Vec<_>>(),
        ["/", "/new", "/sale", "/help"]
    );
    // The book does not link back home; /about does, but the menu pages do
    // not link to it: both cost a load and are left out.
    assert_eq!(asked, ["/book/1", "/new", "/about", "/sale", "/help"]);
    assert_eq!(sub.loaded, 5);
}

#[test]
fn a_page_that_links_back_home_only_does_not_block_the_menu() {
    // Home links first to a product that links back home (and nowhere
    // else), then to the menu pages, which link to each other.
    let menu = ["/", "/a", "/b", "/c"];
    let key_links: Vec<Url> = ["/product", "/a", "/b", "/c"]
        .iter()
        .map(|p| url(p))
        .collect();
    let sub = complete_subdigraph(&url("/"), &key_links, 4, |u| {
        Some(match u.path() {
            "/product" => vec![url("/")],
            _ => menu.iter().map(|m| url(m)).collect(),
        })
    });
    assert_eq!(
        sub.pages.iter().map(|u| u.path()).collect::<Vec<_>>(),
        ["/", "/a", "/b", "/c"]
    );
    assert_eq!(sub.loaded, 4);
    // With fewer pages than asked for, the largest set found is given.
    let sub = complete_subdigraph(&url("/"), &key_links[..2], 4, |_| Some(vec![url("/")]));
    assert_eq!(sub.pages.len(), 2);
}
