//! `mend learn WRAPPER PAGE...`: learns what changes from one load of a
//! page to the next (dates, clocks, counters, rotating teasers, ad slots),
//! and captures the wrapper's tree-grams with it marked unstable, so that
//! drift detection and healing ignore it and no locator leans on it.
//!
//! The loads are saved copies of one page given as files, or one http(s)
//! URL fetched `--loads` times (10, the Demodocus crawler's setting, unless
//! said otherwise). With `--render`, each load is rendered in headless
//! Chromium and watched for change for at least `--watch-min` and at most
//! `--watch-max` seconds (8 and 20), every version seen being one more load.
//! The loads are combined by the HtmlTemplate's ADD (`mend::unstable`) into
//! the template the wrapper has already, if any; the template is written
//! beside the tree-grams (`treegrams/<wrapper>/page.unstable.html`), and it
//! and the tree-grams captured on the first load are written as one change
//! of the wrapper-change protocol. Later snapshots, heals and approvals lay
//! the template over their page, so that what was learned stays marked.
//!
//! It refuses, with exit 2 before any load is read, a single saved copy (one
//! load shows nothing changing), `-` given more than once, `--loads` outside
//! 2 to 100 (1 only with `--render`), `--loads` or `--render` with anything
//! but one URL, and `--watch-min`, `--watch-max` or `--delay` that are not
//! seconds within an hour. It also refuses a `--pattern` the wrapper does not
//! have, a template already learned that mend will not read, and, unless
//! `--force` is given, a first load on which the wrapper's constraints fail.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;

use super::capture::{
    check_patterns, keep_capture, plural, record_baseline, refuse_violated, report_written,
};
use super::{EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_VIOLATED, load_wrapper};
use mend::adapt::TreeGrams;
use mend::dom::Document;
use mend::extract::extract;
use mend::fetch::{self, HttpClient, Page, PageSource};
use mend::health::HealthTally;
use mend::render::{RenderOptions, Renderer, Watch};
use mend::runtime::{
    CaptureMarks, Project, capture_treegrams, learn_template, load_unstable_template, save_learned,
    unstable_template_file,
};
use mend::store::Store;
use mend::unstable::HtmlTemplate;
use mend::wrapper::PatternPath;

/// How many times one URL is loaded when `--loads` is not given.
const DEFAULT_LOADS: usize = 10;
/// The most loads accepted: each is a fetch of the same page.
const MAX_LOADS: usize = 100;

