//! Format-preserving rewrites of a wrapper file: a new XPath for one pattern,
//! or the tree-gram file it is healed from.
//!
//! Healing in `auto` mode (and approving a proposal) changes a pattern's XPath
//! in the author's own file, and taking a snapshot records the pattern's
//! tree-gram there. Re-serialising the YAML would lose comments, key order,
//! quoting and layout, so this module edits the text in place: it replaces the
//! bytes of the one scalar (and updates the pattern's `history`), or inserts
//! the one new entry, leaving every other byte as it was. The result is read
//! back and compared with what the edit should mean before it is returned.
//!
//! A history holds each earlier XPath once, oldest first, and at most
//! `adapt.history_limit` of them. Pages that flip between two layouts would
//! otherwise grow it by one XPath per page without end: an XPath that becomes
//! current again leaves the history instead, and the XPath it replaces takes
//! the last place (moving there if it was already listed), so a flip back
//! and forth leaves a history of one entry that changes, not a longer one.
//!
//! It refuses to edit an XPath, history or tree-gram that comes from an alias
//! or merge key (changing the anchor would change other patterns too), a
//! pattern that is itself an alias, a `history` that is not a list of
//! scalars or holds an alias, and any pattern path that names no pattern.

use serde_json::{Map, Value};

use super::builder;
use super::diagnostic::Diagnostic;
use super::model::AdaptSettings;
use super::node::{Entry, Node, push_segment};
use super::yaml;

/// Why a rewrite was refused. The original text is never changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RewriteError {
    /// The wrapper text is not readable YAML.
    #[error("{0}")]
    Yaml(Box<Diagnostic>),
    /// The pattern path is empty.
    #[error("no pattern path given")]
    EmptyPath,
    /// No pattern has this path of names.
    #[error("no pattern {path:?} in the wrapper")]
    NotFound {
        /// The path, joined with `/`.
        path: String,
    },
    /// The pattern is written in a way that cannot be edited in place.
    #[error("cannot rewrite pattern {path:?} in place: {reason}")]
    NotEditable {
        /// The path, joined with `/`.
        path: String,
        /// What stands in the way.
        reason: String,
    },
    /// The edited text did not read back as the intended change; this is a
    /// defect in the rewriter, reported instead of writing a damaged file.
    #[error("rewriting pattern {path:?} would change more than was asked: {reason}")]
    Verification {
        /// The path, joined with `/`.
        path: String,
        /// What came out differently.
        reason: String,
    },
}

impl RewriteError {
    /// The pattern it is about, its names joined with `/`, when it names one.
    pub fn pattern(&self) -> Option<&str> {
        match self {
            RewriteError::NotFound { path }
            | RewriteError::NotEditable { path, .. }
            | RewriteError::Verification { path, .. } => Some(path),
            RewriteError::Yaml(_) | RewriteError::EmptyPath => None,
        }
    }
}

/// Replaces the XPath of the pattern at `pattern_path` (names from the top,
/// such as `["book", "price"]`) with `new_xpath`, and records the old XPath
/// in that pattern's `history`, creating the list if needed.
///
/// The history keeps each XPath once and at most `adapt.history_limit` of
/// them (10 unless the text sets it), as the module documentation explains:
/// `new_xpath` leaves it, the old XPath goes last, and the oldest are dropped
/// beyond the limit.
pub fn replace_xpath(
    text: &str,
    pattern_path: &[&str],
    new_xpath: &str,
) -> Result<String, RewriteError> {
    rewrite_xpath(text, pattern_path, new_xpath, true)
}

/// Sets the XPath of the pattern at `pattern_path` back to `earlier_xpath`,
/// as a revert does: the XPath taken out was wrong, so it does not go to the
/// pattern's `history` (which is the fallback chain) and leaves it if it
/// was listed there; `earlier_xpath` leaves it too, being current again.
pub fn take_back_xpath(
    text: &str,
    pattern_path: &[&str],
    earlier_xpath: &str,
) -> Result<String, RewriteError> {
    rewrite_xpath(text, pattern_path, earlier_xpath, false)
}

