//! [`RunnerHooks`]: the real hook runner of `toolgate-hooks` behind the pipeline's
//! [`HookDispatch`] seam and the permission engine's [`PermissionRequestHooks`].

use std::sync::Arc;

use serde_json::Value;
use toolgate_core::{BoxFuture, CancellationToken, PermissionBehavior, ToolContext};
use toolgate_hooks::{
    BatchToolCall, CommonInput, HookBehavior, HookRunner, PermissionRequestBehavior, PermissionRequestInput,
    PermissionUpdate, PostToolBatchInput, PostToolUseFailureInput, PostToolUseInput, PreToolUseInput, RuleValue,
    UpdateDestination,
};
use toolgate_permissions::{HookVerdict, PermissionRequestHooks, PermissionRule, RequestHookVerdict};

use crate::dispatch::{BatchCall, BatchHookOutcome, HookCall, HookDispatch, PostHookOutcome, PreHookOutcome};

/// Runs the user's hook processes for the pipeline.
#[derive(Clone)]
pub struct RunnerHooks {
    runner: Arc<HookRunner>,
    transcript_path: String,
    session_id: String,
}

impl RunnerHooks {
    /// Hooks backed by a runner. `transcript_path` is what hooks receive as
    /// `transcript_path` (empty when the host keeps no transcript).
    pub fn new(runner: Arc<HookRunner>, session_id: impl Into<String>, transcript_path: impl Into<String>) -> Self {
        Self { runner, transcript_path: transcript_path.into(), session_id: session_id.into() }
    }

    /// The runner.
    pub fn runner(&self) -> &Arc<HookRunner> {
        &self.runner
    }

    fn common(&self, ctx: &ToolContext) -> CommonInput {
        let session = if ctx.session_id.is_empty() { &self.session_id } else { &ctx.session_id };
        CommonInput::new(session.clone(), self.transcript_path.clone(), ctx.cwd.display().to_string())
            .with_mode(ctx.permission_mode)
    }
}

fn notices<'a>(
    messages: impl Iterator<Item = String> + 'a,
    errors: impl Iterator<Item = String> + 'a,
    diagnostics: impl Iterator<Item = String> + 'a,
) -> Vec<String> {
    messages.chain(errors).chain(diagnostics).collect()
}

impl HookDispatch for RunnerHooks {
    fn pre_tool_use<'a>(&'a self, call: HookCall<'a>) -> BoxFuture<'a, PreHookOutcome> {
        Box::pin(async move {
            let input = PreToolUseInput {
                common: self.common(call.ctx),
                tool_name: call.tool_name.to_owned(),
                tool_input: call.input.clone(),
                tool_use_id: call.tool_use_id.to_owned(),
            };
            let out = self.runner.pre_tool_use(&input, &call.ctx.cancel).await;
            let blocked = out.blocked.as_ref().map(|b| b.reason.clone());
            let decision = out.decision.as_ref().map(|d| HookVerdict {
                // `defer` has no host to defer to here: a person decides instead.
                behavior: match d.behavior {
                    HookBehavior::Allow => PermissionBehavior::Allow,
                    HookBehavior::Deny => PermissionBehavior::Deny,
                    _ => PermissionBehavior::Ask,
                },
                reason: d.reason.clone(),
                hook: format!("{} ({})", d.hook.name, d.hook.source),
                updated_input: out.updated_input.is_some(),
            });
            PreHookOutcome {
                decision,
                updated_input: out.updated_input.clone().map(Value::Object),
                additional_context: out.additional_context.iter().map(|m| m.text.clone()).collect(),
                blocked,
                stop: out
                    .stop
                    .as_ref()
                    .map(|s| s.reason.clone().unwrap_or_else(|| "a hook stopped the session".into())),
                notices: notices(
                    out.system_messages.iter().map(|m| m.text.clone()),
                    out.errors.iter().map(ToString::to_string),
                    out.diagnostics.iter().map(ToString::to_string),
                ),
            }
        })
    }

