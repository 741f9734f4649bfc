//! What a hook may print on stdout (exit 0) or return as an HTTP body: the JSON object
//! with Claude Code's field names, typed per event.
//!
//! [`HookOutput<S>`] holds the universal fields (`continue`, `stopReason`,
//! `suppressOutput`, `systemMessage`, `terminalSequence`), the top-level
//! `decision`/`reason`, and `hookSpecificOutput` typed as `S`, the event's own output
//! (for example [`PreToolUseSpecificOutput`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::PermissionUpdate;

/// A hook's JSON output for an event whose `hookSpecificOutput` is `S`.
///
/// ```
/// use toolgate_hooks::{HookBehavior, PreToolUseOutput};
/// let json = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse",
///     "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}"#;
/// let out: PreToolUseOutput = serde_json::from_str(json).unwrap();
/// let specific = out.hook_specific_output.unwrap();
/// assert_eq!(specific.permission_decision, Some(HookBehavior::Deny));
/// assert_eq!(out.continue_, None); // absent means true
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", bound(deserialize = "S: Deserialize<'de>", serialize = "S: Serialize"))]
#[schemars(
    bound = "S: JsonSchema",
    description = "A hook's JSON output: universal fields, the top-level decision and the event's hookSpecificOutput."
)]
pub struct HookOutput<S> {
    /// `false` stops the session after the hooks, whatever else they decided.
    #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Shown to the user when `continue` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Accepted for compatibility; it has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppress_output: Option<bool>,
    /// A warning shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// A terminal notification sequence for the host to emit (hosts filter it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_sequence: Option<String>,
    /// The top-level decision: `block` (events that can block, and PostToolUse
    /// feedback); on PreToolUse the legacy `approve`/`block` mean allow/deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<TopLevelDecision>,
    /// Why, for `decision`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The event's own fields; its `hookEventName` must name the event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<S>,
}

impl<S> Default for HookOutput<S> {
    fn default() -> Self {
        Self {
            continue_: None,
            stop_reason: None,
            suppress_output: None,
            system_message: None,
            terminal_sequence: None,
            decision: None,
            reason: None,
            hook_specific_output: None,
        }
    }
}

/// The top-level `decision` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TopLevelDecision {
    /// Block (or, for PostToolUse, give the model the reason as feedback).
    Block,
    /// Legacy PreToolUse allow.
    Approve,
}

/// A PreToolUse hook's `permissionDecision`. Across several hooks: deny > defer > ask >
/// allow ([`HookBehavior::strictest`]).
///
/// ```
/// use toolgate_hooks::HookBehavior::*;
/// assert_eq!(Allow.strictest(Ask), Ask);
/// assert_eq!(Ask.strictest(Defer), Defer);
/// assert_eq!(Deny.strictest(Defer), Deny);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "A PreToolUse permissionDecision; across several hooks deny > defer > ask > allow.")]
pub enum HookBehavior {
    /// Skip the permission prompt (deny and ask rules still apply).
    Allow,
    /// Prompt the user.
    Ask,
    /// Stop here so that the host can resume the call later (`-p` mode, single call).
    Defer,
    /// Refuse the call; the reason goes to the model.
    Deny,
}

impl HookBehavior {
    fn rank(self) -> u8 {
        match self {
            Self::Allow => 0,
            Self::Ask => 1,
            Self::Defer => 2,
            Self::Deny => 3,
        }
    }

    /// The stricter of two: deny over defer over ask over allow.
    #[must_use]
    pub fn strictest(self, other: Self) -> Self {
        if other.rank() > self.rank() { other } else { self }
    }

    /// `allow`, `ask`, `defer` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Defer => "defer",
            Self::Deny => "deny",
        }
    }

    /// The permission behaviour it maps to; `None` for defer.
    pub fn to_permission(self) -> Option<toolgate_core::PermissionBehavior> {
        match self {
            Self::Allow => Some(toolgate_core::PermissionBehavior::Allow),
            Self::Ask => Some(toolgate_core::PermissionBehavior::Ask),
            Self::Deny => Some(toolgate_core::PermissionBehavior::Deny),
            Self::Defer => None,
        }
    }
}

/// `hookSpecificOutput` of `PreToolUse`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreToolUseSpecificOutput {
    /// Must be `PreToolUse`.
    pub hook_event_name: String,
    /// allow, ask, defer or deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<HookBehavior>,
    /// For deny: told to the model; for allow and ask: shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// Replaces the whole tool input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Map<String, Value>>,
    /// Context for the model, next to the tool result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

/// `hookSpecificOutput.decision` of `PermissionRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequestDecision {
    /// allow or deny.
    pub behavior: PermissionRequestBehavior,
    /// For allow: replaces the whole tool input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Map<String, Value>>,
    /// For allow: permission changes to apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_permissions: Option<Vec<PermissionUpdate>>,
    /// For deny: told to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For deny: also stop the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<bool>,
}

