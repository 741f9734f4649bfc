//! ToolSearch: how the model finds and loads deferred tools.
//!
//! Query forms: `select:A,B` (exact names, missing ones reported), a bare exact tool name
//! (same as select), `mcp__server` (that server's tools), or keywords where `+term` is
//! required. Keyword scoring per term: exact name part 10 (MCP 12), partial name part 5
//! (MCP 6), whole-name substring 3 when nothing else hit, search-hint word 4,
//! description word 2.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::pool::TOOL_SEARCH_NAME;
use crate::{
    BoxFuture, ContentBlock, DefinitionFormat, ResultLimit, Tool, ToolContext, ToolError, ToolOutput, ToolPool,
};

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchResult {
    /// Matching tool names, best first.
    pub matches: Vec<String>,
    /// Names a `select:` asked for that do not exist.
    pub missing: Vec<String>,
}

/// Runs a ToolSearch query over a pool. Keyword and server queries search the deferred
/// tools; `select:` accepts any tool of the pool.
///
/// ```
/// use toolgate_core::{ToolBuilder, ToolPool, ToolSearchTool, search_tools};
/// let pool = ToolPool::builder()
///     .builtin(ToolSearchTool::shared())
///     .mcp(ToolBuilder::new("mcp__github__create_issue").description("Open an issue").build())
///     .mcp(ToolBuilder::new("mcp__github__list_prs").description("List pull requests").build())
///     .mcp(ToolBuilder::new("mcp__slack__post").description("Post a message").build())
///     .build();
/// assert_eq!(search_tools(&pool, "issue", 5).matches, ["mcp__github__create_issue"]);
/// assert_eq!(search_tools(&pool, "mcp__github", 5).matches.len(), 2);
/// let r = search_tools(&pool, "select:mcp__slack__post,Nope", 5);
/// assert_eq!((r.matches, r.missing), (vec!["mcp__slack__post".to_owned()], vec!["Nope".to_owned()]));
/// ```
pub fn search_tools(pool: &ToolPool, query: &str, max_results: usize) -> SearchResult {
    let query = query.trim();
    if let Some(list) = query.strip_prefix("select:") {
        return select(pool, list.split(',').map(str::trim).filter(|s| !s.is_empty()));
    }
    if !query.contains(char::is_whitespace) && pool.get(query).is_some() {
        return select(pool, std::iter::once(query));
    }
    if query.starts_with("mcp__") && !query.contains(char::is_whitespace) {
        let prefix = format!("{}__", query.trim_end_matches('_'));
        let matches = pool
            .deferred_names()
            .filter(|n| n.starts_with(&prefix) || *n == query)
            .take(max_results)
            .map(str::to_owned)
            .collect();
        return SearchResult { matches, missing: Vec::new() };
    }

    let terms: Vec<(String, bool)> = query
        .split_whitespace()
        .map(|t| match t.strip_prefix('+') {
            Some(rest) => (rest.to_lowercase(), true),
            None => (t.to_lowercase(), false),
        })
        .filter(|(t, _)| !t.is_empty())
        .collect();
    let mut scored = pool.search_index().score(pool, &terms);
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    SearchResult {
        matches: scored.into_iter().take(max_results).map(|(_, n)| n.to_owned()).collect(),
        missing: Vec::new(),
    }
}

fn select<'a>(pool: &ToolPool, names: impl Iterator<Item = &'a str>) -> SearchResult {
    let mut result = SearchResult::default();
    for name in names {
        match pool.get(name) {
            Some(tool) if !result.matches.iter().any(|m| m == tool.name()) => {
                result.matches.push(tool.name().to_owned())
            }
            Some(_) => {}
            None => result.missing.push(name.to_owned()),
        }
    }
    result
}

/// The ToolSearch tool. It reads the pool from [`ToolContext::pool`]; results are
/// `tool_reference` blocks for the Anthropic format, or full definitions when the host
/// put another [`DefinitionFormat`] in the context's extensions.
#[derive(Debug, Default)]
pub struct ToolSearchTool {
    schema: OnceLock<Value>,
}

impl ToolSearchTool {
    /// The tool, ready for a pool.
    pub fn shared() -> crate::DynTool {
        std::sync::Arc::new(Self::default())
    }
}

const DESCRIPTION: &str = "Loads deferred tools so you can call them. Deferred tools are listed by name in \
<available-deferred-tools> but their definitions are not loaded until you search for them.\n\n\
Query forms:\n\
- \"select:Name1,Name2\" loads those exact tools\n\
- \"mcp__server\" loads the tools of one MCP server\n\
- keywords, e.g. \"github issue\"; prefix a word with + to require it (\"+slack send\")\n\n\
Matching tools become callable right after this call.";

impl Tool for ToolSearchTool {
    fn name(&self) -> &str {
        TOOL_SEARCH_NAME
    }

    fn aliases(&self) -> &[&str] {
        &["MCPSearch"]
    }

