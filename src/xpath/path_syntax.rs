//! A location path as written: its steps, each with the separator before
//! it, its axis, its node test and its predicates, split by the XPath
//! tokenizer so that a quote, a nested predicate or a `/` inside a literal
//! never cuts a step. Printing a path gives the expression back, so code
//! that rewrites a locator (drops steps, widens a tag, adds a predicate)
//! edits this tree and prints it, and never scans the expression's text.
//!
//! The compiled tree ([`super::ast`]) is for evaluation: its names are
//! interned and the optimiser replaces common predicates by fast forms, so
//! it cannot be printed back as the person or the generator wrote it. This
//! tree keeps each predicate as its source text, classified only as far as
//! the rewrites need: a position, a test that opens with an attribute, or
//! anything else.
//!
//! ## What it refuses
//!
//! [`LocationPath::parse`] gives `None` for what is not one location path
//! from the root or the context: a union, a filter expression (`(//a)[1]`),
//! a function call or an operator at the top level, a variable, or an
//! expression the tokenizer refuses. It checks nothing the tokenizer and
//! the bracket nesting do not: the printed path is as valid as the input.

use std::fmt;

use super::lexer::{Tok, tokenize};

/// What stands before a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Separator {
    /// `/` before the first step: from the root.
    Root,
    /// `//` before the first step: anywhere under the root.
    RootDescendant,
    /// `./` before the first step: from the context node.
    Context,
    /// `.//` before the first step: anywhere under the context node.
    ContextDescendant,
    /// Nothing before the first step of a relative path (`div/p`).
    Relative,
    /// `/` between steps.
    Child,
    /// `//` between steps.
    Descendant,
}

impl Separator {
    /// The separator as written.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Separator::Root | Separator::Child => "/",
            Separator::RootDescendant | Separator::Descendant => "//",
            Separator::Context => "./",
            Separator::ContextDescendant => ".//",
            Separator::Relative => "",
        }
    }

    /// Whether the separator lets the step stand any number of levels
    /// below what comes before it.
    pub(crate) fn is_descendant(self) -> bool {
        matches!(
            self,
            Separator::RootDescendant | Separator::ContextDescendant | Separator::Descendant
        )
    }
}

/// What a predicate tests, as far as a rewrite needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PredicateKind {
    /// A number alone: a position (`[2]`).
    Position,
    /// A test that opens with an attribute (`[@name='q']`).
    Attribute,
    /// Anything else (a text, a child, a function).
    Other,
}

/// One predicate: its source between the brackets, and its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Predicate {
    /// The expression between `[` and `]`, as written.
    pub source: String,
    /// What it tests.
    pub kind: PredicateKind,
    /// Whether it reads an attribute anywhere (an `@` or an `attribute::`
    /// axis in it): `[@name='q']`, `[contains(…@class…)]`, `[a[@href]]`.
    pub reads_attribute: bool,
}

/// One location step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PathStep {
    /// The separator before it.
    pub separator: Separator,
    /// Its axis when written out (`following-sibling`), without `::`.
    pub axis: Option<String>,
    /// Its node test or abbreviation as written: `div`, `*`, `text()`,
    /// `@href`, `.`, `..`.
    pub test: String,
    /// Its predicates, in order.
    pub predicates: Vec<Predicate>,
}

/// A location path: its steps, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocationPath {
    /// The steps; never empty.
    pub steps: Vec<PathStep>,
}

impl LocationPath {
    /// The path `src` is, or `None` (see the module doc).
    pub(crate) fn parse(src: &str) -> Option<LocationPath> {
        let tokens = tokenize(src).ok()?;
        let mut steps = Vec::new();
        let mut i = 0;
        let separator = match (&tokens[0].tok, tokens.get(1).map(|t| &t.tok)) {
            (Tok::Slash, _) => {
                i = 1;
                Separator::Root
            }
            (Tok::DoubleSlash, _) => {
                i = 1;
                Separator::RootDescendant
            }
            (Tok::Dot, Some(Tok::Slash)) => {
                i = 2;
                Separator::Context
            }
            (Tok::Dot, Some(Tok::DoubleSlash)) => {
                i = 2;
                Separator::ContextDescendant
            }
            _ => Separator::Relative,
        };
        let mut separator = Some(separator);
        while let Some(sep) = separator.take() {
            let (step, next) = step_at(src, &tokens, i, sep)?;
            steps.push(step);
            i = next;
            separator = match tokens[i].tok {
                Tok::Slash => Some(Separator::Child),
                Tok::DoubleSlash => Some(Separator::Descendant),
                Tok::Eof => None,
                _ => return None,
            };
            i += usize::from(separator.is_some());
        }
        Some(LocationPath { steps })
    }

