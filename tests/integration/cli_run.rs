//! `mend run` end to end: formats, page sources, exit codes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::cli::{Mend, ROOT, Run, bookshop_project, mend, stdout_json};

#[test]
fn the_example_job_prints_one_object_with_every_book() {
    let out = mend(&[
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = stdout_json(&out);
    assert_eq!(v["page"], "examples/pages/bookshop.html");
    let books = v["records"][0]["book"].as_array().unwrap();
    assert_eq!(books.len(), 6);
    assert_eq!(books[0]["title"], "The Tide Between Us");
    assert_eq!(books[0]["price"], 12.99);
    assert_eq!(
        books[0]["url"],
        "https://shop.example/catalogue/tide-between-us_12.html"
    );
    assert_eq!(v["violations"], Value::Array(vec![]));
    assert_eq!(v["adaptations"], Value::Array(vec![]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 page, 1 record, 0 violations"));
}

#[test]
fn every_shipped_example_runs_clean() {
    for (wrapper, page) in [
        ("wrappers/article.yaml", "examples/pages/article.html"),
        (
            "wrappers/exchange-rates.yaml",
            "examples/pages/exchange-rates.html",
        ),
    ] {
        let out = mend(&["run", wrapper, page, "--format", "json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{wrapper}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            stdout_json(&out)["violations"],
            Value::Array(vec![]),
            "{wrapper}"
        );
    }
}

#[test]
fn violations_are_listed_and_exit_1() {
    let out = mend(&[
        "run",
        "wrappers/bookshop.yaml",
        "tests/fixtures/pages/bookshop-no-prices.html",
        "--format",
        "json",
        "--heal",
        "off",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    let violations: Vec<(String, String)> = v["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["pattern"].as_str().unwrap().to_owned(),
                x["constraint"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        violations,
        [
            ("book/price".to_owned(), "min".to_owned()),
            ("book/price".to_owned(), "min".to_owned())
        ]
    );
    assert_eq!(v["violations"][0]["expected"], "at least 1");
    assert_eq!(v["violations"][0]["found"], "0 matches");
    assert_eq!(v["violations"][0]["context"], "/html/body/ol/li[1]/article");
}

#[test]
fn flatten_emits_one_record_per_instance() {
    let out = mend(&[
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--flatten",
        "book",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(v["records"].as_array().unwrap().len(), 6);
    assert_eq!(v["records"][5]["title"], "Northern Line");
}

/// `--flatten book` dropped the page's own fields (`page_title`); each
/// flattened record carries them after its own, in JSON and CSV alike.
#[test]
fn flatten_keeps_the_page_level_fields_in_every_record() {
    let args = [
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--flatten",
        "book",
    ];
    let v = Run::from(mend(&args)).check(0).json();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 6);
    for record in records {
        assert_eq!(record["page_title"], "Fiction", "{record}");
        let keys: Vec<&String> = record.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["title", "price", "in_stock", "url", "page_title"]);
    }
    let csv = Run::from(mend(&[&args[..], &["--format", "csv"]].concat())).check(0);
    let mut lines = csv.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("page,title,price,in_stock,url,page_title,_violations,_proposals,_error")
    );
    assert!(lines.all(|l| l.contains(",Fiction,,,")), "{}", csv.stdout);
}

/// A page-level field and a record field of one name: the record's keeps
/// it, the page's is `page.NAME`.
#[test]
fn flatten_names_a_clashing_page_field_page_dot_name() {
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("clash.yaml");
    std::fs::write(
        &wrapper,
        "name: clash\npatterns:\n  - name: title\n    xpath: //h1\n    constraints: {max: 1}\n  \
         - name: book\n    xpath: //ol[@class='books']/li/article\n    patterns:\n      \
         - name: title\n        xpath: ./h3/a/@title\n        constraints: {max: 1}\n",
    )
    .unwrap();
    let wrapper = wrapper.to_str().unwrap();
    let args = [
        "run",
        wrapper,
        "examples/pages/bookshop.html",
        "--flatten",
        "book",
    ];
    let v = Run::from(mend(&args)).check(0).json();
    assert_eq!(v["records"][0]["title"], "The Tide Between Us");
    assert_eq!(v["records"][0]["page.title"], "Fiction");
    let csv = Run::from(mend(&[&args[..], &["--format", "csv"]].concat())).check(0);
    assert!(
        csv.stdout.starts_with("page,title,page.title,_violations"),
        "{}",
        csv.stdout
    );
}

#[test]
fn flatten_of_a_field_is_bad_input() {
    let out = mend(&[
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--flatten",
        "page_title",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn directories_gzip_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let page = std::fs::read("examples/pages/bookshop.html").unwrap();
    std::fs::create_dir(dir.path().join("nested")).unwrap();
    std::fs::write(dir.path().join("a.html"), &page).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&page).unwrap();
    std::fs::write(dir.path().join("nested/b.html.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(dir.path().join("ignored.txt"), "not a page").unwrap();
    let csv = dir.path().join("out.csv");
    let out = mend(&[
        "run",
        "wrappers/bookshop.yaml",
        dir.path().to_str().unwrap(),
        "--flatten",
        "book",
        "--format",
        "csv",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "page,title,price,in_stock,url,page_title,_violations,_proposals,_error"
    );
    assert_eq!(lines.len(), 1 + 12);
    assert!(lines[1].contains(
        "The Tide Between Us,12.99,In stock,https://shop.example/catalogue/tide-between-us_12.html,Fiction,,,"
    ));
    assert!(lines[12].starts_with(&format!(
        "{}",
        dir.path().join("nested/b.html.gz").display()
    )));
}

/// CSV showed neither what failed on a page nor which proposal healed it,
/// and a list of values was a cell of JSON.
#[test]
fn csv_says_what_went_wrong_and_which_proposals_healed_a_record() {
    let dir = bookshop_project();
    let run = |args: &[&str]| -> Run { Mend::new(args).dir(dir.path()).output().into() };
    let broken = format!("{ROOT}/tests/fixtures/pages/bookshop-no-prices.html");
    let text = run(&[
        "run",
        "wrappers/bookshop.yaml",
        &broken,
        "--heal",
        "off",
        "--format",
        "csv",
        "--flatten",
        "book",
    ])
    .check(1)
    .stdout;
    let rows: Vec<csv::StringRecord> = csv::Reader::from_reader(text.as_bytes())
        .records()
        .map(Result::unwrap)
        .collect();
    assert!(!rows.is_empty());
    for row in &rows {
        assert_eq!(
            &row[row.len() - 3],
            "book/price min: expected at least 1, found 0 matches (2 times)",
            "{text}"
        );
        assert_eq!(&row[row.len() - 2], "");
    }

    run(&["snapshot", "wrappers/bookshop.yaml", "pages/bookshop.html"]).check(0);
    let text = run(&[
        "run",
        "wrappers/bookshop.yaml",
        "pages/bookshop-redesign.html",
        "--heal",
        "propose",
        "--format",
        "csv",
        "--flatten",
        "book",
    ])
    .stdout;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert!(!rows.is_empty(), "{text}");
    let log = run(&["log", "--json", "--store", "wrappers/.mend/mend.db"])
        .check(0)
        .json();
    let mut ids: Vec<String> = log
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["status"] == "proposed")
        .map(|a| format!("{}:{}", a["store"].as_str().unwrap(), a["id"]))
        .collect();
    ids.sort();
    assert!(!ids.is_empty());
    for row in &rows {
        let mut cell: Vec<&str> = row[column("_proposals")].split("; ").collect();
        cell.sort();
        assert_eq!(cell, ids, "{text}");
        assert_eq!(&row[column("_violations")], "", "healed: {text}");
        assert!(!row[column("price")].is_empty(), "{text}");
    }
}

/// A `.gz` file that was not gzip, and a PNG named `.html`, were parsed as
/// pages and violated every pattern for no reason anyone could see.
#[test]
fn a_fake_gz_and_a_binary_page_are_page_errors_that_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let page = std::fs::read("examples/pages/bookshop.html").unwrap();
    std::fs::write(dir.path().join("a.html"), &page).unwrap();
    std::fs::write(dir.path().join("b.html.gz"), &page).unwrap();
    std::fs::write(
        dir.path().join("c.html"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10",
    )
    .unwrap();
    let mut binary = vec![0u8; 600];
    binary.extend_from_slice(b"<html>");
    std::fs::write(dir.path().join("d.htm"), &binary).unwrap();
    let run = Run::from(mend(&[
        "run",
        "wrappers/bookshop.yaml",
        dir.path().to_str().unwrap(),
    ]))
    .check(3);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["records"][0]["book"].as_array().unwrap().len(), 6);
    let name = |file: &str| dir.path().join(file).display().to_string();
    for (line, file, why) in [
        (&lines[1], "b.html.gz", "named .gz but not gzip data"),
        (&lines[2], "c.html", "not an HTML page: it is a PNG image"),
        (
            &lines[3],
            "d.htm",
            "not an HTML page: 600 of its first 606 bytes are NUL",
        ),
    ] {
        let error = line["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with(&format!("{}: {why}", name(file))),
            "{line}"
        );
        assert_eq!(line["records"], Value::Array(vec![]));
        assert!(
            run.stderr
                .contains(&format!("error: {}: {why}", name(file)))
        );
    }
    // In CSV, the refused page is a row that says why.
    let csv = Run::from(mend(&[
        "run",
        "wrappers/bookshop.yaml",
        &name("c.html"),
        "--format",
        "csv",
    ]))
    .check(3);
    assert_eq!(
        csv.stdout.lines().nth(1),
        Some(
            format!(
                "{0},,,,,{0}: not an HTML page: it is a PNG image",
                name("c.html")
            )
            .as_str()
        )
    );
}

#[test]
fn standard_input_is_a_page() {
    let out = Mend::new(&["run", "wrappers/article.yaml", "-", "--format", "json"])
        .stdin(std::fs::read("examples/pages/article.html").unwrap())
        .output();
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(v["page"], "-");
    assert_eq!(v["records"][0]["author"], "Maya Okafor");
}

#[test]
fn an_invalid_wrapper_is_bad_input_with_a_located_message() {
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("w.yaml");
    std::fs::write(&wrapper, "name: w\npatterns:\n  - name: a\n    xpth: //a\n").unwrap();
    let out = mend(&[
        "run",
        wrapper.to_str().unwrap(),
        "examples/pages/article.html",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("w.yaml:4:5"), "{stderr}");
    assert!(stderr.contains("did you mean \"xpath\""), "{stderr}");
}

#[test]
fn a_missing_page_is_bad_input() {
    let out = mend(&["run", "wrappers/article.yaml", "no/such/page.html"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/page.html: no such file"));
}

/// Serves `page` at `/ok` and 404 elsewhere on 127.0.0.1, for at most
/// `requests` connections or 20 seconds, whichever comes first.
fn serve(page: Vec<u8>, requests: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut served = 0;
        while served < requests && Instant::now() < deadline {
            let Ok((stream, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            served += 1;
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream);
            let mut request_line = String::new();
            let _ = reader.read_line(&mut request_line);
            // Drain the headers.
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
                line.clear();
            }
            let mut stream = reader.into_inner();
            let response = if request_line.starts_with("GET /ok ") {
                let mut r = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    page.len()
                )
                .into_bytes();
                r.extend_from_slice(&page);
                r
            } else {
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec()
            };
            let _ = stream.write_all(&response);
            let _ = stream.read(&mut [0u8; 1]);
        }
    });
    format!("http://{addr}")
}

#[test]
fn urls_are_fetched_and_each_failure_is_reported_for_its_page() {
    let base = serve(std::fs::read("examples/pages/article.html").unwrap(), 2);
    let ok = format!("{base}/ok");
    let missing = format!("{base}/missing");
    let out = mend(&["run", "wrappers/article.yaml", &ok, &missing, "--jobs", "1"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["records"][0]["author"], "Maya Okafor");
    // The canonical link is absolute; relative links would resolve against the fetched URL.
    assert_eq!(
        lines[0]["records"][0]["canonical"],
        "https://courier.example/news/2026/05/river-levels"
    );
    assert_eq!(lines[1]["page"], missing);
    assert!(
        lines[1]["error"].as_str().unwrap().contains("HTTP 404"),
        "{}",
        lines[1]
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("HTTP 404"));
}

#[test]
fn out_naming_an_input_page_or_the_wrapper_is_refused_and_destroys_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let wrapper = dir.path().join("bookshop.yaml");
    std::fs::copy(format!("{ROOT}/examples/pages/bookshop.html"), &page).unwrap();
    std::fs::copy(format!("{ROOT}/wrappers/bookshop.yaml"), &wrapper).unwrap();
    let page_before = std::fs::read(&page).unwrap();
    let wrapper_before = std::fs::read(&wrapper).unwrap();
    let (w, p) = (wrapper.to_str().unwrap(), page.to_str().unwrap());
    for out in [p, w] {
        let run = mend(&["run", w, p, "--heal", "off", "--out", out]);
        assert_eq!(run.status.code(), Some(2), "--out {out}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("would destroy it"), "{stderr}");
    }
    // The same page under another name is the same file.
    let other_name = dir.path().join(".").join("page.html");
    let run = mend(&["run", w, p, "--out", other_name.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(std::fs::read(&page).unwrap(), page_before);
    assert_eq!(std::fs::read(&wrapper).unwrap(), wrapper_before);
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_error_neither_panics_nor_loses_the_output() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_mend"))
        .current_dir(ROOT)
        .args([
            "run",
            "wrappers/bookshop.yaml",
            "tests/fixtures/pages/bookshop-no-prices.html",
            "--heal",
            "off",
        ])
        .stderr(full)
        .output()
        .unwrap();
    // The page violates its wrapper: exit 1, with the record on stdout.
    assert_eq!(run.status.code(), Some(1));
    let out: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert!(!out["violations"].as_array().unwrap().is_empty());
}

#[test]
fn a_treegram_key_naming_a_device_or_a_path_out_of_the_project_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<h1>T</h1>").unwrap();
    for named in ["/dev/zero", "../../etc/passwd"] {
        let wrapper = dir.path().join("w.yaml");
        std::fs::write(
            &wrapper,
            format!(
                "name: t\npatterns:\n  - name: title\n    xpath: //h2\n    treegram: {named}\n"
            ),
        )
        .unwrap();
        let run = mend(&[
            "run",
            wrapper.to_str().unwrap(),
            page.to_str().unwrap(),
            "--heal",
            "propose",
        ]);
        assert_eq!(run.status.code(), Some(2), "{named}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("the tree-gram of title"), "{stderr}");
    }
}

/// A one-field wrapper and a saved page in `dir`: the page's link is
/// relative, and its price is written in windows-1252 under a <meta> that
/// says UTF-8, as a page saved by a tool that re-encoded it.
fn saved_page(dir: &std::path::Path) {
    std::fs::write(
        dir.join("w.yaml"),
        "name: shop\npatterns:\n  - {name: link, xpath: '//a/@href', type: url, constraints: {max: 1}}\n  - {name: price, xpath: '//p', constraints: {max: 1}}\n",
    )
    .unwrap();
    let mut page = b"<meta charset=utf-8><a href='../b/1.html'>One</a><p>".to_vec();
    page.extend_from_slice(b"\xa310.00</p>");
    std::fs::write(dir.join("saved.html"), page).unwrap();
}

#[test]
fn url_resolves_a_saved_pages_links_and_encoding_overrides_its_charset() {
    let dir = tempfile::tempdir().unwrap();
    saved_page(dir.path());
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "w.yaml", "saved.html"];
        args.extend_from_slice(extra);
        let out = Mend::new(&args).dir(dir.path()).output();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout_json(&out)["records"][0].clone()
    };
    let plain = run(&[]);
    assert_eq!(plain["link"], "../b/1.html");
    assert_eq!(plain["price"], "\u{fffd}10.00");
    let told = run(&[
        "--url",
        "https://shop.example/cat/list.html",
        "--encoding",
        "latin1",
    ]);
    assert_eq!(told["link"], "https://shop.example/b/1.html");
    assert_eq!(told["price"], "£10.00");
}

#[test]
fn an_ndjson_file_is_a_page_per_line_each_resolved_against_its_own_url() {
    let dir = tempfile::tempdir().unwrap();
    saved_page(dir.path());
    let line = |html: &str, url: Option<&str>| {
        let mut page = serde_json::json!({ "html": html });
        if let Some(url) = url {
            page["url"] = url.into();
        }
        page.to_string()
    };
    let lines = [
        line(
            "<a href='x/1.html'>1</a><p>£1</p>",
            Some("https://a.example/c/"),
        ),
        String::new(),
        "{\"html\": 7}".to_owned(),
        line(
            "<a href='/2.html'>2</a><p>£2</p>",
            Some("https://b.example/d/e"),
        ),
        line("<a href='3.html'>3</a>", None),
    ];
    std::fs::write(dir.path().join("pages.ndjson"), lines.join("\n")).unwrap();
    let out = Mend::new(&["run", "w.yaml", "pages.ndjson", "--format", "ndjson"])
        .dir(dir.path())
        .output();
    // A line that is not a page fails alone, in its place.
    assert_eq!(out.status.code(), Some(3));
    let pages: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = pages.iter().map(|p| p["page"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "https://a.example/c/",
            "pages.ndjson:3",
            "https://b.example/d/e",
            "pages.ndjson:5"
        ]
    );
    assert_eq!(
        pages[0]["records"][0]["link"],
        "https://a.example/c/x/1.html"
    );
    assert_eq!(pages[0]["records"][0]["price"], "£1");
    assert!(
        pages[1]["error"]
            .as_str()
            .unwrap()
            .contains("pages.ndjson:3")
    );
    assert_eq!(pages[2]["records"][0]["link"], "https://b.example/2.html");
    assert_eq!(pages[3]["records"][0]["link"], "3.html");
}

#[test]
fn an_unknown_encoding_is_refused_before_any_page_is_read() {
    let dir = tempfile::tempdir().unwrap();
    saved_page(dir.path());
    let out = Mend::new(&["run", "w.yaml", "saved.html", "--encoding", "klingon"])
        .dir(dir.path())
        .output();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a charset"));
}

#[test]
fn format_sqlite_writes_the_tables_the_crawl_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("books.db");
    let db_arg = db.to_str().unwrap();
    let args = [
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--format",
        "sqlite",
        "--out",
        db_arg,
    ];
    let out = mend(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let count = |table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!((count("book"), count("pages")), (6, 1));
    let title: String = conn
        .query_row("SELECT title FROM book ORDER BY rowid LIMIT 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(title, "The Tide Between Us");
    // Without a file there is nowhere to write.
    let out = mend(&[
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--format",
        "sqlite",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --out"));
}

/// Reads one HTTP request from `listener` (waiting at most 10 s), answers
/// 204, and gives its body.
fn one_post(listener: &TcpListener) -> String {
    listener.set_nonblocking(false).unwrap();
    let (mut stream, _) = listener.accept().unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    stream
        .write_all(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        .unwrap();
    String::from_utf8(body).unwrap()
}

#[test]
fn a_run_with_violations_posts_one_notice_and_a_clean_run_posts_none() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.db");
    let store = store.to_str().unwrap();
    let broken = [
        "run",
        "wrappers/bookshop.yaml",
        "tests/fixtures/pages/bookshop-no-prices.html",
        "--heal",
        "off",
        "--store",
        store,
        "--notify",
        &url,
    ];
    // The server answers while mend runs, as a webhook would.
    let server = listener.try_clone().unwrap();
    let received = std::thread::spawn(move || one_post(&server));
    let out = Mend::new(&broken).output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("not delivered"), "{err}");
    let notice: Value = serde_json::from_str(&received.join().unwrap()).unwrap();
    assert_eq!(notice["source"], "mend run");
    assert_eq!(notice["wrapper"], "bookshop");
    assert_eq!(notice["pages"], 1);
    assert!(notice["violations"].as_u64().unwrap() > 0, "{notice}");
    // A run with nothing for a person sends nothing.
    let clean = [
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--heal",
        "off",
        "--store",
        store,
        "--notify",
        &url,
    ];
    let out = Mend::new(&clean).output();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "a clean run notified");
}

#[test]
fn a_notice_cites_each_proposal_of_the_run_as_mend_show_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    for page in ["product.html", "product-redesigned.html"] {
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples/walkthrough")
                .join(page),
            dir.path().join(page),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("book.yaml"),
        "name: book\npatterns:\n  - name: title\n    xpath: //h1\n    constraints: {min: 1, max: 1}\n  - name: price\n    xpath: //p[@class='price']\n    type: number\n    constraints: {min: 1, max: 1, regex: '^£\\d+\\.\\d\\d$'}\n",
    )
    .unwrap();
    let snapshot = Mend::new(&["snapshot", "book.yaml", "product.html"])
        .dir(dir.path())
        .output();
    assert!(
        snapshot.status.success(),
        "{}",
        String::from_utf8_lossy(&snapshot.stderr)
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let server = listener.try_clone().unwrap();
    let received = std::thread::spawn(move || one_post(&server));
    let run = [
        "run",
        "book.yaml",
        "product-redesigned.html",
        "--heal",
        "propose",
        "--notify",
        &url,
    ];
    let out = Mend::new(&run).dir(dir.path()).output();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let notice: Value = serde_json::from_str(&received.join().unwrap()).unwrap();
    assert_eq!(notice["proposals"], 1, "{notice}");
    let cited = notice["proposal_ids"].as_array().unwrap();
    assert_eq!(cited.len(), 1, "{notice}");
    let show = Mend::new(&["show", cited[0].as_str().unwrap(), "--json"])
        .dir(dir.path())
        .output();
    assert!(
        show.status.success(),
        "{}",
        String::from_utf8_lossy(&show.stderr)
    );
    let shown: Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(shown["pattern"], "price", "{shown}");
}

#[test]
fn a_notice_nobody_takes_is_said_and_the_run_keeps_its_exit_code() {
    // A port that was free a moment ago: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.db");
    let url = format!("http://127.0.0.1:{port}/hook");
    let out = Mend::new(&[
        "run",
        "wrappers/bookshop.yaml",
        "tests/fixtures/pages/bookshop-no-prices.html",
        "--heal",
        "off",
        "--store",
        store.to_str().unwrap(),
        "--notify",
        &url,
    ])
    .output();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("was not delivered after 4 attempts"), "{err}");
    let out = Mend::new(&[
        "run",
        "wrappers/bookshop.yaml",
        "examples/pages/bookshop.html",
        "--notify",
        "ftp://x",
    ])
    .output();
    assert_eq!(out.status.code(), Some(2));
}
