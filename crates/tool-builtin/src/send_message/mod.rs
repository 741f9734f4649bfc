//! SendMessage: a message to another agent of the session, through the host's
//! [`MessageBus`].
//!
//! Claude Code's `SendMessage`: `to` (an agent's name, or `*` for every other agent),
//! `message` (plain text or a structured object), `summary` (a 5-10 word preview, cut at
//! 200 characters). An unknown recipient is an error naming the agents that exist.

pub(crate) mod bus;
mod prompt;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{DynTool, PermissionCheck, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::agent::{AgentIdentity, AgentServices};
use crate::shells::one_line;
use bus::{BusError, Message, MessageBus};

/// The longest summary kept, in characters.
const SUMMARY_MAX: usize = 200;

/// SendMessage's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SendMessageInput {
    /// The recipient: an agent's name, or "*" to broadcast to every other agent.
    pub(crate) to: String,
    /// The message: plain text, or a structured object.
    pub(crate) message: Value,
    /// A 5-10 word preview of the message.
    #[serde(default)]
    pub(crate) summary: Option<String>,
}

/// A bus error as a result for the model.
pub(crate) fn bus_error(e: BusError) -> ToolError {
    let text = e.to_string();
    match e {
        BusError::UnknownRecipient { .. } => ToolError::not_found(text)
            .with_hint("send to one of the known agents, or start one with the Agent tool and a name"),
        BusError::NoOneElse => {
            ToolError::not_found(text).with_hint("start teammates with the Agent tool (with a name) first")
        }
        BusError::InvalidName(_) => ToolError::invalid_input(text).with_hint("pick a simple name such as `reviewer-1`"),
        BusError::TeamExists(_) => {
            ToolError::invalid_input(text).with_hint("pick another team_name, or delete the team with TeamDelete first")
        }
        BusError::UnknownTeam { .. } => ToolError::not_found(text).with_hint("create it with TeamCreate first"),
        BusError::Io { .. } => ToolError::io(text).with_hint("the session's message folder is unusable; retry later"),
    }
}

/// The SendMessage tool.
#[derive(Clone)]
pub(crate) struct SendMessage {
    bus: Option<Arc<dyn MessageBus>>,
    identity: AgentIdentity,
}

impl SendMessage {
    /// The tool over `services` (disabled without a bus).
    pub(crate) fn tool(services: &AgentServices) -> DynTool {
        typed(Self { bus: services.bus.clone(), identity: services.identity.clone() })
    }

    fn check(input: &SendMessageInput) -> Result<(), ToolError> {
        if input.to.trim().is_empty() {
            return Err(ToolError::invalid_input("to is empty")
                .with_hint("name the recipient agent, or use \"*\" to message every other agent"));
        }
        match &input.message {
            Value::String(text) if text.trim().is_empty() => {
                Err(ToolError::invalid_input("message is empty").with_hint("write the message text"))
            }
            Value::String(_) | Value::Object(_) => Ok(()),
            other => Err(ToolError::invalid_input(format!(
                "message must be text or an object, got {}",
                match other {
                    Value::Null => "null",
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    _ => "an array",
                }
            ))
            .with_hint("send the message as a string, e.g. \"message\": \"please review src/lib.rs\"")),
        }
    }
}

impl TypedTool for SendMessage {
    type Input = SendMessageInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "SendMessage"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("send a message to another agent or teammate")
    }

    fn is_enabled(&self) -> bool {
        self.bus.is_some()
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn is_read_only(&self, input: &SendMessageInput) -> bool {
        input.message.is_string()
    }

    fn check_permissions(&self, _input: &SendMessageInput, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "messages between the session's agents need no approval".to_owned() }
    }

    async fn validate(&self, input: &SendMessageInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        Self::check(input)
    }

    async fn call(&self, input: SendMessageInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Self::check(&input)?;
        let bus = self.bus.as_ref().ok_or_else(|| ToolError::internal("this session has no message bus"))?;
        let summary = input.summary.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(|s| {
            if s.chars().count() > SUMMARY_MAX { s.chars().take(SUMMARY_MAX).collect() } else { s.to_owned() }
        });
        let to = input.to.trim().to_owned();
        let message = Message::new(&self.identity.0, &to, input.message.clone()).with_summary(summary.clone());
        let delivered = bus.send(message).map_err(bus_error)?;
        let text = if to == "*" {
            format!("Message broadcast to {} agent(s): {}", delivered.len(), delivered.join(", "))
        } else {
            format!("Message sent to {to}'s inbox")
        };
        let structured = json!({
            "success": true,
            "message": text,
            "from": self.identity.0,
            "recipients": delivered,
            "summary": summary,
        });
        Ok(ToolOutput::text(text).with_structured(structured))
    }

    fn render_use(&self, input: &SendMessageInput) -> String {
        let preview = input.summary.clone().unwrap_or_else(|| match &input.message {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        format!("SendMessage({}: {})", input.to, one_line(&preview, 60))
    }
}
