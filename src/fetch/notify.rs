//! A run's notification: one JSON POST to a URL the wrapper (`adapt.notify`)
//! or the command line (`--notify`) names, when the run leaves something
//! for a person: violations, proposals waiting, or field health drops.
//!
//! It is sent once per run, with a timeout on each attempt and a few
//! retries with growing pauses on a failure to connect, a timeout or a
//! server error (5xx, 429); any other answer is final. It refuses URLs that
//! are not http(s), and never follows a redirect (a webhook that moved is a
//! configuration to fix, not a place to send the run's data to).

use std::time::Duration;

use serde::Serialize;

/// How long one attempt may take.
pub const NOTIFY_TIMEOUT: Duration = Duration::from_secs(5);

/// The pauses before the second, third and fourth attempts.
pub const NOTIFY_BACKOFF: [Duration; 3] = [
    Duration::from_millis(250),
    Duration::from_secs(1),
    Duration::from_secs(3),
];

/// What a notification says.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Notice {
    /// What sent it (`mend run`).
    pub source: String,
    /// The wrapper's name.
    pub wrapper: String,
    /// The wrapper file.
    pub wrapper_file: String,
    /// Pages read.
    pub pages: usize,
    /// Constraint violations on them.
    pub violations: usize,
    /// Pages with violations.
    pub violated_pages: usize,
    /// Proposals stored for a person, new or joined.
    pub proposals: usize,
    /// Heals written to the wrapper.
    pub applied: usize,
    /// Field health drops.
    pub health_drops: usize,
    /// The proposals waiting, as `TAG:ID` for `mend show`.
    pub proposal_ids: Vec<String>,
    /// The store they are in.
    pub store: Option<String>,
}

impl Notice {
    /// Whether the run left anything for a person.
    pub fn is_due(&self) -> bool {
        self.violations > 0 || self.proposals > 0 || self.health_drops > 0
    }
}

/// Why a notification was not delivered.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// The URL is not an http(s) URL.
    #[error("--notify {0}: not an http(s) URL")]
    Url(String),
    /// Every attempt failed; the last one's reason.
    #[error("the notification to {url} was not delivered after {attempts} attempts: {last}")]
    Undelivered {
        /// Where it was sent.
        url: String,
        /// How many attempts were made.
        attempts: usize,
        /// What the last attempt met.
        last: String,
    },
}

/// POSTs `notice` as JSON to `url`, retrying as the module says; gives the
/// status code of the answer.
pub fn notify(url: &str, notice: &Notice) -> Result<u16, NotifyError> {
    notify_with(url, notice, NOTIFY_TIMEOUT, &NOTIFY_BACKOFF)
}

/// [`notify`] with its timeout and pauses given.
pub fn notify_with(
    url: &str,
    notice: &Notice,
    timeout: Duration,
    backoff: &[Duration],
) -> Result<u16, NotifyError> {
    let parsed = url::Url::parse(url).map_err(|_| NotifyError::Url(url.to_owned()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(NotifyError::Url(url.to_owned()));
    }
    let client = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("mend/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| NotifyError::Undelivered {
            url: url.to_owned(),
            attempts: 0,
            last: e.to_string(),
        })?;
    // The `json` feature of reqwest would do this and pull in nothing more
    // than serde_json, which mend has; the body is written here instead of
    // widening the HTTP client's features for one request.
    let body = serde_json::to_vec(notice).unwrap_or_default();
    let mut last = String::new();
    for attempt in 0..=backoff.len() {
        if attempt > 0 {
            std::thread::sleep(backoff[attempt - 1]);
        }
        let request = client
            .post(parsed.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.clone());
        match request.send() {
            Ok(answer) => {
                let status = answer.status();
                if !(status.is_server_error() || status.as_u16() == 429) {
                    return Ok(status.as_u16());
                }
                last = format!("HTTP {status}");
            }
            Err(e) => last = e.to_string(),
        }
        tracing::warn!(url, attempt = attempt + 1, error = %last, "a notification attempt failed");
    }
    Err(NotifyError::Undelivered {
        url: url.to_owned(),
        attempts: backoff.len() + 1,
        last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// A server on 127.0.0.1 that answers each of `statuses` to one request
    /// in turn, then stops; gives its URL and the bodies it received.
    fn server(statuses: Vec<u16>) -> (String, std::thread::JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let mut bodies = Vec::new();
            for status in statuses {
                let (mut stream, _) = listener.accept().unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                // Read the head, then as many body bytes as it announces.
                loop {
                    let n = stream.read(&mut buf).unwrap_or(0);
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        if request.len() >= end + 4 + length || n == 0 {
                            bodies.push(text[end + 4..].to_owned());
                            break;
                        }
                    } else if n == 0 {
                        break;
                    }
                }
                let answer = format!(
                    "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                );
                let _ = stream.write_all(answer.as_bytes());
            }
            bodies
        });
        (url, handle)
    }

    fn notice() -> Notice {
        Notice {
            source: "mend run".into(),
            wrapper: "shop".into(),
            violations: 2,
            proposal_ids: vec!["a5b4a8:3".into()],
            ..Notice::default()
        }
    }

    #[test]
    fn a_notice_is_posted_as_json_once() {
        let (url, answered) = server(vec![204]);
        let fast = [Duration::from_millis(1); 3];
        assert_eq!(
            notify_with(&url, &notice(), Duration::from_secs(5), &fast).unwrap(),
            204
        );
        let bodies = answered.join().unwrap();
        assert_eq!(bodies.len(), 1);
        let body: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
        assert_eq!(body["wrapper"], "shop");
        assert_eq!(body["proposal_ids"][0], "a5b4a8:3");
    }

    #[test]
    fn server_errors_are_retried_and_other_answers_are_final() {
        let (url, answered) = server(vec![503, 500, 200]);
        let fast = [Duration::from_millis(1); 3];
        assert_eq!(
            notify_with(&url, &notice(), Duration::from_secs(5), &fast).unwrap(),
            200
        );
        assert_eq!(answered.join().unwrap().len(), 3);
        let (url, answered) = server(vec![404]);
        assert_eq!(
            notify_with(&url, &notice(), Duration::from_secs(5), &fast).unwrap(),
            404
        );
        assert_eq!(answered.join().unwrap().len(), 1);
    }

    #[test]
    fn a_server_that_never_answers_well_is_undelivered_after_every_attempt() {
        let (url, answered) = server(vec![500, 500]);
        let fast = [Duration::from_millis(1); 1];
        let e = notify_with(&url, &notice(), Duration::from_secs(5), &fast).unwrap_err();
        assert!(
            matches!(e, NotifyError::Undelivered { attempts: 2, .. }),
            "{e}"
        );
        answered.join().unwrap();
    }

    #[test]
    fn only_http_urls_are_taken() {
        for url in ["file:///etc/passwd", "not a url", "ftp://127.0.0.1/x"] {
            assert!(
                matches!(notify(url, &notice()), Err(NotifyError::Url(_))),
                "{url}"
            );
        }
    }
}
