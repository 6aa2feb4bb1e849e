use super::*;

use std::fmt::Write as _;

/// A page with `n` list items in one list, `<li>0</li>` to `<li>{n-1}</li>`.
fn list(n: usize) -> String {
    let mut html = String::from("<html><body><ul>");
    for i in 0..n {
        let _ = write!(html, "<li>{}</li>", i % 100);
    }
    html.push_str("</ul></body></html>");
    html
}

/// A page of about `elements` elements shaped like an article listing: a
/// header with links, sections of paragraphs, lists and tables, a footer.
fn large_page(elements: usize) -> String {
    let mut html = String::from(
        "<html><head><title>A large page</title>\
         <meta property='og:title' content='Large'>\
         <script type='application/ld+json'>{}</script></head><body>\
         <nav><a href='/'>Home</a><a href='/a'>A</a></nav>",
    );
    // Each section below has 36 elements (with the tbody the parser adds).
    for s in 0..elements.div_ceil(36) {
        let _ = write!(
            html,
            "<div class='content section s{s}' id='sec{s}'><article><h2>Section {s}</h2>\
             <p>The first paragraph of section {s}, long enough to be read as body \
             text by the paragraph rules of the benchmark expressions.</p>\
             <p class='note'>Short <b>note</b> <a href='/s/{s}'>link</a></p>\
             <ul><li><a href='/i/{s}/1'>one</a></li><li><a href='/i/{s}/2'>two</a></li>\
             <li>three</li><li>four</li></ul>\
             <table><tr><td>k</td><td>{s}</td></tr><tr><td>v</td><td>{s}.5</td></tr>\
             <tr><td>w</td><td>x</td></tr></table>\
             <img src='/img/{s}.png' alt='image {s}'><img src='/deco.png'>\
             <div class='meta'><span>by</span><span class='author'>A. Writer</span>\
             <time>2024-05-0{}</time></div>\
             <p><i>1</i><i>2</i><i>3</i><em>4</em></p></article></div>",
            s % 9 + 1
        );
    }
    html.push_str("<footer><p>Footer</p></footer></body></html>");
    html
}

/// Evaluates `expr` on `doc` under `budget` from the document node.
fn eval_with(doc: &Document, expr: &str, budget: Budget) -> Result<Value, EvalError> {
    let x = XPath::compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    x.with_budget(budget).evaluate(doc, NodeId::ROOT)
}

/// The error `expr` gives on `doc` under `budget`; the test fails, without
/// printing what may be a very long value, if there is none.
fn error_with(doc: &Document, expr: &str, budget: Budget) -> EvalError {
    match eval_with(doc, expr, budget) {
        Ok(v) => panic!("{expr} gave a {}", v.type_name()),
        Err(e) => e,
    }
}

/// Checks that `expr` runs out of the default budget on `doc` with an error
/// of `kind` whose message names the expression and what to do.
fn exhausts(doc: &Document, expr: &str, kind: EvalErrorKind) -> EvalError {
    let e = error_with(doc, expr, Budget::default());
    assert_eq!(e.kind, kind, "{expr}: {e}");
    assert!(e.is_budget(), "{expr}: {e}");
    assert!(e.message.contains("xpath::Budget"), "{e}");
    assert!(e.message.contains(&expr[..20]), "{e}");
    e
}

/// The work units an evaluation of `expr` on `doc` uses.
fn work(doc: &Document, expr: &str) -> u64 {
    let x = XPath::compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let mut ev = x.evaluator(doc);
    ev.eval(&x.compiled.expr, top(Item::Node(NodeId::ROOT)))
        .unwrap_or_else(|e| panic!("{expr}: {e}"));
    ev.work_used()
}

#[test]
fn quadratic_sibling_expressions_run_out_of_work() {
    let d = Document::parse_str(&list(20_000));
    let e = exhausts(
        &d,
        "//li[count(preceding-sibling::li) = count(following-sibling::li)]",
        EvalErrorKind::WorkBudget,
    );
    assert!(e.message.contains("after 300,000,000 units of work"), "{e}");
    assert!(e.message.contains("quadratic"), "{e}");
    exhausts(
        &d,
        "//li[preceding-sibling::li = following-sibling::li]",
        EvalErrorKind::WorkBudget,
    );
    exhausts(&d, "//li[following::li = .]", EvalErrorKind::WorkBudget);
    exhausts(
        &d,
        "count(//li[string-length(/html/body) > 0])",
        EvalErrorKind::WorkBudget,
    );
    // The string-value of the body, 40 kB, taken for every item.
    exhausts(
        &d,
        "count(//li[/html/body = 'x'])",
        EvalErrorKind::WorkBudget,
    );
    // The linear forms of the same questions still answer.
    check(
        &list(20_000),
        "count(//li[1]/following-sibling::li)",
        "19999",
    );
}

