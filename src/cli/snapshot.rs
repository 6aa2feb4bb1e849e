//! `mend snapshot WRAPPER PAGE...`: capture tree-grams on pages where the
//! wrapper works, and point the wrapper at them (`mend::runtime` says where
//! the files go). The files and the wrapper are written as one change of the
//! wrapper-change protocol, journaled in the wrapper's store.
//!
//! With several pages, the tree-grams are captured on the one where the
//! most patterns match, and each records what the others showed of its
//! pattern (`mend::treegram::Across`): a field absent on some page is
//! optional, labels that one page alone carried are not labels, record
//! counts vary within the range seen, locators that did not hold on every
//! page are dropped, and a field's texts that differed from page to page are
//! masked as the page's own. Ordinary differences between pages of one site
//! are then not drift.
//!
//! `mend snapshot WRAPPER PAGE PAGE... --harden` also replaces each brittle
//! XPath by the most robust member of its locator ensemble that selects the
//! same nodes on every page given (`mend::runtime::choose_hardenings`). The
//! tree-grams and the ensembles are captured as above, and every page
//! verifies; the XPaths are rewritten first, the tree-grams captured with
//! the rewritten wrapper, and both written as one `harden` change.
//!
//! Either way, the field statistics of the pages given are recorded in the
//! store as the wrapper's health baseline, which later runs are judged
//! against (`mend::runtime::record_health_baseline`).
//!
//! It refuses `-` given more than once and a `--pattern` the wrapper does not
//! have (exit 2), and, unless `--force` is given, any page on which the
//! wrapper's constraints fail (exit 1), before anything is written. Without
//! `--harden` a brittle XPath is only warned about, never rewritten; with it,
//! an XPath that no member of its ensemble replaces on every page given, or
//! that the save refuses under the lock, is left as it was, with the reason.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;

use super::capture::{
    check_patterns, keep_capture, plural, record_baseline, refuse_violated, report_written,
};
use super::{EXIT_BAD_INPUT, EXIT_VIOLATED, load_wrapper};
use mend::adapt::TreeGrams;
use mend::dom::Document;
use mend::extract::extract;
use mend::fetch::{self, HttpClient, PageSource};
use mend::health::HealthTally;
use mend::runtime::{
    CaptureMarks, Project, RuntimeError, capture_treegrams_across, choose_hardenings,
    save_hardened, save_treegrams,
};
use mend::store::Store;
use mend::treegram::{Captured, Skipped};
use mend::wrapper::{PatternPath, Wrapper};

/// Captures tree-grams for every pattern of a wrapper that matches a page.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The wrapper file (YAML).
    pub wrapper: PathBuf,
    /// Pages on which the wrapper is known to work: files, `-` or http(s)
    /// URLs. Three or more pages of the site are best: what differs between
    /// them (optional fields, per-item texts and labels, record counts) is
    /// then not taken for drift. With --harden, every page verifies the new
    /// XPaths.
    #[arg(required = true, value_name = "PAGE")]
    pub pages: Vec<String>,
    /// The first page's URL, recorded in the tree-gram header (for a file or
    /// standard input).
    #[arg(long)]
    pub url: Option<String>,
    /// Only these patterns (paths of names such as `book/price`); may repeat.
    #[arg(long = "pattern")]
    pub patterns: Vec<PatternPath>,
    /// Capture even though the wrapper's constraints fail on the page.
    #[arg(long)]
    pub force: bool,
    /// Replace each brittle XPath (of the --pattern patterns, if given) by the
    /// most robust locator of its ensemble that selects the same nodes on
    /// every page given; the old XPath goes to the pattern's history.
    #[arg(long)]
    pub harden: bool,
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
    if args.pages.iter().filter(|p| *p == "-").count() > 1 {
        say!("error: standard input (-) can be read once");
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    }
    if let Err(code) = check_patterns(&wrapper, &args.patterns) {
        return Ok(code);
    }
    let (pages, health) = match read_pages(&args, &wrapper)? {
        Ok(read) => read,
        Err(code) => return Ok(code),
    };
    let only = (!args.patterns.is_empty()).then_some(args.patterns.as_slice());
    let store_path = super::store_for(args.store.as_deref(), &args.wrapper);
    let mut store = match Store::open(&store_path) {
        Ok(store) => store,
        Err(e) => return Ok(super::review::store_failure(&e)),
    };
    // The tree-grams are captured on the page where the most patterns
    // match, so that an optional field absent from the first page given
    // still gets one; the other pages say what varies.
    let chosen = capture_page(&wrapper, &pages);
    let (first, url, doc) = &pages[chosen];
    let others: Vec<&Document> = pages
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != chosen)
        .map(|(_, (_, _, d))| d)
        .collect();
    let failed = |e: RuntimeError| {
        Ok(super::runtime_failure(
            &e,
            "; the wrapper and its tree-grams are as they were",
        ))
    };
    // What `mend learn` and `mend template` found about the wrapper's pages
    // is marked in the tree-grams.
    let marks = match CaptureMarks::of(&Project::of(&args.wrapper), &wrapper, doc) {
        Ok(m) => m,
        Err(e) => return failed(e),
    };
    let capture = |w: &Wrapper| {
        capture_treegrams_across(w, doc, &others, &first.bytes, url.as_deref(), only, &marks)
    };
    if !args.harden {
        let (captured, skipped) = capture(&wrapper);
        let written =
            match save_treegrams(&mut store, &args.wrapper, captured, &mut TreeGrams::new()) {
                Ok(written) => written,
                Err(e) => return failed(e),
            };
        report_written(&written, &skipped);
        keep_capture(&mut store, &wrapper, &written, &first.name, &first.bytes);
        warn_brittle(&wrapper, &written.files);
        if written.wrapper_changed {
            say!("mend: {} now names its tree-grams", args.wrapper.display());
        }
        return Ok(record_baseline(&mut store, &wrapper, pages.len(), &health));
    }
    let first_page = (first.name.as_str(), first.bytes.as_slice());
    match harden(&args, &mut store, &wrapper, &pages, first_page, capture) {
        Ok(()) => Ok(record_baseline(&mut store, &wrapper, pages.len(), &health)),
        Err(e) => failed(e),
    }
}

