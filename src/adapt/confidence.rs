//! What a heal's candidate is judged on, and the one judgement: the chance
//! that a candidate node set is the pattern's target, from everything the
//! search saw of it, as the learned model (`model.rs`) puts it.
//!
//! Every path that finds nodes (the tree matchings, the locator ensemble,
//! the witnesses of the stored text, the relaxed locators, a record's
//! stored items found together) proposes its candidate with an
//! [`Evidence`], and none of them applies a candidate the model does not
//! clear. What each path knows differs (a witness compares no region, a
//! tree search counts no votes); the features say which path proposed the
//! candidate, so that the model weighs each one's evidence as it measured
//! it on training sites.
//!
//! The module is pure arithmetic; the features are gathered by the caller.
//!
//! ## What it refuses
//!
//! It decides nothing: [`confidence`] returns a probability, and comparing it
//! with the model's thresholds is the caller's job. It checks no evidence
//! (shares outside [0, 1] go to the model as they are) and reads no page,
//! file or clock. `Unstable` and `Template` change scopes are one feature to
//! the model, and an evidence without a change scope sets none of the
//! scope features.

use serde::Serialize;

use super::ChangeScope;
use super::model::FEATURES;
use crate::similarity::{Algorithm, LabelMode};

/// Which path of the search proposed a candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A tree matching over the stored context.
    #[default]
    Tree,
    /// The locator ensemble's answer.
    Locators,
    /// The one element carrying the stored text as written (a retagged
    /// target, or the target among copies).
    Witness,
    /// A locator relaxed (without its layout, or on any tag).
    Relaxed,
    /// A record's stored items, found together.
    RecordWitness,
    /// What the pattern's XPath selects now, as the drift check asks of it
    /// on every page.
    Current,
}

/// What a candidate is judged on. Shares and similarities are in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Evidence {
    /// The path that proposed it.
    pub source: Source,
    /// The algorithm and label mode of a tree matching's candidate.
    pub algorithm: Option<Algorithm>,
    /// The label mode of a tree matching's candidate.
    pub label: Option<LabelMode>,
    /// The tree similarity of the candidate's region: the one the tree
    /// search ranked it in, or for a field's candidate from another path
    /// (and a field's current selection) the structure around its nodes
    /// against the stored context (`context_similarity`); 0 for a record's.
    pub similarity: f64,
    /// How far its score beats the runner-up's (1 with none; 0 where the
    /// path ranks no candidates).
    pub margin: f64,
    /// How much the chosen nodes look like the stored target, all parts
    /// weighed (tag 0.2, text 0.4, attributes 0.4).
    pub likeness: f64,
    /// The parts of the likeness: the same tag.
    pub tag_like: f64,
    /// The parts of the likeness: the text or its shape.
    pub text_like: f64,
    /// The parts of the likeness: the attributes kept and not gained.
    pub attrs_like: f64,
    /// How much of the stored target's words the chosen nodes keep
    /// (`likeness::words_kept`).
    pub words: f64,
    /// How much of the words of the stored target's class tokens and
    /// attribute values the chosen nodes' own keep
    /// (`likeness::name_words_kept`).
    pub name_words: f64,
    /// The share of the voting locators that select exactly the chosen nodes.
    pub votes_for: f64,
    /// The share of the voting locators that select other nodes.
    pub votes_against: f64,
    /// Whether any locator voted.
    pub voted: bool,
    /// Whether the pattern is a record.
    pub record: bool,
    /// How well the number of chosen nodes fits the number captured:
    /// the smaller over the larger.
    pub count_fit: f64,
    /// Whether the chosen nodes share the target's tag, an attribute or its
    /// text at all.
    pub carries_evidence: bool,
    /// Whether they have another text than the target and stand among none
    /// of the texts that surrounded it.
    pub lookalike: bool,
    /// Whether they hold none of the labels the target held.
    pub labels_contradict: bool,
    /// Whether the pattern's XPath selects nothing on the page.
    pub selection_empty: bool,
    /// How the page changed around the pattern (sensed when a heal runs;
    /// `None` for the drift check, which senses nothing).
    pub change_scope: Option<ChangeScope>,
    /// Whether more of the pattern's locators agree on other nodes than on
    /// these, and those look more like the target (`votes::Votes::outvoting`).
    pub outvoted: bool,
    /// Whether the stored target's text, as written, stands on other nodes
    /// near these or elsewhere on the page, and not on these.
    pub witnessed_elsewhere: bool,
    /// Whether these carry the text of the target's neighbour at capture.
    pub neighbour: bool,
    /// Whether these are, by their tag, their text and their siblings'
    /// texts, another element of the stored context than the target
    /// (`other_stored.rs`).
    pub other_stored: bool,
    /// Whether these are an element without text that shares none of the
    /// target's classes or attribute values.
    pub emptied: bool,
    /// Whether these look exactly like the stored target while the page
    /// holds fewer such copies than the capture page did
    /// (`treegram::Signature`): a copy that outlived the target.
    pub copy_survivor: bool,
}