/// [`replace_xpath`] when `keep_old`, else [`take_back_xpath`].
fn rewrite_xpath(
    text: &str,
    pattern_path: &[&str],
    new_xpath: &str,
    keep_old: bool,
) -> Result<String, RewriteError> {
    let path = pattern_path.join("/");
    let not_editable = |reason: &str| RewriteError::NotEditable {
        path: path.clone(),
        reason: reason.to_owned(),
    };
    if pattern_path.is_empty() {
        return Err(RewriteError::EmptyPath);
    }
    let root = yaml::parse(text, "wrapper").map_err(|d| RewriteError::Yaml(Box::new(d)))?;
    let (pattern, pointer) =
        find(&root, pattern_path).ok_or_else(|| RewriteError::NotFound { path: path.clone() })?;

    // A pattern written with `css:` is written back with `xpath:`: the
    // selector's translation is the XPath that goes to history, and the
    // selector itself stays beside the new XPath as a comment.
    let (entry, css) = match (pattern.entry("xpath"), pattern.entry("css")) {
        (Some(entry), _) => (entry, false),
        (None, Some(entry)) => (entry, true),
        (None, None) => return Err(not_editable("it has no xpath")),
    };
    let key = if css { "css" } else { "xpath" };
    let written = entry
        .value
        .as_str()
        .ok_or_else(|| not_editable(&format!("its {key} is not text")))?;
    let old_xpath = match css {
        true => crate::css::to_xpath(written)
            .map_err(|e| not_editable(&format!("its css does not translate: {e}")))?,
        false => written.to_owned(),
    };
    let old_xpath = old_xpath.as_str();
    let mut span = scalar_span(text, entry, key).map_err(|reason| not_editable(&reason))?;
    let flow = is_flow(text, pattern);
    // The limit is read as the loader reads it; a value the schema would
    // refuse (below 1) still keeps the XPath just replaced.
    let limit = root
        .get("adapt")
        .map_or_else(AdaptSettings::default, builder::adapt)
        .history_limit
        .max(1);
    let change = Change {
        old: old_xpath,
        new: new_xpath,
        keep_old,
        limit,
        style: span.style,
        flow,
    };

    let (history_edits, history) =
        history_edits(text, pattern, span.end, &change).map_err(|reason| not_editable(&reason))?;
    let mut replacement = render(new_xpath, span.style, flow);
    if css {
        span.start = entry
            .key_at
            .offset
            .ok_or_else(|| not_editable("the position of its css is unknown"))?;
        replacement = format!("xpath: {replacement}");
        if !flow {
            let selector = written.replace(['\n', '\r'], " ");
            replacement.push_str(&format!("  # was css: {selector}"));
        }
    }
    let mut edits = vec![(span.start, span.end, replacement)];
    edits.extend(history_edits);
    let out = apply(text, edits).map_err(not_editable)?;
    verify(&root, &out, &pointer, |pattern| {
        pattern.remove("css");
        pattern.insert("xpath".to_owned(), Value::from(new_xpath));
        if let Some(history) = history {
            pattern.insert(
                "history".to_owned(),
                Value::Array(history.into_iter().map(Value::from).collect()),
            );
        }
        Ok(())
    })
    .map_err(|reason| RewriteError::Verification {
        path: path.clone(),
        reason,
    })?;
    Ok(out)
}

/// Sets the `treegram` key of the pattern at `pattern_path` to `file`: replaces the existing
/// scalar, or inserts `treegram: <file>` on a new line right after the pattern's `xpath` entry
/// (block style, same indentation as the `xpath` key), or `, treegram: <file>` inside a flow
/// mapping `{...}`. Returns the text unchanged if the value is already `file`.
pub fn set_treegram(text: &str, pattern_path: &[&str], file: &str) -> Result<String, RewriteError> {
    set_treegrams(text, &[(pattern_path, file)])
}

