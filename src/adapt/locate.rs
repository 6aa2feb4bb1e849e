//! Finding a field again: the region of the page most like the tree-gram's
//! context, then the node in it most like the marked target.
//!
//! A region is found by a tree similarity, as the module documentation
//! describes; inside it, every node that could hold the value is a candidate,
//! weighed by where the alignment puts it (the image of the target scores
//! highest, a node inside that image or beside the image of the target's
//! parent less) and by how much it looks like the target on its own. A
//! candidate whose value fails the field's own value constraints (type,
//! regex, enum, length, range) is ranked but marked as not fitting, and the
//! search never takes it: those constraints are the proof that a node holds
//! this field's data.
//!
//! ## What it refuses
//!
//! A sweep returns at most [`REGIONS`] regions per tree-gram instance and
//! drops those of similarity 0; a region of more than [`MAX_REGION`]
//! elements yields no candidate. Elements of the site's frame are never
//! candidates, nor is an element without the item the target needs (the
//! named attribute, or a text child). A node whose value fails the field's
//! constraints is ranked but marked (`fits` is false), and the caller passes
//! it over. Nothing here chooses or applies a candidate.

use std::collections::HashMap;

use url::Url;

use super::Search;
use super::likeness::{Likeness, Profile, likeness};
use super::sequence_alignment;
use crate::dom::{Document, NodeId, NodeKind};
use crate::extract::{check_value, item_text};
use crate::similarity::{
    Algorithm, LabeledTree, RootFilter, SweepOptions, best_candidates, compare,
};
use crate::treegram::{GramInstance, GramMask, Target, TreeGram};
use crate::wrapper::Pattern;
use crate::xpath::Item;

/// How many regions a sweep returns per tree-gram instance.
const REGIONS: usize = 16;
/// Regions larger than this many elements are not searched node by node.
const MAX_REGION: usize = 5_000;

/// The weights of a candidate node's evidence.
const W_POSITION: f64 = 0.3;
const W_TEXT: f64 = 0.35;
const W_TAG: f64 = 0.15;
const W_ATTRS: f64 = 0.2;

/// A page region that resembles a tree-gram instance.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    /// The region's root, as a view index of the scope's view.
    pub index: usize,
    /// Its similarity to the tree-gram instance, in [0, 1].
    pub similarity: f64,
    /// The tree alignment from gram view indices to page view indices, when
    /// the algorithm gives one.
    pub tree_pairs: Option<HashMap<usize, usize>>,
}

/// A node chosen in a region, with its evidence.
#[derive(Clone, Debug)]
pub(crate) struct NodeChoice {
    /// The selected item (an element, an attribute of it, or a text child).
    pub item: Item,
    /// The element that owns it.
    pub owner: NodeId,
    /// The node's evidence, in [0, 1].
    pub node_score: f64,
    /// Whether its value passes the field's value constraints.
    pub fits: bool,
}

/// The regions of the scope view `page` (whose root is the scope) most like
/// the gram view `gram` of `instance`, best first, similarity in [0, 1].
pub(crate) fn regions(
    gram: &LabeledTree,
    instance: &GramInstance,
    page: &LabeledTree,
    algorithm: Algorithm,
    search: &Search,
) -> Vec<Region> {
    if instance.at_instance {
        // The context is the parent instance itself: compare it with the scope.
        let similarity = normalized(algorithm, gram, page, 0);
        return vec![Region {
            index: 0,
            similarity,
            tree_pairs: tree_pairs(algorithm, gram, page, 0),
        }];
    }
    let options = sweep_options(algorithm, REGIONS, search, search.region_size_ratio);
    let sweep = best_candidates(gram, page, &options);
    sweep
        .best
        .into_iter()
        .map(|c| Region {
            index: c.index,
            similarity: normalize(algorithm, c.score, gram.len(), page.subtree_size(c.index)),
            tree_pairs: tree_pairs(algorithm, gram, page, c.index),
        })
        .filter(|r| r.similarity > 0.0)
        .collect()
}

/// The sweep for `algorithm`: tree matchings pair roots only when their tags
/// agree, so (with `search.same_tag`) they look at roots of the query's tag
/// only; bigram and Jaro-Winkler tolerate a renamed root and look
/// everywhere, among sub-trees within `size_ratio` of the query's size.
pub(crate) fn sweep_options(
    algorithm: Algorithm,
    k: usize,
    search: &Search,
    size_ratio: Option<f64>,
) -> SweepOptions {
    match algorithm {
        Algorithm::Stm | Algorithm::Ctm => SweepOptions {
            algorithm,
            k,
            roots: if search.same_tag {
                RootFilter::SameTag
            } else {
                RootFilter::Any
            },
            max_size_ratio: None,
        },
        Algorithm::Bigram | Algorithm::Jw => SweepOptions {
            algorithm,
            k,
            roots: RootFilter::Any,
            max_size_ratio: size_ratio,
        },
    }
}

