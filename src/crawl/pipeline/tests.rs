use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::crawl::render::Rendered;
use crate::wrapper::{PageAction, Politeness};

const WRAPPER: &str = "name: shop\npatterns:\n  - name: title\n    xpath: //h1\n    \
    constraints: {min: 1, max: 1}\ncrawl:\n  follow: ['//a/@href']\n  media: '//img/@src'\n";

/// A server on 127.0.0.1 that answers each path with a fixed response
/// and keeps the request lines; it stops at a request for `/stop`.
struct Server {
    port: u16,
    asked: std::sync::Arc<Mutex<Vec<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(answers: HashMap<&'static str, String>) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let asked = std::sync::Arc::new(Mutex::new(Vec::new()));
        let kept = std::sync::Arc::clone(&asked);
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                let mut headers = String::new();
                while let Ok(n) = reader.read_line(&mut headers)
                    && n > 2
                {}
                let path = line.split(' ').nth(1).unwrap_or("").to_owned();
                if path == "/stop" {
                    break;
                }
                let conditional = headers.to_ascii_lowercase().contains("if-modified-since");
                kept.lock().unwrap().push(format!("{path} {conditional}"));
                let answer = answers.get(path.as_str()).cloned().unwrap_or_else(|| {
                    "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_owned()
                });
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Server {
            port,
            asked,
            thread: Some(thread),
        }
    }

    fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:{}{path}", self.port)).unwrap()
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(mut stop) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
            let _ = stop.write_all(b"GET /stop HTTP/1.1\r\n\r\n");
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn html(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// What the browser makes of every page: a title the raw pages lack,
/// links a script wrote, and an image.
const RENDERED: &str = "<html><body><h1>Rendered</h1><a href='/item/3'>3</a>\
    <a href='/about'>about</a><img src='/a.png'></body></html>";

/// A renderer that counts its calls and gives one fixed page.
#[derive(Default)]
struct CountingRenderer(AtomicUsize);

impl PageRenderer for CountingRenderer {
    fn render<'a>(
        &'a self,
        url: &'a Url,
        _actions: &'a [PageAction],
    ) -> Pin<Box<dyn Future<Output = Rendered> + Send + 'a>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            Ok(crate::render::Rendered {
                html: RENDERED.to_owned(),
                final_url: url.to_string(),
                clicks: 0,
                settled: true,
                status: Some(200),
                media_type: Some("text/html".to_owned()),
            })
        })
    }
}

/// A memory that holds one cache entry and says what it was asked.
#[derive(Default)]
struct Recording {
    cached: Option<CacheEntry>,
    asked: Mutex<Vec<String>>,
}

impl CrawlMemory for Recording {
    type Error = std::convert::Infallible;

    async fn cached(&self, url: &Url) -> Result<Option<CacheEntry>, Self::Error> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("cached {}", url.path()));
        Ok(self.cached.clone())
    }

    async fn render_useless(&self, shape: String) -> Result<bool, Self::Error> {
        let _ = shape;
        self.asked.lock().unwrap().push("render_useless".to_owned());
        Ok(false)
    }

    async fn media(&self, urls: &[Url]) -> Result<Vec<serde_json::Value>, Self::Error> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("media {}", urls.len()));
        Ok(urls
            .iter()
            .map(|u| serde_json::json!({"url": u.as_str()}))
            .collect())
    }
}

/// Reads `url` in `auto` mode with a counting browser, an item rule of
/// `/item/` and `memory`; the page and how many pages were rendered.
async fn read_auto(
    url: &Url,
    since: Option<i64>,
    memory: &Recording,
) -> (Result<PageRead, FetchFailure>, usize) {
    let wrapper = crate::wrapper::load_str(WRAPPER, "shop.yaml").unwrap();
    let rule = ItemRule::Pattern(regex::Regex::new("/item/").unwrap());
    let counting = Arc::new(CountingRenderer::default());
    let renderer: Arc<dyn PageRenderer> = counting.clone();
    let fetcher = Fetcher::new(Politeness {
        robots: false,
        delay: std::time::Duration::ZERO,
        retries: 0,
        ..Politeness::default()
    })
    .unwrap();
    let reader = PagePipeline {
        fetcher: &fetcher,
        renderer: Some(&renderer),
        wrapper: &wrapper,
        rule: &rule,
        render: RenderMode::Auto,
        since,
    };
    let read = match reader.read(memory, url).await {
        Ok(read) => read,
        Err(never) => match never {},
    };
    (read, counting.0.load(Ordering::SeqCst))
}

/// Regression (the workers' copy of the pipeline): an item page the
/// server says is unchanged since `--since` was still rendered by a
/// worker under `render: auto`. Neither copy may render it, keep its
/// document or download its images.
#[tokio::test]
async fn an_unchanged_item_page_is_not_rendered_kept_or_given_its_images() {
    let server = Server::start(HashMap::from([(
        "/item/1",
        "HTTP/1.1 304 Not Modified\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned(),
    )]));
    let memory = Recording {
        cached: Some(CacheEntry {
            sha256: Some("ab".to_owned()),
            changed_at: Some(1_600_000_000_000),
            ..CacheEntry::default()
        }),
        ..Recording::default()
    };
    let (read, renders) = read_auto(&server.url("/item/1"), Some(1_700_000_000_000), &memory).await;
    let read = read.unwrap();
    assert!(read.item && read.unchanged);
    assert!(read.document.is_none());
    assert!(read.media.is_empty() && !read.rendered && renders == 0);
    assert_eq!(*memory.asked.lock().unwrap(), ["cached /item/1"]);
    assert_eq!(server.asked(), ["/item/1 true"]);
    assert_eq!(
        read.cache.sha256.as_deref(),
        Some("ab"),
        "a 304 keeps the body cached before"
    );
}

/// A listing that redirects to an item page is that item page. Its raw
/// HTML breaks the wrapper, so in `auto` mode it is rendered (its
/// shape's memory asked first), and the rendered DOM, parsed once, gives
/// its links, its images and the document kept for extraction.
#[tokio::test]
async fn a_page_redirected_to_an_item_page_is_read_as_one() {
    let server = Server::start(HashMap::from([
        (
            "/go",
            "HTTP/1.1 302 Found\r\nlocation: /item/2\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                .to_owned(),
        ),
        (
            "/item/2",
            html("<p><a href='/item/9'>9</a></p>"),
        ),
    ]));
    let memory = Recording::default();
    let (read, renders) = read_auto(&server.url("/go"), None, &memory).await;
    let read = read.unwrap();
    assert!(read.item && !read.unchanged && read.rendered);
    assert_eq!(read.final_url, server.url("/item/2"));
    assert_eq!(renders, 1);
    assert_eq!(read.render_vote.as_ref().map(|v| v.1), Some(true));
    let paths: Vec<&str> = read.links.iter().map(Url::path).collect();
    assert_eq!(paths, ["/item/3", "/about"]);
    assert_eq!(read.item_links, 1);
    let document = read.document.expect("an item page keeps its document");
    assert_eq!(document.string_value(document.root()), "Rendered3about");
    assert_eq!(*memory.asked.lock().unwrap(), ["render_useless", "media 1"]);
}
