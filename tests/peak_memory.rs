//! Peak heap memory of parsing and extracting a page stays within a small
//! multiple of the page's size (seven times on a dense listing of about 22
//! bytes a node, three on a real article page), and fetching a page over HTTP that is larger than the
//! limit stays under the limit plus a margin, however it is sent. A counting
//! allocator (this test binary's own) measures live heap bytes; the figure is
//! deterministic, unlike timing. The HTTP tests also read the process's peak
//! resident set size on Linux, which counts what the allocator hands out and
//! the pages actually touched.

use std::sync::Mutex;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{Counting, peak_of};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Tests in this binary run on several threads; measurements take turns.
static TURN: Mutex<()> = Mutex::new(());

fn check(wrapper_path: &str, page: &[u8], limit: f64) -> f64 {
    let wrapper = mend::wrapper::load_file(wrapper_path).unwrap();
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let (peak, ()) = peak_of(|| {
        let doc = mend::Document::parse(page);
        let out = mend::extract::extract(&wrapper, &doc, None);
        std::hint::black_box(out);
    });
    let ratio = peak as f64 / page.len() as f64;
    println!(
        "page {} bytes, peak heap {peak} bytes, {ratio:.2}x",
        page.len()
    );
    assert!(
        ratio <= limit,
        "peak heap is {ratio:.2} times the page size, over {limit}"
    );
    ratio
}

#[test]
fn a_large_listing_peaks_under_seven_times_its_size() {
    // About 2 MB of product cards, written for this test.
    let card = std::fs::read_to_string("examples/pages/bookshop.html").unwrap();
    let start = card.find("<li>").unwrap();
    let end = card.rfind("</li>").unwrap() + 5;
    let items = &card[start..end];
    let mut page = card[..start].to_owned();
    while page.len() < 2_000_000 {
        page.push_str(items);
    }
    page.push_str(&card[end..]);
    // The heap counted here includes capacity never written, which the
    // resident set does not (bench/peak_memory.py reads that on 200 MB).
    check("wrappers/bookshop.yaml", page.as_bytes(), 7.0);
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_largest_zyte_page_peaks_under_three_times_its_size() {
    use std::io::Read;
    let dir = "../shared/data/zyte_article_extraction_benchmark/html";
    let mut largest = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let raw = std::fs::read(entry.unwrap().path()).unwrap();
        let mut page = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut page)
            .unwrap();
        if page.len() > largest.len() {
            largest = page;
        }
    }
    check("bench/wrappers/zyte_article.yaml", &largest, 3.0);
}

// Fetching a body larger than the limit.
//
// `HttpClient` decodes a body as it reads it and stops one byte past the
// limit, so neither a small compressed body that decodes to more than the
// limit nor an endless chunked one may take much more memory than the limit.
// These tests use the real default limit, `MAX_PAGE_BYTES`, and a server on
// 127.0.0.1 that answers its one request and stops.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mend::fetch::{FetchError, HttpClient, MAX_PAGE_BYTES};

/// What a fetch may take beyond the limit: the decoder's windows, the HTTP
/// stack's buffers and the runtime that the blocking client runs on.
const MARGIN: u64 = 64 * 1024 * 1024;

/// One mebibyte, for printing.
const MIB: f64 = 1024.0 * 1024.0;

/// Zeros, written in pieces of this size so that no body is held whole.
const PIECE: usize = 64 * 1024;

/// Serves one request on 127.0.0.1 (port chosen by the system) with
/// `respond`, then stops; gives the URL and the server thread.
///
/// A write timeout keeps the thread from waiting for ever on a client that
/// stopped reading but kept the connection open.
fn serve_once(
    respond: impl FnOnce(&mut TcpStream) -> std::io::Result<()> + Send + 'static,
) -> (url::Url, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = url::Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
    let server = std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let _ = stream.set_write_timeout(Some(Duration::from_secs(60)));
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        // The request's headers end at an empty line.
        while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
            line.clear();
        }
        // The client hangs up once it has read past the limit, so a failed
        // write is the expected end.
        let _ = respond(&mut stream);
    });
    (url, server)
}

/// A gzip member of `n` zero bytes, compressed a piece at a time, so only the
/// compressed form (about a thousandth of `n`) is ever held.
fn gzip_of_zeros(n: u64) -> Vec<u8> {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    let piece = [0u8; PIECE];
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    let mut left = n;
    while left > 0 {
        let len = left.min(PIECE as u64) as usize;
        encoder.write_all(&piece[..len]).unwrap();
        left -= len as u64;
    }
    encoder.finish().unwrap()
}

