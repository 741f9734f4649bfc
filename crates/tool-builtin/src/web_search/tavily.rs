//! Tavily: `POST /search` with a JSON body (`query`, `max_results`, `search_depth`,
//! `include_domains`, `exclude_domains`) and the key as a bearer token; results in
//! `results[]` as `title`, `url`, `content`.

use serde_json::json;
use toolgate_core::BoxFuture;

use super::provider::{LazyClient, SearchError, SearchHit, SearchProvider, SearchRequest, hits, send_json};

/// The Tavily search API.
///
/// ```
/// use toolgate_builtin::{SearchProvider, TavilySearch};
/// assert_eq!(TavilySearch::new("tvly-key").name(), "Tavily");
/// ```
#[derive(Debug)]
pub struct TavilySearch {
    api_key: String,
    endpoint: String,
    client: LazyClient,
}

impl TavilySearch {
    /// The public endpoint.
    pub const ENDPOINT: &'static str = "https://api.tavily.com/search";

    /// A client for the public endpoint with this API key.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self { api_key: api_key.into(), endpoint: Self::ENDPOINT.to_owned(), client: LazyClient::default() }
    }

    /// The same client against another endpoint (a proxy, or a test server).
    #[must_use]
    pub fn with_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = endpoint.into();
        self
    }
}

impl SearchProvider for TavilySearch {
    fn name(&self) -> &str {
        "Tavily"
    }

    fn search<'a>(&'a self, request: &'a SearchRequest) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
        Box::pin(async move {
            let client = self.client.get(self.name())?;
            let mut body = json!({
                "query": request.query,
                "max_results": request.max_results.clamp(1, 20),
                "search_depth": "basic",
            });
            if !request.allowed_domains.is_empty() {
                body["include_domains"] = json!(request.allowed_domains);
            }
            if !request.blocked_domains.is_empty() {
                body["exclude_domains"] = json!(request.blocked_domains);
            }
            let call = client.post(&self.endpoint).bearer_auth(&self.api_key).json(&body);
            let value = send_json(self.name(), call).await?;
            Ok(hits(value.get("results"), "title", "url", "content"))
        })
    }
}
