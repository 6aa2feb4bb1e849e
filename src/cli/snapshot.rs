//! `mend snapshot WRAPPER PAGE`: capture tree-grams on a page where the
//! wrapper works, and point the wrapper at them.
//!
//! Tree-gram files go under the wrapper's *project directory*: the folder of
//! the wrapper file, or its parent when that folder is named `wrappers` (the
//! layout `wrappers/`, `treegrams/` side by side). A pattern's `treegram:`
//! key holds the file's path relative to that directory; a pattern without
//! the key still finds its tree-gram at the default place,
//! `treegrams/<wrapper>/<pattern path>.html`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::Context as _;
use sha2::{Digest, Sha256};

use super::{EXIT_BAD_INPUT, EXIT_VIOLATED, load_wrapper};
use mend::adapt::TreeGrams;
use mend::dom::Document;
use mend::extract::extract;
use mend::fetch::{self, HttpClient, PageSource};
use mend::similarity::NoMask;
use mend::store::Timestamp;
use mend::treegram::{CaptureOptions, Captured, TreeGram, capture, treegram_file};
use mend::wrapper::{self, Pattern, Wrapper};

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
    pub patterns: Vec<String>,
    /// Capture even though the wrapper's constraints fail on the page.
    #[arg(long)]
    pub force: bool,
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
            eprintln!("error: {e}");
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
        eprintln!(
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
        if find(&wrapper.patterns, p).is_none() {
            eprintln!("error: --pattern {p}: the wrapper has no pattern with that path");
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    }
    let only = (!args.patterns.is_empty()).then_some(args.patterns.as_slice());
    let written = write_treegrams(
        &args.wrapper,
        &wrapper,
        &doc,
        &page.bytes,
        url.as_deref(),
        only,
    )?;
    for (path, c) in &written.files {
        println!(
            "{}: {} ({} instance{})",
            c.pattern,
            path.display(),
            c.instances,
            if c.instances == 1 { "" } else { "s" }
        );
    }
    for s in &written.skipped {
        eprintln!("{}: no tree-gram: {}", s.pattern, s.reason);
    }
    if written.wrapper_changed {
        eprintln!("mend: {} now names its tree-grams", args.wrapper.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// What a capture wrote.
pub struct Written {
    /// Each file written, with what it holds.
    pub files: Vec<(PathBuf, Captured)>,
    /// Patterns that got no tree-gram, and why.
    pub skipped: Vec<mend::treegram::Skipped>,
    /// Whether the wrapper file was edited to name the files.
    pub wrapper_changed: bool,
}

/// Captures tree-grams of `wrapper` (loaded from `wrapper_path`) on `doc`,
/// writes them under the project directory and sets each pattern's
/// `treegram:` key in the wrapper file, preserving its formatting.
pub fn write_treegrams(
    wrapper_path: &Path,
    wrapper: &Wrapper,
    doc: &Document,
    bytes: &[u8],
    url: Option<&str>,
    only: Option<&[String]>,
) -> anyhow::Result<Written> {
    let sha = hex(&Sha256::digest(bytes));
    let captured_at = Timestamp::from(SystemTime::now()).to_string();
    let options = CaptureOptions {
        url,
        sha256: &sha,
        captured: &captured_at,
        instances: wrapper.adapt.treegram_instances,
        min_context: wrapper.adapt.treegram_min_context,
        only,
        unstable: &NoMask,
    };
    let (captured, skipped) = capture(wrapper, doc, &options);
    let project = project_dir(wrapper_path);
    let mut text = std::fs::read_to_string(wrapper_path)
        .with_context(|| format!("cannot read {}", wrapper_path.display()))?;
    let original = text.clone();
    let mut files = Vec::new();
    for c in captured {
        let path = project.join(&c.file);
        write_atomically(&path, c.html.as_bytes())?;
        let names: Vec<&str> = c.pattern.split('/').collect();
        text = wrapper::set_treegram(&text, &names, &c.file).with_context(|| {
            format!("cannot name the tree-gram of {} in the wrapper", c.pattern)
        })?;
        files.push((path, c));
    }
    let wrapper_changed = text != original;
    if wrapper_changed {
        write_atomically(wrapper_path, text.as_bytes())?;
    }
    Ok(Written {
        files,
        skipped,
        wrapper_changed,
    })
}

/// Refreshes the tree-grams of `patterns` from a stored page (after an
/// approval), and returns the files written.
pub fn refresh_treegrams(
    wrapper_path: &Path,
    page_html: &[u8],
    url: Option<&str>,
    patterns: &[String],
) -> anyhow::Result<Vec<PathBuf>> {
    let wrapper = wrapper::load_file(wrapper_path)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("cannot load {}", wrapper_path.display()))?;
    let doc = Document::parse(page_html);
    let written = write_treegrams(wrapper_path, &wrapper, &doc, page_html, url, Some(patterns))?;
    for s in &written.skipped {
        tracing::warn!(pattern = %s.pattern, reason = %s.reason, "no tree-gram refreshed");
    }
    Ok(written.files.into_iter().map(|(p, _)| p).collect())
}

/// Loads every tree-gram the wrapper's patterns have, by their `treegram:`
/// key or at the default place; unreadable files are reported and skipped.
pub fn load_treegrams(wrapper_path: &Path, wrapper: &Wrapper) -> TreeGrams {
    let project = project_dir(wrapper_path);
    let mut grams = TreeGrams::new();
    let mut stack: Vec<(String, &Pattern)> = wrapper
        .patterns
        .iter()
        .map(|p| (p.name.clone(), p))
        .collect();
    while let Some((path, p)) = stack.pop() {
        for c in &p.patterns {
            stack.push((format!("{path}/{}", c.name), c));
        }
        let file = p
            .treegram
            .clone()
            .unwrap_or_else(|| treegram_file(&wrapper.name, &path));
        let full = project.join(&file);
        match std::fs::read(&full) {
            Ok(bytes) => match TreeGram::parse(&bytes) {
                Ok(g) => grams.insert(path, g),
                Err(e) => tracing::warn!(file = %full.display(), error = %e, "tree-gram skipped"),
            },
            Err(e) if p.treegram.is_some() => {
                tracing::warn!(file = %full.display(), error = %e, "tree-gram not readable")
            }
            Err(_) => {}
        }
    }
    grams
}

/// The folder tree-gram paths are relative to: the wrapper's folder, or its
/// parent when the folder is named `wrappers`.
pub fn project_dir(wrapper_path: &Path) -> PathBuf {
    let dir = wrapper_path.parent().unwrap_or(Path::new(""));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    match dir.file_name() {
        Some(name) if name == "wrappers" => dir.parent().unwrap_or(dir).to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// Writes a file atomically (see [`super::review::write_atomically`]),
/// creating its folder first.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let text = std::str::from_utf8(bytes).context("mend writes text files only")?;
    super::review::write_atomically(path, text)
        .with_context(|| format!("cannot write {}", path.display()))
}

fn find<'a>(patterns: &'a [Pattern], path: &str) -> Option<&'a Pattern> {
    let mut list = patterns;
    let mut found = None;
    for name in path.split('/') {
        let p = list.iter().find(|p| p.name == name)?;
        found = Some(p);
        list = &p.patterns;
    }
    found
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
