//! What a successful call returns: content blocks for the model, plus side channels
//! (a context change, new messages, MCP metadata, the structured output hooks see).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One block of a tool result's content, in the shape the Anthropic Messages API uses.
///
/// ```
/// use toolgate_core::ContentBlock;
/// let block = ContentBlock::text("hello");
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     serde_json::json!({"type": "text", "text": "hello"})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Where the bytes are.
        source: ImageSource,
    },
    /// A reference to a deferred tool, returned by ToolSearch so the model may now call it.
    ToolReference {
        /// The tool's name.
        tool_name: String,
    },
}

/// The bytes of an image block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSource {
    /// Always `base64`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The MIME type, e.g. `image/png`.
    pub media_type: String,
    /// The base64 data.
    pub data: String,
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// A base64 image block.
    pub fn image(media_type: impl Into<String>, base64_data: impl Into<String>) -> Self {
        Self::Image {
            source: ImageSource { kind: "base64".to_owned(), media_type: media_type.into(), data: base64_data.into() },
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }

    /// The number of characters this block counts for in result budgets: the text's
    /// length; images and references count as zero (they cannot be persisted as text).
    pub fn text_chars(&self) -> usize {
        match self {
            Self::Text { text } => text.chars().count(),
            _ => 0,
        }
    }
}

/// A change to the session a tool asks for; the pipeline applies changes in call order
/// after the call's batch.
///
/// ```
/// use toolgate_core::ContextChange;
/// let change = ContextChange::Cwd("/repo/sub".into());
/// assert!(matches!(change, ContextChange::Cwd(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContextChange {
    /// The working directory for later calls (Bash `cd`, EnterWorktree).
    Cwd(PathBuf),
    /// The permission mode for later calls (EnterPlanMode, ExitPlanMode).
    PermissionMode(crate::PermissionMode),
    /// Another directory the session may work in.
    AddRoot(PathBuf),
}

/// The successful result of a call.
///
/// ```
/// use toolgate_core::ToolOutput;
/// let out = ToolOutput::text("3 files changed");
/// assert_eq!(out.to_text(), "3 files changed");
/// assert!(out.context_change.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: Vec<ContentBlock>,
    /// The tool's structured output, as hooks receive it in `tool_response`.
    pub structured: Option<Value>,
    /// A change to the session, applied after the batch.
    pub context_change: Option<ContextChange>,
    /// Messages to add to the conversation after the result (e.g. a skill's prompt).
    pub new_messages: Vec<Value>,
    /// MCP `_meta` and `structuredContent` passed through from a server.
    pub mcp_meta: Option<Value>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![ContentBlock::text(text)], ..Self::default() }
    }

    /// Content blocks.
    pub fn blocks(content: Vec<ContentBlock>) -> Self {
        Self { content, ..Self::default() }
    }

    /// A JSON value shown to the model as pretty text and kept as the structured output.
    pub fn json(value: Value) -> Self {
        let text = match &value {
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
        };
        Self { structured: Some(value), ..Self::text(text) }
    }

    /// Sets the structured output.
    #[must_use]
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// Sets the context change.
    #[must_use]
    pub fn with_context_change(mut self, change: ContextChange) -> Self {
        self.context_change = Some(change);
        self
    }

    /// All text blocks joined with newlines.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Some(t) = block.as_text() {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
        out
    }

    /// True when there is no content, or only empty text.
    pub fn is_empty(&self) -> bool {
        self.content.iter().all(|b| b.as_text().is_some_and(|t| t.trim().is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_serialize_as_anthropic_content() {
        let img = ContentBlock::image("image/png", "AAAA");
        assert_eq!(
            serde_json::to_value(&img).unwrap(),
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}})
        );
        let reference = ContentBlock::ToolReference { tool_name: "Grep".into() };
        assert_eq!(serde_json::to_value(&reference).unwrap(), json!({"type": "tool_reference", "tool_name": "Grep"}));
    }

    #[test]
    fn emptiness_ignores_whitespace_only_text() {
        assert!(ToolOutput::text("  \n").is_empty());
        assert!(ToolOutput::default().is_empty());
        assert!(!ToolOutput::blocks(vec![ContentBlock::image("image/png", "A")]).is_empty());
    }

    #[test]
    fn json_output_keeps_structure() {
        let out = ToolOutput::json(json!({"a": 1}));
        assert_eq!(out.structured, Some(json!({"a": 1})));
        assert_eq!(out.to_text(), "{\n  \"a\": 1\n}");
    }
}

/// How a typed tool's output becomes result content.
///
/// ```
/// use toolgate_core::{IntoToolOutput, Json};
/// assert_eq!("done".into_tool_output().to_text(), "done");
/// let out = Json(serde_json::json!({"n": 2})).into_tool_output();
/// assert_eq!(out.structured.unwrap()["n"], 2);
/// ```
pub trait IntoToolOutput {
    /// The conversion.
    fn into_tool_output(self) -> ToolOutput;
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> ToolOutput {
        self
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolOutput for &'static str {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolOutput for Value {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::json(self)
    }
}

/// Wraps any `Serialize` value so it is shown as JSON and kept as the structured output.
#[derive(Debug, Clone)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> ToolOutput {
        match serde_json::to_value(&self.0) {
            Ok(value) => ToolOutput::json(value),
            Err(e) => ToolOutput::text(format!("(output could not be serialized: {e})")),
        }
    }
}
