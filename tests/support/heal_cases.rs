//! Healing cases on real page changes from `../shared/data`, shared by the
//! `heal_eval` example (which prints the table) and the `heal_real_pages`
//! test (which holds the floor).
//!
//! - google.com in three versions with 14 aligned elements: for each ordered
//!   pair of versions (2018→2021, 2021→2023, 2018→2023) and element, a
//!   wrapper whose one pattern is the element's XPath in the older version
//!   is snapshotted on the older page and re-located on the newer: 42 cases.
//! - linkedin, youtube and baidu with mutated copies (every node carries a
//!   shared `signature`, stripped before matching): each element of the
//!   original that survives in the mutant (but `html`, `head`, `body`) is a
//!   case, its canonical path the pattern's XPath. Cases whose path changed
//!   are the ones that break a scraper; the others are kept apart.
//!
//! A case is correct when mend's choice is the true element, wrong when it
//! chose another, abstained when it chose nothing.

#![allow(dead_code)]

use std::collections::HashMap;
use std::time::Instant;

use mend::adapt::{Rejections, Search, TreeGrams, relocate};
use mend::dom::{Document, NodeId};
use mend::similarity::NoMask;
use mend::treegram::{CaptureOptions, TreeGram, capture};
use mend::wrapper::{AdaptSettings, Constraints, Extract, Pattern, ValueType, Wrapper};
use mend::xpath::{Item, XPath};

/// What became of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Correct,
    Wrong,
    Abstained,
}

/// Counts of verdicts.
#[derive(Default, Clone, Copy, Debug)]
pub struct Tally {
    pub correct: usize,
    pub wrong: usize,
    pub abstained: usize,
}

impl Tally {
    pub fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Correct => self.correct += 1,
            Verdict::Wrong => self.wrong += 1,
            Verdict::Abstained => self.abstained += 1,
        }
    }

    pub fn total(&self) -> usize {
        self.correct + self.wrong + self.abstained
    }

    /// A share of the total, in percent.
    pub fn pct(&self, n: usize) -> f64 {
        100.0 * n as f64 / self.total().max(1) as f64
    }

    /// A Markdown table row.
    pub fn row(&self, name: &str, median_ms: f64) -> String {
        format!(
            "| {name} | {} | {} ({:.1}%) | {} ({:.1}%) | {} ({:.1}%) | {median_ms:.1} |",
            self.total(),
            self.correct,
            self.pct(self.correct),
            self.wrong,
            self.pct(self.wrong),
            self.abstained,
            self.pct(self.abstained)
        )
    }
}

/// One relocation case: the pattern's XPath on the old page, and the true node on the new.
pub struct Case {
    pub group: String,
    pub old: usize,
    pub new: usize,
    pub xpath: String,
    pub truth: NodeId,
    pub label: String,
}

/// Pages and the cases over them.
#[derive(Default)]
pub struct Suite {
    pub docs: Vec<Document>,
    pub cases: Vec<Case>,
}

/// A case's outcome.
pub struct Outcome {
    pub verdict: Verdict,
    pub note: String,
    pub millis: f64,
}

/// The google.com cases, or why they cannot be built (a missing page or
/// ground truth, an XPath of the ground truth that does not select one node).
pub fn google(data: &str, suite: &mut Suite) -> Result<(), String> {
    let dir = format!("{data}/similocator_google_ebay/google");
    let truth_file = format!("{dir}/ground_truth_xpaths.json");
    let truth: serde_json::Value = serde_json::from_str(&read_to_string(&truth_file)?)
        .map_err(|e| format!("{truth_file}: {e}"))?;
    let versions = ["2018-01-01", "2021-01-01", "2023-01-01"];
    let first = suite.docs.len();
    for v in versions {
        let page = format!("{dir}/{v}/index.html");
        suite.docs.push(Document::parse(
            &std::fs::read(&page).map_err(|e| format!("{page}: {e}"))?,
        ));
    }
    let elements = truth["elements"]
        .as_array()
        .ok_or_else(|| format!("{truth_file}: no `elements` array"))?;
    for (a, b) in [(0, 1), (1, 2), (0, 2)] {
        for e in elements {
            let xpath = |v: &str| {
                e[v].as_str()
                    .ok_or_else(|| format!("{truth_file}: an element without an XPath for {v}"))
            };
            let (xa, xb) = (xpath(versions[a])?, xpath(versions[b])?);
            let new = &suite.docs[first + b];
            let truth = single(new, xb).ok_or_else(|| {
                format!(
                    "{truth_file}: {xb} does not select one node of google {}",
                    versions[b]
                )
            })?;
            suite.cases.push(Case {
                group: "google".to_owned(),
                old: first + a,
                new: first + b,
                xpath: xa.to_owned(),
                truth,
                label: format!("{}→{} #{}", versions[a], versions[b], e["element_index"]),
            });
        }
    }
    Ok(())
}

