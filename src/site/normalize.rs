//! One spelling per page: URL normalisation, so that a crawler that has
//! seen a page under one spelling does not fetch it again under another,
//! and links found in pages made absolute and normalised in one step.
//!
//! Only rewrites that every server treats alike are made: what the URL
//! standard already does on parsing (lowercase scheme and host, default
//! ports dropped, `.` and `..` segments resolved, reserved characters
//! percent-encoded), plus the fragment dropped (it never reaches the
//! server), an empty query dropped, tracking parameters dropped, the query
//! pairs ordered by key, percent-escapes of unreserved characters decoded
//! and the hex digits of the others uppercased (RFC 3986, 6.2.2). A path's
//! trailing slash is kept: servers differ on whether `/a` and `/a/` are one
//! page.
//!
//! It refuses every scheme but `http` and `https`: `normalize` gives `None`
//! for them, and `resolve` does for `javascript:`, `mailto:`, `tel:` and
//! `data:` links (checked before joining, so that such an href is never read
//! as a relative path) and for hrefs that do not parse. It does not reorder
//! the values of a repeated key, which some servers read as a list, decode
//! the escape of a reserved character, or touch the path's case or a `www.`
//! prefix.

use url::Url;

/// Query keys that only tell an analytics service where a visitor came
/// from: the page is the same without them. `utm_` keys are matched by
/// prefix, see [`is_tracking_key`].
pub const TRACKING_KEYS: &[&str] = &[
    "fbclid", "gclid", "dclid", "msclkid", "yclid", "igshid", "mc_cid", "mc_eid", "_hsenc",
    "_hsmi", "mkt_tok",
];

/// The normal form of an `http` or `https` URL, or `None` for any other
/// scheme (`mailto:`, `ftp:`, `javascript:`, ...), which a crawler does not
/// fetch.
///
/// The result is a fixed point: `normalize(&normalize(u)?) == normalize(u)`.
pub fn normalize(url: &Url) -> Option<Url> {
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let mut out = url.clone();
    out.set_fragment(None);
    // A parsed URL never holds its scheme's default port, but one built
    // with `set_port` may.
    if out.port().is_some() && out.port() == default_port(out.scheme()) {
        // Setting the port of an http(s) URL cannot fail: it has a host.
        let _ = out.set_port(None);
    }
    let path = normalize_escapes(out.path());
    if path != out.path() {
        out.set_path(&path);
    }
    match out.query().map(normalize_query) {
        Some(query) if query.is_empty() => out.set_query(None),
        Some(query) if Some(query.as_str()) != out.query() => out.set_query(Some(&query)),
        _ => {}
    }
    Some(out)
}

/// A link found on the page at `base`, made absolute and normalised; `None`
/// for links a crawler does not follow: `javascript:`, `mailto:`, `tel:`,
/// `data:` and every other scheme but `http` and `https`, and hrefs that do
/// not parse. An empty href or a bare fragment is the page itself.
pub fn resolve(base: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    // These are refused before joining so that an href such as
    // `javascript:location='/x'` is never mistaken for a relative path.
    const REFUSED: [&str; 4] = ["javascript:", "mailto:", "tel:", "data:"];
    let lead = href.as_bytes()[..href.len().min(11)].to_ascii_lowercase();
    if REFUSED
        .iter()
        .any(|scheme| lead.starts_with(scheme.as_bytes()))
    {
        return None;
    }
    normalize(&base.join(href).ok()?)
}

/// Whether a query key (as written, percent-escapes decoded or not) is one
/// that only tracks visitors: `utm_*` or one of [`TRACKING_KEYS`], in any
/// case.
pub fn is_tracking_key(key: &str) -> bool {
    let key = decode_unreserved(key).to_ascii_lowercase();
    key.starts_with("utm_") || TRACKING_KEYS.contains(&key.as_str())
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// The query without tracking pairs and empty pieces, its pairs ordered by
/// key. The sort is stable, so repeated keys (`a=2&a=1`) keep their order,
/// which some servers read as a list.
fn normalize_query(query: &str) -> String {
    let mut pairs: Vec<(String, &str)> = Vec::new();
    for piece in query.split('&').filter(|piece| !piece.is_empty()) {
        let key = piece.split('=').next().unwrap_or(piece);
        if is_tracking_key(key) {
            continue;
        }
        pairs.push((normalize_escapes(key), piece));
    }
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::with_capacity(query.len());
    for (i, (_, piece)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(&normalize_escapes(piece));
    }
    out
}

/// `%xx` escapes of unreserved characters (letters, digits, `-._~`)
/// decoded, the hex digits of every other escape uppercased, a `%` that
/// starts no escape but stands before a hex digit or a `%` escaped (`%25`),
/// everything else as it is.
fn normalize_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(byte) = escape_at(bytes, i) {
            if is_unreserved(byte) {
                out.push(char::from(byte));
            } else {
                out.push('%');
                out.push_str(&format!("{byte:02X}"));
            }
            i += 3;
        } else if bytes[i] == b'%' {
            // A `%` that starts no escape stays as it is (`100%`), unless a
            // hex digit or another `%` follows: then it is written as the
            // escape of itself, since left bare it could start an escape
            // with what a decoding puts after it (`%%330` would become
            // `%30`, then `0`), and normalizing must be done in one pass.
            let next = bytes.get(i + 1).copied();
            if next.is_some_and(|b| b == b'%' || b.is_ascii_hexdigit()) {
                out.push_str("%25");
            } else {
                out.push('%');
            }
            i += 1;
        } else {
            // Copy the whole run up to the next `%`, so that multi-byte
            // characters are copied whole.
            let next = text[i..].find('%').map_or(text.len(), |at| i + at);
            out.push_str(&text[i..next]);
            i = next;
        }
    }
    out
}

