//! Random small documents for the property tests: one to three top-level
//! trees drawn from a test's own strategy, written out as HTML and parsed.

use std::fmt::Debug;

use mend::dom::Document;
use proptest::prelude::*;

/// Documents of one to three top-level trees from `tree`, each written out
/// by `render`.
pub fn documents<N: Clone + Debug>(
    tree: impl Strategy<Value = N>,
    render: fn(&N, &mut String),
) -> impl Strategy<Value = Document> {
    prop::collection::vec(tree, 1..4).prop_map(move |roots| {
        let mut html = String::new();
        for r in &roots {
            render(r, &mut html);
        }
        Document::parse_str(&html)
    })
}
