//! Pages given as NDJSON: a file named `.ndjson` or `.jsonl` whose every
//! line is one page, `{"html": "...", "url": "https://..."}`. `url` is
//! optional; with it the page's relative links resolve against it and the
//! output names the page by it, as for a fetched page. This is how pages
//! saved by another tool (a Scrapy feed, a crawl archive turned into lines)
//! come to `mend run` with their URLs.
//!
//! The file is scanned once for where each line starts, and each page is
//! read from its line when its turn comes, so memory holds one batch of
//! pages, not the file.
//!
//! ## What it refuses
//!
//! A line that is not a JSON object with a string `html`, whose `url` is
//! not an absolute URL, or that is longer than twice [`MAX_PAGE_BYTES`] (a
//! page's JSON escapes) is an error entry in its place; the other lines
//! are read. Blank lines are skipped. Standard input is not read as NDJSON,
//! and a gzipped NDJSON file is not decompressed.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use url::Url;

use super::{FetchError, MAX_PAGE_BYTES, Page};

/// One line of an NDJSON file of pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageLine {
    /// The file.
    pub path: PathBuf,
    /// The line's number, from 1.
    pub line: usize,
    /// Where the line starts, in bytes.
    pub offset: u64,
    /// Its length in bytes, without the newline.
    pub len: u64,
}

impl PageLine {
    /// How the line is named before it is read: `FILE:LINE`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.path.display(), self.line)
    }
}

/// Whether a file name says NDJSON (`.ndjson` or `.jsonl`, in any case).
pub fn is_ndjson_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ndjson") || e.eq_ignore_ascii_case("jsonl"))
}

/// The lines of the NDJSON file at `path` that are not blank, in order.
pub fn page_lines(path: &Path) -> Result<Vec<PageLine>, FetchError> {
    let io = |source| FetchError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut reader = BufReader::with_capacity(1 << 16, std::fs::File::open(path).map_err(io)?);
    let mut lines = Vec::new();
    let (mut offset, mut start, mut number, mut blank) = (0_u64, 0_u64, 1_usize, true);
    loop {
        let chunk = reader.fill_buf().map_err(io)?;
        if chunk.is_empty() {
            break;
        }
        let read = chunk.len();
        for (i, &b) in chunk.iter().enumerate() {
            if b == b'\n' {
                let end = offset + i as u64;
                if !blank {
                    lines.push(line(path, number, start, end));
                }
                (start, number, blank) = (end + 1, number + 1, true);
            } else if !b.is_ascii_whitespace() {
                blank = false;
            }
        }
        offset += read as u64;
        reader.consume(read);
    }
    if !blank {
        lines.push(line(path, number, start, offset));
    }
    Ok(lines)
}

fn line(path: &Path, number: usize, start: u64, end: u64) -> PageLine {
    PageLine {
        path: path.to_owned(),
        line: number,
        offset: start,
        len: end - start,
    }
}

/// Reads the page on `line`.
pub fn read_line(line: &PageLine) -> Result<Page, FetchError> {
    let name = line.name();
    let limit = 2 * MAX_PAGE_BYTES;
    if line.len > limit {
        return Err(FetchError::TooLarge { name, limit });
    }
    let io = |source| FetchError::Io {
        path: name.clone(),
        source,
    };
    let mut file = std::fs::File::open(&line.path).map_err(io)?;
    file.seek(SeekFrom::Start(line.offset)).map_err(io)?;
    let mut text = Vec::with_capacity(usize::try_from(line.len).unwrap_or(0));
    file.take(line.len).read_to_end(&mut text).map_err(io)?;
    page_of(&text, name)
}

/// The page a line's JSON gives.
fn page_of(text: &[u8], name: String) -> Result<Page, FetchError> {
    let bad = |message: String| FetchError::BadLine {
        name: name.clone(),
        message,
    };
    #[derive(serde::Deserialize)]
    struct Line {
        html: String,
        #[serde(default)]
        url: Option<String>,
    }
    let parsed: Line = serde_json::from_slice(text).map_err(|e| {
        bad(format!(
            "not a page object ({{\"html\": ..., \"url\": ...}}): {e}"
        ))
    })?;
    let url = parsed
        .url
        .map(|u| Url::parse(&u).map_err(|e| bad(format!("url {u:?}: {e}"))))
        .transpose()?;
    Ok(Page {
        name: url.as_ref().map_or(name.clone(), Url::to_string),
        url,
        bytes: parsed.html.into_bytes(),
        // The text was decoded when it became JSON: a <meta> must not
        // decode it again.
        charset: Some("utf-8".to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &str) -> (tempfile::TempDir, Vec<PageLine>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pages.ndjson");
        std::fs::write(&path, text).unwrap();
        let lines = page_lines(&path).unwrap();
        (dir, lines)
    }

    #[test]
    fn every_line_but_blank_ones_is_a_page_with_its_number() {
        let (_dir, lines) = lines_of(
            "{\"html\": \"<p>a</p>\"}\n\n  \n{\"html\": \"<p>b</p>\", \"url\": \"https://x.example/b\"}",
        );
        let numbers: Vec<usize> = lines.iter().map(|l| l.line).collect();
        assert_eq!(numbers, [1, 4]);
        let first = read_line(&lines[0]).unwrap();
        assert_eq!(first.bytes, b"<p>a</p>");
        assert_eq!(first.url, None);
        assert!(first.name.ends_with("pages.ndjson:1"));
        let second = read_line(&lines[1]).unwrap();
        assert_eq!(second.name, "https://x.example/b");
        assert_eq!(second.url.unwrap().as_str(), "https://x.example/b");
    }

    #[test]
    fn a_bad_line_is_an_error_of_its_own_and_names_its_line() {
        let (_dir, lines) = lines_of(
            "not json\n{\"html\": 3}\n{\"html\": \"x\", \"url\": \"/relative\"}\n{\"html\": \"ok\"}\n",
        );
        assert_eq!(lines.len(), 4);
        for line in &lines[..3] {
            let e = read_line(line).unwrap_err().to_string();
            assert!(e.contains(&format!("pages.ndjson:{}", line.line)), "{e}");
        }
        assert_eq!(read_line(&lines[3]).unwrap().bytes, b"ok");
    }

    #[test]
    fn only_ndjson_and_jsonl_names_are_read_as_lines() {
        assert!(is_ndjson_name(Path::new("a/pages.ndjson")));
        assert!(is_ndjson_name(Path::new("pages.JSONL")));
        assert!(!is_ndjson_name(Path::new("page.html")));
        assert!(!is_ndjson_name(Path::new("ndjson")));
    }
}
