//! `type: "mcp_tool"` handlers: a tool of a configured MCP server, called through the host's
//! [`McpToolCaller`] with the hook's `input`, whose `${tool_input.file_path}`-style placeholders
//! are filled from the event input; the tool's text is read as a command hook's stdout (so it
//! may carry a JSON decision). Without a caller, or when the call fails, the hook is a
//! non-blocking error that says why.

use std::time::Duration;

use serde_json::Value;
use toolgate_core::{BoxFuture, CancellationToken};

use crate::config::McpToolHook;
use crate::outcome::HookResponse;

/// How a host calls its MCP servers' tools for `mcp_tool` hooks (the CLI: through its MCP
/// manager).
///
/// ```
/// use serde_json::Value;
/// use toolgate_core::BoxFuture;
/// use toolgate_hooks::McpToolCaller;
///
/// #[derive(Debug)]
/// struct Echo;
/// impl McpToolCaller for Echo {
///     fn call<'a>(&'a self, _server: &'a str, _tool: &'a str, input: Value) -> BoxFuture<'a, Result<String, String>> {
///         Box::pin(async move { Ok(input.to_string()) })
///     }
/// }
/// ```
pub trait McpToolCaller: Send + Sync + std::fmt::Debug {
    /// Calls `tool` of `server` with `input`; the result's text, or why it failed.
    fn call<'a>(&'a self, server: &'a str, tool: &'a str, input: Value) -> BoxFuture<'a, Result<String, String>>;
}

/// Runs an `mcp_tool` hook for the event `body` (its input JSON).
pub(crate) async fn run(
    caller: Option<&dyn McpToolCaller>,
    hook: &McpToolHook,
    body: &[u8],
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookResponse {
    let Some(caller) = caller else {
        return HookResponse::Error {
            message: format!(
                "the mcp_tool hook mcp__{}__{} did not run: this host connects no MCP servers for hooks",
                hook.server, hook.tool
            ),
        };
    };
    let event: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let input = fill(&hook.input, &event);
    let call = caller.call(&hook.server, &hook.tool, input);
    crate::outcome::bounded(timeout, cancel, call, |stdout| HookResponse::Success { stdout, truncated: false }).await
}

/// `input` with every `${a.b.c}` in its strings replaced by that path of `event` (a string as
/// is, anything else as JSON; a path that does not exist by nothing). A string that is one
/// placeholder becomes the value itself, so `"${tool_input}"` passes an object on.
fn fill(input: &Value, event: &Value) -> Value {
    match input {
        Value::String(text) => {
            if let Some(path) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')).filter(|p| !p.contains("${"))
            {
                return lookup(event, path).cloned().unwrap_or(Value::String(String::new()));
            }
            let mut out = String::new();
            let mut rest = text.as_str();
            while let Some(start) = rest.find("${") {
                out.push_str(&rest[..start]);
                let Some(end) = rest[start..].find('}') else {
                    out.push_str(&rest[start..]);
                    rest = "";
                    break;
                };
                match lookup(event, &rest[start + 2..start + end]) {
                    Some(Value::String(s)) => out.push_str(s),
                    Some(other) => out.push_str(&other.to_string()),
                    None => {}
                }
                rest = &rest[start + end + 1..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| fill(i, event)).collect()),
        Value::Object(fields) => Value::Object(fields.iter().map(|(k, v)| (k.clone(), fill(v, event))).collect()),
        other => other.clone(),
    }
}

fn lookup<'a>(event: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(event, |value, key| value.get(key))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::fill;

    #[test]
    fn placeholders_are_filled_from_the_event() {
        let event = json!({"tool_name": "Edit", "tool_input": {"file_path": "/p/a.rs", "n": 3}});
        let input = json!({"path": "${tool_input.file_path}", "note": "edit of ${tool_input.file_path} (${tool_input.n})",
            "whole": "${tool_input}", "missing": "x${nope.no}y", "list": ["${tool_name}"], "kept": 1});
        assert_eq!(
            fill(&input, &event),
            json!({"path": "/p/a.rs", "note": "edit of /p/a.rs (3)", "whole": {"file_path": "/p/a.rs", "n": 3},
                "missing": "xy", "list": ["Edit"], "kept": 1})
        );
    }
}
