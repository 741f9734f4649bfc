//! The server direction: a toolgate [`Session`]'s pool served as an MCP server, over stdio
//! or streamable HTTP. Every `tools/call` runs through [`Session::run_message_with`], so
//! hooks and permission apply exactly as for a model's calls.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitationAction, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{ElicitationMode, Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinHandle;
use toolgate_core::{BoxFuture, ContentBlock, DefinitionFormat};
use toolgate_permissions::{PromptAnswer, PromptRequest, Prompter};
use toolgate_pipeline::{Event, EventSink, Session, ToolCall};

use crate::convert::unwrap_tool_use_error;
use crate::sessions::{SessionRegistry, SessionServices};

/// How long a permission question put to the MCP client may stay unanswered before the
/// call is denied: 10 minutes.
pub const ELICITATION_TIMEOUT: Duration = Duration::from_secs(600);

/// Why serving could not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Binding the address, or the transport, failed.
    #[error("i/o error while serving MCP: {0}")]
    Io(#[from] std::io::Error),
    /// The client's `initialize` failed.
    #[error("the MCP client did not initialize: {0}")]
    Initialize(String),
    /// A non-loopback address was given without a bearer token.
    #[error("serving MCP on {addr}, which is not a loopback address, needs a bearer token")]
    TokenRequired {
        /// The address asked for.
        addr: std::net::SocketAddr,
    },
    /// The service task failed.
    #[error("the MCP service stopped unexpectedly: {0}")]
    Task(String),
}

/// What the served MCP server says about itself.
///
/// ```
/// use toolgate_mcp::ServeOptions;
/// let opts = ServeOptions::new().instructions("Tools of the /repo workspace.");
/// assert_eq!(opts.name, "toolgate");
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    /// `serverInfo.name` (default `toolgate`).
    pub name: String,
    /// `serverInfo.version` (default this crate's version).
    pub version: String,
    /// `instructions` for the client.
    pub instructions: Option<String>,
    /// The prompter the session's permission engine asks, if it is an [`McpPrompter`]:
    /// the server tells it which client is calling.
    pub prompter: Option<Arc<McpPrompter>>,
    /// Over HTTP, each MCP session runs its calls in a [`Session::fork`] of the served
    /// session; this gives the fork its own host services (a task store and a plan file),
    /// given the MCP session's id. Without it, forks keep the served session's services.
    pub session_services: Option<SessionServices>,
    /// When cancelled, serving stops: no new connection or request is taken, every running
    /// call is cancelled (its processes killed), and [`serve_io`], [`serve_stdio`] and
    /// [`crate::HttpServer::wait`] return. A host cancels it on `SIGTERM` or `SIGINT`.
    pub shutdown: Option<toolgate_core::CancellationToken>,
    /// Prompts offered to clients (`prompts/list`, `prompts/get`): a host's skills and
    /// `.claude/commands`.
    pub prompts: Vec<crate::ServedPrompt>,
    /// Where the host's log records go: with it, clients may set a level (`logging/setLevel`)
    /// and receive the records at or above it.
    pub logs: Option<crate::McpLogs>,
    /// Over HTTP, how long a call whose client disconnected before its answer keeps running
    /// for the client to come back (default [`crate::DISCONNECT_GRACE`]).
    pub disconnect_grace: Duration,
    /// Over HTTP, how long a session may go without a request (and no call running) before it
    /// is closed, its shells killed (default [`crate::IDLE_TIMEOUT`]).
    pub idle_timeout: Duration,
    /// The MCP servers whose tools are in the served pool, when they start in the background
    /// ([`crate::McpManager::start`]): a call of a tool of a server still starting waits for
    /// it (up to its start-up timeout) instead of failing as an unknown tool, and a call of a
    /// server that could not start says why.
    pub upstream: Option<crate::McpManager>,
}

