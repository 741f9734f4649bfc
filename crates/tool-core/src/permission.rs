//! Permission decision *types*, shared by tools (their own check), the permission engine
//! (in `toolgate-permissions`), hooks and the pipeline. The engine itself lives elsewhere.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The session's permission mode, as Claude Code names them.
///
/// ```
/// use toolgate_core::PermissionMode;
/// assert_eq!("acceptEdits".parse::<PermissionMode>().unwrap(), PermissionMode::AcceptEdits);
/// assert_eq!("manual".parse::<PermissionMode>().unwrap(), PermissionMode::Default);
/// assert_eq!(PermissionMode::DontAsk.to_string(), "dontAsk");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum PermissionMode {
    /// Reads inside the working dirs and read-only commands run; everything else asks.
    #[default]
    #[serde(rename = "default", alias = "manual")]
    Default,
    /// Also file edits and simple file-system commands inside the working dirs.
    #[serde(rename = "acceptEdits")]
    AcceptEdits,
    /// Read-only work only, until a plan is approved.
    #[serde(rename = "plan")]
    Plan,
    /// A classifier reviews what would ask.
    #[serde(rename = "auto")]
    Auto,
    /// Every would-be prompt is denied.
    #[serde(rename = "dontAsk")]
    DontAsk,
    /// Everything runs, except what deny rules, ask rules and safety checks stop.
    #[serde(rename = "bypassPermissions")]
    BypassPermissions,
}

impl PermissionMode {
    /// The name used in settings files and hook input.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::Plan => "plan",
            Self::Auto => "auto",
            Self::DontAsk => "dontAsk",
            Self::BypassPermissions => "bypassPermissions",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permission mode name that is not one of Claude Code's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown permission mode '{0}' (expected default, acceptEdits, plan, auto, dontAsk or bypassPermissions)")]
pub struct UnknownMode(pub String);

impl FromStr for PermissionMode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "default" | "manual" => Self::Default,
            "acceptEdits" => Self::AcceptEdits,
            "plan" => Self::Plan,
            "auto" => Self::Auto,
            "dontAsk" => Self::DontAsk,
            "bypassPermissions" => Self::BypassPermissions,
            other => return Err(UnknownMode(other.to_owned())),
        })
    }
}

/// The three outcomes of a permission decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionBehavior {
    /// The call runs.
    Allow,
    /// A person must approve the call.
    Ask,
    /// The call does not run.
    Deny,
}

impl PermissionBehavior {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }

    /// The stricter of two behaviours: deny over ask over allow.
    ///
    /// ```
    /// use toolgate_core::PermissionBehavior::*;
    /// assert_eq!(Allow.strictest(Ask), Ask);
    /// assert_eq!(Deny.strictest(Ask), Deny);
    /// ```
    #[must_use]
    pub fn strictest(self, other: Self) -> Self {
        fn rank(b: PermissionBehavior) -> u8 {
            match b {
                PermissionBehavior::Allow => 0,
                PermissionBehavior::Ask => 1,
                PermissionBehavior::Deny => 2,
            }
        }
        if rank(other) > rank(self) { other } else { self }
    }
}

impl fmt::Display for PermissionBehavior {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a settings rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum RuleSource {
    /// `~/.claude/settings.json`.
    UserSettings,
    /// `.claude/settings.json`.
    ProjectSettings,
    /// `.claude/settings.local.json`.
    LocalSettings,
    /// A `--settings FILE`.
    FlagSettings,
    /// Managed settings (`/etc/claude-code/...`).
    PolicySettings,
    /// Command-line rules (`--allowedTools`, `--disallowedTools`).
    CliArg,
    /// Rules added during this session (e.g. "allow once for this session").
    Session,
}

impl RuleSource {
    /// The Claude Code name of the source.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UserSettings => "userSettings",
            Self::ProjectSettings => "projectSettings",
            Self::LocalSettings => "localSettings",
            Self::FlagSettings => "flagSettings",
            Self::PolicySettings => "policySettings",
            Self::CliArg => "cliArg",
            Self::Session => "session",
        }
    }
}

