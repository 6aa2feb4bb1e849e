//! `mend history WRAPPER` lists the wrapper's versions (each change the
//! wrapper-change protocol journaled: snapshots, heals, approvals, reverts,
//! hardenings) and the versions of its pages (the pages its tree-grams were
//! captured on, the pages heals and proposals were found on), with their
//! times; `mend diff WRAPPER A B` compares two of them: the YAML diff of two
//! wrapper versions (`w7`, `w0` for the file before the first change), or a
//! structural summary of two pages (`p` and a prefix of the SHA-256). Both
//! print over `mend::review::history`.
//!
//! ## What it refuses
//!
//! Both exit 2 for a wrapper that is invalid or missing and for a store
//! that does not exist (neither creates one) or is not a mend store; a
//! history the store cannot give is exit 3. `mend diff` exits 2 for two
//! versions of different kinds (or of neither kind), a name `mend history`
//! does not list, and a page prefix that names several pages; a page the
//! store no longer keeps is exit 3. `--json` is for pages only: a wrapper
//! diff is always a unified diff.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{EXIT_BAD_INPUT, EXIT_FAILURE, load_wrapper};
use mend::dom::Document;
use mend::review::history::{self, History};
use mend::store::Store;

/// Lists the wrapper's versions and its pages' versions.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The wrapper file (YAML).
    pub wrapper: PathBuf,
    /// The store (default: $MEND_STORE, else `.mend/mend.db` beside the wrapper).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// Compares two versions of the wrapper, or two versions of its pages.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The wrapper file (YAML).
    pub wrapper: PathBuf,
    /// A version as `mend history` names it: `w7` (a wrapper version) or
    /// `p3fa9c2` (a page, by a prefix of its SHA-256).
    pub a: String,
    /// The other version, of the same kind.
    pub b: String,
    /// The store (default: $MEND_STORE, else `.mend/mend.db` beside the wrapper).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Print JSON (pages only; a wrapper diff is a unified diff).
    #[arg(long)]
    pub json: bool,
}

/// The history of the wrapper at `path`, or the exit code that says why not.
fn load(
    path: &std::path::Path,
    store: Option<&std::path::Path>,
) -> Result<(History, Store), ExitCode> {
    let wrapper = load_wrapper(path)?;
    let canonical = match path.canonicalize() {
        Ok(c) => c,
        Err(e) => {
            say!("error: {}: {e}", path.display());
            return Err(ExitCode::from(EXIT_BAD_INPUT));
        }
    };
    let store_path = super::store_for(store, path);
    if !store_path.exists() {
        say!(
            "error: no store at {}: the wrapper has no history yet (mend snapshot starts it)",
            store_path.display()
        );
        return Err(ExitCode::from(EXIT_BAD_INPUT));
    }
    let store = match Store::open(&store_path) {
        Ok(s) => s,
        Err(e) => return Err(super::review::store_failure(&e)),
    };
    match history::history(&store, &canonical, &wrapper.name) {
        Ok(h) => Ok((h, store)),
        Err(e) => {
            say!("error: {e}");
            Err(ExitCode::from(EXIT_FAILURE))
        }
    }
}

