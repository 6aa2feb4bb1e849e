//! How hard the crawl presses each host: requests in flight at once, the
//! delay between two requests, and a delay that adapts to the host.
//!
//! The adaptive delay follows Scrapy's AutoThrottle: after each response the
//! delay moves halfway towards `latency / concurrency`, the delay at which
//! `concurrency` requests would be in flight on average; it never goes below
//! the configured delay (nor robots.txt's Crawl-delay) and never above
//! [`MAX_DELAY`]. An error response never lowers it, and a 429 or 503 doubles
//! it, so a host that says it is overloaded is given room; the successes
//! that follow bring it back down.
//!
//! Without AutoThrottle the delay is the configured one for the whole
//! crawl. A 429 or 503 holds the host back once (for its `Retry-After`, see
//! [`Slot::hold_off`]) and changes nothing after: a host that was briefly
//! overloaded is not crawled slower for good.
//!
//! This module refuses nothing; it only waits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::wrapper::Politeness;

/// The longest the adaptive delay grows to.
pub const MAX_DELAY: Duration = Duration::from_secs(60);

/// The gates of every host a crawl has met.
#[derive(Debug)]
pub struct Hosts {
    settings: Politeness,
    hosts: Mutex<HashMap<String, Arc<Host>>>,
}

/// One host's gate: its permits and when its next request may start.
#[derive(Debug)]
struct Host {
    permits: Arc<Semaphore>,
    state: Mutex<HostState>,
}

#[derive(Debug)]
struct HostState {
    /// The delay in force between two request starts.
    delay: Duration,
    /// The least delay: the configured one, or robots.txt's Crawl-delay.
    floor: Duration,
    /// When the next request may start.
    next: Instant,
}

/// A request's right to go: hold it until the response is read.
#[derive(Debug)]
pub struct Slot {
    host: Arc<Host>,
    autothrottle: bool,
    _permit: OwnedSemaphorePermit,
    concurrency: u32,
}

impl Hosts {
    /// Gates for a crawl with these settings.
    pub fn new(settings: Politeness) -> Hosts {
        Hosts {
            settings,
            hosts: Mutex::new(HashMap::new()),
        }
    }

    fn host(&self, host: &str) -> Arc<Host> {
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        hosts
            .entry(host.to_owned())
            .or_insert_with(|| {
                Arc::new(Host {
                    permits: Arc::new(Semaphore::new(self.settings.concurrency.max(1) as usize)),
                    state: Mutex::new(HostState {
                        delay: self.settings.delay,
                        floor: self.settings.delay,
                        next: Instant::now(),
                    }),
                })
            })
            .clone()
    }

    /// Raises a host's least delay to robots.txt's Crawl-delay.
    pub fn set_crawl_delay(&self, host: &str, delay: Duration) {
        let host = self.host(host);
        let mut state = host.state.lock().unwrap_or_else(|e| e.into_inner());
        state.floor = state.floor.max(delay.min(MAX_DELAY));
        state.delay = state.delay.max(state.floor);
    }

    /// Waits until a request to `host` may start, and takes its slot.
    pub async fn acquire(&self, host: &str) -> Slot {
        let gate = self.host(host);
        // A closed semaphore never happens: the gate owns it for good.
        let permit = gate
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("a host's semaphore is never closed");
        loop {
            let wait = {
                let mut state = gate.state.lock().unwrap_or_else(|e| e.into_inner());
                let now = Instant::now();
                if state.next <= now {
                    state.next = now + state.delay;
                    None
                } else {
                    Some(state.next)
                }
            };
            match wait {
                None => break,
                Some(at) => tokio::time::sleep_until(at).await,
            }
        }
        Slot {
            host: gate,
            autothrottle: self.settings.autothrottle,
            _permit: permit,
            concurrency: self.settings.concurrency.max(1),
        }
    }

    /// The delay in force for `host`, for reports.
    pub fn delay(&self, host: &str) -> Duration {
        let host = self.host(host);
        let state = host.state.lock().unwrap_or_else(|e| e.into_inner());
        state.delay
    }
}

