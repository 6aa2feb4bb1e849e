//! Where pages come from: files, directories, standard input and URLs.
//!
//! This is the I/O edge under the job runner. Directories are read
//! recursively for `*.html` and `*.htm` (gzipped too); gzip is recognised by
//! its magic bytes, whatever the name, and a file named `.gz` must be gzip.
//! URLs are fetched over HTTP(S) with timeouts and a bounded number of
//! redirects; each failure is an error for that page alone. A file named
//! `.ndjson` or `.jsonl` is a page per line, each with its URL
//! (`ndjson.rs`). Crawling
//! (following links, politeness) builds on this.
//!
//! What it refuses, each as an error naming the page and why: a page larger
//! than [`MAX_PAGE_BYTES`], a file named `.gz` that is not gzip or does not
//! decompress, and bytes that are plainly not a page (an image, a PDF, an
//! archive, binary data; `sniff.rs`), which the HTML parser would otherwise
//! turn into a document of nothing.

mod http;
mod ndjson;
mod notify;
mod sniff;

use std::io::Read;
use std::path::{Path, PathBuf};

pub use http::HttpClient;
pub(crate) use http::describe as describe_reqwest;
pub use ndjson::{PageLine, is_ndjson_name};
pub use notify::{NOTIFY_BACKOFF, NOTIFY_TIMEOUT, Notice, NotifyError, notify, notify_with};
pub use sniff::not_a_page_response;
use url::Url;

use crate::dom::Document;

/// The largest page mend reads, after decompression.
pub const MAX_PAGE_BYTES: u64 = 256 * 1024 * 1024;

/// Why a page could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// A file or directory could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A page argument names nothing that exists.
    #[error("{0}: no such file, directory or URL")]
    NotFound(String),
    /// A page is larger than the limit ([`MAX_PAGE_BYTES`] unless set
    /// otherwise), counted after any decompression.
    #[error("{name}: larger than {limit} bytes")]
    TooLarge {
        /// The page.
        name: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A file named `.gz` does not hold gzip data.
    #[error("{name}: named .gz but not gzip data (it does not start with the gzip magic bytes)")]
    NotGzip {
        /// The file.
        name: String,
    },
    /// Gzip data that does not decompress.
    #[error("{name}: gzip data that does not decompress: {source}")]
    BadGzip {
        /// The page.
        name: String,
        /// What the decompressor said.
        source: std::io::Error,
    },
    /// The bytes are plainly not a page: a well-known binary format, or
    /// binary data.
    #[error("{name}: not an HTML page: {why}")]
    NotAPage {
        /// The page.
        name: String,
        /// What the bytes are, in words.
        why: String,
    },
    /// The server answered with an error status.
    #[error("{url}: HTTP {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status line.
        status: String,
    },
    /// A line of an NDJSON file of pages that is not a page.
    #[error("{name}: {message}")]
    BadLine {
        /// The file and line.
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// The request failed: DNS, connection, TLS, timeout or too many redirects.
    #[error("{url}: {message}")]
    Request {
        /// The URL.
        url: String,
        /// What went wrong.
        message: String,
    },
}

/// One page to process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageSource {
    /// A local file.
    File(PathBuf),
    /// Standard input.
    Stdin,
    /// An http(s) URL.
    Url(Url),
    /// A page already in memory (fetched by the crawler, say).
    Memory(std::sync::Arc<Page>),
    /// A page already in memory and parsed (a crawler read its links from
    /// it): the job takes the document instead of parsing the page again.
    Parsed(std::sync::Arc<ParsedPage>),
    /// A line of an NDJSON file of pages.
    Line(PageLine),
}

impl PageSource {
    /// How the page is named in output: the path, `-` or the URL.
    pub fn name(&self) -> String {
        match self {
            PageSource::File(p) => p.display().to_string(),
            PageSource::Stdin => "-".to_owned(),
            PageSource::Url(u) => u.to_string(),
            PageSource::Memory(page) => page.name.clone(),
            PageSource::Parsed(parsed) => parsed.page.name.clone(),
            PageSource::Line(line) => line.name(),
        }
    }
}

/// A page's bytes and what is known about them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// How the page is named in output.
    pub name: String,
    /// The URL relative links resolve against, when the page came from one.
    pub url: Option<Url>,
    /// The raw (decompressed) bytes.
    pub bytes: Vec<u8>,
    /// The charset from an HTTP `Content-Type` header.
    pub charset: Option<String>,
}

impl Page {
    /// The page parsed, in the charset its transport declared (else the
    /// one its bytes declare or suggest).
    pub fn document(&self) -> Document {
        Document::parse_with_transport(&self.bytes, self.charset.as_deref())
    }
}

/// A page and its document, parsed once: the document goes to the first
/// that takes it, and whoever asks after that parses the page again.
#[derive(Debug)]
pub struct ParsedPage {
    /// The page.
    pub page: Page,
    document: std::sync::Mutex<Option<Document>>,
}

