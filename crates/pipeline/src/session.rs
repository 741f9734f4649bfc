//! [`Session`]: runs a message's tool calls through the seven steps and returns one result
//! per call, in order.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use toolgate_core::{
    AppState, BudgetEntry, CancellationToken, ContentBlock, ContextChange, DEFAULT_MESSAGE_BUDGET, DynTool, Extensions,
    FileStateCache, HiddenPaths, InterruptBehavior, PermissionBehavior, PermissionDecision, PermissionMode, Progress,
    ProgressSink, ResultLimit, ResultStore, ToolContext, ToolError, ToolErrorKind, ToolOutput, ToolPool,
    canonical_tool_name, empty_result_text,
};
use toolgate_hooks::{HookRunner, HookSource, HooksConfig, SourceKind};
use toolgate_permissions::{
    Classifier, Evaluation, HookVerdict, LoadedSettings, PermissionEngine, Prompter, SettingsDiscovery,
};

use crate::dispatch::{BatchCall, HookCall, HookDispatch};
use crate::hook_adapter::RunnerHooks;
use crate::{ToolCall, ToolResultBlock, plan_batches};

/// What happened, for UIs, as it happens.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A call passed lookup and validation and is about to run its hooks.
    CallStarted {
        /// The call.
        tool_use_id: String,
        /// Its tool.
        tool_name: String,
        /// One line for people.
        summary: String,
    },
    /// A running call reported progress.
    Progress(Progress),
    /// The permission engine decided.
    PermissionDecided {
        /// The call.
        tool_use_id: String,
        /// The decision and its reason.
        decision: PermissionDecision,
    },
    /// A hook event ran and said something.
    HookOutcome {
        /// The call (for `PostToolBatch`, the message's last call).
        tool_use_id: String,
        /// `PreToolUse`, `PostToolUse`, `PostToolUseFailure` or `PostToolBatch`.
        event: &'static str,
        /// What it said.
        detail: String,
    },
    /// A call succeeded with structured output (e.g. an edit's `structuredPatch`), before
    /// PostToolUse hooks; UIs render diffs from it.
    Output {
        /// The call.
        tool_use_id: String,
        /// Its tool.
        tool_name: String,
        /// The tool's structured output.
        structured: Value,
    },
    /// A call finished.
    CallFinished {
        /// The call.
        tool_use_id: String,
        /// Its tool (as the model named it when lookup failed).
        tool_name: String,
        /// Wall time through all steps.
        duration: Duration,
        /// The error kind, when the result is an error.
        error_kind: Option<ToolErrorKind>,
    },
}

/// Where events go.
pub type EventSink = Arc<dyn Fn(Event) + Send + Sync>;

/// Per-tool counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolStats {
    /// Calls that reached the tool's lookup.
    pub calls: u64,
    /// Error results by kind.
    pub errors: BTreeMap<String, u64>,
    /// Total wall time.
    pub total: Duration,
    /// The slowest call.
    pub max: Duration,
}

/// The mutable part of a session: what tools change between calls.
#[derive(Debug, Clone)]
struct State {
    cwd: PathBuf,
    roots: Vec<PathBuf>,
    mode: PermissionMode,
}

struct Inner {
    /// The current pool, shared with forks; replaced when MCP servers' tools change.
    pool: Arc<RwLock<Arc<ToolPool>>>,
    /// Ticks when `pool` is replaced (shared with forks).
    pool_changes: Arc<tokio::sync::watch::Sender<u64>>,
    engine: Arc<PermissionEngine>,
    hooks: Option<Arc<dyn HookDispatch>>,
    state: Mutex<State>,
    file_state: Arc<FileStateCache>,
    results: Arc<ResultStore>,
    max_concurrency: usize,
    budget: usize,
    stats: Mutex<BTreeMap<String, ToolStats>>,
    stop: Mutex<Option<String>>,
    /// The deferred tools the model was last told of (the pool's, when the session began),
    /// and the `pool_changes` tick they were read at.
    announced: Mutex<(u64, BTreeSet<String>)>,
    /// Whether changes of the deferred tools are told in results (see
    /// [`Session::tell_deferred_changes`]).
    tell_deferred: std::sync::atomic::AtomicBool,
    diagnostics: Vec<String>,
    runner: Option<Arc<HookRunner>>,
    /// The parts of every call's context that do not change (caches, stores, services).
    template: ToolContext,
}

/// A tool-running session: one pool, one permission engine, hooks, and the state calls
/// share (working directory, mode, file-state cache, result folder).
///
/// Every call of a message goes through seven steps, in this order:
///
/// 1. **Lookup**: exact name, alias, legacy name; an unknown tool is an error naming the
///    closest tool names.
/// 2. **Schema**: the raw input is checked against the tool's JSON Schema (strings that
///    hold numbers or booleans are coerced); every violation is reported.
/// 3. **Custom validation** (`validate_input`), then a **normalized copy** (absolute
///    paths). The model's original input is never changed. An invalid call stops here: it
///    never reaches hooks, permission or a prompt.
/// 4. **PreToolUse hooks**: a block stops the call; a rewritten input goes through steps
///    2 and 3 again; a decision is handed to step 5.
/// 5. **Permission**: the layered engine (rules, safety, hooks' decision, mode,
///    classifier, person); anything but allow stops the call with the reason.
/// 6. **Execute**, under the message's cancellation; a panic becomes an `internal` error.
/// 7. **PostToolUse** (or **PostToolUseFailure**) hooks: may block, add context, or
///    replace the output.
///
/// Consecutive concurrency-safe calls run together (at most `max_concurrency` at once);
/// any other call runs alone. Results come back in the calls' order, and the message's
/// results share a size budget.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

/// Builds a [`Session`].
pub struct SessionBuilder {
    pool: Option<Arc<ToolPool>>,
    builtin: Vec<DynTool>,
    mcp: Vec<DynTool>,
    settings: Option<LoadedSettings>,
    prompter: Option<Arc<dyn Prompter>>,
    classifier: Option<Arc<dyn Classifier>>,
    mode_set: bool,
    engine: Option<Arc<PermissionEngine>>,
    hooks: Option<Arc<dyn HookDispatch>>,
    cwd: PathBuf,
    roots: Vec<PathBuf>,
    mode: PermissionMode,
    results_dir: Option<PathBuf>,
    file_state: Option<Arc<FileStateCache>>,
    extensions: Extensions,
    session_id: String,
    max_concurrency: usize,
    budget: usize,
    hook_mcp: Option<Arc<dyn toolgate_hooks::McpToolCaller>>,
    hook_agent: Option<Arc<dyn toolgate_hooks::HookAgent>>,
}

/// The default bound on concurrently running calls.
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;