/// Runs `mend history`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (h, _) = match load(&args.wrapper, args.store.as_deref()) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    if args.json {
        out!("{}", serde_json::to_string_pretty(&h)?);
        return Ok(ExitCode::SUCCESS);
    }
    out!("wrapper versions of {}:", args.wrapper.display());
    if h.wrapper_versions.is_empty() {
        out!("  (none: no change was journaled yet)");
    }
    for v in &h.wrapper_versions {
        let xpaths: Vec<String> = v
            .xpaths
            .iter()
            .map(|(p, x)| format!("{p} -> {x}"))
            .collect();
        out!(
            "  {:<6} {}  {:<8} {:<11} {}",
            v.name,
            v.at,
            v.kind,
            v.state,
            if xpaths.is_empty() {
                format!("{} other file(s)", v.files.len())
            } else {
                xpaths.join("; ")
            }
        );
    }
    out!("page versions:");
    if h.page_versions.is_empty() {
        out!("  (none)");
    }
    for p in &h.page_versions {
        out!(
            "  {}  {}  {:<20} {}  ({})",
            p.name,
            p.at,
            p.roles.join("+"),
            p.page,
            p.patterns.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `mend diff`.
pub fn diff(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let (h, store) = match load(&args.wrapper, args.store.as_deref()) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let bad = |why: String| {
        say!("error: {why}");
        Ok(ExitCode::from(EXIT_BAD_INPUT))
    };
    match (args.a.chars().next(), args.b.chars().next()) {
        (Some('w'), Some('w')) => {
            let (Some(a), Some(b)) = (h.wrapper_version(&args.a), h.wrapper_version(&args.b))
            else {
                return bad(format!(
                    "no wrapper version {} (mend history lists them)",
                    if h.wrapper_version(&args.a).is_none() {
                        &args.a
                    } else {
                        &args.b
                    }
                ));
            };
            let diff = history::wrapper_diff(a, b, &args.wrapper);
            if diff.is_empty() {
                out!("{} and {} are the same", a.name, b.name);
            } else {
                out!("{}", diff.trim_end());
            }
            Ok(ExitCode::SUCCESS)
        }
        (Some('p'), Some('p')) => page_diff(&args, &h, &store),
        _ => bad(format!(
            "{} and {}: compare two wrapper versions (w...) or two pages (p...), as mend history names them",
            args.a, args.b
        )),
    }
}

/// `mend diff pA pB`: what changed between two kept pages.
fn page_diff(args: &DiffArgs, h: &History, store: &Store) -> anyhow::Result<ExitCode> {
    let bad = |why: String| {
        say!("error: {why}");
        Ok(ExitCode::from(EXIT_BAD_INPUT))
    };
    let mut pages = Vec::new();
    for name in [&args.a, &args.b] {
        match h.page_versions(name).as_slice() {
            [one] => pages.push((*one).clone()),
            [] => return bad(format!("no page version {name} (mend history lists them)")),
            many => {
                return bad(format!(
                    "{name} names {} pages; give more of the hash",
                    many.len()
                ));
            }
        }
    }
    let mut docs = Vec::new();
    for p in &pages {
        match store.kept_page(&p.sha256) {
            Ok(Some(bytes)) => docs.push(Document::parse(&bytes)),
            Ok(None) => {
                say!(
                    "error: the store no longer keeps the page {} ({})",
                    p.name,
                    p.page
                );
                return Ok(ExitCode::from(EXIT_FAILURE));
            }
            Err(e) => {
                say!("error: {e}");
                return Ok(ExitCode::from(EXIT_FAILURE));
            }
        }
    }
    let d = history::page_diff(&docs[0], &docs[1]);
    if args.json {
        out!("{}", serde_json::to_string_pretty(&d)?);
        return Ok(ExitCode::SUCCESS);
    }
    out!(
        "{} ({}) -> {} ({})",
        pages[0].name,
        pages[0].page,
        pages[1].name,
        pages[1].page
    );
    out!(
        "elements: {} -> {}; tree similarity (simple tree matching, tag and class): {:.3}",
        d.elements.0,
        d.elements.1,
        d.similarity
    );
    for (tag, x, y) in &d.tags {
        out!("  {tag}: {x} -> {y}");
    }
    if !d.ids_removed.is_empty() {
        out!("ids removed: {}", d.ids_removed.join(", "));
    }
    if !d.ids_added.is_empty() {
        out!("ids added: {}", d.ids_added.join(", "));
    }
    if !d.classes_removed.is_empty() {
        out!("classes removed: {}", d.classes_removed.join(", "));
    }
    if !d.classes_added.is_empty() {
        out!("classes added: {}", d.classes_added.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}
