//! Brittle XPaths: the forms that a site's next change is most likely to
//! break or, worse, to move onto another node without an error. `mend
//! snapshot` warns about them and names a robust locator of the same nodes.
//!
//! ## What it refuses
//!
//! It parses nothing and evaluates nothing: any string is read without
//! panicking, and one that does not compile may still read as robust. Only
//! three forms are brittle: an absolute path (from `/html`, or from `/` with
//! a position), three or more numeric positions (`[last()]` and
//! `[position()=2]` do not count), and a literal that looks generated. Only
//! the first reason found is given.

use super::looks_generated;

/// Why `source` is brittle, in words, or `None` when it reads as robust:
/// an absolute path from the root through positions (`/html/body/div[3]/…`),
/// a path with three or more positional steps, or a test on a value that
/// looks generated (a hashed class, a numbered id), which changes with the
/// next build of the site. The text is scanned, not parsed, so any string
/// is accepted.
pub fn brittleness(source: &str) -> Option<String> {
    let s = source.trim();
    let positions = positional_steps(s);
    if s.starts_with("/html") || (s.starts_with('/') && !s.starts_with("//") && positions > 0) {
        return Some(format!(
            "an absolute path from the page's root with {positions} position{}: any element added \
             above the target moves it, often onto another node",
            if positions == 1 { "" } else { "s" }
        ));
    }
    if positions >= 3 {
        return Some(format!(
            "{positions} positional steps: an element added before any of them moves the path"
        ));
    }
    let generated: Vec<&str> = literals(s).filter(|v| looks_generated(v)).collect();
    if let Some(value) = generated.first() {
        return Some(format!(
            "it tests '{value}', a value that looks generated and changes with the site's next build"
        ));
    }
    None
}

/// How many steps carry a numeric position predicate (`[3]`).
fn positional_steps(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < bytes.len() && bytes[j] == b']' {
                count += 1;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    count
}

/// The string literals of an expression, quotes removed; class tests'
/// padding spaces are trimmed.
fn literals(s: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find(['\'', '"']) {
        let quote = rest.as_bytes()[start] as char;
        let after = &rest[start + 1..];
        let Some(end) = after.find(quote) else {
            break;
        };
        let value = after[..end].trim();
        if !value.is_empty() {
            out.push(value);
        }
        rest = &after[end + 1..];
    }
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(xpath: &str, brittle: bool) {
        assert_eq!(
            brittleness(xpath).is_some(),
            brittle,
            "{xpath}: {:?}",
            brittleness(xpath)
        );
    }

    #[test]
    fn absolute_positional_paths_are_brittle() {
        check("/html/body/div[3]/ul/li[2]/span", true);
        check("/html/body/h1", true);
        check("//div[2]/div[1]/ul/li[4]", true);
    }

    #[test]
    fn generated_values_are_brittle() {
        check("//div[@class='css-1x9f3kq']//span", true);
        check("//span[@id='ember1234']", true);
    }

    #[test]
    fn anchored_paths_are_robust() {
        check("//h1[@itemprop='name']", false);
        check("//li[b[normalize-space(.)='ISBN-13:']]/span", false);
        check(
            ".//p[contains(concat(' ', normalize-space(@class), ' '), ' price ')]",
            false,
        );
        check("//ul[@class='details']/li[2]", false);
        check("./h3/a/@href", false);
    }

    #[test]
    fn any_text_is_read_without_panicking() {
        for s in ["", "[", "'", "[12", "\"unterminated", "/[]]]"] {
            let _ = brittleness(s);
        }
    }
}
