//! [`ToolPool`]: the tools offered to the model, filtered, de-duplicated and in a
//! cache-stable order, with definitions rendered once.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use crate::search_index::SearchIndex;
use crate::{DeferMode, DynTool, InputSchema, Tool, ToolError};

/// The Claude Code context window the `auto` defer mode measures against, in tokens.
const DEFAULT_CONTEXT_WINDOW_TOKENS: usize = 200_000;

/// The name of the tool that loads deferred tools.
pub(crate) const TOOL_SEARCH_NAME: &str = "ToolSearch";

/// The canonical name for a legacy tool name (`Task` → `Agent`); other names unchanged.
///
/// ```
/// use toolgate_core::canonical_tool_name;
/// assert_eq!(canonical_tool_name("Task"), "Agent");
/// assert_eq!(canonical_tool_name("KillShell"), "TaskStop");
/// assert_eq!(canonical_tool_name("BashOutput"), "TaskOutput");
/// assert_eq!(canonical_tool_name("Read"), "Read");
/// ```
pub fn canonical_tool_name(name: &str) -> &str {
    match name {
        "Task" => "Agent",
        "KillShell" | "KillBash" => "TaskStop",
        "BashOutput" | "BashOutputTool" | "AgentOutputTool" => "TaskOutput",
        "MCPSearch" => TOOL_SEARCH_NAME,
        other => other,
    }
}

/// The wire formats tool definitions are exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DefinitionFormat {
    /// Anthropic Messages API: `name`, `description`, `input_schema`, `defer_loading`.
    Anthropic,
    /// OpenAI function tools: `{"type": "function", "function": {…}}`.
    OpenAi,
    /// MCP `tools/list` entries: `name`, `description`, `inputSchema`, `annotations`.
    Mcp,
}

impl DefinitionFormat {
    fn index(self) -> usize {
        match self {
            Self::Anthropic => 0,
            Self::OpenAi => 1,
            Self::Mcp => 2,
        }
    }
}

struct Entry {
    tool: DynTool,
    is_mcp: bool,
    schema: OnceLock<Result<Arc<InputSchema>, String>>,
}

/// The tools of a session, in the order the model sees them.
///
/// Built-ins come first, sorted by name, then MCP tools sorted by name, so the built-ins
/// form a stable prefix for prompt caching; on a name clash the built-in wins. Lookup is
/// O(1) by name, alias or legacy name.
///
/// ```
/// use toolgate_core::{DefinitionFormat, ToolBuilder, ToolPool};
/// let pool = ToolPool::builder()
///     .builtin(ToolBuilder::new("Read").build())
///     .builtin(ToolBuilder::new("Edit").build())
///     .mcp(ToolBuilder::new("mcp__gh__issue").build())
///     .filter(|t| t.name() != "Edit")
///     .build();
/// assert_eq!(pool.names().collect::<Vec<_>>(), ["Read", "mcp__gh__issue"]);
/// assert!(pool.is_deferred("mcp__gh__issue") == false); // no ToolSearch in this pool
/// let json = pool.definitions_json(DefinitionFormat::Anthropic);
/// assert!(json.find(r#""name":"Read""#) < json.find(r#""name":"mcp__gh__issue""#));
/// ```
pub struct ToolPool {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    deferred: Vec<bool>,
    rendered: [OnceLock<String>; 3],
    defer_mode: DeferMode,
    /// ToolSearch's keyword index, built on the first keyword query.
    search: OnceLock<SearchIndex>,
}

type Filter = Box<dyn Fn(&dyn Tool) -> bool>;

/// Collects tools and filters for a [`ToolPool`].
pub struct ToolPoolBuilder {
    builtin: Vec<DynTool>,
    mcp: Vec<DynTool>,
    filters: Vec<Filter>,
    defer_mode: DeferMode,
    window_tokens: usize,
}

impl ToolPool {
    /// A builder with no tools, deferral mode [`DeferMode::Always`] and a 200,000-token
    /// context window.
    pub fn builder() -> ToolPoolBuilder {
        ToolPoolBuilder {
            builtin: Vec::new(),
            mcp: Vec::new(),
            filters: Vec::new(),
            defer_mode: DeferMode::default(),
            window_tokens: DEFAULT_CONTEXT_WINDOW_TOKENS,
        }
    }

    /// The built-in (non-MCP) tools, in pool order.
    pub fn builtin_tools(&self) -> impl Iterator<Item = &DynTool> {
        self.entries.iter().filter(|e| !e.is_mcp).map(|e| &e.tool)
    }