/// Why a decision came out as it did. Every decision carries one.
///
/// ```
/// use toolgate_core::DecisionReason;
/// let r = DecisionReason::Rule { rule: "Bash(git *)".into(), source: "/repo/.claude/settings.json".into() };
/// assert_eq!(r.kind(), "rule");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecisionReason {
    /// A settings rule matched.
    Rule {
        /// The rule as written.
        rule: String,
        /// The file (or command-line flag) it came from.
        source: String,
    },
    /// The permission mode decided.
    Mode {
        /// The mode.
        mode: PermissionMode,
    },
    /// A hook decided.
    Hook {
        /// The hook's command or name.
        hook: String,
        /// The reason it gave, if any.
        reason: Option<String>,
    },
    /// A classifier decided.
    Classifier {
        /// The classifier's name (`static-bash`, `llm`).
        classifier: String,
        /// Its explanation.
        reason: String,
    },
    /// The person answered a prompt.
    User {
        /// Whether they chose to remember the answer.
        remembered: bool,
    },
    /// The tool's own check decided (e.g. a read inside the working dirs).
    Tool {
        /// What the tool said.
        detail: String,
    },
    /// A safety check that rules cannot override (protected paths, critical `rm`).
    Safety {
        /// What was unsafe.
        detail: String,
    },
    /// Nothing decided, so the default applied.
    Default,
}

impl DecisionReason {
    /// The kind, as the CLI's `check --json` prints it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Rule { .. } => "rule",
            Self::Mode { .. } => "mode",
            Self::Hook { .. } => "hook",
            Self::Classifier { .. } => "classifier",
            Self::User { .. } => "user",
            Self::Tool { .. } => "tool",
            Self::Safety { .. } => "safety",
            Self::Default => "default",
        }
    }
}

/// A complete decision: the behaviour, why, and a message for the model or person.
///
/// ```
/// use toolgate_core::{PermissionDecision, PermissionBehavior, DecisionReason, PermissionMode};
/// let d = PermissionDecision::new(
///     PermissionBehavior::Allow,
///     DecisionReason::Mode { mode: PermissionMode::BypassPermissions },
///     "bypassPermissions mode allows every call",
/// );
/// assert!(d.is_allow());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionDecision {
    /// Allow, ask or deny.
    pub behavior: PermissionBehavior,
    /// Why.
    pub reason: DecisionReason,
    /// A sentence: what was decided and, on deny, what would allow it.
    pub message: String,
}

impl PermissionDecision {
    /// A decision.
    pub fn new(behavior: PermissionBehavior, reason: DecisionReason, message: impl Into<String>) -> Self {
        Self { behavior, reason, message: message.into() }
    }

    /// True for allow.
    pub fn is_allow(&self) -> bool {
        self.behavior == PermissionBehavior::Allow
    }
}

/// What a tool's own `check_permissions` says, before modes and tool-wide rules.
///
/// The default, [`PermissionCheck::Passthrough`], leaves the call to the engine's rules
/// and modes: a tool that says nothing is asked about (fail closed), never allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionCheck {
    /// The tool has no opinion; the engine decides.
    Passthrough,
    /// The tool allows the call (e.g. a read inside the working dirs).
    Allow {
        /// Why.
        detail: String,
    },
    /// The tool wants a person to decide.
    Ask {
        /// Why.
        detail: String,
    },
    /// The call starts a program (LSP's language server, which may run the project's code):
    /// a rule or a mode may approve it, but never its being a read; nothing deciding, it asks
    /// with this reason.
    NotAutomatic {
        /// What it starts, in a sentence.
        detail: String,
    },
    /// The tool refuses the call.
    Deny {
        /// Why.
        detail: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_through_serde_and_strings() {
        for mode in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
            PermissionMode::Auto,
            PermissionMode::DontAsk,
            PermissionMode::BypassPermissions,
        ] {
            let json = serde_json::to_value(mode).unwrap();
            assert_eq!(json.as_str(), Some(mode.as_str()));
            assert_eq!(mode.as_str().parse::<PermissionMode>().unwrap(), mode);
        }
        assert_eq!(serde_json::from_str::<PermissionMode>("\"manual\"").unwrap(), PermissionMode::Default);
        assert!("yolo".parse::<PermissionMode>().is_err());
    }

    #[test]
    fn strictest_is_deny_over_ask_over_allow() {
        use PermissionBehavior::*;
        for (a, b, want) in
            [(Allow, Allow, Allow), (Allow, Ask, Ask), (Ask, Allow, Ask), (Ask, Deny, Deny), (Deny, Allow, Deny)]
        {
            assert_eq!(a.strictest(b), want, "{a} vs {b}");
        }
    }

    #[test]
    fn reasons_serialize_with_their_kind() {
        let r = DecisionReason::Safety { detail: "writes .git/config".into() };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["kind"], "safety");
        assert_eq!(r.kind(), "safety");
    }
}
