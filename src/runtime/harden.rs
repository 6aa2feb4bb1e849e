//! Hardening: a brittle XPath (an absolute positional path, a generated
//! value; `xpath::generate::brittleness`) replaced by a robust member of its
//! pattern's locator ensemble, proven on several pages.
//!
//! The choice is pure ([`choose_hardenings`]): the ensemble is built on the
//! first page (the capture page), as `mend snapshot` builds it, and each
//! member, most robust kind first (attribute, class, label, position), is
//! tried on every page given: from each parent instance it must select
//! exactly the nodes the pattern's XPath selects there, and the wrapper with
//! it must extract the same record. Patterns are visited parents first, and
//! a child is evaluated in the instances of its parent as the hardened
//! wrapper selects them. A member that is brittle itself is never chosen.
//!
//! The rewrite ([`save_hardened`]) is one change of the wrapper-change
//! protocol, kind `harden`: under the wrapper's lock the file is read again,
//! a pattern whose XPath (or an ancestor's) is no longer the one the choice
//! was made from is refused, each other XPath is replaced in place
//! (`wrapper::replace_xpath`, which keeps comments and layout and puts the
//! old XPath in `history`), the tree-grams are captured with the wrapper as
//! the file will hold it, and the tree-grams and the wrapper are written
//! together.

use std::path::Path;

use super::treegrams::commit_with_treegrams;
use super::{Project, RuntimeError, Written, reconcile};
use crate::dom::Document;
use crate::extract::extract;
use crate::runtime::WrapperLock;
use crate::store::{ChangeKind, Store};
use crate::treegram::{Captured, LocatorKind, Skipped, ensemble};
use crate::wrapper::{self, PatternPath, Wrapper};
use crate::xpath::generate::brittleness;
use crate::xpath::{Item, XPath};

/// A pattern whose brittle XPath is to be replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hardened {
    /// The pattern's path of names.
    pub pattern: PatternPath,
    /// Its XPath now.
    pub old: String,
    /// The ensemble member that replaces it.
    pub new: String,
    /// The kind of evidence the new XPath leans on.
    pub kind: LocatorKind,
}

/// A brittle pattern left as it is, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftAlone {
    /// The pattern's path of names.
    pub pattern: PatternPath,
    /// Its XPath, which stays.
    pub xpath: String,
    /// Why it stays, in words (one line).
    pub reason: String,
}

/// What [`choose_hardenings`] decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HardenPlan {
    /// The patterns to rewrite, parents before their children.
    pub hardened: Vec<Hardened>,
    /// The brittle patterns that stay, with the reason.
    pub left: Vec<LeftAlone>,
}

/// Chooses, for every pattern of `wrapper` (of `only`, when given) whose
/// XPath is brittle, the most robust member of its locator ensemble that
/// selects exactly the pattern's nodes on every page of `pages` (each a
/// name for messages and a parsed page; the ensemble is built on the first).
/// Robust XPaths are not looked at. Pure: no file is read.
pub fn choose_hardenings(
    wrapper: &Wrapper,
    pages: &[(&str, &Document)],
    only: Option<&[PatternPath]>,
) -> HardenPlan {
    let mut plan = HardenPlan::default();
    let Some(&(first_name, first)) = pages.first() else {
        return plan;
    };
    let records: Vec<_> = pages
        .iter()
        .map(|(_, doc)| extract(wrapper, doc, None).record)
        .collect();
    let mut working = wrapper.clone();
    for path in wrapper.pattern_paths() {
        if only.is_some_and(|only| !only.contains(&path)) {
            continue;
        }
        let Some(own) = working.pattern(&path).map(|p| p.xpath.clone()) else {
            continue;
        };
        let Some(why) = brittleness(own.source()) else {
            continue;
        };
        let leave = |reason: String| LeftAlone {
            pattern: path.clone(),
            xpath: own.source().to_owned(),
            reason: format!("brittle ({why}), but {reason}"),
        };
        let per_context = match selections(&working, first, &path, &own) {
            Ok(p) => p,
            Err(e) => {
                plan.left
                    .push(leave(format!("its XPath fails on {first_name}: {e}")));
                continue;
            }
        };
        let members = ensemble(
            first,
            own.source(),
            &per_context,
            &crate::similarity::NoMask,
        );
        if members.is_empty() {
            plan.left.push(leave(format!(
                "it has no locator ensemble (it selects nothing on {first_name}, or nothing \
                 else selects exactly its nodes there)"
            )));
            continue;
        }
        let mut refusals = Vec::new();
        let mut chosen = None;
        // A locator by the value itself finds this page's data, not the field.
        for member in members.into_iter().filter(|m| m.kind != LocatorKind::Text) {
            match holds(&working, pages, &records, &path, &own, &member.xpath) {
                Ok(hardened) => {
                    chosen = Some((member, hardened));
                    break;
                }
                Err(why) => refusals.push(format!("{} {}: {why}", member.kind, member.xpath)),
            }
        }
        match chosen {
            Some((member, hardened)) => {
                working = hardened;
                plan.hardened.push(Hardened {
                    pattern: path.clone(),
                    old: own.source().to_owned(),
                    new: member.xpath,
                    kind: member.kind,
                });
            }
            None => plan.left.push(leave(format!(
                "no member of its locator ensemble holds on every page ({})",
                refusals.join("; ")
            ))),
        }
    }
    plan
}

