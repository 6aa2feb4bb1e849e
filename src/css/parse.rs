//! A CSS selector list, parsed: a small recursive-descent parser over the
//! selector's characters, with CSS's identifier and string escapes.
//!
//! ## What it refuses
//!
//! A selector longer than [`MAX_SELECTOR_CHARS`] characters, `:not()` nested
//! deeper than [`MAX_NESTING`], namespaces (`|`), attribute case flags (`i`,
//! `s`), pseudo-elements other than `::text` and `::attr(name)` or one that
//! does not end its selector, and an argument to a pseudo-class that takes
//! none: each is a [`CssError`] with the column where it starts.

use super::{CssError, MAX_NESTING, MAX_SELECTOR_CHARS};

/// One selector of a list: compounds joined by combinators, and perhaps a
/// pseudo-element at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    /// The first compound, then each following one with the combinator
    /// before it.
    pub first: Compound,
    /// The compounds after the first.
    pub rest: Vec<(Combinator, Compound)>,
    /// `::text` or `::attr(name)`, when the selector ends with one.
    pub pseudo_element: Option<PseudoElement>,
}

/// How two compounds are related.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combinator {
    /// `a b`: b inside a.
    Descendant,
    /// `a > b`: b a child of a.
    Child,
    /// `a + b`: b the element right after a.
    Adjacent,
    /// `a ~ b`: b an element after a.
    Sibling,
}

/// An element name (or none, for `*`) and the conditions on it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compound {
    /// The element's name in lower case; `None` for `*` or no name.
    pub element: Option<String>,
    /// The conditions, in the order written.
    pub conditions: Vec<Condition>,
}

/// One condition of a compound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// `.name`
    Class(String),
    /// `#name`
    Id(String),
    /// `[name]`, or `[name OP value]`.
    Attr {
        /// The attribute's name, in lower case.
        name: String,
        /// The operator and value, when there is one.
        test: Option<(AttrOp, String)>,
    },
    /// A pseudo-class.
    Pseudo(Pseudo),
    /// `:not(a, b)`: none of the compounds.
    Not(Vec<Compound>),
}

/// An attribute selector's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrOp {
    /// `=`
    Equals,
    /// `~=`: one of the whitespace-separated words.
    Includes,
    /// `|=`: the value, or the value then `-`.
    DashMatch,
    /// `^=`
    Prefix,
    /// `$=`
    Suffix,
    /// `*=`
    Substring,
    /// `!=`: cssselect's, absent or different.
    NotEqual,
}

/// A pseudo-class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pseudo {
    /// `:first-child`
    FirstChild,
    /// `:last-child`
    LastChild,
    /// `:only-child`
    OnlyChild,
    /// `:first-of-type`
    FirstOfType,
    /// `:last-of-type`
    LastOfType,
    /// `:only-of-type`
    OnlyOfType,
    /// `:nth-child(an+b)`
    NthChild(Nth),
    /// `:nth-last-child(an+b)`
    NthLastChild(Nth),
    /// `:nth-of-type(an+b)`
    NthOfType(Nth),
    /// `:nth-last-of-type(an+b)`
    NthLastOfType(Nth),
    /// `:empty`: no element child and no text.
    Empty,
    /// `:root`: no parent element.
    Root,
    /// `:checked`: a selected option, a checked box or radio button.
    Checked,
    /// `:link`: an `a`, `link` or `area` with an `href`.
    Link,
    /// `:contains("text")`: the string-value contains the text.
    Contains(String),
}

/// The positions `an+b` (n = 0, 1, 2, …) of an `:nth-*` pseudo-class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nth {
    /// The step.
    pub a: i64,
    /// The offset.
    pub b: i64,
}

/// A pseudo-element of parsel's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PseudoElement {
    /// `::text`: the text children.
    Text,
    /// `::attr(name)`: the attribute.
    Attr(String),
}

