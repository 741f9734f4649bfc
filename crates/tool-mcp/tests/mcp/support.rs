//! Shared helpers: where the servers are, and short ways to connect and call.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use toolgate_core::{DynTool, Progress, ProgressSink, ToolContext, ToolError, ToolOutput};
use toolgate_mcp::{ConnectOptions, McpManager, McpServerConfig};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// The workspace's test server binary, built beside this test binary.
pub fn test_server() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/<profile>/deps/<test> → target/<profile>/toolgate-mcp-test-server
    let dir = exe.parent().and_then(Path::parent).expect("target profile dir");
    let bin = dir.join("toolgate-mcp-test-server");
    assert!(
        bin.is_file(),
        "{} is missing: build it with `cargo build -p toolgate-mcp-test-server` \
         (`cargo test -p toolgate-mcp -p toolgate-mcp-test-server` and `cargo nextest run --workspace` build it)",
        bin.display()
    );
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let source = repo_root().join("crates/mcp-test-server/src/main.rs");
    if let (Some(built), Some(changed)) = (modified(&bin), modified(&source)) {
        assert!(
            built >= changed,
            "{} is older than its source: rebuild it with `cargo build -p toolgate-mcp-test-server`",
            bin.display()
        );
    }
    bin
}

/// A stdio config for the test server.
pub fn test_server_config(name: &str) -> McpServerConfig {
    McpServerConfig::stdio(name, test_server().to_string_lossy(), Vec::<String>::new())
}

/// Options with short limits, starting servers in the system temp dir.
pub fn options() -> ConnectOptions {
    ConnectOptions::new(std::env::temp_dir())
        .startup_timeout(Duration::from_secs(20))
        .tool_timeout(Duration::from_secs(20))
        .reconnect_backoff(Duration::from_millis(200))
}

/// Connects to the given servers.
pub async fn connect(configs: Vec<McpServerConfig>) -> McpManager {
    McpManager::connect_all(configs, options()).await
}

/// The tool called `name`.
pub fn tool(manager: &McpManager, name: &str) -> DynTool {
    let tools = manager.tools();
    let names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();
    tools.into_iter().find(|t| t.name() == name).unwrap_or_else(|| panic!("no tool {name} among {names:?}"))
}

/// Calls a tool directly (no pipeline), collecting its progress messages.
pub async fn call(tool: &DynTool, input: Value) -> (Result<ToolOutput, ToolError>, Vec<String>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut ctx = ToolContext::new(std::env::temp_dir());
    ctx.tool_use_id = "toolu_test".to_owned();
    let sink = seen.clone();
    ctx.progress = ProgressSink::new(move |p: Progress| sink.lock().unwrap().push(p.message));
    let out = tool.call(input, &ctx).await;
    let seen = seen.lock().unwrap().clone();
    (out, seen)
}

/// Whether a process with this id exists (a reaped child does not).
pub fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// `node` on the PATH, if any.
pub fn node() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("node")).find(|p| p.is_file())
}

/// The entry point of an npm MCP server installed by `.ci/run`, with `node`; `None` (and a
/// note on stderr) when either is missing.
pub fn npm_server(package: &str) -> Option<(PathBuf, PathBuf)> {
    let script = repo_root().join(".ci/node/node_modules/@modelcontextprotocol").join(package).join("dist/index.js");
    match (node(), script.is_file()) {
        (Some(node), true) => Some((node, script)),
        (None, _) => {
            eprintln!("SKIPPED: node is not on the PATH, so the npm MCP server {package} cannot run");
            None
        }
        (_, false) => {
            eprintln!("SKIPPED: {} is missing; `.ci/run` installs it (npm ci in .ci/node)", script.display());
            None
        }
    }
}
