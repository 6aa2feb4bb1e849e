//! `mend snapshot --harden`: brittle XPaths replaced by robust members of
//! their locator ensembles, verified on every page given, in a scratch
//! project with pages written here.

use std::path::PathBuf;

use mend::store::{ChangeId, ChangeKind, ChangeState, Store};
use serde_json::Value;

use crate::support::cli::{Mend, Run};

/// A wrapper with comments, a field by an absolute positional path, a
/// record by one too, and a robust field.
const WRAPPER: &str = "\
# The shop's book page.
name: shop
patterns:
  # The ISBN, copied from the browser's developer tools.
  - name: isbn
    xpath: /html/body/div[2]/ul/li[2]/span   # brittle on purpose
    constraints: {min: 1, max: 1}
  - name: title
    xpath: //h1[@class='title']
    constraints: {min: 1, max: 1}
  - name: spec
    xpath: /html/body/div[2]/table/tbody/tr
    constraints: {min: 1}
    patterns:
      - name: value
        xpath: ./td
        constraints: {min: 1, max: 1}
";

/// A book page: its title, author, ISBN and specification rows; `isbn_attr`
/// and `author_attr` are the attributes of the ISBN's and the author's
/// `<span>`.
fn book(title: &str, author_attr: &str, isbn_attr: &str, specs: &[(&str, &str)]) -> String {
    let rows: String = specs
        .iter()
        .map(|(k, v)| format!("<tr><th>{k}</th><td>{v}</td></tr>\n"))
        .collect();
    format!(
        "<!DOCTYPE html>\n<html><head><title>{title}</title></head><body>\n\
         <div class=\"nav\"><a href=\"/\">Home</a></div>\n\
         <div class=\"book\"><h1 class=\"title\">{title}</h1>\n<ul class=\"facts\">\n\
         <li><b>Author:</b> <span {author_attr}>A. Writer</span></li>\n\
         <li><b>ISBN:</b> <span {isbn_attr}>978-{}</span></li>\n</ul>\n\
         <table class=\"specs\">\n{rows}</table>\n</div>\n</body></html>\n",
        title.len()
    )
}

/// A scratch project: `wrappers/shop.yaml` and pages under `pages/`.
struct Shop {
    dir: tempfile::TempDir,
}

impl Shop {
    fn new(wrapper: &str, pages: &[(&str, String)]) -> Shop {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("wrappers")).unwrap();
        std::fs::create_dir_all(dir.path().join("pages")).unwrap();
        std::fs::write(dir.path().join("wrappers/shop.yaml"), wrapper).unwrap();
        for (name, html) in pages {
            std::fs::write(dir.path().join("pages").join(name), html).unwrap();
        }
        Shop { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn wrapper_text(&self) -> String {
        std::fs::read_to_string(self.path("wrappers/shop.yaml")).unwrap()
    }

    fn mend(&self, args: &[&str]) -> Run {
        Run::from(Mend::new(args).dir(self.dir.path()).output())
    }

    /// `mend snapshot wrappers/shop.yaml PAGES... --harden`, the store at
    /// `store.db`.
    fn harden(&self, pages: &[&str]) -> Run {
        let mut args = vec!["snapshot", "wrappers/shop.yaml"];
        args.extend(pages);
        args.extend(["--harden", "--store", "store.db"]);
        self.mend(&args)
    }

    /// The record the wrapper extracts from a page.
    fn record(&self, page: &str) -> Value {
        let out = self
            .mend(&[
                "run",
                "wrappers/shop.yaml",
                page,
                "--format",
                "json",
                "--heal",
                "off",
                "--store",
                "store.db",
            ])
            .check(0);
        serde_json::from_str::<Value>(&out.stdout).unwrap()["records"][0].clone()
    }

    /// The XPath of the pattern at `path`, as the wrapper file holds it now.
    fn xpath(&self, path: &str) -> String {
        let wrapper = mend::wrapper::load_file(self.path("wrappers/shop.yaml")).unwrap();
        let pattern = wrapper.pattern(&path.parse().unwrap()).unwrap();
        pattern.xpath.source().to_owned()
    }

    /// Every change the store's journal holds, oldest first.
    fn changes(&self) -> Vec<mend::store::ChangeRecord> {
        let store = Store::open(&self.path("store.db")).unwrap();
        (1..)
            .map_while(|id| store.change(ChangeId(id)).unwrap())
            .collect()
    }
}

/// The `PATTERN: OLD -> NEW (KIND)` lines of standard output, as
/// (pattern, old, new, kind).
fn hardened(stdout: &str) -> Vec<(String, String, String, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let (pattern, rest) = line.split_once(": ")?;
            let (old, rest) = rest.split_once(" -> ")?;
            let (new, kind) = rest.rsplit_once(" (")?;
            Some((
                pattern.to_owned(),
                old.to_owned(),
                new.to_owned(),
                kind.strip_suffix(')')?.to_owned(),
            ))
        })
        .collect()
}

