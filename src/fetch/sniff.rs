//! Telling a page from a file that is plainly not one, by its first bytes.
//!
//! The HTML parser takes any bytes and gives a document, so an image, a PDF
//! or an archive handed to mend as a page would be "parsed" into a tree of
//! replacement characters, and every pattern would be violated for a reason
//! no one could see. A page is refused instead when it starts with the
//! signature of a well-known binary format, or when its first kilobyte is
//! full of NUL bytes, which text in any encoding a page may use has not
//! (UTF-16, which has, is recognised by its byte order mark or the
//! transport's charset and let through).
//!
//! What it refuses to judge: anything less plain. A page of mojibake, or a
//! binary format it does not know with few NUL bytes, is left to the parser.

/// How many bytes at the start of a page are looked at.
const SNIFFED: usize = 1024;

/// The signatures of binary formats a page is refused for, with what they
/// are called in the error. Each is long and odd enough that no text page
/// starts with it.
const SIGNATURES: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"%PDF-", "a PDF document"),
    (
        b"PK\x03\x04",
        "a ZIP archive (or a format built on one: docx, xlsx, epub, jar)",
    ),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "gzip data (compressed twice?)"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x00asm", "a WebAssembly module"),
];

/// Why `bytes` are plainly not a page, in words, or `None` when they may be
/// one. `charset` is the transport's (an HTTP `Content-Type`), if any.
pub fn not_a_page(bytes: &[u8], charset: Option<&str>) -> Option<String> {
    if let Some((_, what)) = SIGNATURES
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
    {
        return Some(format!("it is {what}"));
    }
    if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        return Some("it is a WebP image".to_owned());
    }
    let utf16 = bytes.starts_with(b"\xff\xfe")
        || bytes.starts_with(b"\xfe\xff")
        || charset.is_some_and(|c| c.to_ascii_lowercase().starts_with("utf-16"));
    let head = &bytes[..bytes.len().min(SNIFFED)];
    let nuls = head.iter().filter(|&&b| b == 0).count();
    // Text has no NUL bytes; a stray one or two are a damaged page, not a
    // binary file. One byte in 32 is far more than damage.
    if !utf16 && nuls >= 4 && nuls * 32 >= head.len() {
        return Some(format!(
            "{nuls} of its first {} bytes are NUL, as in binary data",
            head.len()
        ));
    }
    None
}

/// Why a response is not a page, in words, or `None` when it may be one:
/// its bytes first (a known binary format, NUL bytes), then its
/// `Content-Type` media type. HTML, XHTML and XML are pages; so is markup
/// sent under the types servers use when they do not know (`text/plain`,
/// `application/octet-stream`). Anything else (an image, a PDF, JSON, plain
/// text) is not, whatever its bytes.
pub fn not_a_page_response(
    media_type: Option<&str>,
    bytes: &[u8],
    charset: Option<&str>,
) -> Option<String> {
    if let Some(why) = not_a_page(bytes, charset) {
        return Some(why);
    }
    match media_type.map(str::trim).unwrap_or_default() {
        "" | "text/html" | "application/xhtml+xml" | "application/xml" | "text/xml" => None,
        "text/plain" | "application/octet-stream" | "binary/octet-stream"
            if starts_with_markup(bytes) =>
        {
            None
        }
        other => Some(format!("the server says it is {other}")),
    }
}

/// Whether `bytes` start with `<` once a byte order mark and white space are
/// skipped.
fn starts_with_markup(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_a_page_by_its_media_type_or_its_markup() {
        let check = |media: Option<&str>, bytes: &[u8], expected: Option<&str>| {
            assert_eq!(
                not_a_page_response(media, bytes, None).as_deref(),
                expected,
                "{media:?}"
            );
        };
        check(Some("text/html"), b"<p>hi", None);
        check(Some("application/xhtml+xml"), b"<html/>", None);
        check(None, b"<p>hi", None);
        check(Some("text/plain"), b"\xef\xbb\xbf\n <!doctype html>", None);
        check(
            Some("application/json"),
            b"{\"a\": 1}",
            Some("the server says it is application/json"),
        );
        check(
            Some("text/plain"),
            b"just words",
            Some("the server says it is text/plain"),
        );
        check(
            Some("application/octet-stream"),
            b"\x00\x01 binary",
            Some("the server says it is application/octet-stream"),
        );
        // The bytes speak first: a PNG sent as HTML is still a PNG.
        check(
            Some("text/html"),
            b"\x89PNG\r\n\x1a\n",
            Some("it is a PNG image"),
        );
    }

    fn check(bytes: &[u8], charset: Option<&str>, expected: Option<&str>) {
        assert_eq!(
            not_a_page(bytes, charset).as_deref(),
            expected,
            "{:?}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
        );
    }

    #[test]
    fn well_known_binary_formats_are_named() {
        check(
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            None,
            Some("it is a PNG image"),
        );
        check(b"%PDF-1.7\n%\xe2\xe3", None, Some("it is a PDF document"));
        check(
            b"PK\x03\x04\x14\0\0\0",
            None,
            Some("it is a ZIP archive (or a format built on one: docx, xlsx, epub, jar)"),
        );
        check(b"RIFF\x24\0\0\0WEBPVP8 ", None, Some("it is a WebP image"));
        check(
            b"SQLite format 3\0\x10\0",
            None,
            Some("it is an SQLite database"),
        );
    }

    #[test]
    fn many_nul_bytes_are_binary_but_a_stray_one_is_not() {
        let mut data = vec![0x42u8; 2000];
        for i in (0..1024).step_by(16) {
            data[i] = 0;
        }
        check(
            &data,
            None,
            Some("64 of its first 1024 bytes are NUL, as in binary data"),
        );
        let mut damaged = b"<html><body><p>one\0two</p>".to_vec();
        damaged.extend_from_slice(&[b' '; 500]);
        check(&damaged, None, None);
    }

    #[test]
    fn pages_in_any_encoding_pass() {
        check(b"<!doctype html><title>x</title>", None, None);
        check(b"\xef\xbb\xbf<html>", None, None);
        check(b"", None, None);
        // UTF-16 has a NUL in every other byte.
        let utf16: Vec<u8> = "<html><body>ok</body></html>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        check(&[&b"\xff\xfe"[..], &utf16].concat(), None, None);
        check(&utf16, Some("UTF-16LE"), None);
        check(
            &utf16,
            None,
            Some("28 of its first 56 bytes are NUL, as in binary data"),
        );
        // Text that merely starts like a signature's first bytes.
        check(b"GIF is a format.", None, None);
        check(b"PK is a name", None, None);
    }
}
