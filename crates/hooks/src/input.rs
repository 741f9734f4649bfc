//! What a hook receives on stdin (or as an HTTP body): the common fields and each event's
//! own, with exactly Claude Code's field names.
//!
//! Every input struct flattens [`CommonInput`]; [`HookInput`] adds `hook_event_name`. A
//! hook reads JSON such as:
//!
//! ```json
//! {"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/repo","permission_mode":"default",
//!  "hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},
//!  "tool_use_id":"toolu_01"}
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolgate_core::{PermissionBehavior, PermissionMode};

use crate::HookEvent;

/// Fields every event's input carries.
///
/// ```
/// use toolgate_hooks::CommonInput;
/// let common = CommonInput::new("session-1", "/home/me/.claude/projects/x/session-1.jsonl", "/repo");
/// let json = serde_json::to_value(&common).unwrap();
/// assert_eq!(json["cwd"], "/repo");
/// assert!(json.get("agent_id").is_none()); // absent, not null
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(description = "Fields every event's input carries.")]
pub struct CommonInput {
    /// The session's id.
    pub session_id: String,
    /// The conversation transcript (JSON lines).
    pub transcript_path: String,
    /// The working directory when the hook fires.
    pub cwd: String,
    /// The permission mode (`default`, `plan`, `acceptEdits`, `auto`, `dontAsk`,
    /// `bypassPermissions`; never `manual`). Not every event carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::permission_mode")]
    pub permission_mode: Option<PermissionMode>,
    /// The user prompt being processed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The effort level of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// The subagent's id, inside a subagent (and on `SubagentStop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The agent's type, inside a subagent or with `--agent` (and on `SubagentStop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
}

impl CommonInput {
    /// The three fields every input has; the optional ones are absent.
    pub fn new(session_id: impl Into<String>, transcript_path: impl Into<String>, cwd: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            transcript_path: transcript_path.into(),
            cwd: cwd.into(),
            ..Self::default()
        }
    }

    /// With a permission mode.
    #[must_use]
    pub fn with_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }
}

/// The effort level of a turn: `{"level": "high"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Effort {
    /// `low`, `medium`, `high`, `xhigh` or `max`.
    pub level: String,
}

/// `PreToolUse`: a tool call about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreToolUseInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// The tool's name (what matchers filter on).
    pub tool_name: String,
    /// The tool's input, file paths already absolute.
    pub tool_input: Value,
    /// The call's id.
    pub tool_use_id: String,
}

/// `PermissionRequest`: a permission prompt would be shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionRequestInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// The tool's name.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Value,
    /// The "always allow" options the prompt would offer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<PermissionUpdate>,
}

/// `PostToolUse`: a tool call succeeded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PostToolUseInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// The tool's name.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Value,
    /// The tool's output object (e.g. Bash `{stdout, stderr, interrupted, isImage}`).
    pub tool_response: Value,
    /// The call's id.
    pub tool_use_id: String,
    /// How long the tool ran, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// `PostToolUseFailure`: a tool call failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PostToolUseFailureInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// The tool's name.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Value,
    /// The call's id.
    pub tool_use_id: String,
    /// What went wrong, as the model is told.
    pub error: String,
    /// True when the call was aborted rather than failing by itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_interrupt: Option<bool>,
    /// How long the tool ran, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// One call of a batch, as `PostToolBatch` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchToolCall {
    /// The tool's name.
    pub tool_name: String,
    /// The tool's input.
    pub tool_input: Value,
    /// The call's id.
    pub tool_use_id: String,
    /// The `tool_result` content the model receives (a string or content blocks).
    pub tool_response: Value,
}

/// `PostToolBatch`: every call of a batch has resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PostToolBatchInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// The batch's calls, in order.
    pub tool_calls: Vec<BatchToolCall>,
}

/// `UserPromptSubmit`: the user submitted a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UserPromptSubmitInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// The prompt's text.
    pub prompt: String,
}

/// One in-flight background task, as `Stop` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundTask {
    /// The task's id.
    pub id: String,
    /// `shell`, `subagent`, `monitor`, `workflow` …
    #[serde(rename = "type")]
    pub task_type: String,
    /// Its status.
    pub status: String,
    /// What it is doing.
    pub description: String,
    /// The command line (shell tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The subagent type (subagent tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The MCP server (monitor and MCP tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The MCP tool (monitor and MCP tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The workflow's name (workflow tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// One scheduled wake-up of the session, as `Stop` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionCron {
    /// The cron task's id.
    pub id: String,
    /// The cron expression.
    pub schedule: String,
    /// Whether it fires again.
    pub recurring: bool,
    /// The prompt submitted when it fires.
    pub prompt: String,
}

