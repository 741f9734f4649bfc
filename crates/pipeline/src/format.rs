//! Message formats: Anthropic (`tool_use` blocks in an assistant message, a user message
//! of `tool_result` blocks back) and OpenAI chat (`tool_calls` with JSON-string arguments,
//! `role: tool` messages back).

use serde_json::{Value, json};
use toolgate_core::ContentBlock;

use crate::{ToolCall, ToolResultBlock};

/// A call whose arguments could not be read; it is answered with an error result.
#[derive(Debug, Clone, PartialEq)]
pub struct MalformedCall {
    /// The call's id (empty when even that is missing).
    pub id: String,
    /// What is wrong.
    pub message: String,
}

/// Reads the `tool_use` blocks of an Anthropic assistant message, or a bare array of
/// blocks. Other block types (text, thinking) are skipped.
///
/// ```
/// use serde_json::json;
/// let msg = json!({"role": "assistant", "content": [
///     {"type": "text", "text": "Let me look."},
///     {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}
/// ]});
/// let calls = toolgate_pipeline::calls_from_anthropic(&msg).unwrap();
/// assert_eq!(calls[0].name, "Read");
/// ```
///
/// # Errors
/// The message is neither an object with a `content` array nor an array.
pub fn calls_from_anthropic(message: &Value) -> Result<Vec<ToolCall>, String> {
    let blocks = match message {
        Value::Array(blocks) => blocks,
        Value::Object(o) => match o.get("content") {
            Some(Value::Array(blocks)) => blocks,
            _ => return Err("the message has no `content` array of blocks".to_owned()),
        },
        _ => return Err("expected an assistant message object or an array of tool_use blocks".to_owned()),
    };
    Ok(blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|b| ToolCall {
            id: b.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
            name: b.get("name").and_then(Value::as_str).unwrap_or_default().to_owned(),
            input: b.get("input").cloned().unwrap_or(Value::Null),
        })
        .collect())
}

/// The user message answering the calls.
///
/// ```
/// use toolgate_pipeline::{ToolResultBlock, anthropic_user_message};
/// use toolgate_core::ContentBlock;
/// let msg = anthropic_user_message(&[ToolResultBlock::ok("toolu_1", vec![ContentBlock::text("hi")])]);
/// assert_eq!(msg["role"], "user");
/// assert_eq!(msg["content"][0]["type"], "tool_result");
/// ```
pub fn anthropic_user_message(results: &[ToolResultBlock]) -> Value {
    json!({"role": "user", "content": results})
}

/// Reads the `tool_calls` of an OpenAI chat assistant message (or a bare array of them).
/// A call whose `arguments` is not a JSON object string becomes a [`MalformedCall`] that
/// is answered with an error, never a failure of the whole message.
///
/// ```
/// use serde_json::json;
/// let msg = json!({"role": "assistant", "tool_calls": [
///     {"id": "call_1", "type": "function", "function": {"name": "Grep", "arguments": "{\"pattern\":\"fn\"}"}},
///     {"id": "call_2", "type": "function", "function": {"name": "Read", "arguments": "{oops"}}
/// ]});
/// let (calls, bad) = toolgate_pipeline::calls_from_openai(&msg).unwrap();
/// assert_eq!(calls[0].input["pattern"], "fn");
/// assert_eq!(bad[0].id, "call_2");
/// ```
///
/// # Errors
/// The message has no `tool_calls` array.
pub fn calls_from_openai(message: &Value) -> Result<(Vec<ToolCall>, Vec<MalformedCall>), String> {
    let calls = match message {
        Value::Array(calls) => calls,
        Value::Object(o) => match o.get("tool_calls") {
            Some(Value::Array(calls)) => calls,
            _ => return Err("the message has no `tool_calls` array".to_owned()),
        },
        _ => return Err("expected an assistant message object or an array of tool calls".to_owned()),
    };
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for call in calls {
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let function = call.get("function").unwrap_or(&Value::Null);
        let name = function.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let input = match function.get("arguments") {
            Some(Value::String(text)) if text.trim().is_empty() => Ok(json!({})),
            Some(Value::String(text)) => serde_json::from_str::<Value>(text)
                .map_err(|e| format!("the arguments of {name} are not valid JSON ({e}); send a JSON object")),
            Some(obj @ Value::Object(_)) => Ok(obj.clone()),
            None => Ok(json!({})),
            Some(other) => Err(format!("the arguments of {name} must be a JSON object string, got {other}")),
        };
        match input {
            Ok(input) => good.push(ToolCall { id, name, input }),
            Err(message) => bad.push(MalformedCall { id, message }),
        }
    }
    Ok((good, bad))
}

/// The `role: tool` messages answering OpenAI calls, one per result, in order. Images are
/// replaced by a note (the chat format carries text only).
pub fn openai_tool_messages(results: &[ToolResultBlock]) -> Vec<Value> {
    results
        .iter()
        .map(|r| {
            let text: Vec<String> = r
                .content
                .iter()
                .map(|b| match b {
                    ContentBlock::Text { text } => text.clone(),
                    ContentBlock::Image { source } => format!("[image: {}]", source.media_type),
                    ContentBlock::ToolReference { tool_name } => format!("[tool loaded: {tool_name}]"),
                    _ => String::new(),
                })
                .collect();
            json!({"role": "tool", "tool_call_id": r.tool_use_id, "content": text.join("\n")})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_round_trip_with_images() {
        let msg = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "…"},
            {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "/x.png"}},
            {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "ls"}}
        ]});
        let calls = calls_from_anthropic(&msg).unwrap();
        assert_eq!(calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let results = vec![
            ToolResultBlock::ok("a", vec![ContentBlock::image("image/png", "iVBOR")]),
            ToolResultBlock::ok("b", vec![ContentBlock::text("file")]),
        ];
        let reply = anthropic_user_message(&results);
        assert_eq!(reply["content"][0]["content"][0]["source"]["media_type"], "image/png");
        assert_eq!(reply["content"][1]["tool_use_id"], "b");
        assert!(calls_from_anthropic(&json!("nope")).is_err());
        assert_eq!(calls_from_anthropic(&json!([])).unwrap(), vec![]);
    }

    #[test]
    fn openai_round_trip() {
        let (calls, bad) = calls_from_openai(&json!([
            {"id": "c1", "type": "function", "function": {"name": "LS", "arguments": ""}},
            {"id": "c2", "type": "function", "function": {"name": "X", "arguments": 5}},
        ]))
        .unwrap();
        assert_eq!(calls[0].input, json!({}));
        assert!(bad[0].message.contains("must be a JSON object string"));
        let msgs =
            openai_tool_messages(&[ToolResultBlock::ok("c1", vec![ContentBlock::text("a"), ContentBlock::text("b")])]);
        assert_eq!(msgs[0], json!({"role": "tool", "tool_call_id": "c1", "content": "a\nb"}));
    }
}