impl fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeOptions")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("prompter", &self.prompter.is_some())
            .field("session_services", &self.session_services.is_some())
            .field("shutdown", &self.shutdown)
            .field("prompts", &self.prompts.len())
            .field("logs", &self.logs.is_some())
            .field("upstream", &self.upstream.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl ServeOptions {
    /// `toolgate`, this crate's version, no instructions, no prompter.
    pub fn new() -> Self {
        Self {
            name: "toolgate".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            prompter: None,
            session_services: None,
            shutdown: None,
            prompts: Vec::new(),
            logs: None,
            disconnect_grace: crate::DISCONNECT_GRACE,
            idle_timeout: crate::IDLE_TIMEOUT,
            upstream: None,
        }
    }

    /// Sets the MCP servers whose tools the served pool holds (see [`ServeOptions::upstream`]).
    #[must_use]
    pub fn upstream(mut self, manager: crate::McpManager) -> Self {
        self.upstream = Some(manager);
        self
    }

    /// Stops serving when `token` is cancelled (see [`ServeOptions::shutdown`]).
    #[must_use]
    pub fn shutdown(mut self, token: toolgate_core::CancellationToken) -> Self {
        self.shutdown = Some(token);
        self
    }

    /// Sets how long a call outlives its HTTP client's disconnection.
    #[must_use]
    pub fn disconnect_grace(mut self, grace: Duration) -> Self {
        self.disconnect_grace = grace;
        self
    }

    /// Sets how long an HTTP session may idle before it is closed.
    #[must_use]
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    /// Sets where the host's log records go (clients then may set a level).
    #[must_use]
    pub fn logs(mut self, logs: crate::McpLogs) -> Self {
        self.logs = Some(logs);
        self
    }

    /// Sets the prompts offered to clients.
    #[must_use]
    pub fn prompts(mut self, prompts: Vec<crate::ServedPrompt>) -> Self {
        self.prompts = prompts;
        self
    }

    /// A token for a call or a connection: a child of [`ServeOptions::shutdown`] when one
    /// is set.
    pub(crate) fn stop_token(&self) -> toolgate_core::CancellationToken {
        self.shutdown
            .as_ref()
            .map_or_else(toolgate_core::CancellationToken::new, toolgate_core::CancellationToken::child_token)
    }

    /// Sets the instructions.
    #[must_use]
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Gives each MCP session over HTTP its own host services (see
    /// [`ServeOptions::session_services`]).
    #[must_use]
    pub fn session_services(
        mut self,
        services: impl Fn(&str, &mut toolgate_core::Extensions) + Send + Sync + 'static,
    ) -> Self {
        self.session_services = Some(Arc::new(services));
        self
    }

    /// Routes the session's permission questions to the calling client (give the same
    /// prompter to [`toolgate_pipeline::SessionBuilder::prompter`]).
    #[must_use]
    pub fn prompter(mut self, prompter: Arc<McpPrompter>) -> Self {
        self.prompter = Some(prompter);
        self
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A call being served, and the client that made it.
struct InFlight {
    key: String,
    tool: String,
    summary: Option<String>,
    peer: Peer<RoleServer>,
}

/// A [`Prompter`] that puts permission questions to the MCP client that made the call, as
/// an elicitation (a form with one "always allow" checkbox): accept runs the call (and,
/// with the box ticked, saves the suggested rules), decline or cancel denies it. A client
/// that does not support elicitation gets a denial that names the rule that would allow
/// the call.
///
/// Build the session with it and give it to [`ServeOptions::prompter`]:
///
/// ```
/// use std::sync::Arc;
/// use toolgate_mcp::{McpPrompter, ServeOptions};
/// use toolgate_pipeline::Session;
/// let prompter = McpPrompter::new();
/// let session = Session::builder().cwd("/tmp").prompter(prompter.clone()).build();
/// let opts = ServeOptions::new().prompter(prompter);
/// # drop((session, opts));
/// ```
///
/// The permission engine does not say which call a question is for, so the prompter
/// matches it to the served call with the same one-line summary (the pipeline's
/// `CallStarted` event), falling back to the latest call in flight.
#[derive(Default)]
pub struct McpPrompter {
    inflight: Mutex<Vec<InFlight>>,
}

impl fmt::Debug for McpPrompter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "McpPrompter({} calls in flight)", lock(&self.inflight).len())
    }
}

impl McpPrompter {
    /// A prompter with no calls in flight.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn begin(&self, key: &str, tool: &str, peer: &Peer<RoleServer>) {
        lock(&self.inflight).push(InFlight {
            key: key.to_owned(),
            tool: tool.to_owned(),
            summary: None,
            peer: peer.clone(),
        });
    }

    fn started(&self, key: &str, summary: &str) {
        if let Some(entry) = lock(&self.inflight).iter_mut().find(|e| e.key == key) {
            entry.summary = Some(summary.to_owned());
        }
    }

    fn end(&self, key: &str) {
        lock(&self.inflight).retain(|e| e.key != key);
    }

    fn peer_for(&self, request: &PromptRequest) -> Option<Peer<RoleServer>> {
        let inflight = lock(&self.inflight);
        inflight
            .iter()
            .rev()
            .find(|e| e.summary.as_deref() == Some(request.summary.as_str()))
            .or_else(|| inflight.iter().rev().find(|e| e.tool == request.tool_name))
            .or_else(|| inflight.last())
            .map(|e| e.peer.clone())
    }
}

