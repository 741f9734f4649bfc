//! [`McpManager`]: the connections to every configured server, their status, their tools,
//! and their lifecycle (start-up, reconnect, tool-list changes, shutdown).

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam, ClientConfig,
    ClientNotification, ClientRequest, ElicitRequestParams, ElicitResult, Implementation, ProgressNotificationParam,
    ProgressToken, RequestId, ServerResult,
};
use rmcp::model::{JsonRpcMessage, ServerNotification};
use rmcp::service::{
    NotificationContext, Peer, RequestContext, RoleClient, RunningService, RxJsonRpcMessage, TxJsonRpcMessage,
};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, Transport};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncReadExt as _;
use tokio::sync::{Semaphore, watch};
use toolgate_core::process::{ProcessHandle, ProcessSpec};
use toolgate_core::{DynTool, Progress, ProgressSink, ToolContext, ToolError};

use crate::adapter::McpTool;
use crate::config::{McpConfigs, McpScope, McpServerConfig, McpTransport};
use crate::server_requests::{self, Elicitor};
use crate::sse::SseTransport;

/// Start-up (connect and initialize) timeout when `MCP_TIMEOUT` is unset: 30 s.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Tool-call timeout when `MCP_TOOL_TIMEOUT` is unset: 100,000,000 ms (about 28 hours).
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_millis(100_000_000);
/// Stdio servers started at once when `MCP_SERVER_CONNECTION_BATCH_SIZE` is unset: 3.
pub const DEFAULT_BATCH_SIZE: usize = 3;
/// The output cap per MCP result when `MAX_MCP_OUTPUT_TOKENS` is unset: 25,000 tokens.
pub const DEFAULT_MAX_OUTPUT_TOKENS: usize = 25_000;
/// The first wait before reconnecting a server whose reconnect failed; it doubles up to
/// [`MAX_RECONNECT_BACKOFF`].
pub const DEFAULT_RECONNECT_BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait between reconnect attempts.
pub const MAX_RECONNECT_BACKOFF: Duration = Duration::from_secs(30);

/// How many bytes of a stdio server's stderr are kept for failure messages.
const STDERR_TAIL_BYTES: usize = 2_048;
/// How long a closing stdio server gets to exit on its own before its group is stopped.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// Progress notifications kept for tokens not registered yet (they can overtake the
/// registration of the call they belong to).
const MAX_EARLY_PROGRESS: usize = 64;

/// How [`McpManager`] connects and calls.
///
/// ```
/// use std::time::Duration;
/// use toolgate_mcp::ConnectOptions;
/// let opts = ConnectOptions::new("/repo").startup_timeout(Duration::from_secs(5)).batch_size(2);
/// assert_eq!(opts.batch_size, 2);
/// assert_eq!(opts.max_output_tokens, 25_000);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectOptions {
    /// The working directory stdio servers start in.
    pub cwd: PathBuf,
    /// Connect-and-initialize limit per server (`MCP_TIMEOUT`).
    pub startup_timeout: Duration,
    /// Tool-call limit unless the server's entry sets `timeout` (`MCP_TOOL_TIMEOUT`).
    pub tool_timeout: Duration,
    /// Stdio servers started at once (`MCP_SERVER_CONNECTION_BATCH_SIZE`, at least 1).
    pub batch_size: usize,
    /// Output cap per result in tokens, estimated as chars / 4 (`MAX_MCP_OUTPUT_TOKENS`);
    /// results over it are persisted with a preview by the pipeline.
    pub max_output_tokens: usize,
    /// The first wait before another reconnect after a failed one.
    pub reconnect_backoff: Duration,
    /// The client name sent in `initialize`.
    pub client_name: String,
    /// The client version sent in `initialize`.
    pub client_version: String,
    /// The working roots a server gets for `roots/list` (default: the working directory).
    pub roots: Vec<PathBuf>,
    /// Who answers a server's question (`elicitation/create`); without one it is declined.
    pub elicitor: Option<Arc<dyn Elicitor>>,
}