#[test]
fn nested_replace_runs_out_of_string_budget() {
    let body = "x".repeat(10_000);
    let d = Document::parse_str(&format!("<html><body>{body}</body></html>"));
    let e = exhausts(
        &d,
        "string-length(replace(replace(replace(replace(//body, '.', '..........'), \
         '.', '..........'), '.', '..........'), '.', '..........'))",
        EvalErrorKind::StringBudget,
    );
    assert!(e.message.contains("67,108,864 bytes"), "{e}");
    // With `$1` references, on a smaller budget to keep the test quick.
    let mib = Budget {
        string_bytes: 1 << 20,
        ..Budget::default()
    };
    let ten = "$1".repeat(10);
    let e = error_with(
        &d,
        &format!(
            "replace(replace(replace(//body, '(.)', '{ten}'), '(.)', '{ten}'), '(.)', '{ten}')"
        ),
        mib,
    );
    assert_eq!(e.kind, EvalErrorKind::StringBudget, "{e}");
    // A replacement that could by itself pass the budget is refused at once.
    let e = error_with(
        &d,
        &format!("replace(//body, '.+', '{}')", "$0".repeat(200)),
        mib,
    );
    assert_eq!(e.kind, EvalErrorKind::StringBudget, "{e}");
    // Doubling a 40 kB string eleven times would give 80 MB, but each level
    // evaluates its argument twice, so the work runs out first.
    let d = Document::parse_str(&format!("<body>{}</body>", "y".repeat(40_000)));
    let doubling = (0..11).fold("string(//body)".to_owned(), |e, _| {
        format!("concat({e}, {e})")
    });
    let e = error_with(&d, &format!("string-length({doubling})"), Budget::default());
    assert!(e.is_budget(), "{e}");
    check(
        &format!("<html><body>{body}</body></html>"),
        "string-length(replace(replace(//body, '.', '..........'), '.', '..........'))",
        "1000000",
    );
}

#[test]
fn a_small_budget_trips_where_the_default_does_not() {
    let d = Document::parse_str(&list(1_000));
    let small = Budget {
        work: 500,
        ..Budget::default()
    };
    let e = error_with(&d, "count(//li[. = '7'])", small);
    assert_eq!(e.kind, EvalErrorKind::WorkBudget, "{e}");
    assert!(e.message.contains("after 500 units of work"), "{e}");
    assert_eq!(
        render(
            &d,
            &eval_with(&d, "count(//li[. = '7'])", Budget::default()).unwrap()
        ),
        "10"
    );

    let short = Budget {
        string_bytes: 100,
        ..Budget::default()
    };
    let e = error_with(&d, "string-join(//li, ', ')", short);
    assert_eq!(e.kind, EvalErrorKind::StringBudget, "{e}");
    assert!(eval_with(&d, "concat(//li, 'x')", short).is_ok());
    // The first 40 items make 70 bytes; each of these would make 140.
    for expr in [
        "concat(string-join(//li[position() <= 40], ''), string-join(//li[position() <= 40], ''))",
        "translate(string-join(//li[position() <= 40], ''), '0123456789', 'ééééééééé')",
        "replace(string-join(//li[position() <= 40], ''), '.', 'yy')",
        "replace(string-join(//li[position() <= 40], ''), '(.)', '$1$1')",
        "count(id(//li))",
    ] {
        let e = error_with(&d, expr, short);
        assert_eq!(e.kind, EvalErrorKind::StringBudget, "{expr}: {e}");
    }

    let few = Budget {
        nodes: 500,
        ..Budget::default()
    };
    let e = error_with(&d, "count(//li)", few);
    assert_eq!(e.kind, EvalErrorKind::NodeBudget, "{e}");
    assert!(
        e.message.contains("more than 500 node-set items at once"),
        "{e}"
    );
    // Gathering the same ancestors from every item is not holding them:
    // duplicates are removed before the node budget counts.
    let d300 = Document::parse_str(&list(300));
    assert_eq!(
        render(&d300, &eval_with(&d300, "//li/ancestor::*", few).unwrap()),
        "[/html, /html/body, /html/body/ul]"
    );
    let e = error_with(&d300, "//li/following-sibling::node()[position() > 0]", few);
    assert_eq!(e.kind, EvalErrorKind::NodeBudget, "{e}");
    assert!(error_with(&d, "count(//li/following-sibling::li[1])", few).is_budget());

    assert_eq!(Budget::default(), Budget::DEFAULT);
    let x = XPath::compile("//li").unwrap();
    assert_eq!(x.budget(), Budget::DEFAULT);
    let x = x.with_budget(Budget::UNLIMITED);
    assert_eq!(x.budget(), Budget::UNLIMITED);
    assert_eq!(x.select(&d, NodeId::ROOT).unwrap().len(), 1_000);
}