/// Two parsed pages are equal when their pages are: the document is the
/// page's.
impl PartialEq for ParsedPage {
    fn eq(&self, other: &ParsedPage) -> bool {
        self.page == other.page
    }
}

impl Eq for ParsedPage {}

impl ParsedPage {
    /// `page` with `document`, which must be `page.document()`.
    pub fn new(page: Page, document: Document) -> ParsedPage {
        ParsedPage {
            page,
            document: std::sync::Mutex::new(Some(document)),
        }
    }

    /// The page's document: the one given, the first time.
    pub fn take_document(&self) -> Document {
        let kept = self
            .document
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        kept.unwrap_or_else(|| self.page.document())
    }
}

/// Reads the page one command-line argument names (a file, gzipped or not;
/// `-` for standard input; or an http(s) URL) and parses it, as `mend run`
/// does.
pub fn load_document(arg: &str) -> Result<Document, FetchError> {
    let source = PageSource::from_arg(arg)?;
    Ok(load(&source, &HttpClient::new())?.document())
}

impl PageSource {
    /// The source one page argument names: `-` is standard input, an http(s)
    /// URL stays a URL, anything else is a file that must exist. Directories
    /// are [`expand`]'s business.
    pub fn from_arg(arg: &str) -> Result<PageSource, FetchError> {
        if arg == "-" {
            Ok(PageSource::Stdin)
        } else if arg.starts_with("http://") || arg.starts_with("https://") {
            Url::parse(arg)
                .map(PageSource::Url)
                .map_err(|e| FetchError::Request {
                    url: arg.to_owned(),
                    message: e.to_string(),
                })
        } else if Path::new(arg).exists() {
            Ok(PageSource::File(PathBuf::from(arg)))
        } else {
            Err(FetchError::NotFound(arg.to_owned()))
        }
    }
}

/// Expands page arguments: directories become the HTML files below them, in
/// sorted order; `-` is standard input; http(s) URLs stay URLs.
pub fn expand(args: &[String]) -> Result<Vec<PageSource>, FetchError> {
    let mut out = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        if arg != "-" && path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files)?;
            files.sort();
            out.extend(files.into_iter().map(PageSource::File));
        } else if ndjson::is_ndjson_name(path) && path.is_file() {
            out.extend(ndjson::page_lines(path)?.into_iter().map(PageSource::Line));
        } else {
            out.push(PageSource::from_arg(arg)?);
        }
    }
    Ok(out)
}

/// Whether a file name looks like an HTML page (gzipped or not).
pub fn is_html_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.strip_suffix(".gz").unwrap_or(&lower);
    base.ends_with(".html") || base.ends_with(".htm")
}

/// Iterative directory walk, so that deep trees cannot exhaust the stack.
fn walk(root: &Path, files: &mut Vec<PathBuf>) -> Result<(), FetchError> {
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let io = |source| FetchError::Io {
            path: dir.display().to_string(),
            source,
        };
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            let path = entry.path();
            let kind = entry.file_type().map_err(io)?;
            if kind.is_dir() {
                dirs.push(path);
            } else if is_html_name(&entry.file_name().to_string_lossy()) {
                files.push(path);
            }
        }
    }
    Ok(())
}

/// Loads `source` `times` times, `delay` apart: the loads of one URL whose
/// differences `mend learn` reads as unstable content. The first failure
/// ends it.
pub fn load_times(
    source: &PageSource,
    http: &HttpClient,
    times: usize,
    delay: std::time::Duration,
) -> Result<Vec<Page>, FetchError> {
    let mut pages = Vec::new();
    for i in 0..times {
        if i > 0 {
            std::thread::sleep(delay);
        }
        pages.push(load(source, http)?);
    }
    Ok(pages)
}

/// Reads one page.
pub fn load(source: &PageSource, http: &HttpClient) -> Result<Page, FetchError> {
    let name = source.name();
    match source {
        PageSource::Memory(page) => Ok(Page::clone(page)),
        PageSource::Parsed(parsed) => Ok(parsed.page.clone()),
        PageSource::Line(line) => {
            let page = ndjson::read_line(line)?;
            refuse_non_page(&page.bytes, page.charset.as_deref(), &page.name)?;
            Ok(page)
        }
        PageSource::File(path) => {
            let io = |source| FetchError::Io {
                path: name.clone(),
                source,
            };
            let file = std::fs::File::open(path).map_err(io)?;
            // Sized from the file's length, so that a large page is not read
            // into a buffer that doubles as it fills.
            let expected = file
                .metadata()
                .map_or(0, |m| m.len().min(MAX_PAGE_BYTES) + 1);
            let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
            file.take(MAX_PAGE_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            let named_gz = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
            if named_gz && !bytes.starts_with(&GZIP_MAGIC) {
                return Err(FetchError::NotGzip { name });
            }
            let bytes = decompress(bytes, &name)?;
            refuse_non_page(&bytes, None, &name)?;
            Ok(Page {
                name,
                url: None,
                bytes,
                charset: None,
            })
        }
        PageSource::Stdin => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .take(MAX_PAGE_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|source| FetchError::Io {
                    path: name.clone(),
                    source,
                })?;
            let bytes = decompress(bytes, &name)?;
            refuse_non_page(&bytes, None, &name)?;
            Ok(Page {
                name,
                url: None,
                bytes,
                charset: None,
            })
        }
        PageSource::Url(url) => {
            let fetched = http.get(url)?;
            let bytes = decompress(fetched.bytes, &name)?;
            refuse_non_page(&bytes, fetched.charset.as_deref(), &name)?;
            Ok(Page {
                name,
                url: Some(fetched.final_url),
                bytes,
                charset: fetched.charset,
            })
        }
    }
}

