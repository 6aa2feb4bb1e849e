//! `mend history` and `mend diff`: the wrapper's versions and its pages'
//! versions as the store keeps them, and the comparison of two of each.

use serde_json::Value;

use crate::support::cli::{Mend, bookshop_project, heal_from_single_pages, stderr, stdout};

#[test]
fn the_history_lists_each_version_and_diff_compares_two() {
    let dir = bookshop_project();
    heal_from_single_pages(&dir.path().join("wrappers/bookshop.yaml"));
    let mend = |args: &[&str]| Mend::new(args).dir(dir.path()).output();
    // Before any change there is no history to show.
    let out = mend(&["history", "wrappers/bookshop.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no history yet"), "{}", stderr(&out));

    let out = mend(&["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = mend(&[
        "run",
        "wrappers/bookshop.yaml",
        "pages/bookshop-redesign.html",
        "--heal",
        "auto",
    ]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));

    let out = mend(&["history", "wrappers/bookshop.yaml", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let h: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let kinds: Vec<&str> = h["wrapper_versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[..2], ["before", "snapshot"], "{h}");
    assert!(kinds[2..].contains(&"heal"), "{h}");
    let heal = h["wrapper_versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["kind"] == "heal")
        .unwrap();
    assert!(!heal["xpaths"].as_array().unwrap().is_empty(), "{heal}");
    let pages = h["page_versions"].as_array().unwrap();
    let roles = |page: &str| -> Vec<String> {
        pages
            .iter()
            .find(|p| p["page"].as_str().unwrap().ends_with(page))
            .map(|p| {
                p["roles"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(roles("pages/bookshop.html"), ["capture"], "{h}");
    assert_eq!(roles("pages/bookshop-redesign.html"), ["adaptation"], "{h}");

    // The heal's version against the snapshot's: the XPath lines changed.
    let heal_name = heal["name"].as_str().unwrap();
    let out = mend(&["diff", "wrappers/bookshop.yaml", "w1", heal_name]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let diff = stdout(&out);
    assert!(
        diff.starts_with("--- wrappers/bookshop.yaml\n+++ wrappers/bookshop.yaml"),
        "{diff}"
    );
    let (pattern, xpath) = (
        heal["xpaths"][0][0].as_str().unwrap(),
        heal["xpaths"][0][1].as_str().unwrap(),
    );
    assert!(
        diff.lines()
            .any(|l| l.starts_with('+') && l.contains(xpath)),
        "{pattern}: {diff}"
    );

    // The two pages: a structural summary.
    let names: Vec<&str> = pages.iter().map(|p| p["name"].as_str().unwrap()).collect();
    let out = mend(&[
        "diff",
        "wrappers/bookshop.yaml",
        names[0],
        &names[1][..6],
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let similarity = d["similarity"].as_f64().unwrap();
    assert!(similarity > 0.0 && similarity < 1.0, "{d}");
    assert!(d["elements"][0].as_u64().unwrap() > 0, "{d}");

    // A page against a wrapper version, or a name that is not there, is refused.
    for (a, b) in [
        ("w1", names[0]),
        ("w1", "w99"),
        ("p", names[0]),
        ("x1", "x2"),
    ] {
        let out = mend(&["diff", "wrappers/bookshop.yaml", a, b]);
        assert_eq!(out.status.code(), Some(2), "{a} {b}: {}", stderr(&out));
    }
}

#[test]
fn a_store_that_is_not_a_store_is_bad_input_for_every_command() {
    // An emptied store and a file of another kind: each command that opens
    // the store refuses it with exit 2, and none makes a new store there.
    for content in [&b""[..], b"this is not a database, it is a note"] {
        let dir = bookshop_project();
        let store = dir.path().join("wrappers/.mend/mend.db");
        std::fs::create_dir_all(store.parent().unwrap()).unwrap();
        std::fs::write(&store, content).unwrap();
        let mend = |args: &[&str]| Mend::new(args).dir(dir.path()).output();
        let copy = dir.path().join("pages/bookshop-copy.html");
        std::fs::copy(dir.path().join("pages/bookshop.html"), copy).unwrap();
        for args in [
            &["log", "--store", "wrappers/.mend/mend.db"][..],
            &[
                "template",
                "wrappers/bookshop.yaml",
                "pages/bookshop.html",
                "pages/bookshop-copy.html",
            ],
            &["history", "wrappers/bookshop.yaml"],
            &["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"],
            &[
                "run",
                "wrappers/bookshop.yaml",
                "pages/bookshop-redesign.html",
                "--heal",
                "propose",
            ],
        ] {
            let out = mend(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains("mend.db"),
                "{args:?}: {}",
                stderr(&out)
            );
        }
        assert_eq!(
            std::fs::read(&store).unwrap(),
            content,
            "the file is as it was"
        );
    }
}
