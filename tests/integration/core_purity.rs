//! ARCHITECTURE.md's first invariant, checked on the source: the pure core
//! does no I/O, uses no async, reads no clock and imports nothing that sits
//! on top of it. Each core module's files are read up to their first
//! `#[cfg(test)]` (tests may read fixtures), and test files are skipped.

use std::path::Path;

use crate::support::source::{is_test_file, rust_files};

/// The core modules (ARCHITECTURE.md, invariant 1).
const CORE: &[&str] = &[
    "dom",
    "xpath",
    "css",
    "similarity",
    "wrapper",
    "treegram",
    "site_template",
    "unstable",
    "extract",
    "adapt",
    "health",
    "site",
];

/// What the core may not name: I/O, the network, clocks, the environment,
/// async runtimes and the storage and fetching crates, and the modules
/// above it.
const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "Instant::now",
    "SystemTime",
    "tokio",
    "reqwest",
    "rusqlite",
    "chromiumoxide",
    "crate::fetch",
    "crate::render",
    "crate::crawl",
    "crate::cluster",
    "crate::job",
    "crate::store",
    "crate::runtime",
    "crate::review",
    "crate::cli",
];

/// The exception ARCHITECTURE.md names, by file and what it may use:
/// reading a wrapper file (`wrapper::load_file`).
const ALLOWED: &[(&str, &str)] = &[("src/wrapper/mod.rs", "std::fs")];

#[test]
fn the_core_names_no_io_clock_or_module_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for module in CORE {
        files.extend(rust_files(&root.join("src").join(module), true));
        let single = root.join("src").join(format!("{module}.rs"));
        if single.is_file() {
            files.push(single);
        }
    }
    assert!(files.len() > 50, "only {} core files found", files.len());
    let mut found = Vec::new();
    for path in files.iter().filter(|p| !is_test_file(p)) {
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let relative = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for (line_no, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            for name in FORBIDDEN {
                let allowed = ALLOWED.iter().any(|&(f, n)| f == relative && n == *name);
                if line.contains(name) && !allowed {
                    found.push(format!("{relative}:{}: {name}: {line}", line_no + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the core names what it may not:\n{}",
        found.join("\n")
    );
}
