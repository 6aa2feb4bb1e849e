//! Images of item pages, downloaded once each into a folder beside the
//! output and named by the SHA-256 of their content, so the same image
//! under two URLs is one file. Two pages that ask for one image at once
//! share one download: the second waits for the first's entry.
//!
//! A file is written to a temporary name and renamed, so a killed crawl
//! leaves no half image under a final name. It refuses bodies over the
//! politeness size limit, as every response.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::{Mutex, OnceCell};
use url::Url;

use super::fetcher::{Conditions, Fetcher};

/// Numbers the temporary files of downloads in progress.
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// The media folder of a crawl, and what it downloaded already.
#[derive(Debug)]
pub struct Media {
    dir: PathBuf,
    /// URL → the entry of its download (or its failure), set once by the
    /// first download of the URL; a download asked for while another is in
    /// flight waits for that one's entry.
    known: Mutex<HashMap<String, Arc<OnceCell<Value>>>>,
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
            // The map's lock is held only to find the URL's slot, never
            // across a download.
            let slot = self
                .known
                .lock()
                .await
                .entry(url.to_string())
                .or_default()
                .clone();
            let entry = slot.get_or_init(|| self.fetch_one(fetcher, url)).await;
            entries.push(entry.clone());
        }
        entries
    }

    /// How many distinct image URLs were downloaded.
    pub async fn count(&self) -> u64 {
        let known = self.known.lock().await;
        known
            .values()
            .filter(|slot| slot.get().is_some_and(|v| v.get("sha256").is_some()))
            .count() as u64
    }

    /// Downloads and stores one image: its entry.
    async fn fetch_one(&self, fetcher: &Fetcher, url: &Url) -> Value {
        match fetcher.fetch(url, &Conditions::default()).await {
            Ok(response) => match self.store(url, &response.body, response.media_type.as_deref()) {
                Ok((hash, file)) => json!({"url": url.as_str(), "sha256": hash, "file": file}),
                Err(e) => json!({"url": url.as_str(), "error": e.to_string()}),
            },
            Err(e) => json!({"url": url.as_str(), "error": e.to_string()}),
        }
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

    /// Regression (a crawl's media test, under load): two item pages that
    /// asked for one image at once both found it unknown and both
    /// downloaded it. The second now waits for the first's download.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_image_two_pages_ask_for_at_once_is_downloaded_once() {
        use std::io::{BufRead, BufReader, Write};
        use std::sync::atomic::AtomicUsize;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let images = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&images);
        // The server answers robots.txt with 404 and the image slowly, so
        // that both downloads are asked for while the first is in flight;
        // it stops after three requests, or when the test drops its port.
        let server = std::thread::spawn(move || {
            for stream in listener.incoming().take(3) {
                let Ok(mut stream) = stream else { break };
                let mut line = String::new();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                reader.read_line(&mut line).unwrap();
                while reader.read_line(&mut String::new()).is_ok_and(|n| n > 2) {}
                let answer: &[u8] = if line.contains("/robots.txt") {
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                } else {
                    counted.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    b"HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: 3\r\nconnection: close\r\n\r\npng"
                };
                let _ = stream.write_all(answer);
            }
        });
        let settings = crate::wrapper::Politeness {
            delay: std::time::Duration::ZERO,
            retries: 0,
            ..Default::default()
        };
        let fetcher = Fetcher::new(settings).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let media = Media::new(dir.path().join("media"));
        let url = Url::parse(&format!("http://127.0.0.1:{port}/cover.png")).unwrap();
        let urls = [url];
        let (a, b) = tokio::join!(
            media.download(&fetcher, &urls),
            media.download(&fetcher, &urls)
        );
        assert_eq!(a, b);
        assert!(a[0].get("sha256").is_some(), "{a:?}");
        assert_eq!(images.load(Ordering::SeqCst), 1);
        assert_eq!(media.count().await, 1);
        // A third request (none is due) would end the server; unblock it.
        drop(std::net::TcpStream::connect(("127.0.0.1", port)));
        server.join().unwrap();
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