impl Slot {
    /// Tells the gate how the request went: its latency and status (`None`
    /// for a request that failed without one).
    pub fn done(self, latency: Duration, status: Option<u16>) {
        let mut state = self.host.state.lock().unwrap_or_else(|e| e.into_inner());
        match status {
            Some(429 | 503) if self.autothrottle => {
                state.delay = (state.delay * 2)
                    .max(Duration::from_millis(250))
                    .min(MAX_DELAY);
            }
            // The fetcher holds the host back for the answer's
            // `Retry-After`; the configured delay stays as it is.
            Some(429 | 503) => {}
            Some(s) if self.autothrottle && (200..400).contains(&s) => {
                let target = latency / self.concurrency;
                let next = (state.delay + target) / 2;
                state.delay = next.max(state.floor).min(MAX_DELAY);
            }
            _ => {
                // An error says nothing about how fast the host can go, but
                // a slow one should not lower the delay either.
                if self.autothrottle {
                    let target = latency / self.concurrency;
                    state.delay = state.delay.max(target).min(MAX_DELAY);
                }
            }
        }
    }

    /// Pushes the host's next request back to at least `after` from now (a
    /// `Retry-After`).
    pub fn hold_off(&self, after: Duration) {
        let mut state = self.host.state.lock().unwrap_or_else(|e| e.into_inner());
        let until = Instant::now() + after.min(MAX_DELAY);
        if state.next < until {
            state.next = until;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(delay_ms: u64, concurrency: u32) -> Politeness {
        Politeness {
            delay: Duration::from_millis(delay_ms),
            concurrency,
            ..Politeness::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn requests_to_one_host_are_spaced_by_the_delay() {
        let hosts = Hosts::new(settings(200, 4));
        let start = Instant::now();
        let mut starts = Vec::new();
        for _ in 0..3 {
            let slot = hosts.acquire("a").await;
            starts.push(start.elapsed());
            drop(slot);
        }
        assert_eq!(
            starts,
            [
                Duration::ZERO,
                Duration::from_millis(200),
                Duration::from_millis(400)
            ]
        );
        // Another host does not wait for this one.
        let other = Instant::now();
        drop(hosts.acquire("b").await);
        assert_eq!(other.elapsed(), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn the_delay_adapts_to_latency_but_not_below_its_floor() {
        let hosts = Hosts::new(settings(100, 2));
        // A slow host: 2 s per response, 2 in flight, aims at 1 s apart.
        for _ in 0..12 {
            hosts
                .acquire("a")
                .await
                .done(Duration::from_secs(2), Some(200));
        }
        let slow = hosts.delay("a");
        assert!(
            slow > Duration::from_millis(900) && slow <= Duration::from_secs(1),
            "{slow:?}"
        );
        // A fast host goes back down to the floor, not below.
        for _ in 0..30 {
            hosts
                .acquire("a")
                .await
                .done(Duration::from_millis(1), Some(200));
        }
        assert_eq!(hosts.delay("a"), Duration::from_millis(100));
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_without_autothrottle_holds_the_host_back_once_then_the_delay_returns() {
        let hosts = Hosts::new(Politeness {
            autothrottle: false,
            ..settings(30, 1)
        });
        let start = Instant::now();
        let slot = hosts.acquire("a").await;
        slot.hold_off(Duration::from_secs(1));
        slot.done(Duration::from_millis(5), Some(429));
        assert_eq!(hosts.delay("a"), Duration::from_millis(30));
        let mut starts = Vec::new();
        for _ in 0..3 {
            hosts
                .acquire("a")
                .await
                .done(Duration::from_millis(5), Some(200));
            starts.push(start.elapsed().as_millis());
        }
        assert_eq!(starts, [1000, 1030, 1060]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_under_autothrottle_doubles_the_delay_and_successes_bring_it_back() {
        let hosts = Hosts::new(settings(300, 1));
        hosts
            .acquire("a")
            .await
            .done(Duration::from_millis(5), Some(429));
        assert_eq!(hosts.delay("a"), Duration::from_millis(600));
        for _ in 0..12 {
            hosts
                .acquire("a")
                .await
                .done(Duration::from_millis(5), Some(200));
        }
        assert_eq!(hosts.delay("a"), Duration::from_millis(300));
    }

    #[tokio::test(start_paused = true)]
    async fn crawl_delay_raises_the_floor() {
        let hosts = Hosts::new(settings(300, 1));
        hosts.set_crawl_delay("b", Duration::from_secs(2));
        hosts
            .acquire("b")
            .await
            .done(Duration::from_millis(1), Some(200));
        assert_eq!(hosts.delay("b"), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_holds_the_host_back() {
        let hosts = Hosts::new(settings(0, 1));
        let slot = hosts.acquire("a").await;
        slot.hold_off(Duration::from_secs(3));
        drop(slot);
        let start = Instant::now();
        drop(hosts.acquire("a").await);
        assert_eq!(start.elapsed(), Duration::from_secs(3));
    }
}
