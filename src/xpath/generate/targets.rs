//! The targets of a generation request: checking them, sorting them into
//! groups that share a final step (`/@name`, `/text()`), and the facts about
//! them that the plans need (owners, labels before text, the final step).
//!
//! It refuses a context that is not an element or the document of the page,
//! the document as a context when there are several instances, two instances
//! with the same context, a request with no target at all, a namespace node
//! as a target (`GenerateError::Unsupported`), and a target that is not in
//! the document or lies outside its context. Repeated targets are merged, not
//! refused; when a text target has no stable short label right before it, or
//! no one final step selects exactly the targets, it gives `None` and leaves
//! the choice of another plan to its caller.

use super::super::strings::normalize_space;
use super::render::literal;
use super::{GenerateError, Instance};
use crate::dom::{Document, NodeId, NodeKind};
use crate::xpath::Item;

/// Targets per instance: each context with its targets, sorted.
pub(super) type Targets = Vec<(NodeId, Vec<Item>)>;

/// The kinds of target that share one final step.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Group {
    Element,
    Attr(String),
    Text,
    Comment,
}

pub(super) fn group_of(doc: &Document, item: Item) -> Group {
    match item {
        Item::Attr { index, .. } => {
            Group::Attr(doc.attr_name(doc.attr_at(index as usize)).to_owned())
        }
        Item::Node(n) => match doc.kind(n) {
            NodeKind::Text => Group::Text,
            NodeKind::Comment => Group::Comment,
            _ => Group::Element,
        },
        // Refused by `check_instances`.
        Item::Namespace(_) => Group::Element,
    }
}

/// The final step that selects an attribute of the owner: `/@name`, or a
/// name test through `name()` for a name that is not an XPath name.
pub(super) fn attribute_suffix(name: &str) -> String {
    if super::heuristics::is_ncname(name) {
        format!("/@{name}")
    } else {
        format!("/@*[name()={}]", literal(name))
    }
}

/// For text targets that each come right after a label element, the label
/// elements per instance; `None` when some target has no such label.
pub(super) fn label_owners(
    doc: &Document,
    targets: &Targets,
    unstable: &super::UnstableParts,
) -> Option<Vec<(NodeId, Vec<NodeId>)>> {
    let mut out = Vec::with_capacity(targets.len());
    for (ctx, items) in targets {
        let mut labels = Vec::with_capacity(items.len());
        for &item in items {
            let prev = doc.prev_sibling(item.node()?)?;
            if !doc.is_element(prev) || !doc.is_ancestor(*ctx, prev) {
                return None;
            }
            super::heuristics::short_label(doc, prev)?;
            if unstable.in_text_of(doc, prev) {
                return None;
            }
            labels.push(prev);
        }
        labels.sort_unstable();
        labels.dedup();
        out.push((*ctx, labels));
    }
    Some(out)
}

/// The element that holds a target: the element itself, an attribute's
/// element, a text or comment node's parent.
pub(super) fn owner(doc: &Document, item: Item) -> NodeId {
    match item {
        Item::Node(n) if doc.kind(n) == NodeKind::Text || doc.kind(n) == NodeKind::Comment => {
            doc.parent(n).unwrap_or(n)
        }
        other => other.owner(),
    }
}

/// The final step that takes the owners to exactly the text (or comment)
/// targets, if one step does it for all of them: every child of that kind,
/// every one that is not blank, or the k-th of each owner. Returns the step
/// and its cost.
pub(super) fn child_suffix(
    doc: &Document,
    kind: NodeKind,
    test: &str,
    targets: &Targets,
    owners: &[(NodeId, Vec<NodeId>)],
) -> Option<(String, u32)> {
    let children = |keep: &dyn Fn(NodeId) -> bool| {
        owners.iter().zip(targets).all(|((_, os), (_, items))| {
            let got: Vec<Item> = os
                .iter()
                .flat_map(|&o| doc.children(o))
                .filter(|&c| doc.kind(c) == kind && keep(c))
                .map(Item::Node)
                .collect();
            got == *items
        })
    };
    if children(&|_| true) {
        return Some((format!("/{test}"), 0));
    }
    if children(&|c| !normalize_space(doc.text(c)).is_empty()) {
        return Some((format!("/{test}[normalize-space()]"), 0));
    }
    let mut siblings = super::siblings::Siblings::new(doc);
    let among = super::siblings::Among::kind(kind);
    let mut k = None;
    for &item in targets.iter().flat_map(|(_, items)| items) {
        let (i, _) = siblings.position(item.node()?, &among)?;
        match k {
            None => k = Some(i),
            Some(prev) if prev == i => {}
            Some(_) => return None,
        }
    }
    // With one k for all, each owner holds exactly one target.
    let items: usize = targets.iter().map(|(_, t)| t.len()).sum();
    let owner_count: usize = owners.iter().map(|(_, o)| o.len()).sum();
    (items == owner_count).then(|| {
        (
            format!("/{test}[{}]", k.unwrap_or(1)),
            super::heuristics::COST_POSITION,
        )
    })
}

/// Validates the instances and returns each context with its targets,
/// sorted and without repeats.
pub(super) fn check_instances(
    doc: &Document,
    instances: &[Instance],
) -> Result<Targets, GenerateError> {
    let mut out: Targets = Vec::with_capacity(instances.len());
    for inst in instances {
        let ctx = match inst.context {
            Item::Node(n)
                if n.index() < doc.len()
                    && matches!(doc.kind(n), NodeKind::Element | NodeKind::Document) =>
            {
                n
            }
            other => return Err(GenerateError::BadContext(other)),
        };
        if instances.len() > 1 && doc.kind(ctx) == NodeKind::Document {
            return Err(GenerateError::BadContext(inst.context));
        }
        if out.iter().any(|(c, _)| *c == ctx) {
            return Err(GenerateError::DuplicateContext(inst.context));
        }
        out.push((ctx, check_targets(doc, ctx, &inst.targets)?));
    }
    if out.iter().all(|(_, t)| t.is_empty()) {
        return Err(GenerateError::NoTargets);
    }
    Ok(out)
}

/// Validates the targets of one context and returns them sorted and without
/// repeats.
pub(super) fn check_targets(
    doc: &Document,
    ctx: NodeId,
    targets: &[Item],
) -> Result<Vec<Item>, GenerateError> {
    let inside = |n: NodeId| n == ctx || doc.is_ancestor(ctx, n);
    for &t in targets {
        match t {
            Item::Namespace(_) => return Err(GenerateError::Unsupported(t)),
            Item::Node(n) => {
                if n.index() >= doc.len() {
                    return Err(GenerateError::NotInDocument(t));
                }
                if !inside(n) {
                    return Err(GenerateError::OutsideContext(t));
                }
            }
            Item::Attr { element, index } => {
                if element.index() >= doc.len()
                    || !doc.is_element(element)
                    || !doc.attr_range(element).contains(&(index as usize))
                {
                    return Err(GenerateError::NotInDocument(t));
                }
                if !inside(element) {
                    return Err(GenerateError::OutsideContext(t));
                }
            }
        }
    }
    let mut sorted = targets.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    Ok(sorted)
}
