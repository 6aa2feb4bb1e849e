//! Running a wrapper over many pages: loading, parsing and extracting in
//! parallel on all cores, with results delivered in input order.
//!
//! Pages are processed in batches a few times larger than the thread count,
//! so memory stays bounded by the batch while output keeps the order of the
//! arguments.
//!
//! A page that cannot be loaded, or whose bytes are plainly not a page, is
//! an error entry in the output, in its place; it never stops the run.
//!
//! ## What it refuses
//!
//! Every page is extracted with the wrapper as the run began, never with
//! one rewritten during the run; [`run_pages`] heals nothing, and its broken
//! pages only try their patterns' `history`. With `--flatten`, a page whose
//! flattened pattern holds no list emits no record. Once a page's output
//! waits for the run's heals to settle, every output after it waits too, so
//! that the order is kept: memory then grows with the outputs held.

mod health;
mod output;
mod stream;
#[cfg(test)]
mod tests;
mod workers;

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use health::HealthObserver;
pub use output::{OutputFormat, OutputWriter};
pub use stream::{PageStream, Withhold};
pub use workers::{PEAK_PER_PAGE_BYTE, default_workers};

use crate::adapt::{self, Alternative, Substituted, TreeGrams};
use crate::dom::Document;
use crate::extract::{Extraction, Violation, extract};
use crate::fetch::{self, HttpClient, PageSource};
use crate::wrapper::Wrapper;
use stream::Read;

/// What one page produced: the object `mend run` prints for it, and reads
/// back (a crawl job's workers keep it as a line, exported in any format).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageOutput {
    /// The page's name: its path, `-` or its URL.
    pub page: String,
    /// The page's record, or with `--flatten` one record per instance.
    pub records: Vec<Value>,
    /// Constraints that failed.
    pub violations: Vec<Violation>,
    /// Adaptations tried on the page. Shared: one adaptation of a run
    /// stands for all the pages it served, and its evidence is long.
    pub adaptations: Vec<Arc<Value>>,
    /// The XPaths of a pattern's `history` that served the page, when its
    /// XPath now did not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<Value>,
    /// Why the page could not be read, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Set by a [`Healer`] on an output that it completes when the run is
    /// settled; never printed.
    #[serde(skip)]
    pub ticket: Option<usize>,
}

impl PageOutput {
    /// Sets `key` to `value` in every record of the page that is an object,
    /// or takes the key out of each when `value` is `None`: how a page's
    /// records carry what was learned about the whole page (its images,
    /// the proposals that served it).
    pub fn set_in_records(&mut self, key: &str, value: Option<&Value>) {
        for record in &mut self.records {
            let Some(fields) = record.as_object_mut() else {
                continue;
            };
            match value {
                Some(v) => fields.insert(key.to_owned(), v.clone()),
                None => fields.remove(key),
            };
        }
    }
}

/// How a run reads its pages and shapes its records.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Emit one record per instance of this top-level record pattern.
    pub flatten: Option<String>,
    /// The URL relative links resolve against, for pages that came with
    /// none (saved files, standard input); a page fetched from a URL keeps
    /// its own.
    pub base_url: Option<url::Url>,
    /// The charset every page is decoded with, whatever it declares (a
    /// label encoding_rs knows, checked by the caller).
    pub encoding: Option<String>,
}

impl RunOptions {
    /// `page` as these options read it: its base URL and charset set.
    fn read(&self, mut page: fetch::Page) -> fetch::Page {
        if page.url.is_none() {
            page.url.clone_from(&self.base_url);
        }
        if self.encoding.is_some() {
            page.charset.clone_from(&self.encoding);
        }
        page
    }
}

