//! `mend xpath PAGE EXPR`: evaluate an XPath expression on a page and print the result.
//!
//! PAGE is a file (gunzipped when its name ends in `.gz`) or `-` for standard
//! input. With `--json` a node-set prints as `{"nodes":[{"path":…,"value":…}]}`
//! and any other result as `{"value":…}` (NaN and the infinities as strings);
//! without it, one line per node (canonical path, a tab, the string-value with
//! line breaks escaped) or the value itself. `--exprs FILE` evaluates one
//! expression per line of FILE, printing one result per line; an expression
//! that fails prints `{"error":…}` and the batch goes on. `--robust` prints,
//! instead of the nodes EXPR selects, the XPath that mend's generator writes
//! for exactly those nodes (the locator a heal would write), then its
//! verified alternatives, one per line; with `--json`,
//! `{"xpath":…,"alternatives":[…],"fallback":…,"count":…}`.
//!
//! `--css` reads EXPR (and each line of `--exprs`) as a CSS selector,
//! translated to XPath as parsel translates it (`mend::css`), `::text` and
//! `::attr(name)` included. `--html` prints each element's outer HTML
//! instead of its string-value (a text or attribute node prints its value),
//! as parsel's `.get()` does; with `--json` each node gains `"html"`.
//!
//! ## What it refuses
//!
//! An expression that selects no node says so on standard error and exits
//! 1, so that a script can tell "nothing" from an empty value. An
//! expression (or CSS selector) that does not compile or fails to evaluate
//! is exit 2, with the column it went wrong at;
//! under `--exprs` it prints an error line instead and the batch goes on to
//! exit 0. A page or FILE that cannot be read is exit 3, and so is
//! `--robust` when EXPR selects no nodes or no locator can be made; it asks
//! for at most 8 alternatives. The human form cuts each string-value at
//! [`HUMAN_VALUE_CHARS`] characters; JSON cuts nothing.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args as ClapArgs;
use serde_json::{Map, Value as Json, json};

use mend::dom::{Document, NodeId};
use mend::xpath::{Item, Value, XPath, number_to_string};

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};

/// Evaluate an XPath 1.0 expression on a page.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The page: an HTML file (gzipped if it ends in .gz), or - for standard input.
    page: String,
    /// The expression, evaluated with the document node as context.
    #[arg(
        required_unless_present = "exprs",
        conflicts_with = "exprs",
        allow_hyphen_values = true
    )]
    expr: Option<String>,
    /// Evaluate every line of FILE as an expression (batch mode).
    #[arg(long, value_name = "FILE")]
    exprs: Option<PathBuf>,
    /// Print a robust XPath that selects exactly the nodes EXPR selects,
    /// made by mend's generator, instead of the nodes.
    #[arg(long, conflicts_with = "exprs")]
    robust: bool,
    /// Print results as JSON.
    #[arg(long)]
    json: bool,
    /// Read EXPR (and the lines of --exprs) as CSS selectors, translated as
    /// parsel does, with ::text and ::attr(name).
    #[arg(long)]
    css: bool,
    /// Print each element's outer HTML instead of its string-value.
    #[arg(long, conflicts_with = "robust")]
    html: bool,
}

/// The exit code of an expression that selects no node.
const EXIT_NOTHING: u8 = 1;

/// How results are printed.
#[derive(Clone, Copy, Debug)]
struct Form {
    json: bool,
    html: bool,
}

/// Longest string-value shown per node in the human form, in characters.
const HUMAN_VALUE_CHARS: usize = 200;

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let doc = match mend::fetch::load_document(&args.page) {
        Ok(doc) => doc,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    let mut out = BufWriter::new(super::stdout::Stdout::new());
    let form = Form {
        json: args.json,
        html: args.html,
    };
    let code = match (&args.expr, &args.exprs) {
        (Some(expr), _) if args.robust => robust(&doc, expr, args.css, args.json, &mut out)?,
        (Some(expr), _) => single(&doc, expr, args.css, form, &mut out)?,
        (None, Some(file)) => {
            let text = match std::fs::read_to_string(file) {
                Ok(t) => t,
                Err(e) => {
                    say!("error: cannot read {}: {e}", file.display());
                    return Ok(ExitCode::from(EXIT_FAILURE));
                }
            };
            batch(&doc, &text, args.css, form, &mut out)?;
            ExitCode::SUCCESS
        }
        (None, None) => ExitCode::from(EXIT_BAD_INPUT),
    };
    out.flush().context("writing the result")?;
    Ok(code)
}

/// Why an expression did not compile: the message and the column (in
/// characters, from 0) it points at.
type CompileError = (String, usize);

/// Compiles `expr`, translated first when it is a CSS selector.
fn compile(expr: &str, css: bool) -> Result<XPath, CompileError> {
    let source = match css {
        true => mend::css::to_xpath(expr).map_err(|e| (e.message, e.column - 1))?,
        false => expr.to_owned(),
    };
    XPath::compile(&source).map_err(|e| match css {
        // A translation that does not compile is mend's fault, not the
        // selector's: say what it was.
        true => (format!("{} in the translation {source}", e.message), 0),
        false => (e.message, column(expr, e.position)),
    })
}

