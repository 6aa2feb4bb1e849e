//! `--backend-file`: the backend's connection string read from a file, so
//! that a password in it is neither on the command line (where other users
//! read it from `/proc`) nor in the environment.
//!
//! ## What it refuses
//!
//! A file other users may read (any group or other permission bit, as libpq
//! refuses such a password file), a file it cannot read, and a file whose
//! first line is empty. Its error names the file, never its contents.

use std::path::Path;

/// The connection string: `--backend` as given, else the first line of
/// `--backend-file`; `None` when neither is given.
pub fn backend_url(backend: Option<&str>, file: Option<&Path>) -> Result<Option<String>, String> {
    if let Some(url) = backend {
        return Ok(Some(url.to_owned()));
    }
    let Some(file) = file else { return Ok(None) };
    let shown = file.display();
    let meta = std::fs::metadata(file).map_err(|e| format!("--backend-file {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("--backend-file {shown}: not a file"));
    }
    refuse_shared(file, &meta)?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("--backend-file {shown}: {e}"))?;
    let line = text.lines().next().unwrap_or("").trim();
    if line.is_empty() {
        return Err(format!(
            "--backend-file {shown}: its first line is empty; write the connection string there"
        ));
    }
    Ok(Some(line.to_owned()))
}

#[cfg(unix)]
fn refuse_shared(file: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "--backend-file {}: other users may read it (mode {:o}); chmod 600 it",
            file.display(),
            mode & 0o777
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_shared(_: &Path, _: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str, mode: u32) -> tempfile::NamedTempFile {
        use std::os::unix::fs::PermissionsExt;
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        f
    }

    #[test]
    fn the_first_line_of_a_private_file_is_the_connection_string() {
        let f = file("postgres://u:secret@h/db\nsecond line\n", 0o600);
        assert_eq!(
            backend_url(None, Some(f.path())).unwrap().as_deref(),
            Some("postgres://u:secret@h/db")
        );
        // --backend, when given, wins.
        assert_eq!(
            backend_url(Some("postgres://x/y"), Some(f.path()))
                .unwrap()
                .as_deref(),
            Some("postgres://x/y")
        );
        assert_eq!(backend_url(None, None).unwrap(), None);
    }

    #[test]
    fn a_file_others_may_read_is_refused_without_showing_its_contents() {
        let f = file("postgres://u:secret@h/db\n", 0o644);
        let e = backend_url(None, Some(f.path())).unwrap_err();
        assert!(e.contains("chmod 600"), "{e}");
        assert!(!e.contains("secret"), "{e}");
    }

    #[test]
    fn an_empty_or_missing_file_is_refused() {
        let f = file("\n", 0o600);
        assert!(
            backend_url(None, Some(f.path()))
                .unwrap_err()
                .contains("empty")
        );
        let e = backend_url(None, Some(Path::new("/nonexistent/mend-backend"))).unwrap_err();
        assert!(e.contains("/nonexistent/mend-backend"), "{e}");
    }
}