/// Counts over a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Pages processed, failed ones included.
    pub pages: usize,
    /// Records emitted.
    pub records: usize,
    /// Violations over all pages.
    pub violations: usize,
    /// Pages with at least one violation.
    pub violated_pages: usize,
    /// Pages that could not be read.
    pub failed_pages: usize,
    /// Pages whose selections had drifted from their tree-grams.
    pub drifted_pages: usize,
    /// Pages that an XPath of a pattern's `history` served.
    pub fallback_pages: usize,
    /// What the run's heals came to.
    pub heals: HealCounts,
}

impl Summary {
    fn add(&mut self, out: &PageOutput) {
        self.pages += 1;
        self.records += out.records.len();
        self.violations += out.violations.len();
        self.violated_pages += usize::from(!out.violations.is_empty());
        self.failed_pages += usize::from(out.error.is_some());
        self.fallback_pages += usize::from(!out.fallbacks.is_empty());
    }
}

/// Processes one page that is already in memory.
pub fn process_page(wrapper: &Wrapper, page: &fetch::Page, options: &RunOptions) -> PageOutput {
    process_document(wrapper, page, &page.document(), options)
}

/// Processes one page already parsed: `page` names it and gives its URL
/// (its bytes are not read), `doc` is what it parsed to.
pub fn process_document(
    wrapper: &Wrapper,
    page: &fetch::Page,
    doc: &Document,
    options: &RunOptions,
) -> PageOutput {
    let _span = tracing::info_span!("page", page = %page.name).entered();
    page_output(page, extract(wrapper, doc, page.url.as_ref()), options)
}

/// Loads and processes one page, turning a load failure into an error entry.
pub fn run_one(
    wrapper: &Wrapper,
    source: &PageSource,
    http: &HttpClient,
    options: &RunOptions,
) -> PageOutput {
    match fetch::load(source, http) {
        Ok(page) => process_page(wrapper, &options.read(page), options),
        Err(e) => failed(source, &e),
    }
}

/// The output of a page that could not be read.
fn failed(source: &PageSource, e: &fetch::FetchError) -> PageOutput {
    tracing::warn!(page = %source.name(), error = %e, "page could not be read");
    PageOutput {
        page: source.name(),
        records: Vec::new(),
        violations: Vec::new(),
        adaptations: Vec::new(),
        fallbacks: Vec::new(),
        error: Some(e.to_string()),
        ticket: None,
    }
}

/// Runs `wrapper` over `sources` on the current rayon pool, calling `emit`
/// with each page's output in input order. A page that breaks tries the
/// XPaths of its patterns' `history` (the fallback chain); nothing heals.
pub fn run_pages(
    wrapper: &Wrapper,
    sources: &[PageSource],
    options: &RunOptions,
    emit: impl FnMut(PageOutput),
) -> Summary {
    let mut healer = NoHealing::new(wrapper.clone(), options.clone());
    run_pages_healing(&mut healer, sources, options, emit)
}

/// What a run does with a page whose constraints fail, and with the run's
/// heals once every page has been read.
///
/// Every page is extracted with the wrapper as the run began
/// ([`Healer::wrapper`]). A page with violations first tries the
/// [`Healer::alternatives`]: the XPaths of its patterns' `history`, then the
/// heals earlier pages of the run found, in the order found, keeping the
/// first that holds (`adapt::substitute`). Such a page then goes to
/// [`Healer::broken`], one at a time and in input order, which may heal what
/// is still broken and so add alternatives for the pages after it. Only at
/// the end, in [`Healer::settle`], is each heal decided once for the whole
/// run (the wrapper file rewritten or a proposal stored), and the outputs of
/// the broken pages completed with what was decided.
///
/// So the output does not depend on the number of threads: a page sees the
/// wrapper as the run began, its history, and the heals of the pages before
/// it in input order.
pub trait Healer {
    /// The wrapper every page is extracted with.
    fn wrapper(&self) -> &Wrapper;
    /// Whether broken pages are healed at all.
    fn enabled(&self) -> bool;
    /// The tree-grams every page's selections are checked against for
    /// drift, in every mode (none for a run without them).
    fn grams(&self) -> &TreeGrams;
    /// What a broken page tries before a heal, in order; the list only grows
    /// during a run.
    fn alternatives(&self) -> &[Alternative];
    /// A page the wrapper served as it is, offered so that a heal can be
    /// checked against pages the old XPaths served.
    fn served(&mut self, page: &fetch::Page);
    /// A page that had violations: `tried` is its extraction with the
    /// alternatives that held in place. Gives the page's output, which
    /// [`Healer::settle`] may complete (its [`PageOutput::ticket`]). The
    /// page and its document are the healer's: it may keep them for when it
    /// stores the run's heals, instead of copying the page's bytes or
    /// parsing them again.
    fn broken(&mut self, page: fetch::Page, doc: Document, tried: Substituted) -> PageOutput;
    /// After the last page: decides the run's heals and completes the
    /// outputs that [`Healer::broken`] gave a ticket.
    fn settle(&mut self, outputs: &mut [PageOutput]) -> HealCounts;
}