/// A score in [0, 1]: simple tree matching's count of pairs becomes the Dice
/// coefficient `2m / (|a| + |b|)`; the others already are.
pub(crate) fn normalize(algorithm: Algorithm, score: f64, a: usize, b: usize) -> f64 {
    match algorithm {
        Algorithm::Stm => 2.0 * score / (a + b).max(1) as f64,
        _ => score,
    }
    .clamp(0.0, 1.0)
}

/// The normalised similarity of `gram` and the sub-tree of `page` at `index`.
pub(crate) fn normalized(
    algorithm: Algorithm,
    gram: &LabeledTree,
    page: &LabeledTree,
    index: usize,
) -> f64 {
    let Some(sub) = page.subtree(index) else {
        return 0.0;
    };
    let score = crate::similarity::similarity(algorithm, gram, sub);
    normalize(algorithm, score, gram.len(), sub.size())
}

/// The tree matching's alignment, as view indices, for stm and ctm.
fn tree_pairs(
    algorithm: Algorithm,
    gram: &LabeledTree,
    page: &LabeledTree,
    index: usize,
) -> Option<HashMap<usize, usize>> {
    if !matches!(algorithm, Algorithm::Stm | Algorithm::Ctm) {
        return None;
    }
    let comparison = compare(algorithm, gram, page.subtree(index)?).ok()?;
    let pairs = comparison.alignment?;
    Some(
        pairs
            .into_iter()
            .filter_map(|(a, b)| Some((gram.index_of(a)?, page.index_of(b)?)))
            .collect(),
    )
}

/// Everything a target ranking needs about the pattern and the page.
pub(crate) struct Field<'a> {
    pub pattern: &'a Pattern,
    pub doc: &'a Document,
    pub base: Option<&'a Url>,
    /// The page's elements in the site's frame, which are no candidates.
    pub frame: Option<&'a std::collections::HashSet<NodeId>>,
}

/// The candidate nodes for the gram target `(owner, target)` of `instance`
/// inside `region`, best first.
pub(crate) fn rank_targets(
    field: &Field<'_>,
    gram: &TreeGram,
    gram_view: &LabeledTree,
    target: (NodeId, &Target),
    page: &LabeledTree,
    region: &Region,
) -> Vec<NodeChoice> {
    let doc = field.doc;
    let root = region.index;
    let end = page.subtree_end(root);
    if end - root > MAX_REGION {
        return Vec::new();
    }
    let Some(g) = gram_view.index_of(target.0) else {
        return Vec::new();
    };
    let (Some(gram_sub), Some(page_sub)) = (gram_view.subtree(0), page.subtree(root)) else {
        return Vec::new();
    };
    let pairs = sequence_alignment::align(gram_sub, page_sub);
    let image_of = |i: usize| -> Option<usize> {
        region
            .tree_pairs
            .as_ref()
            .and_then(|p| p.get(&i).copied())
            .or_else(|| sequence_alignment::image(&pairs, gram_sub, page_sub, i))
    };
    let gram_item = target
        .1
        .item(&gram.doc, target.0)
        .unwrap_or(Item::Node(target.0));
    let wanted = Profile::of(&gram.doc, target.0, gram_item, &GramMask);
    let image = image_of(g);
    // The nearest ancestor of the target that has an image, and how far up it is.
    let mut anchor = None;
    let mut up = 0;
    let mut a = Some(g);
    while let Some(i) = a {
        if let Some(img) = image_of(i)
            && i != g
        {
            anchor = Some((img, up));
            break;
        }
        up += 1;
        a = gram_view.parent(i);
    }
    // Label paths from the region's root: nodes with the image's path are its
    // twins in a repeated structure, which the alignment cannot tell apart.
    let paths = label_paths(page, root);
    let twins = image.map_or(0, |img| {
        paths.iter().filter(|&&h| h == paths[img - root]).count()
    });
    // The same holds in the tree-gram: a target with twins there is paired
    // with one image or another as the alignment happens to break the tie.
    let gram_paths = label_paths(gram_view, 0);
    let gram_twins = gram_paths.iter().filter(|&&h| h == gram_paths[g]).count();
    let mut choices = Vec::new();
    for t in root..end {
        let owner = page.node(t);
        if field.frame.is_some_and(|f| f.contains(&owner)) {
            continue;
        }
        let Some(item) = item_for(doc, owner, target.1) else {
            continue;
        };
        let position = match image {
            Some(img) if twins > 1 && paths[t - root] == paths[img - root] => 0.5,
            _ => position(page, t, image, anchor, twins > 1 || gram_twins > 1),
        };
        let like = likeness(
            &wanted,
            &Profile::of(doc, owner, item, &crate::similarity::NoMask),
        );
        let node_score = weigh(position, like);
        let text = item_text(doc, item, &field.pattern.extract);
        let fits =
            text.is_some_and(|text| check_value(field.pattern, &text, field.base).1.is_empty());
        choices.push(NodeChoice {
            item,
            owner,
            node_score,
            fits,
        });
    }
    choices.sort_by(|x, y| {
        y.node_score
            .total_cmp(&x.node_score)
            .then(x.item.cmp(&y.item))
    });
    choices
}

