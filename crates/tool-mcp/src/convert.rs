//! Translations between MCP's shapes and toolgate's: tool descriptions and schemas in,
//! call results in, and toolgate results back out for the server direction.

#[cfg(test)]
use serde_json::json;
use serde_json::{Map, Value};
use toolgate_core::{ContentBlock, ToolError, ToolOutput};

/// How many characters of a server's tool description (or instructions) are kept.
pub const MAX_DESCRIPTION_CHARS: usize = 2_048;

/// `text` cut to [`MAX_DESCRIPTION_CHARS`] characters on a char boundary, with `… [truncated]`
/// appended when cut.
///
/// ```
/// let long = "x".repeat(3_000);
/// let cut = toolgate_mcp::truncate_description(&long);
/// assert_eq!(cut.chars().count(), 2_048 + "… [truncated]".chars().count());
/// assert_eq!(toolgate_mcp::truncate_description("short"), "short");
/// ```
pub fn truncate_description(text: &str) -> String {
    match text.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((cut, _)) => format!("{}… [truncated]", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The schema shown to the model for an input schema whose root is an `anyOf`, `oneOf` or
/// `allOf` (which model APIs refuse at the root): one object schema whose properties are
/// the union of every branch's, required only where every alternative requires it (all of
/// `allOf`'s). Local `$ref`s in the branches are followed one step. Validation still uses
/// the server's schema as given; a schema without root combinators comes back unchanged.
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "anyOf": [
///     {"properties": {"path": {"type": "string"}, "recursive": {"type": "boolean"}}, "required": ["path"]},
///     {"properties": {"id": {"type": "integer"}}, "required": ["id"]}
/// ]});
/// let flat = toolgate_mcp::flatten_root_combinators(&schema);
/// assert_eq!(flat, json!({"type": "object", "properties": {
///     "path": {"type": "string"}, "recursive": {"type": "boolean"}, "id": {"type": "integer"}
/// }}));
/// ```
pub fn flatten_root_combinators(schema: &Value) -> Value {
    let Some(root) = schema.as_object() else { return schema.clone() };
    if !["anyOf", "oneOf", "allOf"].iter().any(|k| root.contains_key(*k)) {
        return schema.clone();
    }
    let mut out: Map<String, Value> = Map::new();
    let mut properties: Map<String, Value> =
        root.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut required: Vec<String> = string_list(root.get("required"));
    for (key, value) in root {
        if !matches!(key.as_str(), "anyOf" | "oneOf" | "allOf" | "properties" | "required" | "type") {
            out.insert(key.clone(), value.clone());
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        let Some(branches) = root.get(key).and_then(Value::as_array) else { continue };
        let branches: Vec<Value> = branches.iter().map(|b| resolve_local_ref(schema, b)).collect();
        let mut all_required: Option<Vec<String>> = None;
        for branch in &branches {
            if let Some(props) = branch.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    properties.entry(name.clone()).or_insert_with(|| prop.clone());
                }
            }
            let branch_required = string_list(branch.get("required"));
            if key == "allOf" {
                for r in branch_required {
                    if !required.contains(&r) {
                        required.push(r);
                    }
                }
            } else {
                all_required = Some(match all_required {
                    None => branch_required,
                    Some(prev) => prev.into_iter().filter(|r| branch_required.contains(r)).collect(),
                });
            }
        }
        for r in all_required.unwrap_or_default() {
            if !required.contains(&r) {
                required.push(r);
            }
        }
    }
    out.insert("type".to_owned(), Value::String("object".to_owned()));
    out.insert("properties".to_owned(), Value::Object(properties));
    if !required.is_empty() {
        out.insert("required".to_owned(), Value::Array(required.into_iter().map(Value::String).collect()));
    }
    Value::Object(out)
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// A branch, or what its local `$ref` (`#/$defs/X`, `#/definitions/X`) points at.
fn resolve_local_ref(root: &Value, branch: &Value) -> Value {
    match branch.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => root.pointer(pointer).cloned().unwrap_or_else(|| branch.clone()),
        None => branch.clone(),
    }
}

/// A server's `tools/call` result (as JSON) as a toolgate result: text and images as
/// blocks; audio, resource links and embedded resources as text descriptions (embedded
/// text resources with their text, embedded images as images); `structuredContent` kept
/// as the structured output (and shown as JSON text when there is no other content);
/// `_meta` and `structuredContent` passed through in `mcp_meta`. `isError: true` becomes
/// an [`mcp`](toolgate_core::ToolErrorKind::Mcp) error carrying the server's text.
pub(crate) fn tool_result(server: &str, tool: &str, result: &Value) -> Result<ToolOutput, ToolError> {
    let Some(obj) = result.as_object() else {
        return Err(malformed(server, tool, "the result is not an object"));
    };
    let content = match obj.get("content") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(content_block).collect(),
        Some(_) => return Err(malformed(server, tool, "`content` is not a list")),
    };
    let is_error = match obj.get("isError") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(malformed(server, tool, "`isError` is not a boolean")),
    };
    let structured = obj.get("structuredContent").cloned();
    if is_error {
        let text: Vec<&str> = content.iter().filter_map(ContentBlock::as_text).collect();
        let message = if text.is_empty() {
            format!("the MCP tool {tool} on server {server} reported an error without a message")
        } else {
            text.join("\n")
        };
        return Err(ToolError::mcp(message));
    }
    let mut output = ToolOutput::blocks(content);
    if output.content.is_empty()
        && let Some(value) = &structured
    {
        output.content.push(ContentBlock::text(serde_json::to_string(value).unwrap_or_default()));
    }
    let meta = obj.get("_meta").cloned();
    if structured.is_some() || meta.is_some() {
        let mut passthrough = Map::new();
        if let Some(meta) = meta {
            passthrough.insert("_meta".to_owned(), meta);
        }
        if let Some(sc) = &structured {
            passthrough.insert("structuredContent".to_owned(), sc.clone());
        }
        output.mcp_meta = Some(Value::Object(passthrough));
    }
    output.structured = structured;
    Ok(output)
}

