//! The crawler's priority: instead of visiting a site breadth first, it
//! fetches first the pages expected to hold the most links to items.
//! [`LinkValueModel`] estimates that number from a URL alone, and learns
//! from every page fetched how many item links it really held;
//! [`priority`] weighs the estimate against the page's depth.
//!
//! ## What it refuses
//!
//! A negative or NaN prediction counts as 0, and no prediction passes
//! [`MAX_SCORE`] in log space (some 66 million links), so no page gets an
//! unbounded priority. One page's lesson closes at most [`MAX_CLOSED`] of the
//! gap between the prediction and its count, so a single odd page cannot
//! swing the model. It fetches nothing and reads no clock and no randomness.

use url::Url;

use super::url_features::{BUCKETS, features};

/// An online model of how many item links the page at a URL holds.
///
/// A linear model over hashed features of the URL (see `url_features`:
/// segments by position, their shapes, the shape after each segment, query
/// keys, depth, host, a bias) predicts `ln(1 + links)`, and learns by
/// AdaGrad from each page fetched, its step cut so that one page never
/// moves the prediction past its own count. Features are normalised to a
/// unit vector, so that long URLs do not learn faster than short ones. A
/// model that has learned nothing predicts 0 everywhere.
///
/// The model is deterministic: the same pages learned in the same order
/// give the same model, in any process, since features are hashed with
/// fixed FNV-1a. A crawler that resumes can rebuild it by learning its
/// recorded pages again, in order.
#[derive(Clone, Debug)]
pub struct LinkValueModel {
    weights: Vec<f64>,
    /// AdaGrad's sum of squared gradients, per weight.
    squares: Vec<f64>,
    observations: u64,
}

/// What one level of depth costs in [`priority`], in units of
/// `ln(1 + predicted links)`: a page one level deeper must be expected to
/// hold about 28% more item links to come first.
pub const DEPTH_COST: f64 = 0.25;

/// The order of the frontier: higher first. `ln(1 + predicted) -
/// DEPTH_COST * depth`, where `predicted` is [`LinkValueModel::predict`]
/// and `depth` the number of links followed from a seed.
///
/// With no prediction (all 0, as an untrained model gives) this is
/// breadth-first order; as the model learns, pages expected to list many
/// items come first, shallow ones before deep ones when equal. A negative
/// or NaN prediction counts as 0.
pub fn priority(depth: u32, predicted: f64) -> f64 {
    let predicted = if predicted > 0.0 { predicted } else { 0.0 };
    predicted.ln_1p() - DEPTH_COST * f64::from(depth)
}

impl Default for LinkValueModel {
    fn default() -> Self {
        Self {
            weights: vec![0.0; BUCKETS],
            squares: vec![0.0; BUCKETS],
            observations: 0,
        }
    }
}

impl LinkValueModel {
    /// The expected number of item links on the page at `url`, at least 0.
    pub fn predict(&self, url: &Url) -> f64 {
        let features = features(url);
        self.score(&features).clamp(0.0, MAX_SCORE).exp_m1()
    }

    /// Learns that the page at `url` held `item_links` links to items.
    pub fn learn(&mut self, url: &Url, item_links: u32) {
        let features = features(url);
        if features.is_empty() {
            return;
        }
        let x = value(&features);
        let residual = f64::from(item_links).ln_1p() - self.score(&features);
        let mut steps: Vec<f64> = Vec::with_capacity(features.len());
        for &feature in &features {
            let gradient = residual * x;
            self.squares[feature] += gradient * gradient;
            let step = LEARNING_RATE * gradient / (self.squares[feature].sqrt() + EPSILON);
            steps.push(step);
        }
        // The change this step makes to this page's own prediction; cut so
        // that it closes at most part of the gap, since early steps of
        // AdaGrad are as large as the rate whatever the gradient.
        let change: f64 = steps.iter().sum::<f64>() * x;
        let limit = MAX_CLOSED * residual.abs();
        let scale = if change.abs() > limit {
            limit / change.abs()
        } else {
            1.0
        };
        for (&feature, step) in features.iter().zip(steps) {
            self.weights[feature] += step * scale;
        }
        self.observations += 1;
    }

    /// How many pages the model has learned from.
    pub fn observations(&self) -> u64 {
        self.observations
    }

