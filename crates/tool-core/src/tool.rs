//! The [`Tool`] trait: identity, schema, capabilities, lifecycle, limits and rendering.
//!
//! Defaults fail closed and are stated once, in [`defaults`]: a tool that says nothing is
//! not read-only, not concurrency-safe, enabled, and leaves permission to the engine.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::{PermissionCheck, Rendered, Style, Target, ToolContext, ToolError, ToolOutput};

/// A boxed, sendable future: the return type of the dyn-safe async methods.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The fail-closed defaults of every tool, in one place.
///
/// [`Tool`]'s provided methods, [`crate::TypedTool`]'s and [`crate::ToolBuilder`]'s all
/// return these values; a registry-wide test checks them.
pub mod defaults {
    use super::{InterruptBehavior, ResultLimit};

    /// A tool is assumed to write: not read-only.
    pub const READ_ONLY: bool = false;
    /// A tool is assumed to conflict with others: not concurrency-safe.
    pub const CONCURRENCY_SAFE: bool = false;
    /// A tool is not flagged destructive unless it says so (a UI and classifier hint).
    pub const DESTRUCTIVE: bool = false;
    /// A tool is offered.
    pub const ENABLED: bool = true;
    /// A tool is loaded eagerly unless it asks to be deferred.
    pub const SHOULD_DEFER: bool = false;
    /// A tool may be deferred when it asks to be.
    pub const ALWAYS_LOAD: bool = false;
    /// A tool does not need a person to answer it.
    pub const REQUIRES_USER_INTERACTION: bool = false;
    /// An interrupt waits for the call to finish.
    pub const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    /// Results over 100,000 characters are persisted (capped at the global 50,000).
    pub const MAX_RESULT: ResultLimit = ResultLimit::Chars(100_000);
}

/// What happens to a running call when the person interrupts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InterruptBehavior {
    /// The call is cancelled at once.
    Cancel,
    /// The interrupt waits for the call to finish.
    Block,
}

/// Where a tool's results start being persisted to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultLimit {
    /// Results over this many characters (or the global cap, if lower) are persisted.
    Chars(usize),
    /// Results over exactly this many characters are persisted, above the global cap too:
    /// an MCP server's `anthropic/maxResultSizeChars` raises the threshold this way.
    Raised(usize),
    /// Never persisted (Read: persisting a read would make the model read it again).
    Never,
}

impl ResultLimit {
    /// The global cap on the persistence threshold.
    pub const GLOBAL_CAP: usize = 50_000;

    /// The threshold actually used: `min(limit, 50,000)`, or `None` for never.
    ///
    /// ```
    /// use toolgate_core::ResultLimit;
    /// assert_eq!(ResultLimit::Chars(100_000).effective(), Some(50_000));
    /// assert_eq!(ResultLimit::Chars(20_000).effective(), Some(20_000));
    /// assert_eq!(ResultLimit::Raised(200_000).effective(), Some(200_000));
    /// assert_eq!(ResultLimit::Never.effective(), None);
    /// ```
    pub fn effective(self) -> Option<usize> {
        match self {
            Self::Chars(n) => Some(n.min(Self::GLOBAL_CAP)),
            Self::Raised(n) => Some(n),
            Self::Never => None,
        }
    }
}

/// A tool: a self-describing unit the pipeline can validate, gate and run.
///
/// Implement it directly for tools whose schema is not a Rust type (MCP tools), or use
/// [`crate::TypedTool`] / [`crate::ToolBuilder`]. Only `name`, `description`,
/// `input_schema`, `render_use` and `call` are required; every other method has the
/// fail-closed default of [`defaults`].
///
/// ```
/// use std::borrow::Cow;
/// use serde_json::{json, Value};
/// use toolgate_core::{BoxFuture, Tool, ToolContext, ToolError, ToolOutput};
///
/// struct Echo(Value);
/// impl Tool for Echo {
///     fn name(&self) -> &str { "Echo" }
///     fn description(&self) -> Cow<'_, str> { "Repeats its input.".into() }
///     fn input_schema(&self) -> &Value { &self.0 }
///     fn render_use(&self, input: &Value) -> String { format!("Echo({input})") }
///     fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
///         Box::pin(async move { Ok(ToolOutput::text(input["text"].as_str().unwrap_or_default())) })
///     }
/// }
/// let echo = Echo(json!({"type": "object", "properties": {"text": {"type": "string"}}}));
/// assert!(!echo.is_read_only(&json!({})));          // fail closed
/// assert!(!echo.is_concurrency_safe(&json!({})));   // fail closed
/// ```
pub trait Tool: Send + Sync {
    /// The canonical name the model calls.
    fn name(&self) -> &str;

    /// Other names that resolve to this tool (legacy names such as `Task` for `Agent`).
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// The model-facing description.
    fn description(&self) -> Cow<'_, str>;

    /// A short phrase ToolSearch matches against.
    fn search_hint(&self) -> Option<&str> {
        None
    }

    /// The JSON Schema of the input, rendered once and returned byte-identical every time.
    fn input_schema(&self) -> &Value;

    /// Whether the tool is offered at all (e.g. its host service is present).
    fn is_enabled(&self) -> bool {
        defaults::ENABLED
    }

    /// Whether this call only reads. Drives plan mode and auto-approval.
    fn is_read_only(&self, _input: &Value) -> bool {
        defaults::READ_ONLY
    }

