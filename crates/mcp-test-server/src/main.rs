//! `toolgate-mcp-test-server`: an MCP server that misbehaves on request, for the tests of
//! `toolgate-mcp`.
//!
//! It speaks MCP over stdio (the default) or over streamable HTTP (`--http ADDR`, which
//! prints `listening on http://HOST:PORT/mcp` on stdout once bound; port 0 picks a free
//! port). Its tools are the levers the tests pull:
//!
//! | tool | what it does |
//! |---|---|
//! | `echo {text}` | returns `text` (annotated read-only, with a title and `_meta` hints) |
//! | `add {a, b}` | returns the sum as text and as `structuredContent` `{"sum": …}` |
//! | `fail {message}` | returns `isError: true` with `message` |
//! | `progress {steps}` | sends `steps` progress notifications, then returns `done` |
//! | `hang {}` | reports progress `hanging`, then never answers; counts the cancellation when the client cancels it |
//! | `cancellations {at_least}` | how many `hang` calls were cancelled, waiting (5 s at most) until `at_least` |
//! | `crash {}` | exits the process with status 3 without answering |
//! | `malformed {}` | answers with a result whose `content` is not a list (stdio only) |
//! | `garbage {}` | writes a line that is not JSON, a response to an unknown id, a JSON-RPC 1.0 object and a bare array, then answers `survived garbage` (stdio only) |
//! | `oversized {}` | answers with one line of [`OVERSIZED_LINE_BYTES`] bytes, past rmcp's 16 MiB line limit (stdio only) |
//! | `media {}` | image, audio, resource link and embedded resource blocks |
//! | `big {chars}` | `chars` characters of text |
//! | `add_tool {name}` | adds a tool called `name` and sends `notifications/tools/list_changed` |
//! | `pid {}` | the server's process id |
//! | `env {name}` | the value of an environment variable |
//! | `choice {…}` | a tool whose input schema is a root `anyOf` |
//! | `destroy {}` | annotated destructive |
//! | `ask {message}` | asks the client `message` for a `name` (`elicitation/create`, form mode) and returns its answer as JSON (`{"action": …, "content": …}`) |
//!
//! It also offers two resources, `test://greeting` (text) and `test://blob` (binary), and
//! a `ping`-free default for everything else. `TEST_SERVER_EXIT_AT_START=1` makes it exit
//! before answering `initialize` (a server that fails to start).

use std::collections::BTreeSet;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::AsyncWrite;

/// The text `malformed` answers with; the stdout wrapper replaces the whole response.
const MALFORMED_MARKER: &str = "__toolgate_test_server_malformed__";

/// The text `garbage` answers with; the stdout wrapper writes junk lines before it.
const GARBAGE_MARKER: &str = "__toolgate_test_server_garbage__";

/// The text `oversized` answers with; the stdout wrapper replaces the response with a
/// line of [`OVERSIZED_LINE_BYTES`] bytes.
const OVERSIZED_MARKER: &str = "__toolgate_test_server_oversized__";

/// How long the line `oversized` sends is: 17 MiB, just past rmcp's 16 MiB line limit.
const OVERSIZED_LINE_BYTES: usize = 17 * 1024 * 1024;

/// The server's shared state: dynamic tools and counters.
#[derive(Clone, Default)]
struct TestServer {
    extra_tools: Arc<Mutex<BTreeSet<String>>>,
    cancellations: Arc<AtomicU64>,
    cancelled: Arc<tokio::sync::Notify>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(format!("test server bug: {e}"), None))
}

