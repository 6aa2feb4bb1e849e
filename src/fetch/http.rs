//! HTTP fetching with reqwest: one blocking client per run, built on first use.
//!
//! It refuses a response whose status is not 2xx, a chain of more than ten
//! redirects, a connection not made within 10 seconds or a request not done
//! within 30, and a body past the limit, whether its `Content-Length` says so
//! or its decoded bytes reach it; each is a `FetchError` for that page, and
//! nothing is retried. It does not judge the body: whether the bytes are a
//! page at all (`sniff.rs`) and which arguments are URLs are decided by the
//! module above.

use std::io::Read;
use std::sync::OnceLock;
use std::time::Duration;

use url::Url;

use super::{FetchError, MAX_PAGE_BYTES};

/// How long to wait for a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a whole request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How many redirects to follow.
const MAX_REDIRECTS: usize = 10;

/// A lazily built HTTP client, shared by the pages of a run.
pub struct HttpClient {
    client: OnceLock<Result<reqwest::blocking::Client, String>>,
    /// The most bytes a body may have once decoded.
    limit: u64,
}

impl Default for HttpClient {
    fn default() -> Self {
        HttpClient::with_limit(MAX_PAGE_BYTES)
    }
}

/// A fetched response body.
pub struct Fetched {
    /// The URL after redirects, which relative links resolve against.
    pub final_url: Url,
    /// The body.
    pub bytes: Vec<u8>,
    /// The charset from the `Content-Type` header.
    pub charset: Option<String>,
}

impl HttpClient {
    /// A client that connects on first use.
    pub fn new() -> HttpClient {
        HttpClient::default()
    }

    /// A client that refuses bodies of more than `limit` bytes once decoded.
    pub fn with_limit(limit: u64) -> HttpClient {
        HttpClient {
            client: OnceLock::new(),
            limit,
        }
    }

