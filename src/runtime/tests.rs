//! The healing runtime as a library call: a project in a temporary folder,
//! the store in memory.

use std::path::{Path, PathBuf};

use super::*;
use crate::fetch::{self, PageSource};
use crate::job::RunOptions;
use crate::store::{AdaptationFilter, AdaptationStatus, Store};
use crate::wrapper::{self, HealMode};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A copy of the bookshop project (wrapper and pages) in a temporary folder,
/// with its tree-grams captured on the good page.
struct Shop {
    dir: tempfile::TempDir,
}

impl Shop {
    fn new() -> Shop {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("wrappers")).unwrap();
        std::fs::copy(
            Path::new(ROOT).join("wrappers/bookshop.yaml"),
            dir.path().join("wrappers/bookshop.yaml"),
        )
        .unwrap();
        let shop = Shop { dir };
        let wrapper = shop.wrapper();
        let page = shop.page("examples/pages/bookshop.html");
        let doc = crate::dom::Document::parse(&page.bytes);
        let (captured, skipped) = capture_treegrams(
            &wrapper,
            &doc,
            &page.bytes,
            None,
            None,
            &super::CaptureMarks::none(),
        );
        assert!(skipped.is_empty(), "{skipped:?}");
        let mut store = crate::store::Store::open_in_memory().unwrap();
        let written = save_treegrams(
            &mut store,
            &shop.wrapper_path(),
            captured,
            &mut crate::adapt::TreeGrams::new(),
        )
        .unwrap();
        assert!(written.wrapper_changed);
        shop
    }

    /// Sets the wrapper's `adapt.min_pages`.
    fn set_min_pages(&self, n: usize) {
        let text = std::fs::read_to_string(self.wrapper_path()).unwrap();
        assert!(text.contains("  margin: 0.10\n"));
        let text = text.replace(
            "  margin: 0.10\n",
            &format!("  margin: 0.10\n  min_pages: {n}\n"),
        );
        std::fs::write(self.wrapper_path(), text).unwrap();
    }

    fn wrapper_path(&self) -> PathBuf {
        self.dir.path().join("wrappers/bookshop.yaml")
    }

    fn project(&self) -> Project {
        Project::of(&self.wrapper_path())
    }

    fn wrapper(&self) -> wrapper::Wrapper {
        wrapper::load_file(self.wrapper_path()).unwrap()
    }

    fn page(&self, rel: &str) -> fetch::Page {
        let source =
            PageSource::from_arg(&Path::new(ROOT).join(rel).display().to_string()).unwrap();
        fetch::load(&source, &fetch::HttpClient::new()).unwrap()
    }

    fn runtime(&self, mode: HealMode) -> Runtime {
        let store = Store::open_in_memory().unwrap();
        Runtime::new(
            mode,
            self.wrapper(),
            &self.wrapper_path(),
            Session::with_store(store),
            RunOptions::default(),
        )
        .unwrap()
    }
}

/// Runs the pages through `runtime` as `mend run` does, and gives their outputs.
fn run(runtime: &mut Runtime, pages: &[&str]) -> Vec<crate::job::PageOutput> {
    let sources: Vec<PageSource> = pages
        .iter()
        .map(|p| PageSource::from_arg(&Path::new(ROOT).join(p).display().to_string()).unwrap())
        .collect();
    let mut outputs = Vec::new();
    runtime.run(&sources, |o| outputs.push(o));
    outputs
}

const REDESIGN: &str = "tests/fixtures/pages/bookshop-redesign.html";

#[test]
fn a_project_is_the_wrapper_folder_or_the_parent_of_wrappers() {
    let check = |wrapper: &str, expected: &str| {
        assert_eq!(
            Project::of(Path::new(wrapper)).dir,
            PathBuf::from(expected),
            "{wrapper}"
        );
    };
    check("w.yaml", ".");
    check("shop/w.yaml", "shop");
    check("shop/wrappers/w.yaml", "shop");
    check("wrappers/w.yaml", "");
}