fn read_to_string(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

/// The cases of one mutated page (`linkedin`, `youtube` or `baidu`); their
/// group is `<site>/changed` or `<site>/stayed`. An error names the missing
/// page or the unknown site.
pub fn mutant(data: &str, site: &str, suite: &mut Suite) -> Result<(), String> {
    let dir = format!("{data}/sftm_mutants");
    let (orig, mutated) = match site {
        "baidu" => ("baidu_original.html", "baidu_mutant.html"),
        "linkedin" => ("linkedin.html", "linkedin_mutant.html"),
        "youtube" => ("youtube.html", "youtube_mutant.html"),
        _ => return Err(format!("no mutated pages of {site}")),
    };
    let read = |f: &str| read_to_string(&format!("{dir}/{f}"));
    let (orig_text, mut_text) = (read(orig)?, read(mutated)?);
    let strip = regex::Regex::new(r#"\s+signature="[^"]*""#).expect("the pattern compiles");
    // Attributes never change the tree, so node ids agree between the marked
    // parse and the stripped one that mend sees.
    let orig_marked = Document::parse_str(&orig_text);
    let mut_marked = Document::parse_str(&mut_text);
    let orig_doc = Document::parse_str(&strip.replace_all(&orig_text, ""));
    let mut_doc = Document::parse_str(&strip.replace_all(&mut_text, ""));
    assert_eq!(orig_marked.len(), orig_doc.len());
    assert_eq!(mut_marked.len(), mut_doc.len());
    let in_mutant: HashMap<String, NodeId> = mut_marked
        .all()
        .filter(|&n| mut_marked.is_element(n))
        .filter_map(|n| Some((mut_marked.attr(n, "signature")?.to_owned(), n)))
        .collect();
    let mut cases = Vec::new();
    for n in orig_marked.all().filter(|&n| orig_marked.is_element(n)) {
        if matches!(orig_marked.name(n), "html" | "head" | "body") {
            continue;
        }
        let Some(&truth) = orig_marked
            .attr(n, "signature")
            .and_then(|s| in_mutant.get(s))
        else {
            continue;
        };
        let old_path = orig_doc.path(n);
        let changed = mut_doc.path(truth) != old_path;
        cases.push((old_path, truth, changed));
    }
    let first = suite.docs.len();
    suite.docs.push(orig_doc);
    suite.docs.push(mut_doc);
    for (xpath, truth, changed) in cases {
        suite.cases.push(Case {
            group: format!("{site}/{}", if changed { "changed" } else { "stayed" }),
            old: first,
            new: first + 1,
            label: xpath.clone(),
            xpath,
            truth,
        });
    }
    Ok(())
}

/// Snapshots the case's XPath on the old page, re-locates it on the new one,
/// and judges the choice.
pub fn run(suite: &Suite, case: &Case, settings: &AdaptSettings, search: &Search) -> Outcome {
    let start = Instant::now();
    let (chosen, note) = heal_one(
        &case.xpath,
        &suite.docs[case.old],
        &suite.docs[case.new],
        settings,
        search,
    );
    let millis = start.elapsed().as_secs_f64() * 1e3;
    let verdict = match chosen {
        None => Verdict::Abstained,
        Some(n) if n == case.truth => Verdict::Correct,
        Some(_) => Verdict::Wrong,
    };
    Outcome {
        verdict,
        note,
        millis,
    }
}

/// A wrapper with one top-level pattern `target` that must match exactly once.
fn wrapper(xpath: &str, settings: &AdaptSettings) -> Wrapper {
    Wrapper {
        name: "eval".to_owned(),
        start: Vec::new(),
        adapt: settings.clone(),
        crawl: Default::default(),
        monitor: None,
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
            css: None,
            location: Default::default(),
        }],
        source: None,
    }
}

fn heal_one(
    xpath: &str,
    old: &Document,
    new: &Document,
    settings: &AdaptSettings,
    search: &Search,
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
        frame: None,
    };
    let (captured, skipped) = capture(&w, old, &options);
    let Some(c) = captured.into_iter().next() else {
        return (None, format!("no tree-gram: {skipped:?}"));
    };
    let mut grams = TreeGrams::new();
    let target: mend::wrapper::PatternPath = "target".parse().expect("a pattern path");
    grams.insert(
        target.clone(),
        TreeGram::parse(c.html.as_bytes()).expect("tree-gram"),
    );
    let Some(a) = relocate(&w, &target, new, None, &grams, &Rejections::new(), search) else {
        return (None, "no pattern".to_owned());
    };
    let Some(new_xpath) = a.new_xpath.as_deref().filter(|_| a.is_healed()) else {
        return (None, a.reason.unwrap_or_default());
    };
    let chosen = XPath::compile(new_xpath)
        .ok()
        .and_then(|x| single(new, new_xpath).filter(|_| x.returns_nodes()));
    (
        chosen,
        format!(
            "{new_xpath} score {:.3} runner-up {:.3} similarity {:.3} {:?}/{:?}",
            a.score.unwrap_or(0.0),
            a.runner_up.unwrap_or(0.0),
            a.similarity.unwrap_or(0.0),
            a.algorithm,
            a.label
        ),
    )
}

/// The one node an XPath selects from the document node.
fn single(doc: &Document, xpath: &str) -> Option<NodeId> {
    match XPath::compile(xpath)
        .ok()?
        .select(doc, NodeId::ROOT)
        .ok()?
        .as_slice()
    {
        [Item::Node(n)] => Some(*n),
        _ => None,
    }
}

/// The median of some timings.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
