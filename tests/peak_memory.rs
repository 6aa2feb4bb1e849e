//! Peak heap memory of parsing and extracting a page stays under ten times
//! the page's size. A counting allocator (this test binary's own) measures
//! live heap bytes; the figure is deterministic, unlike timing.

use std::sync::Mutex;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{Counting, peak_of};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Tests in this binary run on several threads; measurements take turns.
static TURN: Mutex<()> = Mutex::new(());

fn check(wrapper_path: &str, page: &[u8]) -> f64 {
    let wrapper = mend::wrapper::load_file(wrapper_path).unwrap();
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let (peak, ()) = peak_of(|| {
        let doc = mend::Document::parse(page);
        let out = mend::extract::extract(&wrapper, &doc, None);
        std::hint::black_box(out);
    });
    let ratio = peak as f64 / page.len() as f64;
    println!(
        "page {} bytes, peak heap {peak} bytes, {ratio:.2}x",
        page.len()
    );
    assert!(ratio <= 10.0, "peak heap is {ratio:.2} times the page size");
    ratio
}

#[test]
fn a_large_listing_peaks_under_ten_times_its_size() {
    // About 2 MB of product cards, written for this test.
    let card = std::fs::read_to_string("examples/pages/bookshop.html").unwrap();
    let start = card.find("<li>").unwrap();
    let end = card.rfind("</li>").unwrap() + 5;
    let items = &card[start..end];
    let mut page = card[..start].to_owned();
    while page.len() < 2_000_000 {
        page.push_str(items);
    }
    page.push_str(&card[end..]);
    check("wrappers/bookshop.yaml", page.as_bytes());
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_largest_zyte_page_peaks_under_ten_times_its_size() {
    use std::io::Read;
    let dir = "../shared/data/zyte_article_extraction_benchmark/html";
    let mut largest = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let raw = std::fs::read(entry.unwrap().path()).unwrap();
        let mut page = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut page)
            .unwrap();
        if page.len() > largest.len() {
            largest = page;
        }
    }
    check("bench/wrappers/zyte_article.yaml", &largest);
}
