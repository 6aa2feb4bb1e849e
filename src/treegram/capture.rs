//! Capturing tree-grams from a page on which the wrapper is known good.
//!
//! ## What it refuses
//!
//! A pattern whose XPath fails or gives a value rather than nodes from some
//! parent instance gets no tree-gram, nor does one that matches nothing, or
//! only `html`, `head`, `body` or nodes that cannot be marked (comments,
//! namespace nodes); each comes back as a [`Skipped`] with its reason. At
//! most `instances` instances are kept (at least one), and a field's context
//! stops growing at its parent's instance, below `body`, and before it passes
//! [`MAX_CONTEXT`] elements. It reads no clock and touches no file: the
//! capture time comes in, and the file goes out as a string.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::Header;
use super::Target;
use super::across::{
    PerContext, WithPageTexts, across, held_everywhere, matches_on, page_own_texts,
};
use super::format::{self, Draft};
use crate::dom::{Document, NodeId};
use crate::similarity::Mask;
use crate::wrapper::{Pattern, PatternPath, Wrapper};
use crate::xpath::generate::Selections;
use crate::xpath::{Item, Value};

/// A field's context never grows past this many elements: one more ancestor
/// can jump from a card to the whole page, and a context that large is no
/// longer about the field.
const MAX_CONTEXT: usize = 2_000;

/// What a capture needs besides the wrapper and the page.
#[derive(Clone, Copy)]
pub struct CaptureOptions<'a> {
    /// The page's URL, when known.
    pub url: Option<&'a str>,
    /// The SHA-256 of the page's bytes, in hex.
    pub sha256: &'a str,
    /// The capture time (RFC 3339), passed in because the core reads no clock.
    pub captured: &'a str,
    /// How many instances to keep per pattern (the wrapper's `treegram_instances`).
    pub instances: usize,
    /// The least size, in elements, of a field's context (`treegram_min_context`).
    pub min_context: usize,
    /// Only these patterns; all patterns when `None`.
    pub only: Option<&'a [PatternPath]>,
    /// What is known to be unstable on the page, masked in the file.
    pub unstable: &'a dyn Mask,
    /// The page's elements that lie in the site's template, when one is
    /// known: each tree-gram records whether its targets are among them.
    pub frame: Option<&'a HashSet<NodeId>>,
}

impl CaptureOptions<'static> {
    /// The options a wrapper's settings give, with no URL, hash, time or
    /// mask: what a capture in memory (a test, a benchmark) needs.
    pub fn of(wrapper: &Wrapper) -> CaptureOptions<'static> {
        CaptureOptions {
            url: None,
            sha256: "",
            captured: "",
            instances: wrapper.adapt.treegram_instances,
            min_context: wrapper.adapt.treegram_min_context,
            only: None,
            unstable: &crate::similarity::NoMask,
            frame: None,
        }
    }
}

/// One tree-gram built from the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// The pattern's path of names.
    pub pattern: PatternPath,
    /// Where the file goes, relative to the wrapper's project directory
    /// (see [`treegram_file`]).
    pub file: String,
    /// The file's contents.
    pub html: String,
    /// How many instances it holds.
    pub instances: usize,
}

/// A pattern that got no tree-gram, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The pattern's path of names.
    pub pattern: PatternPath,
    /// Why, in words.
    pub reason: String,
}

/// Where the tree-gram of `pattern` (a path of names) of the wrapper named
/// `wrapper` goes: `treegrams/<wrapper>/<pattern path>.html`, with any
/// character that is unsafe in a file name replaced by `_`.
pub fn treegram_file(wrapper: &str, pattern: &PatternPath) -> String {
    let mut file = treegram_dir(wrapper);
    for name in pattern.names() {
        file.push('/');
        file.push_str(&clean_file_name(name));
    }
    file.push_str(".html");
    file
}

/// The folder of the wrapper named `wrapper`'s tree-grams, relative to its
/// project directory: `treegrams/<wrapper>`. Other files learned about the
/// wrapper's pages sit there too, with a dot in their names, which no
/// pattern's file has (pattern names have no dot).
pub fn treegram_dir(wrapper: &str) -> String {
    format!("treegrams/{}", clean_file_name(wrapper))
}