/// Learns a page's unstable content and captures tree-grams that ignore it.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The wrapper file (YAML).
    pub wrapper: PathBuf,
    /// Loads of one page on which the wrapper works: two or more saved
    /// copies (files, or `-` once), or one http(s) URL that is fetched
    /// --loads times. The tree-grams are captured on the first load.
    #[arg(required = true, value_name = "PAGE")]
    pub pages: Vec<String>,
    /// How many times to load the one URL given (default 10).
    #[arg(long, value_name = "N")]
    pub loads: Option<usize>,
    /// Render each load in headless Chromium and watch it for change.
    #[arg(long)]
    pub render: bool,
    /// With --render: the least time each load is watched, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 8.0)]
    pub watch_min: f64,
    /// With --render: the most time each load is watched, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0)]
    pub watch_max: f64,
    /// The pause between two fetches of the URL, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub delay: f64,
    /// The page's URL, recorded in the tree-gram headers (for files).
    #[arg(long)]
    pub url: Option<String>,
    /// Only these patterns get new tree-grams (paths of names such as
    /// `book/price`); may repeat. The template is learned for the whole page.
    #[arg(long = "pattern")]
    pub patterns: Vec<PatternPath>,
    /// Capture even though the wrapper's constraints fail on the first load.
    #[arg(long)]
    pub force: bool,
    /// The store that journals the change (default: $MEND_STORE, else
    /// `.mend/mend.db` beside the wrapper).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wrapper = match load_wrapper(&args.wrapper) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    if let Err(code) = check_patterns(&wrapper, &args.patterns) {
        return Ok(code);
    }
    let pages = match read_loads(&args)? {
        Ok(pages) => pages,
        Err(code) => return Ok(code),
    };
    say!("mend: {} of the page", plural(pages.len(), "load"));
    let docs: Vec<Document> = pages.iter().map(mend::fetch::Page::document).collect();
    let first = &pages[0];
    let url = args
        .url
        .clone()
        .or_else(|| first.url.as_ref().map(|u| u.to_string()));
    let base = url.as_deref().and_then(|u| url::Url::parse(u).ok());
    let extraction = extract(&wrapper, &docs[0], base.as_ref());
    if !extraction.violations.is_empty() && !args.force {
        refuse_violated(&first.name, &extraction.violations);
        return Ok(ExitCode::from(EXIT_VIOLATED));
    }
    let project = Project::of(&args.wrapper);
    let (template, marks, had_template) = match learned(&project, &wrapper, &docs)? {
        Ok(learned) => learned,
        Err(code) => return Ok(code),
    };
    let (elements, attributes, texts) = marks.unstable_mask().map_or((0, 0, 0), |m| m.counts());
    let only = (!args.patterns.is_empty()).then_some(args.patterns.as_slice());
    let (captured, skipped) = capture_treegrams(
        &wrapper,
        &docs[0],
        &first.bytes,
        url.as_deref(),
        only,
        &marks,
    );
    let store_path = super::store_for(args.store.as_deref(), &args.wrapper);
    let mut store = match Store::open(&store_path) {
        Ok(store) => store,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    let written = match save_learned(
        &mut store,
        &args.wrapper,
        &wrapper,
        captured,
        &template,
        &mut TreeGrams::new(),
    ) {
        Ok(w) => w,
        Err(e) => {
            return Ok(super::runtime_failure(
                &e,
                "; the wrapper and its tree-grams are as they were",
            ));
        }
    };
    let file = project.dir.join(unstable_template_file(&wrapper.name));
    out!(
        "template: {} ({} over {}{}: {} unstable, {} unstable, {} unstable on the first load)",
        file.display(),
        if had_template { "added to" } else { "learned" },
        plural(template.loads(), "load"),
        if had_template { " in all" } else { "" },
        plural(texts, "text"),
        plural(attributes, "attribute"),
        plural(elements, "element"),
    );
    report_written(&written, &skipped);
    keep_capture(&mut store, &wrapper, &written, &first.name, &first.bytes);
    if written.wrapper_changed {
        say!("mend: {} now names its tree-grams", args.wrapper.display());
    }
    // The loads are one page: the baseline is the first, as a snapshot's.
    let mut health = HealthTally::new(&wrapper);
    health.merge(HealthTally::of_page(
        &wrapper,
        0,
        &first.name,
        &extraction.record,
        &extraction.violations,
        None,
    ));
    Ok(record_baseline(&mut store, &wrapper, 1, &health))
}

/// The page's template of what changes from one load to the next (added
/// to the one learned before, if any), the capture's marks with it, and
/// whether there was one before.
fn learned(
    project: &Project,
    wrapper: &mend::wrapper::Wrapper,
    docs: &[Document],
) -> anyhow::Result<Result<(HtmlTemplate, CaptureMarks, bool), ExitCode>> {
    let existing = match load_unstable_template(project, wrapper) {
        Ok(t) => t,
        Err(e) => {
            say!("error: {e}; the wrapper and its tree-grams are as they were");
            return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
        }
    };
    let had_template = existing.is_some();
    let refs: Vec<&Document> = docs.iter().collect();
    let Some(template) = learn_template(existing, &refs) else {
        say!("error: no load of the page was read");
        return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
    };
    let marks = match CaptureMarks::of(project, wrapper, &docs[0]) {
        Ok(m) => m.with_unstable(&template, &docs[0]),
        Err(e) => {
            say!("error: {e}; the wrapper and its tree-grams are as they were");
            return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
        }
    };
    Ok(Ok((template, marks, had_template)))
}

