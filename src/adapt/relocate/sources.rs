//! The candidate sources asked before the tree search: the stored text as
//! written (a retagged target, a copy beside it), the locator ensemble, a
//! relaxed locator and a record's witnessed items. Each proposes its nodes
//! with their evidence; the model judges them and the proof holds them, as
//! for the tree search's.
//!
//! ## What it refuses
//!
//! A source never applies a candidate alone: one the judge refuses, one a
//! rejected XPath selects or one whose proof fails is not taken, and the
//! next source is asked.

use super::*;

impl<'a, 'e> Attempting<'a, 'e> {
    pub(super) fn proposer(&self, source: Source) -> Proposer<'a> {
        Proposer {
            source,
            facts: self.facts,
            bar: self.bar,
            log: self.log,
        }
    }

    /// A field's target retagged beside a copy that kept the old tag: the
    /// copy draws the locators and the tree search alike, and only the
    /// target still has its text as written. Like a record's witness, that
    /// text and the classes are the whole of the evidence. And a copy of the
    /// target inserted beside it with other text: an XPath without
    /// positions, or whose position now counts both, selects the two. The
    /// XPath still names where the target is, and the stored text says
    /// which of its nodes it is; the tree search weighs the two texts nearly
    /// alike and cannot call it. And a wrapper put around the target, which
    /// the XPath now selects (`signals::wrapped_target`), or the target
    /// retagged beside the element the XPath now selects
    /// (`signals::retagged_beside`).
    pub(super) fn by_stored_text(&self, adaptation: &Adaptation) -> Option<Attempted> {
        if self.pattern.is_record() {
            return None;
        }
        let (env, gram) = (self.env, self.gram);
        let narrowed = signals::narrowed_to_stored_text(env.doc, gram, &self.current).map(|found| {
            (
                found,
                "its XPath selects a copy beside the target; only this node carries the stored text as written",
            )
        });
        // What the drift check found of a top-level field's target next to
        // its XPath's node, which the tree search and the locators weigh
        // nearly alike: the target inside a wrapper put around it (the
        // two carry the same text), or retagged beside the element the
        // XPath now counts in its place.
        let top_level = self.path.parent().is_none();
        let signalled = |signal: signals::Signal, why: &'static str| {
            top_level
                .then(|| signal(env.doc, gram, &self.current))
                .flatten()
                .map(|w| (w.targets, why))
        };
        let wrapped = signalled(
            signals::wrapped_target,
            "its XPath selects a wrapper around the target; the element inside has the target's tag and attributes",
        );
        let beside = signalled(
            signals::retagged_beside,
            "its XPath selects an element beside the target; only this sibling has the target's text as written and its attributes",
        );
        let witnessed = [
            retagged_instead(env, gram, &self.scopes, &self.current),
            narrowed,
            wrapped,
            beside,
        ];
        witnessed
            .into_iter()
            .flatten()
            .filter(|(found, _)| self.rejected_for(found).is_none())
            .find_map(|(found, why)| {
                witnessed_field(
                    env,
                    self.wrapper,
                    self.path,
                    &self.scopes,
                    adaptation,
                    (found, why.to_owned()),
                    self.proposer(Source::Witness),
                )
            })
    }

    /// The locator ensemble's answer, the first candidate of a field: it
    /// must still look like the stored target and pass the constraints.
    /// Applied when the locators are sure of it; otherwise the nodes they
    /// voted for settle a tree search that cannot tell them from another
    /// candidate (see [`decide`]).
    pub(super) fn by_locators(
        &self,
        adaptation: &Adaptation,
    ) -> ControlFlow<Attempted, Option<Vec<Vec<Item>>>> {
        if self.pattern.is_record() {
            return ControlFlow::Continue(None);
        }
        let answer = match locator_choice(self.env, self.gram, &self.scopes, &self.current) {
            None => return ControlFlow::Continue(None),
            Some(Err(reason)) => return ControlFlow::Break(abstained(adaptation.clone(), reason)),
            Some(Ok(answer)) => answer,
        };
        let voted = Some(answer.chosen.targets.clone());
        if !answer.sure || self.rejected_for(&answer.chosen.targets).is_some() {
            return ControlFlow::Continue(voted);
        }
        let LocatorAnswer { chosen, reason, .. } = answer;
        match self.judged_and_proven(adaptation, &chosen, Source::Locators) {
            Some(mut done) => {
                done.adaptation.reason = Some(reason);
                ControlFlow::Break(done)
            }
            None => ControlFlow::Continue(voted),
        }
    }

    /// `chosen`, found by `source`: judged by the model, proven by
    /// extracting again, and applied; `None` when either refuses it.
    pub(super) fn judged_and_proven(
        &self,
        adaptation: &Adaptation,
        chosen: &Assignment,
        source: Source,
    ) -> Option<Attempted> {
        let evidence = evidence_of(
            self.env,
            self.gram,
            self.pattern,
            &self.scopes,
            chosen,
            source,
            self.facts,
        );
        if !self
            .log
            .judge(self.env.doc, &chosen.targets, &evidence, self.bar)
        {
            return None;
        }
        let (xpath, healed_wrapper, extraction) = prove(
            self.env,
            self.wrapper,
            self.pattern,
            self.path,
            &self.scopes,
            chosen,
        )
        .ok()?;
        let done = healed_adaptation(
            adaptation.clone(),
            self.pattern,
            xpath,
            chosen,
            evidence,
            &extraction,
        );
        Some(applied(done, (healed_wrapper, extraction)))
    }

    /// A field whose XPath and locators all find nothing may still be found
    /// by a locator relaxed: an attribute locator without the layout above
    /// the target (`//input[@name='btnK']`) or on any tag (a search box now
    /// a `textarea`), a locator without the levels under its anchor (a
    /// wrapped list under its heading), the stored paragraph's text on any
    /// tag, the text locator on any tag.
    pub(super) fn by_relaxed_locator(&self, adaptation: &Adaptation) -> Option<Attempted> {
        if self.pattern.is_record() || !self.facts.selection_empty {
            return None;
        }
        let (found, how) =
            crate::adapt::relaxed::relaxed_answer(self.env.doc, self.gram, &self.scopes)?;
        if self.rejected_for(&found).is_some() {
            return None;
        }
        witnessed_field(
            self.env,
            self.wrapper,
            self.path,
            &self.scopes,
            adaptation,
            (
                found,
                format!("its XPath and locators find nothing as written; {how}"),
            ),
            self.proposer(Source::Relaxed),
        )
    }

    /// A record whose stored items' texts are found together, as many as it
    /// had, is healed to them: the cluster that is the stored instances, not
    /// every alike item on the page. Not a tree matching's choice: the
    /// stored texts found together are the whole of its evidence.
    pub(super) fn by_record_witness(&self, adaptation: &Adaptation) -> Option<Attempted> {
        if !self.pattern.is_record() {
            return None;
        }
        let w = witnessed::witnessed_record(self.env.doc, self.gram, &self.current)?;
        if w.targets.iter().map(Vec::len).sum::<usize>() != self.gram.header.matched
            || self.rejected_for(&w.targets).is_some()
        {
            return None;
        }
        let chosen = Assignment::witnessed(w.targets);
        let mut done = self.judged_and_proven(adaptation, &chosen, Source::RecordWitness)?;
        done.adaptation.reason = Some(format!(
            "these items carry {} and are as many as it had",
            w.why
        ));
        Some(self.with_fields_healed(done).0)
    }
}

