//! The labels of an element: the short texts inside it that name a value
//! (`<b>ISBN:</b>`, `<th>Price</th>`), not the value. A label stays from
//! record to record where the data changes, so it tells one cell from
//! another; a tree-gram captured over several pages keeps the labels that
//! held on each of them (`Across::labels`).
//!
//! Pure: it reads a parsed document and nothing else.
//!
//! ## What it refuses
//!
//! It finds nothing in a node that is not an element, and reads only the
//! first [`MAX_LABEL_SCAN`] nodes inside one, skipping raw-text elements
//! (`script`, `style`, ...). A text longer than 40 characters, of more than
//! five words or without a letter is no label; `b` and `strong` count only
//! beside a colon, and a plain text only when it ends in one.

use std::collections::BTreeSet;

use crate::dom::{Document, NodeId, NodeKind};

use crate::dom::markup::RAW;

/// Elements whose short text names the value beside it.
const LABEL_TAGS: [&str; 3] = ["th", "dt", "label"];
/// Elements whose short text names the value beside it when a colon ends
/// it or starts the text after it (`<b>ISBN:</b>`, `<strong>Date</strong>:`);
/// without one they are emphasis.
const EMPHASIS_TAGS: [&str; 2] = ["b", "strong"];
/// How many nodes of an element's sub-tree are read for its labels.
const MAX_LABEL_SCAN: usize = 400;

/// The labels inside `element`: the texts of its label elements (`th`,
/// `dt`, `label`; `b` and `strong` beside a colon) and of its text nodes
/// that end in a colon, when short (a few words, at most 40 characters),
/// case folded with punctuation, spaces and the colon dropped
/// (`<b>ISBN-13:</b>` is `isbn13`).
/// A label names a field, not its data, so it stays from record to record:
/// a cell that held `ISBN:` and `Availability:` and now holds `Format:` and
/// `Vendor:` is another cell, whatever its place. Only the first
/// `MAX_LABEL_SCAN` nodes are read.
pub fn labels(doc: &Document, element: NodeId) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if !doc.is_element(element) {
        return out;
    }
    let end = doc.subtree_end(element);
    let mut n = NodeId(element.0 + 1);
    let mut read = 0;
    while n < end && read < MAX_LABEL_SCAN {
        read += 1;
        if doc.is_element(n) && RAW.contains(&doc.name(n)) {
            n = doc.subtree_end(n);
            continue;
        }
        if doc.is_element(n) && LABEL_TAGS.contains(&doc.name(n)) {
            if let Some(label) = as_label(&doc.string_value(n), false) {
                out.insert(label);
            }
        } else if doc.is_element(n) && EMPHASIS_TAGS.contains(&doc.name(n)) {
            let text = doc.string_value(n);
            let colon_after = doc.next_sibling(n).is_some_and(|t| {
                doc.kind(t) == NodeKind::Text && doc.text(t).trim_start().starts_with(':')
            });
            if (colon_after || text.trim_end().ends_with(':'))
                && let Some(label) = as_label(&text, false)
            {
                out.insert(label);
            }
        } else if doc.kind(n) == NodeKind::Text
            && let Some(label) = as_label(doc.text(n), true)
        {
            out.insert(label);
        }
        n = NodeId(n.0 + 1);
    }
    out
}

/// `text` as a label (see [`labels`]), if it reads like one; with
/// `needs_colon`, only when it ends in a colon.
fn as_label(text: &str, needs_colon: bool) -> Option<String> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > 40 || (needs_colon && !text.ends_with(':')) {
        return None;
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let letters = words.iter().any(|w| w.chars().any(char::is_alphabetic));
    (letters && words.len() <= 5).then(|| words.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_labels(html: &str, expected: &[&str]) {
        let doc = Document::parse_str(html);
        let n = doc.all().find(|&n| doc.attr(n, "id") == Some("t")).unwrap();
        let found: Vec<String> = labels(&doc, n).into_iter().collect();
        assert_eq!(found, expected, "{html}");
    }

    #[test]
    fn labels_are_the_short_texts_that_name_a_value() {
        check_labels(
            "<div id=t><b>ISBN:</b> 0310326192<br><b>ISBN-13:</b> 978031<br>Availability: <i>In Stock</i></div>",
            &["availability", "isbn", "isbn13"],
        );
        check_labels(
            "<li id=t><strong>Publisher</strong>: Gallery Press</li>",
            &["publisher"],
        );
        check_labels(
            "<h1 id=t>No More Excuses: Be the Man God Made You to Be</h1>",
            &[],
        );
        check_labels(
            "<p id=t><b>2009</b> and <b>a bold claim in many more words than six</b></p>",
            &[],
        );
        check_labels(
            "<p id=t>The <strong>Account</strong> and <em>more</em> here</p>",
            &[],
        );
    }
}
