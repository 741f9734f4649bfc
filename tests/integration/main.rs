//! toolgate's integration tests: one binary, one module per area.
//!
//! - `pipeline`: sessions built from real settings files, with real hook processes and
//!   real child processes;
//! - `planning`: the planning tools (tasks, plan mode, questions, Sleep, TodoWrite) with the
//!   services toolgate ships and a scripted person;
//! - `targets`: the paths a call names, each checked: a deny on a patch's later file, a later
//!   file through a symlink into `.git/` or out of the working directories;
//! - `workspace`: the worktree, skill, Config and StructuredOutput tools in sessions;
//! - `tidy`: repository-wide source checks (module docs, the one process helper, no
//!   `todo!`), run as ordinary tests so that `cargo xtask ci` enforces them.

// A test binary: a failed unwrap is a failed assertion with a backtrace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod faults;
mod limits;
mod paths;
mod pipeline;
mod planning;
mod props;
mod targets;
mod tidy;
mod workspace;
