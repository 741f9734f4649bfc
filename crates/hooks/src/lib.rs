//! toolgate-hooks: Claude Code's hooks for toolgate.
//!
//! A user's `hooks` settings map an event to matcher groups, each with handlers to run.
//! This crate reads that configuration from every settings source, runs the handlers an
//! event matches as real processes (or HTTP requests), and turns what they say into typed
//! outcomes for the pipeline and the permission engine. Existing Claude Code `hooks`
//! settings work unchanged.
//!
//! - [`HooksConfig`]: the merged configuration, with [`Diagnostic`]s for bad entries;
//! - [`Matcher`]: which tool names (or sources, reasons …) a matcher group applies to;
//! - [`HookRunner`]: selects, dedupes and runs handlers in parallel, each in its own
//!   process group under its timeout, and combines their answers;
//! - the typed inputs ([`PreToolUseInput`] …, [`HookInput`]) and outputs
//!   ([`HookOutput`] …) with Claude Code's field names, and their JSON Schemas
//!   ([`input_schema`], [`output_schema`]);
//! - the outcomes ([`PreToolUseOutcome`], [`PermissionRequestOutcome`],
//!   [`PostToolUseOutcome`], [`EventOutcome`], [`SessionStartOutcome`]).
//!
//! ```
//! use toolgate_core::CancellationToken;
//! use toolgate_hooks::{CommonInput, HookRunner, HookSource, HooksConfig, PreToolUseInput};
//!
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let project = tempfile::tempdir().unwrap();
//! // A hook that refuses `rm` with exit code 2; its stderr is the reason the model sees.
//! let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//!     {"type": "command", "if": "Bash(rm *)", "command": "echo 'rm is not allowed here' >&2; exit 2"}
//! ]}]}});
//! let config = HooksConfig::builder().add(HookSource::project("/repo/.claude/settings.json"), &settings).build();
//! let runner = HookRunner::new(config, project.path());
//! let call = |command: &str| PreToolUseInput {
//!     common: CommonInput::new("s1", "/t.jsonl", project.path().to_str().unwrap()),
//!     tool_name: "Bash".into(),
//!     tool_input: serde_json::json!({"command": command}),
//!     tool_use_id: "toolu_01".into(),
//! };
//! let cancel = CancellationToken::new();
//! let blocked = runner.pre_tool_use(&call("git status && rm -rf build"), &cancel).await;
//! assert_eq!(blocked.blocked.unwrap().reason, "rm is not allowed here");
//! let fine = runner.pre_tool_use(&call("git status"), &cancel).await;
//! assert!(fine.blocked.is_none() && fine.runs.is_empty()); // `if` did not match: nothing ran
//! # });
//! ```

mod config;
mod event;
mod http;
mod input;
mod matcher;
mod mcp_tool;
mod outcome;
mod output;
mod prompt;
mod runner;
mod schema;

pub use config::{
    Background, CommandHook, Diagnostic, HandlerKind, HookHandler, HookSource, HooksConfig, HooksConfigBuilder,
    HttpHook, MatcherGroup, Shell, SourceKind,
};
pub use event::{HookEvent, UnknownEvent};
pub use input::{
    BackgroundTask, BatchToolCall, CommonInput, Effort, HookInput, NotificationInput, PermissionRequestInput,
    PermissionUpdate, PostToolBatchInput, PostToolUseFailureInput, PostToolUseInput, PreCompactInput, PreToolUseInput,
    RuleValue, SessionCron, SessionEndInput, SessionStartInput, StopInput, SubagentStopInput, UpdateDestination,
    UserPromptSubmitInput,
};
pub use matcher::Matcher;
pub use mcp_tool::McpToolCaller;
pub use outcome::{
    AnyOutcome, EventOutcome, HandlerReport, HandlerResult, HookBlock, HookDecision, HookError, HookMessage, HookRef,
    HookResponse, HookStop, PermissionRequestOutcome, PermissionVerdict, PostToolUseOutcome, PreToolUseOutcome,
    RunStatus, SessionStartOutcome,
};
pub use output::{
    ContextOutput, ContextSpecificOutput, HookBehavior, HookOutput, NoSpecificOutput, PermissionRequestBehavior,
    PermissionRequestDecision, PermissionRequestOutput, PermissionRequestSpecificOutput, PlainOutput,
    PostToolUseOutput, PostToolUseSpecificOutput, PreToolUseOutput, PreToolUseSpecificOutput, SessionStartOutput,
    SessionStartSpecificOutput, SpecificOutput, TopLevelDecision, UserPromptSubmitOutput,
    UserPromptSubmitSpecificOutput,
};
pub use prompt::HookAgent;
pub use runner::{BackgroundResult, DEFAULT_HOOK_OUTPUT_BYTES, HOOK_OUTPUT_CAP_CHARS, HookRunner, HookTools, RawRun};
pub use schema::{input_schema, output_schema};
