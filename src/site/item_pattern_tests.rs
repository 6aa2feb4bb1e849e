//! Item patterns learned from the feed URLs of sites of the common shapes:
//! each must match its examples and held-out posts of the same site, and
//! reject the site's listing pages.

use proptest::prelude::*;

use super::*;

const HOST: &str = "https://blog.example.com";

/// The listing pages every site has, which no learned pattern may match.
const LISTINGS: &[&str] = &[
    "/",
    "/page/2/",
    "/category/x/",
    "/tag/y/",
    "/author/z/",
    "/2024/05/",
    "/2024/",
    "/feed.xml",
    "/feed/",
];

fn url(path: &str) -> Url {
    Url::parse(&format!("{HOST}{path}")).unwrap()
}

fn learned(examples: &[&str]) -> ItemPattern {
    let urls: Vec<Url> = examples.iter().map(|path| url(path)).collect();
    learn(&urls).unwrap_or_else(|| panic!("nothing learned from {examples:?}"))
}

/// The pattern learned from `examples` is `expected`, and matches each.
fn check(examples: &[&str], expected: &str) {
    let pattern = learned(examples);
    assert_eq!(pattern.as_str(), expected, "learned from {examples:?}");
    for example in examples {
        assert!(
            pattern.matches(&url(example)),
            "{pattern} should match its example {example}"
        );
    }
}

/// The pattern learned from `examples` matches them and `held_out`, and
/// rejects `rejected` and every page of [`LISTINGS`].
fn check_site(examples: &[&str], held_out: &[&str], rejected: &[&str]) {
    let pattern = learned(examples);
    for path in examples.iter().chain(held_out) {
        assert!(pattern.matches(&url(path)), "{pattern} should match {path}");
    }
    for path in rejected.iter().chain(LISTINGS) {
        assert!(
            !pattern.matches(&url(path)),
            "{pattern} should reject {path}"
        );
    }
}

#[test]
fn wordpress_date_permalinks() {
    let examples = [
        "/2024/05/some-slug/",
        "/2024/05/another-post/",
        "/2024/04/hello-world/",
        "/2024/03/rust-tips-and-tricks/",
        "/2023/12/year-end/",
    ];
    check(&examples, r"^/\d{4}/\d{1,2}/[^/]*[^/\d][^/]*/$");
    check_site(
        &examples,
        &["/2019/01/an-old-post/", "/2008/7/x/"],
        &[
            "/2024/05/some-slug/feed/",
            "/2024/05/some-slug/?replytocom=3",
            "/2024/05/some-slug",
            "/2024/05/01/",
        ],
    );
}

#[test]
fn day_permalinks_and_small_ids() {
    check(
        &["/2024/05/07/a-post/", "/2024/04/30/b-post/"],
        r"^/\d{4}/\d{1,2}/\d{1,2}/[^/]*[^/\d][^/]*/$",
    );
    // Short numbers that follow no year are ids, which grow.
    check_site(&["/p/1", "/p/7", "/p/12"], &["/p/123456"], &["/p/x"]);
}

#[test]
fn posts_under_a_section() {
    let examples = [
        "/posts/first-post",
        "/posts/learning-rust",
        "/posts/why-i-write",
    ];
    check(&examples, r"^/posts/[^/]*[^/\d][^/]*$");
    check_site(
        &examples,
        &["/posts/a", "/posts/2019-recap"],
        &["/posts/", "/posts", "/posts/2", "/tags/rust", "/about"],
    );
}

#[test]
fn numbered_html_pages() {
    let examples = ["/p/12345.html", "/p/12001.html", "/p/11876.html"];
    check(&examples, r"^/p/\d+\.html$");
    check_site(
        &examples,
        &["/p/999.html", "/p/1234567.html"],
        &["/p/", "/p/list.html", "/p/12345.htm"],
    );
}

#[test]
fn slugs_ending_in_an_id() {
    let examples = [
        "/blog/my-first-post-101/",
        "/blog/rust-is-fun-202/",
        "/blog/another-one-7/",
    ];
    check(&examples, r"^/blog/[^/]+-\d+/$");
    check_site(
        &examples,
        &["/blog/x-99999/"],
        &[
            "/blog/",
            "/blog/page/2/",
            "/blog/category-rust/",
            "/blog/101/",
        ],
    );
}

