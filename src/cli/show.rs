//! `mend show ID`: one adaptation in full, with what approving it would do.
//!
//! Besides the record (pattern, status, decision, scores, every candidate,
//! samples, constraint results), it shows two things a reviewer needs:
//!
//! - the change to the wrapper file, as a unified diff: the file the run
//!   used, read as it is now, with the pattern's XPath replaced as `mend
//!   approve` would replace it (the old XPath goes to the pattern's
//!   history);
//! - the sub-trees the old and the new XPath match on the stored snapshot of
//!   the page, the first few of each. A nested pattern (`book/price`) is
//!   evaluated in every instance of its parents, which are taken from the
//!   wrapper file as it is now.
//!
//! What cannot be shown (no snapshot kept, the wrapper file moved or changed
//! since) is said in a note; it is not an error.
//!
//! ## What it refuses
//!
//! It exits 2 for a `TAG:ID` of another store, an id the store does not
//! hold, and a store that is missing, not a mend store, or one of two that
//! could be meant; a store that cannot be read, or holds no run for the
//! adaptation, is exit 3. It decides nothing. Of each XPath it shows the
//! first [`SHOWN_MATCHES`] matches, each cut to [`MATCH_LINES`] lines and
//! [`MATCH_CHARS`] characters, in the JSON as in the text; an XPath that
//! fails on the stored page is a note.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::{Value as Json, json};

use mend::dom::Document;
use mend::review::preview;
use mend::review::{Inspection, Side};
use mend::store::{AdaptationRecord, AdaptationRef, Store};
use mend::xpath::{Item, XML_NAMESPACE};

use super::review::score;
use super::review::{self, StoreArg};

/// Show one adaptation in full: the record, the wrapper diff, the matched sub-trees.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
pub struct Args {
    /// The adaptation's id, as `mend log` lists it, or as TAG:ID (the
    /// store's tag and the id, as a run's output names them).
    id: AdaptationRef,
    /// Print the record as JSON, with "yaml_diff", "matched" and "notes".
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArg,
}

/// How many matches of each XPath are shown.
const SHOWN_MATCHES: usize = 3;
/// The most lines of one match's HTML shown.
const MATCH_LINES: usize = 40;
/// The most characters of one match's HTML shown.
const MATCH_CHARS: usize = 2_000;

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (store, path) = match review::open_store(&args.store) {
        Ok(opened) => opened,
        Err(code) => return Ok(code),
    };
    let id = match review::own_id(&store, &path, &args.id) {
        Ok(id) => id,
        Err(code) => return Ok(code),
    };
    let record = match review::adaptation(&store, &path, id) {
        Ok(record) => record,
        Err(code) => return Ok(code),
    };
    let review = match Review::gather(&store, &path, &record) {
        Ok(review) => review,
        Err(code) => return Ok(code),
    };
    let mut out = BufWriter::new(super::stdout::Stdout::new());
    if args.json {
        let json = review.to_json(&record).context("writing the record")?;
        serde_json::to_writer_pretty(&mut out, &json).context("writing the record")?;
        writeln!(out)?;
    } else {
        review.write_text(&record, &mut out)?;
    }
    out.flush().context("writing the record")?;
    Ok(ExitCode::SUCCESS)
}

/// What `show` adds to the record: the library's inspection, and the
/// matches of the old and new XPath on the stored page.
struct Review {
    inspection: Inspection,
    /// What the old XPath matches on the page.
    before: Option<Matched>,
    /// What the new XPath matches on the page.
    after: Option<Matched>,
    /// The inspection's notes, then what `show` could not show.
    notes: Vec<String>,
}

/// The first few matches of an XPath, and how many there were.
struct Matched {
    total: usize,
    shown: Vec<Shown>,
}

/// One match: its canonical path and its HTML, cut to a readable size.
struct Shown {
    path: String,
    html: String,
}

