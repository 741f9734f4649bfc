//! `ListMcpResourcesTool` and `ReadMcpResourceTool`: the resources of connected servers.
//! Both are offered only while some connected server has resources.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ReadResourceRequestParams;
use serde_json::{Value, json};
use toolgate_core::{BoxFuture, ContentBlock, DynTool, Tool, ToolContext, ToolError, ToolOutput};

use crate::convert::resource_contents_block;
use crate::manager::ManagerInner;

/// How long listing or reading a resource may take per server.
const RESOURCE_TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) fn tools(manager: Arc<ManagerInner>) -> Vec<DynTool> {
    vec![
        Arc::new(ListResources { manager: manager.clone(), schema: list_schema() }),
        Arc::new(ReadResource { manager, schema: read_schema() }),
    ]
}

fn list_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"server": {"type": "string", "description": "Only this server's resources (default: every server)."}},
        "additionalProperties": false
    })
}

fn read_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "The MCP server that has the resource."},
            "uri": {"type": "string", "description": "The resource's URI."}
        },
        "required": ["server", "uri"],
        "additionalProperties": false
    })
}

/// The error for a server name that is not connected or has no resources.
fn unknown_server(manager: &ManagerInner, server: &str) -> ToolError {
    let with: Vec<String> = manager.resource_servers().into_iter().map(|(n, _)| n).collect();
    let configured = manager.server_names().contains(&server.to_owned());
    let what = if configured { "is not connected or has no resources" } else { "is not configured" };
    ToolError::not_found(format!("the MCP server {server} {what}")).with_hint(format!(
        "Servers with resources: {}.",
        if with.is_empty() { "none".to_owned() } else { with.join(", ") }
    ))
}

struct ListResources {
    manager: Arc<ManagerInner>,
    schema: Value,
}

impl Tool for ListResources {
    fn name(&self) -> &str {
        "ListMcpResourcesTool"
    }

    fn description(&self) -> Cow<'_, str> {
        Cow::Borrowed(
            "Lists the resources (files, records, documents) that connected MCP servers offer, with each \
             resource's server, URI, name, MIME type and description. Pass `server` to list one server's \
             resources. Read one with ReadMcpResourceTool.",
        )
    }

    fn search_hint(&self) -> Option<&str> {
        Some("mcp resources list available server files")
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_enabled(&self) -> bool {
        self.manager.has_resources()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let wanted = input.get("server").and_then(Value::as_str);
            let servers: Vec<_> = self
                .manager
                .resource_servers()
                .into_iter()
                .filter(|(name, _)| wanted.is_none_or(|w| w == name))
                .collect();
            if let Some(w) = wanted
                && servers.is_empty()
            {
                return Err(unknown_server(&self.manager, w));
            }
            let mut listed = Vec::new();
            for (name, peer) in servers {
                let resources = tokio::select! {
                    () = ctx.cancel.cancelled() => return Err(ToolError::cancelled("listing MCP resources was cancelled")),
                    r = tokio::time::timeout(RESOURCE_TIMEOUT, peer.list_all_resources()) => r,
                };
                match resources {
                    Ok(Ok(resources)) => {
                        for resource in resources {
                            let mut entry = serde_json::to_value(&resource).unwrap_or(Value::Null);
                            if let Value::Object(obj) = &mut entry {
                                obj.insert("server".to_owned(), Value::String(name.clone()));
                            }
                            listed.push(entry);
                        }
                    }
                    Ok(Err(e)) => {
                        return Err(ToolError::mcp(format!("the MCP server {name} could not list its resources: {e}")));
                    }
                    Err(_) => {
                        return Err(ToolError::timeout(format!(
                            "the MCP server {name} did not list its resources within {} s",
                            RESOURCE_TIMEOUT.as_secs()
                        )));
                    }
                }
            }
            if listed.is_empty() {
                return Ok(ToolOutput::text(
                    "No resources found. MCP servers may still provide tools even if they have no resources.",
                )
                .with_structured(Value::Array(Vec::new())));
            }
            Ok(ToolOutput::json(Value::Array(listed)))
        })
    }

    fn render_use(&self, input: &Value) -> String {
        match input.get("server").and_then(Value::as_str) {
            Some(server) => format!("ListMcpResourcesTool({server})"),
            None => "ListMcpResourcesTool".to_owned(),
        }
    }
}

struct ReadResource {
    manager: Arc<ManagerInner>,
    schema: Value,
}

impl Tool for ReadResource {
    fn name(&self) -> &str {
        "ReadMcpResourceTool"
    }

    fn description(&self) -> Cow<'_, str> {
        Cow::Borrowed(
            "Reads one resource from a connected MCP server by its server name and URI (as listed by \
             ListMcpResourcesTool). Text comes back as text, images as images; other binary contents are \
             described.",
        )
    }

    fn search_hint(&self) -> Option<&str> {
        Some("mcp resource read fetch server uri")
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_enabled(&self) -> bool {
        self.manager.has_resources()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let server = input.get("server").and_then(Value::as_str).unwrap_or_default();
            let uri = input.get("uri").and_then(Value::as_str).unwrap_or_default();
            let Some((_, peer)) = self.manager.resource_servers().into_iter().find(|(name, _)| name == server) else {
                return Err(unknown_server(&self.manager, server));
            };
            let read = tokio::select! {
                () = ctx.cancel.cancelled() => return Err(ToolError::cancelled("reading the MCP resource was cancelled")),
                r = tokio::time::timeout(RESOURCE_TIMEOUT, peer.read_resource(ReadResourceRequestParams::new(uri))) => r,
            };
            let result = match read {
                Ok(Ok(result)) => result,
                Ok(Err(e)) => {
                    return Err(ToolError::mcp(format!("the MCP server {server} could not read {uri}: {e}"))
                        .with_hint("List the server's resources with ListMcpResourcesTool to check the URI."));
                }
                Err(_) => {
                    return Err(ToolError::timeout(format!(
                        "the MCP server {server} did not return {uri} within {} s",
                        RESOURCE_TIMEOUT.as_secs()
                    )));
                }
            };
            let value = serde_json::to_value(&result).unwrap_or(Value::Null);
            let contents = value.get("contents").and_then(Value::as_array).cloned().unwrap_or_default();
            let blocks: Vec<ContentBlock> = contents.iter().map(resource_contents_block).collect();
            let mut out = ToolOutput::blocks(blocks);
            out.structured = Some(value);
            Ok(out)
        })
    }

    fn render_use(&self, input: &Value) -> String {
        let field = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        format!("ReadMcpResourceTool({}, {})", field("server"), field("uri"))
    }
}
