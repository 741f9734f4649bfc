//! The [`SearchProvider`] seam, and which provider the environment configures.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use toolgate_core::BoxFuture;

use super::{BraveSearch, SearxngSearch, TavilySearch};

/// One search, as a provider receives it. The domain lists are normalized (lowercase
/// hosts); a provider may pass them to its API, and the tool filters the results again
/// either way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The query.
    pub query: String,
    /// How many results to ask for.
    pub max_results: usize,
    /// Only results from these domains (and their subdomains), when not empty.
    pub allowed_domains: Vec<String>,
    /// No results from these domains (and their subdomains).
    pub blocked_domains: Vec<String>,
}

impl SearchRequest {
    /// The query for an engine that takes `site:` operators: one allowed domain narrows the
    /// search itself (several are filtered afterwards, by the tool).
    ///
    /// ```
    /// use toolgate_builtin::SearchRequest;
    /// let mut request = SearchRequest {
    ///     query: "rust".into(),
    ///     max_results: 5,
    ///     allowed_domains: vec!["docs.rs".into()],
    ///     blocked_domains: vec![],
    /// };
    /// assert_eq!(request.query_with_site(), "rust site:docs.rs");
    /// request.allowed_domains.push("crates.io".into());
    /// assert_eq!(request.query_with_site(), "rust");
    /// ```
    pub fn query_with_site(&self) -> String {
        match self.allowed_domains.as_slice() {
            [only] => format!("{} site:{only}", self.query),
            _ => self.query.clone(),
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The page title.
    pub title: String,
    /// The page URL.
    pub url: String,
    /// A short extract, as plain text.
    pub snippet: String,
}

/// Why a search failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The provider refused the credentials (HTTP 401 or 403).
    #[error("{provider} refused the request ({status}): {detail}")]
    Unauthorized {
        /// The provider.
        provider: String,
        /// The status code.
        status: u16,
        /// What the provider said.
        detail: String,
    },
    /// The provider is rate-limiting (HTTP 429) or out of quota.
    #[error("{provider} is rate-limiting requests (429)")]
    RateLimited {
        /// The provider.
        provider: String,
    },
    /// Any other unsuccessful status.
    #[error("{provider} answered HTTP {status}: {detail}")]
    Status {
        /// The provider.
        provider: String,
        /// The status code.
        status: u16,
        /// The start of the body.
        detail: String,
    },
    /// The request did not complete (connection, timeout).
    #[error("the request to {provider} failed: {detail}")]
    Request {
        /// The provider.
        provider: String,
        /// What went wrong.
        detail: String,
    },
    /// The answer was not the JSON the provider documents.
    #[error("{provider} sent an answer that could not be read: {detail}")]
    Response {
        /// The provider.
        provider: String,
        /// What was wrong with it.
        detail: String,
    },
}

/// A web search backend.
///
/// ```
/// use toolgate_builtin::{SearchError, SearchHit, SearchProvider, SearchRequest, WebSearch};
/// use toolgate_core::BoxFuture;
///
/// #[derive(Debug)]
/// struct Fixed;
/// impl SearchProvider for Fixed {
///     fn name(&self) -> &str { "fixed" }
///     fn search<'a>(&'a self, _: &'a SearchRequest) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
///         Box::pin(async {
///             Ok(vec![SearchHit { title: "Rust".into(), url: "https://rust-lang.org/".into(), snippet: "".into() }])
///         })
///     }
/// }
/// let tool = WebSearch::tool(Some(std::sync::Arc::new(Fixed)));
/// assert!(tool.is_enabled());
/// assert!(!WebSearch::tool(None).is_enabled());
/// ```
pub trait SearchProvider: Send + Sync + std::fmt::Debug {
    /// The provider's name, shown with the results.
    fn name(&self) -> &str;
    /// Runs one search.
    fn search<'a>(&'a self, request: &'a SearchRequest) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>>;
}

/// Names the provider explicitly: `brave`, `tavily` or `searxng`.
pub const PROVIDER_ENV: &str = "TOOLGATE_SEARCH_PROVIDER";
/// The Brave Search API key (`BRAVE_SEARCH_API_KEY` is read too).
pub const BRAVE_KEY_ENV: &str = "BRAVE_API_KEY";
/// The Tavily API key.
pub const TAVILY_KEY_ENV: &str = "TAVILY_API_KEY";
/// The base URL of a SearXNG instance with the JSON format enabled.
pub const SEARXNG_URL_ENV: &str = "SEARXNG_URL";

/// The provider the environment configures: the one [`PROVIDER_ENV`] names, else the first
/// configured of Brave ([`BRAVE_KEY_ENV`]), Tavily ([`TAVILY_KEY_ENV`]) and SearXNG
/// ([`SEARXNG_URL_ENV`]). `None` when nothing is configured, or when the named one is not:
/// WebSearch is then not offered.
pub fn search_provider_from_env() -> Option<Arc<dyn SearchProvider>> {
    provider_from(|name| std::env::var(name).ok())
}

pub(crate) fn provider_from(get: impl Fn(&str) -> Option<String>) -> Option<Arc<dyn SearchProvider>> {
    let get = |name: &str| get(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let brave = || get(BRAVE_KEY_ENV).or_else(|| get("BRAVE_SEARCH_API_KEY"));
    let brave = || brave().map(|key| Arc::new(BraveSearch::new(key)) as Arc<dyn SearchProvider>);
    let tavily = || get(TAVILY_KEY_ENV).map(|key| Arc::new(TavilySearch::new(key)) as Arc<dyn SearchProvider>);
    let searxng = || get(SEARXNG_URL_ENV).map(|url| Arc::new(SearxngSearch::new(url)) as Arc<dyn SearchProvider>);
    match get(PROVIDER_ENV).map(|p| p.to_ascii_lowercase()).as_deref() {
        Some("brave") => brave(),
        Some("tavily") => tavily(),
        Some("searxng") => searxng(),
        Some(_) => None,
        None => brave().or_else(tavily).or_else(searxng),
    }
}

/// A provider's HTTP client, built on first use (30 s per request).
#[derive(Debug, Default)]
pub(crate) struct LazyClient(OnceLock<Result<reqwest::Client, String>>);

impl LazyClient {
    pub fn get(&self, provider: &str) -> Result<&reqwest::Client, SearchError> {
        self.0
            .get_or_init(|| {
                toolgate_core::http::client_builder()
                    .timeout(Duration::from_secs(30))
                    .user_agent(concat!("toolgate-websearch/", env!("CARGO_PKG_VERSION")))
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| SearchError::Request { provider: provider.to_owned(), detail: e.clone() })
    }
}

/// Sends `request` and reads a JSON answer, mapping failures to [`SearchError`].
pub(crate) async fn send_json(
    provider: &str,
    request: reqwest::RequestBuilder,
) -> Result<serde_json::Value, SearchError> {
    let response = request.send().await.map_err(|e| SearchError::Request {
        provider: provider.to_owned(),
        detail: if e.is_timeout() { "no answer within 30 s".to_owned() } else { e.to_string() },
    })?;
    let status = response.status().as_u16();
    let body = response.text().await.map_err(|e| SearchError::Request {
        provider: provider.to_owned(),
        detail: format!("reading the answer: {e}"),
    })?;
    let detail = || body.chars().take(300).collect::<String>();
    match status {
        200..=299 => serde_json::from_str(&body).map_err(|e| SearchError::Response {
            provider: provider.to_owned(),
            detail: format!("{e}; it starts with {:?}", detail()),
        }),
        401 | 403 => Err(SearchError::Unauthorized { provider: provider.to_owned(), status, detail: detail() }),
        429 => Err(SearchError::RateLimited { provider: provider.to_owned() }),
        _ => Err(SearchError::Status { provider: provider.to_owned(), status, detail: detail() }),
    }
}

/// `endpoint` with `pairs` appended to its query string.
pub(crate) fn with_query(provider: &str, endpoint: &str, pairs: &[(&str, &str)]) -> Result<reqwest::Url, SearchError> {
    let mut url = reqwest::Url::parse(endpoint).map_err(|e| SearchError::Request {
        provider: provider.to_owned(),
        detail: format!("the endpoint '{endpoint}' is not a valid URL ({e})"),
    })?;
    url.query_pairs_mut().extend_pairs(pairs);
    Ok(url)
}

/// Plain text from a snippet that may hold HTML tags and entities, whitespace collapsed.
pub(crate) fn plain_text(snippet: &str) -> String {
    let mut out = String::with_capacity(snippet.len());
    let mut in_tag = false;
    for c in snippet.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The hits in a JSON array of result objects, with the given field names.
pub(crate) fn hits(results: Option<&serde_json::Value>, title: &str, url: &str, snippet: &str) -> Vec<SearchHit> {
    results
        .and_then(serde_json::Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    let url = item.get(url)?.as_str()?.trim().to_owned();
                    let title = item.get(title).and_then(|t| t.as_str()).map_or_else(|| url.clone(), plain_text);
                    let snippet = item.get(snippet).and_then(|s| s.as_str()).map(plain_text).unwrap_or_default();
                    (!url.is_empty()).then_some(SearchHit { title, url, snippet })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn the_environment_chooses_the_provider() {
        let name = |pairs: &[(&str, &str)]| provider_from(env(pairs)).map(|p| p.name().to_owned());
        assert_eq!(name(&[]), None);
        assert_eq!(name(&[(BRAVE_KEY_ENV, " ")]), None, "an empty key configures nothing");
        assert_eq!(name(&[(BRAVE_KEY_ENV, "k")]).as_deref(), Some("Brave Search"));
        assert_eq!(name(&[("BRAVE_SEARCH_API_KEY", "k")]).as_deref(), Some("Brave Search"));
        assert_eq!(name(&[(TAVILY_KEY_ENV, "k"), (SEARXNG_URL_ENV, "http://s")]).as_deref(), Some("Tavily"));
        assert_eq!(name(&[(SEARXNG_URL_ENV, "http://s")]).as_deref(), Some("SearXNG"));
        let both = [(BRAVE_KEY_ENV, "k"), (SEARXNG_URL_ENV, "http://s"), (PROVIDER_ENV, "SearXNG")];
        assert_eq!(name(&both).as_deref(), Some("SearXNG"));
        assert_eq!(name(&[(BRAVE_KEY_ENV, "k"), (PROVIDER_ENV, "tavily")]), None, "the named one is not configured");
        assert_eq!(name(&[(BRAVE_KEY_ENV, "k"), (PROVIDER_ENV, "bing")]), None);
    }

    #[test]
    fn snippets_become_plain_text() {
        assert_eq!(plain_text("The <strong>Rust</strong>\n  book &amp; more &#39;x&#39;"), "The Rust book & more 'x'");
        assert_eq!(plain_text("a &lt;b&gt; c"), "a <b> c");
    }
}
