//! ToolSearch over 10,000 generated MCP tools: one query of each form, assembling the
//! pool, and exporting its definitions.
//!
//! `cargo bench -p toolgate-core --bench toolsearch` (also run by `cargo xtask bench`,
//! row 7). The tools come from a fixed generator: 100 servers of 100 tools each, named
//! `mcp__<server>__<verb>_<noun>`, with a one-sentence description and an input schema
//! of two to four properties, like the tools real MCP servers publish.

use std::sync::OnceLock;

use serde_json::{Value, json};
use toolgate_core::{DefinitionFormat, DynTool, ToolBuilder, ToolPool, ToolSearchTool, search_tools};

fn main() {
    divan::main();
}

const SERVERS: &[&str] =
    &["github", "gitlab", "slack", "linear", "jira", "notion", "figma", "sentry", "stripe", "postgres"];
const VERBS: &[&str] = &["create", "list", "get", "update", "delete", "search", "send", "archive", "assign", "comment"];
const NOUNS: &[&str] =
    &["issue", "pull_request", "message", "channel", "user", "project", "file", "invoice", "event", "record"];
const WORDS: &[&str] = &[
    "the",
    "a",
    "workspace",
    "repository",
    "team",
    "given",
    "by",
    "id",
    "with",
    "optional",
    "filters",
    "returns",
    "results",
    "page",
    "of",
    "for",
    "current",
    "account",
    "and",
    "its",
    "metadata",
];

/// 10,000 MCP tools: 100 servers (10 names × 10 regions) × 100 tools (10 verbs × 10 nouns).
fn tools() -> &'static [DynTool] {
    static TOOLS: OnceLock<Vec<DynTool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut tools = Vec::with_capacity(10_000);
        for server in SERVERS {
            for region in 0..10 {
                for verb in VERBS {
                    for noun in NOUNS {
                        let name = format!("mcp__{server}{region}__{verb}_{noun}");
                        let filler: Vec<&str> = (0..(6 + next(10))).map(|_| WORDS[next(WORDS.len())]).collect();
                        let description =
                            format!("{verb} a {} in {server}: {}.", noun.replace('_', " "), filler.join(" "));
                        let mut properties = serde_json::Map::new();
                        properties
                            .insert("id".into(), json!({"type": "string", "description": format!("the {noun} id")}));
                        for extra in ["query", "limit", "cursor"].iter().take(1 + next(3)) {
                            properties.insert((*extra).into(), json!({"type": "string"}));
                        }
                        let schema = json!({"type": "object", "properties": properties, "required": ["id"]});
                        tools.push(ToolBuilder::new(name).description(description).schema(schema).build());
                    }
                }
            }
        }
        tools
    })
}

fn pool() -> ToolPool {
    ToolPool::builder().builtin(ToolSearchTool::shared()).mcps(tools().iter().cloned()).build()
}

fn shared_pool() -> &'static ToolPool {
    static POOL: OnceLock<ToolPool> = OnceLock::new();
    POOL.get_or_init(pool)
}

/// Keywords, one of them required: scores every deferred tool.
#[divan::bench]
fn query_keywords(bencher: divan::Bencher) {
    let pool = shared_pool();
    bencher.bench(|| search_tools(pool, "+slack send message", 5));
}

/// One server's tools by prefix.
#[divan::bench]
fn query_server(bencher: divan::Bencher) {
    let pool = shared_pool();
    bencher.bench(|| search_tools(pool, "mcp__linear7", 5));
}

/// Three exact names.
#[divan::bench]
fn query_select(bencher: divan::Bencher) {
    let pool = shared_pool();
    let query = "select:mcp__github0__create_issue,mcp__stripe9__list_invoice,mcp__notion4__get_file";
    bencher.bench(|| search_tools(pool, query, 5));
}

/// Building the pool from 10,000 tools (sorting, indexing, deciding what to defer).
#[divan::bench(sample_count = 20)]
fn pool_assembly(bencher: divan::Bencher) {
    tools();
    bencher.bench(pool);
}

/// Rendering every definition as Anthropic-format JSON text (a fresh pool each time: the
/// text is cached per pool).
#[divan::bench(sample_count = 20)]
fn definitions_export(bencher: divan::Bencher) {
    bencher.with_inputs(pool).bench_local_values(|pool| pool.definitions_json(DefinitionFormat::Anthropic).len());
}

/// The query benches must find what they are meant to.
#[divan::bench(sample_count = 1)]
fn queries_find_tools() {
    let pool = shared_pool();
    let found = |query: &str| search_tools(pool, query, 5).matches;
    assert_eq!(found("+slack send message")[0], "mcp__slack0__send_message", "keywords");
    assert_eq!(found("mcp__linear7").len(), 5, "server prefix");
    let value: Value =
        json!(found("select:mcp__github0__create_issue,mcp__stripe9__list_invoice,mcp__notion4__get_file"));
    assert_eq!(value.as_array().map(Vec::len), Some(3), "select");
}
