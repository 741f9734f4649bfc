//! Agent (legacy name `Task`): runs a subagent through the host's [`SubagentRunner`].
//!
//! Claude Code's `Agent`: `description`, `prompt`, `subagent_type` (default
//! `general-purpose`), `model` (`sonnet`, `opus`, `haiku`), `run_in_background`, `name`
//! (a teammate name on the message bus); `team_name` and `mode` are accepted and ignored
//! (deprecated), and `isolation` is refused (no worktree isolation here). The launch is
//! read-only and never prompts; what the subagent does is gated where it runs.
//!
//! In the foreground the call waits for the subagent's final text (an interrupt cancels
//! it). In the background it registers an `agent_N` task in the session's background
//! registry (the one Bash's background shells use), so TaskOutput reads the answer when
//! it is there and TaskStop cancels the run.
//!
//! The subagent types come from the runner ([`SubagentRunner::subagent_types`]; the
//! shipped runner reads `.claude/agents/*.md`, see [`discover_subagent_types`]) and are
//! listed in the tool's description.

mod definitions;
mod process;
mod prompt;
mod runner;
mod services;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{
    DynTool, InterruptBehavior, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed,
};

pub use definitions::discover_subagent_types;
pub use process::{AGENT_COMMAND_ENV, AGENT_TIMEOUT_ENV, ProcessSubagentRunner};
pub use runner::{SubagentError, SubagentReport, SubagentRequest, SubagentRunner, SubagentType};
pub use services::{AgentIdentity, AgentServices};

use crate::send_message::bus::{Member, MessageBus, valid_bus_name};
use crate::shells::registry::{JobEnd, Shells, TaskKind};
use crate::shells::{one_line, tasks_dir};

/// Whether `name` can name a subagent type.
pub(crate) fn valid_type_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The models a call may ask for.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AgentModel {
    /// Claude Sonnet.
    Sonnet,
    /// Claude Opus.
    Opus,
    /// Claude Haiku.
    Haiku,
}

impl AgentModel {
    fn as_str(self) -> &'static str {
        match self {
            Self::Sonnet => "sonnet",
            Self::Opus => "opus",
            Self::Haiku => "haiku",
        }
    }
}

/// Agent's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentInput {
    /// A short (3-5 word) description of the task.
    pub(crate) description: String,
    /// The task for the agent to perform, with everything it needs to know.
    pub(crate) prompt: String,
    /// The type of specialized agent to use (default general-purpose).
    #[serde(default)]
    pub(crate) subagent_type: Option<String>,
    /// The model to use instead of the agent type's own.
    #[serde(default)]
    pub(crate) model: Option<AgentModel>,
    /// Run the agent in the background; read its result later with TaskOutput.
    #[serde(default)]
    pub(crate) run_in_background: Option<bool>,
    /// A teammate name other agents can send messages to.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// Deprecated and ignored.
    #[serde(default)]
    #[allow(dead_code, reason = "accepted for compatibility with older callers, deliberately ignored")]
    pub(crate) team_name: Option<String>,
    /// Deprecated and ignored.
    #[serde(default)]
    #[allow(dead_code, reason = "accepted for compatibility with older callers, deliberately ignored")]
    pub(crate) mode: Option<String>,
    /// Not supported here: subagents run in the session's working directory.
    #[serde(default)]
    pub(crate) isolation: Option<String>,
}

/// The Agent tool, built from the host's services.
#[derive(Clone)]
pub(crate) struct Agent {
    runner: Option<Arc<dyn SubagentRunner>>,
    bus: Option<Arc<dyn MessageBus>>,
    identity: AgentIdentity,
}

impl Agent {
    /// The tool over `services` (disabled without a runner).
    pub(crate) fn tool(services: &AgentServices) -> DynTool {
        typed(Self { runner: services.runner.clone(), bus: services.bus.clone(), identity: services.identity.clone() })
    }

    fn types(&self) -> Vec<SubagentType> {
        self.runner.as_ref().map(|r| r.subagent_types()).unwrap_or_default()
    }

    fn runner(&self) -> Result<&Arc<dyn SubagentRunner>, ToolError> {
        self.runner.as_ref().ok_or_else(|| {
            ToolError::internal("this session has no subagent runner")
                .with_hint("do the task yourself with the other tools")
        })
    }

    /// The subagent type a call names, or a not-found error listing the known ones.
    fn subagent(&self, input: &AgentInput) -> Result<SubagentType, ToolError> {
        let wanted = input.subagent_type.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let wanted = wanted.unwrap_or(SubagentType::GENERAL_PURPOSE);
        let types = self.types();
        types.iter().find(|t| t.name == wanted).cloned().ok_or_else(|| {
            let known: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
            ToolError::not_found(format!("there is no subagent type `{wanted}`")).with_hint(format!(
                "use one of: {}",
                if known.is_empty() { "none".to_owned() } else { known.join(", ") }
            ))
        })
    }

