//! `mend review` over HTTP: the page lists the store's adaptations, and
//! refuses what must be refused: a request without the token, for another
//! host, a POST from another origin, and any way for a stored page to run
//! code in it. The server listens on 127.0.0.1 only and stops by itself.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr, TcpStream, UdpSocket};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::cli::{Mend, bookshop_project};

/// A `mend review` of a project's store, killed when dropped (and stopping
/// by itself after a minute in any case).
pub(crate) struct Review {
    child: Child,
    pub(crate) url: String,
}

impl Review {
    pub(crate) fn start(dir: &Path) -> Review {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mend"))
            .args([
                "review",
                "--store",
                "wrappers/.mend/mend.db",
                "--seconds",
                "60",
            ])
            .current_dir(dir)
            .env_remove("MEND_STORE")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
        Review { child, url }
    }

    fn port(&self) -> u16 {
        url::Url::parse(&self.url).unwrap().port().unwrap()
    }

    /// The path every page is under: `/TOKEN/`.
    pub(crate) fn root(&self) -> String {
        url::Url::parse(&self.url).unwrap().path().to_owned()
    }
}

impl Drop for Review {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

/// The bookshop project after a run that proposes heals for the redesign.
pub(crate) fn healed_project() -> tempfile::TempDir {
    let dir = bookshop_project();
    propose(dir.path(), "pages/bookshop-redesign.html");
    dir
}

/// Captures the bookshop's tree-grams on its good page, then runs it over
/// `page` with `--heal propose`.
fn propose(dir: &Path, page: &str) {
    for args in [
        &["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"][..],
        &["run", "wrappers/bookshop.yaml", page, "--heal", "propose"],
    ] {
        let out = Mend::new(args).dir(dir).output();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{args:?}: {out:?}"
        );
    }
}

#[test]
fn the_list_shows_each_proposal_and_the_page_shows_one() {
    let dir = healed_project();
    let review = Review::start(dir.path());
    let http = client();
    let list = http.get(&review.url).send().unwrap();
    assert_eq!(list.status(), 200);
    let policy = list.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"));
    let text = list.text().unwrap();
    let root = review.root();
    for expected in [
        format!("<a href=\"{root}w/bookshop\">bookshop</a> · <code>book</code>"),
        "<code>//li/div/div</code>".to_owned(),
        format!("href=\"{root}a/1\""),
    ] {
        assert!(text.contains(&expected), "{expected} not in {text}");
    }
    let one = http.get(format!("{}a/1", review.url)).send().unwrap();
    assert_eq!(one.status(), 200);
    let text = one.text().unwrap();
    assert!(text.contains("Adaptation 1 of <code>book</code>"), "{text}");
    assert!(text.contains("<iframe sandbox=\"\""), "{text}");
    let pending = http
        .get(format!("{}?status=applied", review.url))
        .send()
        .unwrap();
    assert!(pending.text().unwrap().contains("No adaptation matches."));
}

/// The proposal for `book/in_stock` in a healed bookshop project: a field
/// nested in the `book` records, whose record pattern was healed on the
/// same page.
const IN_STOCK: &str = "3";

