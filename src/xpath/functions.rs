//! The function library's signatures: names, arities, argument and result types.
//!
//! Every call is checked against this table when an expression is compiled, so
//! an unknown function, a wrong number of arguments or a non-node-set where a
//! node-set is required (`count(3)`) is a compile error with a position rather
//! than a surprise at evaluation time. Because mend has no variables, every
//! argument's type is known statically. The table refuses prefixed function
//! names: mend has no namespace bindings.

/// The four XPath 1.0 value types, known statically because mend has no variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    NodeSet,
    String,
    Number,
    Boolean,
}

/// A function of the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Last,
    Position,
    Count,
    Id,
    LocalName,
    NamespaceUri,
    Name,
    String,
    Concat,
    StartsWith,
    Contains,
    SubstringBefore,
    SubstringAfter,
    Substring,
    StringLength,
    NormalizeSpace,
    Translate,
    Boolean,
    Not,
    True,
    False,
    Lang,
    Number,
    Sum,
    Floor,
    Ceiling,
    Round,
    // Extensions.
    LowerCase,
    UpperCase,
    EndsWith,
    Matches,
    Replace,
    StringJoin,
}

/// What an argument must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// Any value; the function converts it as it needs.
    Any,
    /// A node-set and nothing else.
    NodeSet,
}

struct Signature {
    name: &'static str,
    func: Func,
    min: usize,
    /// `usize::MAX` for `concat`.
    max: usize,
    args: Arg,
    returns: Type,
}

const fn sig(
    name: &'static str,
    func: Func,
    min: usize,
    max: usize,
    args: Arg,
    returns: Type,
) -> Signature {
    Signature {
        name,
        func,
        min,
        max,
        args,
        returns,
    }
}

use Arg::{Any, NodeSet};
use Type::{Boolean as B, NodeSet as N, Number as F, String as S};

const TABLE: &[Signature] = &[
    sig("last", Func::Last, 0, 0, Any, F),
    sig("position", Func::Position, 0, 0, Any, F),
    sig("count", Func::Count, 1, 1, NodeSet, F),
    sig("id", Func::Id, 1, 1, Any, N),
    sig("local-name", Func::LocalName, 0, 1, NodeSet, S),
    sig("namespace-uri", Func::NamespaceUri, 0, 1, NodeSet, S),
    sig("name", Func::Name, 0, 1, NodeSet, S),
    sig("string", Func::String, 0, 1, Any, S),
    sig("concat", Func::Concat, 2, usize::MAX, Any, S),
    sig("starts-with", Func::StartsWith, 2, 2, Any, B),
    sig("contains", Func::Contains, 2, 2, Any, B),
    sig("substring-before", Func::SubstringBefore, 2, 2, Any, S),
    sig("substring-after", Func::SubstringAfter, 2, 2, Any, S),
    sig("substring", Func::Substring, 2, 3, Any, S),
    sig("string-length", Func::StringLength, 0, 1, Any, F),
    sig("normalize-space", Func::NormalizeSpace, 0, 1, Any, S),
    sig("translate", Func::Translate, 3, 3, Any, S),
    sig("boolean", Func::Boolean, 1, 1, Any, B),
    sig("not", Func::Not, 1, 1, Any, B),
    sig("true", Func::True, 0, 0, Any, B),
    sig("false", Func::False, 0, 0, Any, B),
    sig("lang", Func::Lang, 1, 1, Any, B),
    sig("number", Func::Number, 0, 1, Any, F),
    sig("sum", Func::Sum, 1, 1, NodeSet, F),
    sig("floor", Func::Floor, 1, 1, Any, F),
    sig("ceiling", Func::Ceiling, 1, 1, Any, F),
    sig("round", Func::Round, 1, 1, Any, F),
    sig("lower-case", Func::LowerCase, 1, 1, Any, S),
    sig("upper-case", Func::UpperCase, 1, 1, Any, S),
    sig("ends-with", Func::EndsWith, 2, 2, Any, B),
    sig("matches", Func::Matches, 2, 3, Any, B),
    sig("replace", Func::Replace, 3, 4, Any, S),
    sig("string-join", Func::StringJoin, 2, 2, Any, S),
];

fn signature(func: Func) -> &'static Signature {
    // Every variant has a row; the fallback keeps this total without a panic.
    TABLE.iter().find(|s| s.func == func).unwrap_or(&TABLE[0])
}

impl Func {
    /// Looks a function up by name; on failure, says what is wrong, with a
    /// suggestion when a known name is close.
    pub(crate) fn lookup(name: &str) -> Result<Func, String> {
        if let Some(s) = TABLE.iter().find(|s| s.name == name) {
            return Ok(s.func);
        }
        if name.contains(':') {
            return Err(format!(
                "unknown function '{name}': namespace prefixes are not supported"
            ));
        }
        let best = TABLE
            .iter()
            .map(|s| (strsim::levenshtein(name, s.name), s.name))
            .min();
        match best {
            Some((d, known)) if d <= 2 || (d <= 3 && name.len() > 6) => Err(format!(
                "unknown function '{name}': did you mean '{known}'?"
            )),
            _ => Err(format!("unknown function '{name}'")),
        }
    }

    /// The function's name as written in expressions.
    pub(crate) fn name(self) -> &'static str {
        signature(self).name
    }

    /// The type of the function's result.
    pub(crate) fn return_type(self) -> Type {
        signature(self).returns
    }

    /// Checks the number and types of arguments; `Err` holds the message and
    /// the index of the offending argument (or `None` for a wrong count).
    pub(crate) fn check_args(self, types: &[Type]) -> Result<(), (Option<usize>, String)> {
        let s = signature(self);
        let n = types.len();
        if n < s.min || n > s.max {
            let expected = if s.max == usize::MAX {
                format!("at least {}", s.min)
            } else if s.min == s.max {
                format!("{}", s.min)
            } else {
                format!("{} to {}", s.min, s.max)
            };
            let plural = if expected == "1" { "" } else { "s" };
            return Err((
                None,
                format!("{}() takes {expected} argument{plural}, found {n}", s.name),
            ));
        }
        match types.iter().position(|&t| t != Type::NodeSet) {
            Some(i) if s.args == Arg::NodeSet => {
                Err((Some(i), format!("{}() expects a node-set argument", s.name)))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_get_suggestions() {
        assert_eq!(
            Func::lookup("contain").unwrap_err(),
            "unknown function 'contain': did you mean 'contains'?"
        );
        assert_eq!(
            Func::lookup("frobnicate").unwrap_err(),
            "unknown function 'frobnicate'"
        );
        assert_eq!(Func::lookup("string-join"), Ok(Func::StringJoin));
    }

    #[test]
    fn arity_and_node_set_arguments_are_checked() {
        assert!(Func::Concat.check_args(&[Type::String]).is_err());
        assert!(Func::Concat.check_args(&[Type::String; 5]).is_ok());
        assert_eq!(
            Func::Count.check_args(&[Type::Number]).unwrap_err().0,
            Some(0)
        );
        assert!(Func::Last.check_args(&[Type::Number]).is_err());
    }
}