/// `s` with any character that is unsafe in a file name replaced by `_`.
fn clean_file_name(s: &str) -> String {
    let c: String = s
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if c.is_empty() || c.chars().all(|c| c == '.') {
        "_".to_owned()
    } else {
        c
    }
}

/// Builds the tree-gram of every pattern of `wrapper` that matches on `doc`
/// (or of those `options.only` names), and says which patterns got none.
pub fn capture(
    wrapper: &Wrapper,
    doc: &Document,
    options: &CaptureOptions<'_>,
) -> (Vec<Captured>, Vec<Skipped>) {
    capture_across(wrapper, doc, &[], options)
}

/// Builds the tree-grams on `doc` as [`capture`] does, and records in each
/// what the `others` pages (more pages where the wrapper works) showed of
/// its pattern (`across.rs`): whether it matched on each, how many nodes,
/// the labels that held throughout, only the locators that held on every
/// page, and a field's texts that were its page's own, masked.
pub fn capture_across(
    wrapper: &Wrapper,
    doc: &Document,
    others: &[&Document],
    options: &CaptureOptions<'_>,
) -> (Vec<Captured>, Vec<Skipped>) {
    let _span = tracing::debug_span!("capture", wrapper = %wrapper.name).entered();
    let own_texts = WithPageTexts {
        inner: options.unstable,
        texts: page_own_texts_of_fields(wrapper, doc, others),
    };
    let options = &CaptureOptions {
        unstable: &own_texts,
        ..*options
    };
    // The walk is cheap (each pattern's XPath once per parent instance);
    // capturing a pattern is not (its locator ensemble searches the page),
    // and each pattern's capture reads only the page, so the captures run
    // side by side. The results keep the walk's order. The patterns'
    // searches share what their candidates selected: many candidates
    // (`//td`, the same anchors) recur from pattern to pattern.
    let visits = walk(wrapper, doc, options.only);
    let selections = Arc::new(Selections::new(doc));
    let outcomes: Vec<Option<Result<Captured, Skipped>>> = {
        use rayon::prelude::*;
        visits
            .par_iter()
            .map(|v| {
                v.wanted
                    .then(|| capture_one(wrapper, doc, others, options, &selections, v))
            })
            .collect()
    };
    let mut captured = Vec::new();
    let mut skipped = Vec::new();
    for outcome in outcomes.into_iter().flatten() {
        match outcome {
            Ok(c) => captured.push(c),
            Err(s) => skipped.push(s),
        }
    }
    (captured, skipped)
}

/// A pattern as the capture walk reached it: what it selected from each of
/// its contexts, or why it could not be evaluated.
struct Visit<'w> {
    path: PatternPath,
    pattern: &'w Pattern,
    per_context: PerContext,
    problem: Option<String>,
    /// Whether the capture asked for this pattern (`CaptureOptions::only`).
    wanted: bool,
}

/// Every pattern of `wrapper`, parent first, each evaluated from every
/// instance of its parent on `doc`.
fn walk<'w>(wrapper: &'w Wrapper, doc: &Document, only: Option<&[PatternPath]>) -> Vec<Visit<'w>> {
    let mut visits = Vec::new();
    let mut work: Vec<(PatternPath, &Pattern, Vec<Item>)> = wrapper
        .patterns
        .iter()
        .rev()
        .map(|p| {
            (
                PatternPath::top(p.name.clone()),
                p,
                vec![Item::Node(NodeId::ROOT)],
            )
        })
        .collect();
    while let Some((path, pattern, contexts)) = work.pop() {
        let mut per_context: PerContext = Vec::new();
        let mut problem = None;
        for &context in &contexts {
            match pattern.xpath.evaluate_item(doc, context) {
                Ok(Value::Nodes(items)) => per_context.push((context, items)),
                Ok(_) => problem = Some("its XPath gives a value, not nodes".to_owned()),
                Err(e) => problem = Some(format!("its XPath failed: {e}")),
            }
        }
        if pattern.is_record() {
            let instances: Vec<Item> = per_context
                .iter()
                .flat_map(|(_, items)| items.iter().copied())
                .filter(|i| matches!(i, Item::Node(n) if doc.is_element(*n)))
                .collect();
            for child in pattern.patterns.iter().rev() {
                work.push((path.child(child.name.clone()), child, instances.clone()));
            }
        }
        let wanted = only.is_none_or(|only| only.contains(&path));
        visits.push(Visit {
            path,
            pattern,
            per_context,
            problem,
            wanted,
        });
    }
    visits
}