/// Parses a selector list.
pub fn parse(selector: &str) -> Result<Vec<Selector>, CssError> {
    let chars: Vec<char> = selector.chars().collect();
    if chars.len() > MAX_SELECTOR_CHARS {
        return Err(CssError {
            column: MAX_SELECTOR_CHARS + 1,
            message: format!("a selector is at most {MAX_SELECTOR_CHARS} characters"),
        });
    }
    let mut p = Parser { chars, at: 0 };
    let mut list = Vec::new();
    loop {
        p.skip_space();
        list.push(p.selector()?);
        p.skip_space();
        match p.peek() {
            None => return Ok(list),
            Some(',') => p.at += 1,
            Some(c) => return Err(p.error(format!("unexpected {c:?}"))),
        }
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.at + offset).copied()
    }

    fn error(&self, message: String) -> CssError {
        CssError {
            column: self.at + 1,
            message,
        }
    }

    fn skip_space(&mut self) -> bool {
        let start = self.at;
        while self.peek().is_some_and(is_space) {
            self.at += 1;
        }
        self.at > start
    }

    fn selector(&mut self) -> Result<Selector, CssError> {
        let (first, mut element) = self.compound(0)?;
        let mut selector = Selector {
            first,
            rest: Vec::new(),
            pseudo_element: element.take(),
        };
        loop {
            if selector.pseudo_element.is_some() {
                return Ok(selector);
            }
            let spaced = self.skip_space();
            let combinator = match self.peek() {
                Some('>') => Combinator::Child,
                Some('+') => Combinator::Adjacent,
                Some('~') => Combinator::Sibling,
                None | Some(',') => return Ok(selector),
                Some(_) if spaced => Combinator::Descendant,
                Some(c) => return Err(self.error(format!("unexpected {c:?}"))),
            };
            if combinator != Combinator::Descendant {
                self.at += 1;
                self.skip_space();
            }
            let (compound, element) = self.compound(0)?;
            selector.rest.push((combinator, compound));
            selector.pseudo_element = element;
        }
    }

    /// A compound, and the pseudo-element that ends it, if one does.
    fn compound(&mut self, depth: usize) -> Result<(Compound, Option<PseudoElement>), CssError> {
        let start = self.at;
        let mut compound = Compound::default();
        match self.peek() {
            Some('*') => self.at += 1,
            Some('|') => return Err(self.error("namespaces are not supported".into())),
            Some(c) if starts_ident(c, self.peek_at(1)) => {
                compound.element = Some(self.ident()?.to_lowercase());
            }
            _ => {}
        }
        if self.peek() == Some('|') {
            return Err(self.error("namespaces are not supported".into()));
        }
        loop {
            match self.peek() {
                Some('.') => {
                    self.at += 1;
                    compound.conditions.push(Condition::Class(self.ident()?));
                }
                Some('#') => {
                    self.at += 1;
                    compound.conditions.push(Condition::Id(self.name()?));
                }
                Some('[') => compound.conditions.push(self.attribute()?),
                Some(':') if self.peek_at(1) == Some(':') => {
                    let element = self.pseudo_element()?;
                    return Ok((compound, Some(element)));
                }
                Some(':') => {
                    let column = self.at + 1;
                    let condition = self.pseudo_class(depth)?;
                    if compound.element.is_none() && counts_by_type(&condition) {
                        return Err(CssError {
                            column,
                            message: "an -of-type pseudo-class needs an element name before it (div:first-of-type)".into(),
                        });
                    }
                    compound.conditions.push(condition);
                }
                _ => break,
            }
        }
        if self.at == start {
            return Err(match self.peek() {
                Some(c) => self.error(format!("expected a selector, found {c:?}")),
                None => self.error("expected a selector, found the end".into()),
            });
        }
        Ok((compound, None))
    }

    fn attribute(&mut self) -> Result<Condition, CssError> {
        self.at += 1;
        self.skip_space();
        let name = self.ident()?.to_lowercase();
        if self.peek() == Some('|') && self.peek_at(1) != Some('=') {
            return Err(self.error("namespaces are not supported".into()));
        }
        self.skip_space();
        let op = match (self.peek(), self.peek_at(1)) {
            (Some(']'), _) => {
                self.at += 1;
                return Ok(Condition::Attr { name, test: None });
            }
            (Some('='), _) => AttrOp::Equals,
            (Some('~'), Some('=')) => AttrOp::Includes,
            (Some('|'), Some('=')) => AttrOp::DashMatch,
            (Some('^'), Some('=')) => AttrOp::Prefix,
            (Some('$'), Some('=')) => AttrOp::Suffix,
            (Some('*'), Some('=')) => AttrOp::Substring,
            (Some('!'), Some('=')) => AttrOp::NotEqual,
            _ => return Err(self.error("expected an attribute operator or ]".into())),
        };
        self.at += if op == AttrOp::Equals { 1 } else { 2 };
        self.skip_space();
        let value = match self.peek() {
            Some('"' | '\'') => self.string()?,
            _ => self.ident()?,
        };
        self.skip_space();
        match self.peek() {
            Some(']') => {
                self.at += 1;
                Ok(Condition::Attr {
                    name,
                    test: Some((op, value)),
                })
            }
            Some(c) if c.is_ascii_alphabetic() => {
                Err(self.error("attribute case flags (i, s) are not supported".into()))
            }
            _ => Err(self.error("expected ] after the attribute's value".into())),
        }
    }

    fn pseudo_element(&mut self) -> Result<PseudoElement, CssError> {
        let start = self.at;
        self.at += 2;
        let name = self.ident()?.to_lowercase();
        let element = match name.as_str() {
            "text" => PseudoElement::Text,
            "attr" => {
                self.open_paren(start)?;
                let attr = self.ident()?;
                self.close_paren()?;
                PseudoElement::Attr(attr)
            }
            _ => {
                return Err(CssError {
                    column: start + 1,
                    message: format!(
                        "unsupported pseudo-element ::{name} (::text and ::attr(name) are)"
                    ),
                });
            }
        };
        self.skip_space();
        match self.peek() {
            None | Some(',') => Ok(element),
            Some(_) => Err(CssError {
                column: start + 1,
                message: "a pseudo-element must end its selector".into(),
            }),
        }
    }

    fn pseudo_class(&mut self, depth: usize) -> Result<Condition, CssError> {
        let start = self.at;
        self.at += 1;
        let name = self.ident()?.to_lowercase();
        let unsupported = || CssError {
            column: start + 1,
            message: format!("unsupported pseudo-class :{name}"),
        };
        let simple = match name.as_str() {
            "first-child" => Some(Pseudo::FirstChild),
            "last-child" => Some(Pseudo::LastChild),
            "only-child" => Some(Pseudo::OnlyChild),
            "first-of-type" => Some(Pseudo::FirstOfType),
            "last-of-type" => Some(Pseudo::LastOfType),
            "only-of-type" => Some(Pseudo::OnlyOfType),
            "empty" => Some(Pseudo::Empty),
            "root" => Some(Pseudo::Root),
            "checked" => Some(Pseudo::Checked),
            "link" => Some(Pseudo::Link),
            _ => None,
        };
        if let Some(pseudo) = simple {
            if self.peek() == Some('(') {
                return Err(self.error(format!(":{name} takes no argument")));
            }
            return Ok(Condition::Pseudo(pseudo));
        }
        let functional = [
            "nth-child",
            "nth-last-child",
            "nth-of-type",
            "nth-last-of-type",
            "not",
            "contains",
        ];
        if !functional.contains(&name.as_str()) {
            return Err(unsupported());
        }
        self.open_paren(start)?;
        let condition = match name.as_str() {
            "not" => Condition::Not(self.negated(start, depth)?),
            "contains" => {
                let text = match self.peek() {
                    Some('"' | '\'') => self.string()?,
                    _ => self.ident()?,
                };
                Condition::Pseudo(Pseudo::Contains(text))
            }
            _ => {
                let nth = self.nth()?;
                Condition::Pseudo(match name.as_str() {
                    "nth-child" => Pseudo::NthChild(nth),
                    "nth-last-child" => Pseudo::NthLastChild(nth),
                    "nth-of-type" => Pseudo::NthOfType(nth),
                    _ => Pseudo::NthLastOfType(nth),
                })
            }
        };
        self.close_paren()?;
        Ok(condition)
    }

    /// The compounds of `:not(…)`, up to its closing parenthesis.
    fn negated(&mut self, start: usize, depth: usize) -> Result<Vec<Compound>, CssError> {
        if depth >= MAX_NESTING {
            return Err(CssError {
                column: start + 1,
                message: format!(":not() nests at most {MAX_NESTING} deep"),
            });
        }
        let mut compounds = Vec::new();
        loop {
            self.skip_space();
            let (compound, element) = self.compound(depth + 1)?;
            if element.is_some() {
                return Err(self.error("no pseudo-element inside :not()".into()));
            }
            compounds.push(compound);
            self.skip_space();
            match self.peek() {
                Some(',') => self.at += 1,
                Some(')') => return Ok(compounds),
                _ => return Err(self.error(":not() takes compound selectors only".into())),
            }
        }
    }

    fn open_paren(&mut self, start: usize) -> Result<(), CssError> {
        if self.peek() != Some('(') {
            return Err(CssError {
                column: start + 1,
                message: "expected ( after the name".into(),
            });
        }
        self.at += 1;
        self.skip_space();
        Ok(())
    }

    fn close_paren(&mut self) -> Result<(), CssError> {
        self.skip_space();
        if self.peek() != Some(')') {
            return Err(self.error("expected )".into()));
        }
        self.at += 1;
        Ok(())
    }

    /// `an+b`, `odd`, `even`, up to the closing parenthesis.
    fn nth(&mut self) -> Result<Nth, CssError> {
        let start = self.at;
        let mut text = String::new();
        while let Some(c) = self.peek().filter(|c| *c != ')') {
            if !is_space(c) {
                text.push(c.to_ascii_lowercase());
            }
            self.at += 1;
        }
        parse_nth(&text).ok_or(CssError {
            column: start + 1,
            message: format!("{text:?} is not an+b, odd or even"),
        })
    }

    /// A CSS identifier, its escapes resolved.
    fn ident(&mut self) -> Result<String, CssError> {
        match self.peek() {
            Some(c) if starts_ident(c, self.peek_at(1)) => self.name(),
            Some(c) => Err(self.error(format!("expected a name, found {c:?}"))),
            None => Err(self.error("expected a name, found the end".into())),
        }
    }

    /// A run of name characters (what follows `#`), escapes resolved.
    fn name(&mut self) -> Result<String, CssError> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' {
                out.push(self.escape()?);
            } else if is_name_char(c) {
                out.push(c);
                self.at += 1;
            } else {
                break;
            }
        }
        if out.is_empty() {
            return Err(self.error("expected a name".into()));
        }
        Ok(out)
    }

    /// A backslash escape: up to six hexadecimal digits (and one space
    /// after them), or the next character as it is.
    fn escape(&mut self) -> Result<char, CssError> {
        self.at += 1;
        let mut hex = String::new();
        while hex.len() < 6 && self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            hex.push(self.peek().unwrap_or('0'));
            self.at += 1;
        }
        if hex.is_empty() {
            let c = self
                .peek()
                .ok_or_else(|| self.error("a backslash ends the selector".into()))?;
            self.at += 1;
            return Ok(c);
        }
        if self.peek().is_some_and(is_space) {
            self.at += 1;
        }
        let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
        Ok(char::from_u32(code)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{FFFD}'))
    }

    /// A quoted string, its escapes resolved.
    fn string(&mut self) -> Result<String, CssError> {
        let start = self.at;
        let quote = self.peek().unwrap_or('"');
        self.at += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(CssError {
                        column: start + 1,
                        message: "a string is not closed".into(),
                    });
                }
                Some(c) if c == quote => {
                    self.at += 1;
                    return Ok(out);
                }
                Some('\\') if self.peek_at(1) == Some('\n') => self.at += 2,
                Some('\\') => out.push(self.escape()?),
                Some(c) => {
                    out.push(c);
                    self.at += 1;
                }
            }
        }
    }
}

