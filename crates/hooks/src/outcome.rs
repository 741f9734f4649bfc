//! What the hooks of one event decided, as typed outcomes for the pipeline, the
//! permission engine and hosts.
//!
//! Every outcome says which hook said what ([`HookRef`]), and carries the same report:
//! `stop` (a hook returned `continue: false`; it wins over everything), `system_messages`
//! (for the user), `diagnostics` (malformed output, unparsable `if` rules), `errors`
//! (non-blocking failures: exit codes other than 0 and 2, timeouts, missing scripts) and
//! `runs` (one line per handler that ran).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use toolgate_core::DecisionReason;

use crate::{Diagnostic, HookBehavior, HookEvent, HookSource, PermissionRequestBehavior, PermissionUpdate};

/// Which handler an outcome item came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRef {
    /// The event it ran for.
    pub event: HookEvent,
    /// The command as written (exec form with its arguments) or the URL.
    pub name: String,
    /// Where it was configured.
    pub source: Arc<HookSource>,
    /// Its entry in that file (`hooks.PreToolUse[0].hooks[1]`).
    pub location: String,
    /// True for an http handler (its plain-text body is context on every event).
    pub http: bool,
}

impl HookRef {
    /// The decision reason for the permission engine: `DecisionReason::Hook` naming the
    /// command and its file.
    pub fn decision_reason(&self, reason: Option<String>) -> DecisionReason {
        DecisionReason::Hook { hook: format!("{} ({})", self.name, self.source), reason }
    }
}

impl fmt::Display for HookRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.name)
    }
}

/// A text a hook produced (context, a message), with the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookMessage {
    /// The hook.
    pub hook: HookRef,
    /// The text, at most 10,000 chars (longer text is saved to a file and replaced by a
    /// preview and its path).
    pub text: String,
}

/// A hook's permission decision with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDecision {
    /// allow, ask, defer or deny.
    pub behavior: HookBehavior,
    /// Its `permissionDecisionReason` (or legacy `reason`).
    pub reason: Option<String>,
    /// The first hook (in configuration order) that returned this behaviour.
    pub hook: HookRef,
}

impl HookDecision {
    /// The reason to record with the permission decision.
    pub fn decision_reason(&self) -> DecisionReason {
        self.hook.decision_reason(self.reason.clone())
    }
}

/// Hooks blocked what the event is about (exit code 2 or `decision: "block"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookBlock {
    /// The reasons, one per blocking hook in configuration order, joined by newlines.
    pub reason: String,
    /// Each blocking hook with its own reason.
    pub parts: Vec<HookMessage>,
}

impl HookBlock {
    /// The blocking hooks, in configuration order.
    pub fn hooks(&self) -> impl Iterator<Item = &HookRef> {
        self.parts.iter().map(|p| &p.hook)
    }
}

/// A hook returned `continue: false`: the session stops after this event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookStop {
    /// Its `stopReason`, for the user.
    pub reason: Option<String>,
    /// The first hook that asked to stop.
    pub hook: HookRef,
}

/// A non-blocking failure: the action goes on, the user is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError {
    /// The hook.
    pub hook: HookRef,
    /// What happened: `exit code 1: <first stderr line>`, `timed out after 2s …`.
    pub message: String,
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} hook {} failed: {}", self.hook.event, self.hook, self.message)
    }
}

/// How one handler ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunStatus {
    /// Exit 0 (or a 2xx response).
    Succeeded,
    /// Exit 2.
    Blocked,
    /// Another exit code, a signal, a failed start or a failed request.
    Failed,
    /// Killed at its timeout.
    TimedOut,
    /// Stopped by cancellation.
    Cancelled,
}

/// One handler that ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerReport {
    /// The hook.
    pub hook: HookRef,
    /// How it ended.
    pub status: RunStatus,
    /// How long it took.
    pub duration: Duration,
}

