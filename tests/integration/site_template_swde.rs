//! The site template (`mend::site_template`) on the two SWDE book sites of
//! `../shared/data`, against a labelling by hand: for each site, the regions
//! that are its frame (skip links, header, footer, the columns beside the
//! product that every page has: a bestseller list, a browse menu) were read
//! off its pages and written below as XPaths. The template is learned from pages 0000 to
//! 0003 (the pages do not link to each other, so they are taken as they
//! are, as `mend template` does) and laid over pages 0010 to 0019; on each,
//! the body's elements the template claims are compared with the labelled
//! ones: the regions' elements, their ancestors, and the content column's
//! own element (the frame holds it; what is inside is the page's).

use std::collections::HashSet;
use std::path::Path;

use mend::dom::{Document, NodeId};
use mend::site_template::SiteTemplate;
use mend::xpath::XPath;

const DATA: &str = "../shared/data/swde_subset/pages/book";

/// A site, its frame's regions and its content column, labelled by hand.
struct Labels {
    site: &'static str,
    regions: &'static [&'static str],
    content: &'static str,
}

const SITES: [Labels; 2] = [
    Labels {
        site: "book-booksamillion-2000",
        regions: &[
            "//ul[@id='skip-links']",
            "//div[@id='header-wrap']",
            "//div[@id='footer-wrap']",
            // The bestsellers beside every product: the same list on each page.
            "//div[@id='content']/div[contains(@class, 'wide')]",
        ],
        content: "//div[@id='content']",
    },
    Labels {
        site: "book-christianbook-2000",
        regions: &[
            "/html/body/a",
            "//div[@id='page-header']",
            "//div[@id='page-footer']",
            // The left column (browse and search links) and the spacer after it.
            "//div[@id='page-body']/table/tbody/tr/td[1]",
            "//div[@id='page-body']/table/tbody/tr/td[2]",
        ],
        content: "//div[@id='page-body']",
    },
];

fn read(site: &str, page: usize) -> Document {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(DATA)
        .join(site)
        .join(format!("{page:04}.htm"));
    Document::parse(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn select(doc: &Document, xpath: &str) -> Vec<NodeId> {
    XPath::compile(xpath)
        .unwrap()
        .select(doc, doc.root())
        .unwrap()
        .into_iter()
        .map(|i| i.owner())
        .collect()
}

/// The labelled frame of `doc`: its body's elements in a region, the
/// regions' ancestors, and the content column's element.
fn labelled(doc: &Document, labels: &Labels) -> HashSet<NodeId> {
    let mut out = HashSet::new();
    for xpath in labels.regions {
        let found = select(doc, xpath);
        assert!(!found.is_empty(), "{xpath} selects nothing");
        for r in found {
            out.extend(doc.descendants(r).filter(|&n| doc.is_element(n)));
            out.insert(r);
            out.extend(doc.ancestors(r).filter(|&a| doc.is_element(a)));
        }
    }
    out.extend(select(doc, labels.content));
    out
}

/// The body's elements and the `html` element: the head is not layout.
fn in_body(doc: &Document, n: NodeId) -> bool {
    doc.is_element(n)
        && (doc.name(n) == "html" || doc.ancestors(n).chain([n]).any(|a| doc.name(a) == "body"))
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_template_of_each_swde_site_matches_its_labelled_frame() {
    for labels in &SITES {
        let key = read(labels.site, 0);
        let others: Vec<Document> = (1..4).map(|i| read(labels.site, i)).collect();
        let refs: Vec<&Document> = others.iter().collect();
        let template = SiteTemplate::learn(&key, &refs);
        let (mut claimed, mut right, mut wanted) = (0usize, 0usize, 0usize);
        let mut coverage = Vec::new();
        for page in 10..20 {
            let doc = read(labels.site, page);
            let regions = template.regions(&doc);
            let truth = labelled(&doc, labels);
            let found: HashSet<NodeId> = regions
                .nodes
                .iter()
                .copied()
                .filter(|&n| in_body(&doc, n))
                .collect();
            claimed += found.len();
            right += found.intersection(&truth).count();
            wanted += truth.len();
            coverage.push(regions.coverage());
        }
        let precision = right as f64 / claimed as f64;
        let recall = right as f64 / wanted as f64;
        let least = coverage.iter().copied().fold(1.0, f64::min);
        println!(
            "{}: template of {} elements; over 10 pages, {claimed} claimed, {wanted} labelled, \
             {right} both: precision {precision:.3}, recall {recall:.3}; coverage at least {least:.3}",
            labels.site,
            template.elements()
        );
        assert!(
            precision >= 0.7,
            "{}: precision {precision:.3}",
            labels.site
        );
        assert!(recall >= 0.45, "{}: recall {recall:.3}", labels.site);
    }
}
