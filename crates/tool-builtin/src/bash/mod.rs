//! Bash: runs a shell command and returns its merged output.
//!
//! Input as Claude Code's: `command`, `timeout` (ms), `description`, `run_in_background`.
//! The run itself is [`crate::shells::foreground`]: own process group through the process
//! helper, stdout and stderr merged in order, head and tail of long output with the whole
//! saved, exit codes reported (status 1 of `grep`-like commands is not a failure), the
//! group killed on timeout or interrupt, and `cd` carried over inside the roots.
//!
//! A call is read-only, and so concurrency-safe, exactly when the permissions crate's
//! static classifier proves the command read-only.
//!
//! How a call fails, by [`toolgate_core::ToolErrorKind`]:
//!
//! | kind | when | text |
//! |---|---|---|
//! | `io` | the command exited non-zero (except status 1 of grep-like commands) or was killed by a signal | `Exit code N` then the output; a hint for 126 and 127 |
//! | `timeout` | the timeout passed; the group was killed | `Command timed out after Xs …` then the partial output |
//! | `cancelled` | the call was interrupted; the group was killed | `Command was interrupted …` then the partial output |
//! | `invalid_input` | a timeout that is not a positive number, a NUL in the command | what to send instead |
//! | `not_found` | neither the working directory nor any root exists | |
//! | `io` | the shell could not be started | |
//! | `io` | `sandbox.failIfUnavailable` is set and bubblewrap is missing or refused | how to install it |
//!
//! With an enabled [`toolgate_core::SandboxPolicy`] in the context's extensions, commands
//! (background ones too) run under bubblewrap: see [`crate::shells::sandbox`].

mod prompt;

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate_core::{DynTool, InterruptBehavior, ResultLimit, ToolContext, ToolError, ToolOutput, TypedTool, typed};
use toolgate_shell::programs;
use toolgate_shell::{analyze_shared, is_read_only};

use crate::shells::config::ShellConfig;
use crate::shells::foreground::{Call, run_foreground, start_background};
use crate::shells::one_line;
use crate::shells::sandbox;
use crate::shells::script::Shell;

/// Bash's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BashInput {
    /// The command to run.
    pub(crate) command: String,
    /// Milliseconds before the command is killed.
    #[serde(default)]
    pub(crate) timeout: Option<f64>,
    /// What the command does, in 5-10 words of active voice ("Run the unit tests"); people
    /// see it while it runs.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// Run the command in the background and return its task ID at once.
    #[serde(default)]
    pub(crate) run_in_background: Option<bool>,
    /// Run outside the sandbox (when sandboxing is on and allows it), only after the
    /// sandbox refused the command.
    #[serde(default, rename = "dangerouslyDisableSandbox")]
    pub(crate) dangerously_disable_sandbox: Option<bool>,
}

/// The Bash tool.
#[derive(Debug, Clone)]
pub(crate) struct Bash {
    config: ShellConfig,
}

impl Bash {
    /// Bash configured from the environment.
    pub(crate) fn tool() -> DynTool {
        typed(Self::with_config(ShellConfig::from_env()))
    }

    /// Bash with the given configuration.
    pub(crate) fn with_config(config: ShellConfig) -> Self {
        Self { config }
    }
}

/// Checks shared by Bash, PowerShell and Monitor: the command must be passable to a shell.
pub(crate) fn check_command(command: &str) -> Result<(), ToolError> {
    if command.contains('\0') {
        return Err(ToolError::invalid_input("command contains a NUL character, which no shell can receive")
            .with_hint("remove the NUL; to produce one, use printf '\\0' inside the command"));
    }
    Ok(())
}

/// Commands whose run is flagged destructive (a hint for people and classifiers), from the
/// program table.
fn is_destructive(command: &str) -> bool {
    analyze_shared(command).commands.iter().any(|cmd| {
        let Some((name, args)) = cmd.argv.split_first() else { return false };
        let name = toolgate_shell::basename(name);
        let entry = programs::get(name);
        let skip = if entry.role == programs::Role::Git { toolgate_shell::git_global_options(args) } else { 0 };
        let rest: Vec<&str> = args.iter().skip(skip + 1).map(|a| &**a).collect();
        programs::DESTRUCTIVE_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
            || entry.is_destructive(args.get(skip).map(|sub| &**sub), &rest)
    })
}

impl TypedTool for Bash {
    type Input = BashInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Bash"
    }

    fn description(&self) -> String {
        prompt::description(&self.config)
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("run shell commands, builds, tests and git")
    }

    fn is_read_only(&self, input: &BashInput) -> bool {
        is_read_only(&analyze_shared(&input.command))
    }

    fn is_concurrency_safe(&self, input: &BashInput) -> bool {
        self.is_read_only(input)
    }

    fn is_destructive(&self, input: &BashInput) -> bool {
        is_destructive(&input.command)
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        // Bash cuts its own output; leave room for its notes so that the pipeline does
        // not persist an already-cut result again.
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
        let sandbox = sandbox::plan(ctx, &input.command, input.dangerously_disable_sandbox.unwrap_or(false)).await?;
        if input.run_in_background.unwrap_or(false) {
            return start_background(
                "Bash",
                Shell::Posix,
                &input.command,
                input.description.as_deref(),
                ctx,
                &self.config,
                &sandbox,
            );
        }
        let call = Call { tool: "Bash", shell: Shell::Posix, command: &input.command, timeout, sandbox };
        run_foreground(&call, ctx, &self.config).await
    }

    fn render_use(&self, input: &BashInput) -> String {
        let background = if input.run_in_background.unwrap_or(false) { " &" } else { "" };
        format!("Bash({}{background})", one_line(&input.command, 120))
    }

    fn to_classifier_input(&self, input: &BashInput) -> Option<String> {
        Some(input.command.clone())
    }
}

#[cfg(test)]
mod tests;
