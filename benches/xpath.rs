//! Criterion benchmark of XPath evaluation on a few real pages.
//!
//! Pages come from `../shared/data` (beside the checkout). The expressions
//! are those of `bench/xpath_expressions.txt`, which the lxml comparison uses.
//! Nothing is skipped: a missing or unreadable page, an expression that does
//! not compile, or one that fails to evaluate on a page stops the benchmark
//! with a message naming it, before anything is measured.

use std::io::Read;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use mend::dom::{Document, NodeId};
use mend::xpath::XPath;

const PAGES: &[&str] = &[
    "zyte_article_extraction_benchmark/html/076f4f33bf75059db581bedf36e76fb65e89a8f7752db3339aa3ea11c5122f32.html.gz",
    "zyte_article_extraction_benchmark/html/3cb5e2f46626d5bb0345759453036f7eabc0b0c7796b796513606bf693060ced.html.gz",
];

fn load(path: &Path) -> Document {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("page {}: {e}", path.display()));
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_end(&mut bytes)
        .unwrap_or_else(|e| panic!("page {}: {e}", path.display()));
    Document::parse(&bytes)
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/data");
    let docs: Vec<Document> = PAGES.iter().map(|p| load(&data.join(p))).collect();
    let file = root.join("bench/xpath_expressions.txt");
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("expressions {}: {e}", file.display()));
    let exprs: Vec<XPath> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            XPath::compile(l)
                .unwrap_or_else(|e| panic!("{}: {l} does not compile: {e}", file.display()))
        })
        .collect();
    assert!(!exprs.is_empty(), "no expressions in {}", file.display());
    for (doc, page) in docs.iter().zip(PAGES) {
        for x in &exprs {
            if let Err(e) = x.evaluate(doc, NodeId::ROOT) {
                panic!("{page}: {} does not evaluate: {e}", x.source());
            }
        }
    }
    c.bench_function("xpath/all_expressions", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for d in &docs {
                for x in &exprs {
                    let v = x.evaluate(d, NodeId::ROOT).expect("evaluated before");
                    n += v.as_nodes().map_or(1, <[_]>::len);
                }
            }
            n
        })
    });
    for x in &exprs {
        c.bench_function(&format!("xpath/{}", x.source()), |b| {
            b.iter(|| {
                docs.iter()
                    .map(|d| {
                        let v = x.evaluate(d, NodeId::ROOT).expect("evaluated before");
                        v.as_nodes().map_or(1, <[_]>::len)
                    })
                    .sum::<usize>()
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