/// `an+b` without spaces, in lower case.
fn parse_nth(text: &str) -> Option<Nth> {
    match text {
        "odd" => return Some(Nth { a: 2, b: 1 }),
        "even" => return Some(Nth { a: 2, b: 0 }),
        _ => {}
    }
    let number = |s: &str| -> Option<i64> {
        let digits = s.strip_prefix('+').unwrap_or(s);
        if digits.is_empty() || digits.starts_with(['+', '-']) && digits.len() == 1 {
            return None;
        }
        digits.parse().ok()
    };
    let Some((a, b)) = text.split_once('n') else {
        return Some(Nth {
            a: 0,
            b: number(text)?,
        });
    };
    let a = match a {
        "" | "+" => 1,
        "-" => -1,
        _ => number(a)?,
    };
    let b = match b {
        "" => 0,
        _ if b.starts_with(['+', '-']) => number(b)?,
        _ => return None,
    };
    Some(Nth { a, b })
}

/// Whether a condition counts siblings by the element's name.
fn counts_by_type(c: &Condition) -> bool {
    matches!(
        c,
        Condition::Pseudo(
            Pseudo::FirstOfType
                | Pseudo::LastOfType
                | Pseudo::OnlyOfType
                | Pseudo::NthOfType(_)
                | Pseudo::NthLastOfType(_)
        )
    )
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_' || !c.is_ascii()
}

/// Whether an identifier starts at `c` (followed by `next`).
fn starts_ident(c: char, next: Option<char>) -> bool {
    match c {
        '-' => {
            next.is_some_and(|n| n == '-' || n == '\\' || (is_name_char(n) && !n.is_ascii_digit()))
        }
        '\\' => true,
        _ => c.is_ascii_alphabetic() || c == '_' || !c.is_ascii(),
    }
}
