//! Brave Search: `GET /res/v1/web/search?q=…&count=…` with the key in
//! `X-Subscription-Token`; results in `web.results[]` as `title`, `url`, `description`
//! (with `<strong>` highlights, removed here).

use toolgate_core::BoxFuture;

use super::provider::{LazyClient, SearchError, SearchHit, SearchProvider, SearchRequest, hits, send_json, with_query};

/// The Brave Search web search API.
///
/// ```
/// use toolgate_builtin::{BraveSearch, SearchProvider};
/// let brave = BraveSearch::new("key").with_endpoint("http://127.0.0.1:9/search");
/// assert_eq!(brave.name(), "Brave Search");
/// ```
#[derive(Debug)]
pub struct BraveSearch {
    api_key: String,
    endpoint: String,
    client: LazyClient,
}

impl BraveSearch {
    /// The public endpoint.
    pub const ENDPOINT: &'static str = "https://api.search.brave.com/res/v1/web/search";

    /// A client for the public endpoint with this subscription token.
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

impl SearchProvider for BraveSearch {
    fn name(&self) -> &str {
        "Brave Search"
    }

    fn search<'a>(&'a self, request: &'a SearchRequest) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
        Box::pin(async move {
            let client = self.client.get(self.name())?;
            let query = request.query_with_site();
            let count = request.max_results.clamp(1, 20).to_string();
            let url = with_query(self.name(), &self.endpoint, &[("q", &query), ("count", &count)])?;
            let call =
                client.get(url).header("Accept", "application/json").header("X-Subscription-Token", &self.api_key);
            let value = send_json(self.name(), call).await?;
            Ok(hits(value.pointer("/web/results"), "title", "url", "description"))
        })
    }
}
