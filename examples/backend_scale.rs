//! Simulated workers against the PostgreSQL backend's queue: the lease and
//! acknowledgement statements mend's workers send, at the scale of a large
//! crawl, with the fetching replaced by a sleep.
//!
//! ```sh
//! cargo run --release --example backend_scale -- --backend URL fill --urls N --hosts H
//! cargo run --release --example backend_scale -- --backend URL run --job ID \
//!     --workers W --pages P [--fetch-ms F] [--links L] [--batch B]
//! ```
//!
//! `fill` makes a job (no delay, a concurrency of 2 per host) and a frontier
//! of `--urls` queued URLs spread evenly over `--hosts` hosts, written by
//! the database itself (`generate_series`) in chunks, then vacuumed; it
//! prints the job's id.
//!
//! `run` starts `--workers` simulated workers, each with its own
//! connection, as `mend worker` has, registered as workers of the job. Each
//! loops: [`claim`] a batch of up to `--batch` URLs (a worker's tasks,
//! within the host's concurrency), sleep `--fetch-ms` (their requests, at
//! once), and [`acknowledge_all`] of them in one statement, each with
//! `--links` links (all but one to URLs of the same host already in the
//! frontier, one new) and a record line of about 600 bytes. A worker also renews its leases
//! and writes its counts every 10 s, as a worker does. The run stops once
//! `--pages` pages are acknowledged in all.
//!
//! It prints one JSON line: pages, seconds, pages per second, the latency
//! of every lease call (`lease_p50_ms`, `lease_p99_ms`; a call is one
//! [`claim`], whatever it returned) and of every acknowledgement, and, when
//! the server has `pg_stat_statements`, the statements the server ran for
//! the run (counted from its reset at the start to the end) per page.
//! Errors exit with status 2.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mend::cluster::{self, Ack, Claim, acknowledge_all, claim};
use mend::crawl::ItemRule;
use tokio::sync::Mutex;
use url::Url;