#[test]
fn propose_heals_in_memory_and_records_each_page_in_the_store() {
    let shop = Shop::new();
    let before = std::fs::read_to_string(shop.wrapper_path()).unwrap();
    let mut runtime = shop.runtime(HealMode::Propose);
    let outputs = run(&mut runtime, &[REDESIGN]);
    assert!(runtime.failure().is_none(), "{:?}", runtime.failure());
    let adaptations = &outputs[0].adaptations;
    assert!(!adaptations.is_empty());
    assert!(
        adaptations.iter().all(|a| a["status"] != "applied"),
        "{adaptations:?}"
    );
    // Records name their proposals as TAG:ID, the form review commands
    // check against the store they read.
    let tag = runtime.session().store().unwrap().tag().unwrap();
    let proposed: Vec<String> = adaptations
        .iter()
        .filter(|a| a["status"] == "proposed")
        .map(|a| {
            assert_eq!(a["store"], tag.as_str());
            format!("{tag}:{}", a["id"].as_i64().unwrap())
        })
        .collect();
    assert!(!proposed.is_empty());
    // Healed records carry the proposals, and the file is untouched.
    assert_eq!(
        outputs[0].records[0]["_proposals"],
        serde_json::json!(proposed)
    );
    assert_eq!(
        std::fs::read_to_string(shop.wrapper_path()).unwrap(),
        before
    );

    // The store holds exactly what the output says, with the same ids.
    let store = runtime.session().store().unwrap();
    let stored = store.adaptations(&AdaptationFilter::default()).unwrap();
    assert_eq!(stored.len(), adaptations.len());
    for a in adaptations {
        let id = a["id"].as_i64().unwrap();
        let record = stored.iter().find(|r| r.id.0 == id).unwrap();
        assert_eq!(a["pattern"], record.pattern.as_str());
        assert_eq!(a["status"], record.status.as_str());
        assert_eq!(a["new_xpath"].as_str(), record.new_xpath.as_deref());
    }
}

#[test]
fn auto_decides_each_heal_once_for_every_page_that_broke_the_same_way() {
    let shop = Shop::new();
    let mut runtime = shop.runtime(HealMode::Auto);
    // Three distinct pages, as adapt.min_pages asks.
    let outputs = run_paths(&mut runtime, &redesigned_pages(&shop, 3));
    assert!(runtime.failure().is_none(), "{:?}", runtime.failure());
    let applied: Vec<_> = outputs[0]
        .adaptations
        .iter()
        .filter(|a| a["status"] == "applied")
        .collect();
    assert!(!applied.is_empty(), "{:?}", outputs[0].adaptations);
    // The later pages tried the first page's heals before healing: they
    // name the same entries, each standing for every page.
    assert_eq!(outputs[0].adaptations, outputs[1].adaptations);
    assert_eq!(outputs[0].adaptations, outputs[2].adaptations);
    assert!(applied.iter().all(|a| a["pages"] == 3), "{applied:?}");
    assert!(
        outputs[1].violations.is_empty(),
        "{:?}",
        outputs[1].violations
    );
    assert_eq!(outputs[0].records, outputs[1].records);
    // The file holds every applied XPath, and the store one entry per heal.
    let on_disk = shop.wrapper();
    for a in &applied {
        let path = a["pattern"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            Some(on_disk.pattern(&path).unwrap().xpath.source()),
            a["new_xpath"].as_str(),
        );
    }
    let store = runtime.session().store().unwrap();
    let stored = store
        .adaptations(&AdaptationFilter {
            status: Some(AdaptationStatus::Applied),
            ..AdaptationFilter::default()
        })
        .unwrap();
    assert_eq!(stored.len(), applied.len());
    assert!(stored.iter().all(|r| r.page_count == 3));
}

/// `n` copies of the redesigned page in a folder of the shop's, each with
/// bytes of its own (distinct pages, the same layout).
fn redesigned_pages(shop: &Shop, n: usize) -> Vec<String> {
    let dir = shop.dir.path().join("pages");
    std::fs::create_dir_all(&dir).unwrap();
    let page = std::fs::read_to_string(Path::new(ROOT).join(REDESIGN)).unwrap();
    (0..n)
        .map(|i| {
            let p = dir.join(format!("redesign-{i}.html"));
            std::fs::write(&p, format!("{page}<!-- page {i} -->")).unwrap();
            p.display().to_string()
        })
        .collect()
}