/// The denial for a call no one can approve.
fn cannot_ask(request: &PromptRequest, why: &str) -> PromptAnswer {
    let hint = match request.suggestions.first() {
        Some(rule) => format!(" To allow it, add \"{rule}\" to permissions.allow in .claude/settings.local.json."),
        None => String::new(),
    };
    PromptAnswer::Deny { feedback: Some(format!("{}. {why}, so it was denied.{hint}", request.message)) }
}

impl Prompter for McpPrompter {
    fn prompt<'a>(&'a self, request: &'a PromptRequest) -> BoxFuture<'a, PromptAnswer> {
        Box::pin(async move {
            let Some(peer) = self.peer_for(request) else {
                return cannot_ask(request, "No MCP client is connected to approve it");
            };
            if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
                return cannot_ask(request, "The MCP client cannot be asked (it does not support elicitation)");
            }
            let mut properties = serde_json::Map::new();
            if !request.suggestions.is_empty() {
                properties.insert(
                    "always".to_owned(),
                    json!({
                        "type": "boolean",
                        "title": "Always allow",
                        "description": format!("Also save {} to .claude/settings.local.json", request.suggestions.join(", ")),
                        "default": false
                    }),
                );
            }
            let message = format!("Allow {}?\n{}", request.summary, request.message);
            let params = json!({
                "mode": "form",
                "message": message,
                "requestedSchema": {"type": "object", "properties": properties}
            });
            let params = match serde_json::from_value(params) {
                Ok(params) => params,
                Err(e) => return cannot_ask(request, &format!("The question could not be built ({e})")),
            };
            let answer = tokio::time::timeout(ELICITATION_TIMEOUT, peer.create_elicitation(params)).await;
            match answer {
                Ok(Ok(result)) => match result.action {
                    ElicitationAction::Accept => {
                        let always = result.content.as_ref().and_then(|c| c.get("always")).and_then(Value::as_bool);
                        if always == Some(true) { PromptAnswer::AllowAlways } else { PromptAnswer::AllowOnce }
                    }
                    _ => PromptAnswer::Deny { feedback: Some("declined through the MCP client".to_owned()) },
                },
                Ok(Err(e)) => cannot_ask(request, &format!("Asking the MCP client failed ({e})")),
                Err(_) => cannot_ask(request, "The MCP client did not answer within 10 minutes"),
            }
        })
    }
}

