//! toolgate-mcp: MCP servers' tools as toolgate tools, and a toolgate session served as an
//! MCP server.
//!
//! **Client.** [`McpConfigLoader`] reads the servers a Claude Code user already configured
//! (`.mcp.json`, `~/.claude.json`, `--mcp-config`), with `${VAR}` expansion and
//! diagnostics instead of failures. [`McpManager::connect_all`] starts them concurrently
//! (stdio through toolgate's process helper, streamable HTTP through reqwest, the legacy
//! HTTP+SSE transport through its own client) and turns each
//! server tool into a [`toolgate_core::Tool`] named `mcp__<server>__<tool>`
//! ([`mcp_tool_name`]): description cut at 2,048 chars, root `anyOf`/`oneOf`/`allOf`
//! flattened for the model while the server's schema still validates, annotations and
//! Anthropic `_meta` hints honoured, results converted faithfully, calls cancellable and
//! timed out, dead servers reconnected on the next call. A tool's
//! [`targets`](toolgate_core::Tool::targets) are the `file://` URIs in the top-level fields
//! its schema marks `"format": "uri"` (or arrays of them), and nothing else: a field named
//! `path` may be a path on another machine.
//!
//! **Server.** [`serve_stdio`], [`serve_io`] and [`serve_http`] expose a
//! [`toolgate_pipeline::Session`]'s pool over MCP; every call goes through the session's
//! seven steps, so hooks and permission apply. [`McpPrompter`] turns a permission `ask`
//! into an elicitation to the calling client.
//!
//! ```
//! use toolgate_mcp::{mcp_tool_name, parse_mcp_tool_name};
//! let name = mcp_tool_name("my.server", "get issue");
//! assert_eq!(name, "mcp__my_server__get_issue");
//! let parsed = parse_mcp_tool_name(&name).unwrap();
//! assert_eq!((parsed.server, parsed.tool), ("my_server", Some("get_issue")));
//! ```
//!
//! Connecting to a server and calling one of its tools through a session:
//!
//! ```no_run
//! # async fn run() {
//! use serde_json::json;
//! use toolgate_core::{PermissionMode, ToolPool};
//! use toolgate_mcp::{ConnectOptions, McpManager, McpServerConfig};
//! use toolgate_pipeline::{Session, ToolCall};
//!
//! let fs = McpServerConfig::stdio("fs", "npx", ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]);
//! let manager = McpManager::connect_all(vec![fs], ConnectOptions::from_env("/tmp")).await;
//! let pool = ToolPool::builder().mcps(manager.tools()).builtins(manager.resource_tools()).build();
//! let session = Session::builder().cwd("/tmp").pool(pool).mode(PermissionMode::BypassPermissions).build();
//! let results = session
//!     .run_message(vec![ToolCall::new("t1", "mcp__fs__list_directory", json!({"path": "/tmp"}))])
//!     .await;
//! println!("{:?}", results[0].content);
//! manager.shutdown().await;
//! # }
//! ```

mod adapter;
mod config;
mod convert;
mod http;
mod logging;
mod manager;
mod naming;
mod resources;
mod served;
mod server;
mod server_requests;
mod sessions;
mod sse;

pub use adapter::MAX_RESULT_SIZE_CHARS_CAP;
pub use config::{McpConfigLoader, McpConfigs, McpDiagnostic, McpScope, McpServerConfig, McpTransport, expand_vars};
pub use convert::{MAX_DESCRIPTION_CHARS, flatten_root_combinators, truncate_description};
pub use http::{HttpServer, HttpStats, MAX_REQUEST_BODY_BYTES, SHUTDOWN_GRACE, serve_http};
pub use logging::{LogLevel, McpLogs};
pub use manager::{
    ConnectOptions, DEFAULT_BATCH_SIZE, DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_RECONNECT_BACKOFF, DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TOOL_TIMEOUT, MAX_RECONNECT_BACKOFF, McpManager, ServerState, ServerStatus,
};
pub use naming::{McpName, mcp_tool_name, normalize_name_part, parse_mcp_tool_name};
pub use served::{RenderPrompt, ServedPrompt};
pub use server::{ELICITATION_TIMEOUT, McpPrompter, ServeError, ServeOptions, serve_io, serve_stdio};
pub use server_requests::{Elicited, Elicitor};
pub use sessions::{DISCONNECT_GRACE, IDLE_TIMEOUT, SessionServices};
