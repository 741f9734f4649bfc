//! Serving speed: Read of 200 distinct small files through toolgate's MCP server (the real
//! Read tool, the full pipeline, a deny rule and a PreToolUse hook configured), timed per
//! call with minimal raw clients:
//!
//! - over stdio (a Unix socket pair, which costs what a pipe costs), one JSON-RPC line out
//!   and lines in until the answer;
//! - over streamable HTTP on loopback, a raw HTTP/1.1 client on one kept-alive connection;
//! - 20 HTTP sessions at once on a two-worker runtime, 10 Reads each per iteration
//!   (`http_20_sessions`, 200 Reads an iteration);
//! - `@modelcontextprotocol/server-filesystem`'s `read_text_file` on the same files over
//!   stdio (skipped when node or `.ci/node` is missing).
//!
//! Every answer is checked (no error, the file's own first line). Each call reads with a
//! `limit` no earlier call used on that file, so no answer is "File unchanged since your
//! last Read".
//!
//! The servers run in this process (the `toolgate mcp serve` binary belongs to the CLI):
//! the same code as the binary past argument parsing. After divan's tables, a measured run
//! (`--bench`) also alternates a stdio Read and an HTTP Read round by round and prints that
//! table (`interleaved_stdio`, `interleaved_http`), which `cargo xtask bench` reads.
//!
//! ```text
//! cargo bench -p toolgate-mcp --bench serve
//! ```

use std::cell::Cell;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, BufReader, Lines};
use toolgate_core::process::{ProcessHandle, ProcessSpec};
use toolgate_mcp::{HttpServer, ServeOptions, serve_http, serve_io};
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::Session;

#[path = "../../../bench/interleave.rs"]
mod interleave;

const FILES: usize = 200;

/// Concurrent HTTP sessions in `http_20_sessions`.
const SESSIONS: usize = 20;

/// Reads each session makes per iteration of `http_20_sessions`.
const READS_PER_SESSION: usize = 10;

fn main() {
    divan::main();
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
}

/// The arguments of the `n`th Read of a run: file `n % FILES`, with a `limit` that no
/// earlier Read of that file used. Returns them and the text the answer must hold.
fn read_args(files: &[PathBuf], n: usize) -> (Value, String) {
    let i = n % FILES;
    let args = json!({"file_path": files[i].to_string_lossy(), "limit": 3 + n / FILES});
    (args, format!("line one of file {i}\n"))
}

/// Panics unless `answer` is a successful tool result holding `expected`.
fn check(answer: &Value, expected: &str) {
    let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
    if answer["result"]["isError"] == true || answer.get("error").is_some() || !text.contains(expected) {
        panic!("expected {expected:?}, got {answer}");
    }
}

/// The session `toolgate mcp serve` runs for the project.
fn serving_session(dir: &Path) -> Session {
    let loaded = SettingsDiscovery::new(dir).with_home(None).with_managed_dir(None).with_trust(true).load();
    Session::builder().cwd(dir).settings(loaded).builtin_tools(toolgate_builtin::all_builtin_tools()).build()
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
}

#[divan::bench(sample_count = 200)]
fn toolgate_serve_read(bencher: divan::Bencher) {
    let rt = runtime();
    let _enter = rt.enter();
    let (dir, files) = project();
    let session = serving_session(dir.path());
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap_or_else(|e| panic!("socket pair: {e}"));
    let mut client = rt.block_on(async move {
        let (read, write) = server_side.into_split();
        tokio::spawn(serve_io(session, read, write, ServeOptions::new()));
        let (read, write) = client_side.into_split();
        RawClient::start(read, write).await
    });
    let n = Cell::new(0usize);
    bencher.bench_local(|| {
        let (args, expected) = read_args(&files, n.get());
        n.set(n.get() + 1);
        check(&rt.block_on(client.request("tools/call", json!({"name": "Read", "arguments": args}))), &expected);
    });
}

#[divan::bench(sample_count = 200)]
fn toolgate_serve_read_http(bencher: divan::Bencher) {
    let rt = runtime();
    let _enter = rt.enter();
    let (dir, files) = project();
    let (server, mut client) = rt.block_on(async {
        let server = http_server(dir.path()).await;
        let client = RawHttp::start(&server).await;
        (server, client)
    });
    let n = Cell::new(0usize);
    bencher.bench_local(|| {
        let (args, expected) = read_args(&files, n.get());
        n.set(n.get() + 1);
        check(&rt.block_on(client.request("tools/call", json!({"name": "Read", "arguments": args}))), &expected);
    });
    rt.block_on(server.shutdown());
}

/// 20 sessions at once, each on its own connection, 10 Reads each per iteration (200
/// Reads), client and server sharing a two-worker runtime.
#[divan::bench(sample_count = 30)]
fn http_20_sessions(bencher: divan::Bencher) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let (dir, files) = project();
    let files = std::sync::Arc::new(files);
    let server = rt.block_on(http_server(dir.path()));
    // Each session with where it starts in the files and how many Reads it made.
    let mut clients: Vec<(RawHttp, usize, usize)> = rt.block_on(async {
        let mut clients = Vec::new();
        for at in 0..SESSIONS {
            clients.push((RawHttp::start(&server).await, at * 7, 0));
        }
        clients
    });
    bencher.bench_local(|| {
        clients = rt.block_on(async {
            let mut tasks = tokio::task::JoinSet::new();
            for (mut client, at, mut n) in std::mem::take(&mut clients) {
                let files = files.clone();
                tasks.spawn(async move {
                    for _ in 0..READS_PER_SESSION {
                        let (args, expected) = read_args(&files, n + at);
                        n += 1;
                        let answer = client.request("tools/call", json!({"name": "Read", "arguments": args})).await;
                        check(&answer, &expected);
                    }
                    (client, at, n)
                });
            }
            let mut back = Vec::with_capacity(SESSIONS);
            while let Some(done) = tasks.join_next().await {
                back.push(done.unwrap_or_else(|e| panic!("a session failed: {e}")));
            }
            back
        });
    });
    rt.block_on(server.shutdown());
}