/// What a handler's process or request produced, before it is read as the event's output.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookResponse {
    /// Exit 0, or a 2xx response: stdout (or the body), capped.
    Success {
        /// stdout or the response body (at most the runner's output cap).
        stdout: String,
        /// True when the cap cut it.
        truncated: bool,
    },
    /// Exit 2.
    Block {
        /// stderr (capped).
        stderr: String,
        /// stdout (capped), where a JSON `reason` may be.
        stdout: String,
    },
    /// Any other failure: its description.
    Error {
        /// `exit code 1: <first stderr line>`, `could not start …`, `status 500 …`.
        message: String,
    },
    /// Killed at its timeout; its output is discarded.
    TimedOut {
        /// The timeout.
        after: Duration,
    },
    /// Stopped by cancellation.
    Cancelled,
}

/// One handler's run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerResult {
    /// The hook.
    pub hook: HookRef,
    /// What it produced.
    pub response: HookResponse,
    /// How long it took.
    pub duration: Duration,
}

impl HandlerResult {
    pub(crate) fn report(&self) -> HandlerReport {
        let status = match &self.response {
            HookResponse::Success { .. } => RunStatus::Succeeded,
            HookResponse::Block { .. } => RunStatus::Blocked,
            HookResponse::Error { .. } => RunStatus::Failed,
            HookResponse::TimedOut { .. } => RunStatus::TimedOut,
            HookResponse::Cancelled => RunStatus::Cancelled,
        };
        HandlerReport { hook: self.hook.clone(), status, duration: self.duration }
    }
}

/// The outcome of `PreToolUse` hooks, for step 4 of the pipeline and the permission engine.
///
/// Precedence, in this order:
///
/// 1. `stop` (`continue: false` from any hook) stops the session; the call does not run.
/// 2. `blocked` (exit code 2 from any hook) blocks the call; the reason goes to the model.
///    JSON from other hooks cannot override it.
/// 3. `decision`: the strictest `permissionDecision` of all hooks, deny > defer > ask >
///    allow ([`HookBehavior::strictest`]); the legacy top-level `approve`/`block` count as
///    allow/deny. A hook's allow skips the prompt, but deny and ask rules still apply.
/// 4. `updated_input` replaces the whole input (rules are then checked against it). It
///    comes from the first hook, in configuration order, that returned it together with
///    the winning behaviour or with no decision; it is dropped when the decision is deny
///    or defer.
/// 5. `additional_context`, in configuration order (dropped on defer).
///
/// Hooks that fail, including ones that time out, never block (fail open): they are
/// `errors`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreToolUseOutcome {
    /// The winning permission decision, if any hook returned one.
    pub decision: Option<HookDecision>,
    /// The rewritten input, if any.
    pub updated_input: Option<Map<String, Value>>,
    /// Context for the model, in configuration order.
    pub additional_context: Vec<HookMessage>,
    /// Exit code 2.
    pub blocked: Option<HookBlock>,
    /// `continue: false`.
    pub stop: Option<HookStop>,
    /// `systemMessage`s, for the user.
    pub system_messages: Vec<HookMessage>,
    /// Problems with hook output or `if` rules.
    pub diagnostics: Vec<Diagnostic>,
    /// Non-blocking failures.
    pub errors: Vec<HookError>,
    /// Every handler that ran.
    pub runs: Vec<HandlerReport>,
}

impl PreToolUseOutcome {
    /// The additional context, joined by blank lines; `None` when there is none.
    pub fn context_text(&self) -> Option<String> {
        join_messages(&self.additional_context)
    }

    /// The text the model gets when the hooks stop the call: for a block (exit code 2)
    /// or a deny. `None` when the call goes on.
    ///
    /// ```
    /// use toolgate_hooks::PreToolUseOutcome;
    /// assert_eq!(PreToolUseOutcome::default().model_message("Bash"), None);
    /// ```
    pub fn model_message(&self, tool_name: &str) -> Option<String> {
        if let Some(block) = &self.blocked {
            return Some(block_text("PreToolUse", tool_name, "blocked this call", block));
        }
        let decision = self.decision.as_ref().filter(|d| d.behavior == HookBehavior::Deny)?;
        let reason = decision.reason.as_deref().filter(|r| !r.trim().is_empty()).unwrap_or("no reason given");
        Some(format!("PreToolUse:{tool_name} hook {} denied this call: {reason}", short_name(&decision.hook)))
    }
}

