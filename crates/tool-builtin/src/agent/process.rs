//! [`ProcessSubagentRunner`]: a subagent is a configured agent command, run with the
//! prompt on stdin; its stdout is the answer.

use std::path::Path;
use std::time::Duration;

use toolgate_core::process::{ProcessSpec, ProcessStatus};
use toolgate_core::{BoxFuture, CancellationToken};

use super::runner::{SubagentError, SubagentReport, SubagentRequest, SubagentRunner, SubagentType};

/// The environment variable holding the agent command (a shell command line).
pub const AGENT_COMMAND_ENV: &str = "TOOLGATE_AGENT_COMMAND";
/// The environment variable holding the longest a subagent may run, in milliseconds.
pub const AGENT_TIMEOUT_ENV: &str = "TOOLGATE_AGENT_TIMEOUT_MS";

/// How much of a subagent's stdout is kept.
const ANSWER_CAP: usize = 4 * 1024 * 1024;
/// How much of a failed subagent's stderr is quoted back.
const STDERR_QUOTE: usize = 2_000;

/// Runs each subagent as a child process of a configured command (through the process
/// helper: own process group, killed on cancel, timeout or drop).
///
/// The command runs under `sh -c` in the parent's working directory, gets the prompt on
/// stdin, and prints the answer on stdout; exit code 0 is success. What the subagent may
/// do is passed to it in the environment, so the command can hand it to the agent it
/// starts:
///
/// | variable | value |
/// |---|---|
/// | `TOOLGATE_AGENT_TYPE` | the subagent type's name |
/// | `TOOLGATE_AGENT_DESCRIPTION` | the call's short description |
/// | `TOOLGATE_AGENT_TOOLS` | the tools it may use, comma-separated (unset: every tool) |
/// | `TOOLGATE_AGENT_MODEL` | the model, when the call or the type names one |
/// | `TOOLGATE_AGENT_SYSTEM_PROMPT` | the type's system prompt (the body of its file) |
/// | `TOOLGATE_AGENT_NAME` | its teammate name on the message bus, when given |
/// | `TOOLGATE_PARENT_SESSION_ID` | the parent's session id |
///
/// For Claude Code, for example:
/// `TOOLGATE_AGENT_COMMAND='claude -p ${TOOLGATE_AGENT_TOOLS:+--allowedTools "$TOOLGATE_AGENT_TOOLS"} ${TOOLGATE_AGENT_MODEL:+--model "$TOOLGATE_AGENT_MODEL"}'`.
///
/// ```
/// use toolgate_builtin::{ProcessSubagentRunner, SubagentRequest, SubagentRunner, SubagentType};
/// use toolgate_core::CancellationToken;
/// let runner = ProcessSubagentRunner::new("tr a-z A-Z", vec![SubagentType::general_purpose()]);
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let request = SubagentRequest::new("shout", "hello", SubagentType::general_purpose(), "/");
/// let report = runner.run(request, CancellationToken::new()).await.unwrap();
/// assert_eq!(report.text, "HELLO");
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct ProcessSubagentRunner {
    command: String,
    types: Vec<SubagentType>,
    timeout: Option<Duration>,
    env: Vec<(String, String)>,
}

impl ProcessSubagentRunner {
    /// A runner of `command` offering `types`.
    pub fn new(command: impl Into<String>, types: Vec<SubagentType>) -> Self {
        Self { command: command.into(), types, timeout: None, env: Vec::new() }
    }

