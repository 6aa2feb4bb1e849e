//! Healing on real page changes (google.com versions, mutated copies of real
//! pages): the floor that a change to the adaptation engine must not break.
//! The cases are described in `tests/support/heal_cases.rs`; the `heal_eval`
//! example prints the full table.

use std::collections::BTreeMap;

use mend::adapt::Search;
use mend::wrapper::AdaptSettings;
use rayon::prelude::*;

use crate::support::heal_cases::{self, Case, Suite, Tally};

const DATA: &str = "../shared/data";

/// The most cases of one group this test runs. A larger group is run at an
/// even stride over its cases, which lie in document order, so that its
/// rates are read from the whole page: youtube's 2,749 elements whose path
/// stayed made nine tenths of the test's time at full size. The
/// `heal_eval` example runs every case.
const MAX_GROUP_CASES: usize = 700;

/// The items to run: each group whole, or at an even stride when it has
/// more than `most` items.
fn sampled<T>(items: &[T], group: impl Fn(&T) -> &str, most: usize) -> Vec<&T> {
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    for item in items {
        *sizes.entry(group(item)).or_default() += 1;
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    items
        .iter()
        .filter(|item| {
            let name = group(item);
            let stride = sizes[name].div_ceil(most.max(1));
            let index = seen.entry(name).or_default();
            *index += 1;
            (*index - 1).is_multiple_of(stride)
        })
        .collect()
}

fn case_group(case: &Case) -> &str {
    &case.group
}

#[test]
fn sampling_keeps_small_groups_whole_and_strides_over_large_ones() {
    struct Item {
        group: &'static str,
        index: usize,
    }
    fn group(item: &Item) -> &str {
        item.group
    }
    let items: Vec<Item> = (0..10)
        .map(|index| Item {
            group: "big",
            index,
        })
        .chain((0..2).map(|index| Item {
            group: "small",
            index,
        }))
        .collect();
    let kept: Vec<(&str, usize)> = sampled(&items, group, 4)
        .into_iter()
        .map(|item| (item.group, item.index))
        .collect();
    assert_eq!(
        kept,
        [
            ("big", 0),
            ("big", 3),
            ("big", 6),
            ("big", 9),
            ("small", 0),
            ("small", 1)
        ]
    );
}

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
    // Cases are independent: they run side by side.
    let verdicts: Vec<_> = sampled(&suite.cases, case_group, MAX_GROUP_CASES)
        .into_par_iter()
        .map(|case| {
            let out = heal_cases::run(&suite, case, &settings, &Search::default());
            (case.group.clone(), out.verdict)
        })
        .collect();
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    for (group, verdict) in verdicts {
        groups.entry(group).or_default().add(verdict);
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
    // Measured with the learned heal model: google 15 correct, 0 wrong of
    // 42 (the model, fitted on the wide corpus's sites, abstains on most of
    // google.com's retagged buttons and links); linkedin (paths changed) 302
    // correct, 3 wrong of 363. The floors leave a little room for
    // refactoring, not for a worse engine.
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
    // linkedin 269 correct, 1 wrong of 306; youtube 207 correct, 1 wrong of
    // the 688 run (836 and 7 of all 2,749; the others abstain); baidu 87
    // correct, 0 wrong of 113.
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
