//! The pipeline's second half: the item pages read go through the runtime
//! with the documents their reading parsed, and their records, given the
//! pages' images, are written.
//!
//! ## What it refuses
//!
//! A page read without its document (not an item page, or one unchanged
//! since `since`) is not extracted and writes nothing. Outputs are matched
//! to pages by order: an extraction that gives fewer outputs than it was
//! given pages leaves the last pages without records, and the count
//! [`PagePipeline::extract_items`] returns says so.

use std::future::Future;
use std::sync::Arc;

use super::{PagePipeline, PageRead};
use crate::fetch::{Page, ParsedPage};
use crate::job::PageOutput;

/// How a crawl runs its item pages through the runtime, healing as its job
/// says.
pub trait Extraction {
    /// Why pages could not be extracted at all (a page that fails is an
    /// output with an error, not this).
    type Error;

    /// Extracts `pages`, each parsed once by the pipeline, giving one
    /// output per page in their order.
    fn extract(
        &mut self,
        pages: Vec<Arc<ParsedPage>>,
    ) -> impl Future<Output = Result<Vec<PageOutput>, Self::Error>> + Send;
}

/// Where a crawl's records go.
pub trait RecordSink {
    /// Why a page's records could not be written.
    type Error;

    /// Writes the output of the item page `read`.
    fn write(&mut self, read: &PageRead, out: PageOutput) -> Result<(), Self::Error>;
}

impl PagePipeline<'_> {
    /// Extracts the pages of `reads` that kept their document, all in one
    /// call of `extraction`, adds each page's images to its records and
    /// writes each output to `sink`, in the pages' order. Gives how many
    /// outputs were written.
    ///
    /// The documents and the pages' bytes are taken from the reads (a page
    /// is parsed once and held once); the rest of each read stays for the
    /// caller to record.
    pub async fn extract_items<'r, X, S>(
        &self,
        extraction: &mut X,
        reads: impl IntoIterator<Item = &'r mut PageRead>,
        sink: &mut S,
    ) -> Result<usize, X::Error>
    where
        X: Extraction,
        S: RecordSink<Error = X::Error>,
    {
        let mut extracted: Vec<&PageRead> = Vec::new();
        let mut sources = Vec::new();
        for read in reads {
            if let Some(document) = read.document.take() {
                // The bytes move to the extraction rather than being copied:
                // a page is held once, however large.
                let bytes = std::mem::take(&mut read.page.bytes);
                let page = Page {
                    bytes,
                    ..read.page.clone()
                };
                let parsed = ParsedPage::new(page, document);
                sources.push(Arc::new(parsed));
                extracted.push(read);
            }
        }
        if sources.is_empty() {
            return Ok(0);
        }
        let outputs = extraction.extract(sources).await?;
        let mut written = 0;
        for (mut out, read) in outputs.into_iter().zip(extracted) {
            attach_media(&mut out, &read.media);
            sink.write(read, out)?;
            written += 1;
        }
        Ok(written)
    }
}

