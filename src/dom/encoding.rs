//! Character encoding detection for HTML bytes.
//!
//! The order follows the WHATWG encoding sniffing algorithm in the parts that
//! matter for saved and fetched pages: a byte order mark wins, then a transport
//! label (the HTTP `Content-Type` charset, when the caller has one), then a
//! `<meta charset>` or `<meta http-equiv="Content-Type" content="…charset=…">`
//! found by a prescan, and finally UTF-8. Decoding never fails: bytes that are
//! not valid in the chosen encoding become U+FFFD.
//!
//! The prescan reads up to [`PRESCAN_LIMIT`] bytes but stops at `</head>` or
//! `<body`. The specification's 1,024 bytes miss the declaration on many real
//! pages that put scripts and styles first; browsers then re-parse when the
//! tree builder meets the `<meta>`, and scanning the head up front has the same
//! effect without parsing twice.
//!
//! ## What it refuses
//!
//! It never guesses from the bytes' statistics: without a byte order mark, a
//! known transport label or a declaration, the page is UTF-8. An unknown
//! label is passed over, as is a `<meta>` inside a comment, after `</head>`
//! or `<body`, or beyond [`PRESCAN_LIMIT`] bytes. A `<meta>` cannot declare
//! UTF-16 (it is read as UTF-8) nor `x-user-defined` (read as windows-1252).

use encoding_rs::{Encoding, UTF_8};

/// How many bytes the `<meta>` prescan reads at most.
pub const PRESCAN_LIMIT: usize = 64 * 1024;

/// Where the chosen encoding came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodingSource {
    /// A byte order mark at the start of the bytes.
    ByteOrderMark,
    /// A label given by the caller, such as an HTTP `Content-Type` charset.
    Transport,
    /// A `<meta>` declaration found by the prescan.
    Meta,
    /// Nothing was declared; UTF-8 is assumed.
    Default,
}

/// Chooses the encoding of `bytes`, given an optional transport label.
pub fn sniff(bytes: &[u8], transport: Option<&str>) -> (&'static Encoding, EncodingSource) {
    if let Some((enc, _)) = Encoding::for_bom(bytes) {
        return (enc, EncodingSource::ByteOrderMark);
    }
    // A transport label is taken as it is (UTF-16 included), as the
    // encoding sniffing algorithm does; only a `<meta>` declaration, which
    // is itself ASCII, cannot mean UTF-16.
    if let Some(enc) = transport.and_then(|l| Encoding::for_label(l.trim().as_bytes())) {
        return (enc, EncodingSource::Transport);
    }
    if let Some(enc) = prescan_meta(&bytes[..bytes.len().min(PRESCAN_LIMIT)]) {
        return (html_compatible(enc), EncodingSource::Meta);
    }
    (UTF_8, EncodingSource::Default)
}

/// Decodes `bytes` in `encoding`, stripping a byte order mark, never failing.
pub fn decode<'a>(bytes: &'a [u8], encoding: &'static Encoding) -> std::borrow::Cow<'a, str> {
    // Most pages are valid UTF-8 without a byte order mark: they are
    // borrowed as they are, checked by simdutf8, which is several times
    // faster on text that is not ASCII than the general decoder's check.
    let bom = [&[0xEF, 0xBB, 0xBF][..], &[0xFE, 0xFF], &[0xFF, 0xFE]];
    if encoding == UTF_8
        && !bom.iter().any(|b| bytes.starts_with(b))
        && let Ok(text) = simdutf8::basic::from_utf8(bytes)
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let (text, _, _) = encoding.decode(bytes);
    text
}

/// A page cannot declare itself UTF-16 in a `<meta>` that is itself ASCII, so
/// the specification maps such declarations to UTF-8; `x-user-defined` maps to
/// windows-1252.
fn html_compatible(enc: &'static Encoding) -> &'static Encoding {
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        UTF_8
    } else if enc == encoding_rs::X_USER_DEFINED {
        encoding_rs::WINDOWS_1252
    } else {
        enc
    }
}

/// Scans for a `<meta>` that declares a charset, in the spirit of the WHATWG
/// prescan: comments are skipped, attributes are read case-insensitively, and
/// the scan ends at the first `</head>` or `<body`.
fn prescan_meta(bytes: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &bytes[i..];
        if rest.starts_with(b"<!--") {
            i += find(&rest[4..], b"-->").map_or(bytes.len(), |p| p + 7);
            continue;
        }
        if starts_with_ci(rest, b"</head") || starts_with_ci(rest, b"<body") {
            return None;
        }
        if starts_with_ci(rest, b"<meta") && rest.get(5).is_some_and(|b| is_space(*b) || *b == b'/')
        {
            let (attrs, consumed) = read_attributes(&rest[5..]);
            if let Some(enc) = meta_encoding(&attrs) {
                return Some(enc);
            }
            i += 5 + consumed;
            continue;
        }
        i += 1;
    }
    None
}

