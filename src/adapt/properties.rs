//! Property tests of the healing engine on random trees: the sequence
//! alignment is an order-preserving pairing of equal tags, text shapes and
//! node likeness behave as identities should, a tree-gram file keeps the
//! structure it was captured from, and a page healed with its own tree-gram
//! never gives a wrong node.
//!
//! ## What it refuses
//!
//! A self-heal that selects any other node, or rejects, fails the tests; one
//! that abstains passes, but the share of abstentions over fixed generated
//! pages (a deterministic seed) is bounded a little above the measured one.
//! A context that would not read back may go unwritten, never written wrong.
//! Only pages healed against their own tree-grams are tried: no property
//! here says anything of a changed page.

use proptest::prelude::*;

use super::likeness::{Likeness, Profile, likeness, shape};
use super::sequence_alignment::align;
use super::{Outcome, Rejections, Search, TreeGrams, relocate};
use crate::dom::{Document, NodeId};
use crate::similarity::testing::{
    arb_classed_tree, arb_classed_tree_sized, arb_element_tree, doc, html, html_elements, view_with,
};
use crate::similarity::{LabelMode, Labels, NoMask};
use crate::treegram::{CaptureOptions, Target, TreeGram, capture};
use crate::wrapper::{self, AdaptSettings, Wrapper};
use crate::xpath::{Item, XPath};

/// The views of two trees in compact notation, labelled `tag+class` in one
/// label table, so that labels and tags differ.
fn views(
    a: &str,
    b: &str,
) -> (
    crate::similarity::LabeledTree,
    crate::similarity::LabeledTree,
) {
    let mut labels = Labels::new();
    let ta = view_with(&doc(a), LabelMode::TagClass, &mut labels);
    let tb = view_with(&doc(b), LabelMode::TagClass, &mut labels);
    (ta, tb)
}

/// Checks that `pairs` is an alignment of `a` with `b`: one entry per node of
/// `a`, pairs strictly increasing in both trees (so one-to-one), equal tags,
/// no more pairs than the smaller tree has nodes.
fn check_alignment(
    a: &crate::similarity::LabeledTree,
    b: &crate::similarity::LabeledTree,
    pairs: &[Option<usize>],
) -> Result<(), TestCaseError> {
    prop_assert_eq!(pairs.len(), a.len());
    let mut last: Option<usize> = None;
    let mut count = 0;
    for (i, j) in pairs.iter().enumerate() {
        let Some(j) = *j else { continue };
        prop_assert!(j < b.len(), "node {} paired with {} of {}", i, j, b.len());
        prop_assert!(
            last.is_none_or(|l| l < j),
            "node {} paired with {} after {:?}: not increasing",
            i,
            j,
            last
        );
        prop_assert_eq!(a.tag(i), b.tag(j), "node {} paired with {}", i, j);
        last = Some(j);
        count += 1;
    }
    prop_assert!(count <= a.len().min(b.len()));
    Ok(())
}

/// A wrapper with one field pattern, `f`, at `xpath`: a single value (`max:
/// 1`) when `single`, else a list.
fn field_wrapper(xpath: &str, min_context: usize, single: bool) -> Wrapper {
    let constraints = if single { "{min: 1, max: 1}" } else { "{}" };
    let text = format!(
        "name: p\nadapt: {{treegram_min_context: {min_context}}}\npatterns:\n  - name: f\n    xpath: \"{xpath}\"\n    constraints: {constraints}\n"
    );
    wrapper::load_str(&text, "p.yaml").expect("the wrapper loads")
}

/// The elements inside `<body>`, in document order.
fn body_elements(doc: &Document) -> Vec<NodeId> {
    XPath::compile("//body//*")
        .expect("compiles")
        .select(doc, NodeId::ROOT)
        .expect("evaluates")
        .into_iter()
        .filter_map(|i| match i {
            Item::Node(n) => Some(n),
            _ => None,
        })
        .collect()
}

/// The tree-grams of `wrapper` captured on `doc`, as files read back.
fn grams_of(wrapper: &Wrapper, doc: &Document) -> Vec<TreeGram> {
    capture(wrapper, doc, &CaptureOptions::of(wrapper))
        .0
        .into_iter()
        .map(|c| TreeGram::parse(c.html.as_bytes()).expect("the file reads back"))
        .collect()
}

