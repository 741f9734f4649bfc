//! [`TypedTool`]: a tool whose input is a Rust type. Schema generation, parsing and result
//! mapping come for free through one adapter, [`typed`].

use std::any::TypeId;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tool::defaults;
use crate::{
    BoxFuture, DynTool, InterruptBehavior, IntoToolOutput, PermissionCheck, ResultLimit, Target, Tool, ToolContext,
    ToolError, ToolOutput,
};

/// A tool with a typed input. Adapt it to [`Tool`] with [`typed`].
///
/// Capability methods default to [`defaults`], like [`Tool`]'s. The input schema is
/// generated from `Input` once per process and reused byte-for-byte; the root object is
/// strict (`additionalProperties: false`) unless the type says otherwise.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use toolgate_core::{Tool, ToolContext, ToolError, TypedTool, typed};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct SleepInput {
///     /// Seconds to wait.
///     seconds: u64,
/// }
/// struct Sleep;
/// impl TypedTool for Sleep {
///     type Input = SleepInput;
///     type Output = String;
///     fn name(&self) -> &'static str { "Sleep" }
///     fn description(&self) -> String { "Waits without holding a shell.".into() }
///     fn render_use(&self, i: &SleepInput) -> String { format!("Sleep({}s)", i.seconds) }
///     fn is_read_only(&self, _: &SleepInput) -> bool { true }
///     async fn call(&self, i: SleepInput, _ctx: &ToolContext) -> Result<String, ToolError> {
///         Ok(format!("waited {}s", i.seconds))
///     }
/// }
/// let tool = typed(Sleep);
/// assert_eq!(tool.input_schema()["additionalProperties"], false);
/// assert_eq!(tool.input_schema()["required"], serde_json::json!(["seconds"]));
/// assert!(tool.is_read_only(&serde_json::json!({"seconds": 1})));
/// assert!(!tool.is_concurrency_safe(&serde_json::json!({"seconds": 1})));
/// ```
pub trait TypedTool: Send + Sync + 'static {
    /// The input type; its JSON Schema is the tool's.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;

    /// What `call` returns; mapped to result content by [`IntoToolOutput`].
    type Output: IntoToolOutput;

    /// The canonical name.
    fn name(&self) -> &'static str;

    /// Legacy names.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// The model-facing description.
    fn description(&self) -> String;

    /// A phrase for ToolSearch.
    fn search_hint(&self) -> Option<&'static str> {
        None
    }

    /// See [`Tool::is_enabled`].
    fn is_enabled(&self) -> bool {
        defaults::ENABLED
    }

    /// See [`Tool::is_read_only`].
    fn is_read_only(&self, _input: &Self::Input) -> bool {
        defaults::READ_ONLY
    }

    /// See [`Tool::is_concurrency_safe`].
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        defaults::CONCURRENCY_SAFE
    }

    /// See [`Tool::is_destructive`].
    fn is_destructive(&self, _input: &Self::Input) -> bool {
        defaults::DESTRUCTIVE
    }

    /// See [`Tool::interrupt_behavior`].
    fn interrupt_behavior(&self) -> InterruptBehavior {
        defaults::INTERRUPT
    }

    /// See [`Tool::requires_user_interaction`].
    fn requires_user_interaction(&self) -> bool {
        defaults::REQUIRES_USER_INTERACTION
    }

    /// See [`Tool::should_defer`].
    fn should_defer(&self) -> bool {
        defaults::SHOULD_DEFER
    }

    /// See [`Tool::always_load`].
    fn always_load(&self) -> bool {
        defaults::ALWAYS_LOAD
    }

    /// See [`Tool::max_result_size_chars`].
    fn max_result_size_chars(&self) -> ResultLimit {
        defaults::MAX_RESULT
    }

    /// See [`Tool::validate_input`].
    fn validate(&self, _input: &Self::Input, _ctx: &ToolContext) -> impl Future<Output = Result<(), ToolError>> + Send {
        std::future::ready(Ok(()))
    }

    /// See [`Tool::normalize_input`]; works on the JSON so unknown-to-Rust details
    /// (key order, omitted optionals) survive.
    fn normalize_input(&self, input: &Value, _ctx: &ToolContext) -> Value {
        input.clone()
    }

    /// See [`Tool::check_permissions`].
    fn check_permissions(&self, _input: &Self::Input, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Passthrough
    }

    /// See [`Tool::permission_target`].
    fn permission_target(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// See [`Tool::targets`]; by default none.
    fn targets(&self, _input: &Self::Input) -> Vec<Target> {
        Vec::new()
    }

    /// Runs the call.
    fn call(
        &self,
        input: Self::Input,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// See [`Tool::render_use`].
    fn render_use(&self, input: &Self::Input) -> String;

    /// See [`Tool::to_classifier_input`]; `None` uses the default.
    fn to_classifier_input(&self, _input: &Self::Input) -> Option<String> {
        None
    }
}

/// The adapter from [`TypedTool`] to [`Tool`].
struct Typed<T: TypedTool> {
    tool: T,
    schema: Arc<Value>,
}

/// Adapts a [`TypedTool`] into a shareable [`Tool`].
pub fn typed<T: TypedTool>(tool: T) -> DynTool {
    Arc::new(Typed { schema: schema_for::<T::Input>(), tool })
}

/// The strict JSON Schema of `I`, generated once per process per type.
fn schema_for<I: JsonSchema + 'static>() -> Arc<Value> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<Value>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().unwrap_or_else(PoisonError::into_inner);
    map.entry(TypeId::of::<I>())
        .or_insert_with(|| {
            let root = schemars::SchemaGenerator::default().into_root_schema_for::<I>();
            let mut value = root.to_value();
            if let Some(obj) = value.as_object_mut() {
                obj.remove("title");
                if obj.get("type").and_then(Value::as_str) == Some("object") {
                    obj.entry("additionalProperties").or_insert(Value::Bool(false));
                }
            }
            Arc::new(value)
        })
        .clone()
}