#[test]
fn auto_on_fewer_distinct_pages_than_min_pages_only_proposes() {
    // The same page twice is one page of evidence: adapt.min_pages (3) is
    // not met, and there is no exception for a run of few pages.
    let shop = Shop::new();
    let before = std::fs::read_to_string(shop.wrapper_path()).unwrap();
    let mut runtime = shop.runtime(HealMode::Auto);
    let outputs = run(&mut runtime, &[REDESIGN, REDESIGN]);
    assert!(runtime.failure().is_none(), "{:?}", runtime.failure());
    let healed: Vec<_> = outputs[0]
        .adaptations
        .iter()
        .filter(|a| a["new_xpath"].is_string())
        .collect();
    assert!(!healed.is_empty(), "{:?}", outputs[0].adaptations);
    for a in &healed {
        assert_eq!(a["status"], "proposed", "{a}");
        assert!(
            a["reason"]
                .as_str()
                .unwrap()
                .contains("adapt.min_pages asks for 3"),
            "{a}"
        );
    }
    // The pages still get the healed values, marked as proposals.
    assert!(outputs[0].records[0]["_proposals"].is_array());
    assert!(
        outputs[0].violations.is_empty(),
        "{:?}",
        outputs[0].violations
    );
    assert_eq!(
        std::fs::read_to_string(shop.wrapper_path()).unwrap(),
        before
    );
}

#[test]
fn every_kept_page_is_stored_with_its_own_bytes() {
    // Two pages broken the same way, with different bytes: the first heals
    // (its snapshot made on a thread of its own, sharing the page's bytes),
    // the second is served by that heal and joins it (its bytes kept as
    // they are). Each page's snapshot must be its own file.
    let shop = Shop::new();
    let first = std::fs::read(Path::new(ROOT).join(REDESIGN)).unwrap();
    let mut second = first.clone();
    second.extend_from_slice(b"\n<!-- the second page -->\n");
    let dir = shop.dir.path().join("pages");
    std::fs::create_dir_all(&dir).unwrap();
    let pages: Vec<String> = [("first.html", &first), ("second.html", &second)]
        .iter()
        .map(|(name, bytes)| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p.display().to_string()
        })
        .collect();
    let mut runtime = shop.runtime(HealMode::Propose);
    let outputs = run_paths(&mut runtime, &pages);
    assert!(runtime.failure().is_none(), "{:?}", runtime.failure());
    assert!(!outputs[0].adaptations.is_empty());
    let store = runtime.session().store().unwrap();
    let stored = store.adaptations(&AdaptationFilter::default()).unwrap();
    let run = stored[0].run_id;
    let kept = store.pages_with_snapshot(run).unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");
    for id in kept {
        let record = store.page(id).unwrap().unwrap();
        let want = if record.url_or_path.ends_with("first.html") {
            &first
        } else {
            &second
        };
        assert!(
            store.page_html(id).unwrap().as_ref() == Some(want),
            "{} is not stored as its file",
            record.url_or_path
        );
    }
}

/// The bookshop's good page under `n` names in a folder of its own, then
/// the redesigned page: the pages a run over a site with one odd page reads.
fn good_pages_then_one_odd(shop: &Shop, n: usize) -> Vec<String> {
    let dir = shop.dir.path().join("pages");
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(Path::new(ROOT).join("examples/pages/bookshop.html")).unwrap();
    let mut pages: Vec<String> = (0..n)
        .map(|i| {
            let p = dir.join(format!("good-{i:02}.html"));
            std::fs::write(&p, &good).unwrap();
            p.display().to_string()
        })
        .collect();
    pages.push(Path::new(ROOT).join(REDESIGN).display().to_string());
    pages
}

fn run_paths(runtime: &mut Runtime, pages: &[String]) -> Vec<crate::job::PageOutput> {
    let sources: Vec<PageSource> = pages
        .iter()
        .map(|p| PageSource::from_arg(p).unwrap())
        .collect();
    let mut outputs = Vec::new();
    runtime.run(&sources, |o| outputs.push(o));
    outputs
}