    fn check(&self, input: &AgentInput) -> Result<SubagentType, ToolError> {
        if input.description.trim().is_empty() {
            return Err(ToolError::invalid_input("description is empty")
                .with_hint("give a short (3-5 word) summary of the task, e.g. \"Find config loaders\""));
        }
        if input.prompt.trim().is_empty() {
            return Err(ToolError::invalid_input("prompt is empty")
                .with_hint("write the whole task: what to do, where, and what to report back"));
        }
        if let Some(isolation) = &input.isolation {
            return Err(ToolError::invalid_input(format!("isolation `{isolation}` is not supported by this host"))
                .with_hint("omit isolation; the subagent works in the session's working directory"));
        }
        if let Some(name) = &input.name
            && !valid_bus_name(name)
        {
            return Err(ToolError::invalid_input(format!("`{name}` cannot be a teammate name"))
                .with_hint("use 1-64 letters, digits, `-`, `_` or `.`, starting with a letter or digit"));
        }
        self.subagent(input)
    }

    /// Puts a named subagent on the bus, in the caller's team.
    fn join_bus(&self, name: &str, subagent: &SubagentType) -> Result<(), ToolError> {
        let Some(bus) = &self.bus else { return Ok(()) };
        let team =
            bus.members().ok().and_then(|ms| ms.into_iter().find(|m| m.name == self.identity.0)).and_then(|m| m.team);
        bus.register(Member::new(name).in_team(team).with_agent_type(Some(subagent.name.clone())))
            .map_err(|e| ToolError::io(e.to_string()).with_hint("start the agent without a name"))
    }
}

fn report_error(e: SubagentError) -> ToolError {
    match e {
        SubagentError::Cancelled => ToolError::cancelled(e.to_string()),
        SubagentError::Timeout(_) => ToolError::timeout(e.to_string())
            .with_hint("split the task into smaller ones, or run it with run_in_background: true"),
        SubagentError::Start(_) => {
            ToolError::io(e.to_string()).with_hint("the agent command is misconfigured; do the task yourself")
        }
        SubagentError::Failed(_) => ToolError::io(e.to_string())
            .with_hint("read the error, then retry with a clearer prompt or do the task yourself"),
    }
}

impl TypedTool for Agent {
    type Input = AgentInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Agent"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["Task"]
    }

    fn description(&self) -> String {
        prompt::description(&self.types())
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("delegate a task to a subagent")
    }

    fn is_enabled(&self) -> bool {
        self.runner.is_some()
    }

    fn is_read_only(&self, _input: &AgentInput) -> bool {
        true
    }

    /// The subagent type, which `Agent(type)` rules name (`deny Agent(Explore)`); a call that
    /// names none runs the general-purpose one.
    fn permission_target(&self, input: &AgentInput) -> Option<String> {
        Some(input.subagent_type.clone().unwrap_or_else(|| "general-purpose".to_owned()))
    }

    fn is_concurrency_safe(&self, _input: &AgentInput) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn check_permissions(&self, _input: &AgentInput, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow {
            detail: "launching a subagent needs no approval; its own calls are checked where it runs".to_owned(),
        }
    }

    async fn validate(&self, input: &AgentInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        self.check(input).map(|_| ())
    }

    async fn call(&self, input: AgentInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let subagent = self.check(&input)?;
        let runner = self.runner()?.clone();
        let mut request = SubagentRequest::new(&input.description, &input.prompt, subagent.clone(), &ctx.cwd);
        if let Some(model) = input.model {
            request.model = Some(model.as_str().to_owned());
        }
        request.name.clone_from(&input.name);
        request.session_id.clone_from(&ctx.session_id);
        if let Some(name) = &input.name {
            self.join_bus(name, &subagent)?;
        }

        if input.run_in_background.unwrap_or(false) {
            let shells = Shells::of(ctx);
            let dir = tasks_dir(ctx);
            let (id, path, file) = shells.reserve("agent", &dir).map_err(|e| {
                ToolError::io(format!("could not create the agent's output file in {}: {e}", dir.display()))
            })?;
            let label = one_line(&input.description, 200);
            shells.start_job(id.clone(), path.clone(), file, TaskKind::Agent, &label, move |stop| async move {
                match runner.run(request, stop).await {
                    Ok(report) => JobEnd::Completed(report.text),
                    Err(SubagentError::Cancelled) => JobEnd::Stopped,
                    Err(e) => JobEnd::Failed(e.to_string()),
                }
            });
            let text = format!(
                "Async agent launched successfully.\nagentId: {id} (use it as task_id with TaskOutput to read the \
                 agent's result, or with TaskStop to stop it)\nThe agent is working in the background. Its answer \
                 will be written to: {}\nDo not duplicate its work; carry on with something else.",
                path.display()
            );
            let structured = json!({
                "status": "async_launched",
                "agentId": id,
                "description": input.description,
                "prompt": input.prompt,
                "subagentType": subagent.name,
                "outputFile": path,
            });
            return Ok(ToolOutput::text(text).with_structured(structured));
        }

        let started = std::time::Instant::now();
        let report = runner.run(request, ctx.cancel.clone()).await.map_err(report_error)?;
        let text = if report.text.trim().is_empty() {
            "(the subagent finished without a final message)".to_owned()
        } else {
            report.text.clone()
        };
        let structured = json!({
            "status": "completed",
            "subagentType": subagent.name,
            "prompt": input.prompt,
            "content": [{"type": "text", "text": report.text}],
            "totalDurationMs": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &AgentInput) -> String {
        let kind = input.subagent_type.as_deref().unwrap_or(SubagentType::GENERAL_PURPOSE);
        format!("Agent({kind}: {})", one_line(&input.description, 60))
    }
}
