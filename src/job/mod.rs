//! Running a wrapper over many pages: loading, parsing and extracting in
//! parallel on all cores, with results delivered in input order.
//!
//! Pages are processed in batches a few times larger than the thread count,
//! so memory stays bounded by the batch while output keeps the order of the
//! arguments.

mod output;
#[cfg(test)]
mod tests;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};

pub use output::{OutputFormat, OutputWriter};

use crate::adapt::{self, TreeGrams};
use crate::dom::Document;
use crate::extract::{Extraction, Violation, extract};
use crate::fetch::{self, HttpClient, PageSource};
use crate::wrapper::Wrapper;

/// What one page produced: the object `mend run` prints for it.
#[derive(Clone, Debug, Serialize)]
pub struct PageOutput {
    /// The page's name: its path, `-` or its URL.
    pub page: String,
    /// The page's record, or with `--flatten` one record per instance.
    pub records: Vec<Value>,
    /// Constraints that failed.
    pub violations: Vec<Violation>,
    /// Adaptations tried on the page.
    pub adaptations: Vec<Value>,
    /// Why the page could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How a run shapes its records.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Emit one record per instance of this top-level record pattern.
    pub flatten: Option<String>,
}

/// Counts over a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
}

impl Summary {
    fn add(&mut self, out: &PageOutput) {
        self.pages += 1;
        self.records += out.records.len();
        self.violations += out.violations.len();
        self.violated_pages += usize::from(!out.violations.is_empty());
        self.failed_pages += usize::from(out.error.is_some());
    }
}

/// Processes one page that is already in memory.
pub fn process_page(wrapper: &Wrapper, page: &fetch::Page, options: &RunOptions) -> PageOutput {
    let _span = tracing::info_span!("page", page = %page.name).entered();
    let doc = Document::parse_with_transport(&page.bytes, page.charset.as_deref());
    page_output(page, extract(wrapper, &doc, page.url.as_ref()), options)
}

/// Loads and processes one page, turning a load failure into an error entry.
pub fn run_one(
    wrapper: &Wrapper,
    source: &PageSource,
    http: &HttpClient,
    options: &RunOptions,
) -> PageOutput {
    match fetch::load(source, http) {
        Ok(page) => process_page(wrapper, &page, options),
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
        error: Some(e.to_string()),
    }
}

/// Runs `wrapper` over `sources` on the current rayon pool, calling `emit`
/// with each page's output in input order.
pub fn run_pages(
    wrapper: &Wrapper,
    sources: &[PageSource],
    options: &RunOptions,
    emit: impl FnMut(PageOutput),
) -> Summary {
    let mut healer = NoHealing(wrapper.clone(), options.clone(), TreeGrams::new());
    run_pages_healing(&mut healer, sources, options, emit)
}

/// What a run does with a page whose constraints fail, before the page's
/// output is emitted.
///
/// Pages are loaded, parsed and extracted in parallel with the healer's
/// current wrapper; a page with violations then goes to the healer, one at a
/// time and in input order, so that a heal made on one page is what the next
/// pages are extracted with.
pub trait Healer {
    /// The wrapper pages are extracted with now.
    fn wrapper(&self) -> &Wrapper;
    /// A number that changes whenever [`Healer::wrapper`] does, so that a
    /// page extracted with an older wrapper is extracted again.
    fn revision(&self) -> u64;
    /// Whether pages with violations go to [`Healer::heal`] at all.
    fn enabled(&self) -> bool;
    /// The tree-grams every page's selections are checked against for
    /// drift, in every mode (none for a run without them).
    fn grams(&self) -> &TreeGrams;
    /// Heals one page whose extraction with the current wrapper has
    /// violations, returning the output to emit. `extraction` is that
    /// extraction, handed over so that the page is not extracted again.
    fn heal(&mut self, page: &fetch::Page, doc: &Document, extraction: Extraction) -> PageOutput;
}

/// The healer of a run without healing.
struct NoHealing(Wrapper, RunOptions, TreeGrams);

impl Healer for NoHealing {
    fn wrapper(&self) -> &Wrapper {
        &self.0
    }
    fn revision(&self) -> u64 {
        0
    }
    fn enabled(&self) -> bool {
        false
    }
    fn grams(&self) -> &TreeGrams {
        &self.2
    }
    fn heal(&mut self, page: &fetch::Page, _: &Document, extraction: Extraction) -> PageOutput {
        page_output(page, extraction, &self.1)
    }
}

/// Runs the healer's wrapper over `sources` on the current rayon pool,
/// healing pages with violations in input order, and calls `emit` with each
/// page's output in input order.
pub fn run_pages_healing(
    healer: &mut dyn Healer,
    sources: &[PageSource],
    options: &RunOptions,
    mut emit: impl FnMut(PageOutput),
) -> Summary {
    let http = HttpClient::new();
    let batch = (rayon::current_num_threads() * 4).max(1);
    let mut summary = Summary::default();
    let keep = healer.enabled();
    for chunk in sources.chunks(batch) {
        let wrapper = healer.wrapper().clone();
        let revision = healer.revision();
        let grams = healer.grams();
        // When healing, a page keeps its parsed document and its extraction
        // until its turn comes, so that it is parsed and extracted once: a
        // page with violations goes to the healer with them, and any page
        // after a heal that changed the wrapper is extracted again with the
        // wrapper as that heal left it (it may break under it).
        let outputs: Vec<Result<PageOutput, Box<Kept>>> = chunk
            .par_iter()
            .map(|s| match fetch::load(s, &http) {
                Ok(page) => {
                    let _span = tracing::info_span!("page", page = %page.name).entered();
                    let doc = Document::parse_with_transport(&page.bytes, page.charset.as_deref());
                    let extraction = checked(&wrapper, &doc, page.url.as_ref(), grams);
                    if keep {
                        Err(Box::new(Kept {
                            page,
                            doc,
                            extraction,
                        }))
                    } else {
                        Ok(page_output(&page, extraction, options))
                    }
                }
                Err(e) => Ok(failed(s, &e)),
            })
            .collect();
        for out in outputs {
            let out = match out {
                Ok(out) => out,
                Err(kept) => {
                    let Kept {
                        page,
                        doc,
                        extraction,
                    } = *kept;
                    let _span = tracing::info_span!("heal", page = %page.name).entered();
                    // An earlier page may have healed the wrapper: extract again first.
                    let extraction = if healer.revision() == revision {
                        extraction
                    } else {
                        checked(healer.wrapper(), &doc, page.url.as_ref(), healer.grams())
                    };
                    if extraction.violations.is_empty() {
                        page_output(&page, extraction, options)
                    } else {
                        healer.heal(&page, &doc, extraction)
                    }
                }
            };
            summary.add(&out);
            emit(out);
        }
    }
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

/// A page whose extraction has violations, kept for the healer.
struct Kept {
    page: fetch::Page,
    doc: Document,
    extraction: Extraction,
}

/// The output of an extracted page.
fn page_output(page: &fetch::Page, extraction: Extraction, options: &RunOptions) -> PageOutput {
    PageOutput {
        page: page.name.clone(),
        records: shape(extraction.record, options),
        violations: extraction.violations,
        adaptations: Vec::new(),
        error: None,
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