impl Review {
    fn gather(
        store: &Store,
        store_path: &Path,
        record: &AdaptationRecord,
    ) -> Result<Review, ExitCode> {
        let mut inspection =
            mend::review::inspect(store, store_path, record).map_err(|e| review::report(&e))?;
        let mut notes = std::mem::take(&mut inspection.notes);
        let (mut before, mut after) = (None, None);
        let html = store
            .page_html(record.page_id)
            .map_err(|e| review::store_failure(&e))?;
        match (html, &inspection.parents) {
            (None, _) => notes.push(format!(
                "no snapshot of page {} was kept, so no matches can be shown",
                record.page_id
            )),
            (Some(_), None) => {}
            (Some(html), Some(parents)) => {
                let doc = Document::parse(&html);
                let mut matches = |which: &str, side: Side, source: &str| {
                    parents
                        .select(&doc, side, source)
                        .map(|items| show_matches(&doc, &items))
                        .map_err(|e| notes.push(format!("the {which} XPath {e}")))
                        .ok()
                };
                before = matches("old", Side::Old, &record.old_xpath);
                after = record
                    .new_xpath
                    .as_deref()
                    .and_then(|new| matches("new", Side::New, new));
            }
        }
        Ok(Review {
            inspection,
            before,
            after,
            notes,
        })
    }

    fn to_json(&self, record: &AdaptationRecord) -> serde_json::Result<Json> {
        let mut json = serde_json::to_value(record)?;
        let matched = |m: &Option<Matched>| match m {
            None => Json::Null,
            Some(m) => Json::Array(
                m.shown
                    .iter()
                    .map(|s| json!({"path": s.path, "html": s.html}))
                    .collect(),
            ),
        };
        let total = |m: &Option<Matched>| m.as_ref().map(|m| m.total);
        if let Some(object) = json.as_object_mut() {
            object.insert(
                "wrapper_path".into(),
                json!(self.inspection.recorded_wrapper.to_string_lossy()),
            );
            object.insert("page".into(), json!(self.inspection.page));
            object.insert("yaml_diff".into(), json!(self.inspection.yaml_diff));
            object.insert(
                "matched".into(),
                json!({
                    "before": matched(&self.before),
                    "after": matched(&self.after),
                    "before_total": total(&self.before),
                    "after_total": total(&self.after),
                }),
            );
            object.insert("preview".into(), json!(self.inspection.preview));
            let pending: Vec<Json> = self
                .inspection
                .pending_parents
                .iter()
                .map(|(pattern, id)| json!({"pattern": pattern, "adaptation": id.0}))
                .collect();
            object.insert("pending_parents".into(), Json::Array(pending));
            object.insert("notes".into(), json!(self.notes));
        }
        Ok(json)
    }

    fn write_text(&self, r: &AdaptationRecord, out: &mut impl Write) -> io::Result<()> {
        self.write_fields(r, out)?;
        write_scores(r, out)?;
        write_evidence(r, out)?;
        self.write_change(out)?;
        self.write_preview_and_notes(out)
    }

    /// The adaptation's state, where it happened and its decisions.
    fn write_fields(&self, r: &AdaptationRecord, out: &mut impl Write) -> io::Result<()> {
        // The state leads; what the run did follows when it says more.
        let state = if r.is_pending() {
            "proposed, pending".to_owned()
        } else if r.state.as_str() == r.status.as_str() {
            r.state.to_string()
        } else {
            format!("{}; the run {}", r.state, r.status)
        };
        writeln!(out, "adaptation {} ({state})", r.id)?;
        field(out, "pattern", &r.pattern)?;
        field(
            out,
            "wrapper",
            &format!(
                "{} ({})",
                r.wrapper,
                self.inspection.recorded_wrapper.display()
            ),
        )?;
        field(out, "run", &r.run_id)?;
        let page = self.inspection.page.as_deref().unwrap_or("?");
        field(out, "page", &format!("{} ({page})", r.page_id))?;
        field(out, "created", &r.created_at)?;
        match &r.decision {
            Some(d) => {
                let by_why = by_why(d.by.as_deref(), d.reason.as_deref());
                let decided = format!("{} at {}{by_why}", d.verdict, d.decided_at);
                field(out, "decision", &decided)?;
            }
            None if r.is_pending() => field(out, "decision", &"none yet (pending)")?,
            None => field(out, "decision", &"-")?,
        }
        for revert in &r.reverts {
            let by_why = by_why(revert.by.as_deref(), revert.reason.as_deref());
            field(
                out,
                "reverted",
                &format!("at {}{by_why}", revert.reverted_at),
            )?;
        }
        Ok(())
    }