#[test]
fn one_odd_page_in_auto_leaves_the_wrapper_alone_and_proposes() {
    let shop = Shop::new();
    // One page would be enough: what holds the heal back is the pages the
    // old XPaths served.
    shop.set_min_pages(1);
    let before = std::fs::read_to_string(shop.wrapper_path()).unwrap();
    let pages = good_pages_then_one_odd(&shop, 10);
    let mut runtime = shop.runtime(HealMode::Auto);
    let outputs = run_paths(&mut runtime, &pages);
    assert!(runtime.failure().is_none(), "{:?}", runtime.failure());
    // The odd page healed, but its heals would change what the old XPaths
    // gave on the pages they served: they wait for a person.
    let odd = &outputs[10].adaptations;
    let healed: Vec<_> = odd.iter().filter(|a| a["new_xpath"].is_string()).collect();
    assert!(!healed.is_empty(), "{odd:?}");
    for a in &healed {
        assert_eq!(a["status"], "proposed", "{a}");
        assert!(
            a["reason"].as_str().unwrap().contains("pages it served"),
            "{a}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(shop.wrapper_path()).unwrap(),
        before
    );
    // Every good page, before and after the odd one, is extracted alike.
    for out in &outputs[..10] {
        assert!(out.violations.is_empty() && out.adaptations.is_empty());
        assert_eq!(out.records, outputs[0].records);
    }
    let store = runtime.session().store().unwrap();
    let pending = store
        .adaptations(&AdaptationFilter {
            pending: true,
            ..AdaptationFilter::default()
        })
        .unwrap();
    assert_eq!(pending.len(), healed.len());
}

#[test]
fn repeated_runs_add_their_pages_to_the_proposal_that_waits() {
    let shop = Shop::new();
    let store_path = shop.dir.path().join("store.db");
    let mut ids = Vec::new();
    for _ in 0..3 {
        let mut runtime = Runtime::new(
            HealMode::Propose,
            shop.wrapper(),
            &shop.wrapper_path(),
            Session::at(store_path.clone()),
            RunOptions::default(),
        )
        .unwrap();
        let outputs = run(&mut runtime, &[REDESIGN]);
        assert!(runtime.failure().is_none(), "{:?}", runtime.failure());
        let mut these: Vec<i64> = outputs[0]
            .adaptations
            .iter()
            .filter(|a| a["status"] == "proposed")
            .map(|a| a["id"].as_i64().unwrap())
            .collect();
        these.sort_unstable();
        assert!(!these.is_empty());
        ids.push(these);
    }
    assert_eq!(ids[0], ids[1]);
    assert_eq!(ids[1], ids[2]);
    let store = Store::open(&store_path).unwrap();
    let pending = store
        .adaptations(&AdaptationFilter {
            pending: true,
            ..AdaptationFilter::default()
        })
        .unwrap();
    assert_eq!(pending.len(), ids[0].len());
    assert!(pending.iter().all(|r| r.page_count == 3), "{pending:?}");
}

#[test]
fn a_clean_page_opens_no_store() {
    let shop = Shop::new();
    let mut runtime = shop.runtime(HealMode::Propose);
    let outputs = run(&mut runtime, &["examples/pages/bookshop.html"]);
    assert!(outputs[0].violations.is_empty());
    assert!(!runtime.session().is_open());
}

#[test]
fn atomic_writes_replace_the_file_and_leave_no_temporary_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.yaml");
    std::fs::write(&path, "old").unwrap();
    write_atomically(&path, "new").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["w.yaml"]);
}

