//! The MCP tool adapter: one server tool as a toolgate [`Tool`] named
//! `mcp__<server>__<tool>`.

use std::borrow::Cow;
use std::sync::{OnceLock, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use toolgate_core::{
    Access, BoxFuture, InputSchema, InterruptBehavior, PermissionCheck, ResultLimit, Target, Tool, ToolContext,
    ToolError, ToolOutput, uri_path,
};

use crate::convert::{flatten_root_combinators, tool_result, truncate_description};
use crate::manager::Server;
use crate::naming::mcp_tool_name;

/// The highest persistence threshold a server may ask for with
/// `_meta["anthropic/maxResultSizeChars"]`.
pub const MAX_RESULT_SIZE_CHARS_CAP: usize = 500_000;

/// One tool of one server.
pub(crate) struct McpTool {
    server: Weak<Server>,
    server_name: String,
    name: String,
    remote_name: String,
    description: String,
    /// The schema shown to the model (root combinators flattened).
    schema: Value,
    /// The server's own schema, when it differs from `schema`: validated in step 3.
    raw_schema: Option<Value>,
    compiled_raw: OnceLock<Option<InputSchema>>,
    title: Option<String>,
    read_only: bool,
    destructive: bool,
    search_hint: Option<String>,
    always_load: bool,
    requires_user_interaction: bool,
    limit: ResultLimit,
    timeout: Duration,
    /// The input fields that name local files ([`file_fields`]).
    file_fields: Vec<FileField>,
}

/// A top-level input field whose schema says it holds a URI, and so a local file when its
/// value is a `file://` URI.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileField {
    name: String,
    /// An array of such strings, not one.
    array: bool,
}

/// The fields of an input schema that may name local files: the top-level properties that are
/// strings with `"format": "uri"` (or `"uri-reference"`), or arrays of them. The MCP
/// specification names local files with `file://` URIs (roots, resources), and a schema
/// `format` is what a server author writes to say a string is one; a property merely called
/// `path` is not taken for a local path (a GitHub server's `path` is in a remote repository,
/// an HTTP server's is a URL's). Nested objects are not searched.
fn file_fields(schema: &Value) -> Vec<FileField> {
    let is_uri = |s: &Value| {
        s.get("type").and_then(Value::as_str) == Some("string")
            && matches!(s.get("format").and_then(Value::as_str), Some("uri" | "uri-reference"))
    };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Vec::new() };
    let mut fields: Vec<FileField> = properties
        .iter()
        .filter_map(|(name, s)| {
            let array = s.get("type").and_then(Value::as_str) == Some("array");
            let holds_uri = if array { s.get("items").is_some_and(is_uri) } else { is_uri(s) };
            holds_uri.then(|| FileField { name: name.clone(), array })
        })
        .collect();
    fields.sort_by(|a, b| a.name.cmp(&b.name));
    fields
}

impl McpTool {
    /// Reads a `tools/list` entry (as JSON).
    pub(crate) fn new(
        server: Weak<Server>,
        server_name: &str,
        def: &Value,
        always_load_server: bool,
        timeout: Duration,
        output_cap_chars: usize,
    ) -> Self {
        let remote_name = def.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let annotations = def.get("annotations").unwrap_or(&Value::Null);
        let meta = def.get("_meta").unwrap_or(&Value::Null);
        let flag = |v: &Value, key: &str| v.get(key).and_then(Value::as_bool);
        let raw = def.get("inputSchema").cloned().unwrap_or_else(|| json!({"type": "object"}));
        let flat = flatten_root_combinators(&raw);
        let (schema, raw_schema) = if flat == raw { (raw, None) } else { (flat, Some(raw)) };
        // A schema the validator cannot compile would fail every call; accept any object.
        let schema = if InputSchema::compile(&schema).is_ok() { schema } else { json!({"type": "object"}) };
        let file_fields = file_fields(&schema);
        let read_only = flag(annotations, "readOnlyHint").unwrap_or(false);
        let limit = match meta.get("anthropic/maxResultSizeChars").and_then(Value::as_u64) {
            Some(n) => ResultLimit::Raised(usize::try_from(n).unwrap_or(usize::MAX).min(MAX_RESULT_SIZE_CHARS_CAP)),
            None => ResultLimit::Chars(output_cap_chars),
        };
        let title = annotations
            .get("title")
            .and_then(Value::as_str)
            .or_else(|| def.get("title").and_then(Value::as_str))
            .map(str::to_owned);
        Self {
            server,
            server_name: server_name.to_owned(),
            name: mcp_tool_name(server_name, &remote_name),
            description: truncate_description(def.get("description").and_then(Value::as_str).unwrap_or_default()),
            remote_name,
            schema,
            raw_schema,
            compiled_raw: OnceLock::new(),
            title,
            read_only,
            destructive: flag(annotations, "destructiveHint").unwrap_or(false),
            search_hint: meta.get("anthropic/searchHint").and_then(Value::as_str).map(str::to_owned),
            always_load: always_load_server || flag(meta, "anthropic/alwaysLoad").unwrap_or(false),
            requires_user_interaction: flag(meta, "anthropic/requiresUserInteraction").unwrap_or(false),
            limit,
            timeout,
            file_fields,
        }
    }

