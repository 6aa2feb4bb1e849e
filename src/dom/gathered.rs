//! Text the tokenizer gathers for one token (a run of character data, an
//! attribute's value), kept as a span of the input while it is one.
//!
//! html5gum hands the emitter its pieces as slices of the input wherever it
//! can: a run of text up to the next `<`, an attribute value up to its
//! quote. Most tokens are one such piece. Copying each into a buffer and
//! checking the buffer's UTF-8 again cost about a tenth of parsing; a token
//! that is still one span of the input is read from the input as a `&str`,
//! which needs only its two ends to be character boundaries. A piece from
//! elsewhere (a character reference decoded, a newline for a CRLF, a
//! U+FFFD) turns the token into an owned buffer, checked as before.
//!
//! Nothing here trusts html5gum: whether a piece lies in the input is a
//! comparison of addresses, and a span whose ends are not character
//! boundaries is read as the owned bytes are, lossily.
//!
//! ## What it refuses
//!
//! Nothing: every token is read. A span whose ends are not character
//! boundaries is read lossily, as owned bytes are.

use std::borrow::Cow;
use std::ops::Range;

/// The text of one token so far.
#[derive(Default)]
pub(super) struct Gathered {
    /// The token's bytes in the input, while it is one span of it.
    span: Option<Range<usize>>,
    /// The token's bytes once they are not (empty otherwise).
    owned: Vec<u8>,
}

impl Gathered {
    /// Adds `piece`, a slice of `input` or bytes from elsewhere.
    pub(super) fn push(&mut self, input: &str, piece: &[u8]) {
        if self.owned.is_empty()
            && let Some(at) = offset_in(input, piece)
        {
            match &mut self.span {
                None => {
                    self.span = Some(at..at + piece.len());
                    return;
                }
                Some(span) if span.end == at => {
                    span.end += piece.len();
                    return;
                }
                Some(_) => {}
            }
        }
        if let Some(span) = self.span.take() {
            self.owned.extend_from_slice(&input.as_bytes()[span]);
        }
        self.owned.extend_from_slice(piece);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.span.as_ref().is_none_or(|s| s.is_empty()) && self.owned.is_empty()
    }

    /// The token's bytes.
    pub(super) fn bytes<'s>(&'s self, input: &'s str) -> &'s [u8] {
        match &self.span {
            Some(span) => &input.as_bytes()[span.clone()],
            None => &self.owned,
        }
    }

    /// Empties the buffer, keeping its capacity.
    pub(super) fn clear(&mut self) {
        self.span = None;
        self.owned.clear();
    }
}

/// `bytes` as text: borrowed from `input` when they are a whole-character
/// slice of it, otherwise checked (invalid sequences become U+FFFD). The
/// bytes of a [`Gathered`] are always UTF-8, being pieces of a `&str` cut at
/// ASCII bytes or characters the tokenizer wrote.
pub(super) fn text<'s>(input: &'s str, bytes: &'s [u8]) -> Cow<'s, str> {
    if let Some(at) = offset_in(input, bytes)
        && let Some(text) = input.get(at..at + bytes.len())
    {
        return Cow::Borrowed(text);
    }
    checked(bytes)
}

/// `bytes` as text, checked: invalid sequences become U+FFFD.
pub(super) fn checked(bytes: &[u8]) -> Cow<'_, str> {
    // simdutf8 checks valid text several times faster than the standard
    // library's `from_utf8`, itself far faster than `from_utf8_lossy`,
    // which is left for text that is not valid.
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Where `piece` starts in `input`, if it lies wholly within it.
fn offset_in(input: &str, piece: &[u8]) -> Option<usize> {
    let base = input.as_ptr() as usize;
    let start = (piece.as_ptr() as usize).checked_sub(base)?;
    (start + piece.len() <= input.len()).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_of_contiguous_pieces_of_the_input_is_borrowed_from_it() {
        let input = "<p>caf\u{e9} au lait</p>";
        let mut g = Gathered::default();
        g.push(input, &input.as_bytes()[3..8]);
        g.push(input, &input.as_bytes()[8..16]);
        assert!(g.owned.is_empty());
        let bytes = g.bytes(input);
        assert!(matches!(
            text(input, bytes),
            Cow::Borrowed("caf\u{e9} au lait")
        ));
    }

    #[test]
    fn a_piece_from_elsewhere_makes_the_token_owned_in_order() {
        let input = "a&amp;b";
        let mut g = Gathered::default();
        g.push(input, &input.as_bytes()[0..1]);
        g.push(input, b"&");
        g.push(input, &input.as_bytes()[6..7]);
        assert_eq!(text(input, g.bytes(input)), "a&b");
        g.clear();
        assert!(g.is_empty());
        g.push(input, &input.as_bytes()[6..7]);
        assert_eq!(g.bytes(input), b"b");
    }

    #[test]
    fn pieces_of_the_input_that_are_not_adjacent_are_copied() {
        let input = "abcdef";
        let mut g = Gathered::default();
        g.push(input, &input.as_bytes()[0..2]);
        g.push(input, &input.as_bytes()[4..6]);
        assert_eq!(g.bytes(input), b"abef");
    }

    #[test]
    fn a_span_cut_inside_a_character_is_read_lossily_not_trusted() {
        let input = "\u{e9}t\u{e9}";
        assert_eq!(text(input, &input.as_bytes()[1..3]), "\u{fffd}t");
    }
}
