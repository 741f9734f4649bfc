//! StructuredOutput: the model's final answer, in the shape the host asked for.
//!
//! Present only when the host supplies a JSON Schema (Claude Code's `--json-schema` and the
//! SDK's structured output; the CLI's `--json-schema FILE`): the schema *is* the tool's
//! input schema, so the answer is the call's input. The pipeline checks it at step 2 and
//! the tool checks it again with the same compiled [`InputSchema`] (for hosts that call it
//! directly); every violation is reported with its path. A valid answer comes back as the
//! result's structured output, which hosts read from `ToolOutput::structured` or the
//! session's `Event::Output`.

mod prompt;

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;
use toolgate_core::{
    BoxFuture, DynTool, InputSchema, PermissionCheck, SchemaError, Tool, ToolContext, ToolError, ToolOutput,
};

/// Why a host's schema cannot be StructuredOutput's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StructuredOutputError {
    /// The schema's root does not describe an object (tool inputs are objects).
    #[error("the output schema must describe an object (\"type\": \"object\" at its root), found {found}")]
    NotAnObject {
        /// What the root says instead.
        found: String,
    },
    /// The schema does not compile.
    #[error("the output schema is not valid JSON Schema: {0}")]
    Schema(#[from] SchemaError),
}

/// The StructuredOutput tool for one schema.
#[derive(Debug)]
pub struct StructuredOutput {
    schema: InputSchema,
    description: String,
}

impl StructuredOutput {
    /// The tool whose input is an answer matching `schema`.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolgate_builtin::StructuredOutput;
    /// let tool = StructuredOutput::tool(json!({
    ///     "type": "object",
    ///     "properties": {"verdict": {"enum": ["pass", "fail"]}},
    ///     "required": ["verdict"]
    /// }))
    /// .unwrap();
    /// assert_eq!(tool.name(), "StructuredOutput");
    /// assert!(StructuredOutput::tool(json!({"type": "string"})).is_err());
    /// ```
    ///
    /// # Errors
    /// The schema's root is not an object schema, or it does not compile.
    pub fn tool(schema: Value) -> Result<DynTool, StructuredOutputError> {
        let root_type = schema.get("type");
        let is_object = match root_type {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(types)) => types.len() == 1 && types[0] == "object",
            _ => false,
        };
        if !is_object {
            let found = match root_type {
                Some(t) => format!("\"type\": {t}"),
                None => "no \"type\"".to_owned(),
            };
            return Err(StructuredOutputError::NotAnObject { found });
        }
        let schema = InputSchema::compile(&schema)?;
        Ok(Arc::new(Self { schema, description: prompt::description() }))
    }
}

impl Tool for StructuredOutput {
    fn name(&self) -> &str {
        "StructuredOutput"
    }

    fn description(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.description)
    }

    fn search_hint(&self) -> Option<&str> {
        Some("return the final answer as structured JSON")
    }

    fn input_schema(&self) -> &Value {
        self.schema.raw()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn always_load(&self) -> bool {
        true
    }

    fn validate_input<'a>(&'a self, input: &'a Value, _ctx: &'a ToolContext) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move { self.check(input).map(|_| ()) })
    }

    fn check_permissions(&self, _input: &Value, _ctx: &ToolContext) -> PermissionCheck {
        PermissionCheck::Allow { detail: "StructuredOutput only hands back the final answer".to_owned() }
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let value = self.check(&input)?;
            Ok(ToolOutput::text("Structured output provided successfully").with_structured(value))
        })
    }

    fn render_use(&self, input: &Value) -> String {
        let mut text = input.to_string();
        if text.chars().count() > 80 {
            text = text.chars().take(79).chain(std::iter::once('…')).collect();
        }
        format!("StructuredOutput({text})")
    }
}

impl StructuredOutput {
    /// The answer (numbers and booleans sent as strings coerced), or every violation.
    fn check(&self, input: &Value) -> Result<Value, ToolError> {
        self.schema.validate(input).map(Cow::into_owned).map_err(|e| {
            ToolError::invalid_input(format!(
                "the structured output does not match the required schema:\n{}",
                e.message()
            ))
            .with_hint("fix every listed field and call StructuredOutput again with the whole answer")
        })
    }
}