/// A `PermissionRequest` hook's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionVerdict {
    /// allow or deny (deny from any hook wins; exit code 2 is a deny).
    pub behavior: PermissionRequestBehavior,
    /// Allow: the rewritten input (from the first allowing hook that gave one).
    pub updated_input: Option<Map<String, Value>>,
    /// Allow: permission changes from every allowing hook, in configuration order.
    pub updated_permissions: Vec<PermissionUpdate>,
    /// Deny: why, for the model (the first denying hook's message).
    pub message: Option<String>,
    /// Deny: also stop the session (any denying hook may ask).
    pub interrupt: bool,
    /// The first hook with this behaviour.
    pub hook: HookRef,
}

/// The outcome of `PermissionRequest` hooks, for the permission engine at the prompt.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PermissionRequestOutcome {
    /// The verdict, if any hook gave one; `None` leaves the prompt to the person.
    pub verdict: Option<PermissionVerdict>,
    /// `continue: false`.
    pub stop: Option<HookStop>,
    /// `systemMessage`s.
    pub system_messages: Vec<HookMessage>,
    /// Problems with hook output or `if` rules.
    pub diagnostics: Vec<Diagnostic>,
    /// Non-blocking failures.
    pub errors: Vec<HookError>,
    /// Every handler that ran.
    pub runs: Vec<HandlerReport>,
}

/// The outcome of `PostToolUse` and `PostToolUseFailure` hooks (step 7 of the pipeline).
/// The tool already ran, so nothing here undoes it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PostToolUseOutcome {
    /// `decision: "block"` reasons and exit-code-2 stderr: feedback for the model, added
    /// next to the result.
    pub blocked: Option<HookBlock>,
    /// Context for the model, in configuration order.
    pub additional_context: Vec<HookMessage>,
    /// PostToolUse only: replaces the output the model sees (`updatedToolOutput`, or the
    /// legacy `updatedMCPToolOutput`), from the first hook that gave one.
    pub updated_tool_output: Option<(Value, HookRef)>,
    /// `continue: false`.
    pub stop: Option<HookStop>,
    /// `systemMessage`s.
    pub system_messages: Vec<HookMessage>,
    /// Problems with hook output or `if` rules.
    pub diagnostics: Vec<Diagnostic>,
    /// Non-blocking failures.
    pub errors: Vec<HookError>,
    /// Every handler that ran.
    pub runs: Vec<HandlerReport>,
}

impl PostToolUseOutcome {
    /// The additional context, joined by blank lines.
    pub fn context_text(&self) -> Option<String> {
        join_messages(&self.additional_context)
    }

    /// The feedback the model gets next to the tool result, when a hook blocked.
    pub fn model_message(&self, tool_name: &str) -> Option<String> {
        let block = self.blocked.as_ref()?;
        let event = block.hooks().next().map_or("PostToolUse", |h| h.event.as_str());
        Some(block_text(event, tool_name, "feedback", block))
    }
}

/// The outcome of the other typed events: `PostToolBatch`, `UserPromptSubmit`, `Stop`,
/// `SubagentStop`, `SessionEnd`, `Notification`, `PreCompact`.
///
/// What `blocked` means depends on the event: `PostToolBatch` stops the loop before the
/// next model call; `UserPromptSubmit` rejects the prompt (the reason is for the user);
/// `Stop`/`SubagentStop` keep the agent going with the reason as its next instruction;
/// `PreCompact` skips compaction. `SessionEnd` and `Notification` cannot block: exit code
/// 2 there is an error for the user.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EventOutcome {
    /// Exit code 2 or `decision: "block"`, on events that can block.
    pub blocked: Option<HookBlock>,
    /// Context for the model (`additionalContext`, and plain stdout on
    /// `UserPromptSubmit`), in configuration order.
    pub additional_context: Vec<HookMessage>,
    /// `UserPromptSubmit`: a title for the session (the first hook's).
    pub session_title: Option<String>,
    /// `continue: false`.
    pub stop: Option<HookStop>,
    /// `systemMessage`s.
    pub system_messages: Vec<HookMessage>,
    /// Problems with hook output.
    pub diagnostics: Vec<Diagnostic>,
    /// Non-blocking failures.
    pub errors: Vec<HookError>,
    /// Every handler that ran.
    pub runs: Vec<HandlerReport>,
}

