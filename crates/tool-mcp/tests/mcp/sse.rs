//! The legacy HTTP+SSE transport: `@modelcontextprotocol/server-everything sse` from npm
//! (skipped, with a note, where node or the package is missing), and a hand-written HTTP
//! server for the headers, the relative endpoint and the failures.

use std::collections::BTreeMap;
use std::net::TcpListener as StdListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use toolgate_core::process::ProcessSpec;
use toolgate_core::{PermissionMode, ToolPool};
use toolgate_mcp::{McpManager, McpServerConfig, ServerStatus};
use toolgate_pipeline::{Session, ToolCall};

use crate::support::{call, connect, npm_server, options, tool};

fn sse_config(name: &str, url: &str, headers: BTreeMap<String, String>) -> McpServerConfig {
    headers.into_iter().fold(McpServerConfig::sse(name, url), |config, (k, v)| config.with_env(k, v))
}

/// A port nothing listens on right now (on all interfaces, where server-everything binds).
fn free_port() -> u16 {
    StdListener::bind("0.0.0.0:0").unwrap().local_addr().unwrap().port()
}

/// Polls until something accepts connections on the port, for at most `limit`.
async fn wait_for_port(port: u16, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_sse() {
    let Some((node, script)) = npm_server("server-everything") else { return };
    let port = free_port();
    let mut child = ProcessSpec::exec(node, [script.to_string_lossy().into_owned(), "sse".into()])
        .cwd(std::env::temp_dir())
        .env("PORT", port.to_string())
        .discard_stderr()
        .spawn()
        .unwrap();
    assert!(wait_for_port(port, Duration::from_secs(30)).await, "server-everything never listened on {port}");

    let url = format!("http://127.0.0.1:{port}/sse");
    let manager = connect(vec![sse_config("everything", &url, BTreeMap::new())]).await;
    let state = &manager.statuses()[0];
    assert_eq!(state.status, ServerStatus::Connected, "{state:?}");
    assert!(state.server_info.as_deref().is_some_and(|s| s.contains("everything")), "{state:?}");

    let (out, _) = call(&tool(&manager, "mcp__everything__echo"), json!({"message": "hello over sse"})).await;
    assert_eq!(out.unwrap().to_text(), "Echo: hello over sse");

    let pool = ToolPool::builder().mcps(manager.tools()).build();
    let session =
        Session::builder().cwd(std::env::temp_dir()).pool(pool).mode(PermissionMode::BypassPermissions).build();
    let results = session
        .run_message(vec![
            ToolCall::new("t1", "mcp__everything__get-sum", json!({"a": 2, "b": 3})),
            ToolCall::new("t2", "mcp__everything__get-sum", json!({"a": 40, "b": 2})),
        ])
        .await;
    assert_eq!(results[0].content[0].as_text(), Some("The sum of 2 and 3 is 5."), "{results:?}");
    assert_eq!(results[1].content[0].as_text(), Some("The sum of 40 and 2 is 42."), "{results:?}");

    manager.shutdown().await;
    child.terminate().await.unwrap();
}

/// One request as the fake server saw it: the request line, lower-cased headers, body.
#[derive(Debug, Clone)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut byte).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&byte[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let line = lines.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = stream.read(&mut byte).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&byte[..n]);
    }
    Some(Seen { line, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

/// What the fake server saw, and whether the client closed its event stream.
#[derive(Default)]
struct Fake {
    seen: Mutex<Vec<Seen>>,
    stream_closed: AtomicBool,
    stream: Mutex<Option<mpsc::UnboundedSender<String>>>,
}

/// A server whose `GET` answers an event stream starting with `stream` (then held open
/// when `hold`), and whose `POST`s answer 202; with `answer`, `initialize` and
/// `tools/list` are answered on the stream.
async fn fake_server(stream: &'static str, hold: bool, answer: bool) -> (String, Arc<Fake>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp/sse", listener.local_addr().unwrap());
    let fake = Arc::new(Fake::default());
    let state = fake.clone();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let state = state.clone();
            tokio::spawn(async move {
                let Some(request) = read_request(&mut conn).await else { return };
                let is_get = request.line.starts_with("GET ");
                let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
                state.seen.lock().unwrap().push(request);
                if is_get {
                    let (tx, mut rx) = mpsc::unbounded_channel();
                    *state.stream.lock().unwrap() = Some(tx);
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                    let _ = conn.write_all(head.as_bytes()).await;
                    let _ = conn.write_all(stream.as_bytes()).await;
                    if !hold {
                        return;
                    }
                    let mut scratch = [0u8; 16];
                    loop {
                        tokio::select! {
                            event = rx.recv() => match event {
                                Some(event) => { let _ = conn.write_all(event.as_bytes()).await; }
                                None => break,
                            },
                            read = conn.read(&mut scratch) => if matches!(read, Ok(0) | Err(_)) { break },
                        }
                    }
                    state.stream_closed.store(true, Ordering::SeqCst);
                } else {
                    let head = "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
                    let _ = conn.write_all(head.as_bytes()).await;
                    let result = match body["method"].as_str() {
                        Some("initialize") => json!({
                            "protocolVersion": "2024-11-05",
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "fake-sse", "version": "1.0.0"}
                        }),
                        Some("tools/list") => json!({"tools": [
                            {"name": "noop", "inputSchema": {"type": "object"}}
                        ]}),
                        _ => return,
                    };
                    if answer && let Some(tx) = state.stream.lock().unwrap().as_ref() {
                        let reply = json!({"jsonrpc": "2.0", "id": body["id"], "result": result});
                        // Split over two writes, in the middle of a line.
                        let _ = tx.send(format!("event: message\r\ndata: {}", &reply.to_string()[..5]));
                        let _ = tx.send(format!("{}\r\n\r\n", &reply.to_string()[5..]));
                    }
                }
            });
        }
    });
    (url, fake)
}

