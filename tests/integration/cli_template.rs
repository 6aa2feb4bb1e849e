//! `mend template`: the site's template found from a key page's links (a
//! local site on 127.0.0.1 whose menu pages link to each other) or from
//! saved pages, written beside the tree-grams, with the pages loaded
//! counted.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::cli::{Mend, stderr, stdout};

/// A page of the site at `path`: the same header, menu and footer, links
/// in the menu to the other menu pages, and `content`.
fn site_page(path: &str, content: &str, extra_links: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>{path}</title></head><body>\
         <header class=\"top\"><a class=\"logo\" href=\"/\">Books</a>\
         <nav id=\"menu\"><a href=\"/new\">New</a> <a href=\"/sale\">Sale</a> \
         <a href=\"/help\">Help</a></nav></header>\
         <main id=\"main\"><h1>{path}</h1>{content}{extra_links}</main>\
         <footer><p class=\"legal\">© Books Ltd</p></footer></body></html>"
    )
}

/// The site: home links to a featured book before its menu (in its header,
/// which so differs from the others'), and to another book after it; the
/// books link back home only.
fn site() -> HashMap<String, String> {
    let mut pages = HashMap::new();
    pages.insert(
        "/".to_owned(),
        site_page("/", "<p>Welcome</p>", "<a href=\"/book/2\">B2</a>").replacen(
            "<a class=\"logo\"",
            "<a href=\"/book/1\">Featured</a><a class=\"logo\"",
            1,
        ),
    );
    for p in ["/new", "/sale", "/help"] {
        pages.insert(p.to_owned(), site_page(p, "<ul><li>Offer</li></ul>", ""));
    }
    for b in ["/book/1", "/book/2"] {
        pages.insert(
            b.to_owned(),
            format!("<!DOCTYPE html><html><body><h1>{b}</h1><a href=\"/\">Home</a></body></html>"),
        );
    }
    pages
}

const WRAPPER: &str = "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("wrappers")).unwrap();
    std::fs::write(dir.path().join("wrappers/shop.yaml"), WRAPPER).unwrap();
    dir
}

#[test]
fn the_template_is_found_from_the_key_pages_links_and_the_loads_counted() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = asked.clone();
    let pages = site();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop = done.clone();
    let server = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline && !stop.load(std::sync::atomic::Ordering::SeqCst) {
            let Ok((stream, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream);
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
            log.lock().unwrap().push(path.clone());
            let mut stream = reader.into_inner();
            let (status, body) = match pages.get(&path) {
                Some(b) => ("200 OK", b.clone()),
                None => ("404 Not Found", String::new()),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let dir = project();
    let url = format!("http://{addr}/");
    let out = Mend::new(&["template", "wrappers/shop.yaml", &url])
        .dir(dir.path())
        .output();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Home, then a featured book (it links back home only), then the menu
    // pages; the other book is not needed.
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked, ["/", "/book/1", "/new", "/sale", "/help"]);
    let report = stdout(&out);
    assert!(
        report.contains("from 4 pages; 5 pages loaded: 4 pages fetched by their links"),
        "{report}"
    );
    let template =
        std::fs::read_to_string(dir.path().join("treegrams/shop/site.template.html")).unwrap();
    assert!(
        template.contains("mend site template of 4 pages"),
        "{template}"
    );
    // The key page's header differs (the featured link): the header is a
    // placeholder, the footer is the template's.
    assert!(
        template.contains("<header data-mend-content=\"\"></header>"),
        "{template}"
    );
    assert!(
        template.contains("<p class=\"legal\">© Books Ltd</p>"),
        "{template}"
    );
    assert!(
        !template.contains("Welcome") && !template.contains("Offer"),
        "{template}"
    );
    // The wrapper is as it was.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("wrappers/shop.yaml")).unwrap(),
        WRAPPER
    );
}

