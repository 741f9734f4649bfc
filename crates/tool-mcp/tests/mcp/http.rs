//! `toolgate mcp serve --http` as raw HTTP clients see it: how it writes its responses,
//! how sessions end, and what each session keeps to itself.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use toolgate_builtin::{FileTaskStore, TaskStore};
use toolgate_core::{Extensions, PermissionMode};
use toolgate_mcp::{HttpServer, ServeOptions, serve_http};
use toolgate_pipeline::Session;

/// A raw JSON-RPC client of one MCP session over streamable HTTP.
pub struct RawSession {
    http: reqwest::Client,
    url: String,
    id: String,
    next: u64,
}

impl RawSession {
    /// Initializes a session (and sends `notifications/initialized`).
    pub async fn open(url: &str) -> Self {
        let http = toolgate_core::http::client_builder().build().unwrap();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}
        }});
        let response = post(&http, url, None, &init).await;
        assert!(response.status().is_success(), "{}", response.status());
        let id = response.headers().get("mcp-session-id").expect("a session id").to_str().unwrap().to_owned();
        let answer = answer(&response.text().await.unwrap(), 0);
        assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
        let mut session = Self { http, url: url.to_owned(), id, next: 1 };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = post(&session.http, url, Some(&session.id), &initialized).await;
        assert_eq!(response.status(), reqwest::StatusCode::ACCEPTED);
        session.next = 1;
        session
    }

    /// Sends a request and returns the answer.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let (id, body) = self.send(method, params).await;
        answer(&body, id)
    }

    /// Sends a request and returns every message of the response, the answer last.
    pub async fn request_all(&mut self, method: &str, params: Value) -> Vec<Value> {
        let (id, body) = self.send(method, params).await;
        let all = messages(&body);
        assert_eq!(all.last().map(|m| &m["id"]), Some(&json!(id)), "{body}");
        all
    }

    async fn send(&mut self, method: &str, params: Value) -> (u64, String) {
        self.next += 1;
        let id = self.next;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = post(&self.http, &self.url, Some(&self.id), &message).await;
        assert!(response.status().is_success(), "{}", response.status());
        (id, response.text().await.unwrap())
    }

    /// Calls a tool; returns its text and whether it is an error.
    pub async fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments})).await;
        let result = &answer["result"];
        assert!(result.is_object(), "{answer}");
        let text = result["content"]
            .as_array()
            .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        (text, result["isError"] == true)
    }

    /// Ends the session with `DELETE`; returns the status.
    pub async fn delete(&self) -> reqwest::StatusCode {
        self.http
            .delete(&self.url)
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await
            .unwrap()
            .status()
    }
}

async fn post(http: &reqwest::Client, url: &str, session: Option<&str>, message: &Value) -> reqwest::Response {
    let mut request = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(message.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
    }
    request.send().await.unwrap()
}

/// The JSON-RPC messages of an event-stream (or JSON) body.
fn messages(body: &str) -> Vec<Value> {
    if body.trim_start().starts_with('{') {
        vec![serde_json::from_str(body).unwrap()]
    } else {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .map(|data| serde_json::from_str(data).unwrap())
            .collect()
    }
}

/// The JSON-RPC answer with `id` in an event-stream (or JSON) body.
fn answer(body: &str, id: u64) -> Value {
    messages(body).into_iter().find(|m| m["id"] == id).unwrap_or_else(|| panic!("no answer {id} in {body:?}"))
}

/// A project with `a.txt`, `b.txt` and `f0.txt` to `f19.txt`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "beta\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    for i in 0..20 {
        std::fs::write(dir.path().join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
    }
    dir
}

/// Every built-in tool, every call allowed, served on loopback.
async fn serve(dir: &Path) -> HttpServer {
    serve_with(dir, ServeOptions::new()).await
}

/// [`serve`] with `options`.
async fn serve_with(dir: &Path, options: ServeOptions) -> HttpServer {
    let session = Session::builder()
        .cwd(dir)
        .builtin_tools(toolgate_builtin::all_builtin_tools())
        .mode(PermissionMode::BypassPermissions)
        .build();
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    serve_http(session, addr, None, options).await.unwrap()
}

