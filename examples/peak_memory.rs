//! Peak heap memory of parsing and extracting one page, against the page's size:
//! `cargo run --release --example peak_memory -- WRAPPER PAGE`.
//!
//! A counting allocator records the highest number of live heap bytes while the
//! page is parsed and the wrapper evaluated, above what was live before (the
//! wrapper itself, the page bytes). The process's peak resident set size is
//! printed too, for comparison; it also counts the binary and the allocator's
//! own overhead.

use std::io::Read;
use std::sync::atomic::Ordering;

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{Counting, LIVE, peak_of};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [wrapper_path, page_path] = &args[..] else {
        eprintln!("usage: peak_memory WRAPPER PAGE");
        std::process::exit(2);
    };
    let wrapper = mend::wrapper::load_file(wrapper_path).unwrap_or_else(|e| panic!("{e}"));
    let raw = std::fs::read(page_path).unwrap_or_else(|e| panic!("{page_path}: {e}"));
    let bytes = if page_path.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{e}"));
        out
    } else {
        raw
    };
    let before = LIVE.load(Ordering::Relaxed);
    let (peak, (doc, out)) = peak_of(|| {
        let doc = mend::Document::parse(&bytes);
        let out = mend::extract::extract(&wrapper, &doc, None);
        (doc, out)
    });
    let kept = LIVE.load(Ordering::Relaxed) - before;
    std::hint::black_box(&out);
    let rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_owned())
        })
        .and_then(|kb| kb.parse::<usize>().ok())
        .map_or(0, |kb| kb * 1024);
    println!(
        "{{\"page_bytes\": {}, \"nodes\": {}, \"peak_heap_bytes\": {peak}, \"peak_heap_ratio\": {:.2}, \"document_bytes\": {kept}, \"peak_rss_bytes\": {rss}}}",
        bytes.len(),
        doc.len(),
        peak as f64 / bytes.len() as f64
    );
}
