//! Integration tests for the LSP tool against real language servers over stdio: the
//! pinned typescript-language-server that `.ci/run` installs into `.ci/node`, and a small
//! fake server (`fake-server.js`, run by node) for the paths a real server does not take
//! on demand. Without node or the installed server a test prints why and returns.
//!
//! - `support`: the project, the servers, calling the tool;
//! - `operations`: the nine operations on a real server, file changes, restart, shutdown;
//! - `errors`: bad input, missing and broken servers, timeouts, cancellation;
//! - `permissions`: the tool under the real permission engine (`Read` rules).

// Test helpers outside `#[test]` functions may unwrap too: a panic there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod errors;
mod operations;
mod permissions;
mod support;
mod texts;
