//! Integration tests for toolgate-hooks: real hook scripts in temp dirs, run through the
//! [`HookRunner`](toolgate_hooks::HookRunner) as a host would.
//!
//! - `support`: a temp project, scripts, settings and inputs;
//! - `command`: command hooks (exit codes, JSON, timeouts, parallelism, dedupe, caps);
//! - `events`: the other typed events;
//! - `http`: http hooks against a loopback server;
//! - `texts`: snapshots of what the model reads.

// Test helpers outside `#[test]` functions may unwrap too: a panic there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod command;
mod events;
mod http;
mod support;
mod texts;