/// Sets the `treegram` key of every pattern of `changes` (a path of names
/// and its file) as [`set_treegram`] does, parsing and verifying the text
/// once for all of them: a snapshot of thousands of patterns names its
/// tree-grams in time linear in the wrapper. The first pattern that cannot
/// take its key fails the whole rewrite.
pub fn set_treegrams(text: &str, changes: &[(&[&str], &str)]) -> Result<String, RewriteError> {
    if changes.iter().any(|(path, _)| path.is_empty()) {
        return Err(RewriteError::EmptyPath);
    }
    let root = yaml::parse(text, "wrapper").map_err(|d| RewriteError::Yaml(Box::new(d)))?;
    let mut edits = Vec::new();
    let mut pointers = Vec::new();
    for &(pattern_path, file) in changes {
        if let Some((edit, pointer)) = treegram_edit(text, &root, pattern_path, file)? {
            edits.push(edit);
            pointers.push((pattern_path, pointer, file));
        }
    }
    if edits.is_empty() {
        return Ok(text.to_owned());
    }
    let first = pointers[0].0.join("/");
    let out = apply(text, edits).map_err(|reason| RewriteError::NotEditable {
        path: first.clone(),
        reason: reason.to_owned(),
    })?;
    verify_all(&root, &out, &pointers).map_err(|(path, reason)| RewriteError::Verification {
        path: path.join("/"),
        reason,
    })?;
    Ok(out)
}

/// The edit that sets the `treegram` key of the pattern at `pattern_path`
/// of `root` (parsed from `text`) to `file`, with the pattern's JSON
/// pointer; `None` when it is set to `file` already.
fn treegram_edit(
    text: &str,
    root: &Node,
    pattern_path: &[&str],
    file: &str,
) -> Result<Option<(Edit, String)>, RewriteError> {
    let path = pattern_path.join("/");
    let not_editable = |reason: &str| RewriteError::NotEditable {
        path: path.clone(),
        reason: reason.to_owned(),
    };
    let (pattern, pointer) =
        find(root, pattern_path).ok_or_else(|| RewriteError::NotFound { path: path.clone() })?;
    let existing = pattern.entry("treegram");
    if existing.and_then(|e| e.value.as_str()) == Some(file) {
        return Ok(None);
    }
    if pattern.at != pattern.used {
        return Err(not_editable("the pattern comes from an alias"));
    }
    let flow = is_flow(text, pattern);
    let edit = if let Some(treegram) = existing {
        if treegram.value.as_str().is_none() {
            return Err(not_editable("its treegram is not text"));
        }
        let span =
            scalar_span(text, treegram, "treegram").map_err(|reason| not_editable(&reason))?;
        // A file name never needs a block scalar.
        let style = match span.style {
            Style::Block => Style::Plain,
            style => style,
        };
        (span.start, span.end, render(file, style, flow))
    } else {
        let (xpath, key) = match (pattern.entry("xpath"), pattern.entry("css")) {
            (Some(entry), _) => (entry, "xpath"),
            (None, Some(entry)) => (entry, "css"),
            (None, None) => return Err(not_editable("it has no xpath")),
        };
        let span = scalar_span(text, xpath, key).map_err(|reason| not_editable(&reason))?;
        let value = render(file, Style::Plain, flow);
        if flow {
            (span.end, span.end, format!(", treegram: {value}"))
        } else {
            let indent = " ".repeat(xpath.key_at.column.saturating_sub(1));
            let (mut at, lead) = after_line(text, span.end);
            if span.style == Style::Block && keeps_trailing_lines(text, span.start) {
                // The blank lines after a `|+` or `>+` block are part of its value.
                at = after_blank_lines(text, at);
            }
            (at, at, format!("{lead}{indent}treegram: {value}\n"))
        }
    };
    Ok(Some((edit, pointer)))
}

