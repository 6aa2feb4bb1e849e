use proptest::prelude::*;

use super::*;

/// The sanitized page of `html` with the nodes at `paths` marked.
fn clean(html: &str, paths: &[&str]) -> String {
    let doc = Document::parse_str(html);
    let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
    sanitize(&doc, &targets_of(&doc, &paths))
}

/// What a browser would find in the sanitized page: every element's name
/// and attribute names, read back with the same parser.
fn elements_and_attributes(html: &str) -> Vec<(String, Vec<String>)> {
    let doc = Document::parse_str(html);
    doc.all()
        .filter(|&n| doc.is_element(n))
        .map(|n| {
            (
                doc.name(n).to_ascii_lowercase(),
                doc.attrs(n)
                    .iter()
                    .map(|a| doc.attr_name(a).to_ascii_lowercase())
                    .collect(),
            )
        })
        .collect()
}

/// Fails when the page, read back, has anything that runs, loads or sends.
fn check_inert(html: &str) {
    for (name, attributes) in elements_and_attributes(html) {
        assert!(
            !DROPPED.contains(&name.as_str()) || (name == "meta" && attributes == ["charset"]),
            "<{name}> in {html}"
        );
        assert_ne!(name, "form", "{html}");
        for a in attributes {
            assert!(
                !a.starts_with("on")
                    && !matches!(
                        a.as_str(),
                        "src"
                            | "srcset"
                            | "href"
                            | "xlink:href"
                            | "action"
                            | "formaction"
                            | "poster"
                            | "background"
                            | "data"
                            | "ping"
                            | "target"
                    ),
                "{a} on <{name}> in {html}"
            );
        }
    }
    // The CSS, as a browser reads it: style attributes and style elements.
    let doc = Document::parse_str(html);
    let mut css = String::new();
    for n in doc.all() {
        if doc.is_element(n) {
            css.push_str(doc.attr(n, "style").unwrap_or(""));
            if doc.name(n) == "style" {
                css.push_str(&doc.string_value(n));
            }
        }
    }
    let css = css.to_ascii_lowercase();
    for word in ["url(", "@import", "expression(", "image-set(", "\\"] {
        assert!(!css.contains(word), "{word} in the CSS of {html}");
    }
}