/// Where the alignment puts node `t`: 1 for the image of the target (0.5
/// when the image has twins, nodes reached by the same label path, which
/// then score 0.5 too, or when the target has twins in the tree-gram: an
/// alignment of repeated items is arbitrary); for a
/// node inside that image (the value moved into a child), 0.75 divided by
/// how deep; when the target has no image, for a node inside the image of
/// its nearest aligned ancestor, 0.6 divided by one plus the difference in
/// depth; 0 elsewhere.
fn position(
    page: &LabeledTree,
    t: usize,
    image: Option<usize>,
    anchor: Option<(usize, usize)>,
    twinned: bool,
) -> f64 {
    match image {
        Some(img) if img == t && !twinned => 1.0,
        Some(img) if img == t => 0.5,
        Some(img) if sequence_alignment::within(page, img, t) => {
            0.75 / (page.depth(t) - page.depth(img)) as f64
        }
        Some(_) => 0.0,
        None => match anchor {
            Some((img, up)) if sequence_alignment::within(page, img, t) => {
                let below = page.depth(t) - page.depth(img);
                0.6 / (1.0 + below.abs_diff(up) as f64)
            }
            _ => 0.0,
        },
    }
}

/// The label-path hash of each node of `tree` under `root` (itself
/// included), from `root` down, by offset from `root`.
fn label_paths(tree: &LabeledTree, root: usize) -> Vec<u64> {
    let end = tree.subtree_end(root);
    let mut paths = vec![0u64; end - root];
    for t in root..end {
        let up = tree
            .parent(t)
            .filter(|&p| p >= root)
            .map_or(0, |p| paths[p - root]);
        paths[t - root] = mix(up, tree.label(t).index());
    }
    paths
}

/// One step of a label-path hash.
fn mix(up: u64, label: u32) -> u64 {
    (up ^ u64::from(label).wrapping_add(0x9e37_79b9_7f4a_7c15))
        .wrapping_mul(0x100_0000_01b3)
        .rotate_left(29)
}

fn weigh(position: f64, like: Likeness) -> f64 {
    W_POSITION * position + W_TEXT * like.text + W_TAG * like.tag + W_ATTRS * like.attrs
}

/// The item of `owner` that a target of kind `target` would select: the
/// element, its attribute of that name, or a text child (the same one by
/// position if it exists, else the first that is not blank).
fn item_for(doc: &Document, owner: NodeId, target: &Target) -> Option<Item> {
    match target {
        Target::Element | Target::Attr(_) => target.item(doc, owner),
        Target::Text(_) => target.item(doc, owner).or_else(|| {
            doc.children(owner)
                .find(|&c| doc.kind(c) == NodeKind::Text && !doc.text(c).trim().is_empty())
                .map(Item::Node)
        }),
    }
}

/// The nodes of a list field besides its first: the siblings of `first`'s
/// owner with the same tag and class, each giving the same kind of item.
pub(crate) fn list_siblings(doc: &Document, first: &NodeChoice, target: &Target) -> Vec<Item> {
    let owner = first.owner;
    let Some(parent) = doc.parent(owner) else {
        return vec![first.item];
    };
    let same = |n: NodeId| {
        doc.name(n) == doc.name(owner) && doc.attr(n, "class") == doc.attr(owner, "class")
    };
    let mut items: Vec<Item> = doc
        .element_children(parent)
        .filter(|&n| same(n))
        .filter_map(|n| item_for(doc, n, target))
        .collect();
    if !items.contains(&first.item) {
        items.push(first.item);
    }
    items.sort();
    items.dedup();
    items
}
