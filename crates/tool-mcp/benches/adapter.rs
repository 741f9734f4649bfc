//! One MCP call through toolgate's adapter and pipeline against the same call made
//! directly with an rmcp client, both to the workspace test server over stdio (`echo`).
//!
//! ```text
//! cargo build --release -p toolgate-mcp-test-server
//! cargo bench -p toolgate-mcp --bench adapter
//! ```

use std::path::{Path, PathBuf};

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use toolgate_core::process::ProcessSpec;
use toolgate_core::{PermissionMode, ToolPool};
use toolgate_mcp::{ConnectOptions, McpManager, McpServerConfig};
use toolgate_pipeline::{Session, ToolCall};

fn main() {
    divan::main();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| panic!("runtime: {e}"))
}

/// The test server built beside this bench (same profile).
fn test_server() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current exe: {e}"));
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("toolgate-mcp-test-server"))
        .unwrap_or_else(|| panic!("no target directory above {}", exe.display()));
    if !bin.is_file() {
        panic!(
            "{} is missing: build it with the same profile first (`cargo build [--release] -p toolgate-mcp-test-server`)",
            bin.display()
        );
    }
    bin
}

#[divan::bench]
fn direct_rmcp_call(bencher: divan::Bencher) {
    let rt = runtime();
    let _enter = rt.enter();
    let mut child = ProcessSpec::exec(test_server(), Vec::<String>::new())
        .cwd(std::env::temp_dir())
        .discard_stderr()
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let (Some(stdout), Some(stdin)) = (child.take_stdout(), child.take_stdin()) else { panic!("no pipes") };
    let client = rt.block_on(().serve((stdout, stdin))).unwrap_or_else(|e| panic!("initialize: {e}"));
    let args = json!({"text": "hello"}).as_object().cloned().unwrap_or_default();
    bencher.bench_local(|| {
        let params = CallToolRequestParams::new("echo").with_arguments(args.clone());
        rt.block_on(client.call_tool(params)).unwrap_or_else(|e| panic!("call: {e}"))
    });
    let _ = rt.block_on(client.cancel());
    drop(child);
}

#[divan::bench]
fn adapter_and_pipeline(bencher: divan::Bencher) {
    let rt = runtime();
    let config = McpServerConfig::stdio("test", test_server().to_string_lossy(), Vec::<String>::new());
    let manager = rt.block_on(McpManager::connect_all(vec![config], ConnectOptions::new(std::env::temp_dir())));
    let pool = ToolPool::builder().mcps(manager.tools()).build();
    let session =
        Session::builder().cwd(std::env::temp_dir()).pool(pool).mode(PermissionMode::BypassPermissions).build();
    bencher.bench_local(|| {
        let results =
            rt.block_on(session.run_message(vec![ToolCall::new("t1", "mcp__test__echo", json!({"text": "hello"}))]));
        if results[0].is_error {
            panic!("the call failed: {:?}", results[0].content);
        }
        results
    });
    rt.block_on(manager.shutdown());
}