/// What the heals of a run came to, counted once per decision (an entry of
/// the store), not once per page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HealCounts {
    /// Changes written to the wrapper file.
    pub applied: usize,
    /// Proposals stored for a person, new or added to a waiting one.
    pub proposed: usize,
    /// Patterns left broken because no candidate was good enough.
    pub abstained: usize,
    /// Candidates refused because a person had rejected them before.
    pub rejected: usize,
    /// Pages that the heals of other pages served, beyond the page that found each.
    pub reused: usize,
}

/// The healer of a run without healing: broken pages only try their
/// patterns' history.
struct NoHealing {
    wrapper: Wrapper,
    options: RunOptions,
    grams: TreeGrams,
    alternatives: Vec<Alternative>,
}

impl NoHealing {
    fn new(wrapper: Wrapper, options: RunOptions) -> NoHealing {
        let alternatives = adapt::history_alternatives(&wrapper);
        NoHealing {
            wrapper,
            options,
            grams: TreeGrams::new(),
            alternatives,
        }
    }
}

impl Healer for NoHealing {
    fn wrapper(&self) -> &Wrapper {
        &self.wrapper
    }
    fn enabled(&self) -> bool {
        false
    }
    fn grams(&self) -> &TreeGrams {
        &self.grams
    }
    fn alternatives(&self) -> &[Alternative] {
        &self.alternatives
    }
    fn served(&mut self, _: &fetch::Page) {}
    fn broken(&mut self, page: fetch::Page, _: Document, tried: Substituted) -> PageOutput {
        let fallbacks = fallbacks(&self.alternatives, &tried.used);
        let mut out = page_output(&page, tried.extraction, &self.options);
        out.fallbacks = fallbacks;
        out
    }
    fn settle(&mut self, _: &mut [PageOutput]) -> HealCounts {
        HealCounts::default()
    }
}

/// The output entries of the XPaths that served a page in place of its
/// patterns' own: the alternatives at `used` whose origin is the history,
/// and those whose decision is pending elsewhere (marked `"pending": true`).
/// A heal found earlier in the same run is reported as an adaptation
/// instead.
pub fn fallbacks(alternatives: &[Alternative], used: &[usize]) -> Vec<Value> {
    used.iter()
        .filter_map(|&i| alternatives.get(i))
        .filter_map(|a| match a.origin {
            adapt::Origin::History => {
                Some(serde_json::json!({"pattern": a.pattern, "xpath": a.xpath.source()}))
            }
            adapt::Origin::Pending => Some(
                serde_json::json!({"pattern": a.pattern, "xpath": a.xpath.source(), "pending": true}),
            ),
            adapt::Origin::Fix => None,
        })
        .collect()
}

