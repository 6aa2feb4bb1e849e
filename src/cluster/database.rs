//! Connecting to PostgreSQL, with backoff, and the schema's migrations.
//!
//! The migrations are SQL files in `migrations/postgres/`, compiled in and
//! applied in order by whichever process starts first, under an advisory
//! lock, each recorded in `mend_migrations`; a process that finds them
//! applied does nothing. A migration is never edited once released: a
//! change is a new file.
//!
//! ## What it refuses
//!
//! A connection string the driver cannot read is refused at once
//! ([`BackendError::Url`]), with no retry, and so are credentials the
//! server refuses; any other failure to connect is tried again until the
//! next wait would run past the patience, then given as
//! [`BackendError::Connect`]. A string without a password takes one from
//! `PGPASSWORD` or the password file (`credentials.rs`). It connects without TLS. A migration is known
//! by its version alone: one applied is never run again, nor checked against
//! its file. Errors show the connection string with its password masked.

use std::time::{Duration, Instant};

use std::sync::Arc;

use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls};

use super::BackendError;
use super::credentials::{fill_password, redact};

/// The schema's migrations: version, name, SQL.
pub const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "crawl_jobs",
        include_str!("../../migrations/postgres/0001_crawl_jobs.sql"),
    ),
    (
        2,
        "workers_as_the_local_crawl",
        include_str!("../../migrations/postgres/0002_workers_as_the_local_crawl.sql"),
    ),
    (
        3,
        "render_votes",
        include_str!("../../migrations/postgres/0003_render_votes.sql"),
    ),
    (
        4,
        "urls_keyed_by_hash",
        include_str!("../../migrations/postgres/0004_urls_keyed_by_hash.sql"),
    ),
    (
        5,
        "jobs_know_their_start_urls",
        include_str!("../../migrations/postgres/0005_jobs_know_their_start_urls.sql"),
    ),
    (
        6,
        "leases_from_indexes",
        include_str!("../../migrations/postgres/0006_leases_from_indexes.sql"),
    ),
    (
        7,
        "jobs_come_home",
        include_str!("../../migrations/postgres/0007_jobs_come_home.sql"),
    ),
];

/// The advisory lock key the migrations are applied under ("mendmigr").
const MIGRATION_LOCK: i64 = 0x6d65_6e64_6d69_6772;

/// The longest wait between two connection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// Connects to the database at `url`, trying again with a doubling wait
/// (100 ms up to 2 s) for as long as `patience` allows: a worker started
/// before its database, or one whose database restarts, waits for it.
pub async fn connect(url: &str, patience: Duration) -> Result<Client, BackendError> {
    let (client, connection) = connect_raw(url, patience).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "the PostgreSQL connection ended");
        }
    });
    Ok(client)
}

/// A connection whose messages are polled by whoever holds it.
type Connection =
    tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>;

/// A connection listening for notifications: [`Listener::wake`] wakes
/// its waiters at each one whose payload is the one asked for. Dropping
/// it stops listening.
pub struct Listener {
    /// Woken at each notification.
    pub wake: Arc<Notify>,
    task: JoinHandle<()>,
    /// Kept so that the connection stays open.
    _client: Client,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Listens on `channel` for notifications whose payload is `payload`. A
/// lost listening connection is not replaced: waiters then wake on their
/// own timeouts only.
pub async fn listen(
    url: &str,
    patience: Duration,
    channel: &str,
    payload: String,
) -> Result<Listener, BackendError> {
    let (client, mut connection) = connect_raw(url, patience).await?;
    let wake = Arc::new(Notify::new());
    let woken = wake.clone();
    let task = tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(n))) if n.payload() == payload => {
                    woken.notify_waiters();
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "the listening connection ended");
                    return;
                }
                None => return,
            }
        }
    });
    // The channel is a name mend chooses; quoted all the same.
    let quoted = format!("LISTEN \"{}\"", channel.replace('"', "\"\""));
    client.batch_execute(&quoted).await?;
    Ok(Listener {
        wake,
        task,
        _client: client,
    })
}

async fn connect_raw(url: &str, patience: Duration) -> Result<(Client, Connection), BackendError> {
    let mut config: Config = url
        .parse()
        .map_err(|e: tokio_postgres::Error| BackendError::Url {
            shown: redact(url),
            reason: e.to_string(),
        })?;
    fill_password(&mut config);
    let started = Instant::now();
    let mut wait = Duration::from_millis(100);
    loop {
        match config.connect(NoTls).await {
            Ok(pair) => return Ok(pair),
            // A wrong password or user stays wrong: no waiting for it.
            Err(source) if refused(&source) || started.elapsed() + wait > patience => {
                return Err(BackendError::Connect {
                    shown: redact(url),
                    seconds: started.elapsed().as_secs(),
                    source,
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, wait_ms = wait.as_millis() as u64, "PostgreSQL is not reachable; trying again");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// Whether the server refused the credentials, which no retry changes.
fn refused(error: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    error.code().is_some_and(|code| {
        *code == SqlState::INVALID_PASSWORD
            || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
    })
}

/// Applies the migrations not applied yet, in one transaction under an
/// advisory lock, so that processes starting together apply each once.
pub async fn migrate(client: &mut Client) -> Result<(), BackendError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS mend_migrations (
             version    INTEGER PRIMARY KEY,
             name       TEXT NOT NULL,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
         )",
    )
    .await?;
    let applied: Vec<i32> = tx
        .query("SELECT version FROM mend_migrations", &[])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for (version, name, sql) in MIGRATIONS {
        if applied.contains(version) {
            continue;
        }
        tracing::info!(version, name, "applying a migration");
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO mend_migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Connects and migrates: what every command of the backend does first.
pub async fn open(url: &str, patience: Duration) -> Result<Client, BackendError> {
    let mut client = connect(url, patience).await?;
    migrate(&mut client).await?;
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_in_order_from_one() {
        for (i, (version, _, sql)) in MIGRATIONS.iter().enumerate() {
            assert_eq!(*version as usize, i + 1);
            assert!(
                sql.trim_start().starts_with("--"),
                "migration {version} begins by saying why it exists"
            );
        }
    }
}
