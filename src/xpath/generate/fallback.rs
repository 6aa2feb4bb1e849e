//! Positional paths, for when no stable test tells the targets apart.
//!
//! A positional path names every step from the context down to a node, with
//! its position among same-name siblings wherever that position is needed:
//! `./div[2]/ul/li[3]`. It selects its node by construction, which is why it
//! is the last resort that always exists. Before giving up on structure, the
//! fallback tries the shortest tail of such a path that is still exact
//! (`.//ul/li[3]`), and for record sets a shared structure with the differing
//! positions left out (`./div[2]/ul/li`).
//!
//! ## What it refuses
//!
//! With several contexts, only a structure every owner shares (the same names
//! at the same depths) can serve: there is no union across instances. A
//! shorter tail is kept only when evaluation shows it exact, within the
//! budget of evaluations given, and is searched owner by owner for at most
//! [`MAX_TAIL_SEARCHES`] owners; past either limit an owner gets its full
//! path. A name that is not an NCName is written `*`.

use super::heuristics::is_ncname;
use super::siblings::{Among, Siblings};
use crate::dom::{Document, NodeId, NodeKind};
use crate::xpath::{Item, XPath};

/// The most owners for which a shorter positional tail is searched one by
/// one; above it, full paths are used directly.
const MAX_TAIL_SEARCHES: usize = 16;

/// One step of a positional path.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PStep {
    /// The element name, or `None` for `*` when it cannot be written.
    name: Option<String>,
    /// The position among the siblings the name test matches.
    pos: usize,
    /// How many siblings the name test matches.
    count: usize,
}

impl PStep {
    fn write(&self, out: &mut String, with_position: bool) {
        out.push_str(self.name.as_deref().unwrap_or("*"));
        if with_position {
            out.push('[');
            out.push_str(&self.pos.to_string());
            out.push(']');
        }
    }
}

/// The steps from `context` (exclusive) down to `node` (inclusive).
fn steps(doc: &Document, siblings: &mut Siblings<'_>, context: NodeId, node: NodeId) -> Vec<PStep> {
    let mut out = Vec::new();
    let mut cur = node;
    while cur != context {
        let Some(parent) = doc.parent(cur) else { break };
        let raw = doc.name(cur);
        let name = is_ncname(raw).then(|| raw.to_owned());
        let (pos, count) = siblings
            .position(cur, &Among::name(name.as_deref()))
            .unwrap_or((1, 1));
        out.push(PStep { name, pos, count });
        cur = parent;
    }
    out.reverse();
    out
}

fn prefix(document_context: bool, child: bool) -> &'static str {
    match (document_context, child) {
        (true, true) => "/",
        (true, false) => "//",
        (false, true) => "./",
        (false, false) => ".//",
    }
}

/// Writes the tail of `steps` from index `from`, with the positions `keep` says.
fn write_tail(steps: &[PStep], keep: &[bool], from: usize, document_context: bool) -> String {
    let mut out = String::from(prefix(document_context, from == 0));
    for (i, s) in steps.iter().enumerate().skip(from) {
        if i > from {
            out.push('/');
        }
        s.write(&mut out, keep[i]);
    }
    out
}

/// The full positional path of an element owner: exact by construction.
pub(super) fn full_path(
    doc: &Document,
    siblings: &mut Siblings<'_>,
    context: NodeId,
    document_context: bool,
    node: NodeId,
) -> String {
    if node == context {
        return ".".to_owned();
    }
    let st = steps(doc, siblings, context, node);
    let keep: Vec<bool> = st.iter().map(|s| s.count > 1).collect();
    write_tail(&st, &keep, 0, document_context)
}