/// Checks that `edited` reads back as `root` with each pattern of
/// `changes` (its path, JSON pointer and file) given its `treegram` and
/// nothing else changed; names the first pattern that does not.
fn verify_all<'a>(
    root: &Node,
    edited: &str,
    changes: &[(&'a [&'a str], String, &str)],
) -> Result<(), (&'a [&'a str], String)> {
    let first = changes.first().map_or(&[][..], |c| c.0);
    let reread = yaml::parse(edited, "wrapper").map_err(|d| (first, d.message))?;
    let mut expected = root.to_json();
    for (path, pointer, file) in changes {
        let pattern = expected
            .pointer_mut(pointer)
            .and_then(Value::as_object_mut)
            .ok_or((*path, "the pattern vanished".to_owned()))?;
        pattern.insert("treegram".to_owned(), Value::from(*file));
    }
    let found = reread.to_json();
    if found == expected {
        return Ok(());
    }
    for (path, pointer, _) in changes {
        let (want, got) = (expected.pointer(pointer), found.pointer(pointer));
        if want != got {
            return Err((
                *path,
                format!(
                    "expected {}, read back {}",
                    want.unwrap_or(&Value::Null),
                    got.unwrap_or(&Value::Null)
                ),
            ));
        }
    }
    Err((
        first,
        "it would change other patterns too, through an alias or merge key".to_owned(),
    ))
}

/// Whether the pattern is written as a flow mapping, `{...}`.
fn is_flow(text: &str, pattern: &Node) -> bool {
    text.as_bytes().get(pattern.at.offset.unwrap_or(0)) == Some(&b'{')
}

/// The bytes of a scalar entry's value that a new one-line value replaces.
struct Span {
    /// Where the replacement starts: the value, or a block scalar's indicator.
    start: usize,
    /// Where the value ends; a block scalar's line break stays after it.
    end: usize,
    /// How the value is written.
    style: Style,
}

/// Where the value of `entry` (named `key` in messages) is written, refusing
/// one that comes from an alias or merge key or whose position is unknown.
fn scalar_span(text: &str, entry: &Entry, key: &str) -> Result<Span, String> {
    let value = &entry.value;
    if value.at != value.used {
        return Err(format!("its {key} comes from an alias or merge key"));
    }
    let (Some(value_start), Some(value_len)) = (value.at.offset, value.at.len) else {
        return Err(format!("the position of its {key} is unknown"));
    };
    let key_start = entry.key_at.offset.unwrap_or(0);
    let style = Style::of(text, key_start, value_start);
    if style != Style::Block {
        return Ok(Span {
            start: value_start,
            end: value_start + value_len,
            style,
        });
    }
    // A block scalar is replaced from its indicator, so that the new value is
    // a one-line scalar.
    let start = block_indicator(text, key_start, value_start)
        .ok_or_else(|| "its block scalar has no indicator".to_owned())?;
    Ok(Span {
        start,
        end: block_end(text, value_start, value.at.column),
        style,
    })
}

/// Applies `(start, end, replacement)` edits to `text`.
///
/// Edits are applied from the end of the text, so each one's offsets still
/// hold when it is applied; that needs them inside the text, on character
/// boundaries, and apart.
fn apply(text: &str, mut edits: Vec<(usize, usize, String)>) -> Result<String, &'static str> {
    edits.sort_by_key(|&(start, _, _)| std::cmp::Reverse(start));
    let mut limit = text.len();
    for &(start, end, _) in &edits {
        if start > end
            || end > limit
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            return Err("the reader reported overlapping or impossible positions");
        }
        limit = start;
    }
    let mut out = text.to_owned();
    for (start, end, replacement) in edits {
        out.replace_range(start..end, &replacement);
    }
    Ok(out)
}

/// The pattern at a path of names, and its JSON pointer.
fn find<'a>(root: &'a Node, names: &[&str]) -> Option<(&'a Node, String)> {
    let mut node = root;
    let mut pointer = String::new();
    for name in names {
        let list = node.get("patterns")?;
        let (index, pattern) = list
            .items()
            .iter()
            .enumerate()
            .find(|(_, p)| p.get("name").and_then(Node::as_str) == Some(name))?;
        push_segment(&mut pointer, "patterns");
        push_segment(&mut pointer, &index.to_string());
        node = pattern;
    }
    Some((node, pointer))
}

