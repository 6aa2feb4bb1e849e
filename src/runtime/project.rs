//! The project directory: where a wrapper's tree-grams live, and how files
//! in it are written.
//!
//! Tree-gram files go under the wrapper's *project directory*: the folder of
//! the wrapper file, or its parent when that folder is named `wrappers` (the
//! layout `wrappers/`, `treegrams/` side by side). A pattern's `treegram:`
//! key holds the file's path relative to that directory; a pattern without
//! the key still finds its tree-gram at the default place,
//! `treegrams/<wrapper>/<pattern path>.html`.
//!
//! ## What it refuses
//!
//! A file read from the project that is not a regular file, is over its size
//! limit or resolves outside the project directory is refused, with why. No
//! file is written in place: a temporary file is created exclusively under a
//! random name, so a planted file or link is never written through, and a
//! path without a file name is an error. [`replace_if_unchanged`] leaves a
//! file that changed or vanished since it was read as it is
//! ([`Replaced::EditedMeanwhile`]); outside Linux's atomic exchange, a save
//! in the last microseconds may slip past.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::RuntimeError;
use crate::treegram::treegram_file;
use crate::wrapper::{Pattern, PatternPath, Wrapper};

/// A wrapper file and the directory its tree-gram paths are relative to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// The wrapper file, as given.
    pub wrapper_path: PathBuf,
    /// The project directory.
    pub dir: PathBuf,
}

impl Project {
    /// The project of the wrapper file at `wrapper_path`.
    pub fn of(wrapper_path: &Path) -> Project {
        let dir = wrapper_path.parent().unwrap_or(Path::new(""));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let dir = match dir.file_name() {
            Some(name) if name == "wrappers" => dir.parent().unwrap_or(dir).to_path_buf(),
            _ => dir.to_path_buf(),
        };
        Project {
            wrapper_path: wrapper_path.to_owned(),
            dir,
        }
    }

    /// Where the tree-gram of `pattern` (at `path` in `wrapper`) is: its
    /// `treegram:` key, or the default place.
    pub fn treegram_path(
        &self,
        wrapper: &Wrapper,
        path: &PatternPath,
        pattern: &Pattern,
    ) -> PathBuf {
        let file = pattern
            .treegram
            .clone()
            .unwrap_or_else(|| treegram_file(&wrapper.name, path));
        self.dir.join(file)
    }

    /// The project directory, canonical. The directory of `wrappers/x.yaml`
    /// given relative to the current folder is the empty path, which does
    /// not canonicalize by itself: it is the current folder.
    pub fn canonical_dir(&self) -> std::io::Result<PathBuf> {
        if self.dir.as_os_str().is_empty() {
            Path::new(".").canonicalize()
        } else {
            self.dir.canonicalize()
        }
    }

    /// Why a file mend reads from the project (a tree-gram, a template) is
    /// refused, given its metadata: it is not a regular file (`not_regular`
    /// says why that matters), it is over `max_bytes`, or it resolves
    /// outside the project directory (through a linked folder). `None` when
    /// it may be read.
    pub(crate) fn refusal_of(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        max_bytes: u64,
        not_regular: &str,
    ) -> Option<String> {
        if !meta.is_file() {
            return Some(not_regular.to_owned());
        }
        if meta.len() > max_bytes {
            return Some(format!(
                "{} bytes, over the limit of {max_bytes}",
                meta.len()
            ));
        }
        match (path.canonicalize(), self.canonical_dir()) {
            (Ok(file), Ok(dir)) if !file.starts_with(&dir) => Some(format!(
                "it resolves to {}, outside the project directory {}",
                file.display(),
                dir.display()
            )),
            _ => None,
        }
    }

    /// Reads the wrapper file's text.
    pub fn read_wrapper(&self) -> Result<String, RuntimeError> {
        std::fs::read_to_string(&self.wrapper_path).map_err(|error| RuntimeError::Io {
            action: "read",
            path: self.wrapper_path.clone(),
            error,
        })
    }
}

/// Writes `text` to `path` atomically, creating its folder first: to a
/// new temporary file in the same folder (created exclusively, under a
/// random name), flushed to disk, then renamed over `path`, so that a crash
/// or a full disk leaves either the old file or the new one, never half of
/// one. The file keeps its permissions. Syncing the folder, so that the
/// rename itself is on disk, is left to the caller, which may rename several
/// files into it (`change::carry_out`).
pub fn write_atomically(path: &Path, text: &str) -> Result<(), RuntimeError> {
    write_bytes_atomically(path, text.as_bytes())
}