    /// The `file://` URIs of `input`'s file fields, with the field each is in.
    fn file_uris<'v>(&self, input: &'v Value) -> impl Iterator<Item = (&str, &'v str)> {
        self.file_fields.iter().flat_map(move |field| {
            let value = input.get(&field.name);
            let values: Vec<&'v Value> = match value {
                Some(Value::Array(items)) if field.array => items.iter().collect(),
                Some(v) if !field.array => vec![v],
                _ => Vec::new(),
            };
            values
                .into_iter()
                .filter_map(Value::as_str)
                .filter(|v| v.starts_with("file://"))
                .map(move |v| (field.name.as_str(), v))
        })
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.description)
    }

    fn search_hint(&self) -> Option<&str> {
        self.search_hint.as_deref()
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        self.read_only
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.read_only
    }

    fn is_destructive(&self, _input: &Value) -> bool {
        self.destructive
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn requires_user_interaction(&self) -> bool {
        self.requires_user_interaction
    }

    fn always_load(&self) -> bool {
        self.always_load
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        self.limit
    }

    /// The local files the call names: each `file://` URI in a field the schema marks as a
    /// URI ([`file_fields`]), read by a tool the server says is read-only and written by any
    /// other (the schema cannot say which; a written target is also held to the `Read` deny
    /// rules). A courtesy for honest servers: a server that names files another way, or lies
    /// about its schema, is not held to the path rules by this, only by its tool rules.
    fn targets(&self, input: &Value) -> Vec<Target> {
        let access = if self.read_only { Access::Read { walked: false } } else { Access::Write };
        self.file_uris(input)
            .filter_map(|(_, uri)| uri_path(uri)?.into_os_string().into_string().ok())
            .map(|path| Target::new(path, access))
            .collect()
    }

    /// A `file://` URI whose path is not UTF-8 cannot be a [`Target`], so no rule or protected
    /// path could be checked against it: such a call asks.
    fn check_permissions(&self, input: &Value, _ctx: &ToolContext) -> PermissionCheck {
        for (field, uri) in self.file_uris(input) {
            if uri_path(uri).is_some_and(|p| p.to_str().is_none()) {
                return PermissionCheck::Ask {
                    detail: format!(
                        "{}: `{field}` names a file whose path is not UTF-8, which no rule can be checked against",
                        self.name
                    ),
                };
            }
        }
        PermissionCheck::Passthrough
    }

    fn validate_input<'a>(&'a self, input: &'a Value, _ctx: &'a ToolContext) -> BoxFuture<'a, Result<(), ToolError>> {
        let Some(raw) = &self.raw_schema else { return Box::pin(std::future::ready(Ok(()))) };
        let compiled = self.compiled_raw.get_or_init(|| InputSchema::compile(raw).ok());
        let outcome = match compiled {
            Some(schema) => schema.validate(input).map(|_| ()).map_err(|e| {
                ToolError::invalid_input(format!(
                    "InputValidationError: {} failed the server's input schema:\n{}",
                    self.name,
                    e.message()
                ))
            }),
            None => Ok(()),
        };
        Box::pin(std::future::ready(outcome))
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let Some(server) = self.server.upgrade() else {
                return Err(ToolError::mcp(format!(
                    "the MCP server {} is no longer managed (its manager was dropped)",
                    self.server_name
                )));
            };
            let result = server.call_tool(&self.remote_name, input, ctx, self.timeout).await?;
            tool_result(&self.server_name, &self.remote_name, &result)
        })
    }

    fn user_facing_name(&self, _input: Option<&Value>) -> String {
        format!("{} - {} (MCP)", self.server_name, self.title.as_deref().unwrap_or(&self.remote_name))
    }

    fn render_use(&self, input: &Value) -> String {
        let mut args = input.to_string();
        if args.chars().count() > 200 {
            args = args.chars().take(200).collect::<String>() + "…";
        }
        format!("{}({args})", self.name)
    }

    fn to_classifier_input(&self, input: &Value) -> String {
        format!("{} (MCP tool {} on server {}) {input}", self.name, self.remote_name, self.server_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(def: Value) -> McpTool {
        McpTool::new(Weak::new(), "my.server", &def, false, Duration::from_secs(1), 100_000)
    }

    #[test]
    fn annotations_and_meta_are_honoured() {
        let t = tool(json!({
            "name": "get issue",
            "description": "Gets an issue.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "title": "Get issue"},
            "_meta": {"anthropic/alwaysLoad": true, "anthropic/searchHint": "tickets bugs", "anthropic/maxResultSizeChars": 900_000}
        }));
        let i = json!({});
        assert_eq!(t.name(), "mcp__my_server__get_issue");
        assert!(t.is_read_only(&i) && t.is_concurrency_safe(&i) && !t.is_destructive(&i));
        assert!(t.always_load());
        assert_eq!(t.search_hint(), Some("tickets bugs"));
        assert_eq!(t.max_result_size_chars(), ResultLimit::Raised(MAX_RESULT_SIZE_CHARS_CAP));
        assert_eq!(t.user_facing_name(None), "my.server - Get issue (MCP)");
    }

    #[test]
    fn no_annotations_fail_closed() {
        let t = tool(json!({"name": "w", "inputSchema": {"type": "object"}}));
        let i = json!({});
        assert!(!t.is_read_only(&i) && !t.is_concurrency_safe(&i) && !t.is_destructive(&i));
        assert!(!t.always_load());
        assert_eq!(t.max_result_size_chars(), ResultLimit::Chars(100_000));
        assert_eq!(t.interrupt_behavior(), InterruptBehavior::Cancel);
    }

    #[tokio::test]
    async fn root_any_of_is_flattened_for_the_model_and_enforced_in_validation() {
        let t = tool(json!({"name": "c", "inputSchema": {"type": "object", "anyOf": [
            {"properties": {"path": {"type": "string"}}, "required": ["path"]},
            {"properties": {"id": {"type": "integer"}}, "required": ["id"]}
        ]}}));
        assert!(t.input_schema().get("anyOf").is_none());
        let ctx = ToolContext::new("/");
        assert!(t.validate_input(&json!({"path": "/x"}), &ctx).await.is_ok());
        let err = t.validate_input(&json!({}), &ctx).await.unwrap_err();
        assert!(err.message().starts_with("InputValidationError: mcp__my_server__c failed the server's input schema"));
    }

    #[tokio::test]
    async fn a_tool_whose_manager_is_gone_fails_as_mcp() {
        let t = tool(json!({"name": "x"}));
        let err = t.call(json!({}), &ToolContext::new("/")).await.unwrap_err();
        assert_eq!(err.kind(), toolgate_core::ToolErrorKind::Mcp);
    }

    /// Only a string the schema marks as a URI names a local file, and only when it is a
    /// `file://` URI: a field merely called `path` does not (it may be a path in a remote
    /// repository).
    #[test]
    fn file_uris_in_uri_fields_are_the_targets() {
        let schema = json!({"type": "object", "properties": {
            "source": {"type": "string", "format": "uri"},
            "extra": {"type": "array", "items": {"type": "string", "format": "uri-reference"}},
            "path": {"type": "string"},
            "link": {"type": "string"},
        }});
        let writer = tool(json!({"name": "copy", "inputSchema": schema}));
        let input = json!({
            "source": "file:///repo/a%20b.txt",
            "extra": ["file://localhost/repo/.git/config", "https://example.com/x", 3],
            "path": "/repo/.env",
            "link": "file:///repo/.env",
        });
        let write = |p: &str| Target::new(p, Access::Write);
        assert_eq!(writer.targets(&input), [write("/repo/.git/config"), write("/repo/a b.txt")]);
        assert!(writer.targets(&json!({"source": "https://example.com/f"})).is_empty());
        assert!(writer.targets(&json!({"extra": "file:///x"})).is_empty(), "an array field holding a string");
        let reader = tool(json!({"name": "read", "inputSchema": schema, "annotations": {"readOnlyHint": true}}));
        let read = Target::new("/repo/a b.txt", Access::Read { walked: false });
        assert_eq!(reader.targets(&json!({"source": "file:///repo/a%20b.txt"})), [read]);
        let plain = tool(
            json!({"name": "get_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}),
        );
        assert!(plain.targets(&json!({"path": "/repo/.env"})).is_empty());
        // A path that is not UTF-8 cannot be checked, so the call asks.
        let ctx = ToolContext::new("/repo");
        assert!(matches!(
            writer.check_permissions(&json!({"source": "file:///repo/%FF"}), &ctx),
            PermissionCheck::Ask { .. }
        ));
        assert_eq!(writer.check_permissions(&input, &ctx), PermissionCheck::Passthrough);
    }

    #[test]
    fn long_descriptions_are_cut() {
        let t = tool(json!({"name": "x", "description": "d".repeat(5_000)}));
        assert!(t.description().chars().count() < 2_100);
    }
}