#[test]
fn ids_with_a_common_prefix() {
    check(
        &["/story/post-123", "/story/post-456", "/story/post-7"],
        r"^/story/post-\d+$",
    );
    check(&["/s/a12", "/s/a13", "/s/a975"], r"^/s/a\d+$");
}

#[test]
fn blogger_permalinks_keep_their_extension() {
    let examples = [
        "/2024/05/a-post.html",
        "/2023/11/another.html",
        "/2023/02/third-one.html",
    ];
    check(&examples, r"^/\d{4}/\d{1,2}/[^/]+\.html$");
    check_site(
        &examples,
        &["/2011/01/old.html"],
        &["/2024/05/a-post.xml", "/search/label/x"],
    );
}

#[test]
fn a_few_sections_seen_twice_are_named() {
    let examples = [
        "/news/a-b",
        "/news/c-d",
        "/reviews/e-f",
        "/reviews/g-h",
        "/news/i-j",
    ];
    check(&examples, r"^/(?:news|reviews)/[^/]*[^/\d][^/]*$");
    check_site(
        &examples,
        &["/reviews/new-one"],
        &["/tag/y", "/author/z", "/features/x-y"],
    );
}

#[test]
fn sections_seen_once_are_generalised() {
    check(
        &["/news/a-b", "/sport/c-d", "/life/e-f"],
        r"^/[^/]+/[^/]*[^/\d][^/]*$",
    );
}

#[test]
fn query_ids() {
    let examples = ["/?p=123", "/?p=456", "/?p=7"];
    check(&examples, r"^/\?p=\d+$");
    check_site(
        &examples,
        &["/?p=99999"],
        &["/?cat=3", "/?p=12&replytocom=4", "/?p=", "/?s=rust"],
    );
    check(
        &["/viewtopic.php?f=2&t=10", "/viewtopic.php?f=2&t=11"],
        r"^/viewtopic\.php\?f=\d+&t=\d+$",
    );
}

#[test]
fn query_values_that_vary_become_a_class() {
    check(
        &[
            "/index.php?title=Rust_language",
            "/index.php?title=Main_Page_x",
        ],
        r"^/index\.php\?title=[^&]+$",
    );
}

#[test]
fn one_example_gives_the_pattern_of_its_shape() {
    check(
        &["/2024/05/some-slug/"],
        r"^/\d{4}/\d{1,2}/[^/]*[^/\d][^/]*/$",
    );
    check(&["/posts/some-slug"], r"^/posts/[^/]*[^/\d][^/]*$");
    check(&["/p/12345.html"], r"^/p/\d+\.html$");
    check(&["/blog/slug-123/"], r"^/blog/[^/]+-\d+/$");
    check(&["/questions/123-how-to"], r"^/questions/\d+-[^/]+$");
    check(&["/a-post.html"], r"^/[^/]+\.html$");
    check(
        &["/read.php?id=12&lang=en"],
        r"^/read\.php\?id=\d+&lang=en$",
    );
    check_site(&["/2024/05/some-slug/"], &["/2020/12/other/"], &[]);
}

#[test]
fn trailing_slashes_are_kept_as_the_examples_have_them() {
    let examples = ["/posts/a-b/", "/posts/c-d/", "/posts/e-f", "/posts/g-h"];
    check(
        &examples,
        r"^(?:/posts/[^/]*[^/\d][^/]*|/posts/[^/]*[^/\d][^/]*/)$",
    );
}

#[test]
fn a_rare_shape_among_many_examples_is_left_out() {
    const WORDS: [&str; 12] = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima",
    ];
    let mut examples: Vec<String> = (0..12)
        .map(|i| {
            format!(
                "/2024/{:02}/{}-{}/",
                i % 12 + 1,
                WORDS[i],
                WORDS[(i * 5 + 3) % 12]
            )
        })
        .collect();
    examples.push("/about/".to_owned());
    let examples: Vec<&str> = examples.iter().map(String::as_str).collect();
    let pattern = learned(&examples);
    assert_eq!(pattern.as_str(), r"^/\d{4}/\d{1,2}/[^/]*[^/\d][^/]*/$");
    assert!(!pattern.matches(&url("/about/")));
}