/// A stdio Read and an HTTP Read alternated round by round (the order flipping every
/// round), so that load from other processes falls on both alike; printed as a
/// divan-style table (`interleaved_stdio`, `interleaved_http`).
fn interleaved() {
    let rt = runtime();
    let _enter = rt.enter();
    let (dir, files) = project();
    let session = serving_session(dir.path());
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap_or_else(|e| panic!("socket pair: {e}"));
    let root = dir.path().to_owned();
    let (server, stdio, http) = rt.block_on(async move {
        let (read, write) = server_side.into_split();
        tokio::spawn(serve_io(session, read, write, ServeOptions::new()));
        let (read, write) = client_side.into_split();
        let stdio = RawClient::start(read, write).await;
        let server = http_server(&root).await;
        let http = RawHttp::start(&server).await;
        (server, stdio, http)
    });
    let stdio = std::cell::RefCell::new((stdio, 0usize));
    let http = std::cell::RefCell::new((http, 0usize));
    let stdio_read = || {
        let (client, n) = &mut *stdio.borrow_mut();
        let (args, expected) = read_args(&files, *n);
        *n += 1;
        check(&rt.block_on(client.request("tools/call", json!({"name": "Read", "arguments": args}))), &expected);
    };
    let http_read = || {
        let (client, n) = &mut *http.borrow_mut();
        let (args, expected) = read_args(&files, *n);
        *n += 1;
        check(&rt.block_on(client.request("tools/call", json!({"name": "Read", "arguments": args}))), &expected);
    };
    for _ in 0..20 {
        stdio_read();
        http_read();
    }
    let [ours, theirs] = interleave::alternate(1_000, 1, &http_read, &stdio_read);
    interleave::print("interleaved", &mut [("interleaved_http", ours), ("interleaved_stdio", theirs)]);
    rt.block_on(server.shutdown());
    drop(dir);
}

/// The project's session served over HTTP on a free loopback port.
async fn http_server(dir: &Path) -> HttpServer {
    let addr = "127.0.0.1:0".parse().unwrap_or_else(|e| panic!("{e}"));
    serve_http(serving_session(dir), addr, None, ServeOptions::new()).await.unwrap_or_else(|e| panic!("serve: {e}"))
}

/// A minimal streamable-HTTP client: one kept-alive connection, one MCP session, requests
/// written by hand, answers read by `Content-Length` (what toolgate sends for a response
/// that is complete when its head is written) or in chunks.
struct RawHttp {
    read: BufReader<tokio::net::tcp::OwnedReadHalf>,
    write: tokio::net::tcp::OwnedWriteHalf,
    host: String,
    session: Option<String>,
    next_id: u64,
}

impl RawHttp {
    async fn start(server: &HttpServer) -> Self {
        let stream =
            tokio::net::TcpStream::connect(server.local_addr()).await.unwrap_or_else(|e| panic!("connect: {e}"));
        stream.set_nodelay(true).unwrap_or_else(|e| panic!("nodelay: {e}"));
        let (read, write) = stream.into_split();
        let mut client = Self {
            read: BufReader::new(read),
            write,
            host: server.local_addr().to_string(),
            session: None,
            next_id: 0,
        };
        let params =
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
        client.request("initialize", params).await;
        client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        client
    }

    /// Posts a message; returns the response's body.
    async fn post(&mut self, message: &Value) -> String {
        let body = message.to_string();
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            self.host,
            body.len()
        );
        if let Some(session) = &self.session {
            request.push_str(&format!("Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        self.write.write_all(request.as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
        let mut line = String::new();
        self.read.read_line(&mut line).await.unwrap_or_else(|e| panic!("read: {e}"));
        let status = line.split_whitespace().nth(1).unwrap_or_default().to_owned();
        let mut length = None;
        let mut chunked = false;
        loop {
            line.clear();
            self.read.read_line(&mut line).await.unwrap_or_else(|e| panic!("read: {e}"));
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("mcp-session-id") {
                self.session = Some(value.to_owned());
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            }
        }
        if !status.starts_with('2') {
            panic!("HTTP {status}");
        }
        let mut body = Vec::new();
        if chunked {
            // A streamed answer: chunks until the empty one.
            loop {
                line.clear();
                self.read.read_line(&mut line).await.unwrap_or_else(|e| panic!("read: {e}"));
                let size =
                    usize::from_str_radix(line.trim(), 16).unwrap_or_else(|e| panic!("chunk size {line:?}: {e}"));
                let mut chunk = vec![0; size + 2];
                self.read.read_exact(&mut chunk).await.unwrap_or_else(|e| panic!("read: {e}"));
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            body.resize(length.unwrap_or(0), 0);
            self.read.read_exact(&mut body).await.unwrap_or_else(|e| panic!("read: {e}"));
        }
        String::from_utf8(body).unwrap_or_else(|e| panic!("{e}"))
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let body = self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .find(|message| message["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id} in {body:?}"))
    }
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
        let args = json!({"path": path.to_string_lossy()});
        let answer = rt.block_on(client.request("tools/call", json!({"name": "read_text_file", "arguments": args})));
        check(&answer, &format!("line one of file {}\n", (i.get() - 1) % FILES));
    });
    drop(child);
}
