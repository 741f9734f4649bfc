//! One MCP call through toolgate's adapter and pipeline against the same call made
//! directly with an rmcp client, both to the workspace test server over stdio (`echo`).
//!
//! ```text
//! cargo build --release -p toolgate-mcp-test-server
//! cargo bench -p toolgate-mcp --bench adapter
//! ```
//!
//! After divan's two blocks (each side timed in its own block of samples), a measured run
//! (`--bench`) also alternates the two calls round by round and prints that table too: load
//! that changes between divan's blocks moves their ratio, not the interleaved one.

use std::path::{Path, PathBuf};

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use toolgate_core::process::ProcessSpec;
use toolgate_core::{PermissionMode, ToolPool};
use toolgate_mcp::{ConnectOptions, McpManager, McpServerConfig};
use toolgate_pipeline::{Session, ToolCall};

#[path = "../../../bench/interleave.rs"]
mod interleave;

fn main() {
    divan::main();
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
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

/// A direct rmcp client of its own test server.
struct Direct {
    client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
    _child: toolgate_core::process::ProcessHandle,
    args: serde_json::Map<String, serde_json::Value>,
}

impl Direct {
    fn connect(rt: &tokio::runtime::Runtime) -> Self {
        let _enter = rt.enter();
        let mut child = ProcessSpec::exec(test_server(), Vec::<String>::new())
            .cwd(std::env::temp_dir())
            .discard_stderr()
            .spawn()
            .unwrap_or_else(|e| panic!("spawn: {e}"));
        let (Some(stdout), Some(stdin)) = (child.take_stdout(), child.take_stdin()) else { panic!("no pipes") };
        let client = rt.block_on(().serve((stdout, stdin))).unwrap_or_else(|e| panic!("initialize: {e}"));
        let args = json!({"text": "hello"}).as_object().cloned().unwrap_or_default();
        Direct { client, _child: child, args }
    }

    fn call(&self, rt: &tokio::runtime::Runtime) -> rmcp::model::CallToolResult {
        let params = CallToolRequestParams::new("echo").with_arguments(self.args.clone());
        rt.block_on(self.client.call_tool(params)).unwrap_or_else(|e| panic!("call: {e}"))
    }
}

/// A session whose pool holds the test server's tools, through toolgate's MCP adapter.
struct Adapted {
    manager: McpManager,
    session: Session,
}

impl Adapted {
    fn connect(rt: &tokio::runtime::Runtime) -> Self {
        let config = McpServerConfig::stdio("test", test_server().to_string_lossy(), Vec::<String>::new());
        let manager = rt.block_on(McpManager::connect_all(vec![config], ConnectOptions::new(std::env::temp_dir())));
        let pool = ToolPool::builder().mcps(manager.tools()).build();
        let session =
            Session::builder().cwd(std::env::temp_dir()).pool(pool).mode(PermissionMode::BypassPermissions).build();
        Adapted { manager, session }
    }

    fn call(&self, rt: &tokio::runtime::Runtime) -> Vec<toolgate_pipeline::ToolResultBlock> {
        let results = rt.block_on(self.session.run_message(vec![ToolCall::new(
            "t1",
            "mcp__test__echo",
            json!({"text": "hello"}),
        )]));
        if results[0].is_error {
            panic!("the call failed: {:?}", results[0].content);
        }
        results
    }
}

#[divan::bench]
fn direct_rmcp_call(bencher: divan::Bencher) {
    let rt = runtime();
    let direct = Direct::connect(&rt);
    bencher.bench_local(|| direct.call(&rt));
    let _ = rt.block_on(direct.client.cancel());
}

#[divan::bench]
fn adapter_and_pipeline(bencher: divan::Bencher) {
    let rt = runtime();
    let adapted = Adapted::connect(&rt);
    bencher.bench_local(|| adapted.call(&rt));
    rt.block_on(adapted.manager.shutdown());
}

/// Both calls alternated round by round (the order flipping every round), so that load from
/// other processes falls on both alike; printed as a divan-style table (`interleaved_adapter`,
/// `interleaved_direct`), which `cargo xtask bench` reads for its row 8.
fn interleaved() {
    let rt = runtime();
    let direct = Direct::connect(&rt);
    let adapted = Adapted::connect(&rt);
    for _ in 0..20 {
        divan::black_box(direct.call(&rt));
        divan::black_box(adapted.call(&rt));
    }
    let adapter = || drop(divan::black_box(adapted.call(&rt)));
    let plain = || drop(divan::black_box(direct.call(&rt)));
    let [ours, theirs] = interleave::alternate(400, 1, &adapter, &plain);
    interleave::print("interleaved", &mut [("interleaved_adapter", ours), ("interleaved_direct", theirs)]);
    let _ = rt.block_on(direct.client.cancel());
    rt.block_on(adapted.manager.shutdown());
}