    /// The tool called `name`: exact name, then alias, then legacy name.
    pub fn get(&self, name: &str) -> Option<&DynTool> {
        self.position(name).map(|i| &self.entries[i].tool)
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name).or_else(|| self.index.get(canonical_tool_name(name))).copied()
    }

    /// The tools in order.
    pub fn tools(&self) -> impl Iterator<Item = &DynTool> {
        self.entries.iter().map(|e| &e.tool)
    }

    /// The names in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.tool.name())
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the tool came from an MCP server.
    pub fn is_mcp(&self, name: &str) -> bool {
        self.position(name).is_some_and(|i| self.entries[i].is_mcp)
    }

    /// The deferral mode the pool was built with.
    pub fn defer_mode(&self) -> DeferMode {
        self.defer_mode
    }

    /// Whether the tool's definition is held back behind ToolSearch.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.position(name).is_some_and(|i| self.deferred[i])
    }

    /// ToolSearch's keyword index over the deferred tools, built on first use.
    pub(crate) fn search_index(&self) -> &SearchIndex {
        self.search.get_or_init(|| SearchIndex::build(self))
    }

    /// The names of the deferred tools, in pool order.
    pub fn deferred_names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().zip(&self.deferred).filter(|(_, d)| **d).map(|(e, _)| e.tool.name())
    }

    /// The tool's compiled input schema, compiled on first use and kept.
    ///
    /// # Errors
    /// An unknown tool, or a schema that does not compile, is an error for the model.
    pub fn schema(&self, name: &str) -> Result<Arc<InputSchema>, ToolError> {
        let i = self.position(name).ok_or_else(|| ToolError::not_found(format!("no tool named {name}")))?;
        let entry = &self.entries[i];
        entry
            .schema
            .get_or_init(|| InputSchema::compile(entry.tool.input_schema()).map(Arc::new).map_err(|e| e.to_string()))
            .clone()
            .map_err(|e| ToolError::internal(format!("the input schema of {name} is invalid: {e}")))
    }

    /// One tool's definition in a format.
    pub fn definition(&self, tool: &dyn Tool, format: DefinitionFormat) -> Value {
        let deferred = self.is_deferred(tool.name());
        definition(tool, format, deferred)
    }

    /// All definitions in a format, as values.
    pub fn definitions(&self, format: DefinitionFormat) -> Vec<Value> {
        self.entries.iter().zip(&self.deferred).map(|(e, d)| definition(&*e.tool, format, *d)).collect()
    }

    /// All definitions in a format as JSON text, rendered once per pool and then returned
    /// byte-identical (prompt caches key on these bytes).
    pub fn definitions_json(&self, format: DefinitionFormat) -> &str {
        self.rendered[format.index()]
            .get_or_init(|| serde_json::to_string(&self.definitions(format)).unwrap_or_else(|_| "[]".to_owned()))
    }

    /// The known names closest to `name`, for "did you mean" messages (at most 3).
    pub fn closest_names(&self, name: &str) -> Vec<&str> {
        let wanted = name.to_ascii_lowercase();
        let mut scored: Vec<(usize, &str)> = self
            .names()
            .map(|n| {
                let lower = n.to_ascii_lowercase();
                let d = edit_distance(&wanted, &lower);
                let bonus = usize::from(lower.contains(&wanted) || wanted.contains(&lower));
                (d.saturating_sub(bonus * 2), n)
            })
            .filter(|(d, n)| *d <= (n.len().max(name.len()) / 2).max(2))
            .collect();
        scored.sort();
        scored.into_iter().take(3).map(|(_, n)| n).collect()
    }
}

fn definition(tool: &dyn Tool, format: DefinitionFormat, deferred: bool) -> Value {
    let schema = tool.input_schema().clone();
    match format {
        DefinitionFormat::Anthropic => {
            let mut def = json!({"name": tool.name(), "description": tool.description(), "input_schema": schema});
            if deferred {
                def["defer_loading"] = Value::Bool(true);
            }
            def
        }
        DefinitionFormat::OpenAi => json!({
            "type": "function",
            "function": {"name": tool.name(), "description": tool.description(), "parameters": schema},
        }),
        DefinitionFormat::Mcp => {
            let probe = probe_input(tool.input_schema());
            json!({
                "name": tool.name(),
                "description": tool.description(),
                "inputSchema": schema,
                "annotations": {
                    "title": tool.user_facing_name(None),
                    "readOnlyHint": tool.is_read_only(&probe),
                    "destructiveHint": tool.is_destructive(&probe),
                },
            })
        }
    }
}

