//! How a template node's children are paired with another tree's, "in any
//! order" as the Demodocus paper says, made deterministic and close to
//! linear.
//!
//! Children are grouped by tag (text is one group). Within a group, a
//! template child pairs first with a child that it would accept: the same
//! stable attributes, the same own text unless that text is unknown to the
//! template (unstable, or under children that come and go), and the same
//! tags among its children unless they come and go. A child whose own text
//! and attributes fit but whose children do not is a second choice, taken
//! only once every template child has had its first: an empty `span` whose
//! class came and went otherwise paired with a sibling `span` holding a
//! `div`, and left the sibling that was its own load's to a template child
//! that rejected it.
//!
//! Each template child is compared under its own masks, never under a mask
//! that another child of the group earned: a class unstable on one `p`
//! says nothing about its siblings, and letting it blur their keys paired a
//! stable `p` with a sibling it would then reject, so a template failed to
//! match a load it had learned. Since children masked in different ways
//! accept different children, the pairs are a matching, not first come
//! first served (`matching.rs`). The children left over pair in document
//! order.
//!
//! Refused: a best assignment over all pairs (quadratic in a group of a
//! thousand list items), and acceptance judged below the children's tags.
//! Template children with many different masks are compared in at most
//! [`MAX_MASK_KINDS`] passes; the rest pair in order.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::html_template::{HtmlTemplate, TemplateNodeId, TemplateView, View, label_of};
use super::matching::match_buckets;

/// The most distinct sets of masks within one group that get a keyed pass
/// of their own; a group beyond it pairs its remaining children in order.
pub const MAX_MASK_KINDS: usize = 32;

/// The pairs of a template node's children with another tree's node's.
pub(super) struct Pairing<N> {
    pub pairs: Vec<(TemplateNodeId, N)>,
    /// Whether every child on both sides has its pair.
    pub complete: bool,
}

/// Pairs the children of template node `t` with those of `other`'s node
/// `d`: grouped by tag; within a group, each template child with a child
/// it would accept, the most specific template children first; the rest
/// in order.
pub(super) fn pair_children<V: View>(
    template: &HtmlTemplate,
    t: TemplateNodeId,
    other: &V,
    d: V::Node,
) -> Pairing<V::Node> {
    let mut groups: BTreeMap<String, (Vec<TemplateNodeId>, Vec<V::Node>)> = BTreeMap::new();
    for &c in &template.node(t).children {
        let label = label_of(template.node(c)).to_owned();
        groups.entry(label).or_default().0.push(c);
    }
    for c in other.kids(d) {
        groups
            .entry(other.label(c).to_owned())
            .or_default()
            .1
            .push(c);
    }
    let mut pairing = Pairing {
        pairs: Vec::new(),
        complete: true,
    };
    for (mine, theirs) in groups.values() {
        if mine.len() != theirs.len() {
            pairing.complete = false;
        }
        pair_group(template, mine, other, theirs, &mut pairing.pairs);
    }
    pairing
}

/// What a template child leaves out of its comparison: the attributes
/// unstable on it, and its own text when the template does not know it.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Masks {
    /// Fewest masks first, so the most specific children pair first.
    count: usize,
    text: bool,
    attrs: Vec<String>,
    /// Whether its children come and go, so that their tags say nothing.
    children: bool,
}

impl Masks {
    fn of(template: &HtmlTemplate, c: TemplateNodeId) -> Masks {
        let node = template.node(c);
        let mut attrs: Vec<String> = node
            .attrs
            .iter()
            .filter(|(_, content)| content.is_unstable())
            .map(|(n, _)| n.clone())
            .collect();
        attrs.sort_unstable();
        let text = node.unstable_children || TemplateView(template).text(c).is_none();
        Masks {
            count: attrs.len() + usize::from(text),
            text,
            attrs,
            children: node.unstable_children,
        }
    }