/// A positional path selecting exactly the owners from each context (each
/// instance pairs a context with sorted proper descendants), spending at
/// most `budget` evaluations on finding a short one. Returns the path, if
/// one was found, and the evaluations spent. With several contexts only a
/// structure shared by all owners can work; with one, a union of one path
/// per owner always does.
pub(super) fn owner_path(
    doc: &Document,
    document_context: bool,
    instances: &[(NodeId, Vec<NodeId>)],
    budget: usize,
) -> (Option<String>, usize) {
    let mut spent = 0;
    let mut siblings = Siblings::new(doc);
    let want: Vec<(NodeId, Vec<Item>)> = instances
        .iter()
        .map(|(c, os)| (*c, os.iter().map(|&n| Item::Node(n)).collect()))
        .collect();
    let all: Vec<Vec<PStep>> = instances
        .iter()
        .flat_map(|(c, os)| os.iter().map(move |&o| (*c, o)))
        .map(|(c, o)| steps(doc, &mut siblings, c, o))
        .collect();
    let exact = |xpath: &str, want: &[(NodeId, Vec<Item>)], spent: &mut usize| {
        *spent += 1;
        XPath::compile(xpath).ok().is_some_and(|x| {
            want.iter().all(|(c, w)| {
                x.select_item(doc, Item::Node(*c))
                    .is_ok_and(|got| got == *w)
            })
        })
    };
    // A shared structure: the same names at the same depths, keeping only the
    // positions all owners agree on.
    if let Some(first) = all.first()
        && all
            .iter()
            .all(|s| s.len() == first.len() && s.iter().zip(first).all(|(a, b)| a.name == b.name))
    {
        let keep: Vec<bool> = (0..first.len())
            .map(|i| {
                all.iter().all(|s| s[i].pos == first[i].pos) && all.iter().any(|s| s[i].count > 1)
            })
            .collect();
        for from in (0..first.len()).rev() {
            if spent >= budget {
                break;
            }
            let xpath = write_tail(first, &keep, from, document_context);
            if exact(&xpath, &want, &mut spent) {
                return (Some(xpath), spent);
            }
        }
    }
    let [(context, owners)] = instances else {
        return (None, spent);
    };
    // One path per owner, each as short as the budget allows.
    let mut parts = Vec::with_capacity(owners.len());
    for (k, st) in all.iter().enumerate() {
        let keep: Vec<bool> = st.iter().map(|s| s.count > 1).collect();
        let mut chosen = None;
        if owners.len() <= MAX_TAIL_SEARCHES {
            let one = [(*context, vec![Item::Node(owners[k])])];
            for from in (1..st.len()).rev() {
                if spent >= budget {
                    break;
                }
                let xpath = write_tail(st, &keep, from, document_context);
                if exact(&xpath, &one, &mut spent) {
                    chosen = Some(xpath);
                    break;
                }
            }
        }
        parts.push(chosen.unwrap_or_else(|| write_tail(st, &keep, 0, document_context)));
    }
    (Some(parts.join(" | ")), spent)
}

/// The positional path of any target item: its owner's full path plus
/// `/@name`, `/text()[k]` or `/comment()[k]`.
pub(super) fn item_path(
    doc: &Document,
    siblings: &mut Siblings<'_>,
    context: NodeId,
    document_context: bool,
    item: Item,
) -> String {
    let path = |node: NodeId, siblings: &mut Siblings<'_>| {
        full_path(doc, siblings, context, document_context, node)
    };
    match item {
        Item::Node(n) if doc.is_element(n) || n == context => path(n, siblings),
        Item::Node(n) => {
            let parent = doc.parent(n).unwrap_or(context);
            let kind = doc.kind(n);
            let k = siblings
                .position(n, &Among::kind(kind))
                .map_or(1, |(k, _)| k);
            let test = match kind {
                NodeKind::Comment => "comment()",
                _ => "text()",
            };
            format!("{}/{test}[{k}]", path(parent, siblings))
        }
        Item::Attr { element, index } => {
            let name = doc.attr_name(doc.attr_at(index as usize));
            format!(
                "{}{}",
                path(element, siblings),
                super::targets::attribute_suffix(name)
            )
        }
        Item::Namespace(e) => format!("{}/namespace::xml", path(e, siblings)),
    }
}
