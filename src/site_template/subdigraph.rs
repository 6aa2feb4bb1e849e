//! Algorithm 1: a complete subdigraph of the key page's site.
//!
//! ## What it refuses
//!
//! Only `http` and `https` links on the key page's host are followed, each
//! at most once, and no more than [`MAX_LOADS`] pages are loaded. A page
//! that cannot be loaded or does not link back to the key page is passed
//! over. The search is greedy and may miss a larger set; when no set of `n`
//! pages closes, it gives the largest found, perhaps the key page alone. It
//! does no I/O of its own: the caller's `load` fetches.

use std::collections::HashSet;

use url::Url;

/// How many pages a template is learned from by default, the key page
/// among them (the paper's `n`).
pub const DEFAULT_PAGES: usize = 4;

/// The most pages loaded while looking for a complete subdigraph: the paper
/// reports about 7 on average; a key page whose links never close a
/// subdigraph should not cost a crawl of its site.
pub const MAX_LOADS: usize = 40;

/// Pages that all link to each other, and how many pages were loaded to
/// find them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subdigraph {
    /// The key page first, then the pages taken, in the order found.
    pub pages: Vec<Url>,
    /// How many pages were loaded, the key page not counted.
    pub loaded: usize,
}

/// Looks, among `key_links` (the key page's links, in page order), for
/// `n - 1` pages of the key page's host that link to the key page and to
/// each other (the key page links to all of them): the pages reached from
/// a menu. Pages are loaded in link order, each once, through `load`
/// (which gives a page's links, or `None` when it cannot be loaded); after
/// each load that links back to the key page, the pages loaded so far are
/// searched for such a set, greedily from each in turn, so a page that
/// links back but to no other (a product linked from the home page) costs
/// one load and never blocks the menu pages after it. Stops once the set
/// is found, after [`MAX_LOADS`] loads, or when the links run out; then
/// gives the largest set found. Fragments are ignored when comparing URLs.
pub fn complete_subdigraph(
    key: &Url,
    key_links: &[Url],
    n: usize,
    mut load: impl FnMut(&Url) -> Option<Vec<Url>>,
) -> Subdigraph {
    let key = normalized(key);
    let wanted = n.max(1) - 1;
    let mut tried: HashSet<String> = HashSet::from([key.as_str().to_owned()]);
    // The pages loaded that link back to the key page, with their links.
    let mut mutual: Vec<(Url, HashSet<String>)> = Vec::new();
    let mut best: Vec<usize> = Vec::new();
    let mut loaded = 0;
    for link in key_links {
        if best.len() >= wanted || loaded >= MAX_LOADS {
            break;
        }
        let link = normalized(link);
        if link.host_str() != key.host_str() || !matches!(link.scheme(), "http" | "https") {
            continue;
        }
        if !tried.insert(link.as_str().to_owned()) {
            continue;
        }
        loaded += 1;
        let Some(links) = load(&link) else { continue };
        let links = link_set(&links);
        if !links.contains(key.as_str()) {
            continue;
        }
        mutual.push((link, links));
        let found = largest_clique(&mutual, wanted);
        if found.len() > best.len() {
            best = found;
        }
    }
    let mut pages = vec![key];
    pages.extend(best.into_iter().map(|i| mutual[i].0.clone()));
    Subdigraph { pages, loaded }
}

/// Greedily, from each page in turn, the pages of `mutual` that all link to
/// each other (at most `wanted`); the largest such set, by index.
fn largest_clique(mutual: &[(Url, HashSet<String>)], wanted: usize) -> Vec<usize> {
    let links = |a: usize, b: usize| {
        mutual[a].1.contains(mutual[b].0.as_str()) && mutual[b].1.contains(mutual[a].0.as_str())
    };
    let mut best = Vec::new();
    for seed in 0..mutual.len() {
        let mut set = vec![seed];
        for other in 0..mutual.len() {
            if set.len() >= wanted {
                break;
            }
            if other != seed && set.iter().all(|&s| links(s, other)) {
                set.push(other);
            }
        }
        set.sort_unstable();
        if set.len() > best.len() {
            best = set;
        }
        if best.len() >= wanted {
            break;
        }
    }
    best.truncate(wanted);
    best
}

fn normalized(url: &Url) -> Url {
    let mut u = url.clone();
    u.set_fragment(None);
    u
}

fn link_set(links: &[Url]) -> HashSet<String> {
    links
        .iter()
        .map(|l| normalized(l).as_str().to_owned())
        .collect()
}