fn single(
    doc: &Document,
    expr: &str,
    css: bool,
    form: Form,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let xpath = match compile(expr, css) {
        Ok(x) => x,
        Err((message, at)) => {
            say!("error: {message}");
            say!("  {expr}");
            say!("  {}^", " ".repeat(at));
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    };
    match xpath.evaluate(doc, NodeId::ROOT) {
        Ok(v) => {
            if form.json {
                writeln!(out, "{}", to_json(doc, &v, form.html))?;
            } else {
                write_human(doc, &v, form.html, out)?;
            }
            if matches!(&v, Value::Nodes(items) if items.is_empty()) {
                say!("mend: the expression selects no node");
                return Ok(ExitCode::from(EXIT_NOTHING));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            say!("error: {e}");
            Ok(ExitCode::from(EXIT_BAD_INPUT))
        }
    }
}

/// Prints the generated locator of the nodes `expr` selects.
fn robust(
    doc: &Document,
    expr: &str,
    css: bool,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let items = match compile(expr, css).map_err(|(m, _)| m).and_then(|x| {
        x.select_item(doc, mend::xpath::Item::Node(NodeId::ROOT))
            .map_err(|e| e.message)
    }) {
        Ok(items) => items,
        Err(m) => {
            say!("error: {m}");
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    };
    if items.is_empty() {
        say!("error: the expression selects no nodes, so there is nothing to locate");
        return Ok(ExitCode::from(EXIT_FAILURE));
    }
    let options = mend::xpath::generate::GenerateOptions {
        max_alternatives: 8,
        ..Default::default()
    };
    let generated = match mend::xpath::generate::generate(
        doc,
        mend::xpath::Item::Node(NodeId::ROOT),
        &items,
        &options,
    ) {
        Ok(g) => g,
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    if json {
        let j = json!({
            "xpath": generated.xpath,
            "alternatives": generated.alternatives,
            "fallback": generated.fallback,
            "count": items.len(),
        });
        writeln!(out, "{j}")?;
    } else {
        writeln!(out, "{}", generated.xpath)?;
        for alternative in &generated.alternatives {
            writeln!(out, "{alternative}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn batch(
    doc: &Document,
    text: &str,
    css: bool,
    form: Form,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let result = compile(line, css)
            .map_err(|(m, at)| format!("{m} at column {}", at + 1))
            .and_then(|x| x.evaluate(doc, NodeId::ROOT).map_err(|e| e.message));
        if form.json {
            let j = match &result {
                Ok(v) => to_json(doc, v, form.html),
                Err(m) => json!({ "error": m }),
            };
            writeln!(out, "{j}")?;
        } else {
            writeln!(out, "# {line}")?;
            match &result {
                Ok(v) => write_human(doc, v, form.html, out)?,
                Err(m) => writeln!(out, "error: {m}")?,
            }
        }
    }
    Ok(())
}

/// The character column of a byte offset, for placing the caret.
fn column(s: &str, byte: usize) -> usize {
    s.char_indices().take_while(|&(i, _)| i < byte).count()
}

fn to_json(doc: &Document, v: &Value, html: bool) -> Json {
    let mut obj = Map::new();
    match v {
        Value::Nodes(items) => {
            let nodes: Vec<Json> = items
                .iter()
                .map(|i| {
                    let mut node = json!({ "path": i.path(doc), "value": i.string_value(doc) });
                    if html {
                        node["html"] = outer_html(doc, *i).into();
                    }
                    node
                })
                .collect();
            obj.insert("nodes".into(), Json::Array(nodes));
        }
        Value::String(s) => {
            obj.insert("value".into(), Json::String(s.clone()));
        }
        Value::Boolean(b) => {
            obj.insert("value".into(), Json::Bool(*b));
        }
        Value::Number(n) => {
            let j = match serde_json::Number::from_f64(*n) {
                Some(num) if n.fract() != 0.0 || n.abs() >= 1e15 => Json::Number(num),
                Some(_) => json!(*n as i64),
                None => Json::String(number_to_string(*n)),
            };
            obj.insert("value".into(), j);
        }
    }
    Json::Object(obj)
}

fn write_human(doc: &Document, v: &Value, html: bool, out: &mut impl Write) -> io::Result<()> {
    match v {
        Value::Nodes(items) if html => {
            for i in items {
                writeln!(out, "{}", outer_html(doc, *i))?;
            }
            Ok(())
        }
        Value::Nodes(items) => {
            for i in items {
                writeln!(out, "{}\t{}", i.path(doc), escape(&i.string_value(doc)))?;
            }
            Ok(())
        }
        other => writeln!(out, "{}", other.to_string_value(doc)),
    }
}

/// An element's outer HTML; any other node's value, as parsel's `.get()`
/// gives it.
fn outer_html(doc: &Document, item: Item) -> String {
    match item {
        Item::Node(node) if doc.is_element(node) => doc.outer_html(node),
        other => other.string_value(doc),
    }
}

/// A value on one line: line breaks and tabs escaped, long values cut with an ellipsis.
fn escape(s: &str) -> String {
    let mut out = String::new();
    for (count, c) in s.chars().enumerate() {
        if count >= HUMAN_VALUE_CHARS {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}