/// The first two bytes of gzip data.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Refuses bytes that are plainly not a page (`sniff.rs`).
fn refuse_non_page(bytes: &[u8], charset: Option<&str>, name: &str) -> Result<(), FetchError> {
    match sniff::not_a_page(bytes, charset) {
        None => Ok(()),
        Some(why) => Err(FetchError::NotAPage {
            name: name.to_owned(),
            why,
        }),
    }
}

/// Gunzips bytes that start with the gzip magic number; refuses oversized pages.
fn decompress(bytes: Vec<u8>, name: &str) -> Result<Vec<u8>, FetchError> {
    if bytes.len() as u64 > MAX_PAGE_BYTES {
        return Err(FetchError::TooLarge {
            name: name.to_owned(),
            limit: MAX_PAGE_BYTES,
        });
    }
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() * 4);
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .take(MAX_PAGE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|source| FetchError::BadGzip {
            name: name.to_owned(),
            source,
        })?;
    if out.len() as u64 > MAX_PAGE_BYTES {
        return Err(FetchError::TooLarge {
            name: name.to_owned(),
            limit: MAX_PAGE_BYTES,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn directories_expand_to_sorted_html_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub/deeper")).unwrap();
        for name in [
            "b.html",
            "a.htm",
            "notes.txt",
            "sub/c.html.gz",
            "sub/deeper/d.HTML",
        ] {
            std::fs::write(dir.path().join(name), b"<p>x").unwrap();
        }
        let sources = expand(&[dir.path().display().to_string()]).unwrap();
        let names: Vec<String> = sources
            .iter()
            .map(|s| match s {
                PageSource::File(p) => p.strip_prefix(dir.path()).unwrap().display().to_string(),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(
            names,
            ["a.htm", "b.html", "sub/c.html.gz", "sub/deeper/d.HTML"]
        );
    }

    #[test]
    fn missing_pages_are_reported_by_name() {
        let err = expand(&["/no/such/page.html".to_owned()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/no/such/page.html: no such file, directory or URL"
        );
    }

    #[test]
    fn gzipped_files_are_decompressed_by_magic_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<h1>zipped</h1>").unwrap();
        std::fs::write(&path, gz.finish().unwrap()).unwrap();
        let page = load(&PageSource::File(path), &HttpClient::new()).unwrap();
        assert_eq!(page.bytes, b"<h1>zipped</h1>");
    }

    fn load_file(name: &str, bytes: &[u8]) -> Result<Page, FetchError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        load(&PageSource::File(path), &HttpClient::new())
    }

    /// A file named `.gz` that was not gzip was parsed as a page.
    #[test]
    fn a_file_named_gz_must_be_gzip() {
        let err = load_file("page.html.gz", b"<h1>plain</h1>").unwrap_err();
        assert!(matches!(err, FetchError::NotGzip { .. }), "{err}");
        assert!(
            err.to_string()
                .ends_with("page.html.gz: named .gz but not gzip data (it does not start with the gzip magic bytes)"),
            "{err}"
        );
        let err = load_file("page.HTML.GZ", b"\x1f\x8b\x08\0 truncated").unwrap_err();
        assert!(matches!(err, FetchError::BadGzip { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("gzip data that does not decompress"),
            "{err}"
        );
        // Gzip is still recognised by its bytes whatever the name.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<h1>zipped</h1>").unwrap();
        assert_eq!(
            load_file("page.html", &gz.finish().unwrap()).unwrap().bytes,
            b"<h1>zipped</h1>"
        );
    }

    /// A PNG given as a page was parsed into a document of nothing.
    #[test]
    fn plainly_binary_pages_are_refused_with_what_they_are() {
        let err = load_file("logo.html", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap_err();
        assert!(matches!(err, FetchError::NotAPage { .. }), "{err}");
        assert!(
            err.to_string()
                .ends_with("logo.html: not an HTML page: it is a PNG image"),
            "{err}"
        );
        // Inside gzip too.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"%PDF-1.4\n").unwrap();
        let err = load_file("report.html.gz", &gz.finish().unwrap()).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("not an HTML page: it is a PDF document"),
            "{err}"
        );
    }
}