fn two_books() -> Vec<(&'static str, String)> {
    vec![
        (
            "a.html",
            book(
                "Dune",
                "class=\"v\"",
                "class=\"v\" itemprop=\"isbn\"",
                &[("Pages", "412"), ("Size", "B")],
            ),
        ),
        (
            "b.html",
            book(
                "Emma",
                "class=\"v\"",
                "class=\"v\" itemprop=\"isbn\"",
                &[("Pages", "320")],
            ),
        ),
    ]
}

#[test]
fn an_absolute_path_is_hardened_in_place_and_extracts_the_same_everywhere() {
    let shop = Shop::new(WRAPPER, &two_books());
    let before: Vec<Value> = ["pages/a.html", "pages/b.html"]
        .iter()
        .map(|p| shop.record(p))
        .collect();
    let out = shop.harden(&["pages/a.html", "pages/b.html"]).check(0);
    let lines = hardened(&out.stdout);
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    let (pattern, old, isbn, kind) = &lines[0];
    assert_eq!(pattern, "isbn");
    assert_eq!(old, "/html/body/div[2]/ul/li[2]/span");
    assert_eq!(kind, "attribute", "{isbn}");
    assert!(isbn.contains("@itemprop='isbn'"), "{isbn}");
    let (pattern, old, spec, kind) = &lines[1];
    assert_eq!(pattern, "spec");
    assert_eq!(old, "/html/body/div[2]/table/tbody/tr");
    // The rows carry no evidence of their own: a short path of tags is
    // the robust choice there.
    assert!(!kind.is_empty());
    assert_eq!(mend::xpath::generate::brittleness(spec), None, "{spec}");
    assert!(!out.stderr.contains("left as"), "{}", out.stderr);

    // Only the two XPath scalars changed: comments, order and layout stay,
    // the old XPaths went to history, the tree-grams are named.
    let text = shop.wrapper_text();
    assert!(
        text.starts_with("# The shop's book page.\nname: shop\npatterns:\n  # The ISBN, copied"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "    xpath: {isbn}   # brittle on purpose\n    treegram: treegrams/shop/isbn.html\n    \
             history:\n      - /html/body/div[2]/ul/li[2]/span\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("history:\n      - /html/body/div[2]/table/tbody/tr\n"),
        "{text}"
    );
    assert!(text.contains("        xpath: ./td\n"), "{text}");
    let wrapper = mend::wrapper::load_file(shop.path("wrappers/shop.yaml")).unwrap();
    let pattern = wrapper.pattern(&"isbn".parse().unwrap()).unwrap();
    assert_eq!(pattern.history, ["/html/body/div[2]/ul/li[2]/span"]);
    assert_eq!(shop.xpath("isbn"), *isbn);
    assert_eq!(shop.xpath("spec"), *spec);

    // The tree-grams were captured with the hardened wrapper.
    let gram = std::fs::read_to_string(shop.path("treegrams/shop/isbn.html")).unwrap();
    let gram = mend::treegram::TreeGram::parse(gram.as_bytes()).unwrap();
    assert_eq!(gram.header.xpath, *isbn);
    let gram = std::fs::read_to_string(shop.path("treegrams/shop/spec/value.html")).unwrap();
    assert!(gram.contains("<meta name=\"mend:xpath\" content=\"./td\">"));

    let after: Vec<Value> = ["pages/a.html", "pages/b.html"]
        .iter()
        .map(|p| shop.record(p))
        .collect();
    assert_eq!(after, before);
    assert_eq!(after[0]["spec"][1]["value"], "B");
}

#[test]
fn a_locator_that_fails_on_another_page_is_not_chosen() {
    let mut pages = two_books();
    // On the second page the `itemprop` sits on the author: the attribute
    // locator of page a selects the wrong span there.
    pages[1].1 = book(
        "Emma",
        "class=\"v\" itemprop=\"isbn\"",
        "class=\"v\"",
        &[("Pages", "320")],
    );
    let shop = Shop::new(WRAPPER, &pages);
    let before = shop.record("pages/b.html");
    let out = shop
        .harden(&["pages/a.html", "pages/b.html", "--pattern", "isbn"])
        .check(0);
    let lines = hardened(&out.stdout);
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    let (_, _, isbn, kind) = &lines[0];
    assert_ne!(kind, "attribute", "{isbn}");
    assert!(!isbn.contains("itemprop"), "{isbn}");
    assert_eq!(shop.xpath("isbn"), *isbn);
    assert_eq!(shop.record("pages/b.html"), before);
    // --pattern kept the record pattern as it was.
    assert_eq!(shop.xpath("spec"), "/html/body/div[2]/table/tbody/tr");

    // The one-page form would have taken the attribute.
    let alone = Shop::new(WRAPPER, &pages);
    let out = alone
        .harden(&["pages/a.html", "--pattern", "isbn"])
        .check(0);
    assert_eq!(hardened(&out.stdout)[0].3, "attribute", "{}", out.stdout);
}

#[test]
fn a_pattern_no_locator_holds_for_stays_with_a_note() {
    let wrapper = "name: shop\npatterns:\n  - name: second\n    xpath: /html/body/div[1]/p[2]\n    constraints: {min: 1, max: 1}\n";
    let shop = Shop::new(
        wrapper,
        &[
            (
                "a.html",
                "<html><body><div><p>x</p><p>y</p></div></body></html>".to_owned(),
            ),
            (
                "b.html",
                "<html><body><div><p>x</p><p>y</p></div><div><p>q</p><p>r</p></div></body></html>"
                    .to_owned(),
            ),
        ],
    );
    let out = shop.harden(&["pages/a.html", "pages/b.html"]).check(0);
    assert!(hardened(&out.stdout).is_empty(), "{}", out.stdout);
    let notes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("second: left as /html/body/div[1]/p[2]: brittle ("))
        .collect();
    assert_eq!(notes.len(), 1, "{}", out.stderr);
    assert!(notes[0].contains("pages/b.html"), "{}", notes[0]);
    assert_eq!(shop.xpath("second"), "/html/body/div[1]/p[2]");
    assert!(!shop.wrapper_text().contains("history"));
    // The tree-grams are still captured, as a snapshot.
    assert!(shop.path("treegrams/shop/second.html").is_file());
    let kinds: Vec<ChangeKind> = shop.changes().iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ChangeKind::Snapshot]);
}