/// [`write_atomically`] for any bytes.
pub fn write_bytes_atomically(path: &Path, bytes: &[u8]) -> Result<(), RuntimeError> {
    let temp = synced_temp_file(path, bytes)?;
    // On failure the temporary file is removed when `temp` is dropped.
    temp.persist(path)
        .map_err(|e| io_error("write", path)(e.error))?;
    Ok(())
}

/// What [`replace_if_unchanged`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replaced {
    /// The file held what was expected and now holds the new bytes.
    Done,
    /// Someone changed the file since it was read: it is left as they left
    /// it, and the new bytes are not written.
    EditedMeanwhile,
}

/// Writes `bytes` to `path` as [`write_bytes_atomically`] does, but only
/// over the content `expected` (what the file held when it was read under
/// the wrapper's lock; `None` for no file). A person's editor takes no lock,
/// so a save can land between that read and the rename; it must win.
///
/// On Linux the new file is swapped in with one `renameat2(RENAME_EXCHANGE)`,
/// and the file it displaced is compared with `expected`: whatever was saved
/// before the swap is caught, and swapped back. Elsewhere, or on a file
/// system without the exchange, the file is compared just before the
/// rename, which leaves a window of microseconds.
pub fn replace_if_unchanged(
    path: &Path,
    bytes: &[u8],
    expected: Option<&[u8]>,
) -> Result<Replaced, RuntimeError> {
    let temp = synced_temp_file(path, bytes)?;
    let Some(expected) = expected else {
        return match temp.persist_noclobber(path) {
            Ok(_) => Ok(Replaced::Done),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                Ok(Replaced::EditedMeanwhile)
            }
            Err(e) => Err(io_error("write", path)(e.error)),
        };
    };
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        let swapped = renameat_with(CWD, temp.path(), CWD, path, RenameFlags::EXCHANGE);
        if swapped.is_ok() {
            // The temporary path now holds the displaced file; it is
            // removed when `temp` is dropped, whichever file it holds.
            let displaced = std::fs::read(temp.path()).map_err(io_error("read", temp.path()))?;
            if displaced == expected {
                return Ok(Replaced::Done);
            }
            renameat_with(CWD, temp.path(), CWD, path, RenameFlags::EXCHANGE)
                .map_err(|e| io_error("put back", path)(e.into()))?;
            return Ok(Replaced::EditedMeanwhile);
        }
    }
    match std::fs::read(path) {
        Ok(current) if current == expected => {}
        Ok(_) => return Ok(Replaced::EditedMeanwhile),
        // Deleted meanwhile: that too was the person's doing.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Replaced::EditedMeanwhile);
        }
        Err(e) => return Err(io_error("read", path)(e)),
    }
    temp.persist(path)
        .map_err(|e| io_error("write", path)(e.error))?;
    Ok(Replaced::Done)
}

/// How an I/O error on `path` while doing `action` becomes a [`RuntimeError`].
fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> RuntimeError {
    let path = path.to_owned();
    move |error| RuntimeError::Io {
        action,
        path,
        error,
    }
}

/// Files written to temporary files beside their paths and synced to disk,
/// not yet renamed into place ([`stage_files`]).
pub struct Staged {
    temps: Vec<(PathBuf, tempfile::TempPath)>,
}

/// From how many files [`stage_files`] syncs them with one `syncfs` of
/// their file system rather than one `fsync` each (Linux). One `fsync`
/// costs a journal commit; `syncfs` costs one commit too, but also writes
/// whatever else is waiting on that file system, which may be a lot more
/// than a few small files.
#[cfg(target_os = "linux")]
const SYNCFS_FROM: usize = 8;

/// Writes each `(path, bytes)` to a new temporary file beside `path` (its
/// folder created first) with the permissions `path` has, then makes them
/// all durable, and gives them back to be renamed into place in order.
/// On failure nothing has been renamed, and every temporary file is gone.
///
/// A snapshot of a wrapper of thousands of patterns writes thousands of
/// tree-grams: synced one by one, the syncs alone took most of a second.
pub fn stage_files<'a>(
    files: impl IntoIterator<Item = (&'a Path, &'a [u8])>,
) -> Result<Staged, RuntimeError> {
    let mut temps = Vec::new();
    for (path, bytes) in files {
        // The file is closed once written: thousands of open files would
        // run into the process's limit.
        let temp = temp_file(path, bytes)?.into_temp_path();
        temps.push((path.to_owned(), temp));
    }
    sync_all_of(&temps)?;
    Ok(Staged { temps })
}

impl Staged {
    /// How many files are staged.
    pub fn len(&self) -> usize {
        self.temps.len()
    }

    /// Whether no file is staged.
    pub fn is_empty(&self) -> bool {
        self.temps.is_empty()
    }

