//! Finding the browser to launch.
//!
//! ## What it refuses
//!
//! It takes only a file this user may execute (on Unix, one with an execute
//! bit); anything else is [`RenderError::NotFound`], with where it looked. A
//! browser given explicitly, or named by [`CHROMIUM_ENV`], is the only one
//! looked at: when it is not executable, no other is tried. An empty
//! `MEND_CHROMIUM` counts as unset, and empty entries of `PATH` are skipped.
//! It only looks: it runs nothing.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::RenderError;

/// The environment variable that names the browser, as a path or as a name
/// looked up on `PATH`. When it is set, it is the only place looked at: a
/// browser named wrongly is reported, not replaced by another.
pub const CHROMIUM_ENV: &str = "MEND_CHROMIUM";

/// The browser names looked up on `PATH`, in order.
const NAMES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// The browser mend renders with: the one `MEND_CHROMIUM` names, else the
/// first of `chromium`, `chromium-browser` and `google-chrome` on `PATH`;
/// `None` when there is none.
pub fn find_chromium() -> Option<PathBuf> {
    locate(None).ok()
}

/// The browser to launch: `explicit` when given, else as [`find_chromium`]
/// looks, with the reason when there is none.
pub(super) fn locate(explicit: Option<&Path>) -> Result<PathBuf, RenderError> {
    resolve(
        explicit,
        std::env::var_os(CHROMIUM_ENV).as_deref(),
        std::env::var_os("PATH").as_deref(),
    )
}

/// [`locate`] over the given environment, so that it can be tested.
fn resolve(
    explicit: Option<&Path>,
    env: Option<&OsStr>,
    path: Option<&OsStr>,
) -> Result<PathBuf, RenderError> {
    let not_found = |why: String| Err(RenderError::NotFound { why });
    if let Some(explicit) = explicit {
        return if is_executable(explicit) {
            Ok(explicit.to_path_buf())
        } else {
            not_found(format!("{} is not an executable file", explicit.display()))
        };
    }
    if let Some(named) = env.filter(|v| !v.is_empty()) {
        let named = Path::new(named);
        let found = if named.components().count() > 1 {
            Some(named.to_path_buf()).filter(|p| is_executable(p))
        } else {
            on_path(named.as_os_str(), path)
        };
        return match found {
            Some(found) => Ok(found),
            None => not_found(format!(
                "{CHROMIUM_ENV} names {}, which is not an executable file",
                named.display()
            )),
        };
    }
    match NAMES
        .iter()
        .find_map(|name| on_path(OsStr::new(name), path))
    {
        Some(found) => Ok(found),
        None => not_found(format!("none of {} is on PATH", NAMES.join(", "))),
    }
}

/// The first executable file called `name` in the folders of `path`.
fn on_path(name: &OsStr, path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// Whether `path` is a file this user may execute.
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::ffi::OsString;
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// A folder with an executable `chromium-browser` in `bin/`, a
    /// non-executable `chromium` in `other/`, and an executable
    /// `google-chrome` in `chrome/`.
    fn machine() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (folder, name, mode) in [
            ("bin", "chromium-browser", 0o755),
            ("other", "chromium", 0o644),
            ("chrome", "google-chrome", 0o755),
        ] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            let file = dir.path().join(folder).join(name);
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        dir
    }

    fn path_of(dir: &Path, folders: &[&str]) -> OsString {
        std::env::join_paths(folders.iter().map(|f| dir.join(f))).unwrap()
    }

    /// The path found, relative to `dir`, or the error message.
    fn check(
        dir: &Path,
        explicit: Option<&Path>,
        env: Option<&str>,
        folders: &[&str],
        expected: Result<&str, &str>,
    ) {
        let path = path_of(dir, folders);
        let found = resolve(explicit, env.map(OsStr::new), Some(&path));
        let found = found
            .map(|p| p.strip_prefix(dir).unwrap_or(&p).display().to_string())
            .map_err(|e| match e {
                RenderError::NotFound { why } => why.replace(&dir.display().to_string(), ""),
                other => panic!("{other}"),
            });
        assert_eq!(
            found,
            expected.map(str::to_owned).map_err(str::to_owned),
            "{env:?} {folders:?}"
        );
    }

    #[test]
    fn the_first_executable_browser_on_path_is_found_in_name_order() {
        let dir = machine();
        let d = dir.path();
        check(
            d,
            None,
            None,
            &["other", "chrome", "bin"],
            Ok("bin/chromium-browser"),
        );
        check(d, None, None, &["chrome"], Ok("chrome/google-chrome"));
        check(
            d,
            None,
            None,
            &["other"],
            Err("none of chromium, chromium-browser, google-chrome is on PATH"),
        );
    }

    #[test]
    fn mend_chromium_is_the_only_place_looked_at_when_set() {
        let dir = machine();
        let d = dir.path();
        let exe = d.join("chrome/google-chrome").display().to_string();
        check(d, None, Some(&exe), &["bin"], Ok("chrome/google-chrome"));
        check(
            d,
            None,
            Some("google-chrome"),
            &["chrome"],
            Ok("chrome/google-chrome"),
        );
        check(
            d,
            None,
            Some("/no/such/chromium"),
            &["bin"],
            Err("MEND_CHROMIUM names /no/such/chromium, which is not an executable file"),
        );
        check(
            d,
            None,
            Some("chromium"),
            &["other", "bin"],
            Err("MEND_CHROMIUM names chromium, which is not an executable file"),
        );
        // Set but empty counts as not set.
        check(d, None, Some(""), &["bin"], Ok("bin/chromium-browser"));
    }

    #[test]
    fn an_explicit_executable_must_exist() {
        let dir = machine();
        let d = dir.path();
        let exe = d.join("bin/chromium-browser");
        check(
            d,
            Some(&exe),
            Some("/no/such"),
            &[],
            Ok("bin/chromium-browser"),
        );
        check(
            d,
            Some(&d.join("other/chromium")),
            None,
            &["bin"],
            Err("/other/chromium is not an executable file"),
        );
    }
}
