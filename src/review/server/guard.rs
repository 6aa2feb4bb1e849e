//! Who may talk to the review page: a request must carry the page's token
//! in its path, name the server's own address as its `Host`, and, when it
//! changes something, come from the page itself with a form nonce that has
//! not been used before.
//!
//! The token keeps other local users and other tabs' scripts out (they
//! cannot read it); the `Host` check keeps out pages that rebind a domain
//! of theirs to 127.0.0.1; the `Origin` and `Sec-Fetch-Site` checks and the
//! single-use nonce refuse a POST made by another site or replayed.
//! Refusals say little: a refused request learns nothing about the store.

use std::collections::HashSet;
use std::sync::Mutex;

use axum::http::{HeaderMap, header};

/// How many unused form nonces are kept; the oldest go first. A page left
/// open long enough for this many others to be served must be reloaded.
const MAX_NONCES: usize = 4096;

/// The secrets of one review server.
#[derive(Debug)]
pub struct Guard {
    token: String,
    /// The `host:port` the server listens on, as `Host` must name it.
    authorities: Vec<String>,
    /// The origin a POST must come from.
    origin: String,
    nonces: Mutex<Nonces>,
}

/// Why a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The path does not start with the token.
    Token,
    /// `Host` names another server.
    Host,
    /// A POST from another origin, or without the page's nonce, or with one
    /// used before.
    Forgery,
}

#[derive(Debug, Default)]
struct Nonces {
    live: HashSet<String>,
    order: std::collections::VecDeque<String>,
}

impl Guard {
    /// A guard for a server on 127.0.0.1:`port`, with a fresh token.
    pub fn new(port: u16) -> Result<Guard, getrandom::Error> {
        Ok(Guard {
            token: random_hex(32)?,
            authorities: vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origin: format!("http://127.0.0.1:{port}"),
            nonces: Mutex::new(Nonces::default()),
        })
    }

    /// The token, the first segment of every path.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The path under the token: `/TOKEN/rest` gives `/rest`.
    pub fn strip<'p>(&self, path: &'p str) -> Result<&'p str, Refusal> {
        let rest = path.strip_prefix('/').unwrap_or(path);
        let (first, under) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, "/"),
        };
        if !same(first.as_bytes(), self.token.as_bytes()) {
            return Err(Refusal::Token);
        }
        Ok(under)
    }

    /// Refuses a request whose `Host` is not this server.
    pub fn check_host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .ok_or(Refusal::Host)?;
        if self
            .authorities
            .iter()
            .any(|a| a.eq_ignore_ascii_case(host))
        {
            Ok(())
        } else {
            Err(Refusal::Host)
        }
    }

    /// Refuses a POST that another site made: its `Origin` (or, without
    /// one, its `Referer`) is not this server, or `Sec-Fetch-Site` says it
    /// came from elsewhere.
    pub fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let get = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
        if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok())
            && site != "same-origin"
        {
            return Err(Refusal::Forgery);
        }
        let from = match (get(header::ORIGIN), get(header::REFERER)) {
            (Some(origin), _) => origin.to_owned(),
            (None, Some(referer)) => url::Url::parse(referer)
                .map(|u| u.origin().ascii_serialization())
                .map_err(|_| Refusal::Forgery)?,
            (None, None) => return Err(Refusal::Forgery),
        };
        let ours = self
            .authorities
            .iter()
            .any(|a| from.eq_ignore_ascii_case(&format!("http://{a}")));
        if ours || from == self.origin {
            Ok(())
        } else {
            Err(Refusal::Forgery)
        }
    }

    /// A new single-use nonce for a form.
    pub fn issue(&self) -> Result<String, getrandom::Error> {
        let nonce = random_hex(16)?;
        let mut nonces = self.nonces.lock().unwrap_or_else(|e| e.into_inner());
        if nonces.order.len() >= MAX_NONCES
            && let Some(old) = nonces.order.pop_front()
        {
            nonces.live.remove(&old);
        }
        nonces.live.insert(nonce.clone());
        nonces.order.push_back(nonce.clone());
        Ok(nonce)
    }

    /// Takes a form's nonce: refused when it was never issued or was used.
    pub fn redeem(&self, nonce: &str) -> Result<(), Refusal> {
        let mut nonces = self.nonces.lock().unwrap_or_else(|e| e.into_inner());
        if nonces.live.remove(nonce) {
            nonces.order.retain(|n| n != nonce);
            Ok(())
        } else {
            Err(Refusal::Forgery)
        }
    }
}

/// `bytes` random bytes from the operating system, in hexadecimal.
pub(super) fn random_hex(bytes: usize) -> Result<String, getrandom::Error> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares two secrets in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn a_path_must_start_with_the_token() {
        let g = Guard::new(8080).unwrap();
        let t = g.token().to_owned();
        assert_eq!(g.strip(&format!("/{t}/")), Ok("/"));
        assert_eq!(g.strip(&format!("/{t}/p/3")), Ok("/p/3"));
        assert_eq!(g.strip(&format!("/{t}")), Ok("/"));
        assert_eq!(g.strip("/"), Err(Refusal::Token));
        assert_eq!(g.strip(&format!("/{}/", &t[1..])), Err(Refusal::Token));
        assert_eq!(g.strip(&format!("/x{t}/")), Err(Refusal::Token));
    }

    #[test]
    fn the_host_must_be_this_server() {
        let g = Guard::new(8080).unwrap();
        assert!(
            g.check_host(&headers(&[("host", "127.0.0.1:8080")]))
                .is_ok()
        );
        assert!(
            g.check_host(&headers(&[("host", "localhost:8080")]))
                .is_ok()
        );
        assert!(
            g.check_host(&headers(&[("host", "evil.test:8080")]))
                .is_err()
        );
        assert!(
            g.check_host(&headers(&[("host", "127.0.0.1:8081")]))
                .is_err()
        );
        assert!(g.check_host(&headers(&[])).is_err());
    }

    #[test]
    fn a_post_must_come_from_this_server() {
        let g = Guard::new(8080).unwrap();
        let ok = [
            vec![("origin", "http://127.0.0.1:8080")],
            vec![
                ("origin", "http://localhost:8080"),
                ("sec-fetch-site", "same-origin"),
            ],
            vec![("referer", "http://127.0.0.1:8080/t/p/1")],
        ];
        for h in ok {
            assert!(g.check_origin(&headers(&h)).is_ok(), "{h:?}");
        }
        let refused = [
            vec![("origin", "http://evil.test")],
            vec![
                ("origin", "http://127.0.0.1:8080"),
                ("sec-fetch-site", "cross-site"),
            ],
            vec![("referer", "http://evil.test/127.0.0.1:8080")],
            vec![("origin", "null")],
            vec![],
        ];
        for h in refused {
            assert_eq!(g.check_origin(&headers(&h)), Err(Refusal::Forgery), "{h:?}");
        }
    }

    #[test]
    fn a_nonce_is_taken_once() {
        let g = Guard::new(8080).unwrap();
        let n = g.issue().unwrap();
        assert_eq!(g.redeem(&n), Ok(()));
        assert_eq!(g.redeem(&n), Err(Refusal::Forgery));
        assert_eq!(g.redeem("made-up"), Err(Refusal::Forgery));
    }
}
