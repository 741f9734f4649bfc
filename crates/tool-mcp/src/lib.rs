//! toolgate-mcp: MCP servers' tools as toolgate tools.
//!
//! Every MCP tool enters the pool as `mcp__<server>__<tool>`, with each character outside
//! `[A-Za-z0-9_-]` of the server and tool names replaced by `_`, so permission rules and
//! hook matchers can name it. This crate owns that naming; the client (rmcp) and the
//! server direction build on it.
//!
//! ```
//! use toolgate_mcp::{mcp_tool_name, parse_mcp_tool_name};
//! let name = mcp_tool_name("my.server", "get issue");
//! assert_eq!(name, "mcp__my_server__get_issue");
//! let parsed = parse_mcp_tool_name(&name).unwrap();
//! assert_eq!((parsed.server, parsed.tool), ("my_server", Some("get_issue")));
//! ```

mod naming;

pub use naming::{McpName, mcp_tool_name, normalize_name_part, parse_mcp_tool_name};
