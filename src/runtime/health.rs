//! Field health around the store: a run's statistics judged against the
//! baselines the store holds and recorded with the run, and a snapshot's
//! statistics recorded as the baseline.
//!
//! A run is judged against, in this order, the newest snapshot of the
//! wrapper and the newest runs of it that had no health drop
//! ([`BASELINE_RUNS`] of them); each pattern against the first of these
//! that measured it over enough items (`health::judge`). Runs with a drop
//! are not baselines, so a field that broke stays reported on every run
//! until it recovers or a new snapshot accepts it.
//!
//! [`judge_run_health`] reads no clock: callers pass the time.
//!
//! ## What it refuses
//!
//! A run is compared with no more than the newest snapshot and the
//! [`BASELINE_RUNS`] newest runs without a drop; a run that had a drop is
//! never a baseline, and older samples are not read. A wrapper's first run
//! without a snapshot is judged by its floors alone. A snapshot is not
//! judged: its statistics are recorded with no drops.

use crate::health::{Baseline, FieldStats, Judgement, judge};
use crate::job::{Healer, HealthObserver, Summary};
use crate::store::{
    HealthSample, HealthSampleId, RunId, SampleSource, Store, StoreError, Timestamp,
};
use crate::wrapper::Wrapper;

use super::Runtime;

/// How many of the newest runs without a drop a run may be judged against.
pub const BASELINE_RUNS: u64 = 5;

/// What judging a run found, and against what.
#[derive(Clone, Debug, PartialEq)]
pub struct RunHealth {
    /// The drops, and how many patterns were judged.
    pub judgement: Judgement,
    /// The baselines the run was compared with, in words, in order of
    /// preference (none for a wrapper's first run without a snapshot).
    pub baselines: Vec<String>,
    /// The run's sample in the store.
    pub sample: HealthSampleId,
}

/// Judges the statistics `stats` of run `run` of `wrapper`, taken over
/// `pages` pages, and records them with their drops.
pub fn judge_run_health(
    store: &mut Store,
    wrapper: &Wrapper,
    run: RunId,
    pages: u64,
    stats: &[FieldStats],
    at: Timestamp,
) -> Result<RunHealth, StoreError> {
    let mut earlier: Vec<HealthSample> = Vec::new();
    if let Some(snapshot) = store.health_baseline(&wrapper.name)? {
        earlier.push(snapshot);
    }
    earlier.extend(store.healthy_runs(&wrapper.name, BASELINE_RUNS)?);
    let labels: Vec<String> = earlier.iter().map(label).collect();
    let baselines: Vec<Baseline<'_>> = earlier
        .iter()
        .zip(&labels)
        .map(|(sample, label)| Baseline {
            label,
            stats: &sample.fields,
        })
        .collect();
    let judgement = judge(wrapper.monitor(), stats, &baselines);
    let sample = store.record_health(
        &wrapper.name,
        SampleSource::Run(run),
        pages,
        stats,
        &judgement.drops,
        at,
    )?;
    Ok(RunHealth {
        judgement,
        baselines: labels,
        sample,
    })
}

/// Judges the field health `observed` over the pages of `runtime`'s run,
/// begun at `started`, and records it with the run (a run that never
/// opened the store is recorded now, with `summary`'s counts). Gives
/// nothing when there is nothing to judge, or nowhere to record it: no
/// page, or no store file, no store opened and no `monitor` section.
pub fn judge_runtime_health(
    runtime: &Runtime,
    summary: &Summary,
    observed: &HealthObserver,
    started: Timestamp,
) -> Result<Option<RunHealth>, StoreError> {
    let session = runtime.session();
    let wrapper = runtime.wrapper();
    let Some(path) = session.path() else {
        return Ok(None);
    };
    let wanted = session.is_open() || path.is_file() || wrapper.monitor.is_some();
    if !wanted || observed.pages() == 0 {
        return Ok(None);
    }
    let mut store = Store::open(path)?;
    let now = super::now();
    let run = match session.run() {
        Some(run) => run,
        None => {
            let run = store.begin_run(
                &wrapper.name,
                runtime.wrapper_path(),
                runtime.mode(),
                started,
            )?;
            store.finish_run(run, now, summary.pages as u64, summary.violations as u64)?;
            run
        }
    };
    let stats = observed.stats();
    judge_run_health(&mut store, wrapper, run, observed.pages(), &stats, now).map(Some)
}

