//! PowerShell: Bash's inputs and behaviour, run by `pwsh -NoProfile -NonInteractive
//! -Command` (behind the cargo feature `powershell`).
//!
//! Enabled only where a `pwsh` executable is on `PATH` (found by looking at the `PATH`
//! folders, without starting anything). The command runs as a script block inside a
//! small wrapper that records the final location, so a `Set-Location` inside the roots
//! carries over as Bash's `cd` does; output streams are merged in order by joining
//! pwsh's stderr to its stdout. No static classifier exists for PowerShell, so no call is
//! read-only or concurrency-safe; the permission target is the command.

mod prompt;

use toolgate_core::{DynTool, InterruptBehavior, ResultLimit, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::bash::{BashInput, check_command};
use crate::shells::config::ShellConfig;
use crate::shells::foreground::{Call, run_foreground, start_background};
use crate::shells::one_line;
use crate::shells::script::{Shell, find_program};

/// The PowerShell tool.
#[derive(Debug, Clone)]
pub(crate) struct PowerShell {
    config: ShellConfig,
}

impl PowerShell {
    /// PowerShell configured from the environment.
    pub(crate) fn tool() -> DynTool {
        typed(Self { config: ShellConfig::from_env() })
    }
}

impl TypedTool for PowerShell {
    type Input = BashInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "PowerShell"
    }

    fn description(&self) -> String {
        prompt::description(&self.config)
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("run PowerShell commands and scripts")
    }

    fn is_enabled(&self) -> bool {
        find_program("pwsh").is_some()
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(self.config.max_output_chars + 10_000)
    }

    async fn validate(&self, input: &BashInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        check_command(&input.command)?;
        self.config.timeout("timeout", input.timeout)?;
        Ok(())
    }

    fn permission_target(&self, input: &BashInput) -> Option<String> {
        Some(input.command.clone())
    }

    async fn call(&self, input: BashInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        check_command(&input.command)?;
        let timeout = self.config.timeout("timeout", input.timeout)?;
        if find_program("pwsh").is_none() {
            return Err(ToolError::not_found("pwsh (PowerShell 7) is not on PATH")
                .with_hint("install PowerShell 7, or use the Bash tool"));
        }
        if input.run_in_background.unwrap_or(false) {
            return start_background(
                "PowerShell",
                Shell::Pwsh,
                &input.command,
                input.description.as_deref(),
                ctx,
                &self.config,
                &crate::shells::sandbox::Plan::default(),
            );
        }
        let call = Call {
            tool: "PowerShell",
            shell: Shell::Pwsh,
            command: &input.command,
            timeout,
            sandbox: crate::shells::sandbox::Plan::default(),
        };
        run_foreground(&call, ctx, &self.config).await
    }

    fn render_use(&self, input: &BashInput) -> String {
        let background = if input.run_in_background.unwrap_or(false) { " &" } else { "" };
        format!("PowerShell({}{background})", one_line(&input.command, 120))
    }

    fn to_classifier_input(&self, input: &BashInput) -> Option<String> {
        Some(input.command.clone())
    }
}
