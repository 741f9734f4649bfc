//! toolgate serving a session with the real built-in tools, and toolgate's client (and a
//! plain rmcp client) calling it: Read and Edit round-trip, and hooks, rules and the
//! elicitation prompter apply to served calls.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{Value, json};
use toolgate_core::{PermissionMode, ToolPool};
use toolgate_mcp::{
    HttpServer, McpManager, McpPrompter, McpServerConfig, ServeOptions, ServerStatus, serve_http, serve_io,
};
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::{Session, ToolCall};

use crate::support::options;

const TOKEN: &str = "test-token-123";

/// A project with a file to edit, a deny rule and a PreToolUse hook that blocks Write.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello world\n").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "s3cret\n").unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let settings = json!({
        "permissions": {"deny": ["Read(./secret.txt)"]},
        "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
            {"type": "command", "command": "echo 'writes are blocked by the test hook' >&2; exit 2"}
        ]}]}
    });
    std::fs::write(dir.path().join(".claude/settings.json"), settings.to_string()).unwrap();
    dir
}

/// The session `toolgate mcp serve` would run for `dir`, with every built-in tool.
pub(crate) fn serving_session(dir: &Path, prompter: Arc<McpPrompter>) -> Session {
    let loaded = SettingsDiscovery::new(dir).with_home(None).with_managed_dir(None).with_trust(true).load();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    Session::builder()
        .cwd(dir)
        .settings(loaded)
        .builtin_tools(toolgate_builtin::all_builtin_tools())
        .prompter(prompter)
        .mode(PermissionMode::Default)
        .build()
}

async fn serve(dir: &Path) -> HttpServer {
    let prompter = McpPrompter::new();
    let session = serving_session(dir, prompter.clone());
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    serve_http(session, addr, Some(TOKEN.to_owned()), ServeOptions::new().prompter(prompter)).await.unwrap()
}

/// A client session calling the served tools (its own permission bypassed, so only the
/// serving side decides).
async fn client(url: &str) -> (McpManager, Session) {
    let config = McpServerConfig::http("toolgate", url).with_env("Authorization", format!("Bearer {TOKEN}"));
    let manager = McpManager::connect_all(vec![config], options()).await;
    assert_eq!(manager.statuses()[0].status, ServerStatus::Connected, "{:?}", manager.statuses());
    let pool = ToolPool::builder().mcps(manager.tools()).build();
    let session =
        Session::builder().cwd(std::env::temp_dir()).pool(pool).mode(PermissionMode::BypassPermissions).build();
    (manager, session)
}