impl ConnectOptions {
    /// The defaults (see the `DEFAULT_*` constants), starting stdio servers in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            batch_size: DEFAULT_BATCH_SIZE,
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            reconnect_backoff: DEFAULT_RECONNECT_BACKOFF,
            client_name: "toolgate".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            roots: Vec::new(),
            elicitor: None,
        }
        .with_cwd_root()
    }

    /// The working directory as the one root.
    fn with_cwd_root(mut self) -> Self {
        self.roots = vec![self.cwd.clone()];
        self
    }

    /// Sets the working roots servers are given (`roots/list`).
    #[must_use]
    pub fn roots(mut self, roots: Vec<PathBuf>) -> Self {
        self.roots = roots;
        self
    }

    /// Sets who answers servers' questions (`elicitation/create`).
    #[must_use]
    pub fn elicitor(mut self, elicitor: Arc<dyn Elicitor>) -> Self {
        self.elicitor = Some(elicitor);
        self
    }

    /// The defaults overridden by `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT` (milliseconds),
    /// `MCP_SERVER_CONNECTION_BATCH_SIZE` and `MAX_MCP_OUTPUT_TOKENS`; values that do not
    /// parse as positive integers are ignored.
    pub fn from_env(cwd: impl Into<PathBuf>) -> Self {
        Self::from_lookup(cwd, |name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] reading variables through `lookup`.
    ///
    /// ```
    /// use std::time::Duration;
    /// let opts = toolgate_mcp::ConnectOptions::from_lookup("/", |name| match name {
    ///     "MCP_TIMEOUT" => Some("1500".into()),
    ///     "MCP_SERVER_CONNECTION_BATCH_SIZE" => Some("zero".into()),
    ///     _ => None,
    /// });
    /// assert_eq!(opts.startup_timeout, Duration::from_millis(1500));
    /// assert_eq!(opts.batch_size, 3);
    /// ```
    pub fn from_lookup(cwd: impl Into<PathBuf>, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let positive = |name: &str| lookup(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|n| *n > 0);
        let mut opts = Self::new(cwd);
        if let Some(ms) = positive("MCP_TIMEOUT") {
            opts.startup_timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = positive("MCP_TOOL_TIMEOUT") {
            opts.tool_timeout = Duration::from_millis(ms);
        }
        if let Some(n) = positive("MCP_SERVER_CONNECTION_BATCH_SIZE") {
            opts.batch_size = usize::try_from(n).unwrap_or(DEFAULT_BATCH_SIZE);
        }
        if let Some(n) = positive("MAX_MCP_OUTPUT_TOKENS") {
            opts.max_output_tokens = usize::try_from(n).unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS);
        }
        opts
    }

    /// Sets the start-up timeout.
    #[must_use]
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets the default tool-call timeout.
    #[must_use]
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.tool_timeout = timeout;
        self
    }

    /// Sets how many stdio servers start at once.
    #[must_use]
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Sets the output cap in tokens.
    #[must_use]
    pub fn max_output_tokens(mut self, tokens: usize) -> Self {
        self.max_output_tokens = tokens;
        self
    }

    /// Sets the first reconnect backoff.
    #[must_use]
    pub fn reconnect_backoff(mut self, backoff: Duration) -> Self {
        self.reconnect_backoff = backoff;
        self
    }
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// Connecting.
    Pending,
    /// Connected and initialized; its tools are offered.
    Connected,
    /// It could not be started or reached, or its connection was lost.
    Failed {
        /// Why, in a sentence (with the tail of a stdio server's stderr when there is one).
        reason: String,
    },
    /// Disabled by the user; never started.
    Disabled,
    /// A project server (`.mcp.json`) not approved, or in a folder not trusted; never started.
    NotApproved {
        /// Why, and what to change, in a sentence.
        why: String,
    },
}

impl fmt::Display for ServerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Pending => f.write_str("pending"),
            Self::Connected => f.write_str("connected"),
            Self::Failed { reason } => write!(f, "failed: {reason}"),
            Self::Disabled => f.write_str("disabled"),
            Self::NotApproved { why } => write!(f, "not started: {why}"),
        }
    }
}

/// One server as `toolgate mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerState {
    /// The configured name.
    pub name: String,
    /// Where its entry came from.
    pub scope: McpScope,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    /// The command line or URL.
    pub target: String,
    /// Its status.
    pub status: ServerStatus,
    /// How many tools it offers.
    pub tools: usize,
    /// Whether it offers resources.
    pub has_resources: bool,
    /// `name version` from its `initialize` answer.
    pub server_info: Option<String>,
    /// Its instructions, cut at 2,048 chars.
    pub instructions: Option<String>,
}

/// The connections to a session's MCP servers.
///
/// [`McpManager::connect_all`] starts every enabled server concurrently (at most
/// [`ConnectOptions::batch_size`] stdio servers spawning at once), each under the start-up
/// timeout; a server that fails is reported and never holds up the others. Its tools
/// ([`McpManager::tools`]) go into the pool with [`toolgate_core::ToolPoolBuilder::mcps`],
/// the resource tools ([`McpManager::resource_tools`]) with
/// [`toolgate_core::ToolPoolBuilder::builtins`].
///
/// A server whose connection is lost is reconnected on its next call (after a failed
/// reconnect, later attempts wait a backoff that doubles up to 30 s); a call in flight
/// when it dies gets an error at once. When a server announces `tools/list_changed` its
/// tools are re-read and [`McpManager::changes`] ticks, so the host can rebuild its pool.
/// [`McpManager::shutdown`] closes every connection and reaps every child.
///
/// ```no_run
/// use toolgate_core::ToolPool;
/// use toolgate_mcp::{ConnectOptions, McpConfigLoader, McpManager};
///
/// # async fn run() {
/// let configs = McpConfigLoader::new("/repo").load();
/// for problem in &configs.diagnostics {
///     eprintln!("warning: {problem}");
/// }
/// let manager = McpManager::connect_all(configs, ConnectOptions::from_env("/repo")).await;
/// for server in manager.statuses() {
///     println!("{}: {}", server.name, server.status);
/// }
/// let pool = ToolPool::builder().mcps(manager.tools()).builtins(manager.resource_tools()).build();
/// # drop(pool);
/// manager.shutdown().await;
/// # }
/// ```
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<ManagerInner>,
}

