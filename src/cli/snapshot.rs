//! `mend snapshot WRAPPER PAGE`: capture tree-grams on a page where the
//! wrapper works, and point the wrapper at them (`mend::runtime` says where
//! the files go). The files and the wrapper are written as one change of the
//! wrapper-change protocol, journaled in the wrapper's store.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;

use super::{EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_VIOLATED, load_wrapper};
use mend::adapt::TreeGrams;
use mend::dom::Document;
use mend::extract::extract;
use mend::fetch::{self, HttpClient, PageSource};
use mend::runtime::{capture_treegrams, save_treegrams};
use mend::store::Store;
use mend::wrapper::PatternPath;

/// Captures tree-grams for every pattern of a wrapper that matches a page.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The wrapper file (YAML).
    pub wrapper: PathBuf,
    /// A page on which the wrapper is known to work: a file, `-` or an http(s) URL.
    pub page: String,
    /// The page's URL, recorded in the tree-gram header (for a file or standard input).
    #[arg(long)]
    pub url: Option<String>,
    /// Only these patterns (paths of names such as `book/price`); may repeat.
    #[arg(long = "pattern")]
    pub patterns: Vec<PatternPath>,
    /// Capture even though the wrapper's constraints fail on the page.
    #[arg(long)]
    pub force: bool,
    /// The store that journals the change to the wrapper (default:
    /// $MEND_STORE, else `.mend/mend.db` beside the wrapper).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wrapper = match load_wrapper(&args.wrapper) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    let source = match PageSource::from_arg(&args.page) {
        Ok(s) => s,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    };
    let page = fetch::load(&source, &HttpClient::new()).context("cannot read the page")?;
    let url = args
        .url
        .clone()
        .or_else(|| page.url.as_ref().map(|u| u.to_string()));
    let doc = Document::parse_with_transport(&page.bytes, page.charset.as_deref());
    let base = url.as_deref().and_then(|u| url::Url::parse(u).ok());
    let extraction = extract(&wrapper, &doc, base.as_ref());
    if !extraction.violations.is_empty() && !args.force {
        say!(
            "error: the wrapper's constraints fail on {} ({} violation{}, the first: {} {} expected {}, found {}); \
             a tree-gram must capture a page where the wrapper works (--force to capture anyway)",
            page.name,
            extraction.violations.len(),
            if extraction.violations.len() == 1 {
                ""
            } else {
                "s"
            },
            extraction.violations[0].pattern,
            extraction.violations[0].constraint,
            extraction.violations[0].expected,
            extraction.violations[0].found,
        );
        return Ok(ExitCode::from(EXIT_VIOLATED));
    }
    for p in &args.patterns {
        if wrapper.pattern(p).is_none() {
            say!("error: --pattern {p}: the wrapper has no pattern with that path");
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    }
    let only = (!args.patterns.is_empty()).then_some(args.patterns.as_slice());
    let (captured, skipped) = capture_treegrams(&wrapper, &doc, &page.bytes, url.as_deref(), only);
    let store_path = super::store_for(args.store.as_deref(), &args.wrapper);
    let mut store = match Store::open(&store_path) {
        Ok(store) => store,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    let written = match save_treegrams(&mut store, &args.wrapper, captured, &mut TreeGrams::new()) {
        Ok(written) => written,
        Err(e) => {
            say!("error: {e}; the wrapper and its tree-grams are as they were");
            return Ok(ExitCode::from(if e.is_bad_input() {
                EXIT_BAD_INPUT
            } else {
                EXIT_FAILURE
            }));
        }
    };
    for (path, c) in &written.files {
        out!(
            "{}: {} ({} instance{})",
            c.pattern,
            path.display(),
            c.instances,
            if c.instances == 1 { "" } else { "s" }
        );
    }
    for s in &skipped {
        say!("{}: no tree-gram: {}", s.pattern, s.reason);
    }
    warn_brittle(&wrapper, &written.files);
    if written.wrapper_changed {
        say!("mend: {} now names its tree-grams", args.wrapper.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Warns about every captured pattern whose XPath is brittle, naming the
/// most robust locator of its ensemble (verified on this page to select the
/// same nodes) as the replacement.
fn warn_brittle(wrapper: &mend::wrapper::Wrapper, files: &[(PathBuf, mend::treegram::Captured)]) {
    for (_, c) in files {
        let Some(pattern) = wrapper.pattern(&c.pattern) else {
            continue;
        };
        let Some(why) = mend::xpath::generate::brittleness(pattern.xpath.source()) else {
            continue;
        };
        let better = mend::treegram::TreeGram::parse(c.html.as_bytes())
            .ok()
            .and_then(|g| {
                g.header
                    .locators
                    .iter()
                    .find(|l| mend::xpath::generate::brittleness(&l.xpath).is_none())
                    .map(|l| l.xpath.clone())
            });
        match better {
            Some(x) => say!(
                "warning: {}: {} is brittle ({why}); {x} selects the same nodes on this page",
                c.pattern,
                pattern.xpath.source()
            ),
            None => say!(
                "warning: {}: {} is brittle ({why})",
                c.pattern,
                pattern.xpath.source()
            ),
        }
    }
}
