//! [`HookRunner`]: runs the handlers an event matches and turns what they say into a
//! typed outcome.
//!
//! For one event the runner:
//!
//! 1. selects the matcher groups whose matcher accepts the event's value (the tool name
//!    for tool events), in configuration order;
//! 2. drops duplicate handlers ([`crate::HookHandler::dedup_key`]), keeping the first;
//! 3. on tool events, drops handlers whose `if` rule does not match the call (checked by
//!    the permissions crate, per Bash subcommand); a rule that does not parse lets the
//!    handler run (fail open) and is reported;
//! 4. runs the rest concurrently: commands through the process helper (`sh -c`, or exec
//!    form) in the project directory, in their own process group, with the event JSON on
//!    stdin, `CLAUDE_PROJECT_DIR` and `TOOLGATE_PROJECT_DIR` set and `OTEL_*` removed,
//!    stdout and stderr capped; http handlers as a POST of the same JSON. A handler past
//!    its timeout is killed with its whole group;
//! 5. reads each result: exit 0 → stdout as JSON when it starts with `{` (checked
//!    against the event's output schema; a bad object is a diagnostic and is ignored),
//!    plain text otherwise; exit 2 → a block whose reason is the JSON `reason` or stderr;
//!    anything else (another code, a signal, a timeout, a missing script) → a
//!    non-blocking error with the first line of stderr;
//! 6. combines the results in configuration order into the event's outcome; strings over
//!    10,000 chars are saved through the [`ResultStore`] and replaced by a preview.

use std::collections::HashSet;
use std::ffi::OsString;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use toolgate_core::process::{ProcessSpec, ProcessStatus};
use toolgate_core::{CancellationToken, ResultStore};

use crate::config::{CommandHook, HandlerKind, HookHandler, Shell, SourceKind};
use crate::input::{
    HookInput, NotificationInput, PermissionRequestInput, PostToolBatchInput, PostToolUseFailureInput,
    PostToolUseInput, PreCompactInput, PreToolUseInput, SessionEndInput, SessionStartInput, StopInput,
    SubagentStopInput, UserPromptSubmitInput,
};
use crate::outcome::{
    AnyOutcome, EventOutcome, HandlerReport, HandlerResult, HookBlock, HookDecision, HookError, HookMessage, HookRef,
    HookResponse, HookStop, PermissionRequestOutcome, PermissionVerdict, PostToolUseOutcome, PreToolUseOutcome,
    SessionStartOutcome,
};
use crate::output::{
    ContextSpecificOutput, HookBehavior, HookOutput, NoSpecificOutput, PermissionRequestBehavior,
    PermissionRequestSpecificOutput, PostToolUseSpecificOutput, PreToolUseSpecificOutput, SessionStartSpecificOutput,
    SpecificOutput, TopLevelDecision, UserPromptSubmitSpecificOutput,
};
use crate::{Diagnostic, HookEvent, HooksConfig, http, schema};

/// Hook output strings (plain stdout, `additionalContext`, `systemMessage`, reasons)
/// longer than this many chars are saved to a file and replaced by a preview.
pub const HOOK_OUTPUT_CAP_CHARS: usize = 10_000;

/// How many bytes of a hook's stdout (and, apart, stderr) are read by default: 1 MiB. The
/// rest is drained and dropped, so a hook printing gigabytes never blocks.
pub const DEFAULT_HOOK_OUTPUT_BYTES: usize = 1024 * 1024;

/// The longest a `SessionEnd` hook may run, whatever its configured timeout.
const SESSION_END_MAX: Duration = Duration::from_secs(60);

/// Runs configured hooks. Cheap to share: wrap it in an `Arc` and call it from any task.
///
/// ```
/// use toolgate_core::CancellationToken;
/// use toolgate_hooks::{CommonInput, HookBehavior, HookRunner, HookSource, HooksConfig, PreToolUseInput};
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let project = tempfile::tempdir().unwrap();
/// let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
///     "type": "command",
///     "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\"}}'"
/// }]}]}});
/// let config = HooksConfig::builder().add(HookSource::project("/repo/.claude/settings.json"), &settings).build();
/// let runner = HookRunner::new(config, project.path());
/// let input = PreToolUseInput {
///     common: CommonInput::new("s1", "/t.jsonl", project.path().to_str().unwrap()),
///     tool_name: "Bash".into(),
///     tool_input: serde_json::json!({"command": "npm publish"}),
///     tool_use_id: "toolu_01".into(),
/// };
/// let outcome = runner.pre_tool_use(&input, &CancellationToken::new()).await;
/// assert_eq!(outcome.decision.unwrap().behavior, HookBehavior::Ask);
/// # });
/// ```
#[derive(Debug)]
pub struct HookRunner {
    config: HooksConfig,
    project_dir: PathBuf,
    store: Option<Arc<ResultStore>>,
    env: Vec<(OsString, OsString)>,
    output_bytes: usize,
    kill_grace: Duration,
    http: http::HttpClient,
    counter: AtomicU64,
    /// How agent hooks run a subagent.
    agent: Option<Arc<dyn crate::HookAgent>>,
    /// How `mcp_tool` hooks reach the host's MCP servers.
    mcp: Option<Arc<dyn crate::McpToolCaller>>,
    /// The host's tools, for `if` rules to see every target a call names.
    tools: Option<Arc<dyn HookTools>>,
    /// Where prompt hooks ask their model.
    prompts: crate::prompt::PromptAsker,
    /// Background (`async`) command hooks that ended and were not yet taken.
    finished: Arc<Mutex<Vec<BackgroundResult>>>,
}

/// The host's tools by name, so a hook's `if` rule sees every target a call names as the
/// permission engine does (each file of a patch), not only its `file_path`.
///
/// ```
/// use std::sync::Arc;
/// use toolgate_core::{DynTool, ToolPool};
/// use toolgate_hooks::HookTools;
///
/// #[derive(Debug)]
/// struct Pool(Arc<ToolPool>);
/// impl HookTools for Pool {
///     fn tool(&self, name: &str) -> Option<DynTool> {
///         self.0.get(name).cloned()
///     }
/// }
/// ```
pub trait HookTools: Send + Sync + std::fmt::Debug {
    /// The tool called `name`, if the host has it.
    fn tool(&self, name: &str) -> Option<toolgate_core::DynTool>;
}

