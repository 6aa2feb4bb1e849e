//! Where a character inside a YAML scalar's value was written in the source.
//!
//! An XPath or regex error names a byte offset in the *value*; the author
//! needs the line and column in the *file*. For a plain scalar on one line the
//! two differ by the scalar's start; quoted scalars also shift by their quote
//! and by every escape (`''` in single quotes, `\"` or `\u00e9` in double
//! quotes). Block scalars (`|`, `>`) and scalars that span lines are folded,
//! so positions inside them are reported at the scalar's start instead of
//! guessing.
//!
//! ## What it refuses
//!
//! It never guesses: past a line break in the value, after an anchor, tag or
//! alias, or at an escape it cannot decode, it gives the scalar's own
//! position. An offset past the value's end counts as its end, and one
//! inside a character moves back to that character's start. It reads only
//! the text it is given.

use super::node::Node;

/// The 1-based line and column of byte `value_offset` of `node`'s string value.
///
/// Falls back to the scalar's own position whenever the exact place cannot be
/// known for sure.
pub(crate) fn position_in(text: &str, node: &Node, value_offset: usize) -> (usize, usize) {
    let fallback = (node.at.line, node.at.column);
    let (Some(value), Some(start)) = (node.as_str(), node.at.offset) else {
        return fallback;
    };
    let Some(source) = text.get(start..) else {
        return fallback;
    };
    let mut offset = value_offset.min(value.len());
    while !value.is_char_boundary(offset) {
        offset -= 1;
    }
    let consumed = match source.chars().next() {
        Some('\'') => single_quoted(&source[1..], offset).map(|n| n + 1),
        Some('"') => double_quoted(&source[1..], offset).map(|n| n + 1),
        Some('|' | '>' | '&' | '!' | '*') | None => None,
        Some(_) => {
            // A plain scalar on one line is its value verbatim, and so is the
            // first line of a block scalar (whose position is its first
            // content line); past a line break, folding may have changed it.
            let value_line = value.split('\n').next().unwrap_or_default();
            let source_line = source.split('\n').next().unwrap_or_default();
            (offset <= value_line.len() && source_line.starts_with(value_line)).then_some(offset)
        }
    };
    match consumed.and_then(|n| source.get(..n)) {
        Some(before) => (node.at.line, node.at.column + before.chars().count()),
        None => fallback,
    }
}

/// Source bytes after the opening quote that spell the first `offset` value bytes.
fn single_quoted(source: &str, offset: usize) -> Option<usize> {
    let mut src = 0;
    let mut val = 0;
    let mut chars = source.chars().peekable();
    while val < offset {
        let c = chars.next()?;
        match c {
            '\n' | '\r' => return None,
            '\'' => {
                // Inside single quotes, `''` is one quote; a lone quote ends the scalar.
                chars.next().filter(|&q| q == '\'')?;
                src += 2;
                val += 1;
            }
            _ => {
                src += c.len_utf8();
                val += c.len_utf8();
            }
        }
    }
    Some(src)
}

/// Source bytes after the opening quote that spell the first `offset` value bytes.
fn double_quoted(source: &str, offset: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut src = 0;
    let mut val = 0;
    while val < offset {
        let c = source.get(src..)?.chars().next()?;
        match c {
            '\n' | '\r' | '"' => return None,
            '\\' => {
                let escape = *bytes.get(src + 1)?;
                let (spelled, decoded) = match escape {
                    b'x' => hex_escape(source, src + 2, 2)?,
                    b'u' => hex_escape(source, src + 2, 4)?,
                    b'U' => hex_escape(source, src + 2, 8)?,
                    // Next-line, non-breaking space, line and paragraph separators.
                    b'N' | b'_' => (2, 2),
                    b'L' | b'P' => (2, 3),
                    b'\n' | b'\r' => return None,
                    _ => (2, 1),
                };
                src += spelled;
                val += decoded;
            }
            _ => {
                src += c.len_utf8();
                val += c.len_utf8();
            }
        }
    }
    Some(src)
}

/// (source length, UTF-8 length) of a `\x`, `\u` or `\U` escape whose digits start at `at`.
fn hex_escape(source: &str, at: usize, digits: usize) -> Option<(usize, usize)> {
    let hex = source.get(at..at + digits)?;
    let code = u32::from_str_radix(hex, 16).ok()?;
    let decoded = char::from_u32(code)?.len_utf8();
    Some((2 + digits, decoded))
}

#[cfg(test)]
mod tests {
    use super::super::node::Node;
    use super::*;

    /// The position of byte `offset` of the value of key `x` in `yaml`.
    fn at(yaml: &str, offset: usize) -> (usize, usize) {
        let root: Node = serde_saphyr::from_str(yaml).unwrap();
        position_in(yaml, root.get("x").unwrap(), offset)
    }

    #[test]
    fn plain_scalars_are_exact() {
        assert_eq!(at("x: //div[\n", 5), (1, 9));
        assert_eq!(at("a: 1\nx:   ab[c\n", 2), (2, 8));
    }

    #[test]
    fn single_quotes_count_their_doubled_quotes() {
        // Value: //a[@t='b'][ ; the bracket at byte 11 is after two escapes.
        let yaml = "x: '//a[@t=''b''][ '\n";
        assert_eq!(at(yaml, 11), (1, 18));
        assert_eq!(&yaml[17..18], "[");
    }

    #[test]
    fn double_quotes_count_their_escapes() {
        let yaml = "x: \"\\u00e9\\\"[\"\n";
        // Value: é"[ ; the bracket is byte 3 of the value.
        assert_eq!(at(yaml, 3), (1, 13));
        assert_eq!(&yaml[12..13], "[");
    }

    #[test]
    fn characters_not_bytes_make_columns() {
        assert_eq!(at("x: é[\n", 2), (1, 5));
    }

    #[test]
    fn block_scalars_are_exact_on_their_first_line() {
        assert_eq!(at("x: |\n  //div[\n", 5), (2, 8));
        assert_eq!(at("x: >-\n  //div[\n", 5), (2, 8));
    }

    #[test]
    fn folded_text_points_at_the_scalar_start() {
        assert_eq!(at("x: |\n  //div\n  [\n", 6), (2, 3));
        assert_eq!(at("x: >\n  //div[@a and\n  @b]\n", 14), (2, 3));
        assert_eq!(at("x: //a\n  /b[\n", 7), (1, 4));
        assert_eq!(at("x: '//a\n  /b['\n", 7), (1, 4));
    }
}
