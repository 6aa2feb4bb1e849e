//! The XPath 1.0 parser: tokens in, a type-checked [`Expr`] tree out.
//!
//! A recursive-descent parser following the grammar of XPath 1.0 section 3,
//! with the operator precedence of the specification. Every error carries the
//! byte offset of the token where parsing stopped and says what was expected
//! there. The parser refuses expressions longer than [`MAX_LEN`] bytes and
//! nesting (parentheses, predicates, function arguments) deeper than
//! [`MAX_DEPTH`] levels, so no input can exhaust the stack; it also refuses
//! variables, namespace prefixes in name tests, and — because mend knows every
//! type statically — type errors such as `count(3)` or `'a' | //b`.

use regex::Regex;

use super::XPathError;
use super::ast::{ArithOp, Axis, CmpOp, Expr, NameId, NodeTest, Start, Step};
use super::functions::Func;
use super::functions::Type;
use super::lexer::{Tok, Token, tokenize};

/// The longest expression accepted, in bytes.
pub const MAX_LEN: usize = 64 * 1024;
/// The deepest nesting of parentheses, predicates and function calls accepted.
pub const MAX_DEPTH: usize = 128;

/// The result of parsing: the tree and the names its node tests refer to.
pub(crate) struct Parsed {
    pub expr: Expr,
    pub names: Vec<Box<str>>,
}

/// Parses and type-checks an expression.
pub(crate) fn parse(src: &str) -> Result<Parsed, XPathError> {
    if src.len() > MAX_LEN {
        return Err(XPathError {
            position: MAX_LEN,
            message: format!("expression too long: the limit is {MAX_LEN} bytes"),
        });
    }
    let toks = tokenize(src)?;
    let mut p = Parser {
        toks,
        i: 0,
        depth: 0,
        names: Vec::new(),
    };
    if p.peek() == &Tok::Eof {
        return Err(p.error("expected an expression"));
    }
    let expr = p.expr()?;
    if p.peek() != &Tok::Eof {
        let what = match p.peek() {
            Tok::RParen => "unmatched ')'".to_owned(),
            Tok::RBracket => "unmatched ']'".to_owned(),
            _ => "expected an operator or the end of the expression".to_owned(),
        };
        return Err(p.error(&what));
    }
    Ok(Parsed {
        expr,
        names: p.names,
    })
}

struct Parser {
    toks: Vec<Token>,
    i: usize,
    depth: usize,
    names: Vec<Box<str>>,
}

impl Parser {
    fn peek(&self) -> &Tok {
        // The token list always ends with Eof, and `i` never passes it.
        &self.toks[self.i.min(self.toks.len() - 1)].tok
    }

