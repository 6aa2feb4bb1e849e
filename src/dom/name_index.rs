//! Elements by name: for each element name of a document, the ids of the
//! elements that carry it, in document order.
//!
//! `//p[…]` over a page of 60,000 elements visits every node of the page
//! (some 150,000 with the text nodes) to find its few thousand `p`
//! elements. Healing asks dozens of such questions of one page (each locator
//! of a tree-gram, each XPath the generator tries), so the index is built
//! once, on the first large question, and each later one reads only the ids
//! of its name that fall within its range.
//!
//! The index is compressed rows: one array of ids, grouped by name in symbol
//! order, and for each symbol where its group starts. Building it is two
//! passes over the nodes; it holds four bytes per element and four per name.
//!
//! ## What it refuses
//!
//! A symbol the document does not have, or one that names only attributes,
//! gives no ids, and so does an empty or reversed range; none of these
//! panics. Names are matched by interned symbol, exactly as the parser
//! wrote them, with no case folding.

use super::{Document, NodeId, Sym};

/// The elements of one document, grouped by name.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameIndex {
    /// Where the ids of symbol `s` start in `ids`; one more entry than there
    /// are symbols, so that `starts[s + 1]` ends them.
    starts: Vec<u32>,
    /// The element ids, grouped by name, each group in document order.
    ids: Vec<u32>,
}

impl NameIndex {
    /// The index of `doc`'s elements.
    pub(crate) fn build(doc: &Document) -> NameIndex {
        let symbols = doc.names().len();
        let mut starts = vec![0u32; symbols + 1];
        for n in doc.all().filter(|&n| doc.is_element(n)) {
            starts[doc.name_sym(n).0 as usize + 1] += 1;
        }
        for s in 1..starts.len() {
            starts[s] += starts[s - 1];
        }
        let mut next = starts.clone();
        let mut ids = vec![0u32; starts[symbols] as usize];
        // Nodes are visited in document order, so each group fills in order.
        for n in doc.all().filter(|&n| doc.is_element(n)) {
            let slot = &mut next[doc.name_sym(n).0 as usize];
            ids[*slot as usize] = n.0;
            *slot += 1;
        }
        NameIndex { starts, ids }
    }

    /// The ids of the elements named `sym` within `from..end`, in document
    /// order; none for a symbol the document does not have.
    pub(crate) fn within(&self, sym: Sym, from: NodeId, end: NodeId) -> &[u32] {
        let s = sym.0 as usize;
        let Some(group) = self
            .starts
            .get(s)
            .zip(self.starts.get(s + 1))
            .and_then(|(&a, &b)| self.ids.get(a as usize..b as usize))
        else {
            return &[];
        };
        let lo = group.partition_point(|&id| id < from.0);
        let hi = group.partition_point(|&id| id < end.0);
        &group[lo..hi.max(lo)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids of `name`'s elements within `from..end` by the index, and by
    /// a plain walk: they must agree.
    fn check(html: &str, name: &str, from: u32, end: u32, expected: &[u32]) {
        let doc = Document::parse_str(html);
        let index = NameIndex::build(&doc);
        let sym = doc.names().get(name).expect("the name is on the page");
        let by_index = index.within(sym, NodeId(from), NodeId(end)).to_vec();
        let by_walk: Vec<u32> = (from..end.min(doc.all().len() as u32))
            .filter(|&x| doc.is_element(NodeId(x)) && doc.name_sym(NodeId(x)) == sym)
            .collect();
        assert_eq!(by_index, by_walk, "{name} in {from}..{end}");
        assert_eq!(by_index, expected, "{name} in {from}..{end}");
    }

    const PAGE: &str =
        "<html><body><p>a</p><div><p>b</p><span>c</span><p>d</p></div><p>e</p></body></html>";

    #[test]
    fn each_name_gives_its_elements_in_document_order() {
        // 0 document, 1 html, 2 head, 3 body, 4 p, 5 "a", 6 div, 7 p, 8 "b",
        // 9 span, 10 "c", 11 p, 12 "d", 13 p, 14 "e".
        check(PAGE, "p", 0, 15, &[4, 7, 11, 13]);
        check(PAGE, "span", 0, 15, &[9]);
        check(PAGE, "div", 0, 15, &[6]);
    }

    #[test]
    fn a_range_keeps_only_the_ids_inside_it() {
        check(PAGE, "p", 7, 13, &[7, 11]);
        check(PAGE, "p", 5, 7, &[]);
        check(PAGE, "p", 13, 14, &[13]);
        check(PAGE, "p", 14, 15, &[]);
    }

    #[test]
    fn an_empty_or_reversed_range_or_an_unknown_symbol_gives_nothing() {
        let doc = Document::parse_str(PAGE);
        let index = NameIndex::build(&doc);
        let p = doc.names().get("p").expect("p");
        assert!(index.within(p, NodeId(9), NodeId(9)).is_empty());
        assert!(index.within(p, NodeId(12), NodeId(4)).is_empty());
        assert!(index.within(Sym(10_000), NodeId(0), NodeId(15)).is_empty());
    }

    #[test]
    fn an_attribute_name_is_no_element() {
        // Attribute and element names share the table; `class` names no element.
        let doc = Document::parse_str("<div class=x><p class=y>t</p></div>");
        let index = NameIndex::build(&doc);
        let class = doc.names().get("class").expect("class");
        assert!(index.within(class, NodeId(0), NodeId(10)).is_empty());
    }
}
