//! What candidate XPaths selected on one document, kept for the searches
//! that follow on the same document.
//!
//! Capturing the tree-grams of a wrapper runs the generator's search once
//! per pattern, on the same page. The searches for different targets try
//! many of the same candidates (`//td`, `//tbody/tr/td`, the same anchors),
//! each a walk of much of the page; on a wrapper of 2,000 patterns about
//! half of all evaluations were candidates that an earlier search had
//! evaluated already. A [`Selections`] given to them in
//! [`super::GenerateOptions::selections`] answers those from memory. A heal
//! keeps one per page for the proofs of all its patterns' new XPaths, and
//! the verification of each expression a search found reads it too: on a
//! page of 60,000 elements that was most of a proof's evaluations.
//!
//! Evaluation is deterministic, so an answer from memory is the answer the
//! evaluation would give. The cache holds at most [`MAX_HELD`] items in
//! all, then stops keeping new answers; it refuses to serve a document
//! other than the one it was made for (by node count and identity).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::dom::{Document, NodeId};
use crate::xpath::Item;

/// The most items all kept answers hold together: 32 MiB of items.
pub const MAX_HELD: usize = 1 << 22;

/// Candidate XPaths' answers on one document, by expression and context.
/// Shared between threads.
#[derive(Debug)]
pub struct Selections {
    /// The document's address and node count, to refuse another.
    document: (usize, usize),
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    answers: HashMap<(Box<str>, u32), Arc<[Item]>>,
    held: usize,
}

impl Selections {
    /// An empty cache for `doc`.
    pub fn new(doc: &Document) -> Selections {
        Selections {
            document: identity(doc),
            kept: Mutex::new(Kept::default()),
        }
    }

    /// What `xpath` selects from `context` on `doc`: from memory when kept,
    /// else from `evaluate`, whose answer is then kept while there is room.
    /// `None` (an expression that fails) is not kept.
    pub(super) fn get_or_evaluate(
        &self,
        doc: &Document,
        xpath: &str,
        context: NodeId,
        evaluate: impl FnOnce() -> Option<Vec<Item>>,
    ) -> Option<Arc<[Item]>> {
        if identity(doc) != self.document {
            return evaluate().map(Arc::from);
        }
        let key = (Box::<str>::from(xpath), context.0);
        if let Some(found) = self.lock().answers.get(&key) {
            return Some(found.clone());
        }
        // Evaluated outside the lock, so that other threads' searches go on.
        let answer: Arc<[Item]> = Arc::from(evaluate()?);
        let mut kept = self.lock();
        if kept.held + answer.len() <= MAX_HELD {
            kept.held += answer.len();
            kept.answers.insert(key, answer.clone());
        }
        Some(answer)
    }

    /// How many answers are kept.
    pub fn len(&self) -> usize {
        self.lock().answers.len()
    }

    /// Whether no answer is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A panic while the lock was held left the map whole: every insert
        // is one call.
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Two caches are the same when they are one object.
impl PartialEq for Selections {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Selections {}

fn identity(doc: &Document) -> (usize, usize) {
    (std::ptr::from_ref(doc) as usize, doc.len())
}