impl Evidence {
    /// The model's inputs, named by [`FEATURES`].
    pub fn features(&self) -> [f64; FEATURES.len()] {
        let flag = |b: bool| f64::from(u8::from(b));
        [
            self.similarity,
            self.margin,
            self.likeness,
            self.tag_like,
            self.text_like,
            self.attrs_like,
            self.words,
            self.votes_for,
            self.votes_against,
            flag(self.voted),
            flag(self.record),
            self.count_fit,
            flag(self.carries_evidence),
            flag(self.lookalike),
            flag(self.labels_contradict),
            flag(self.selection_empty),
            flag(self.source == Source::Tree),
            flag(self.source == Source::Locators),
            flag(self.source == Source::Witness),
            flag(self.source == Source::Relaxed),
            flag(self.source == Source::RecordWitness),
            flag(self.algorithm == Some(Algorithm::Ctm)),
            flag(self.algorithm == Some(Algorithm::Stm)),
            flag(self.algorithm == Some(Algorithm::Bigram)),
            flag(self.algorithm == Some(Algorithm::Jw)),
            flag(self.label == Some(LabelMode::Tag)),
            flag(self.change_scope == Some(ChangeScope::Local)),
            flag(self.change_scope == Some(ChangeScope::Structural)),
            flag(matches!(
                self.change_scope,
                Some(ChangeScope::Template | ChangeScope::Unstable)
            )),
            flag(self.source == Source::Current),
            flag(self.outvoted),
            flag(self.witnessed_elsewhere),
            flag(self.neighbour),
            flag(self.emptied),
            self.name_words,
            flag(self.copy_survivor),
            flag(self.other_stored),
        ]
    }

    /// The features by name, as adaptations report them for retraining.
    pub fn named_features(&self) -> serde_json::Map<String, serde_json::Value> {
        FEATURES
            .iter()
            .zip(self.features())
            .map(|(name, x)| ((*name).to_owned(), serde_json::Value::from(x)))
            .collect()
    }
}

/// The chance, as the learned model puts it, that the node set the evidence
/// describes is the pattern's target.
pub fn confidence(evidence: &Evidence) -> f64 {
    super::model::model().probability(&evidence.features())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_has_a_name_and_a_value() {
        let e = Evidence {
            source: Source::Relaxed,
            change_scope: Some(ChangeScope::Template),
            ..Evidence::default()
        };
        let named = e.named_features();
        assert_eq!(named.len(), FEATURES.len());
        assert_eq!(named["source_relaxed"], 1.0);
        assert_eq!(named["source_tree"], 0.0);
        assert_eq!(named["scope_template"], 1.0);
    }

    #[test]
    fn confidence_is_a_probability() {
        for x in [0.0, 0.5, 1.0] {
            let e = Evidence {
                similarity: x,
                margin: x,
                likeness: x,
                votes_for: x,
                votes_against: x,
                ..Evidence::default()
            };
            let c = confidence(&e);
            assert!((0.0..=1.0).contains(&c), "{c}");
        }
    }
}