impl EventOutcome {
    /// The additional context, joined by blank lines.
    pub fn context_text(&self) -> Option<String> {
        join_messages(&self.additional_context)
    }
}

/// The outcome of `SessionStart` hooks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionStartOutcome {
    /// Context for the model at the start (`additionalContext` and plain stdout).
    pub additional_context: Vec<HookMessage>,
    /// The first user message (the first hook's).
    pub initial_user_message: Option<String>,
    /// A title for the session (the first hook's).
    pub session_title: Option<String>,
    /// Paths to watch, from every hook.
    pub watch_paths: Vec<String>,
    /// Whether any hook asked to re-scan skills.
    pub reload_skills: bool,
    /// `continue: false`.
    pub stop: Option<HookStop>,
    /// `systemMessage`s.
    pub system_messages: Vec<HookMessage>,
    /// Problems with hook output.
    pub diagnostics: Vec<Diagnostic>,
    /// Non-blocking failures (and exit code 2, which only informs the user here).
    pub errors: Vec<HookError>,
    /// Every handler that ran.
    pub runs: Vec<HandlerReport>,
}

impl SessionStartOutcome {
    /// The additional context, joined by blank lines.
    pub fn context_text(&self) -> Option<String> {
        join_messages(&self.additional_context)
    }
}

/// The outcome of any typed event, as [`crate::HookRunner::run`] returns it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AnyOutcome {
    /// `PreToolUse`.
    PreToolUse(PreToolUseOutcome),
    /// `PermissionRequest`.
    PermissionRequest(PermissionRequestOutcome),
    /// `PostToolUse` and `PostToolUseFailure`.
    PostToolUse(PostToolUseOutcome),
    /// `SessionStart`.
    SessionStart(SessionStartOutcome),
    /// The other events.
    Event(EventOutcome),
}

fn join_messages(messages: &[HookMessage]) -> Option<String> {
    if messages.is_empty() {
        return None;
    }
    Some(messages.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join("\n\n"))
}

fn block_text(event: &str, tool_name: &str, what: &str, block: &HookBlock) -> String {
    match block.parts.as_slice() {
        [part] => format!("{event}:{tool_name} hook {} {what}: {}", short_name(&part.hook), part.text),
        parts => {
            let mut text = format!("{event}:{tool_name} hooks {what}:");
            for part in parts {
                text.push_str(&format!("\n- {}: {}", short_name(&part.hook), part.text));
            }
            text
        }
    }
}

/// The hook's name for the model: the command or URL in backticks, cut at 60 chars.
fn short_name(hook: &HookRef) -> String {
    const MAX: usize = 60;
    match hook.name.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}…`", &hook.name[..cut]),
        None => format!("`{}`", hook.name),
    }
}

/// Awaits a handler's `answer` under its `timeout` and the call's `cancel`; a failure, a timeout
/// or a cancellation is the response as it is, the answer goes to `read`.
pub(crate) async fn bounded<T>(
    timeout: std::time::Duration,
    cancel: &toolgate_core::CancellationToken,
    answer: impl std::future::Future<Output = Result<T, String>>,
    read: impl FnOnce(T) -> HookResponse,
) -> HookResponse {
    match cancel.run_until_cancelled(tokio::time::timeout(timeout, answer)).await {
        None => HookResponse::Cancelled,
        Some(Err(_)) => HookResponse::TimedOut { after: timeout },
        Some(Ok(Err(message))) => HookResponse::Error { message },
        Some(Ok(Ok(answer))) => read(answer),
    }
}
