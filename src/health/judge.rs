//! Judging a run's statistics: the floors of the wrapper's `monitor` block,
//! and the drops against a baseline.
//!
//! A measure is judged only over at least `monitor.min_items` items (or
//! values), in the run and, for a drop, in the baseline: a handful of
//! items says too little to raise an alarm. Each pattern's baseline is the
//! first of the baselines given (in the caller's order of preference) that
//! measured it over enough items, so a snapshot taken on one page can stand
//! for a listing's fields while a run of many pages stands for the
//! page-level ones.
//!
//! ## What it refuses
//!
//! A measure taken over fewer than `monitor.min_items` items is not judged,
//! and a baseline that took it over fewer is passed over for the next one. A
//! distinct count past its cap is judged by neither `min_distinct` nor
//! `max_distinct_drop`, and a shortfall of no more than [`EPSILON`] is no
//! drop. Without a baseline only the floors are asked. Each pattern and
//! measure gives at most one drop, the one with the highest threshold, a
//! floor winning a tie.

use std::fmt;

use serde::Serialize;

use super::stats::{FieldStats, Measure};
use crate::wrapper::{HealthLimits, Monitor, PatternPath};

/// Statistics to compare a run with, and what they are in words.
#[derive(Clone, Copy, Debug)]
pub struct Baseline<'a> {
    /// What the baseline is, for messages: "the snapshot of 2024-05-01 12:00:00".
    pub label: &'a str,
    /// Its statistics.
    pub stats: &'a [FieldStats],
}

/// A measure of a pattern that fell past one of its limits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HealthDrop {
    /// The pattern.
    pub field: PatternPath,
    /// What fell.
    pub measure: Measure,
    /// The limit it fell past, as the wrapper spells it (`min_fill`, `max_fill_drop`).
    pub limit: &'static str,
    /// The limit's setting.
    pub limit_value: f64,
    /// The measure in the baseline, when there was one to compare with.
    pub baseline: Option<f64>,
    /// What the baseline is, in words.
    pub baseline_from: Option<String>,
    /// The measure in this run.
    pub now: f64,
    /// The least value the limit accepts; `now` is under it.
    pub threshold: f64,
    /// The first pages on which the measure fell short.
    pub example_pages: Vec<String>,
}

/// What judging a run found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    /// Every measure past a limit, at most one per pattern and measure (the
    /// one furthest under its threshold's limit: the highest threshold).
    pub drops: Vec<HealthDrop>,
    /// How many patterns had at least one measure judged.
    pub judged: usize,
    /// How many of those had a measure compared with a baseline.
    pub compared: usize,
    /// How many patterns were measured, but over too few items to judge.
    pub too_few: usize,
}

impl Judgement {
    /// How many patterns have a drop.
    pub fn patterns_below(&self) -> usize {
        let mut fields: Vec<&PatternPath> = self.drops.iter().map(|d| &d.field).collect();
        fields.dedup();
        fields.len()
    }
}

/// The limits a drop can name, as the wrapper spells them.
pub const LIMITS: [&str; 8] = [
    "min_fill",
    "min_type_pass",
    "min_regex_pass",
    "min_distinct",
    "max_fill_drop",
    "max_type_pass_drop",
    "max_regex_pass_drop",
    "max_distinct_drop",
];

/// A shortfall is only a drop when it is more than rounding.
const EPSILON: f64 = 1e-9;

