//! Measures parse-and-extract throughput on one core: pages per second, each
//! page parsed from its bytes and every XPath of a wrapper evaluated on it.
//!
//! ```sh
//! cargo run --release --example parse_extract_throughput -- --wrapper FILE [--rounds N] PAGES...
//! ```
//!
//! Every page is read into memory first (gunzipped when its name ends in
//! `.gz`); the wrapper's top-level patterns are loaded and compiled once.
//! One *page* is what the lxml side of `bench/parse_vs_lxml.py` does too:
//! parse the bytes ([`Document::parse`], encoding sniffing and decoding
//! included), then evaluate every pattern's XPath from the document node and
//! materialize its result as strings, the XPath string-value of every
//! selected node in document order ([`Item::string_value`]), or, for a
//! number, string or boolean, its XPath `string()`. A result's *count* is the
//! number of those strings, its *chars* their total length in Unicode scalar
//! values (Python's `len`). The pattern's `extract` mode is not applied: both
//! sides take string-values, so that they do the same work.
//!
//! 1. An untimed pass records every (page, pattern) count and chars; an XPath
//!    that fails to evaluate on a page is an error naming both.
//! 2. `--rounds` timed rounds (default 5): each parses every page and
//!    evaluates every XPath on it, with one clock reading before and one
//!    after the whole round. After each round the counts must equal those of
//!    the untimed pass.
//!
//! The program prints one JSON line: `pages_per_second` (the median over
//! rounds), `per_round`, `rounds`, `pages`, `bytes`, `expressions` (the
//! XPaths, in the wrapper's order), and `counts` and `chars` (one array per
//! page, in the order given, of one number per XPath). Any error (a missing
//! page, an invalid wrapper, an XPath that does not evaluate) exits with
//! status 2 and a message naming it.

use std::hint::black_box;
use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use mend::dom::{Document, NodeId};
use mend::xpath::{Item, Value, XPath};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut wrapper_file = None;
    let mut rounds = 5usize;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--wrapper" => wrapper_file = args.next(),
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|r| r.parse().ok())
                    .filter(|&r| r > 0)
                    .ok_or("--rounds needs a positive number")?;
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => paths.push(a),
        }
    }
    let wrapper_file = wrapper_file
        .ok_or("usage: parse_extract_throughput --wrapper FILE [--rounds N] PAGES...")?;
    let wrapper =
        mend::wrapper::load_file(&wrapper_file).map_err(|e| format!("{wrapper_file}: {e}"))?;
    let exprs: Vec<&XPath> = wrapper.patterns.iter().map(|p| &p.xpath).collect();
    if exprs.is_empty() {
        return Err(format!("{wrapper_file}: no patterns"));
    }
    if paths.is_empty() {
        return Err("no pages given".into());
    }
    let pages: Vec<Vec<u8>> = paths.iter().map(|p| read(p)).collect::<Result<_, _>>()?;
    let bytes: usize = pages.iter().map(Vec::len).sum();

    // 1. The untimed pass: what every page must produce.
    let mut counts = Vec::with_capacity(pages.len());
    let mut chars = Vec::with_capacity(pages.len());
    for (page, path) in pages.iter().zip(&paths) {
        let doc = Document::parse(page);
        let (mut c, mut n) = (Vec::new(), Vec::new());
        for x in &exprs {
            let values = materialize(x, &doc)
                .map_err(|e| format!("{path}: {} does not evaluate: {e}", x.source()))?;
            c.push(values.len());
            n.push(values.iter().map(|s| s.chars().count()).sum::<usize>());
        }
        counts.push(c);
        chars.push(n);
    }
    let expected: Vec<usize> = counts.iter().flatten().copied().collect();

    // 2. The timed rounds: parsing and evaluation together, per round.
    let mut per_round = Vec::with_capacity(rounds);
    let mut got = vec![0usize; expected.len()];
    for _ in 0..rounds {
        let started = Instant::now();
        let mut k = 0;
        for page in &pages {
            let doc = Document::parse(page);
            for x in &exprs {
                let values = materialize(x, &doc).map_err(|e| format!("{}: {e}", x.source()))?;
                got[k] = values.len();
                black_box(values);
                k += 1;
            }
            black_box(doc);
        }
        per_round.push(pages.len() as f64 / started.elapsed().as_secs_f64());
        if got != expected {
            return Err("a timed round's result counts differ from the untimed pass".into());
        }
    }
    let mut sorted = per_round.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if rounds % 2 == 1 {
        sorted[rounds / 2]
    } else {
        (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2.0
    };

    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let table = |rows: &[Vec<usize>]| {
        rows.iter()
            .map(|r| format!("{r:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let sources = exprs
        .iter()
        .map(|x| json_string(x.source()))
        .collect::<Vec<_>>()
        .join(", ");
    println!(
        "{{\"pages_per_second\": {median:.2}, \"per_round\": [{}], \"rounds\": {rounds}, \
         \"pages\": {}, \"bytes\": {bytes}, \"expressions\": [{sources}], \
         \"counts\": [{}], \"chars\": [{}]}}",
        list(&per_round),
        pages.len(),
        table(&counts),
        table(&chars),
    );
    Ok(())
}

/// Evaluates `x` on `doc` and turns the result into strings: the
/// string-value of every selected node, or the `string()` of a scalar.
fn materialize(x: &XPath, doc: &Document) -> Result<Vec<String>, String> {
    match x.evaluate(doc, NodeId::ROOT).map_err(|e| e.to_string())? {
        Value::Nodes(items) => Ok(items.iter().map(|&i: &Item| i.string_value(doc)).collect()),
        scalar => Ok(vec![scalar.to_string_value(doc)]),
    }
}

/// A JSON string literal for `s`.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("page {path}: {e}"))?;
    if !path.ends_with(".gz") {
        return Ok(raw);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_end(&mut out)
        .map_err(|e| format!("page {path}: {e}"))?;
    Ok(out)
}