/// One XPath rewrite, as the history sees it.
struct Change<'a> {
    /// The XPath being replaced.
    old: &'a str,
    /// The XPath that becomes current.
    new: &'a str,
    /// Whether the XPath being replaced goes to the history (a heal or an
    /// approval) or is dropped from it (a revert).
    keep_old: bool,
    /// The most entries the history may keep (at least 1).
    limit: usize,
    /// How the XPath was written, which a new history entry follows.
    style: Style,
    /// Whether the pattern is a flow mapping.
    flow: bool,
}

/// Which entries of a history stay, and whether the old XPath is added.
#[derive(Debug, PartialEq, Eq)]
struct HistoryPlan {
    /// For each existing entry, whether it stays where it is.
    keep: Vec<bool>,
    /// Whether the old XPath is added at the end.
    append: bool,
}

/// What the history `items` (oldest first) becomes when `change.old` is
/// replaced by `change.new`: the distinct XPaths of `items` followed by the
/// old one, each at its latest place, without the new one, and only the
/// newest `change.limit` of them.
///
/// An entry already last that equals the old XPath stays rather than being
/// removed and added again, so that its bytes are left alone.
fn plan_history(items: &[&str], change: &Change) -> HistoryPlan {
    let mut seen = std::collections::HashSet::new();
    if change.old != change.new {
        // The old XPath is the newest entry whatever else the list holds;
        // taken back, it is in no place at all.
        seen.insert(change.old);
    }
    let mut keep = vec![false; items.len()];
    // Walking from the newest entry keeps each XPath at its latest place.
    for (i, item) in items.iter().enumerate().rev() {
        keep[i] = *item != change.new && seen.insert(item);
    }
    let mut append = change.keep_old && change.old != change.new;
    if append && let Some(last) = items.iter().rposition(|item| *item == change.old) {
        // Nothing newer than this entry stays (the walk skipped them as
        // duplicates or as the new XPath), so it is already in the last place.
        if !keep[last + 1..].contains(&true) {
            keep[last] = true;
            append = false;
        }
    }
    let mut over = (keep.iter().filter(|&&k| k).count() + usize::from(append))
        .saturating_sub(change.limit.max(1));
    for k in keep.iter_mut().filter(|k| **k) {
        if over == 0 {
            break;
        }
        *k = false;
        over -= 1;
    }
    HistoryPlan { keep, append }
}

