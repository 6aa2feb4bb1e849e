//! `mend template WRAPPER URL|PAGE...`: finds the site's template (the
//! header, menus and footer its pages share, `mend::site_template`) and
//! writes it beside the wrapper's tree-grams as
//! `treegrams/<wrapper>/site.template.html`, through the wrapper-change
//! protocol.
//!
//! With one http(s) URL, the key page is fetched and, among its links to
//! its own site, `--n` pages (4 with the key page) that all link to each
//! other are looked for (Algorithm 1 of Alarte et al.), each tried page
//! fetched once; the number fetched is reported. With saved pages, the
//! first is the key page and the others are the pages that may join it:
//! their URLs are read from their `<base href>` (or `--url` for the key
//! page), and a page joins when the pages link to each other as on the
//! site; when the pages given do not link to each other (detail pages of
//! one template, say), the first `--n` are taken as they are, and the
//! report says so. The template is the equal top-down mapping of the key
//! page onto every other (Algorithm 2).
//!
//! ## What it refuses
//!
//! It exits 2 for a wrapper that is invalid or missing, an `--n` outside 2
//! to 64, a page argument that names nothing, a URL given with other pages,
//! a single saved page, a `--url` that does not parse, and a store file
//! that is not a mend store. A page that cannot be read, a store that
//! cannot be opened, and no other page found to share the template are
//! exit 3; a save that
//! fails is exit 2 or 3 as the runtime judges it, and writes nothing. A
//! linked page that cannot be fetched is passed over.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use url::Url;

use super::capture::plural;
use super::{EXIT_BAD_INPUT, EXIT_FAILURE, load_wrapper};
use mend::crawl::links_of;
use mend::dom::Document;
use mend::extract::page_base;
use mend::fetch::{self, HttpClient, Page, PageSource};
use mend::runtime::save_site_template;
use mend::site_template::{DEFAULT_PAGES, SiteTemplate, complete_subdigraph};
use mend::store::Store;

/// Finds the site's template and writes it beside the tree-grams.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The wrapper file (YAML) whose tree-gram folder gets the template.
    pub wrapper: PathBuf,
    /// The key page's http(s) URL, or saved pages of the site (the first is
    /// the key page).
    #[arg(required = true, value_name = "URL|PAGE")]
    pub pages: Vec<String>,
    /// How many pages the template is learned from, the key page included.
    #[arg(long, default_value_t = DEFAULT_PAGES)]
    pub n: usize,
    /// The key page's URL, when it is a saved page without `<base href>`.
    #[arg(long)]
    pub url: Option<String>,
    /// The store that journals the change (default: $MEND_STORE, else
    /// `.mend/mend.db` beside the wrapper).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

/// A page read, with its URL when known.
struct Loaded {
    page: Page,
    url: Option<Url>,
    doc: Document,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wrapper = match load_wrapper(&args.wrapper) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    if !(2..=64).contains(&args.n) {
        say!(
            "error: --n {}: a template is learned from 2 to 64 pages",
            args.n
        );
        return Ok(ExitCode::from(EXIT_BAD_INPUT));
    }
    let sources = match args
        .pages
        .iter()
        .map(|p| PageSource::from_arg(p))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(s) => s,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    };
    let (chosen, loaded, how) = match choose_pages(&args, &sources)? {
        Ok(chosen) => chosen,
        Err(code) => return Ok(code),
    };
    if chosen.len() < 2 {
        say!(
            "error: no other page of the site was found to share a template with the key page \
             ({how})"
        );
        return Ok(ExitCode::from(EXIT_FAILURE));
    }
    let others: Vec<&Document> = chosen[1..].iter().map(|l| &l.doc).collect();
    let template = SiteTemplate::learn(&chosen[0].doc, &others);
    let store_path = super::store_for(args.store.as_deref(), &args.wrapper);
    let mut store = match Store::open(&store_path) {
        Ok(store) => store,
        // A file that is not a mend store is the user's to fix (exit 2), as
        // in every other command; a store that cannot be opened is exit 3.
        Err(e) => return Ok(super::review::store_failure(&e)),
    };
    let path = match save_site_template(&mut store, &args.wrapper, &wrapper, &template.to_html()) {
        Ok(p) => p,
        Err(e) => {
            return Ok(super::runtime_failure(&e, "; nothing was written"));
        }
    };
    out!(
        "template: {} ({} of {} elements of the key page, from {}; {} loaded: {how})",
        path.display(),
        template.elements(),
        chosen[0].doc.element_count(),
        plural(chosen.len(), "page"),
        plural(loaded, "page"),
    );
    for l in &chosen {
        out!("  {}", l.page.name);
    }
    Ok(ExitCode::SUCCESS)
}