/// Under `mcp serve`, an upstream server's question (`elicitation/create`) goes to the MCP
/// client whose call is running on that server (else the latest call's client), as a form
/// with the server's own schema; it is declined when no client is calling or the client does
/// not support form elicitation, so the upstream server never waits on nobody. Give the same
/// prompter to [`crate::ConnectOptions::elicitor`].
impl crate::Elicitor for McpPrompter {
    fn elicit<'a>(&'a self, server: &'a str, message: &'a str, schema: &'a Value) -> BoxFuture<'a, crate::Elicited> {
        Box::pin(async move {
            let prefix = format!("mcp__{}__", crate::normalize_name_part(server));
            let peer = {
                let inflight = lock(&self.inflight);
                inflight
                    .iter()
                    .rev()
                    .find(|e| e.tool.starts_with(&prefix))
                    .or_else(|| inflight.last())
                    .map(|e| e.peer.clone())
            };
            let Some(peer) = peer else { return crate::Elicited::Decline };
            if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
                return crate::Elicited::Decline;
            }
            let params = json!({
                "mode": "form",
                "message": format!("The MCP server {server} asks: {message}"),
                "requestedSchema": schema,
            });
            let Ok(params) = serde_json::from_value(params) else { return crate::Elicited::Decline };
            match peer.create_elicitation(params).await {
                Ok(result) => match result.action {
                    ElicitationAction::Accept => crate::Elicited::Accept(result.content.unwrap_or_else(|| json!({}))),
                    ElicitationAction::Decline => crate::Elicited::Decline,
                    _ => crate::Elicited::Cancel,
                },
                Err(_) => crate::Elicited::Cancel,
            }
        })
    }
}

/// The MCP server over a session.
#[derive(Clone)]
pub(crate) struct PoolServer {
    session: Session,
    /// With it, each MCP session runs its calls in a fork of `session` of its own (HTTP);
    /// without, every call runs in `session` (one client over stdio).
    sessions: Option<Arc<SessionRegistry>>,
    opts: Arc<ServeOptions>,
    /// The MCP definitions of a pool, kept until the session's pool is replaced.
    tools: Arc<Mutex<Option<ListedTools>>>,
    /// The pool's changes, watched from before this client's `initialize`, so that none
    /// is missed before `notifications/initialized` starts the announcements.
    pool_seen: Arc<Mutex<Option<tokio::sync::watch::Receiver<u64>>>>,
    calls: Arc<AtomicU64>,
}

/// A pool and its MCP definitions.
struct ListedTools {
    pool: Arc<toolgate_core::ToolPool>,
    tools: Arc<Vec<Tool>>,
}

impl PoolServer {
    /// A server whose calls all run in `session`.
    pub(crate) fn new(session: Session, opts: ServeOptions) -> Self {
        Self {
            sessions: None,
            opts: Arc::new(opts),
            tools: Arc::new(Mutex::new(None)),
            pool_seen: Arc::new(Mutex::new(Some(session.pool_changes()))),
            calls: Arc::new(AtomicU64::new(0)),
            session,
        }
    }

    /// A handler for a new MCP session: shared caches, its own watch of the pool.
    pub(crate) fn for_new_session(&self) -> Self {
        Self { pool_seen: Arc::new(Mutex::new(Some(self.session.pool_changes()))), ..self.clone() }
    }

    /// A server whose calls run in the fork of their MCP session, kept in `sessions`.
    pub(crate) fn per_session(session: Session, sessions: Arc<SessionRegistry>, opts: ServeOptions) -> Self {
        Self { sessions: Some(sessions), ..Self::new(session, opts) }
    }

    /// The session a request of `context` runs in: its MCP session's fork over HTTP.
    fn session_of(&self, context: &RequestContext<RoleServer>) -> Session {
        match &self.sessions {
            Some(sessions) => sessions.scope_of(context).session,
            None => self.session.clone(),
        }
    }

