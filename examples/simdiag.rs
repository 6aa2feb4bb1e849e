use mend::dom::{Document, NodeId};
use mend::similarity::*;
fn main() {
    let raw =
        std::fs::read("../shared/data/similocator_google_ebay/ebay/2018-01-01/index.html").unwrap();
    let doc = Document::parse(&raw);
    let body = doc.all().find(|&n| doc.name(n) == "body").unwrap();
    let inner = doc.inner_html(body);
    let mut html = String::from("<html><body>");
    for _ in 0..30 {
        html.push_str(&inner);
    }
    let page_doc = Document::parse_str(&html);
    let mut labels = Labels::new();
    let mode = if std::env::args().nth(1).as_deref() == Some("tag") {
        LabelMode::Tag
    } else {
        LabelMode::TagClass
    };
    let page = LabeledTree::build(
        &page_doc,
        page_doc.root_element().unwrap(),
        mode,
        &mut labels,
    )
    .unwrap();
    let cut = (0..page.len())
        .filter(|&i| page_doc.name(page.node(i)) == "div")
        .min_by_key(|&i| page.subtree_size(i).abs_diff(200))
        .unwrap();
    let q = page.subtree(cut).unwrap();
    println!(
        "query root kids {} size {} label {}",
        page.child_count(cut),
        q.size(),
        labels.text(page.label(cut))
    );
    let mut all: Vec<(f64, usize, f64)> = Vec::new();
    for c in 0..page.len() {
        if page.label(c) != page.label(cut) {
            continue;
        }
        let t = std::time::Instant::now();
        let s = clustered_tree_matching_score(q, page.subtree(c).unwrap());
        all.push((s, c, t.elapsed().as_secs_f64() * 1e6));
    }
    all.sort_by(|a, b| b.2.total_cmp(&a.2));
    for (s, c, us) in all.iter().take(15) {
        println!(
            "c {c} size {} kids {} score {s:.4} {us:.0}us",
            page.subtree_size(*c),
            page.child_count(*c)
        );
    }
    println!("total us {}", all.iter().map(|x| x.2).sum::<f64>());
    let _ = NodeId(0);
}
