//! Healing from the command line: `mend snapshot`, then `mend run --heal`
//! in each mode, on pages written for the tests, in a scratch copy of the
//! wrapper so that the checkout is never edited.

use std::path::{Path, PathBuf};
use std::process::Output;

use mend::store::{AdaptationFilter, AdaptationId, AdaptationStatus, Store, Timestamp, Verdict};
use serde_json::{Value, json};

use crate::support::cli::{Mend, ROOT, single_page_heals};

/// A scratch project: `wrappers/bookshop.yaml` and the test pages under `pages/`.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        Project::with_wrapper(
            &std::fs::read_to_string(format!("{ROOT}/wrappers/bookshop.yaml")).unwrap(),
        )
    }

    /// The project with `adapt.min_pages: 1`, for the tests of what
    /// `auto` writes from one page.
    fn single_page() -> Project {
        Project::with_wrapper(&single_page_heals(
            &std::fs::read_to_string(format!("{ROOT}/wrappers/bookshop.yaml")).unwrap(),
        ))
    }

    fn with_wrapper(text: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("wrappers")).unwrap();
        std::fs::create_dir_all(dir.path().join("pages")).unwrap();
        std::fs::write(dir.path().join("wrappers/bookshop.yaml"), text).unwrap();
        std::fs::copy(
            format!("{ROOT}/examples/pages/bookshop.html"),
            dir.path().join("pages/bookshop.html"),
        )
        .unwrap();
        for page in [
            "bookshop-redesign.html",
            "bookshop-silent.html",
            "bookshop-ambiguous.html",
        ] {
            std::fs::copy(
                format!("{ROOT}/tests/fixtures/pages/{page}"),
                dir.path().join("pages").join(page),
            )
            .unwrap();
        }
        Project { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn wrapper_text(&self) -> String {
        std::fs::read_to_string(self.path("wrappers/bookshop.yaml")).unwrap()
    }

    fn mend(&self, args: &[&str]) -> Output {
        Mend::new(args).dir(self.dir.path()).output()
    }

    fn snapshot(&self) {
        let out = self.mend(&["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn run(&self, page: &str, heal: &str) -> (Option<i32>, Value) {
        let out = self.mend(&[
            "run",
            "wrappers/bookshop.yaml",
            &format!("pages/{page}"),
            "--heal",
            heal,
            "--format",
            "json",
            "--store",
            "store.db",
        ]);
        let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code(), v)
    }

    fn store(&self) -> Store {
        Store::open(&self.path("store.db")).unwrap()
    }
}

/// The lines of `after` that are not in `before`, and those of `before` gone from `after`.
fn line_diff(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let added = after
        .lines()
        .filter(|l| !before.lines().any(|b| b == *l))
        .map(str::to_owned)
        .collect();
    let removed = before
        .lines()
        .filter(|l| !after.lines().any(|a| a == *l))
        .map(str::to_owned)
        .collect();
    (added, removed)
}

fn statuses(v: &Value) -> Vec<(String, String)> {
    v["adaptations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["pattern"].as_str().unwrap().to_owned(),
                a["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn books(v: &Value) -> Vec<(String, f64)> {
    v["records"][0]["book"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["title"].as_str().unwrap().to_owned(),
                b["price"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn six_books() -> Vec<(String, f64)> {
    [
        ("The Tide Between Us", 12.99),
        ("A Lantern in the Orchard", 8.5),
        ("Salt and Iron", 15.0),
        ("The Cartographer's Daughter", 22.0),
        ("Quiet Hours", 6.75),
        ("Northern Line", 10.2),
    ]
    .into_iter()
    .map(|(t, p)| (t.to_owned(), p))
    .collect()
}

#[test]
fn snapshot_writes_a_treegram_per_pattern_and_names_each_in_the_wrapper() {
    let p = Project::new();
    let before = p.wrapper_text();
    p.snapshot();
    for file in [
        "page_title",
        "book",
        "book/title",
        "book/price",
        "book/in_stock",
        "book/url",
    ] {
        assert!(
            p.path(&format!("treegrams/bookshop/{file}.html")).exists(),
            "{file}"
        );
    }
    let (added, removed) = line_diff(&before, &p.wrapper_text());
    assert!(removed.is_empty(), "{removed:?}");
    assert_eq!(added.len(), 6, "{added:?}");
    assert!(
        added
            .iter()
            .all(|l| l.trim_start().starts_with("treegram: treegrams/bookshop/"))
    );
    let gram = std::fs::read_to_string(p.path("treegrams/bookshop/book/price.html")).unwrap();
    assert!(gram.contains(r#"<meta name="mend:pattern" content="book/price">"#));
    assert!(gram.contains(r#"<p class="price" data-mend-target="">£12.99</p>"#));
}

#[test]
fn snapshot_refuses_a_page_on_which_the_wrapper_fails() {
    let p = Project::new();
    let out = p.mend(&[
        "snapshot",
        "wrappers/bookshop.yaml",
        "pages/bookshop-redesign.html",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert!(!p.path("treegrams").exists());
}

#[test]
fn auto_heals_the_redesigned_listing_with_a_minimal_wrapper_diff() {
    let p = Project::single_page();
    p.snapshot();
    let before = p.wrapper_text();
    let (code, v) = p.run("bookshop-redesign.html", "auto");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(books(&v), six_books(), "the decoy card stays out");
    assert_eq!(v["violations"], Value::Array(vec![]));
    assert_eq!(
        statuses(&v),
        [
            ("book".to_owned(), "applied".to_owned()),
            ("book/price".to_owned(), "applied".to_owned()),
            ("book/in_stock".to_owned(), "applied".to_owned()),
        ]
    );
    for a in v["adaptations"].as_array().unwrap() {
        for key in [
            "pattern",
            "old_xpath",
            "new_xpath",
            "score",
            "runner_up",
            "algorithm",
            "status",
        ] {
            assert!(a.get(key).is_some_and(|x| !x.is_null()), "{key} in {a}");
        }
    }
    // Only the three XPaths changed, each old one kept in its history.
    let after = p.wrapper_text();
    let (added, removed) = line_diff(&before, &after);
    assert_eq!(removed.len(), 3, "{removed:?}");
    assert!(
        removed
            .iter()
            .all(|l| l.trim_start().starts_with("xpath: ")),
        "{removed:?}"
    );
    let new_xpaths = added
        .iter()
        .filter(|l| l.trim_start().starts_with("xpath: "))
        .count();
    let history = added
        .iter()
        .filter(|l| l.trim_start() == "history:")
        .count();
    let olds: Vec<&String> = added
        .iter()
        .filter(|l| l.trim_start().starts_with("- "))
        .collect();
    assert_eq!((new_xpaths, history, olds.len()), (3, 3, 3), "{added:?}");
    assert_eq!(added.len(), 9, "{added:?}");
    for old in &removed {
        let xpath = old.trim_start().trim_start_matches("xpath: ");
        assert!(
            olds.iter().any(|l| l.trim_start() == format!("- {xpath}")),
            "{xpath} in history"
        );
    }
    assert!(after.starts_with("# yaml-language-server"), "comments stay");
    // The rewritten wrapper now works on the new page without healing.
    let (code, v) = p.run("bookshop-redesign.html", "off");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(books(&v), six_books());
    // And the store holds the three applied adaptations with the page.
    let stored = p.store().adaptations(&AdaptationFilter::default()).unwrap();
    assert_eq!(stored.len(), 3);
}

#[test]
fn propose_leaves_the_wrapper_alone_and_marks_healed_records() {
    let p = Project::new();
    p.snapshot();
    let before = p.wrapper_text();
    let (code, v) = p.run("bookshop-silent.html", "propose");
    // A proposal waits for a person: the run says so with exit 1.
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(p.wrapper_text(), before);
    assert_eq!(
        statuses(&v),
        [("book/price".to_owned(), "proposed".to_owned())]
    );
    let id = v["adaptations"][0]["id"].as_i64().expect("a proposal id");
    // Records name the proposal as TAG:ID, which the review commands check
    // against the store they read.
    let tag = p.store().tag().unwrap();
    assert_eq!(v["adaptations"][0]["store"], tag.as_str());
    assert_eq!(
        v["records"][0]["_proposals"],
        serde_json::json!([format!("{tag}:{id}")])
    );
    assert_eq!(books(&v), six_books());
    let stored = p
        .store()
        .adaptation(AdaptationId(id))
        .unwrap()
        .expect("stored");
    assert!(stored.is_pending());
    assert_eq!(stored.pattern, "book/price");
}

#[test]
fn off_only_reports_and_opens_no_store() {
    let p = Project::new();
    p.snapshot();
    let (code, v) = p.run("bookshop-silent.html", "off");
    assert_eq!(code, Some(1));
    assert_eq!(v["adaptations"], Value::Array(vec![]));
    assert!(!v["violations"].as_array().unwrap().is_empty());
    assert!(!p.path("store.db").exists());
}

#[test]
fn abstaining_keeps_the_violation_and_says_why() {
    let text = std::fs::read_to_string(format!("{ROOT}/wrappers/bookshop.yaml"))
        .unwrap()
        .replace(
            "xpath: //ol[@class='books']/li/article",
            "xpath: //ol[@class='books']/li/article | //section[@class='shelf']/div",
        );
    let p = Project::with_wrapper(&single_page_heals(&text));
    p.snapshot();
    let (code, v) = p.run("bookshop-ambiguous.html", "auto");
    assert_eq!(code, Some(1), "{v:#}");
    let price = v["adaptations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pattern"] == "book/price")
        .expect("the price was adapted");
    assert_eq!(price["status"], "abstained");
    assert!(price["new_xpath"].is_null());
    assert!(
        price["reason"]
            .as_str()
            .unwrap()
            .contains("too close to call"),
        "{price}"
    );
    // The stock line was healed (its values are unambiguous); the price stays.
    assert!(p.wrapper_text().contains("xpath: .//p[@class='price']"));
    assert!(!p.wrapper_text().contains("- .//p[@class='price']"));
}

#[test]
fn a_rejected_proposal_is_never_proposed_again() {
    let p = Project::new();
    p.snapshot();
    let (_, v) = p.run("bookshop-silent.html", "propose");
    let id = v["adaptations"][0]["id"].as_i64().unwrap();
    let rejected = v["adaptations"][0]["new_xpath"]
        .as_str()
        .unwrap()
        .to_owned();
    p.store()
        .decide(
            AdaptationId(id),
            Verdict::Rejected,
            Some("wrong column"),
            Timestamp::from_unix_millis(0),
        )
        .unwrap();
    let (code, v) = p.run("bookshop-silent.html", "propose");
    assert_eq!(code, Some(1), "{v:#}");
    let a = &v["adaptations"][0];
    assert_eq!(a["pattern"], "book/price");
    assert_ne!(a["new_xpath"].as_str(), Some(rejected.as_str()));
    assert_eq!(a["status"], "rejected", "{a}");
}

/// A snapshot of the bookshop whose `auto` heals, from one page, refresh
/// the tree-grams of the patterns they heal.
fn refreshing_project() -> Project {
    let text = std::fs::read_to_string(format!("{ROOT}/wrappers/bookshop.yaml"))
        .unwrap()
        .replace(
            "  margin: 0.10\n",
            "  margin: 0.10\n  update_treegrams: true\n",
        );
    let p = Project::with_wrapper(&single_page_heals(&text));
    p.snapshot();
    p
}

#[test]
fn auto_refreshes_treegrams_when_asked() {
    let p = refreshing_project();
    let gram = |p: &Project| {
        std::fs::read_to_string(p.path("treegrams/bookshop/book/price.html")).unwrap()
    };
    let old = gram(&p);
    let (code, _) = p.run("bookshop-redesign.html", "auto");
    assert_eq!(code, Some(0));
    let new = gram(&p);
    assert_ne!(old, new);
    assert!(
        new.contains(r#"<span class="amount" data-mend-target="">£12.99</span>"#),
        "{new}"
    );
    assert!(Path::new(&p.path("treegrams/bookshop/book.html")).exists());
}

/// A heal found on two pages of a run refreshes its pattern's tree-gram
/// over both, as `mend snapshot` over two pages would: what varies from
/// page to page stays known (`mend:pages`), so the next page with other
/// values is not drift. Refreshed on the first page alone, the tree-gram
/// said nothing of the second.
#[test]
fn a_heal_found_on_several_pages_refreshes_its_tree_gram_over_them() {
    let p = refreshing_project();
    let redesign = std::fs::read_to_string(p.path("pages/bookshop-redesign.html")).unwrap();
    let other = redesign.replace("£1", "£3").replace("Glass", "Paper");
    assert_ne!(other, redesign);
    std::fs::write(p.path("pages/bookshop-redesign-2.html"), other).unwrap();
    let out = p.mend(&[
        "run",
        "wrappers/bookshop.yaml",
        "pages/bookshop-redesign.html",
        "pages/bookshop-redesign-2.html",
        "--heal",
        "auto",
        "--format",
        "json",
        "--store",
        "store.db",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gram = std::fs::read_to_string(p.path("treegrams/bookshop/book/price.html")).unwrap();
    assert!(
        gram.contains(r#"<meta name="mend:pages" content="2">"#),
        "{gram}"
    );
    assert!(
        gram.contains(r#"data-mend-target="">£12.99</span>"#),
        "{gram}"
    );
}

/// One `auto` run heals three patterns and refreshes their tree-grams;
/// reverting one of them puts back that pattern's XPath and tree-gram only,
/// keeps the wrong XPath out of its fallbacks, and every reading of the
/// store says reverted for it and applied for the others.
#[test]
fn a_revert_takes_back_its_own_pattern_only_and_is_read_as_reverted() {
    let p = refreshing_project();
    let gram = |name: &str| std::fs::read(p.path(&format!("treegrams/bookshop/{name}"))).unwrap();
    let captured = gram("book/price.html");
    let (code, out) = p.run("bookshop-redesign.html", "auto");
    assert_eq!(code, Some(0), "{out}");
    let applied: Vec<(String, String, u64)> = out["adaptations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["status"] == "applied")
        .map(|a| {
            let pattern = a["pattern"].as_str().unwrap().to_owned();
            (
                pattern,
                a["new_xpath"].as_str().unwrap().to_owned(),
                a["id"].as_u64().unwrap(),
            )
        })
        .collect();
    let price = applied
        .iter()
        .find(|a| a.0 == "book/price")
        .expect("price healed");
    let others: Vec<_> = applied.iter().filter(|a| a.0 != "book/price").collect();
    assert!(!others.is_empty(), "{applied:?}");
    let healed_book = gram("book.html");
    let healed_stock = gram("book/in_stock.html");
    assert_ne!(gram("book/price.html"), captured);

    let id = price.2.to_string();
    let reverted = Mend::new(&["revert", &id, "--store", "store.db"])
        .dir(p.dir.path())
        .env("USER", "ada")
        .output();
    assert_eq!(
        reverted.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&reverted.stderr)
    );
    assert_eq!(gram("book/price.html"), captured);
    assert_eq!(gram("book.html"), healed_book);
    assert_eq!(gram("book/in_stock.html"), healed_stock);
    let wrapper = p.wrapper_text();
    assert!(!wrapper.contains(&price.1), "{wrapper}");
    for other in &others {
        assert!(wrapper.contains(&other.1), "{wrapper}");
    }

    let log = |status: &str| -> Vec<String> {
        let out = p.mend(&["log", "--json", "--status", status, "--store", "store.db"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["pattern"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(log("reverted"), ["book/price"]);
    // The revert says who made it.
    let shown = p.mend(&["show", &id, "--store", "store.db"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains(" by ada"), "{shown}");
    let mut still: Vec<String> = others.iter().map(|o| o.0.clone()).collect();
    still.sort();
    let mut listed = log("applied");
    listed.sort();
    assert_eq!(listed, still);
    // A run after the revert does not serve the price with the reverted
    // XPath as a fallback: it breaks and heals anew, in the open.
    let (_, again) = p.run("bookshop-redesign.html", "propose");
    assert!(again.get("fallbacks").is_none(), "{again}");
}

#[test]
fn eight_runs_opening_a_new_store_at_once_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..20 {
        let store = dir.path().join(format!("round-{round}.db"));
        let runs: Vec<std::process::Child> = (0..8)
            .map(|_| {
                std::process::Command::new(env!("CARGO_BIN_EXE_mend"))
                    .current_dir(ROOT)
                    .args([
                        "run",
                        "wrappers/bookshop.yaml",
                        "tests/fixtures/pages/bookshop-no-prices.html",
                        "--heal",
                        "propose",
                        "--store",
                    ])
                    .arg(&store)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for run in runs {
            let out = run.wait_with_output().unwrap();
            // The page violates its wrapper and nothing heals it (no
            // tree-grams): exit 1, with the store written, never 3.
            assert_eq!(
                out.status.code(),
                Some(1),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let store = Store::open(&store).unwrap();
        assert_eq!(store.runs(None).unwrap().len(), 8, "round {round}");
    }
}

#[test]
fn one_odd_page_among_ten_leaves_the_wrapper_alone_and_one_proposal_waits() {
    let p = Project::new();
    p.snapshot();
    let before = p.wrapper_text();
    let good = std::fs::read(p.path("pages/bookshop.html")).unwrap();
    let mut pages: Vec<String> = (0..10)
        .map(|i| {
            let name = format!("pages/site/good-{i:02}.html");
            std::fs::create_dir_all(p.path("pages/site")).unwrap();
            std::fs::write(p.path(&name), &good).unwrap();
            name
        })
        .collect();
    // The odd page sits among the good ones, not at the end.
    pages.insert(5, "pages/bookshop-redesign.html".to_owned());
    let mut args = vec!["run", "wrappers/bookshop.yaml", "--heal", "auto"];
    args.extend(pages.iter().map(String::as_str));
    args.extend(["--store", "store.db", "--summary-json", "summary.json"]);
    let out = p.mend(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A proposal waits for a person: the run does not exit 0, and says so.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("0 applied"), "{stderr}");
    assert!(stderr.contains("store store.db"), "{stderr}");
    assert_eq!(p.wrapper_text(), before);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 11);
    for (i, page) in lines.iter().enumerate() {
        if i == 5 {
            assert!(
                page["adaptations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|a| a["status"] == "proposed"),
                "{page}"
            );
        } else {
            // The pages after the odd one are extracted as the ones before it.
            assert_eq!(page["adaptations"], json!([]), "{page}");
            assert_eq!(page["records"], lines[0]["records"]);
        }
    }
    let summary: Value =
        serde_json::from_slice(&std::fs::read(p.path("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["exit_code"], 1);
    assert_eq!(summary["summary"]["pages"], 11);
    assert_eq!(summary["summary"]["heals"]["applied"], 0);
    let pending = p
        .store()
        .adaptations(&AdaptationFilter {
            pending: true,
            ..AdaptationFilter::default()
        })
        .unwrap();
    assert_eq!(
        summary["summary"]["heals"]["proposed"],
        json!(pending.len())
    );
    assert!(!pending.is_empty());
    assert!(pending.iter().all(|r| r.page_count == 1));
}

/// Regression: with the wrapper named by a relative path under `wrappers/`
/// (the usual `mend run wrappers/x.yaml`), the project directory was the
/// empty path, which does not canonicalize, so a tree-gram reached through
/// a linked folder outside the project was read without a word.
#[cfg(unix)]
#[test]
fn a_treegram_in_a_linked_folder_outside_a_relative_project_is_refused() {
    let dir = crate::support::cli::bookshop_project();
    let out = crate::support::cli::Mend::new(&[
        "snapshot",
        "wrappers/bookshop.yaml",
        "pages/bookshop.html",
    ])
    .dir(dir.path())
    .output();
    assert_eq!(out.status.code(), Some(0));
    let outside = tempfile::tempdir().unwrap();
    let moved = outside.path().join("bookshop");
    std::fs::rename(dir.path().join("treegrams/bookshop"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, dir.path().join("treegrams/bookshop")).unwrap();
    let out =
        crate::support::cli::Mend::new(&["run", "wrappers/bookshop.yaml", "pages/bookshop.html"])
            .dir(dir.path())
            .output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("outside the project directory"), "{err}");
}

#[test]
fn auto_writes_a_heal_once_it_held_on_min_pages_pages_across_runs() {
    // The shipped wrapper asks for 3 pages. Three runs each see one page of
    // the redesign (distinct pages, the same layout).
    let p = Project::new();
    p.snapshot();
    let before = p.wrapper_text();
    let redesign = std::fs::read_to_string(p.path("pages/bookshop-redesign.html")).unwrap();
    for i in 1..=3 {
        std::fs::write(
            p.path(&format!("pages/redesign-{i}.html")),
            format!("{redesign}<!-- page {i} -->"),
        )
        .unwrap();
    }
    for i in 1..=2 {
        let (code, v) = p.run(&format!("redesign-{i}.html"), "auto");
        // Not written yet: a proposal, the page's records healed and marked.
        assert_eq!(code, Some(1), "{v:#}");
        assert_eq!(books(&v), six_books());
        assert!(
            v["records"][0]["_proposals"]
                .as_array()
                .is_some_and(|a| !a.is_empty()),
            "{v:#}"
        );
        let price = v["adaptations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["pattern"] == "book/price")
            .unwrap();
        assert_eq!(price["status"], "proposed", "{price:#}");
        assert!(
            price["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("held on {i} distinct pages")),
            "{price:#}"
        );
        assert_eq!(p.wrapper_text(), before);
    }
    // The same page again is no new evidence.
    let (_, again) = p.run("redesign-2.html", "auto");
    assert!(
        again["adaptations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["status"] != "applied")
    );
    assert_eq!(p.wrapper_text(), before);
    // The third distinct page decides it: the wrapper is rewritten, and the
    // proposal the earlier runs left is that heal, applied, with every page.
    let (code, v) = p.run("redesign-3.html", "auto");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(books(&v), six_books());
    assert_ne!(p.wrapper_text(), before);
    let store = p.store();
    let price: Vec<_> = store
        .adaptations(&AdaptationFilter {
            pattern: Some("book/price"),
            ..AdaptationFilter::default()
        })
        .unwrap();
    assert_eq!(price.len(), 1, "{price:#?}");
    assert_eq!(price[0].status, AdaptationStatus::Applied);
    assert_eq!(
        price[0].page_count, 4,
        "3 distinct pages, one of them read twice"
    );
}

/// Heal-then-revert cycles move files between the same versions: the store
/// grows by rows, not copies. `mend gc` then lets the old runs' pages go,
/// and everything still reads and heals.
#[test]
fn heal_and_revert_cycles_share_their_copies_and_gc_bounds_the_rest() {
    let p = refreshing_project();
    let count = |sql: &str| -> i64 {
        let db = rusqlite::Connection::open(p.path("store.db")).unwrap();
        db.query_row(sql, [], |r| r.get(0)).unwrap()
    };
    let mut first = None;
    let mut grown = Vec::new();
    for _ in 0..5 {
        let before = if p.path("store.db").exists() {
            count("SELECT count(*) FROM snapshots")
        } else {
            0
        };
        let (code, out) = p.run("bookshop-redesign.html", "auto");
        assert_eq!(code, Some(0), "{out}");
        let applied: Vec<String> = out["adaptations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["status"] == "applied")
            .map(|a| a["id"].to_string())
            .collect();
        assert!(!applied.is_empty(), "{out}");
        for id in &applied {
            first.get_or_insert(id.clone());
            let r = p.mend(&["revert", id, "--store", "store.db"]);
            assert_eq!(
                r.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&r.stderr)
            );
        }
        grown.push((
            count("SELECT count(*) FROM snapshots") - before,
            applied.len() as i64,
        ));
    }
    // Once the wrapper has been through its versions, a cycle adds one
    // content per refreshed tree-gram (its capture time is new) and none
    // for the wrapper's versions or for the reverts, which put back
    // contents the store holds.
    for &(contents, refreshed) in &grown[2..] {
        assert_eq!(contents, refreshed, "{grown:?}");
    }
    assert!(count("SELECT count(*) FROM wrapper_changes") >= 10);
    let gc = p.mend(&["gc", "--keep-runs", "1", "--json", "--store", "store.db"]);
    assert_eq!(
        gc.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&gc.stderr)
    );
    let gc: Value = serde_json::from_slice(&gc.stdout).unwrap();
    assert!(gc["pages_cleared"].as_u64().unwrap() >= 4, "{gc}");
    assert_eq!(gc["compacted"], true, "{gc}");
    assert!(
        gc["bytes_after"].as_u64() <= gc["bytes_before"].as_u64(),
        "{gc}"
    );
    // Everything still reads: the log, an old adaptation, the wrapper.
    for args in [
        vec!["log", "--store", "store.db"],
        vec!["show", first.as_deref().unwrap(), "--store", "store.db"],
        vec!["validate", "wrappers/bookshop.yaml"],
    ] {
        let out = p.mend(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (code, out) = p.run("bookshop-redesign.html", "auto");
    assert_eq!(code, Some(0), "{out}");
}

/// The shipped wrapper with every pattern written as a CSS selector.
fn css_bookshop(text: &str) -> String {
    let mut css = text.to_owned();
    for (xpath, selector) in [
        ("xpath: //h1", "css: h1"),
        (
            "xpath: //ol[@class='books']/li/article",
            "css: ol.books > li > article",
        ),
        ("xpath: ./h3/a/@title", "css: h3 > a::attr(title)"),
        ("xpath: .//p[@class='price']", "css: p.price"),
        (
            "xpath: .//p[contains(concat(' ', normalize-space(@class), ' '), ' stock ')]",
            "css: p.stock",
        ),
        ("xpath: ./h3/a/@href", "css: h3 > a::attr(href)"),
    ] {
        assert!(css.contains(xpath), "{xpath}");
        css = css.replace(xpath, selector);
    }
    assert!(!css.contains("xpath:"), "{css}");
    css
}

#[test]
fn a_css_wrapper_extracts_what_its_xpath_twin_extracts() {
    let shipped = std::fs::read_to_string(format!("{ROOT}/wrappers/bookshop.yaml")).unwrap();
    let xpath = Project::with_wrapper(&shipped);
    let css = Project::with_wrapper(&css_bookshop(&shipped));
    for page in [
        "bookshop.html",
        "bookshop-redesign.html",
        "bookshop-silent.html",
    ] {
        let (code_x, by_xpath) = xpath.run(page, "off");
        let (code_c, by_css) = css.run(page, "off");
        assert_eq!(code_x, code_c, "{page}");
        assert_eq!(by_xpath["records"], by_css["records"], "{page}");
    }
}

#[test]
fn a_healed_css_pattern_is_written_back_as_xpath_with_the_selector_kept() {
    let text = single_page_heals(&css_bookshop(
        &std::fs::read_to_string(format!("{ROOT}/wrappers/bookshop.yaml")).unwrap(),
    ));
    let p = Project::with_wrapper(&text);
    p.snapshot();
    let (code, v) = p.run("bookshop-redesign.html", "auto");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(books(&v), six_books());
    let after = p.wrapper_text();
    // The three healed patterns now say xpath, the selector beside it and
    // its translation in history; the others keep their css.
    let healed: Vec<&str> = after
        .lines()
        .filter(|l| l.trim_start().starts_with("xpath: "))
        .collect();
    assert_eq!(healed.len(), 3, "{after}");
    assert!(
        healed.iter().all(|l| l.contains("  # was css: ")),
        "{after}"
    );
    let kept = after
        .lines()
        .filter(|l| l.trim_start().starts_with("css: "))
        .count();
    assert_eq!(kept, 3, "{after}");
    let out = p.mend(&["validate", "wrappers/bookshop.yaml"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The healed wrapper extracts the redesigned page with no heal.
    let (code, v) = p.run("bookshop-redesign.html", "off");
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(books(&v), six_books());
}