/// An input with a placeholder for every required field of `schema` (the string `"x"`,
/// zero, false, an empty list or object, or the first enum value), for asking a tool's
/// input-dependent capabilities about the tool as a whole (MCP annotations). Strings are
/// not empty, so a shell tool is not judged by the harmless empty command.
///
/// ```
/// use serde_json::json;
/// let schema = json!({
///     "type": "object",
///     "properties": {"file_path": {"type": "string"}, "limit": {"type": ["integer", "null"]},
///                    "mode": {"enum": ["fast", "slow"]}, "optional": {"type": "string"}},
///     "required": ["file_path", "limit", "mode"]
/// });
/// assert_eq!(toolgate_core::probe_input(&schema), json!({"file_path": "x", "limit": 0, "mode": "fast"}));
/// ```
pub fn probe_input(schema: &Value) -> Value {
    let mut probe = serde_json::Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let prop = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        let kind = match prop.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => {
                types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null")
            }
            _ => "",
        };
        let value = match (prop.get("enum").and_then(Value::as_array).and_then(|e| e.first()), kind) {
            (Some(first), _) => first.clone(),
            (None, "string") => json!("x"),
            (None, "integer" | "number") => json!(0),
            (None, "boolean") => json!(false),
            (None, "array") => json!([]),
            (None, "object") => json!({}),
            _ => Value::Null,
        };
        probe.insert(name.to_owned(), value);
    }
    Value::Object(probe)
}

/// Levenshtein distance over chars.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

impl ToolPoolBuilder {
    /// Adds a built-in tool.
    #[must_use]
    pub fn builtin(mut self, tool: DynTool) -> Self {
        self.builtin.push(tool);
        self
    }

    /// Adds built-in tools.
    #[must_use]
    pub fn builtins(mut self, tools: impl IntoIterator<Item = DynTool>) -> Self {
        self.builtin.extend(tools);
        self
    }

    /// Adds an MCP tool (named `mcp__server__tool`).
    #[must_use]
    pub fn mcp(mut self, tool: DynTool) -> Self {
        self.mcp.push(tool);
        self
    }

    /// Adds MCP tools.
    #[must_use]
    pub fn mcps(mut self, tools: impl IntoIterator<Item = DynTool>) -> Self {
        self.mcp.extend(tools);
        self
    }

    /// Keeps only tools for which `keep` is true (bare-name deny rules, mode filters).
    #[must_use]
    pub fn filter(mut self, keep: impl Fn(&dyn Tool) -> bool + 'static) -> Self {
        self.filters.push(Box::new(keep));
        self
    }

    /// The deferral mode.
    #[must_use]
    pub fn defer_mode(mut self, mode: DeferMode) -> Self {
        self.defer_mode = mode;
        self
    }

    /// The model's context window, for [`DeferMode::Auto`].
    #[must_use]
    pub fn context_window_tokens(mut self, tokens: usize) -> Self {
        self.window_tokens = tokens;
        self
    }

    /// The pool: disabled and filtered tools dropped, built-ins then MCP tools each sorted
    /// by name, duplicates dropped (the first, so a built-in, wins).
    pub fn build(self) -> ToolPool {
        let keep = |t: &DynTool| t.is_enabled() && self.filters.iter().all(|f| f(&**t));
        let mut builtin: Vec<DynTool> = self.builtin.iter().filter(|t| keep(t)).cloned().collect();
        let mut mcp: Vec<DynTool> = self.mcp.iter().filter(|t| keep(t)).cloned().collect();
        builtin.sort_by(|a, b| a.name().cmp(b.name()));
        mcp.sort_by(|a, b| a.name().cmp(b.name()));

        let mut entries = Vec::new();
        let mut index = HashMap::new();
        let all = builtin.into_iter().map(|t| (t, false)).chain(mcp.into_iter().map(|t| (t, true)));
        for (tool, is_mcp) in all {
            if index.contains_key(tool.name()) {
                continue;
            }
            index.insert(tool.name().to_owned(), entries.len());
            entries.push(Entry { tool, is_mcp, schema: OnceLock::new() });
        }
        for (i, entry) in entries.iter().enumerate() {
            for alias in entry.tool.aliases() {
                index.entry((*alias).to_owned()).or_insert(i);
            }
        }

        let has_search = index.contains_key(TOOL_SEARCH_NAME);
        let candidate: Vec<bool> = entries
            .iter()
            .map(|e| {
                has_search
                    && e.tool.name() != TOOL_SEARCH_NAME
                    && !e.tool.always_load()
                    && (e.is_mcp || e.tool.should_defer())
            })
            .collect();
        // Only `auto:N` weighs the definitions, and only until they cross its threshold:
        // rendering every definition of a large pool just to count it would cost more than
        // the rest of assembly.
        let defer = match self.defer_mode {
            DeferMode::Auto { percent: 1..=99 } => {
                let mut tokens = 0;
                let over = |tokens| self.defer_mode.defers(tokens, self.window_tokens);
                for (entry, _) in entries.iter().zip(&candidate).filter(|(_, c)| **c) {
                    tokens += definition(&*entry.tool, DefinitionFormat::Anthropic, false).to_string().len() / 4;
                    if over(tokens) {
                        break;
                    }
                }
                over(tokens)
            }
            mode => mode.defers(0, self.window_tokens),
        };
        let deferred = candidate.into_iter().map(|c| c && defer).collect();

        ToolPool {
            entries,
            index,
            deferred,
            rendered: Default::default(),
            defer_mode: self.defer_mode,
            search: OnceLock::new(),
        }
    }
}