/// The pages a template is learned from, the key page first; how many
/// were loaded, and how they were found.
type Chosen = (Vec<Loaded>, usize, String);

/// Reads a page and its base URL.
fn read(source: &PageSource, client: &HttpClient) -> anyhow::Result<Loaded> {
    let page = fetch::load(source, client).context("cannot read the page")?;
    let doc = Document::parse_with_transport(&page.bytes, page.charset.as_deref());
    let url = page_base(&doc, page.url.as_ref());
    Ok(Loaded { page, url, doc })
}

/// The pages to learn from: from one URL, the pages its links lead to;
/// from saved pages, those given. Refuses a mix, and one saved page.
fn choose_pages(args: &Args, sources: &[PageSource]) -> anyhow::Result<Result<Chosen, ExitCode>> {
    let client = HttpClient::new();
    Ok(Ok(match sources {
        [source @ PageSource::Url(_)] => {
            let key = read(source, &client)?;
            let Some(key_url) = key.url.clone() else {
                say!("error: the key page has no URL");
                return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
            };
            pages_by_links(key, &key_url, args.n, &client)
        }
        _ if sources.iter().any(|s| matches!(s, PageSource::Url(_))) => {
            say!("error: give one URL (its site's pages are found by its links), or saved pages");
            return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
        }
        [_] => {
            say!(
                "error: one saved page has no template to share: give two or more pages of the site"
            );
            return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
        }
        _ => {
            let mut pages = Vec::with_capacity(sources.len());
            for s in sources {
                pages.push(read(s, &client)?);
            }
            if let Some(u) = &args.url {
                match Url::parse(u) {
                    Ok(u) => pages[0].url = Some(u),
                    Err(e) => {
                        say!("error: --url {u}: {e}");
                        return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
                    }
                }
            }
            choose_saved(pages, args.n)
        }
    }))
}

/// The key page and up to `n - 1` pages of its site that link to each
/// other as it does, fetched by following links.
fn pages_by_links(key: Loaded, key_url: &Url, n: usize, client: &HttpClient) -> Chosen {
    let links = links_of(&key.doc, key_url, &[]);
    let mut fetched: Vec<Loaded> = Vec::new();
    let sub = complete_subdigraph(key_url, &links, n, |u| {
        let loaded = read(&PageSource::Url(u.clone()), client).ok()?;
        let base = loaded.url.clone().unwrap_or_else(|| u.clone());
        let links = links_of(&loaded.doc, &base, &[]);
        fetched.push(loaded);
        Some(links)
    });
    let mut chosen = vec![key];
    for url in &sub.pages[1..] {
        if let Some(i) = fetched
            .iter()
            .position(|l| l.page.url.as_ref().is_some_and(|p| same(p, url)))
        {
            chosen.push(fetched.swap_remove(i));
        }
    }
    let how = format!("{} fetched by their links", plural(sub.loaded, "page"));
    (chosen, sub.loaded + 1, how)
}

/// Saved pages: those that link to each other as on the site, when their
/// URLs are known, else the first `n` given.
fn choose_saved(pages: Vec<Loaded>, n: usize) -> Chosen {
    let total = pages.len();
    if let Some(key_url) = pages[0].url.clone() {
        let key_links = links_of(&pages[0].doc, &key_url, &[]);
        let sub = complete_subdigraph(&key_url, &key_links, n, |u| {
            let p = pages[1..]
                .iter()
                .find(|p| p.url.as_ref().is_some_and(|pu| same(pu, u)))?;
            Some(links_of(&p.doc, u, &[]))
        });
        if sub.pages.len() >= n.min(total) && sub.pages.len() > 1 {
            let mut pages = pages;
            let mut chosen = vec![pages.remove(0)];
            for url in &sub.pages[1..] {
                if let Some(i) = pages
                    .iter()
                    .position(|p| p.url.as_ref().is_some_and(|pu| same(pu, url)))
                {
                    chosen.push(pages.remove(i));
                }
            }
            let how = format!(
                "{} of {total} given tried by their links",
                plural(sub.loaded, "page")
            );
            return (chosen, total, how);
        }
    }
    let chosen: Vec<Loaded> = pages.into_iter().take(n).collect();
    let how = format!(
        "the pages given do not link to each other, so the first {} were taken",
        chosen.len()
    );
    (chosen, total, how)
}

/// Whether two URLs name the same page (fragments aside).
fn same(a: &Url, b: &Url) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    a.set_fragment(None);
    b.set_fragment(None);
    a == b
}
