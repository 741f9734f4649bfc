//! The shell tools (Bash, TaskOutput, TaskStop, Monitor, PowerShell) on real processes in
//! temporary directories.
//!
//! - `bash`: exit codes, merged output, long output, timeouts, interrupts, `cd` carried
//!   over inside the roots, classification;
//! - `background`: background shells with TaskOutput and TaskStop;
//! - `monitor`: output lines as progress events;
//! - `sandbox`: Bash under bubblewrap (`sandbox` settings);
//! - `texts`: snapshots of what the model reads.
//!
//! No test depends on timing: processes are coordinated through files, with bounded
//! polling, and every "is it gone" check reads `/proc`.

// A test binary: a failed unwrap is a failed assertion with a backtrace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod background;
mod bash;
mod monitor;
mod sandbox;
mod support;
mod texts;