#[test]
fn saved_pages_that_link_to_each_other_are_taken_by_their_links() {
    let dir = project();
    let pages = site();
    // Each saved page names its URL with <base href>, as a crawl keeps it.
    for (i, p) in ["/", "/book/1", "/new", "/sale", "/help"]
        .iter()
        .enumerate()
    {
        let html = pages[*p].replacen(
            "<html>",
            &format!("<html><base href=\"https://shop.example{p}\">"),
            1,
        );
        std::fs::write(dir.path().join(format!("p{i}.html")), html).unwrap();
    }
    let out = Mend::new(&[
        "template",
        "wrappers/shop.yaml",
        "p0.html",
        "p1.html",
        "p2.html",
        "p3.html",
        "p4.html",
    ])
    .dir(dir.path())
    .output();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.contains("from 4 pages"), "{report}");
    assert!(
        report.contains("4 pages of 5 given tried by their links"),
        "{report}"
    );
    assert!(
        !report.contains("p1.html"),
        "the book is not among them: {report}"
    );
    // One saved page, or a URL among files, is refused.
    for args in [
        &["template", "wrappers/shop.yaml", "p0.html"][..],
        &[
            "template",
            "wrappers/shop.yaml",
            "p0.html",
            "http://127.0.0.1:9/",
        ],
        &[
            "template",
            "wrappers/shop.yaml",
            "p0.html",
            "p1.html",
            "--n",
            "1",
        ],
    ] {
        let out = Mend::new(args).dir(dir.path()).output();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    assert!(Path::new(&dir.path().join("treegrams/shop/site.template.html")).exists());
}

