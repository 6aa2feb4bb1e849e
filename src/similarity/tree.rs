//! The compact tree view that every similarity function reads.
//!
//! A [`LabeledTree`] is the element sub-tree of one document node, flattened
//! into pre-order arrays: label, parent, end of sub-tree, depth, and children
//! in one shared list. Text and comments are not in it, nor is anything a
//! [`Mask`] skips. Each entry keeps the [`NodeId`] it came from, so results
//! can be reported in terms of the document.
//!
//! The view exists because the algorithms compare millions of node pairs: an
//! integer label per node and contiguous arrays make each comparison a couple
//! of loads, and a label table shared by both trees ([`Labels`]) makes two
//! documents comparable. A [`SubTree`] is a view's node taken as the root of a
//! comparison, which is how a candidate search compares a tree-gram with every
//! sub-tree of a page without building a view per candidate.
//!
//! Building never recurses, so a tree as deep as the parser allows is as safe
//! as a flat one.
//!
//! ## What it refuses
//!
//! A view is built only from an element of the document given: a node out of
//! range, one that is not an element, or a root the mask skips is a
//! [`SimilarityError`] (`OutOfRange`, `NotAnElement`, `MaskedRoot`). Like
//! slice indexing, the accessors panic on an index past the view;
//! [`LabeledTree::subtree`] and [`LabeledTree::index_of`] are the checked
//! ways in.

use std::collections::HashMap;

use crate::dom::{Document, NodeId, Sym};
use crate::similarity::LabelMode;

use super::SimilarityError;
use super::key_index::KeyIndex;
use super::label::{Label, Labels, Mask, NoMask, write_label};

/// Marks "no node" in the parent array.
pub(crate) const NONE: u32 = u32::MAX;

/// The element sub-tree of a document node, with interned labels, in pre-order.
///
/// Nodes are addressed by their index in the view, `0` being the root; the
/// descendants of `i` are the contiguous range `i + 1 .. subtree_end(i)`.
/// Like slice indexing, the accessors expect an index below [`len`] and
/// panic otherwise; [`LabeledTree::subtree`] and [`LabeledTree::index_of`]
/// are the checked ways in.
///
/// [`len`]: LabeledTree::len
#[derive(Clone, Debug)]
pub struct LabeledTree {
    labels: Vec<Label>,
    tags: Vec<Label>,
    parent: Vec<u32>,
    end: Vec<u32>,
    depth: Vec<u32>,
    kids_start: Vec<u32>,
    kids: Vec<u32>,
    nodes: Vec<NodeId>,
    mode: LabelMode,
    /// The structural hash of every sub-tree, computed the first time a
    /// sweep asks: a page's view is shared by every search of a pass, and
    /// each search would otherwise hash the whole page again.
    shapes: std::cell::OnceCell<Vec<u64>>,
    /// The nodes grouped by sub-tree size and by count of bigrams, and the
    /// prefix counts of internal nodes that the bigram counts come from:
    /// the sweeps for tree Jaro-Winkler and tree bigram read them, and they
    /// depend on the shape alone, so relabelling keeps them.
    by_size: std::cell::OnceCell<KeyIndex>,
    by_bigrams: std::cell::OnceCell<KeyIndex>,
    internal: std::cell::OnceCell<Vec<u32>>,
}

impl LabeledTree {
    /// Builds the view of the element `root` of `doc` and its element
    /// descendants, labelled by `mode`, interning labels into `labels`.
    pub fn build(
        doc: &Document,
        root: NodeId,
        mode: LabelMode,
        labels: &mut Labels,
    ) -> Result<LabeledTree, SimilarityError> {
        LabeledTree::build_masked(doc, root, mode, &NoMask, labels)
    }

