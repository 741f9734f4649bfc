//! The seam between the pipeline and hooks: what the pipeline asks at steps 4 and 7, and
//! the outcomes it acts on. `toolgate-hooks` implements it for real hook processes; tests
//! implement it with recording fakes.

use serde_json::Value;
use toolgate_core::{BoxFuture, ToolContext};
use toolgate_permissions::HookVerdict;

/// The call a hook event is about.
#[derive(Debug, Clone, Copy)]
pub struct HookCall<'a> {
    /// The tool's canonical name.
    pub tool_name: &'a str,
    /// The call's id.
    pub tool_use_id: &'a str,
    /// The normalized input (absolute paths).
    pub input: &'a Value,
    /// The call's context (cwd, session id, permission mode).
    pub ctx: &'a ToolContext,
}

/// What PreToolUse hooks said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreHookOutcome {
    /// A permission decision (allow, ask, deny) for the engine.
    pub decision: Option<HookVerdict>,
    /// A replacement for the whole input; validated again before permission.
    pub updated_input: Option<Value>,
    /// Context for the model, in configuration order.
    pub additional_context: Vec<String>,
    /// A block (exit code 2): the reason the model reads.
    pub blocked: Option<String>,
    /// `continue: false`: the session should stop, with this reason.
    pub stop: Option<String>,
    /// Notices for the person (system messages, non-blocking errors).
    pub notices: Vec<String>,
}

/// What PostToolUse or PostToolUseFailure hooks said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostHookOutcome {
    /// `decision: block`: a reason shown to the model next to the result.
    pub blocked: Option<String>,
    /// Context for the model.
    pub additional_context: Vec<String>,
    /// A replacement for the output the model sees.
    pub updated_output: Option<Value>,
    /// `continue: false`.
    pub stop: Option<String>,
    /// Notices for the person.
    pub notices: Vec<String>,
}

/// One resolved call of a message, as PostToolBatch reports it.
#[derive(Debug, Clone, Copy)]
pub struct BatchCall<'a> {
    /// The tool's name as called.
    pub tool_name: &'a str,
    /// The call's id.
    pub tool_use_id: &'a str,
    /// The input as the model sent it.
    pub input: &'a Value,
    /// The `tool_result` content the model receives.
    pub response: &'a Value,
}

/// What PostToolBatch hooks said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchHookOutcome {
    /// `decision: block` or exit code 2, or `continue: false`: the loop should stop, with this
    /// reason.
    pub stop: Option<String>,
    /// Notices for the person.
    pub notices: Vec<String>,
}

/// The hook events the pipeline fires.
pub trait HookDispatch: Send + Sync {
    /// PreToolUse, after validation and before permission.
    fn pre_tool_use<'a>(&'a self, call: HookCall<'a>) -> BoxFuture<'a, PreHookOutcome>;

    /// PostToolUse, after a call succeeded; `response` is the tool's structured output.
    fn post_tool_use<'a>(
        &'a self,
        call: HookCall<'a>,
        response: &'a Value,
        duration_ms: u64,
    ) -> BoxFuture<'a, PostHookOutcome>;

    /// PostToolUseFailure, after a call failed.
    fn post_tool_use_failure<'a>(
        &'a self,
        call: HookCall<'a>,
        error: &'a str,
        is_interrupt: bool,
        duration_ms: u64,
    ) -> BoxFuture<'a, PostHookOutcome>;

    /// Whether [`HookDispatch::post_tool_batch`] has anything to run (the session then skips
    /// building the batch: every result as JSON). By default `true`.
    fn wants_post_tool_batch(&self) -> bool {
        true
    }

    /// PostToolBatch, once every call of a message has resolved, before the model is called
    /// again. By default nothing runs.
    fn post_tool_batch<'a>(
        &'a self,
        calls: &'a [BatchCall<'a>],
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, BatchHookOutcome> {
        let _ = (calls, ctx);
        Box::pin(async { BatchHookOutcome::default() })
    }
}