#[test]
fn select_and_the_other_entry_points_share_the_budget() {
    let d = Document::parse_str(&list(1_000));
    let tiny = Budget {
        work: 10,
        ..Budget::default()
    };
    let x = XPath::compile("//li[. = '3']").unwrap().with_budget(tiny);
    assert!(x.select(&d, NodeId::ROOT).unwrap_err().is_budget());
    assert!(
        x.evaluate_boolean(&d, NodeId::ROOT)
            .unwrap_err()
            .is_budget()
    );
    assert!(x.evaluate_string(&d, NodeId::ROOT).unwrap_err().is_budget());
    assert!(select_nested(&d, &[&x]).unwrap_err().is_budget());
    let invalid = XPath::compile("1").unwrap().select(&d, NodeId::ROOT);
    let e = invalid.unwrap_err();
    assert_eq!(e.kind, EvalErrorKind::Invalid);
    assert!(!e.is_budget());
}

#[test]
fn replace_expands_like_the_regex_crate() {
    let cases = [
        ("a-b-c", "-", "+"),
        ("2024-05", "(\\d+)-(\\d+)", "$2/$1"),
        ("aaa", "a*", "x"),
        ("abc", "", "-"),
        ("abc", "x*", "$0$0"),
        ("héllo wörld", "(?P<w>\\w+)", "<${w}>"),
        ("a.b", "\\.", "$$"),
        ("abc", "(b)", "[$1$2]"),
    ];
    let d = Document::parse_str("");
    for (s, re, rep) in cases {
        let want = regex::Regex::new(re)
            .unwrap()
            .replace_all(s, rep)
            .into_owned();
        let expr = format!("replace('{s}', '{re}', '{rep}')");
        let got = eval_with(&d, &expr, Budget::default()).unwrap();
        assert_eq!(render(&d, &got), want, "{expr}");
    }
}

#[test]
fn ordinary_expressions_on_a_large_page_stay_far_below_the_budget() {
    let d = Document::parse_str(&large_page(60_000));
    let elements = (0..d.len() as u32)
        .filter(|&n| d.is_element(NodeId(n)))
        .count();
    assert!(elements >= 60_000, "{elements}");
    // The expressions of the benchmark, and a few heavier ones.
    let exprs = [
        "//a/@href",
        "//div[@class='content']//p",
        "//h1//text()",
        "//meta[@property='og:title']/@content",
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' article ')]",
        "//table//tr/td[2]",
        "count(//p)",
        "//li[a]/a[1]",
        "//img[@alt]/@src",
        "//script[@type='application/ld+json']",
        "//p[string-length(normalize-space()) > 80]",
        "//article//h2/following-sibling::p[1]",
        "//*[@id]",
        "//div[p][last()]",
        "normalize-space(//title)",
        "//div[contains(@class, 'section')]//span[@class='author']/text()",
        "//tr[td[1] = 'k']/td[2]",
        "//article[.//time[starts-with(., '2024')]]//h2",
        "//li[position() mod 2 = 0]/preceding-sibling::li[1]",
        "//*[normalize-space(text()) = 'Footer']/ancestor::*",
        "sum(//td[number(.) = number(.)])",
        "count(//*[not(*)][string-length(.) > 3])",
        "string-join(//h2, ' | ')",
        "//img[not(@alt)]/following::p[1]",
        "//a[translate(@href, '0123456789', '') = '/i//']",
        "//span[matches(., '^[A-Z]\\.')]",
        "//div[@class='meta']/*[last()]",
        "count(//node())",
        "//*[@id = 'sec1499']//a/@href",
        "//h2[. = 'Section 7']",
    ];
    let mut most = 0;
    for expr in exprs {
        let used = work(&d, expr);
        most = most.max(used);
        assert!(
            used < Budget::DEFAULT.work / 100,
            "{expr} used {used} units of work"
        );
    }
    // The heaviest of them scans the page a few times over.
    assert!(most > 100_000, "{most}");
}

#[test]
fn positional_steps_that_stop_early_select_what_full_walks_do() {
    let d = Document::parse_str(&large_page(200));
    let axes = [
        "following",
        "preceding",
        "following-sibling",
        "preceding-sibling",
        "child",
        "descendant",
        "descendant-or-self",
        "ancestor",
        "attribute",
    ];
    for axis in axes {
        for k in ["1", "2", "3", "40", "0", "1.5", "-1"] {
            for from in ["//p", "//li", "//td", "//i", "//time/text()", "//img/@src"] {
                let fast = format!("{from}/{axis}::node()[{k}]");
                let slow = format!("{from}/{axis}::node()[position() = {k}]");
                let fast_v = eval_with(&d, &fast, Budget::default()).unwrap();
                let slow_v = eval_with(&d, &slow, Budget::default()).unwrap();
                assert_eq!(fast_v, slow_v, "{fast}");
                let named = format!("{from}/{axis}::*[{k}][not(self::b)]");
                let named_slow = format!("{from}/{axis}::*[position() = {k}][not(self::b)]");
                assert_eq!(
                    eval_with(&d, &named, Budget::default()).unwrap(),
                    eval_with(&d, &named_slow, Budget::default()).unwrap(),
                    "{named}"
                );
            }
        }
    }
}
