//! Criterion benchmark of the similarity module on real pages.
//!
//! Pages come from `../shared/data` (beside the checkout). Nothing is
//! skipped: a missing or unreadable page, or one whose tree cannot be built,
//! stops the benchmark with a message naming it, before anything is
//! measured. Three groups:
//!
//! * `pair/*`: simple and clustered tree matching (score alone, and with the
//!   alignment), bigram and Jaro-Winkler of two whole pages: google.com and
//!   ebay.com in their 2018 and 2021 versions, youtube.com against its
//!   mutated copy, and "youtube-x2", the youtube pair with the body content
//!   repeated twice, about 5,500 elements a side (no page in the data set has
//!   5,000 elements of its own);
//! * `sweep/*`: a tree-gram of about 200 nodes against every candidate
//!   sub-tree of a 60,000-element page made by repeating the body content of
//!   ebay.com 2018; the tree-gram is a `div` sub-tree of that page with three
//!   mutations (a leaf removed, an element renamed, an element added);
//! * `view/*`: building the labelled tree view of the 60,000-element page.
//!
//! Before measuring, every sweep is checked against the exhaustive sweep,
//! whose time is measured too (`…/exhaustive`) to show what pruning saves.
//!
//! Run with `cargo bench --bench similarity`; add a filter such as
//! `-- sweep/` to run one group.

use std::hint::black_box;
use std::io::Read;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use mend::dom::{Document, NodeId};
use mend::similarity::{
    Algorithm, LabelMode, LabeledTree, Labels, SweepOptions, best_candidates,
    best_candidates_exhaustive, clustered_tree_matching, clustered_tree_matching_score,
    simple_tree_matching, simple_tree_matching_score, tree_bigram, tree_jaro_winkler,
};

fn load(path: &Path) -> Document {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("page {}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "gz") {
        let mut bytes = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut bytes)
            .unwrap_or_else(|e| panic!("page {}: {e}", path.display()));
        return Document::parse(&bytes);
    }
    Document::parse(&raw)
}

fn body(doc: &Document, what: &str) -> NodeId {
    doc.all()
        .find(|&n| doc.is_element(n) && doc.name(n) == "body")
        .unwrap_or_else(|| panic!("{what} has no <body>"))
}

/// A page whose body is the body content of `doc` repeated until it has at
/// least `elements` elements (at least twice when `elements` is 0).
fn repeated(doc: &Document, what: &str, elements: usize, times: usize) -> Document {
    let b = body(doc, what);
    let inner = doc.inner_html(b);
    let per = doc
        .descendants(b)
        .filter(|&n| doc.is_element(n))
        .count()
        .max(1);
    let n = if elements > 0 {
        elements.div_ceil(per)
    } else {
        times
    };
    let mut html = String::with_capacity(inner.len() * n + 64);
    html.push_str("<!DOCTYPE html><html><head></head><body>");
    for _ in 0..n {
        html.push_str(&inner);
    }
    html.push_str("</body></html>");
    Document::parse_str(&html)
}

fn view(doc: &Document, what: &str, mode: LabelMode, labels: &mut Labels) -> LabeledTree {
    let root = doc
        .root_element()
        .unwrap_or_else(|| panic!("{what} has no root element"));
    LabeledTree::build(doc, root, mode, labels)
        .unwrap_or_else(|e| panic!("the tree of {what}: {e}"))
}

/// The HTML of the element sub-tree of `root` (tag, id and class only), with
/// three mutations: the third leaf left out, the tenth element renamed to
/// `section`, and a new `<span class="added">` after the fiftieth element.
fn mutated_treegram(doc: &Document, root: NodeId) -> String {
    let mut out = String::new();
    let mut open: Vec<(NodeId, String)> = Vec::new();
    let (mut elements, mut leaves) = (0usize, 0usize);
    let mut n = root;
    let end = doc.subtree_end(root);
    while n < end {
        while let Some((top, tag)) = open.last() {
            if n < doc.subtree_end(*top) {
                break;
            }
            out.push_str(&format!("</{tag}>"));
            open.pop();
        }
        if !doc.is_element(n) {
            n = doc.subtree_end(n);
            continue;
        }
        let leaf = doc.element_children(n).next().is_none();
        if leaf {
            leaves += 1;
            if leaves == 3 {
                n = doc.subtree_end(n);
                continue;
            }
        }
        elements += 1;
        let tag = if elements == 10 {
            "section".to_owned()
        } else {
            doc.name(n).to_owned()
        };
        out.push('<');
        out.push_str(&tag);
        for attr in ["id", "class"] {
            if let Some(v) = doc.attr(n, attr) {
                out.push_str(&format!(" {attr}=\"{}\"", v.replace('"', "&quot;")));
            }
        }
        out.push('>');
        if elements == 50 {
            out.push_str("<span class=\"added\"></span>");
        }
        open.push((n, tag));
        n = NodeId(n.0 + 1);
    }
    while let Some((_, tag)) = open.pop() {
        out.push_str(&format!("</{tag}>"));
    }
    format!("<!DOCTYPE html><html><head></head><body>{out}</body></html>")
}