/// A shop project with `wrapper`, the four pages `p0.html`..`p3.html`
/// and `new.html`; with `with_template`, the site's template learned from
/// the four first; then a snapshot of `p0.html`.
fn shop(wrapper: &str, pages: &[String], new: &str, with_template: bool) -> tempfile::TempDir {
    let dir = project();
    std::fs::write(dir.path().join("wrappers/shop.yaml"), wrapper).unwrap();
    for (i, page) in pages.iter().enumerate() {
        std::fs::write(dir.path().join(format!("p{i}.html")), page).unwrap();
    }
    std::fs::write(dir.path().join("new.html"), new).unwrap();
    if with_template {
        let out = Mend::new(&[
            "template",
            "wrappers/shop.yaml",
            "p0.html",
            "p1.html",
            "p2.html",
            "p3.html",
        ])
        .dir(dir.path())
        .output();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = Mend::new(&["snapshot", "wrappers/shop.yaml", "p0.html"])
        .dir(dir.path())
        .output();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    dir
}

/// `mend run --heal propose` on the shop's `new.html`: its first line.
fn run_new(dir: &Path) -> serde_json::Value {
    let out = Mend::new(&["run", "wrappers/shop.yaml", "new.html", "--heal", "propose"])
        .dir(dir)
        .output();
    serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap()
}

/// A book page of a shop whose header holds an `h1` of the same class as
/// the book's title; `title: None` is a page without the book's title.
fn book_page(title: Option<&str>, price: &str, about: &str) -> String {
    let heading = title.map_or(String::new(), |t| format!("<h1 class=\"title\">{t}</h1>"));
    format!(
        "<!DOCTYPE html><html><head><title>Shop</title></head><body>\
         <header class=\"site\"><h1 class=\"title\">Books Ltd</h1><nav><a href=\"/new\">New</a> \
         <a href=\"/sale\">Sale</a></nav></header>\
         <main class=\"content\">{heading}<p class=\"price\">{price}</p>\
         <div class=\"about\">{about}</div></main>\
         <footer><p>© Books Ltd</p></footer></body></html>"
    )
}

#[test]
fn a_content_field_is_not_healed_onto_the_sites_frame() {
    let books = [
        ("The Hobbit", "£8.99"),
        ("Dune", "£9.50"),
        ("Emma", "£4.25"),
        ("Ulysses", "£12.00"),
    ];
    let wrapper = "name: shop\npatterns:\n  - name: title\n    xpath: \"//main/h1[@class='title']\"\n    constraints: {min: 1, max: 1}\n";
    let pages: Vec<String> = books
        .iter()
        .map(|(t, p)| book_page(Some(t), p, &format!("About {t}")))
        .collect();
    // The book's title is gone from the new page.
    let new = book_page(None, "£7.10", "About it");
    let setup = |with_template: bool| shop(wrapper, &pages, &new, with_template);
    // Without the template, the header's heading of the same tag and class
    // is refused too: it has another text than the title and stands among
    // none of the title's neighbours (the price, the about text), a
    // lookalike, and the heal model gives it no confidence.
    let plain = setup(false);
    let json = run_new(plain.path());
    assert_eq!(
        json["records"][0]["title"],
        serde_json::Value::Null,
        "{json}"
    );
    let proposals = json["adaptations"][0]["proposals"].as_array().unwrap();
    assert!(
        proposals
            .iter()
            .any(|p| p["features"]["lookalike"] == 1.0 && p["nodes"][0] == "/html/body/header/h1"),
        "{json}"
    );
    // With it, the tree-gram knows the title was the page's own content,
    // the header is the frame, and the missing title stays missing.
    let framed = setup(true);
    let gram = std::fs::read_to_string(framed.path().join("treegrams/shop/title.html")).unwrap();
    assert!(
        gram.contains("<meta name=\"mend:frame\" content=\"no\">"),
        "{gram}"
    );
    let json = run_new(framed.path());
    assert_eq!(
        json["records"][0]["title"],
        serde_json::Value::Null,
        "{json}"
    );
    assert_eq!(json["adaptations"][0]["status"], "abstained", "{json}");
    assert_eq!(json["violations"][0]["constraint"], "min", "{json}");
}

/// A listing page of the shop: the menu's list in the header, and the
/// page's own list of books (none: a notice instead).
fn listing_page(books: &[&str]) -> String {
    let list = if books.is_empty() {
        "<p class=\"notice\">Nothing in this category yet</p>".to_owned()
    } else {
        let items: String = books
            .iter()
            .map(|b| format!("<li class=\"book\"><a href=\"/b/{b}\">{b}</a></li>"))
            .collect();
        format!("<ul class=\"books\">{items}</ul>")
    };
    format!(
        "<!DOCTYPE html><html><body>\
         <header><ul class=\"menu\"><li><a href=\"/new\">New</a></li><li><a href=\"/sale\">Sale</a></li>\
         <li><a href=\"/help\">Help</a></li><li><a href=\"/about\">About</a></li></ul></header>\
         <main><h1>Books</h1>{list}</main>\
         <footer><p>© Books Ltd</p></footer></body></html>"
    )
}

#[test]
fn a_content_record_is_not_healed_onto_the_sites_menu() {
    let wrapper = "name: shop\npatterns:\n  - name: books\n    xpath: \"//ul[@class='books']/li\"\n    constraints: {min: 2}\n    patterns:\n      - name: title\n        xpath: .\n        extract: normalized\n";
    let lists: [&[&str]; 4] = [
        &["Dune", "Emma", "Ulysses"],
        &["Beloved", "Middlemarch"],
        &["Persuasion", "Hamlet", "Macbeth", "Othello"],
        &["Ivanhoe", "Rebecca"],
    ];
    let pages: Vec<String> = lists.iter().map(|list| listing_page(list)).collect();
    let setup = |with_template: bool| shop(wrapper, &pages, &listing_page(&[]), with_template);
    // The control: without the template, the menu's items are taken for
    // the missing books.
    let plain = setup(false);
    let json = run_new(plain.path());
    assert_eq!(json["adaptations"][0]["status"], "proposed", "{json}");
    assert_eq!(json["records"][0]["books"][0]["title"][0], "New", "{json}");
    // With it, the menu is the frame and no book is made up.
    let framed = setup(true);
    let json = run_new(framed.path());
    assert_eq!(json["adaptations"][0]["status"], "abstained", "{json}");
    assert!(
        json["adaptations"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("frame"),
        "{json}"
    );
}