#[test]
fn hosts_match_with_or_without_www() {
    let pattern = learn(&[Url::parse("https://www.Example.com/posts/a-b").unwrap()]).unwrap();
    assert_eq!(pattern.hosts(), ["www.example.com"]);
    assert!(pattern.matches(&Url::parse("https://example.com/posts/c-d").unwrap()));
    assert!(pattern.matches(&Url::parse("http://www.example.com/posts/c-d").unwrap()));
    assert!(!pattern.matches(&Url::parse("https://other.example.com/posts/c-d").unwrap()));
    assert_eq!(
        pattern.to_string(),
        r"www.example.com ^/posts/[^/]*[^/\d][^/]*$"
    );
}

#[test]
fn nothing_to_learn_from() {
    assert!(learn(&[]).is_none());
    assert!(learn(&[Url::parse("mailto:me@example.com").unwrap()]).is_none());
}

#[test]
fn learning_normalises_its_examples() {
    let pattern =
        learn(&[Url::parse("https://example.com/p/1?utm_source=feed#top").unwrap()]).unwrap();
    assert_eq!(pattern.as_str(), r"^/p/\d+$");
}

#[test]
fn written_patterns() {
    let pattern = ItemPattern::from_regex(Some(" Blog.Example.com "), r"^/p/\d+").unwrap();
    assert!(pattern.matches(&url("/p/12/comments")));
    assert!(!pattern.matches(&url("/q/12")));
    assert!(!pattern.matches(&Url::parse("https://example.org/p/12").unwrap()));
    assert_eq!(pattern.to_string(), r"blog.example.com ^/p/\d+");

    let anywhere = ItemPattern::from_regex(None, r"\?id=\d+$").unwrap();
    assert!(anywhere.matches(&Url::parse("https://a.example/read?id=3").unwrap()));
    assert_eq!(anywhere.to_string(), r"* \?id=\d+$");

    assert!(matches!(
        ItemPattern::from_regex(None, "(unclosed"),
        Err(PatternError::Regex(_))
    ));
    assert!(ItemPattern::from_regex(None, r"\w{1000}{1000}").is_err());
}

/// Paths of one to four segments of URL characters, with a query now and
/// then.
fn path() -> impl Strategy<Value = String> {
    "(/[a-zA-Z0-9._~%-]{0,8}){1,4}/?(\\?[a-z]{1,3}=[a-z0-9%]{0,4}(&[a-z]=[0-9]{1,3})?)?"
}

proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
    #[test]
    fn learning_never_panics_on_any_text(paths in prop::collection::vec(any::<String>(), 0..8)) {
        let urls: Vec<Url> = paths.iter().filter_map(|p| Url::parse(HOST).ok()?.join(p).ok()).collect();
        if let Some(pattern) = learn(&urls) {
            let _ = urls.iter().filter(|u| pattern.matches(u)).count();
        }
    }

    #[test]
    fn a_few_examples_are_all_matched(paths in prop::collection::vec(path(), 1..=4)) {
        let urls: Vec<Url> = paths.iter().map(|p| url(p)).collect();
        let pattern = learn(&urls).unwrap();
        for example in &urls {
            let example = normalize(example).unwrap();
            prop_assert!(pattern.matches(&example), "{} should match {}", pattern, example);
        }
    }

    #[test]
    fn examples_of_one_shape_are_all_matched(
        segments in prop::collection::vec(prop::collection::vec("[a-zA-Z0-9_~-][a-zA-Z0-9._~-]{0,7}", 3), 1..30),
    ) {
        let urls: Vec<Url> = segments.iter().map(|s| url(&format!("/{}/", s.join("/")))).collect();
        let pattern = learn(&urls).unwrap();
        for example in &urls {
            let example = normalize(example).unwrap();
            prop_assert!(pattern.matches(&example), "{} should match {}", pattern, example);
        }
    }
}
