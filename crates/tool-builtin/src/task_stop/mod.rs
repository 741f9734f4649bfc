//! TaskStop: stops a background shell and its whole process group, or a background agent.
//!
//! Claude Code's `TaskStop` (legacy names `KillShell`, `KillBash`): `task_id`, or the
//! deprecated `shell_id`; exactly one of them. The stop fires the task's stop token; its
//! supervisor sends the group `SIGTERM`, then `SIGKILL` after the helper's grace, and
//! publishes the end, which this call waits for (bounded).

mod prompt;

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::process::DEFAULT_KILL_GRACE;
use toolgate_core::{DynTool, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::shells::one_line;
use crate::shells::registry::Shells;

/// How long a stop may take beyond the kill grace before the call gives up waiting.
const STOP_SLACK: Duration = Duration::from_secs(10);

/// TaskStop's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskStopInput {
    /// The ID of the background task to stop.
    #[serde(default)]
    pub(crate) task_id: Option<String>,
    /// Deprecated: use task_id.
    #[serde(default)]
    pub(crate) shell_id: Option<String>,
}

impl TaskStopInput {
    /// The one id given.
    fn id(&self) -> Result<&str, ToolError> {
        match (&self.task_id, &self.shell_id) {
            (Some(id), None) | (None, Some(id)) => Ok(id),
            (Some(_), Some(_)) => Err(ToolError::invalid_input("give task_id or shell_id, not both")
                .with_hint("shell_id is the deprecated name of task_id; send only task_id")),
            (None, None) => Err(ToolError::invalid_input("task_id is required")
                .with_hint("pass the ID a background Bash call returned, e.g. {\"task_id\": \"bash_1\"}")),
        }
    }
}

/// The TaskStop tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskStop;

impl TaskStop {
    /// The tool.
    pub(crate) fn tool() -> DynTool {
        typed(Self)
    }
}

impl TypedTool for TaskStop {
    type Input = TaskStopInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TaskStop"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["KillShell", "KillBash"]
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("kill a background shell task")
    }

    fn is_concurrency_safe(&self, _input: &TaskStopInput) -> bool {
        true
    }

    async fn validate(&self, input: &TaskStopInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        input.id().map(|_| ())
    }

    async fn call(&self, input: TaskStopInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input.id()?;
        let shells = Shells::of(ctx);
        let Some(task) = shells.get(id) else {
            return Err(ToolError::not_found(format!("no background task has the id `{id}`; {}", shells.known_ids()))
                .with_hint("use an id returned by a Bash or Agent call with run_in_background: true"));
        };
        let command = one_line(&task.command, 200);
        let before = task.status();
        if !before.is_running() {
            let text = format!("Task {} is not running ({}); nothing to stop.", task.id, before.describe());
            let structured = json!({"message": text, "task_id": task.id, "task_type": task.kind.task_type(), "command": task.command});
            return Ok(ToolOutput::text(text).with_structured(structured));
        }
        task.request_stop();
        let Some(after) = task.wait_end(DEFAULT_KILL_GRACE + STOP_SLACK).await else {
            return Err(ToolError::timeout(format!(
                "task {} was sent SIGKILL but has not been reaped yet; check again with TaskOutput",
                task.id
            )));
        };
        let text = match after.exit_code() {
            // It finished on its own just before the stop.
            Some(_) => {
                format!("Task {} finished before it could be stopped ({}): {command}", task.id, after.describe())
            }
            None => format!("Successfully stopped task {} ({command})", task.id),
        };
        let structured =
            json!({"message": text, "task_id": task.id, "task_type": task.kind.task_type(), "command": task.command});
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &TaskStopInput) -> String {
        let id = input.task_id.as_deref().or(input.shell_id.as_deref()).unwrap_or("?");
        format!("TaskStop({id})")
    }
}