/// A field healed to the nodes `answer` found, chosen by evidence of its
/// own (the stored text as written, a relaxed locator) rather than a tree
/// search: judged by the model, proven by extracting again, and applied
/// with the answer's reason. `None` when the model or the proof refuses it.
pub(super) fn witnessed_field(
    env: &Env<'_>,
    wrapper: &Wrapper,
    path: &PatternPath,
    scopes: &[Item],
    adaptation: &Adaptation,
    answer: (Vec<Vec<Item>>, String),
    proposer: Proposer<'_>,
) -> Option<Attempted> {
    let (found, reason) = answer;
    let pattern = wrapper.pattern(path)?;
    let gram = env.grams.get(path)?;
    let chosen = Assignment::witnessed(found);
    let evidence = evidence_of(
        env,
        gram,
        pattern,
        scopes,
        &chosen,
        proposer.source,
        proposer.facts,
    );
    if !proposer
        .log
        .judge(env.doc, &chosen.targets, &evidence, proposer.bar)
    {
        return None;
    }
    let (xpath, healed_wrapper, extraction) =
        prove(env, wrapper, pattern, path, scopes, &chosen).ok()?;
    let mut done = healed_adaptation(
        adaptation.clone(),
        pattern,
        xpath,
        &chosen,
        evidence,
        &extraction,
    );
    done.reason = Some(reason);
    Some(applied(done, (healed_wrapper, extraction)))
}

/// A path that proposes a candidate outside the tree search: what it is
/// called in the evidence, the attempt's facts and the bar to clear.
#[derive(Clone, Copy)]
pub(super) struct Proposer<'l> {
    pub(super) source: Source,
    pub(super) facts: Facts,
    pub(super) bar: f64,
    pub(super) log: &'l Proposals,
}
