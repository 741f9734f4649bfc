//! toolgate-pipeline: a message's tool calls in, one ordered result per call out.
//!
//! This crate is where toolgate comes together. A [`Session`] looks each call up,
//! validates it, runs PreToolUse hooks and the permission engine, executes it, runs
//! PostToolUse hooks and shapes the result, for every call of a message, in order (the
//! seven steps are listed on [`Session`]). Consecutive concurrency-safe calls share a
//! batch and run together; any other call runs alone ([`plan_batches`]). Messages come in
//! and go out in the Anthropic or OpenAI shape ([`calls_from_anthropic`],
//! [`calls_from_openai`]).
//!
//! ```
//! use serde_json::json;
//! use toolgate_core::{PermissionMode, ToolBuilder, ToolOutput, ToolPool};
//! use toolgate_pipeline::{Session, ToolCall};
//!
//! let pool = ToolPool::builder()
//!     .builtin(
//!         ToolBuilder::new("Echo")
//!             .schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
//!             .call(|input, _| async move { Ok(ToolOutput::text(input["text"].as_str().unwrap_or_default())) })
//!             .build(),
//!     )
//!     .build();
//! let session = Session::builder().pool(pool).cwd("/tmp").mode(PermissionMode::BypassPermissions).build();
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let results = rt.block_on(session.run_message(vec![
//!     ToolCall::new("t1", "Echo", json!({"text": "hi"})),
//!     ToolCall::new("t2", "Echo", json!({"text": 5})),
//!     ToolCall::new("t3", "Ehco", json!({})),
//! ]));
//! assert_eq!(results[0].content[0].as_text(), Some("hi"));
//! assert!(results[1].is_error); // text: expected string, got number 5
//! assert!(results[2].content[0].as_text().unwrap().contains("Did you mean Echo?"));
//! ```

mod batch;
mod dispatch;
mod format;
mod hook_adapter;
mod session;
mod wire;

pub use batch::{Batch, plan_batches};
pub use dispatch::{BatchCall, BatchHookOutcome, HookCall, HookDispatch, PostHookOutcome, PreHookOutcome};
pub use format::{
    MalformedCall, anthropic_user_message, calls_from_anthropic, calls_from_openai, openai_tool_messages,
};
pub use hook_adapter::RunnerHooks;
pub use session::{DEFAULT_MAX_CONCURRENCY, Event, EventSink, Session, SessionBuilder, ToolStats, hooks_config};
pub use wire::{ToolCall, ToolResultBlock};