fn text_result(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    let result: CallToolResult = from_json(json!({"content": [{"type": "text", "text": text.into()}]}))?;
    Ok(CallToolResponse::Complete(result))
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// The tool list, as JSON.
fn tool_definitions(extra: &BTreeSet<String>) -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": "echo",
            "title": "Echo",
            "description": "Returns the text it is given.",
            "inputSchema": object_schema(json!({"text": {"type": "string"}}), &["text"]),
            "annotations": {"title": "Echo text", "readOnlyHint": true},
            "_meta": {"anthropic/searchHint": "repeat words back", "anthropic/alwaysLoad": true}
        }),
        json!({
            "name": "add",
            "description": "Adds two integers.",
            "inputSchema": object_schema(json!({"a": {"type": "integer"}, "b": {"type": "integer"}}), &["a", "b"]),
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "fail",
            "description": "Fails with the given message.",
            "inputSchema": object_schema(json!({"message": {"type": "string"}}), &["message"])
        }),
        json!({
            "name": "progress",
            "description": "Reports progress, then returns done.",
            "inputSchema": object_schema(json!({"steps": {"type": "integer", "minimum": 0}}), &["steps"])
        }),
        json!({"name": "hang", "description": "Never answers.", "inputSchema": object_schema(json!({}), &[])}),
        json!({
            "name": "cancellations",
            "description": "How many hang calls were cancelled.",
            "inputSchema": object_schema(json!({"at_least": {"type": "integer"}}), &[])
        }),
        json!({"name": "crash", "description": "Exits at once.", "inputSchema": object_schema(json!({}), &[])}),
        json!({
            "name": "malformed",
            "description": "Answers with a malformed result.",
            "inputSchema": object_schema(json!({}), &[])
        }),
        json!({
            "name": "garbage",
            "description": "Writes junk lines before its answer.",
            "inputSchema": object_schema(json!({}), &[])
        }),
        json!({
            "name": "oversized",
            "description": "Answers with a line too long to read.",
            "inputSchema": object_schema(json!({}), &[])
        }),
        json!({
            "name": "media",
            "description": "Returns every kind of content block.",
            "inputSchema": object_schema(json!({}), &[]),
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "big",
            "description": "Returns many characters.",
            "inputSchema": object_schema(json!({"chars": {"type": "integer", "minimum": 0}}), &["chars"]),
            "_meta": {"anthropic/maxResultSizeChars": 900_000}
        }),
        json!({
            "name": "add_tool",
            "description": "Adds a tool and announces the change.",
            "inputSchema": object_schema(json!({"name": {"type": "string"}}), &["name"])
        }),
        json!({"name": "pid", "description": "The process id.", "inputSchema": object_schema(json!({}), &[])}),
        json!({
            "name": "env",
            "description": "An environment variable's value.",
            "inputSchema": object_schema(json!({"name": {"type": "string"}}), &["name"])
        }),
        json!({
            "name": "choice",
            "description": "Takes either a path or an id.",
            "inputSchema": {
                "type": "object",
                "anyOf": [
                    {"properties": {"path": {"type": "string"}}, "required": ["path"]},
                    {"properties": {"id": {"type": "integer"}}, "required": ["id"]}
                ]
            }
        }),
        json!({
            "name": "destroy",
            "description": "Pretends to delete everything.",
            "inputSchema": object_schema(json!({}), &[]),
            "annotations": {"destructiveHint": true, "readOnlyHint": false}
        }),
        json!({
            "name": "ask",
            "description": "Asks the client a question and returns its answer.",
            "inputSchema": object_schema(json!({"message": {"type": "string"}}), &["message"])
        }),
    ];
    for name in extra {
        tools.push(json!({
            "name": name,
            "description": format!("A tool added at run time: {name}."),
            "inputSchema": object_schema(json!({}), &[])
        }));
    }
    tools
}

