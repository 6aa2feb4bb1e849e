//! Field health from the command line: `mend snapshot` records the
//! baseline, `mend run` judges each run against it (or against earlier
//! runs) and exits 1 on a drop, `mend log --health` shows the trend.
//! The pages are listings written here: six books a page, whose price
//! disappears from most books of most pages in the broken set.

use std::path::Path;

use serde_json::Value;

use crate::support::cli::{Mend, Run};

/// The listing wrapper; `monitor` is appended as written. The price may be
/// absent from a book, so its constraints never see it go.
fn wrapper(monitor: &str) -> String {
    format!(
        "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n    constraints: {{min: 1, max: 1}}\n  \
         - name: book\n    xpath: //ol[@class='books']/li\n    constraints: {{min: 1}}\n    patterns:\n      \
         - name: name\n        xpath: ./h3\n        constraints: {{min: 1, max: 1}}\n      \
         - name: price\n        xpath: ./p[@class='price']\n        type: number\n        \
         constraints: {{max: 1, regex: '^£\\d+\\.\\d\\d$'}}\n{monitor}"
    )
}

/// Page `i` of a set: six books, each priced unless `broken` and the page
/// is one of the eight after the first two, where only the first book keeps
/// its price.
fn page(i: usize, broken: bool) -> String {
    let books: String = (0..6)
        .map(|j| {
            let price = if broken && i >= 2 && j > 0 {
                String::new()
            } else {
                format!("<p class='price'>£{i}.{j}0</p>")
            };
            format!("<li><h3>Book {i}-{j}</h3>{price}</li>")
        })
        .collect();
    format!("<html><body><h1>Page {i}</h1><ol class='books'>{books}</ol></body></html>")
}

/// A scratch folder with `shop.yaml` and ten pages in `good/` and `broken/`.
fn project(monitor: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shop.yaml"), wrapper(monitor)).unwrap();
    for (set, broken) in [("good", false), ("broken", true)] {
        std::fs::create_dir(dir.path().join(set)).unwrap();
        for i in 0..10 {
            std::fs::write(
                dir.path().join(format!("{set}/p{i:02}.html")),
                page(i, broken),
            )
            .unwrap();
        }
    }
    dir
}

fn mend(dir: &Path, args: &[&str]) -> Run {
    Mend::new(args).dir(dir).output().into()
}

/// The lines of standard error that report a health drop.
fn drops(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|l| l.starts_with("health: "))
        .collect()
}

const MONITOR: &str = "monitor:\n  min_items: 5\n  fields:\n    book/price: {min_fill: 0.95}\n";

#[test]
fn a_field_gone_from_most_pages_is_a_health_drop_with_example_pages() {
    let dir = project(MONITOR);
    let p = dir.path();
    let snapshot = mend(p, &["snapshot", "shop.yaml", "good/p00.html"]).check(0);
    assert!(
        snapshot
            .stderr
            .contains("mend: health baseline of 4 patterns recorded over 1 page"),
        "{}",
        snapshot.stderr
    );

    let broken = mend(p, &["run", "shop.yaml", "broken"]).check(1);
    // No constraint fails: the drop alone is what waits for a person.
    for line in broken.stdout.lines() {
        let page: Value = serde_json::from_str(line).unwrap();
        assert_eq!(page["violations"], serde_json::json!([]), "{line}");
    }
    let said = drops(&broken);
    assert_eq!(said.len(), 1, "{}", broken.stderr);
    assert!(
        said[0].starts_with(
            "health: book/price fill 0.333 < 0.95 (min_fill; baseline 1.00 from the snapshot of "
        ),
        "{}",
        said[0]
    );
    assert!(
        said[0].ends_with(
            "; e.g. pages broken/p02.html, broken/p03.html, broken/p04.html, broken/p05.html, \
             broken/p06.html)"
        ),
        "{}",
        said[0]
    );
    assert!(
        broken
            .stderr
            .contains("mend: health: 4 patterns judged, 2 against a baseline (the snapshot of "),
        "{}",
        broken.stderr
    );
    assert!(
        broken.stderr.contains("; 1 below its limits"),
        "{}",
        broken.stderr
    );

    let good = mend(p, &["run", "shop.yaml", "good"]).check(0);
    assert!(drops(&good).is_empty(), "{}", good.stderr);
    assert!(
        good.stderr.contains("; 0 below their limits"),
        "{}",
        good.stderr
    );

    // The trend: the snapshot and both runs, the drop marked.
    let log = mend(p, &["log", "--health"]).check(0).stdout;
    assert!(log.starts_with("shop: 3 samples, oldest first\n"), "{log}");
    for sample in ["#1  snapshot", "#2  run 1", "#3  run 2"] {
        assert!(log.contains(sample), "{sample}: {log}");
    }
    let price_fill = log
        .lines()
        .find(|l| l.starts_with("book/price  fill"))
        .unwrap_or_else(|| panic!("{log}"));
    assert_eq!(
        price_fill.split_whitespace().collect::<Vec<_>>(),
        ["book/price", "fill", "1.00", "0.333!", "1.00"]
    );
    assert!(
        log.contains("  #2 run 1: book/price fill 0.333 < 0.95"),
        "{log}"
    );
    let only_price = mend(p, &["log", "--health", "--pattern", "book/price"])
        .check(0)
        .stdout;
    assert!(!only_price.contains("book/name"), "{only_price}");
    assert!(
        only_price.contains("book/price  regex_pass"),
        "{only_price}"
    );

    let json = mend(p, &["log", "--health", "--json", "--wrapper", "shop"])
        .check(0)
        .json();
    let samples = json.as_array().unwrap();
    let sources: Vec<(&str, &Value)> = samples
        .iter()
        .map(|s| (s["source"].as_str().unwrap(), &s["run"]))
        .collect();
    assert_eq!(
        sources,
        [
            ("run", &Value::from(2)),
            ("run", &Value::from(1)),
            ("snapshot", &Value::Null)
        ]
    );
    let drop = &samples[1]["drops"][0];
    assert_eq!(drop["field"], "book/price");
    assert_eq!(drop["measure"], "fill");
    assert_eq!(drop["limit"], "min_fill");
    assert_eq!(drop["baseline"], 1.0);
    assert_eq!(drop["example_pages"].as_array().unwrap().len(), 5);
    let price = samples[1]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["pattern"] == "book/price")
        .unwrap();
    assert_eq!(
        (&price["items"], &price["filled"]),
        (&Value::from(60), &Value::from(20))
    );
    assert_eq!(samples[0]["drops"], serde_json::json!([]));

    // `--pattern` narrows the JSON as it narrows the table.
    let names = mend(p, &["log", "--health", "--json", "--pattern", "book/name"])
        .check(0)
        .json();
    for sample in names.as_array().unwrap() {
        let fields: Vec<&Value> = sample["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| &f["pattern"])
            .collect();
        assert_eq!(fields, [&Value::from("book/name")], "{sample}");
        assert_eq!(sample["drops"], serde_json::json!([]), "{sample}");
    }
}