#[test]
fn a_robust_xpath_is_left_untouched() {
    let wrapper = "\
name: shop
patterns:
  - name: title   # by its class
    xpath: //h1[@class='title']
  - name: isbn
    xpath: //span[@itemprop='isbn']
";
    let shop = Shop::new(wrapper, &two_books());
    let out = shop.harden(&["pages/a.html", "pages/b.html"]).check(0);
    assert!(hardened(&out.stdout).is_empty(), "{}", out.stdout);
    assert!(!out.stderr.contains("left as"), "{}", out.stderr);
    assert!(!out.stderr.contains("brittle"), "{}", out.stderr);
    let text = shop.wrapper_text();
    assert!(!text.contains("history"), "{text}");
    assert!(
        text.contains("  - name: title   # by its class\n    xpath: //h1[@class='title']\n"),
        "{text}"
    );
    assert_eq!(shop.xpath("isbn"), "//span[@itemprop='isbn']");
}

#[test]
fn the_hardening_is_one_journaled_change_marked_done() {
    let shop = Shop::new(WRAPPER, &two_books());
    shop.harden(&["pages/a.html", "pages/b.html"]).check(0);
    let changes = shop.changes();
    assert_eq!(changes.len(), 1, "{changes:?}");
    let change = &changes[0];
    assert_eq!(change.kind, ChangeKind::Harden);
    assert_eq!(change.state, ChangeState::Done);
    let wrapper = shop.path("wrappers/shop.yaml").canonicalize().unwrap();
    assert_eq!(change.wrapper_path, wrapper);
    // The wrapper and its tree-grams, in one change.
    let file = change.files.iter().find(|f| f.path == wrapper).unwrap();
    assert_eq!(file.before.as_deref(), Some(WRAPPER.as_bytes()));
    assert_eq!(file.after, shop.wrapper_text().into_bytes());
    let grams = change
        .files
        .iter()
        .filter(|f| f.path.to_string_lossy().ends_with(".html"))
        .count();
    assert_eq!(grams, 4, "{:?}", change.files);
    let store = Store::open(&shop.path("store.db")).unwrap();
    assert!(store.pending_changes(None).unwrap().is_empty());
}

