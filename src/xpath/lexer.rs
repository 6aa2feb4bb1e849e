//! The XPath 1.0 tokenizer.
//!
//! It turns an expression into tokens with byte offsets and applies the
//! disambiguation rules of XPath 1.0 section 3.7: whether `*` is a name test
//! or the multiplication operator, whether `and`/`or`/`div`/`mod` are operator
//! names, and whether a name is a function name, a node type or an axis name
//! depends on the token before it and on what follows it. The tokenizer refuses
//! characters that no XPath token can start with and unterminated literals.

use super::XPathError;

/// One token of an expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dot,
    DotDot,
    At,
    Comma,
    ColonColon,
    Slash,
    DoubleSlash,
    Pipe,
    Plus,
    Minus,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    /// `*` used as a name test.
    Star,
    /// `*` used as the multiplication operator.
    Multiply,
    And,
    Or,
    Mod,
    Div,
    Literal(String),
    Number(f64),
    /// A name test: an NCName, `prefix:local` or `prefix:*` (the last two are
    /// kept whole so that the parser can refuse them with a precise message).
    Name(String),
    /// A name directly followed by `(` that is not a node type.
    FunctionName(String),
    /// `node`, `text`, `comment` or `processing-instruction` followed by `(`.
    NodeType(String),
    /// A name directly followed by `::`.
    AxisName(String),
    /// `$name`.
    Variable(String),
    Eof,
}

/// A token and the byte offset where it starts.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: usize,
}

/// Splits `src` into tokens; the last token is always [`Tok::Eof`].
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, XPathError> {
    let mut lexer = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        out: Vec::new(),
    };
    lexer.run()?;
    Ok(lexer.out)
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Vec<Token>,
}

fn error(position: usize, message: impl Into<String>) -> XPathError {
    XPathError {
        position,
        message: message.into(),
    }
}

/// Whether `c` may start an XML name (XML 1.0 fifth edition, NameStartChar,
/// without the colon, which separates a prefix in XPath).
pub(crate) fn is_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | 'a'..='z' | '_'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

/// Whether `c` may continue an XML name (NameChar without the colon).
pub(crate) fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c,
            '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// XML whitespace, the only whitespace XPath 1.0 knows.
pub(crate) fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