/// The loads of the page: the saved copies given, read once each, or the
/// URL fetched (or rendered) as often as asked.
fn read_loads(args: &Args) -> anyhow::Result<Result<Vec<fetch::Page>, ExitCode>> {
    let plan = match plan_loads(args) {
        Ok(plan) => plan,
        Err(why) => {
            say!("error: {why}");
            return Ok(Err(ExitCode::from(EXIT_BAD_INPUT)));
        }
    };
    Ok(Ok(match plan {
        Loads::Given(sources) => {
            let client = HttpClient::new();
            let mut pages = Vec::new();
            for source in &sources {
                pages.push(fetch::load(source, &client).context("cannot read the page")?);
            }
            pages
        }
        Loads::Fetch { url, loads } => fetch_loads(&url, loads, args)?,
    }))
}

/// Where the loads come from.
enum Loads {
    /// Saved copies, each read once.
    Given(Vec<PageSource>),
    /// One URL, loaded this many times.
    Fetch { url: String, loads: usize },
}

/// What the arguments ask for, or why they make no sense.
fn plan_loads(args: &Args) -> Result<Loads, String> {
    let sources = args
        .pages
        .iter()
        .map(|p| PageSource::from_arg(p).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    if args.pages.iter().filter(|p| *p == "-").count() > 1 {
        return Err("standard input (-) can be read once".to_owned());
    }
    let watch_ok = args.watch_min.is_finite()
        && args.watch_min >= 0.0
        && args.watch_max.is_finite()
        && args.watch_max >= args.watch_min
        && args.watch_max <= 3600.0;
    if !watch_ok {
        return Err(
            "--watch-min and --watch-max are seconds, the minimum at most the maximum, at most an hour"
                .to_owned(),
        );
    }
    if !(args.delay.is_finite() && (0.0..=3600.0).contains(&args.delay)) {
        return Err("--delay is seconds between 0 and 3600".to_owned());
    }
    match &sources[..] {
        [PageSource::Url(url)] => {
            let loads = args.loads.unwrap_or(DEFAULT_LOADS);
            if !(1..=MAX_LOADS).contains(&loads) || (loads == 1 && !args.render) {
                return Err(format!(
                    "--loads {loads}: a page is learned from 2 to {MAX_LOADS} loads (one load \
                     shows nothing changing unless --render watches it)"
                ));
            }
            Ok(Loads::Fetch {
                url: url.to_string(),
                loads,
            })
        }
        _ if args.loads.is_some() || args.render => Err(
            "--loads and --render load one http(s) URL several times; give the URL alone"
                .to_owned(),
        ),
        [_] => Err(
            "one saved copy shows nothing changing: give two or more loads of the page, or its \
             URL to load it several times"
                .to_owned(),
        ),
        _ => Ok(Loads::Given(sources)),
    }
}

/// Loads `url` `loads` times, `--delay` apart: fetched over HTTP, or
/// rendered and watched with `--render` (each version seen is a load).
fn fetch_loads(url: &str, loads: usize, args: &Args) -> anyhow::Result<Vec<Page>> {
    let delay = Duration::from_secs_f64(args.delay);
    if !args.render {
        let source = PageSource::from_arg(url).map_err(|e| anyhow::anyhow!("{e}"))?;
        return fetch::load_times(&source, &HttpClient::new(), loads, delay)
            .context("cannot fetch the page");
    }
    let watch = Watch {
        min: Duration::from_secs_f64(args.watch_min),
        max: Duration::from_secs_f64(args.watch_max),
    };
    let parsed = url::Url::parse(url).context("not a URL")?;
    let versions = super::runtime()?
        .block_on(async {
            let renderer = Renderer::launch(RenderOptions::default()).await?;
            let versions = renderer.watch_loads(url, loads, delay, watch).await;
            renderer.close().await;
            versions
        })
        .context("cannot render the page")?;
    let mut pages = Vec::new();
    for (i, load) in versions.into_iter().enumerate() {
        for (v, rendered) in load.into_iter().enumerate() {
            pages.push(Page {
                name: format!("{url} (load {}, version {})", i + 1, v + 1),
                url: url::Url::parse(&rendered.final_url)
                    .ok()
                    .or_else(|| Some(parsed.clone())),
                bytes: rendered.html.into_bytes(),
                charset: Some("utf-8".to_owned()),
            });
        }
    }
    Ok(pages)
}
