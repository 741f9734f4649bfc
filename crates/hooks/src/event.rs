//! [`HookEvent`]: the points in a session where hooks run, with what each event supports
//! (a matcher, blocking, the `if` field) and its default timeout.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A hook event, named as in Claude Code's settings.
///
/// The first twelve have typed inputs and outcomes in this crate (see
/// [`crate::HookRunner`]); the others are recognised in settings, so their hooks load
/// without a diagnostic, and can be run with [`crate::HookRunner::run_raw`].
///
/// ```
/// use toolgate_hooks::HookEvent;
/// let e: HookEvent = "PreToolUse".parse().unwrap();
/// assert_eq!(e, HookEvent::PreToolUse);
/// assert!(e.is_tool_event() && e.supports_matcher());
/// assert!(!HookEvent::Stop.supports_matcher());
/// assert_eq!(HookEvent::UserPromptSubmit.default_timeout().as_secs(), 30);
/// assert!("PreToolUsee".parse::<HookEvent>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before a tool call runs (after validation, before permission).
    PreToolUse,
    /// When a permission prompt would be shown.
    PermissionRequest,
    /// After a tool call succeeded.
    PostToolUse,
    /// After a tool call failed.
    PostToolUseFailure,
    /// After a batch of parallel tool calls resolved.
    PostToolBatch,
    /// When the user submits a prompt.
    UserPromptSubmit,
    /// When the main agent finishes its turn.
    Stop,
    /// When a subagent finishes.
    SubagentStop,
    /// When a session starts or resumes.
    SessionStart,
    /// When a session ends.
    SessionEnd,
    /// When a notification is sent.
    Notification,
    /// Before context compaction.
    PreCompact,
    /// After context compaction.
    PostCompact,
    /// When the auto-mode classifier denied a call.
    PermissionDenied,
    /// When a subagent is spawned.
    SubagentStart,
    /// When a turn ended on an API error.
    StopFailure,
    /// `--init` / `--maintenance`.
    Setup,
    /// When a typed command expands into a prompt.
    UserPromptExpansion,
    /// While assistant text is displayed.
    MessageDisplay,
    /// When an instructions file is loaded.
    InstructionsLoaded,
    /// When a configuration file changes.
    ConfigChange,
    /// When the working directory changes.
    CwdChanged,
    /// When a working directory is added.
    DirectoryAdded,
    /// When a watched file changes.
    FileChanged,
    /// When a worktree is created.
    WorktreeCreate,
    /// When a worktree is removed.
    WorktreeRemove,
    /// When a teammate is about to go idle.
    TeammateIdle,
    /// When a task is created.
    TaskCreated,
    /// When a task is completed.
    TaskCompleted,
    /// When an MCP server asks for user input.
    Elicitation,
    /// After the user answered an MCP elicitation.
    ElicitationResult,
}

impl HookEvent {
    /// Every event, in the order above.
    pub const ALL: [HookEvent; 31] = [
        Self::PreToolUse,
        Self::PermissionRequest,
        Self::PostToolUse,
        Self::PostToolUseFailure,
        Self::PostToolBatch,
        Self::UserPromptSubmit,
        Self::Stop,
        Self::SubagentStop,
        Self::SessionStart,
        Self::SessionEnd,
        Self::Notification,
        Self::PreCompact,
        Self::PostCompact,
        Self::PermissionDenied,
        Self::SubagentStart,
        Self::StopFailure,
        Self::Setup,
        Self::UserPromptExpansion,
        Self::MessageDisplay,
        Self::InstructionsLoaded,
        Self::ConfigChange,
        Self::CwdChanged,
        Self::DirectoryAdded,
        Self::FileChanged,
        Self::WorktreeCreate,
        Self::WorktreeRemove,
        Self::TeammateIdle,
        Self::TaskCreated,
        Self::TaskCompleted,
        Self::Elicitation,
        Self::ElicitationResult,
    ];

    /// The events with typed inputs, outputs and outcomes in this crate.
    pub const TYPED: [HookEvent; 12] = [
        Self::PreToolUse,
        Self::PermissionRequest,
        Self::PostToolUse,
        Self::PostToolUseFailure,
        Self::PostToolBatch,
        Self::UserPromptSubmit,
        Self::Stop,
        Self::SubagentStop,
        Self::SessionStart,
        Self::SessionEnd,
        Self::Notification,
        Self::PreCompact,
    ];

