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
}
