//! Sleep: waits a bounded time and stops at once when the call is cancelled.

mod prompt;

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{
    DynTool, InterruptBehavior, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed,
};

/// The longest wait: ten minutes, Bash's longest timeout.
pub(crate) const MAX_SLEEP_MS: u64 = 600_000;

/// Sleep's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SleepInput {
    /// How long to wait, in milliseconds (1 to 600000).
    #[schemars(range(min = 1, max = 600_000))]
    duration_ms: u64,
}

/// The Sleep tool.
pub(crate) fn tool() -> DynTool {
    typed(Sleep)
}

struct Sleep;

impl TypedTool for Sleep {
    type Input = SleepInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Sleep"
    }
    fn description(&self) -> String {
        prompt::description(MAX_SLEEP_MS)
    }
    fn search_hint(&self) -> Option<&'static str> {
        Some("wait without holding a shell")
    }

    /// Deferred: reached through ToolSearch, to keep the core tool set small.
    fn should_defer(&self) -> bool {
        true
    }
    fn is_read_only(&self, _: &SleepInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &SleepInput) -> bool {
        true
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn check_permissions(&self, _: &SleepInput, _: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "waiting changes nothing".into() }
    }
    async fn validate(&self, input: &SleepInput, _: &ToolContext) -> Result<(), ToolError> {
        // The schema states the bounds; this keeps a host that skips schema checks honest.
        if input.duration_ms == 0 || input.duration_ms > MAX_SLEEP_MS {
            return Err(ToolError::invalid_input(format!(
                "duration_ms must be between 1 and {MAX_SLEEP_MS}, got {}",
                input.duration_ms
            ))
            .with_hint("Wait at most ten minutes per call; call Sleep again to wait longer."));
        }
        Ok(())
    }
    async fn call(&self, input: SleepInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let started = Instant::now();
        ctx.report_progress(format!("Sleeping for {} ms", input.duration_ms), None);
        tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => {
                let waited = started.elapsed().as_millis();
                Err(ToolError::cancelled(format!(
                    "Sleep was cancelled after {waited} of {} ms.", input.duration_ms
                ))
                .with_hint("Wait for the user's direction before sleeping again."))
            }
            () = tokio::time::sleep(Duration::from_millis(input.duration_ms)) => {
                let text = format!("Slept for {} ms.", input.duration_ms);
                Ok(ToolOutput::text(text).with_structured(json!({"durationMs": input.duration_ms})))
            }
        }
    }
    fn render_use(&self, input: &SleepInput) -> String {
        format!("Sleep({} ms)", input.duration_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cancelled_sleep_returns_at_once_with_a_cancelled_error() {
        let ctx = ToolContext::new("/");
        ctx.cancel.cancel();
        let err = Sleep.call(SleepInput { duration_ms: MAX_SLEEP_MS }, &ctx).await.unwrap_err();
        assert_eq!(err.kind(), toolgate_core::ToolErrorKind::Cancelled);
        assert!(err.hint().is_some());
    }
}
