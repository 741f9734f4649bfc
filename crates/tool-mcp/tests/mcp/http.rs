//! `toolgate mcp serve --http` as raw HTTP clients see it: how it writes its responses,
//! how sessions end, and what each session keeps to itself.

use std::net::SocketAddr;
use std::path::Path;

use serde_json::{Value, json};
use toolgate_core::PermissionMode;
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
        let http = reqwest::Client::new();
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
        self.next += 1;
        let id = self.next;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = post(&self.http, &self.url, Some(&self.id), &message).await;
        assert!(response.status().is_success(), "{}", response.status());
        answer(&response.text().await.unwrap(), id)
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

/// The JSON-RPC answer with `id` in an event-stream (or JSON) body.
fn answer(body: &str, id: u64) -> Value {
    let messages: Vec<Value> = if body.trim_start().starts_with('{') {
        vec![serde_json::from_str(body).unwrap()]
    } else {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .map(|data| serde_json::from_str(data).unwrap())
            .collect()
    };
    messages.into_iter().find(|m| m["id"] == id).unwrap_or_else(|| panic!("no answer {id} in {body:?}"))
}

/// A project with `a.txt`, `b.txt` and `f0.txt` to `f19.txt`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "beta\n").unwrap();
    for i in 0..20 {
        std::fs::write(dir.path().join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
    }
    dir
}

/// Every built-in tool, every call allowed, served on loopback.
async fn serve(dir: &Path) -> HttpServer {
    let session = Session::builder()
        .cwd(dir)
        .builtin_tools(toolgate_builtin::all_builtin_tools())
        .mode(PermissionMode::BypassPermissions)
        .build();
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    serve_http(session, addr, None, ServeOptions::new()).await.unwrap()
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