/// The elements of the sub-tree of `root` that a tree-gram file keeps, in
/// pre-order: all but those inside a raw-text element (only a `<plaintext>`
/// can hold any: formatting elements the parser reopens in its text).
fn kept_elements(doc: &Document, root: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut n = root;
    while n < doc.subtree_end(root) {
        if doc.is_element(n) {
            out.push(n);
            if crate::dom::markup::RAW.contains(&doc.name(n)) {
                n = doc.subtree_end(n);
                continue;
            }
        }
        n = NodeId(n.0 + 1);
    }
    out
}

/// The names of [`kept_elements`].
fn element_names(doc: &Document, root: NodeId) -> Vec<String> {
    kept_elements(doc, root)
        .into_iter()
        .map(|n| doc.name(n).to_owned())
        .collect()
}

/// The position of `node` among the [`kept_elements`] of `root`.
fn element_index(doc: &Document, root: NodeId, node: NodeId) -> Option<usize> {
    kept_elements(doc, root).iter().position(|&n| n == node)
}

/// Escapes text for an HTML attribute value or text content.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

/// An element with random attributes and text, as HTML.
fn arb_element() -> impl Strategy<Value = String> {
    let name = prop::sample::select(vec![
        "div", "p", "span", "a", "li", "h1", "t-card", "button",
    ]);
    let attr_name = prop::sample::select(vec![
        "class",
        "id",
        "href",
        "title",
        "style",
        "data-x",
        "data-mend-target",
        "role",
        "aria-label",
    ]);
    let attrs = prop::collection::vec((attr_name, "[ -~]{0,12}|[0-9a-f]{32}|é ü 9"), 0..5);
    let text = "[a-zA-Z0-9£$., ]{0,30}|\\PC{0,20}";
    (name, attrs, text).prop_map(|(name, attrs, text)| {
        let mut out = format!("<{name}");
        for (n, v) in attrs {
            out.push_str(&format!(" {n}=\"{}\"", escape(&v)));
        }
        out.push_str(&format!(" data-probe>{}</{name}>", escape(&text)));
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(200)))]

    #[test]
    fn a_tree_aligned_with_itself_pairs_every_node_with_itself(t in arb_classed_tree(40)) {
        let (a, b) = views(&t, &t);
        let pairs = align((&a).into(), (&b).into());
        let identity: Vec<Option<usize>> = (0..a.len()).map(Some).collect();
        prop_assert_eq!(pairs, identity);
    }

    #[test]
    fn alignments_are_order_preserving_pairings_of_equal_tags(
        x in arb_classed_tree(40), y in arb_classed_tree(40)
    ) {
        let (a, b) = views(&x, &y);
        check_alignment(&a, &b, &align((&a).into(), (&b).into()))?;
        check_alignment(&b, &a, &align((&b).into(), (&a).into()))?;
    }

    #[test]
    fn alignments_of_sub_trees_stay_inside_them(
        x in arb_classed_tree(40), y in arb_classed_tree(40), i in any::<prop::sample::Index>(),
        j in any::<prop::sample::Index>()
    ) {
        let (a, b) = views(&x, &y);
        let (ra, rb) = (i.index(a.len()), j.index(b.len()));
        let (sa, sb) = (a.subtree(ra).expect("a node"), b.subtree(rb).expect("a node"));
        let pairs = align(sa, sb);
        prop_assert_eq!(pairs.len(), sa.size());
        let mut last = None;
        for (k, p) in pairs.iter().enumerate() {
            let Some(p) = *p else { continue };
            prop_assert!(p < sb.size());
            prop_assert!(last.is_none_or(|l| l < p));
            prop_assert_eq!(a.tag(ra + k), b.tag(rb + p));
            last = Some(p);
        }
    }

    #[test]
    fn shape_is_idempotent(s in "[a-zA-Z0-9_]{0,40}|[\\w\\d ]{0,40}|\\PC{0,40}|[ -~]{0,40}") {
        let once = shape(&s);
        prop_assert_eq!(shape(&once), once);
    }

    #[test]
    fn a_node_is_wholly_like_itself(element in arb_element()) {
        let page = format!("<!DOCTYPE html><html><body><main>{element}</main></body></html>");
        let doc = Document::parse_str(&page);
        let owner = doc
            .all()
            .find(|&n| doc.is_element(n) && doc.attr(n, "data-probe").is_some())
            .expect("the probe element");
        let mut items = vec![Item::Node(owner)];
        items.extend(doc.attr_range(owner).map(|index| Item::Attr {
            element: owner,
            index: index as u32,
        }));
        items.extend(doc.children(owner).map(Item::Node));
        let all = Likeness { tag: 1.0, text: 1.0, attrs: 1.0 };
        for item in items {
            let p = Profile::of(&doc, owner, item, &NoMask);
            prop_assert_eq!(likeness(&p, &p), all, "{:?} of {}", item, element);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(8)))]

    /// Pairs too large for the dynamic program are aligned greedily, under
    /// the same rules.
    #[test]
    fn greedy_alignments_keep_the_rules(
        x in arb_classed_tree_sized(2_001..=2_100), y in arb_classed_tree_sized(2_001..=2_100)
    ) {
        let (a, b) = views(&x, &y);
        prop_assert!(a.len() * b.len() > 4_000_000, "too small for the greedy pairing");
        check_alignment(&a, &b, &align((&a).into(), (&b).into()))?;
        let pairs = align((&a).into(), (&a).into());
        let identity: Vec<Option<usize>> = (0..a.len()).map(Some).collect();
        prop_assert_eq!(pairs, identity);
    }
}