#[test]
fn a_proposal_page_shows_the_diff_and_preview_that_mend_show_gives() {
    let dir = healed_project();
    let show = Mend::new(&["show", IN_STOCK, "--json"])
        .dir(dir.path())
        .output();
    assert!(show.status.success(), "{show:?}");
    let show: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(show["pattern"], "book/in_stock");
    let review = Review::start(dir.path());
    let page = client()
        .get(format!("{}a/{IN_STOCK}", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    // Every line of the diff `mend show` prints, as the page escapes it.
    let diff = show["yaml_diff"].as_str().unwrap();
    assert!(diff.contains("+        xpath: "), "{diff}");
    for line in diff.lines() {
        let escaped = line
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;");
        assert!(page.contains(&escaped), "{line:?} not on the page: {page}");
    }
    // The same preview, page by page.
    for p in show["preview"].as_array().unwrap() {
        let row = format!(
            "<code>{}</code></td><td class=\"effect",
            p["name"].as_str().unwrap()
        );
        assert!(page.contains(&row), "{row} not on the page");
        assert!(page.contains(p["effect"].as_str().unwrap()));
    }
    assert!(page.contains("0 fixed, 1 unchanged, 0 changed, 0 broken, 0 still violated"));
    // The old side is the page the tree-grams were captured on.
    assert!(
        page.contains("Old: <code>pages/bookshop.html</code>, where the tree-gram was captured")
    );
    assert!(page.contains("New: <code>pages/bookshop-redesign.html</code>"));
    // The sub-trees aligned: the stock line pairs with the availability
    // line under the same number, both marked as selected.
    let stock = "p.stock.in &quot;In stock&quot; <span class=\"pair\">[6]</span>";
    let availability =
        "p.availability.available &quot;In stock&quot; <span class=\"pair\">[6]</span>";
    for line in [stock, availability] {
        assert!(page.contains(line), "{line} not on the page: {page}");
    }
    assert_eq!(page.matches("◀ selected").count(), 2);
    assert!(page.contains("data-pair=\"5\""));
    assert!(page.contains("6 elements paired by simple tree matching"));
}

#[test]
fn a_nested_pattern_is_marked_in_its_parents_instances_on_the_captured_page() {
    // The stock field as a child step: from the page's root `./p` selects
    // nothing, so only an evaluation in the books' instances marks it.
    let dir = bookshop_project();
    let wrapper = dir.path().join("wrappers/bookshop.yaml");
    let text = std::fs::read_to_string(&wrapper).unwrap();
    let child = text.replace(
        "xpath: .//p[contains(concat(' ', normalize-space(@class), ' '), ' stock ')]",
        "xpath: ./p[contains(concat(' ', normalize-space(@class), ' '), ' stock ')]",
    );
    assert_ne!(child, text);
    std::fs::write(&wrapper, child).unwrap();
    propose(dir.path(), "pages/bookshop-redesign.html");
    let log = Mend::new(&["log", "--json", "--pattern", "book/in_stock"])
        .dir(dir.path())
        .output();
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    let id = &log[0]["id"];
    assert!(
        log[0]["new_xpath"].as_str().unwrap().starts_with("./"),
        "{log}"
    );
    let review = Review::start(dir.path());
    let http = client();
    let side = |side: &str| {
        http.get(format!("{}a/{id}/page/{side}", review.url))
            .send()
            .unwrap()
            .text()
            .unwrap()
    };
    let (old, new) = (side("old"), side("new"));
    // One mention in the page's style, then one per marked node.
    for (name, page, class) in [("old", &old, "stock in"), ("new", &new, "availability")] {
        assert_eq!(
            page.matches("data-mend-target").count() - 1,
            6,
            "{name}: {page}"
        );
        assert!(page.contains(class), "{name}");
    }
    // The old page is the captured page, not the redesign the run read.
    assert!(old.contains("class=\"books\""), "{old}");
    assert!(!new.contains("class=\"books\""));
}

#[test]
fn the_list_filters_by_the_class_of_change() {
    let dir = healed_project();
    let review = Review::start(dir.path());
    let http = client();
    let rows = |query: &str| {
        http.get(format!("{}?{query}", review.url))
            .send()
            .unwrap()
            .text()
            .unwrap()
            .matches("<tr class=\"row\"")
            .count()
    };
    assert_eq!(rows(""), 3);
    assert_eq!(rows("class=missing"), 3);
    assert_eq!(rows("class=drift"), 0);
    assert_eq!(rows("class=value&status=pending"), 0);
    // An unknown class filters nothing out.
    assert_eq!(rows("class=moved"), 3);
}

#[test]
fn a_request_without_the_token_or_for_another_host_is_refused() {
    let dir = healed_project();
    let review = Review::start(dir.path());
    let http = client();
    let base = format!("http://127.0.0.1:{}", review.port());
    let token = review
        .url
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    for path in [
        "/".to_owned(),
        "/a/1".to_owned(),
        "/assets/review.js".to_owned(),
        format!("/{}/", &token[..token.len() - 1]),
        format!("/{token}x/"),
    ] {
        let r = http.get(format!("{base}{path}")).send().unwrap();
        assert_eq!(r.status(), 404, "{path}");
        assert!(!r.text().unwrap().contains("bookshop"), "{path}");
    }
    // A page of another site that resolves its own name to 127.0.0.1.
    let r = http
        .get(&review.url)
        .header("host", format!("evil.test:{}", review.port()))
        .send()
        .unwrap();
    assert_eq!(r.status(), 421);
}

#[test]
fn a_post_from_another_origin_is_refused() {
    let dir = healed_project();
    let review = Review::start(dir.path());
    let http = client();
    for headers in [
        vec![("origin", "http://evil.test")],
        vec![("origin", "null")],
        vec![("referer", "http://evil.test/")],
        vec![
            ("sec-fetch-site", "cross-site"),
            ("origin", "http://evil.test"),
        ],
        vec![],
    ] {
        let mut request = http.post(format!("{}a/1/approve", review.url));
        for (k, v) in &headers {
            request = request.header(*k, *v);
        }
        let r = request.send().unwrap();
        assert_eq!(r.status(), 403, "{headers:?}");
    }
}

#[test]
fn a_stored_page_with_scripts_cannot_run_them_in_the_review_page() {
    let dir = bookshop_project();
    // Both sides hostile: the page the tree-grams are captured on (the old
    // side) and the redesign the run reads (the new side).
    let hostile = |page: &str| {
        std::fs::read_to_string(dir.path().join(page))
            .unwrap()
            .replace(
                "<body>",
                "<body onload=\"alert(1)\"><script>document.title='owned'</script>\
                 <img src=\"http://127.0.0.1:9/x.png\" onerror=\"alert(2)\">",
            )
    };
    let redesign = hostile("pages/bookshop-redesign.html");
    let captured = hostile("pages/bookshop.html");
    std::fs::write(dir.path().join("pages/hostile.html"), redesign).unwrap();
    std::fs::write(dir.path().join("pages/bookshop.html"), captured).unwrap();
    propose(dir.path(), "pages/hostile.html");
    let review = Review::start(dir.path());
    let http = client();
    for side in ["old", "new"] {
        let r = http
            .get(format!("{}a/1/page/{side}", review.url))
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        let policy = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        for part in ["default-src 'none'", "sandbox", "img-src data:"] {
            assert!(policy.contains(part), "{policy}");
        }
        assert!(!policy.contains("script-src"), "{policy}");
        let page = r.text().unwrap().to_ascii_lowercase();
        for bad in ["<script", "onload", "onerror", "src=", "alert("] {
            assert!(!page.contains(bad), "{bad} in the {side} page: {page}");
        }
        assert!(
            page.contains("data-mend-target"),
            "{side}: no target marked"
        );
    }
}

#[test]
fn the_server_listens_on_loopback_only() {
    let dir = healed_project();
    let review = Review::start(dir.path());
    let port = review.port();
    let connects = |ip: std::net::IpAddr| {
        TcpStream::connect_timeout(&SocketAddr::new(ip, port), Duration::from_secs(2)).is_ok()
    };
    assert!(connects(Ipv4Addr::LOCALHOST.into()));
    assert!(!connects(std::net::Ipv6Addr::LOCALHOST.into()));
    // The machine's own address on its network, if it has one: a UDP
    // "connection" only picks the route, and sends nothing.
    if let Ok(socket) = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
        && socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).is_ok()
        && let Ok(own) = socket.local_addr()
        && !own.ip().is_loopback()
    {
        assert!(!connects(own.ip()), "reachable at {}", own.ip());
    }
}

#[test]
fn the_history_page_charts_each_fields_fill_rate_over_the_samples() {
    let dir = healed_project();
    let review = Review::start(dir.path());
    let http = client();
    let list = http.get(&review.url).send().unwrap().text().unwrap();
    assert!(
        list.contains(&format!("href=\"{}w/bookshop\"", review.root())),
        "{list}"
    );
    let r = http
        .get(format!("{}w/bookshop", review.url))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let page = r.text().unwrap();
    for expected in [
        "History of bookshop",
        "<polyline",
        "<caption>Fill rate per field</caption>",
        "snapshot (baseline)",
        "run 1",
        "<code>book/price</code>",
    ] {
        assert!(page.contains(expected), "{expected} not in {page}");
    }
    let missing = http.get(format!("{}w/nobody", review.url)).send().unwrap();
    assert_eq!(missing.status(), 404);
}

/// The nonce of form `id` on `page`.
fn nonce_of(page: &str, id: &str) -> String {
    let form = page
        .split(&format!("<form id=\"{id}\""))
        .nth(1)
        .unwrap_or_else(|| panic!("no form {id} in {page}"));
    let value = form.split("name=\"nonce\" value=\"").nth(1).unwrap();
    value[..value.find('"').unwrap()].to_owned()
}

/// Posts form `form` of adaptation `id`'s page with `fields`, as the page
/// itself would; gives the response.
fn decide(
    http: &reqwest::blocking::Client,
    review: &Review,
    id: u32,
    form: &str,
    fields: &[(&str, &str)],
) -> reqwest::blocking::Response {
    let page = http
        .get(format!("{}a/{id}", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    let nonce = nonce_of(&page, form);
    let mut all = vec![("nonce", nonce.as_str())];
    all.extend_from_slice(fields);
    http.post(format!("{}a/{id}/{form}", review.url))
        .header("origin", format!("http://127.0.0.1:{}", review.port()))
        .form(&all)
        .send()
        .unwrap()
}

fn no_redirects() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

#[test]
fn approving_on_the_page_writes_the_wrapper_as_mend_approve_does() {
    let by_command = healed_project();
    let out = Mend::new(&["approve", "1", "--store", "wrappers/.mend/mend.db"])
        .dir(by_command.path())
        .output();
    assert!(out.status.success(), "{out:?}");
    let on_page = healed_project();
    let review = Review::start(on_page.path());
    let http = no_redirects();
    let r = decide(&http, &review, 1, "approve", &[]);
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_owned();
    let wrapper = |dir: &Path| std::fs::read(dir.join("wrappers/bookshop.yaml")).unwrap();
    assert_eq!(wrapper(on_page.path()), wrapper(by_command.path()));
    let page = http
        .get(format!("http://127.0.0.1:{}{to}", review.port()))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(page.contains("Approved."), "{page}");
    assert!(page.contains("form id=\"revert\""), "{page}");
    assert!(!page.contains("form id=\"approve\""), "{page}");
}

#[test]
fn a_replayed_or_unissued_nonce_is_refused_and_changes_nothing() {
    let dir = healed_project();
    let before = std::fs::read(dir.path().join("wrappers/bookshop.yaml")).unwrap();
    let review = Review::start(dir.path());
    let http = no_redirects();
    let origin = format!("http://127.0.0.1:{}", review.port());
    let page = http
        .get(format!("{}a/1", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    let nonce = nonce_of(&page, "reject");
    let post = |nonce: &str| {
        http.post(format!("{}a/1/reject", review.url))
            .header("origin", &origin)
            .form(&[("nonce", nonce), ("reason", "wrong")])
            .send()
            .unwrap()
            .status()
    };
    assert_eq!(post("00112233445566778899aabbccddeeff"), 403);
    assert_eq!(post(""), 403);
    assert_eq!(post(&nonce), 303);
    // The same form sent again: a replay.
    assert_eq!(post(&nonce), 403);
    assert_eq!(
        std::fs::read(dir.path().join("wrappers/bookshop.yaml")).unwrap(),
        before
    );
    let out = Mend::new(&["show", "1", "--store", "wrappers/.mend/mend.db"])
        .dir(dir.path())
        .output();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("rejected") && shown.contains("wrong"),
        "{shown}"
    );
}

#[test]
fn approve_then_revert_on_the_page_leaves_the_wrapper_as_the_commands_do() {
    let by_command = healed_project();
    for args in [&["approve", "1"][..], &["revert", "1"]] {
        let mut all = args.to_vec();
        all.extend(["--store", "wrappers/.mend/mend.db"]);
        let out = Mend::new(&all).dir(by_command.path()).output();
        assert!(out.status.success(), "{all:?}: {out:?}");
    }
    let dir = healed_project();
    let wrapper = |dir: &Path| std::fs::read(dir.join("wrappers/bookshop.yaml")).unwrap();
    let before = wrapper(dir.path());
    let review = Review::start(dir.path());
    let http = no_redirects();
    assert_eq!(decide(&http, &review, 1, "approve", &[]).status(), 303);
    assert_ne!(wrapper(dir.path()), before);
    assert_eq!(decide(&http, &review, 1, "revert", &[]).status(), 303);
    assert_eq!(wrapper(dir.path()), wrapper(by_command.path()));
    // Approving what was reverted is refused, with the reason, and changes
    // nothing (the page no longer shows the form; its nonce is another's).
    let page = http
        .get(format!("{}a/1", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(page.contains("<dd>reverted at "), "{page}");
    assert!(!page.contains("<form id="), "{page}");
    let text = approve_decided_one(&http, &review);
    assert!(text.contains("Nothing was changed"), "{text}");
    assert_eq!(wrapper(dir.path()), wrapper(by_command.path()));
}

/// Posts an approval of adaptation 1, which is decided already, with a
/// nonce of adaptation 2's page (its own page no longer has the form); it
/// must be refused (409), and the refusal page is given.
fn approve_decided_one(http: &reqwest::blocking::Client, review: &Review) -> String {
    let other = http
        .get(format!("{}a/2", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    let nonce = nonce_of(&other, "reject");
    let refused = http
        .post(format!("{}a/1/approve", review.url))
        .header("origin", format!("http://127.0.0.1:{}", review.port()))
        .form(&[("nonce", nonce.as_str())])
        .send()
        .unwrap();
    assert_eq!(refused.status(), 409);
    refused.text().unwrap()
}

/// Every `href`, `src` and `action` of `html`.
fn addresses(html: &str) -> Vec<String> {
    let doc = mend::dom::Document::parse_str(html);
    doc.all()
        .filter(|&n| doc.is_element(n))
        .flat_map(|n| {
            ["href", "src", "action"]
                .into_iter()
                .filter_map(|a| doc.attr(n, a).map(str::to_owned))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_link_frame_and_form_is_absolute_even_on_a_refusal_page() {
    // A refusal is the answer to a POST at /TOKEN/a/1/approve: a relative
    // link there resolved one level too deep, and gave 404.
    let dir = healed_project();
    let review = Review::start(dir.path());
    let http = no_redirects();
    assert_eq!(decide(&http, &review, 1, "approve", &[]).status(), 303);
    let refusal = approve_decided_one(&http, &review);
    assert!(refusal.contains("Nothing was changed"), "{refusal}");
    let get = |path: &str| {
        http.get(format!("{}{path}", review.url))
            .send()
            .unwrap()
            .text()
            .unwrap()
    };
    let root = review.root();
    for (name, page) in [
        ("the refusal", refusal),
        ("the list", get("")),
        ("an adaptation", get("a/3")),
        ("the history", get("w/bookshop")),
    ] {
        let all = addresses(&page);
        assert!(all.len() >= 3, "{name}: {all:?}");
        for a in all {
            assert!(a.starts_with(&root), "{name}: {a} is not under {root}");
            // Each answers: no link of the page leads nowhere.
            let path = a.split('#').next().unwrap().trim_start_matches(&root);
            if !path.ends_with("/approve")
                && !path.ends_with("/reject")
                && !path.ends_with("/revert")
                && path != "bulk"
            {
                assert_eq!(
                    http.get(format!("{}{path}", review.url))
                        .send()
                        .unwrap()
                        .status(),
                    200,
                    "{name}: {a}"
                );
            }
        }
    }
}

#[test]
fn a_wrapper_s_pending_proposals_are_decided_together_as_the_commands_would() {
    let dir = healed_project();
    let twin = healed_project();
    let review = Review::start(dir.path());
    let http = no_redirects();
    let list = http.get(&review.url).send().unwrap().text().unwrap();
    let form = &list[list.find("<form class=\"bulk\"").expect("a bulk form")..];
    let form = &form[..form.find("</form>").unwrap()];
    let field = |s: &str| s[..s.find('"').unwrap()].to_owned();
    let nonce = field(form.split("name=\"nonce\" value=\"").nth(1).unwrap());
    let ids: Vec<String> = form
        .split("name=\"id\" value=\"")
        .skip(1)
        .map(field)
        .collect();
    assert!(ids.len() >= 2, "{form}");
    let mut fields = vec![("nonce", nonce.clone()), ("decision", "approve".to_owned())];
    fields.extend(ids.iter().map(|id| ("id", id.clone())));
    let r = http
        .post(format!("{}bulk", review.url))
        .header("origin", format!("http://127.0.0.1:{}", review.port()))
        .form(&fields)
        .send()
        .unwrap();
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        to.starts_with(&format!("{}?notice=", review.root())),
        "{to}"
    );
    let after = http
        .get(format!("http://127.0.0.1:{}{to}", review.port()))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(
        after.contains(&format!("Adaptation {}: Approved.", ids[0])),
        "{after}"
    );
    // The twin decided by the commands, one after the other; one already
    // decided with another is refused there as it is skipped here.
    for id in &ids {
        let _ = Mend::new(&["approve", id, "--store", "wrappers/.mend/mend.db"])
            .dir(twin.path())
            .output();
    }
    let wrapper = |dir: &Path| std::fs::read(dir.join("wrappers/bookshop.yaml")).unwrap();
    assert_eq!(wrapper(dir.path()), wrapper(twin.path()));
    let log = Mend::new(&[
        "log",
        "--status",
        "proposed",
        "--json",
        "--store",
        "wrappers/.mend/mend.db",
    ])
    .dir(dir.path())
    .output();
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    assert_eq!(log.as_array().map(Vec::len), Some(0), "{log}");
    // The form is single use, as every form of the page.
    let replay = http
        .post(format!("{}bulk", review.url))
        .header("origin", format!("http://127.0.0.1:{}", review.port()))
        .form(&fields)
        .send()
        .unwrap();
    assert_eq!(replay.status(), 403);
}

#[test]
fn a_preview_row_whose_value_would_change_shows_old_and_new() {
    let dir = healed_project();
    let show = Mend::new(&["show", "1", "--json"]).dir(dir.path()).output();
    let show: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let changed: Vec<&serde_json::Value> = show["preview"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p.get("values").is_some())
        .collect();
    assert!(!changed.is_empty(), "{show}");
    let review = Review::start(dir.path());
    let page = client()
        .get(format!("{}a/1", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert_eq!(
        page.matches("<tr class=\"changes\">").count(),
        changed.len(),
        "{page}"
    );
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    for p in changed {
        let shown = format!(
            "{} → {}",
            escape(p["values"]["old"].as_str().unwrap()),
            escape(p["values"]["new"].as_str().unwrap())
        );
        assert!(page.contains(&shown), "{shown} not on the page: {page}");
    }
}

#[test]
fn a_nested_proposal_names_its_pending_parent_with_a_link() {
    let dir = healed_project();
    let show = Mend::new(&["show", IN_STOCK, "--json"])
        .dir(dir.path())
        .output();
    let show: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let parent = &show["pending_parents"][0];
    assert_eq!(parent["pattern"], "book", "{show}");
    let review = Review::start(dir.path());
    let page = client()
        .get(format!("{}a/{IN_STOCK}", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    let link = format!(
        "<a href=\"{}a/{}\">adaptation {}</a>",
        review.root(),
        parent["adaptation"],
        parent["adaptation"]
    );
    assert!(page.contains(&link), "{link} not on the page: {page}");
    assert!(page.contains("Decide the parent first."), "{page}");
    // Once the parent is approved, nothing waits above it.
    let id = parent["adaptation"].to_string();
    let out = Mend::new(&["approve", &id, "--store", "wrappers/.mend/mend.db"])
        .dir(dir.path())
        .output();
    assert!(out.status.success(), "{out:?}");
    let page = client()
        .get(format!("{}a/{IN_STOCK}", review.url))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(!page.contains("Decide the parent first."), "{page}");
}