/// Records the statistics `stats` of `wrapper` over the `pages` pages of a
/// snapshot as its baseline.
pub fn record_health_baseline(
    store: &mut Store,
    wrapper: &Wrapper,
    pages: u64,
    stats: &[FieldStats],
    at: Timestamp,
) -> Result<HealthSampleId, StoreError> {
    store.record_health(&wrapper.name, SampleSource::Snapshot, pages, stats, &[], at)
}

/// A sample in words: "the snapshot of 2024-05-01 12:00:00", "run 7 of ...".
fn label(sample: &HealthSample) -> String {
    let at = sample.recorded_at.to_seconds_text();
    match sample.source {
        SampleSource::Snapshot => format!("the snapshot of {at}"),
        SampleSource::Run(run) => format!("run {run} of {at}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::{ExamplePages, Measure};
    use crate::wrapper::{HealMode, ValueType, load_str};

    fn wrapper() -> Wrapper {
        load_str(
            "name: shop\npatterns:\n  - name: price\n    xpath: //b\n    type: number\n",
            "shop.yaml",
        )
        .unwrap()
    }

    fn price(items: u64, filled: u64) -> Vec<FieldStats> {
        vec![FieldStats {
            pattern: "price".parse().unwrap(),
            value_type: Some(ValueType::Number),
            items,
            filled,
            values: filled,
            typed: filled,
            regex_checked: None,
            regex_passed: None,
            distinct: filled.min(3),
            distinct_capped: false,
            examples: ExamplePages {
                fill: vec!["p1.html".into()],
                ..ExamplePages::default()
            },
        }]
    }

    fn run(store: &mut Store, w: &Wrapper, stats: &[FieldStats], t: i64) -> RunHealth {
        let run = store
            .begin_run(
                &w.name,
                std::path::Path::new("shop.yaml"),
                HealMode::Off,
                Timestamp::from_unix_millis(t),
            )
            .unwrap();
        judge_run_health(store, w, run, 30, stats, Timestamp::from_unix_millis(t)).unwrap()
    }

    #[test]
    fn a_run_is_judged_against_the_snapshot_then_healthy_runs() {
        let w = wrapper();
        let mut store = Store::open_in_memory().unwrap();
        // The first run has nothing to be judged against.
        let first = run(&mut store, &w, &price(30, 30), 1_000);
        assert!(first.judgement.drops.is_empty());
        assert!(first.baselines.is_empty());
        assert_eq!(first.judgement.judged, 1);
        // The next is judged against the first; its drop is recorded.
        let broken = run(&mut store, &w, &price(30, 3), 2_000);
        assert_eq!(broken.baselines, ["run 1 of 1970-01-01 00:00:01"]);
        let drop = &broken.judgement.drops[0];
        assert_eq!((drop.measure, drop.limit), (Measure::Fill, "max_fill_drop"));
        assert_eq!(drop.example_pages, ["p1.html"]);
        // A run with a drop is no baseline: the field stays reported.
        let still = run(&mut store, &w, &price(30, 3), 3_000);
        assert_eq!(still.baselines, ["run 1 of 1970-01-01 00:00:01"]);
        assert_eq!(still.judgement.drops.len(), 1);
        // A snapshot goes first; one that accepts the change ends the alarm.
        record_health_baseline(
            &mut store,
            &w,
            30,
            &price(30, 3),
            Timestamp::from_unix_millis(4_000),
        )
        .unwrap();
        let accepted = run(&mut store, &w, &price(30, 3), 5_000);
        assert_eq!(accepted.baselines[0], "the snapshot of 1970-01-01 00:00:04");
        assert!(accepted.judgement.drops.is_empty());
        let stored = store.health_samples(Some("shop"), None).unwrap();
        assert_eq!(stored.len(), 5);
        assert_eq!(stored[0].id, accepted.sample);
        assert_eq!(stored[2].drops.len(), 1);
    }
}