/// Checks that the tree-gram `gram`, captured for the field at `target`,
/// holds one instance whose context is the sub-tree of the page it names,
/// element for element, with `target` marked at the same place.
fn check_round_trip(doc: &Document, gram: &TreeGram, target: NodeId) -> Result<(), TestCaseError> {
    prop_assert_eq!(gram.header.matched, 1);
    prop_assert_eq!(gram.instances.len(), 1);
    let instance = &gram.instances[0];
    prop_assert_eq!(instance.targets.len(), 1);
    let (owner, mark) = instance.targets[0].clone();
    prop_assert_eq!(mark, Target::Element);
    prop_assert_eq!(gram.doc.name(owner), doc.name(target));
    // The template says where the instance came from.
    let template = gram.doc.parent(instance.root).expect("the template");
    let path = gram.doc.attr(template, "data-mend-path").expect("a path");
    let from = XPath::compile(path)
        .expect("a canonical path compiles")
        .select(doc, NodeId::ROOT)
        .expect("evaluates");
    let [Item::Node(context)] = from.as_slice() else {
        return Err(TestCaseError::fail(format!("{path} selects {from:?}")));
    };
    let context = *context;
    prop_assert!(context == target || doc.is_ancestor(context, target));
    prop_assert_eq!(
        gram.instance_size(instance),
        element_names(doc, context).len()
    );
    prop_assert_eq!(
        element_names(&gram.doc, instance.root),
        element_names(doc, context)
    );
    prop_assert_eq!(
        element_index(&gram.doc, instance.root, owner),
        element_index(doc, context, target)
    );
    Ok(())
}

/// What relocating a field on its own page gave.
#[derive(Debug)]
enum SelfHeal {
    /// Exactly the field's node.
    Same,
    /// Nothing: the reason, and whether another element of the page has the
    /// same markup as the field's.
    Abstained { lookalike: bool, reason: String },
    /// No tree-gram was written (capture leaves out a context that would not
    /// read back the same), so nothing could be relocated.
    NoTreegram,
    /// Anything else: other nodes, or a rejection (nothing was rejected).
    Wrong(String),
}

/// Relocates a field on the page its tree-gram was captured on, the field
/// at the `k`-th element in `<body>` (a single value when `single`, else a
/// list); `None` when `<body>` has no element.
fn self_heal(page: &str, k: prop::sample::Index, single: bool) -> Option<SelfHeal> {
    let doc = Document::parse_str(page);
    let elements = body_elements(&doc);
    if elements.is_empty() {
        return None;
    }
    let k = k.index(elements.len());
    let target = elements[k];
    let min_context = AdaptSettings::default().treegram_min_context;
    let w = field_wrapper(&format!("(//body//*)[{}]", k + 1), min_context, single);
    let mut grams = TreeGrams::new();
    for g in grams_of(&w, &doc) {
        grams.insert(g.header.pattern.parse().unwrap(), g);
    }
    if grams.is_empty() {
        return Some(SelfHeal::NoTreegram);
    }
    let a = relocate(
        &w,
        &"f".parse().unwrap(),
        &doc,
        None,
        &grams,
        &Rejections::new(),
        &Search::default(),
    )
    .expect("the pattern exists");
    Some(match a.outcome {
        Outcome::Healed => {
            let xpath = a.new_xpath.as_deref().expect("a healed XPath");
            let got = XPath::compile(xpath)
                .expect("a healed XPath compiles")
                .select(&doc, NodeId::ROOT)
                .expect("evaluates");
            if got == vec![Item::Node(target)] {
                SelfHeal::Same
            } else {
                SelfHeal::Wrong(format!("{xpath} selects {got:?} on {page}"))
            }
        }
        Outcome::Abstained => {
            // Another element with the same markup can be told apart by its
            // position only; the bounds below count these apart.
            let markup = doc.outer_html(target);
            let lookalike = doc
                .all()
                .any(|n| n != target && doc.is_element(n) && doc.outer_html(n) == markup);
            SelfHeal::Abstained {
                lookalike,
                reason: a.reason.unwrap_or_default(),
            }
        }
        Outcome::Rejected => SelfHeal::Wrong(format!("nothing was rejected: {a:?}")),
    })
}