    /// The key of a node under these masks: its own text unless masked,
    /// then its attributes but the masked ones, sorted, then the tags of
    /// its children when `shape` is given and they are not masked.
    fn key(
        &self,
        text: Option<Cow<'_, str>>,
        attrs: Vec<(&str, &str)>,
        shape: Option<&str>,
    ) -> String {
        let mut key = if self.text {
            String::new()
        } else {
            text.map(Cow::into_owned).unwrap_or_default()
        };
        if let Some(shape) = shape.filter(|_| !self.children) {
            let _ = write!(key, "\u{2}{shape}");
        }
        let mut attrs: Vec<(&str, &str)> = attrs
            .into_iter()
            .filter(|(n, _)| !self.attrs.iter().any(|m| m == n))
            .collect();
        attrs.sort_unstable();
        for (n, v) in attrs {
            let _ = write!(key, "\u{1}{n}={v}");
        }
        key
    }
}

/// Pairs one group of same-tag children into `pairs`.
fn pair_group<V: View>(
    template: &HtmlTemplate,
    mine: &[TemplateNodeId],
    other: &V,
    theirs: &[V::Node],
    pairs: &mut Vec<(TemplateNodeId, V::Node)>,
) {
    let own = TemplateView(template);
    let mut kinds: BTreeMap<Masks, Vec<usize>> = BTreeMap::new();
    for (i, &c) in mine.iter().enumerate() {
        kinds.entry(Masks::of(template, c)).or_default().push(i);
    }
    let mut paired = vec![false; mine.len()];
    let mut taken = vec![false; theirs.len()];
    let my_shapes: Vec<String> = mine.iter().map(|&c| shape(&own, c)).collect();
    let their_shapes: Vec<String> = theirs.iter().map(|&c| shape(other, c)).collect();
    // First every template child looks for a child it accepts down to its
    // children's tags, then for one whose own text and attributes fit.
    for with_shape in [true, false] {
        let left: Vec<usize> = kinds
            .values()
            .take(MAX_MASK_KINDS)
            .flatten()
            .copied()
            .filter(|&i| !paired[i])
            .collect();
        let right: Vec<usize> = (0..theirs.len()).filter(|&j| !taken[j]).collect();
        let mut buckets: Vec<Vec<usize>> = Vec::new();
        let mut wants = vec![None; left.len()];
        let mut at = 0;
        for (masks, members) in kinds.iter().take(MAX_MASK_KINDS) {
            // The children of the page by their key under these masks; a
            // bucket is made only for a key some template child has.
            let mut by_key: HashMap<String, usize> = HashMap::new();
            for &i in members.iter().filter(|&&i| !paired[i]) {
                let shape = with_shape.then_some(my_shapes[i].as_str());
                let key = masks.key(own.text(mine[i]), own.attrs(mine[i]), shape);
                let b = *by_key.entry(key).or_insert_with(|| {
                    buckets.push(Vec::new());
                    buckets.len() - 1
                });
                wants[at] = Some(b);
                at += 1;
            }
            for (r, &j) in right.iter().enumerate() {
                let c = theirs[j];
                let shape = with_shape.then_some(their_shapes[j].as_str());
                let key = masks.key(other.text(c), other.attrs(c), shape);
                if let Some(&b) = by_key.get(&key) {
                    buckets[b].push(r);
                }
            }
        }
        for (l, partner) in match_buckets(&wants, &buckets, right.len())
            .into_iter()
            .enumerate()
        {
            if let Some(r) = partner {
                let (i, j) = (left[l], right[r]);
                paired[i] = true;
                taken[j] = true;
                pairs.push((mine[i], theirs[j]));
            }
        }
    }
    let left = (0..mine.len()).filter(|&i| !paired[i]).map(|i| mine[i]);
    let rest = (0..theirs.len()).filter(|&j| !taken[j]).map(|j| theirs[j]);
    pairs.extend(left.zip(rest));
}

/// The tags of a node's children, sorted: what a template child with stable
/// children needs the same of its partner.
fn shape<V: View>(view: &V, node: V::Node) -> String {
    let mut labels: Vec<&str> = view.kids(node).into_iter().map(|k| view.label(k)).collect();
    labels.sort_unstable();
    labels.join("\u{1}")
}
