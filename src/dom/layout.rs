//! Lays a tree built in creation order out in document order, in place.
//!
//! The sink (`sink.rs`) leaves nodes where they were created, linked as
//! the tree builder last left them. A [`Document`] needs ids in document
//! (pre-order) order, so that a sub-tree is a contiguous range. This module
//! numbers the reachable nodes by one walk (writing each new number over the
//! sink's link to the node's first child, which the walk no longer needs),
//! rewrites every link to the new numbers and then moves each node to its
//! number by following the cycles of the permutation, so the only memory it
//! adds is two bits a node. On most pages creation order is document order
//! already and nothing moves.
//!
//! ## What it refuses
//!
//! Nodes the tree builder removed (unreachable from the document node) are
//! dropped. Adjacent texts merge, as the XPath data model has no adjacent
//! text nodes: the later ones are dropped and their text appended to the
//! first. No function here recurses on the depth of the tree.

use super::sink::{Links, Tree};
use super::{Doctype, Document, EncodingSource, NONE, Node, NodeKind};

/// The document of a finished tree.
pub(super) fn into_document(mut tree: Tree, doctype: Option<Doctype>) -> Document {
    write_back_detached(&mut tree);
    let Tree {
        mut nodes,
        links,
        mut attrs,
        mut text,
        names,
        ..
    } = tree;
    let numbering = number(&mut nodes, links, &mut text);
    relink(&mut nodes, &numbering);
    permute(&mut nodes, &numbering);
    nodes.truncate(numbering.kept);
    nodes.shrink_to_fit();
    attrs.shrink_to_fit();
    text.shrink_to_fit();
    Document {
        nodes,
        attrs,
        text,
        names,
        doctype,
        encoding: encoding_rs::UTF_8,
        encoding_source: EncodingSource::Default,
        by_name: std::sync::OnceLock::new(),
        by_attr: std::sync::OnceLock::new(),
        attr_searched: Default::default(),
        by_text: std::sync::OnceLock::new(),
    }
}

/// Writes the texts and attribute lists the sink gathered apart (see
/// `sink.rs`) into the document's buffers, and points their nodes at them.
fn write_back_detached(tree: &mut Tree) {
    for (node, own) in by_node(std::mem::take(&mut tree.detached_text)) {
        let start = tree.text.len() as u32;
        tree.text.push_str(&own);
        tree.nodes[node as usize].data = (start, own.len() as u32);
    }
    for (node, grown) in by_node(std::mem::take(&mut tree.grown_attrs)) {
        let start = tree.attrs.len() as u32;
        tree.attrs.extend_from_slice(&grown.list);
        tree.nodes[node as usize].data = (start, grown.list.len() as u32);
    }
}

/// The entries of a map by node id, in node order, so that the same page
/// always gives the same buffers.
fn by_node<T>(map: std::collections::HashMap<u32, T>) -> Vec<(u32, T)> {
    let mut entries: Vec<(u32, T)> = map.into_iter().collect();
    entries.sort_unstable_by_key(|&(node, _)| node);
    entries
}

/// Where each node goes: `new_id(old)` is its new id (for a text merged
/// into the one before it, that text's new id), and `is_kept` says which
/// nodes stay.
struct Numbering {
    /// The links of the walk, each node's first child replaced by its new id
    /// once the walk has read it: on a page of millions of nodes, a table of
    /// its own would be tens of megabytes more at the peak of parsing.
    links: Vec<Links>,
    kept_bits: Vec<u64>,
    kept: usize,
}

impl Numbering {
    fn is_kept(&self, old: usize) -> bool {
        self.kept_bits[old / 64] & (1 << (old % 64)) != 0
    }

    fn new_id(&self, old: usize) -> u32 {
        self.links[old].first_child
    }
}