    fn pos(&self) -> usize {
        self.toks[self.i.min(self.toks.len() - 1)].pos
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn error(&self, message: &str) -> XPathError {
        self.error_at(self.pos(), message)
    }

    fn error_at(&self, position: usize, message: &str) -> XPathError {
        XPathError {
            position,
            message: message.to_owned(),
        }
    }

    fn expect(&mut self, tok: Tok, message: &str) -> Result<(), XPathError> {
        if *self.peek() == tok {
            self.bump();
            Ok(())
        } else {
            Err(self.error(message))
        }
    }

    fn intern(&mut self, name: &str) -> NameId {
        match self.names.iter().position(|n| &**n == name) {
            Some(i) => i as NameId,
            None => {
                self.names.push(name.into());
                (self.names.len() - 1) as NameId
            }
        }
    }

    /// Expr, one nesting level deeper.
    fn expr(&mut self) -> Result<Expr, XPathError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(&format!(
                "expression nested too deeply: the limit is {MAX_DEPTH} levels"
            )));
        }
        self.depth += 1;
        let e = self.or_expr();
        self.depth -= 1;
        e
    }

    fn or_expr(&mut self) -> Result<Expr, XPathError> {
        let first = self.and_expr()?;
        if self.peek() != &Tok::Or {
            return Ok(first);
        }
        let mut v = vec![first];
        while self.peek() == &Tok::Or {
            self.bump();
            v.push(self.and_expr()?);
        }
        Ok(Expr::Or(v))
    }

    fn and_expr(&mut self) -> Result<Expr, XPathError> {
        let first = self.equality_expr()?;
        if self.peek() != &Tok::And {
            return Ok(first);
        }
        let mut v = vec![first];
        while self.peek() == &Tok::And {
            self.bump();
            v.push(self.equality_expr()?);
        }
        Ok(Expr::And(v))
    }

    fn equality_expr(&mut self) -> Result<Expr, XPathError> {
        let first = self.relational_expr()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Eq => CmpOp::Eq,
                Tok::Neq => CmpOp::Ne,
                _ => break,
            };
            self.bump();
            rest.push((op, self.relational_expr()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Compare(Box::new(first), rest)
        })
    }

    fn relational_expr(&mut self) -> Result<Expr, XPathError> {
        let first = self.additive_expr()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Lt => CmpOp::Lt,
                Tok::Le => CmpOp::Le,
                Tok::Gt => CmpOp::Gt,
                Tok::Ge => CmpOp::Ge,
                _ => break,
            };
            self.bump();
            rest.push((op, self.additive_expr()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Compare(Box::new(first), rest)
        })
    }

    fn additive_expr(&mut self) -> Result<Expr, XPathError> {
        let first = self.multiplicative_expr()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Plus => ArithOp::Add,
                Tok::Minus => ArithOp::Sub,
                _ => break,
            };
            self.bump();
            rest.push((op, self.multiplicative_expr()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Arith(Box::new(first), rest)
        })
    }

    fn multiplicative_expr(&mut self) -> Result<Expr, XPathError> {
        let first = self.unary_expr()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Multiply => ArithOp::Mul,
                Tok::Div => ArithOp::Div,
                Tok::Mod => ArithOp::Mod,
                _ => break,
            };
            self.bump();
            rest.push((op, self.unary_expr()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Arith(Box::new(first), rest)
        })
    }

    fn unary_expr(&mut self) -> Result<Expr, XPathError> {
        // A run of minus signs is counted rather than recursed into, so
        // `------…1` is as safe as `-1`.
        let mut minus = 0usize;
        while self.peek() == &Tok::Minus {
            self.bump();
            minus += 1;
        }
        let e = self.union_expr()?;
        Ok(if minus == 0 {
            e
        } else {
            Expr::Neg {
                expr: Box::new(e),
                double: minus.is_multiple_of(2),
            }
        })
    }

    fn union_expr(&mut self) -> Result<Expr, XPathError> {
        let start = self.pos();
        let first = self.path_expr()?;
        if self.peek() != &Tok::Pipe {
            return Ok(first);
        }
        if first.ty() != Type::NodeSet {
            return Err(self.error_at(start, "the operands of '|' must be node-sets"));
        }
        let mut v = vec![first];
        while self.peek() == &Tok::Pipe {
            self.bump();
            let at = self.pos();
            let e = self.path_expr()?;
            if e.ty() != Type::NodeSet {
                return Err(self.error_at(at, "the operands of '|' must be node-sets"));
            }
            v.push(e);
        }
        Ok(Expr::Union(v))
    }

    fn starts_step(tok: &Tok) -> bool {
        matches!(
            tok,
            Tok::Name(_)
                | Tok::Star
                | Tok::NodeType(_)
                | Tok::AxisName(_)
                | Tok::At
                | Tok::Dot
                | Tok::DotDot
        )
    }

    fn path_expr(&mut self) -> Result<Expr, XPathError> {
        match self.peek() {
            Tok::Literal(_)
            | Tok::Number(_)
            | Tok::LParen
            | Tok::FunctionName(_)
            | Tok::Variable(_) => self.filter_path(),
            Tok::Slash => {
                self.bump();
                let mut steps = Vec::new();
                if Self::starts_step(self.peek()) {
                    self.relative_path(&mut steps)?;
                }
                Ok(Expr::Path {
                    start: Start::Root,
                    steps,
                })
            }
            Tok::DoubleSlash => {
                self.bump();
                let mut steps = vec![descendant_or_self()];
                self.require_step("'//'")?;
                self.relative_path(&mut steps)?;
                Ok(Expr::Path {
                    start: Start::Root,
                    steps,
                })
            }
            t if Self::starts_step(t) => {
                let mut steps = Vec::new();
                self.relative_path(&mut steps)?;
                Ok(Expr::Path {
                    start: Start::Context,
                    steps,
                })
            }
            Tok::Eof => Err(self.error("expected an expression, found the end")),
            _ => Err(self.error("expected an expression")),
        }
    }

    fn require_step(&self, after: &str) -> Result<(), XPathError> {
        if Self::starts_step(self.peek()) {
            Ok(())
        } else {
            Err(self.error(&format!("expected a location step after {after}")))
        }
    }

    fn filter_path(&mut self) -> Result<Expr, XPathError> {
        let start = self.pos();
        let primary = self.primary_expr()?;
        let mut preds = Vec::new();
        while self.peek() == &Tok::LBracket {
            if primary.ty() != Type::NodeSet {
                return Err(self.error("a predicate can only filter a node-set"));
            }
            self.bump();
            preds.push(self.expr()?);
            self.expect(Tok::RBracket, "expected ']' to close the predicate")?;
        }
        let filtered = if preds.is_empty() {
            primary
        } else {
            Expr::Filter {
                expr: Box::new(primary),
                preds,
            }
        };
        let mut steps = Vec::new();
        match self.peek() {
            Tok::Slash | Tok::DoubleSlash => {
                if filtered.ty() != Type::NodeSet {
                    return Err(
                        self.error_at(start, "only a node-set can be followed by a location path")
                    );
                }
                self.relative_path_after_separator(&mut steps)?;
            }
            _ => return Ok(filtered),
        }
        Ok(Expr::Path {
            start: Start::Filter(Box::new(filtered)),
            steps,
        })
    }

    /// `/step…` or `//step…` after a filter expression.
    fn relative_path_after_separator(&mut self, steps: &mut Vec<Step>) -> Result<(), XPathError> {
        let sep = self.bump();
        if sep == Tok::DoubleSlash {
            steps.push(descendant_or_self());
            self.require_step("'//'")?;
        } else {
            self.require_step("'/'")?;
        }
        self.relative_path(steps)
    }

    fn relative_path(&mut self, steps: &mut Vec<Step>) -> Result<(), XPathError> {
        steps.push(self.step()?);
        loop {
            match self.peek() {
                Tok::Slash => {
                    self.bump();
                    self.require_step("'/'")?;
                }
                Tok::DoubleSlash => {
                    self.bump();
                    steps.push(descendant_or_self());
                    self.require_step("'//'")?;
                }
                _ => return Ok(()),
            }
            steps.push(self.step()?);
        }
    }

    fn step(&mut self) -> Result<Step, XPathError> {
        let axis = match self.peek().clone() {
            Tok::Dot => {
                self.bump();
                return Ok(simple_step(Axis::SelfNode, NodeTest::Node));
            }
            Tok::DotDot => {
                self.bump();
                return Ok(simple_step(Axis::Parent, NodeTest::Node));
            }
            Tok::At => {
                self.bump();
                Axis::Attribute
            }
            Tok::AxisName(name) => {
                let at = self.pos();
                let Some(axis) = Axis::from_name(&name) else {
                    return Err(self.error_at(at, &format!("unknown axis '{name}'")));
                };
                self.bump();
                self.expect(Tok::ColonColon, "expected '::' after the axis name")?;
                axis
            }
            _ => Axis::Child,
        };
        let test = self.node_test()?;
        let mut preds = Vec::new();
        while self.peek() == &Tok::LBracket {
            self.bump();
            preds.push(self.expr()?);
            self.expect(Tok::RBracket, "expected ']' to close the predicate")?;
        }
        let positional = preds.iter().any(Expr::is_positional_predicate);
        Ok(Step {
            axis,
            test,
            preds,
            positional,
        })
    }

    fn node_test(&mut self) -> Result<NodeTest, XPathError> {
        let at = self.pos();
        match self.bump() {
            Tok::Star => Ok(NodeTest::Any),
            Tok::Name(name) => {
                if name.contains(':') {
                    return Err(self.error_at(
                        at,
                        &format!("namespace prefixes are not supported ('{name}')"),
                    ));
                }
                Ok(NodeTest::Name(self.intern(&name)))
            }
            Tok::NodeType(kind) => {
                self.expect(Tok::LParen, "expected '(' after the node type")?;
                let test = match kind.as_str() {
                    "node" => NodeTest::Node,
                    "text" => NodeTest::Text,
                    "comment" => NodeTest::Comment,
                    _ => {
                        if let Tok::Literal(_) = self.peek() {
                            self.bump();
                        }
                        NodeTest::Pi
                    }
                };
                self.expect(Tok::RParen, &format!("expected ')' to close {kind}("))?;
                Ok(test)
            }
            Tok::FunctionName(name) => Err(self.error_at(
                at,
                &format!("expected a node test, found the function call '{name}('"),
            )),
            Tok::Eof => Err(self.error_at(at, "expected a node test, found the end")),
            _ => Err(self.error_at(at, "expected a node test (a name, '*' or a node type)")),
        }
    }

    fn primary_expr(&mut self) -> Result<Expr, XPathError> {
        let at = self.pos();
        match self.bump() {
            Tok::Variable(_) => Err(self.error_at(at, "variables are not supported")),
            Tok::LParen => {
                let e = self.expr()?;
                self.expect(Tok::RParen, "expected ')' to close the parenthesis")?;
                Ok(e)
            }
            Tok::Literal(s) => Ok(Expr::Literal(s.into())),
            Tok::Number(n) => Ok(Expr::Number(n)),
            Tok::FunctionName(name) => self.call(&name, at),
            _ => Err(self.error_at(at, "expected an expression")),
        }
    }

    fn call(&mut self, name: &str, at: usize) -> Result<Expr, XPathError> {
        let func = Func::lookup(name).map_err(|m| self.error_at(at, &m))?;
        self.expect(Tok::LParen, "expected '(' after the function name")?;
        let mut args = Vec::new();
        let mut positions = Vec::new();
        if self.peek() != &Tok::RParen {
            loop {
                positions.push(self.pos());
                args.push(self.expr()?);
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::RParen => break,
                    _ => {
                        return Err(self
                            .error(&format!("expected ',' or ')' in the arguments of {name}()")));
                    }
                }
            }
        }
        self.bump();
        let types: Vec<Type> = args.iter().map(Expr::ty).collect();
        if let Err((index, message)) = func.check_args(&types) {
            let position = index.and_then(|i| positions.get(i).copied()).unwrap_or(at);
            return Err(self.error_at(position, &message));
        }
        let regex = match func {
            Func::Matches | Func::Replace => {
                let flags_at = if func == Func::Matches { 2 } else { 3 };
                literal_regex(&args, 1, flags_at)
                    .transpose()
                    .map_err(|m| self.error_at(positions.get(1).copied().unwrap_or(at), &m))?
            }
            _ => None,
        };
        Ok(Expr::Call {
            func,
            args,
            regex: regex.map(Box::new),
        })
    }
}