const LEASE: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
struct Args {
    backend: String,
    command: String,
    urls: u64,
    hosts: u64,
    job: i64,
    workers: usize,
    pages: u64,
    fetch_ms: u64,
    links: usize,
    batch: i32,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        fetch_ms: 20,
        links: 10,
        batch: 2,
        ..Args::default()
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|e| format!("{v}: {e}"));
        match a.as_str() {
            "--backend" => args.backend = value()?,
            "--urls" => args.urls = number(value()?)?,
            "--hosts" => args.hosts = number(value()?)?,
            "--job" => args.job = value()?.parse().map_err(|e| format!("--job: {e}"))?,
            "--workers" => args.workers = number(value()?)? as usize,
            "--pages" => args.pages = number(value()?)?,
            "--fetch-ms" => args.fetch_ms = number(value()?)?,
            "--links" => args.links = number(value()?)? as usize,
            "--batch" => args.batch = number(value()?)? as i32,
            "fill" | "run" => args.command = a.clone(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.backend.is_empty() || args.command.is_empty() {
        return Err("usage: backend_scale --backend URL (fill|run) ...".to_owned());
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let done = runtime.block_on(async {
        match args.command.as_str() {
            "fill" => fill(&args).await,
            _ => run(&args).await,
        }
    });
    match done {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The URL of page `i` of host `h`.
fn page_url(h: u64, i: u64) -> String {
    format!("https://site{h}.example/articles/{i}/a-fairly-long-slug-for-the-page")
}

async fn fill(args: &Args) -> Result<String, String> {
    let client = cluster::open(&args.backend, Duration::from_secs(10))
        .await
        .map_err(|e| e.to_string())?;
    let job: i64 = client
        .query_one(
            "INSERT INTO mend_jobs (wrapper_name, output, wrapper_yaml, wrapper_file, heal,
                 items_all, items_rule, seed_hosts, delay_ms, host_concurrency)
             VALUES ('scale', 'scale.ndjson', '', 'scale.yaml', 'off', true, 'all', '{}', 0, 2)
             RETURNING id",
            &[],
        )
        .await
        .map_err(|e| e.to_string())?
        .get(0);
    let hosts = args.hosts.max(1) as i64;
    let chunk = 500_000i64;
    let total = args.urls as i64;
    let mut start = 0i64;
    while start < total {
        let end = (start + chunk).min(total);
        // Page i belongs to host i % hosts and is its (i / hosts)-th page, so
        // that `page_url` names it.
        client
            .execute(
                "INSERT INTO mend_frontier (job_id, url, host, depth, priority)
                 SELECT $1,
                        'https://site' || (i % $4) || '.example/articles/' || (i / $4)
                            || '/a-fairly-long-slug-for-the-page',
                        'https://site' || (i % $4) || '.example', 1, -1
                 FROM generate_series($2::bigint, $3::bigint - 1) AS i",
                &[&job, &start, &end, &hosts],
            )
            .await
            .map_err(|e| e.to_string())?;
        start = end;
    }
    // Each host counts its queued URLs, as the workers' statements keep it.
    client
        .execute(
            "INSERT INTO mend_hosts (job_id, host, delay_ms, concurrency, queued)
             SELECT $1, host, 0, 2, count(*) FROM mend_frontier WHERE job_id = $1 GROUP BY host",
            &[&job],
        )
        .await
        .map_err(|e| e.to_string())?;
    // A frontier that grew over a long crawl has been vacuumed as it grew;
    // without this, the first minutes of the run would pay for the fill.
    for table in ["mend_frontier", "mend_hosts"] {
        client
            .batch_execute(&format!("VACUUM (ANALYZE) {table}"))
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(format!(
        "{{\"job\": {job}, \"urls\": {total}, \"hosts\": {hosts}}}"
    ))
}

/// What the workers measured.
#[derive(Default)]
struct Timings {
    lease_ms: Vec<f64>,
    ack_ms: Vec<f64>,
}

async fn run(args: &Args) -> Result<String, String> {
    let admin = cluster::open(&args.backend, Duration::from_secs(10))
        .await
        .map_err(|e| e.to_string())?;
    let hosts: i64 = admin
        .query_one(
            "SELECT count(*) FROM mend_hosts WHERE job_id = $1",
            &[&args.job],
        )
        .await
        .map_err(|e| e.to_string())?
        .get(0);
    let statements = admin
        .query_one("SELECT pg_stat_statements_reset()", &[])
        .await
        .is_ok();
    let acked = Arc::new(AtomicU64::new(0));
    let timings = Arc::new(Mutex::new(Timings::default()));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for w in 0..args.workers.max(1) {
        let (acked, timings) = (acked.clone(), timings.clone());
        let backend = args.backend.clone();
        let (job, target, fetch, links, batch) =
            (args.job, args.pages, args.fetch_ms, args.links, args.batch);
        let hosts = u64::try_from(hosts).unwrap_or(1).max(1);
        workers.spawn(async move {
            let sim = Sim {
                name: format!("sim-{w}"),
                job,
                fetch: Duration::from_millis(fetch),
                links,
                batch,
                hosts,
            };
            sim.work(&backend, &acked, target, &timings).await
        });
    }
    while let Some(joined) = workers.join_next().await {
        joined.map_err(|e| e.to_string())??;
    }
    let seconds = started.elapsed().as_secs_f64();
    let pages = acked.load(Ordering::Relaxed);
    let run_statements: Option<i64> = if statements {
        // The reset and this query are not the workers'.
        let row = admin
            .query_one(
                "SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
                 WHERE query NOT LIKE '%pg_stat_statements%'",
                &[],
            )
            .await
            .map_err(|e| e.to_string())?;
        Some(row.get(0))
    } else {
        None
    };
    let mut t = timings.lock().await;
    let per_page = run_statements.map_or("null".to_owned(), |n| {
        format!("{:.2}", n as f64 / pages.max(1) as f64)
    });
    Ok(format!(
        "{{\"workers\": {}, \"hosts\": {hosts}, \"pages\": {pages}, \"seconds\": {seconds:.2}, \
         \"pages_per_second\": {:.1}, \"leases\": {}, \"lease_p50_ms\": {:.2}, \
         \"lease_p99_ms\": {:.2}, \"ack_p50_ms\": {:.2}, \"ack_p99_ms\": {:.2}, \
         \"statements\": {}, \"statements_per_page\": {per_page}}}",
        args.workers,
        pages as f64 / seconds,
        t.lease_ms.len(),
        percentile(&mut t.lease_ms, 0.50),
        percentile(&mut t.lease_ms, 0.99),
        percentile(&mut t.ack_ms, 0.50),
        percentile(&mut t.ack_ms, 0.99),
        run_statements.map_or("null".to_owned(), |n| n.to_string()),
    ))
}

fn percentile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let i = ((values.len() - 1) as f64 * q).round() as usize;
    values[i]
}

/// One simulated worker.
struct Sim {
    name: String,
    job: i64,
    fetch: Duration,
    links: usize,
    batch: i32,
    hosts: u64,
}

impl Sim {
    async fn work(
        &self,
        backend: &str,
        acked: &AtomicU64,
        target: u64,
        timings: &Mutex<Timings>,
    ) -> Result<(), String> {
        let mut client = cluster::QueueClient::new(
            cluster::open(backend, Duration::from_secs(10))
                .await
                .map_err(|e| e.to_string())?,
        );
        cluster::register(client.client(), self.job, &self.name)
            .await
            .map_err(|e| e.to_string())?;
        let mut mine = Timings::default();
        let mut renewed = Instant::now();
        let mut done = 0u64;
        while acked.load(Ordering::Relaxed) < target {
            let t = Instant::now();
            let claim = claim(&mut client, self.job, &self.name, LEASE, self.batch)
                .await
                .map_err(|e| e.to_string())?;
            mine.lease_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let leases = match claim {
                Claim::Done => break,
                Claim::Wait(d) => {
                    tokio::time::sleep(d).await;
                    continue;
                }
                Claim::Leased(l) => l,
            };
            // The batch's requests run at once, as a worker's tasks run
            // them, and end together: one acknowledgement for all.
            tokio::time::sleep(self.fetch).await;
            let acks: Vec<Ack> = leases
                .iter()
                .enumerate()
                .map(|(i, lease)| self.ack_for(&lease.url, done + i as u64))
                .collect();
            let refs: Vec<&Ack> = acks.iter().collect();
            let t = Instant::now();
            let kept = acknowledge_all(&mut client, self.job, &self.name, &refs, &ItemRule::All)
                .await
                .map_err(|e| e.to_string())?;
            mine.ack_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            for outcome in kept {
                if outcome.map_err(|e| e.to_string())? {
                    done += 1;
                    acked.fetch_add(1, Ordering::Relaxed);
                }
            }
            if renewed.elapsed() >= LEASE / 3 {
                let n = i64::try_from(done).unwrap_or(i64::MAX);
                cluster::renew(
                    client.client(),
                    self.job,
                    &self.name,
                    LEASE,
                    [n, n, 0, 0, 0],
                )
                .await
                .map_err(|e| e.to_string())?;
                renewed = Instant::now();
            }
        }
        let mut all = timings.lock().await;
        all.lease_ms.extend(mine.lease_ms);
        all.ack_ms.extend(mine.ack_ms);
        Ok(())
    }

    /// The acknowledgement of a fetched page: links to pages of its host
    /// already met, one new link, and a record.
    fn ack_for(&self, url: &Url, n: u64) -> Ack {
        let host = url
            .host_str()
            .and_then(|h| h.strip_prefix("site"))
            .and_then(|h| h.strip_suffix(".example"))
            .and_then(|h| h.parse::<u64>().ok())
            .unwrap_or(0);
        let mut links: Vec<(Url, u32)> = (1..self.links as u64)
            .filter_map(|k| Url::parse(&page_url(host, (n * 7 + k * 13) % 97)).ok())
            .map(|u| (u, 2))
            .collect();
        let fresh = format!(
            "https://site{}.example/new/{}/{n}",
            (host + n) % self.hosts,
            self.name
        );
        links.extend(Url::parse(&fresh).ok().map(|u| (u, 2)));
        let line = format!(
            "{{\"url\":\"{url}\",\"records\":[{{\"title\":\"{}\",\"body\":\"{}\"}}]}}",
            "A title of a page",
            "text ".repeat(100)
        );
        Ack {
            url: url.clone(),
            state: "done",
            status: Some(200),
            error: None,
            item: true,
            final_url: None,
            links,
            record: Some((line, 1, 0)),
            adaptations: Vec::new(),
            wrapper_version: 1,
            cache: None,
        }
    }
}