#[test]
fn health_is_the_same_for_any_number_of_jobs() {
    let fields = |jobs: &str| {
        let dir = project(MONITOR);
        // The price's fill over both sets, 80 of 120, is under its floor.
        mend(
            dir.path(),
            &["run", "shop.yaml", "broken", "good", "--jobs", jobs],
        )
        .check(1);
        let json = mend(dir.path(), &["log", "--health", "--json"])
            .check(0)
            .json();
        json[0]["fields"].clone()
    };
    let one = fields("1");
    assert_eq!(one.as_array().unwrap().len(), 4);
    assert_eq!(one, fields("3"));
}

#[test]
fn without_monitor_a_store_is_needed_and_a_healthy_run_stands_in_for_the_snapshot() {
    let dir = project("");
    let p = dir.path();
    // No monitor block and no store: a run writes nothing beside the wrapper.
    let alone = mend(p, &["run", "shop.yaml", "broken"]).check(0);
    assert!(!p.join(".mend").exists());
    assert!(!alone.stderr.contains("health"), "{}", alone.stderr);

    // A one-page snapshot measures too few prices (6 of the default 20)
    // to be their baseline; the first run of good pages then is.
    mend(p, &["snapshot", "shop.yaml", "good/p00.html"]).check(0);
    let good = mend(p, &["run", "shop.yaml", "good"]).check(0);
    assert!(
        good.stderr
            .contains("mend: health: 2 patterns judged, 0 against a baseline (the snapshot of "),
        "{}",
        good.stderr
    );
    // The page-level patterns have ten items, too few to judge by default.
    assert!(
        good.stderr
            .contains("; 0 below their limits, 2 with fewer than 20 items to judge"),
        "{}",
        good.stderr
    );
    let broken = mend(p, &["run", "shop.yaml", "broken", "--quiet"]).check(1);
    let said = drops(&broken);
    assert_eq!(said.len(), 1, "{}", broken.stderr);
    assert!(
        said[0].starts_with(
            "health: book/price fill 0.333 < 0.90 (max_fill_drop 0.10: baseline 1.00 from run 1 of "
        ),
        "{}",
        said[0]
    );
    assert!(
        !broken.stderr.contains("mend: "),
        "quiet: {}",
        broken.stderr
    );
    // The run with a drop is no baseline: the next broken run is judged
    // against the good one again.
    let again = mend(p, &["run", "shop.yaml", "broken"]).check(1);
    assert!(
        drops(&again)[0].contains("from run 1 of "),
        "{}",
        again.stderr
    );
}

#[test]
fn a_monitor_path_that_names_no_pattern_is_bad_input() {
    let dir = project("monitor:\n  fields:\n    book/prise: {min_fill: 0.9}\n");
    let out = mend(dir.path(), &["validate", "shop.yaml"]).check(2);
    assert!(
        out.stderr.contains(
            "shop.yaml:19:5: error: monitor.fields names \"book/prise\", which is not a pattern \
             of this wrapper; did you mean \"book/price\"?"
        ),
        "{}",
        out.stderr
    );
    let run = mend(dir.path(), &["run", "shop.yaml", "good"]).check(2);
    assert!(
        run.stderr.contains("did you mean \"book/price\"?"),
        "{}",
        run.stderr
    );
}