    /// The last step.
    pub(crate) fn last(&self) -> &PathStep {
        // `parse` never makes a path without steps.
        &self.steps[self.steps.len() - 1]
    }
}

impl PathStep {
    /// Whether the test is an element name (`div`, `my-widget`) or `*`,
    /// with no axis written out.
    pub(crate) fn is_element_test(&self) -> bool {
        self.axis.is_none()
            && !self.test.is_empty()
            && self
                .test
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '*')
            && (self.test == "*" || !self.test.contains('*'))
    }

    /// Whether the step is an element test with one position at most, and
    /// no axis written out: `div`, `div[2]`, `*`. This is what a wrap or an
    /// unwrap adds to or takes from a path.
    pub(crate) fn is_plain(&self) -> bool {
        self.is_element_test()
            && match self.predicates.as_slice() {
                [] => true,
                [only] => only.kind == PredicateKind::Position,
                _ => false,
            }
    }

    /// Whether the step has predicates and every one opens with an
    /// attribute test.
    pub(crate) fn tests_attributes_only(&self) -> bool {
        !self.predicates.is_empty()
            && self
                .predicates
                .iter()
                .all(|p| p.kind == PredicateKind::Attribute)
    }

    /// Whether the step is on a sibling axis.
    pub(crate) fn is_sibling(&self) -> bool {
        matches!(
            self.axis.as_deref(),
            Some("following-sibling" | "preceding-sibling")
        )
    }

    /// The step with its node test widened to `*`, predicates kept.
    pub(crate) fn any_tag(&self) -> PathStep {
        PathStep {
            test: "*".to_owned(),
            ..self.clone()
        }
    }

    fn write_body(&self, out: &mut String) {
        if let Some(axis) = &self.axis {
            out.push_str(axis);
            out.push_str("::");
        }
        out.push_str(&self.test);
        for p in &self.predicates {
            out.push('[');
            out.push_str(&p.source);
            out.push(']');
        }
    }
}

impl fmt::Display for LocationPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        for step in &self.steps {
            out.push_str(step.separator.as_str());
            step.write_body(&mut out);
        }
        f.write_str(&out)
    }
}

/// The step whose first token is `tokens[i]`, after `separator`, and the
/// index of the token after it.
fn step_at(
    src: &str,
    tokens: &[super::lexer::Token],
    i: usize,
    separator: Separator,
) -> Option<(PathStep, usize)> {
    let mut i = i;
    let mut axis = None;
    if let (Tok::AxisName(name), Some(Tok::ColonColon)) =
        (&tokens[i].tok, tokens.get(i + 1).map(|t| &t.tok))
    {
        axis = Some(name.clone());
        i += 2;
    }
    let test_start = tokens[i].pos;
    let test_end = match &tokens[i].tok {
        Tok::Name(_) | Tok::Star | Tok::Dot | Tok::DotDot => {
            i += 1;
            tokens[i].pos
        }
        Tok::At => match tokens.get(i + 1).map(|t| &t.tok) {
            Some(Tok::Name(_) | Tok::Star) => {
                i += 2;
                tokens[i].pos
            }
            _ => return None,
        },
        Tok::NodeType(_) => {
            // `text()`, `node()`, `comment()`, or `processing-instruction('x')`.
            let close = matching(tokens, i + 1, &Tok::LParen, &Tok::RParen)?;
            i = close + 1;
            tokens[i].pos
        }
        _ => return None,
    };
    let test = src[test_start..test_end].trim_end().to_owned();
    let mut predicates = Vec::new();
    while tokens[i].tok == Tok::LBracket {
        let close = matching(tokens, i, &Tok::LBracket, &Tok::RBracket)?;
        let source = src[tokens[i].pos + 1..tokens[close].pos].to_owned();
        let inner = &tokens[i + 1..close];
        let kind = match inner {
            [only] if matches!(only.tok, Tok::Number(_)) => PredicateKind::Position,
            [first, ..] if first.tok == Tok::At => PredicateKind::Attribute,
            _ => PredicateKind::Other,
        };
        let reads_attribute = inner.iter().any(|t| {
            matches!(&t.tok, Tok::At) || matches!(&t.tok, Tok::AxisName(a) if a == "attribute")
        });
        predicates.push(Predicate {
            source,
            kind,
            reads_attribute,
        });
        i = close + 1;
    }
    let step = PathStep {
        separator,
        axis,
        test,
        predicates,
    };
    Some((step, i))
}

