//! The links of a page: what the wrapper's `follow` XPaths select, else
//! every `<a href>`, resolved against the page (its `<base href>` first) and
//! normalised, so that one URL is one frontier entry however it is written.
//!
//! It refuses nothing but what is not an http(s) link (`javascript:`,
//! `mailto:`, fragments of the same page, text that is no URL).

use url::Url;

use crate::dom::{Document, NodeId};
use crate::extract::page_base;
use crate::site;
use crate::xpath::{Item, XPath};

/// The links of `doc`, fetched from `page`: the results of `follow`, or
/// every `<a href>` when it is empty; in document order, each once.
pub fn links_of(doc: &Document, page: &Url, follow: &[XPath]) -> Vec<Url> {
    let base = page_base(doc, Some(page)).unwrap_or_else(|| page.clone());
    let mut hrefs: Vec<String> = Vec::new();
    if follow.is_empty() {
        for node in doc.descendants(NodeId::ROOT) {
            if doc.name(node) == "a"
                && let Some(href) = doc.attr(node, "href")
            {
                hrefs.push(href.to_owned());
            }
        }
    } else {
        for xpath in follow {
            let Ok(items) = xpath.select(doc, NodeId::ROOT) else {
                continue;
            };
            for item in items {
                let text = match item {
                    // An element stands for its link: href, else src.
                    Item::Node(node) if doc.is_element(node) => {
                        match doc.attr(node, "href").or_else(|| doc.attr(node, "src")) {
                            Some(v) => v.to_owned(),
                            None => continue,
                        }
                    }
                    other => other.string_value(doc),
                };
                hrefs.push(text);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    hrefs
        .iter()
        .filter_map(|h| site::resolve(&base, h.trim()))
        .filter(|u| seen.insert(u.as_str().to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(html: &str, follow: &[&str], expected: &[&str]) {
        let doc = Document::parse(html.as_bytes());
        let follow: Vec<XPath> = follow.iter().map(|x| XPath::compile(x).unwrap()).collect();
        let page = Url::parse("http://h.test/blog/").unwrap();
        let found: Vec<String> = links_of(&doc, &page, &follow)
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn every_anchor_is_a_link_resolved_and_normalised_once() {
        check(
            "<a href='a#x'>1</a><a href='/b?utm_source=z'>2</a><a href='a'>3</a>\
             <a href='mailto:x@y'>4</a><a href='javascript:void(0)'>5</a><a>6</a>",
            &[],
            &["http://h.test/blog/a", "http://h.test/b"],
        );
    }

    #[test]
    fn follow_xpaths_select_elements_or_values() {
        check(
            "<a class='next' href='/page/2/'>n</a><a href='/other'>o</a>\
             <div data-url='/d/1'></div><link rel='next' href='/page/3/'>",
            &[
                "//a[@class='next']",
                "//div/@data-url",
                "//link[@rel='next']",
            ],
            &[
                "http://h.test/page/2/",
                "http://h.test/d/1",
                "http://h.test/page/3/",
            ],
        );
    }

    #[test]
    fn a_base_href_comes_first() {
        check(
            "<base href='http://cdn.test/x/'><a href='y'>y</a>",
            &[],
            &["http://cdn.test/x/y"],
        );
    }
}