    fn post_tool_use<'a>(
        &'a self,
        call: HookCall<'a>,
        response: &'a Value,
        duration_ms: u64,
    ) -> BoxFuture<'a, PostHookOutcome> {
        Box::pin(async move {
            let input = PostToolUseInput {
                common: self.common(call.ctx),
                tool_name: call.tool_name.to_owned(),
                tool_input: call.input.clone(),
                tool_response: response.clone(),
                tool_use_id: call.tool_use_id.to_owned(),
                duration_ms: Some(duration_ms),
            };
            let out = self.runner.post_tool_use(&input, &call.ctx.cancel).await;
            post(out)
        })
    }

    fn post_tool_use_failure<'a>(
        &'a self,
        call: HookCall<'a>,
        error: &'a str,
        is_interrupt: bool,
        duration_ms: u64,
    ) -> BoxFuture<'a, PostHookOutcome> {
        Box::pin(async move {
            let input = PostToolUseFailureInput {
                common: self.common(call.ctx),
                tool_name: call.tool_name.to_owned(),
                tool_input: call.input.clone(),
                tool_use_id: call.tool_use_id.to_owned(),
                error: error.to_owned(),
                is_interrupt: Some(is_interrupt),
                duration_ms: Some(duration_ms),
            };
            let out = self.runner.post_tool_use_failure(&input, &call.ctx.cancel).await;
            post(out)
        })
    }

    fn wants_post_tool_batch(&self) -> bool {
        self.runner.has_hooks(toolgate_hooks::HookEvent::PostToolBatch)
    }

    fn post_tool_batch<'a>(
        &'a self,
        calls: &'a [BatchCall<'a>],
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, BatchHookOutcome> {
        Box::pin(async move {
            let tool_calls = calls
                .iter()
                .map(|c| BatchToolCall {
                    tool_name: c.tool_name.to_owned(),
                    tool_input: c.input.clone(),
                    tool_use_id: c.tool_use_id.to_owned(),
                    tool_response: c.response.clone(),
                })
                .collect();
            let input = PostToolBatchInput { common: self.common(ctx), tool_calls };
            batch(self.runner.post_tool_batch(&input, &ctx.cancel).await)
        })
    }
}

/// What the background (`async`) hooks that ended say to the model: an `asyncRewake` hook that
/// exited 2 its stderr, as a request to continue; any other its stdout, when it printed any.
pub(crate) fn background_context(runner: &HookRunner) -> Vec<String> {
    runner
        .take_background_results()
        .into_iter()
        .filter_map(|r| {
            if r.rewake {
                Some(format!("The background hook {} asks you to continue: {}", r.hook, r.stderr.trim()))
            } else {
                let stdout = r.stdout.trim();
                (!stdout.is_empty()).then(|| format!("The background hook {} finished: {stdout}", r.hook))
            }
        })
        .collect()
}

fn batch(out: toolgate_hooks::EventOutcome) -> BatchHookOutcome {
    let stop = out.stop.as_ref().map(|s| s.reason.clone().unwrap_or_else(|| "a hook stopped the session".into()));
    BatchHookOutcome {
        stop: stop
            .or_else(|| out.blocked.as_ref().map(|b| format!("a PostToolBatch hook stopped the loop: {}", b.reason))),
        notices: notices(
            out.system_messages.iter().map(|m| m.text.clone()),
            out.errors.iter().map(ToString::to_string),
            out.diagnostics.iter().map(ToString::to_string),
        ),
    }
}

fn post(out: toolgate_hooks::PostToolUseOutcome) -> PostHookOutcome {
    PostHookOutcome {
        blocked: out.blocked.as_ref().map(|b| b.reason.clone()),
        additional_context: out.additional_context.iter().map(|m| m.text.clone()).collect(),
        updated_output: out.updated_tool_output.as_ref().map(|(v, _)| v.clone()),
        stop: out.stop.as_ref().map(|s| s.reason.clone().unwrap_or_else(|| "a hook stopped the session".into())),
        notices: notices(
            out.system_messages.iter().map(|m| m.text.clone()),
            out.errors.iter().map(ToString::to_string),
            out.diagnostics.iter().map(ToString::to_string),
        ),
    }
}

impl PermissionRequestHooks for RunnerHooks {
    fn run<'a>(
        &'a self,
        tool_name: &'a str,
        input: &'a Value,
        suggestions: &'a [String],
    ) -> BoxFuture<'a, Option<RequestHookVerdict>> {
        Box::pin(async move {
            if !self.runner.has_hooks(toolgate_hooks::HookEvent::PermissionRequest) {
                return None;
            }
            let rules: Vec<RuleValue> = suggestions
                .iter()
                .filter_map(|s| s.parse::<PermissionRule>().ok())
                .map(|r| RuleValue { tool_name: r.tool().to_owned(), rule_content: r.specifier().map(str::to_owned) })
                .collect();
            let permission_suggestions = if rules.is_empty() {
                Vec::new()
            } else {
                vec![PermissionUpdate::AddRules {
                    rules,
                    behavior: PermissionBehavior::Allow,
                    destination: UpdateDestination::LocalSettings,
                }]
            };
            let cwd = self.runner.project_dir().display().to_string();
            let request = PermissionRequestInput {
                common: CommonInput::new(self.session_id.clone(), self.transcript_path.clone(), cwd),
                tool_name: tool_name.to_owned(),
                tool_input: input.clone(),
                permission_suggestions,
            };
            let out = self.runner.permission_request(&request, &CancellationToken::new()).await;
            let verdict = out.verdict?;
            Some(RequestHookVerdict {
                behavior: match verdict.behavior {
                    PermissionRequestBehavior::Allow => PermissionBehavior::Allow,
                    _ => PermissionBehavior::Deny,
                },
                message: verdict.message.clone(),
                hook: format!("{} ({})", verdict.hook.name, verdict.hook.source),
                updated_input: verdict.updated_input.map(Value::Object),
            })
        })
    }
}