/// `Stop`: the main agent finished its turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StopInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// True when the turn already continues because a Stop hook blocked.
    pub stop_hook_active: bool,
    /// The text of the final response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
    /// Background tasks still running (absent when unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_tasks: Option<Vec<BackgroundTask>>,
    /// Scheduled wake-ups (absent when unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_crons: Option<Vec<SessionCron>>,
}

/// `SubagentStop`: a subagent finished. Its `agent_id` and `agent_type` are the common
/// fields of the same names (set for this event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubagentStopInput {
    /// Common fields, with `agent_id` and `agent_type` set.
    #[serde(flatten)]
    pub common: CommonInput,
    /// True when the subagent already continues because a hook blocked.
    pub stop_hook_active: bool,
    /// The subagent's own transcript.
    pub agent_transcript_path: String,
    /// The text of the subagent's final response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
    /// Background tasks of the parent session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_tasks: Option<Vec<BackgroundTask>>,
    /// Scheduled wake-ups of the parent session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_crons: Option<Vec<SessionCron>>,
}

/// `SessionStart`: a session starts or resumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionStartInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// `startup`, `resume`, `clear`, `compact` or `fork` (what matchers filter on).
    pub source: String,
    /// The model, when known (the only event that carries it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The session's title, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
}

/// `SessionEnd`: the session ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionEndInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// `clear`, `resume`, `logout`, `prompt_input_exit`, `bypass_permissions_disabled` or
    /// `other` (what matchers filter on).
    pub reason: String,
}

/// `Notification`: a notification is sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotificationInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// The notification's text.
    pub message: String,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `permission_prompt`, `idle_prompt`, `auth_success` … (what matchers filter on).
    pub notification_type: String,
}

/// `PreCompact`: compaction is about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PreCompactInput {
    /// Common fields.
    #[serde(flatten)]
    pub common: CommonInput,
    /// `manual` or `auto` (what matchers filter on).
    pub trigger: String,
    /// What the user passed to `/compact` (empty for `auto`).
    pub custom_instructions: String,
}

/// Any typed event's input, tagged with `hook_event_name`.
///
/// ```
/// use toolgate_hooks::{CommonInput, HookEvent, HookInput, UserPromptSubmitInput};
/// let input = HookInput::UserPromptSubmit(UserPromptSubmitInput {
///     common: CommonInput::new("s", "/t.jsonl", "/repo"),
///     prompt: "hello".into(),
/// });
/// let json = serde_json::to_value(&input).unwrap();
/// assert_eq!(json["hook_event_name"], "UserPromptSubmit");
/// assert_eq!(json["prompt"], "hello");
/// let back: HookInput = serde_json::from_value(json).unwrap();
/// assert_eq!(back.event(), HookEvent::UserPromptSubmit);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "hook_event_name")]
#[non_exhaustive]
pub enum HookInput {
    /// `PreToolUse`.
    PreToolUse(PreToolUseInput),
    /// `PermissionRequest`.
    PermissionRequest(PermissionRequestInput),
    /// `PostToolUse`.
    PostToolUse(PostToolUseInput),
    /// `PostToolUseFailure`.
    PostToolUseFailure(PostToolUseFailureInput),
    /// `PostToolBatch`.
    PostToolBatch(PostToolBatchInput),
    /// `UserPromptSubmit`.
    UserPromptSubmit(UserPromptSubmitInput),
    /// `Stop`.
    Stop(StopInput),
    /// `SubagentStop`.
    SubagentStop(SubagentStopInput),
    /// `SessionStart`.
    SessionStart(SessionStartInput),
    /// `SessionEnd`.
    SessionEnd(SessionEndInput),
    /// `Notification`.
    Notification(NotificationInput),
    /// `PreCompact`.
    PreCompact(PreCompactInput),
}

impl HookInput {
    /// The event.
    pub fn event(&self) -> HookEvent {
        match self {
            Self::PreToolUse(_) => HookEvent::PreToolUse,
            Self::PermissionRequest(_) => HookEvent::PermissionRequest,
            Self::PostToolUse(_) => HookEvent::PostToolUse,
            Self::PostToolUseFailure(_) => HookEvent::PostToolUseFailure,
            Self::PostToolBatch(_) => HookEvent::PostToolBatch,
            Self::UserPromptSubmit(_) => HookEvent::UserPromptSubmit,
            Self::Stop(_) => HookEvent::Stop,
            Self::SubagentStop(_) => HookEvent::SubagentStop,
            Self::SessionStart(_) => HookEvent::SessionStart,
            Self::SessionEnd(_) => HookEvent::SessionEnd,
            Self::Notification(_) => HookEvent::Notification,
            Self::PreCompact(_) => HookEvent::PreCompact,
        }
    }

