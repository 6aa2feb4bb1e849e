//! The history page of one wrapper: its runs, the versions of its file
//! (the wrapper-change journal), and its field health over time, a fill
//! rate per field and sample drawn as a chart with the same numbers in a
//! table beside it.
//!
//! ## What it refuses
//!
//! A wrapper the store holds no run nor health sample of has no page
//! (`None`). It shows at most the [`SAMPLES`] newest health samples, and
//! only the fields of the newest; a field with no items has no fill rate,
//! so it is left off the chart and shown as `–` in the table. It lists at
//! most the 50 newest changes to the wrapper file, and none when no run
//! recorded the file's canonical path. Only a store that cannot be read is
//! an error.

use maud::{Markup, html};

use crate::health::FieldStats;
use crate::store::{HealthSample, Store, StoreError};

/// How many health samples the chart shows, newest last.
const SAMPLES: u64 = 30;

/// The chart's size, in the SVG's own units.
const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 200.0;

/// Colours of the fields' lines, chosen to stay apart for most readers.
const COLOURS: [&str; 6] = [
    "#1d3557", "#c0392b", "#2a7f62", "#8e44ad", "#b7791f", "#555555",
];

/// The history of the wrapper named `wrapper`; `None` when the store has
/// nothing of it.
pub(super) fn history(
    store: &Store,
    token: &str,
    wrapper: &str,
) -> Result<Option<Markup>, StoreError> {
    let runs = store.runs(Some(wrapper))?;
    let mut samples = store.health_samples(Some(wrapper), Some(SAMPLES))?;
    if runs.is_empty() && samples.is_empty() {
        return Ok(None);
    }
    samples.reverse();
    let file = runs.iter().find_map(|r| r.wrapper_file.clone());
    let changes = match &file {
        Some(f) => store.changes(Some(f), Some(50))?,
        None => Vec::new(),
    };
    Ok(Some(html! {
        p { a href=(super::layout::href(token, "")) { "All adaptations" } }
        h2 { "History of " (wrapper) }
        @if let Some(f) = &file { p { "Wrapper file " code { (f.display()) } } }
        h3 { "Field health" }
        @if samples.is_empty() {
            p { "No field health recorded yet: `mend snapshot` records a baseline, and each run its sample." }
        } @else {
            (fill_chart(&samples))
            (fill_table(&samples))
        }
        h3 { "Versions of the wrapper file" }
        @if changes.is_empty() {
            p { "No change to the file is recorded." }
        } @else {
            table {
                thead { tr { th scope="col" { "Change" } th scope="col" { "When" }
                    th scope="col" { "What" } th scope="col" { "State" } th scope="col" { "Files" } } }
                tbody {
                    @for c in &changes {
                        tr { td { (c.id.0) } td { (c.started_at) } td { (c.kind.as_str()) }
                            td { (c.state.as_str()) } td { (c.files.len()) } }
                    }
                }
            }
        }
        h3 { "Runs" }
        table {
            thead { tr { th scope="col" { "Run" } th scope="col" { "Began" } th scope="col" { "Pages" }
                th scope="col" { "Violations" } th scope="col" { "Healing" } } }
            tbody {
                @for r in &runs {
                    tr { td { (r.id.0) } td { (r.started_at) } td { (r.pages) }
                        td { (r.violations) } td { (r.heal_mode.as_str()) } }
                }
            }
        }
    }))
}

/// The share of a field's items that had a value.
fn fill_rate(f: &FieldStats) -> Option<f64> {
    (f.items > 0).then(|| f.filled as f64 / f.items as f64)
}

/// The fields of the newest sample, in the wrapper's order.
fn fields(samples: &[HealthSample]) -> Vec<String> {
    samples
        .last()
        .map(|s| s.fields.iter().map(|f| f.pattern.to_string()).collect())
        .unwrap_or_default()
}

fn rate_of(sample: &HealthSample, field: &str) -> Option<f64> {
    sample
        .fields
        .iter()
        .find(|f| f.pattern == field)
        .and_then(fill_rate)
}

fn fill_chart(samples: &[HealthSample]) -> Markup {
    let names = fields(samples);
    let step = if samples.len() > 1 {
        WIDTH / (samples.len() - 1) as f64
    } else {
        0.0
    };
    let y = |rate: f64| HEIGHT - rate * HEIGHT;
    html! {
        figure.chart {
            svg width=(WIDTH) height=(HEIGHT + 20.0) viewBox={ "0 -10 " (WIDTH) " " (HEIGHT + 20.0) }
                role="img" aria-label="Fill rate per field and sample; the table below has the numbers" {
                line.axis x1="0" y1=(HEIGHT) x2=(WIDTH) y2=(HEIGHT) stroke="#555" {}
                line.axis x1="0" y1="0" x2=(WIDTH) y2="0" stroke="#bbb" {}
                @for (i, name) in names.iter().enumerate() {
                    @let points: Vec<String> = samples.iter().enumerate()
                        .filter_map(|(k, s)| rate_of(s, name).map(|r| format!("{:.1},{:.1}", k as f64 * step, y(r))))
                        .collect();
                    polyline points=(points.join(" ")) fill="none" stroke=(COLOURS[i % COLOURS.len()])
                        stroke-width="2" {}
                }
            }
            figcaption {
                "Fill rate, 0 to 1, oldest sample on the left. "
                @for (i, name) in names.iter().enumerate() {
                    span.key { svg width="12" height="12" aria-hidden="true" {
                        rect width="12" height="12" fill=(COLOURS[i % COLOURS.len()]) {} }
                        " " code { (name) } " " }
                }
            }
        }
    }
}

fn fill_table(samples: &[HealthSample]) -> Markup {
    let names = fields(samples);
    html! {
        table.health {
            caption { "Fill rate per field" }
            thead { tr { th scope="col" { "Sample" } th scope="col" { "When" } th scope="col" { "Pages" }
                @for n in &names { th scope="col" { code { (n) } } } } }
            tbody {
                @for s in samples {
                    tr {
                        td { @match s.source.run() {
                            Some(run) => { "run " (run.0) },
                            None => { "snapshot (baseline)" },
                        } }
                        td { (s.recorded_at) }
                        td { (s.pages) }
                        @for n in &names {
                            td { (rate_of(s, n).map_or_else(|| "–".to_owned(), |r| format!("{r:.2}"))) }
                        }
                    }
                }
            }
        }
    }
}
