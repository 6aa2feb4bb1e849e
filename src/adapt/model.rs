//! The learned heal model: the chance that a candidate node set is the
//! pattern's target, from the features of [`Evidence`](super::Evidence).
//!
//! The model is a data file, `models/heal.json`, fitted by
//! `bench/train_model.py` on cases from training sites only, with its
//! decision threshold chosen on validation sites. It is a sum of regression
//! trees over the features (gradient boosting with the logistic loss): the
//! log-odds are the file's `base` plus one leaf of every tree, each tree's
//! learning rate already folded into its leaves. The file is compiled into
//! the binary, so that the decision needs no I/O, and every adaptation
//! records the model's `version`.
//!
//! The evaluator is written here rather than taken from a crate: it is a
//! walk over arrays of a few hundred nodes, and the crates that read model
//! files (LightGBM's, ONNX runtimes) bring native libraries for it.
//!
//! It refuses nothing at run time: a model file whose features are not the
//! ones [`FEATURES`] names, in that order, or
//! whose trees are malformed, fails the unit tests below, and the binary
//! falls back to a model that is never sure (probability 0.5, with both
//! thresholds at 1), so that a broken file makes mend flag every field and
//! abstain, never answer.

use std::sync::LazyLock;

use serde::Deserialize;

/// The model's inputs, by name, in the order of [`Evidence::features`](super::Evidence::features).
pub const FEATURES: [&str; 37] = [
    "similarity",
    "margin",
    "likeness",
    "tag_like",
    "text_like",
    "attrs_like",
    "words",
    "votes_for",
    "votes_against",
    "voted",
    "record",
    "count_fit",
    "carries_evidence",
    "lookalike",
    "labels_contradict",
    "selection_empty",
    "source_tree",
    "source_locators",
    "source_witness",
    "source_relaxed",
    "source_record_witness",
    "algorithm_ctm",
    "algorithm_stm",
    "algorithm_bigram",
    "algorithm_jw",
    "label_tag_only",
    "scope_local",
    "scope_structural",
    "scope_template",
    "source_current",
    "outvoted",
    "witnessed_elsewhere",
    "neighbour",
    "emptied",
    "name_words",
    "copy_survivor",
    "other_stored",
];

/// The fitted model, as compiled into the binary.
const MODEL_JSON: &str = include_str!("../../models/heal.json");

/// One fitted model.
#[derive(Clone, Debug, Deserialize)]
pub struct Model {
    /// The model's name and date, recorded with every adaptation.
    pub version: String,
    /// The feature names, in the order the trees index them.
    pub features: Vec<String>,
    /// The least probability for a heal to be applied, chosen on
    /// validation sites for the wrong-answer goal.
    pub threshold: f64,
    /// The least probability in what a field's XPath selects for the drift
    /// check to leave it unflagged, chosen on validation sites with the
    /// heal threshold.
    pub drift_threshold: f64,
    /// The log-odds before any tree (the training set's prior).
    pub base: f64,
    trees: Vec<Tree>,
}

/// A regression tree in arrays: node `i` splits on `feature[i]` at
/// `threshold[i]` (left when the value is at or below it), or is a leaf
/// (`feature[i] < 0`) worth `value[i]`.
#[derive(Clone, Debug, Deserialize)]
struct Tree {
    feature: Vec<i32>,
    threshold: Vec<f64>,
    left: Vec<u32>,
    right: Vec<u32>,
    value: Vec<f64>,
}

/// The model compiled into the binary.
pub fn model() -> &'static Model {
    static MODEL: LazyLock<Model> = LazyLock::new(|| {
        Model::parse(MODEL_JSON).unwrap_or_else(|why| {
            tracing::error!(%why, "the compiled heal model is unreadable: every heal abstains");
            Model::never_sure()
        })
    });
    &MODEL
}

impl Model {
    /// Reads a model file, checking that it names mend's features in order
    /// and that every tree is well formed.
    pub fn parse(json: &str) -> Result<Model, String> {
        let model: Model = serde_json::from_str(json).map_err(|e| e.to_string())?;
        if model.features.iter().map(String::as_str).ne(FEATURES) {
            return Err(format!(
                "the model's features {:?} are not mend's {:?}",
                model.features, FEATURES
            ));
        }
        for (i, tree) in model.trees.iter().enumerate() {
            tree.check(FEATURES.len())
                .map_err(|why| format!("tree {i}: {why}"))?;
        }
        Ok(model)
    }

