//! What a person sees before approving (in `mend show` and on the review
//! page): the adaptation's new XPath against its old one on every stored
//! page of its run and of its entry, each page said to be fixed,
//! unchanged, changed or broken by it.
//!
//! The comparison is by the wrapper's constraints and values, not by the
//! drift check (no tree-grams are read here): a page is fixed when the old
//! XPath violated the pattern there and the new one does not, broken when
//! the new one violates what the old one did not, changed when both hold
//! but the page's record differs, and unchanged otherwise.
//!
//! ## What it refuses
//!
//! It gives no preview, and says why, when the adaptation has no new
//! XPath, its pattern is not a pattern path or is gone from the wrapper, or
//! either XPath does not compile; only a store that cannot be read is an
//! error. It previews at most [`MAX_PAGES`] pages (lowest ids first),
//! passes over a page whose snapshot was not kept, and cuts each value
//! shown to [`MAX_VALUE_CHARS`] characters.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use crate::dom::Document;
use crate::extract::{Extraction, extract};
use crate::store::{AdaptationRecord, PageId, Store, StoreError};
use crate::wrapper::{PatternPath, Wrapper};
use crate::xpath::XPath;

/// At most this many pages are previewed, the first by id.
pub const MAX_PAGES: usize = 50;

/// What the new XPath does to one stored page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// The old XPath violated the pattern here; the new one does not.
    Fixed,
    /// The same record either way.
    Unchanged,
    /// Both hold, but the record differs.
    Changed,
    /// The new XPath violates what the old one did not.
    Broken,
    /// Both violate the pattern here.
    #[serde(rename = "still-violated")]
    StillViolated,
}

/// One previewed page.
#[derive(Clone, Debug, Serialize)]
pub struct PagePreview {
    /// The page's id in the store.
    pub page: PageId,
    /// Where it came from.
    pub name: String,
    /// What the new XPath does to it.
    pub effect: Effect,
    /// The pattern's value with the old XPath and with the new, as JSON
    /// text cut to [`MAX_VALUE_CHARS`], when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<ValueChange>,
}

/// A pattern's value before and after a change, for a person to compare.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueChange {
    /// With the old XPath.
    pub old: String,
    /// With the new one.
    pub new: String,
}

/// A previewed value is cut to this many characters.
pub const MAX_VALUE_CHARS: usize = 200;

/// The preview of `record`'s new XPath in `wrapper` on the stored pages, or
/// why there is none.
pub fn preview(
    store: &Store,
    record: &AdaptationRecord,
    wrapper: &Wrapper,
) -> Result<Result<Vec<PagePreview>, String>, StoreError> {
    let Some(new) = record.new_xpath.as_deref() else {
        return Ok(Err("it has no new XPath".to_owned()));
    };
    let Ok(path) = record.pattern.parse::<PatternPath>() else {
        return Ok(Err(format!("{} is not a pattern path", record.pattern)));
    };
    let with = |xpath: &str| -> Result<Wrapper, String> {
        let compiled =
            XPath::compile(xpath).map_err(|e| format!("{xpath} does not compile: {e}"))?;
        let mut w = wrapper.clone();
        let p = w
            .pattern_mut(&path)
            .ok_or_else(|| format!("the wrapper has no pattern {path} now"))?;
        p.xpath = compiled;
        Ok(w)
    };
    let (old, new) = match (with(&record.old_xpath), with(new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => return Ok(Err(e)),
    };
    let pages: BTreeSet<PageId> = store
        .pages_with_snapshot(record.run_id)?
        .into_iter()
        .chain(store.adaptation_pages(record.id)?)
        .collect();
    let mut out = Vec::new();
    for page in pages.into_iter().take(MAX_PAGES) {
        let (Some(html), Some(info)) = (store.page_html(page)?, store.page(page)?) else {
            continue;
        };
        let doc = Document::parse(&html);
        let url = url::Url::parse(&info.url_or_path).ok();
        let before = extract(&old, &doc, url.as_ref());
        let after = extract(&new, &doc, url.as_ref());
        let (old, new) = (value_at(&before, &path), value_at(&after, &path));
        out.push(PagePreview {
            page,
            name: info.url_or_path,
            effect: effect(&before, &after, &path),
            values: (old != new).then(|| ValueChange {
                old: shown(&old),
                new: shown(&new),
            }),
        });
    }
    Ok(Ok(out))
}

/// What going from `before` to `after` does for the pattern at `path`.
fn effect(before: &Extraction, after: &Extraction, path: &PatternPath) -> Effect {
    let violated = |e: &Extraction| e.violations.iter().any(|v| v.pattern.is_within(path));
    match (violated(before), violated(after)) {
        (true, false) => Effect::Fixed,
        (false, true) => Effect::Broken,
        (true, true) => Effect::StillViolated,
        (false, false) if before.record == after.record => Effect::Unchanged,
        (false, false) => Effect::Changed,
    }
}

/// The value of the pattern at `path` in `e`'s record: a nested pattern's
/// values are gathered from each of its parent's instances.
fn value_at(e: &Extraction, path: &PatternPath) -> Value {
    let Some((top, rest)) = path.names().split_first() else {
        return Value::Null;
    };
    let mut value = e.record.get(top).cloned().unwrap_or(Value::Null);
    for name in rest {
        value = child_value(value, name);
    }
    value
}

fn child_value(value: Value, name: &str) -> Value {
    match value {
        Value::Object(mut fields) => fields.remove(name).unwrap_or(Value::Null),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|i| child_value(i, name)).collect())
        }
        _ => Value::Null,
    }
}

/// `value` as JSON text, cut to [`MAX_VALUE_CHARS`] characters.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(MAX_VALUE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The one-line tally of a preview: `2 fixed, 1 unchanged, 0 changed, 0 broken, 0 still violated`.
pub fn tally(pages: &[PagePreview]) -> String {
    let count = |e: Effect| pages.iter().filter(|p| p.effect == e).count();
    format!(
        "{} fixed, {} unchanged, {} changed, {} broken, {} still violated",
        count(Effect::Fixed),
        count(Effect::Unchanged),
        count(Effect::Changed),
        count(Effect::Broken),
        count(Effect::StillViolated)
    )
}

impl Effect {
    /// The word the text output uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Fixed => "fixed",
            Effect::Unchanged => "unchanged",
            Effect::Changed => "changed",
            Effect::Broken => "broken",
            Effect::StillViolated => "still violated",
        }
    }
}
