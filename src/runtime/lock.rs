//! The advisory lock that serialises changes to one wrapper file.
//!
//! Every command that changes a wrapper file (a run healing in `auto` mode,
//! `mend approve`, `mend snapshot`, and whatever reconciles an unfinished
//! change) holds this lock from the moment it reads the file until the
//! change is marked done in the store. The lock is taken on a small file
//! in mend's folder beside the wrapper, `.mend/NAME.lock` (where the
//! wrapper's store lives too), never on the wrapper itself: the
//! wrapper is replaced by a rename, and a lock on the old inode would not
//! stop a process that opens the new one. The lock file is never removed,
//! since removing it while another process waits on it would let a third
//! take a second lock on a new file.
//!
//! The lock is scoped to the wrapper's canonical path, so two spellings of
//! one file (a relative path, an absolute one, a symbolic link) take the
//! same lock. It is the operating system's `flock`, released when the
//! process dies however it dies, so a `kill -9` never leaves it held.
//!
//! ## What it refuses
//!
//! A wrapper path that does not exist gets no lock ([`RuntimeError::Io`]),
//! nor one that resolves outside its own folder (a link to `/etc/passwd`,
//! say: [`RuntimeError::OutsideProject`]), and then nothing is made beside
//! the link's target. A lock file that can be neither created nor opened is
//! an error. Taking the lock has no timeout: it waits as long as another
//! process holds it. Only regular files named `.NAME.mend-*.tmp` are removed
//! as stale.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use super::RuntimeError;

/// A held lock on a wrapper file; released when dropped.
#[derive(Debug)]
pub struct WrapperLock {
    file: File,
    wrapper: PathBuf,
}

impl WrapperLock {
    /// Waits for and takes the lock on the wrapper file at `wrapper_path`
    /// (which must exist). A folder where the lock file cannot be created
    /// (read-only, say) is an error: no change could be written there
    /// anyway.
    pub fn acquire(wrapper_path: &Path) -> Result<WrapperLock, RuntimeError> {
        let wrapper = wrapper_path
            .canonicalize()
            .map_err(|error| RuntimeError::Io {
                action: "find",
                path: wrapper_path.to_owned(),
                error,
            })?;
        // The lock and the temporary files go beside the file the path
        // resolves to: a link that leads out of the wrapper's folder (to
        // `/etc/passwd`, say) would have mend make folders and files there.
        let folder = match wrapper_path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => PathBuf::from("."),
        };
        let folder = folder.canonicalize().map_err(|error| RuntimeError::Io {
            action: "find",
            path: folder.clone(),
            error,
        })?;
        if !wrapper.starts_with(&folder) {
            return Err(RuntimeError::OutsideProject {
                path: wrapper_path.to_owned(),
                resolved: wrapper,
            });
        }
        let lock_path = lock_file(&wrapper);
        if let Some(dir) = lock_path.parent() {
            // A folder that cannot be made is reported below, by the open.
            let _ = std::fs::create_dir_all(dir);
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            // A lock file made earlier in a folder that is read-only now
            // still serves; `flock` needs no write access.
            .or_else(|e| File::open(&lock_path).map_err(|_| e))
            .map_err(|error| RuntimeError::Io {
                action: "create the lock file",
                path: lock_path.clone(),
                error,
            })?;
        file.lock().map_err(|error| RuntimeError::Io {
            action: "lock",
            path: lock_path,
            error,
        })?;
        tracing::debug!(wrapper = %wrapper.display(), "wrapper locked");
        Ok(WrapperLock { file, wrapper })
    }

    /// The wrapper file's canonical path.
    pub fn wrapper(&self) -> &Path {
        &self.wrapper
    }
}

impl Drop for WrapperLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first makes the
        // release independent of when the descriptor is closed.
        let _ = self.file.unlock();
    }
}

/// The lock file of the wrapper at canonical path `wrapper`.
fn lock_file(wrapper: &Path) -> PathBuf {
    let mut name = wrapper.file_name().unwrap_or_default().to_owned();
    name.push(".lock");
    let dir = wrapper.parent().unwrap_or(Path::new("/"));
    dir.join(crate::store::STORE_DIR).join(name)
}

/// Removes the temporary files that an earlier, killed write of `path` left
/// in its folder (`.NAME.mend-XXXXXX.tmp`, see `write_atomically`). Call it
/// only while holding the lock of the wrapper that `path` belongs to: then
/// no live process is writing one of them. Gives how many were removed.
pub fn remove_stale_temp_files(path: &Path) -> usize {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return 0;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".mend-");
    let prefix = prefix.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        if file_name.starts_with(&prefix)
            && file_name.ends_with(".tmp")
            && entry.file_type().is_ok_and(|t| t.is_file())
            && std::fs::remove_file(entry.path()).is_ok()
        {
            tracing::info!(file = %entry.path().display(), "removed a stale temporary file");
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_spellings_of_one_wrapper_take_one_lock() {
        let dir = tempfile::tempdir().unwrap();
        let wrapper = dir.path().join("w.yaml");
        std::fs::write(&wrapper, "name: w\n").unwrap();
        let first = WrapperLock::acquire(&wrapper).unwrap();
        let other = dir.path().join(".").join("w.yaml");
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let second = WrapperLock::acquire(&other).unwrap();
            tx.send(()).unwrap();
            drop(second);
        });
        // The second lock waits while the first is held.
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(200))
                .is_err()
        );
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        waiter.join().unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_wrapper_that_links_out_of_its_folder_is_refused_and_nothing_is_made_there() {
        let project = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("passwd");
        std::fs::write(&target, "root:x:0:0\n").unwrap();
        let link = project.path().join("w.yaml");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let error = WrapperLock::acquire(&link).unwrap_err();
        assert!(
            matches!(error, RuntimeError::OutsideProject { .. }),
            "{error}"
        );
        assert!(error.is_bad_input());
        let made: Vec<_> = std::fs::read_dir(elsewhere.path()).unwrap().collect();
        assert_eq!(made.len(), 1, "only the target is there");
        // A link to a file in a folder below the wrapper's stays allowed.
        std::fs::create_dir(project.path().join("sub")).unwrap();
        std::fs::write(project.path().join("sub/real.yaml"), "name: w\n").unwrap();
        let inside = project.path().join("inside.yaml");
        std::os::unix::fs::symlink(project.path().join("sub/real.yaml"), &inside).unwrap();
        assert!(WrapperLock::acquire(&inside).is_ok());
    }

    #[test]
    fn stale_temporary_files_of_the_one_file_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let wrapper = dir.path().join("w.yaml");
        std::fs::write(dir.path().join(".w.yaml.mend-abc123.tmp"), "x").unwrap();
        std::fs::write(dir.path().join(".other.yaml.mend-abc123.tmp"), "x").unwrap();
        std::fs::write(dir.path().join(".w.yaml.mend-abc123"), "").unwrap();
        assert_eq!(remove_stale_temp_files(&wrapper), 1);
        assert!(dir.path().join(".other.yaml.mend-abc123.tmp").exists());
        assert!(dir.path().join(".w.yaml.mend-abc123").exists());
    }
}
