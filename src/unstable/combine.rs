//! ADD, MATCH and UPDATE: a template and another load of its page, paired
//! child by child.
//!
//! Children are paired "in any order" as the paper says, by
//! [`super::pairing::pair_children`]. A group of children whose sizes
//! differ means children came or went.
//!
//! ## What it refuses
//!
//! ADD never makes content stable again: what differed once stays unstable,
//! and nothing below an element whose children came and went is compared
//! again. MATCH stops at the first difference and accepts anything below
//! unstable children; a page without a root element does not match, and ADD
//! takes it for the root's children coming and going. UPDATE carries
//! unstable marks over only where the old and new trees pair.

use super::html_template::{DocView, HtmlTemplate, Mismatch, TemplateView, View, attrs_differ};
use super::pairing::pair_children;
use crate::dom::Document;

impl HtmlTemplate {
    /// ADD: combines another load of the page. Text that differs becomes
    /// unstable with every value kept; attributes that differ (or come and
    /// go) become unstable by name; an element whose children came or went
    /// has unstable children.
    pub fn add(&mut self, doc: &Document) {
        self.loads += 1;
        let Some(root) = doc.root_element() else {
            self.nodes[0].unstable_children = true;
            return;
        };
        let view = DocView(doc);
        let mut stack = vec![(self.root(), root)];
        while let Some((t, d)) = stack.pop() {
            if self.node(t).name.is_none() {
                let text = view.text(d).unwrap_or_default();
                self.nodes[t.0 as usize].text.see(&text);
                continue;
            }
            self.see_attrs(t, &view.attrs(d));
            if self.node(t).unstable_children {
                continue;
            }
            let pairing = pair_children(self, t, &view, d);
            if !pairing.complete {
                self.nodes[t.0 as usize].unstable_children = true;
                continue;
            }
            stack.extend(pairing.pairs);
        }
    }

    /// MATCH: whether `doc` is a load of this page: the same attributes in
    /// any order (an unstable one may differ or be absent), equal text
    /// unless unstable, children matched in any order, anything below
    /// unstable children accepted. The first difference is the error.
    pub fn matches(&self, doc: &Document) -> Result<(), Mismatch> {
        let Some(root) = doc.root_element() else {
            return Err(self.mismatch(self.root(), "the page has no root element".into()));
        };
        let view = DocView(doc);
        let mut stack = vec![(self.root(), root)];
        while let Some((t, d)) = stack.pop() {
            let node = self.node(t);
            if node.name.is_none() {
                let text = view.text(d).unwrap_or_default();
                if let Some(stable) = node.text.stable()
                    && stable != text
                {
                    return Err(self.mismatch(t, format!("text {text:?}, not {stable:?}")));
                }
                continue;
            }
            if let Some(why) = attrs_differ(node, &view.attrs(d)) {
                return Err(self.mismatch(t, why));
            }
            if node.unstable_children {
                continue;
            }
            let pairing = pair_children(self, t, &view, d);
            if !pairing.complete {
                return Err(self.mismatch(t, "its children differ".into()));
            }
            stack.extend(pairing.pairs);
        }
        Ok(())
    }

    /// UPDATE, for a page known to have changed: the template becomes that
    /// of `doc`, with what was unstable here still unstable there (its
    /// values kept) wherever the two pair.
    pub fn update(&mut self, doc: &Document) {
        let mut fresh = HtmlTemplate::from_document(doc);
        fresh.loads = self.loads + 1;
        let mut stack = vec![(self.root(), fresh.root())];
        while let Some((old, new)) = stack.pop() {
            let before = self.node(old);
            if before.name.is_none() {
                fresh.nodes[new.0 as usize].text.keep_unstable(&before.text);
                continue;
            }
            for (name, content) in &before.attrs {
                let after = &mut fresh.nodes[new.0 as usize].attrs;
                match after.iter_mut().find(|(n, _)| n == name) {
                    Some((_, c)) => c.keep_unstable(content),
                    None if content.is_unstable() => after.push((name.clone(), content.clone())),
                    None => {}
                }
            }
            if before.unstable_children {
                fresh.nodes[new.0 as usize].unstable_children = true;
                continue;
            }
            let pairing = pair_children(self, old, &TemplateView(&fresh), new);
            stack.extend(pairing.pairs);
        }
        *self = fresh;
    }
}