/// Regression: every HTTP request took about 44 ms, because the accepted sockets had no
/// `TCP_NODELAY` and each response went out in two writes (Nagle's algorithm then waits
/// for the client's delayed ACK). Counted, not timed: every socket has `TCP_NODELAY`, and
/// each response (initialize, the notification's 202, every tool call, the DELETE) is
/// exactly one write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_response_is_one_write_on_a_nodelay_socket() {
    let dir = project();
    let server = serve(dir.path()).await;
    let mut client = RawSession::open(&server.url()).await;
    for i in 0..20 {
        let file = dir.path().join(format!("f{i}.txt")).to_string_lossy().into_owned();
        let (text, is_error) = client.call("Read", json!({"file_path": file})).await;
        assert!(!is_error && text.contains(&format!("file {i}")), "{text}");
    }
    let (text, is_error) = client.call("Nope", json!({})).await;
    assert!(is_error && text.contains("No such tool"), "{text}");
    assert_eq!(client.delete().await, reqwest::StatusCode::NO_CONTENT);
    // The final counts, once every connection is done.
    let stats = server.shutdown().await;
    assert!(stats.connections >= 1, "{stats:?}");
    assert_eq!(stats.nodelay, stats.connections, "{stats:?}");
    // initialize, initialized, 21 calls, DELETE.
    assert_eq!(stats.responses, 24, "{stats:?}");
    assert_eq!(stats.writes, stats.responses, "{stats:?}");
}

/// What the HTTP server's forks get: a task store of their own under `root/<session id>`.
async fn serve_with_task_stores(dir: &Path, root: PathBuf) -> HttpServer {
    let mut services = Extensions::default();
    services.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(root.join("base"))));
    let tools = toolgate_builtin::with_planning_services(toolgate_builtin::all_builtin_tools(), &services);
    let session = Session::builder()
        .cwd(dir)
        .builtin_tools(tools)
        .extensions(services)
        .mode(PermissionMode::BypassPermissions)
        .build();
    let opts = ServeOptions::new().session_services(move |id, ext| {
        ext.insert::<Arc<dyn TaskStore>>(Arc::new(FileTaskStore::new(root.join(id))));
    });
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    serve_http(session, addr, None, opts).await.unwrap()
}

/// Whether process `pid` runs (exists and is not a zombie).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

/// The process id a command wrote to `file` (`echo $$ > file`), once it is there.
async fn pid_in(file: &Path) -> u32 {
    let read = || std::fs::read_to_string(file).ok().and_then(|text| text.trim().parse::<u32>().ok());
    assert!(eventually(|| read().is_some()).await, "no process id in {}", file.display());
    read().unwrap()
}

