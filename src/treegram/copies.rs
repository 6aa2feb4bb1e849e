//! Copies of a target: the elements of a page that look exactly like it,
//! the same tag with the same text (or, for an attribute target, the same
//! attribute value).
//!
//! A capture counts them on its page (`<meta name="mend:copies">`). When a
//! later page holds fewer, one of them is gone, and a candidate that looks
//! exactly like the target is more likely a copy that outlived it (the
//! target deleted, or its text edited) than the target itself: a teaser
//! that repeats a headline, a logo in the header and in the footer. The
//! heal model weighs that as one feature among the others.
//!
//! ## What it refuses
//!
//! A target without text (or with an empty attribute value) has no
//! signature: every image would be a copy of every other. Counting goes
//! through the document's indexes of texts and attribute values, so the
//! patterns of a large wrapper asking it of one page do not each walk it;
//! checking one element reads its text no further than its first
//! difference from the signature's.

use crate::dom::{AttrQuery, Document, NodeId};
use crate::xpath::normalize_space;

use super::Target;

/// What makes an element a copy of a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    tag: String,
    /// The attribute compared, for an attribute target; the text otherwise.
    attr: Option<String>,
    /// The attribute's value, or the text with its whitespace normalised.
    value: String,
}

impl Signature {
    /// The signature of `target` of the element `element` of `doc`; `None`
    /// when what it compares is empty.
    pub fn of(doc: &Document, element: NodeId, target: &Target) -> Option<Signature> {
        if !doc.is_element(element) {
            return None;
        }
        let (attr, value) = match target {
            Target::Attr(name) => (
                Some(name.clone()),
                doc.attr(element, name).unwrap_or_default().to_owned(),
            ),
            Target::Element | Target::Text(_) => {
                (None, normalize_space(&doc.string_value(element)))
            }
        };
        (!value.trim().is_empty()).then(|| Signature {
            tag: doc.name(element).to_owned(),
            attr,
            value,
        })
    }

    /// Whether the element `node` of `doc` has this signature.
    pub fn fits(&self, doc: &Document, node: NodeId) -> bool {
        doc.is_element(node) && doc.name(node) == self.tag && self.value_fits(doc, node)
    }

    /// How many elements of `doc` have this signature, found through the
    /// document's indexes of texts and attribute values, so that every
    /// pattern of a wrapper asking it of one page costs a lookup each.
    pub fn count(&self, doc: &Document) -> usize {
        let Some(tag) = doc.sym(&self.tag) else {
            return 0;
        };
        match &self.attr {
            Some(name) => {
                let Some(attr) = doc.sym(name) else {
                    return 0;
                };
                let root = NodeId(0);
                doc.elements_with_attr(
                    attr,
                    AttrQuery::Value(&self.value),
                    root,
                    doc.subtree_end(root),
                )
                .filter(|&e| doc.name_sym(e) == tag)
                .count()
            }
            None => doc.elements_with_text(tag, &self.value).count(),
        }
    }

    fn value_fits(&self, doc: &Document, node: NodeId) -> bool {
        match &self.attr {
            Some(name) => doc.attr(node, name) == Some(self.value.as_str()),
            None => doc.normalized_text_is(node, &self.value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xpath::{Item, XPath};

    fn first(doc: &Document, xpath: &str) -> NodeId {
        let items = XPath::compile(xpath)
            .unwrap()
            .select_item(doc, Item::Node(doc.root()))
            .unwrap();
        items[0].owner()
    }

    fn check(html: &str, target: &str, how: Target, expected: Option<usize>) {
        let doc = Document::parse(html.as_bytes());
        let signature = Signature::of(&doc, first(&doc, target), &how);
        assert_eq!(signature.map(|s| s.count(&doc)), expected, "{html}");
    }

    #[test]
    fn counts_elements_of_the_same_tag_and_text() {
        let page = "<h2>Lead  story</h2><p><a>Lead story</a></p><h2> Lead\nstory </h2>\
                    <h2>Lead <b>story</b></h2><h2>Lead story, again</h2><h2>Lead</h2>";
        check(page, "//h2", Target::Element, Some(3));
        check(page, "//a", Target::Element, Some(1));
    }

    #[test]
    fn compares_an_attribute_target_by_its_value() {
        let page =
            "<img src=\"/logo.png\"><p><img src=\"/logo.png\" alt=\"x\"></p><img src=\"/a.png\">";
        check(page, "//img", Target::Attr("src".into()), Some(2));
    }

    #[test]
    fn a_target_without_text_has_no_signature() {
        check("<img src=a><img src=b>", "//img", Target::Element, None);
        check("<p> </p><p></p>", "//p", Target::Element, None);
    }

    #[test]
    fn text_split_over_nodes_compares_as_one() {
        let doc = Document::parse(b"<p>Ab<i>c</i> d</p><p>Abc  d</p><p>Abcd</p><p>Abc d e</p>");
        let signature = Signature::of(&doc, first(&doc, "//p"), &Target::Element).unwrap();
        let fits: Vec<bool> = (0..4)
            .map(|i| signature.fits(&doc, first(&doc, &format!("//p[{}]", i + 1))))
            .collect();
        assert_eq!(fits, [true, true, false, false]);
    }
}