pub(crate) struct ManagerInner {
    servers: Vec<Arc<Server>>,
    changes: watch::Sender<u64>,
}

impl ManagerInner {
    /// Every connected server's tools, sorted by name.
    fn tools(&self) -> Vec<DynTool> {
        let mut tools: Vec<DynTool> = self.servers.iter().flat_map(|s| lock(&s.state).tools.clone()).collect();
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        tools
    }
}

impl fmt::Debug for McpManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpManager").field("servers", &self.statuses()).finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl McpManager {
    /// Connects to every enabled server and returns when each is connected or failed.
    pub async fn connect_all(configs: impl Into<Vec<McpServerConfig>>, opts: ConnectOptions) -> Self {
        let manager = Self::start(configs, opts);
        manager.ready().await;
        manager
    }

    /// Starts connecting in the background and returns at once; statuses are
    /// [`ServerStatus::Pending`] until each server settles ([`McpManager::ready`]). Needs a
    /// tokio runtime.
    pub fn start(configs: impl Into<Vec<McpServerConfig>>, opts: ConnectOptions) -> Self {
        let opts = Arc::new(opts);
        let (changes, _) = watch::channel(0u64);
        let spawn_limit = Arc::new(Semaphore::new(opts.batch_size.max(1)));
        let mut configs: Vec<McpServerConfig> = configs.into();
        configs.sort_by(|a, b| a.name.cmp(&b.name));
        configs.dedup_by(|a, b| a.name == b.name);
        let servers: Vec<Arc<Server>> = configs
            .into_iter()
            .map(|config| {
                let status = match (&config.not_approved, config.disabled) {
                    (_, true) => ServerStatus::Disabled,
                    (Some(why), false) => ServerStatus::NotApproved { why: why.clone() },
                    (None, false) => ServerStatus::Pending,
                };
                Arc::new_cyclic(|me| Server {
                    me: me.clone(),
                    config,
                    opts: opts.clone(),
                    spawn_limit: spawn_limit.clone(),
                    changes: changes.clone(),
                    state: Mutex::new(Runtime::new(status, opts.reconnect_backoff)),
                    conn: tokio::sync::Mutex::new(None),
                    settled: watch::channel(false).0,
                    stopping: toolgate_core::CancellationToken::new(),
                })
            })
            .collect();
        for server in &servers {
            if server.config.disabled || server.config.not_approved.is_some() {
                server.settled.send_replace(true);
                continue;
            }
            let server = server.clone();
            tokio::spawn(async move {
                let mut slot = server.conn.lock().await;
                match server.connect_unless_stopping().await {
                    Ok(conn) => *slot = Some(conn),
                    Err(reason) => server.set_failed(reason, false),
                }
                drop(slot);
                server.settled.send_replace(true);
            });
        }
        Self { inner: Arc::new(ManagerInner { servers, changes }) }
    }

    /// Waits until every server is connected, failed or disabled.
    pub async fn ready(&self) {
        for server in &self.inner.servers {
            let mut rx = server.settled.subscribe();
            let _ = rx.wait_for(|settled| *settled).await;
        }
    }

    /// The configured server a pool name (`mcp__<server>__<tool>` or `mcp__<server>`) belongs
    /// to, matched on the normalized server name.
    fn server_of(&self, name: &str) -> Option<&Arc<Server>> {
        let parsed = crate::naming::parse_mcp_tool_name(name)?;
        self.inner.servers.iter().find(|s| crate::naming::normalize_name_part(&s.config.name) == parsed.server)
    }

    /// The configured name of the server the tool `name` belongs to, if that server has not
    /// finished starting yet ([`ServerStatus::Pending`]): a call of it should wait
    /// ([`McpManager::starting`]) rather than fail as unknown.
    pub fn starting_server_of(&self, name: &str) -> Option<String> {
        let server = self.server_of(name)?;
        let pending = !*server.settled.borrow() && lock(&server.state).status == ServerStatus::Pending;
        pending.then(|| server.config.name.clone())
    }

    /// Waits until the server the tool `name` belongs to has finished starting (connected or
    /// failed), which its start-up timeout bounds; returns its status then, `None` when `name`
    /// names no configured server.
    pub async fn starting(&self, name: &str) -> Option<ServerStatus> {
        let server = self.server_of(name)?;
        let mut settled = server.settled.subscribe();
        let _ = settled.wait_for(|settled| *settled).await;
        Some(lock(&server.state).status.clone())
    }

    /// The status of the server the tool `name` belongs to, `None` when `name` names no
    /// configured server.
    pub fn status_of(&self, name: &str) -> Option<ServerStatus> {
        self.server_of(name).map(|server| lock(&server.state).status.clone())
    }

    /// Every configured server and its status, sorted by name.
    pub fn statuses(&self) -> Vec<ServerState> {
        self.inner.servers.iter().map(|s| s.state_snapshot()).collect()
    }

    /// The `mcp__<server>__<tool>` tools of every connected server, sorted by name.
    pub fn tools(&self) -> Vec<DynTool> {
        self.inner.tools()
    }

    /// Keeps `session`'s pool in step with the servers' tools: on every change (a
    /// `notifications/tools/list_changed`, a reconnect that found a different list), its
    /// MCP tools are replaced ([`toolgate_pipeline::Session::set_mcp_tools`]), so a tool a
    /// server adds can be called in the same session. Runs until the returned task is
    /// aborted or the manager is dropped.
    pub fn apply_changes_to(&self, session: toolgate_pipeline::Session) -> tokio::task::JoinHandle<()> {
        let mut changes = self.inner.changes.subscribe();
        let inner = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                let Some(inner) = inner.upgrade() else { return };
                session.set_mcp_tools(inner.tools());
            }
        })
    }

    /// `ListMcpResourcesTool` and `ReadMcpResourceTool`, enabled while some connected
    /// server offers resources.
    pub fn resource_tools(&self) -> Vec<DynTool> {
        crate::resources::tools(self.inner.clone())
    }

    /// Ticks whenever a server's tools change (a `tools/list_changed` notification, a
    /// reconnect that found a different list); rebuild the pool from [`McpManager::tools`]
    /// then. The value is a counter.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Closes every connection and reaps every stdio child: its stdin is closed, it gets
    /// two seconds to exit, then its process group is stopped (`SIGTERM`, then `SIGKILL`).
    pub async fn shutdown(&self) {
        let mut closing = Vec::new();
        for server in &self.inner.servers {
            let server = server.clone();
            closing.push(tokio::spawn(async move { server.shutdown().await }));
        }
        for task in closing {
            let _ = task.await;
        }
    }

    /// The process ids of the running stdio servers, by server name (for tests and
    /// diagnostics).
    pub async fn child_pids(&self) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        for server in &self.inner.servers {
            let conn = server.conn.lock().await.clone();
            if let Some(conn) = conn
                && let Some(pid) = conn.pid
            {
                out.push((server.config.name.clone(), pid));
            }
        }
        out
    }
}