impl<T: TypedTool> Typed<T> {
    fn parse(&self, input: &Value) -> Result<T::Input, ToolError> {
        T::Input::deserialize(input)
            .map_err(|e| ToolError::invalid_input(format!("input for {} does not parse: {e}", self.tool.name())))
    }

    fn with_parsed<R>(&self, input: &Value, fallback: R, f: impl FnOnce(&T::Input) -> R) -> R {
        match self.parse(input) {
            Ok(parsed) => f(&parsed),
            Err(_) => fallback,
        }
    }
}

use serde::Deserialize as _;

impl<T: TypedTool> Tool for Typed<T> {
    fn name(&self) -> &str {
        self.tool.name()
    }

    fn aliases(&self) -> &[&str] {
        self.tool.aliases()
    }

    fn description(&self) -> std::borrow::Cow<'_, str> {
        self.tool.description().into()
    }

    fn search_hint(&self) -> Option<&str> {
        self.tool.search_hint()
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_enabled(&self) -> bool {
        self.tool.is_enabled()
    }

    // Input-dependent capabilities fail closed when the input does not parse.
    fn is_read_only(&self, input: &Value) -> bool {
        self.with_parsed(input, defaults::READ_ONLY, |i| self.tool.is_read_only(i))
    }

    fn is_concurrency_safe(&self, input: &Value) -> bool {
        self.with_parsed(input, defaults::CONCURRENCY_SAFE, |i| self.tool.is_concurrency_safe(i))
    }

    fn is_destructive(&self, input: &Value) -> bool {
        // Unparseable input is not known to be harmless: flag it.
        self.with_parsed(input, true, |i| self.tool.is_destructive(i))
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.tool.interrupt_behavior()
    }

    fn requires_user_interaction(&self) -> bool {
        self.tool.requires_user_interaction()
    }

    fn should_defer(&self) -> bool {
        self.tool.should_defer()
    }

    fn always_load(&self) -> bool {
        self.tool.always_load()
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        self.tool.max_result_size_chars()
    }

    fn validate_input<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            let parsed = self.parse(input)?;
            self.tool.validate(&parsed, ctx).await
        })
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        self.tool.normalize_input(input, ctx)
    }

    fn check_permissions(&self, input: &Value, ctx: &ToolContext) -> PermissionCheck {
        match self.parse(input) {
            Ok(parsed) => self.tool.check_permissions(&parsed, ctx),
            Err(e) => PermissionCheck::Deny { detail: e.message().to_owned() },
        }
    }

    fn permission_target(&self, input: &Value) -> Option<String> {
        self.with_parsed(input, None, |i| self.tool.permission_target(i))
    }

    fn targets(&self, input: &Value) -> Vec<Target> {
        self.with_parsed(input, Vec::new(), |i| self.tool.targets(i))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let parsed = self.parse(&input)?;
            self.tool.call(parsed, ctx).await.map(IntoToolOutput::into_tool_output)
        })
    }

    fn render_use(&self, input: &Value) -> String {
        // The fallback is rendered only when it is needed.
        match self.parse(input) {
            Ok(parsed) => self.tool.render_use(&parsed),
            Err(_) => format!("{}({input})", self.tool.name()),
        }
    }

    fn to_classifier_input(&self, input: &Value) -> String {
        self.with_parsed(input, None, |i| self.tool.to_classifier_input(i))
            .unwrap_or_else(|| format!("{} {input}", self.tool.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    struct PathInput {
        path: String,
    }

    struct Probe;
    impl TypedTool for Probe {
        type Input = PathInput;
        type Output = String;
        fn name(&self) -> &'static str {
            "Probe"
        }
        fn description(&self) -> String {
            "probe".into()
        }
        fn render_use(&self, i: &PathInput) -> String {
            format!("Probe({})", i.path)
        }
        fn is_read_only(&self, _: &PathInput) -> bool {
            true
        }
        fn targets(&self, i: &PathInput) -> Vec<Target> {
            vec![Target::new(i.path.clone(), crate::Access::Read { walked: false })]
        }
        async fn call(&self, i: PathInput, _ctx: &ToolContext) -> Result<String, ToolError> {
            Ok(i.path)
        }
    }

    #[test]
    fn schema_is_generated_once_and_shared() {
        let a = typed(Probe);
        let b = typed(Probe);
        assert!(std::ptr::eq(a.input_schema(), b.input_schema()));
        assert_eq!(a.input_schema()["properties"]["path"]["type"], "string");
        assert!(a.input_schema().get("title").is_none());
    }

    #[test]
    fn unparseable_input_fails_closed() {
        let t = typed(Probe);
        assert!(t.is_read_only(&json!({"path": "x"})));
        assert!(!t.is_read_only(&json!({"path": 3})));
        assert!(t.is_destructive(&json!({})));
        assert_eq!(t.render_use(&json!({"path": "a"})), "Probe(a)");
        assert_eq!(t.render_use(&json!({"path": 3})), r#"Probe({"path":3})"#);
        assert!(matches!(t.check_permissions(&json!({}), &ToolContext::new("/")), PermissionCheck::Deny { .. }));
    }

    #[test]
    fn the_bridge_hands_on_the_typed_targets() {
        let t = typed(Probe);
        let read = crate::Access::Read { walked: false };
        assert_eq!(t.targets(&json!({"path": "a/b"})), [Target::new("a/b", read)]);
        // An input the tool cannot read names no target (the engine then checks the working
        // directory; the schema step refuses such an input before it gets there).
        assert!(t.targets(&json!({"path": 3})).is_empty());
    }

    #[tokio::test]
    async fn call_parses_then_runs() {
        let t = typed(Probe);
        let ctx = ToolContext::new("/");
        assert_eq!(t.call(json!({"path": "p"}), &ctx).await.unwrap().to_text(), "p");
        let err = t.call(json!({"nope": 1}), &ctx).await.unwrap_err();
        assert_eq!(err.kind(), crate::ToolErrorKind::InvalidInput);
    }
}