/// A field of `/proc/self/status` in kB (`VmRSS`, `VmHWM`), as bytes.
fn proc_status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))?;
    let kb: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kb * 1024)
}

/// Resets the kernel's high-water mark of the resident set size to the
/// current size (Linux: "5" to `/proc/self/clear_refs`) and gives that size;
/// `None` where the system does not allow it.
fn reset_peak_rss() -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    proc_status_bytes("VmRSS")
}

/// Fetches `url` with the default client, checks the fetch is refused as too
/// large, and that the peak heap (and on Linux the peak resident set, above
/// what was resident before) stays under the limit plus [`MARGIN`].
///
/// The caller holds [`TURN`], so no other measurement in this binary runs
/// meanwhile: the resident set is the whole process's.
fn fetch_past_the_limit(what: &str, url: &url::Url, server: JoinHandle<()>) {
    let client = HttpClient::new();
    let rss_before = reset_peak_rss();
    let started = Instant::now();
    let (peak_heap, result) = peak_of(|| client.get(url));
    let took = started.elapsed();
    let peak_rss = rss_before.and(proc_status_bytes("VmHWM"));
    println!(
        "{what}: fetch took {took:.2?}; peak heap {:.1} MiB; resident set {} before, peak {} \
         (limit {:.0} MiB)",
        peak_heap as f64 / MIB,
        rss_before.map_or("unknown".to_owned(), |b| format!(
            "{:.1} MiB",
            b as f64 / MIB
        )),
        peak_rss.map_or("unknown".to_owned(), |p| format!(
            "{:.1} MiB",
            p as f64 / MIB
        )),
        MAX_PAGE_BYTES as f64 / MIB,
    );
    match result {
        Err(FetchError::TooLarge { limit, .. }) => assert_eq!(limit, MAX_PAGE_BYTES, "{what}"),
        other => panic!(
            "{what}: expected TooLarge, got {:?}",
            other.map(|f| f.bytes.len())
        ),
    }
    drop(client);
    server
        .join()
        .expect("the server thread ends after its one response");
    assert!(
        (peak_heap as u64) < MAX_PAGE_BYTES + MARGIN,
        "{what}: peak heap {:.1} MiB is over the limit plus {:.0} MiB",
        peak_heap as f64 / MIB,
        MARGIN as f64 / MIB
    );
    if let (Some(before), Some(peak)) = (rss_before, peak_rss) {
        assert!(
            peak < before + MAX_PAGE_BYTES + MARGIN,
            "{what}: peak resident set {:.1} MiB is over {:.1} MiB before plus the limit plus \
             {:.0} MiB",
            peak as f64 / MIB,
            before as f64 / MIB,
            MARGIN as f64 / MIB
        );
    }
}

#[test]
fn a_gzip_bomb_over_http_is_refused_within_the_limit_and_a_margin() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // 300 MiB of zeros, past the 256 MiB limit once decoded.
    let decoded = MAX_PAGE_BYTES + 44 * 1024 * 1024;
    let started = Instant::now();
    let body = gzip_of_zeros(decoded);
    println!(
        "gzip bomb: {} bytes of gzip decode to {decoded} bytes (built in {:.2?})",
        body.len(),
        started.elapsed()
    );
    assert!(body.len() < 1024 * 1024, "a small body on the wire");
    let (url, server) = serve_once(move |stream| {
        let headers = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(headers.as_bytes())?;
        stream.write_all(&body)
    });
    fetch_past_the_limit("gzip bomb", &url, server);
}

#[test]
fn a_chunked_body_without_a_length_is_refused_within_the_limit_and_a_margin() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // More than the limit, with no length: the client can only count.
    let total = MAX_PAGE_BYTES + 16 * 1024 * 1024;
    let (url, server) = serve_once(move |stream| {
        stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\
              Connection: close\r\n\r\n",
        )?;
        let mut chunk = format!("{PIECE:x}\r\n").into_bytes();
        chunk.resize(chunk.len() + PIECE, 0);
        chunk.extend_from_slice(b"\r\n");
        for _ in 0..total / PIECE as u64 {
            stream.write_all(&chunk)?;
        }
        stream.write_all(b"0\r\n\r\n")
    });
    fetch_past_the_limit("chunked", &url, server);
}
