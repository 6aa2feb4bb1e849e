//! Location steps: walking an axis from a set of context nodes.
//!
//! Every axis is a walk over the arena without recursion: descendants and the
//! following axis are contiguous id ranges, ancestors follow parent links, and
//! the preceding axis walks ids backwards skipping the ancestor chain. A step
//! gathers each context node's matches in axis order (reverse axes nearest
//! first), filters them with the predicates using those proximity positions,
//! and merges the results into document order. Descendant steps without
//! positional predicates skip context nodes inside an earlier context's
//! sub-tree, whose matches are already included, and need no sort. A name
//! test over a large descendant range reads the ids of its name from the
//! document's index ([`Document::elements_named`]) instead of walking the
//! range, and a step with an `@name = 'value'` or class token predicate
//! reads the elements that carry it from the index of attributes
//! ([`Document::elements_with_attr`]); either way it selects the same nodes
//! in the same order, and pays the same budget.
//!
//! Steps pay the evaluation's work budget for every node they visit,
//! matching or not, in bulk (a whole id range or sibling list at a time):
//! one unit per id of a scanned range, [`LINK`] units per node reached by
//! following a parent or sibling link, which costs more (testing a visited
//! node against the step's predicates is paid with it, and the predicates
//! pay for their own steps); and one unit per item a positional predicate
//! filters. A step that gathers results from several contexts counts them
//! against the node budget as it goes.
//!
//! ## What it refuses
//!
//! A node test that cannot match on the document (a name it does not hold,
//! `processing-instruction()`, `text()` or `comment()` on the attribute or
//! namespace axis, a namespace name other than `xml`) selects nothing without
//! a walk. Attribute and namespace nodes have no children or siblings, and a
//! `[k]` whose `k` is not a positive integer keeps nothing. A step past the
//! work budget, or holding more distinct items than the node budget allows,
//! fails with that budget's error instead of a result.

use crate::dom::{AttrQuery, Document, NodeId, NodeKind, Sym};

use super::ast::{Axis, Expr, NodeTest, Start, Step};
use super::budget::LINK;
use super::eval::{Ctx, Evaluator, R, normalize};
use super::functions::Func;
use super::item::Item;

/// The id range from which a name test always reads the document's index
/// of elements by name ([`Document::elements_named`]) rather than walks.
///
/// The index costs about two walks of the whole page to build, once per
/// document, and then nothing next to a walk. On a page of 60,000 elements a
/// heal asks some hundred whole-page questions by name (its locators, the
/// generator's candidates), and each walk of some 150,000 ids becomes a
/// read of the few thousand ids of one name.
const INDEXED_RANGE: u32 = 4096;

/// The smallest id range that a name test ever reads from the index: below
/// it a walk is over before two binary searches and the index's build
/// would pay.
///
/// Between this and [`INDEXED_RANGE`] the index is read when it is built
/// already, or built when the search covers a quarter of the page or more.
/// A page of a thousand nodes is asked a dozen whole-page questions by name
/// on every run that checks drift (each pattern's XPath and its locators),
/// which the index answers for the price of two walks; a small search deep
/// in a large page never builds an index of the whole page for itself.
const SMALLEST_INDEXED_RANGE: u32 = 256;

/// Whether a name test over the ids `from..end` of `doc` reads the index.
#[inline]
fn reads_index(doc: &Document, from: u32, end: u32) -> bool {
    let range = end - from;
    range >= INDEXED_RANGE
        || (range >= SMALLEST_INDEXED_RANGE
            && (doc.has_name_index() || u64::from(range) * 4 >= doc.len() as u64))
}

/// A node test resolved against one document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Test {
    /// Elements (or attributes, on the attribute axis) with this name.
    Sym(Sym),
    /// Every node of the axis's principal node type.
    Any,
    Node,
    Text,
    Comment,
    /// Nothing can match (a name absent from the document, a processing
    /// instruction, a text test on the attribute axis).
    Nothing,
}

#[inline]
pub(crate) fn node_matches(doc: &Document, t: Test, n: NodeId) -> bool {
    match t {
        Test::Sym(s) => doc.is_element(n) && doc.name_sym(n) == s,
        Test::Any => doc.is_element(n),
        Test::Node => true,
        Test::Text => doc.kind(n) == NodeKind::Text,
        Test::Comment => doc.kind(n) == NodeKind::Comment,
        Test::Nothing => false,
    }
}

