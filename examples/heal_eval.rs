//! Healing measured on real page changes: how often mend re-locates an
//! element correctly, wrongly, or abstains.
//!
//! Cases, from `../shared/data`:
//! - google.com in three versions with 14 aligned elements: for each ordered
//!   pair of versions (2018→2021, 2021→2023, 2018→2023) and element, a
//!   wrapper whose one pattern is the element's XPath in the older version
//!   is snapshotted on the older page and re-located on the newer: 42 cases;
//! - linkedin, youtube and baidu with mutated copies (every node carries a
//!   shared `signature`, stripped before matching): each element of the
//!   original that survives in the mutant (but `html`, `head`, `body`) is a
//!   case, its canonical path the pattern's XPath. The report splits the
//!   cases whose path changed (the ones that break a scraper) from the rest.
//!
//! A case is correct when mend's choice is the true element, wrong when it
//! chose another, abstained when it chose nothing. Run:
//!
//! ```sh
//! cargo run --release --example heal_eval -- [--data ../shared/data] [--threshold T] [--margin M] [--only NAME] [--verbose]
//! ```

use std::collections::HashMap;
use std::time::Instant;

use mend::adapt::{Rejections, TreeGrams, relocate};
use mend::dom::{Document, NodeId};
use mend::similarity::NoMask;
use mend::treegram::{CaptureOptions, TreeGram, capture};
use mend::wrapper::{AdaptSettings, Constraints, Extract, Pattern, ValueType, Wrapper};
use mend::xpath::{Item, XPath};

#[derive(Default, Clone, Copy)]
struct Tally {
    correct: usize,
    wrong: usize,
    abstained: usize,
}

