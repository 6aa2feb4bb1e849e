//! `mend similarity A B --algo stm|ctm|bigram|jw`: how alike two pages (or two
//! parts of them) are.
//!
//! The command compares the element trees of two documents, text and comments
//! left out. The roots are the `<html>` elements, or the first node that
//! `--xpath-a` / `--xpath-b` selects in A / B (it must be an element). Labels
//! are tag names unless `--label` says `tag+id` or `tag+class`; the tag is the
//! default because whole-page comparisons across versions see class names
//! churn more than structure.
//!
//! The score is always the last word on standard output: the number of
//! matched elements for stm, a similarity in [0, 1] for the others. Without
//! `--json` the output is one line, `ctm (tag) over 372 and 214 elements:
//! 0.375`. With `--json` the first line is one JSON object with the
//! algorithm, the label mode, each side's file, root path and element count,
//! the score, and the alignment as pairs of canonical paths (`null` for
//! bigram and jw, which have none); the second and last line is the score
//! alone, so the output is a JSON text sequence that `jq` reads as is.
//!
//! ## What it refuses
//!
//! It exits 2 when both pages would come from standard input, when a page
//! has no root element, and when `--xpath-a` or `--xpath-b` does not
//! compile (its column marked), fails to evaluate, selects nothing, or
//! selects first a node that is not an element. It exits 3 when a page
//! cannot be read, and when stm or ctm would need an alignment table over
//! the similarity module's limit for one pair of sibling lists.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use serde_json::{Value as Json, json};

use mend::dom::{Document, NodeId};
use mend::similarity::{Algorithm, LabelMode, LabeledTree, Labels, compare};
use mend::xpath::{Item, XPath};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};

/// Compare the element trees of two pages.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The first page: an HTML file (gzipped if it ends in .gz), or - for standard input.
    a: String,
    /// The second page, likewise.
    b: String,
    /// The similarity algorithm.
    #[arg(long, value_parser = super::names(Algorithm::ALL, Algorithm::as_str, algorithm_help))]
    algo: Algorithm,
    /// How elements are labelled for matching.
    #[arg(long, default_value = "tag",
          value_parser = super::names(LabelMode::ALL, LabelMode::as_str, label_help))]
    label: LabelMode,
    /// Compare from the first node this XPath selects in A instead of <html>.
    #[arg(long = "xpath-a", value_name = "X", allow_hyphen_values = true)]
    xpath_a: Option<String>,
    /// Compare from the first node this XPath selects in B instead of <html>.
    #[arg(long = "xpath-b", value_name = "Y", allow_hyphen_values = true)]
    xpath_b: Option<String>,
    /// Print a JSON object with the alignment before the score.
    #[arg(long)]
    json: bool,
}

/// What each algorithm's score is, for the help.
fn algorithm_help(algorithm: Algorithm) -> &'static str {
    match algorithm {
        Algorithm::Stm => "Simple tree matching: the number of matched elements",
        Algorithm::Ctm => "Clustered tree matching: a similarity in [0, 1]",
        Algorithm::Bigram => "Tree bigram similarity, in [0, 1]",
        Algorithm::Jw => "Tree Jaro-Winkler similarity, in [0, 1]",
    }
}

/// What each label mode compares, for the help.
fn label_help(mode: LabelMode) -> &'static str {
    match mode {
        LabelMode::Tag => "The tag name",
        LabelMode::TagId => "The tag name and the id",
        LabelMode::TagClass => "The tag name and the sorted class tokens",
    }
}

/// One side of the comparison, as read from the command line.
struct Side {
    file: String,
    doc: Document,
    root: NodeId,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.a == "-" && args.b == "-" {
        say!("error: only one page can come from standard input");
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    }
    let (algorithm, mode) = (args.algo, args.label);
    let a = match side(&args.a, args.xpath_a.as_deref(), "--xpath-a") {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let b = match side(&args.b, args.xpath_b.as_deref(), "--xpath-b") {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let mut labels = Labels::new();
    let ta = LabeledTree::build(&a.doc, a.root, mode, &mut labels)
        .with_context(|| format!("building the tree of {}", a.file))?;
    let tb = LabeledTree::build(&b.doc, b.root, mode, &mut labels)
        .with_context(|| format!("building the tree of {}", b.file))?;
    let comparison = match compare(algorithm, &ta, &tb) {
        Ok(c) => c,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    let score = if algorithm == Algorithm::Stm {
        json!(comparison.score as u64)
    } else {
        json!(comparison.score)
    };
    let mut out = BufWriter::new(super::stdout::Stdout::new());
    if args.json {
        let alignment = comparison.alignment.as_ref().map(|pairs| {
            pairs
                .iter()
                .map(|&(x, y)| json!([a.doc.path(x), b.doc.path(y)]))
                .collect::<Vec<Json>>()
        });
        let side_json = |s: &Side, t: &LabeledTree| json!({ "page": s.file, "root": s.doc.path(s.root), "elements": t.len() });
        let object = json!({
            "algorithm": algorithm.as_str(),
            "label": mode.as_str(),
            "a": side_json(&a, &ta),
            "b": side_json(&b, &tb),
            "score": score,
            "alignment": alignment,
        });
        writeln!(out, "{object}")?;
        writeln!(out, "{score}")?;
    } else {
        writeln!(
            out,
            "{} ({}) over {} and {} elements: {score}",
            algorithm.as_str(),
            mode.as_str(),
            ta.len(),
            tb.len()
        )?;
    }
    out.flush().context("writing the result")?;
    Ok(ExitCode::SUCCESS)
}

/// Reads and parses one page and finds the root of its comparison; on
/// failure, reports it and gives the exit code.
fn side(file: &str, xpath: Option<&str>, flag: &str) -> Result<Side, ExitCode> {
    let doc = mend::fetch::load_document(file).map_err(|e| {
        say!("error: {e}");
        ExitCode::from(EXIT_FAILURE)
    })?;
    let root = match xpath {
        None => doc.root_element().ok_or_else(|| {
            say!("error: {file} has no root element");
            ExitCode::from(EXIT_BAD_INPUT)
        })?,
        Some(expr) => select_root(&doc, expr, flag, file)?,
    };
    Ok(Side {
        file: file.to_owned(),
        doc,
        root,
    })
}

fn select_root(doc: &Document, expr: &str, flag: &str, file: &str) -> Result<NodeId, ExitCode> {
    let bad = || ExitCode::from(EXIT_BAD_INPUT);
    let xpath = XPath::compile(expr).map_err(|e| {
        say!("error: {flag}: {}", e.message);
        say!("  {expr}");
        let column = expr
            .char_indices()
            .take_while(|&(i, _)| i < e.position)
            .count();
        say!("  {}^", " ".repeat(column));
        bad()
    })?;
    let items = xpath.select(doc, NodeId::ROOT).map_err(|e| {
        say!("error: {flag}: {e}");
        bad()
    })?;
    match items.first() {
        None => {
            say!("error: {flag} '{expr}' selects nothing in {file}");
            Err(bad())
        }
        Some(&Item::Node(n)) if doc.is_element(n) => Ok(n),
        Some(_) => {
            say!("error: {flag} '{expr}' selects a node that is not an element in {file}");
            Err(bad())
        }
    }
}