    /// Builds the view as [`LabeledTree::build`] does, leaving out what `mask`
    /// hides.
    pub fn build_masked(
        doc: &Document,
        root: NodeId,
        mode: LabelMode,
        mask: &dyn Mask,
        labels: &mut Labels,
    ) -> Result<LabeledTree, SimilarityError> {
        if root.index() >= doc.len() {
            return Err(SimilarityError::OutOfRange(root));
        }
        if !doc.is_element(root) {
            return Err(SimilarityError::NotAnElement(root));
        }
        if mask.skips(doc, root) {
            return Err(SimilarityError::MaskedRoot(root));
        }
        let mut tree = LabeledTree {
            labels: Vec::new(),
            tags: Vec::new(),
            parent: Vec::new(),
            end: Vec::new(),
            depth: Vec::new(),
            kids_start: Vec::new(),
            kids: Vec::new(),
            nodes: Vec::new(),
            mode,
            shapes: std::cell::OnceCell::new(),
            by_size: std::cell::OnceCell::new(),
            by_bigrams: std::cell::OnceCell::new(),
            internal: std::cell::OnceCell::new(),
        };
        // Tag labels are cached by the document's name symbol, so that a page
        // of 60,000 elements hashes each distinct tag name once.
        let mut tag_cache: Vec<Option<Label>> = vec![None; doc.names().len()];
        let mut text = String::new();
        let class = doc.names().get("class");
        let mut by_class: HashMap<(Sym, &str), Label> = HashMap::new();
        // The open ancestors: (index in the view, end of the node in the document).
        let mut open: Vec<(u32, u32)> = Vec::new();
        let doc_end = doc.subtree_end(root).0;
        let mut n = root.0;
        while n < doc_end {
            let id = NodeId(n);
            if !doc.is_element(id) || mask.skips(doc, id) {
                n = doc.subtree_end(id).0;
                continue;
            }
            let index = tree.nodes.len() as u32;
            while let Some(&(top, end)) = open.last() {
                if n < end {
                    break;
                }
                tree.end[top as usize] = index;
                open.pop();
            }
            let sym = doc.name_sym(id);
            let tag = match tag_cache.get(sym.index() as usize).copied().flatten() {
                Some(label) => label,
                None => {
                    let label = labels.intern(doc.name(id));
                    if let Some(slot) = tag_cache.get_mut(sym.index() as usize) {
                        *slot = Some(label);
                    }
                    label
                }
            };
            let label = match class.filter(|_| mode == LabelMode::TagClass) {
                // A class label follows from the tag and the class value alone
                // when the mask leaves the class: the elements of a page share
                // a few hundred values, and each is split, sorted and
                // interned once.
                Some(class) => match doc.attr_sym(id, class) {
                    Some(value) if !mask.masks_attr(doc, id, "class") => {
                        *by_class.entry((sym, value)).or_insert_with(|| {
                            if write_label(doc, id, mode, mask, &mut text) {
                                labels.intern(&text)
                            } else {
                                tag
                            }
                        })
                    }
                    _ => tag,
                },
                None if write_label(doc, id, mode, mask, &mut text) => labels.intern(&text),
                None => tag,
            };
            tree.labels.push(label);
            tree.tags.push(tag);
            tree.parent.push(open.last().map_or(NONE, |&(p, _)| p));
            tree.end.push(NONE);
            tree.depth.push(open.len() as u32);
            tree.nodes.push(id);
            open.push((index, doc.subtree_end(id).0));
            n += 1;
        }
        let len = tree.nodes.len() as u32;
        for (top, _) in open {
            tree.end[top as usize] = len;
        }
        tree.link_children();
        Ok(tree)
    }

    /// The same view labelled by tags alone: what [`LabeledTree::build`]
    /// gives under [`LabelMode::Tag`] for the same root and mask, without
    /// reading the document again. A search that tries a page under its
    /// own label mode and then under tags builds the page once.
    pub fn with_tag_labels(&self) -> LabeledTree {
        let mut view = self.clone();
        view.labels.clone_from(&view.tags);
        view.mode = LabelMode::Tag;
        // The hashes read the labels, which changed.
        view.shapes = std::cell::OnceCell::new();
        view
    }