    /// Fetches `url`, following redirects; any non-2xx status is an error.
    pub fn get(&self, url: &Url) -> Result<Fetched, FetchError> {
        let request_error = |message: String| FetchError::Request {
            url: url.to_string(),
            message,
        };
        let client = self
            .client
            .get_or_init(|| {
                reqwest::blocking::Client::builder()
                    .user_agent(concat!("mend/", env!("CARGO_PKG_VERSION")))
                    .connect_timeout(CONNECT_TIMEOUT)
                    .timeout(REQUEST_TIMEOUT)
                    .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| request_error(e.clone()))?;
        let _span = tracing::debug_span!("fetch", %url).entered();
        let mut response = client
            .get(url.clone())
            .send()
            .map_err(|e| request_error(describe(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(FetchError::Status {
                url: url.to_string(),
                status: status.to_string(),
            });
        }
        let too_large = || FetchError::TooLarge {
            name: url.to_string(),
            limit: self.limit,
        };
        // The length is of the encoded body: a compressed body may still
        // decode past the limit, which the read below stops at.
        if response
            .content_length()
            .is_some_and(|len| len > self.limit)
        {
            return Err(too_large());
        }
        let final_url = response.url().clone();
        let charset = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(charset_parameter);
        // The body is decoded (gzip, deflate, brotli) as it is read, and the
        // read stops one byte past the limit, so memory stays bounded by the
        // limit whatever the encoding, with a length or without.
        let bytes = read_capped(&mut response, self.limit)
            .map_err(|e| request_error(format!("reading the body failed: {e}")))?
            .ok_or_else(too_large)?;
        Ok(Fetched {
            final_url,
            bytes,
            charset,
        })
    }
}

/// Reads `reader` to its end, or gives `None` as soon as it yields more
/// than `limit` bytes. The buffer doubles as it fills, but never past the
/// limit: `read_to_end` on a reader cut one byte past the limit would double
/// a full buffer of `limit` bytes to twice the limit for that one byte.
fn read_capped(reader: &mut impl Read, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    const PIECE: usize = 64 * 1024;
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut bytes: Vec<u8> = Vec::new();
    let mut piece = vec![0; PIECE];
    loop {
        let n = match reader.read(&mut piece) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if bytes.len() + n > limit {
            return Ok(None);
        }
        if bytes.capacity() - bytes.len() < n {
            let wanted = (bytes.capacity() * 2).max(bytes.len() + n).min(limit);
            bytes.reserve_exact(wanted - bytes.len());
        }
        bytes.extend_from_slice(&piece[..n]);
    }
}

/// The `charset` parameter of a `Content-Type` value; parameter names are
/// case-insensitive, and the value may be quoted.
fn charset_parameter(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|part| {
        let (name, value) = part.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_owned())
    })
}

/// Names the kind of failure in words a user can act on, with its causes
/// (a redirect loop says so). The crawler's client describes its failures
/// with it too.
pub(crate) fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_redirect() {
        "too many redirects"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    let mut message = kind.to_owned();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn the_charset_parameter_is_read_whatever_its_case() {
        let check = |ct: &str, expected: Option<&str>| {
            assert_eq!(charset_parameter(ct).as_deref(), expected, "{ct}");
        };
        check("text/html; charset=utf-8", Some("utf-8"));
        check("text/html;CHARSET=ISO-8859-1", Some("ISO-8859-1"));
        check("text/html; Charset=\"utf-16le\"", Some("utf-16le"));
        check("text/html", None);
        check("text/html; format=flowed", None);
        check("charset=utf-8", None);
    }

    /// Serves one response of `headers` and `body` to each of `requests`
    /// connections on 127.0.0.1, then stops; gives the URL.
    fn serve(headers: &'static str, body: Vec<u8>, requests: usize) -> Url {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(requests) {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let _ = stream.write_all(headers.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        url
    }

    /// `n` zero bytes compressed with `encode`.
    fn bomb<W: Write>(n: usize, mut encoder: W, finish: impl FnOnce(W) -> Vec<u8>) -> Vec<u8> {
        let chunk = vec![0u8; 64 * 1024];
        for _ in 0..n / chunk.len() {
            encoder.write_all(&chunk).unwrap();
        }
        finish(encoder)
    }

    /// Chunked transfer encoding of `body` in one chunk.
    fn chunked(body: &[u8]) -> Vec<u8> {
        let mut out = format!("{:x}\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out.extend_from_slice(b"\r\n0\r\n\r\n");
        out
    }

    const LIMIT: u64 = 1024 * 1024;

    fn fetch(url: &Url) -> Result<Fetched, FetchError> {
        HttpClient::with_limit(LIMIT).get(url)
    }

    #[test]
    fn a_compressed_body_is_refused_once_it_decodes_past_the_limit() {
        use flate2::Compression;
        use flate2::write::{GzEncoder, ZlibEncoder};
        let gzip = bomb(
            8 * LIMIT as usize,
            GzEncoder::new(Vec::new(), Compression::best()),
            |e| e.finish().unwrap(),
        );
        let deflate = bomb(
            8 * LIMIT as usize,
            ZlibEncoder::new(Vec::new(), Compression::best()),
            |e| e.finish().unwrap(),
        );
        assert!(gzip.len() < LIMIT as usize / 8, "a small body on the wire");
        let with_length = |encoding: &str, body: &[u8]| -> &'static str {
            Box::leak(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: {encoding}\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                )
                .into_boxed_str(),
            )
        };
        for (what, headers, body) in [
            ("gzip", with_length("gzip", &gzip), gzip.clone()),
            ("deflate", with_length("deflate", &deflate), deflate.clone()),
            (
                "chunked gzip",
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\
                 Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                chunked(&gzip),
            ),
        ] {
            let url = serve(headers, body, 1);
            match fetch(&url) {
                Err(FetchError::TooLarge { limit, .. }) => assert_eq!(limit, LIMIT, "{what}"),
                other => panic!("{what}: {:?}", other.map(|f| f.bytes.len())),
            }
        }
    }

    #[test]
    fn a_deflate_body_under_the_limit_is_decoded() {
        use flate2::Compression;
        use flate2::write::ZlibEncoder;
        let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
        e.write_all(b"<p>hello</p>").unwrap();
        let body = e.finish().unwrap();
        let headers: &'static str = Box::leak(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; CHARSET=ISO-8859-1\r\n\
                 Content-Encoding: deflate\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .into_boxed_str(),
        );
        let fetched = fetch(&serve(headers, body, 1)).unwrap();
        assert_eq!(fetched.bytes, b"<p>hello</p>");
        assert_eq!(fetched.charset.as_deref(), Some("ISO-8859-1"));
    }
}