/// A page given, its URL and its document.
type ReadPage = (fetch::Page, Option<String>, Document);

/// Reads the pages given, refusing (exit 1) one the wrapper's constraints
/// fail on unless `--force`; the pages and their field statistics.
fn read_pages(
    args: &Args,
    wrapper: &Wrapper,
) -> anyhow::Result<Result<(Vec<ReadPage>, HealthTally), ExitCode>> {
    let client = HttpClient::new();
    let mut pages = Vec::with_capacity(args.pages.len());
    let mut health = HealthTally::new(wrapper);
    for (i, arg) in args.pages.iter().enumerate() {
        let source = match PageSource::from_arg(arg) {
            Ok(s) => s,
            Err(e) => {
                say!("error: {e}");
                return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
            }
        };
        let page = fetch::load(&source, &client).context("cannot read the page")?;
        // The URL given applies to the first page, the one captured.
        let url = args
            .url
            .clone()
            .filter(|_| i == 0)
            .or_else(|| page.url.as_ref().map(|u| u.to_string()));
        let doc = page.document();
        let base = url.as_deref().and_then(|u| url::Url::parse(u).ok());
        let extraction = extract(wrapper, &doc, base.as_ref());
        if !extraction.violations.is_empty() && !args.force {
            refuse_violated(&page.name, &extraction.violations);
            return Ok(Err(ExitCode::from(EXIT_VIOLATED)));
        }
        health.merge(HealthTally::of_page(
            wrapper,
            i as u64,
            &page.name,
            &extraction.record,
            &extraction.violations,
            None,
        ));
        pages.push((page, url, doc));
    }
    Ok(Ok((pages, health)))
}

/// `--harden`: rewrites the XPaths the pages show to be brittle, captures
/// the tree-grams, and says what changed and what was left.
fn harden(
    args: &Args,
    store: &mut Store,
    wrapper: &Wrapper,
    pages: &[ReadPage],
    (first_name, first_bytes): (&str, &[u8]),
    capture: impl FnOnce(&Wrapper) -> (Vec<Captured>, Vec<Skipped>),
) -> Result<(), RuntimeError> {
    let only = (!args.patterns.is_empty()).then_some(args.patterns.as_slice());
    let named: Vec<(&str, &Document)> = pages
        .iter()
        .map(|(page, _, doc)| (page.name.as_str(), doc))
        .collect();
    let plan = choose_hardenings(wrapper, &named, only);
    let done = save_hardened(store, &args.wrapper, wrapper, plan.hardened, capture)?;
    for h in &done.hardened {
        out!("{}: {} -> {} ({})", h.pattern, h.old, h.new, h.kind);
    }
    report_written(&done.written, &done.skipped);
    keep_capture(store, wrapper, &done.written, first_name, first_bytes);
    for left in plan.left.iter().chain(&done.refused) {
        say!("{}: left as {}: {}", left.pattern, left.xpath, left.reason);
    }
    if !done.hardened.is_empty() {
        say!(
            "mend: {} hardened in {} (the old XPaths are in their patterns' history)",
            plural(done.hardened.len(), "XPath"),
            args.wrapper.display()
        );
    } else if done.written.wrapper_changed {
        say!("mend: {} now names its tree-grams", args.wrapper.display());
    }
    Ok(())
}

/// The index of the page on which the most of the wrapper's top-level
/// patterns match anything, the first of those that tie.
fn capture_page(wrapper: &Wrapper, pages: &[(fetch::Page, Option<String>, Document)]) -> usize {
    let matched = |doc: &Document| {
        wrapper
            .patterns
            .iter()
            .filter(|p| {
                p.xpath
                    .select(doc, mend::dom::NodeId::ROOT)
                    .is_ok_and(|nodes| !nodes.is_empty())
            })
            .count()
    };
    let mut best = (0, 0);
    for (i, (_, _, doc)) in pages.iter().enumerate() {
        let n = matched(doc);
        if n > best.1 {
            best = (i, n);
        }
    }
    best.0
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
                    .find(|l| {
                        l.kind != mend::treegram::LocatorKind::Text
                            && mend::xpath::generate::brittleness(&l.xpath).is_none()
                    })
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