/// The edits that make the pattern's history what [`plan_history`] says,
/// and that history (`None` when the pattern has none and still needs none).
///
/// `after` is where the XPath's scalar ends; a new `history` goes after it.
/// Removed entries take their own lines (block lists) or their commas (flow
/// lists) with them; comments on lines of their own stay.
fn history_edits(
    text: &str,
    pattern: &Node,
    after: usize,
    change: &Change,
) -> Result<(Vec<Edit>, Option<Vec<String>>), String> {
    let Some(history) = pattern.entry("history") else {
        if change.old == change.new || !change.keep_old {
            return Ok((Vec::new(), None));
        }
        let edit = if change.flow {
            let item = render(change.old, change.style, true);
            (after, after, format!(", history: [{item}]"))
        } else {
            let indent = " ".repeat(
                pattern
                    .entry("xpath")
                    .or_else(|| pattern.entry("css"))
                    .map_or(0, |e| e.key_at.column.saturating_sub(1)),
            );
            let item = render(change.old, change.style, false);
            let (at, lead) = after_line(text, after);
            (
                at,
                at,
                format!("{lead}{indent}history:\n{indent}  - {item}\n"),
            )
        };
        return Ok((vec![edit], Some(vec![change.old.to_owned()])));
    };
    let list = &history.value;
    if list.at != list.used {
        return Err("its history comes from an alias or merge key".to_owned());
    }
    let start = list
        .at
        .offset
        .ok_or("the position of its history is unknown")?;
    let flow_list = text.as_bytes().get(start) == Some(&b'[');
    if !flow_list && list.items().is_empty() {
        return Err("its history is not a list".to_owned());
    }
    let mut items = Vec::with_capacity(list.items().len());
    for item in list.items() {
        let Some(xpath) = item.as_str() else {
            return Err("its history holds something other than XPaths".to_owned());
        };
        if item.at != item.used {
            return Err("its history holds an alias".to_owned());
        }
        let (Some(offset), Some(len)) = (item.at.offset, item.at.len) else {
            return Err("the position of its history is unknown".to_owned());
        };
        items.push(Item {
            xpath,
            start: offset,
            end: offset + len,
            column: item.at.column,
        });
    }
    let xpaths: Vec<&str> = items.iter().map(|i| i.xpath).collect();
    let plan = plan_history(&xpaths, change);
    let mut result: Vec<String> = (xpaths.iter().zip(&plan.keep))
        .filter(|&(_, &keep)| keep)
        .map(|(xpath, _)| (*xpath).to_owned())
        .collect();
    if plan.append {
        result.push(change.old.to_owned());
    }
    let item = render(change.old, change.style, change.flow || flow_list);
    let edits = if flow_list {
        flow_list_edits(start, &items, &plan, &item)
    } else {
        let indent = " ".repeat(list.at.column.saturating_sub(1));
        block_list_edits(text, history, &items, &plan, &format!("{indent}- {item}\n"))?
    };
    Ok((edits, Some(result)))
}

/// A `(start, end, replacement)` edit of the text.
type Edit = (usize, usize, String);

/// One entry of a history, where it is written.
struct Item<'a> {
    /// The XPath.
    xpath: &'a str,
    /// Where its scalar starts (a block scalar: its first content line).
    start: usize,
    /// Where its scalar ends, as the reader reports it.
    end: usize,
    /// The column of its first character.
    column: usize,
}

/// The edits of a flow list `[...]` that opens at `open`: each run of removed
/// entries goes with the comma that follows it, or, at the end of the list,
/// the comma that precedes it; `item` (rendered) is added last if planned.
fn flow_list_edits(open: usize, items: &[Item], plan: &HistoryPlan, item: &str) -> Vec<Edit> {
    let mut edits = Vec::new();
    let mut i = 0;
    while i < items.len() {
        if plan.keep[i] {
            i += 1;
            continue;
        }
        let first = i;
        while i < items.len() && !plan.keep[i] {
            i += 1;
        }
        let last = i - 1;
        let range = if i < items.len() {
            // Up to the next kept entry: the run, its commas and the spaces.
            items[first].start..items[i].start
        } else if first > 0 {
            // From the end of the kept entry before it: its comma and the run.
            items[first - 1].end..items[last].end
        } else {
            items[first].start..items[last].end
        };
        edits.push((range.start, range.end, String::new()));
    }
    if plan.append {
        edits.push(match items.last() {
            None => (open + 1, open + 1, item.to_owned()),
            Some(last) if plan.keep.contains(&true) => (last.end, last.end, format!(", {item}")),
            Some(last) => (last.end, last.end, item.to_owned()),
        });
    }
    edits
}

