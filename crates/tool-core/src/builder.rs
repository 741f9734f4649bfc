//! [`ToolBuilder`]: a tool made of closures, for hosts and tests. Its `Default`s are the
//! same fail-closed [`defaults`](crate::defaults) as every other tool's.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::tool::defaults;
use crate::{BoxFuture, DynTool, InterruptBehavior, ResultLimit, Tool, ToolContext, ToolError, ToolOutput};

type CallFn = Arc<dyn Fn(Value, ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync>;
type Predicate = Arc<dyn Fn(&Value) -> bool + Send + Sync>;

/// Builds an ad-hoc tool from closures.
///
/// ```
/// use serde_json::json;
/// use toolgate_core::{Tool, ToolBuilder, ToolContext, ToolOutput};
///
/// let tool = ToolBuilder::new("Upper")
///     .description("Upper-cases text.")
///     .schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
///     .read_only(true)
///     .call(|input, _ctx| async move {
///         Ok(ToolOutput::text(input["text"].as_str().unwrap_or_default().to_uppercase()))
///     })
///     .build();
/// assert!(tool.is_read_only(&json!({"text": "a"})));
/// assert!(!tool.is_concurrency_safe(&json!({"text": "a"}))); // not stated: fails closed
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let out = rt.block_on(tool.call(json!({"text": "hi"}), &ToolContext::new("/"))).unwrap();
/// assert_eq!(out.to_text(), "HI");
/// ```
#[derive(Clone)]
pub struct ToolBuilder {
    name: String,
    aliases: Vec<&'static str>,
    description: String,
    search_hint: Option<String>,
    schema: Value,
    enabled: bool,
    read_only: Predicate,
    concurrency_safe: Predicate,
    destructive: Predicate,
    interrupt: InterruptBehavior,
    requires_user_interaction: bool,
    should_defer: bool,
    always_load: bool,
    max_result: ResultLimit,
    call: CallFn,
}

impl ToolBuilder {
    /// A tool called `name` taking any object, whose call fails until [`Self::call`] is set.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let missing = name.clone();
        Self {
            name,
            aliases: Vec::new(),
            description: String::new(),
            search_hint: None,
            schema: serde_json::json!({"type": "object"}),
            enabled: defaults::ENABLED,
            read_only: Arc::new(|_| defaults::READ_ONLY),
            concurrency_safe: Arc::new(|_| defaults::CONCURRENCY_SAFE),
            destructive: Arc::new(|_| defaults::DESTRUCTIVE),
            interrupt: defaults::INTERRUPT,
            requires_user_interaction: defaults::REQUIRES_USER_INTERACTION,
            should_defer: defaults::SHOULD_DEFER,
            always_load: defaults::ALWAYS_LOAD,
            max_result: defaults::MAX_RESULT,
            call: Arc::new(move |_, _| {
                let msg = format!("tool {missing} has no implementation");
                Box::pin(async move { Err(ToolError::internal(msg)) })
            }),
        }
    }

    /// Legacy names.
    #[must_use]
    pub fn aliases(mut self, aliases: &[&'static str]) -> Self {
        self.aliases = aliases.to_vec();
        self
    }

    /// The model-facing description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// A phrase for ToolSearch.
    #[must_use]
    pub fn search_hint(mut self, hint: impl Into<String>) -> Self {
        self.search_hint = Some(hint.into());
        self
    }

    /// The input's JSON Schema.
    #[must_use]
    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }

    /// Whether the tool is offered.
    #[must_use]
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Read-only for every input.
    #[must_use]
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = Arc::new(move |_| read_only);
        self
    }

    /// Read-only depending on the input.
    #[must_use]
    pub fn read_only_when(mut self, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.read_only = Arc::new(f);
        self
    }

    /// Concurrency-safe for every input.
    #[must_use]
    pub fn concurrency_safe(mut self, safe: bool) -> Self {
        self.concurrency_safe = Arc::new(move |_| safe);
        self
    }

    /// Concurrency-safe depending on the input.
    #[must_use]
    pub fn concurrency_safe_when(mut self, f: impl Fn(&Value) -> bool + Send + Sync + 'static) -> Self {
        self.concurrency_safe = Arc::new(f);
        self
    }

    /// Destructive for every input.
    #[must_use]
    pub fn destructive(mut self, destructive: bool) -> Self {
        self.destructive = Arc::new(move |_| destructive);
        self
    }

    /// What an interrupt does.
    #[must_use]
    pub fn interrupt_behavior(mut self, behavior: InterruptBehavior) -> Self {
        self.interrupt = behavior;
        self
    }

    /// Whether a person must answer.
    #[must_use]
    pub fn requires_user_interaction(mut self, yes: bool) -> Self {
        self.requires_user_interaction = yes;
        self
    }

    /// Whether the tool asks to be deferred.
    #[must_use]
    pub fn should_defer(mut self, yes: bool) -> Self {
        self.should_defer = yes;
        self
    }

    /// Whether the tool must never be deferred.
    #[must_use]
    pub fn always_load(mut self, yes: bool) -> Self {
        self.always_load = yes;
        self
    }

    /// Where results start being persisted.
    #[must_use]
    pub fn max_result_size_chars(mut self, limit: ResultLimit) -> Self {
        self.max_result = limit;
        self
    }

    /// The implementation. It receives the validated input and a clone of the context.
    #[must_use]
    pub fn call<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        self.call = Arc::new(move |input, ctx| Box::pin(f(input, ctx)));
        self
    }

    /// The finished tool.
    pub fn build(self) -> DynTool {
        Arc::new(Built(self))
    }
}