/// Runs the healer's wrapper over `sources` on the current rayon pool and
/// calls `emit` with each page's output in input order (see [`Healer`]).
/// Outputs are emitted as they come until the first broken page; from
/// there on they wait for [`Healer::settle`], so that every output says
/// what became of its page's heals.
pub fn run_pages_healing(
    healer: &mut dyn Healer,
    sources: &[PageSource],
    options: &RunOptions,
    mut emit: impl FnMut(PageOutput),
) -> Summary {
    let http = HttpClient::new();
    let batch = (rayon::current_num_threads() * 4).max(1);
    let mut stream = PageStream::new(healer, options.clone(), Withhold::AfterBroken);
    for chunk in sources.chunks(batch) {
        let wrapper = stream.wrapper();
        let grams = healer.grams();
        let alternatives = healer.alternatives();
        let seen = alternatives.len();
        // Pages are read, parsed, extracted and checked for drift in
        // parallel, and a page with violations tries the alternatives known
        // when the batch began; what comes after is done in input order.
        let pages: Vec<Result<Read, Box<PageOutput>>> = chunk
            .par_iter()
            .map(|s| match s {
                // A page parsed already is not parsed again, unless the run
                // decodes pages in another charset than it was parsed in.
                fetch::PageSource::Parsed(parsed) if options.encoding.is_none() => {
                    let (page, doc) = (options.read(parsed.page.clone()), parsed.take_document());
                    Ok(Read::of_document(wrapper, page, doc, grams, alternatives))
                }
                _ => match fetch::load(s, &http).map(|p| options.read(p)) {
                    Ok(page) => Ok(Read::of(wrapper, page, grams, alternatives)),
                    Err(e) => Err(Box::new(failed(s, &e))),
                },
            })
            .collect();
        for read in pages {
            if let Some(out) = stream.take(healer, read, seen) {
                emit(out);
            }
        }
    }
    let (summary, waiting) = stream.finish(healer);
    waiting.into_iter().for_each(emit);
    summary
}

/// Extracts `doc` with `wrapper` and checks every pattern with a tree-gram
/// for drift: the extraction's violations include the drift violations.
fn checked(
    wrapper: &Wrapper,
    doc: &Document,
    url: Option<&url::Url>,
    grams: &TreeGrams,
) -> Extraction {
    let mut extraction = extract(wrapper, doc, url);
    let drifted = adapt::drift(wrapper, doc, grams, &extraction);
    extraction.violations.extend(drifted);
    extraction
}

/// The output of an extracted page. A pattern still judged drifted gives
/// `null` (`Extraction::withhold_drifted`): every page's output is made
/// here, in every heal mode, so no record carries a value mend believes
/// wrong.
pub fn page_output(
    page: &fetch::Page,
    mut extraction: Extraction,
    options: &RunOptions,
) -> PageOutput {
    extraction.withhold_drifted();
    PageOutput {
        page: page.name.clone(),
        records: shape(extraction.record, options),
        violations: extraction.violations,
        adaptations: Vec::new(),
        fallbacks: Vec::new(),
        error: None,
        ticket: None,
    }
}

/// Turns the page record into the list of records to emit. Flattened, each
/// instance keeps the page's other top-level fields after its own, under
/// [`page_field_key`].
pub fn shape(record: Map<String, Value>, options: &RunOptions) -> Vec<Value> {
    match &options.flatten {
        None => vec![Value::Object(record)],
        Some(name) => match record.get(name) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::Object(fields) => {
                        let mut flat = fields.clone();
                        for (key, value) in record.iter().filter(|(key, _)| *key != name) {
                            let key = page_field_key(key, |k| fields.contains_key(k));
                            flat.insert(key, value.clone());
                        }
                        Value::Object(flat)
                    }
                    other => other.clone(),
                })
                .collect(),
            _ => Vec::new(),
        },
    }
}

/// The key of a page-level field in a flattened record: its own name, or
/// `page.NAME` when the record has a field of that name already (pattern
/// names hold no `.`, so that key is the page's alone).
pub fn page_field_key(name: &str, record_has: impl Fn(&str) -> bool) -> String {
    if record_has(name) {
        format!("page.{name}")
    } else {
        name.to_owned()
    }
}