impl fmt::Debug for ToolPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolPool").field("tools", &self.names().collect::<Vec<_>>()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolBuilder;

    fn named(name: &str) -> DynTool {
        ToolBuilder::new(name).description(format!("the {name} tool")).build()
    }

    #[test]
    fn builtins_first_each_sorted_and_builtins_win_clashes() {
        let builtin_clash = ToolBuilder::new("mcp__x__y").description("builtin").build();
        let pool = ToolPool::builder()
            .mcp(named("mcp__b__z"))
            .builtin(named("Write"))
            .mcp(named("mcp__a__z"))
            .mcp(ToolBuilder::new("mcp__x__y").description("mcp").build())
            .builtin(named("Bash"))
            .builtin(builtin_clash)
            .build();
        assert_eq!(pool.names().collect::<Vec<_>>(), ["Bash", "Write", "mcp__x__y", "mcp__a__z", "mcp__b__z"]);
        assert_eq!(pool.get("mcp__x__y").unwrap().description(), "builtin");
        assert!(!pool.is_mcp("mcp__x__y"));
        assert!(pool.is_mcp("mcp__a__z"));
    }

    #[test]
    fn lookup_by_alias_and_legacy_name() {
        let pool = ToolPool::builder()
            .builtin(ToolBuilder::new("Agent").build())
            .builtin(ToolBuilder::new("TaskStop").aliases(&["KillShell"]).build())
            .build();
        assert_eq!(pool.get("Task").unwrap().name(), "Agent");
        assert_eq!(pool.get("KillShell").unwrap().name(), "TaskStop");
        assert_eq!(pool.get("KillBash").unwrap().name(), "TaskStop");
        assert!(pool.get("Nope").is_none());
    }

    #[test]
    fn disabled_tools_are_dropped() {
        let pool = ToolPool::builder().builtin(ToolBuilder::new("Off").enabled(false).build()).build();
        assert!(pool.is_empty());
    }

    #[test]
    fn deferral_needs_tool_search_and_respects_always_load() {
        let build = |mode| {
            ToolPool::builder()
                .builtin(named(TOOL_SEARCH_NAME))
                .builtin(ToolBuilder::new("Cron").should_defer(true).build())
                .builtin(named("Read"))
                .mcp(named("mcp__s__a"))
                .mcp(ToolBuilder::new("mcp__s__b").always_load(true).build())
                .defer_mode(mode)
                .build()
        };
        let pool = build(DeferMode::Always);
        assert_eq!(pool.deferred_names().collect::<Vec<_>>(), ["Cron", "mcp__s__a"]);
        let defs = pool.definitions(DefinitionFormat::Anthropic);
        assert_eq!(defs.iter().filter(|d| d.get("defer_loading").is_some()).count(), 2);
        assert_eq!(build(DeferMode::Never).deferred_names().count(), 0);
        // Small definitions stay under 10% of the window.
        assert_eq!(build(DeferMode::Auto { percent: 10 }).deferred_names().count(), 0);
        assert_eq!(build(DeferMode::Auto { percent: 0 }).deferred_names().count(), 2);
    }

    #[test]
    fn definition_formats() {
        let pool = ToolPool::builder().builtin(ToolBuilder::new("Grep").read_only(true).build()).build();
        let tool = pool.get("Grep").unwrap();
        let openai = pool.definition(&**tool, DefinitionFormat::OpenAi);
        assert_eq!(openai["type"], "function");
        assert_eq!(openai["function"]["name"], "Grep");
        let mcp = pool.definition(&**tool, DefinitionFormat::Mcp);
        assert_eq!(mcp["annotations"]["readOnlyHint"], true);
        assert_eq!(mcp["inputSchema"]["type"], "object");
    }

    #[test]
    fn closest_names_suggest_near_misses() {
        let pool = ToolPool::builder().builtins(["Read", "Grep", "Glob", "Bash", "WebFetch"].map(named)).build();
        assert_eq!(pool.closest_names("Raed").first(), Some(&"Read"));
        assert!(pool.closest_names("fetch").contains(&"WebFetch"));
        assert!(pool.closest_names("zzzzzzzzzz").is_empty());
    }
}