/// Numbers the nodes reachable from the document node in pre-order, merges
/// adjacent texts, and writes each kept node's final `end` (in new ids).
fn number(nodes: &mut [Node], links: Vec<Links>, text: &mut String) -> Numbering {
    let mut numbering = Numbering {
        kept_bits: vec![0; nodes.len().div_ceil(64)],
        links,
        kept: 0,
    };
    // Nodes the walk never reaches keep their first child here; only kept
    // nodes' ids are read, and no link of a kept node leads to them.
    // The open ancestors of the node being walked, and the kept text just
    // before it among its siblings, if any.
    let mut open: Vec<u32> = Vec::new();
    let mut last_text: u32 = NONE;
    let mut cur = 0u32;
    loop {
        let i = cur as usize;
        let first_child = numbering.links[i].first_child;
        let is_text = nodes[i].kind == NodeKind::Text;
        if is_text && last_text != NONE {
            merge_text(nodes, text, last_text, cur);
            numbering.links[i].first_child = numbering.new_id(last_text as usize);
        } else {
            numbering.links[i].first_child = numbering.kept as u32;
            numbering.kept_bits[i / 64] |= 1 << (i % 64);
            numbering.kept += 1;
            // A leaf ends right after itself; a parent's end is written
            // when its sub-tree closes.
            nodes[i].end = numbering.kept as u32;
            last_text = if is_text { cur } else { NONE };
        }
        if first_child != NONE {
            open.push(cur);
            // A first child has no sibling before it to merge with.
            last_text = NONE;
            cur = first_child;
            continue;
        }
        // Climb until a node has a next sibling, closing the sub-trees that end.
        let mut climb = cur;
        loop {
            let next = numbering.links[climb as usize].next;
            if next != NONE && !open.is_empty() {
                cur = next;
                break;
            }
            match open.pop() {
                Some(parent) => {
                    nodes[parent as usize].end = numbering.kept as u32;
                    // The parent is not a text, so the next node starts afresh.
                    last_text = NONE;
                    climb = parent;
                }
                None => {
                    cur = NONE;
                    break;
                }
            }
        }
        if cur == NONE {
            return numbering;
        }
    }
}

/// Appends the text of `dropped` to `survivor`, which comes just before it.
fn merge_text(nodes: &mut [Node], text: &mut String, survivor: u32, dropped: u32) {
    let (start, len) = nodes[dropped as usize].data;
    let (s_start, s_len) = nodes[survivor as usize].data;
    if s_start + s_len == start {
        nodes[survivor as usize].data.1 += len;
        return;
    }
    if (s_start + s_len) as usize != text.len() {
        // Move the survivor's text to the end once; the texts merged into it
        // come one after another in the walk, so each then only appends.
        let moved = text.len() as u32;
        text.extend_from_within(s_start as usize..(s_start + s_len) as usize);
        nodes[survivor as usize].data.0 = moved;
    }
    text.extend_from_within(start as usize..(start + len) as usize);
    nodes[survivor as usize].data.1 += len;
}

/// Rewrites every kept node's links to new ids. A link to a merged text
/// becomes a link to the text it merged into.
fn relink(nodes: &mut [Node], numbering: &Numbering) {
    let new = |old: u32| {
        if old == NONE {
            NONE
        } else {
            numbering.new_id(old as usize)
        }
    };
    for (old, node) in nodes.iter_mut().enumerate() {
        if !numbering.is_kept(old) {
            continue;
        }
        node.parent = new(node.parent);
        node.prev_sibling = new(node.prev_sibling);
        node.last_child = new(node.last_child);
    }
}

/// Moves every kept node to its new id, following the permutation's cycles.
/// A cycle ends at a slot whose old node is not kept (its content is not
/// needed) or that was already moved.
fn permute(nodes: &mut [Node], numbering: &Numbering) {
    let mut moved = vec![0u64; nodes.len().div_ceil(64)];
    let is_moved = |moved: &[u64], i: usize| moved[i / 64] & (1 << (i % 64)) != 0;
    for start in 0..nodes.len() {
        if !numbering.is_kept(start)
            || is_moved(&moved, start)
            || numbering.new_id(start) as usize == start
        {
            continue;
        }
        let mut carried = nodes[start];
        let mut from = start;
        loop {
            moved[from / 64] |= 1 << (from % 64);
            let to = numbering.new_id(from) as usize;
            let displaced = std::mem::replace(&mut nodes[to], carried);
            if !numbering.is_kept(to) || is_moved(&moved, to) || numbering.new_id(to) as usize == to
            {
                break;
            }
            carried = displaced;
            from = to;
        }
    }
}