    /// The prediction in log space, unclamped.
    fn score(&self, features: &[usize]) -> f64 {
        let x = value(features);
        features
            .iter()
            .map(|&feature| self.weights[feature] * x)
            .sum()
    }
}

/// AdaGrad's rate: the size of a weight's first step.
const LEARNING_RATE: f64 = 0.5;

/// The share of the gap between prediction and count that one page may
/// close.
const MAX_CLOSED: f64 = 0.8;

const EPSILON: f64 = 1e-9;

/// `ln(1 + links)` above this (a hundred million links) is not a page.
const MAX_SCORE: f64 = 18.0;

/// Each feature's value, so that a URL's features form a unit vector.
fn value(features: &[usize]) -> f64 {
    1.0 / (features.len().max(1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn url(path: &str) -> Url {
        Url::parse(&format!("https://site.example{path}")).unwrap()
    }

    /// A site where listing pages hold 10 item links and wiki pages and
    /// forum threads none, `rounds` of each, interleaved.
    fn trained(rounds: u32) -> LinkValueModel {
        let mut model = LinkValueModel::default();
        for i in 0..rounds {
            model.learn(&url(&format!("/list/{i}")), 10);
            model.learn(&url(&format!("/wiki/Topic_{i}")), 0);
            model.learn(&url(&format!("/forum/t/{}", 1000 + i * 7)), 0);
        }
        model
    }

    #[test]
    fn an_untrained_model_predicts_nothing() {
        let model = LinkValueModel::default();
        assert_eq!(model.predict(&url("/list/1")), 0.0);
        assert_eq!(model.observations(), 0);
    }

    #[test]
    fn listing_pages_are_told_apart_after_a_few_dozen_pages() {
        let model = trained(12);
        assert_eq!(model.observations(), 36);
        let list = model.predict(&url("/list/57"));
        let wiki = model.predict(&url("/wiki/Topic_57"));
        let forum = model.predict(&url("/forum/t/57"));
        assert!(
            list > 5.0,
            "an unseen listing page should be near 10, got {list}"
        );
        assert!(wiki < 1.0 && forum < 1.0, "wiki {wiki}, forum {forum}");
        assert!(priority(3, list) > priority(1, wiki.max(forum)));
    }

    #[test]
    fn it_learns_from_the_first_pages() {
        let model = trained(3);
        assert!(
            model.predict(&url("/list/57")) > 2.0 * model.predict(&url("/wiki/Topic_57")).max(0.5)
        );
    }

    #[test]
    fn one_page_never_overshoots() {
        let mut model = LinkValueModel::default();
        model.learn(&url("/list/1"), 10);
        let predicted = model.predict(&url("/list/1"));
        assert!(predicted > 0.0 && predicted <= 10.0, "{predicted}");
    }

    #[test]
    fn learning_is_deterministic() {
        let a = trained(5);
        let b = trained(5);
        for path in ["/list/99", "/wiki/X", "/forum/t/3", "/", "/other?x=1"] {
            assert_eq!(
                a.predict(&url(path)).to_bits(),
                b.predict(&url(path)).to_bits(),
                "{path}"
            );
        }
    }

    #[test]
    fn priority_is_breadth_first_without_predictions_and_favours_links() {
        assert!(priority(0, 0.0) > priority(1, 0.0));
        assert!(priority(2, 10.0) > priority(2, 3.0));
        assert!(priority(3, 10.0) > priority(1, 0.0));
        assert!(priority(1, 10.0) > priority(3, 12.0));
        assert_eq!(priority(1, -5.0), priority(1, 0.0));
        assert_eq!(priority(1, f64::NAN), priority(1, 0.0));
    }

    proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
        #[test]
        fn predictions_are_finite_and_not_negative(
            paths in prop::collection::vec(any::<String>(), 1..20),
            counts in prop::collection::vec(any::<u32>(), 1..20),
        ) {
            let base = url("/");
            let urls: Vec<Url> = paths.iter().filter_map(|p| base.join(p).ok()).collect();
            let mut model = LinkValueModel::default();
            for (u, &count) in urls.iter().zip(counts.iter().cycle()) {
                model.learn(u, count);
            }
            for u in &urls {
                let predicted = model.predict(u);
                prop_assert!(predicted.is_finite() && predicted >= 0.0, "{} {}", u, predicted);
            }
        }
    }
}
