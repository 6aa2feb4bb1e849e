//! Standard output that never panics and never stops a command halfway.
//!
//! A reader may go away before mend has written everything (`mend log |
//! head -2`), or a disk may fill under a redirection. Every write to
//! standard output goes through [`Stdout`] or the `out!` macro: the first
//! failure is remembered ([`failure`]), the writes after it are dropped,
//! and the command goes on to its end, so that what it does besides
//! printing (a store record, a wrapper change) is not cut off halfway. The
//! command line then ends with exit code 3: quietly when the reader closed
//! the pipe (it chose to read no more), with a word on standard error for
//! any other failure.
//!
//! What this refuses: a write error reaching a command as an `Err` it must
//! handle, and a `println!` anywhere in the binary.

use std::io::{self, Write};
use std::sync::OnceLock;

/// The first error a write to standard output met.
static FAILURE: OnceLock<io::Error> = OnceLock::new();

/// Standard output as a writer whose writes always succeed: a failure is
/// remembered for [`failure`] and the bytes after it are dropped. Commands
/// that print much wrap it in a `BufWriter`; the `out!` macro writes
/// through it one line at a time.
#[derive(Debug, Default)]
pub struct Stdout;

impl Stdout {
    /// Standard output, unbuffered beyond what the standard library does.
    pub fn new() -> Stdout {
        Stdout
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if FAILURE.get().is_none()
            && let Err(e) = io::stdout().write_all(buf)
        {
            remember(e);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if FAILURE.get().is_none()
            && let Err(e) = io::stdout().flush()
        {
            remember(e);
        }
        Ok(())
    }
}

/// Keeps the first failure of a write to standard output made elsewhere
/// (clap's help); later failures are consequences of the first.
pub fn remember(e: io::Error) {
    let _ = FAILURE.set(e);
}

/// The failure standard output met, if any.
pub fn failure() -> Option<&'static io::Error> {
    FAILURE.get()
}

/// Whether a failure means the reader closed the pipe: it stopped reading on
/// purpose (`| head`), so there is nothing to tell anyone.
pub fn is_closed_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_told_apart_from_other_failures() {
        assert!(is_closed_pipe(&io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(!is_closed_pipe(&io::Error::from(
            io::ErrorKind::StorageFull
        )));
    }
}
