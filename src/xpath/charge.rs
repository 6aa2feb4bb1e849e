//! How an evaluation spends its [`Budget`](super::budget::Budget): the
//! [`Evaluator`]'s charges for work, strings and held nodes, and the errors
//! that name the limit reached and what to do about it.
//!
//! The units and limits themselves are defined in `budget.rs`; this file is
//! only their accounting, so that the budget's definition depends on nothing
//! of the evaluator.
//!
//! Past a limit the evaluation fails with that limit's `EvalErrorKind`
//! (`WorkBudget`, `StringBudget` or `NodeBudget`), kept apart so that the
//! message names the limit reached and the likely cause; a string or a
//! node-set is never cut short to fit. A string is refused before it is built,
//! and an evaluation that ran out of work stays out: its remaining work is set
//! to zero.

use crate::dom::NodeKind;

use super::EvalError;
use super::EvalErrorKind;
use super::eval::{Evaluator, R};
use super::item::Item;

impl Evaluator<'_> {
    /// Spends `units` of work, or fails when the budget does not cover them.
    #[inline(always)]
    pub(crate) fn charge(&mut self, units: u64) -> R<()> {
        match self.meter.work_left.checked_sub(units) {
            Some(left) => {
                self.meter.work_left = left;
                Ok(())
            }
            None => Err(self.out_of_work()),
        }
    }

    /// Spends `units` of work without failing, for the hot paths that
    /// return no `Result`; their callers run [`Evaluator::check_work`] when
    /// done. The overdraft is at most one bounded walk of the document.
    #[inline(always)]
    pub(crate) fn spend(&mut self, units: u64) {
        self.meter.overdrawn |= units > self.meter.work_left;
        self.meter.work_left = self.meter.work_left.saturating_sub(units);
    }

    /// Fails if [`Evaluator::spend`] spent more than the budget had left.
    #[inline(always)]
    pub(crate) fn check_work(&mut self) -> R<()> {
        if self.meter.overdrawn {
            return Err(self.out_of_work());
        }
        Ok(())
    }

    /// Spends one unit per byte of a string of `len` bytes about to be
    /// produced, and refuses it when it is longer than the string budget.
    #[inline]
    pub(crate) fn charge_string(&mut self, len: usize) -> R<()> {
        self.grow_string(len, len)
    }

    /// Refuses a string that would grow to `total` bytes past the string
    /// budget, and otherwise spends one unit per byte of the `added` ones.
    #[inline]
    pub(crate) fn grow_string(&mut self, total: usize, added: usize) -> R<()> {
        self.check_string(total)?;
        self.charge(added as u64)
    }

    /// Refuses a string that would grow to `total` bytes past the string
    /// budget.
    #[inline]
    pub(crate) fn check_string(&self, total: usize) -> R<()> {
        if total > self.meter.budget.string_bytes {
            return Err(self.string_too_long());
        }
        Ok(())
    }

    /// The work units of taking `item`'s string-value `s`: its bytes, and
    /// for an element or the document the nodes it was gathered from.
    #[inline]
    pub(crate) fn value_units(&self, item: Item, s: &str) -> u64 {
        let gathered = match item {
            Item::Node(n) if !matches!(self.doc.kind(n), NodeKind::Text | NodeKind::Comment) => {
                u64::from(self.doc.subtree_end(n).0 - n.0)
            }
            _ => 0,
        };
        s.len() as u64 + gathered
    }

    /// Records that `base + extra` items are held, failing past the budget.
    /// Callers save the meter's `held` as `base` and restore it when done.
    #[inline]
    pub(crate) fn hold(&mut self, base: usize, extra: usize) -> R<()> {
        let held = base.saturating_add(extra);
        self.meter.held = held;
        if held > self.meter.budget.nodes {
            return Err(self.too_many_nodes());
        }
        Ok(())
    }

    /// Whether `base + extra` held items would pass the node budget.
    #[inline]
    pub(crate) fn over_nodes(&self, base: usize, extra: usize) -> bool {
        base.saturating_add(extra) > self.meter.budget.nodes
    }

    /// Work units used so far.
    #[cfg(test)]
    pub(crate) fn work_used(&self) -> u64 {
        self.meter.budget.work - self.meter.work_left
    }

    #[cold]
    #[inline(never)]
    fn out_of_work(&mut self) -> EvalError {
        self.meter.work_left = 0;
        EvalError {
            kind: EvalErrorKind::WorkBudget,
            message: format!(
                "{} was stopped after {} units of work (nodes visited, strings compared \
                 or built) on this page: it is probably quadratic, walking an axis or \
                 comparing node-sets from every node it selects; make it walk each axis \
                 once (compare with a value rather than another node-set, use a position, \
                 anchor it on an id or a class), or give it a larger xpath::Budget with \
                 XPath::with_budget",
                quoted(self.source),
                thousands(self.meter.budget.work),
            ),
        }
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn string_too_long(&self) -> EvalError {
        EvalError {
            kind: EvalErrorKind::StringBudget,
            message: format!(
                "{} was stopped before it built a string longer than {} bytes: it \
                 probably nests replace(), concat(), translate() or string-join() so that \
                 each level multiplies the length; make it build less, or give it a \
                 larger xpath::Budget with XPath::with_budget",
                quoted(self.source),
                thousands(self.meter.budget.string_bytes as u64),
            ),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_many_nodes(&self) -> EvalError {
        EvalError {
            kind: EvalErrorKind::NodeBudget,
            message: format!(
                "{} was stopped before it held more than {} node-set items at once: it \
                 probably gathers a large axis (following::, preceding::, descendant::) \
                 from every node it selects; narrow its steps, or give it a larger \
                 xpath::Budget with XPath::with_budget",
                quoted(self.source),
                thousands(self.meter.budget.nodes as u64),
            ),
        }
    }
}

/// The expression in quotes for a message, shortened when it is long.
fn quoted(source: &str) -> String {
    const MAX: usize = 120;
    let source = source.trim();
    if source.len() <= MAX {
        return format!("'{source}'");
    }
    let mut end = MAX;
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    format!("'{}…'", &source[..end])
}

/// A number with thousands separators: `300,000,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_sources_read_well_in_messages() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(300_000_000), "300,000,000");
        assert_eq!(quoted(" //p "), "'//p'");
        // The node budget's documentation counts 12 bytes an item.
        assert_eq!(std::mem::size_of::<Item>(), 12);
        let long = "é".repeat(100);
        assert!(quoted(&long).ends_with("…'"));
    }
}