/// A background (`async`) command hook that ended: what it printed and how it exited.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackgroundResult {
    /// The hook as configured (its command), and the event it ran for.
    pub hook: String,
    /// `asyncRewake` and exit code 2: the model should be woken with `stderr`.
    pub rewake: bool,
    /// Its exit code, if it exited.
    pub exit_code: Option<i32>,
    /// Its stdout (capped as any hook's).
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
}

/// What the runner needs to know about one firing of an event.
struct Call<'a> {
    event: HookEvent,
    matcher_value: Option<&'a str>,
    tool: Option<(&'a str, &'a Value)>,
    cwd: &'a str,
    effort: Option<&'a str>,
    /// Names saved output files (the tool-use id, when there is one).
    label: &'a str,
}

impl<'a> Call<'a> {
    /// A tool event: matched on the tool's name, `if` rules checked against its input.
    fn tool(event: HookEvent, common: &'a crate::CommonInput, name: &'a str, input: &'a Value, label: &'a str) -> Self {
        Self {
            event,
            matcher_value: Some(name),
            tool: Some((name, input)),
            cwd: &common.cwd,
            effort: common.effort.as_ref().map(|e| e.level.as_str()),
            label,
        }
    }
}

/// The handlers that ran for an event and what selecting them found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawRun {
    /// One result per handler that ran, in configuration order.
    pub results: Vec<HandlerResult>,
    /// Problems found while selecting handlers (unparsable `if` rules).
    pub diagnostics: Vec<Diagnostic>,
}

impl HookRunner {
    /// A runner for `config`, running command hooks in `project_dir` (also exported as
    /// `CLAUDE_PROJECT_DIR` and `TOOLGATE_PROJECT_DIR`). Defaults: no result store (long
    /// output is cut at [`HOOK_OUTPUT_CAP_CHARS`] with a note instead of being saved),
    /// [`DEFAULT_HOOK_OUTPUT_BYTES`] per stream, the process helper's kill grace.
    pub fn new(config: HooksConfig, project_dir: impl Into<PathBuf>) -> Self {
        Self {
            config,
            project_dir: project_dir.into(),
            store: None,
            env: Vec::new(),
            output_bytes: DEFAULT_HOOK_OUTPUT_BYTES,
            kill_grace: toolgate_core::process::DEFAULT_KILL_GRACE,
            http: http::HttpClient::default(),
            finished: Arc::default(),
            prompts: crate::prompt::PromptAsker::default(),
            mcp: None,
            tools: None,
            agent: None,
            counter: AtomicU64::new(0),
        }
    }