    /// The wrapper change and what the old and new XPaths match.
    fn write_change(&self, out: &mut impl Write) -> io::Result<()> {
        if let Some(diff) = &self.inspection.yaml_diff {
            let file = self
                .inspection
                .wrapper_file
                .as_deref()
                .unwrap_or(&self.inspection.recorded_wrapper);
            writeln!(out, "\nwrapper change ({})", file.display())?;
            out.write_all(diff.as_bytes())?;
            if !diff.ends_with('\n') {
                writeln!(out)?;
            }
        }
        for (name, matched) in [("old", &self.before), ("new", &self.after)] {
            let Some(m) = matched else { continue };
            let shown = if m.total > m.shown.len() {
                format!(", the first {} shown", m.shown.len())
            } else {
                String::new()
            };
            let s = if m.total == 1 { "" } else { "es" };
            writeln!(
                out,
                "\nmatched by the {name} XPath ({} match{s}{shown})",
                m.total
            )?;
            for item in &m.shown {
                writeln!(out, "  {}", item.path)?;
                for line in item.html.lines() {
                    writeln!(out, "    {line}")?;
                }
            }
        }
        Ok(())
    }

    /// The parents that wait, the new XPath on the stored pages, the notes.
    fn write_preview_and_notes(&self, out: &mut impl Write) -> io::Result<()> {
        for (pattern, id) in &self.inspection.pending_parents {
            writeln!(
                out,
                "\nits parent {pattern} was adapted on this page too and waits (adaptation {}): \
                 the preview uses the wrapper file's parent XPath; decide the parent first",
                id.0
            )?;
        }
        if let Some(pages) = &self.inspection.preview {
            writeln!(
                out,
                "\nthe new XPath on the stored pages ({})",
                preview::tally(pages)
            )?;
            for p in pages {
                writeln!(out, "  {:<15} {:>5}  {}", p.effect.as_str(), p.page, p.name)?;
                if let Some(v) = &p.values {
                    writeln!(out, "  {:<15} {:>5}  {} -> {}", "", "", v.old, v.new)?;
                }
            }
        }
        if !self.notes.is_empty() {
            writeln!(out, "\nnotes")?;
            for note in &self.notes {
                let mut lines = note.lines();
                if let Some(first) = lines.next() {
                    writeln!(out, "  - {first}")?;
                }
                for line in lines {
                    writeln!(out, "    {line}")?;
                }
            }
        }
        Ok(())
    }
}

/// One labelled line of the text form.
fn field(out: &mut dyn Write, name: &str, value: &dyn std::fmt::Display) -> io::Result<()> {
    writeln!(out, "  {name:<11}{value}")
}

/// " by WHO: WHY", as much of it as is known.
fn by_why(by: Option<&str>, reason: Option<&str>) -> String {
    let by = by.map(|b| format!(" by {b}")).unwrap_or_default();
    let why = reason.map(|r| format!(": {r}")).unwrap_or_default();
    format!("{by}{why}")
}

/// The algorithm, the scores, the model and the XPaths.
fn write_scores(r: &AdaptationRecord, out: &mut impl Write) -> io::Result<()> {
    field(out, "algorithm", &r.algorithm.as_deref().unwrap_or("-"))?;
    let margin = match (r.score, r.runner_up) {
        (Some(s), Some(u)) => format!(" (margin {:.3})", s - u),
        _ => String::new(),
    };
    field(
        out,
        "score",
        &format!(
            "{}, runner-up {}{margin}",
            score(r.score),
            score(r.runner_up)
        ),
    )?;
    if let Some(model) = &r.model {
        let confidence = r
            .confidence
            .map(|c| format!(", confidence {c:.3}"))
            .unwrap_or_default();
        field(out, "model", &format!("{model}{confidence}"))?;
    }
    if let Some(reason) = &r.reason {
        field(out, "reason", reason)?;
    }
    field(out, "old xpath", &r.old_xpath)?;
    field(
        out,
        "new xpath",
        &r.new_xpath.as_deref().unwrap_or("(none)"),
    )?;

    Ok(())
}

