//! Images of item pages, downloaded once each into a folder beside the
//! output and named by the SHA-256 of their content, so the same image
//! under two URLs is one file.
//!
//! A file is written to a temporary name and renamed, so a killed crawl
//! leaves no half image under a final name. It refuses bodies over the
//! politeness size limit, as every response.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::Mutex;
use url::Url;

use super::fetcher::{Conditions, Fetcher};

/// Numbers the temporary files of downloads in progress.
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// The media folder of a crawl, and what it downloaded already.
#[derive(Debug)]
pub struct Media {
    dir: PathBuf,
    /// URL → the entry of its download (or its failure).
    known: Mutex<HashMap<String, Value>>,
}

impl Media {
    /// Media downloaded into `dir`.
    pub fn new(dir: PathBuf) -> Media {
        Media {
            dir,
            known: Mutex::new(HashMap::new()),
        }
    }

    /// Downloads each of `urls` not downloaded before; gives an entry per
    /// URL: `{"url", "sha256", "file"}`, or `{"url", "error"}`.
    pub async fn download(&self, fetcher: &Fetcher, urls: &[Url]) -> Vec<Value> {
        let mut entries = Vec::with_capacity(urls.len());
        for url in urls {
            if let Some(known) = self.known.lock().await.get(url.as_str()) {
                entries.push(known.clone());
                continue;
            }
            let entry = match fetcher.fetch(url, &Conditions::default()).await {
                Ok(response) => {
                    match self.store(url, &response.body, response.media_type.as_deref()) {
                        Ok((hash, file)) => {
                            json!({"url": url.as_str(), "sha256": hash, "file": file})
                        }
                        Err(e) => json!({"url": url.as_str(), "error": e.to_string()}),
                    }
                }
                Err(e) => json!({"url": url.as_str(), "error": e.to_string()}),
            };
            self.known
                .lock()
                .await
                .insert(url.to_string(), entry.clone());
            entries.push(entry);
        }
        entries
    }

    /// How many distinct image URLs were downloaded.
    pub async fn count(&self) -> u64 {
        let known = self.known.lock().await;
        known.values().filter(|v| v.get("sha256").is_some()).count() as u64
    }

    /// Writes `body` under its hash, unless a file of that hash is there.
    fn store(
        &self,
        url: &Url,
        body: &[u8],
        media_type: Option<&str>,
    ) -> std::io::Result<(String, String)> {
        let (hash, name) = media_name(url, body, media_type);
        write_media(&self.dir, &name, body)?;
        Ok((hash, relative(&self.dir.join(&name), &self.dir)))
    }
}

/// The folder a crawl writing to `output` keeps its images in: beside the
/// output, named after it (`out.ndjson` keeps them in `out-media`), or
/// `media` when the output is standard output.
pub fn media_dir(output: Option<&Path>) -> PathBuf {
    match output {
        Some(o) => {
            let stem = o
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            o.with_file_name(format!("{stem}-media"))
        }
        None => PathBuf::from("media"),
    }
}

/// An image's SHA-256 and the file name it is kept under: the hash, with
/// the URL's extension or the media type's.
pub fn media_name(url: &Url, body: &[u8], media_type: Option<&str>) -> (String, String) {
    let hash = hex(&Sha256::digest(body));
    let name = format!("{hash}{}", extension(url, media_type));
    (hash, name)
}

/// The entry of an image written as `name` in the folder `dir`, as a
/// record's `_media` lists it.
pub fn media_entry(url: &Url, hash: &str, dir: &Path, name: &str) -> Value {
    json!({"url": url.as_str(), "sha256": hash, "file": relative(&dir.join(name), dir)})
}

/// Writes `body` as `dir/name` unless that file is there: through a
/// temporary file of this writer's own and a rename, so that no half image
/// is ever under a final name.
pub fn write_media(dir: &Path, name: &str, body: &[u8]) -> std::io::Result<()> {
    let path = dir.join(name);
    if path.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    // Two pages may bring the same bytes under two URLs at once: each
    // writes a temporary file of its own, and the second rename puts the
    // same content in place again.
    let temp = dir.join(format!(
        ".{name}.{}-{}.part",
        std::process::id(),
        TEMPORARY.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&temp, body)?;
    std::fs::rename(&temp, &path)
}

fn relative(path: &Path, dir: &Path) -> String {
    let folder = dir
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{folder}/{file}")
}

/// A file extension for an image: the URL's when it is a short word, else
/// the media type's.
fn extension(url: &Url, media_type: Option<&str>) -> String {
    let from_url = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .and_then(|last| last.rsplit_once('.'))
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .filter(|e| (1..=5).contains(&e.len()) && e.chars().all(|c| c.is_ascii_alphanumeric()));
    let ext = from_url.or_else(|| {
        media_type
            .and_then(|t| t.strip_prefix("image/"))
            .map(|t| t.split('+').next().unwrap_or(t).to_owned())
            .filter(|e| e.chars().all(|c| c.is_ascii_alphanumeric()))
    });
    ext.map(|e| format!(".{e}")).unwrap_or_default()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_comes_from_the_url_else_the_media_type() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert_eq!(extension(&u("http://h/a/1.PNG"), None), ".png");
        assert_eq!(
            extension(&u("http://h/img?id=3"), Some("image/jpeg")),
            ".jpeg"
        );
        assert_eq!(extension(&u("http://h/img"), Some("image/svg+xml")), ".svg");
        assert_eq!(extension(&u("http://h/img"), None), "");
    }

    #[test]
    fn the_same_bytes_are_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let media = Media::new(dir.path().join("media"));
        let a = media
            .store(&Url::parse("http://h/a.png").unwrap(), b"png", None)
            .unwrap();
        let b = media
            .store(&Url::parse("http://h/b.png").unwrap(), b"png", None)
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(
            std::fs::read_dir(dir.path().join("media")).unwrap().count(),
            1
        );
    }
}