    /// Whether this call may run in parallel with other concurrency-safe calls.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        defaults::CONCURRENCY_SAFE
    }

    /// Whether this call destroys data (a hint for people and classifiers).
    fn is_destructive(&self, _input: &Value) -> bool {
        defaults::DESTRUCTIVE
    }

    /// What an interrupt does to a running call.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        defaults::INTERRUPT
    }

    /// Whether a person must answer the call (never auto-approved).
    fn requires_user_interaction(&self) -> bool {
        defaults::REQUIRES_USER_INTERACTION
    }

    /// Whether the tool asks to be deferred behind ToolSearch.
    fn should_defer(&self) -> bool {
        defaults::SHOULD_DEFER
    }

    /// Whether the tool must never be deferred.
    fn always_load(&self) -> bool {
        defaults::ALWAYS_LOAD
    }

    /// Where results start being persisted.
    fn max_result_size_chars(&self) -> ResultLimit {
        defaults::MAX_RESULT
    }

    /// Checks beyond the schema (file exists, string unique …). Runs before permission,
    /// so an invalid call never raises a prompt.
    fn validate_input<'a>(&'a self, _input: &'a Value, _ctx: &'a ToolContext) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// A normalized copy of the input (absolute paths, filled defaults) for hooks,
    /// permission and execution. The original is never changed.
    fn normalize_input(&self, input: &Value, _ctx: &ToolContext) -> Value {
        input.clone()
    }

    /// The tool's own permission opinion; by default it leaves the call to the engine.
    fn check_permissions(&self, _input: &Value, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Passthrough
    }

    /// The string rule specifiers are matched against: Bash's command, Read's path,
    /// WebFetch's domain. `None` when the tool takes bare-name rules only.
    fn permission_target(&self, _input: &Value) -> Option<String> {
        None
    }

    /// Every path the call reads, lists, writes, creates or deletes ([`Target`]: the path as
    /// the input names it and its [`crate::Access`]): every file of a patch, a move as the
    /// delete of its source and the create of its destination. The engine holds each to the
    /// rules on its own: a deny or ask on any of them decides, an allow needs all of them, and
    /// each changed one is checked against the protected paths.
    ///
    /// By default none. A `Read`- or `Edit`-family tool that names none is checked as working
    /// on its working directory; Bash's paths come from the analysis of its command, not from
    /// here.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use serde_json::{json, Value};
    /// use toolgate_core::{Access, BoxFuture, Target, Tool, ToolContext, ToolError, ToolOutput};
    ///
    /// /// Copies `from` to `to`.
    /// struct Copy(Value);
    /// impl Tool for Copy {
    ///     fn name(&self) -> &str { "Copy" }
    ///     fn description(&self) -> Cow<'_, str> { "Copies a file.".into() }
    ///     fn input_schema(&self) -> &Value { &self.0 }
    ///     fn render_use(&self, input: &Value) -> String { format!("Copy({input})") }
    ///     fn targets(&self, input: &Value) -> Vec<Target> {
    ///         let path = |key: &str| input[key].as_str().unwrap_or_default().to_owned();
    ///         vec![Target::new(path("from"), Access::Read { walked: false }), Target::new(path("to"), Access::Write)]
    ///     }
    ///     fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
    ///         Box::pin(async { Ok(ToolOutput::text("copied")) })
    ///     }
    /// }
    /// let copy = Copy(json!({"type": "object"}));
    /// let targets = copy.targets(&json!({"from": "a.txt", "to": "b.txt"}));
    /// assert_eq!(targets[1], Target::new("b.txt", Access::Write));
    /// ```
    fn targets(&self, _input: &Value) -> Vec<Target> {
        Vec::new()
    }

    /// Runs the call with a validated, normalized input.
    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;

    /// The name shown to people (may depend on the input).
    fn user_facing_name(&self, _input: Option<&Value>) -> String {
        self.name().to_owned()
    }

    /// One line describing the call, e.g. `Read(src/lib.rs)`.
    fn render_use(&self, input: &Value) -> String;

    /// The result for people; by default its text.
    fn render_result(&self, output: &ToolOutput) -> Rendered {
        Rendered::plain(output.to_text())
    }

    /// A progress report for people; by default its message.
    fn render_progress(&self, progress: &crate::Progress) -> Rendered {
        Rendered::styled(progress.message.clone(), Style::Dim)
    }

    /// A call that permission refused.
    fn render_rejected(&self, input: &Value, reason: &str) -> Rendered {
        Rendered::styled(format!("{} rejected", self.render_use(input)), Style::Error)
            .push(format!(": {reason}"), Style::Dim)
    }

    /// A call that failed.
    fn render_error(&self, error: &ToolError) -> Rendered {
        Rendered::styled(error.to_model_text(), Style::Error)
    }

    /// Several calls of this tool shown together; `None` renders them one by one.
    fn render_grouped(&self, _inputs: &[&Value]) -> Option<Rendered> {
        None
    }

    /// A short summary of a finished call (for compact transcripts).
    fn summary(&self, input: &Value, _output: &ToolOutput) -> Option<String> {
        Some(self.render_use(input))
    }

    /// What a permission classifier is shown of the call; by default the name and input.
    fn to_classifier_input(&self, input: &Value) -> String {
        format!("{} {}", self.name(), input)
    }
}

/// A shared tool, as pools hold them.
pub type DynTool = Arc<dyn Tool>;