fn text(result: &toolgate_pipeline::ToolResultBlock) -> String {
    result.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// A client that approves every elicitation.
#[derive(Clone, Default)]
struct Approver {
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for Approver {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("approver", "1"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"always": false})))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolgate_serves_read_and_edit_to_its_own_client_with_rules_hooks_and_prompts() {
    let dir = project();
    let server = serve(dir.path()).await;
    let (manager, session) = client(&server.url()).await;
    let read_tool = manager.tools().into_iter().find(|t| t.name() == "mcp__toolgate__Read").unwrap();
    assert!(read_tool.is_read_only(&json!({})), "Read is published read-only");
    let edit_tool = manager.tools().into_iter().find(|t| t.name() == "mcp__toolgate__Edit").unwrap();
    assert!(!edit_tool.is_read_only(&json!({})));

    let notes = dir.path().join("notes.txt").to_string_lossy().into_owned();
    let secret = dir.path().join("secret.txt").to_string_lossy().into_owned();
    let edit = json!({"file_path": notes, "old_string": "world", "new_string": "toolgate"});
    let results = session
        .run_message(vec![
            ToolCall::new("r1", "mcp__toolgate__Read", json!({"file_path": notes})),
            ToolCall::new("e1", "mcp__toolgate__Edit", edit.clone()),
            ToolCall::new("w1", "mcp__toolgate__Write", json!({"file_path": notes, "content": "gone"})),
            ToolCall::new("s1", "mcp__toolgate__Read", json!({"file_path": secret})),
        ])
        .await;
    assert!(!results[0].is_error && text(&results[0]).contains("hello world"), "{}", text(&results[0]));
    // This client cannot answer elicitations: the ask becomes a denial naming the rule.
    assert!(results[1].is_error, "{}", text(&results[1]));
    assert!(text(&results[1]).contains("To allow it, add \"Edit("), "{}", text(&results[1]));
    assert!(
        results[2].is_error && text(&results[2]).contains("writes are blocked by the test hook"),
        "{}",
        text(&results[2])
    );
    assert!(results[3].is_error && text(&results[3]).contains("Read(./secret.txt)"), "{}", text(&results[3]));
    assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "hello world\n");

    // A client that supports elicitation is asked, approves, and the edit lands.
    let approver = Approver::default();
    toolgate_core::http::install_crypto_provider();
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header(TOKEN),
    );
    let plain = approver.clone().serve(transport).await.unwrap();
    // Its own session: it reads the file before editing it (the other client's Read is
    // not its own).
    let read = json!({"file_path": notes}).as_object().cloned().unwrap();
    let result = plain.call_tool(CallToolRequestParams::new("Read").with_arguments(read)).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let args = edit.as_object().cloned().unwrap();
    let result = plain.call_tool(CallToolRequestParams::new("Edit").with_arguments(args)).await.unwrap();
    let out = serde_json::to_value(&result).unwrap();
    assert_ne!(out["isError"], Value::Bool(true), "{out}");
    assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "hello toolgate\n");

    // And toolgate's own client reads the edit back.
    let results =
        session.run_message(vec![ToolCall::new("r2", "mcp__toolgate__Read", json!({"file_path": notes}))]).await;
    assert!(text(&results[0]).contains("hello toolgate"), "{}", text(&results[0]));

    plain.cancel().await.unwrap();
    manager.shutdown().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_the_token_are_refused() {
    let dir = project();
    let server = serve(dir.path()).await;
    let config = McpServerConfig::http("toolgate", server.url());
    let manager = McpManager::connect_all(vec![config], options()).await;
    let ServerStatus::Failed { reason } = &manager.statuses()[0].status else { panic!("{:?}", manager.statuses()) };
    assert!(reason.contains("401") || reason.to_lowercase().contains("auth"), "{reason}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_over_a_socket_pair_lists_annotated_tools_and_runs_calls() {
    let dir = project();
    let prompter = McpPrompter::new();
    let session = serving_session(dir.path(), prompter.clone());
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap();
    let (read, write) = server_side.into_split();
    let served = tokio::spawn(serve_io(session, read, write, ServeOptions::new().prompter(prompter)));
    let client = ().serve(client_side).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let read_def = tools.iter().find(|t| t.name == "Read").expect("Read is served");
    let annotations = read_def.annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(true));
    // Regression: Bash, Write and Edit were announced `destructiveHint: false`.
    for name in ["Bash", "Write", "Edit", "MultiEdit", "ApplyPatch", "NotebookEdit"] {
        let def = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} is served"));
        let annotations = def.annotations.as_ref().unwrap();
        assert_eq!((annotations.read_only_hint, annotations.destructive_hint), (Some(false), Some(true)), "{name}");
    }
    let notes = dir.path().join("notes.txt").to_string_lossy().into_owned();
    let args = json!({"file_path": notes}).as_object().cloned().unwrap();
    let result = client.call_tool(CallToolRequestParams::new("Read").with_arguments(args)).await.unwrap();
    assert!(result.content[0].as_text().unwrap().text.contains("hello world"));
    let result = client.call_tool(CallToolRequestParams::new("Nope")).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(result.content[0].as_text().unwrap().text.starts_with("No such tool available: Nope."));
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();
}

/// A client that reports each `notifications/tools/list_changed` on a channel.
#[derive(Clone)]
struct ListWatcher(tokio::sync::mpsc::UnboundedSender<()>);

impl ClientHandler for ListWatcher {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

/// When the served pool changes (a served MCP server added a tool), toolgate tells its
/// own clients with `notifications/tools/list_changed`, and `tools/list` has the new tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_of_the_served_pool_is_announced_to_the_client() {
    let dir = project();
    let prompter = McpPrompter::new();
    let session = serving_session(dir.path(), prompter.clone());
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap();
    let (read, write) = server_side.into_split();
    let served = tokio::spawn(serve_io(session.clone(), read, write, ServeOptions::new().prompter(prompter)));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = ListWatcher(tx).serve(client_side).await.unwrap();
    let capabilities = client.peer_info().unwrap().capabilities.tools.clone().unwrap();
    assert_eq!(capabilities.list_changed, Some(true));
    assert!(!client.list_all_tools().await.unwrap().iter().any(|t| t.name == "mcp__late__tool"));
    let late = toolgate_core::ToolBuilder::new("mcp__late__tool")
        .schema(json!({"type": "object", "properties": {}}))
        .read_only(true)
        .call(|_, _| async { Ok(toolgate_core::ToolOutput::text("late")) })
        .build();
    session.set_mcp_tools([late]);
    tokio::time::timeout(std::time::Duration::from_secs(20), rx.recv())
        .await
        .expect("no notifications/tools/list_changed")
        .unwrap();
    assert!(client.list_all_tools().await.unwrap().iter().any(|t| t.name == "mcp__late__tool"));
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();
}