/// The edits of a block list (`- ...` lines) of the entry `history`: each
/// removed entry goes with its lines, from its dash to the end of the line it
/// ends on (its comment too); `line` is added after the last entry if
/// planned. A list left empty is written `[]`, as a block list cannot be.
fn block_list_edits(
    text: &str,
    history: &Entry,
    items: &[Item],
    plan: &HistoryPlan,
    line: &str,
) -> Result<Vec<Edit>, String> {
    let Some(last) = items.last() else {
        return Err("its history is not a list".to_owned());
    };
    let last_end = item_end(text, last)?;
    if !plan.append && !plan.keep.contains(&true) {
        // Everything from the key's colon to the end of the last entry's
        // line, comments between the entries included, becomes `[]`.
        let key = history.key_at.offset.unwrap_or(0);
        let colon = text
            .get(key..items[0].start)
            .and_then(|between| between.find(':'))
            .ok_or("the position of its history is unknown")?;
        let (line_end, _) = after_line(text, last_end);
        let line_end = if text[..line_end].ends_with('\n') {
            line_end - 1
        } else {
            line_end
        };
        return Ok(vec![(key + colon + 1, line_end, " []".to_owned())]);
    }
    let mut edits = Vec::new();
    for (item, _) in items.iter().zip(&plan.keep).filter(|&(_, &keep)| !keep) {
        let (at, _) = after_line(text, item_end(text, item)?);
        edits.push((line_start(text, dash_of(text, item)?), at, String::new()));
    }
    if plan.append {
        let (at, lead) = after_line(text, last_end);
        // A removed last entry took its line break with it only if it had
        // one; the line before it ends with one either way.
        let lead = if plan.keep.last() == Some(&false) {
            ""
        } else {
            lead
        };
        edits.push((at, at, format!("{lead}{line}")));
    }
    Ok(edits)
}

/// The `-` that introduces a block list entry: the first dash, after the
/// text before the entry, that starts its line (after indentation). A block
/// scalar's indicator and chomping may sit between it and the content;
/// anything else there (a comment, a tag) is refused.
fn dash_of(text: &str, item: &Item) -> Result<usize, String> {
    let before = text.get(..item.start).unwrap_or_default();
    let from = before
        .trim_end_matches([' ', '\t', '\r', '\n', '|', '>', '+', '-'])
        .len();
    before[from..]
        .match_indices('-')
        .map(|(i, _)| from + i)
        .find(|&dash| {
            text[line_start(text, dash)..dash]
                .trim_matches(' ')
                .is_empty()
        })
        .ok_or_else(|| {
            "an entry of its history is written in a way that cannot be edited".to_owned()
        })
}

/// Where an entry of a block list ends; a block scalar's span, as the reader
/// reports it, runs on into the next line, so it is measured instead.
fn item_end(text: &str, item: &Item) -> Result<usize, String> {
    let dash = dash_of(text, item)?;
    let is_block = text[dash + 1..item.start]
        .trim_start_matches(' ')
        .starts_with(['|', '>']);
    Ok(if is_block {
        block_end(text, item.start, item.column)
    } else {
        item.end
    })
}

/// The start of the line holding byte `offset`.
fn line_start(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |i| i + 1)
}

/// Where the line holding byte `offset` ends (after its line break), and the
/// line break to add first when the file's last line has none.
fn after_line(text: &str, offset: usize) -> (usize, &'static str) {
    match text.get(offset..).and_then(|rest| rest.find('\n')) {
        Some(i) => (offset + i + 1, ""),
        None => (text.len(), "\n"),
    }
}

/// The start of the first line at or after `offset` (a line start) that is
/// not blank.
fn after_blank_lines(text: &str, mut offset: usize) -> usize {
    while let Some(rest) = text.get(offset..).filter(|rest| !rest.is_empty()) {
        let line = rest.find('\n').map_or(rest, |i| &rest[..=i]);
        if !line.trim().is_empty() {
            break;
        }
        offset += line.len();
    }
    offset
}

/// Whether the block scalar whose indicator is at `indicator` keeps its
/// trailing line breaks (`|+`, `>+`, `|2+`, ...).
fn keeps_trailing_lines(text: &str, indicator: usize) -> bool {
    text.get(indicator..).is_some_and(|rest| {
        rest.chars()
            .skip(1)
            .take_while(|c| matches!(c, '+' | '-' | '1'..='9'))
            .any(|c| c == '+')
    })
}