    /// The pool's MCP definitions, with the annotations asked of each tool with a probe
    /// input that has every required field (a typed tool cannot answer for `{}`).
    fn tool_list(&self) -> Arc<Vec<Tool>> {
        let pool = self.session.pool();
        let mut cached = lock(&self.tools);
        if let Some(listed) = cached.as_ref()
            && Arc::ptr_eq(&listed.pool, &pool)
        {
            return listed.tools.clone();
        }
        let tools: Vec<Tool> = pool
            .tools()
            .filter_map(|tool| {
                let mut def = pool.definition(&**tool, DefinitionFormat::Mcp);
                let probe = toolgate_core::probe_input(tool.input_schema());
                def["annotations"] = json!({
                    "title": tool.user_facing_name(None),
                    "readOnlyHint": tool.is_read_only(&probe),
                    "destructiveHint": tool.is_destructive(&probe)
                        || OVERWRITING_TOOLS.binary_search(&tool.name()).is_ok(),
                });
                serde_json::from_value::<Tool>(def).ok()
            })
            .collect();
        let tools = Arc::new(tools);
        *cached = Some(ListedTools { pool, tools: tools.clone() });
        tools
    }
}

/// How long a finished call waits for its progress notifications to be sent: 5 seconds.
const PROGRESS_FLUSH: Duration = Duration::from_secs(5);

/// Sends a call's progress to the client as `notifications/progress`, in order, with a
/// value that always increases: the tool's own `progress` number when it is above the
/// last one sent, else the last one plus one (a per-call counter for tools that give no
/// number). The message is kept; `total` only while the value has not passed it.
struct ProgressForwarder {
    tx: tokio::sync::mpsc::UnboundedSender<toolgate_core::Progress>,
    done: tokio_util::sync::CancellationToken,
    task: JoinHandle<()>,
}

impl ProgressForwarder {
    fn start(token: rmcp::model::ProgressToken, peer: Peer<RoleServer>) -> Self {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<toolgate_core::Progress>();
        let done = tokio_util::sync::CancellationToken::new();
        let stop = done.clone();
        let task = tokio::spawn(async move {
            let mut last = 0.0_f64;
            loop {
                let progress = tokio::select! {
                    biased;
                    progress = rx.recv() => match progress {
                        Some(progress) => progress,
                        None => break,
                    },
                    () = stop.cancelled() => match rx.try_recv() {
                        Ok(progress) => progress,
                        Err(_) => break,
                    },
                };
                let number = |key: &str| progress.data.as_ref().and_then(|d| d.get(key)).and_then(Value::as_f64);
                let value = number("progress").filter(|v| v.is_finite() && *v > last).unwrap_or(last + 1.0);
                last = value;
                let total = number("total").filter(|t| t.is_finite() && *t >= value);
                let message = Some(progress.message).filter(|m| !m.is_empty());
                let param = json!({"progressToken": token, "progress": value, "total": total, "message": message});
                if let Ok(param) = serde_json::from_value::<ProgressNotificationParam>(param)
                    && peer.notify_progress(param).await.is_err()
                {
                    break;
                }
            }
        });
        Self { tx, done, task }
    }

    /// What the call's event sink calls for each progress report.
    fn reporter(&self) -> impl Fn(toolgate_core::Progress) + Send + Sync + 'static {
        let tx = self.tx.clone();
        move |progress| {
            let _ = tx.send(progress);
        }
    }

    /// Sends what is queued (for at most [`PROGRESS_FLUSH`]) and stops; later reports (a
    /// background task's) are dropped.
    async fn finish(self) {
        self.done.cancel();
        drop(self.tx);
        let mut task = self.task;
        if tokio::time::timeout(PROGRESS_FLUSH, &mut task).await.is_err() {
            task.abort();
        }
    }
}

/// Built-in tools that may overwrite or delete what exists (a file's content, anything a
/// command touches), whatever the probe input used for the annotations says: they are
/// announced `destructiveHint: true` (MCP's "may perform destructive updates").
const OVERWRITING_TOOLS: &[&str] =
    &["ApplyPatch", "Bash", "Edit", "ExitWorktree", "MultiEdit", "NotebookEdit", "PowerShell", "Write"];

