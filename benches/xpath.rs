//! Criterion benchmark of XPath evaluation on a few real pages.
//!
//! Pages come from `../shared/data` (beside the checkout); when that folder is
//! absent the benchmark prints a note and measures nothing. The expressions
//! are those of `bench/xpath_expressions.txt`, which the lxml comparison uses.

use std::io::Read;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use mend::dom::{Document, NodeId};
use mend::xpath::XPath;

const PAGES: &[&str] = &[
    "zyte_article_extraction_benchmark/html/076f4f33bf75059db581bedf36e76fb65e89a8f7752db3339aa3ea11c5122f32.html.gz",
    "zyte_article_extraction_benchmark/html/3cb5e2f46626d5bb0345759453036f7eabc0b0c7796b796513606bf693060ced.html.gz",
];

fn load(path: &Path) -> Option<Document> {
    let raw = std::fs::read(path).ok()?;
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_end(&mut bytes)
        .ok()?;
    Some(Document::parse(&bytes))
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/data");
    let docs: Vec<Document> = PAGES.iter().filter_map(|p| load(&data.join(p))).collect();
    if docs.is_empty() {
        eprintln!(
            "note: no pages under {}; skipping the XPath benchmark",
            data.display()
        );
        return;
    }
    let text =
        std::fs::read_to_string(root.join("bench/xpath_expressions.txt")).unwrap_or_default();
    let exprs: Vec<XPath> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| XPath::compile(l.trim()).ok())
        .collect();
    c.bench_function("xpath/all_expressions", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for d in &docs {
                for x in &exprs {
                    if let Ok(v) = x.evaluate(d, NodeId::ROOT) {
                        n += v.as_nodes().map_or(1, <[_]>::len);
                    }
                }
            }
            n
        })
    });
    for x in &exprs {
        c.bench_function(&format!("xpath/{}", x.source()), |b| {
            b.iter(|| {
                docs.iter()
                    .map(|d| x.evaluate(d, NodeId::ROOT).is_ok() as usize)
                    .sum::<usize>()
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
