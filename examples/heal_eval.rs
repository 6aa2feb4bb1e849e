//! Healing measured on real page changes: how often mend re-locates an
//! element correctly, wrongly, or abstains (the cases are described in
//! `tests/support/heal_cases.rs`).
//!
//! ```sh
//! cargo run --release --example heal_eval -- [--data ../shared/data] \
//!     [--threshold T] [--margin M] [--only google|linkedin|youtube|baidu] [--filters] [--verbose]
//! ```
//!
//! `--filters` runs every case twice, with the candidate pre-filters as given
//! (the defaults, or `--same-tag on|off`, `--region-ratio R|none`,
//! `--record-ratio R|none`) and with none, and prints both tables: what the
//! filters cost in accuracy and save in time.

#[path = "../tests/support/heal_cases.rs"]
mod heal_cases;

use std::collections::BTreeMap;

use heal_cases::{Suite, Tally, median};
use mend::adapt::Search;
use mend::wrapper::AdaptSettings;

fn main() {
    let mut data = "../shared/data".to_owned();
    let mut settings = AdaptSettings::default();
    let mut only: Option<String> = None;
    let (mut verbose, mut filters) = (false, false);
    let mut search = Search::default();
    let ratio = |v: Option<String>| -> Option<f64> {
        let v = v.expect("a ratio or none");
        (v != "none").then(|| v.parse().expect("a ratio"))
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--data" => data = it.next().expect("--data DIR"),
            "--threshold" => {
                settings.threshold = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--threshold T")
            }
            "--margin" => {
                settings.margin = it.next().and_then(|v| v.parse().ok()).expect("--margin M")
            }
            "--only" => only = it.next(),
            "--verbose" => verbose = true,
            "--filters" => filters = true,
            "--same-tag" => search.same_tag = it.next().as_deref() != Some("off"),
            "--region-ratio" => search.region_size_ratio = ratio(it.next()),
            "--record-ratio" => search.record_size_ratio = ratio(it.next()),
            other => panic!("unknown argument {other}"),
        }
    }
    const SOURCES: [&str; 4] = ["google", "linkedin", "youtube", "baidu"];
    if let Some(o) = only.as_deref() {
        assert!(
            SOURCES.contains(&o),
            "--only takes one of {SOURCES:?}, not {o}"
        );
    }
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let mut suite = Suite::default();
    if wanted("google") {
        heal_cases::google(&data, &mut suite).unwrap_or_else(|e| panic!("google.com cases: {e}"));
    }
    for site in ["linkedin", "youtube", "baidu"] {
        if wanted(site) {
            heal_cases::mutant(&data, site, &mut suite)
                .unwrap_or_else(|e| panic!("{site} cases: {e}"));
        }
    }
    let mut runs = vec![("pre-filters as given", search)];
    if filters {
        runs.push((
            "no pre-filters",
            Search {
                same_tag: false,
                region_size_ratio: None,
                record_size_ratio: None,
            },
        ));
    }
    for (name, search) in runs {
        println!(
            "\n{name}; threshold {}, margin {}, algorithms {:?}, label {:?}\n",
            settings.threshold, settings.margin, settings.algorithms, settings.label
        );
        println!("| cases | n | correct | wrong | abstained | median ms/case |");
        println!("| --- | --- | --- | --- | --- | --- |");
        let mut groups: BTreeMap<&str, (Tally, Vec<f64>)> = BTreeMap::new();
        for case in &suite.cases {
            let out = heal_cases::run(&suite, case, &settings, &search);
            if verbose {
                println!(
                    "  {} {} {:?}: {}",
                    case.group, case.label, out.verdict, out.note
                );
            }
            let g = groups.entry(case.group.as_str()).or_default();
            g.0.add(out.verdict);
            g.1.push(out.millis);
        }
        for (group, (tally, times)) in groups {
            println!("{}", tally.row(group, median(times)));
        }
    }
}