/// The requests a client may send a server under the MCP specification (2025-11-25), with
/// what each requires of its params. rmcp hands a request whose params do not parse to
/// `on_custom_request`; for these methods that means invalid params (-32602), not an
/// unknown method (-32601).
const CLIENT_REQUESTS: &[(&str, &str)] = &[
    ("completion/complete", "`ref` and `argument`"),
    ("initialize", "`protocolVersion`, `capabilities` and `clientInfo`"),
    ("logging/setLevel", "`level`"),
    ("ping", "no params or an object"),
    ("prompts/get", "a string `name`"),
    ("prompts/list", "an optional string `cursor`"),
    ("resources/list", "an optional string `cursor`"),
    ("resources/read", "a string `uri`"),
    ("resources/subscribe", "a string `uri`"),
    ("resources/templates/list", "an optional string `cursor`"),
    ("resources/unsubscribe", "a string `uri`"),
    ("tasks/cancel", "a string `taskId`"),
    ("tasks/get", "a string `taskId`"),
    ("tasks/list", "an optional string `cursor`"),
    ("tasks/result", "a string `taskId`"),
    ("tools/call", "a string `name` and an optional object `arguments`"),
    ("tools/list", "an optional string `cursor`"),
];

/// The error for a request rmcp could not parse: -32602 naming what the params need for a
/// method MCP defines, else -32601.
fn unparsed_request(method: &str) -> ErrorData {
    match CLIENT_REQUESTS.binary_search_by_key(&method, |(m, _)| m) {
        Ok(at) => {
            let needs = CLIENT_REQUESTS[at].1;
            ErrorData::invalid_params(format!("invalid params for {method}: it needs {needs}"), None)
        }
        Err(_) => ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, format!("unknown method {method}"), None),
    }
}