    /// Fills the shared children list from the parent array: counts, prefix
    /// sums, then one pass in pre-order, which leaves each list in document order.
    fn link_children(&mut self) {
        let n = self.parent.len();
        let mut start = vec![0u32; n + 1];
        for &p in &self.parent {
            if p != NONE {
                start[p as usize + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut kids = vec![0u32; n.saturating_sub(1)];
        for (i, &p) in self.parent.iter().enumerate() {
            if p != NONE {
                kids[next[p as usize] as usize] = i as u32;
                next[p as usize] += 1;
            }
        }
        self.kids_start = start;
        self.kids = kids;
    }

    /// Gives the root `label` (and the same tag label), for comparisons in
    /// which the two roots are known to correspond whatever their names: a
    /// record instance whose tag changed from `article` to `div` is still the
    /// record, and its fields are looked for inside it.
    pub fn relabel_root(&mut self, label: Label) {
        self.labels[0] = label;
        self.tags[0] = label;
        // Only the root's own hash reads its label; its children's stand.
        if let Some(mut shapes) = self.shapes.take() {
            shapes[0] = shape_hash_of(self, 0, &shapes);
            let _ = self.shapes.set(shapes);
        }
    }

    /// The structural hash of every sub-tree, by view index: equal for
    /// sub-trees of the same labels and shape (and, rarely, for others;
    /// [`super::shape`] confirms a copy before trusting it).
    pub(crate) fn shapes(&self) -> &[u64] {
        self.shapes.get_or_init(|| shape_hashes(self))
    }

    /// The nodes grouped by sub-tree size.
    pub(crate) fn by_size(&self) -> &KeyIndex {
        self.by_size.get_or_init(|| {
            let sizes: Vec<u32> = (0..self.len()).map(|i| self.end[i] - i as u32).collect();
            KeyIndex::build(&sizes)
        })
    }

    /// The nodes grouped by [`LabeledTree::bigram_count`].
    pub(crate) fn by_bigram_count(&self) -> &KeyIndex {
        self.by_bigrams.get_or_init(|| {
            let counts: Vec<u32> = (0..self.len())
                .map(|i| self.bigram_count(i) as u32)
                .collect();
            KeyIndex::build(&counts)
        })
    }

    /// The number of bigrams of the sub-tree of node `i` as tree bigram
    /// counts them: one parent bigram per node (the root's with the top
    /// marker) and one sibling bigram per pair of adjacent siblings, which
    /// is the size less one less the number of internal nodes.
    pub(crate) fn bigram_count(&self, i: usize) -> usize {
        let internal = self.internal.get_or_init(|| {
            let mut prefix = Vec::with_capacity(self.len() + 1);
            prefix.push(0u32);
            for j in 0..self.len() {
                prefix.push(prefix[j] + u32::from(!self.is_leaf(j)));
            }
            prefix
        });
        let end = self.subtree_end(i);
        let size = end - i;
        size + (size - 1 - (internal[end] - internal[i]) as usize)
    }

    /// The number of nodes in the view (at least 1: the root).
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Always false: a view holds at least its root.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The label mode the view was built with.
    pub fn mode(&self) -> LabelMode {
        self.mode
    }

    /// The label of node `i`.
    #[inline]
    pub fn label(&self, i: usize) -> Label {
        self.labels[i]
    }

    /// The labels of every node in pre-order.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// The label of node `i` under the `tag` mode, whatever the view's mode.
    #[inline]
    pub fn tag(&self, i: usize) -> Label {
        self.tags[i]
    }

    /// The parent of node `i`, `None` for the root.
    #[inline]
    pub fn parent(&self, i: usize) -> Option<usize> {
        let p = self.parent[i];
        (p != NONE).then_some(p as usize)
    }

    /// The children of node `i`, in order.
    #[inline]
    pub fn children(&self, i: usize) -> &[u32] {
        &self.kids[self.kids_start[i] as usize..self.kids_start[i + 1] as usize]
    }

    /// The number of children of node `i`.
    #[inline]
    pub fn child_count(&self, i: usize) -> usize {
        (self.kids_start[i + 1] - self.kids_start[i]) as usize
    }

    /// Whether node `i` has no children in the view.
    #[inline]
    pub fn is_leaf(&self, i: usize) -> bool {
        self.kids_start[i + 1] == self.kids_start[i]
    }

    /// The number of siblings of node `i`, itself included; 1 for the root.
    #[inline]
    pub fn siblings(&self, i: usize) -> u32 {
        match self.parent[i] {
            NONE => 1,
            p => self.kids_start[p as usize + 1] - self.kids_start[p as usize],
        }
    }

    /// One past the last descendant of node `i`.
    #[inline]
    pub fn subtree_end(&self, i: usize) -> usize {
        self.end[i] as usize
    }

    /// The number of nodes in the sub-tree of node `i`, itself included.
    #[inline]
    pub fn subtree_size(&self, i: usize) -> usize {
        self.end[i] as usize - i
    }

    /// The depth of node `i` below the view's root (0 for the root).
    #[inline]
    pub fn depth(&self, i: usize) -> usize {
        self.depth[i] as usize
    }

    /// The document node that node `i` stands for.
    #[inline]
    pub fn node(&self, i: usize) -> NodeId {
        self.nodes[i]
    }

    /// The view index of a document node, if the view holds it.
    pub fn index_of(&self, node: NodeId) -> Option<usize> {
        // The view keeps document order, so its node ids are increasing.
        self.nodes.binary_search(&node).ok()
    }

    /// The sub-tree of node `i` as the root of a comparison, if `i` is in the view.
    pub fn subtree(&self, i: usize) -> Option<SubTree<'_>> {
        (i < self.len()).then_some(SubTree {
            tree: self,
            root: i as u32,
        })
    }
}

/// A node of a [`LabeledTree`] taken as the root of a comparison.
///
/// Within a sub-tree the root has no siblings (its `t` is 1 for clustered tree
/// matching) and depths count from it.
#[derive(Clone, Copy, Debug)]
pub struct SubTree<'a> {
    pub(crate) tree: &'a LabeledTree,
    pub(crate) root: u32,
}

impl<'a> SubTree<'a> {
    /// The view the sub-tree belongs to.
    pub fn tree(&self) -> &'a LabeledTree {
        self.tree
    }