/// The `|` or `>` that opens the block scalar whose content starts at `content`.
fn block_indicator(text: &str, key: usize, content: usize) -> Option<usize> {
    let between = text.get(key..content)?;
    let colon = between.find(':')?;
    let after = &between[colon + 1..];
    let skip = after.len() - after.trim_start_matches([' ', '\t']).len();
    let at = key + colon + 1 + skip;
    matches!(text.as_bytes().get(at), Some(b'|' | b'>')).then_some(at)
}

/// Where the content of a block scalar ends: the end of its last line that is
/// indented at least as far as its first (`column`), before the line break.
///
/// The reader's span of a block scalar runs on into the next line's
/// indentation, so the extent is measured here instead.
fn block_end(text: &str, content: usize, column: usize) -> usize {
    if text.get(content..).is_none() {
        // Not a position in this text; the edit check refuses it.
        return usize::MAX;
    }
    let indent = column.saturating_sub(1);
    let mut end = content;
    let mut line_start = content;
    let mut first = true;
    while line_start < text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        let line = &text[line_start..line_end];
        let blank = line.trim().is_empty();
        let leading = line.len() - line.trim_start_matches(' ').len();
        if !first && !blank && leading < indent {
            break;
        }
        if !blank {
            end = line_end;
        }
        first = false;
        line_start = line_end + 1;
    }
    end
}

/// Reads the edited text back and checks it means the original with exactly
/// the intended change: `change` applied to the pattern at `pointer`.
fn verify(
    root: &Node,
    edited: &str,
    pointer: &str,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), String>,
) -> Result<(), String> {
    let reread = yaml::parse(edited, "wrapper").map_err(|d| d.message)?;
    let mut expected = root.to_json();
    let pattern = expected
        .pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .ok_or("the pattern vanished")?;
    change(pattern)?;
    let found = reread.to_json();
    let (want, got) = (expected.pointer(pointer), found.pointer(pointer));
    if found == expected {
        Ok(())
    } else if want == got {
        Err("it would change other patterns too, through an alias or merge key".to_owned())
    } else {
        Err(format!(
            "expected {}, read back {}",
            want.unwrap_or(&Value::Null),
            got.unwrap_or(&Value::Null)
        ))
    }
}

/// How a scalar is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// Unquoted.
    Plain,
    /// In single quotes.
    Single,
    /// In double quotes.
    Double,
    /// A `|` or `>` block.
    Block,
}

impl Style {
    /// The style of the value that starts at `value`, written after the key at `key`.
    fn of(text: &str, key: usize, value: usize) -> Style {
        match text.as_bytes().get(value) {
            Some(b'\'') => Style::Single,
            Some(b'"') => Style::Double,
            // A block scalar's position is its first content line, so it is
            // recognised by the indicator after the key.
            _ if block_indicator(text, key, value).is_some() => Style::Block,
            _ => Style::Plain,
        }
    }
}

/// `value` as a YAML scalar in `preferred` style, or the nearest style that
/// can hold it; `flow` says whether it sits inside `{...}` or `[...]`.
fn render(value: &str, preferred: Style, flow: bool) -> String {
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return double_quoted(value);
    }
    match preferred {
        Style::Double => double_quoted(value),
        Style::Plain if plain_is_safe(value, flow) => value.to_owned(),
        _ => format!("'{}'", value.replace('\'', "''")),
    }
}

fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `value` reads back as the same text when written without quotes.
fn plain_is_safe(value: &str, flow: bool) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let resolves_to_other_type = matches!(
        value.to_ascii_lowercase().as_str(),
        "true"
            | "false"
            | "null"
            | "~"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | ".inf"
            | "-.inf"
            | "+.inf"
            | ".nan"
    ) || value.parse::<f64>().is_ok()
        || first.is_ascii_digit();
    !resolves_to_other_type
        && value.trim() == value
        && !"-?:,[]{}#&*!|>'\"%@`".contains(first)
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.contains('\t')
        && !(flow && value.contains([',', '[', ']', '{', '}']))
}

#[cfg(test)]
#[path = "rewrite_tests.rs"]
mod tests;
