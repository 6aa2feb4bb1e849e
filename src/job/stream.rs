//! A run fed one page at a time: the in-order half of a run, for callers
//! that get their pages as they come (a Python program, a Scrapy crawl)
//! rather than as a list of sources. [`super::run_pages_healing`] drives
//! the same stream after reading each batch in parallel, so both ways of
//! running give the same outputs, page for page.
//!
//! ## What it refuses
//!
//! A stream decides nothing until [`PageStream::finish`]: heals found on a
//! page serve the pages after it at once, but the wrapper file and the
//! store change only at the end, once per heal. With
//! [`Withhold::Nothing`], outputs are given back as they are made, so the
//! adaptations of a broken page's output are not completed with what was
//! decided; the caller reads the decisions from the store instead.

use super::{Healer, PageOutput, RunOptions, Summary, checked, page_output};
use crate::adapt::{self, Alternative, Substituted, TreeGrams};
use crate::dom::Document;
use crate::extract::{Extraction, Violation};
use crate::fetch;
use crate::wrapper::Wrapper;

/// Which outputs a stream keeps until the run's heals are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Withhold {
    /// Every output from the first broken page on (as `mend run` does), so
    /// that each says what became of its page's heals; memory grows with
    /// the outputs held.
    AfterBroken,
    /// None: each output is given back at once, with the records the heals
    /// found so far give.
    Nothing,
}

/// The in-order state of a run: its counts and the outputs it holds.
#[derive(Debug)]
pub struct PageStream {
    wrapper: Wrapper,
    options: RunOptions,
    withhold: Withhold,
    summary: Summary,
    waiting: Vec<PageOutput>,
}

impl PageStream {
    /// A stream of the pages `healer` heals, read as `options` say.
    pub fn new(healer: &dyn Healer, options: RunOptions, withhold: Withhold) -> PageStream {
        PageStream {
            wrapper: healer.wrapper().clone(),
            options,
            withhold,
            summary: Summary::default(),
            waiting: Vec::new(),
        }
    }

    /// Reads, extracts and (when it broke) heals one page; gives its output
    /// unless the stream holds it until [`PageStream::finish`].
    pub fn page(&mut self, healer: &mut dyn Healer, page: fetch::Page) -> Option<PageOutput> {
        let page = self.options.read(page);
        let seen = healer.alternatives().len();
        let read = Read::of(&self.wrapper, page, healer.grams(), healer.alternatives());
        self.take(healer, Ok(read), seen)
    }

    /// The wrapper the stream extracts with: the healer's as the run began.
    pub fn wrapper(&self) -> &Wrapper {
        &self.wrapper
    }

    /// The counts so far, of the outputs given back.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Decides the run's heals ([`Healer::settle`]); gives the run's counts
    /// and the outputs held, completed, in input order.
    pub fn finish(mut self, healer: &mut dyn Healer) -> (Summary, Vec<PageOutput>) {
        self.summary.heals = healer.settle(&mut self.waiting);
        for out in &self.waiting {
            self.summary.add(out);
        }
        (self.summary, self.waiting)
    }

    /// The in-order step of a page read when `seen` alternatives were
    /// known: a broken page goes to the healer, trying again first with
    /// the heals found since.
    pub(super) fn take(
        &mut self,
        healer: &mut dyn Healer,
        read: Result<Read, Box<PageOutput>>,
        seen: usize,
    ) -> Option<PageOutput> {
        let out = match read {
            Err(out) => *out,
            Ok(Read {
                page,
                first,
                tried: None,
                ..
            }) => {
                healer.served(&page);
                page_output(&page, first, &self.options)
            }
            Ok(Read {
                page,
                doc,
                first,
                tried: Some(mut tried),
                drifted,
            }) => {
                let _span = tracing::info_span!("broken", page = %page.name).entered();
                self.summary.drifted_pages += usize::from(drifted);
                // Heals found on earlier pages came after this page's first
                // try: the page tries again with them, from its first
                // extraction, as if it had come alone.
                if healer.alternatives().len() > seen && !tried.extraction.violations.is_empty() {
                    tried = adapt::substitute(
                        &self.wrapper,
                        &doc,
                        page.url.as_ref(),
                        healer.grams(),
                        first,
                        healer.alternatives(),
                    );
                }
                healer.broken(page, doc, tried)
            }
        };
        let hold = self.withhold == Withhold::AfterBroken
            && (out.ticket.is_some() || !self.waiting.is_empty());
        if hold {
            self.waiting.push(out);
            None
        } else {
            self.summary.add(&out);
            Some(out)
        }
    }
}

/// A page read, parsed and extracted: `tried` is set when it had violations.
pub(super) struct Read {
    page: fetch::Page,
    doc: Document,
    first: Extraction,
    tried: Option<Substituted>,
    drifted: bool,
}

impl Read {
    /// Parses and extracts `page`, checks it for drift against `grams`,
    /// and when it has violations tries `alternatives`. This is the part of
    /// a page's work that needs nothing of the pages before it.
    pub(super) fn of(
        wrapper: &Wrapper,
        page: fetch::Page,
        grams: &TreeGrams,
        alternatives: &[Alternative],
    ) -> Read {
        let doc = page.document();
        Read::of_document(wrapper, page, doc, grams, alternatives)
    }

    /// [`Read::of`] a page parsed already: `doc` is `page.document()`.
    pub(super) fn of_document(
        wrapper: &Wrapper,
        page: fetch::Page,
        doc: Document,
        grams: &TreeGrams,
        alternatives: &[Alternative],
    ) -> Read {
        let _span = tracing::info_span!("page", page = %page.name).entered();
        let first = checked(wrapper, &doc, page.url.as_ref(), grams);
        let drifted = first.violations.iter().any(Violation::is_drift);
        let tried = (!first.violations.is_empty()).then(|| {
            adapt::substitute(
                wrapper,
                &doc,
                page.url.as_ref(),
                grams,
                first.clone(),
                alternatives,
            )
        });
        Read {
            page,
            doc,
            first,
            tried,
            drifted,
        }
    }
}
