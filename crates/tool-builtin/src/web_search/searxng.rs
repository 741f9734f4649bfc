//! SearXNG: `GET {base}/search?q=…&format=json` (the instance must list `json` under
//! `search.formats`); results in `results[]` as `title`, `url`, `content`.

use toolgate_core::BoxFuture;

use super::provider::{LazyClient, SearchError, SearchHit, SearchProvider, SearchRequest, hits, send_json, with_query};

/// A SearXNG instance's JSON API.
///
/// ```
/// use toolgate_builtin::{SearchProvider, SearxngSearch};
/// assert_eq!(SearxngSearch::new("http://localhost:8888").name(), "SearXNG");
/// ```
#[derive(Debug)]
pub struct SearxngSearch {
    base_url: String,
    client: LazyClient,
}

impl SearxngSearch {
    /// A client for the instance at `base_url` (e.g. `http://localhost:8888`).
    pub fn new(base_url: impl Into<String>) -> Self {
        Self { base_url: base_url.into(), client: LazyClient::default() }
    }
}

impl SearchProvider for SearxngSearch {
    fn name(&self) -> &str {
        "SearXNG"
    }

    fn search<'a>(&'a self, request: &'a SearchRequest) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
        Box::pin(async move {
            let client = self.client.get(self.name())?;
            let query = request.query_with_site();
            let endpoint = format!("{}/search", self.base_url.trim_end_matches('/'));
            let url = with_query(self.name(), &endpoint, &[("q", &query), ("format", "json")])?;
            let call = client.get(url).header("Accept", "application/json");
            let value = send_json(self.name(), call).await?;
            let mut found = hits(value.get("results"), "title", "url", "content");
            found.truncate(request.max_results);
            Ok(found)
        })
    }
}