    /// Saves hook output strings over [`HOOK_OUTPUT_CAP_CHARS`] in `store`.
    #[must_use]
    pub fn with_result_store(mut self, store: Arc<ResultStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Adds a variable to every command hook's environment (`CLAUDE_ENV_FILE`,
    /// `CLAUDE_CODE_REMOTE` …).
    #[must_use]
    pub fn with_env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// How many bytes of each hook's stdout and stderr are kept.
    #[must_use]
    pub fn with_output_bytes(mut self, bytes: usize) -> Self {
        self.output_bytes = bytes;
        self
    }

    /// The model prompt hooks ask (default: from `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` and
    /// `TOOLGATE_CLASSIFIER_MODEL`, as the LLM classifier's; `None`: no model, so prompt hooks
    /// report, once, that they did not run).
    #[cfg(feature = "http")]
    #[must_use]
    pub fn with_model(mut self, model: Option<toolgate_permissions::LlmClassifierConfig>) -> Self {
        self.prompts = crate::prompt::PromptAsker::with(model);
        self
    }

    /// How agent hooks run a subagent (without one they report that they did not run).
    #[must_use]
    pub fn with_agent(mut self, agent: Arc<dyn crate::HookAgent>) -> Self {
        self.agent = Some(agent);
        self
    }

    /// How `mcp_tool` hooks call the host's MCP servers' tools (without one they report that
    /// they did not run).
    #[must_use]
    pub fn with_mcp(mut self, caller: Arc<dyn crate::McpToolCaller>) -> Self {
        self.mcp = Some(caller);
        self
    }

    /// The host's tools, for `if` rules (without them a rule reads the common input fields:
    /// `file_path`, `url`, `subagent_type`, ...).
    #[must_use]
    pub fn with_tools(mut self, tools: Arc<dyn HookTools>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Time between `SIGTERM` and `SIGKILL` for a hook past its timeout.
    #[must_use]
    pub fn with_kill_grace(mut self, grace: Duration) -> Self {
        self.kill_grace = grace;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &HooksConfig {
        &self.config
    }

    /// The project directory hooks run in.
    pub fn project_dir(&self) -> &Path {
        &self.project_dir
    }

    /// Whether any hook is configured for `event` (callers can skip building the input).
    pub fn has_hooks(&self, event: HookEvent) -> bool {
        !self.config.groups(event).is_empty()
    }

    /// Runs `PreToolUse` hooks for a call; see [`PreToolUseOutcome`] for how their
    /// answers combine.
    pub async fn pre_tool_use(&self, input: &PreToolUseInput, cancel: &CancellationToken) -> PreToolUseOutcome {
        let call =
            Call::tool(HookEvent::PreToolUse, &input.common, &input.tool_name, &input.tool_input, &input.tool_use_id);
        let run = self.execute(&call, input, cancel).await;
        self.combine_pre_tool_use(&call, run)
    }

    /// Runs `PermissionRequest` hooks; see [`PermissionRequestOutcome`].
    pub async fn permission_request(
        &self,
        input: &PermissionRequestInput,
        cancel: &CancellationToken,
    ) -> PermissionRequestOutcome {
        let call =
            Call::tool(HookEvent::PermissionRequest, &input.common, &input.tool_name, &input.tool_input, "permission");
        let run = self.execute(&call, input, cancel).await;
        self.combine_permission_request(&call, run)
    }

    /// Runs `PostToolUse` hooks; see [`PostToolUseOutcome`].
    pub async fn post_tool_use(&self, input: &PostToolUseInput, cancel: &CancellationToken) -> PostToolUseOutcome {
        let call =
            Call::tool(HookEvent::PostToolUse, &input.common, &input.tool_name, &input.tool_input, &input.tool_use_id);
        let run = self.execute(&call, input, cancel).await;
        self.combine_post_tool_use::<PostToolUseSpecificOutput>(&call, run, |s| {
            s.updated_tool_output.clone().or_else(|| s.updated_mcp_tool_output.clone())
        })
    }

    /// Runs `PostToolUseFailure` hooks; see [`PostToolUseOutcome`] (no output rewrite).
    pub async fn post_tool_use_failure(
        &self,
        input: &PostToolUseFailureInput,
        cancel: &CancellationToken,
    ) -> PostToolUseOutcome {
        let call = Call::tool(
            HookEvent::PostToolUseFailure,
            &input.common,
            &input.tool_name,
            &input.tool_input,
            &input.tool_use_id,
        );
        let run = self.execute(&call, input, cancel).await;
        self.combine_post_tool_use::<ContextSpecificOutput>(&call, run, |_| None)
    }

    /// Runs `PostToolBatch` hooks; a block stops the loop before the next model call.
    pub async fn post_tool_batch(&self, input: &PostToolBatchInput, cancel: &CancellationToken) -> EventOutcome {
        let call = self.plain_call(HookEvent::PostToolBatch, None, &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_event::<ContextSpecificOutput>(&call, run)
    }

    /// Runs `UserPromptSubmit` hooks; a block rejects the prompt, plain stdout is context.
    pub async fn user_prompt_submit(&self, input: &UserPromptSubmitInput, cancel: &CancellationToken) -> EventOutcome {
        let call = self.plain_call(HookEvent::UserPromptSubmit, None, &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_event::<UserPromptSubmitSpecificOutput>(&call, run)
    }

    /// Runs `Stop` hooks; a block keeps the agent going with the reason.
    pub async fn stop(&self, input: &StopInput, cancel: &CancellationToken) -> EventOutcome {
        let call = self.plain_call(HookEvent::Stop, None, &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_event::<ContextSpecificOutput>(&call, run)
    }

    /// Runs `SubagentStop` hooks (matched on the agent type).
    pub async fn subagent_stop(&self, input: &SubagentStopInput, cancel: &CancellationToken) -> EventOutcome {
        let agent_type = input.common.agent_type.as_deref().unwrap_or("");
        let call = self.plain_call(HookEvent::SubagentStop, Some(agent_type), &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_event::<ContextSpecificOutput>(&call, run)
    }

    /// Runs `SessionStart` hooks (matched on the source); plain stdout is context.
    pub async fn session_start(&self, input: &SessionStartInput, cancel: &CancellationToken) -> SessionStartOutcome {
        let call = self.plain_call(HookEvent::SessionStart, Some(&input.source), &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_session_start(&call, run)
    }

    /// Runs `SessionEnd` hooks (matched on the reason); they cannot block.
    pub async fn session_end(&self, input: &SessionEndInput, cancel: &CancellationToken) -> EventOutcome {
        let call = self.plain_call(HookEvent::SessionEnd, Some(&input.reason), &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_event::<NoSpecificOutput>(&call, run)
    }

    /// Runs `Notification` hooks (matched on the notification type); they cannot block.
    pub async fn notification(&self, input: &NotificationInput, cancel: &CancellationToken) -> EventOutcome {
        let call = self.plain_call(HookEvent::Notification, Some(&input.notification_type), &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_event::<NoSpecificOutput>(&call, run)
    }

    /// Runs `PreCompact` hooks (matched on the trigger); a block skips compaction.
    pub async fn pre_compact(&self, input: &PreCompactInput, cancel: &CancellationToken) -> EventOutcome {
        let call = self.plain_call(HookEvent::PreCompact, Some(&input.trigger), &input.common);
        let run = self.execute(&call, input, cancel).await;
        self.combine_event::<NoSpecificOutput>(&call, run)
    }

    /// Runs the hooks of any typed event (what the CLI's `hooks run` does).
    pub async fn run(&self, input: &HookInput, cancel: &CancellationToken) -> AnyOutcome {
        match input {
            HookInput::PreToolUse(i) => AnyOutcome::PreToolUse(self.pre_tool_use(i, cancel).await),
            HookInput::PermissionRequest(i) => AnyOutcome::PermissionRequest(self.permission_request(i, cancel).await),
            HookInput::PostToolUse(i) => AnyOutcome::PostToolUse(self.post_tool_use(i, cancel).await),
            HookInput::PostToolUseFailure(i) => AnyOutcome::PostToolUse(self.post_tool_use_failure(i, cancel).await),
            HookInput::PostToolBatch(i) => AnyOutcome::Event(self.post_tool_batch(i, cancel).await),
            HookInput::UserPromptSubmit(i) => AnyOutcome::Event(self.user_prompt_submit(i, cancel).await),
            HookInput::Stop(i) => AnyOutcome::Event(self.stop(i, cancel).await),
            HookInput::SubagentStop(i) => AnyOutcome::Event(self.subagent_stop(i, cancel).await),
            HookInput::SessionStart(i) => AnyOutcome::SessionStart(self.session_start(i, cancel).await),
            HookInput::SessionEnd(i) => AnyOutcome::Event(self.session_end(i, cancel).await),
            HookInput::Notification(i) => AnyOutcome::Event(self.notification(i, cancel).await),
            HookInput::PreCompact(i) => AnyOutcome::Event(self.pre_compact(i, cancel).await),
        }
    }

    /// Runs the hooks of any event, typed or not, with `input` as the JSON they receive
    /// (`hook_event_name` is set to `event`), and returns each handler's raw result. For
    /// tool events, `input`'s `tool_name` and `tool_input` feed the `if` conditions.
    pub async fn run_raw(
        &self,
        event: HookEvent,
        matcher_value: Option<&str>,
        input: &Value,
        cancel: &CancellationToken,
    ) -> RawRun {
        let tool_name = input.get("tool_name").and_then(Value::as_str);
        let tool_input = input.get("tool_input");
        let call = Call {
            event,
            matcher_value,
            tool: tool_name.zip(tool_input),
            cwd: input.get("cwd").and_then(Value::as_str).unwrap_or(""),
            effort: input.pointer("/effort/level").and_then(Value::as_str),
            label: input.get("tool_use_id").and_then(Value::as_str).unwrap_or("raw"),
        };
        self.execute(&call, input, cancel).await
    }

    fn plain_call<'a>(
        &self,
        event: HookEvent,
        matcher_value: Option<&'a str>,
        common: &'a crate::CommonInput,
    ) -> Call<'a> {
        Call {
            event,
            matcher_value,
            tool: None,
            cwd: &common.cwd,
            effort: common.effort.as_ref().map(|e| e.level.as_str()),
            label: event.as_str(),
        }
    }

    /// Steps 1–4: select, dedupe, check `if`, run concurrently.
    async fn execute<T: Serialize>(&self, call: &Call<'_>, input: &T, cancel: &CancellationToken) -> RawRun {
        let mut diagnostics = Vec::new();
        let handlers = self.select(call, &mut diagnostics);
        if handlers.is_empty() {
            return RawRun { results: Vec::new(), diagnostics };
        }
        let body = match event_json(call.event, input) {
            Ok(body) => body,
            Err(e) => {
                diagnostics.push(Diagnostic::new(
                    None,
                    call.event.as_str(),
                    format!("could not encode the hook input as JSON ({e}); no hook ran"),
                ));
                return RawRun { results: Vec::new(), diagnostics };
            }
        };
        let runs = handlers.into_iter().map(|handler| self.run_handler(call, handler, &body, cancel)).collect();
        RawRun { results: join_all(runs).await, diagnostics }
    }

    fn select<'c>(&'c self, call: &Call<'_>, diagnostics: &mut Vec<Diagnostic>) -> Vec<&'c HookHandler> {
        let mut seen = HashSet::new();
        let mut selected = Vec::new();
        let value = call.matcher_value.unwrap_or("");
        // The call `if` rules are tested against, made for the first rule.
        let tool = call.tool.and_then(|(name, _)| self.tools.as_ref().and_then(|t| t.tool(name)));
        let mut condition = None;
        for group in self.config.groups(call.event) {
            if call.event.supports_matcher() && !group.matcher.matches(value) {
                continue;
            }
            for handler in &group.handlers {
                if !seen.insert(handler.dedup_key()) {
                    continue;
                }
                if let Some(rule) = &handler.condition {
                    let Some((tool_name, tool_input)) = call.tool else { continue };
                    let condition = condition.get_or_insert_with(|| {
                        let cwd = if call.cwd.is_empty() { self.project_dir.as_path() } else { Path::new(call.cwd) };
                        toolgate_permissions::CallCondition::new(tool.as_deref(), tool_name, tool_input, cwd)
                    });
                    match condition.matches(rule) {
                        Some(true) => {}
                        Some(false) => continue,
                        None => diagnostics.push(Diagnostic::new(
                            Some(&handler.source.path),
                            format!("{}.if", handler.location),
                            format!("the rule '{rule}' could not be parsed, so the hook runs for every call"),
                        )),
                    }
                }
                selected.push(handler);
            }
        }
        selected
    }

    async fn run_handler(
        &self,
        call: &Call<'_>,
        handler: &HookHandler,
        body: &[u8],
        cancel: &CancellationToken,
    ) -> HandlerResult {
        let started = Instant::now();
        let timeout = match (call.event, handler.timeout) {
            (HookEvent::SessionEnd, Some(t)) => t.min(SESSION_END_MAX),
            (_, Some(t)) => t,
            (event, None) => handler.kind.default_timeout(event),
        };
        let response = match &handler.kind {
            HandlerKind::Command(command) => self.run_command(call, handler, command, body, timeout, cancel).await,
            HandlerKind::Http(hook) => self.http.post(hook, body.to_vec(), timeout, self.output_bytes, cancel).await,
            HandlerKind::Prompt(hook) => self.prompts.ask(hook, body, timeout, cancel).await,
            HandlerKind::McpTool(hook) => crate::mcp_tool::run(self.mcp.as_deref(), hook, body, timeout, cancel).await,
            HandlerKind::Agent(hook) => {
                crate::prompt::ask_agent(self.agent.as_deref(), hook, body, timeout, cancel).await
            }
        };
        HandlerResult { hook: hook_ref(call.event, handler), response, duration: started.elapsed() }
    }

    async fn run_command(
        &self,
        call: &Call<'_>,
        handler: &HookHandler,
        command: &CommandHook,
        body: &[u8],
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> HookResponse {
        let project = self.project_dir.to_string_lossy().into_owned();
        let (plugin_root, plugin_data) = match &handler.source.kind {
            SourceKind::Plugin { root, data, .. } => {
                (Some(root.to_string_lossy().into_owned()), data.as_ref().map(|d| d.to_string_lossy().into_owned()))
            }
            _ => (None, None),
        };
        let placeholders = |text: &str| {
            let mut text = text.replace("${CLAUDE_PROJECT_DIR}", &project);
            if let Some(root) = &plugin_root {
                text = text.replace("${CLAUDE_PLUGIN_ROOT}", root);
            }
            if let Some(data) = &plugin_data {
                text = text.replace("${CLAUDE_PLUGIN_DATA}", data);
            }
            text
        };
        let mut spec = match (&command.args, command.shell) {
            (Some(args), _) => ProcessSpec::exec(placeholders(&command.command), args.iter().map(|a| placeholders(a))),
            (None, Shell::Bash) => ProcessSpec::shell_with("bash", command.command.clone()),
            (None, _) => ProcessSpec::shell(command.command.clone()),
        };
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("OTEL_") {
                spec = spec.env_remove(key);
            }
        }
        spec = spec
            .cwd(&self.project_dir)
            .env("CLAUDE_PROJECT_DIR", &project)
            .env("TOOLGATE_PROJECT_DIR", &project)
            .envs(self.env.iter().cloned())
            .stdin(body.to_vec())
            .timeout(timeout)
            .output_cap(self.output_bytes)
            .kill_grace(self.kill_grace);
        if let Some(root) = &plugin_root {
            spec = spec.env("CLAUDE_PLUGIN_ROOT", root);
        }
        if let Some(data) = &plugin_data {
            spec = spec.env("CLAUDE_PLUGIN_DATA", data);
        }
        if let Some(level) = call.effort {
            spec = spec.env("CLAUDE_EFFORT", level);
        }
        if let Some(background) = command.background {
            // Never delays the call, nor ends with it: reported by `take_background_results`.
            let finished = self.finished.clone();
            let hook = format!("{} ({})", handler.display(), call.event);
            tokio::spawn(async move {
                let (exit_code, stdout, stderr) = match spec.run(&CancellationToken::new()).await {
                    Ok(outcome) => (
                        match outcome.status {
                            ProcessStatus::Exited(code) => Some(code),
                            _ => None,
                        },
                        outcome.stdout.text().into_owned(),
                        outcome.stderr.text().into_owned(),
                    ),
                    Err(e) => (None, String::new(), e.to_string()),
                };
                let rewake = background == crate::Background::Rewake && exit_code == Some(2);
                let result = BackgroundResult { hook, rewake, exit_code, stdout, stderr };
                finished.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(result);
            });
            return HookResponse::Success { stdout: String::new(), truncated: false };
        }
        let outcome = match spec.run(cancel).await {
            Ok(outcome) => outcome,
            Err(e) => return HookResponse::Error { message: e.to_string() },
        };
        let stderr = outcome.stderr.text().into_owned();
        match outcome.status {
            ProcessStatus::Exited(0) => HookResponse::Success {
                stdout: outcome.stdout.text().into_owned(),
                truncated: outcome.stdout.truncated,
            },
            ProcessStatus::Exited(2) => HookResponse::Block { stderr, stdout: outcome.stdout.text().into_owned() },
            ProcessStatus::TimedOut => HookResponse::TimedOut { after: timeout },
            ProcessStatus::Cancelled => HookResponse::Cancelled,
            status => HookResponse::Error { message: with_first_line(status.to_string(), &stderr) },
        }
    }

    /// The background (`async`) hooks that ended since the last call, oldest first; each is
    /// returned once. A host adds them to what the model reads next.
    pub fn take_background_results(&self) -> Vec<BackgroundResult> {
        std::mem::take(&mut *self.finished.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// `text` as shown to the model or user: at most [`HOOK_OUTPUT_CAP_CHARS`] chars,
    /// the full text saved when a store is configured.
    fn cap(&self, event: HookEvent, label: &str, text: &str) -> String {
        let total = text.chars().count();
        if total <= HOOK_OUTPUT_CAP_CHARS {
            return text.to_owned();
        }
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let id = format!("hook-{event}-{label}-{n}");
        let error = match &self.store {
            Some(store) => match store.persist_with_preview(&id, text) {
                Ok(block) => return block,
                Err(e) => format!("could not save the full output: {e}"),
            },
            None => "no result folder to save the full output in".to_owned(),
        };
        let cut = text.char_indices().nth(HOOK_OUTPUT_CAP_CHARS).map_or(text.len(), |(i, _)| i);
        format!("{}\n\n[hook output truncated: {total} chars; {error}]", &text[..cut])
    }

    fn combine_pre_tool_use(&self, call: &Call<'_>, run: RawRun) -> PreToolUseOutcome {
        struct Entry {
            behavior: Option<HookBehavior>,
            reason: Option<String>,
            input: Option<Map<String, Value>>,
            hook: HookRef,
        }
        let mut c = Collector::new(self, call, run.diagnostics);
        let mut entries = Vec::new();
        let mut contexts = Vec::new();
        let mut blocks = Vec::new();
        for result in &run.results {
            match c.reply::<PreToolUseSpecificOutput>(result) {
                Reply::Json(out) => {
                    let specific = out.hook_specific_output.unwrap_or_default();
                    let legacy = match out.decision {
                        Some(TopLevelDecision::Approve) => Some(HookBehavior::Allow),
                        Some(TopLevelDecision::Block) => Some(HookBehavior::Deny),
                        None => None,
                    };
                    let behavior = specific.permission_decision.or(legacy);
                    let reason = specific.permission_decision_reason.or(out.reason).map(|r| c.cap(&r));
                    if let Some(text) = &specific.additional_context {
                        contexts.push(c.message(&result.hook, text));
                    }
                    entries.push(Entry { behavior, reason, input: specific.updated_input, hook: result.hook.clone() });
                }
                Reply::Text(text) if result.hook.http => contexts.push(c.message(&result.hook, &text)),
                Reply::Text(_) | Reply::Nothing => {}
                Reply::Block(reason) => blocks.push((result.hook.clone(), reason)),
            }
        }
        let winner = entries.iter().filter_map(|e| e.behavior).reduce(HookBehavior::strictest);
        let decision = winner.and_then(|w| {
            entries.iter().find(|e| e.behavior == Some(w)).map(|e| HookDecision {
                behavior: w,
                reason: e.reason.clone(),
                hook: e.hook.clone(),
            })
        });
        let updated_input = match winner {
            Some(HookBehavior::Deny | HookBehavior::Defer) => None,
            _ => {
                let mut candidates =
                    entries.iter().filter(|e| e.input.is_some() && (e.behavior.is_none() || e.behavior == winner));
                let first = candidates.next();
                if let (Some(used), Some(other)) = (first, candidates.next()) {
                    c.diagnostics.push(Diagnostic::new(
                        Some(&other.hook.source.path),
                        other.hook.location.clone(),
                        format!("several hooks rewrote the input; the one from {} is used", used.hook),
                    ));
                }
                first.and_then(|e| e.input.clone())
            }
        };
        if winner == Some(HookBehavior::Defer) {
            contexts.clear();
        }
        let base = c.finish();
        PreToolUseOutcome {
            decision,
            updated_input,
            additional_context: contexts,
            blocked: block_of(blocks),
            stop: base.stop,
            system_messages: base.system_messages,
            diagnostics: base.diagnostics,
            errors: base.errors,
            runs: base.runs,
        }
    }

    fn combine_permission_request(&self, call: &Call<'_>, run: RawRun) -> PermissionRequestOutcome {
        let mut c = Collector::new(self, call, run.diagnostics);
        let mut allows = Vec::new();
        let mut denies: Vec<(HookRef, Option<String>, bool)> = Vec::new();
        for result in &run.results {
            match c.reply::<PermissionRequestSpecificOutput>(result) {
                Reply::Json(out) => {
                    let Some(decision) = out.hook_specific_output.and_then(|s| s.decision) else { continue };
                    match decision.behavior {
                        PermissionRequestBehavior::Allow => allows.push((result.hook.clone(), decision)),
                        PermissionRequestBehavior::Deny => denies.push((
                            result.hook.clone(),
                            decision.message.map(|m| c.cap(&m)),
                            decision.interrupt.unwrap_or(false),
                        )),
                    }
                }
                Reply::Block(reason) => denies.push((result.hook.clone(), Some(reason), false)),
                Reply::Text(_) | Reply::Nothing => {}
            }
        }
        let verdict = if let Some((hook, _, _)) = denies.first() {
            Some(PermissionVerdict {
                behavior: PermissionRequestBehavior::Deny,
                updated_input: None,
                updated_permissions: Vec::new(),
                message: denies.iter().find_map(|(_, m, _)| m.clone()),
                interrupt: denies.iter().any(|(_, _, i)| *i),
                hook: hook.clone(),
            })
        } else {
            allows.first().map(|(hook, _)| PermissionVerdict {
                behavior: PermissionRequestBehavior::Allow,
                updated_input: allows.iter().find_map(|(_, d)| d.updated_input.clone()),
                updated_permissions: allows
                    .iter()
                    .flat_map(|(_, d)| d.updated_permissions.clone().unwrap_or_default())
                    .collect(),
                message: None,
                interrupt: false,
                hook: hook.clone(),
            })
        };
        let base = c.finish();
        PermissionRequestOutcome {
            verdict,
            stop: base.stop,
            system_messages: base.system_messages,
            diagnostics: base.diagnostics,
            errors: base.errors,
            runs: base.runs,
        }
    }

    fn combine_post_tool_use<S>(
        &self,
        call: &Call<'_>,
        run: RawRun,
        updated_output: impl Fn(&S) -> Option<Value>,
    ) -> PostToolUseOutcome
    where
        S: DeserializeOwned + SpecificOutput,
    {
        let mut c = Collector::new(self, call, run.diagnostics);
        let mut contexts = Vec::new();
        let mut blocks = Vec::new();
        let mut updated: Option<(Value, HookRef)> = None;
        for result in &run.results {
            match c.reply::<S>(result) {
                Reply::Json(out) => {
                    if out.decision == Some(TopLevelDecision::Block) {
                        let reason = out.reason.as_deref().map_or_else(|| "blocked by hook".to_owned(), |r| c.cap(r));
                        blocks.push((result.hook.clone(), reason));
                    }
                    if let Some(specific) = &out.hook_specific_output {
                        if let Some(text) = specific.additional_context() {
                            contexts.push(c.message(&result.hook, text));
                        }
                        if let Some(value) = updated_output(specific) {
                            match &updated {
                                None => updated = Some((value, result.hook.clone())),
                                Some((_, used)) => c.diagnostics.push(Diagnostic::new(
                                    Some(&result.hook.source.path),
                                    result.hook.location.clone(),
                                    format!("several hooks replaced the tool output; the one from {used} is used"),
                                )),
                            }
                        }
                    }
                }
                Reply::Text(text) if result.hook.http => contexts.push(c.message(&result.hook, &text)),
                Reply::Text(_) | Reply::Nothing => {}
                Reply::Block(reason) => blocks.push((result.hook.clone(), reason)),
            }
        }
        let base = c.finish();
        PostToolUseOutcome {
            blocked: block_of(blocks),
            additional_context: contexts,
            updated_tool_output: updated,
            stop: base.stop,
            system_messages: base.system_messages,
            diagnostics: base.diagnostics,
            errors: base.errors,
            runs: base.runs,
        }
    }

    fn combine_event<S>(&self, call: &Call<'_>, run: RawRun) -> EventOutcome
    where
        S: DeserializeOwned + SpecificOutput,
    {
        let mut c = Collector::new(self, call, run.diagnostics);
        let can_block = call.event.can_block();
        let mut contexts = Vec::new();
        let mut blocks = Vec::new();
        let mut title = None;
        for result in &run.results {
            match c.reply::<S>(result) {
                Reply::Json(out) => {
                    if can_block && out.decision == Some(TopLevelDecision::Block) {
                        let reason = out.reason.as_deref().map_or_else(|| "blocked by hook".to_owned(), |r| c.cap(r));
                        blocks.push((result.hook.clone(), reason));
                    }
                    if let Some(specific) = &out.hook_specific_output {
                        if let Some(text) = specific.additional_context() {
                            contexts.push(c.message(&result.hook, text));
                        }
                        if title.is_none() {
                            title = specific.session_title().map(str::to_owned);
                        }
                    }
                }
                Reply::Text(text) if result.hook.http || call.event.plain_stdout_is_context() => {
                    contexts.push(c.message(&result.hook, &text));
                }
                Reply::Text(_) | Reply::Nothing => {}
                Reply::Block(reason) if can_block => blocks.push((result.hook.clone(), reason)),
                Reply::Block(reason) => c.error(&result.hook, format!("exit code 2: {reason}")),
            }
        }
        let base = c.finish();
        EventOutcome {
            blocked: block_of(blocks),
            additional_context: contexts,
            session_title: title,
            stop: base.stop,
            system_messages: base.system_messages,
            diagnostics: base.diagnostics,
            errors: base.errors,
            runs: base.runs,
        }
    }

    fn combine_session_start(&self, call: &Call<'_>, run: RawRun) -> SessionStartOutcome {
        let mut c = Collector::new(self, call, run.diagnostics);
        let mut outcome = SessionStartOutcome::default();
        for result in &run.results {
            match c.reply::<SessionStartSpecificOutput>(result) {
                Reply::Json(out) => {
                    let Some(specific) = out.hook_specific_output else { continue };
                    if let Some(text) = &specific.additional_context {
                        outcome.additional_context.push(c.message(&result.hook, text));
                    }
                    if outcome.initial_user_message.is_none() {
                        outcome.initial_user_message = specific.initial_user_message;
                    }
                    if outcome.session_title.is_none() {
                        outcome.session_title = specific.session_title;
                    }
                    outcome.watch_paths.extend(specific.watch_paths.unwrap_or_default());
                    outcome.reload_skills |= specific.reload_skills.unwrap_or(false);
                }
                Reply::Text(text) => outcome.additional_context.push(c.message(&result.hook, &text)),
                Reply::Nothing => {}
                Reply::Block(reason) => c.error(&result.hook, format!("exit code 2: {reason}")),
            }
        }
        let base = c.finish();
        outcome.stop = base.stop;
        outcome.system_messages = base.system_messages;
        outcome.diagnostics = base.diagnostics;
        outcome.errors = base.errors;
        outcome.runs = base.runs;
        outcome
    }
}

/// What one handler said, once read.
enum Reply<S> {
    /// A valid JSON object (universal fields already applied).
    Json(HookOutput<S>),
    /// Plain stdout (trimmed, capped, not empty).
    Text(String),
    /// Exit code 2, with its reason (capped).
    Block(String),
    /// Nothing to use (empty stdout, a failure already recorded, bad JSON reported).
    Nothing,
}

/// The report every outcome carries.
struct Base {
    stop: Option<HookStop>,
    system_messages: Vec<HookMessage>,
    diagnostics: Vec<Diagnostic>,
    errors: Vec<HookError>,
    runs: Vec<HandlerReport>,
}

/// Reads handler results one by one, filling the common report.
struct Collector<'r> {
    runner: &'r HookRunner,
    event: HookEvent,
    label: String,
    stop: Option<HookStop>,
    system_messages: Vec<HookMessage>,
    diagnostics: Vec<Diagnostic>,
    errors: Vec<HookError>,
    runs: Vec<HandlerReport>,
}

impl<'r> Collector<'r> {
    fn new(runner: &'r HookRunner, call: &Call<'_>, diagnostics: Vec<Diagnostic>) -> Self {
        Self {
            runner,
            event: call.event,
            label: call.label.to_owned(),
            stop: None,
            system_messages: Vec::new(),
            diagnostics,
            errors: Vec::new(),
            runs: Vec::new(),
        }
    }

    fn cap(&self, text: &str) -> String {
        self.runner.cap(self.event, &self.label, text)
    }

    fn message(&self, hook: &HookRef, text: &str) -> HookMessage {
        HookMessage { hook: hook.clone(), text: self.cap(text) }
    }

    fn error(&mut self, hook: &HookRef, message: String) {
        self.errors.push(HookError { hook: hook.clone(), message });
    }

    fn diagnose(&mut self, hook: &HookRef, message: String) {
        self.diagnostics.push(Diagnostic::new(Some(&hook.source.path), format!("{} {hook}", hook.location), message));
    }

    /// Step 5 for one result.
    fn reply<S: DeserializeOwned + SpecificOutput>(&mut self, result: &HandlerResult) -> Reply<S> {
        self.runs.push(result.report());
        let hook = &result.hook;
        match &result.response {
            HookResponse::Success { stdout, truncated } => {
                let text = stdout.trim();
                if !text.starts_with('{') {
                    return if text.is_empty() { Reply::Nothing } else { Reply::Text(self.cap(text)) };
                }
                if *truncated {
                    self.diagnose(
                        hook,
                        format!(
                            "printed more than {} bytes of JSON; its output was cut and is ignored",
                            self.runner.output_bytes
                        ),
                    );
                    return Reply::Nothing;
                }
                match self.parse_json::<S>(text) {
                    Ok(out) => {
                        self.universal(hook, &out);
                        Reply::Json(out)
                    }
                    Err(message) => {
                        self.diagnose(hook, message);
                        Reply::Nothing
                    }
                }
            }
            HookResponse::Block { stderr, stdout } => {
                let from_json = serde_json::from_str::<Value>(stdout.trim()).ok().and_then(|v| {
                    v.get("reason")
                        .or_else(|| v.pointer("/hookSpecificOutput/permissionDecisionReason"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                });
                let reason = from_json.filter(|r| !r.trim().is_empty()).unwrap_or_else(|| stderr.trim().to_owned());
                let reason = if reason.is_empty() { "blocked by hook (no reason given)".to_owned() } else { reason };
                Reply::Block(self.cap(&reason))
            }
            HookResponse::Error { message } => {
                self.error(hook, message.clone());
                Reply::Nothing
            }
            HookResponse::TimedOut { after } => {
                self.error(
                    hook,
                    format!("timed out after {}; it was stopped and its output discarded", seconds(*after)),
                );
                Reply::Nothing
            }
            HookResponse::Cancelled => {
                self.error(hook, "cancelled".to_owned());
                Reply::Nothing
            }
        }
    }

    fn parse_json<S: DeserializeOwned>(&self, text: &str) -> Result<HookOutput<S>, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("printed invalid JSON ({e}); its output is ignored"))?;
        let value = match schema::compiled_output_schema(self.event) {
            Some(schema) => schema
                .validate(&value)
                .map_err(|e| {
                    format!(
                        "printed JSON that does not match the {} output schema; its output is ignored:\n{}",
                        self.event,
                        e.message()
                    )
                })?
                .into_owned(),
            None => value,
        };
        serde_json::from_value(value)
            .map_err(|e| format!("printed JSON that could not be read ({e}); its output is ignored"))
    }

    fn universal<S>(&mut self, hook: &HookRef, out: &HookOutput<S>) {
        if out.continue_ == Some(false) && self.stop.is_none() {
            self.stop = Some(HookStop { reason: out.stop_reason.as_deref().map(|r| self.cap(r)), hook: hook.clone() });
        }
        if let Some(text) = &out.system_message {
            let message = self.message(hook, text);
            self.system_messages.push(message);
        }
    }

    fn finish(self) -> Base {
        Base {
            stop: self.stop,
            system_messages: self.system_messages,
            diagnostics: self.diagnostics,
            errors: self.errors,
            runs: self.runs,
        }
    }
}

fn hook_ref(event: HookEvent, handler: &HookHandler) -> HookRef {
    HookRef {
        event,
        name: handler.display(),
        source: Arc::clone(&handler.source),
        location: handler.location.clone(),
        http: matches!(handler.kind, HandlerKind::Http(_)),
    }
}

fn block_of(blocks: Vec<(HookRef, String)>) -> Option<HookBlock> {
    if blocks.is_empty() {
        return None;
    }
    let reason = blocks.iter().map(|(_, r)| r.as_str()).collect::<Vec<_>>().join("\n");
    Some(HookBlock { reason, parts: blocks.into_iter().map(|(hook, text)| HookMessage { hook, text }).collect() })
}

/// `status`, then `: <first non-empty line of stderr>` when there is one.
fn with_first_line(status: String, stderr: &str) -> String {
    match stderr.lines().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!("{status}: {line}"),
        None => status,
    }
}

fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 { format!("{}s", d.as_secs()) } else { format!("{:.1}s", d.as_secs_f64()) }
}

/// The input as hooks receive it: its fields plus `hook_event_name`.
fn event_json<T: Serialize>(event: HookEvent, input: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut value = serde_json::to_value(input)?;
    if let Value::Object(map) = &mut value {
        map.insert("hook_event_name".to_owned(), Value::String(event.as_str().to_owned()));
    }
    serde_json::to_vec(&value)
}

/// Polls every future on this task until all are done; outputs in input order.
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending { Poll::Pending } else { Poll::Ready(()) }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_stderr_line_is_kept() {
        assert_eq!(with_first_line("exit code 1".into(), "\n  boom  \nmore"), "exit code 1: boom");
        assert_eq!(with_first_line("exit code 1".into(), ""), "exit code 1");
    }

    #[test]
    fn the_event_name_is_added_to_the_input() {
        let input = UserPromptSubmitInput { common: crate::CommonInput::new("s", "/t", "/c"), prompt: "p".into() };
        let json: Value = serde_json::from_slice(&event_json(HookEvent::UserPromptSubmit, &input).unwrap()).unwrap();
        assert_eq!(json["hook_event_name"], "UserPromptSubmit");
        assert_eq!(json["prompt"], "p");
    }

    #[tokio::test]
    async fn join_all_keeps_order() {
        let futures = (0..5_u64)
            .map(|i| async move {
                tokio::time::sleep(Duration::from_millis(5 * (5 - i))).await;
                i
            })
            .collect();
        assert_eq!(join_all(futures).await, [0, 1, 2, 3, 4]);
    }

    fn assert_send<T: Send>(_: &T) {}
    fn assert_send_sync<T: Send + Sync>() {}

    /// Hosts run hooks from any task: the runner is shared and its futures are `Send`.
    #[test]
    fn the_runner_and_its_futures_can_cross_threads() {
        assert_send_sync::<HookRunner>();
        let runner = HookRunner::new(HooksConfig::default(), "/");
        let input = PreToolUseInput {
            common: crate::CommonInput::new("s", "/t", "/c"),
            tool_name: "Bash".into(),
            tool_input: Value::Null,
            tool_use_id: "t".into(),
        };
        let cancel = CancellationToken::new();
        assert_send(&runner.pre_tool_use(&input, &cancel));
        let raw = Value::Null;
        assert_send(&runner.run_raw(HookEvent::Setup, None, &raw, &cancel));
    }

    #[test]
    fn long_text_is_cut_without_a_store_and_saved_with_one() {
        let runner = HookRunner::new(HooksConfig::default(), "/");
        let long = "é".repeat(HOOK_OUTPUT_CAP_CHARS + 5);
        let cut = runner.cap(HookEvent::Stop, "x", &long);
        assert!(cut.starts_with(&"é".repeat(HOOK_OUTPUT_CAP_CHARS)));
        assert!(cut.ends_with("[hook output truncated: 10005 chars; no result folder to save the full output in]"));
        assert_eq!(runner.cap(HookEvent::Stop, "x", "short"), "short");

        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ResultStore::new(dir.path().join("tool-results")));
        let runner = HookRunner::new(HooksConfig::default(), "/").with_result_store(store);
        let saved = runner.cap(HookEvent::PreToolUse, "toolu_9", &long);
        assert!(saved.starts_with("<persisted-output>\n"), "{saved}");
        let file = dir.path().join("tool-results/hook-PreToolUse-toolu_9-0.txt");
        assert_eq!(std::fs::read_to_string(file).unwrap(), long);
    }
}
