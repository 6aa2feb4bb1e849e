//! Writing predicates and steps as XPath 1.0 text.
//!
//! Only core XPath 1.0 is written (`concat`, `contains`, `normalize-space`,
//! `starts-with`, `last`, `name`), so that every locator means the same in
//! mend, lxml, parsel and browsers.
//!
//! ## What it refuses
//!
//! It judges nothing: names and texts are written as given (the callers
//! check them), and nothing is compiled or evaluated here. No value is
//! refused for its quotes: XPath 1.0 has no escapes, so a value holding both
//! kinds is spelled with `concat()`. A step takes one sibling label at most,
//! the first, and no function outside core XPath 1.0 is ever written.

/// One test a location step may carry. Each is true of every node the step
/// is meant to describe, by construction, so adding one never drops a target.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Pred {
    /// `@name='value'`.
    AttrEq { name: String, value: String },
    /// `@name`: the attribute is there, whatever its value.
    AttrPresent { name: String },
    /// A whitespace-separated token of `@class`.
    ClassToken(String),
    /// No class at all, where same-name siblings have one (an advert among
    /// plain list items): `not(normalize-space(@class))`.
    NoClass,
    /// A child element whose normalized text is a label:
    /// `tag[normalize-space(.)='Price']`.
    ChildLabel { tag: String, text: String },
    /// The node's own normalized text starts with a label such as `Price:`.
    OwnPrefix(String),
    /// The node's own normalized text is a label: offered only for nodes
    /// that are labels, never for the data a pattern extracts.
    OwnText(String),
    /// The node is the first element of its name after a sibling whose
    /// normalized text is a label; written as a step of its own,
    /// `dt[normalize-space(.)='Price']/following-sibling::dd[1]`.
    SiblingLabel { tag: String, text: String },
    /// The 1-based position among the siblings the step's name test matches.
    Position(usize),
    /// The last of the siblings the step's name test matches.
    Last,
}

impl Pred {
    /// Whether the predicate counts positions, and so must come right after
    /// the name test, where positions are counted among same-name siblings.
    pub(super) fn positional(&self) -> bool {
        matches!(self, Pred::Position(_) | Pred::Last)
    }

    /// Appends the predicate, brackets included (nothing for a sibling label,
    /// which [`write_step`] writes as a step prefix).
    fn write(&self, out: &mut String) {
        match self {
            Pred::AttrEq { name, value } => {
                out.push_str("[@");
                out.push_str(name);
                out.push('=');
                out.push_str(&literal(value));
                out.push(']');
            }
            Pred::AttrPresent { name } => {
                out.push_str("[@");
                out.push_str(name);
                out.push(']');
            }
            Pred::ClassToken(token) => {
                out.push_str("[contains(concat(' ', normalize-space(@class), ' '), ");
                out.push_str(&literal(&format!(" {token} ")));
                out.push_str(")]");
            }
            Pred::NoClass => out.push_str("[not(normalize-space(@class))]"),
            Pred::ChildLabel { tag, text } => {
                out.push('[');
                out.push_str(tag);
                out.push_str("[normalize-space(.)=");
                out.push_str(&literal(text));
                out.push_str("]]");
            }
            Pred::OwnPrefix(text) => {
                out.push_str("[starts-with(normalize-space(.), ");
                out.push_str(&literal(text));
                out.push_str(")]");
            }
            Pred::OwnText(text) => {
                out.push_str("[normalize-space(.)=");
                out.push_str(&literal(text));
                out.push(']');
            }
            Pred::SiblingLabel { .. } => {}
            Pred::Position(k) => {
                out.push('[');
                out.push_str(&k.to_string());
                out.push(']');
            }
            Pred::Last => out.push_str("[last()]"),
        }
    }
}

/// Appends one location step: the name test (`*` when `name` is `None`) with
/// its predicates. A positional predicate comes first, so that it counts
/// among same-name siblings whatever else the step tests; a sibling label
/// turns the step into `label/following-sibling::name[1]`.
pub(super) fn write_step<'a>(
    out: &mut String,
    name: Option<&str>,
    preds: impl Iterator<Item = &'a Pred> + Clone,
) {
    let label = preds.clone().find_map(|p| match p {
        Pred::SiblingLabel { tag, text } => Some((tag, text)),
        _ => None,
    });
    if let Some((tag, text)) = label {
        out.push_str(tag);
        out.push_str("[normalize-space(.)=");
        out.push_str(&literal(text));
        out.push_str("]/following-sibling::");
    }
    out.push_str(name.unwrap_or("*"));
    if label.is_some() {
        out.push_str("[1]");
    }
    for p in preds.clone().filter(|p| p.positional()) {
        p.write(out);
    }
    for p in preds.filter(|p| !p.positional()) {
        p.write(out);
    }
}

/// An XPath 1.0 string literal for `s`. XPath 1.0 has no escapes, so a value
/// with an apostrophe is quoted with double quotes, and a value with both is
/// spelled as `concat()` of pieces split at the apostrophes.
pub(crate) fn literal(s: &str) -> String {
    if !s.contains('\'') {
        return format!("'{s}'");
    }
    if !s.contains('"') {
        return format!("\"{s}\"");
    }
    let mut out = String::from("concat(");
    for (i, piece) in s.split('\'').enumerate() {
        if i > 0 {
            out.push_str(", \"'\", ");
        }
        out.push('\'');
        out.push_str(piece);
        out.push('\'');
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_quote_as_xpath_1_needs() {
        assert_eq!(literal("plain"), "'plain'");
        assert_eq!(literal("it's"), "\"it's\"");
        assert_eq!(literal("say \"hi\""), "'say \"hi\"'");
        assert_eq!(literal("it's \"x\""), "concat('it', \"'\", 's \"x\"')");
        assert_eq!(literal("'\""), "concat('', \"'\", '\"')");
    }

    #[test]
    fn steps_put_positions_first_and_labels_before() {
        let mut s = String::new();
        let preds = [Pred::ClassToken("a".into()), Pred::Position(2)];
        write_step(&mut s, Some("li"), preds.iter());
        assert_eq!(
            s,
            "li[2][contains(concat(' ', normalize-space(@class), ' '), ' a ')]"
        );
        let mut s = String::new();
        let preds = [Pred::SiblingLabel {
            tag: "dt".into(),
            text: "Price".into(),
        }];
        write_step(&mut s, Some("dd"), preds.iter());
        assert_eq!(s, "dt[normalize-space(.)='Price']/following-sibling::dd[1]");
    }
}