/// [`normalize_escapes`] for comparing keys: only the decoding matters.
fn decode_unreserved(text: &str) -> String {
    if text.contains('%') {
        normalize_escapes(text)
    } else {
        text.to_owned()
    }
}

/// The byte a `%xx` escape at `i` stands for, if there is one.
fn escape_at(bytes: &[u8], i: usize) -> Option<u8> {
    if bytes.get(i) != Some(&b'%') {
        return None;
    }
    let hi = char::from(*bytes.get(i + 1)?).to_digit(16)?;
    let lo = char::from(*bytes.get(i + 2)?).to_digit(16)?;
    u8::try_from(hi * 16 + lo).ok()
}

fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// `input` normalises to `expected` (`None`: refused).
    fn check(input: &str, expected: Option<&str>) {
        let url = Url::parse(input).unwrap();
        let got = normalize(&url).map(String::from);
        assert_eq!(got.as_deref(), expected, "normalize({input})");
    }

    /// `href` on the page at `base` resolves to `expected`.
    fn check_resolve(base: &str, href: &str, expected: Option<&str>) {
        let base = Url::parse(base).unwrap();
        let got = resolve(&base, href).map(String::from);
        assert_eq!(got.as_deref(), expected, "resolve({base}, {href:?})");
    }

    #[test]
    fn scheme_and_host_are_lowercased_and_default_ports_dropped() {
        check("HTTP://Example.COM:80/A/b", Some("http://example.com/A/b"));
        check("https://example.com:443/", Some("https://example.com/"));
        check(
            "https://example.com:8443/",
            Some("https://example.com:8443/"),
        );
    }

    #[test]
    fn a_port_set_to_the_default_is_dropped() {
        let mut url = Url::parse("http://example.com:8080/x").unwrap();
        url.set_port(Some(80)).unwrap();
        assert_eq!(normalize(&url).unwrap().as_str(), "http://example.com/x");
    }

    #[test]
    fn other_schemes_are_refused() {
        check("mailto:someone@example.com", None);
        check("ftp://example.com/file", None);
        check("javascript:void(0)", None);
        check("data:text/plain,hi", None);
    }

    #[test]
    fn fragment_and_empty_query_are_dropped() {
        check("http://example.com/a#top", Some("http://example.com/a"));
        check("http://example.com/a?", Some("http://example.com/a"));
        check("http://example.com/a?#x", Some("http://example.com/a"));
        check("http://example.com/a?&&", Some("http://example.com/a"));
    }

    #[test]
    fn tracking_parameters_are_dropped() {
        check(
            "http://example.com/p?utm_source=rss&id=3&utm_medium=feed",
            Some("http://example.com/p?id=3"),
        );
        check(
            "http://example.com/p?fbclid=abc",
            Some("http://example.com/p"),
        );
        check(
            "http://example.com/p?gclid=1&mc_cid=2&mc_eid=3&UTM_Campaign=x",
            Some("http://example.com/p"),
        );
        check(
            "http://example.com/p?%75tm_source=x&a=1",
            Some("http://example.com/p?a=1"),
        );
        // A key that merely contains a tracking word stays.
        check(
            "http://example.com/p?not_utm_x=1",
            Some("http://example.com/p?not_utm_x=1"),
        );
    }

    #[test]
    fn query_pairs_are_sorted_stably_by_key() {
        check(
            "http://example.com/?b=1&a=2&c",
            Some("http://example.com/?a=2&b=1&c"),
        );
        check(
            "http://example.com/?t=1&a=2&a=1",
            Some("http://example.com/?a=2&a=1&t=1"),
        );
        check(
            "http://example.com/?a=1&&b=2",
            Some("http://example.com/?a=1&b=2"),
        );
    }

    #[test]
    fn percent_escapes_are_normalised() {
        check(
            "http://example.com/%7euser/%41b",
            Some("http://example.com/~user/Ab"),
        );
        check(
            "http://example.com/a%2fb%3f",
            Some("http://example.com/a%2Fb%3F"),
        );
        check(
            "http://example.com/?q=a%2bb%7E",
            Some("http://example.com/?q=a%2Bb~"),
        );
        check(
            "http://example.com/caf%C3%A9",
            Some("http://example.com/caf%C3%A9"),
        );
        check(
            "http://example.com/café",
            Some("http://example.com/caf%C3%A9"),
        );
        check("http://example.com/100%", Some("http://example.com/100%"));
    }

    #[test]
    fn trailing_slash_is_kept() {
        check("http://example.com/a/", Some("http://example.com/a/"));
        check("http://example.com/a", Some("http://example.com/a"));
        check("http://example.com", Some("http://example.com/"));
    }

    #[test]
    fn links_are_joined_and_normalised() {
        let base = "https://blog.example.com/2024/05/post/?utm_source=x";
        check_resolve(
            base,
            "../other/",
            Some("https://blog.example.com/2024/05/other/"),
        );
        check_resolve(base, "../../../../x", Some("https://blog.example.com/x"));
        check_resolve(
            base,
            "/tag/rust#list",
            Some("https://blog.example.com/tag/rust"),
        );
        check_resolve(
            base,
            "  //cdn.example.com/x  ",
            Some("https://cdn.example.com/x"),
        );
        check_resolve(base, "http://EXAMPLE.org:80", Some("http://example.org/"));
        check_resolve(base, "", Some("https://blog.example.com/2024/05/post/"));
        check_resolve(
            base,
            "#comments",
            Some("https://blog.example.com/2024/05/post/"),
        );
        check_resolve(
            base,
            "?page=2&utm_medium=x",
            Some("https://blog.example.com/2024/05/post/?page=2"),
        );
    }

    #[test]
    fn links_a_crawler_does_not_follow_are_refused() {
        let base = "https://example.com/a/";
        check_resolve(base, "javascript:void(0)", None);
        check_resolve(base, " JavaScript:location='/x'", None);
        check_resolve(base, "mailto:me@example.com", None);
        check_resolve(base, "tel:+4412345", None);
        check_resolve(base, "data:text/html,<b>x</b>", None);
        check_resolve(base, "ftp://example.com/", None);
        check_resolve(base, "http://[::1", None);
    }

    /// URLs of the kinds a page holds, with the parts normalisation touches.
    fn url_text() -> impl Strategy<Value = String> {
        let scheme = prop::sample::select(vec!["http", "HTTPS", "ftp", "Http"]);
        let host = prop::sample::select(vec![
            "Example.com",
            "a.b.example.org",
            "127.0.0.1",
            "[::1]",
            "xn--caf-dma.fr",
        ]);
        let port = prop::sample::select(vec!["", ":80", ":443", ":8080"]);
        let path = "(/[a-zA-Z0-9%._~é!$&'()*+,;=:@-]{0,6}){0,4}/?";
        let query = "(\\?([a-zA-Z0-9%_]{0,5}(=[a-zA-Z0-9%&=+]{0,5})?&?){0,4})?";
        let fragment = "(#[a-z%]{0,4})?";
        (scheme, host, port, path, query, fragment)
            .prop_map(|(s, h, p, path, q, f)| format!("{s}://{h}{p}{path}{q}{f}"))
    }

    proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(256)))]
        #[test]
        fn normalize_is_idempotent(text in url_text()) {
            if let Ok(url) = Url::parse(&text)
                && let Some(once) = normalize(&url)
            {
                let twice = normalize(&once);
                prop_assert_eq!(Some(&once), twice.as_ref(), "{}", text);
                prop_assert!(once.fragment().is_none());
                prop_assert!(once.query() != Some(""));
            }
        }

        #[test]
        fn resolve_never_panics_and_gives_fixed_points(href in any::<String>(), generated in url_text()) {
            let base = Url::parse("https://example.com/dir/page.html?x=1").unwrap();
            for candidate in [href.as_str(), generated.as_str()] {
                if let Some(url) = resolve(&base, candidate) {
                    prop_assert!(matches!(url.scheme(), "http" | "https"));
                    prop_assert_eq!(normalize(&url), Some(url.clone()));
                }
            }
        }
    }
}