    /// The runner configured by `TOOLGATE_AGENT_COMMAND` (and `TOOLGATE_AGENT_TIMEOUT_MS`),
    /// with the subagent types of `project_dir` and the user's Claude folder (see
    /// [`crate::user_claude_dir`]), and the diagnostics of their files. `None` when no command is configured: the Agent tool is then not
    /// offered.
    pub fn from_env(project_dir: &Path, user_claude_dir: Option<&Path>) -> Option<(Self, Vec<String>)> {
        let command = std::env::var(AGENT_COMMAND_ENV).ok().filter(|c| !c.trim().is_empty())?;
        let (types, mut diagnostics) = super::discover_subagent_types(project_dir, user_claude_dir);
        let mut runner = Self::new(command, types);
        if let Ok(ms) = std::env::var(AGENT_TIMEOUT_ENV) {
            match ms.trim().parse::<u64>() {
                Ok(ms) if ms > 0 => runner = runner.timeout(Duration::from_millis(ms)),
                _ => diagnostics.push(format!("{AGENT_TIMEOUT_ENV}={ms} is not a positive number of milliseconds")),
            }
        }
        Some((runner, diagnostics))
    }

    /// Stops a subagent that runs longer than `timeout` (default: no limit).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Adds an environment variable for every subagent (for example where the message
    /// bus lives).
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The command.
    pub fn command(&self) -> &str {
        &self.command
    }

    fn spec(&self, request: &SubagentRequest) -> ProcessSpec {
        let mut spec = ProcessSpec::shell(self.command.clone())
            .cwd(request.cwd.clone())
            .stdin(request.prompt.clone().into_bytes())
            .stdout_cap(ANSWER_CAP)
            .timeout_opt(self.timeout)
            .env("TOOLGATE_AGENT_TYPE", &request.subagent.name)
            .env("TOOLGATE_AGENT_DESCRIPTION", &request.description)
            .env("TOOLGATE_AGENT_SYSTEM_PROMPT", &request.subagent.system_prompt)
            .env("TOOLGATE_PARENT_SESSION_ID", &request.session_id)
            .env_remove("TOOLGATE_AGENT_TOOLS")
            .env_remove("TOOLGATE_AGENT_MODEL")
            .env_remove("TOOLGATE_AGENT_NAME");
        if let Some(tools) = &request.subagent.tools {
            spec = spec.env("TOOLGATE_AGENT_TOOLS", tools.join(","));
        }
        if let Some(model) = &request.model {
            spec = spec.env("TOOLGATE_AGENT_MODEL", model);
        }
        if let Some(name) = &request.name {
            spec = spec.env("TOOLGATE_AGENT_NAME", name);
        }
        spec.envs(self.env.iter().map(|(k, v)| (k.clone(), v.clone())))
    }
}

impl SubagentRunner for ProcessSubagentRunner {
    fn subagent_types(&self) -> Vec<SubagentType> {
        self.types.clone()
    }

    fn run<'a>(
        &'a self,
        request: SubagentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<SubagentReport, SubagentError>> {
        Box::pin(async move {
            let spec = self.spec(&request);
            let outcome = spec.run(&cancel).await.map_err(|e| SubagentError::Start(e.to_string()))?;
            let answer = outcome.stdout.text().trim_end().to_owned();
            match outcome.status {
                ProcessStatus::Exited(0) => Ok(SubagentReport::new(answer)),
                ProcessStatus::Cancelled => Err(SubagentError::Cancelled),
                ProcessStatus::TimedOut => Err(SubagentError::Timeout(
                    self.timeout.map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
                )),
                status => {
                    let how = match status {
                        ProcessStatus::Exited(code) => format!("the agent command exited with code {code}"),
                        ProcessStatus::Signaled(signal) => format!("the agent command was killed by signal {signal}"),
                        other => format!("the agent command ended: {other:?}"),
                    };
                    let stderr = outcome.stderr.text();
                    let stderr = stderr.trim();
                    let quoted: String = stderr.chars().take(STDERR_QUOTE).collect();
                    let mut message = how;
                    if !quoted.is_empty() {
                        message.push_str(&format!("; stderr: {quoted}"));
                    }
                    if !answer.is_empty() && quoted.is_empty() {
                        let out: String = answer.chars().take(STDERR_QUOTE).collect();
                        message.push_str(&format!("; stdout: {out}"));
                    }
                    Err(SubagentError::Failed(message))
                }
            }
        })
    }
}