/// The tree-gram of the pattern `visit` reached, or why it gets none.
fn capture_one(
    wrapper: &Wrapper,
    doc: &Document,
    others: &[&Document],
    options: &CaptureOptions<'_>,
    selections: &Arc<Selections>,
    visit: &Visit<'_>,
) -> Result<Captured, Skipped> {
    let Visit {
        path,
        pattern,
        per_context,
        problem,
        ..
    } = visit;
    let skip = |reason: String| Skipped {
        pattern: path.clone(),
        reason,
    };
    let matched: usize = per_context.iter().map(|(_, items)| items.len()).sum();
    let mut drafts = if pattern.is_record() {
        record_drafts(doc, per_context, options.instances)
    } else {
        field_drafts(doc, per_context, options)
    };
    if let Some(reason) = problem {
        return Err(skip(reason.clone()));
    }
    if drafts.is_empty() {
        return Err(skip(if matched == 0 {
            "it matches nothing on the page".to_owned()
        } else {
            "it matches only the page itself (html, head or body) or nodes that cannot be marked"
                .to_owned()
        }));
    }
    let items = || per_context.iter().flat_map(|(_, items)| items);
    let header = Header {
        wrapper: wrapper.name.clone(),
        pattern: path.to_string(),
        xpath: pattern.xpath.source().to_owned(),
        url: options.url.map(str::to_owned),
        sha256: options.sha256.to_owned(),
        captured: options.captured.to_owned(),
        matched,
        frame: options
            .frame
            .map(|frame| items().all(|item| frame.contains(&item.owner()))),
        hidden: Some(items().all(|item| crate::dom::hidden::is_hidden(doc, item.owner()))),
        neighbours: field_neighbours(doc, pattern.is_record(), &drafts, options),
        locators: super::locators::ensemble_sharing(
            doc,
            pattern.xpath.source(),
            per_context,
            options.unstable,
            Some(selections),
        ),
        across: None,
        copies: items()
            .next()
            .and_then(|item| copies_of(doc, item))
            .filter(|&n| n > 1),
    };
    let header = with_others(wrapper, path, pattern, doc, per_context, others, header);
    // An instance that would not read back as written is left out: it
    // would lose its target or its shape.
    loop {
        let (html, written) = format::write(doc, &header, &drafts, options.unstable);
        match format::misread(&html, doc, &drafts, &written) {
            None => {
                return Ok(Captured {
                    pattern: path.clone(),
                    file: treegram_file(&wrapper.name, path),
                    html,
                    instances: drafts.len(),
                });
            }
            Some(i) => {
                drafts.remove(i);
                if drafts.is_empty() {
                    return Err(skip("its context would not read back from the tree-gram file as it is on the page: the page nests elements as the HTML parser would not rebuild them (misnested or foster-parented markup, or a form directly in a table)".to_owned()));
                }
            }
        }
    }
}

/// `header` with what the `others` pages showed of the pattern at `path`,
/// which selected `per_context` on `doc`: unchanged when there are none.
fn with_others(
    wrapper: &Wrapper,
    path: &PatternPath,
    pattern: &Pattern,
    doc: &Document,
    per_context: &PerContext,
    others: &[&Document],
    mut header: Header,
) -> Header {
    if others.is_empty() {
        return header;
    }
    let on_others: Vec<(&Document, Option<PerContext>)> = others
        .iter()
        .map(|&d| (d, matches_on(wrapper, path, pattern, d)))
        .collect();
    header.across = Some(across(doc, per_context, &on_others));
    header.locators = held_everywhere(std::mem::take(&mut header.locators), &on_others);
    header
}

