//! Diagnostics: one problem in a wrapper file, located at a line and column.
//!
//! A diagnostic is plain data that renders like a compiler message, so the
//! same value serves the command line, tests and (later) the review UI. It
//! refuses nothing: any text can be reported, and a location past the end of
//! the file renders without a source line rather than failing.

use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The wrapper cannot be used until this is fixed.
    Error,
    /// The wrapper loads, but probably does not do what its author meant.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One problem in a wrapper file.
///
/// `Display` prints `file:line:column: error: message`, then the source line
/// and a caret under the column, as compilers do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file name as given to the loader, used only in messages.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// Whether this stops the wrapper from loading.
    pub severity: Severity,
    /// What is wrong, as one sentence in the user's terms.
    pub message: String,
    /// What would have been accepted there, for tools; the message already says it.
    pub expected: Option<String>,
    /// The source line the diagnostic points into, without its line break.
    pub snippet: String,
}

impl Diagnostic {
    /// An error at `line`:`column` of `source`, taking the snippet from the source.
    pub fn error(
        file: &str,
        source: &str,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            file: file.to_owned(),
            line,
            column,
            severity: Severity::Error,
            message: message.into(),
            expected: None,
            snippet: source_line(source, line).to_owned(),
        }
    }

    /// A warning at `line`:`column` of `source`.
    pub fn warning(
        file: &str,
        source: &str,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, source, line, column, message)
        }
    }

    /// Records what would have been accepted.
    pub fn with_expected(mut self, expected: impl Into<String>) -> Diagnostic {
        self.expected = Some(expected.into());
        self
    }

    /// Whether this diagnostic stops the wrapper from loading.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The text of 1-based line `line`, or "" when there is no such line.
fn source_line(source: &str, line: usize) -> &str {
    let text = source.lines().nth(line.saturating_sub(1)).unwrap_or("");
    text.strip_suffix('\r').unwrap_or(text)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.column, self.severity, self.message
        )?;
        if self.snippet.is_empty() {
            return Ok(());
        }
        let gutter = self.line.to_string();
        let pad = " ".repeat(gutter.len());
        // The caret keeps the tabs of the source line, so it lines up in a
        // terminal whatever the tab width; other characters become spaces.
        let lead: String = self
            .snippet
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(f, "\n{pad} |\n{gutter} | {}\n{pad} | {lead}^", self.snippet)
    }
}

/// Renders a list of diagnostics separated by blank lines, as `mend validate` prints them.
pub fn render_all(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n\n")
}