fn malformed(server: &str, tool: &str, what: &str) -> ToolError {
    ToolError::mcp(format!("the MCP server {server} returned a malformed result for {tool}: {what}"))
        .with_hint("The server misbehaved; try again, or use another tool.")
}

/// One MCP content block as a toolgate block.
fn content_block(block: &Value) -> ContentBlock {
    let field = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
    match field("type") {
        "text" => ContentBlock::text(field("text")),
        "image" => ContentBlock::image(field("mimeType"), field("data")),
        "audio" => ContentBlock::text(format!(
            "[audio: {}, {} bytes base64-encoded; audio cannot be shown]",
            non_empty(field("mimeType"), "unknown type"),
            field("data").len()
        )),
        "resource_link" => {
            let mut text = format!("[resource link: {} ({})", non_empty(field("name"), "unnamed"), field("uri"));
            if !field("mimeType").is_empty() {
                text.push_str(&format!(", {}", field("mimeType")));
            }
            text.push(']');
            if !field("description").is_empty() {
                text.push_str(&format!(" {}", field("description")));
            }
            ContentBlock::text(text)
        }
        "resource" => resource_contents_block(block.get("resource").unwrap_or(&Value::Null)),
        other => ContentBlock::text(format!("[unsupported MCP content type `{other}`: {block}]")),
    }
}

/// One entry of a resource's `contents` (embedded in a result or read) as a block.
pub(crate) fn resource_contents_block(resource: &Value) -> ContentBlock {
    let field = |key: &str| resource.get(key).and_then(Value::as_str);
    let uri = field("uri").unwrap_or_default();
    let mime = field("mimeType").unwrap_or_default();
    if let Some(text) = field("text") {
        return ContentBlock::text(format!("[resource: {uri}]\n{text}"));
    }
    match field("blob") {
        Some(blob) if mime.starts_with("image/") => ContentBlock::image(mime, blob),
        Some(blob) => ContentBlock::text(format!(
            "[resource: {uri}, {}, binary, {} bytes base64-encoded; not shown]",
            non_empty(mime, "unknown type"),
            blob.len()
        )),
        None => ContentBlock::text(format!("[resource: {uri}, no contents]")),
    }
}

fn non_empty<'a>(s: &'a str, fallback: &'a str) -> &'a str {
    if s.is_empty() { fallback } else { s }
}

/// A toolgate result block as MCP content (the server direction).
pub(crate) fn mcp_content(block: &ContentBlock) -> rmcp::model::ContentBlock {
    match block {
        ContentBlock::Text { text } => rmcp::model::ContentBlock::text(text.clone()),
        ContentBlock::Image { source } => {
            rmcp::model::ContentBlock::image(source.data.clone(), source.media_type.clone())
        }
        ContentBlock::ToolReference { tool_name } => {
            rmcp::model::ContentBlock::text(format!("[tool reference: {tool_name}]"))
        }
        other => rmcp::model::ContentBlock::text(serde_json::to_string(other).unwrap_or_default()),
    }
}