    fn description(&self) -> Cow<'_, str> {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> &Value {
        self.schema.get_or_init(|| {
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "select:Name1,Name2, an mcp__server prefix, or keywords (+word = required)"},
                    "max_results": {"type": "integer", "minimum": 1, "default": 5, "description": "How many tools to return (default 5)"},
                },
                "required": ["query"],
                "additionalProperties": false,
            })
        })
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

    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }

    fn check_permissions(&self, _input: &Value, _ctx: &ToolContext) -> crate::PermissionCheck {
        crate::PermissionCheck::Allow { detail: "ToolSearch only loads tool definitions".to_owned() }
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let pool = ctx
                .pool
                .as_ref()
                .ok_or_else(|| ToolError::internal("ToolSearch was called without a tool pool in its context"))?;
            let query = input["query"].as_str().unwrap_or_default();
            let max = input["max_results"].as_u64().map_or(5, |n| usize::try_from(n).unwrap_or(usize::MAX)).max(1);
            let result = search_tools(pool, query, max);
            let format = ctx.extensions.get::<DefinitionFormat>().map_or(DefinitionFormat::Anthropic, |f| *f);

            let mut content = Vec::new();
            if result.matches.is_empty() {
                let mut text = format!("No matching deferred tools found for \"{query}\".");
                if !result.missing.is_empty() {
                    text.push_str(&format!(" Unknown tool names: {}.", result.missing.join(", ")));
                }
                return Ok(ToolOutput::text(text));
            }
            match format {
                DefinitionFormat::Anthropic => {
                    content.extend(result.matches.iter().map(|n| ContentBlock::ToolReference { tool_name: n.clone() }));
                }
                other => {
                    let defs: Vec<Value> = result
                        .matches
                        .iter()
                        .filter_map(|n| pool.get(n))
                        .map(|t| pool.definition(&**t, other))
                        .collect();
                    content.push(ContentBlock::text(serde_json::to_string_pretty(&defs).unwrap_or_default()));
                }
            }
            if !result.missing.is_empty() {
                content.push(ContentBlock::text(format!("Unknown tool names: {}.", result.missing.join(", "))));
            }
            Ok(ToolOutput::blocks(content)
                .with_structured(json!({"matches": result.matches, "missing": result.missing})))
        })
    }

    fn render_use(&self, input: &Value) -> String {
        format!("ToolSearch({})", input["query"].as_str().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolBuilder;
    use crate::search_index::name_parts;
    use std::sync::Arc;

    fn pool() -> ToolPool {
        ToolPool::builder()
            .builtin(ToolSearchTool::shared())
            .builtin(ToolBuilder::new("Read").description("Reads a file").build())
            .builtin(
                ToolBuilder::new("CronCreate")
                    .description("Schedule a prompt")
                    .search_hint("schedule recurring job timer")
                    .should_defer(true)
                    .build(),
            )
            .builtin(
                ToolBuilder::new("NotebookEdit").description("Edit a Jupyter notebook cell").should_defer(true).build(),
            )
            .mcp(ToolBuilder::new("mcp__github__create_issue").description("Create a GitHub issue").build())
            .mcp(ToolBuilder::new("mcp__github__get_issue").description("Get an issue").build())
            .mcp(ToolBuilder::new("mcp__jira__create_ticket").description("Create a ticket like an issue").build())
            .build()
    }

    #[test]
    fn name_parts_split_camel_case_and_mcp_names() {
        assert_eq!(name_parts("NotebookEdit"), ["notebook", "edit"]);
        assert_eq!(name_parts("mcp__github__create_issue"), ["github", "create", "issue"]);
        assert_eq!(name_parts("LSP"), ["lsp"]);
    }

    #[test]
    fn scoring_orders_by_the_documented_weights() {
        let p = pool();
        // "issue": exact MCP name part (12) + description (2) for both github tools; jira only via description (2).
        let r = search_tools(&p, "issue", 5);
        assert_eq!(r.matches, ["mcp__github__create_issue", "mcp__github__get_issue", "mcp__jira__create_ticket"]);
        // Search hint words count.
        assert_eq!(search_tools(&p, "recurring", 5).matches, ["CronCreate"]);
        // Read is not deferred, so keyword search does not return it.
        assert!(search_tools(&p, "file", 5).matches.is_empty());
    }

    #[test]
    fn required_terms_filter() {
        let p = pool();
        let r = search_tools(&p, "create +jira", 5);
        assert_eq!(r.matches, ["mcp__jira__create_ticket"]);
        assert!(search_tools(&p, "+nonexistent create", 5).matches.is_empty());
    }

    #[test]
    fn select_and_bare_names_and_limits() {
        let p = pool();
        assert_eq!(search_tools(&p, "Read", 5).matches, ["Read"]);
        assert_eq!(search_tools(&p, "select:Read, Read ,CronCreate", 5).matches, ["Read", "CronCreate"]);
        assert_eq!(search_tools(&p, "issue", 1).matches.len(), 1);
    }

    #[tokio::test]
    async fn the_tool_returns_references_or_definitions() {
        let p = Arc::new(pool());
        let mut ctx = ToolContext::new("/");
        ctx.pool = Some(p.clone());
        let tool = p.get("ToolSearch").unwrap();
        let out = tool.call(json!({"query": "select:CronCreate,Missing"}), &ctx).await.unwrap();
        assert_eq!(out.content[0], ContentBlock::ToolReference { tool_name: "CronCreate".into() });
        assert_eq!(out.content[1].as_text(), Some("Unknown tool names: Missing."));

        ctx.extensions.insert(DefinitionFormat::OpenAi);
        let out = tool.call(json!({"query": "select:CronCreate"}), &ctx).await.unwrap();
        assert!(out.to_text().contains("\"type\": \"function\""));

        let out = tool.call(json!({"query": "zebra"}), &ctx).await.unwrap();
        assert_eq!(out.to_text(), "No matching deferred tools found for \"zebra\".");
    }
}