impl<'a> Evaluator<'a> {
    /// Resolves a step's node test for this document.
    pub(crate) fn resolve(&self, axis: Axis, test: NodeTest) -> Test {
        match (axis, test) {
            (_, NodeTest::Pi) => Test::Nothing,
            (Axis::Namespace, NodeTest::Name(id)) => {
                // The one namespace node in scope is the one for `xml`.
                if self.names.get(id as usize).is_some_and(|n| &**n == "xml") {
                    Test::Any
                } else {
                    Test::Nothing
                }
            }
            (Axis::Attribute | Axis::Namespace, NodeTest::Text | NodeTest::Comment) => {
                Test::Nothing
            }
            (_, NodeTest::Name(id)) => self.sym(id).map_or(Test::Nothing, Test::Sym),
            (_, NodeTest::Any) => Test::Any,
            (_, NodeTest::Node) => Test::Node,
            (_, NodeTest::Text) => Test::Text,
            (_, NodeTest::Comment) => Test::Comment,
        }
    }

    /// Evaluates one step from every node of `input` (in document order).
    pub(crate) fn step(&mut self, input: &[Item], step: &'a Step) -> R<Vec<Item>> {
        let t = self.resolve(step.axis, step.test);
        let mut out = self.take_buf();
        if t == Test::Nothing {
            return Ok(out);
        }
        // The input is held while the step runs; the results are counted as
        // they are gathered.
        let outer = self.meter.held;
        self.hold(outer, input.len())?;
        let base = self.meter.held;
        match step.axis {
            Axis::Descendant | Axis::DescendantOrSelf if !step.positional => {
                self.descendants(input, step, t, &mut out)?;
            }
            Axis::DescendantChildren => self.descendant_children(input, step, t, &mut out)?,
            Axis::Following | Axis::Preceding | Axis::FollowingSibling | Axis::PrecedingSibling
                if input.len() > 1 && !step.positional =>
            {
                // Without positions, only the contexts whose axis contains
                // every other context's axis need walking; this keeps
                // `//li/following-sibling::li` linear instead of quadratic.
                self.charge(input.len() as u64)?;
                let reps = representatives(self.doc, input, step.axis);
                let mut buf = self.take_buf();
                for c in reps {
                    buf.clear();
                    let visited = self.axis_items(c, step.axis, t, &mut buf);
                    self.charge(visited)?;
                    self.hold(base, out.len() + buf.len())?;
                    for &item in &buf {
                        if step.preds.is_empty() || self.passes(item, &step.preds)? {
                            out.push(item);
                        }
                    }
                    self.gathered(base, &mut out)?;
                }
                self.give_buf(buf);
                normalize(&mut out);
            }
            _ if input.len() == 1 && step.preds.is_empty() => {
                let visited = self.axis_items(input[0], step.axis, t, &mut out);
                self.charge(visited)?;
                if step.axis.is_reverse() {
                    out.reverse();
                }
            }
            _ => {
                // `[k]` first: each context's walk can stop at its k-th match.
                let prefix = match step.preds.first() {
                    Some(Expr::Number(k)) => Some(if *k >= 1.0 && k.fract() == 0.0 {
                        *k as usize
                    } else {
                        0
                    }),
                    _ => None,
                };
                let mut buf = self.take_buf();
                for &c in input {
                    buf.clear();
                    let visited = match prefix {
                        Some(k) => self.axis_prefix(c, step.axis, t, k, &mut buf),
                        None => self.axis_items(c, step.axis, t, &mut buf),
                    };
                    self.charge(visited)?;
                    for p in &step.preds {
                        if buf.is_empty() {
                            break;
                        }
                        self.hold(base, out.len())?;
                        self.filter(&mut buf, p)?;
                    }
                    if step.axis.is_reverse() {
                        out.extend(buf.iter().rev());
                    } else {
                        out.extend_from_slice(&buf);
                    }
                    self.gathered(base, &mut out)?;
                }
                self.give_buf(buf);
                normalize(&mut out);
            }
        }
        self.hold(base, out.len())?;
        self.meter.held = outer;
        Ok(out)
    }

