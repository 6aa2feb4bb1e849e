//! Times XPath generation on large synthetic pages built to make the search
//! work hard: 60,000 elements, repeated non-unique classes, and targets that
//! nothing but positions tells apart. Usage:
//! `cargo run --release --example generate_worst_case`.

use std::time::Instant;

use mend::dom::{Document, NodeId};
use mend::xpath::generate::{GenerateOptions, generate};
use mend::xpath::{Item, XPath};

fn page(rows: usize) -> String {
    let mut html = String::from("<html><body><div class='wrap main'>");
    for r in 0..rows {
        html.push_str("<div class='row item'><ul class='list'>");
        for c in 0..4 {
            html.push_str(&format!(
                "<li class='cell a b'><span class='v x'>{}</span><em class='y'>z</em></li>",
                (r * 7 + c) % 10
            ));
        }
        html.push_str("</ul></div>");
    }
    html.push_str("</div></body></html>");
    html
}

/// A page whose classes cut the rows into overlapping groups, so that many
/// combinations of class tests narrow the selection without ever making it
/// exact: the search's budget, not its queue, ends it.
fn classy_page(rows: usize) -> String {
    let mut html = String::from("<html><body><div>");
    for r in 0..rows {
        html.push_str(&format!(
            "<div class='p{} q{} r{} s{}'><p class='t{} u{} v{}'><span class='w{} k{}'>x</span></p></div>",
            r % 2, r % 3, r % 5, r % 7, r % 2, r % 3, r % 11, r % 13, r % 4
        ));
    }
    html.push_str("</div></body></html>");
    html
}

fn time(label: &str, doc: &Document, targets: &[Item]) {
    let options = GenerateOptions::default();
    let start = Instant::now();
    let result = generate(doc, Item::Node(NodeId::ROOT), targets, &options);
    let took = start.elapsed();
    let g = match result {
        Ok(g) => g,
        Err(e) => {
            println!(
                "{label:28} {:8.1} ms refused: {e}",
                took.as_secs_f64() * 1e3
            );
            return;
        }
    };
    let got = XPath::compile(&g.xpath)
        .expect("compiles")
        .select(doc, NodeId::ROOT)
        .expect("evaluates");
    assert_eq!(got, targets);
    let shown: String = g.xpath.chars().take(140).collect();
    println!(
        "{label:28} {:8.1} ms {:5} evaluations fallback {:5} {shown}",
        took.as_secs_f64() * 1e3,
        g.evaluations,
        g.fallback
    );
}

fn main() {
    let html = page(5_000);
    let doc = Document::parse_str(&html);
    println!("{} elements", doc.element_count());
    let all = |xp: &str| {
        XPath::compile(xp)
            .expect("compiles")
            .select(&doc, NodeId::ROOT)
            .expect("evaluates")
    };
    time("one deep span", &doc, &all("(//span)[10001]"));
    time("one row", &doc, &all("//div[@class='row item'][2500]"));
    time("every second cell", &doc, &all("//li[2]"));
    time("all spans", &doc, &all("//span"));
    let mut scattered = all("//span");
    scattered.retain(|i| i.owner().0 % 3 == 0);
    scattered.truncate(40);
    time("40 scattered spans", &doc, &scattered);

    let html = classy_page(20_000);
    let doc = Document::parse_str(&html);
    println!("{} elements", doc.element_count());
    let spans = XPath::compile("//span")
        .expect("compiles")
        .select(&doc, NodeId::ROOT)
        .expect("evaluates");
    time("one span among class groups", &doc, &spans[12_345..12_346]);

    // Thousands of siblings: positions must be counted once per parent.
    let mut html = String::from("<html><body><ul>");
    for i in 0..20_000 {
        let class = if i % 2 == 0 { "x" } else { "y" };
        html.push_str(&format!("<li class='{class}'>{i}</li>"));
    }
    html.push_str("</ul></body></html>");
    let doc = Document::parse_str(&html);
    let lis = XPath::compile("//li")
        .expect("compiles")
        .select(&doc, NodeId::ROOT)
        .expect("evaluates");
    let every_third: Vec<Item> = lis.iter().copied().step_by(3).collect();
    time("20,000 siblings, all", &doc, &lis);
    time("20,000 siblings, every 3rd", &doc, &every_third);
    time("20,000 siblings, one", &doc, &lis[7_777..7_778]);
}
