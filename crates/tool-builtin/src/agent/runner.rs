//! The [`SubagentRunner`] host service: what runs a subagent, and the values it takes and
//! gives back.

use std::path::PathBuf;

use toolgate_core::{BoxFuture, CancellationToken};

/// A kind of subagent the Agent tool can start (`subagent_type`): a name, when to use it,
/// the tools it may use and the model it runs on, with its own system prompt.
///
/// Read from `.claude/agents/*.md` (see [`crate::discover_subagent_types`]); the
/// built-in `general-purpose` type may use every tool.
///
/// ```
/// use toolgate_builtin::SubagentType;
/// let general = SubagentType::general_purpose();
/// assert_eq!(general.name, "general-purpose");
/// assert!(general.tools.is_none()); // every tool
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SubagentType {
    /// Its name (`subagent_type`).
    pub name: String,
    /// When to use it, as the model reads it in the Agent tool's description.
    pub description: String,
    /// The tools it may use; `None` means every tool the parent has.
    pub tools: Option<Vec<String>>,
    /// Its model (`sonnet`, `opus`, `haiku`, `inherit` or a full model name), if set.
    pub model: Option<String>,
    /// Its system prompt (the body of its file).
    pub system_prompt: String,
    /// The file it came from (`None` for built-in types).
    pub source: Option<PathBuf>,
}

impl SubagentType {
    /// The name of the default type.
    pub const GENERAL_PURPOSE: &'static str = "general-purpose";

    /// A type with a name and a description, every tool, no model and no system prompt.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            tools: None,
            model: None,
            system_prompt: String::new(),
            source: None,
        }
    }

    /// The built-in `general-purpose` type.
    pub fn general_purpose() -> Self {
        Self::new(
            Self::GENERAL_PURPOSE,
            "General-purpose agent for researching complex questions, searching for code, and executing \
             multi-step tasks. Use it when a search may take several attempts.",
        )
    }

    /// The same type limited to `tools`.
    #[must_use]
    pub fn with_tools(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// The same type on `model`.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The same type with a system prompt.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = prompt.into();
        self
    }
}

/// One subagent run, as the Agent tool asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SubagentRequest {
    /// The short description of the task (3-5 words).
    pub description: String,
    /// The task, in full: the subagent's first user message.
    pub prompt: String,
    /// The subagent's type, with its tool restrictions and system prompt.
    pub subagent: SubagentType,
    /// The model to use: the call's `model`, else the type's (`inherit` counts as none),
    /// else `None` (the runner's default).
    pub model: Option<String>,
    /// The teammate name the subagent answers to on the message bus, if any.
    pub name: Option<String>,
    /// The working directory of the parent.
    pub cwd: PathBuf,
    /// The parent's session id.
    pub session_id: String,
}

impl SubagentRequest {
    /// A request for `prompt` on `subagent` in `cwd`.
    pub fn new(
        description: impl Into<String>,
        prompt: impl Into<String>,
        subagent: SubagentType,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        Self {
            description: description.into(),
            prompt: prompt.into(),
            model: subagent.model.clone().filter(|m| m != "inherit"),
            subagent,
            name: None,
            cwd: cwd.into(),
            session_id: String::new(),
        }
    }
}

/// What a finished subagent returns: only its final text reaches the parent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SubagentReport {
    /// The subagent's final answer.
    pub text: String,
}

impl SubagentReport {
    /// A report with this final text.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into() }
    }
}

/// Why a subagent run failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SubagentError {
    /// The run could not start (the agent command is missing, the directory is gone …).
    #[error("the subagent could not be started: {0}")]
    Start(String),
    /// The subagent ran and failed.
    #[error("the subagent failed: {0}")]
    Failed(String),
    /// The run took longer than the runner allows.
    #[error("the subagent did not finish within {0} ms")]
    Timeout(u64),
    /// The run was cancelled (interrupt or TaskStop).
    #[error("the subagent was cancelled")]
    Cancelled,
}

/// Runs subagents for the Agent tool: a host service.
///
/// toolgate ships [`crate::ProcessSubagentRunner`], which runs a configured agent
/// command (for example `claude -p`) with the prompt on stdin; a library host may run
/// subagents in-process instead. A runner must stop promptly when `cancel` fires.
///
/// ```
/// use toolgate_builtin::{SubagentError, SubagentReport, SubagentRequest, SubagentRunner, SubagentType};
/// use toolgate_core::{BoxFuture, CancellationToken};
///
/// /// Answers every task by shouting it back.
/// struct Shout;
/// impl SubagentRunner for Shout {
///     fn subagent_types(&self) -> Vec<SubagentType> {
///         vec![SubagentType::general_purpose()]
///     }
///     fn run<'a>(
///         &'a self,
///         request: SubagentRequest,
///         _cancel: CancellationToken,
///     ) -> BoxFuture<'a, Result<SubagentReport, SubagentError>> {
///         Box::pin(async move { Ok(SubagentReport::new(request.prompt.to_uppercase())) })
///     }
/// }
/// let tools = toolgate_builtin::agent_tools(&{
///     let mut services = toolgate_core::Extensions::default();
///     toolgate_builtin::AgentServices::new().runner(std::sync::Arc::new(Shout)).install(&mut services);
///     services
/// });
/// assert!(tools.iter().any(|t| t.name() == "Agent" && t.is_enabled()));
/// ```
pub trait SubagentRunner: Send + Sync {
    /// The subagent types this runner offers, `general-purpose` included.
    fn subagent_types(&self) -> Vec<SubagentType>;

    /// Runs one subagent to its end and returns its final text.
    fn run<'a>(
        &'a self,
        request: SubagentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<SubagentReport, SubagentError>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_takes_the_type_model_except_inherit() {
        let on =
            |model: &str| SubagentRequest::new("d", "p", SubagentType::general_purpose().with_model(model), "/").model;
        assert_eq!(on("haiku").as_deref(), Some("haiku"));
        assert_eq!(on("inherit"), None);
        assert_eq!(SubagentRequest::new("d", "p", SubagentType::general_purpose(), "/").model, None);
    }
}
