//! Serves the fixture site (`tests/fixture_site/`) on 127.0.0.1, for crawl
//! benchmarks and for trying `mend crawl` by hand.
//!
//! ```sh
//! cargo run --release --example fixture_site -- [--port P] [--seconds N] \
//!     [--variant blog|sprawl] [--posts N] [--fast] [--crawl-delay SECONDS] \
//!     [--latency-ms MS] [--rate-limited] [--redesigned] [--root DIR]
//! ```
//!
//! The first line on standard output is the home page's URL,
//! `http://127.0.0.1:PORT/`, so that a script can read it; the server then
//! serves until `--seconds` (600 by default) have passed and stops by itself.
//! `--port 0` (the default) takes any free port. `--fast` turns the slow,
//! failing and huge trap pages off, so that a throughput measurement times
//! the crawler rather than the traps; `--rate-limited` keeps one of them
//! with `--fast`: a post that answers 429 (`Retry-After: 1`) once.
//! `--redesigned` serves the posts with the blog's redesign (the title and
//! the author under other markup), for trying healing on a crawl.
//! `--root DIR` serves the files of a folder instead of the blog (a site
//! written by `bench/shop_site.py`), with the same server.

// The site's API is made for tests; this program serves it and no more.
#[allow(dead_code, unused_imports)]
#[path = "../tests/fixture_site/mod.rs"]
mod fixture_site;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use fixture_site::{FixtureSite, SiteOptions, Variant};

const USAGE: &str = "usage: fixture_site [--port P] [--seconds N] [--variant blog|sprawl] \
                     [--posts N] [--fast] [--crawl-delay SECONDS] [--latency-ms MS] [--rate-limited] [--redesigned] [--root DIR]";

fn main() -> ExitCode {
    let (options, seconds) = match parse(std::env::args().skip(1)) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("fixture_site: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let summary = match &options.root {
        Some(root) => format!("the files of {}", root.display()),
        None => format!(
            "{} site, {} posts{}",
            options.variant.name(),
            options.posts,
            if options.fast { ", traps off" } else { "" }
        ),
    };
    let site = match FixtureSite::try_start(options) {
        Ok(site) => site,
        Err(e) => {
            eprintln!("fixture_site: cannot listen on 127.0.0.1: {e}");
            return ExitCode::from(3);
        }
    };
    let mut stdout = std::io::stdout();
    if writeln!(stdout, "{}", site.url())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(3);
    }
    eprintln!("fixture_site: {summary}; stops in {seconds} s");
    std::thread::sleep(Duration::from_secs(seconds));
    let requests = site.requests().len();
    drop(site);
    eprintln!("fixture_site: stopped after {requests} requests");
    ExitCode::SUCCESS
}

/// The options and the number of seconds to serve, from the arguments;
/// `None` when help is asked for.
fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<(SiteOptions, u64)>, String> {
    let mut options = SiteOptions::default();
    let mut seconds = 600;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--port" => {
                let v = value("--port")?;
                options.port = v.parse().map_err(|_| format!("--port {v}: not a port"))?;
            }
            "--seconds" => {
                let v = value("--seconds")?;
                seconds = v
                    .parse()
                    .map_err(|_| format!("--seconds {v}: not a whole number"))?;
            }
            "--variant" => {
                let v = value("--variant")?;
                options.variant =
                    Variant::parse(&v).ok_or(format!("--variant {v}: blog or sprawl"))?;
            }
            "--posts" => {
                let v = value("--posts")?;
                options.posts = v
                    .parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or(format!("--posts {v}: a whole number from 1"))?;
            }
            "--crawl-delay" => {
                let v = value("--crawl-delay")?;
                let delay = v
                    .parse::<f64>()
                    .ok()
                    .filter(|d| d.is_finite() && *d >= 0.0)
                    .ok_or(format!("--crawl-delay {v}: seconds, 0 or more"))?;
                options.crawl_delay = Some(Duration::from_secs_f64(delay));
            }
            "--latency-ms" => {
                let v = value("--latency-ms")?;
                let ms: u64 = v
                    .parse()
                    .map_err(|_| format!("--latency-ms {v}: a whole number of milliseconds"))?;
                options.latency = Duration::from_millis(ms);
            }
            "--fast" => options.fast = true,
            "--rate-limited" => options.rate_limited = true,
            "--redesigned" => options.redesigned = true,
            "--root" => options.root = Some(value("--root")?.into()),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Some((options, seconds)))
}
