//! Measures XPath evaluation throughput: expressions evaluated per second.
//!
//! ```sh
//! cargo run --release --example xpath_throughput -- --exprs FILE [--rounds N] PAGES...
//! ```
//!
//! Every page is read (gunzipped when its name ends in `.gz`) and parsed once,
//! every expression is compiled once; then all expressions are evaluated on
//! all pages, round after round. Parsing is not timed. The program prints one
//! JSON line with the median over rounds of expressions per second, which is
//! what `bench/xpath_vs_lxml.py` reads.

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use mend::dom::{Document, NodeId};
use mend::xpath::{Value, XPath};

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
    let mut exprs_file = None;
    let mut rounds = 5usize;
    let mut pages = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--exprs" => exprs_file = args.next(),
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|r| r.parse().ok())
                    .filter(|&r| r > 0)
                    .ok_or("--rounds needs a positive number")?;
            }
            _ => pages.push(a),
        }
    }
    let exprs_file =
        exprs_file.ok_or("usage: xpath_throughput --exprs FILE [--rounds N] PAGES...")?;
    let text = std::fs::read_to_string(&exprs_file).map_err(|e| format!("{exprs_file}: {e}"))?;
    let exprs: Vec<XPath> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| XPath::compile(l).map_err(|e| format!("{l}: {e}")))
        .collect::<Result<_, _>>()?;
    if pages.is_empty() {
        return Err("no pages given".into());
    }
    let docs: Vec<Document> = pages
        .iter()
        .map(|p| read(p).map(|b| Document::parse(&b)))
        .collect::<Result<_, _>>()?;

    let evaluations = docs.len() * exprs.len();
    let mut per_round = Vec::with_capacity(rounds);
    let mut checksum = 0usize;
    for _ in 0..rounds {
        let started = Instant::now();
        for doc in &docs {
            for x in &exprs {
                match x.evaluate(doc, NodeId::ROOT) {
                    Ok(v) => checksum = checksum.wrapping_add(size(&v)),
                    Err(e) => return Err(format!("{}: {e}", x.source())),
                }
            }
        }
        per_round.push(evaluations as f64 / started.elapsed().as_secs_f64());
    }
    per_round.sort_by(f64::total_cmp);
    let median = if rounds % 2 == 1 {
        per_round[rounds / 2]
    } else {
        (per_round[rounds / 2 - 1] + per_round[rounds / 2]) / 2.0
    };
    eprintln!("result checksum {checksum}");
    println!(
        "{{\"expressions_per_second\": {median:.1}, \"rounds\": {rounds}, \"pages\": {}, \"expressions\": {}}}",
        docs.len(),
        exprs.len()
    );
    Ok(())
}

/// A number that depends on the result, so the evaluation cannot be skipped.
fn size(v: &Value) -> usize {
    match v {
        Value::Nodes(n) => n.len(),
        Value::String(s) => s.len(),
        Value::Number(n) => *n as usize,
        Value::Boolean(b) => *b as usize,
    }
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if !path.ends_with(".gz") {
        return Ok(raw);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&raw[..])
        .read_to_end(&mut out)
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(out)
}
