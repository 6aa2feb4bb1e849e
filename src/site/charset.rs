//! The text of an XML document from its bytes: the encoding is taken from a
//! byte-order mark, else from the XML declaration, else UTF-8 (XML 1.0,
//! appendix F). Bytes that are not valid in that encoding become U+FFFD, so
//! any input gives text and a feed with one bad byte still gives its
//! entries.
//!
//! ## What it refuses
//!
//! It never fails: bytes invalid in the encoding become U+FFFD. A declaration
//! counts only when it opens the bytes and ends within their first 256; one
//! whose encoding name is unknown, unquoted or unterminated counts for
//! nothing, and UTF-8 is used. A declaration readable as ASCII that names
//! UTF-16 is taken as UTF-8. It reads no HTTP header and no `<meta charset>`:
//! only the bytes.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// `bytes` decoded as the document says it is encoded.
pub(crate) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if let Some((encoding, bom)) = Encoding::for_bom(bytes) {
        return encoding.decode_without_bom_handling(&bytes[bom..]).0;
    }
    // UTF-16 without a mark still shows `<?` in its first four bytes.
    let encoding = match bytes.get(..4) {
        Some([0x3C, 0, 0x3F, 0]) => UTF_16LE,
        Some([0, 0x3C, 0, 0x3F]) => UTF_16BE,
        _ => declared(bytes).unwrap_or(UTF_8),
    };
    encoding.decode_without_bom_handling(bytes).0
}

/// The encoding the XML declaration names, when it names one that
/// encoding_rs knows. A declaration that could be read as ASCII is not
/// UTF-16, whatever it says, so that name means UTF-8 (as the HTML
/// standard does for `<meta charset>`).
fn declared(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = bytes.get(..bytes.len().min(256))?;
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let end = head.windows(2).position(|pair| pair == b"?>")?;
    let declaration = &head[..end];
    let at = declaration
        .windows(8)
        .position(|window| window == b"encoding")?;
    let rest = &declaration[at + 8..];
    let rest = trim_start(rest).strip_prefix(b"=")?;
    let rest = trim_start(rest);
    let quote = *rest.first()?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let label_end = rest[1..].iter().position(|&byte| byte == quote)?;
    let encoding = Encoding::for_label(&rest[1..1 + label_end])?;
    if encoding == UTF_16LE || encoding == UTF_16BE {
        Some(UTF_8)
    } else {
        Some(encoding)
    }
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take_while(|byte| byte.is_ascii_whitespace())
        .count();
    &bytes[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: &[u8], expected: &str) {
        assert_eq!(decode(bytes), expected, "{bytes:?}");
    }

    #[test]
    fn utf8_is_the_default() {
        check("<rss>é</rss>".as_bytes(), "<rss>é</rss>");
        check(b"<rss>\xff</rss>", "<rss>\u{FFFD}</rss>");
        check(b"", "");
    }

    #[test]
    fn a_byte_order_mark_wins() {
        check(b"\xEF\xBB\xBF<a/>", "<a/>");
        check(b"\xFF\xFE<\0a\0/\0>\0", "<a/>");
        check(b"\xFE\xFF\0<\0a\0/\0>", "<a/>");
    }

    #[test]
    fn utf16_without_a_mark_is_recognised() {
        check(b"<\0?\0x\0m\0l\0?\0>\0", "<?xml?>");
    }

    #[test]
    fn the_declaration_names_the_encoding() {
        check(
            b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>\xe9</a>",
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>é</a>",
        );
        check(
            b"<?xml version='1.0' encoding = 'windows-1252' ?><a>\x80</a>",
            "<?xml version='1.0' encoding = 'windows-1252' ?><a>€</a>",
        );
        // An ASCII-readable declaration claiming UTF-16 is UTF-8.
        check(
            b"<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>",
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>",
        );
        // Unknown or malformed declarations fall back to UTF-8.
        check(
            "<?xml encoding=\"klingon\"?>é".as_bytes(),
            "<?xml encoding=\"klingon\"?>é",
        );
        check(
            "<?xml encoding=\"utf-8?>é".as_bytes(),
            "<?xml encoding=\"utf-8?>é",
        );
        check(b"<?xml encoding", "<?xml encoding");
    }
}