    /// Renames the staged files into place in order. On failure, gives how
    /// many were renamed before it; the temporary files not renamed are
    /// removed.
    pub fn persist(self) -> Result<(), (usize, RuntimeError)> {
        for (done, (path, temp)) in self.temps.into_iter().enumerate() {
            temp.persist(&path)
                .map_err(|e| (done, io_error("write", &path)(e.error)))?;
        }
        Ok(())
    }
}

/// Makes the staged files' contents durable: one `syncfs` per folder's file
/// system on Linux when there are many, else one `fsync` each.
fn sync_all_of(temps: &[(PathBuf, tempfile::TempPath)]) -> Result<(), RuntimeError> {
    #[cfg(target_os = "linux")]
    if temps.len() >= SYNCFS_FROM {
        let mut folders: Vec<&Path> = temps.iter().filter_map(|(p, _)| p.parent()).collect();
        folders.sort();
        folders.dedup();
        for dir in folders {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            std::fs::File::open(dir)
                .and_then(|d| rustix::fs::syncfs(&d).map_err(std::io::Error::from))
                .map_err(io_error("sync", dir))?;
        }
        return Ok(());
    }
    for (path, temp) in temps {
        std::fs::File::open(temp)
            .and_then(|f| f.sync_all())
            .map_err(io_error("write", path))?;
    }
    Ok(())
}

/// `bytes` in a new temporary file beside `path` (its folder created
/// first), synced to disk, with the permissions `path` has.
fn synced_temp_file(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, RuntimeError> {
    let temp = temp_file(path, bytes)?;
    temp.as_file().sync_all().map_err(io_error("write", path))?;
    Ok(temp)
}

/// `bytes` in a new temporary file beside `path` (its folder created
/// first), with the permissions `path` has; not synced.
fn temp_file(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, RuntimeError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(io_error("create", dir))?;
    let name = path.file_name().ok_or_else(|| {
        io_error("write", path)(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    // The temporary file is created with O_EXCL under a random name, so a
    // file or symlink planted in the folder is never written through.
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".mend-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // A new file gets the mode `File::create` would give it (0666 less the
    // umask), not a temporary file's private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder
        .tempfile_in(dir)
        .map_err(io_error("create a temporary file in", dir))?;
    temp.write_all(bytes)
        .and_then(|()| match std::fs::metadata(path) {
            Ok(meta) => temp.as_file().set_permissions(meta.permissions()),
            Err(_) => Ok(()),
        })
        .map_err(io_error("write", path))?;
    Ok(temp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in `dir`, sorted.
    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn many_staged_files_land_whole_with_their_permissions_and_no_temporary_file() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("treegrams/w");
        std::fs::create_dir_all(&folder).unwrap();
        let kept = folder.join("p3.html");
        std::fs::write(&kept, "old").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
        // More files than one fsync each would sync, and a few.
        for count in [3, 40] {
            let files: Vec<(PathBuf, Vec<u8>)> = (0..count)
                .map(|i| {
                    (
                        folder.join(format!("p{i}.html")),
                        format!("new {i}").into_bytes(),
                    )
                })
                .collect();
            let staged =
                stage_files(files.iter().map(|(p, b)| (p.as_path(), b.as_slice()))).unwrap();
            assert_eq!(staged.len(), count);
            // Staged, nothing is in place yet.
            assert_eq!(std::fs::read_to_string(&kept).unwrap(), "old");
            staged.persist().unwrap();
            for (path, bytes) in &files {
                assert_eq!(&std::fs::read(path).unwrap(), bytes);
            }
            assert_eq!(
                std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
                0o640
            );
            assert!(
                names_in(&folder)
                    .iter()
                    .all(|n| n.ends_with(".html") && !n.starts_with('.')),
                "{:?}",
                names_in(&folder)
            );
            std::fs::write(&kept, "old").unwrap();
        }
    }

    #[test]
    fn a_file_that_cannot_be_staged_leaves_nothing_written() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("treegrams");
        std::fs::create_dir_all(&folder).unwrap();
        // A file where a folder would have to be: its tree-gram cannot be written.
        std::fs::write(folder.join("blocked"), "a file").unwrap();
        let mut files: Vec<(PathBuf, Vec<u8>)> = (0..20)
            .map(|i| (folder.join(format!("p{i}.html")), b"x".to_vec()))
            .collect();
        files.insert(10, (folder.join("blocked/p.html"), b"x".to_vec()));
        let staged = stage_files(files.iter().map(|(p, b)| (p.as_path(), b.as_slice())));
        assert!(staged.is_err());
        assert_eq!(names_in(&folder), ["blocked"]);
    }
}