/// [`self_heal`] as a property: the field comes back to its own element, or
/// abstains. How often it may abstain is bounded by [`self_heal_share`].
fn heal_itself(page: &str, k: prop::sample::Index, single: bool) -> Result<(), TestCaseError> {
    let outcome = self_heal(page, k, single);
    prop_assume!(outcome.is_some());
    if let Some(SelfHeal::Wrong(why)) = outcome {
        prop_assert!(false, "{}", why);
    }
    Ok(())
}

/// How relocating fields on their own pages went, over many pages.
#[derive(Debug, Default)]
struct SelfHeals {
    /// Pages whose field had a tree-gram and was relocated.
    relocated: usize,
    /// Of those, the ones that abstained.
    abstained: usize,
    /// Of those, the ones whose element has no look-alike (no other element
    /// with the same markup), so that more than its position tells it apart.
    abstained_unique: usize,
    /// Pages whose field got no tree-gram (not counted in `relocated`).
    no_treegram: usize,
}

impl SelfHeals {
    /// A share of `relocated`, in percent.
    fn pct(&self, n: usize) -> f64 {
        100.0 * n as f64 / self.relocated.max(1) as f64
    }
}

/// Relocates fields on their own pages for `cases` pages drawn from `pages`
/// with a fixed seed (the same pages on every run, so the counts are
/// deterministic), asserts that none is wrong, and counts the abstentions;
/// the most frequent reasons are printed.
fn self_heal_share(pages: impl Strategy<Value = String>, cases: usize, single: bool) -> SelfHeals {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (pages, any::<prop::sample::Index>());
    let mut counts = SelfHeals::default();
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for _ in 0..cases {
        let (page, k) = strategy
            .new_tree(&mut runner)
            .expect("a generated case")
            .current();
        match self_heal(&page, k, single) {
            None => continue,
            Some(SelfHeal::NoTreegram) => {
                counts.no_treegram += 1;
                continue;
            }
            Some(SelfHeal::Same) => {}
            Some(SelfHeal::Abstained { lookalike, reason }) => {
                counts.abstained += 1;
                counts.abstained_unique += usize::from(!lookalike);
                // The reason without its numbers, so that alike reasons count together.
                let kind: String = reason
                    .chars()
                    .filter(|c| !c.is_ascii_digit() && *c != '.')
                    .collect();
                *reasons.entry(kind).or_default() += 1;
            }
            Some(SelfHeal::Wrong(why)) => panic!("{why}"),
        }
        counts.relocated += 1;
    }
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    println!("{counts:?}; reasons {:?}", &reasons[..reasons.len().min(5)]);
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(300)))]

    #[test]
    fn a_treegram_file_round_trips_the_captured_structure(
        t in arb_classed_tree(40), k in any::<prop::sample::Index>(), min_context in 1usize..20
    ) {
        let doc = Document::parse_str(&html(&t));
        let elements = body_elements(&doc);
        let k = k.index(elements.len());
        let w = field_wrapper(&format!("(//body//*)[{}]", k + 1), min_context, true);
        let grams = grams_of(&w, &doc);
        prop_assert_eq!(grams.len(), 1);
        check_round_trip(&doc, &grams[0], elements[k])?;
    }

    /// On HTML's own elements the parser builds trees that it would not
    /// build again from their markup (foster-parented, misnested, a form
    /// in a table); a context holding one is left out, never written wrong.
    #[test]
    fn a_treegram_file_on_real_markup_round_trips_or_is_not_written(
        t in arb_element_tree(60), k in any::<prop::sample::Index>(), min_context in 1usize..20
    ) {
        let doc = Document::parse_str(&html_elements(&t));
        let elements = body_elements(&doc);
        prop_assume!(!elements.is_empty());
        let k = k.index(elements.len());
        let w = field_wrapper(&format!("(//body//*)[{}]", k + 1), min_context, true);
        let options = CaptureOptions {
            url: None,
            sha256: "",
            captured: "",
            instances: 3,
            min_context,
            only: None,
            unstable: &NoMask,
            frame: None,
        };
        let (captured, skipped) = capture(&w, &doc, &options);
        match (captured.as_slice(), skipped.as_slice()) {
            ([c], []) => {
                let gram = TreeGram::parse(c.html.as_bytes())
                    .map_err(|e| TestCaseError::fail(format!("{e}: {}", c.html)))?;
                check_round_trip(&doc, &gram, elements[k])?;
            }
            ([], [s]) => prop_assert!(s.reason.contains("would not read back"), "{:?}", s),
            _ => prop_assert!(false, "{:?} {:?}", captured, skipped),
        }
    }

    #[test]
    fn healing_a_page_with_itself_never_gives_a_wrong_node(
        t in arb_classed_tree(40), k in any::<prop::sample::Index>()
    ) {
        heal_itself(&html(&t), k, true)?;
    }

    #[test]
    fn healing_real_markup_with_itself_never_gives_a_wrong_node(
        t in arb_element_tree(60), k in any::<prop::sample::Index>()
    ) {
        heal_itself(&html_elements(&t), k, true)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(100)))]

    #[test]
    fn healing_a_larger_page_with_itself_never_gives_a_wrong_node(
        t in arb_classed_tree(150), k in any::<prop::sample::Index>()
    ) {
        heal_itself(&html(&t), k, true)?;
    }

    /// A list field (no `max: 1`) takes its chosen node's alike siblings
    /// only when it held several alike nodes at capture: on its own page, a
    /// list field that selected one of several alike siblings (on `a(c,c)`,
    /// `(//body//*)[2]`) keeps that one node.
    #[test]
    fn healing_a_list_field_with_its_own_page_keeps_its_nodes(
        t in arb_classed_tree(40), k in any::<prop::sample::Index>()
    ) {
        heal_itself(&html(&t), k, false)?;
    }
}

