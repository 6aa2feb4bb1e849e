//! A job's end, for the person who asked for it: once nothing is queued or
//! leased, the job is marked finished, its heals come home into the user's
//! wrapper file and store (`home.rs`), its records are written in URL order
//! citing the user's store as it stands now, its images are written beside
//! the output, and its status is read.
//!
//! `mend crawl --backend` calls [`end_job`] after its own worker returns;
//! what it prints of the result is its own.
//!
//! ## What it refuses
//!
//! It writes nothing before the job is finished: it waits out the leases
//! other workers still hold. The heals come home before any record is
//! written, so that no record cites a worker's private store. An output
//! file is created only when the records are written, so a job that cannot
//! come home leaves a previous output as it was.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use tokio_postgres::Client;

use super::BackendError;
use super::home::{Homecoming, bring_home, citations_now};
use super::job::{self, Exported};
use super::status::{JobStatus, status};
use crate::crawl::{Sink, SinkFormat};

/// How often the end asks whether other workers' last leases are done.
const FINISH_POLL: Duration = Duration::from_millis(200);

/// Where a finished job's records go.
pub struct Output<'a> {
    /// The output file; `None` for `stdout` (or, for SQLite, nowhere: the
    /// sink refuses it).
    pub path: Option<&'a Path>,
    /// The output's format.
    pub format: SinkFormat,
    /// Where NDJSON goes without a path.
    pub stdout: &'a mut dyn Write,
    /// The folder the job's images are written to.
    pub media_dir: &'a Path,
}

/// What ending a job did.
#[derive(Debug)]
pub struct JobEnd {
    /// What bringing the job home did.
    pub home: Homecoming,
    /// What was written of the records.
    pub exported: Exported,
    /// How many images the job holds (0 when its wrapper downloads none).
    pub media: u64,
    /// The job's status once it ended.
    pub status: JobStatus,
}

/// Ends job `id`: waits until no worker holds a lease, brings its heals
/// home into the wrapper file at `wrapper_path` and the store at
/// `store_path`, and writes its records and images to `output`.
pub async fn end_job(
    client: &Client,
    id: i64,
    wrapper_path: &Path,
    store_path: &Path,
    output: Output<'_>,
) -> Result<JobEnd, BackendError> {
    // `work` returns when nothing is queued or leased for its own worker;
    // other workers may still hold leases it waited out.
    while !job::try_finish(client, id).await? {
        tokio::time::sleep(FINISH_POLL).await;
    }
    let home = bring_home(client, id, wrapper_path, store_path).await?;
    // A person may have reviewed the heals since the job first came home.
    let citations = citations_now(&home.citations, store_path)?;
    let wrapper = job::load(client, id).await?.wrapper;
    let exported = match (output.path, output.format) {
        (path, SinkFormat::Csv | SinkFormat::Sqlite) => {
            let mut sink = Sink::open(path, output.format, &wrapper, None)?;
            job::export_to_sink(client, id, &citations, &mut sink).await?
        }
        (Some(path), SinkFormat::Ndjson) => {
            let file = std::fs::File::create(path).map_err(|source| BackendError::Io {
                path: path.to_owned(),
                source,
            })?;
            let mut file = std::io::BufWriter::new(file);
            job::export(client, id, &citations, &mut file).await?
        }
        (None, SinkFormat::Ndjson) => {
            let mut out = std::io::BufWriter::new(output.stdout);
            job::export(client, id, &citations, &mut out).await?
        }
    };
    let media = match wrapper.crawl.media {
        Some(_) => job::export_media(client, id, output.media_dir).await?,
        None => 0,
    };
    let status = status(client, Some(id)).await?;
    Ok(JobEnd {
        home,
        exported,
        media,
        status,
    })
}