impl Tally {
    fn add(&mut self, o: Verdict) {
        match o {
            Verdict::Correct => self.correct += 1,
            Verdict::Wrong => self.wrong += 1,
            Verdict::Abstained => self.abstained += 1,
        }
    }
    fn total(&self) -> usize {
        self.correct + self.wrong + self.abstained
    }
    fn row(&self, name: &str, median_ms: f64) -> String {
        let n = self.total().max(1) as f64;
        let pct = |x: usize| 100.0 * x as f64 / n;
        format!(
            "| {name} | {} | {} ({:.1}%) | {} ({:.1}%) | {} ({:.1}%) | {median_ms:.1} |",
            self.total(),
            self.correct,
            pct(self.correct),
            self.wrong,
            pct(self.wrong),
            self.abstained,
            pct(self.abstained)
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Verdict {
    Correct,
    Wrong,
    Abstained,
}

struct Args {
    data: String,
    settings: AdaptSettings,
    only: Option<String>,
    verbose: bool,
}

fn main() {
    let mut args = Args {
        data: "../shared/data".to_owned(),
        settings: AdaptSettings::default(),
        only: None,
        verbose: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--data" => args.data = it.next().expect("--data DIR"),
            "--threshold" => {
                args.settings.threshold = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--threshold T")
            }
            "--margin" => {
                args.settings.margin = it.next().and_then(|v| v.parse().ok()).expect("--margin M")
            }
            "--only" => args.only = it.next(),
            "--verbose" => args.verbose = true,
            other => panic!("unknown argument {other}"),
        }
    }
    println!(
        "threshold {}, margin {}, algorithms {:?}, label {:?}\n",
        args.settings.threshold,
        args.settings.margin,
        args.settings.algorithms,
        args.settings.label
    );
    println!("| cases | n | correct | wrong | abstained | median ms/case |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let wanted = |name: &str| args.only.as_deref().is_none_or(|o| o == name);
    if wanted("google") {
        google(&args);
    }
    for site in ["linkedin", "youtube", "baidu"] {
        if wanted(site) {
            mutant(&args, site);
        }
    }
}

/// A wrapper with one top-level pattern `target` that must match exactly once.
fn wrapper(xpath: &str, settings: &AdaptSettings) -> Wrapper {
    Wrapper {
        name: "eval".to_owned(),
        start: Vec::new(),
        adapt: settings.clone(),
        patterns: vec![Pattern {
            name: "target".to_owned(),
            xpath: XPath::compile(xpath).expect("the case's XPath compiles"),
            extract: Extract::Text,
            value_type: ValueType::String,
            date_format: None,
            constraints: Constraints {
                min: Some(1),
                max: Some(1),
                ..Constraints::default()
            },
            treegram: None,
            patterns: Vec::new(),
            history: Vec::new(),
            location: Default::default(),
        }],
        source: None,
    }
}

/// Snapshots `xpath` on `old`, re-locates it on `new`, and says which node was chosen.
fn heal_one(
    xpath: &str,
    old: &Document,
    new: &Document,
    settings: &AdaptSettings,
) -> (Option<NodeId>, String) {
    let w = wrapper(xpath, settings);
    let options = CaptureOptions {
        url: None,
        sha256: "",
        captured: "",
        instances: settings.treegram_instances,
        min_context: settings.treegram_min_context,
        only: None,
        unstable: &NoMask,
    };
    let (captured, skipped) = capture(&w, old, &options);
    let Some(c) = captured.into_iter().next() else {
        return (None, format!("no tree-gram: {skipped:?}"));
    };
    let mut grams = TreeGrams::new();
    grams.insert(
        "target",
        TreeGram::parse(c.html.as_bytes()).expect("tree-gram"),
    );
    let Some(a) = relocate(&w, "target", new, None, &grams, &Rejections::new()) else {
        return (None, "no pattern".to_owned());
    };
    let Some(new_xpath) = a.new_xpath.as_deref().filter(|_| a.is_healed()) else {
        return (None, a.reason.unwrap_or_default());
    };
    let chosen = XPath::compile(new_xpath)
        .ok()
        .and_then(|x| x.select_item(new, Item::Node(NodeId::ROOT)).ok())
        .and_then(|items| match items.as_slice() {
            [Item::Node(n)] => Some(*n),
            _ => None,
        });
    (
        chosen,
        format!(
            "{new_xpath} score {:.3} runner-up {:.3} sim {:.3} {:?}/{:?}",
            a.score.unwrap_or(0.0),
            a.runner_up.unwrap_or(0.0),
            a.similarity.unwrap_or(0.0),
            a.algorithm,
            a.label
        ),
    )
}

fn verdict(chosen: Option<NodeId>, truth: NodeId) -> Verdict {
    match chosen {
        None => Verdict::Abstained,
        Some(n) if n == truth => Verdict::Correct,
        Some(_) => Verdict::Wrong,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn google(args: &Args) {
    let dir = format!("{}/similocator_google_ebay/google", args.data);
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{dir}/ground_truth_xpaths.json"))
            .expect("google ground truth"),
    )
    .expect("json");
    let versions = ["2018-01-01", "2021-01-01", "2023-01-01"];
    let docs: HashMap<&str, Document> = versions
        .iter()
        .map(|v| {
            let bytes = std::fs::read(format!("{dir}/{v}/index.html")).expect("google page");
            (*v, Document::parse(&bytes))
        })
        .collect();
    let locate = |doc: &Document, xpath: &str| -> Option<NodeId> {
        match XPath::compile(xpath)
            .ok()?
            .select(doc, NodeId::ROOT)
            .ok()?
            .as_slice()
        {
            [Item::Node(n)] => Some(*n),
            _ => None,
        }
    };
    let mut tally = Tally::default();
    let mut times = Vec::new();
    for (a, b) in [(0, 1), (1, 2), (0, 2)] {
        for e in truth["elements"].as_array().expect("elements") {
            let (va, vb) = (versions[a], versions[b]);
            let (xa, xb) = (e[va].as_str().unwrap(), e[vb].as_str().unwrap());
            let (Some(_), Some(tb)) = (locate(&docs[va], xa), locate(&docs[vb], xb)) else {
                println!(
                    "google {va}→{vb} element {}: the ground truth does not resolve in mend's tree",
                    e["element_index"]
                );
                tally.add(Verdict::Abstained);
                continue;
            };
            let start = Instant::now();
            let (chosen, note) = heal_one(xa, &docs[va], &docs[vb], &args.settings);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            let v = verdict(chosen, tb);
            if args.verbose {
                println!("  google {va}→{vb} #{} {v:?}: {note}", e["element_index"]);
            }
            tally.add(v);
        }
    }
    println!(
        "{}",
        tally.row("google.com, 3 version pairs × 14 elements", median(times))
    );
}

fn mutant(args: &Args, site: &str) {
    let dir = format!("{}/sftm_mutants", args.data);
    let (orig, mutated) = match site {
        "baidu" => ("baidu_original.html", "baidu_mutant.html"),
        "linkedin" => ("linkedin.html", "linkedin_mutant.html"),
        _ => ("youtube.html", "youtube_mutant.html"),
    };
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).expect("mutant page");
    let (orig_text, mut_text) = (read(orig), read(mutated));
    let strip = regex::Regex::new(r#"\s+signature="[^"]*""#).expect("regex");
    // The same bytes but the signatures: attributes never change the tree, so
    // node ids agree between the marked and the stripped parse.
    let orig_marked = Document::parse_str(&orig_text);
    let mut_marked = Document::parse_str(&mut_text);
    let orig_doc = Document::parse_str(&strip.replace_all(&orig_text, ""));
    let mut_doc = Document::parse_str(&strip.replace_all(&mut_text, ""));
    assert_eq!(orig_marked.len(), orig_doc.len());
    let signatures = |d: &Document| -> HashMap<String, NodeId> {
        d.all()
            .filter(|&n| d.is_element(n))
            .filter_map(|n| Some((d.attr(n, "signature")?.to_owned(), n)))
            .collect()
    };
    let in_mutant = signatures(&mut_marked);
    let (mut changed, mut same) = (Tally::default(), Tally::default());
    let mut times = Vec::new();
    for n in orig_marked.all().filter(|&n| orig_marked.is_element(n)) {
        if matches!(orig_marked.name(n), "html" | "head" | "body") {
            continue;
        }
        let Some(truth) = orig_marked
            .attr(n, "signature")
            .and_then(|s| in_mutant.get(s))
            .copied()
        else {
            continue;
        };
        let old_path = orig_doc.path(n);
        let path_changed = mut_doc.path(truth) != old_path;
        let start = Instant::now();
        let (chosen, note) = heal_one(&old_path, &orig_doc, &mut_doc, &args.settings);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        let v = verdict(chosen, truth);
        if args.verbose {
            println!(
                "  {site} {old_path} → {} {v:?}: {note}",
                mut_doc.path(truth)
            );
        }
        if path_changed {
            changed.add(v);
        } else {
            same.add(v);
        }
    }
    let med = median(times);
    println!(
        "{}",
        changed.row(&format!("{site}, elements whose path changed"), med)
    );
    println!(
        "{}",
        same.row(&format!("{site}, elements whose path stayed"), med)
    );
}
