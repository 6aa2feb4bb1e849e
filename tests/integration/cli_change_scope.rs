//! Change sensing from the command line: each adaptation of `mend run`
//! carries the scope of the page's change (`change_scope`), the store keeps
//! it, and `mend log` shows it; a wrapper's `adapt.search_scope` chooses
//! whether a local change is searched for in its old parent first.

use serde_json::Value;

use crate::support::cli::{Mend, Run};

/// A shop's product page at `path`: a menu linking the four pages of the
/// site, the product with its price, a footer. The price's XPath counts the
/// body's children, as a recorded XPath often does.
fn page(path: &str, title: &str, price: &str) -> String {
    format!(
        r#"<!DOCTYPE html><html><head><base href="https://shop.example{path}"><title>{title}</title></head><body>
<nav class="menu"><a href="/a">Dune</a> <a href="/b">Emma</a> <a href="/c">Ulysses</a> <a href="/d">Beloved</a></nav>
<main id="content">
  <div class="product">
    <h1 class="title">{title}</h1>
    <div class="buy"><span class="label">Price</span><span class="price">{price}</span></div>
    <p class="note">In stock</p>
  </div>
</main>
<footer><p class="legal">© Shop Ltd</p></footer>
</body></html>"#
    )
}

const WRAPPER: &str = r#"name: shop
adapt: {mode: propose}
patterns:
  - name: price
    xpath: "/html/body/*[2]/div/div/span[2]"
    extract: text
    constraints: {min: 1, max: 1, regex: "^£[0-9]+\\.[0-9]{2}$"}
"#;

/// A project with the wrapper and the four pages, the tree-grams captured
/// on the first.
struct Shop {
    dir: tempfile::TempDir,
}

impl Shop {
    fn new(wrapper: &str) -> Shop {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("wrappers")).unwrap();
        std::fs::write(dir.path().join("wrappers/shop.yaml"), wrapper).unwrap();
        for (p, title, price) in [
            ("/a", "Dune", "£12.99"),
            ("/b", "Emma", "£8.00"),
            ("/c", "Ulysses", "£15.50"),
            ("/d", "Beloved", "£9.25"),
        ] {
            std::fs::write(
                dir.path().join(format!("{}.html", &p[1..])),
                page(p, title, price),
            )
            .unwrap();
        }
        Shop { dir }
    }

    fn mend(&self, args: &[&str]) -> Run {
        Run::from(Mend::new(args).dir(self.dir.path()).output())
    }

    fn snapshot(&self) {
        self.mend(&["snapshot", "wrappers/shop.yaml", "a.html"])
            .check(0);
    }

    fn write(&self, name: &str, html: &str) {
        std::fs::write(self.dir.path().join(name), html).unwrap();
    }

    /// The adaptations of a run on `name`, healing as the wrapper says.
    fn run(&self, name: &str) -> Vec<Value> {
        let run = self.mend(&[
            "run",
            "wrappers/shop.yaml",
            name,
            "--format",
            "json",
            "--store",
            "store.db",
        ]);
        run.json()["adaptations"].as_array().unwrap().clone()
    }
}