impl Lexer<'_> {
    fn peek_char(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Whether the previous token makes the next `*` or name an operator
    /// (XPath 1.0 section 3.7, first rule).
    fn operator_expected(&self) -> bool {
        match self.out.last() {
            None => false,
            Some(t) => !matches!(
                t.tok,
                Tok::At
                    | Tok::ColonColon
                    | Tok::LParen
                    | Tok::LBracket
                    | Tok::Comma
                    | Tok::Slash
                    | Tok::DoubleSlash
                    | Tok::Pipe
                    | Tok::Plus
                    | Tok::Minus
                    | Tok::Eq
                    | Tok::Neq
                    | Tok::Lt
                    | Tok::Le
                    | Tok::Gt
                    | Tok::Ge
                    | Tok::Multiply
                    | Tok::And
                    | Tok::Or
                    | Tok::Mod
                    | Tok::Div
            ),
        }
    }

    fn push(&mut self, tok: Tok, pos: usize) {
        self.out.push(Token { tok, pos });
    }

    fn run(&mut self) -> Result<(), XPathError> {
        loop {
            self.skip_space();
            let start = self.pos;
            let Some(c) = self.peek_char() else {
                self.push(Tok::Eof, start);
                return Ok(());
            };
            let next = self.bytes.get(self.pos + 1).copied();
            let (tok, len) = match c {
                '(' => (Tok::LParen, 1),
                ')' => (Tok::RParen, 1),
                '[' => (Tok::LBracket, 1),
                ']' => (Tok::RBracket, 1),
                '@' => (Tok::At, 1),
                ',' => (Tok::Comma, 1),
                '|' => (Tok::Pipe, 1),
                '+' => (Tok::Plus, 1),
                '-' => (Tok::Minus, 1),
                '=' => (Tok::Eq, 1),
                '!' if next == Some(b'=') => (Tok::Neq, 2),
                '<' if next == Some(b'=') => (Tok::Le, 2),
                '<' => (Tok::Lt, 1),
                '>' if next == Some(b'=') => (Tok::Ge, 2),
                '>' => (Tok::Gt, 1),
                ':' if next == Some(b':') => (Tok::ColonColon, 2),
                '/' if next == Some(b'/') => (Tok::DoubleSlash, 2),
                '/' => (Tok::Slash, 1),
                '*' => {
                    let tok = if self.operator_expected() {
                        Tok::Multiply
                    } else {
                        Tok::Star
                    };
                    (tok, 1)
                }
                '.' if next == Some(b'.') => (Tok::DotDot, 2),
                '.' if next.is_some_and(|b| b.is_ascii_digit()) => {
                    self.number();
                    continue;
                }
                '.' => (Tok::Dot, 1),
                '0'..='9' => {
                    self.number();
                    continue;
                }
                '"' | '\'' => {
                    self.literal(c)?;
                    continue;
                }
                '$' => {
                    self.pos += 1;
                    let name = self.ncname().unwrap_or_default();
                    self.push(Tok::Variable(name), start);
                    continue;
                }
                c if is_name_start(c) => {
                    self.name()?;
                    continue;
                }
                '!' => return Err(error(start, "expected '=' after '!'")),
                ':' => return Err(error(start, "unexpected ':'")),
                c => {
                    return Err(error(
                        start,
                        format!("unexpected character {c:?}: expected an expression"),
                    ));
                }
            };
            self.pos += len;
            self.push(tok, start);
        }
    }

    fn number(&mut self) {
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            while self.bytes.get(self.pos).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        let text = &self.src[start..self.pos];
        // Digits with at most one dot always parse; the fallback is never used.
        let value = text.parse::<f64>().unwrap_or(f64::NAN);
        self.push(Tok::Number(value), start);
    }

    fn literal(&mut self, quote: char) -> Result<(), XPathError> {
        let start = self.pos;
        let body = start + 1;
        match self.src[body..].find(quote) {
            Some(len) => {
                let text = self.src[body..body + len].to_owned();
                self.pos = body + len + 1;
                self.push(Tok::Literal(text), start);
                Ok(())
            }
            None => Err(error(
                start,
                format!("unterminated string literal: expected a closing {quote}"),
            )),
        }
    }

    fn ncname(&mut self) -> Option<String> {
        let start = self.pos;
        let first = self.peek_char()?;
        if !is_name_start(first) {
            return None;
        }
        self.pos += first.len_utf8();
        while let Some(c) = self.peek_char() {
            if !is_name_char(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        Some(self.src[start..self.pos].to_owned())
    }

    fn name(&mut self) -> Result<(), XPathError> {
        let start = self.pos;
        let mut name = self.ncname().unwrap_or_default();
        let operator = self.operator_expected();
        if operator {
            let tok = match name.as_str() {
                "and" => Tok::And,
                "or" => Tok::Or,
                "mod" => Tok::Mod,
                "div" => Tok::Div,
                _ => {
                    return Err(error(
                        start,
                        format!("expected an operator, found '{name}'"),
                    ));
                }
            };
            self.push(tok, start);
            return Ok(());
        }
        // A QName `prefix:local` or the wildcard `prefix:*`; `::` is an axis.
        if self.bytes.get(self.pos) == Some(&b':') && self.bytes.get(self.pos + 1) != Some(&b':') {
            let save = self.pos;
            self.pos += 1;
            if self.bytes.get(self.pos) == Some(&b'*') {
                self.pos += 1;
                name.push_str(":*");
            } else if let Some(local) = self.ncname() {
                name.push(':');
                name.push_str(&local);
            } else {
                self.pos = save;
            }
        }
        // Look past whitespace for `(` or `::`, which decide what the name is.
        let after = self.pos;
        self.skip_space();
        let tok = if self.bytes.get(self.pos) == Some(&b'(') {
            match name.as_str() {
                "node" | "text" | "comment" | "processing-instruction" => Tok::NodeType(name),
                _ => Tok::FunctionName(name),
            }
        } else if self.src[self.pos..].starts_with("::") {
            Tok::AxisName(name)
        } else {
            Tok::Name(name)
        };
        self.pos = after;
        self.push(tok, start);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        tokenize(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn star_and_operator_names_depend_on_the_previous_token() {
        assert_eq!(
            toks("* * div"),
            vec![Tok::Star, Tok::Multiply, Tok::Name("div".into()), Tok::Eof]
        );
        assert_eq!(
            toks("a div b"),
            vec![
                Tok::Name("a".into()),
                Tok::Div,
                Tok::Name("b".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn names_before_parens_and_double_colons_are_classified() {
        assert_eq!(
            toks("child :: text ( )"),
            vec![
                Tok::AxisName("child".into()),
                Tok::ColonColon,
                Tok::NodeType("text".into()),
                Tok::LParen,
                Tok::RParen,
                Tok::Eof
            ]
        );
        assert_eq!(toks("f(")[0], Tok::FunctionName("f".into()));
    }

    #[test]
    fn numbers_and_dots() {
        assert_eq!(
            toks("1. .5 .. ."),
            vec![
                Tok::Number(1.0),
                Tok::Number(0.5),
                Tok::DotDot,
                Tok::Dot,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn unterminated_literal_points_at_the_quote() {
        let e = tokenize("a = 'x").unwrap_err();
        assert_eq!(e.position, 4);
    }
}
