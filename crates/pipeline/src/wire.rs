//! The wire types: a `tool_use` block in, a `tool_result` block out.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolgate_core::{ContentBlock, ToolError};

/// One `tool_use` block of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, echoed in its result.
    pub id: String,
    /// The tool the model named.
    pub name: String,
    /// The raw input, exactly as the model sent it.
    pub input: Value,
}

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self { id: id.into(), name: name.into(), input }
    }
}

/// One `tool_result` block of the user message that answers the calls.
///
/// ```
/// use toolgate_core::ToolError;
/// use toolgate_pipeline::ToolResultBlock;
/// let r = ToolResultBlock::error("t1", &ToolError::not_found("no tool named Raed").with_hint("did you mean Read?"));
/// assert!(r.is_error);
/// assert_eq!(
///     serde_json::to_value(&r).unwrap(),
///     serde_json::json!({
///         "type": "tool_result",
///         "tool_use_id": "t1",
///         "content": [{"type": "text", "text": "<tool_use_error>no tool named Raed\ndid you mean Read?</tool_use_error>"}],
///         "is_error": true
///     })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "tool_result")]
pub struct ToolResultBlock {
    /// The id of the call answered.
    pub tool_use_id: String,
    /// What the model reads.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed.
    #[serde(default)]
    pub is_error: bool,
}

impl ToolResultBlock {
    /// A successful result.
    pub fn ok(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content, is_error: false }
    }

    /// A failed result, in Claude Code's `<tool_use_error>…</tool_use_error>` shape.
    pub fn error(tool_use_id: impl Into<String>, error: &ToolError) -> Self {
        let text = format!("<tool_use_error>{}</tool_use_error>", error.to_model_text());
        Self { tool_use_id: tool_use_id.into(), content: vec![ContentBlock::text(text)], is_error: true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_use_blocks_deserialize() {
        let call: ToolCall =
            serde_json::from_value(json!({"id": "toolu_1", "name": "Read", "input": {"file_path": "/x"}})).unwrap();
        assert_eq!(call, ToolCall::new("toolu_1", "Read", json!({"file_path": "/x"})));
    }

    #[test]
    fn ok_results_omit_nothing() {
        let r = ToolResultBlock::ok("a", vec![ContentBlock::text("hi")]);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["is_error"], false);
        assert_eq!(v["content"][0]["text"], "hi");
    }
}
