//! The project's own source files, for the tests that check them as text
//! (the core's purity, the module layers, the groups of ignored tests).

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`, in a stable order; `skip_test_dirs` leaves
/// out the folders named `tests` (test modules of `src`) and what is in them.
pub fn rust_files(dir: &Path, skip_test_dirs: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !(skip_test_dirs && path.file_name().is_some_and(|n| n == "tests")) {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether `path` is a file of test modules by its name (`tests.rs`,
/// `*_tests.rs`).
pub fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs")
}
