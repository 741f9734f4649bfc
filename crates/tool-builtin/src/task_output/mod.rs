//! TaskOutput: the new output of a background shell or background agent, and its status.
//!
//! Claude Code's `TaskOutput` (legacy names `BashOutput`, `BashOutputTool`,
//! `AgentOutputTool`): `task_id`, `block` (default true), `timeout` (ms, default 30,000,
//! at most 600,000). With `block`, it waits for the task to end on the registry's watch
//! channel (no polling), up to the timeout or an interrupt. It then returns what the task
//! wrote since the previous read, cut in the middle when over the output limit, in the
//! tagged shape Claude Code uses (`<retrieval_status>`, `<task_id>`, `<status>`,
//! `<exit_code>`, `<output>`).

mod prompt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{DynTool, InterruptBehavior, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::shells::config::{ShellConfig, settle_ms};
use crate::shells::excerpt::render;
use crate::shells::registry::{Shells, TaskStatus};

/// Default wait for a blocking read, in milliseconds.
const DEFAULT_WAIT_MS: u64 = 30_000;
/// Longest wait for a blocking read, in milliseconds.
const MAX_WAIT_MS: u64 = 600_000;

/// TaskOutput's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskOutputInput {
    /// The background task's ID.
    pub(crate) task_id: String,
    /// Wait for the task to end (default true).
    #[serde(default)]
    pub(crate) block: Option<bool>,
    /// The longest wait, in milliseconds (default 30000, at most 600000).
    #[serde(default)]
    pub(crate) timeout: Option<f64>,
}

/// The TaskOutput tool.
#[derive(Debug, Clone)]
pub(crate) struct TaskOutput {
    config: ShellConfig,
}

impl TaskOutput {
    /// TaskOutput configured from the environment.
    pub(crate) fn tool() -> DynTool {
        typed(Self { config: ShellConfig::from_env() })
    }
}

/// The wait a call asks for: zero when not blocking.
fn wait_ms(input: &TaskOutputInput) -> Result<(u64, Option<String>), ToolError> {
    let settled = match input.timeout {
        // Zero means "do not wait", as in Claude Code's 0-600,000 range.
        Some(0.0) => (0, None),
        other => settle_ms("timeout", other, DEFAULT_WAIT_MS, MAX_WAIT_MS).map(|t| (t.ms, t.note))?,
    };
    Ok(if input.block.unwrap_or(true) { settled } else { (0, None) })
}

impl TypedTool for TaskOutput {
    type Input = TaskOutputInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "TaskOutput"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["BashOutput", "BashOutputTool", "AgentOutputTool"]
    }

    fn description(&self) -> String {
        prompt::description(self.config.max_output_chars)
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("read output of a background shell task")
    }

    fn is_read_only(&self, _input: &TaskOutputInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &TaskOutputInput) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    async fn validate(&self, input: &TaskOutputInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        wait_ms(input).map(|_| ())
    }

    async fn call(&self, input: TaskOutputInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (wait, note) = wait_ms(&input)?;
        let shells = Shells::of(ctx);
        let Some(task) = shells.get(&input.task_id) else {
            return Err(ToolError::not_found(format!(
                "no background task has the id `{}`; {}",
                input.task_id,
                shells.known_ids()
            ))
            .with_hint("use an id returned by a Bash or Agent call with run_in_background: true"));
        };

        let mut retrieval = "success";
        if task.status().is_running() && wait > 0 {
            let waited = tokio::select! {
                ended = task.wait_end(std::time::Duration::from_millis(wait)) => ended,
                () = ctx.cancel.cancelled() => {
                    return Err(ToolError::cancelled(format!("stopped waiting for task {}; it keeps running", task.id)));
                }
            };
            if waited.is_none() {
                retrieval = "timeout";
            }
        } else if task.status().is_running() {
            retrieval = "not_ready";
        }

        let status = task.status();
        let new = task.read_new().map_err(|e| {
            ToolError::io(format!(
                "could not read the output of task {} ({}): {e}",
                task.id,
                task.output_path.display()
            ))
        })?;
        let path = task.output_path.clone();
        let shown = render(&new.captured, self.config.max_output_chars, new.line_base, |_| Ok(path));

        let mut text = format!(
            "<retrieval_status>{retrieval}</retrieval_status>\n\n<task_id>{}</task_id>\n\n\
             <task_type>{}</task_type>\n\n<status>{}</status>",
            task.id,
            task.kind.task_type(),
            status.word()
        );
        if let Some(code) = status.exit_code() {
            text.push_str(&format!("\n\n<exit_code>{code}</exit_code>"));
        }
        match &status {
            TaskStatus::Signaled(_) | TaskStatus::Failed(_) => {
                text.push_str(&format!("\n\n<error>{}</error>", status.describe()));
            }
            _ => {}
        }
        if shown.text.is_empty() {
            text.push_str("\n\n<output>(no new output)</output>");
        } else {
            text.push_str(&format!("\n\n<output>\n{}\n</output>", shown.text));
        }
        if let Some(note) = note {
            text.push_str(&format!("\n\n{note}"));
        }
        let structured = json!({
            "retrieval_status": retrieval,
            "task": {
                "task_id": task.id,
                "task_type": task.kind.task_type(),
                "status": status.word(),
                "description": task.description.clone().unwrap_or_else(|| task.command.clone()),
                "output": shown.text,
                "exitCode": status.exit_code(),
                "outputFile": task.output_path,
                "pid": task.pid,
            }
        });
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &TaskOutputInput) -> String {
        format!("TaskOutput({})", input.task_id)
    }
}
