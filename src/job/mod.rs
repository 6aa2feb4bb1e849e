//! Running a wrapper over many pages: loading, parsing and extracting in
//! parallel on all cores, with results delivered in input order.
//!
//! Pages are processed in batches a few times larger than the thread count,
//! so memory stays bounded by the batch while output keeps the order of the
//! arguments.

mod output;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};

pub use output::{OutputFormat, OutputWriter};

use crate::dom::Document;
use crate::extract::{Violation, extract};
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
    let extraction = extract(wrapper, &doc, page.url.as_ref());
    let records = shape(extraction.record, options);
    PageOutput {
        page: page.name.clone(),
        records,
        violations: extraction.violations,
        adaptations: Vec::new(),
        error: None,
    }
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
        Err(e) => {
            tracing::warn!(page = %source.name(), error = %e, "page could not be read");
            PageOutput {
                page: source.name(),
                records: Vec::new(),
                violations: Vec::new(),
                adaptations: Vec::new(),
                error: Some(e.to_string()),
            }
        }
    }
}

/// Runs `wrapper` over `sources` on the current rayon pool, calling `emit`
/// with each page's output in input order.
pub fn run_pages(
    wrapper: &Wrapper,
    sources: &[PageSource],
    options: &RunOptions,
    mut emit: impl FnMut(PageOutput),
) -> Summary {
    let http = HttpClient::new();
    let batch = (rayon::current_num_threads() * 4).max(1);
    let mut summary = Summary::default();
    for chunk in sources.chunks(batch) {
        let outputs: Vec<PageOutput> = chunk
            .par_iter()
            .map(|s| run_one(wrapper, s, &http, options))
            .collect();
        for out in outputs {
            summary.add(&out);
            emit(out);
        }
    }
    summary
}

/// Turns the page record into the list of records to emit.
fn shape(record: Map<String, Value>, options: &RunOptions) -> Vec<Value> {
    match &options.flatten {
        None => vec![Value::Object(record)],
        Some(name) => match record.get(name) {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        },
    }
}