impl ServerHandler for PoolServer {
    /// From now on, the client hears `notifications/tools/list_changed` whenever the
    /// session's pool changes (a served MCP server changed its tools), until its session
    /// ends, serving stops or it cannot be reached.
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        let mut changes = lock(&self.pool_seen).take().unwrap_or_else(|| self.session.pool_changes());
        let ended = match &self.sessions {
            Some(sessions) => sessions.scope_in(&context.extensions).cancel,
            None => self.opts.stop_token(),
        };
        let peer = context.peer;
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            return;
                        }
                    }
                    () = ended.cancelled() => return,
                }
            }
        });
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        Err(unparsed_request(&request.method))
    }

    fn get_info(&self) -> ServerConfig {
        let mut capabilities =
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_resources().build();
        if !self.opts.prompts.is_empty() {
            capabilities.prompts = Some(rmcp::model::PromptsCapability::default());
        }
        if self.opts.logs.is_some() {
            capabilities.logging = Some(rmcp::model::JsonObject::new());
        }
        let mut info = ServerConfig::new(capabilities);
        info.server_info = rmcp::model::Implementation::new(self.opts.name.clone(), self.opts.version.clone());
        info.instructions.clone_from(&self.opts.instructions);
        info
    }

    /// The calling client's level for the host's log records; it is known by its MCP session id.
    #[allow(deprecated, reason = "logging serves clients of the revisions toolgate speaks (see logging.rs)")]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(logs) = &self.opts.logs else {
            return Err(ErrorData::method_not_found::<rmcp::model::SetLevelRequestMethod>());
        };
        let key = crate::sessions::session_id(&context.extensions).unwrap_or("stdio").to_owned();
        logs.set(key, context.peer.clone(), request.level);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        crate::served::list_prompts(&self.opts.prompts)
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        crate::served::get_prompt(&self.opts.prompts, &request.name, request.arguments.as_ref()).map(Into::into)
    }

    /// The saved large results of the calling MCP session's own session.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        crate::served::list_results(self.session_of(&context).results().dir())
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        crate::served::read_result(self.session_of(&context).results().dir(), &request.uri).map(Into::into)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tool_list().as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let key = format!("mcp_{}_{n}", std::process::id());
        let call =
            ToolCall::new(key.clone(), request.name.to_string(), Value::Object(request.arguments.unwrap_or_default()));
        let prompter = self.opts.prompter.clone();
        if let Some(p) = &prompter {
            p.begin(&key, &request.name, &context.peer);
        }
        let progress_token = context.meta.get_progress_token();
        let progress = progress_token.map(|token| ProgressForwarder::start(token, context.peer.clone()));
        let events: Option<EventSink> = if prompter.is_some() || progress.is_some() {
            let prompter = prompter.clone();
            let reports = progress.as_ref().map(ProgressForwarder::reporter);
            let sink: EventSink = Arc::new(move |event| match event {
                Event::CallStarted { tool_use_id, summary, .. } => {
                    if let Some(p) = &prompter {
                        p.started(&tool_use_id, &summary);
                    }
                }
                Event::Progress(progress) => {
                    if let Some(report) = &reports {
                        report(progress);
                    }
                }
                _ => {}
            });
            Some(sink)
        } else {
            None
        };
        let (session, cancel) = match &self.sessions {
            Some(sessions) => {
                let scoped = sessions.scope_of(&context);
                (scoped.session, scoped.cancel.child_token())
            }
            None => (self.session.clone(), self.opts.stop_token()),
        };
        // A tool of a server still starting: wait for the server, then call it.
        let reports = progress.as_ref().map(ProgressForwarder::reporter);
        if let Some(upstream) = &self.opts.upstream {
            let waited = wait_for_upstream(upstream, &session, &request.name, reports.as_ref());
            tokio::select! {
                () = waited => {}
                () = cancel.cancelled() => {}
                () = context.ct.cancelled() => cancel.cancel(),
            }
        }
        // Cancelled when the client cancels the request or its session ends; the log records
        // it makes are its MCP session's.
        let log_key = crate::sessions::session_id(&context.extensions).unwrap_or("stdio").to_owned();
        let run = crate::logging::in_session(log_key, session.run_message_with(vec![call], cancel.clone(), events));
        tokio::pin!(run);
        let results = tokio::select! {
            results = &mut run => results,
            () = context.ct.cancelled() => {
                cancel.cancel();
                run.await
            }
        };
        if let Some(p) = &prompter {
            p.end(&key);
        }
        // Every progress notification goes out before the result.
        if let Some(progress) = progress {
            progress.finish().await;
        }
        let Some(result) = results.into_iter().next() else {
            return Err(ErrorData::internal_error("the pipeline returned no result", None));
        };
        let failed_upstream = match &self.opts.upstream {
            Some(upstream) if result.is_error && session.pool().get(&request.name).is_none() => {
                match upstream.status_of(&request.name) {
                    Some(crate::ServerStatus::Failed { reason }) => Some(reason),
                    _ => None,
                }
            }
            _ => None,
        };
        let mut content: Vec<rmcp::model::ContentBlock> = result
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text { text } if result.is_error => {
                    rmcp::model::ContentBlock::text(unwrap_tool_use_error(text).to_owned())
                }
                other => crate::convert::mcp_content(other),
            })
            .collect();
        if let Some(reason) = failed_upstream {
            let server = crate::naming::parse_mcp_tool_name(&request.name).map_or("", |n| n.server);
            content.push(rmcp::model::ContentBlock::text(format!(
                "The MCP server {server} could not be started: {reason}"
            )));
        }
        let out = if result.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
        Ok(CallToolResponse::Complete(out))
    }
}

/// When `name` is not in `session`'s pool and is a tool of an upstream server still starting,
/// says so as the call's progress and waits until the server has started or failed (its
/// start-up timeout bounds that); the pool then holds the server's tools.
async fn wait_for_upstream(
    upstream: &crate::McpManager,
    session: &Session,
    name: &str,
    report: Option<&impl Fn(toolgate_core::Progress)>,
) {
    if session.pool().get(name).is_some() {
        return;
    }
    let Some(server) = upstream.starting_server_of(name) else { return };
    if let Some(report) = report {
        report(toolgate_core::Progress {
            tool_use_id: String::new(),
            message: format!("waiting for the MCP server {server} to finish starting"),
            data: None,
        });
    }
    if upstream.starting(name).await == Some(crate::ServerStatus::Connected)
        && session.pool().get(name).is_none()
        && upstream.tools().iter().any(|t| t.name() == name)
    {
        // The host's own update of the pool (`McpManager::apply_changes_to`) may come later.
        session.set_mcp_tools(upstream.tools());
    }
}