impl SessionBuilder {
    /// A ready pool (the caller has applied any filters).
    #[must_use]
    pub fn pool(mut self, pool: impl Into<Arc<ToolPool>>) -> Self {
        self.pool = Some(pool.into());
        self
    }

    /// Built-in tools; the pool is assembled at `build`, without the tools a bare deny rule
    /// removes.
    #[must_use]
    pub fn builtin_tools(mut self, tools: impl IntoIterator<Item = DynTool>) -> Self {
        self.builtin.extend(tools);
        self
    }

    /// MCP tools, assembled like [`Self::builtin_tools`] after the built-ins.
    #[must_use]
    pub fn mcp_tools(mut self, tools: impl IntoIterator<Item = DynTool>) -> Self {
        self.mcp.extend(tools);
        self
    }

    /// Reads the settings Claude Code reads for `cwd` (managed, user, project, local) and
    /// makes `cwd` the working directory. Rules, `defaultMode`, `additionalDirectories` and
    /// hooks come from them, and the programs files of the user's and the managed folders
    /// become the process's ([`LoadedSettings::install_programs`]); problems are in
    /// [`Session::diagnostics`].
    #[must_use]
    pub fn discover(self, cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        let loaded = SettingsDiscovery::new(&cwd).load();
        loaded.install_programs();
        self.cwd(cwd).settings(loaded)
    }

    /// Uses settings already loaded (e.g. with `--settings` files added).
    #[must_use]
    pub fn settings(mut self, settings: LoadedSettings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// The person who answers permission prompts (none: asks are denied with a message
    /// naming the rule that would allow the call).
    #[must_use]
    pub fn prompter(mut self, prompter: Arc<dyn Prompter>) -> Self {
        self.prompter = Some(prompter);
        self
    }

    /// A classifier for asks nothing else settled.
    #[must_use]
    pub fn classifier(mut self, classifier: Arc<dyn Classifier>) -> Self {
        self.classifier = Some(classifier);
        self
    }

    /// The permission engine (default: no rules, so reads inside the roots and read-only
    /// commands run and everything else asks; with no prompter, asks are denied).
    #[must_use]
    pub fn engine(mut self, engine: impl Into<Arc<PermissionEngine>>) -> Self {
        self.engine = Some(engine.into());
        self
    }

    /// The hooks.
    #[must_use]
    pub fn hooks(mut self, hooks: Arc<dyn HookDispatch>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// The working directory (also the first root).
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = toolgate_core::normalize_path(&cwd.into());
        self
    }

    /// Another directory calls may work in.
    #[must_use]
    pub fn add_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.roots.push(root.into());
        self
    }

    /// The starting permission mode.
    #[must_use]
    pub fn mode(mut self, mode: PermissionMode) -> Self {
        self.mode = mode;
        self.mode_set = true;
        self
    }

    /// Where large results are persisted (default: a folder per session in the temp dir).
    #[must_use]
    pub fn results_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.results_dir = Some(dir.into());
        self
    }

    /// A file-state cache to share (e.g. restored from a session dir).
    #[must_use]
    pub fn file_state(mut self, cache: Arc<FileStateCache>) -> Self {
        self.file_state = Some(cache);
        self
    }

    /// How `mcp_tool` hooks of the discovered settings call the host's MCP servers.
    #[must_use]
    pub fn hook_mcp(mut self, caller: Arc<dyn toolgate_hooks::McpToolCaller>) -> Self {
        self.hook_mcp = Some(caller);
        self
    }

    /// How `agent` hooks of the discovered settings run a subagent.
    #[must_use]
    pub fn hook_agent(mut self, agent: Arc<dyn toolgate_hooks::HookAgent>) -> Self {
        self.hook_agent = Some(agent);
        self
    }

    /// Host services for tools.
    #[must_use]
    pub fn extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = extensions;
        self
    }

    /// The session id.
    #[must_use]
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = id.into();
        self
    }

    /// At most this many calls run at once (at least 1).
    #[must_use]
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = n.max(1);
        self
    }

    /// The per-message result budget in characters.
    #[must_use]
    pub fn message_budget(mut self, chars: usize) -> Self {
        self.budget = chars;
        self
    }

    /// The session.
    pub fn build(self) -> Session {
        let session_id = if self.session_id.is_empty() { new_session_id() } else { self.session_id.clone() };
        let results_dir = self
            .results_dir
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("toolgate").join(&session_id).join("tool-results"));
        let results = Arc::new(ResultStore::new(results_dir));
        let mut diagnostics = Vec::new();
        let mut roots = vec![self.cwd.clone()];
        roots.extend(self.roots.iter().map(|r| toolgate_core::normalize_path(r)));
        let mut mode = self.mode;

        let (permission_settings, hooks_config) = match &self.settings {
            Some(loaded) => {
                diagnostics.extend(loaded.diagnostics.iter().map(ToString::to_string));
                let (settings, diags) = loaded.permissions();
                diagnostics.extend(diags.iter().map(ToString::to_string));
                if !self.mode_set
                    && let Some(default) = settings.default_mode
                {
                    mode = default;
                }
                for dir in &settings.additional_directories {
                    if !roots.contains(dir) {
                        roots.push(dir.clone());
                    }
                }
                (settings, Some(hooks_config(loaded)))
            }
            None => (Default::default(), None),
        };
        // The pool, filled in below once the engine can filter it; hooks' `if` rules look
        // their calls' tools up in it.
        let pool_cell = Arc::new(RwLock::new(Arc::new(ToolPool::builder().build())));
        let runner_hooks = hooks_config.map(|config| {
            diagnostics.extend(config.diagnostics().iter().map(ToString::to_string));
            let mut runner = HookRunner::new(config, self.cwd.clone()).with_result_store(results.clone());
            if let Some(caller) = &self.hook_mcp {
                runner = runner.with_mcp(caller.clone());
            }
            if let Some(agent) = &self.hook_agent {
                runner = runner.with_agent(agent.clone());
            }
            runner = runner.with_tools(Arc::new(PoolTools(pool_cell.clone())));
            Arc::new(RunnerHooks::new(Arc::new(runner), session_id.clone(), String::new()))
        });
        let runner = runner_hooks.as_ref().map(|h| h.runner().clone());
        let engine = self.engine.clone().unwrap_or_else(|| {
            let mut builder = PermissionEngine::builder(permission_settings)
                .cwd(self.cwd.clone())
                .local_settings(self.cwd.join(".claude").join("settings.local.json"));
            if let Some(p) = &self.prompter {
                builder = builder.prompter(p.clone());
            }
            if let Some(c) = &self.classifier {
                builder = builder.classifier(c.clone());
            }
            if let Some(h) = &runner_hooks {
                builder = builder.request_hooks(h.clone());
            }
            Arc::new(builder.build())
        });
        diagnostics.extend(engine.diagnostics().iter().map(ToString::to_string));
        let hooks: Option<Arc<dyn HookDispatch>> =
            self.hooks.clone().or_else(|| runner_hooks.map(|h| h as Arc<dyn HookDispatch>));
        let pool = self.pool.clone().unwrap_or_else(|| {
            let removes = engine.clone();
            Arc::new(
                ToolPool::builder()
                    .builtins(self.builtin.iter().cloned())
                    .mcps(self.mcp.iter().cloned())
                    .filter(move |t| !removes.removes_tool(t.name()))
                    .defer_mode(toolgate_core::DeferMode::from_env())
                    .build(),
            )
        });
        let file_state = self.file_state.unwrap_or_default();
        let app_state = AppState::default();
        let mut template = ToolContext::new(&self.cwd);
        template.session_id.clone_from(&session_id);
        template.file_state = file_state.clone();
        template.results = results.clone();
        template.pool = Some(pool.clone());
        template.app_state = app_state;
        template.extensions = self.extensions;
        // Searches and listings leave out what the Read deny rules cover.
        let hider = engine.clone();
        template.extensions.insert(HiddenPaths::new(move |path, link| hider.read_denies(path, link)));
        Session {
            inner: Arc::new(Inner {
                announced: Mutex::new((0, deferred_names(&pool))),
                tell_deferred: std::sync::atomic::AtomicBool::new(true),
                pool: {
                    *pool_cell.write().unwrap_or_else(PoisonError::into_inner) = pool;
                    pool_cell
                },
                pool_changes: Arc::new(tokio::sync::watch::Sender::new(0)),
                engine,
                hooks,
                state: Mutex::new(State { cwd: self.cwd, roots, mode }),
                file_state,
                results,
                template,
                max_concurrency: self.max_concurrency,
                budget: self.budget,
                stats: Mutex::new(BTreeMap::new()),
                stop: Mutex::new(None),
                diagnostics,
                runner,
            }),
        }
    }
}