fn scope_and_value(adaptations: &[Value]) -> Vec<(String, String, Value)> {
    adaptations
        .iter()
        .map(|a| {
            (
                a["change_scope"].as_str().unwrap_or("(none)").to_owned(),
                a["status"].as_str().unwrap().to_owned(),
                a["new_xpath"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_sibling_before_the_price_is_a_local_change_healed_in_its_parent_and_logged() {
    let shop = Shop::new(WRAPPER);
    shop.snapshot();
    // A sibling before the price, whose class is renamed too: no locator
    // of the tree-gram finds it, the search must.
    let a = page("/a", "Dune", "£12.99").replace(
        r#"<span class="label">Price</span><span class="price">"#,
        r#"<span class="label">Price</span><span class="was">was £15.00</span><span class="amount">"#,
    );
    shop.write("a-local.html", &a);
    let adaptations = shop.run("a-local.html");
    let got = scope_and_value(&adaptations);
    assert_eq!(got.len(), 1, "{adaptations:#?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str()),
        ("local", "proposed")
    );
    assert_eq!(adaptations[0]["found_in_parent"], true, "{adaptations:#?}");
    // The store keeps the scope, and the log shows it.
    let log = shop.mend(&["log", "--store", "store.db"]).check(0);
    let header = log.stdout.lines().next().unwrap();
    assert!(header.contains("CHANGE"), "{}", log.stdout);
    assert!(
        log.stdout.lines().nth(1).unwrap().contains(" local "),
        "{}",
        log.stdout
    );
    let json = shop
        .mend(&["log", "--store", "store.db", "--json"])
        .check(0)
        .json();
    assert_eq!(json[0]["change_scope"], "local");
}

#[test]
fn a_renamed_parent_is_a_structural_change() {
    let shop = Shop::new(WRAPPER);
    shop.snapshot();
    let a = page("/a", "Dune", "£12.99")
        .replace(r#"<div class="buy">"#, r#"<section class="purchase">"#)
        .replace(r#"</span></div>"#, r#"</span></section>"#);
    shop.write("a-structural.html", &a);
    let got = scope_and_value(&shop.run("a-structural.html"));
    assert_eq!(got[0].0, "structural", "{got:?}");
}

#[test]
fn a_redesigned_menu_that_moves_the_content_is_a_template_change() {
    let shop = Shop::new(WRAPPER);
    let template = shop.mend(&[
        "template",
        "wrappers/shop.yaml",
        "a.html",
        "b.html",
        "c.html",
        "d.html",
    ]);
    template.check(0);
    shop.snapshot();
    // The menu becomes a header with a bar and a strip: the body's second
    // child is no longer the content, which is untouched.
    let a = page("/a", "Dune", "£12.99").replace(
        r#"<nav class="menu">"#,
        r#"<header class="top"><div class="strip">Free delivery</div></header><nav class="bar">"#,
    );
    shop.write("a-template.html", &a);
    let got = scope_and_value(&shop.run("a-template.html"));
    assert_eq!(got[0].0, "template", "{got:?}");
    assert_eq!(got[0].1, "proposed", "{got:?}");
    // Without the site's template nothing says the frame moved it: the
    // context stands whole elsewhere, its parent unchanged: a local change
    // (here the locators agree on the price before any search).
    let plain = Shop::new(WRAPPER);
    plain.snapshot();
    plain.write("a-template.html", &a);
    let adaptations = plain.run("a-template.html");
    let got = scope_and_value(&adaptations);
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str()),
        ("local", "proposed"),
        "{got:?}"
    );
}

#[test]
fn parent_first_and_whole_page_search_heal_a_local_change_alike() {
    let a = page("/a", "Dune", "£12.99").replace(
        r#"<span class="price">£12.99</span>"#,
        r#"<em>now</em> <b><span class="amount">£12.99</span></b>"#,
    );
    let mut found = Vec::new();
    for scope in ["parent-first", "page"] {
        let shop = Shop::new(&WRAPPER.replace(
            "adapt: {mode: propose}",
            &format!("adapt: {{mode: propose, search_scope: {scope}}}"),
        ));
        shop.snapshot();
        shop.write("a-wrapped.html", &a);
        let adaptations = shop.run("a-wrapped.html");
        // Only parent-first finds it in the old parent's region.
        assert_eq!(
            adaptations[0]["found_in_parent"],
            scope == "parent-first",
            "{adaptations:#?}"
        );
        let got = scope_and_value(&adaptations);
        assert_eq!(got[0].0, "local", "{scope}: {got:?}");
        assert_eq!(got[0].1, "proposed", "{scope}: {got:?}");
        found.push((got[0].2.clone(), adaptations[0]["score"].clone()));
    }
    // The same node at the same score: the old parent's region is ranked
    // whole, as the whole page's search ranks it (its root once lost its
    // label, so only its pieces were ranked, at a lower score).
    assert_eq!(found[0], found[1]);
    // A scope the wrapper cannot take is a diagnostic, not a default.
    let shop = Shop::new(&WRAPPER.replace(
        "adapt: {mode: propose}",
        "adapt: {mode: propose, search_scope: nearby}",
    ));
    let out = shop.mend(&["validate", "wrappers/shop.yaml"]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("search_scope"),
        "{}{}",
        out.stdout,
        out.stderr
    );
}
