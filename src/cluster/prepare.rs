//! A new job made ready to submit: what a person asks of a crawl, read
//! into everything a stateless worker needs.
//!
//! The submitter reads, once, what every worker would otherwise read again:
//! the start URLs (the command line's, else the wrapper's `start`), the rule
//! that says which pages are items (learned from the start pages when the
//! wrapper gives examples), the start hosts' robots.txt, the wrapper file's
//! text, its tree-grams and an image of its store.
//!
//! ## What it refuses
//!
//! A request with no start URL at all, an HTTP client that cannot start,
//! and a wrapper file or store that cannot be read. A tree-gram file that is
//! missing or lies outside the wrapper's project folder is left out, as a
//! run without it would do; it is not an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use url::Url;

use super::{BackendError, JobSpec, store_image};
use crate::crawl::{Fetcher, Scope, item_rule, start_urls};
use crate::runtime::Project;
use crate::wrapper::{HealMode, RenderMode, Wrapper};

/// What a person asks of a new job.
#[derive(Clone, Debug)]
pub struct JobRequest {
    /// The wrapper file, whose project folder holds its tree-grams.
    pub wrapper_path: PathBuf,
    /// The wrapper, loaded from it.
    pub wrapper: Wrapper,
    /// The start URLs given; none means the wrapper's own.
    pub seeds: Vec<Url>,
    /// The output the job writes to, as the submitter names it.
    pub output: String,
    /// The wrapper's store, imaged for the workers when it exists.
    pub store: PathBuf,
    /// What workers do with item pages that break.
    pub heal: HealMode,
    /// Which pages workers render in a browser.
    pub render: RenderMode,
    /// Emit only item pages new or changed after this time (Unix
    /// milliseconds).
    pub since: Option<i64>,
    /// The most links from a start URL, over the wrapper's `max_depth`.
    pub depth: Option<u32>,
    /// The most pages fetched, over the wrapper's `max_pages`.
    pub max_pages: Option<u64>,
}

impl JobRequest {
    /// The job to submit: the request with its start pages' item rule, the
    /// start hosts' robots.txt, the wrapper file's text, its tree-grams and
    /// its store's image read in.
    pub async fn prepare(self) -> Result<JobSpec, BackendError> {
        let wrapper = self.wrapper;
        let seeds = start_urls(&wrapper, &self.seeds);
        if seeds.is_empty() {
            return Err(BackendError::NoStartUrl);
        }
        let fetcher = Fetcher::new(wrapper.crawl.politeness.clone())
            .map_err(|e| BackendError::HttpClient(e.to_string()))?;
        let (items, examples) = item_rule(&wrapper.crawl.items, &fetcher, &seeds).await;
        let scope = Scope {
            settings: wrapper.crawl.clone(),
            hosts: seeds
                .iter()
                .filter_map(|u| u.host_str().map(str::to_owned))
                .collect(),
            max_depth: Some(wrapper.crawl.depth_budget(self.depth)),
        };
        let mut robots = Vec::new();
        for seed in &seeds {
            let txt = fetcher.robots_txt(seed).await;
            let delay = fetcher.adopt_robots(seed, &txt).await;
            robots.push((seed.clone(), txt, delay));
        }
        let mut start: Vec<(Url, u32)> = seeds.iter().map(|u| (u.clone(), 0)).collect();
        start.extend(
            examples
                .into_iter()
                .filter(|u| scope.allows(u, 1))
                .map(|u| (u, 1)),
        );
        let wrapper_yaml =
            std::fs::read_to_string(&self.wrapper_path).map_err(|source| BackendError::Io {
                path: self.wrapper_path.clone(),
                source,
            })?;
        let image = store_image(&self.store)?;
        Ok(JobSpec {
            treegrams: treegrams(&self.wrapper_path, &wrapper),
            store_base_run: Some(image.as_ref().and_then(|i| i.newest_run).unwrap_or(0)),
            store_image: image.map(|i| i.bytes),
            wrapper_file: self.wrapper_path.file_name().map_or_else(
                || "wrapper.yaml".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            ),
            wrapper_yaml,
            output: self.output,
            heal: self.heal,
            render: self.render,
            since: self.since,
            items,
            seeds: start,
            scope,
            max_pages: Some(wrapper.crawl.page_budget(self.max_pages)),
            robots,
            wrapper,
        })
    }
}

/// The wrapper's tree-gram files that exist, by path relative to its
/// project folder.
fn treegrams(wrapper_path: &Path, wrapper: &Wrapper) -> BTreeMap<String, String> {
    let project = Project::of(wrapper_path);
    let mut found = BTreeMap::new();
    for path in wrapper.pattern_paths() {
        let Some(pattern) = wrapper.pattern(&path) else {
            continue;
        };
        let file = project.treegram_path(wrapper, &path, pattern);
        if let (Ok(text), Ok(relative)) = (
            std::fs::read_to_string(&file),
            file.strip_prefix(&project.dir),
        ) {
            found.insert(relative.to_string_lossy().into_owned(), text);
        }
    }
    found
}
