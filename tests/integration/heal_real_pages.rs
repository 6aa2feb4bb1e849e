//! Healing on real page changes (google.com versions, mutated copies of real
//! pages): the floor that a change to the adaptation engine must not break.
//! The cases are described in `tests/support/heal_cases.rs`; the `heal_eval`
//! example prints the full table.

use std::collections::BTreeMap;

use mend::adapt::Search;
use mend::wrapper::AdaptSettings;

use crate::support::heal_cases::{self, Suite, Tally};

const DATA: &str = "../shared/data";

#[test]
#[ignore = "needs ../shared/data"]
fn relocation_on_real_page_changes_stays_above_the_floor() {
    let mut suite = Suite::default();
    heal_cases::google(DATA, &mut suite).unwrap_or_else(|e| panic!("needs ../shared/data: {e}"));
    for site in ["linkedin", "youtube", "baidu"] {
        heal_cases::mutant(DATA, site, &mut suite)
            .unwrap_or_else(|e| panic!("needs ../shared/data: {e}"));
    }
    let settings = AdaptSettings::default();
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    for case in &suite.cases {
        let out = heal_cases::run(&suite, case, &settings, &Search::default());
        groups
            .entry(case.group.clone())
            .or_default()
            .add(out.verdict);
    }
    for (group, t) in &groups {
        println!(
            "{group}: {} cases, {} correct, {} wrong, {} abstained",
            t.total(),
            t.correct,
            t.wrong,
            t.abstained
        );
    }
    let g = |name: &str| {
        *groups
            .get(name)
            .unwrap_or_else(|| panic!("no {name} cases: {:?}", groups.keys()))
    };
    // Measured with the learned heal model: google 13 correct, 0 wrong of
    // 42 (20 under the rules before it: the model, fitted on the wide
    // corpus's sites, abstains on most of google.com's retagged buttons and
    // links); linkedin (paths changed) 296 correct, 2 wrong of 363 (260 and
    // 10 before). The floors leave a little room for refactoring, not for a
    // worse engine.
    assert!(
        g("google").correct >= 12 && g("google").wrong <= 1,
        "{:?}",
        g("google")
    );
    let linkedin = g("linkedin/changed");
    assert!(linkedin.pct(linkedin.correct) >= 40.0, "{linkedin:?}");
    assert!(linkedin.pct(linkedin.wrong) <= 8.0, "{linkedin:?}");
    // youtube and baidu: few elements change path in their mutants (4 and
    // 2), and today mend abstains on every one of them, each time with a
    // runner-up too close to the best (youtube: parts of the 4th and 5th of
    // a row of alike video cards; baidu: a `map` and its `area`). So the
    // floor holds the case count, so that the groups cannot vanish, and
    // allows no wrong answer; an engine that heals one of them is free to.
    for (group, cases) in [("youtube/changed", 4), ("baidu/changed", 2)] {
        let t = g(group);
        assert_eq!(t.total(), cases, "{group}: {t:?}");
        assert_eq!(t.wrong, 0, "{group}: {t:?}");
    }
    // Elements whose path stayed: mend must find most of them again, not
    // only avoid wrong answers. Measured with the learned heal model:
    // linkedin 270 correct, 0 wrong of 306; youtube 836 correct, 0 wrong
    // of 2,749 (the others abstain); baidu 87 correct, 0 wrong of 113.
    for (group, correct) in [
        ("linkedin/stayed", 65.0),
        ("youtube/stayed", 18.0),
        ("baidu/stayed", 70.0),
    ] {
        let t = g(group);
        assert!(t.pct(t.correct) >= correct, "{group}: {t:?}");
        assert!(t.pct(t.wrong) <= 4.0, "{group}: {t:?}");
    }
}
