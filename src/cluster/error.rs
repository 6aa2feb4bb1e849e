//! What can go wrong with the PostgreSQL backend.
//!
//! ## What it refuses
//!
//! Only a failure to connect, a closed connection, an I/O failure under the
//! driver and server codes of class `08` or starting `57P` count as the
//! connection's ([`BackendError::is_connection`]); only a serialization
//! failure (`40001`) or a deadlock (`40P01`) counts as a conflict worth
//! running again. Every other error, a missing job, a wrapper that does not
//! load or an unsafe path among them, is neither: trying again would not cure
//! it.

use std::path::PathBuf;

/// Why the PostgreSQL backend failed.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// `--backend` is not a PostgreSQL connection string.
    #[error("--backend {shown}: {reason}; expected postgres://USER@HOST:PORT/DATABASE")]
    Url {
        /// The address, without its password.
        shown: String,
        /// What the driver said of it.
        reason: String,
    },
    /// PostgreSQL could not be reached before the patience ran out.
    #[error("cannot connect to PostgreSQL at {shown} (tried for {seconds} s): {source}")]
    Connect {
        /// The address, without its password.
        shown: String,
        /// How long connecting was tried.
        seconds: u64,
        /// The last failure.
        source: tokio_postgres::Error,
    },
    /// A statement failed.
    #[error("PostgreSQL: {}", said(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// The job asked for does not exist.
    #[error("no crawl job {0} in the backend")]
    NoJob(i64),
    /// The database holds no mend tables: no job was ever submitted to it.
    #[error("this database holds no mend crawl jobs (`mend crawl --backend` creates its tables)")]
    NoSchema,
    /// A new job has no start URL: none given, and none in the wrapper.
    #[error("no start URL: give URLs, or list them under the wrapper's `start`")]
    NoStartUrl,
    /// The submitter's HTTP client (for robots.txt and the start pages)
    /// could not start.
    #[error("cannot start the HTTP client: {0}")]
    HttpClient(String),
    /// The job's wrapper, as stored, does not load.
    #[error("the job's wrapper does not load: {0}")]
    Wrapper(String),
    /// A file of the job's healing state could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The job's stored healing state names a file outside its folder.
    #[error("the job's tree-gram path {0:?} leaves the wrapper's project folder")]
    UnsafePath(String),
    /// The job's records could not be written in the output's format.
    #[error("cannot write the job's records: {0}")]
    Sink(#[from] crate::crawl::SinkError),
    /// The job's heals could not be brought into the user's wrapper file
    /// and store.
    #[error("cannot bring the job's heals home: {0}")]
    Home(String),
    /// The store could not be imaged for the workers.
    #[error("cannot copy the store {path} for the workers: {source}")]
    StoreImage {
        /// The store.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
}

/// What PostgreSQL said: the server's message and detail when it sent
/// one (the driver's own text is only "db error"), else the driver's.
fn said(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({}): {detail}", db.message(), db.code().code()),
            None => format!("{} ({})", db.message(), db.code().code()),
        },
        None => e.to_string(),
    }
}

impl BackendError {
    /// Whether the failure is the connection's (PostgreSQL restarted, the
    /// network dropped), so that reconnecting may cure it.
    pub fn is_connection(&self) -> bool {
        match self {
            BackendError::Connect { .. } => true,
            BackendError::Postgres(e) => {
                e.is_closed()
                    || e.code().is_some_and(|c| {
                        let c = c.code();
                        // Class 08 (connection exception) and 57P01-57P03
                        // (the server shutting down or starting).
                        c.starts_with("08") || c.starts_with("57P")
                    })
                    || std::error::Error::source(e)
                        .is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some())
            }
            _ => false,
        }
    }

    /// Whether PostgreSQL rolled the transaction back to resolve a conflict
    /// with another (a deadlock, a serialization failure), so that running
    /// it again may succeed.
    pub fn is_conflict(&self) -> bool {
        matches!(self, BackendError::Postgres(e) if e.code().is_some_and(|c| {
            matches!(c.code(), "40001" | "40P01")
        }))
    }
}
