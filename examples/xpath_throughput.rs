//! Measures XPath evaluation throughput: expressions evaluated per second,
//! each result turned into strings.
//!
//! ```sh
//! cargo run --release --example xpath_throughput -- --exprs FILE [--rounds N] PAGES...
//! ```
//!
//! Every page is read (gunzipped when its name ends in `.gz`) and parsed once,
//! every expression is compiled once. One *evaluation* is what the lxml side
//! of `bench/xpath_vs_lxml.py` does too: evaluate the expression from the
//! document node and materialize its result as strings, the XPath
//! string-value of every selected node in document order
//! ([`Item::string_value`]), or, for a number, string or boolean, its XPath
//! `string()`. A result's *count* is the number of those strings (the node
//! count of a node-set, 1 for any other value), its *chars* their total
//! length in Unicode scalar values (Python's `len`).
//!
//! 1. An untimed pass records every (page, expression) count and chars; an
//!    expression that fails to evaluate on a page is an error naming both.
//! 2. `--rounds` timed rounds (default 5): each evaluates all expressions on
//!    all pages, with one clock reading before and one after the whole
//!    round. Every evaluation stores its count, and after the round the
//!    counts must equal those of the untimed pass.
//! 3. One more pass times each expression over all pages, one clock pair per
//!    expression, for the per-expression shares; it is not part of the figure.
//!
//! The program prints one JSON line: `expressions_per_second` (the median
//! over rounds), `per_round`, `rounds`, `pages`, `expressions`,
//! `expression_seconds` (pass 3, in the file's order), and `counts` and
//! `chars` (one array per page, in the order given, of one number per
//! expression). Any error (a missing page, an expression that does not
//! compile or evaluate) exits with status 2 and a message naming it.

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
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
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
        .map(|l| XPath::compile(l).map_err(|e| format!("{exprs_file}: {l} does not compile: {e}")))
        .collect::<Result<_, _>>()?;
    if exprs.is_empty() {
        return Err(format!("{exprs_file}: no expressions"));
    }
    if pages.is_empty() {
        return Err("no pages given".into());
    }
    let docs: Vec<Document> = pages
        .iter()
        .map(|p| read(p).map(|b| Document::parse(&b)))
        .collect::<Result<_, _>>()?;

    // 1. The untimed pass: what every evaluation must produce.
    let mut counts = Vec::with_capacity(docs.len());
    let mut chars = Vec::with_capacity(docs.len());
    for (doc, page) in docs.iter().zip(&pages) {
        let (mut c, mut n) = (Vec::new(), Vec::new());
        for x in &exprs {
            let values = materialize(x, doc)
                .map_err(|e| format!("{page}: {} does not evaluate: {e}", x.source()))?;
            c.push(values.len());
            n.push(values.iter().map(|s| s.chars().count()).sum::<usize>());
        }
        counts.push(c);
        chars.push(n);
    }
    let expected: Vec<usize> = counts.iter().flatten().copied().collect();

    // 2. The timed rounds.
    let evaluations = docs.len() * exprs.len();
    let mut per_round = Vec::with_capacity(rounds);
    let mut got = vec![0usize; evaluations];
    for _ in 0..rounds {
        let started = Instant::now();
        let mut k = 0;
        for doc in &docs {
            for x in &exprs {
                let values = materialize(x, doc).map_err(|e| format!("{}: {e}", x.source()))?;
                got[k] = values.len();
                black_box(values);
                k += 1;
            }
        }
        per_round.push(evaluations as f64 / started.elapsed().as_secs_f64());
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

    // 3. One clock pair per expression, over all pages.
    let mut expression_seconds = Vec::with_capacity(exprs.len());
    for x in &exprs {
        let started = Instant::now();
        for doc in &docs {
            let values = materialize(x, doc).map_err(|e| format!("{}: {e}", x.source()))?;
            black_box(values);
        }
        expression_seconds.push(started.elapsed().as_secs_f64());
    }

    let list = |v: &[f64], digits: usize| {
        v.iter()
            .map(|x| format!("{x:.digits$}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let table = |rows: &[Vec<usize>]| {
        rows.iter()
            .map(|r| format!("{r:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "{{\"expressions_per_second\": {median:.1}, \"per_round\": [{}], \"rounds\": {rounds}, \
         \"pages\": {}, \"expressions\": {}, \"expression_seconds\": [{}], \
         \"counts\": [{}], \"chars\": [{}]}}",
        list(&per_round, 1),
        docs.len(),
        exprs.len(),
        list(&expression_seconds, 6),
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