// A page healed against its own tree-gram holds every node unchanged, so
// relocation should abstain on nothing. The properties above only forbid a
// wrong node, which an engine that always abstains would pass. It is not
// true today: on these generated pages relocation abstains on about a third
// of the fields (the engine finds a runner-up too close to the best, "too
// close to call"), also on elements that no other element looks like, such
// as the only child of `<body>`. So these tests relocate fields on fixed
// generated pages (a deterministic seed: the same pages, and the same
// counts, on every run) and bound the share of abstentions a little above
// today's, overall and for elements without a look-alike; an engine that
// abstains more, up to always, fails them.

#[test]
fn healing_pages_with_themselves_seldom_abstains() {
    let c = self_heal_share(arb_classed_tree(40).prop_map(|t| html(&t)), 300, true);
    // Measured: 300 relocated, 94 abstained (31%), 60 of them on elements
    // without a look-alike.
    assert_eq!(c.relocated, 300, "{c:?}");
    assert!(c.pct(c.abstained) <= 36.0, "{c:?}");
    assert!(c.pct(c.abstained_unique) <= 24.0, "{c:?}");
}

#[test]
fn healing_real_markup_with_itself_seldom_abstains() {
    let c = self_heal_share(
        arb_element_tree(60).prop_map(|t| html_elements(&t)),
        300,
        true,
    );
    // Measured: 286 relocated (14 fields got no tree-gram), 27 abstained
    // (9%), 6 of them on elements without a look-alike.
    assert!(c.relocated >= 280, "{c:?}");
    assert!(c.pct(c.abstained) <= 13.0, "{c:?}");
    assert!(c.pct(c.abstained_unique) <= 4.0, "{c:?}");
}

#[test]
fn healing_larger_pages_with_themselves_seldom_abstains() {
    let c = self_heal_share(arb_classed_tree(150).prop_map(|t| html(&t)), 100, true);
    // Measured: 100 relocated, 31 abstained, 18 of them on elements without
    // a look-alike.
    assert_eq!(c.relocated, 100, "{c:?}");
    assert!(c.pct(c.abstained) <= 37.0, "{c:?}");
    assert!(c.pct(c.abstained_unique) <= 23.0, "{c:?}");
}

#[test]
fn healing_list_fields_with_their_own_pages_seldom_abstains() {
    let c = self_heal_share(arb_classed_tree(40).prop_map(|t| html(&t)), 300, false);
    // Measured: as for single fields, 94 of 300 abstained, 60 on elements
    // without a look-alike.
    assert_eq!(c.relocated, 300, "{c:?}");
    assert!(c.pct(c.abstained) <= 36.0, "{c:?}");
    assert!(c.pct(c.abstained_unique) <= 24.0, "{c:?}");
}
