//! Budgets: how much work and memory one evaluation may use.
//!
//! XPath 1.0 lets a short expression do a great deal of work. A predicate
//! that walks a sibling axis from every sibling, such as
//! `//li[count(preceding-sibling::li) = count(following-sibling::li)]`, is
//! quadratic in the number of siblings, and nested `replace()` or `concat()`
//! calls multiply a string's length at every level. On a page with 20,000
//! list items the first runs for seconds; on a page whose body holds 200 kB
//! of text, four nested `replace(…, '.', '..........')` need 2 GB. A
//! scraper evaluates expressions that people write and that healing
//! proposes, on pages it does not control, so it must neither hang nor abort
//! on them: every evaluation runs under a [`Budget`] and stops with an
//! [`EvalError`](super::EvalError) that names the limit it reached and what to do about it.
//!
//! The core reads no clock, so time is not measured but estimated: the
//! evaluator counts units of work, which were calibrated so that each is
//! worth one to two nanoseconds of a release build on a current machine,
//! whatever the expression spends it on (sibling walks and node-set
//! comparisons, string-values, `replace()`; plain id-range scans are
//! cheaper). This also makes the budget deterministic: an expression on a
//! page always succeeds, or always fails at the same point, on any machine
//! and under any load, so a test or a heal never depends on timing. The
//! units are:
//!
//! * one per node an axis step visits in a range of ids, matching or not,
//!   and [`LINK`] per node it reaches through a parent or sibling link
//!   (which pays for testing the node against the step's predicates too),
//!   and one per item a positional predicate filters;
//! * one per byte of each string the evaluation produces or takes from the
//!   document to work on (string-values, `concat()`, `replace()`,
//!   `translate()`, `string-join()` and the like), so that scanning strings
//!   is paid for where they are obtained, plus one per node an element's
//!   string-value is gathered from;
//! * [`VALUE`] more for each string-value taken from a node-set to compare,
//!   sum, join or look up (node-set comparisons build hash sets of these);
//! * [`MATCH`] per match `replace()` finds ([`EXPANSION`] more when the
//!   replacement refers to groups), and [`REGEX`] per regular expression
//!   compiled during evaluation.
//!
//! Memory has two limits. No string may grow past
//! [`Budget::string_bytes`]; functions that build strings piece by piece
//! (`concat()`, `replace()`, `string-join()`) check before each piece, so an
//! oversized result is refused before it is allocated, and those whose
//! result is at most a few times their argument (`translate()`, the case
//! functions) check it once built. And the node-set items the evaluation holds at once (the
//! context node-sets of every step and predicate in progress, and the
//! results a step gathers before sorting) may not exceed [`Budget::nodes`];
//! when a step's gathered results pass the limit they are first sorted and
//! deduplicated, so only a genuinely large evaluation fails. The work budget
//! also bounds the total memory an evaluation can allocate over its life,
//! since every item and byte is paid for when it is produced.
//!
//! Counting is cheap because it is done in bulk: a step pays for a whole
//! range of ids or a whole sibling list with one subtraction, a positional
//! predicate pays once per node-set it filters, and the scans themselves
//! keep their tight loops. The search for the first node of a simple path,
//! which predicates such as `[@id]` or `[a]` run for every node they test,
//! spends its units without checking them, and its callers check once it
//! returns.

/// Work units for visiting a node through a parent or sibling link, which
/// costs about twice as much as the next id of a range.
pub(crate) const LINK: u64 = 2;

/// Work units for taking one item's string-value to compare, sum, join or
/// look it up, besides its bytes and the nodes it is built from: a node-set
/// comparison hashes every one.
pub(crate) const VALUE: u64 = 16;

/// Work units for each match `replace()` finds, besides the bytes it writes:
/// the regular expression engine's search.
pub(crate) const MATCH: u64 = 16;

/// Further work units for each match when the replacement refers to groups
/// (`$1`): finding the groups and expanding them costs several times more.
pub(crate) const EXPANSION: u64 = 80;

/// Work units for compiling a regular expression during evaluation (one
/// computed from the document), besides one per byte of its pattern.
pub(crate) const REGEX: u64 = 4096;

/// Limits on the work and memory one evaluation of an expression may use.
///
/// The default suits any page a scraper meets: a page of 60,000 elements
/// evaluates every ordinary expression (paths, predicates on attributes and
/// text, the function library) with a hundredth of it or less, while an
/// expression that is quadratic on a page of 20,000 list items, or that
/// multiplies a string at each level of nesting, fails within a fraction of
/// a second. Give an expression another budget with [`XPath::with_budget`].
///
/// [`XPath::with_budget`]: super::XPath::with_budget
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Units of work: one or two per node visited by an axis step, one per
    /// byte of string produced, more for string-values compared and regular
    /// expression matches (see the module documentation). One to two
    /// nanoseconds each.
    pub work: u64,
    /// The longest string, in bytes, that any function or conversion may
    /// produce.
    pub string_bytes: usize,
    /// The most node-set items (nodes, attributes, namespace nodes) the
    /// evaluation may hold at once, across the steps and predicates in
    /// progress. Each item takes 12 bytes.
    pub nodes: usize,
}

impl Budget {
    /// The default budget: 300 million units of work (well under a second),
    /// strings of 64 MiB, and 8 Mi node-set items (96 MiB).
    pub const DEFAULT: Budget = Budget {
        work: 300_000_000,
        string_bytes: 64 << 20,
        nodes: 8 << 20,
    };

    /// No limit at all, for expressions and pages that are trusted.
    pub const UNLIMITED: Budget = Budget {
        work: u64::MAX,
        string_bytes: usize::MAX,
        nodes: usize::MAX,
    };
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

/// The running account of one evaluation against its budget.
#[derive(Clone, Debug)]
pub(crate) struct Meter {
    pub budget: Budget,
    /// Work units not yet spent.
    pub work_left: u64,
    /// Whether `Evaluator::spend` spent more than was left; the next
    /// `Evaluator::check_work` or `Evaluator::charge` fails.
    pub overdrawn: bool,
    /// Node-set items held by the steps, predicates and comparisons in
    /// progress (each frame restores the value it found).
    pub held: usize,
}

impl Meter {
    pub(crate) fn new(budget: Budget) -> Self {
        Meter {
            budget,
            work_left: budget.work,
            overdrawn: false,
            held: 0,
        }
    }
}