/// Polls `condition` for up to 20 s (what a test can wait for without a signal to wait on).
async fn eventually(condition: impl Fn() -> bool) -> bool {
    for _ in 0..400 {
        if condition() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    condition()
}

/// Regression: HTTP sessions shared one session state. Session B got "File unchanged
/// since your last Read" for a file only session A read, and B could Edit a file only A
/// read; the cwd, the task list and background shells were shared too. Two real clients at
/// once, each its own state; DELETE ends one session (204), kills its background shell and
/// leaves the other working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_http_sessions_keep_their_state_apart() {
    let dir = project();
    let stores = tempfile::tempdir().unwrap();
    let server = serve_with_task_stores(dir.path(), stores.path().to_owned()).await;
    let url = server.url();
    let (mut a, mut b) = tokio::join!(RawSession::open(&url), RawSession::open(&url));
    assert_eq!(server.open_sessions(), 2);
    let a_txt = dir.path().join("a.txt").to_string_lossy().into_owned();
    let b_txt = dir.path().join("b.txt").to_string_lossy().into_owned();

    // Read-before-write is per session.
    let (text, is_error) = a.call("Read", json!({"file_path": a_txt})).await;
    assert!(!is_error && text.contains("alpha"), "{text}");
    let edit = json!({"file_path": a_txt, "old_string": "alpha", "new_string": "ALPHA"});
    let (text, is_error) = b.call("Edit", edit.clone()).await;
    assert!(is_error && text.contains("read"), "B edited a file only A read: {text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "alpha\n");
    let (text, is_error) = a.call("Edit", edit).await;
    assert!(!is_error, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "ALPHA\n");
    // A Read in one session does not make the other's "unchanged".
    let (text, _) = b.call("Read", json!({"file_path": b_txt})).await;
    assert!(text.contains("beta"), "{text}");
    let (text, _) = a.call("Read", json!({"file_path": b_txt})).await;
    assert!(text.contains("beta") && !text.contains("unchanged"), "{text}");

    // The cwd is per session.
    let (text, is_error) = a.call("Bash", json!({"command": "cd sub"})).await;
    assert!(!is_error, "{text}");
    let (a_pwd, _) = a.call("Bash", json!({"command": "pwd"})).await;
    let (b_pwd, _) = b.call("Bash", json!({"command": "pwd"})).await;
    assert!(a_pwd.trim_end().ends_with("/sub"), "{a_pwd}");
    assert!(!b_pwd.contains("/sub"), "A's cd moved B: {b_pwd}");

    // So is the task list.
    let (text, is_error) = a.call("TaskCreate", json!({"subject": "Ship it", "description": "A's task"})).await;
    assert!(!is_error, "{text}");
    let (text, _) = b.call("TaskList", json!({})).await;
    assert!(text.contains("No tasks yet"), "B sees A's tasks: {text}");
    let (text, _) = a.call("TaskList", json!({})).await;
    assert!(text.contains("Ship it"), "{text}");

    // So are background shells, and ending B's session kills B's.
    let pid_file = dir.path().join("b.pid");
    let command = format!("echo $$ > {}; exec sleep 300", pid_file.display());
    let (text, is_error) = b.call("Bash", json!({"command": command, "run_in_background": true})).await;
    assert!(!is_error, "{text}");
    let pid = pid_in(&pid_file).await;
    assert!(running(pid));
    let (text, _) = a.call("TaskOutput", json!({"task_id": "bash_1", "block": false})).await;
    assert!(!text.contains("sleep 300"), "A sees B's shell: {text}");
    // And a call B is running when its session ends is cancelled.
    let running_file = dir.path().join("running.pid");
    let command = format!("echo $$ > {}; exec sleep 300", running_file.display());
    let b_call = {
        let (http, url, id) = (b.http.clone(), b.url.clone(), b.id.clone());
        let message = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
            "params": {"name": "Bash", "arguments": {"command": command}}});
        tokio::spawn(async move { post(&http, &url, Some(&id), &message).await.text().await })
    };
    let running_pid = pid_in(&running_file).await;
    assert!(running(running_pid));
    assert_eq!(b.delete().await, reqwest::StatusCode::NO_CONTENT);
    assert_eq!(server.open_sessions(), 1);
    assert!(eventually(|| !running(pid)).await, "B's background shell {pid} survived its session");
    assert!(eventually(|| !running(running_pid)).await, "B's running call {running_pid} survived its session");
    let _ = b_call.await;
    let (text, is_error) = a.call("Read", json!({"file_path": a_txt})).await;
    assert!(!is_error && text.contains("ALPHA"), "{text}");
    server.shutdown().await;
}

/// Regression: as a client, toolgate offered `protocolVersion: "2026-07-28"` in
/// `initialize`, a revision without `initialize` (rmcp's `LATEST` where
/// `LATEST_WITH_INITIALIZE` was meant). A raw HTTP listener records what it is offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_offers_the_newest_version_that_has_initialize() {
    use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let offered = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut stream = tokio::io::BufReader::new(stream);
        let mut length = 0;
        loop {
            let mut line = String::new();
            stream.read_line(&mut line).await.unwrap();
            if line.trim_end().is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        stream.read_exact(&mut body).await.unwrap();
        let refusal = "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
        stream.get_mut().write_all(refusal.as_bytes()).await.unwrap();
        serde_json::from_slice::<Value>(&body).unwrap()
    });
    let config = toolgate_mcp::McpServerConfig::http("raw", &url);
    let manager = toolgate_mcp::McpManager::connect_all(vec![config], crate::support::options()).await;
    let offered = offered.await.unwrap();
    assert_eq!(offered["method"], "initialize", "{offered}");
    assert_eq!(offered["params"]["protocolVersion"], "2025-11-25", "{offered}");
    manager.shutdown().await;
}

/// Regression: `tools/call` without a `name` was answered -32601 (method not found); its
/// params are what is wrong, -32602. An unknown method stays -32601.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_without_a_name_is_invalid_params() {
    let dir = project();
    let server = serve(dir.path()).await;
    let mut client = RawSession::open(&server.url()).await;
    let answer = client.request("tools/call", json!({"arguments": {}})).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("name"), "{answer}");
    let answer = client.request("tools/call", json!({"name": 5})).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let answer = client.request("tools/frobnicate", json!({})).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    server.shutdown().await;
}

