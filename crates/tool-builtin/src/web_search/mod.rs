//! WebSearch: a query sent to the configured [`SearchProvider`] (Brave Search, Tavily or
//! SearXNG), results shown as title, URL and snippet, domain filters applied.
//!
//! The tool is offered only when a provider is configured (see
//! [`search_provider_from_env`]). `allowed_domains` and `blocked_domains` are exclusive,
//! as in Claude Code; providers that can filter by domain are given the lists, and every
//! result is filtered again here, so the filters hold whatever the provider does.

mod brave;
mod domains;
mod prompt;
mod provider;
mod searxng;
mod tavily;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate_core::{DynTool, ResultLimit, ToolContext, ToolError, ToolOutput, TypedTool, typed};

pub use brave::BraveSearch;
pub use provider::{
    BRAVE_KEY_ENV, PROVIDER_ENV, SEARXNG_URL_ENV, SearchError, SearchHit, SearchProvider, SearchRequest,
    TAVILY_KEY_ENV, search_provider_from_env,
};
pub use searxng::SearxngSearch;
pub use tavily::TavilySearch;

/// The most results shown.
const MAX_RESULTS: usize = 10;
/// The longest query accepted, in characters.
const MAX_QUERY_CHARS: usize = 400;

/// A web search: WebSearch's input.
// (This doc is the schema's description.)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchInput {
    /// The search query (at least 2 characters).
    pub query: String,
    /// Only include results from these domains (subdomains included).
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// Never include results from these domains (subdomains included).
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

/// The WebSearch tool. Build it with [`WebSearch::tool`].
#[derive(Debug)]
pub struct WebSearch {
    provider: Option<Arc<dyn SearchProvider>>,
}

impl WebSearch {
    /// The tool over `provider`; with `None` it is disabled (not offered to the model).
    pub fn tool(provider: Option<Arc<dyn SearchProvider>>) -> DynTool {
        typed(Self { provider })
    }
}

/// The two domain lists, normalized and checked.
fn domain_lists(input: &WebSearchInput) -> Result<(Vec<String>, Vec<String>), ToolError> {
    let list = |field: &str, raw: &Option<Vec<String>>| -> Result<Vec<String>, ToolError> {
        raw.iter()
            .flatten()
            .map(|d| {
                domains::normalize(d).map_err(|e| {
                    ToolError::invalid_input(format!("{field}: {e}"))
                        .with_hint("write bare domains such as \"docs.rs\" or \"rust-lang.org\"")
                })
            })
            .collect()
    };
    let allowed = list("allowed_domains", &input.allowed_domains)?;
    let blocked = list("blocked_domains", &input.blocked_domains)?;
    if !allowed.is_empty() && !blocked.is_empty() {
        return Err(ToolError::invalid_input("allowed_domains and blocked_domains cannot be used together").with_hint(
            "give only allowed_domains (to search those sites) or only blocked_domains (to leave sites out)",
        ));
    }
    Ok((allowed, blocked))
}

