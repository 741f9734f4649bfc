//! toolgate-permissions: Claude Code's permission rules, modes and layered decisions.
//!
//! The engine decides allow, ask or deny for every call and always says why. It reads the
//! files a Claude Code user already has ([`SettingsDiscovery`]: managed, user, project,
//! local and command-line settings, merged as Claude Code merges them), compiles their
//! rules once ([`PermissionRule`] grammar; [`CommandPattern`], [`PathPattern`],
//! [`DomainPattern`] specifiers) and evaluates each call in Claude Code's order
//! ([`PermissionEngine`]). Shell commands are judged on how bash reads them
//! ([`toolgate_shell`]), never on the string: every subcommand must be allowed on its own,
//! any one may deny the whole.
//!
//! ```
//! use serde_json::json;
//! use toolgate_core::{PermissionBehavior, ToolBuilder, ToolContext};
//! use toolgate_permissions::{PermissionEngine, PermissionSettings};
//!
//! let engine = PermissionEngine::builder(PermissionSettings::default()).build();
//! let bash = ToolBuilder::new("Bash").build();
//! let ctx = ToolContext::new("/repo");
//! let read_only = engine.evaluate(&*bash, &json!({"command": "git status"}), &ctx, None);
//! assert_eq!(read_only.decision.behavior, PermissionBehavior::Allow);
//! let write = engine.evaluate(&*bash, &json!({"command": "git push"}), &ctx, None);
//! assert_eq!(write.decision.behavior, PermissionBehavior::Ask);
//! assert_eq!(write.suggestions, ["Bash(git push:*)"]);
//! ```

mod bash;
mod classifier;
mod condition;
mod content;
mod engine;
#[cfg(feature = "llm")]
mod llm;
mod path_rule;
mod pattern;
mod program_files;
mod prompt;
mod real_path;
mod rule;
mod rule_index;
mod rules;
mod safety;
mod settings;
mod trust;

pub use classifier::{Classifier, ClassifierRequest, ClassifierVerdict, StaticBashClassifier};
pub use condition::{CallCondition, rule_matches_call};
pub use engine::{
    Decided, Evaluation, HookVerdict, LayerVerdict, PermissionEngine, PermissionEngineBuilder, PermissionRequestHooks,
    RequestHookVerdict,
};
#[cfg(feature = "llm")]
pub use llm::{LlmClassifier, LlmClassifierConfig, MessagesClient};
pub use path_rule::{DomainPattern, PathContext, PathPattern, path_forms};
pub use pattern::CommandPattern;
pub use program_files::program_redirect;
pub use prompt::{PromptAnswer, PromptRequest, Prompter, persist_allow_rules, suggest_rules, update_settings_file};
pub use rule::{PermissionRule, RuleParseError, canonical_rule_tool};
pub use rules::Family;
pub use safety::{critical_rm_reason, protected_path_reason};
pub use settings::{
    Diagnostic, LoadedSettings, PROGRAMS_FILE, PermissionSettings, RuleEntry, SettingsDiscovery, SettingsFile,
};
pub use trust::{claude_json_path, record_trust, trusted_by};