/// Besides tools, `mcp serve` offers the host's prompts (skills and `.claude/commands`) and, as
/// resources, the large results the session saved, which a client reads without the Read tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_saved_results_are_served() {
    use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams};
    use toolgate_mcp::ServedPrompt;

    let dir = project();
    let prompter = McpPrompter::new();
    let session = serving_session(dir.path(), prompter.clone());
    let saved = session.results().persist("toolu_big", "a very long output").unwrap();
    let fix = ServedPrompt::new(
        "fix",
        "Fix an issue",
        Arc::new(|args: Option<&str>| Ok(format!("Fix issue {}", args.unwrap_or("?")))),
    );
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap();
    let (read, write) = server_side.into_split();
    let options = ServeOptions::new().prompter(prompter).prompts(vec![fix]);
    let served = tokio::spawn(serve_io(session, read, write, options));
    let client = ().serve(client_side).await.unwrap();

    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["fix"]);
    let args = json!({"arguments": "#12"}).as_object().cloned().unwrap();
    let got = client.get_prompt(GetPromptRequestParams::new("fix").with_arguments(args)).await.unwrap();
    assert_eq!(serde_json::to_value(&got.messages[0].content).unwrap()["text"], "Fix issue #12");
    let missing = client.get_prompt(GetPromptRequestParams::new("nope")).await.unwrap_err();
    assert!(missing.to_string().contains("no prompt named"), "{missing}");

    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 1, "{resources:?}");
    let uri = resources[0].uri.clone();
    assert!(uri.ends_with("toolu_big.txt") && saved.ends_with("toolu_big.txt"), "{uri}");
    let read = client.read_resource(ReadResourceRequestParams::new(uri)).await.unwrap();
    assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "a very long output");
    let outside = format!("file://{}", dir.path().join("secret.txt").display());
    assert!(client.read_resource(ReadResourceRequestParams::new(outside)).await.is_err(), "only saved results");
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();
}

/// A client that reports each log record it gets on a channel.
#[derive(Clone)]
struct LogWatcher(tokio::sync::mpsc::UnboundedSender<Value>);

impl ClientHandler for LogWatcher {
    #[allow(deprecated, reason = "MCP logging, deprecated by the newest revision, is what is tested")]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(serde_json::to_value(params).unwrap());
    }
}

/// A client that sets a level gets the host's log records at or above it, and no others.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated, reason = "MCP logging, deprecated by the newest revision, is what is tested")]
async fn a_client_gets_the_log_records_at_its_level() {
    use toolgate_mcp::{LogLevel, McpLogs};

    let dir = project();
    let prompter = McpPrompter::new();
    let session = serving_session(dir.path(), prompter.clone());
    let logs = McpLogs::default();
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap();
    let (read, write) = server_side.into_split();
    let options = ServeOptions::new().prompter(prompter).logs(logs.clone());
    let served = tokio::spawn(serve_io(session, read, write, options));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = LogWatcher(tx).serve(client_side).await.unwrap();
    assert!(client.peer_info().unwrap().capabilities.logging.is_some(), "logging is declared");
    assert!(!logs.wanted(LogLevel::Error), "nobody asked yet");
    client.set_level(rmcp::model::SetLevelRequestParams::new(rmcp::model::LoggingLevel::Warning)).await.unwrap();
    assert!(logs.wanted(LogLevel::Warning) && !logs.wanted(LogLevel::Info));
    logs.record(LogLevel::Info, "toolgate::test", "not sent".to_owned());
    logs.record(LogLevel::Error, "toolgate::test", "a call failed".to_owned());
    let got = tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv()).await.unwrap().unwrap();
    assert_eq!(got["level"], "error");
    assert_eq!(got["logger"], "toolgate::test");
    assert_eq!(got["data"], "a call failed");
    assert!(rx.try_recv().is_err(), "the info record was not sent");
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();
}

/// A client that writes a gate file when it hears the progress of its call, and keeps what
/// it heard.
#[derive(Clone)]
struct GateOnProgress {
    gate: std::path::PathBuf,
    heard: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ClientHandler for GateOnProgress {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.heard.lock().unwrap().push(params.message.unwrap_or_default());
        std::fs::write(&self.gate, "go").unwrap();
    }
}

