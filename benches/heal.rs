//! Criterion benchmark of healing, on pages built from the project's own
//! fixtures (no external data needed).
//!
//! * `heal/redesign`: the bookshop wrapper on the redesigned listing
//!   (`tests/fixtures/pages/bookshop-redesign.html`): the record, its price
//!   and its stock field are healed, about 150 elements;
//! * `heal/redesign-in-60k`: the same listing inside a page padded to 60,000
//!   elements with unrelated markup (a long table of links and a nested
//!   menu), so that the record search has the whole page to sweep;
//! * `heal/field-in-60k`: the page's heading, now an `h2` in a wrapper div,
//!   re-located in a page padded to 60,000 elements; a local change (its
//!   old parent stands), so the search starts inside the old parent;
//! * `heal/field-in-60k-whole-page`: the same heal with
//!   `adapt.search_scope: page`, which searches the whole page at once: the
//!   ratio of the two is what scope-first search saves;
//! * `heal/1000-records-60k`: the redesigned card markup repeated for 1,000
//!   books, padded to 60,000 elements: the cluster is large and every field
//!   is healed in 1,000 instances.
//!
//! Each case asserts, before it is timed, that the heal produced the right
//! records, so the benchmark never measures a heal that went wrong.
//!
//! Run with `cargo bench --bench heal`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mend::adapt::{ChangeScope, Rejections, TreeGrams, heal};
use mend::dom::Document;
use mend::treegram::CaptureOptions;
use mend::wrapper::{self, Wrapper};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{rel}")).expect("a project file")
}

fn grams(wrapper: &Wrapper, page: &str) -> TreeGrams {
    let doc = Document::parse_str(page);
    TreeGrams::capture(wrapper, &doc, &CaptureOptions::of(wrapper))
}

/// Unrelated markup of about `elements` elements: a table of links and a
/// nested menu, the bulk of a large real page.
fn padding(elements: usize) -> String {
    let mut out = String::from("<table class=\"directory\"><tbody>");
    let mut made = 2;
    let mut i = 0;
    while made < elements * 3 / 4 {
        out.push_str(&format!(
            "<tr><td><a href=\"/d/{i}\">Entry {i}</a></td><td><span class=\"count\">{i}</span></td></tr>"
        ));
        made += 5;
        i += 1;
    }
    out.push_str("</tbody></table><nav class=\"mega\">");
    while made < elements {
        out.push_str(&format!(
            "<ul class=\"menu\"><li><a href=\"/m/{i}\">Menu {i}</a><ul><li><a href=\"/m/{i}/a\">A</a></li></ul></li></ul>"
        ));
        made += 6;
        i += 1;
    }
    out.push_str("</nav>");
    out
}

/// The redesigned page with `padding` inserted before the footer.
fn padded(page: &str, pad: &str) -> String {
    page.replacen("<footer", &format!("{pad}<footer"), 1)
}

/// The redesigned grid with `n` books instead of six.
fn many_records(redesign: &str, n: usize) -> String {
    let start = redesign
        .find("<li>\n          <div class=\"card\">")
        .expect("the first card");
    let end = redesign
        .find("</ul>\n      <nav class=\"pager\"")
        .expect("the grid's end");
    let card = &redesign[start
        ..redesign[start..]
            .find("</li>")
            .map(|i| start + i + 5)
            .expect("a card")];
    let mut cards = String::new();
    for i in 0..n {
        cards.push_str(&card.replace("The Tide Between Us", &format!("Book {i}")));
    }
    format!("{}{}{}", &redesign[..start], cards, &redesign[end..])
}

fn check(wrapper: &Wrapper, grams: &TreeGrams, doc: &Document, books: usize) {
    let h = heal(wrapper, doc, None, grams, &Rejections::new());
    assert!(
        h.extraction.violations.is_empty(),
        "{:?}",
        h.extraction.violations
    );
    let found = h.extraction.record["book"].as_array().expect("books").len();
    assert_eq!(found, books);
}

fn bench(c: &mut Criterion) {
    let wrapper =
        wrapper::load_str(&read("wrappers/bookshop.yaml"), "bookshop.yaml").expect("wrapper");
    let grams = grams(&wrapper, &read("examples/pages/bookshop.html"));
    let redesign = read("tests/fixtures/pages/bookshop-redesign.html");
    let mut group = c.benchmark_group("heal");
    group.sample_size(10);

    let doc = Document::parse_str(&redesign);
    check(&wrapper, &grams, &doc, 6);
    group.bench_function("redesign", |b| {
        b.iter(|| heal(&wrapper, black_box(&doc), None, &grams, &Rejections::new()))
    });

    let big = Document::parse_str(&padded(&redesign, &padding(60_000)));
    assert!(big.element_count() >= 60_000, "{}", big.element_count());
    check(&wrapper, &grams, &big, 6);
    group.bench_function("redesign-in-60k", |b| {
        b.iter(|| heal(&wrapper, black_box(&big), None, &grams, &Rejections::new()))
    });

    // One top-level field in a large page: the heading became an h2 in a
    // wrapper div, inside 60,000 elements of unrelated markup.
    let original = read("examples/pages/bookshop.html").replace(
        "<h1>Fiction</h1>",
        "<div class=\"heading\"><h2>Fiction</h2></div>",
    );
    let field = Document::parse_str(&padded(&original, &padding(60_000)));
    assert!(field.element_count() >= 60_000, "{}", field.element_count());
    let h = heal(&wrapper, &field, None, &grams, &Rejections::new());
    assert!(h.extraction.violations.is_empty(), "{:?}", h.adaptations);
    assert_eq!(h.extraction.record["page_title"], "Fiction");
    assert_eq!(h.adaptations[0].change_scope, Some(ChangeScope::Local));
    assert!(h.adaptations[0].found_in_parent, "{:?}", h.adaptations);
    let whole_page = wrapper::load_str(
        &read("wrappers/bookshop.yaml").replace(
            "  mode: propose\n",
            "  mode: propose\n  search_scope: page\n",
        ),
        "bookshop.yaml",
    )
    .expect("wrapper");
    let h = heal(&whole_page, &field, None, &grams, &Rejections::new());
    assert_eq!(h.extraction.record["page_title"], "Fiction");
    assert!(!h.adaptations[0].found_in_parent, "{:?}", h.adaptations);
    group.bench_function("field-in-60k", |b| {
        b.iter(|| {
            heal(
                &wrapper,
                black_box(&field),
                None,
                &grams,
                &Rejections::new(),
            )
        })
    });

    group.bench_function("field-in-60k-whole-page", |b| {
        b.iter(|| {
            heal(
                &whole_page,
                black_box(&field),
                None,
                &grams,
                &Rejections::new(),
            )
        })
    });

    // The shipped wrapper allows 50 books a page; this listing has 1,000.
    let text = read("wrappers/bookshop.yaml").replace("{min: 1, max: 50}", "{min: 1, max: 2000}");
    let long = wrapper::load_str(&text, "bookshop.yaml").expect("wrapper");
    let listing = many_records(&redesign, 1_000);
    let records = Document::parse_str(&padded(&listing, &padding(60_000 - 12_000)));
    assert!(
        records.element_count() >= 60_000,
        "{}",
        records.element_count()
    );
    check(&long, &grams, &records, 1_000);
    group.bench_function("1000-records-60k", |b| {
        b.iter(|| heal(&long, black_box(&records), None, &grams, &Rejections::new()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