impl TestServer {
    async fn call(
        &self,
        name: &str,
        args: &Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arg_str = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let arg_int = |key: &str| args.get(key).and_then(Value::as_i64).unwrap_or_default();
        match name {
            "echo" => text_result(arg_str("text")),
            "add" => {
                let sum = arg_int("a") + arg_int("b");
                let result = from_json(json!({
                    "content": [{"type": "text", "text": sum.to_string()}],
                    "structuredContent": {"sum": sum},
                    "isError": false
                }))?;
                Ok(CallToolResponse::Complete(result))
            }
            "fail" => Ok(CallToolResponse::Complete(from_json(json!({
                "content": [{"type": "text", "text": arg_str("message")}],
                "isError": true
            }))?)),
            "progress" => {
                let steps = arg_int("steps").max(0);
                if let Some(token) = context.meta.get_progress_token() {
                    for step in 1..=steps {
                        let param = from_json(json!({
                            "progressToken": token,
                            "progress": step,
                            "total": steps,
                            "message": format!("step {step} of {steps}")
                        }))?;
                        let _ = context.peer.notify_progress(param).await;
                    }
                }
                text_result("done")
            }
            "hang" => {
                if let Some(token) = context.meta.get_progress_token() {
                    let param = from_json(json!({"progressToken": token, "progress": 0, "message": "hanging"}))?;
                    let _ = context.peer.notify_progress(param).await;
                }
                context.ct.cancelled().await;
                self.cancellations.fetch_add(1, Ordering::SeqCst);
                self.cancelled.notify_waiters();
                text_result("cancelled")
            }
            "cancellations" => {
                let want = u64::try_from(arg_int("at_least")).unwrap_or(0);
                let wait = async {
                    loop {
                        let notified = self.cancelled.notified();
                        if self.cancellations.load(Ordering::SeqCst) >= want {
                            return;
                        }
                        notified.await;
                    }
                };
                let _ = tokio::time::timeout(Duration::from_secs(5), wait).await;
                text_result(self.cancellations.load(Ordering::SeqCst).to_string())
            }
            "crash" => std::process::exit(3),
            "malformed" => text_result(MALFORMED_MARKER),
            "garbage" => text_result(GARBAGE_MARKER),
            "oversized" => text_result(OVERSIZED_MARKER),
            "media" => Ok(CallToolResponse::Complete(from_json(json!({
                "content": [
                    {"type": "text", "text": "four blocks follow"},
                    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                    {"type": "resource_link", "uri": "test://greeting", "name": "greeting", "mimeType": "text/plain"},
                    {"type": "resource", "resource": {"uri": "test://greeting", "mimeType": "text/plain", "text": "hello"}}
                ]
            }))?)),
            "big" => text_result("x".repeat(usize::try_from(arg_int("chars")).unwrap_or(0))),
            "add_tool" => {
                lock(&self.extra_tools).insert(arg_str("name"));
                let _ = context.peer.notify_tool_list_changed().await;
                text_result("added")
            }
            "pid" => text_result(std::process::id().to_string()),
            "env" => text_result(std::env::var(arg_str("name")).unwrap_or_else(|_| "(unset)".to_owned())),
            "choice" => text_result(format!("chose {args}")),
            "destroy" => text_result("destroyed nothing"),
            "ask" => {
                let params = from_json(json!({
                    "mode": "form",
                    "message": arg_str("message"),
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"name": {"type": "string", "title": "Your name"}},
                        "required": ["name"]
                    }
                }))?;
                match context.peer.create_elicitation(params).await {
                    Ok(answer) => text_result(serde_json::to_string(&answer).unwrap_or_default()),
                    Err(e) => text_result(format!("the question failed: {e}")),
                }
            }
            other if lock(&self.extra_tools).contains(other) => text_result(format!("{other} ran")),
            other => Err(ErrorData::invalid_params(format!("no tool named {other}"), None)),
        }
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "resources": {}},
            "serverInfo": {"name": "toolgate-mcp-test-server", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "A server for tests."
        }))
        .unwrap_or_default()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let extra = lock(&self.extra_tools).clone();
        let tools: Vec<Tool> = tool_definitions(&extra).into_iter().map(from_json).collect::<Result<_, _>>()?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        self.call(&request.name, &args, &context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        from_json(json!({"resources": [
            {"uri": "test://greeting", "name": "greeting", "mimeType": "text/plain", "description": "A greeting."},
            {"uri": "test://blob", "name": "blob", "mimeType": "application/octet-stream"}
        ]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = match request.uri.as_str() {
            "test://greeting" => json!([{"uri": "test://greeting", "mimeType": "text/plain", "text": "hello"}]),
            "test://blob" => json!([{"uri": "test://blob", "mimeType": "application/octet-stream", "blob": "AAEC"}]),
            other => return Err(ErrorData::resource_not_found(format!("no resource {other}"), None)),
        };
        let result: ReadResourceResult = from_json(json!({"contents": contents}))?;
        Ok(ReadResourceResponse::Complete(result))
    }
}

/// Stdout, with every response line that carries [`MALFORMED_MARKER`] replaced by a
/// result whose `content` is not a list, junk lines written before one that carries
/// [`GARBAGE_MARKER`], and one that carries [`OVERSIZED_MARKER`] replaced by a line too
/// long for the client to read.
struct MalformingStdout {
    inner: tokio::io::Stdout,
    line: Vec<u8>,
    out: Vec<u8>,
}

impl MalformingStdout {
    fn new() -> Self {
        Self { inner: tokio::io::stdout(), line: Vec::new(), out: Vec::new() }
    }

    fn rewrite(line: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(line);
        if text.contains(GARBAGE_MARKER) {
            let mut out = b"this line is not JSON at all {{{\n".to_vec();
            out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":987654321,\"result\":{\"content\":[]}}\n");
            out.extend_from_slice(b"{\"jsonrpc\":\"1.0\",\"method\":42}\n");
            out.extend_from_slice(b"[1, 2, 3]\n");
            out.extend_from_slice(line);
            return String::from_utf8_lossy(&out).replace(GARBAGE_MARKER, "survived garbage").into_bytes();
        }
        if text.contains(OVERSIZED_MARKER) {
            let mut out = b"{\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"".to_vec();
            out.resize(OVERSIZED_LINE_BYTES, b'x');
            out.extend_from_slice(b"\"}]}}\n");
            return out;
        }
        if !text.contains(MALFORMED_MARKER) {
            return line.to_vec();
        }
        let id = serde_json::from_str::<Value>(&text).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
        let bad = json!({"jsonrpc": "2.0", "id": id, "result": {"content": "not a list", "isError": "sometimes"}});
        let mut out = bad.to_string().into_bytes();
        out.push(b'\n');
        out
    }

    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while !self.out.is_empty() {
            match Pin::new(&mut self.inner).poll_write(cx, &self.out) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    self.out.drain(..n);
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for MalformingStdout {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        // Earlier bytes go out first; new ones are taken only once they have.
        match self.poll_drain(cx) {
            Poll::Ready(Ok(())) => {}
            other => return other.map(|r| r.map(|()| 0)),
        }
        for &byte in buf {
            self.line.push(byte);
            if byte == b'\n' {
                let line = std::mem::take(&mut self.line);
                let rewritten = Self::rewrite(&line);
                self.out.extend_from_slice(&rewritten);
            }
        }
        // Written now when possible: a notification must not wait for the next message.
        if let Poll::Ready(Err(e)) = self.poll_drain(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.poll_drain(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut self.inner).poll_flush(cx),
            other => other,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.poll_drain(cx) {
            Poll::Ready(Ok(())) => Pin::new(&mut self.inner).poll_shutdown(cx),
            other => other,
        }
    }
}

async fn serve_stdio() -> Result<(), String> {
    let server = TestServer::default();
    let running = server
        .serve((tokio::io::stdin(), MalformingStdout::new()))
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    running.waiting().await.map_err(|e| format!("server task failed: {e}"))?;
    Ok(())
}

async fn serve_http(addr: &str) -> Result<(), String> {
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    use tokio::io::AsyncWriteExt as _;

    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("cannot bind {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let server = TestServer::default();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_sse_keep_alive(None),
    );
    let mut stdout = tokio::io::stdout();
    let line = format!("listening on http://{local}/mcp\n");
    stdout.write_all(line.as_bytes()).await.map_err(|e| e.to_string())?;
    stdout.flush().await.map_err(|e| e.to_string())?;
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    if std::env::var_os("TEST_SERVER_EXIT_AT_START").is_some() {
        eprintln!("toolgate-mcp-test-server: exiting at start, as asked");
        return std::process::ExitCode::from(2);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.as_slice() {
        [] => serve_stdio().await,
        [flag, addr] if flag == "--http" => serve_http(addr).await,
        _ => Err("usage: toolgate-mcp-test-server [--http ADDR]".to_owned()),
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolgate-mcp-test-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_definition_is_a_valid_rmcp_tool_with_a_unique_name() {
        let extra = BTreeSet::from(["later".to_owned()]);
        let defs = tool_definitions(&extra);
        let mut names = BTreeSet::new();
        for def in defs {
            let tool: Tool = serde_json::from_value(def).unwrap();
            assert!(names.insert(tool.name.to_string()), "duplicate {}", tool.name);
        }
        assert!(names.contains("later"));
    }

    #[test]
    fn only_marked_lines_are_malformed() {
        let plain = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
        assert_eq!(MalformingStdout::rewrite(plain), plain.to_vec());
        let marked = format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"text\":\"{MALFORMED_MARKER}\"}}}}\n");
        let out: Value = serde_json::from_slice(&MalformingStdout::rewrite(marked.as_bytes())).unwrap();
        assert_eq!(out["id"], 7);
        assert_eq!(out["result"]["content"], "not a list");
    }

    #[test]
    fn garbage_comes_before_the_answer_and_oversized_lines_are_oversized() {
        let marked = format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"text\":\"{GARBAGE_MARKER}\"}}}}\n");
        let out = String::from_utf8(MalformingStdout::rewrite(marked.as_bytes())).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5, "{out}");
        assert!(serde_json::from_str::<Value>(lines[0]).is_err());
        let answer: Value = serde_json::from_str(lines[4]).unwrap();
        assert_eq!(answer["result"]["text"], "survived garbage");
        let marked = format!("{{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{{\"text\":\"{OVERSIZED_MARKER}\"}}}}\n");
        let out = MalformingStdout::rewrite(marked.as_bytes());
        assert!(out.len() > OVERSIZED_LINE_BYTES && out.ends_with(b"\n"));
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
    }

    #[test]
    fn server_info_names_this_server() {
        let info = TestServer::default().get_info();
        assert_eq!(info.server_info.name, "toolgate-mcp-test-server");
        assert!(info.capabilities.tools.is_some());
    }
}
