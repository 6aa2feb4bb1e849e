//! Lints: wrappers that load but probably do not do what their author meant.
//!
//! Lints are warnings; they never stop a wrapper from loading. The one lint so
//! far is the missing `<tbody>`: HTML5 parsing inserts a `<tbody>` between a
//! `<table>` and its rows, as browsers (and their developer tools) do, so an
//! XPath step `tr` directly under `table` matches nothing in mend even though
//! parsers that skip that rule (lxml) accept it.
//!
//! The lint reads XPath text with a small scanner rather than the XPath
//! parser, so it works on expressions that do not compile and refuses nothing.

use super::diagnostic::Diagnostic;
use super::node::Node;
use super::scalar::position_in;

/// Warnings for every pattern's XPath in the document.
pub(crate) fn lint(root: &Node, text: &str, file: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    lint_patterns(root.get("patterns"), text, file, &mut out);
    out
}

fn lint_patterns(list: Option<&Node>, text: &str, file: &str, out: &mut Vec<Diagnostic>) {
    for pattern in list.map(Node::items).unwrap_or_default() {
        if let Some(xpath) = pattern.get("xpath")
            && let Some(source) = xpath.as_str()
        {
            for offset in rows_under_table(source) {
                let (line, column) = position_in(text, xpath, offset);
                out.push(
                    Diagnostic::warning(
                        file,
                        text,
                        line,
                        column,
                        "`tr` directly under `table` matches nothing: HTML5 parsing inserts \
                         <tbody> between <table> and its rows, as browsers do; \
                         write table/tbody/tr or table//tr",
                    )
                    .with_expected("table/tbody/tr or table//tr"),
                );
            }
        }
        lint_patterns(pattern.get("patterns"), text, file, out);
    }
}

/// One lexical piece of an XPath, as far as this lint cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    /// A name (element name, axis, function) and its byte offset.
    Name(&'a str, usize),
    /// `/`.
    Slash,
    /// `::`.
    Axis,
    /// Any other piece: `//`, `[`, `]`, `(`, `@`, operators, literals, numbers.
    Other(char),
}

fn tokens(source: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                out.push(Token::Other('/'));
                i += 2;
            }
            b'/' => {
                out.push(Token::Slash);
                i += 1;
            }
            b':' if bytes.get(i + 1) == Some(&b':') => {
                out.push(Token::Axis);
                i += 2;
            }
            b'\'' | b'"' => {
                // A literal runs to the matching quote; XPath 1.0 has no escapes.
                let end = source[i + 1..]
                    .find(c as char)
                    .map_or(bytes.len(), |e| i + 1 + e + 1);
                out.push(Token::Other('"'));
                i = end;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let end = source[i..]
                    .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '-' || ch == '.'))
                    .map_or(source.len(), |e| i + e);
                if end > i {
                    out.push(Token::Name(&source[i..end], i));
                    i = end;
                } else {
                    // A non-ASCII character that cannot be part of a name.
                    let ch = source[i..].chars().next().unwrap_or(' ');
                    out.push(Token::Other(ch));
                    i += ch.len_utf8().max(1);
                }
            }
            _ => {
                let ch = source[i..].chars().next().unwrap_or(' ');
                out.push(Token::Other(ch));
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// Byte offsets of every `tr` step that is a direct child step of a `table` step.
pub(crate) fn rows_under_table(source: &str) -> Vec<usize> {
    let tokens = tokens(source);
    let mut found = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Token::Name("table", _) = token else {
            continue;
        };
        // `@table` is an attribute and `table(` a function call, not an element step.
        if i > 0 && tokens[i - 1] == Token::Other('@') {
            continue;
        }
        let mut j = i + 1;
        if matches!(tokens.get(j), Some(Token::Other('(') | Token::Axis)) {
            continue;
        }
        // Skip the step's predicates.
        while tokens.get(j) == Some(&Token::Other('[')) {
            let mut depth = 0usize;
            while let Some(t) = tokens.get(j) {
                match t {
                    Token::Other('[') => depth += 1,
                    Token::Other(']') => depth = depth.saturating_sub(1),
                    _ => {}
                }
                j += 1;
                if depth == 0 {
                    break;
                }
            }
        }
        if tokens.get(j) != Some(&Token::Slash) {
            continue;
        }
        j += 1;
        if let (Some(Token::Name("child", _)), Some(Token::Axis)) =
            (tokens.get(j), tokens.get(j + 1))
        {
            j += 2;
        }
        if let Some(Token::Name("tr", offset)) = tokens.get(j)
            && !matches!(tokens.get(j + 1), Some(Token::Other('(') | Token::Axis))
        {
            found.push(*offset);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::rows_under_table;

    #[test]
    fn rows_directly_under_a_table_are_found() {
        assert_eq!(rows_under_table("//table/tr/td"), vec![8]);
        assert_eq!(rows_under_table("//table[@id='x']/tr[2]"), vec![17]);
        assert_eq!(rows_under_table("table / child::tr"), vec![15]);
        assert_eq!(rows_under_table("//table/tr | //div/table/tr"), vec![8, 25]);
    }

    #[test]
    fn other_shapes_are_left_alone() {
        for fine in [
            "//table/tbody/tr",
            "//table//tr",
            "//mytable/tr",
            "//table/trow",
            "//x[@table]/tr",
            "//table[contains(., 'table/tr')]/thead",
            "//table/tr-x",
            "//tr",
        ] {
            assert_eq!(rows_under_table(fine), Vec::<usize>::new(), "{fine}");
        }
    }
}