/// The candidates, the samples before and after, and the constraints.
fn write_evidence(r: &AdaptationRecord, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "\ncandidates ({})", r.candidates.len())?;
    let width = r
        .candidates
        .iter()
        .map(|c| c.algorithm.chars().count())
        .max();
    for c in &r.candidates {
        let width = width.unwrap_or(0);
        writeln!(
            out,
            "  {:.3}  {:<width$}  {}",
            c.score, c.algorithm, c.xpath
        )?;
    }
    for (name, samples) in [("before", &r.samples_before), ("after", &r.samples_after)] {
        writeln!(out, "\nsamples {name} ({})", samples.len())?;
        for sample in samples {
            writeln!(out, "  {sample}")?;
        }
    }
    writeln!(out, "\nconstraints ({})", r.constraint_results.len())?;
    for c in &r.constraint_results {
        let mark = if c.passed { "ok  " } else { "FAIL" };
        writeln!(out, "  {mark}  {:<10} {}", c.constraint, c.detail)?;
    }

    Ok(())
}

/// The first few of `items` shown, and how many there were.
fn show_matches(doc: &Document, items: &[Item]) -> Matched {
    Matched {
        total: items.len(),
        shown: items
            .iter()
            .take(SHOWN_MATCHES)
            .map(|&item| Shown {
                path: item.path(doc),
                html: cut(&dedent(&item_html(doc, item)), MATCH_LINES, MATCH_CHARS),
            })
            .collect(),
    }
}

/// The HTML of an item: an element's or text's own serialisation, an
/// attribute as `name="value"`.
fn item_html(doc: &Document, item: Item) -> String {
    match item {
        Item::Node(node) => doc.outer_html(node),
        Item::Attr { index, .. } => {
            let attr = doc.attr_at(index as usize);
            let value = doc
                .attr_value(attr)
                .replace('&', "&amp;")
                .replace('"', "&quot;");
            format!("{}=\"{value}\"", doc.attr_name(attr))
        }
        Item::Namespace(_) => XML_NAMESPACE.to_owned(),
    }
}

/// An element's HTML with the page's indentation taken off: its first line
/// starts where the element does, so the lines after it lose the
/// indentation they share.
fn dedent(html: &str) -> String {
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let common = html
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(indent)
        .min()
        .unwrap_or(0);
    let mut out = String::with_capacity(html.len());
    for (i, line) in html.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(line.get(common.min(indent(line))..).unwrap_or(line));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `text` cut to at most `lines` lines and `chars` characters, with a line
/// saying how much was left out.
fn cut(text: &str, lines: usize, chars: usize) -> String {
    let mut out = String::new();
    let mut room = chars;
    let mut cut = false;
    for (i, line) in text.lines().enumerate() {
        if i == lines || room == 0 {
            cut = true;
            break;
        }
        if i > 0 {
            out.push('\n');
        }
        let len = line.chars().count();
        if len > room {
            out.extend(line.chars().take(room));
            room = 0;
            cut = true;
        } else {
            out.push_str(line);
            room -= len;
        }
    }
    if cut {
        let total_lines = text.lines().count();
        let s = if total_lines == 1 { "" } else { "s" };
        out.push_str(&format!(
            "\n… (cut: {total_lines} line{s}, {} characters in all)",
            text.chars().count()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mend::review::Parents;

    #[test]
    fn attributes_show_as_name_and_value() {
        let doc = Document::parse_str("<a href='/b?x=1&amp;y=\"2\"'>b</a>");
        let items = Parents::default()
            .select(&doc, Side::Old, "//a/@href")
            .unwrap();
        assert_eq!(
            item_html(&doc, items[0]),
            "href=\"/b?x=1&amp;y=&quot;2&quot;\""
        );
    }

    #[test]
    fn the_pages_indentation_is_taken_off() {
        assert_eq!(
            dedent("<div>\n        <p>1</p>\n\n        <p>2</p>\n      </div>"),
            "<div>\n  <p>1</p>\n\n  <p>2</p>\n</div>"
        );
        assert_eq!(dedent("<p>1</p>"), "<p>1</p>");
    }

    #[test]
    fn long_html_is_cut_by_lines_and_characters() {
        assert_eq!(cut("a\nb", 40, 2_000), "a\nb");
        let many = (0..50)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let shown = cut(&many, 3, 2_000);
        assert_eq!(shown, "0\n1\n2\n… (cut: 50 lines, 139 characters in all)");
        assert_eq!(
            cut("abcdef", 40, 4),
            "abcd\n… (cut: 1 line, 6 characters in all)"
        );
        assert_eq!(cut("abcd", 40, 4), "abcd");
    }
}