/// `serve_io` over a socket pair for a session whose MCP tools come from `manager`, started
/// in the background as `mcp serve` starts them; a client `handler` connected to it.
async fn serve_upstream<H: ClientHandler>(
    dir: &Path,
    manager: &McpManager,
    handler: H,
) -> (rmcp::service::RunningService<RoleClient, H>, tokio::task::JoinHandle<Result<(), toolgate_mcp::ServeError>>) {
    let session =
        Session::builder().cwd(dir).mcp_tools(manager.tools()).mode(PermissionMode::BypassPermissions).build();
    // What the CLI runs beside the server: the pool follows the servers' tools.
    manager.apply_changes_to(session.clone());
    let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap();
    let (read, write) = server_side.into_split();
    let served = tokio::spawn(serve_io(session, read, write, ServeOptions::new().upstream(manager.clone())));
    (handler.serve(client_side).await.unwrap(), served)
}

/// Regression: under `mcp serve`, a call of a tool of a server still starting was answered
/// "No such tool available". The call now waits for the server, saying so as its progress,
/// and runs once the server has started. The server starts only when the client has heard
/// that progress, so the call cannot have come after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_of_a_server_still_starting_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("gate");
    let server = crate::support::test_server();
    let script = format!("while [ ! -e '{}' ]; do sleep 0.02; done; exec '{}'", gate.display(), server.display());
    let config = McpServerConfig::stdio("late", "sh", ["-c".to_owned(), script]);
    let manager = McpManager::start(vec![config], options());
    let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
    let handler = GateOnProgress { gate: gate.clone(), heard: heard.clone() };
    let (client, served) = serve_upstream(dir.path(), &manager, handler).await;
    let listed = client.list_all_tools().await.unwrap();
    assert!(!listed.iter().any(|t| t.name == "mcp__late__echo"), "the server started before its gate opened");
    let args = json!({"text": "late but here"}).as_object().cloned().unwrap();
    let result = client.call_tool(CallToolRequestParams::new("mcp__late__echo").with_arguments(args)).await.unwrap();
    let text = result.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
    assert_eq!((result.is_error, text.as_str()), (Some(false), "late but here"), "{result:?}");
    assert_eq!(*heard.lock().unwrap(), ["waiting for the MCP server late to finish starting"]);
    assert_eq!(manager.statuses()[0].status, ServerStatus::Connected);
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();
    manager.shutdown().await;
}

/// A call of a tool of a server that never finishes starting waits for its start-up timeout,
/// then is an error that says the tool is unknown because the server could not start, and why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_of_a_server_that_never_starts_says_why_after_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let config = McpServerConfig::stdio("never", "sleep", ["600"]);
    let manager = McpManager::start(vec![config], options().startup_timeout(std::time::Duration::from_millis(300)));
    let handler = GateOnProgress { gate: dir.path().join("unused"), heard: Arc::default() };
    let heard = handler.heard.clone();
    let (client, served) = serve_upstream(dir.path(), &manager, handler).await;
    let result = client.call_tool(CallToolRequestParams::new("mcp__never__echo")).await.unwrap();
    let text: Vec<String> = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    let text = text.join("\n");
    assert_eq!(result.is_error, Some(true), "{text}");
    assert!(text.contains("No such tool available: mcp__never__echo"), "{text}");
    assert!(
        text.contains("The MCP server never could not be started: did not finish starting within 300 ms"),
        "{text}"
    );
    assert_eq!(*heard.lock().unwrap(), ["waiting for the MCP server never to finish starting"]);
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();
    manager.shutdown().await;
}

/// A client that answers every question with the name Ada, and keeps the messages it was
/// asked.
#[derive(Clone, Default)]
struct NameGiver {
    asked: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ClientHandler for NameGiver {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::builder().enable_elicitation().build(), Implementation::new("names", "1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada"})))
    }
}