/// The index of the token that closes the bracket or parenthesis opened at
/// `tokens[open]`, counting both kinds of nesting.
fn matching(
    tokens: &[super::lexer::Token],
    open: usize,
    opener: &Tok,
    closer: &Tok,
) -> Option<usize> {
    if &tokens.get(open)?.tok != opener {
        return None;
    }
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(open) {
        match t.tok {
            Tok::LBracket | Tok::LParen => depth += 1,
            Tok::RBracket | Tok::RParen => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (&t.tok == closer).then_some(j);
                }
            }
            Tok::Eof => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `src` and checks that it prints back unchanged, with the
    /// given last step's test and predicate kinds.
    fn check(src: &str, last_test: &str, kinds: &[PredicateKind]) {
        let path = LocationPath::parse(src).unwrap_or_else(|| panic!("{src} is a path"));
        assert_eq!(path.to_string(), src);
        assert_eq!(path.last().test, last_test, "{src}");
        let got: Vec<_> = path.last().predicates.iter().map(|p| p.kind).collect();
        assert_eq!(got, kinds, "{src}");
    }

    #[test]
    fn paths_print_back_as_written() {
        use PredicateKind::*;
        check("/html/body/div[3]/p", "p", &[]);
        check("//div[3]/center/input[@name='btnK']", "input", &[Attribute]);
        check(".//li[2]", "li", &[Position]);
        check("./a/@href", "@href", &[]);
        check("div/p[1]", "p", &[Position]);
        check(
            "//h4[normalize-space(.)='Overview']/following-sibling::div[1]//li[strong[normalize-space(.)='ISBN:']]",
            "li",
            &[Other],
        );
        check("//p/text()", "text()", &[]);
        check("//a[@title='a/b]c'][2]", "a", &[Attribute, Position]);
        check("//*[@id=\"x//y\"]", "*", &[Attribute]);
        check(
            "//span[contains(concat(' ', normalize-space(@class), ' '), ' price ')]",
            "span",
            &[Other],
        );
        check("//a/..", "..", &[]);
    }

    #[test]
    fn what_is_not_one_path_is_refused() {
        for src in [
            "//a | //b",
            "(//a)[1]",
            "count(//a)",
            "//a = 'x'",
            "$v/a",
            "//a[",
            "//a[@x='unterminated]",
            "",
            "//",
            "/a/",
        ] {
            assert_eq!(LocationPath::parse(src), None, "{src}");
        }
    }

    #[test]
    fn steps_carry_their_separators_and_axes() {
        let path = LocationPath::parse(".//h4[1]/following-sibling::div[1]//li").unwrap();
        let seps: Vec<_> = path.steps.iter().map(|s| s.separator).collect();
        assert_eq!(
            seps,
            [
                Separator::ContextDescendant,
                Separator::Child,
                Separator::Descendant
            ]
        );
        assert!(path.steps[1].is_sibling());
        assert!(!path.steps[1].is_plain());
        assert!(path.steps[0].is_plain());
        let alone = |step: PathStep| LocationPath { steps: vec![step] }.to_string();
        assert_eq!(alone(path.steps[1].clone()), "/following-sibling::div[1]");
        assert_eq!(alone(path.steps[1].any_tag()), "/following-sibling::*[1]");
    }
}