/// Adds `_media` to every record of a page that downloaded images.
fn attach_media(out: &mut PageOutput, media: &[serde_json::Value]) {
    if !media.is_empty() {
        out.set_in_records("_media", Some(&serde_json::Value::Array(media.to_vec())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::{CacheEntry, Fetcher, ItemRule};
    use crate::dom::Document;
    use crate::job::{RunOptions, process_document};
    use crate::wrapper::{Politeness, RenderMode, Wrapper};

    const WRAPPER: &str = "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n";

    /// Extracts with the job alone, and counts its calls and pages.
    struct Plain {
        wrapper: Wrapper,
        calls: Vec<usize>,
    }

    impl Extraction for Plain {
        type Error = String;

        async fn extract(
            &mut self,
            pages: Vec<Arc<ParsedPage>>,
        ) -> Result<Vec<PageOutput>, String> {
            self.calls.push(pages.len());
            let options = RunOptions::default();
            Ok(pages
                .iter()
                .map(|p| process_document(&self.wrapper, &p.page, &p.take_document(), &options))
                .collect())
        }
    }

    /// Keeps what it is given: the page's time and its records.
    #[derive(Default)]
    struct Kept(Vec<(i64, Vec<serde_json::Value>)>);

    impl RecordSink for Kept {
        type Error = String;

        fn write(&mut self, read: &PageRead, out: PageOutput) -> Result<(), String> {
            self.0.push((read.fetched_at, out.records));
            Ok(())
        }
    }

    /// A page read whose bytes say `raw`, with a document that says
    /// `parsed` when it is kept for extraction: what is extracted shows
    /// which of the two the job read.
    fn read(at: i64, kept: bool, media: &[&str]) -> PageRead {
        let url = url::Url::parse(&format!("http://127.0.0.1/item/{at}")).unwrap();
        let page = Page {
            name: url.to_string(),
            url: Some(url.clone()),
            bytes: b"<h1>raw</h1>".to_vec(),
            charset: None,
        };
        let document = Document::parse(format!("<h1>parsed {at}</h1>").as_bytes());
        PageRead {
            page,
            document: kept.then_some(document),
            status: 200,
            final_url: url,
            item: true,
            links: Vec::new(),
            item_links: 0,
            unchanged: !kept,
            media: media.iter().map(|m| serde_json::json!(m)).collect(),
            rendered: false,
            render_vote: None,
            cache: CacheEntry::default(),
            cached: None,
            fetched_at: at,
        }
    }

    /// Runs the second half of the pipeline on `reads`; what was written,
    /// how many, and the extraction's calls.
    fn extract_items(reads: &mut [PageRead]) -> (usize, Kept, Vec<usize>) {
        let wrapper = crate::wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
        let fetcher = Fetcher::new(Politeness::default()).unwrap();
        let rule = ItemRule::Pattern(regex::Regex::new("/item/").unwrap());
        let pipeline = PagePipeline {
            fetcher: &fetcher,
            renderer: None,
            wrapper: &wrapper,
            rule: &rule,
            render: RenderMode::Never,
            since: None,
        };
        let mut extraction = Plain {
            wrapper: wrapper.clone(),
            calls: Vec::new(),
        };
        let mut kept = Kept::default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let written = runtime
            .block_on(pipeline.extract_items(&mut extraction, reads.iter_mut(), &mut kept))
            .unwrap();
        (written, kept, extraction.calls)
    }

    #[test]
    fn kept_pages_are_extracted_from_their_document_in_one_call_and_written_in_order() {
        let mut reads = [read(1, true, &[]), read(2, false, &[]), read(3, true, &[])];
        let (written, kept, calls) = extract_items(&mut reads);
        assert_eq!(written, 2);
        assert_eq!(calls, [2]);
        let titles: Vec<(i64, &serde_json::Value)> =
            kept.0.iter().map(|(at, r)| (*at, &r[0]["title"])).collect();
        assert_eq!(
            titles,
            [
                (1, &serde_json::json!(["parsed 1"])),
                (3, &serde_json::json!(["parsed 3"]))
            ]
        );
        assert!(reads.iter().all(|r| r.document.is_none()));
        assert!(reads[0].page.bytes.is_empty() && reads[2].page.bytes.is_empty());
        assert_eq!(
            reads[1].page.bytes, b"<h1>raw</h1>",
            "a page not extracted keeps its bytes"
        );
    }

    #[test]
    fn a_pages_images_go_into_each_of_its_records() {
        let mut reads = [read(1, true, &["a.png", "b.png"]), read(2, true, &[])];
        let (_, kept, _) = extract_items(&mut reads);
        assert_eq!(
            kept.0[0].1[0]["_media"],
            serde_json::json!(["a.png", "b.png"])
        );
        assert!(kept.0[1].1[0].get("_media").is_none());
    }

    #[test]
    fn nothing_to_extract_asks_nothing_of_the_extraction() {
        let mut reads = [read(1, false, &["a.png"])];
        let (written, kept, calls) = extract_items(&mut reads);
        assert_eq!((written, kept.0.len(), calls.len()), (0, 0, 0));
    }
}