/// The text of an error result without Claude Code's `<tool_use_error>` wrapper (MCP says
/// it with `isError`).
pub(crate) fn unwrap_tool_use_error(text: &str) -> &str {
    text.strip_prefix("<tool_use_error>").and_then(|t| t.strip_suffix("</tool_use_error>")).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_core::ToolErrorKind;

    #[test]
    fn every_content_kind_converts() {
        let result = json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AAA=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "bee"}},
            {"type": "resource", "resource": {"uri": "file:///c.png", "mimeType": "image/png", "blob": "AAA="}},
            {"type": "resource", "resource": {"uri": "file:///d", "mimeType": "application/zip", "blob": "AAAA"}},
            {"type": "hologram"}
        ], "structuredContent": {"n": 1}, "_meta": {"m": true}});
        let out = tool_result("s", "t", &result).unwrap();
        let texts: Vec<String> = out.content.iter().map(|b| b.as_text().unwrap_or("<image>").to_owned()).collect();
        assert_eq!(
            texts,
            [
                "hi",
                "<image>",
                "[audio: audio/wav, 8 bytes base64-encoded; audio cannot be shown]",
                "[resource link: a (file:///a), text/plain]",
                "[resource: file:///b]\nbee",
                "<image>",
                "[resource: file:///d, application/zip, binary, 4 bytes base64-encoded; not shown]",
                "[unsupported MCP content type `hologram`: {\"type\":\"hologram\"}]",
            ]
        );
        assert_eq!(out.structured, Some(json!({"n": 1})));
        assert_eq!(out.mcp_meta, Some(json!({"_meta": {"m": true}, "structuredContent": {"n": 1}})));
    }

    #[test]
    fn structured_only_results_show_json() {
        let out = tool_result("s", "t", &json!({"structuredContent": {"sum": 5}})).unwrap();
        assert_eq!(out.to_text(), r#"{"sum":5}"#);
    }

    #[test]
    fn errors_carry_the_server_text_and_malformed_results_say_so() {
        let err = tool_result("s", "t", &json!({"content": [{"type": "text", "text": "boom"}], "isError": true}))
            .unwrap_err();
        assert_eq!((err.kind(), err.message()), (ToolErrorKind::Mcp, "boom"));
        let err = tool_result("s", "t", &json!({"content": "x"})).unwrap_err();
        assert!(err.message().contains("malformed result for t: `content` is not a list"));
        let err = tool_result("s", "t", &json!({"content": [], "isError": "yes"})).unwrap_err();
        assert!(err.message().contains("`isError` is not a boolean"));
        // An absent isError is success (TypeScript servers omit it).
        assert!(tool_result("s", "t", &json!({"content": []})).is_ok());
    }

    #[test]
    fn flattening_all_of_requires_everything_and_follows_refs() {
        let schema = json!({
            "$defs": {"B": {"properties": {"b": {"type": "string"}}, "required": ["b"]}},
            "allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"$ref": "#/$defs/B"}]
        });
        let flat = flatten_root_combinators(&schema);
        assert_eq!(flat["required"], json!(["a", "b"]));
        assert_eq!(flat["properties"]["b"], json!({"type": "string"}));
        assert_eq!(flat["$defs"], schema["$defs"]);
        assert!(flat.get("allOf").is_none());
        let plain = json!({"type": "object", "properties": {}});
        assert_eq!(flatten_root_combinators(&plain), plain);
    }

    #[test]
    fn one_of_keeps_only_common_requirements() {
        let schema = json!({"oneOf": [
            {"properties": {"k": {}, "a": {}}, "required": ["k", "a"]},
            {"properties": {"k": {}, "b": {}}, "required": ["k", "b"]}
        ]});
        assert_eq!(flatten_root_combinators(&schema)["required"], json!(["k"]));
    }

    #[test]
    fn descriptions_cut_on_char_boundaries() {
        let text = "é".repeat(2_049);
        let cut = truncate_description(&text);
        assert!(cut.starts_with(&"é".repeat(2_048)));
        assert!(cut.ends_with("… [truncated]"));
    }

    #[test]
    fn tool_use_error_wrapper_is_removed() {
        assert_eq!(unwrap_tool_use_error("<tool_use_error>no</tool_use_error>"), "no");
        assert_eq!(unwrap_tool_use_error("plain"), "plain");
    }
}