/// What `xpath` selects from each instance of the parent of the pattern at
/// `path`, on `doc`, with the parents as `wrapper` has them.
fn selections(
    wrapper: &Wrapper,
    doc: &Document,
    path: &PatternPath,
    xpath: &XPath,
) -> Result<Vec<(Item, Vec<Item>)>, String> {
    wrapper
        .instances(doc, path)
        .into_iter()
        .map(|context| {
            xpath
                .select_item(doc, context)
                .map(|items| (context, items))
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// Whether `candidate` may replace `own` at `path`: it is not brittle, it
/// selects what `own` selects from every parent instance on every page, and
/// the wrapper with it extracts every page's record as before. Gives that
/// wrapper, or why not.
fn holds(
    working: &Wrapper,
    pages: &[(&str, &Document)],
    records: &[serde_json::Map<String, serde_json::Value>],
    path: &PatternPath,
    own: &XPath,
    candidate: &str,
) -> Result<Wrapper, String> {
    if let Some(why) = brittleness(candidate) {
        return Err(format!("brittle itself ({why})"));
    }
    let compiled = XPath::compile(candidate).map_err(|e| format!("does not compile ({e})"))?;
    for &(name, doc) in pages {
        let want = selections(working, doc, path, own)
            .map_err(|e| format!("the pattern's XPath fails on {name} ({e})"))?;
        let got = selections(working, doc, path, &compiled)
            .map_err(|e| format!("fails on {name} ({e})"))?;
        if got != want {
            let count = |s: &[(Item, Vec<Item>)]| s.iter().map(|(_, t)| t.len()).sum::<usize>();
            return Err(format!(
                "selects other nodes on {name} ({} where the XPath selects {})",
                count(&got),
                count(&want)
            ));
        }
    }
    let mut hardened = working.clone();
    if let Some(p) = hardened.pattern_mut(path) {
        p.xpath = compiled;
    }
    for ((name, doc), record) in pages.iter().zip(records) {
        if extract(&hardened, doc, None).record != *record {
            return Err(format!(
                "the wrapper with it extracts another record on {name}"
            ));
        }
    }
    Ok(hardened)
}

/// What [`save_hardened`] did.
#[derive(Debug)]
pub struct HardenWritten {
    /// The patterns whose XPath the file now holds, as chosen.
    pub hardened: Vec<Hardened>,
    /// The chosen patterns refused under the lock, with the reason.
    pub refused: Vec<LeftAlone>,
    /// The tree-grams written.
    pub written: Written,
    /// The patterns that got no tree-gram.
    pub skipped: Vec<Skipped>,
}

/// Rewrites the XPaths `plan` chose in the wrapper at `wrapper_path` (as
/// `loaded` held it when they were chosen) and saves the tree-grams that
/// `capture` takes with the wrapper as the file will hold it, all as one
/// change of the wrapper-change protocol: a `harden` change in `store`, or
/// a `snapshot` change when no XPath is rewritten.
///
/// Under the lock the file is read again: a pattern the file no longer has,
/// or whose XPath or an ancestor's differs from `loaded` (another process
/// changed it), or whose XPath cannot be rewritten in place, is refused
/// with the reason, and the others go ahead.
pub fn save_hardened(
    store: &mut Store,
    wrapper_path: &Path,
    loaded: &Wrapper,
    plan: Vec<Hardened>,
    capture: impl FnOnce(&Wrapper) -> (Vec<Captured>, Vec<Skipped>),
) -> Result<HardenWritten, RuntimeError> {
    let lock = WrapperLock::acquire(wrapper_path)?;
    reconcile(store, &lock)?;
    let project = Project::of(wrapper_path);
    let before = project.read_wrapper()?;
    let name = wrapper_path.display().to_string();
    let load = |text: &str| {
        wrapper::load_str(text, &name).map_err(|d| RuntimeError::Load {
            path: wrapper_path.to_owned(),
            message: wrapper::render_all(&d),
        })
    };
    let current = load(&before)?;
    let mut text = before.clone();
    let mut hardened = Vec::new();
    let mut refused = Vec::new();
    for h in plan {
        let refuse = |reason: String| LeftAlone {
            pattern: h.pattern.clone(),
            xpath: h.old.clone(),
            reason,
        };
        if let Some(why) = moved(loaded, &current, &h.pattern) {
            refused.push(refuse(format!(
                "not hardened: {} changed since it was read ({why})",
                wrapper_path.display()
            )));
            continue;
        }
        let names: Vec<&str> = h.pattern.names().iter().map(String::as_str).collect();
        match wrapper::replace_xpath(&text, &names, &h.new) {
            Ok(edited) => {
                text = edited;
                hardened.push(h);
            }
            Err(e) => refused.push(refuse(format!("not hardened: {e}"))),
        }
    }
    let rewritten = load(&text)?;
    let (captured, skipped) = capture(&rewritten);
    let kind = if hardened.is_empty() {
        ChangeKind::Snapshot
    } else {
        ChangeKind::Harden
    };
    let (written, _) = commit_with_treegrams(
        store,
        &lock,
        &project,
        (before, text),
        captured,
        Vec::new(),
        kind,
    )?;
    Ok(HardenWritten {
        hardened,
        refused,
        written,
        skipped,
    })
}

/// Why the pattern at `path` cannot be hardened as chosen from `loaded`,
/// now that the file holds `current`: the pattern is gone, or its XPath or
/// an ancestor's is another one.
fn moved(loaded: &Wrapper, current: &Wrapper, path: &PatternPath) -> Option<String> {
    let mut at = Some(path.clone());
    while let Some(p) = at {
        let was = loaded.pattern(&p).map(|x| x.xpath.source());
        match current.pattern(&p) {
            None => return Some(format!("it has no pattern {p} now")),
            Some(now) if Some(now.xpath.source()) != was => {
                return Some(format!("the XPath of {p} is now {}", now.xpath.source()));
            }
            Some(_) => {}
        }
        at = p.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRAPPER: &str = "\
name: shop
patterns:
  - name: isbn
    xpath: /html/body/div[2]/ul/li[2]/span
    constraints: {min: 1, max: 1}
  - name: title
    xpath: //h1
";

    fn page(ul: &str) -> Document {
        Document::parse_str(&format!(
            "<html><body><div>menu</div><div><h1>A book</h1><ul>{ul}</ul></div></body></html>"
        ))
    }

    fn path(s: &str) -> PatternPath {
        s.parse().unwrap()
    }

    #[test]
    fn a_brittle_path_takes_the_most_robust_member_that_holds_everywhere() {
        let wrapper = wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
        let a = page(
            "<li><b>Author:</b> <span class='v'>Ann</span></li>\
             <li><b>ISBN:</b> <span class='v' itemprop='isbn'>978</span></li>",
        );
        let b = page(
            "<li><b>Author:</b> <span class='v'>Bob</span></li>\
             <li><b>ISBN:</b> <span class='v' itemprop='isbn'>979</span></li>",
        );
        let plan = choose_hardenings(&wrapper, &[("a", &a), ("b", &b)], None);
        assert!(plan.left.is_empty(), "{:?}", plan.left);
        assert_eq!(plan.hardened.len(), 1, "{plan:?}");
        let h = &plan.hardened[0];
        assert_eq!(h.pattern, path("isbn"));
        assert_eq!(h.old, "/html/body/div[2]/ul/li[2]/span");
        assert_eq!(h.kind, LocatorKind::Attribute, "{h:?}");
        assert!(h.new.contains("@itemprop='isbn'"), "{h:?}");
    }

    #[test]
    fn a_member_that_fails_on_another_page_is_passed_over() {
        let wrapper = wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
        let a = page(
            "<li><b>Author:</b> <span class='v'>Ann</span></li>\
             <li><b>ISBN:</b> <span class='v' itemprop='isbn'>978</span></li>",
        );
        // The attribute is on the author here: only the label holds.
        let b = page(
            "<li><b>Author:</b> <span class='v' itemprop='isbn'>Bob</span></li>\
             <li><b>ISBN:</b> <span class='v'>979</span></li>",
        );
        let plan = choose_hardenings(&wrapper, &[("a", &a), ("b", &b)], None);
        let h = &plan.hardened[0];
        assert_ne!(h.kind, LocatorKind::Attribute, "{h:?}");
        assert!(!h.new.contains("itemprop"), "{h:?}");
        for doc in [&a, &b] {
            let want = XPath::compile(&h.old)
                .unwrap()
                .select(doc, crate::NodeId::ROOT);
            let got = XPath::compile(&h.new)
                .unwrap()
                .select(doc, crate::NodeId::ROOT);
            assert_eq!(got.unwrap(), want.unwrap(), "{h:?}");
        }
    }

    #[test]
    fn robust_xpaths_and_patterns_not_asked_for_are_not_looked_at() {
        let wrapper = wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
        let a = page("<li>x</li><li><span itemprop='isbn'>978</span></li>");
        let plan = choose_hardenings(&wrapper, &[("a", &a)], Some(&[path("title")]));
        assert_eq!(plan, HardenPlan::default());
    }

    #[test]
    fn a_pattern_with_no_member_that_holds_is_left_with_the_reason() {
        let wrapper = wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
        let a = page("<li><span>1</span></li><li><span>2</span></li>");
        // The list moved to another block: the absolute path selects
        // nothing here, every locator of the span still does.
        let b = Document::parse_str(
            "<html><body><div>menu</div><div><h1>A book</h1></div>\
             <div><ul><li><span>1</span></li><li><span>2</span></li></ul></div></body></html>",
        );
        let plan = choose_hardenings(&wrapper, &[("a", &a), ("b", &b)], None);
        assert!(plan.hardened.is_empty(), "{plan:?}");
        let left = &plan.left[0];
        assert_eq!(left.pattern, path("isbn"));
        assert!(left.reason.starts_with("brittle ("), "{}", left.reason);
        assert!(left.reason.contains("on b"), "{}", left.reason);
        assert!(!left.reason.contains('\n'), "{}", left.reason);
    }

    #[test]
    fn a_change_under_the_pattern_or_its_parent_refuses_it() {
        let loaded = wrapper::load_str(
            "name: s\npatterns:\n  - name: r\n    xpath: //li\n    patterns:\n      - name: f\n        xpath: ./span\n",
            "s.yaml",
        )
        .unwrap();
        let same = loaded.clone();
        assert_eq!(moved(&loaded, &same, &path("r/f")), None);
        let parent = wrapper::load_str(
            "name: s\npatterns:\n  - name: r\n    xpath: //ol/li\n    patterns:\n      - name: f\n        xpath: ./span\n",
            "s.yaml",
        )
        .unwrap();
        let why = moved(&loaded, &parent, &path("r/f")).unwrap();
        assert!(why.contains("//ol/li"), "{why}");
        let gone = wrapper::load_str(
            "name: s\npatterns:\n  - name: r\n    xpath: //li\n",
            "s.yaml",
        )
        .unwrap();
        assert!(moved(&loaded, &gone, &path("r/f")).is_some());
    }

    #[test]
    fn the_file_is_read_again_under_the_lock_and_the_change_is_journaled() {
        use crate::store::{ChangeId, ChangeState};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.yaml");
        let text = "name: w\npatterns:\n  - name: a # the second paragraph\n    xpath: /html/body/p[2]\n  - name: b\n    xpath: /html/body/div[2]\n";
        std::fs::write(&file, text).unwrap();
        let loaded = wrapper::load_file(&file).unwrap();
        // Another process changes `b` meanwhile.
        std::fs::write(&file, text.replace("/html/body/div[2]", "//div[@id='x']")).unwrap();
        let plan = vec![
            Hardened {
                pattern: path("a"),
                old: "/html/body/p[2]".to_owned(),
                new: "//p[@id='two']".to_owned(),
                kind: LocatorKind::Attribute,
            },
            Hardened {
                pattern: path("b"),
                old: "/html/body/div[2]".to_owned(),
                new: "//div[@class='y']".to_owned(),
                kind: LocatorKind::Class,
            },
        ];
        let mut store = Store::open_in_memory().unwrap();
        let mut seen = None;
        let done = save_hardened(&mut store, &file, &loaded, plan, |w| {
            seen = Some(w.pattern(&path("a")).unwrap().xpath.source().to_owned());
            (Vec::new(), Vec::new())
        })
        .unwrap();
        assert_eq!(
            seen.as_deref(),
            Some("//p[@id='two']"),
            "captured with the new XPath"
        );
        assert_eq!(done.hardened.len(), 1);
        assert_eq!(done.hardened[0].pattern, path("a"));
        assert_eq!(done.refused.len(), 1);
        assert!(
            done.refused[0].reason.contains("//div[@id='x']"),
            "{:?}",
            done.refused
        );
        let now = std::fs::read_to_string(&file).unwrap();
        assert!(
            now.contains("- name: a # the second paragraph\n    xpath: //p[@id='two']\n"),
            "{now}"
        );
        assert!(now.contains("history:\n      - /html/body/p[2]"), "{now}");
        assert!(now.contains("xpath: //div[@id='x']"), "{now}");
        let change = store.change(ChangeId(1)).unwrap().unwrap();
        assert_eq!(change.kind, ChangeKind::Harden);
        assert_eq!(change.state, ChangeState::Done);
        assert!(store.pending_changes(None).unwrap().is_empty());
    }
}