    /// The common fields.
    pub fn common(&self) -> &CommonInput {
        match self {
            Self::PreToolUse(i) => &i.common,
            Self::PermissionRequest(i) => &i.common,
            Self::PostToolUse(i) => &i.common,
            Self::PostToolUseFailure(i) => &i.common,
            Self::PostToolBatch(i) => &i.common,
            Self::UserPromptSubmit(i) => &i.common,
            Self::Stop(i) => &i.common,
            Self::SubagentStop(i) => &i.common,
            Self::SessionStart(i) => &i.common,
            Self::SessionEnd(i) => &i.common,
            Self::Notification(i) => &i.common,
            Self::PreCompact(i) => &i.common,
        }
    }

    /// The value the event's matchers filter on: the tool name, the session source, the
    /// end reason, the notification type, the compaction trigger or the agent type; `None`
    /// for events without matcher support.
    pub fn matcher_value(&self) -> Option<&str> {
        match self {
            Self::PreToolUse(i) => Some(&i.tool_name),
            Self::PermissionRequest(i) => Some(&i.tool_name),
            Self::PostToolUse(i) => Some(&i.tool_name),
            Self::PostToolUseFailure(i) => Some(&i.tool_name),
            Self::SessionStart(i) => Some(&i.source),
            Self::SessionEnd(i) => Some(&i.reason),
            Self::Notification(i) => Some(&i.notification_type),
            Self::PreCompact(i) => Some(&i.trigger),
            Self::SubagentStop(i) => Some(i.common.agent_type.as_deref().unwrap_or("")),
            Self::PostToolBatch(_) | Self::UserPromptSubmit(_) | Self::Stop(_) => None,
        }
    }

    /// The tool call (name and input) of a tool event, for `if` conditions.
    pub fn tool_call(&self) -> Option<(&str, &Value)> {
        match self {
            Self::PreToolUse(i) => Some((&i.tool_name, &i.tool_input)),
            Self::PermissionRequest(i) => Some((&i.tool_name, &i.tool_input)),
            Self::PostToolUse(i) => Some((&i.tool_name, &i.tool_input)),
            Self::PostToolUseFailure(i) => Some((&i.tool_name, &i.tool_input)),
            _ => None,
        }
    }
}

/// Where a permission update is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum UpdateDestination {
    /// In memory, for this session only.
    Session,
    /// `.claude/settings.local.json`.
    LocalSettings,
    /// `.claude/settings.json`.
    ProjectSettings,
    /// `~/.claude/settings.json`.
    UserSettings,
}

/// A rule in a permission update: a tool and, optionally, its specifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleValue {
    /// The tool (`Bash`, `Edit`, `mcp__server__tool` …).
    pub tool_name: String,
    /// The specifier (`npm run test:*`); absent for the whole tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

/// A change to permissions, as `permission_suggestions` offers and a `PermissionRequest`
/// hook's `updatedPermissions` applies.
///
/// ```
/// use toolgate_hooks::PermissionUpdate;
/// let json = serde_json::json!({
///     "type": "addRules",
///     "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
///     "behavior": "allow",
///     "destination": "localSettings"
/// });
/// let update: PermissionUpdate = serde_json::from_value(json.clone()).unwrap();
/// assert!(matches!(update, PermissionUpdate::AddRules { .. }));
/// assert_eq!(serde_json::to_value(&update).unwrap(), json);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
#[schemars(description = "A change to permissions: rules, the mode or working directories.")]
#[non_exhaustive]
pub enum PermissionUpdate {
    /// Adds rules.
    AddRules {
        /// The rules.
        rules: Vec<RuleValue>,
        /// allow, ask or deny.
        #[schemars(schema_with = "crate::schema::permission_behavior")]
        behavior: PermissionBehavior,
        /// Where.
        destination: UpdateDestination,
    },
    /// Replaces every rule of `behavior` at `destination`.
    ReplaceRules {
        /// The rules.
        rules: Vec<RuleValue>,
        /// allow, ask or deny.
        #[schemars(schema_with = "crate::schema::permission_behavior")]
        behavior: PermissionBehavior,
        /// Where.
        destination: UpdateDestination,
    },
    /// Removes matching rules of `behavior`.
    RemoveRules {
        /// The rules.
        rules: Vec<RuleValue>,
        /// allow, ask or deny.
        #[schemars(schema_with = "crate::schema::permission_behavior")]
        behavior: PermissionBehavior,
        /// Where.
        destination: UpdateDestination,
    },
    /// Changes the permission mode (`manual` is read as `default`).
    SetMode {
        /// The mode.
        #[schemars(schema_with = "crate::schema::permission_mode_input")]
        mode: PermissionMode,
        /// Where.
        destination: UpdateDestination,
    },
    /// Adds working directories.
    AddDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where.
        destination: UpdateDestination,
    },
    /// Removes working directories.
    RemoveDirectories {
        /// The directories.
        directories: Vec<String>,
        /// Where.
        destination: UpdateDestination,
    },
}