fn pairs(c: &mut Criterion, data: &Path) {
    let versions = |site: &str| {
        let a = load(&data.join(format!(
            "similocator_google_ebay/{site}/2018-01-01/index.html"
        )));
        let b = load(&data.join(format!(
            "similocator_google_ebay/{site}/2021-01-01/index.html"
        )));
        (a, b)
    };
    let mut list: Vec<(&str, Document, Document)> = Vec::new();
    for site in ["google", "ebay"] {
        let (a, b) = versions(site);
        list.push((site, a, b));
    }
    let a = load(&data.join("sftm_mutants/youtube.html"));
    let b = load(&data.join("sftm_mutants/youtube_mutant.html"));
    let (a2, b2) = (
        repeated(&a, "youtube.html", 0, 2),
        repeated(&b, "youtube_mutant.html", 0, 2),
    );
    list.push(("youtube", a, b));
    list.push(("youtube-x2", a2, b2));
    let mut group = c.benchmark_group("pair");
    group.sample_size(20);
    for (name, da, db) in &list {
        let mut labels = Labels::new();
        let a = view(da, name, LabelMode::Tag, &mut labels);
        let b = view(db, name, LabelMode::Tag, &mut labels);
        eprintln!(
            "note: {name}: {} and {} elements; stm {}, ctm {:.4}, bigram {:.4}, jw {:.4}",
            a.len(),
            b.len(),
            simple_tree_matching_score(&a, &b),
            clustered_tree_matching_score(&a, &b),
            tree_bigram(&a, &b),
            tree_jaro_winkler(&a, &b),
        );
        group.bench_function(format!("{name}/stm"), |bch| {
            bch.iter(|| simple_tree_matching_score(black_box(&a), black_box(&b)))
        });
        group.bench_function(format!("{name}/ctm"), |bch| {
            bch.iter(|| clustered_tree_matching_score(black_box(&a), black_box(&b)))
        });
        // An alignment that fails would be timed as a fast error.
        if let Err(e) = simple_tree_matching(&a, &b) {
            panic!("{name}: stm alignment: {e}");
        }
        if let Err(e) = clustered_tree_matching(&a, &b) {
            panic!("{name}: ctm alignment: {e}");
        }
        group.bench_function(format!("{name}/stm+alignment"), |bch| {
            bch.iter(|| simple_tree_matching(black_box(&a), black_box(&b)).map(|m| m.matched))
        });
        group.bench_function(format!("{name}/ctm+alignment"), |bch| {
            bch.iter(|| {
                clustered_tree_matching(black_box(&a), black_box(&b)).map(|m| m.alignment.len())
            })
        });
        group.bench_function(format!("{name}/bigram"), |bch| {
            bch.iter(|| tree_bigram(black_box(&a), black_box(&b)))
        });
        group.bench_function(format!("{name}/jw"), |bch| {
            bch.iter(|| tree_jaro_winkler(black_box(&a), black_box(&b)))
        });
    }
    group.finish();
}

fn sweeps(c: &mut Criterion, data: &Path) {
    let source_path = "similocator_google_ebay/ebay/2018-01-01/index.html";
    let source = load(&data.join(source_path));
    let page_doc = repeated(&source, source_path, 60_000, 0);
    // The tree-gram: the div whose element sub-tree is nearest 200 nodes.
    let sizes = {
        let mut labels = Labels::new();
        view(&page_doc, "the 60k page", LabelMode::Tag, &mut labels)
    };
    let cut = (0..sizes.len())
        .filter(|&i| page_doc.name(sizes.node(i)) == "div")
        .min_by_key(|&i| sizes.subtree_size(i).abs_diff(200))
        .expect("the 60k page has a div");
    let gram_doc = Document::parse_str(&mutated_treegram(&page_doc, sizes.node(cut)));
    let gram_root = gram_doc
        .element_children(body(&gram_doc, "the tree-gram"))
        .next()
        .expect("the tree-gram has an element");
    let mut view_group = c.benchmark_group("view");
    view_group.sample_size(20);
    view_group.bench_function("60k/tag+class", |b| {
        b.iter(|| {
            let mut labels = Labels::new();
            view(
                black_box(&page_doc),
                "the 60k page",
                LabelMode::TagClass,
                &mut labels,
            )
            .len()
        })
    });
    view_group.finish();

    let mut group = c.benchmark_group("sweep");
    group.sample_size(20);
    for (mode, mode_name) in [(LabelMode::TagClass, "tag+class"), (LabelMode::Tag, "tag")] {
        let mut labels = Labels::new();
        let page = view(&page_doc, "the 60k page", mode, &mut labels);
        let gram = LabeledTree::build(&gram_doc, gram_root, mode, &mut labels)
            .unwrap_or_else(|e| panic!("the tree of the tree-gram: {e}"));
        for algorithm in [
            Algorithm::Ctm,
            Algorithm::Stm,
            Algorithm::Bigram,
            Algorithm::Jw,
        ] {
            let options = SweepOptions::new(algorithm);
            let started = std::time::Instant::now();
            let exhaustive = best_candidates_exhaustive(&gram, &page, &options);
            let exhaustive_time = started.elapsed();
            let pruned = best_candidates(&gram, &page, &options);
            assert_eq!(pruned.best, exhaustive, "pruning changed the result");
            let name = format!("60k/{mode_name}/{algorithm:?}").to_lowercase();
            eprintln!(
                "note: {name}: page {} elements, tree-gram {} (cut at {}); best {:?}; {:?}; exhaustive {:.1} ms",
                page.len(),
                gram.len(),
                cut,
                pruned
                    .best
                    .iter()
                    .map(|c| (c.index, c.score))
                    .collect::<Vec<_>>(),
                pruned.stats,
                exhaustive_time.as_secs_f64() * 1e3,
            );
            group.bench_function(&name, |b| {
                b.iter(|| best_candidates(black_box(&gram), black_box(&page), &options).best)
            });
            group.bench_function(format!("{name}/exhaustive"), |b| {
                b.iter(|| best_candidates_exhaustive(black_box(&gram), black_box(&page), &options))
            });
        }
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    pairs(c, &data);
    sweeps(c, &data);
}

criterion_group!(benches, bench);
criterion_main!(benches);