/// The session's pool as hooks' `if` rules see it.
#[derive(Debug)]
struct PoolTools(Arc<RwLock<Arc<ToolPool>>>);

impl toolgate_hooks::HookTools for PoolTools {
    fn tool(&self, name: &str) -> Option<toolgate_core::DynTool> {
        self.0.read().unwrap_or_else(PoisonError::into_inner).get(name).cloned()
    }
}

/// The names of a pool's deferred tools.
fn deferred_names(pool: &ToolPool) -> BTreeSet<String> {
    pool.deferred_names().map(str::to_owned).collect()
}

/// What the model reads when the deferred tools changed.
fn deferred_note(added: &[&str], removed: &[&str]) -> String {
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("now available through ToolSearch: {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("no longer available: {}", removed.join(", ")));
    }
    format!("<system-reminder>\nThe deferred tools changed: {}.\n</system-reminder>", parts.join("; "))
}

/// The hooks a session with `loaded` runs: every settings source's, lowest precedence first,
/// so that later sources (and managed settings last) have the final word on
/// `disableAllHooks`.
///
/// ```
/// let loaded = toolgate_permissions::LoadedSettings::default();
/// assert!(toolgate_pipeline::hooks_config(&loaded).is_empty());
/// ```
pub fn hooks_config(loaded: &LoadedSettings) -> HooksConfig {
    let mut builder = HooksConfig::builder();
    for file in loaded.files.iter().rev() {
        let kind = match file.source {
            toolgate_core::RuleSource::UserSettings => SourceKind::User,
            toolgate_core::RuleSource::ProjectSettings => SourceKind::Project,
            toolgate_core::RuleSource::LocalSettings => SourceKind::Local,
            toolgate_core::RuleSource::PolicySettings => SourceKind::Managed,
            toolgate_core::RuleSource::FlagSettings => SourceKind::Flag,
            _ => SourceKind::Session,
        };
        builder = builder.add(HookSource::new(kind, &file.origin), &file.value);
    }
    builder.build()
}

fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:x}-{:x}", std::process::id(), nanos)
}

/// The concurrency bound from `TOOLGATE_MAX_TOOL_CONCURRENCY`, else the default.
fn concurrency_from_env() -> usize {
    std::env::var("TOOLGATE_MAX_TOOL_CONCURRENCY")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_CONCURRENCY)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What one call produced.
struct Report {
    result: ToolResultBlock,
    tool_name: String,
    persist: bool,
    change: Option<ContextChange>,
    error_kind: Option<ToolErrorKind>,
    duration: Duration,
    counted: bool,
}

/// Why a call was cut short by cancellation.
#[derive(Clone)]
struct Cancels {
    user: CancellationToken,
    batch: CancellationToken,
}

impl Session {
    /// A builder rooted at the process's current directory, with no tools.
    pub fn builder() -> SessionBuilder {
        SessionBuilder {
            pool: None,
            builtin: Vec::new(),
            mcp: Vec::new(),
            settings: None,
            prompter: None,
            classifier: None,
            mode_set: false,
            engine: None,
            hooks: None,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            roots: Vec::new(),
            mode: PermissionMode::Default,
            results_dir: None,
            file_state: None,
            extensions: Extensions::default(),
            session_id: String::new(),
            max_concurrency: concurrency_from_env(),
            budget: DEFAULT_MESSAGE_BUDGET,
            hook_mcp: None,
            hook_agent: None,
        }
    }