struct Built(ToolBuilder);

impl Tool for Built {
    fn name(&self) -> &str {
        &self.0.name
    }

    fn aliases(&self) -> &[&str] {
        &self.0.aliases
    }

    fn description(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0.description)
    }

    fn search_hint(&self) -> Option<&str> {
        self.0.search_hint.as_deref()
    }

    fn input_schema(&self) -> &Value {
        &self.0.schema
    }

    fn is_enabled(&self) -> bool {
        self.0.enabled
    }

    fn is_read_only(&self, input: &Value) -> bool {
        (self.0.read_only)(input)
    }

    fn is_concurrency_safe(&self, input: &Value) -> bool {
        (self.0.concurrency_safe)(input)
    }

    fn is_destructive(&self, input: &Value) -> bool {
        (self.0.destructive)(input)
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.0.interrupt
    }

    fn requires_user_interaction(&self) -> bool {
        self.0.requires_user_interaction
    }

    fn should_defer(&self) -> bool {
        self.0.should_defer
    }

    fn always_load(&self) -> bool {
        self.0.always_load
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        self.0.max_result
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        (self.0.call)(input, ctx.clone())
    }

    fn render_use(&self, input: &Value) -> String {
        format!("{}({input})", self.0.name)
    }
}

impl std::fmt::Debug for ToolBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolBuilder").field("name", &self.name).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_tool_without_call_fails_rather_than_succeeding() {
        let tool = ToolBuilder::new("Nothing").build();
        let err = tool.call(json!({}), &ToolContext::new("/")).await.unwrap_err();
        assert_eq!(err.kind(), crate::ToolErrorKind::Internal);
    }

    #[test]
    fn builder_defaults_are_the_shared_defaults() {
        let t = ToolBuilder::new("T").build();
        let i = json!({});
        assert_eq!(t.is_read_only(&i), defaults::READ_ONLY);
        assert_eq!(t.is_concurrency_safe(&i), defaults::CONCURRENCY_SAFE);
        assert_eq!(t.is_destructive(&i), defaults::DESTRUCTIVE);
        assert_eq!(t.is_enabled(), defaults::ENABLED);
        assert_eq!(t.should_defer(), defaults::SHOULD_DEFER);
        assert_eq!(t.always_load(), defaults::ALWAYS_LOAD);
        assert_eq!(t.max_result_size_chars(), defaults::MAX_RESULT);
        assert_eq!(t.interrupt_behavior(), defaults::INTERRUPT);
    }

    #[test]
    fn input_dependent_capabilities() {
        let t = ToolBuilder::new("T").read_only_when(|i| i["mode"] == "read").build();
        assert!(t.is_read_only(&json!({"mode": "read"})));
        assert!(!t.is_read_only(&json!({"mode": "write"})));
    }
}
