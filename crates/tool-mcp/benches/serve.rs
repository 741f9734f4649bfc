//! Serving speed: Read of 200 distinct small files through toolgate's MCP server (the real
//! Read tool, the full pipeline, a deny rule and a PreToolUse hook configured), timed per
//! call with a minimal raw JSON-RPC client, side by side with
//! `@modelcontextprotocol/server-filesystem`'s `read_text_file` on the same files over
//! stdio (skipped when node or `.ci/node` is missing).
//!
//! toolgate is served in this process over a Unix socket pair (the `toolgate mcp serve`
//! binary belongs to the CLI), which costs the same as a pipe.
//!
//! ```text
//! cargo bench -p toolgate-mcp --bench serve
//! ```

use std::cell::Cell;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader, Lines};
use toolgate_core::process::{ProcessHandle, ProcessSpec};
use toolgate_mcp::{ServeOptions, serve_io};
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::Session;

const FILES: usize = 200;

fn main() {
    divan::main();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap_or_else(|e| panic!("runtime: {e}"))
}

/// A project of 200 small files, a deny rule and a Bash-only PreToolUse hook.
fn project() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let files: Vec<PathBuf> = (0..FILES)
        .map(|i| {
            let path = dir.path().join(format!("file{i:03}.txt"));
            std::fs::write(&path, format!("line one of file {i}\nline two\nline three\n"))
                .unwrap_or_else(|e| panic!("write: {e}"));
            path
        })
        .collect();
    let settings = json!({
        "permissions": {"deny": ["Read(./secret/**)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"}]}]}
    });
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::write(dir.path().join(".claude/settings.json"), settings.to_string()).unwrap_or_else(|e| panic!("{e}"));
    (dir, files)
}

/// A minimal JSON-RPC client: one line out, lines in until the answer.
struct RawClient<R, W> {
    lines: Lines<BufReader<R>>,
    write: W,
    next_id: u64,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> RawClient<R, W> {
    async fn start(read: R, write: W) -> Self {
        let mut client = Self { lines: BufReader::new(read).lines(), write, next_id: 0 };
        let params =
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
        client.request("initialize", params).await;
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        client
    }

    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.write.write_all(line.as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
        self.write.flush().await.unwrap_or_else(|e| panic!("flush: {e}"));
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        loop {
            let line = self.lines.next_line().await.unwrap_or_else(|e| panic!("read: {e}"));
            let line = line.unwrap_or_else(|| panic!("the server closed the connection"));
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    async fn read_file(&mut self, tool: &str, arg: &str, path: &Path) {
        let answer =
            self.request("tools/call", json!({"name": tool, "arguments": {arg: path.to_string_lossy()}})).await;
        if answer["result"]["isError"] == true || answer.get("error").is_some() {
            panic!("{tool} failed: {answer}");
        }
    }
}

#[divan::bench(sample_count = 200)]
fn toolgate_serve_read(bencher: divan::Bencher) {
    let rt = runtime();
    let _enter = rt.enter();
    let (dir, files) = project();
    let loaded = SettingsDiscovery::new(dir.path()).with_home(None).with_managed_dir(None).load();
    let session = Session::builder()
        .cwd(dir.path())
        .settings(loaded)
        .builtin_tools(toolgate_builtin::all_builtin_tools())
        .build();
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap_or_else(|e| panic!("socket pair: {e}"));
    let mut client = rt.block_on(async move {
        let (read, write) = server_side.into_split();
        tokio::spawn(serve_io(session, read, write, ServeOptions::new()));
        let (read, write) = client_side.into_split();
        RawClient::start(read, write).await
    });
    let i = Cell::new(0usize);
    bencher.bench_local(|| {
        let path = &files[i.get() % FILES];
        i.set(i.get() + 1);
        rt.block_on(client.read_file("Read", "file_path", path));
    });
}

#[divan::bench(sample_count = 200)]
fn server_filesystem_read_text_file(bencher: divan::Bencher) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node/node_modules/@modelcontextprotocol");
    let script = root.join("server-filesystem/dist/index.js");
    let node =
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join("node")).find(|n| n.is_file()));
    let (Some(node), true) = (node, script.is_file()) else {
        eprintln!("SKIPPED: node or {} is missing", script.display());
        return;
    };
    let rt = runtime();
    let _enter = rt.enter();
    let (dir, files) = project();
    // The server resolves symlinks in its allowed directories; use the real path.
    let real = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let files: Vec<PathBuf> = files.iter().filter_map(|f| f.file_name().map(|n| real.join(n))).collect();
    let mut child: ProcessHandle = ProcessSpec::exec(node, [script.into_os_string(), real.clone().into_os_string()])
        .cwd(&real)
        .discard_stderr()
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let (Some(stdout), Some(stdin)) = (child.take_stdout(), child.take_stdin()) else { panic!("no pipes") };
    let mut client = rt.block_on(RawClient::start(stdout, stdin));
    let i = Cell::new(0usize);
    bencher.bench_local(|| {
        let path = &files[i.get() % FILES];
        i.set(i.get() + 1);
        rt.block_on(client.read_file("read_text_file", "path", path));
    });
    drop(child);
}
