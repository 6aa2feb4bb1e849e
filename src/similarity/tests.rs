//! Properties of the similarity measures on random trees, checked against
//! straightforward reference implementations, and the pruned candidate sweep
//! checked against the exhaustive one.

use proptest::prelude::*;

use super::clustered_tree_matching::Ctm;
use super::ordered_matching::{self, Weights};
use super::simple_tree_matching::Stm;
use super::testing::{arb_classed_tree, arb_tree, doc, pair, root, view_with};
use super::*;
use crate::dom::Document;

/// Simple and clustered tree matching written as the paper writes them:
/// recursive, with full tables. Only for the small trees of the tests.
fn reference(
    a: &LabeledTree,
    x: usize,
    tx: u32,
    b: &LabeledTree,
    y: usize,
    ty: u32,
    ctm: bool,
) -> f64 {
    if a.label(x) != b.label(y) {
        return 0.0;
    }
    let (ka, kb) = (a.children(x), b.children(y));
    let weight = 1.0 / f64::from(tx.max(ty));
    if ka.is_empty() && kb.is_empty() {
        return if ctm { weight } else { 1.0 };
    }
    if ka.is_empty() || kb.is_empty() {
        // A leaf against an internal node: nothing below to match.
        return if ctm { 0.0 } else { 1.0 };
    }
    let (m, n) = (ka.len(), kb.len());
    let mut t = vec![vec![0.0f64; n + 1]; m + 1];
    for i in 1..=m {
        for j in 1..=n {
            let w = reference(
                a,
                ka[i - 1] as usize,
                m as u32,
                b,
                kb[j - 1] as usize,
                n as u32,
                ctm,
            );
            t[i][j] = t[i][j - 1].max(t[i - 1][j]).max(t[i - 1][j - 1] + w);
        }
    }
    if ctm { t[m][n] * weight } else { 1.0 + t[m][n] }
}

/// View indices of an alignment's pairs.
fn indices(a: &LabeledTree, b: &LabeledTree, pairs: &[(NodeId, NodeId)]) -> Vec<(usize, usize)> {
    pairs
        .iter()
        .map(|&(x, y)| {
            (
                a.index_of(x).unwrap_or(usize::MAX),
                b.index_of(y).unwrap_or(usize::MAX),
            )
        })
        .collect()
}