/// The page's own texts ([`page_own_texts`]) of every top-level field of
/// `wrapper`, judged against the `others` pages.
fn page_own_texts_of_fields(
    wrapper: &Wrapper,
    doc: &Document,
    others: &[&Document],
) -> HashMap<NodeId, Vec<String>> {
    let mut out = HashMap::new();
    if others.is_empty() {
        return out;
    }
    for pattern in wrapper.patterns.iter().filter(|p| !p.is_record()) {
        let path = PatternPath::top(pattern.name.clone());
        let Some(first) = matches_on(wrapper, &path, pattern, doc) else {
            continue;
        };
        let on_others: Vec<(&Document, Option<PerContext>)> = others
            .iter()
            .map(|&d| (d, matches_on(wrapper, &path, pattern, d)))
            .collect();
        out.extend(page_own_texts(doc, &first, &on_others));
    }
    out
}

/// A record's first `k` instances, each its own context.
fn record_drafts(doc: &Document, per_context: &[(Item, Vec<Item>)], k: usize) -> Vec<Draft> {
    per_context
        .iter()
        .flat_map(|(_, items)| items.iter())
        .filter_map(|&item| match item {
            Item::Node(n) if doc.is_element(n) && !is_page_level(doc, n) => Some(n),
            _ => None,
        })
        .take(k.max(1))
        .map(|n| Draft {
            root: n,
            targets: vec![(n, Target::Element)],
            at_instance: false,
        })
        .collect()
}

/// A field's context in each of the first `k` parent instances where it matches.
fn field_drafts(
    doc: &Document,
    per_context: &[(Item, Vec<Item>)],
    options: &CaptureOptions<'_>,
) -> Vec<Draft> {
    let mut drafts = Vec::new();
    for (context, items) in per_context {
        if drafts.len() >= options.instances.max(1) {
            break;
        }
        let marks: Vec<(NodeId, Target)> = items
            .iter()
            .filter_map(|&i| Target::of(doc, i))
            .filter(|(owner, _)| !is_page_level(doc, *owner))
            .collect();
        let Some(&(first, _)) = marks.first() else {
            continue;
        };
        let root = context_root(doc, first, *context, options.min_context);
        let targets: Vec<(NodeId, Target)> = marks
            .into_iter()
            .filter(|(owner, _)| *owner == root || doc.is_ancestor(root, *owner))
            .collect();
        let at_instance = *context == Item::Node(root);
        drafts.push(Draft {
            root,
            targets,
            at_instance,
        });
    }
    drafts
}

/// The ancestor of `owner` (or `owner` itself) whose sub-tree first holds at
/// least `min` elements, without climbing above `context` or to the page level.
pub(crate) fn context_root(doc: &Document, owner: NodeId, context: Item, min: usize) -> NodeId {
    let limit = match context {
        Item::Node(n) if doc.is_element(n) => Some(n),
        _ => None,
    };
    let mut root = owner;
    let mut size = element_count(doc, root);
    while size < min && Some(root) != limit {
        let Some(parent) = doc.parent(root).filter(|&p| doc.is_element(p)) else {
            break;
        };
        if is_page_level(doc, parent) {
            break;
        }
        let parent_size = element_count(doc, parent);
        if parent_size > MAX_CONTEXT {
            break;
        }
        root = parent;
        size = parent_size;
    }
    root
}

/// The texts around a field's first target on the page, when its stored
/// context is the target alone: the tree-gram then holds none of them.
fn field_neighbours(
    doc: &Document,
    record: bool,
    drafts: &[format::Draft],
    options: &CaptureOptions<'_>,
) -> Option<super::Neighbours> {
    let draft = drafts.first()?;
    let &(target, _) = draft.targets.first()?;
    (!record && draft.root == target)
        .then(|| super::neighbours(doc, target, None, options.unstable))
        .flatten()
}

/// The number of elements in the sub-tree of `node`, itself included.
pub(crate) fn element_count(doc: &Document, node: NodeId) -> usize {
    (node.0..doc.subtree_end(node).0)
        .filter(|&n| doc.is_element(NodeId(n)))
        .count()
}

/// Whether `node` is the page itself rather than content in it.
fn is_page_level(doc: &Document, node: NodeId) -> bool {
    matches!(doc.name(node), "html" | "head" | "body")
}

/// How many elements of the page look exactly like the target `item`, itself
/// included (see [`super::Signature`]); `None` for a target without text.
fn copies_of(doc: &Document, item: &Item) -> Option<usize> {
    let (owner, target) = Target::of(doc, *item)?;
    Some(super::Signature::of(doc, owner, &target)?.count(doc))
}