/// Polls a condition for at most five seconds.
async fn eventually(condition: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fake_server_connects_and_shutdown_closes_the_stream() {
    let (url, fake) = fake_server("event: endpoint\ndata: /mcp/messages?sessionId=1\n\n", true, true).await;
    let manager = connect(vec![sse_config("fake", &url, BTreeMap::new())]).await;
    let state = &manager.statuses()[0];
    assert_eq!(state.status, ServerStatus::Connected, "{state:?}");
    assert_eq!(state.server_info.as_deref(), Some("fake-sse 1.0.0"));
    tool(&manager, "mcp__fake__noop");
    assert!(!fake.stream_closed.load(Ordering::SeqCst));
    manager.shutdown().await;
    assert!(eventually(|| fake.stream_closed.load(Ordering::SeqCst)).await, "the event stream stayed open");
}

fn failure(manager: &McpManager) -> String {
    match &manager.statuses()[0].status {
        ServerStatus::Failed { reason } => reason.clone(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_go_with_the_get_and_every_post_to_the_relative_endpoint() {
    let (url, fake) = fake_server(": hello\n\nevent: endpoint\ndata: messages?sessionId=abc\n\n", true, false).await;
    let headers = BTreeMap::from([("X-Token".to_owned(), "s3cret".to_owned())]);
    let opts = options().startup_timeout(Duration::from_millis(1_500));
    let manager = McpManager::connect_all(vec![sse_config("fake", &url, headers)], opts).await;
    let reason = failure(&manager);
    assert!(reason.contains("did not finish connecting within 1500 ms"), "{reason}");
    manager.shutdown().await;

    // The failed connection does not leave its event stream open.
    assert!(eventually(|| fake.stream_closed.load(Ordering::SeqCst)).await, "the event stream stayed open");
    let seen = fake.seen.lock().unwrap().clone();
    let get = &seen[0];
    assert_eq!(get.line, "GET /mcp/sse HTTP/1.1");
    assert_eq!(get.header("accept"), Some("text/event-stream"));
    assert_eq!(get.header("x-token"), Some("s3cret"));
    let post = seen.iter().find(|s| s.line.starts_with("POST ")).expect("the client posted initialize");
    assert_eq!(post.line, "POST /mcp/messages?sessionId=abc HTTP/1.1");
    assert_eq!(post.header("x-token"), Some("s3cret"));
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert!(post.body.contains("\"initialize\""), "{}", post.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_without_an_endpoint_fails_cleanly() {
    let opts = || options().startup_timeout(Duration::from_millis(1_000));

    let (url, _) = fake_server(": only a comment\n\ndata: {}\n\n", false, false).await;
    let manager = McpManager::connect_all(vec![sse_config("ends", &url, BTreeMap::new())], opts()).await;
    let reason = failure(&manager);
    assert_eq!(reason, "the SSE stream ended before the `endpoint` event");
    manager.shutdown().await;

    let (url, _) = fake_server(": waiting\n\n", true, false).await;
    let started = Instant::now();
    let manager = McpManager::connect_all(vec![sse_config("silent", &url, BTreeMap::new())], opts()).await;
    let reason = failure(&manager);
    assert_eq!(reason, "did not receive the SSE `endpoint` event within 1000 ms");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    manager.shutdown().await;

    let (url, _) = fake_server("event: endpoint\ndata: http://elsewhere.invalid/m\n\n", true, false).await;
    let manager = McpManager::connect_all(vec![sse_config("offsite", &url, BTreeMap::new())], opts()).await;
    let reason = failure(&manager);
    assert!(reason.contains("points to another origin"), "{reason}");
    manager.shutdown().await;
}