fn meta_encoding(attrs: &[(String, String)]) -> Option<&'static Encoding> {
    let get = |name: &str| {
        attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(charset) = get("charset") {
        return Encoding::for_label(charset.trim().as_bytes());
    }
    let http_equiv = get("http-equiv")?;
    if !http_equiv.eq_ignore_ascii_case("content-type") {
        return None;
    }
    charset_from_content(get("content")?)
}

/// Extracts the charset from a `Content-Type` value such as `text/html; charset=utf-8`.
pub fn charset_from_content(content: &str) -> Option<&'static Encoding> {
    let lower = content.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = lower[at + 7..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let value: String = match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].chars().take_while(|&c| c != q).collect(),
        _ => rest
            .chars()
            .take_while(|&c| !c.is_whitespace() && c != ';')
            .collect(),
    };
    Encoding::for_label(value.as_bytes())
}

/// Reads attributes until `>`; returns lower-cased names with their values and
/// how many bytes were consumed.
fn read_attributes(bytes: &[u8]) -> (Vec<(String, String)>, usize) {
    let mut attrs = Vec::new();
    let mut i = 0;
    loop {
        while i < bytes.len() && (is_space(bytes[i]) || bytes[i] == b'/') {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'>' {
            return (attrs, i);
        }
        let start = i;
        while i < bytes.len() && !is_space(bytes[i]) && !matches!(bytes[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = String::from_utf8_lossy(&bytes[start..i]).to_ascii_lowercase();
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        let mut value = String::new();
        if i < bytes.len() && bytes[i] == b'=' {
            i += 1;
            while i < bytes.len() && is_space(bytes[i]) {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'"' || bytes[i] == b'\'') {
                let quote = bytes[i];
                let vstart = i + 1;
                let vend = bytes[vstart..]
                    .iter()
                    .position(|&b| b == quote)
                    .map_or(bytes.len(), |p| vstart + p);
                value = String::from_utf8_lossy(&bytes[vstart..vend]).into_owned();
                i = (vend + 1).min(bytes.len());
            } else {
                let vstart = i;
                while i < bytes.len() && !is_space(bytes[i]) && bytes[i] != b'>' {
                    i += 1;
                }
                value = String::from_utf8_lossy(&bytes[vstart..i]).into_owned();
            }
        }
        if name.is_empty() {
            i += 1;
        } else {
            attrs.push((name, value));
        }
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: &[u8], transport: Option<&str>, expected: &str, source: EncodingSource) {
        let (enc, src) = sniff(bytes, transport);
        assert_eq!(
            (enc.name(), src),
            (expected, source),
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }

    #[test]
    fn utf8_decodes_alike_on_the_borrowed_path_and_the_general_one() {
        let cases: [(&[u8], &str); 5] = [
            (b"<p>caf\xC3\xA9</p>", "<p>caf\u{e9}</p>"),
            (b"\xEF\xBB\xBF<p>x</p>", "<p>x</p>"),
            (b"<p>\xFF</p>", "<p>\u{fffd}</p>"),
            (b"\xFF\xFEx\x00", "x"),
            (b"", ""),
        ];
        for (bytes, expected) in cases {
            assert_eq!(decode(bytes, UTF_8), expected, "{bytes:?}");
            assert_eq!(UTF_8.decode(bytes).0, expected, "{bytes:?}");
        }
    }

    #[test]
    fn byte_order_mark_wins_over_meta() {
        check(
            b"\xEF\xBB\xBF<meta charset=latin1>",
            None,
            "UTF-8",
            EncodingSource::ByteOrderMark,
        );
    }

    #[test]
    fn meta_charset_and_http_equiv_are_found() {
        check(
            b"<html><head><meta charset='ISO-8859-1'>",
            None,
            "windows-1252",
            EncodingSource::Meta,
        );
        check(
            b"<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=Shift_JIS\">",
            None,
            "Shift_JIS",
            EncodingSource::Meta,
        );
    }

    #[test]
    fn transport_label_beats_meta() {
        check(
            b"<meta charset=latin1>",
            Some("utf-8"),
            "UTF-8",
            EncodingSource::Transport,
        );
    }

    #[test]
    fn a_utf16_transport_label_is_honoured() {
        check(
            b"<\0p\0>\0",
            Some("utf-16le"),
            "UTF-16LE",
            EncodingSource::Transport,
        );
        check(
            b"<p>",
            Some("UTF-16BE"),
            "UTF-16BE",
            EncodingSource::Transport,
        );
    }

    #[test]
    fn meta_inside_comment_or_after_body_is_ignored() {
        check(
            b"<!-- <meta charset=latin1> -->",
            None,
            "UTF-8",
            EncodingSource::Default,
        );
        check(
            b"<body><meta charset=latin1>",
            None,
            "UTF-8",
            EncodingSource::Default,
        );
    }

    #[test]
    fn utf16_declared_in_meta_means_utf8() {
        check(
            b"<meta charset=utf-16>",
            None,
            "UTF-8",
            EncodingSource::Meta,
        );
    }

    #[test]
    fn decoding_invalid_bytes_gives_replacement_characters() {
        assert_eq!(decode(b"a\xFFb", UTF_8), "a\u{FFFD}b");
    }
}