#[test]
fn an_unwritable_folder_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let e = write_atomically(&blocker.join("w.yaml"), "x").unwrap_err();
    assert!(e.to_string().contains("file"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_symlink_planted_where_a_temporary_file_may_go_is_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let path = dir.path().join("w.yaml");
    std::fs::write(&path, "old").unwrap();
    // The names the old scheme would have used, for this and the next PIDs.
    for pid in std::process::id()..std::process::id() + 50 {
        let plant = dir.path().join(format!(".w.yaml.mend-{pid}.tmp"));
        std::os::unix::fs::symlink(&victim, plant).unwrap();
    }
    write_atomically(&path, "new").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
}

#[cfg(unix)]
#[test]
fn a_new_file_gets_the_usual_mode_and_an_old_one_keeps_its_own() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.html");
    write_atomically(&new, "x").unwrap();
    let mode = std::fs::metadata(&new).unwrap().permissions().mode() & 0o777;
    assert_ne!(
        mode & 0o044,
        0,
        "readable by others as File::create makes it: {mode:o}"
    );
    let old = dir.path().join("old.yaml");
    std::fs::write(&old, "x").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_atomically(&old, "y").unwrap();
    assert_eq!(
        std::fs::metadata(&old).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

/// `load_treegrams` with the `treegram:` key of `book` set to `named`.
fn load_with_book_treegram(
    shop: &Shop,
    named: &str,
) -> Result<crate::adapt::TreeGrams, RuntimeError> {
    let mut wrapper = shop.wrapper();
    let book = "book".parse().unwrap();
    wrapper.pattern_mut(&book).unwrap().treegram = Some(named.to_owned());
    load_treegrams(&shop.project(), &wrapper)
}

#[test]
fn a_treegram_outside_the_project_is_bad_input() {
    let shop = Shop::new();
    assert_eq!(
        load_treegrams(&shop.project(), &shop.wrapper())
            .unwrap()
            .len(),
        6
    );
    for named in [
        "/dev/zero",
        "/etc/passwd",
        "../outside.html",
        "treegrams/../../x.html",
    ] {
        let e = load_with_book_treegram(&shop, named).unwrap_err();
        assert!(e.is_bad_input(), "{named}: {e}");
        assert!(e.to_string().contains("inside"), "{named}: {e}");
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_a_folder_or_a_link_out_of_the_project_is_no_treegram() {
    let shop = Shop::new();
    let dir = shop.dir.path();
    let fifo = dir.join("treegrams/fifo.html");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let e = load_with_book_treegram(&shop, "treegrams/fifo.html").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
    let e = load_with_book_treegram(&shop, "treegrams").unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("g.html"), "<p>").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("g.html"),
        dir.join("treegrams/link.html"),
    )
    .unwrap();
    let e = load_with_book_treegram(&shop, "treegrams/link.html").unwrap_err();
    assert!(e.to_string().contains("outside the project"), "{e}");
}

#[test]
fn an_oversized_treegram_is_refused_unread() {
    let shop = Shop::new();
    let big = shop.dir.path().join("treegrams/big.html");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(MAX_TREEGRAM_BYTES + 1)
        .unwrap();
    let e = load_with_book_treegram(&shop, "treegrams/big.html").unwrap_err();
    assert!(e.to_string().contains("over the limit"), "{e}");
}

#[test]
fn a_page_of_the_old_layout_is_served_by_the_history_before_any_heal() {
    let shop = Shop::new();
    // The wrapper moved on to a layout this page does not have; its old
    // XPath is in the history.
    let text = std::fs::read_to_string(shop.wrapper_path()).unwrap();
    let moved = text.replace(
        "        xpath: .//p[@class='price']\n",
        "        xpath: .//span[@class='cost']\n        history: [\".//p[@class='price']\"]\n",
    );
    assert_ne!(moved, text);
    std::fs::write(shop.wrapper_path(), &moved).unwrap();
    for mode in [HealMode::Off, HealMode::Propose, HealMode::Auto] {
        let mut runtime = shop.runtime(mode);
        let outputs = run(&mut runtime, &["examples/pages/bookshop.html"]);
        let out = &outputs[0];
        assert!(out.violations.is_empty(), "{mode}: {:?}", out.violations);
        assert!(out.adaptations.is_empty(), "{mode}: {:?}", out.adaptations);
        assert_eq!(
            out.fallbacks,
            vec![serde_json::json!({"pattern": "book/price", "xpath": ".//p[@class='price']"})],
            "{mode}"
        );
        assert!(out.records[0]["book"][0]["price"].is_number(), "{mode}");
        if mode != HealMode::Off {
            let store = runtime.session().store().unwrap();
            let run = store.runs(None).unwrap()[0].id;
            assert_eq!(
                store.fallbacks(run).unwrap(),
                vec![(
                    "book/price".to_owned(),
                    ".//p[@class='price']".to_owned(),
                    1
                )]
            );
        }
        assert_eq!(std::fs::read_to_string(shop.wrapper_path()).unwrap(), moved);
    }
}

#[test]
fn the_output_does_not_depend_on_the_number_of_threads() {
    let shop = Shop::new();
    let mut pages = good_pages_then_one_odd(&shop, 5);
    // The odd page three times among the good ones: the later two reuse
    // the first one's heals.
    pages.insert(2, pages[5].clone());
    pages.insert(4, pages[6].clone());
    let outputs = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut runtime = shop.runtime(HealMode::Propose);
        let outputs = pool.install(|| run_paths(&mut runtime, &pages));
        // Each run has a store of its own, with a tag of its own.
        let tag = runtime.session().tag().unwrap().to_string();
        serde_json::to_string(&outputs)
            .unwrap()
            .replace(&tag, "TAG")
    };
    let one = outputs(1);
    assert!(one.contains("\"pages\":3"), "{one}");
    for threads in [2, 3, 8] {
        assert_eq!(outputs(threads), one, "{threads} threads");
    }
}