/// Serves the session's pool over this process's stdin and stdout until the client
/// disconnects.
///
/// # Errors
///
/// [`ServeError::Initialize`] when the client does not initialize, [`ServeError::Task`]
/// when the service fails.
pub async fn serve_stdio(session: Session, opts: ServeOptions) -> Result<(), ServeError> {
    let (stdin, stdout) = rmcp::transport::stdio();
    serve_io(session, stdin, stdout, opts).await
}

/// Serves the session's pool over any byte stream pair (JSON-RPC lines) until the client
/// disconnects: a socket, a pipe, an in-memory duplex in tests.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
/// # rt.block_on(async {
/// use serde_json::json;
/// use toolgate_core::{PermissionMode, ToolBuilder, ToolOutput};
/// use toolgate_mcp::{ServeOptions, serve_io};
/// use toolgate_pipeline::Session;
///
/// let echo = ToolBuilder::new("Echo")
///     .schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
///     .read_only(true)
///     .call(|input, _| async move { Ok(ToolOutput::text(input["text"].as_str().unwrap_or_default())) })
///     .build();
/// let session = Session::builder().cwd("/tmp").builtin_tools([echo]).mode(PermissionMode::BypassPermissions).build();
/// let (client_side, server_side) = tokio::io::duplex(64 * 1024);
/// let (read, write) = tokio::io::split(server_side);
/// let server = tokio::spawn(serve_io(session, read, write, ServeOptions::new()));
///
/// let client = rmcp::ServiceExt::serve((), tokio::io::split(client_side)).await.unwrap();
/// let args = json!({"text": "hi"}).as_object().cloned().unwrap();
/// let result = client.call_tool(rmcp::model::CallToolRequestParams::new("Echo").with_arguments(args)).await.unwrap();
/// assert_eq!(result.content[0].as_text().unwrap().text, "hi");
/// client.cancel().await.unwrap();
/// server.await.unwrap().unwrap();
/// # });
/// ```
///
/// # Errors
///
/// As [`serve_stdio`].
pub async fn serve_io<R, W>(session: Session, read: R, write: W, opts: ServeOptions) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let stop = opts.stop_token();
    let server = PoolServer::new(session, opts);
    let running = tokio::select! {
        running = server.serve_with_ct((read, write), stop.child_token()) => {
            running.map_err(|e| ServeError::Initialize(e.to_string()))?
        }
        // Stopped before the client initialized.
        () = stop.cancelled() => return Ok(()),
    };
    running.waiting().await.map_err(|e| ServeError::Task(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_requests_are_sorted_and_unique() {
        assert!(CLIENT_REQUESTS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(OVERWRITING_TOOLS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(unparsed_request("tools/call").code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(unparsed_request("tools/callx").code, rmcp::model::ErrorCode::METHOD_NOT_FOUND);
    }

    #[test]
    fn a_question_no_one_can_answer_names_the_rule() {
        let request = PromptRequest {
            tool_name: "Bash".into(),
            summary: "Bash(git push)".into(),
            input: json!({"command": "git push"}),
            message: "Bash(git push) needs approval; the rule Bash(git push:*) would allow it".into(),
            reason: toolgate_core::DecisionReason::Default,
            suggestions: vec!["Bash(git push:*)".into()],
        };
        let PromptAnswer::Deny { feedback: Some(text) } =
            cannot_ask(&request, "No MCP client is connected to approve it")
        else {
            panic!("expected a denial")
        };
        assert!(text.contains("add \"Bash(git push:*)\" to permissions.allow"), "{text}");
    }
}