const HOSTILE: &str = r#"<html><head>
<base href="http://evil.test/"><meta http-equiv="refresh" content="0;url=http://evil.test/">
<link rel="stylesheet" href="http://evil.test/a.css">
<style>@import 'http://evil.test/b.css'; body { background: u\72l(http://evil.test/c.png) } p { color: red }</style>
<script>fetch('http://evil.test/')</script></head>
<body onload="alert(1)">
<h1 style="background-image:url('http://evil.test/d.png');color:blue">Title</h1>
<img src="http://evil.test/e.png" srcset="http://evil.test/f.png 2x" onerror="alert(2)" alt="cover">
<a href="http://evil.test/g" onclick="alert(3)" target="_top">a link</a>
<a href="javascript:alert(4)">bad link</a>
<form action="http://evil.test/h" method="post"><input name="q" formaction="http://evil.test/i"><button>Go</button></form>
<iframe src="http://evil.test/j"></iframe><object data="http://evil.test/k"></object><embed src="http://evil.test/l">
<svg><a xlink:href="javascript:alert(5)"><text>svg</text></a><animate attributeName="href" to="javascript:alert(6)"/><image href="http://evil.test/m.png"/></svg>
<video poster="http://evil.test/n.png"><source src="http://evil.test/o.mp4"></video>
<table background="http://evil.test/p.png"><tr><td>price</td><td class="v">£3</td></tr></table>
<!-- a comment -->
</body></html>"#;

#[test]
fn a_hostile_page_keeps_its_text_and_loses_everything_that_runs_or_loads() {
    let out = clean(HOSTILE, &[]);
    check_inert(&out);
    assert!(!out.contains("evil.test/h"), "{out}");
    assert!(!out.contains("alert"), "{out}");
    // The text and the inert markup stay.
    for kept in [
        "<h1 style=\"background-image:invalid('http://evil.test/d.png');color:blue\">Title</h1>",
        "<img alt=\"cover\">",
        "<a data-href=\"http://evil.test/g\">a link</a>",
        "<a>bad link</a>",
        "<div><input name=\"q\"><button>Go</button></div>",
        "<td class=\"v\">£3</td>",
        "p { color: red }",
    ] {
        assert!(out.contains(kept), "{kept} missing in {out}");
    }
    assert!(!out.contains("a comment"), "{out}");
}

#[test]
fn the_targets_are_marked_and_the_first_takes_the_fragment() {
    let out = clean(
        "<p id='mend-target'>decoy</p><div><p id='x'>one</p><p>two</p></div>",
        &["/html/body/div/p[2]", "/html/body/div/p[1]/text()"],
    );
    assert!(out.contains("<p>decoy</p>"), "{out}");
    assert!(
        out.contains(
            "<p data-mend-target=\"\" id=\"mend-target\">one</p><p data-mend-target=\"\">two</p>"
        ),
        "{out}"
    );
    assert_eq!(out.matches("id=\"mend-target\"").count(), 1, "{out}");
}

#[test]
fn the_fragment_goes_to_the_first_target_the_markup_shows() {
    let out = clean(
        "<nav hidden><b>1</b></nav><p style='display:none'><b>2</b></p><div><b>3</b></div>",
        &["//b"],
    );
    assert!(
        out.contains("<b data-mend-target=\"\" id=\"mend-target\">3</b>"),
        "{out}"
    );
    assert_eq!(out.matches("id=\"mend-target\"").count(), 1, "{out}");
}

#[test]
fn an_attribute_target_marks_its_element() {
    let out = clean("<a href='/b'>B</a>", &["/html/body/a/@href"]);
    assert!(
        out.contains("<a data-href=\"/b\" data-mend-target=\"\" id=\"mend-target\">B</a>"),
        "{out}"
    );
}

#[test]
fn a_benign_page_reads_back_with_the_same_text() {
    let page = "<html><head><title>T &amp; U</title></head><body><ul class=l><li>1 &lt; 2</li>\
                <li data-k='v'>b&nbsp;c</li></ul><textarea>&lt;/textarea&gt;</textarea></body></html>";
    let before = Document::parse_str(page);
    let after = Document::parse_str(&clean(page, &[]));
    let body = |d: &Document| {
        let b = d.all().find(|&n| d.name(n) == "body").unwrap();
        d.string_value(b)
    };
    assert_eq!(body(&after), body(&before));
}

#[test]
fn style_text_cannot_close_its_element() {
    let out = clean("<style>a{}</style><style>x</style><p>t</p>", &[]);
    check_inert(&out);
    let css = scrub_css("a { content: '</style><script>alert(1)</script>' }");
    assert!(!css.contains("</"), "{css}");
}

#[test]
fn css_in_the_elements_an_svg_style_holds_is_scrubbed() {
    // An SVG `style` holds elements, and its CSS is all the text below it:
    // escapes there could spell `url(` and `@import`. Found by the property
    // test below.
    let out = clean(
        "<svg><style><svg>u\\rl(y)@im\\port 'x';<div></div></svg></style></svg>",
        &[],
    );
    check_inert(&out);
    assert!(out.contains("invalid(y)@invalid 'x';"), "{out}");
}

#[test]
fn svg_and_mathml_style_payloads_leave_no_live_element() {
    // Text in an SVG or MathML `style` is text; a serializer that wrote it
    // raw made it an `<img onerror>` when the frame read the page. An `img`
    // may stay, inert (`check_inert` reads its attributes).
    for payload in [
        "<svg><style>&lt;img src=x onerror=alert(1)&gt;</style></svg>",
        "<math><mtext><mglyph><style>&lt;img src=x onerror=alert(1)&gt;</style></mglyph></mtext></math>",
        "<math><mtext><table><mglyph><style><!--</style><img title=\"--&gt;&lt;img src=1 onerror=alert(1)&gt;\">",
        "<svg></p><style><a id=\"</style><img src=1 onerror=alert(1)>\">",
        "<svg><style>&lt;meta http-equiv=refresh content=0;url=http://evil.test/&gt;</style></svg>",
    ] {
        let out = clean(&format!("<p>before</p>{payload}<p>after</p>"), &[]);
        check_inert(&out);
        let doc = Document::parse_str(&out);
        for n in doc.all().filter(|&n| doc.is_element(n)) {
            assert!(
                !matches!(doc.name(n), "svg" | "math" | "meta")
                    || doc.attrs(n).iter().all(|a| doc.attr_name(a) == "charset"),
                "<{}> in {out}",
                doc.name(n)
            );
        }
        // The text around is kept, even where an unclosed foreign element
        // holds the rest of the page.
        assert!(
            out.contains("<p>before</p>") && out.contains("after"),
            "{out}"
        );
    }
}

#[test]
fn a_marked_element_keeps_its_mark_whatever_its_name() {
    let out = clean(
        "<product-price>9</product-price><marquee>8</marquee><blink>7</blink>",
        &["/html/body/product-price", "/html/body/marquee"],
    );
    assert!(
        out.contains("<product-price data-mend-target=\"\" id=\"mend-target\">9</product-price>"),
        "{out}"
    );
    assert!(
        out.contains("<span data-mend-target=\"\">8</span>"),
        "{out}"
    );
    // An unknown element that carries no mark is unwrapped, its text kept.
    assert!(out.contains(">7<") && !out.contains("blink"), "{out}");
}

#[test]
fn the_page_css_is_kept_once_in_head_and_style_attributes_are_scrubbed() {
    let out = clean(
        "<head><style>h1{color:red}</style></head><body class=b style='background:url(x)'>\
         <style>p{margin:0}</style><p style='color:blue'>t</p></body>",
        &[],
    );
    check_inert(&out);
    let head = &out[..out.find("</head>").unwrap()];
    assert!(
        head.contains("h1{color:red}") && head.contains("p{margin:0}"),
        "{out}"
    );
    assert!(
        out.contains("<body class=\"b\" style=\"background:invalid(x)\">"),
        "{out}"
    );
    assert!(out.contains("<p style=\"color:blue\">t</p>"), "{out}");
}

#[test]
fn a_deep_page_is_sanitized_without_recursion() {
    let depth = 100_000;
    let html = format!("{}x{}", "<div>".repeat(depth), "</div>".repeat(depth));
    let out = clean(&html, &[]);
    assert!(out.contains('x'));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(256)))]

    /// Whatever pieces of hostile markup a page is made of, nothing in the
    /// sanitized page runs or loads, read back as a browser would.
    #[test]
    fn no_page_keeps_anything_that_runs_or_loads(pieces in proptest::collection::vec(prop::sample::select(vec![
        "<script>", "</script>", "<img src=x onerror=alert(1)>", "<a href='javascript:1'>", "</a>",
        "<div style=\"background:URL(x)\">", "</div>", "<style>", "</style>", "@im\\port 'x';",
        "u\\rl(y)", "<svg>", "</svg>", "<use xlink:href='#x'/>", "<form action=z>", "</form>",
        "<iframe srcdoc='<script>1</script>'>", "<p onmouseover=1 title=t>", "text", "<!--", "-->",
        "<table><tr><td background=b>", "<math><mi xlink:href=q>", "<xmp>", "</xmp>", "<noscript>",
        "<object data=o>", "<input type=image src=s>", "<body onload=x>", "<meta http-equiv=refresh>",
        "&lt;img src=x onerror=1&gt;", "<mtext>", "<mglyph>", "<template>", "<select>", "<option>",
        "<textarea>", "</textarea>", "<noembed>", "<title>", "<custom-el onclick=1>",
    ]), 0..24)) {
        let html = pieces.concat();
        check_inert(&clean(&html, &[]));
    }
}