/// Compiles the regular expression of a call when its pattern (and flags, if
/// given) are literals; `None` when they are computed at evaluation time.
fn literal_regex(args: &[Expr], pattern: usize, flags: usize) -> Option<Result<Regex, String>> {
    let Some(Expr::Literal(p)) = args.get(pattern) else {
        return None;
    };
    let f: &str = match args.get(flags) {
        None => "",
        Some(Expr::Literal(f)) => f,
        Some(_) => return None,
    };
    Some(build_regex(p, f))
}

/// Builds a regular expression with XPath 2.0-style flags (`i`, `s`, `m`, `x`).
pub(crate) fn build_regex(pattern: &str, flags: &str) -> Result<Regex, String> {
    let mut b = regex::RegexBuilder::new(pattern);
    for c in flags.chars() {
        match c {
            'i' => b.case_insensitive(true),
            's' => b.dot_matches_new_line(true),
            'm' => b.multi_line(true),
            'x' => b.ignore_whitespace(true),
            _ => {
                return Err(format!(
                    "invalid regular expression flag '{c}': expected i, s, m or x"
                ));
            }
        };
    }
    b.size_limit(1 << 20);
    b.build()
        .map_err(|e| format!("invalid regular expression: {}", first_line(&e.to_string())))
}

fn first_line(s: &str) -> String {
    s.lines().last().unwrap_or("").trim().to_owned()
}

fn simple_step(axis: Axis, test: NodeTest) -> Step {
    Step {
        axis,
        test,
        preds: Vec::new(),
        positional: false,
    }
}

fn descendant_or_self() -> Step {
    simple_step(Axis::DescendantOrSelf, NodeTest::Node)
}