impl TypedTool for WebSearch {
    type Input = WebSearchInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "WebSearch"
    }

    fn description(&self) -> String {
        prompt::DESCRIPTION.to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some(prompt::SEARCH_HINT)
    }

    /// Only when a search provider is configured.
    fn is_enabled(&self) -> bool {
        self.provider.is_some()
    }

    fn is_read_only(&self, _input: &WebSearchInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &WebSearchInput) -> bool {
        true
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }

    /// A query under 2 or over 400 characters, a malformed domain and both filters at
    /// once are reported before permission is asked.
    async fn validate(&self, input: &WebSearchInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        let chars = input.query.trim().chars().count();
        if chars < 2 {
            return Err(ToolError::invalid_input("query must have at least 2 characters")
                .with_hint("write the words you would type into a search engine"));
        }
        if chars > MAX_QUERY_CHARS {
            return Err(ToolError::invalid_input(format!(
                "query has {chars} characters; the limit is {MAX_QUERY_CHARS}"
            ))
            .with_hint("keep to the key terms; search engines ignore long queries"));
        }
        domain_lists(input).map(drop)
    }

    async fn call(&self, input: WebSearchInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(provider) = &self.provider else {
            return Err(ToolError::invalid_input("WebSearch is not configured: no search provider is set up")
                .with_hint(format!(
                    "the user can set {BRAVE_KEY_ENV}, {TAVILY_KEY_ENV} or {SEARXNG_URL_ENV}; until then, use WebFetch on known URLs"
                )));
        };
        let (allowed, blocked) = domain_lists(&input)?;
        let query = input.query.trim().to_owned();
        // Ask for more when several allowed domains are filtered only here.
        let max_results = if allowed.len() > 1 { 20 } else { MAX_RESULTS };
        let request = SearchRequest { query, max_results, allowed_domains: allowed, blocked_domains: blocked };
        let found = tokio::select! {
            () = ctx.cancel.cancelled() => return Err(ToolError::cancelled("the search was cancelled")),
            r = provider.search(&request) => r.map_err(search_error)?,
        };
        let total = found.len();
        let mut kept: Vec<SearchHit> = found
            .into_iter()
            .filter(|hit| domains::keep(&hit.url, &request.allowed_domains, &request.blocked_domains))
            .collect();
        let filtered_out = total - kept.len();
        kept.truncate(MAX_RESULTS);
        Ok(ToolOutput::text(render(&request.query, provider.name(), &kept, filtered_out)))
    }

    fn render_use(&self, input: &WebSearchInput) -> String {
        format!("WebSearch({})", input.query)
    }
}

/// A provider failure, for the model.
fn search_error(err: SearchError) -> ToolError {
    let hint = match &err {
        SearchError::Unauthorized { .. } => "the search API key is missing or invalid; the user has to fix it",
        SearchError::RateLimited { .. } => "wait a little before searching again, or use WebFetch on known URLs",
        SearchError::Status { status: 403, .. } => "for SearXNG, the instance must allow the json format",
        _ => "try again; if it keeps failing, use WebFetch on known URLs",
    };
    ToolError::network(err.to_string()).with_hint(hint)
}

/// The results as the model reads them.
fn render(query: &str, provider: &str, hits: &[SearchHit], filtered_out: usize) -> String {
    let removed = match filtered_out {
        0 => String::new(),
        n => format!("; {n} removed by the domain filters"),
    };
    if hits.is_empty() {
        return format!("No results for \"{query}\" from {provider}{removed}. Try other words, or fewer filters.");
    }
    let mut out = format!("Web search results for \"{query}\" from {provider} ({} shown{removed}):\n", hits.len());
    for (i, hit) in hits.iter().enumerate() {
        out.push_str(&format!("\n{}. [{}]({})\n", i + 1, hit.title.replace(']', ")"), hit.url));
        if !hit.snippet.is_empty() {
            out.push_str(&format!("   {}\n", hit.snippet.chars().take(500).collect::<String>()));
        }
    }
    out.push_str("\nCite the pages you use as Markdown links. To read one in full, use WebFetch.");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_render_as_a_numbered_list_of_links() {
        let hits = vec![
            SearchHit {
                title: "The [Rust] Book".into(),
                url: "https://doc.rust-lang.org/book/".into(),
                snippet: "Learn Rust.".into(),
            },
            SearchHit { title: "Rust".into(), url: "https://rust-lang.org/".into(), snippet: String::new() },
        ];
        assert_eq!(
            render("rust book", "Brave Search", &hits, 1),
            "Web search results for \"rust book\" from Brave Search (2 shown; 1 removed by the domain filters):\n\n\
             1. [The [Rust) Book](https://doc.rust-lang.org/book/)\n   Learn Rust.\n\n\
             2. [Rust](https://rust-lang.org/)\n\n\
             Cite the pages you use as Markdown links. To read one in full, use WebFetch."
        );
        assert_eq!(
            render("zzz", "Tavily", &[], 0),
            "No results for \"zzz\" from Tavily. Try other words, or fewer filters."
        );
    }
}