#[test]
fn several_pages_without_harden_record_what_varies_and_one_page_snapshots_as_before() {
    let shop = Shop::new(WRAPPER, &two_books());
    let out = shop
        .mend(&[
            "snapshot",
            "wrappers/shop.yaml",
            "pages/a.html",
            "pages/b.html",
            "--store",
            "several.db",
        ])
        .check(0);
    // Nothing is hardened without --harden; each tree-gram says what the
    // two pages showed of its pattern.
    assert!(hardened(&out.stdout).is_empty(), "{}", out.stdout);
    assert_eq!(shop.xpath("isbn"), "/html/body/div[2]/ul/li[2]/span");
    let gram = std::fs::read_to_string(shop.path("treegrams/shop/isbn.html")).unwrap();
    assert!(
        gram.contains(r#"<meta name="mend:pages" content="2">"#),
        "{gram}"
    );
    assert!(
        gram.contains(r#"<meta name="mend:present" content="2">"#),
        "{gram}"
    );
    std::fs::remove_dir_all(shop.path("treegrams")).unwrap();
    let out = shop
        .mend(&[
            "snapshot",
            "wrappers/shop.yaml",
            "pages/a.html",
            "--store",
            "store.db",
        ])
        .check(0);
    assert!(hardened(&out.stdout).is_empty(), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("isbn: treegrams/shop/isbn.html (1 instance)")
    );
    assert!(
        out.stderr
            .contains("warning: isbn: /html/body/div[2]/ul/li[2]/span is brittle")
    );
    assert_eq!(shop.xpath("isbn"), "/html/body/div[2]/ul/li[2]/span");
    // A page the wrapper fails on is refused, whichever it is.
    std::fs::write(
        shop.path("pages/c.html"),
        "<html><body><p>gone</p></body></html>",
    )
    .unwrap();
    let out = shop.harden(&["pages/a.html", "pages/c.html"]).check(1);
    assert!(out.stderr.contains("pages/c.html"), "{}", out.stderr);
    assert_eq!(shop.xpath("isbn"), "/html/body/div[2]/ul/li[2]/span");
}