/// Judges the statistics `now` with `monitor`'s limits, against the first
/// of `baselines` that measured each pattern over enough items.
pub fn judge(monitor: &Monitor, now: &[FieldStats], baselines: &[Baseline<'_>]) -> Judgement {
    let mut judgement = Judgement::default();
    for stats in now {
        let limits = monitor.limits(&stats.pattern);
        let mut judged = false;
        let mut measured = false;
        let mut compared = false;
        for measure in Measure::ALL {
            let Some((value, over)) = stats.measure(measure) else {
                continue;
            };
            measured = true;
            if over < monitor.min_items {
                continue;
            }
            judged = true;
            let baseline = baselines.iter().find_map(|b| {
                let earlier = b.stats.iter().find(|s| s.pattern == stats.pattern)?;
                let (v, n) = earlier.measure(measure)?;
                (n >= monitor.min_items).then_some((v, b.label))
            });
            compared |= baseline.is_some();
            if let Some(drop) = worst(stats, measure, value, &limits, baseline) {
                judgement.drops.push(drop);
            }
        }
        judgement.judged += usize::from(judged);
        judgement.compared += usize::from(compared);
        judgement.too_few += usize::from(measured && !judged);
    }
    judgement
}

/// The drop of `measure` (now `value`) past the highest of its limits, if any.
fn worst(
    stats: &FieldStats,
    measure: Measure,
    value: f64,
    limits: &HealthLimits,
    baseline: Option<(f64, &str)>,
) -> Option<HealthDrop> {
    let (floor, max_drop) = match measure {
        Measure::Fill => (
            ("min_fill", limits.min_fill),
            ("max_fill_drop", limits.max_fill_drop),
        ),
        Measure::TypePass => (
            ("min_type_pass", limits.min_type_pass),
            ("max_type_pass_drop", limits.max_type_pass_drop),
        ),
        Measure::RegexPass => (
            ("min_regex_pass", limits.min_regex_pass),
            ("max_regex_pass_drop", limits.max_regex_pass_drop),
        ),
        Measure::Distinct => (
            ("min_distinct", limits.min_distinct.map(|n| n as f64)),
            ("", None),
        ),
        Measure::DistinctShare => (("", None), ("max_distinct_drop", limits.max_distinct_drop)),
    };
    // A count past the cap is only known to be at least the cap: a floor
    // above it, or a share taken from it, cannot be judged.
    if stats.distinct_capped && matches!(measure, Measure::Distinct | Measure::DistinctShare) {
        return None;
    }
    let mut limits: Vec<(&'static str, f64, f64)> = Vec::new();
    if let ((name, Some(allowed)), Some((base, _))) = (max_drop, baseline) {
        let threshold = if measure == Measure::DistinctShare {
            base * (1.0 - allowed)
        } else {
            base - allowed
        };
        limits.push((name, allowed, threshold));
    }
    // Pushed last, a floor wins a tie (`max_by` keeps the last of equals):
    // it is the limit a person wrote for this pattern.
    if let (name, Some(floor)) = floor {
        limits.push((name, floor, floor));
    }
    let (limit, limit_value, threshold) = limits
        .into_iter()
        .filter(|&(_, _, threshold)| value < threshold - EPSILON)
        .max_by(|a, b| a.2.total_cmp(&b.2))?;
    Some(HealthDrop {
        field: stats.pattern.clone(),
        measure,
        limit,
        limit_value,
        baseline: baseline.map(|(v, _)| v),
        baseline_from: baseline.map(|(_, label)| label.to_owned()),
        now: value,
        threshold,
        example_pages: stats.examples.of(measure).to_vec(),
    })
}

impl fmt::Display for HealthDrop {
    /// `book/price fill 0.62 < 0.95 (min_fill; baseline 0.99 from run 3;
    /// e.g. pages a.html, b.html)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.measure;
        write!(
            f,
            "{} {} {} < {} (",
            self.field,
            m,
            m.show(self.now),
            m.show(self.threshold)
        )?;
        let from = |f: &mut fmt::Formatter<'_>| match (&self.baseline, &self.baseline_from) {
            (Some(b), Some(label)) => write!(f, "baseline {} from {label}", m.show(*b)),
            (Some(b), None) => write!(f, "baseline {}", m.show(*b)),
            _ => Ok(()),
        };
        if self.limit.starts_with("min_") {
            write!(f, "{}", self.limit)?;
            if self.baseline.is_some() {
                f.write_str("; ")?;
                from(f)?;
            }
        } else {
            write!(
                f,
                "{} {}: ",
                self.limit,
                Measure::Fill.show(self.limit_value)
            )?;
            from(f)?;
        }
        if !self.example_pages.is_empty() {
            write!(f, "; e.g. pages {}", self.example_pages.join(", "))?;
        }
        f.write_str(")")
    }
}