/// Checks that an alignment is a top-down ordered matching: one to one,
/// equal labels, ancestry and sibling order preserved, parents matched to
/// parents. Returns a description of the first violation.
fn check_alignment(
    a: &LabeledTree,
    b: &LabeledTree,
    pairs: &[(usize, usize)],
) -> Result<(), String> {
    let anc = |t: &LabeledTree, x: usize, y: usize| x < y && y < t.subtree_end(x);
    let mut seen_a = std::collections::HashSet::new();
    let mut seen_b = std::collections::HashSet::new();
    for &(x, y) in pairs {
        if x >= a.len() || y >= b.len() {
            return Err(format!("({x}, {y}) is outside the trees"));
        }
        if !seen_a.insert(x) || !seen_b.insert(y) {
            return Err(format!("({x}, {y}) repeats a node"));
        }
        if a.label(x) != b.label(y) {
            return Err(format!("({x}, {y}) pairs different labels"));
        }
        match (a.parent(x), b.parent(y)) {
            (None, None) => {}
            (Some(px), Some(py)) if pairs.contains(&(px, py)) => {}
            _ => return Err(format!("the parents of ({x}, {y}) are not paired")),
        }
    }
    for &(x1, y1) in pairs {
        for &(x2, y2) in pairs {
            if anc(a, x1, x2) != anc(b, y1, y2) {
                return Err(format!(
                    "({x1}, {y1}) and ({x2}, {y2}) disagree on ancestry"
                ));
            }
            if (x1 < x2) != (y1 < y2) {
                return Err(format!("({x1}, {y1}) and ({x2}, {y2}) disagree on order"));
            }
        }
    }
    Ok(())
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-12
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(300)))]

    #[test]
    fn a_tree_matched_with_itself(t in arb_tree(40, 4)) {
        let (a, b) = pair(&t, &t);
        prop_assert_eq!(simple_tree_matching_score(&a, &b), a.len());
        prop_assert_eq!(clustered_tree_matching_score(&a, &b), 1.0);
        prop_assert_eq!(tree_bigram(&a, &b), 1.0);
        prop_assert_eq!(tree_jaro_winkler(&a, &b), 1.0);
        let m = simple_tree_matching(&a, &b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let identity: Vec<(usize, usize)> = (0..a.len()).map(|i| (i, i)).collect();
        prop_assert_eq!(indices(&a, &b, &m.alignment), identity);
    }

    #[test]
    fn matchings_agree_with_the_reference_and_are_symmetric(
        x in arb_tree(30, 3), y in arb_tree(30, 3)
    ) {
        let (a, b) = pair(&x, &y);
        let stm = simple_tree_matching_score(&a, &b);
        prop_assert_eq!(stm as f64, reference(&a, 0, 1, &b, 0, 1, false));
        prop_assert_eq!(stm, simple_tree_matching_score(&b, &a));
        prop_assert!(stm <= a.len().min(b.len()));
        let ctm = clustered_tree_matching_score(&a, &b);
        prop_assert!(close(ctm, reference(&a, 0, 1, &b, 0, 1, true)), "{} vs reference", ctm);
        prop_assert!(close(ctm, clustered_tree_matching_score(&b, &a)));
        prop_assert!((0.0..=1.0).contains(&ctm));
        for s in [tree_bigram(&a, &b), tree_jaro_winkler(&a, &b)] {
            prop_assert!((0.0..=1.0).contains(&s));
        }
        prop_assert_eq!(tree_bigram(&a, &b), tree_bigram(&b, &a));
    }

    #[test]
    fn alignments_are_top_down_ordered_matchings(x in arb_tree(30, 3), y in arb_tree(30, 3)) {
        let (a, b) = pair(&x, &y);
        let stm = simple_tree_matching(&a, &b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let pairs = indices(&a, &b, &stm.alignment);
        prop_assert_eq!(pairs.len(), stm.matched);
        check_alignment(&a, &b, &pairs).map_err(TestCaseError::fail)?;
        let ctm = clustered_tree_matching(&a, &b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_alignment(&a, &b, &indices(&a, &b, &ctm.alignment)).map_err(TestCaseError::fail)?;
        prop_assert_eq!(ctm.alignment.is_empty(), ctm.similarity == 0.0);
    }

    #[test]
    fn small_store_budgets_change_nothing(
        x in arb_tree(30, 3), y in arb_tree(30, 3), budget in 0usize..40
    ) {
        let (a, b) = pair(&x, &y);
        let limit = ordered_matching::LEVEL_LIMIT;
        let fail = |e: SimilarityError| TestCaseError::fail(e.to_string());
        let ctm_full = ordered_matching::align((&a).into(), (&b).into(), &Ctm).map_err(fail)?;
        let ctm_small = ordered_matching::align_within((&a).into(), (&b).into(), &Ctm, budget, limit)
            .map_err(fail)?;
        prop_assert_eq!(ctm_small, ctm_full);
        let stm_full = ordered_matching::align((&a).into(), (&b).into(), &Stm).map_err(fail)?;
        let stm_small = ordered_matching::align_within((&a).into(), (&b).into(), &Stm, budget, limit)
            .map_err(fail)?;
        prop_assert_eq!(stm_small, stm_full);
    }

    #[test]
    fn the_pruned_sweep_equals_the_exhaustive_one(
        page in arb_classed_tree(80),
        query in arb_classed_tree(12),
        cut in any::<usize>(),
        k in 1usize..4,
        filter in 0u8..3,
        ratio in prop::option::of(1.0f64..3.0),
        classes in any::<bool>(),
    ) {
        let mut labels = Labels::new();
        let page_doc = doc(&page);
        let query_doc = doc(&query);
        let mode = if classes { LabelMode::TagClass } else { LabelMode::Tag };
        let p = view_with(&page_doc, mode, &mut labels);
        let q = view_with(&query_doc, mode, &mut labels);
        let roots = [RootFilter::SameLabel, RootFilter::SameTag, RootFilter::Any][filter as usize];
        for algorithm in [Algorithm::Stm, Algorithm::Ctm, Algorithm::Bigram, Algorithm::Jw] {
            let options = SweepOptions { algorithm, k, roots, max_size_ratio: ratio };
            // A foreign query, and a query cut from the page itself.
            let inner = p.subtree(cut % p.len()).ok_or_else(|| TestCaseError::fail("no node"))?;
            for query in [SubTree::from(&q), inner] {
                let pruned = best_candidates(query, &p, &options);
                let exhaustive = best_candidates_exhaustive(query, &p, &options);
                prop_assert_eq!(&pruned.best, &exhaustive, "{:?}", algorithm);
                let s = pruned.stats;
                prop_assert_eq!(s.scored + s.cut + s.skipped + s.copies, s.candidates);
            }
        }
    }
}

#[test]
fn weights_of_the_two_matchings() {
    assert_eq!(Stm.leaf(), 1.0);
    assert_eq!(Stm.internal(3, 5, 2.0), 3.0);
    assert_eq!(Ctm.leaf(), 1.0);
    assert_eq!(Ctm.internal(2, 4, 3.0), 0.75);
}

#[test]
fn masked_content_never_contributes() {
    // The second tree is the first with an unstable sub-tree and an unstable
    // class; masked, the two compare as identical under every measure.
    let plain = doc("a(b(c),d(e))");
    let noisy = doc("a(b.k.ad(c,x(y,z)),d(e))");
    let mut labels = Labels::new();
    let a = LabeledTree::build(&plain, root(&plain), LabelMode::TagClass, &mut labels)
        .expect("an element");
    let mask = MaskFn(|d: &Document, n: NodeId, attr: Option<&str>| match attr {
        None => d.name(n) == "t-x",
        Some(name) => name == "class" && d.attr(n, "class") == Some("k ad"),
    });
    let b = LabeledTree::build_masked(
        &noisy,
        root(&noisy),
        LabelMode::TagClass,
        &mask,
        &mut labels,
    )
    .expect("an element");
    assert_eq!(b.len(), a.len());
    for algorithm in [Algorithm::Ctm, Algorithm::Bigram, Algorithm::Jw] {
        assert_eq!(similarity(algorithm, &a, &b), 1.0, "{algorithm:?}");
    }
    assert_eq!(similarity(Algorithm::Stm, &a, &b), a.len() as f64);
}

#[test]
fn compare_gives_alignments_only_for_the_matchings() {
    let (a, b) = pair("a(b,c)", "a(c)");
    for (algorithm, has) in [
        (Algorithm::Stm, true),
        (Algorithm::Ctm, true),
        (Algorithm::Bigram, false),
        (Algorithm::Jw, false),
    ] {
        let c = compare(algorithm, &a, &b).expect("compared");
        assert_eq!(c.alignment.is_some(), has);
        assert_eq!(c.score, similarity(algorithm, &a, &b));
    }
}

#[test]
fn sweeps_find_a_planted_copy() {
    let page = "r(x(a(b,c),d),y(a(b,c,e(f)),d),a(b),z(a(b,c,e(f),g)))";
    let mut labels = Labels::new();
    let p = view_with(&doc(page), LabelMode::Tag, &mut labels);
    let q = view_with(&doc("a(b,c,e(f))"), LabelMode::Tag, &mut labels);
    let sweep = best_candidates(&q, &p, &SweepOptions::new(Algorithm::Ctm));
    let best: Vec<(usize, f64)> = sweep.best.iter().map(|c| (c.index, c.score)).collect();
    // The exact copy under y, then the copy with an extra child under z:
    // b, c and e(f) of four children, 3/4.
    assert_eq!(best, [(7, 1.0), (16, 0.75)]);
    assert!(
        sweep.stats.skipped + sweep.stats.cut > 0,
        "{:?}",
        sweep.stats
    );
    let none = best_candidates(
        &q,
        &p,
        &SweepOptions {
            k: 0,
            ..SweepOptions::new(Algorithm::Stm)
        },
    );
    assert!(none.best.is_empty());
}

#[test]
fn deep_trees_do_not_overflow_the_stack() {
    // The parser caps nesting at dom::MAX_DEPTH; a chain that deep, and a
    // long flat list, go through every measure.
    let depth = crate::dom::MAX_DEPTH as usize + 100;
    let mut html = String::from("<body>");
    html.push_str(&"<t-a>".repeat(depth));
    let deep = Document::parse_str(&html);
    let mut flat = String::from("<body><t-a>");
    flat.push_str(&"<t-b></t-b>".repeat(5000));
    let flat = Document::parse_str(&flat);
    let mut labels = Labels::new();
    let a = view_with(&deep, LabelMode::Tag, &mut labels);
    let b = view_with(&flat, LabelMode::Tag, &mut labels);
    assert!(a.len() > 400);
    for algorithm in [
        Algorithm::Stm,
        Algorithm::Ctm,
        Algorithm::Bigram,
        Algorithm::Jw,
    ] {
        let s = compare(algorithm, &a, &a).expect("compared").score;
        assert!(s >= 1.0, "{algorithm:?}");
        compare(algorithm, &a, &b).expect("compared");
        compare(algorithm, &b, &b).expect("compared");
    }
}