impl From<McpConfigs> for Vec<McpServerConfig> {
    fn from(configs: McpConfigs) -> Self {
        configs.servers
    }
}

impl ManagerInner {
    /// The connected servers that offer resources, with their names.
    pub(crate) fn resource_servers(&self) -> Vec<(String, Peer<RoleClient>)> {
        self.servers
            .iter()
            .filter_map(|s| {
                let state = lock(&s.state);
                (state.status == ServerStatus::Connected && state.has_resources)
                    .then(|| state.peer.clone().map(|p| (s.config.name.clone(), p)))
                    .flatten()
            })
            .collect()
    }

    /// Whether any connected server offers resources.
    pub(crate) fn has_resources(&self) -> bool {
        self.servers.iter().any(|s| {
            let state = lock(&s.state);
            state.status == ServerStatus::Connected && state.has_resources
        })
    }

    /// The names of every configured server.
    pub(crate) fn server_names(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.config.name.clone()).collect()
    }
}

/// What a server's runtime state is between calls.
struct Runtime {
    status: ServerStatus,
    tools: Vec<DynTool>,
    has_resources: bool,
    server_info: Option<String>,
    instructions: Option<String>,
    peer: Option<Peer<RoleClient>>,
    next_attempt: Option<Instant>,
    backoff: Duration,
    shut_down: bool,
}

impl Runtime {
    fn new(status: ServerStatus, backoff: Duration) -> Self {
        Self {
            status,
            tools: Vec::new(),
            has_resources: false,
            server_info: None,
            instructions: None,
            peer: None,
            next_attempt: None,
            backoff,
            shut_down: false,
        }
    }
}

/// One configured server.
pub(crate) struct Server {
    me: Weak<Server>,
    pub(crate) config: McpServerConfig,
    opts: Arc<ConnectOptions>,
    spawn_limit: Arc<Semaphore>,
    changes: watch::Sender<u64>,
    state: Mutex<Runtime>,
    /// The live connection; locked while connecting so that one reconnect serves every
    /// waiting call.
    conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    settled: watch::Sender<bool>,
    /// Cancelled by [`Server::shutdown`]: a connection being made is given up (its child
    /// stopped), so that a server that never answers does not hold up the shutdown.
    stopping: toolgate_core::CancellationToken,
}

/// One live connection to a server.
struct Connection {
    peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    child: tokio::sync::Mutex<Option<ProcessHandle>>,
    pid: Option<u32>,
    handler: Handler,
    /// The last bytes a stdio server wrote to stderr.
    stderr_tail: Option<Arc<Mutex<Vec<u8>>>>,
}

impl Connection {
    /// The tail of the server's stderr, trimmed, if it wrote any.
    fn stderr(&self) -> Option<String> {
        let tail = self.stderr_tail.as_ref()?;
        let text = String::from_utf8_lossy(&lock(tail)).trim().to_owned();
        (!text.is_empty()).then_some(text)
    }

    fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    /// Closes the transport and reaps the child.
    async fn close(&self) {
        if let Some(service) = self.service.lock().await.take() {
            let _ = tokio::time::timeout(EXIT_GRACE, service.cancel()).await;
        }
        if let Some(mut child) = self.child.lock().await.take() {
            match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
                Ok(_) => {}
                Err(_) => {
                    let _ = child.terminate().await;
                }
            }
        }
    }
}

/// Where a call's progress goes.
#[derive(Clone)]
struct ProgressTarget {
    sink: ProgressSink,
    tool_use_id: String,
}

#[derive(Default)]
struct ProgressRoutes {
    live: HashMap<ProgressToken, ProgressTarget>,
    early: Vec<ProgressNotificationParam>,
}

/// The client side of one connection: holds the progress routes, reacts to list changes.
#[derive(Clone)]
struct Handler {
    server: Weak<Server>,
    info: ClientConfig,
    routes: Arc<Mutex<ProgressRoutes>>,
    /// The server's name, for the person asked a question.
    name: String,
    roots: Vec<PathBuf>,
    elicitor: Option<Arc<dyn Elicitor>>,
}

impl Handler {
    fn register(&self, token: ProgressToken, target: ProgressTarget) {
        let early: Vec<ProgressNotificationParam> = {
            let mut routes = lock(&self.routes);
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut routes.early).into_iter().partition(|p| p.progress_token == token);
            routes.early = rest;
            routes.live.insert(token, target.clone());
            mine
        };
        for p in early {
            report(&target, &p);
        }
    }

    fn unregister(&self, token: &ProgressToken) {
        let mut routes = lock(&self.routes);
        routes.live.remove(token);
        routes.early.retain(|p| p.progress_token != *token);
    }
}

fn report(target: &ProgressTarget, p: &ProgressNotificationParam) {
    let message = match (&p.message, p.total) {
        (Some(m), _) => m.clone(),
        (None, Some(total)) => format!("{} of {total}", p.progress),
        (None, None) => format!("{}", p.progress),
    };
    let data = serde_json::json!({"progress": p.progress, "total": p.total});
    target.sink.report(Progress { tool_use_id: target.tool_use_id.clone(), message, data: Some(data) });
}

/// Hands progress to the waiting call as each message is read, in order, before the
/// response that follows it is delivered. (rmcp runs notification handlers in tasks of
/// their own, which could report a call's last progress after its result.)
struct ProgressTap<T> {
    inner: T,
    routes: Arc<Mutex<ProgressRoutes>>,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ProgressTap<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let routes = self.routes.clone();
        let next = self.inner.receive();
        async move {
            let message = next.await;
            if let Some(JsonRpcMessage::Notification(note)) = &message
                && let ServerNotification::ProgressNotification(progress) = &note.notification
            {
                route_progress(&routes, &progress.params);
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

fn route_progress(routes: &Mutex<ProgressRoutes>, params: &ProgressNotificationParam) {
    let target = {
        let mut routes = lock(routes);
        match routes.live.get(&params.progress_token) {
            Some(target) => Some(target.clone()),
            None => {
                if routes.early.len() >= MAX_EARLY_PROGRESS {
                    routes.early.remove(0);
                }
                routes.early.push(params.clone());
                None
            }
        }
    };
    if let Some(target) = target {
        report(&target, params);
    }
}

/// What toolgate says about itself in `initialize`. The protocol version is the newest
/// that still has `initialize` (rmcp's `ProtocolVersion::LATEST`, 2026-07-28, has none: a
/// server of that revision answers with an error, and older servers negotiate down).
fn client_info(opts: &ConnectOptions) -> ClientConfig {
    ClientConfig::new(
        server_requests::capabilities(opts.elicitor.is_some()),
        Implementation::new(opts.client_name.clone(), opts.client_version.clone()),
    )
    .with_protocol_version(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE)
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(server) = self.server.upgrade() {
            // Not awaited here: the refresh is a request on this same connection.
            tokio::spawn(async move { server.refresh_tools().await });
        }
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(server) = self.server.upgrade() {
            server.changes.send_modify(|n| *n += 1);
        }
    }

    #[allow(deprecated, reason = "roots serve servers of the revisions toolgate speaks (see server_requests)")]
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(server_requests::roots(&self.roots))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        Ok(server_requests::elicit(self.elicitor.as_ref(), &self.name, request).await)
    }
}

/// Sends `notifications/cancelled` for a request when dropped armed: the call timed out,
/// was cancelled, or its future was dropped.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
    reason: &'static str,
}

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let reason = self.reason.to_owned();
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let note = CancelledNotification::new(CancelledNotificationParam::new(Some(id), Some(reason)));
                let _ = peer.send_notification(ClientNotification::CancelledNotification(note)).await;
            });
        }
    }
}

impl Server {
    fn state_snapshot(&self) -> ServerState {
        let state = lock(&self.state);
        ServerState {
            name: self.config.name.clone(),
            scope: self.config.scope,
            transport: self.config.transport.kind(),
            target: self.config.transport.target(),
            status: state.status.clone(),
            tools: state.tools.len(),
            has_resources: state.has_resources,
            server_info: state.server_info.clone(),
            instructions: state.instructions.clone(),
        }
    }