/// A `PermissionRequest` hook's behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionRequestBehavior {
    /// Grant the permission.
    Allow,
    /// Refuse it.
    Deny,
}

/// `hookSpecificOutput` of `PermissionRequest`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequestSpecificOutput {
    /// Must be `PermissionRequest`.
    pub hook_event_name: String,
    /// The decision, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<PermissionRequestDecision>,
}

/// `hookSpecificOutput` of `PostToolUse`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostToolUseSpecificOutput {
    /// Must be `PostToolUse`.
    pub hook_event_name: String,
    /// Context for the model, next to the tool result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Replaces the tool's output (same shape as the tool's output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_tool_output: Option<Value>,
    /// Legacy: replaces an MCP tool's output.
    #[serde(rename = "updatedMCPToolOutput", default, skip_serializing_if = "Option::is_none")]
    pub updated_mcp_tool_output: Option<Value>,
}

/// `hookSpecificOutput` of the events whose only specific field is `additionalContext`:
/// `PostToolUseFailure`, `PostToolBatch`, `Stop`, `SubagentStop`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextSpecificOutput {
    /// Must name the event.
    pub hook_event_name: String,
    /// Context for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
}

/// `hookSpecificOutput` of `UserPromptSubmit`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserPromptSubmitSpecificOutput {
    /// Must be `UserPromptSubmit`.
    pub hook_event_name: String,
    /// Context for the model, next to the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// A title for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
}

/// `hookSpecificOutput` of `SessionStart`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionStartSpecificOutput {
    /// Must be `SessionStart`.
    pub hook_event_name: String,
    /// Context for the model at the start of the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// The first user message (non-interactive mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_user_message: Option<String>,
    /// A title for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// Absolute paths to watch for `FileChanged`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_paths: Option<Vec<String>>,
    /// Re-scan skills after the hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_skills: Option<bool>,
}

/// `hookSpecificOutput` of events without specific fields (`SessionEnd`,
/// `Notification`, `PreCompact`): only the event name.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoSpecificOutput {
    /// Must name the event.
    pub hook_event_name: String,
}

/// `PreToolUse` output.
pub type PreToolUseOutput = HookOutput<PreToolUseSpecificOutput>;
/// `PermissionRequest` output.
pub type PermissionRequestOutput = HookOutput<PermissionRequestSpecificOutput>;
/// `PostToolUse` output.
pub type PostToolUseOutput = HookOutput<PostToolUseSpecificOutput>;
/// `PostToolUseFailure`, `PostToolBatch`, `Stop` and `SubagentStop` output.
pub type ContextOutput = HookOutput<ContextSpecificOutput>;
/// `UserPromptSubmit` output.
pub type UserPromptSubmitOutput = HookOutput<UserPromptSubmitSpecificOutput>;
/// `SessionStart` output.
pub type SessionStartOutput = HookOutput<SessionStartSpecificOutput>;
/// `SessionEnd`, `Notification` and `PreCompact` output.
pub type PlainOutput = HookOutput<NoSpecificOutput>;

/// A `hookSpecificOutput` type: it names its event, and may carry context or a title.
pub trait SpecificOutput {
    /// The `hookEventName` it carries.
    fn hook_event_name(&self) -> &str;

    /// Its `additionalContext`, for events that have one.
    fn additional_context(&self) -> Option<&str> {
        None
    }

    /// Its `sessionTitle`, for events that have one.
    fn session_title(&self) -> Option<&str> {
        None
    }
}

macro_rules! event_name_only {
    ($($t:ty),*) => {$(
        impl SpecificOutput for $t {
            fn hook_event_name(&self) -> &str {
                &self.hook_event_name
            }
        }
    )*};
}

event_name_only!(PermissionRequestSpecificOutput, NoSpecificOutput);

macro_rules! with_context {
    ($($t:ty),*) => {$(
        impl SpecificOutput for $t {
            fn hook_event_name(&self) -> &str {
                &self.hook_event_name
            }

            fn additional_context(&self) -> Option<&str> {
                self.additional_context.as_deref()
            }
        }
    )*};
}

with_context!(PreToolUseSpecificOutput, PostToolUseSpecificOutput, ContextSpecificOutput);

impl SpecificOutput for UserPromptSubmitSpecificOutput {
    fn hook_event_name(&self) -> &str {
        &self.hook_event_name
    }

    fn additional_context(&self) -> Option<&str> {
        self.additional_context.as_deref()
    }

    fn session_title(&self) -> Option<&str> {
        self.session_title.as_deref()
    }
}

impl SpecificOutput for SessionStartSpecificOutput {
    fn hook_event_name(&self) -> &str {
        &self.hook_event_name
    }

    fn additional_context(&self) -> Option<&str> {
        self.additional_context.as_deref()
    }

    fn session_title(&self) -> Option<&str> {
        self.session_title.as_deref()
    }
}
