//! Field health samples: round trips, the baseline and healthy runs, and
//! damaged rows.

use super::*;
use crate::health::{ExamplePages, FieldStats, HealthDrop, Measure};
use crate::wrapper::ValueType;

fn price(items: u64, filled: u64) -> FieldStats {
    FieldStats {
        pattern: "book/price".parse().unwrap(),
        value_type: Some(ValueType::Number),
        items,
        filled,
        values: filled + 1,
        typed: filled,
        regex_checked: Some(filled + 1),
        regex_passed: Some(filled),
        distinct: 7,
        distinct_capped: false,
        examples: ExamplePages {
            fill: vec!["a.html".into()],
            type_pass: vec!["b.html".into()],
            regex_pass: vec![],
        },
    }
}

fn book(items: u64) -> FieldStats {
    FieldStats {
        pattern: "book".parse().unwrap(),
        value_type: None,
        items,
        filled: items,
        values: 0,
        typed: 0,
        regex_checked: None,
        regex_passed: None,
        distinct: 0,
        distinct_capped: true,
        examples: ExamplePages::default(),
    }
}

fn drop_of_price() -> HealthDrop {
    HealthDrop {
        field: "book/price".parse().unwrap(),
        measure: Measure::Fill,
        limit: "min_fill",
        limit_value: 0.95,
        baseline: Some(0.99),
        baseline_from: Some("the snapshot".into()),
        now: 0.5,
        threshold: 0.95,
        example_pages: vec!["a.html".into(), "c.html".into()],
    }
}

fn begin(store: &mut Store, wrapper: &str, at_ms: i64) -> RunId {
    store
        .begin_run(wrapper, Path::new("w.yaml"), HealMode::Off, at(at_ms))
        .unwrap()
}

#[test]
fn samples_round_trip_with_fields_and_drops() {
    let mut store = Store::open_in_memory().unwrap();
    let run = begin(&mut store, "bookshop", 100);
    let fields = vec![book(3), price(20, 10)];
    let id = store
        .record_health(
            "bookshop",
            SampleSource::Run(run),
            3,
            &fields,
            &[drop_of_price()],
            at(200),
        )
        .unwrap();
    let samples = store.health_samples(Some("bookshop"), None).unwrap();
    assert_eq!(
        samples,
        [HealthSample {
            id,
            wrapper: "bookshop".into(),
            source: SampleSource::Run(run),
            run: Some(run),
            recorded_at: at(200),
            pages: 3,
            fields,
            drops: vec![drop_of_price()],
        }]
    );
    let json = serde_json::to_value(&samples[0]).unwrap();
    assert_eq!(json["source"], "run");
    assert_eq!(json["run"], run.0);
    assert_eq!(json["fields"][0]["type"], "record");
    assert_eq!(json["fields"][1]["type"], "number");
    assert_eq!(json["drops"][0]["measure"], "fill");
    // A run's sample must name a run that exists.
    assert!(matches!(
        store.record_health("bookshop", SampleSource::Run(RunId(99)), 1, &[], &[], at(1)),
        Err(StoreError::UnknownRun(RunId(99)))
    ));
}

#[test]
fn the_baseline_is_the_newest_snapshot_and_healthy_runs_have_no_drop() {
    let mut store = Store::open_in_memory().unwrap();
    assert_eq!(store.health_baseline("bookshop").unwrap(), None);
    let old = store
        .record_health(
            "bookshop",
            SampleSource::Snapshot,
            1,
            &[price(5, 5)],
            &[],
            at(10),
        )
        .unwrap();
    let new = store
        .record_health(
            "bookshop",
            SampleSource::Snapshot,
            2,
            &[price(9, 9)],
            &[],
            at(20),
        )
        .unwrap();
    store
        .record_health("news", SampleSource::Snapshot, 1, &[], &[], at(30))
        .unwrap();
    assert_eq!(store.health_baseline("bookshop").unwrap().unwrap().id, new);
    assert_ne!(old, new);

    let mut runs = Vec::new();
    for (t, drops) in [(40, vec![]), (50, vec![drop_of_price()]), (60, vec![])] {
        let run = begin(&mut store, "bookshop", t);
        let id = store
            .record_health(
                "bookshop",
                SampleSource::Run(run),
                4,
                &[price(4, 4)],
                &drops,
                at(t),
            )
            .unwrap();
        runs.push(id);
    }
    let healthy: Vec<_> = store
        .healthy_runs("bookshop", 5)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(healthy, [runs[2], runs[0]]);
    assert_eq!(store.healthy_runs("bookshop", 1).unwrap().len(), 1);
    assert!(store.healthy_runs("news", 5).unwrap().is_empty());

    // Newest first, per wrapper; a limit applies to each wrapper.
    let all = store.health_samples(None, Some(2)).unwrap();
    let shown: Vec<(String, HealthSampleId)> =
        all.iter().map(|s| (s.wrapper.clone(), s.id)).collect();
    assert_eq!(
        shown,
        [
            ("bookshop".to_owned(), runs[2]),
            ("bookshop".to_owned(), runs[1]),
            ("news".to_owned(), shown[2].1),
        ]
    );
}

#[test]
fn a_damaged_sample_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mend.db");
    let mut store = Store::open(&path).unwrap();
    store
        .record_health(
            "bookshop",
            SampleSource::Snapshot,
            1,
            &[price(5, 5)],
            &[drop_of_price()],
            at(10),
        )
        .unwrap();
    drop(store);
    for damage in [
        "UPDATE field_stats SET value_type = 'money'",
        "UPDATE field_stats SET examples = 'not json'",
        "UPDATE field_stats SET pattern = 'a//b'",
        "UPDATE health_drops SET measure = 'colour'",
        "UPDATE health_drops SET limit_name = 'max_colour'",
        "UPDATE field_stats SET items = -1",
    ] {
        let copy = dir.path().join("copy.db");
        std::fs::copy(&path, &copy).unwrap();
        raw(&copy).execute_batch(damage).unwrap();
        let store = Store::open(&copy).unwrap();
        assert!(
            matches!(
                store.health_baseline("bookshop"),
                Err(StoreError::Corrupt(_))
            ),
            "{damage}"
        );
    }
}