/// Calls the upstream test server's `ask` tool through the served session; its answer.
async fn ask_through<H: ClientHandler>(client: &rmcp::service::RunningService<RoleClient, H>) -> Value {
    let args = json!({"message": "Who are you?"}).as_object().cloned().unwrap();
    let result = client.call_tool(CallToolRequestParams::new("mcp__up__ask").with_arguments(args)).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let text = result.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Regression: under `mcp serve`, an upstream server's question (`elicitation/create`) went to
/// the terminal. It now goes to the MCP client whose call the server is running, as a form with
/// the server's schema, and its answer goes back; a client that does not support elicitation
/// has the question declined.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_servers_question_goes_to_the_calling_client() {
    let dir = tempfile::tempdir().unwrap();
    let prompter = McpPrompter::new();
    let manager =
        McpManager::connect_all(vec![crate::support::test_server_config("up")], options().elicitor(prompter.clone()))
            .await;
    let session = Session::builder()
        .cwd(dir.path())
        .mcp_tools(manager.tools())
        .prompter(prompter.clone())
        .mode(PermissionMode::BypassPermissions)
        .build();
    let serve = |session: Session| {
        let (server_side, client_side) = tokio::net::UnixStream::pair().unwrap();
        let (read, write) = server_side.into_split();
        let options = ServeOptions::new().prompter(prompter.clone()).upstream(manager.clone());
        (tokio::spawn(serve_io(session, read, write, options)), client_side)
    };

    let (served, socket) = serve(session.clone());
    let giver = NameGiver::default();
    let client = giver.clone().serve(socket).await.unwrap();
    let answer = ask_through(&client).await;
    assert_eq!(answer, json!({"action": "accept", "content": {"name": "Ada"}}));
    assert_eq!(*giver.asked.lock().unwrap(), ["The MCP server up asks: Who are you?"]);
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();

    let (served, socket) = serve(session);
    let client = ().serve(socket).await.unwrap();
    assert_eq!(ask_through(&client).await["action"], "decline", "a client that cannot be asked");
    client.cancel().await.unwrap();
    served.await.unwrap().unwrap();
    manager.shutdown().await;
}

/// Regression: MCP logging was process-wide: every client that set a level got every record,
/// whichever session's call made it. Two HTTP sessions: a record made in A's call goes to A
/// only; a record made outside every call goes to each client whose own level it reaches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated, reason = "MCP logging, deprecated by the newest revision, is what is tested")]
async fn each_session_gets_its_own_log_records_at_its_own_level() {
    use rmcp::model::{LoggingLevel, SetLevelRequestParams};
    use toolgate_mcp::{LogLevel, McpLogs};

    let logs = McpLogs::default();
    let in_call = logs.clone();
    let noisy = toolgate_core::ToolBuilder::new("Noisy")
        .schema(json!({"type": "object", "properties": {}}))
        .read_only(true)
        .call(move |_, _| {
            let logs = in_call.clone();
            async move {
                // Above both clients' levels: only whose call it is decides.
                logs.record(LogLevel::Error, "toolgate::test", "made in a call".to_owned());
                Ok(toolgate_core::ToolOutput::text("logged"))
            }
        })
        .build();
    let dir = tempfile::tempdir().unwrap();
    let session =
        Session::builder().cwd(dir.path()).builtin_tools([noisy]).mode(PermissionMode::BypassPermissions).build();
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let server = serve_http(session, addr, None, ServeOptions::new().logs(logs.clone())).await.unwrap();
    let watch = |level: LoggingLevel| {
        let url = server.url();
        async move {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            toolgate_core::http::install_crypto_provider();
            let transport =
                StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(url));
            let client = LogWatcher(tx).serve(transport).await.unwrap();
            client.set_level(SetLevelRequestParams::new(level)).await.unwrap();
            (client, rx)
        }
    };
    let (a, mut a_rx) = watch(LoggingLevel::Info).await;
    let (b, mut b_rx) = watch(LoggingLevel::Warning).await;

    let result = a.call_tool(CallToolRequestParams::new("Noisy")).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), a_rx.recv()).await.unwrap().unwrap();
    assert_eq!((got["level"].as_str(), got["data"].as_str()), (Some("error"), Some("made in a call")));
    // Outside every call: A's level (info) lets an info record through, B's (warning) does not.
    logs.record(LogLevel::Info, "toolgate::test", "for info and above".to_owned());
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), a_rx.recv()).await.unwrap().unwrap();
    assert_eq!(got["data"], "for info and above");
    logs.record(LogLevel::Error, "toolgate::test", "for everyone".to_owned());
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), b_rx.recv()).await.unwrap().unwrap();
    assert_eq!(got["data"], "for everyone", "B got a record of A's call or below its level first");
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), a_rx.recv()).await.unwrap().unwrap();
    assert_eq!(got["data"], "for everyone");
    assert!(b_rx.try_recv().is_err(), "B got more than the one record for it");
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
    server.shutdown().await;
}