    /// The root's index in the view.
    pub fn root(&self) -> usize {
        self.root as usize
    }

    /// The number of nodes in the sub-tree.
    pub fn size(&self) -> usize {
        self.tree.subtree_size(self.root as usize)
    }

    /// The labels of the sub-tree in pre-order.
    pub fn labels(&self) -> &'a [Label] {
        &self.tree.labels[self.root as usize..self.tree.subtree_end(self.root as usize)]
    }
}

impl<'a> From<&'a LabeledTree> for SubTree<'a> {
    fn from(tree: &'a LabeledTree) -> SubTree<'a> {
        SubTree { tree, root: 0 }
    }
}

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
const MIX: u64 = 0xff51_afd7_ed55_8ccd;

/// The structural hash of every sub-tree of `tree`, by view index.
fn shape_hashes(tree: &LabeledTree) -> Vec<u64> {
    let mut h = vec![0u64; tree.len()];
    // Children come after their parent in pre-order, so a reverse sweep has
    // every child's hash ready when its parent needs it; hashing never
    // recurses.
    for x in (0..tree.len()).rev() {
        h[x] = shape_hash_of(tree, x, &h);
    }
    h
}

/// The structural hash of the sub-tree of `x`, from its own label and
/// child count and the hashes `h` of its children.
fn shape_hash_of(tree: &LabeledTree, x: usize, h: &[u64]) -> u64 {
    let mut acc = (u64::from(tree.label(x).index()) ^ SEED).wrapping_mul(MIX);
    acc ^= tree.child_count(x) as u64;
    for &c in tree.children(x) {
        acc = (acc.rotate_left(23) ^ h[c as usize]).wrapping_mul(MIX);
    }
    acc ^ (acc >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::testing::pair;
    use std::collections::HashSet;

    #[test]
    fn a_relabelled_root_keeps_its_cached_hashes_true() {
        let (mut t, renamed) = pair("r(a(b),a(b))", "s(a(b),a(b))");
        let before = t.shapes().to_vec();
        t.relabel_root(renamed.label(0));
        assert_eq!(t.shapes(), renamed.shapes());
        assert_ne!(t.shapes()[0], before[0]);
        assert_eq!(t.shapes()[1..], before[1..]);
    }

    #[test]
    fn a_view_relabelled_by_tags_is_the_view_built_by_tags() {
        let doc = Document::parse_str(
            "<div id=r class='a b'><p class=x>a<b id=y>b</b></p><ul><li></li><li class=x></li></ul></div>",
        );
        let root = doc.all().find(|&n| doc.name(n) == "div").expect("a div");
        for mode in [LabelMode::TagClass, LabelMode::TagId, LabelMode::Tag] {
            let mut labels = Labels::new();
            let view = LabeledTree::build(&doc, root, mode, &mut labels).expect("an element");
            let _ = view.shapes();
            let derived = view.with_tag_labels();
            let built =
                LabeledTree::build(&doc, root, LabelMode::Tag, &mut labels).expect("an element");
            assert_eq!(derived.labels(), built.labels(), "{mode:?}");
            assert_eq!(derived.mode(), LabelMode::Tag);
            assert_eq!(derived.shapes(), built.shapes(), "{mode:?}");
            let children = |t: &LabeledTree| {
                (0..t.len())
                    .map(|i| t.children(i).to_vec())
                    .collect::<Vec<_>>()
            };
            assert_eq!(children(&derived), children(&built));
        }
    }

    #[test]
    fn the_view_keeps_elements_in_preorder() {
        let doc = Document::parse_str(
            "<div id=r>text<p>a<b>b</b></p><!-- c --><ul><li></li><li class=x></li></ul></div>",
        );
        let root = doc.all().find(|&n| doc.name(n) == "div").expect("a div");
        let mut labels = Labels::new();
        let t =
            LabeledTree::build(&doc, root, LabelMode::TagClass, &mut labels).expect("an element");
        let names: Vec<&str> = (0..t.len()).map(|i| labels.text(t.label(i))).collect();
        assert_eq!(names, ["div", "p", "b", "ul", "li", "li.x"]);
        assert_eq!(t.children(0), [1, 3]);
        assert_eq!(t.children(3), [4, 5]);
        assert_eq!(t.subtree_end(1), 3);
        assert_eq!(t.subtree_end(0), 6);
        assert_eq!(t.parent(5), Some(3));
        assert_eq!(t.depth(2), 2);
        assert_eq!(t.siblings(0), 1);
        assert_eq!(t.siblings(4), 2);
        assert_eq!(labels.text(t.tag(5)), "li");
        assert_eq!(t.index_of(t.node(4)), Some(4));
        assert_eq!(doc.name(t.node(2)), "b");
    }

    #[test]
    fn masked_nodes_leave_with_their_subtrees() {
        let doc = Document::parse_str("<div><p><b></b></p><i></i></div>");
        let root = doc.all().find(|&n| doc.name(n) == "div").expect("a div");
        let p = doc.all().find(|&n| doc.name(n) == "p").expect("a p");
        let mask: HashSet<NodeId> = [p].into_iter().collect();
        let mut labels = Labels::new();
        let t = LabeledTree::build_masked(&doc, root, LabelMode::Tag, &mask, &mut labels)
            .expect("an element");
        assert_eq!(t.len(), 2);
        assert_eq!(labels.text(t.label(1)), "i");
        let err = LabeledTree::build_masked(&doc, p, LabelMode::Tag, &mask, &mut labels);
        assert!(matches!(err, Err(SimilarityError::MaskedRoot(_))));
    }

    #[test]
    fn non_elements_are_refused() {
        let doc = Document::parse_str("<p>x</p>");
        let mut labels = Labels::new();
        assert!(matches!(
            LabeledTree::build(&doc, NodeId::ROOT, LabelMode::Tag, &mut labels),
            Err(SimilarityError::NotAnElement(_))
        ));
        assert!(matches!(
            LabeledTree::build(&doc, NodeId(10_000), LabelMode::Tag, &mut labels),
            Err(SimilarityError::OutOfRange(_))
        ));
    }
}