    /// The pool as it is now (see [`Session::set_mcp_tools`]).
    pub fn pool(&self) -> Arc<ToolPool> {
        self.inner.pool.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Replaces the pool's MCP tools with `tools` (a server's `tools/list_changed`, a
    /// reconnect): the built-in tools stay, the tools the permission engine removes are
    /// dropped as when the session was built, and the order stays cache-stable (built-ins,
    /// then MCP tools, each sorted by name). Calls already running keep the pool they
    /// started with; the session's forks see the new pool too.
    pub fn set_mcp_tools(&self, tools: impl IntoIterator<Item = DynTool>) {
        let current = self.pool();
        let removes = self.inner.engine.clone();
        let pool = ToolPool::builder()
            .builtins(current.builtin_tools().cloned())
            .mcps(tools)
            .filter(move |t| !removes.removes_tool(t.name()))
            .defer_mode(current.defer_mode())
            .build();
        *self.inner.pool.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(pool);
        self.inner.pool_changes.send_modify(|n| *n += 1);
    }

    /// Whether a change of the deferred tools (MCP servers that connected late or changed
    /// their tools) is told to the model in the next message's last result (on by default).
    /// A host whose client learns of tool changes another way turns it off: `mcp serve`, whose
    /// clients hear `notifications/tools/list_changed`.
    pub fn tell_deferred_changes(&self, on: bool) {
        self.inner.tell_deferred.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// Ticks whenever [`Session::set_mcp_tools`] replaces the pool (of this session or of
    /// a fork of the same one): a server serving the pool tells its clients then.
    pub fn pool_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.pool_changes.subscribe()
    }

    /// The permission engine.
    pub fn engine(&self) -> &Arc<PermissionEngine> {
        &self.inner.engine
    }

    /// The current working directory.
    pub fn cwd(&self) -> PathBuf {
        lock(&self.inner.state).cwd.clone()
    }

    /// The current permission mode.
    pub fn mode(&self) -> PermissionMode {
        lock(&self.inner.state).mode
    }

    /// Changes the permission mode.
    pub fn set_mode(&self, mode: PermissionMode) {
        lock(&self.inner.state).mode = mode;
    }

    /// The file-state cache.
    pub fn file_state(&self) -> &Arc<FileStateCache> {
        &self.inner.file_state
    }

    /// The result store.
    pub fn results(&self) -> &Arc<ResultStore> {
        &self.inner.results
    }

    /// Per-tool statistics so far.
    pub fn stats(&self) -> BTreeMap<String, ToolStats> {
        lock(&self.inner.stats).clone()
    }

    /// The hook runner built from discovered settings, if the session has one.
    pub fn hook_runner(&self) -> Option<&Arc<HookRunner>> {
        self.inner.runner.as_ref()
    }

    /// Problems found in settings, rules and hooks while building the session.
    pub fn diagnostics(&self) -> &[String] {
        &self.inner.diagnostics
    }

    /// The reason a hook asked the session to stop (`continue: false`), if one did.
    pub fn stop_reason(&self) -> Option<String> {
        lock(&self.inner.stop).clone()
    }

    /// A session for another agent of the same host: the same pool, permission engine,
    /// hooks, settings, concurrency bound and message budget, but state of its own, as one
    /// MCP client's session is apart from another's:
    ///
    /// - its own file-state cache (what it read; Edit and Write check against it), empty;
    /// - its own working directory, roots and permission mode, starting from this
    ///   session's current ones;
    /// - its own `AppState` (TodoWrite's list, plan-mode memory, the background shells,
    ///   whose processes are killed when the last clone of the fork is dropped);
    /// - its own result folder, `<this session's result folder>/<session_id>`, and
    ///   statistics;
    /// - this session's host services, changed by `services` (a host gives each fork its
    ///   own task store and plan file there).
    ///
    /// ```
    /// use toolgate_pipeline::Session;
    /// let base = Session::builder().cwd("/repo").build();
    /// let a = base.fork("a", |_| {});
    /// assert_eq!(a.cwd(), base.cwd());
    /// assert!(!std::sync::Arc::ptr_eq(a.file_state(), base.file_state()));
    /// assert!(std::sync::Arc::ptr_eq(&a.pool(), &base.pool()));
    /// ```
    pub fn fork(&self, session_id: &str, services: impl FnOnce(&mut Extensions)) -> Session {
        let inner = &self.inner;
        let state = lock(&inner.state).clone();
        let file_state = Arc::new(FileStateCache::default());
        let dir_name: String = session_id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .collect();
        let results = Arc::new(ResultStore::new(inner.results.dir().join(dir_name)));
        let mut template = inner.template.clone();
        template.session_id = session_id.to_owned();
        template.file_state = file_state.clone();
        template.results = results.clone();
        template.app_state = AppState::default();
        services(&mut template.extensions);
        Session {
            inner: Arc::new(Inner {
                pool: inner.pool.clone(),
                pool_changes: inner.pool_changes.clone(),
                engine: inner.engine.clone(),
                hooks: inner.hooks.clone(),
                state: Mutex::new(state),
                file_state,
                results,
                template,
                max_concurrency: inner.max_concurrency,
                budget: inner.budget,
                stats: Mutex::new(BTreeMap::new()),
                stop: Mutex::new(None),
                announced: Mutex::new(lock(&inner.announced).clone()),
                tell_deferred: std::sync::atomic::AtomicBool::new(
                    inner.tell_deferred.load(std::sync::atomic::Ordering::Relaxed),
                ),
                diagnostics: inner.diagnostics.clone(),
                runner: inner.runner.clone(),
            }),
        }
    }

    /// A context for a call: the session's current state.
    pub fn context(&self) -> ToolContext {
        let pool = self.pool();
        let state = lock(&self.inner.state);
        let mut ctx = self.inner.template.clone();
        ctx.pool = Some(pool);
        ctx.cwd.clone_from(&state.cwd);
        ctx.roots.clone_from(&state.roots);
        ctx.permission_mode = state.mode;
        ctx
    }

    /// The permission decision for a call another agent runs (`toolgate hook` for Claude
    /// Code): looked up, checked against its schema and normalized, then decided by the
    /// engine's synchronous layers. The tool's own validation is skipped: it reads this
    /// session's state (what was read before an edit), which the other agent keeps.
    ///
    /// # Errors
    /// An unknown tool or an input its schema refuses, as [`Session::check`] reports them.
    pub fn check_foreign(&self, call: &ToolCall) -> Result<(String, Evaluation), ToolError> {
        let tool = lookup(&self.pool(), &call.name)?;
        let schema = self.pool().schema(tool.name())?;
        self.evaluate_foreign(&tool, &schema, call)
    }

    /// [`Session::check_foreign`] for a tool this session does not offer (the other agent's
    /// own, or one of ours that is off here, such as Agent without a subagent runner), decided
    /// by the same rules.
    ///
    /// # Errors
    /// The tool's schema does not compile, or refuses the input.
    pub fn check_foreign_tool(&self, tool: &DynTool, call: &ToolCall) -> Result<(String, Evaluation), ToolError> {
        let schema = toolgate_core::InputSchema::compile(tool.input_schema())
            .map_err(|e| ToolError::internal(format!("the schema of {} does not compile: {e}", tool.name())))?;
        self.evaluate_foreign(tool, &schema, call)
    }

    fn evaluate_foreign(
        &self,
        tool: &DynTool,
        schema: &toolgate_core::InputSchema,
        call: &ToolCall,
    ) -> Result<(String, Evaluation), ToolError> {
        let mut ctx = self.context();
        ctx.tool_use_id.clone_from(&call.id);
        let checked = schema.validate(&call.input).map_err(|e| ToolError::invalid_input(e.message().to_owned()))?;
        let input = tool.normalize_input(&checked, &ctx);
        let evaluation = self.inner.engine.evaluate(&**tool, &input, &ctx, None);
        Ok((tool.name().to_owned(), evaluation))
    }

    /// The permission decision for a call without running it and without a prompt: steps
    /// 1–3, PreToolUse hooks when `run_hooks` (a hook block counts as a hook deny), then the
    /// engine's synchronous layers. An unknown tool or an invalid input is the error a
    /// model would get.
    pub async fn check(&self, call: &ToolCall, run_hooks: bool) -> Result<(String, Evaluation), ToolError> {
        let tool = lookup(&self.pool(), &call.name)?;
        let mut ctx = self.context();
        ctx.tool_use_id.clone_from(&call.id);
        let mut input = validate(&self.inner, &tool, &call.input, &ctx).await?;
        let mut verdict = None;
        if run_hooks && let Some(hooks) = &self.inner.hooks {
            let name = tool.name().to_owned();
            let outcome = hooks
                .pre_tool_use(HookCall { tool_name: &name, tool_use_id: &call.id, input: &input, ctx: &ctx })
                .await;
            if let Some(updated) = outcome.updated_input {
                input = validate(&self.inner, &tool, &updated, &ctx).await?;
            }
            verdict = match outcome.blocked {
                Some(reason) => Some(HookVerdict {
                    behavior: PermissionBehavior::Deny,
                    reason: Some(reason),
                    hook: "PreToolUse (exit code 2)".to_owned(),
                    updated_input: false,
                }),
                None => outcome.decision,
            };
        }
        let evaluation = self.inner.engine.evaluate(&*tool, &input, &ctx, verdict.as_ref());
        Ok((tool.name().to_owned(), evaluation))
    }

    /// Runs a message's calls: exactly one result per call, in the calls' order.
    pub async fn run_message(&self, calls: Vec<ToolCall>) -> Vec<ToolResultBlock> {
        self.run_message_with(calls, CancellationToken::new(), None).await
    }

    /// Runs a message's calls under a cancellation token, reporting [`Event`]s: the calls as
    /// [`Session::run_calls_with`] runs them, then the message's end as
    /// [`Session::finish_message`] does it.
    pub async fn run_message_with(
        &self,
        calls: Vec<ToolCall>,
        cancel: CancellationToken,
        events: Option<EventSink>,
    ) -> Vec<ToolResultBlock> {
        let (calls, mut results) = self.run_shared_calls(calls, &cancel, events.as_ref()).await;
        let calls: Vec<&ToolCall> = calls.iter().map(|c| &**c).collect();
        self.end_message(&calls, &mut results, events.as_ref()).await;
        results
    }

    /// Runs calls that are part of a larger message, without the message's end: exactly one
    /// result per call, in the calls' order, through the seven steps, batched as
    /// [`Session::run_message_with`] batches them; the calls' statistics are recorded, and the
    /// results of one run share the message budget (a message run in parts has it for each
    /// part). What belongs to the whole message (the notes on its last result, PostToolBatch)
    /// is left to [`Session::finish_message`], called once every call of the message has its
    /// result.
    ///
    /// A host that starts a concurrency-safe call while the model still streams the rest of
    /// the message runs it here, then the others once the message is complete:
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate_core::{CancellationToken, PermissionMode, ToolBuilder, ToolOutput, ToolPool};
    /// use toolgate_pipeline::{Session, ToolCall};
    ///
    /// let echo = ToolBuilder::new("Echo")
    ///     .schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
    ///     .call(|input, _| async move { Ok(ToolOutput::text(input["text"].as_str().unwrap_or_default())) })
    ///     .build();
    /// let pool = ToolPool::builder().builtin(echo).build();
    /// let session = Session::builder().pool(pool).cwd("/tmp").mode(PermissionMode::BypassPermissions).build();
    /// let calls = vec![
    ///     ToolCall::new("t1", "Echo", json!({"text": "early"})),
    ///     ToolCall::new("t2", "Echo", json!({"text": "late"})),
    /// ];
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let results = rt.block_on(async {
    ///     // The first call, as soon as its block has streamed; the second after the message.
    ///     let mut results = session.run_calls_with(calls[..1].to_vec(), CancellationToken::new(), None).await;
    ///     results.extend(session.run_calls_with(calls[1..].to_vec(), CancellationToken::new(), None).await);
    ///     session.finish_message(&calls, &mut results, None).await;
    ///     results
    /// });
    /// assert_eq!(results[0].content[0].as_text(), Some("early"));
    /// assert_eq!(results[1].content[0].as_text(), Some("late"));
    /// ```
    pub async fn run_calls_with(
        &self,
        calls: Vec<ToolCall>,
        cancel: CancellationToken,
        events: Option<EventSink>,
    ) -> Vec<ToolResultBlock> {
        self.run_shared_calls(calls, &cancel, events.as_ref()).await.1
    }

    /// Ends a message whose calls ran in parts ([`Session::run_calls_with`]): `results` are
    /// the results of all of `calls`, one per call, in the calls' order. What changed while
    /// the calls ran goes on the last result (the deferred tools, when
    /// [`Session::tell_deferred_changes`] is on, and what background hooks that ended
    /// reported), then PostToolBatch hooks see every call with its result, once for the
    /// message; a hook that stops the loop sets [`Session::stop_reason`].
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate_core::{CancellationToken, ToolPool};
    /// use toolgate_pipeline::{Session, ToolCall};
    ///
    /// let session = Session::builder().pool(ToolPool::builder().build()).cwd("/tmp").build();
    /// // Two calls of one message, each run on its own (here: tools the pool lacks).
    /// let calls = vec![ToolCall::new("t1", "Nope", json!({})), ToolCall::new("t2", "Nada", json!({}))];
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let results = rt.block_on(async {
    ///     let mut results = Vec::new();
    ///     for call in &calls {
    ///         results.extend(session.run_calls_with(vec![call.clone()], CancellationToken::new(), None).await);
    ///     }
    ///     session.finish_message(&calls, &mut results, None).await;
    ///     results
    /// });
    /// assert!(results.iter().all(|r| r.is_error));
    /// assert_eq!(session.stop_reason(), None);
    /// ```
    pub async fn finish_message(&self, calls: &[ToolCall], results: &mut [ToolResultBlock], events: Option<EventSink>) {
        let calls: Vec<&ToolCall> = calls.iter().collect();
        self.end_message(&calls, results, events.as_ref()).await;
    }

    /// [`Session::run_calls_with`], returning the calls (shared with their tasks) as well.
    async fn run_shared_calls(
        &self,
        calls: Vec<ToolCall>,
        cancel: &CancellationToken,
        events: Option<&EventSink>,
    ) -> (Vec<Arc<ToolCall>>, Vec<ToolResultBlock>) {
        let batches = plan_batches(&self.pool(), &calls);
        let mut reports: Vec<Option<Report>> = (0..calls.len()).map(|_| None).collect();
        let calls: Vec<Arc<ToolCall>> = calls.into_iter().map(Arc::new).collect();
        for batch in batches {
            let cancels = Cancels { user: cancel.clone(), batch: cancel.child_token() };
            let base = self.context();
            // One call runs in the message's own task (a panic still fails only that call);
            // several each get a task of their own.
            let mut finished = Vec::new();
            if batch.calls.len() == 1 {
                let index = batch.calls.start;
                let call = calls[index].clone();
                if cancel.is_cancelled() {
                    reports[index] = Some(cancelled_report(&call, "cancelled by the user before it started"));
                } else {
                    let started = Instant::now();
                    let run = run_call(self.inner.clone(), call.clone(), base, cancels.clone(), events.cloned());
                    let report = CatchUnwind(Box::pin(run))
                        .await
                        .unwrap_or_else(|_| panic_report(&call, true, started.elapsed()));
                    finished.push((index, report));
                }
            } else {
                let semaphore = Arc::new(Semaphore::new(if batch.concurrent { self.inner.max_concurrency } else { 1 }));
                let mut set = JoinSet::new();
                let mut spawned = HashMap::new();
                for index in batch.calls.clone() {
                    let call = calls[index].clone();
                    if cancel.is_cancelled() {
                        reports[index] = Some(cancelled_report(&call, "cancelled by the user before it started"));
                        continue;
                    }
                    let inner = self.inner.clone();
                    let (base, cancels, semaphore, events) =
                        (base.clone(), cancels.clone(), semaphore.clone(), events.cloned());
                    let task_call = call.clone();
                    let handle = set.spawn(async move {
                        let _permit = semaphore.acquire_owned().await;
                        run_call(inner, task_call, base, cancels, events).await
                    });
                    spawned.insert(handle.id(), (index, call, Instant::now()));
                }
                // Each call is its own task: a panic anywhere in its steps fails only that call.
                while let Some(joined) = set.join_next_with_id().await {
                    let (id, outcome) = match joined {
                        Ok((id, report)) => (id, Ok(report)),
                        Err(e) => (e.id(), Err(e)),
                    };
                    let Some((index, call, started)) = spawned.remove(&id) else { continue };
                    let report = outcome.unwrap_or_else(|e| panic_report(&call, e.is_panic(), started.elapsed()));
                    let failed_bash = report.result.is_error
                        && canonical_tool_name(&report.tool_name) == "Bash"
                        && report.error_kind != Some(ToolErrorKind::Cancelled);
                    if batch.concurrent && failed_bash {
                        cancels.batch.cancel();
                    }
                    finished.push((index, report));
                }
            }
            for (index, report) in finished {
                if let Some(sink) = events {
                    sink(Event::CallFinished {
                        tool_use_id: report.result.tool_use_id.clone(),
                        tool_name: report.tool_name.clone(),
                        duration: report.duration,
                        error_kind: report.error_kind,
                    });
                }
                reports[index] = Some(report);
            }
            // Context changes apply in call order, after the batch.
            for index in batch.calls.clone() {
                if let Some(change) = reports[index].as_ref().and_then(|r| r.change.clone()) {
                    self.apply(change);
                }
            }
        }
        let mut reports: Vec<Report> = reports
            .into_iter()
            .zip(&calls)
            .map(|(r, call)| {
                r.unwrap_or_else(|| {
                    let err = ToolError::internal("the call's task ended without a result");
                    error_report(call, &err, Duration::ZERO)
                })
            })
            .collect();
        self.record_stats(&reports);
        self.apply_budget(&mut reports);
        let results = reports.into_iter().map(|r| r.result).collect();
        (calls, results)
    }

    /// The message's end: [`Session::finish_message`].
    async fn end_message(&self, calls: &[&ToolCall], results: &mut [ToolResultBlock], events: Option<&EventSink>) {
        if let Some(last) = results.last_mut() {
            // What changed while the calls ran: the deferred tools, and background hooks that
            // ended (whatever became of the call they ran for).
            last.content.extend(self.deferred_delta().map(ContentBlock::text));
            if let Some(runner) = &self.inner.runner {
                let ended = crate::hook_adapter::background_context(runner);
                last.content.extend(ended.iter().map(|c| ContentBlock::text(hook_context(c))));
            }
        }
        self.post_tool_batch(calls, results, events).await;
    }

    /// The change in the deferred tools since the model was last told (MCP servers that
    /// connected late, or changed their tools), as a note for the message's last result;
    /// `None` when nothing changed. Telling it updates what the model knows.
    fn deferred_delta(&self) -> Option<String> {
        let tick = *self.inner.pool_changes.borrow();
        let mut guard = lock(&self.inner.announced);
        let (seen, announced) = &mut *guard;
        // The pool was not replaced since: nothing to compare.
        if *seen == tick {
            return None;
        }
        *seen = tick;
        let now = deferred_names(&self.pool());
        if *announced == now {
            return None;
        }
        if !self.inner.tell_deferred.load(std::sync::atomic::Ordering::Relaxed) {
            *announced = now;
            return None;
        }
        let added: Vec<&str> = now.difference(announced).map(String::as_str).collect();
        let removed: Vec<&str> = announced.difference(&now).map(String::as_str).collect();
        let note = deferred_note(&added, &removed);
        *announced = now;
        Some(note)
    }

    /// PostToolBatch, once every call of the message has resolved: a hook that blocks (or
    /// says `continue: false`) stops the loop (see [`Session::stop_reason`]).
    async fn post_tool_batch(&self, calls: &[&ToolCall], results: &[ToolResultBlock], events: Option<&EventSink>) {
        let Some(hooks) = &self.inner.hooks else { return };
        if calls.is_empty() || !hooks.wants_post_tool_batch() {
            return;
        }
        let responses: Vec<Value> =
            results.iter().map(|r| serde_json::to_value(&r.content).unwrap_or(Value::Null)).collect();
        let batch: Vec<BatchCall<'_>> = calls
            .iter()
            .zip(&responses)
            .map(|(call, response)| BatchCall {
                tool_name: &call.name,
                tool_use_id: &call.id,
                input: &call.input,
                response,
            })
            .collect();
        let ctx = self.context();
        let outcome = hooks.post_tool_batch(&batch, &ctx).await;
        if let Some(reason) = outcome.stop {
            lock(&self.inner.stop).get_or_insert(reason);
        }
        let last = calls.last().map(|c| c.id.clone()).unwrap_or_default();
        for notice in outcome.notices {
            if let Some(sink) = events {
                sink(Event::HookOutcome { tool_use_id: last.clone(), event: "PostToolBatch", detail: notice });
            }
        }
    }

    fn apply(&self, change: ContextChange) {
        let mut state = lock(&self.inner.state);
        match change {
            ContextChange::Cwd(dir) => state.cwd = toolgate_core::normalize_path(&dir),
            ContextChange::PermissionMode(mode) => state.mode = mode,
            ContextChange::AddRoot(dir) => {
                let dir = toolgate_core::normalize_path(&dir);
                if !state.roots.contains(&dir) {
                    state.roots.push(dir);
                }
            }
            _ => {}
        }
    }

    fn record_stats(&self, reports: &[Report]) {
        let mut stats = lock(&self.inner.stats);
        for r in reports.iter().filter(|r| r.counted) {
            let entry = stats.entry(r.tool_name.clone()).or_default();
            entry.calls += 1;
            entry.total += r.duration;
            entry.max = entry.max.max(r.duration);
            if let Some(kind) = r.error_kind {
                *entry.errors.entry(kind.as_str().to_owned()).or_default() += 1;
            }
        }
    }

    fn apply_budget(&self, reports: &mut [Report]) {
        let total: usize = reports.iter().flat_map(|r| &r.result.content).map(ContentBlock::text_chars).sum();
        if total <= self.inner.budget {
            return;
        }
        let mut entries: Vec<BudgetEntry> = reports
            .iter_mut()
            .map(|r| BudgetEntry {
                tool_use_id: r.result.tool_use_id.clone(),
                tool_name: r.tool_name.clone(),
                content: std::mem::take(&mut r.result.content),
                persistable: r.persist && !r.result.is_error,
            })
            .collect();
        self.inner.results.enforce_budget(&mut entries, self.inner.budget);
        for (report, entry) in reports.iter_mut().zip(entries) {
            report.result.content = entry.content;
        }
    }
}

fn error_report(call: &ToolCall, err: &ToolError, duration: Duration) -> Report {
    Report {
        result: ToolResultBlock::error(&call.id, err),
        tool_name: call.name.clone(),
        persist: false,
        change: None,
        error_kind: Some(err.kind()),
        duration,
        counted: true,
    }
}

fn cancelled_report(call: &ToolCall, why: &str) -> Report {
    let err = ToolError::cancelled(format!("{} was {why}; it did not run.", call.name))
        .with_hint("Wait for the user's direction before trying again.");
    Report { counted: false, ..error_report(call, &err, Duration::ZERO) }
}

/// The report of a call whose steps panicked (`panicked`) or whose task was aborted.
fn panic_report(call: &ToolCall, panicked: bool, duration: Duration) -> Report {
    let err = if panicked {
        ToolError::internal(format!(
            "{} failed with an internal error (a panic inside toolgate or the tool)",
            call.name
        ))
        .with_hint("This is a bug, not a problem with your input; try a different approach.")
    } else {
        ToolError::cancelled(format!("{} was cancelled", call.name))
    };
    error_report(call, &err, duration)
}

/// A future whose panic while being polled becomes `Err` with the panic's payload, as a
/// task's does: a call run inside the message's task still fails alone.
struct CatchUnwind<F>(std::pin::Pin<Box<F>>);

impl<F: std::future::Future> std::future::Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let inner = self.0.as_mut();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(std::task::Poll::Ready(output)) => std::task::Poll::Ready(Ok(output)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(payload) => std::task::Poll::Ready(Err(payload)),
        }
    }
}

/// The seven steps for one call.
async fn run_call(
    inner: Arc<Inner>,
    call: Arc<ToolCall>,
    mut ctx: ToolContext,
    cancels: Cancels,
    events: Option<EventSink>,
) -> Report {
    let started = Instant::now();
    // Events are built only when someone listens (a summary renders the input).
    let emit = |event: &dyn Fn() -> Event| {
        if let Some(sink) = &events {
            sink(event());
        }
    };
    ctx.tool_use_id = call.id.clone();
    if let Some(sink) = events.clone() {
        ctx.progress = ProgressSink::new(move |p| sink(Event::Progress(p)));
    }

    // 1. Lookup.
    tracing::trace!(tool = %call.name, id = %call.id, "call received");
    let pool = inner.pool.read().unwrap_or_else(PoisonError::into_inner).clone();
    let tool = match lookup(&pool, &call.name) {
        Ok(tool) => tool,
        Err(err) => return Report { counted: false, ..error_report(&call, &err, started.elapsed()) },
    };
    let name = tool.name().to_owned();
    let fail = |err: ToolError| Report { tool_name: name.clone(), ..error_report(&call, &err, started.elapsed()) };

    // 2 and 3. Schema, custom validation, normalized copy.
    let mut input = match validate(&inner, &tool, &call.input, &ctx).await {
        Ok(input) => input,
        Err(err) => return fail(err),
    };
    emit(&|| Event::CallStarted {
        tool_use_id: call.id.clone(),
        tool_name: name.clone(),
        summary: tool.render_use(&input),
    });

    // 4. PreToolUse hooks.
    let mut additional_context = Vec::new();
    let mut hook_verdict = None;
    if let Some(hooks) = &inner.hooks {
        let outcome =
            hooks.pre_tool_use(HookCall { tool_name: &name, tool_use_id: &call.id, input: &input, ctx: &ctx }).await;
        for notice in &outcome.notices {
            emit(&|| Event::HookOutcome { tool_use_id: call.id.clone(), event: "PreToolUse", detail: notice.clone() });
        }
        if let Some(reason) = &outcome.stop {
            lock(&inner.stop).get_or_insert_with(|| reason.clone());
        }
        if let Some(reason) = outcome.blocked {
            emit(&|| Event::HookOutcome {
                tool_use_id: call.id.clone(),
                event: "PreToolUse",
                detail: format!("blocked: {reason}"),
            });
            return fail(ToolError::permission(format!("A PreToolUse hook blocked this call: {reason}")));
        }
        additional_context.extend(outcome.additional_context);
        if let Some(updated) = outcome.updated_input {
            emit(&|| Event::HookOutcome {
                tool_use_id: call.id.clone(),
                event: "PreToolUse",
                detail: "rewrote the input".into(),
            });
            input = match validate(&inner, &tool, &updated, &ctx).await {
                Ok(input) => input,
                Err(err) => {
                    let msg =
                        format!("A PreToolUse hook rewrote the input into one that is invalid: {}", err.message());
                    return fail(ToolError::invalid_input(msg));
                }
            };
        }
        hook_verdict = outcome.decision;
    }

    // 5. Permission.
    let decided = inner.engine.decide(&*tool, &input, &ctx, hook_verdict.as_ref()).await;
    tracing::debug!(
        tool = %name,
        id = %call.id,
        behavior = %decided.decision.behavior,
        reason = decided.decision.reason.kind(),
        "permission decided: {}",
        decided.decision.message
    );
    emit(&|| Event::PermissionDecided { tool_use_id: call.id.clone(), decision: decided.decision.clone() });
    if decided.decision.behavior != PermissionBehavior::Allow {
        return fail(ToolError::permission(decided.decision.message.clone()));
    }
    if let Some(updated) = decided.updated_input {
        input = match validate(&inner, &tool, &updated, &ctx).await {
            Ok(input) => input,
            Err(err) => {
                let msg =
                    format!("A PermissionRequest hook rewrote the input into one that is invalid: {}", err.message());
                return fail(ToolError::invalid_input(msg));
            }
        };
    }

    // 6. Execute.
    let outcome = execute(&tool, input.clone(), &mut ctx, &cancels).await;
    tracing::debug!(tool = %name, id = %call.id, ok = outcome.is_ok(), elapsed = ?started.elapsed(), "executed");
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);

    // 7. PostToolUse / PostToolUseFailure.
    let hook_call = HookCall { tool_name: &name, tool_use_id: &call.id, input: &input, ctx: &ctx };
    match outcome {
        Ok(output) => {
            if let Some(structured) = &output.structured
                && events.is_some()
            {
                emit(&|| Event::Output {
                    tool_use_id: call.id.clone(),
                    tool_name: name.clone(),
                    structured: structured.clone(),
                });
            }
            let mut content = output_content(&name, &output);
            if let Some(hooks) = &inner.hooks {
                let response = output.structured.clone().unwrap_or_else(|| Value::String(output.to_text()));
                let post = hooks.post_tool_use(hook_call, &response, elapsed_ms).await;
                if let Some(reason) = &post.stop {
                    lock(&inner.stop).get_or_insert_with(|| reason.clone());
                }
                if let Some(updated) = post.updated_output {
                    content = replacement_content(updated);
                }
                additional_context.extend(post.additional_context);
                if let Some(reason) = post.blocked {
                    additional_context.push(format!("PostToolUse hook feedback: {reason}"));
                }
            }
            let limit = tool.max_result_size_chars();
            let mut content = inner.results.apply_threshold(&call.id, limit, content);
            content.extend(additional_context.into_iter().map(|c| ContentBlock::text(hook_context(&c))));
            Report {
                result: ToolResultBlock::ok(&call.id, content),
                tool_name: name,
                persist: limit != ResultLimit::Never,
                change: output.context_change,
                error_kind: None,
                duration: started.elapsed(),
                counted: true,
            }
        }
        Err(err) => {
            let mut result = ToolResultBlock::error(&call.id, &err);
            if let Some(hooks) = &inner.hooks {
                let is_interrupt = err.kind() == ToolErrorKind::Cancelled;
                let text = err.to_model_text();
                let post = hooks.post_tool_use_failure(hook_call, &text, is_interrupt, elapsed_ms).await;
                additional_context.extend(post.additional_context);
                if let Some(reason) = post.blocked {
                    additional_context.push(format!("PostToolUseFailure hook feedback: {reason}"));
                }
            }
            result.content.extend(additional_context.into_iter().map(|c| ContentBlock::text(hook_context(&c))));
            Report {
                result,
                tool_name: name,
                persist: false,
                change: None,
                error_kind: Some(err.kind()),
                duration: started.elapsed(),
                counted: true,
            }
        }
    }
}

/// Step 1: the tool by name, alias or legacy name; an unknown name is an error naming
/// the closest tools.
fn lookup(pool: &ToolPool, name: &str) -> Result<DynTool, ToolError> {
    pool.get(name).cloned().ok_or_else(|| {
        let closest = pool.closest_names(name);
        let hint = if closest.is_empty() {
            "Use one of the tools in your tool list.".to_owned()
        } else {
            format!("Did you mean {}?", closest.join(", "))
        };
        ToolError::not_found(format!("No such tool available: {name}.")).with_hint(hint)
    })
}

/// Steps 2 and 3: the schema, the tool's own validation, and the normalized copy.
async fn validate(inner: &Inner, tool: &DynTool, raw: &Value, ctx: &ToolContext) -> Result<Value, ToolError> {
    let pool = inner.pool.read().unwrap_or_else(PoisonError::into_inner).clone();
    let schema = pool.schema(tool.name())?;
    let checked = schema.validate(raw).map_err(|e| {
        ToolError::invalid_input(format!(
            "InputValidationError: {} failed due to the following issue{}:\n{}",
            tool.name(),
            if e.message().lines().count() > 1 { "s" } else { "" },
            e.message()
        ))
    })?;
    tool.validate_input(&checked, ctx).await?;
    Ok(tool.normalize_input(&checked, ctx))
}

/// Step 6 under cancellation: tools that cancel on interrupt stop when the user or a
/// failed sibling cancels; tools that block finish. The call sees `ctx` with a token of its
/// own, which is put back afterwards.
async fn execute(
    tool: &DynTool,
    input: Value,
    ctx: &mut ToolContext,
    cancels: &Cancels,
) -> Result<ToolOutput, ToolError> {
    let blocks = tool.interrupt_behavior() == InterruptBehavior::Block;
    let token = if blocks { CancellationToken::new() } else { cancels.batch.child_token() };
    let saved = std::mem::replace(&mut ctx.cancel, token.clone());
    let outcome = if blocks {
        tool.call(input, ctx).await
    } else {
        tokio::select! {
            biased;
            () = token.cancelled() => {
                if cancels.user.is_cancelled() {
                    Err(ToolError::cancelled(format!("{} was cancelled by the user before it finished.", tool.name()))
                        .with_hint("Wait for the user's direction before trying again."))
                } else {
                    Err(ToolError::cancelled(format!(
                        "{} was cancelled because a Bash call running beside it failed.",
                        tool.name()
                    ))
                    .with_hint("Fix the failing command, then run this call again."))
                }
            }
            out = tool.call(input, ctx) => out,
        }
    };
    ctx.cancel = saved;
    outcome
}

/// The content the model sees for a successful output.
fn output_content(name: &str, output: &ToolOutput) -> Vec<ContentBlock> {
    if output.is_empty() { vec![ContentBlock::text(empty_result_text(name))] } else { output.content.clone() }
}

/// A hook's `updatedToolOutput`: a string, an array of content blocks, or any JSON.
fn replacement_content(value: Value) -> Vec<ContentBlock> {
    match value {
        Value::String(text) => vec![ContentBlock::text(text)],
        Value::Array(items) => {
            let blocks: Result<Vec<ContentBlock>, _> = items.iter().cloned().map(serde_json::from_value).collect();
            blocks.unwrap_or_else(|_| vec![ContentBlock::text(Value::Array(items).to_string())])
        }
        other => vec![ContentBlock::text(serde_json::to_string_pretty(&other).unwrap_or_else(|_| other.to_string()))],
    }
}

fn hook_context(text: &str) -> String {
    format!("<hook-context>\n{text}\n</hook-context>")
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
