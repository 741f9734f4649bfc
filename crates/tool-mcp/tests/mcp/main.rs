//! Integration tests of toolgate-mcp against real MCP servers over real transports: the
//! workspace's `toolgate-mcp-test-server` (stdio and streamable HTTP), the npm
//! `@modelcontextprotocol/server-everything` (stdio and legacy SSE; skipped with a note when node or the
//! package is missing), and toolgate serving a session to its own client.

// Test helpers may unwrap: a panic there is a failed assertion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client;
mod conformance;
mod everything;
mod faults;
mod http;
mod serve;
mod sse;
mod support;