/// Regression: progress notifications always said `progress: 0`. A tool that reports
/// progress without numbers, then with a number, then with one that goes back: the values
/// sent always increase, in order, before the result, and the messages are kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_values_increase_and_keep_their_messages() {
    let ticker = toolgate_core::ToolBuilder::new("Tick")
        .schema(json!({"type": "object", "properties": {}}))
        .read_only(true)
        .call(|_, ctx| async move {
            ctx.report_progress("one", None);
            ctx.report_progress("two", None);
            ctx.report_progress("ten of twenty", Some(json!({"progress": 10, "total": 20})));
            ctx.report_progress("went back", Some(json!({"progress": 3, "total": 5})));
            Ok(toolgate_core::ToolOutput::text("ticked"))
        })
        .build();
    let dir = project();
    let session =
        Session::builder().cwd(dir.path()).builtin_tools([ticker]).mode(PermissionMode::BypassPermissions).build();
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let server = serve_http(session, addr, None, ServeOptions::new()).await.unwrap();
    let mut client = RawSession::open(&server.url()).await;
    let params = json!({"name": "Tick", "arguments": {}, "_meta": {"progressToken": "p1"}});
    let all = client.request_all("tools/call", params).await;
    let progress: Vec<(f64, Value, String)> = all
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], "p1", "{m}");
            let p = &m["params"];
            (p["progress"].as_f64().unwrap(), p["total"].clone(), p["message"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    let expected = vec![
        (1.0, Value::Null, "one".to_owned()),
        (2.0, Value::Null, "two".to_owned()),
        (10.0, json!(20.0), "ten of twenty".to_owned()),
        (11.0, Value::Null, "went back".to_owned()),
    ];
    assert_eq!(progress, expected, "{all:?}");
    assert_eq!(all.last().unwrap()["result"]["content"][0]["text"], "ticked");
    server.shutdown().await;
}

/// Regression: an HTTP client that went away in the middle of a call did not stop it. Its
/// call now keeps running for the disconnect grace (for the client to come back with
/// `Last-Event-ID`), then is cancelled, its process killed; the session itself stays open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_client_disconnects_is_cancelled_after_the_grace() {
    let dir = project();
    let options = ServeOptions::new().disconnect_grace(std::time::Duration::from_millis(300));
    let server = serve_with(dir.path(), options).await;
    let mut client = RawSession::open(&server.url()).await;
    let pid_file = dir.path().join("call.pid");
    let command = format!("echo $$ > {}; exec sleep 300", pid_file.display());
    let message = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "Bash", "arguments": {"command": command}}});
    let (http, url, id) = (client.http.clone(), client.url.clone(), client.id.clone());
    // The client sends the call, then goes away before the answer (its request is dropped).
    let call = tokio::spawn(async move { post(&http, &url, Some(&id), &message).await.text().await });
    let pid = pid_in(&pid_file).await;
    assert!(running(pid));
    call.abort();
    assert!(eventually(|| !running(pid)).await, "the call {pid} outlived its client's disconnection");
    // The session is still there for the client's next request.
    let (text, is_error) = client.call("Read", json!({"file_path": dir.path().join("a.txt")})).await;
    assert!(!is_error && text.contains("alpha"), "{text}");
    server.shutdown().await;
}

/// An HTTP session with no request for the idle timeout, and no call running, is closed: its
/// fork is dropped and its background shell killed. A session with a call running is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_is_closed_and_its_shells_killed() {
    let dir = project();
    let options = ServeOptions::new().idle_timeout(std::time::Duration::from_millis(800));
    let server = serve_with(dir.path(), options).await;
    let mut client = RawSession::open(&server.url()).await;
    let pid_file = dir.path().join("shell.pid");
    let command = format!("echo $$ > {}; exec sleep 300", pid_file.display());
    let (_, is_error) = client.call("Bash", json!({"command": command, "run_in_background": true})).await;
    assert!(!is_error);
    let pid = pid_in(&pid_file).await;
    // A call that runs longer than the idle timeout keeps its session.
    let (text, is_error) = client.call("Bash", json!({"command": "sleep 1.2; echo still here"})).await;
    assert!(!is_error && text.contains("still here"), "{text}");
    assert_eq!(server.open_sessions(), 1);
    assert!(running(pid));
    // Then nothing: the session is closed and its shell killed.
    assert!(eventually(|| server.open_sessions() == 0).await, "the idle session stayed open");
    assert!(eventually(|| !running(pid)).await, "the idle session's shell {pid} survived");
    server.shutdown().await;
}