    /// The name used in settings and in `hook_event_name`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PermissionRequest => "PermissionRequest",
            Self::PostToolUse => "PostToolUse",
            Self::PostToolUseFailure => "PostToolUseFailure",
            Self::PostToolBatch => "PostToolBatch",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::SessionStart => "SessionStart",
            Self::SessionEnd => "SessionEnd",
            Self::Notification => "Notification",
            Self::PreCompact => "PreCompact",
            Self::PostCompact => "PostCompact",
            Self::PermissionDenied => "PermissionDenied",
            Self::SubagentStart => "SubagentStart",
            Self::StopFailure => "StopFailure",
            Self::Setup => "Setup",
            Self::UserPromptExpansion => "UserPromptExpansion",
            Self::MessageDisplay => "MessageDisplay",
            Self::InstructionsLoaded => "InstructionsLoaded",
            Self::ConfigChange => "ConfigChange",
            Self::CwdChanged => "CwdChanged",
            Self::DirectoryAdded => "DirectoryAdded",
            Self::FileChanged => "FileChanged",
            Self::WorktreeCreate => "WorktreeCreate",
            Self::WorktreeRemove => "WorktreeRemove",
            Self::TeammateIdle => "TeammateIdle",
            Self::TaskCreated => "TaskCreated",
            Self::TaskCompleted => "TaskCompleted",
            Self::Elicitation => "Elicitation",
            Self::ElicitationResult => "ElicitationResult",
        }
    }

    /// Events fired for a tool call; the only ones where a handler's `if` is evaluated
    /// (elsewhere a handler with `if` never runs).
    pub fn is_tool_event(self) -> bool {
        matches!(
            self,
            Self::PreToolUse
                | Self::PermissionRequest
                | Self::PostToolUse
                | Self::PostToolUseFailure
                | Self::PermissionDenied
        )
    }

    /// Whether the event's matcher groups filter on a value (tool name, source, reason …);
    /// on the others a `matcher` is ignored and every group runs.
    pub fn supports_matcher(self) -> bool {
        !matches!(
            self,
            Self::UserPromptSubmit
                | Self::PostToolBatch
                | Self::Stop
                | Self::TeammateIdle
                | Self::TaskCreated
                | Self::TaskCompleted
                | Self::WorktreeCreate
                | Self::WorktreeRemove
                | Self::MessageDisplay
                | Self::CwdChanged
        )
    }

    /// Whether exit code 2 (or a JSON block) stops what the event is about.
    pub fn can_block(self) -> bool {
        matches!(
            self,
            Self::PreToolUse
                | Self::PermissionRequest
                | Self::UserPromptSubmit
                | Self::UserPromptExpansion
                | Self::Stop
                | Self::SubagentStop
                | Self::TeammateIdle
                | Self::TaskCreated
                | Self::TaskCompleted
                | Self::ConfigChange
                | Self::PostToolBatch
                | Self::PreCompact
                | Self::Elicitation
                | Self::ElicitationResult
                | Self::WorktreeCreate
        )
    }

    /// Whether plain (non-JSON) stdout on exit 0 becomes context for the model.
    pub fn plain_stdout_is_context(self) -> bool {
        matches!(self, Self::UserPromptSubmit | Self::UserPromptExpansion | Self::SessionStart)
    }

    /// The timeout of a command or http handler that sets none: 600 s, except
    /// `UserPromptSubmit` (30 s), `MessageDisplay` (10 s) and `SessionEnd` (1.5 s).
    pub fn default_timeout(self) -> Duration {
        match self {
            Self::UserPromptSubmit => Duration::from_secs(30),
            Self::MessageDisplay => Duration::from_secs(10),
            Self::SessionEnd => Duration::from_millis(1_500),
            _ => Duration::from_secs(600),
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event name that is not one of Claude Code's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown hook event '{0}'")]
pub struct UnknownEvent(pub String);

impl FromStr for HookEvent {
    type Err = UnknownEvent;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|e| e.as_str() == s).ok_or_else(|| UnknownEvent(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for event in HookEvent::ALL {
            assert_eq!(event.as_str().parse::<HookEvent>().unwrap(), event);
        }
        for event in HookEvent::TYPED {
            assert!(HookEvent::ALL.contains(&event));
        }
    }

    #[test]
    fn tool_events_support_matchers() {
        for event in HookEvent::ALL.into_iter().filter(|e| e.is_tool_event()) {
            assert!(event.supports_matcher(), "{event}");
        }
    }
}
