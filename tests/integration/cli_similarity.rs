//! `mend similarity` end to end: the binary run on pages written for the project.

use std::io::Write;
use std::process::Output;

use crate::support::cli::{Mend, mend, stderr, stdout};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/similarity");

fn fixture(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// Runs `mend similarity ARGS`.
fn sim(args: &[&str]) -> Output {
    mend(&[&["similarity"], args].concat())
}

/// The score: the last word on standard output.
fn score(o: &Output) -> f64 {
    assert!(o.status.success(), "failed: {}", stderr(o));
    let out = stdout(o);
    let last = out.split_whitespace().last().expect("some output");
    last.parse()
        .unwrap_or_else(|_| panic!("{last:?} is not a number"))
}

fn figure(algo: &str) -> Output {
    let page = fixture("figure1.html");
    sim(&[
        &page,
        &page,
        "--algo",
        algo,
        "--xpath-a",
        "//t-a[@id='A']",
        "--xpath-b",
        "//t-a[@id='B']",
    ])
}

#[test]
fn figure_one_scores_as_in_the_paper() {
    assert_eq!(score(&figure("stm")), 7.0);
    assert_eq!(score(&figure("ctm")), 0.375);
    assert_eq!(
        stdout(&figure("ctm")),
        "ctm (tag) over 14 and 8 elements: 0.375\n"
    );
}

#[test]
fn a_page_against_itself() {
    let page = fixture("shop_v1.html");
    let count = sim(&[&page, &page, "--algo", "stm"]);
    // html, head, meta, title, body, header, h1, nav, a, a, ol, 3 × (li,
    // article, h3, a, p), footer, p.
    assert_eq!(score(&count), 28.0);
    for algo in ["ctm", "bigram", "jw"] {
        assert_eq!(score(&sim(&[&page, &page, "--algo", algo])), 1.0, "{algo}");
    }
}

#[test]
fn labels_change_what_counts_as_equal() {
    let (a, b) = (fixture("shop_v1.html"), fixture("shop_v2.html"));
    let tag = score(&sim(&[&a, &b, "--algo", "bigram"]));
    let class = score(&sim(&[&a, &b, "--algo", "bigram", "--label", "tag+class"]));
    assert!(class < tag, "{class} < {tag}");
    for algo in ["stm", "ctm", "bigram", "jw"] {
        let s = score(&sim(&[&a, &b, "--algo", algo, "--label", "tag+id"]));
        assert!(s > 0.0, "{algo}");
    }
}

#[test]
fn json_adds_the_alignment_as_canonical_paths() {
    assert_eq!(stdout(&figure("stm")).lines().count(), 1);
    let o = sim(&[
        &fixture("figure1.html"),
        &fixture("figure1.html"),
        "--algo",
        "stm",
        "--xpath-a",
        "//t-a[@id='A']",
        "--xpath-b",
        "//t-a[@id='B']",
        "--json",
    ]);
    assert_eq!(score(&o), 7.0);
    let out = stdout(&o);
    let mut lines = out.lines();
    let object: serde_json::Value =
        serde_json::from_str(lines.next().expect("a JSON line")).expect("valid JSON");
    assert_eq!(lines.next(), Some("7"));
    assert_eq!(lines.next(), None);
    assert_eq!(object["algorithm"], "stm");
    assert_eq!(object["label"], "tag");
    assert_eq!(object["score"], 7);
    assert_eq!(object["a"]["root"], "/html/body/t-a[1]");
    assert_eq!(object["b"]["elements"], 8);
    let pairs = object["alignment"].as_array().expect("an alignment");
    assert_eq!(pairs.len(), 7);
    assert_eq!(
        pairs[0],
        serde_json::json!(["/html/body/t-a[1]", "/html/body/t-a[2]"])
    );
    assert_eq!(
        pairs[1],
        serde_json::json!(["/html/body/t-a[1]/t-b[1]", "/html/body/t-a[2]/t-b"])
    );

    let page = fixture("shop_v1.html");
    let o = sim(&[&page, &fixture("shop_v2.html"), "--algo", "jw", "--json"]);
    let out = stdout(&o);
    let object: serde_json::Value =
        serde_json::from_str(out.lines().next().expect("a line")).expect("valid JSON");
    assert!(object["alignment"].is_null());
    assert_eq!(object["score"].as_f64(), Some(score(&o)));
}

#[test]
fn bad_xpaths_are_bad_input() {
    let page = fixture("shop_v1.html");
    for (flag, expr, says) in [
        ("--xpath-a", "//ol[", "--xpath-a"),
        ("--xpath-b", "//table", "selects nothing"),
        ("--xpath-a", "//a/@href", "not an element"),
        ("--xpath-b", "//h1/text()", "not an element"),
        ("--xpath-a", "count(//a)", "--xpath-a"),
    ] {
        let o = sim(&[&page, &page, "--algo", "ctm", flag, expr]);
        assert_eq!(o.status.code(), Some(2), "{expr}");
        assert!(stderr(&o).contains(says), "{expr}: {}", stderr(&o));
        assert!(stdout(&o).is_empty());
    }
    let o = sim(&[&page, &page, "--algo", "tree-edit"]);
    assert_eq!(o.status.code(), Some(2));
    let o = sim(&["-", "-", "--algo", "ctm"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn unreadable_pages_are_io_failures() {
    let o = sim(&[
        &fixture("missing.html"),
        &fixture("shop_v1.html"),
        "--algo",
        "stm",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("missing.html"));
}

#[test]
fn gzipped_pages_and_standard_input() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let gz = dir.path().join("shop_v2.html.gz");
    let html = std::fs::read(fixture("shop_v2.html")).expect("the fixture");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&html).expect("compressed");
    std::fs::write(&gz, enc.finish().expect("compressed")).expect("written");
    let gz = gz.to_string_lossy().into_owned();
    let plain = score(&sim(&[
        &fixture("shop_v1.html"),
        &fixture("shop_v2.html"),
        "--algo",
        "ctm",
    ]));
    let zipped = score(&sim(&[&fixture("shop_v1.html"), &gz, "--algo", "ctm"]));
    assert_eq!(plain, zipped);

    let v1 = std::fs::read(fixture("shop_v1.html")).expect("the fixture");
    let o = Mend::new(&["similarity", "-", &fixture("shop_v2.html"), "--algo", "ctm"])
        .stdin(v1)
        .output();
    assert_eq!(score(&o), plain);
}
