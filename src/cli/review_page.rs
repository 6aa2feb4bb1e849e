//! `mend review`: serve the store's adaptations as a local web page
//! (`mend::review::server`), on 127.0.0.1 only, at an address with a random
//! token, until interrupted or for `--seconds`.
//!
//! ## What it refuses
//!
//! It serves nothing and exits 2 for a store that is missing, not a mend
//! store, or one of two that could be meant; a port it cannot listen on, or
//! no randomness for the token, is exit 3. It never listens beyond
//! 127.0.0.1, and a browser that `--open` cannot start is a note, not an
//! error.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;

use mend::review::server::ReviewServer;

use super::review::{self, StoreArg};

/// Serve the store's adaptations as a local web page.
#[derive(clap::Args, Debug)]
#[command(after_long_help = review::STORE_RULE)]
pub struct Args {
    #[command(flatten)]
    store: StoreArg,
    /// The port on 127.0.0.1 (default: a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Open the page in the desktop's browser (xdg-open).
    #[arg(long)]
    open: bool,
    /// Stop after this many seconds (default: serve until interrupted).
    #[arg(long, value_name = "SECONDS")]
    seconds: Option<u64>,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (mut store, path) = match review::open_store(&args.store) {
        Ok(opened) => opened,
        Err(code) => return Ok(code),
    };
    // A decision made on the page is the person's who serves it.
    let who = review::person().unwrap_or_else(|| "someone".to_owned());
    store.act_as(Some(format!("{who} via the review page")));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let server = match ReviewServer::bind(store, path.clone(), args.port).await {
            Ok(server) => server,
            Err(e) => {
                say!("error: {e}");
                return Ok(ExitCode::from(super::EXIT_FAILURE));
            }
        };
        let url = server.url();
        // The address goes to standard output alone, for a script to read.
        out!("{url}");
        if args.open
            && let Err(e) = std::process::Command::new("xdg-open").arg(&url).spawn()
        {
            say!("note: cannot open a browser ({e}); open {url}");
        }
        let seconds = args.seconds;
        let stop = async move {
            match seconds {
                Some(s) => tokio::time::sleep(Duration::from_secs(s)).await,
                None => std::future::pending::<()>().await,
            }
        };
        match server.serve(stop).await {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(e) => {
                say!("error: {e}");
                Ok(ExitCode::from(super::EXIT_FAILURE))
            }
        }
    })
}
