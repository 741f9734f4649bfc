//! toolgate-core: the contract every toolgate tool and host shares.
//!
//! A model emits tool calls; toolgate decides whether each may run, runs it, and returns
//! results a model can learn from. This crate holds what every other crate agrees on:
//!
//! - [`Tool`], the dyn-safe trait with fail-closed [`defaults`]; [`TypedTool`] for tools
//!   whose input is a Rust type, and [`ToolBuilder`] for tools made of closures;
//! - [`ToolContext`], the narrow view of the session a call gets;
//! - [`ToolOutput`] and [`ToolError`] (errors as data for the model);
//! - [`InputSchema`], step 2 of the pipeline: schema validation with messages a model
//!   can act on;
//! - [`ToolPool`], the cache-stable, de-duplicated tool list, with deferred loading and
//!   the [`ToolSearchTool`];
//! - [`ResultStore`], persisting results too large for the context;
//! - [`FileStateCache`], what has been read, for read-before-write checks;
//! - the permission decision *types* ([`PermissionDecision`], [`DecisionReason`] …);
//! - with the `http` feature, `http::client_builder`, where every HTTP client toolgate
//!   builds starts (it installs the TLS crypto provider once).
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use toolgate_core::{ToolContext, ToolError, ToolOutput, ToolPool, TypedTool, typed};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddInput { a: i64, b: i64 }
//!
//! struct Add;
//! impl TypedTool for Add {
//!     type Input = AddInput;
//!     type Output = ToolOutput;
//!     fn name(&self) -> &'static str { "Add" }
//!     fn description(&self) -> String { "Adds two integers.".into() }
//!     fn render_use(&self, input: &AddInput) -> String { format!("Add({}, {})", input.a, input.b) }
//!     fn is_read_only(&self, _: &AddInput) -> bool { true }
//!     async fn call(&self, input: AddInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text((input.a + input.b).to_string()))
//!     }
//! }
//!
//! let pool = ToolPool::builder().builtin(typed(Add)).build();
//! let tool = pool.get("Add").unwrap();
//! let schema = pool.schema("Add").unwrap();
//! // "30" is coerced to 30, as Claude Code does for numbers sent as strings.
//! let raw = serde_json::json!({"a": "30", "b": 12});
//! let input = schema.validate(&raw).unwrap();
//! let ctx = ToolContext::new("/tmp");
//! let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! let out = rt.block_on(tool.call(input.into_owned(), &ctx)).unwrap();
//! assert_eq!(out.to_text(), "42");
//! ```

mod builder;
mod context;
mod deferred;
mod error;
mod file_state;
mod file_uri;
mod hidden;
#[cfg(feature = "http")]
pub mod http;
mod output;
mod permission;
mod pool;
pub mod process;
mod render;
mod results;
mod sandbox;
mod search_index;
mod target;
mod tool;
mod tool_search;
mod typed;
mod validate;

pub use builder::ToolBuilder;
pub use context::{AppState, CancellationToken, Extensions, Progress, ProgressSink, ToolContext, normalize_path};
pub use deferred::{DeferMode, DeferredAnnouncer, InvalidDeferMode};
pub use error::{ToolError, ToolErrorKind};
pub use file_state::{FileState, FileStateCache, FileStateError};
pub use file_uri::{file_uri, uri_path};
pub use hidden::HiddenPaths;
pub use output::{ContentBlock, ContextChange, ImageSource, IntoToolOutput, Json, ToolOutput};
pub use permission::{
    DecisionReason, PermissionBehavior, PermissionCheck, PermissionDecision, PermissionMode, RuleSource, UnknownMode,
};
pub use pool::{DefinitionFormat, ToolPool, ToolPoolBuilder, canonical_tool_name, probe_input};
pub use render::{Rendered, Span, Style};
pub use results::{BudgetEntry, DEFAULT_MESSAGE_BUDGET, PREVIEW_BYTES, ResultStore, empty_result_text};
pub use sandbox::SandboxPolicy;
pub use target::{Access, Target};
pub use tool::{BoxFuture, DynTool, InterruptBehavior, ResultLimit, Tool, defaults};
pub use tool_search::{SearchResult, ToolSearchTool, search_tools};
pub use typed::{TypedTool, typed};
pub use validate::{InputSchema, SchemaError};
