//! Measures HTML parsing throughput: `cargo run --release --example parse_throughput -- PAGES...`.
//!
//! Pages (`*.gz` decompressed first) are read into memory, then parsed for several
//! rounds; the median round gives megabytes and pages per second on one core.

use std::io::Read;
use std::time::Instant;

fn main() {
    let mut rounds = 5;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rounds" {
            rounds = args
                .next()
                .and_then(|r| r.parse().ok())
                .filter(|&r: &usize| r > 0)
                .expect("--rounds needs a positive number");
        } else {
            files.push(arg);
        }
    }
    assert!(
        !files.is_empty(),
        "usage: parse_throughput [--rounds N] PAGES..."
    );
    let pages: Vec<Vec<u8>> = files.iter().map(|f| read(f)).collect();
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let mut times = Vec::new();
    let mut nodes = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        nodes = 0;
        for page in &pages {
            nodes += mend::Document::parse(page).len();
        }
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "{{\"pages\": {}, \"bytes\": {}, \"nodes\": {}, \"megabytes_per_second\": {:.1}, \"pages_per_second\": {:.1}}}",
        pages.len(),
        bytes,
        nodes,
        bytes as f64 / 1e6 / median,
        pages.len() as f64 / median
    );
}

fn read(path: &str) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("page {path}: {e}"));
    if path.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("page {path}: {e}"));
        out
    } else {
        raw
    }
}
