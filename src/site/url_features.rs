//! What a URL says about its page before it is fetched, as hashed
//! features: its segments by position, their shapes (`2024` is `9`,
//! `Topic_12` is `a_9`), each segment's shape after the segment before it
//! (`page/9`), the last segment's shape and extension, the query keys and
//! the shapes of their values, the depth, the host, and a bias. Shapes let
//! what was learned of `/list/3` carry over to `/list/57`; literal
//! segments tell `/list/` from `/wiki/`.
//!
//! ## What it refuses
//!
//! Only the first [`POSITIONS`] segments and query pairs give features of
//! their own, each cut to [`SEGMENT_BYTES`] bytes, and depth counts up to 16,
//! so a URL of any length gives a bounded set of features. The scheme, the
//! port and the fragment are not read, and percent-escapes are not decoded
//! (`caf%C3%A9` shapes as `a%a9%a9`). Two features may share one of the
//! [`BUCKETS`] buckets; nothing tells them apart.

use url::Url;

use super::fnv::Fnv64;

/// How many buckets features are hashed into. Collisions only blur a
/// model a little, and a site seldom has more than a few thousand distinct
/// features.
pub(crate) const BUCKETS: usize = 1 << 14;

/// Segments past this position add nothing that the shape of the whole
/// path does not say.
const POSITIONS: usize = 8;

/// Longer segments are cut before hashing: a feature of their first bytes
/// is as good and bounds the work per URL.
const SEGMENT_BYTES: usize = 64;

/// The buckets of `url`'s features, sorted, each once.
pub(crate) fn features(url: &Url) -> Vec<usize> {
    let mut out = Vec::with_capacity(32);
    let mut add = |kind: &[u8], parts: &[&[u8]]| {
        let mut hasher = Fnv64::new().with(kind);
        for part in parts {
            // A separator byte that URLs never hold keeps ("ab", "c") and
            // ("a", "bc") apart.
            hasher = hasher.with(&[0xff]).with(part);
        }
        out.push(bucket(hasher.finish()));
    };
    add(b"bias", &[]);
    add(b"host", &[url.host_str().unwrap_or("").as_bytes()]);
    let path = url.path();
    let segments: Vec<&[u8]> = path
        .strip_prefix('/')
        .unwrap_or(path)
        .split('/')
        .map(|segment| cut(segment.as_bytes()))
        .collect();
    let depth = segments
        .iter()
        .filter(|segment| !segment.is_empty())
        .count()
        .min(16);
    add(b"depth", &[&[depth as u8]]);
    add(b"slash", &[&[u8::from(path.ends_with('/'))]]);
    let shapes: Vec<Vec<u8>> = segments.iter().map(|segment| shape(segment)).collect();
    for (i, (segment, shape)) in segments.iter().zip(&shapes).enumerate().take(POSITIONS) {
        let position = [i as u8];
        add(b"segment", &[&position, segment]);
        add(b"shape", &[&position, shape]);
        if let Some(previous) = i.checked_sub(1).and_then(|p| segments.get(p)) {
            add(b"after", &[previous, shape]);
        }
    }
    add(b"path-shape", &[&shapes.join(&b'/')]);
    if let Some(last) = segments.iter().rev().find(|segment| !segment.is_empty()) {
        add(b"last-shape", &[&shape(last)]);
        if let Some(dot) = last.iter().rposition(|&byte| byte == b'.') {
            add(b"extension", &[&last[dot..]]);
        }
    }
    if let Some(query) = url.query() {
        add(b"query", &[]);
        for pair in query.split('&').take(POSITIONS) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = cut(key.as_bytes());
            add(b"key", &[key]);
            add(b"key-shape", &[key, &shape(cut(value.as_bytes()))]);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn bucket(hash: u64) -> usize {
    // BUCKETS is a power of two, so the mask keeps the low bits.
    (hash & (BUCKETS as u64 - 1)) as usize
}

fn cut(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(SEGMENT_BYTES)]
}

/// A run of digits as `9`, a run of letters (or of non-ASCII bytes, which
/// are letters of other scripts) as `a`, any other byte as it is.
fn shape(segment: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(segment.len().min(16));
    for &byte in segment {
        let class = if byte.is_ascii_digit() {
            b'9'
        } else if byte.is_ascii_alphabetic() || !byte.is_ascii() {
            b'a'
        } else {
            byte
        };
        if !(matches!(class, b'9' | b'a') && out.last() == Some(&class)) {
            out.push(class);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_shape(segment: &str, expected: &str) {
        assert_eq!(
            String::from_utf8(shape(segment.as_bytes())).unwrap(),
            expected,
            "{segment}"
        );
    }

    fn features_of(url: &str) -> Vec<usize> {
        features(&Url::parse(url).unwrap())
    }

    #[test]
    fn shapes_fold_runs_of_digits_and_letters() {
        check_shape("2024", "9");
        check_shape("Topic_12", "a_9");
        check_shape("some-slug-3.html", "a-a-9.a");
        check_shape("caf%C3%A9", "a%a9%a9");
        check_shape("", "");
    }

    #[test]
    fn urls_of_one_shape_share_most_features() {
        let a = features_of("https://example.com/list/3");
        let b = features_of("https://example.com/list/57");
        let c = features_of("https://example.com/wiki/Topic_3");
        let shared = |x: &[usize], y: &[usize]| x.iter().filter(|f| y.contains(f)).count();
        assert!(shared(&a, &b) > shared(&a, &c), "{a:?} {b:?} {c:?}");
        assert!(a.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(a.iter().all(|&f| f < BUCKETS));
    }

    #[test]
    fn features_are_bounded_for_long_urls() {
        let long = format!(
            "https://example.com/{}?{}",
            "x/".repeat(10_000),
            "k=v&".repeat(10_000)
        );
        assert!(features_of(&long).len() < 64);
    }
}