    fn set_failed(&self, reason: String, schedule_retry: bool) {
        let mut state = lock(&self.state);
        state.status = ServerStatus::Failed { reason };
        state.peer = None;
        let had_tools = !state.tools.is_empty();
        state.tools.clear();
        state.has_resources = false;
        if schedule_retry {
            state.next_attempt = Some(Instant::now() + state.backoff);
            state.backoff = (state.backoff * 2).min(MAX_RECONNECT_BACKOFF);
        }
        drop(state);
        if had_tools {
            self.changes.send_modify(|n| *n += 1);
        }
    }

    /// Starts the server (or opens the HTTP session) and initializes it, under the
    /// start-up timeout, then reads its tools.
    /// [`Server::connect`], given up when the server is shut down meanwhile.
    async fn connect_unless_stopping(&self) -> Result<Arc<Connection>, String> {
        tokio::select! {
            connected = self.connect() => connected,
            () = self.stopping.cancelled() => Err("shut down while starting".to_owned()),
        }
    }

    async fn connect(&self) -> Result<Arc<Connection>, String> {
        let handler = Handler {
            server: self.me.clone(),
            info: client_info(&self.opts),
            routes: Arc::new(Mutex::new(ProgressRoutes::default())),
            name: self.config.name.clone(),
            roots: self.opts.roots.clone(),
            elicitor: self.opts.elicitor.clone(),
        };
        let limit = self.opts.startup_timeout;
        let conn = match &self.config.transport {
            McpTransport::Stdio { command, args, env } => {
                let _permit = self.spawn_limit.acquire().await.map_err(|e| e.to_string())?;
                let mut child = ProcessSpec::exec(command, args)
                    .cwd(&self.opts.cwd)
                    .envs(env.iter())
                    .spawn()
                    .map_err(|e| e.to_string())?;
                let pid = child.id();
                let (Some(stdout), Some(stdin)) = (child.take_stdout(), child.take_stdin()) else {
                    return Err("the process helper gave no stdio pipes".to_owned());
                };
                let tail = Arc::new(Mutex::new(Vec::<u8>::new()));
                let stderr_task = child.take_stderr().map(|mut stderr| {
                    let tail = tail.clone();
                    tokio::spawn(async move {
                        let mut buf = [0u8; 4096];
                        while let Ok(n) = stderr.read(&mut buf).await {
                            if n == 0 {
                                break;
                            }
                            let mut t = lock(&tail);
                            t.extend_from_slice(&buf[..n]);
                            let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
                            t.drain(..excess);
                        }
                    })
                });
                let transport =
                    ProgressTap { inner: AsyncRwTransport::new_client(stdout, stdin), routes: handler.routes.clone() };
                match tokio::time::timeout(limit, handler.clone().serve(transport)).await {
                    Ok(Ok(service)) => Connection {
                        peer: service.peer().clone(),
                        service: tokio::sync::Mutex::new(Some(service)),
                        child: tokio::sync::Mutex::new(Some(child)),
                        pid,
                        handler,
                        stderr_tail: Some(tail.clone()),
                    },
                    outcome => {
                        let why = match outcome {
                            Ok(Err(e)) => format!("initialization failed: {e}"),
                            _ => format!("did not finish starting within {} ms", limit.as_millis()),
                        };
                        let exited = match tokio::time::timeout(Duration::from_millis(500), child.wait()).await {
                            Ok(Ok(status)) => format!(" (the process {status})"),
                            _ => {
                                let _ = child.terminate().await;
                                String::new()
                            }
                        };
                        if let Some(task) = stderr_task {
                            let _ = tokio::time::timeout(Duration::from_millis(500), task).await;
                        }
                        let stderr = String::from_utf8_lossy(&lock(&tail)).trim().to_owned();
                        let mut reason = format!("{why}{exited}");
                        if !stderr.is_empty() {
                            reason.push_str(&format!("; stderr: {stderr}"));
                        }
                        return Err(reason);
                    }
                }
            }
            McpTransport::Http { url, headers } => {
                let mut custom = HashMap::new();
                for (k, v) in headers {
                    let name = hyper::header::HeaderName::from_bytes(k.as_bytes())
                        .map_err(|e| format!("header `{k}` is not a valid header name: {e}"))?;
                    let value = hyper::header::HeaderValue::from_str(v)
                        .map_err(|e| format!("header `{k}` has a value that cannot be sent: {e}"))?;
                    custom.insert(name, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
                // rmcp builds its own reqwest client, which needs the TLS provider installed.
                toolgate_core::http::install_crypto_provider();
                let transport = ProgressTap {
                    inner: StreamableHttpClientTransport::from_config(config),
                    routes: handler.routes.clone(),
                };
                match tokio::time::timeout(limit, handler.clone().serve(transport)).await {
                    Ok(Ok(service)) => Connection {
                        peer: service.peer().clone(),
                        service: tokio::sync::Mutex::new(Some(service)),
                        child: tokio::sync::Mutex::new(None),
                        pid: None,
                        handler,
                        stderr_tail: None,
                    },
                    Ok(Err(e)) => return Err(format!("initialization failed: {e}")),
                    Err(_) => return Err(format!("did not finish connecting within {} ms", limit.as_millis())),
                }
            }
            McpTransport::Sse { url, headers } => {
                let deadline = tokio::time::Instant::now() + limit;
                let transport =
                    match tokio::time::timeout_at(deadline, SseTransport::connect(url, headers, limit)).await {
                        Ok(Ok(transport)) => transport,
                        Ok(Err(e)) => return Err(e),
                        Err(_) => {
                            return Err(format!(
                                "did not receive the SSE `endpoint` event within {} ms",
                                limit.as_millis()
                            ));
                        }
                    };
                let transport = ProgressTap { inner: transport, routes: handler.routes.clone() };
                match tokio::time::timeout_at(deadline, handler.clone().serve(transport)).await {
                    Ok(Ok(service)) => Connection {
                        peer: service.peer().clone(),
                        service: tokio::sync::Mutex::new(Some(service)),
                        child: tokio::sync::Mutex::new(None),
                        pid: None,
                        handler,
                        stderr_tail: None,
                    },
                    Ok(Err(e)) => return Err(format!("initialization failed: {e}")),
                    Err(_) => return Err(format!("did not finish connecting within {} ms", limit.as_millis())),
                }
            }
        };
        let conn = Arc::new(conn);
        let tools = match tokio::time::timeout(limit, conn.peer.list_all_tools()).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => {
                conn.close().await;
                return Err(format!("tools/list failed: {e}"));
            }
            Err(_) => {
                conn.close().await;
                return Err(format!("tools/list did not answer within {} ms", limit.as_millis()));
            }
        };
        let info = conn.peer.peer_info();
        let mut state = lock(&self.state);
        let old_names: Vec<String> = state.tools.iter().map(|t| t.name().to_owned()).collect();
        state.tools = self.adapters(&tools);
        state.has_resources = info.as_ref().is_some_and(|i| i.capabilities.resources.is_some());
        state.server_info =
            info.as_ref().and_then(|i| i.server_info.as_ref()).map(|s| format!("{} {}", s.name, s.version));
        state.instructions =
            info.as_ref().and_then(|i| i.instructions.as_deref()).map(crate::convert::truncate_description);
        state.status = ServerStatus::Connected;
        state.peer = Some(conn.peer.clone());
        state.next_attempt = None;
        state.backoff = self.opts.reconnect_backoff;
        let new_names: Vec<String> = state.tools.iter().map(|t| t.name().to_owned()).collect();
        drop(state);
        if old_names != new_names {
            self.changes.send_modify(|n| *n += 1);
        }
        Ok(conn)
    }

    fn adapters(&self, tools: &[rmcp::model::Tool]) -> Vec<DynTool> {
        let timeout = self.config.tool_timeout.unwrap_or(self.opts.tool_timeout);
        let cap_chars = self.opts.max_output_tokens.saturating_mul(4);
        tools
            .iter()
            .filter_map(|tool| serde_json::to_value(tool).ok())
            .map(|def| {
                let tool: DynTool = Arc::new(McpTool::new(
                    self.me.clone(),
                    &self.config.name,
                    &def,
                    self.config.always_load,
                    timeout,
                    cap_chars,
                ));
                tool
            })
            .collect()
    }

    /// Re-reads the tool list after `tools/list_changed`.
    async fn refresh_tools(&self) {
        let conn = self.conn.lock().await.clone();
        let Some(conn) = conn else { return };
        let Ok(Ok(tools)) = tokio::time::timeout(self.opts.startup_timeout, conn.peer.list_all_tools()).await else {
            return;
        };
        let adapters = self.adapters(&tools);
        lock(&self.state).tools = adapters;
        self.changes.send_modify(|n| *n += 1);
    }

    /// The live connection, reconnecting a dead one (subject to the backoff).
    async fn connection(&self) -> Result<Arc<Connection>, ToolError> {
        let name = &self.config.name;
        let mut slot = self.conn.lock().await;
        let lost = lock(&self.state).status != ServerStatus::Connected;
        if let Some(conn) = slot.as_ref()
            && !conn.is_closed()
            && !lost
        {
            return Ok(conn.clone());
        }
        {
            let state = lock(&self.state);
            if state.shut_down {
                return Err(ToolError::mcp(format!("the MCP server {name} has been shut down")));
            }
            if self.config.disabled {
                return Err(ToolError::mcp(format!("the MCP server {name} is disabled")));
            }
            if let Some(why) = &self.config.not_approved {
                return Err(ToolError::mcp(format!("the MCP server {name} was not started: {why}")));
            }
            if let Some(next) = state.next_attempt
                && let Some(wait) = next.checked_duration_since(Instant::now())
            {
                let why = match &state.status {
                    ServerStatus::Failed { reason } => format!(" ({reason})"),
                    _ => String::new(),
                };
                return Err(ToolError::mcp(format!(
                    "the MCP server {name} is not connected{why}; the next reconnect attempt is in {} s",
                    wait.as_secs().max(1)
                ))
                .with_hint("Try again later, or use another tool."));
            }
        }
        if let Some(old) = slot.take() {
            old.close().await;
        }
        match self.connect_unless_stopping().await {
            Ok(conn) => {
                *slot = Some(conn.clone());
                Ok(conn)
            }
            Err(reason) => {
                self.set_failed(format!("reconnect failed: {reason}"), true);
                Err(ToolError::mcp(format!("the MCP server {name} could not be reconnected: {reason}"))
                    .with_hint("Try again later, or use another tool."))
            }
        }
    }

    /// Marks the connection lost after a transport error, so the next call reconnects.
    fn connection_lost(&self, why: &str) {
        let mut state = lock(&self.state);
        if state.status == ServerStatus::Connected {
            state.status = ServerStatus::Failed { reason: format!("connection lost: {why}") };
        }
    }

    /// Calls `tool` with `arguments`, reporting progress to `ctx`, cancelling on
    /// `ctx.cancel`, timing out after `timeout`.
    pub(crate) async fn call_tool(
        &self,
        tool: &str,
        arguments: Value,
        ctx: &ToolContext,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let name = &self.config.name;
        let deadline = tokio::time::Instant::now() + timeout;
        let timed_out = || {
            ToolError::timeout(format!("the MCP tool {tool} on server {name} did not answer within {}", human(timeout)))
        };
        let conn = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Err(cancelled(tool, name)),
            conn = self.connection() => conn?,
            () = tokio::time::sleep_until(deadline) => return Err(timed_out()),
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(args) = arguments {
            params = params.with_arguments(args);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut handle = match conn.peer.send_request_with_option(request, Default::default()).await {
            Ok(handle) => handle,
            Err(e) => {
                self.connection_lost(&e.to_string());
                return Err(ToolError::mcp(format!("could not send the call to the MCP server {name}: {e}"))
                    .with_hint("The server's connection was lost; calling again reconnects it."));
            }
        };
        let token = handle.progress_token.clone();
        conn.handler.register(
            token.clone(),
            ProgressTarget { sink: ctx.progress.clone(), tool_use_id: ctx.tool_use_id.clone() },
        );
        let mut guard =
            CancelOnDrop { peer: conn.peer.clone(), id: Some(handle.id.clone()), reason: "the call was dropped" };
        let outcome = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => {
                guard.reason = "cancelled by the user";
                Err(cancelled(tool, name))
            }
            answer = &mut handle.rx => {
                guard.disarm();
                match answer {
                    Ok(Ok(ServerResult::CallToolResult(result))) => {
                        serde_json::to_value(&result).map_err(|e| ToolError::internal(e.to_string()))
                    }
                    Ok(Ok(ServerResult::CustomResult(other))) => Ok(serde_json::to_value(&other).unwrap_or(Value::Null)),
                    Ok(Ok(_)) => Err(ToolError::mcp(format!(
                        "the MCP server {name} answered the call to {tool} with something other than a tool result"
                    ))),
                    Ok(Err(rmcp::ServiceError::McpError(e))) => Err(ToolError::mcp(format!(
                        "the MCP server {name} refused the call to {tool}: {}", e.message
                    ))),
                    Ok(Err(e)) => {
                        self.connection_lost(&e.to_string());
                        Err(lost(tool, name, &e.to_string(), conn.stderr()))
                    }
                    Err(_) => {
                        self.connection_lost("the server closed the connection");
                        Err(lost(tool, name, "the server closed the connection", conn.stderr()))
                    }
                }
            }
            () = tokio::time::sleep_until(deadline) => {
                guard.reason = "request timeout";
                Err(timed_out())
            }
        };
        drop(guard);
        conn.handler.unregister(&token);
        outcome
    }

    async fn shutdown(&self) {
        lock(&self.state).shut_down = true;
        self.stopping.cancel();
        let conn = self.conn.lock().await.take();
        if let Some(conn) = conn {
            conn.close().await;
        }
        let mut state = lock(&self.state);
        state.peer = None;
        state.tools.clear();
        state.has_resources = false;
        if state.status == ServerStatus::Connected || state.status == ServerStatus::Pending {
            state.status = ServerStatus::Failed { reason: "shut down".to_owned() };
        }
    }
}

fn cancelled(tool: &str, server: &str) -> ToolError {
    ToolError::cancelled(format!("the call to the MCP tool {tool} on server {server} was cancelled"))
}

fn lost(tool: &str, server: &str, why: &str, stderr: Option<String>) -> ToolError {
    let stderr = stderr.map(|s| format!(" (its stderr ends: {s})")).unwrap_or_default();
    ToolError::mcp(format!("the MCP server {server} stopped while running {tool}: {why}{stderr}"))
        .with_hint("Calling the tool again restarts the server; check the call did not make it crash.")
}

/// `1.5 s`, `200 ms`.
fn human(d: Duration) -> String {
    if d.as_millis() < 1_000 { format!("{} ms", d.as_millis()) } else { format!("{:.1} s", d.as_secs_f64()) }
}
