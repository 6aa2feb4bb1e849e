//! One calibrated score: the chance that a heal's chosen node set is the
//! right one, from everything the choice saw. Structural similarity, the
//! margin over the runner-up, the chosen nodes' own likeness to the stored
//! target and the votes of the pattern's locators each rank risk on some
//! tracks and not on others (a structural twin scores perfectly on
//! structure; a renamed class looks unlike its target), so the threshold
//! applies to their combination, a logistic model whose weights were fitted
//! on a training split of generated cases and reported on others
//! (`bench/calibrate.py`).
//!
//! The module is pure arithmetic; the features are gathered by the caller.

use serde::Serialize;

/// What a heal's confidence is computed from, each in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Evidence {
    /// The tree similarity of the winner's region (0 for an answer of the
    /// locators, which compare no region).
    pub similarity: f64,
    /// How far the winner's score beats the runner-up's (1 with none; 0 for
    /// an answer of the locators, which rank no candidates).
    pub margin: f64,
    /// How much the chosen nodes look like the stored target: tag, text or
    /// its shape, attributes.
    pub likeness: f64,
    /// The share of the voting locators that select exactly the chosen nodes.
    pub votes_for: f64,
    /// The share of the voting locators that select other nodes.
    pub votes_against: f64,
    /// Whether any locator voted.
    pub voted: bool,
    /// Whether the answer is the locators' own.
    pub by_locators: bool,
    /// Whether the pattern is a record.
    pub record: bool,
}

/// The fitted weights, in the order of [`Evidence::features`], and the bias:
/// `python3 bench/calibrate.py --train` on the harness run of the mutation
/// cases of `bench/mutate.py --seed 2 --per-kind 30` (320 applied heals, all
/// of fields, so the record flag has no weight yet, and records are not held
/// to the bar). Each weight must have the sign of what its feature says; the
/// margin over the runner-up was fitted with the wrong one (the heals of
/// deleted targets there beat their runners-up by far), so it is 0.
const WEIGHTS: [f64; 8] = [1.2333, 0.0, 4.5488, 1.6253, -1.4998, 0.1255, 0.5768, 0.0];
const BIAS: f64 = -4.3996;

impl Evidence {
    /// The model's inputs.
    pub fn features(&self) -> [f64; 8] {
        [
            self.similarity,
            self.margin,
            self.likeness,
            self.votes_for,
            self.votes_against,
            f64::from(u8::from(self.voted)),
            f64::from(u8::from(self.by_locators)),
            f64::from(u8::from(self.record)),
        ]
    }
}

/// The calibrated chance that the node set the evidence describes is right.
pub fn confidence(evidence: &Evidence) -> f64 {
    let z: f64 = BIAS
        + WEIGHTS
            .iter()
            .zip(evidence.features())
            .map(|(w, x)| w * x)
            .sum::<f64>();
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(evidence: Evidence, low: f64, high: f64) {
        let c = confidence(&evidence);
        assert!((low..=high).contains(&c), "{c} for {evidence:?}");
    }

    #[test]
    fn confidence_is_a_probability_that_ranks_evidence() {
        let strong = Evidence {
            similarity: 0.95,
            margin: 0.3,
            likeness: 1.0,
            votes_for: 1.0,
            votes_against: 0.0,
            voted: true,
            by_locators: false,
            record: false,
        };
        let weak = Evidence {
            likeness: 0.2,
            votes_for: 0.0,
            votes_against: 1.0,
            ..strong
        };
        check(strong, 0.9, 1.0);
        check(weak, 0.0, 0.3);
        assert!(confidence(&strong) > confidence(&weak));
        for x in [0.0, 0.5, 1.0] {
            let e = Evidence {
                similarity: x,
                margin: x,
                likeness: x,
                votes_for: x,
                votes_against: x,
                ..Evidence::default()
            };
            check(e, 0.0, 1.0);
        }
    }
}