    /// Checks the results a step has gathered so far against the node
    /// budget. Gathering from several contexts can collect the same node many
    /// times (`//*/ancestor::*`), so past the budget the results are first
    /// put in order without duplicates, paying one unit per item, and only a
    /// step with that many distinct results fails.
    #[inline]
    fn gathered(&mut self, base: usize, out: &mut Vec<Item>) -> R<()> {
        if self.over_nodes(base, out.len()) {
            self.charge(out.len() as u64)?;
            normalize(out);
        }
        self.hold(base, out.len())
    }

    /// Whether `item` passes predicates that do not depend on positions.
    /// Its callers have paid for the item when they visited it.
    fn passes(&mut self, item: Item, preds: &'a [Expr]) -> R<bool> {
        let ctx = Ctx {
            item,
            pos: 1,
            size: 1,
        };
        for p in preds {
            if !self.boolean(p, ctx)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The descendant and descendant-or-self axes without positional
    /// predicates: one scan of each outermost context's id range.
    fn descendants(
        &mut self,
        input: &[Item],
        step: &'a Step,
        t: Test,
        out: &mut Vec<Item>,
    ) -> R<()> {
        let doc = self.doc;
        let with_self = step.axis == Axis::DescendantOrSelf;
        let mut covered = 0u32;
        let mut only_nodes = true;
        for &c in input {
            let Item::Node(n) = c else {
                // An attribute or namespace node is its own descendant-or-self.
                only_nodes = false;
                if with_self && t == Test::Node && self.passes(c, &step.preds)? {
                    out.push(c);
                }
                continue;
            };
            if n.0 < covered {
                continue;
            }
            let end = doc.subtree_end(n).0;
            covered = end;
            let from = if with_self { n.0 } else { n.0 + 1 };
            self.charge(u64::from(end - from))?;
            if step.preds.is_empty() {
                scan(doc, t, from, end, out);
            } else {
                // The node test is matched outside the loop, so that each
                // loop is compiled for its test rather than dispatching on
                // it at every node.
                let preds = &step.preds;
                let by_attr = self
                    .indexed_predicate(preds)
                    .filter(|_| reads_index(doc, from, end))
                    .filter(|_| doc.attr_index_pays(u64::from(end - from)));
                match (t, by_attr) {
                    (Test::Sym(_) | Test::Any, Some((name, query))) => {
                        let found = doc.elements_with_attr(name, query, NodeId(from), NodeId(end));
                        for x in found {
                            if node_matches(doc, t, x) && self.passes(Item::Node(x), preds)? {
                                out.push(Item::Node(x));
                            }
                        }
                    }
                    (Test::Sym(sym), _) if reads_index(doc, from, end) => {
                        for x in doc.elements_named(sym, NodeId(from), NodeId(end)) {
                            if self.passes(Item::Node(x), preds)? {
                                out.push(Item::Node(x));
                            }
                        }
                    }
                    (Test::Sym(sym), _) => self.scan_passing(from, end, preds, out, |x| {
                        doc.is_element(x) && doc.name_sym(x) == sym
                    })?,
                    (Test::Any, _) => {
                        self.scan_passing(from, end, preds, out, |x| doc.is_element(x))?
                    }
                    _ => self.scan_passing(from, end, preds, out, |x| node_matches(doc, t, x))?,
                }
            }
        }
        if !only_nodes {
            normalize(out);
        }
        Ok(())
    }

    /// A predicate among `preds` that the document's index of attributes
    /// answers (`@name = 'value'`, or a class-style token test), as the
    /// attribute's name and the query. Every element that passes all of
    /// `preds` is among the index's answers, as the predicates are joined
    /// by "and" and none depends on positions.
    fn indexed_predicate(&self, preds: &'a [Expr]) -> Option<(Sym, AttrQuery<'a>)> {
        preds.iter().find_map(|p| match p {
            Expr::AttrEq {
                name,
                value,
                negate: false,
            } => Some((self.sym(*name)?, AttrQuery::Value(value))),
            Expr::AttrToken { name, token } => Some((self.sym(*name)?, AttrQuery::Token(token))),
            _ => None,
        })
    }

    /// Pushes the nodes with ids in `from..end` that `matches` accepts and
    /// that pass the predicates.
    #[inline(always)]
    fn scan_passing(
        &mut self,
        from: u32,
        end: u32,
        preds: &'a [Expr],
        out: &mut Vec<Item>,
        matches: impl Fn(NodeId) -> bool,
    ) -> R<()> {
        for x in from..end {
            let x = NodeId(x);
            if matches(x) && self.passes(Item::Node(x), preds)? {
                out.push(Item::Node(x));
            }
        }
        Ok(())
    }

    /// `descendant-or-self::node()/child::T[positional…]` in one pass: the
    /// matching descendants of each outermost context, grouped by parent so
    /// that positions count among siblings.
    fn descendant_children(
        &mut self,
        input: &[Item],
        step: &'a Step,
        t: Test,
        out: &mut Vec<Item>,
    ) -> R<()> {
        let doc = self.doc;
        let mut covered = 0u32;
        let mut cands: Vec<(u32, Item)> = Vec::new();
        for &c in input {
            let Item::Node(n) = c else { continue };
            if n.0 < covered {
                continue;
            }
            let end = doc.subtree_end(n).0;
            covered = end;
            self.charge(u64::from(end - n.0))?;
            let parent_of = |x: NodeId| (doc.parent(x).map_or(0, |p| p.0), Item::Node(x));
            match t {
                Test::Sym(sym) if reads_index(doc, n.0 + 1, end) => cands.extend(
                    doc.elements_named(sym, NodeId(n.0 + 1), NodeId(end))
                        .map(parent_of),
                ),
                _ => cands.extend(
                    (n.0 + 1..end)
                        .map(NodeId)
                        .filter(|&x| node_matches(doc, t, x))
                        .map(parent_of),
                ),
            }
        }
        // A stable sort keeps each parent's children in document order.
        cands.sort_by_key(|&(p, _)| p);
        let mut buf = self.take_buf();
        let mut i = 0;
        while i < cands.len() {
            let parent = cands[i].0;
            buf.clear();
            while i < cands.len() && cands[i].0 == parent {
                buf.push(cands[i].1);
                i += 1;
            }
            for p in &step.preds {
                if buf.is_empty() {
                    break;
                }
                self.filter(&mut buf, p)?;
            }
            out.extend_from_slice(&buf);
        }
        self.give_buf(buf);
        normalize(out);
        Ok(())
    }

    /// Keeps the items of `v` (in axis order) for which the predicate holds,
    /// with proximity positions 1..=len.
    pub(crate) fn filter(&mut self, v: &mut Vec<Item>, p: &'a Expr) -> R<()> {
        match p {
            Expr::Number(k) => {
                let k = *k;
                let keep = (k >= 1.0 && k <= v.len() as f64 && k.fract() == 0.0)
                    .then(|| v[k as usize - 1]);
                v.clear();
                v.extend(keep);
                return Ok(());
            }
            Expr::Call {
                func: Func::Last, ..
            } => {
                let last = v.last().copied();
                v.clear();
                v.extend(last);
                return Ok(());
            }
            _ => {}
        }
        let numeric = p.ty() == super::functions::Type::Number;
        let size = v.len();
        self.charge(size as u64)?;
        // The items are held while the predicate is evaluated on each.
        let base = self.meter.held;
        self.hold(base, size)?;
        let mut w = 0;
        for i in 0..size {
            let item = v[i];
            let ctx = Ctx {
                item,
                pos: i + 1,
                size,
            };
            let keep = if numeric {
                self.number(p, ctx)? == (i + 1) as f64
            } else {
                self.boolean(p, ctx)?
            };
            if keep {
                v[w] = item;
                w += 1;
            }
        }
        v.truncate(w);
        self.meter.held = base;
        Ok(())
    }

    /// The first node, in document order, of a path simple enough to find
    /// without building the node-set: one predicate-free step from the
    /// context (or a descendant step from the root). `None` when the path is
    /// not of that form. The nodes looked at are spent, not charged, to keep
    /// this hot path free of `Result`: callers check the work afterwards.
    pub(crate) fn first_simple(&mut self, e: &'a Expr, ctx: Ctx) -> Option<Option<Item>> {
        let Expr::Path { start, steps } = e else {
            return None;
        };
        let from = match start {
            Start::Root => Item::Node(NodeId::ROOT),
            Start::Context => ctx.item,
            Start::Filter(_) => return None,
        };
        let step = match steps.as_slice() {
            [] => return Some(Some(from)),
            [step] if step.preds.is_empty() => step,
            _ => return None,
        };
        let t = self.resolve(step.axis, step.test);
        if t == Test::Nothing {
            return Some(None);
        }
        let doc = self.doc;
        // The first match in the id range `start..end`.
        let first_in = |start: u32, end: u32| {
            let found = (start..end).map(NodeId).find(|&x| node_matches(doc, t, x));
            let stop = found.map_or(end, |x| x.0 + 1);
            (found.map(Item::Node), u64::from(stop.saturating_sub(start)))
        };
        // The first match along sibling links from `first`.
        let first_linked = |first: Option<NodeId>| {
            let mut units = 0u64;
            let mut c = first;
            while let Some(x) = c {
                units += LINK;
                if node_matches(doc, t, x) {
                    return (Some(Item::Node(x)), units);
                }
                c = doc.next_sibling(x);
            }
            (None, units)
        };
        let (found, units) = match (step.axis, from) {
            (Axis::Child, Item::Node(n)) => first_linked(doc.first_child(n)),
            (Axis::Descendant | Axis::DescendantOrSelf, Item::Node(n)) => {
                let start = if step.axis == Axis::DescendantOrSelf {
                    n.0
                } else {
                    n.0 + 1
                };
                first_in(start, doc.subtree_end(n).0)
            }
            (Axis::Attribute, Item::Node(n)) => {
                let range = doc.attr_range(n);
                let units = range.len() as u64;
                let found = range
                    .into_iter()
                    .find(|&i| attr_matches(doc, t, i))
                    .map(|i| Item::Attr {
                        element: n,
                        index: i as u32,
                    });
                (found, units)
            }
            (Axis::Following, _) => {
                let start = match from {
                    Item::Node(n) => doc.subtree_end(n).0,
                    other => other.owner().0 + 1,
                };
                first_in(start, doc.len() as u32)
            }
            (Axis::FollowingSibling, Item::Node(n)) => first_linked(doc.next_sibling(n)),
            (Axis::Parent, _) => {
                let parent = match from {
                    Item::Node(n) => doc.parent(n),
                    other => Some(other.owner()),
                };
                let found = parent.filter(|&p| node_matches(doc, t, p)).map(Item::Node);
                (found, 1)
            }
            (Axis::SelfNode, Item::Node(n)) => {
                (node_matches(doc, t, n).then_some(Item::Node(n)), 1)
            }
            (Axis::Child | Axis::Descendant | Axis::Attribute | Axis::FollowingSibling, _) => {
                (None, 0)
            }
            _ => return None,
        };
        self.spend(units);
        Some(found)
    }

    /// Pushes the first `limit` nodes of `axis` from `c` that pass `t`, in
    /// axis order, and returns the work units of the nodes it looked at, as
    /// [`Evaluator::axis_items`] counts them. Under a `[k]`
    /// predicate only the first k matches matter, and stopping there keeps
    /// idioms such as `//h2/following::p[1]` linear in the page instead of
    /// walking to its end from every context.
    fn axis_prefix(&self, c: Item, axis: Axis, t: Test, limit: usize, out: &mut Vec<Item>) -> u64 {
        let doc = self.doc;
        let n = match c {
            Item::Node(n)
                if matches!(
                    axis,
                    Axis::Following
                        | Axis::Preceding
                        | Axis::FollowingSibling
                        | Axis::PrecedingSibling
                        | Axis::Child
                        | Axis::Descendant
                        | Axis::DescendantOrSelf
                ) =>
            {
                n
            }
            // The other axes are short (ancestors, attributes) or single.
            _ => return self.axis_items(c, axis, t, out),
        };
        let start = out.len();
        let mut visited = 0u64;
        // Takes `x` if it matches; false once `limit` nodes are taken.
        let mut take = |x: NodeId| {
            visited += 1;
            if node_matches(doc, t, x) {
                out.push(Item::Node(x));
            }
            out.len() - start < limit
        };
        if limit > 0 {
            match axis {
                Axis::Following => {
                    let from = doc.subtree_end(n).0;
                    for x in from..doc.len() as u32 {
                        if !take(NodeId(x)) {
                            break;
                        }
                    }
                }
                Axis::Descendant | Axis::DescendantOrSelf => {
                    let from = if axis == Axis::DescendantOrSelf {
                        n.0
                    } else {
                        n.0 + 1
                    };
                    for x in from..doc.subtree_end(n).0 {
                        if !take(NodeId(x)) {
                            break;
                        }
                    }
                }
                Axis::Preceding => {
                    let mut next_ancestor = doc.parent(n);
                    for x in (0..n.0).rev() {
                        let x = NodeId(x);
                        if Some(x) == next_ancestor {
                            next_ancestor = doc.parent(x);
                            continue;
                        }
                        if !take(x) {
                            break;
                        }
                    }
                }
                _ => {
                    let (mut s, next): (_, fn(&Document, NodeId) -> Option<NodeId>) = match axis {
                        Axis::Child => (doc.first_child(n), Document::next_sibling),
                        Axis::FollowingSibling => (doc.next_sibling(n), Document::next_sibling),
                        _ => (doc.prev_sibling(n), Document::prev_sibling),
                    };
                    while let Some(x) = s {
                        if !take(x) {
                            break;
                        }
                        s = next(doc, x);
                    }
                }
            }
        }
        if matches!(
            axis,
            Axis::Child | Axis::FollowingSibling | Axis::PrecedingSibling
        ) {
            visited * LINK
        } else {
            visited
        }
    }

    /// Pushes the nodes of `axis` from `c` that pass `t`, in axis order, and
    /// returns the work units of the nodes it looked at: one per id of a
    /// range, [`LINK`] per node reached through a link.
    pub(crate) fn axis_items(&self, c: Item, axis: Axis, t: Test, out: &mut Vec<Item>) -> u64 {
        let doc = self.doc;
        let push_if = |out: &mut Vec<Item>, n: NodeId| {
            if node_matches(doc, t, n) {
                out.push(Item::Node(n));
            }
        };
        let mut visited = 1u64;
        let n = match c {
            Item::Node(n) => n,
            Item::Attr { element, .. } | Item::Namespace(element) => {
                // Attribute and namespace nodes have a parent but no children
                // or siblings; they are principal nodes only of their own axes.
                let self_ok = t == Test::Node;
                match axis {
                    Axis::SelfNode | Axis::DescendantOrSelf if self_ok => out.push(c),
                    Axis::Parent => push_if(out, element),
                    Axis::Ancestor | Axis::AncestorOrSelf => {
                        if axis == Axis::AncestorOrSelf && self_ok {
                            out.push(c);
                        }
                        push_if(out, element);
                        for a in doc.ancestors(element) {
                            visited += LINK;
                            push_if(out, a);
                        }
                    }
                    Axis::Following => {
                        let start = element.0 + 1;
                        let end = doc.len() as u32;
                        visited += u64::from(end.saturating_sub(start));
                        for x in start..end {
                            push_if(out, NodeId(x));
                        }
                    }
                    Axis::Preceding => visited += preceding(doc, element, t, out),
                    _ => {}
                }
                return visited;
            }
        };
        match axis {
            Axis::Child => {
                let mut ch = doc.first_child(n);
                while let Some(x) = ch {
                    visited += LINK;
                    push_if(out, x);
                    ch = doc.next_sibling(x);
                }
            }
            Axis::Descendant | Axis::DescendantChildren => {
                let end = doc.subtree_end(n).0;
                visited += u64::from(end - n.0);
                scan(doc, t, n.0 + 1, end, out)
            }
            Axis::DescendantOrSelf => {
                let end = doc.subtree_end(n).0;
                visited += u64::from(end - n.0);
                scan(doc, t, n.0, end, out)
            }
            Axis::Parent => {
                if let Some(p) = doc.parent(n) {
                    push_if(out, p);
                }
            }
            Axis::Ancestor | Axis::AncestorOrSelf => {
                if axis == Axis::AncestorOrSelf {
                    push_if(out, n);
                }
                for a in doc.ancestors(n) {
                    visited += LINK;
                    push_if(out, a);
                }
            }
            Axis::FollowingSibling => {
                let mut s = doc.next_sibling(n);
                while let Some(x) = s {
                    visited += LINK;
                    push_if(out, x);
                    s = doc.next_sibling(x);
                }
            }
            Axis::PrecedingSibling => {
                let mut s = doc.prev_sibling(n);
                while let Some(x) = s {
                    visited += LINK;
                    push_if(out, x);
                    s = doc.prev_sibling(x);
                }
            }
            Axis::Following => {
                let (start, end) = (doc.subtree_end(n).0, doc.len() as u32);
                visited += u64::from(end.saturating_sub(start));
                scan(doc, t, start, end, out)
            }
            Axis::Preceding => visited += preceding(doc, n, t, out),
            Axis::SelfNode => push_if(out, n),
            Axis::Attribute => {
                let range = doc.attr_range(n);
                visited += range.len() as u64;
                for i in range {
                    if attr_matches(doc, t, i) {
                        out.push(Item::Attr {
                            element: n,
                            index: i as u32,
                        });
                    }
                }
            }
            Axis::Namespace => {
                if doc.is_element(n) && matches!(t, Test::Any | Test::Node) {
                    out.push(Item::Namespace(n));
                }
            }
        }
        visited
    }
}

/// The context items whose `axis` (following, preceding or a sibling axis)
/// includes the axes of all the others, so that walking only them yields the
/// union. Following: the item whose following nodes start earliest.
/// Preceding: the last item (every node before an earlier item is before the
/// last one, and none of the last one's ancestors can precede an earlier
/// item). Sibling axes: the first (or last) context among each parent's
/// children; attribute and namespace nodes have no siblings.
fn representatives(doc: &Document, input: &[Item], axis: Axis) -> Vec<Item> {
    match axis {
        Axis::Following => {
            let start = |c: &Item| match *c {
                Item::Node(n) => doc.subtree_end(n).0,
                other => other.owner().0 + 1,
            };
            input
                .iter()
                .min_by_key(|c| start(c))
                .copied()
                .into_iter()
                .collect()
        }
        Axis::Preceding => input
            .iter()
            .max_by_key(|c| c.owner())
            .copied()
            .into_iter()
            .collect(),
        _ => {
            let mut seen = std::collections::HashSet::new();
            let mut reps = Vec::new();
            let mut visit = |c: &Item| {
                if let Item::Node(n) = *c
                    && seen.insert(doc.parent(n))
                {
                    reps.push(*c);
                }
            };
            if axis == Axis::FollowingSibling {
                input.iter().for_each(&mut visit);
            } else {
                input.iter().rev().for_each(&mut visit);
            }
            reps
        }
    }
}

#[inline]
fn attr_matches(doc: &Document, t: Test, index: usize) -> bool {
    match t {
        Test::Sym(s) => doc.attr_at(index).name == s,
        Test::Any | Test::Node => true,
        _ => false,
    }
}

/// Pushes the nodes with ids in `from..end` that pass `t`.
#[inline]
fn scan(doc: &Document, t: Test, from: u32, end: u32, out: &mut Vec<Item>) {
    // One loop per kind of test, rather than a dispatch at every node.
    let ids = (from..end).map(NodeId);
    match t {
        Test::Sym(sym) if reads_index(doc, from, end) => out.extend(
            doc.elements_named(sym, NodeId(from), NodeId(end))
                .map(Item::Node),
        ),
        Test::Sym(sym) => out.extend(
            ids.filter(|&x| doc.is_element(x) && doc.name_sym(x) == sym)
                .map(Item::Node),
        ),
        Test::Any => out.extend(ids.filter(|&x| doc.is_element(x)).map(Item::Node)),
        _ => out.extend(ids.filter(|&x| node_matches(doc, t, x)).map(Item::Node)),
    }
}

/// The preceding axis of `n`, nearest first: every earlier node except the
/// ancestors of `n`, which are skipped by following the parent chain down.
/// Returns how many ids it looked at.
fn preceding(doc: &Document, n: NodeId, t: Test, out: &mut Vec<Item>) -> u64 {
    let mut next_ancestor = doc.parent(n);
    for x in (0..n.0).rev() {
        let x = NodeId(x);
        if Some(x) == next_ancestor {
            next_ancestor = doc.parent(x);
            continue;
        }
        if node_matches(doc, t, x) {
            out.push(Item::Node(x));
        }
    }
    u64::from(n.0)
}
