//! Runs a spawned child to its end, feeding its output to a sink.
//!
//! [`drive`] is the one loop behind foreground Bash, Monitor and background shells. In
//! one task, without busy waiting, it:
//!
//! 1. closes the child's stdin (a command reading it sees end-of-file at once);
//! 2. reads the child's stdout (stderr is joined to it by the wrapper script) in chunks and
//!    hands every chunk to the [`OutputSink`], while waiting for the child to exit, the
//!    timeout to pass or the stop token to fire;
//! 3. on timeout or stop, stops the whole process group (`SIGTERM`, the helper's grace,
//!    `SIGKILL`) and reaps the child; when the child exits on its own, the helper kills
//!    whatever it left running in its group;
//! 4. keeps reading until end-of-file, for at most [`DRAIN`] after the end (a process that
//!    left the group may hold the pipe open), and reports how the run ended.

use std::time::Duration;

use tokio::io::AsyncReadExt as _;
use toolgate_core::CancellationToken;
use toolgate_core::process::{ProcessError, ProcessHandle, ProcessStatus};

/// How long output is still read after the child has ended.
pub(crate) const DRAIN: Duration = Duration::from_millis(250);

/// The size of one read from the pipe.
const CHUNK: usize = 64 * 1024;

/// Where a child's output goes, chunk by chunk, as it arrives.
pub(crate) trait OutputSink: Send {
    /// Takes the next bytes of output.
    fn write(&mut self, bytes: &[u8]);
}

/// How a driven child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// It exited with this code.
    Exited(i32),
    /// A signal nobody here sent ended it.
    Signaled(i32),
    /// The timeout passed; its group was stopped.
    TimedOut,
    /// The stop token fired; its group was stopped.
    Stopped,
}

impl From<ProcessStatus> for End {
    fn from(status: ProcessStatus) -> Self {
        match status {
            ProcessStatus::Exited(code) => Self::Exited(code),
            ProcessStatus::Signaled(signal) => Self::Signaled(signal),
            ProcessStatus::TimedOut => Self::TimedOut,
            // Cancelled, and anything the helper may add later: the run did not end on
            // its own.
            _ => Self::Stopped,
        }
    }
}

/// Drives `child` to its end (see the module documentation).
///
/// # Errors
///
/// [`ProcessError::Wait`] when waiting for the child fails; its group is killed when the
/// handle is dropped.
pub(crate) async fn drive(
    child: &mut ProcessHandle,
    timeout: Option<Duration>,
    stop: &CancellationToken,
    sink: &mut (dyn OutputSink + '_),
) -> Result<End, ProcessError> {
    drop(child.take_stdin());
    let mut stdout = child.take_stdout();
    let mut eof = stdout.is_none();
    let mut buf = vec![0_u8; CHUNK];
    let mut end: Option<End> = None;
    let deadline = tokio::time::sleep(timeout.unwrap_or(Duration::ZERO));
    tokio::pin!(deadline);
    let drain = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(drain);

    loop {
        if end.is_some() && eof {
            break;
        }
        tokio::select! {
            read = async {
                match stdout.as_mut() {
                    Some(pipe) => pipe.read(&mut buf).await,
                    None => std::future::pending().await,
                }
            }, if !eof => match read {
                Ok(0) => eof = true,
                Ok(n) => sink.write(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => eof = true,
            },
            status = child.wait(), if end.is_none() => {
                end = Some(status?.into());
                drain.as_mut().reset(tokio::time::Instant::now() + DRAIN);
            }
            () = &mut deadline, if end.is_none() && timeout.is_some() => {
                // Whatever terminate reports, the group has been sent SIGKILL.
                let _ = child.terminate().await;
                end = Some(End::TimedOut);
                drain.as_mut().reset(tokio::time::Instant::now() + DRAIN);
            }
            () = stop.cancelled(), if end.is_none() => {
                let _ = child.terminate().await;
                end = Some(End::Stopped);
                drain.as_mut().reset(tokio::time::Instant::now() + DRAIN);
            }
            () = &mut drain, if end.is_some() && !eof => break,
        }
    }
    Ok(end.unwrap_or(End::Stopped))
}