    /// A model that says 0.5 of everything and trusts nothing.
    fn never_sure() -> Model {
        Model {
            version: "none".to_owned(),
            features: FEATURES.iter().map(|&f| f.to_owned()).collect(),
            threshold: 1.0,
            drift_threshold: 1.0,
            base: 0.0,
            trees: Vec::new(),
        }
    }

    /// The probability that a candidate with these features is the target.
    pub fn probability(&self, features: &[f64]) -> f64 {
        let z = self.base + self.trees.iter().map(|t| t.leaf(features)).sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

impl Tree {
    /// Whether every array has one entry per node, every child index is in
    /// range and points forward (so that a walk ends), and every split's
    /// feature exists.
    fn check(&self, features: usize) -> Result<(), String> {
        let n = self.feature.len();
        if n == 0 {
            return Err("no nodes".to_owned());
        }
        let lens = [
            self.threshold.len(),
            self.left.len(),
            self.right.len(),
            self.value.len(),
        ];
        if lens.iter().any(|&l| l != n) {
            return Err("arrays of different lengths".to_owned());
        }
        for i in 0..n {
            let Ok(f) = usize::try_from(self.feature[i]) else {
                continue;
            };
            if f >= features {
                return Err(format!("node {i} splits on feature {f}"));
            }
            let (l, r) = (self.left[i] as usize, self.right[i] as usize);
            if l <= i || r <= i || l >= n || r >= n {
                return Err(format!("node {i} has children {l} and {r}"));
            }
        }
        Ok(())
    }

    /// The leaf value `features` fall in.
    fn leaf(&self, features: &[f64]) -> f64 {
        let mut i = 0usize;
        // Children point forward (checked on reading), so this ends.
        while let Ok(f) = usize::try_from(self.feature[i]) {
            // The trainer compares features as `f64` and may split exactly
            // at a value the data holds (0.55 against 0.5500000000000002),
            // so a feature is compared as it was computed.
            let x = features.get(f).copied().unwrap_or(0.0);
            i = if x <= self.threshold[i] {
                self.left[i]
            } else {
                self.right[i]
            } as usize;
        }
        self.value[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> String {
        serde_json::to_string(&FEATURES[..]).unwrap()
    }

    #[test]
    fn the_compiled_model_reads_and_names_mends_features() {
        let model = Model::parse(MODEL_JSON).expect("models/heal.json reads");
        assert_ne!(model.version, "none");
        assert!((0.0..=1.0).contains(&model.threshold));
    }

    #[test]
    fn a_tree_sends_values_at_or_below_its_split_left() {
        let json = format!(
            r#"{{"version": "t", "features": {}, "threshold": 0.5, "drift_threshold": 0.5, "base": 0.0,
               "trees": [{{"feature": [0, -1, -1], "threshold": [0.5, 0, 0],
                          "left": [1, 0, 0], "right": [2, 0, 0], "value": [0, -2.0, 2.0]}}]}}"#,
            names()
        );
        let model = Model::parse(&json).unwrap();
        let mut x = vec![0.0; FEATURES.len()];
        x[0] = 0.5;
        let low = model.probability(&x);
        x[0] = 0.51;
        let high = model.probability(&x);
        assert!((low - 1.0 / (1.0 + 2f64.exp())).abs() < 1e-12, "{low}");
        assert!((high - 1.0 / (1.0 + (-2f64).exp())).abs() < 1e-12, "{high}");
    }

    #[test]
    fn a_malformed_model_is_refused_not_walked() {
        let bad_children = format!(
            r#"{{"version": "t", "features": {}, "threshold": 0.5, "drift_threshold": 0.5, "base": 0.0,
               "trees": [{{"feature": [0, -1], "threshold": [0.5, 0],
                          "left": [0, 0], "right": [1, 0], "value": [0, 1]}}]}}"#,
            names()
        );
        assert!(
            Model::parse(&bad_children)
                .unwrap_err()
                .contains("children")
        );
        let wrong_features = r#"{"version": "t", "features": ["a"], "threshold": 0.5,
            "drift_threshold": 0.5, "base": 0.0, "trees": []}"#;
        assert!(
            Model::parse(wrong_features)
                .unwrap_err()
                .contains("features")
        );
        assert!(Model::parse("{").is_err());
    }

    #[test]
    fn the_fallback_model_never_clears_its_threshold() {
        let m = Model::never_sure();
        assert!(m.probability(&vec![1.0; FEATURES.len()]) < m.threshold);
    }
}
