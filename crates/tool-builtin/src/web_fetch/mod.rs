//! WebFetch: a page fetched, converted to Markdown, and a prompt answered over it.
//!
//! Steps, in order: the URL is checked and `http` upgraded to `https`; a page cached for
//! the URL within the last 15 minutes is used as it is; otherwise the page is fetched
//! (redirects followed by hand, same host only; a redirect to another host is reported to
//! the model instead), its body read in chunks under the size cap, every connection's
//! addresses checked against the [`AddressPolicy`]; HTML becomes Markdown, other text
//! passes through, binary content is refused; the text is cut at the character limit and
//! cached. With a Messages endpoint configured, the prompt is answered over the page by
//! that model; without one (or when it fails), the page comes back with the prompt
//! restated. The permission target is the URL's host, for `WebFetch(domain:…)` rules.

mod address;
mod cache;
mod convert;
mod fetch;
mod prompt;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate_core::{DynTool, ResultLimit, ToolContext, ToolError, ToolOutput, TypedTool, typed};
use toolgate_permissions::{LlmClassifierConfig, MessagesClient};

pub use address::AddressPolicy;
pub use cache::{Clock, SystemClock};

use cache::{Page, PageCache};
use convert::BodyKind;
use fetch::{Fetched, RawPage};

/// The environment variable that lets WebFetch reach loopback, private and link-local
/// addresses (`1` or `true`). Off by default; meant for fetching intranet pages.
pub const ALLOW_PRIVATE_ENV: &str = "TOOLGATE_WEBFETCH_ALLOW_PRIVATE";

/// The environment variable naming the model that answers prompts over pages (default:
/// the classifier's model).
pub const MODEL_ENV: &str = "TOOLGATE_WEBFETCH_MODEL";

/// How WebFetch behaves: limits, the address policy, the page model and the clock.
///
/// Host settings, fixed when the tool is built; nothing in a call's input changes them.
///
/// ```
/// use std::time::Duration;
/// use toolgate_builtin::{WebFetch, WebFetchSettings};
/// use toolgate_core::Tool;
///
/// let settings = WebFetchSettings::default();
/// assert_eq!(settings.timeout, Duration::from_secs(60));
/// assert_eq!(settings.max_body_bytes, 10 * 1024 * 1024);
/// assert_eq!(settings.max_chars, 100_000);
/// assert_eq!(settings.cache_ttl, Duration::from_secs(15 * 60));
/// assert!(!settings.addresses.allow_loopback && !settings.addresses.allow_private);
/// assert!(settings.llm.is_none());
/// let tool = WebFetch::tool(settings);
/// assert_eq!(tool.name(), "WebFetch");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WebFetchSettings {
    /// The whole fetch (connect, redirects, body) must finish within this. Default 60 s.
    pub timeout: Duration,
    /// The largest body read, in bytes. Default 10 MiB.
    pub max_body_bytes: usize,
    /// Content longer than this many characters is cut. Default 100,000.
    pub max_chars: usize,
    /// How long a fetched page is reused. Default 15 minutes.
    pub cache_ttl: Duration,
    /// Which non-public addresses may be reached. Default: none.
    pub addresses: AddressPolicy,
    /// The Messages endpoint that answers prompts over pages. Default: none, and the page
    /// comes back with the prompt restated.
    pub llm: Option<LlmClassifierConfig>,
    /// The clock the cache reads. Default: the system clock.
    pub clock: Arc<dyn Clock>,
    /// The `User-Agent` header sent.
    pub user_agent: String,
}

impl Default for WebFetchSettings {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            max_body_bytes: 10 * 1024 * 1024,
            max_chars: 100_000,
            cache_ttl: Duration::from_secs(15 * 60),
            addresses: AddressPolicy::default(),
            llm: None,
            clock: Arc::new(SystemClock),
            user_agent: format!("toolgate-webfetch/{}", env!("CARGO_PKG_VERSION")),
        }
    }
}

impl WebFetchSettings {
    /// The defaults, with the page model from the classifier's environment
    /// (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`; model [`MODEL_ENV`], else
    /// `TOOLGATE_CLASSIFIER_MODEL`, else the default) and [`ALLOW_PRIVATE_ENV`].
    pub fn from_env() -> Self {
        let flag = |name: &str| std::env::var(name).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
        let allow_private = flag(ALLOW_PRIVATE_ENV);
        let defaults = Self::default();
        let llm = LlmClassifierConfig::from_env().map(|mut config| {
            if let Ok(model) = std::env::var(MODEL_ENV)
                && !model.trim().is_empty()
            {
                config.model = model.trim().to_owned();
            }
            config.timeout = defaults.timeout;
            config
        });
        Self { addresses: AddressPolicy { allow_loopback: allow_private, allow_private }, llm, ..defaults }
    }
}

/// A fetch request: WebFetch's input.
// (This doc is the schema's description.)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchInput {
    /// The URL to fetch: a complete http or https URL.
    pub url: String,
    /// What to find out from the page.
    pub prompt: String,
}

/// The WebFetch tool. Build it with [`WebFetch::tool`].
#[derive(Debug)]
pub struct WebFetch {
    settings: WebFetchSettings,
    cache: PageCache,
    client: OnceLock<Result<reqwest::Client, String>>,
    llm: OnceLock<Option<Result<MessagesClient, String>>>,
}

/// The most text the cache holds, in bytes of Markdown.
const CACHE_CHARS: usize = 50 * 1024 * 1024;

impl WebFetch {
    /// The tool with these settings. Its HTTP client is built on the first call.
    pub fn tool(settings: WebFetchSettings) -> DynTool {
        typed(Self {
            cache: PageCache::new(settings.cache_ttl, CACHE_CHARS),
            settings,
            client: OnceLock::new(),
            llm: OnceLock::new(),
        })
    }

    fn client(&self) -> Result<&reqwest::Client, ToolError> {
        self.client
            .get_or_init(|| fetch::client(self.settings.addresses, &self.settings.user_agent))
            .as_ref()
            .map_err(|e| ToolError::internal(e.clone()))
    }

    fn llm(&self) -> Option<&Result<MessagesClient, String>> {
        self.llm.get_or_init(|| self.settings.llm.clone().map(MessagesClient::new)).as_ref()
    }

    /// The page for `url`: from the cache, or fetched and converted (and then cached).
    async fn page(&self, url: reqwest::Url, ctx: &ToolContext) -> Result<Result<(Arc<Page>, bool), String>, ToolError> {
        let key = url.to_string();
        if let Some(page) = self.cache.get(&key, self.settings.clock.now()) {
            return Ok(Ok((page, true)));
        }
        let client = self.client()?;
        let fetching = fetch::fetch(client, url.clone(), self.settings.addresses, self.settings.max_body_bytes);
        let fetched = tokio::select! {
            () = ctx.cancel.cancelled() => return Err(ToolError::cancelled("the fetch was cancelled")),
            r = tokio::time::timeout(self.settings.timeout, fetching) => r.map_err(|_| {
                ToolError::timeout(format!(
                    "{url} did not finish loading within {} s",
                    self.settings.timeout.as_secs_f64()
                ))
                .with_hint("the site is slow or stalled; try again later, or a different page")
            })??,
        };
        match fetched {
            Fetched::Redirect { from, to, status } => Ok(Err(redirect_text(&from, &to, status))),
            Fetched::Body(raw) => {
                let page = Arc::new(self.convert(raw).await?);
                self.cache.put(key, page.clone(), self.settings.clock.now());
                Ok(Ok((page, false)))
            }
        }
    }

    async fn convert(&self, raw: RawPage) -> Result<Page, ToolError> {
        let RawPage { url, status, content_type, body } = raw;
        if !status.is_success() {
            return Err(ToolError::network(format!("{url} answered {status}")).with_hint(match status.as_u16() {
                401 | 403 => "the page needs a login or refuses automated clients; try another source",
                404 | 410 => "the page does not exist; check the URL, or find the current one with WebSearch",
                429 => "the site is rate-limiting requests; wait before fetching from it again",
                _ => "try again later, or another source",
            }));
        }
        let kind = convert::kind_of(&content_type, &body);
        let shown_type =
            if content_type.is_empty() { "no content type".to_owned() } else { convert::essence(&content_type) };
        let bytes = body.len();
        let text = match kind {
            BodyKind::Binary => {
                return Err(ToolError::invalid_input(format!(
                    "{url} is {shown_type} ({}), not text; WebFetch reads only text content",
                    fetch::size(bytes)
                ))
                .with_hint("fetch an HTML or text page about it instead (for a PDF, look for an HTML version)"));
            }
            BodyKind::Text => convert::decode(&content_type, &body),
            BodyKind::Html => {
                let html = convert::decode(&content_type, &body);
                tokio::task::spawn_blocking(move || convert::html_to_markdown(&html))
                    .await
                    .map_err(|e| ToolError::internal(format!("the HTML conversion stopped: {e}")))?
                    .map_err(ToolError::internal)?
            }
        };
        let (text, cut_from) = convert::cut(text, self.settings.max_chars);
        Ok(Page {
            url: url.to_string(),
            status: status.as_u16(),
            status_text: status.canonical_reason().unwrap_or_default().to_owned(),
            content_type: shown_type,
            bytes,
            text,
            cut_from,
        })
    }
}

impl TypedTool for WebFetch {
    type Input = WebFetchInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "WebFetch"
    }

    fn description(&self) -> String {
        prompt::DESCRIPTION.to_owned()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some(prompt::SEARCH_HINT)
    }

    fn is_read_only(&self, _input: &WebFetchInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &WebFetchInput) -> bool {
        true
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> ResultLimit {
        ResultLimit::Chars(100_000)
    }

    /// A URL that does not parse, a scheme other than http(s), credentials in the URL, a
    /// refused IP-literal host and an empty prompt are reported before permission is asked.
    async fn validate(&self, input: &WebFetchInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        fetch::parse_url(&input.url, self.settings.addresses)?;
        if input.prompt.trim().is_empty() {
            return Err(ToolError::invalid_input("prompt is empty")
                .with_hint("say what you want from the page, e.g. \"summarize the installation steps\""));
        }
        Ok(())
    }

    /// The URL's host (lowercased, IDNs in punycode), matched by `WebFetch(domain:…)` rules.
    fn permission_target(&self, input: &WebFetchInput) -> Option<String> {
        let url = reqwest::Url::parse(input.url.trim()).ok()?;
        url.host_str().filter(|h| !h.is_empty()).map(str::to_owned)
    }

    async fn call(&self, input: WebFetchInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let url = fetch::parse_url(&input.url, self.settings.addresses)?;
        let (page, cached) = match self.page(url, ctx).await? {
            Ok(found) => found,
            Err(redirect) => return Ok(ToolOutput::text(redirect)),
        };
        let note = match self.llm() {
            None => None,
            Some(Err(e)) => Some(format!("the page model is not available ({e})")),
            Some(Ok(client)) => {
                let request = prompt::page_request(&page.url, &page.text, &input.prompt);
                let asked = tokio::select! {
                    () = ctx.cancel.cancelled() => return Err(ToolError::cancelled("the fetch was cancelled")),
                    r = client.complete(prompt::PAGE_SYSTEM, &request, 2048) => r,
                };
                match asked {
                    Ok(answer) if !answer.trim().is_empty() => return Ok(ToolOutput::text(answer)),
                    Ok(_) => Some("the page model gave an empty answer".to_owned()),
                    Err(e) => Some(format!("the page model could not answer ({e})")),
                }
            }
        };
        Ok(ToolOutput::text(page_text(&page, cached, &input.prompt, note.as_deref())))
    }

    fn render_use(&self, input: &WebFetchInput) -> String {
        format!("WebFetch({})", input.url)
    }
}

/// The page with the prompt restated, for the model to answer itself.
fn page_text(page: &Page, cached: bool, prompt: &str, note: Option<&str>) -> String {
    let mut out = format!(
        "{} ({} {}, {}, {}{})\n",
        page.url,
        page.status,
        page.status_text,
        page.content_type,
        fetch::size(page.bytes),
        if cached { ", from the 15-minute cache" } else { "" }
    );
    match note {
        Some(note) => out.push_str(&format!("No model answered the prompt: {note}.")),
        None => out.push_str("No model is configured to answer prompts over pages."),
    }
    out.push_str(" Answer this prompt from the page content below:\n<prompt>\n");
    out.push_str(prompt.trim());
    out.push_str("\n</prompt>\n\n<page>\n");
    out.push_str(&page.text);
    if !page.text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("</page>");
    if let Some(total) = page.cut_from {
        out.push_str(&format!(
            "\n[content cut: showing the first {} of {total} characters]",
            page.text.chars().count()
        ));
    }
    out
}

/// What the model is told about a redirect to another host.
fn redirect_text(from: &reqwest::Url, to: &reqwest::Url, status: reqwest::StatusCode) -> String {
    format!(
        "{from} redirects ({status}) to a different host: {to}\n\
         WebFetch does not follow redirects to other hosts. To read the page there, call WebFetch again \
         with url \"{to}\" and the same prompt."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_text_restates_the_prompt_and_says_when_it_was_cut() {
        let page = Page {
            url: "https://example.com/".into(),
            status: 200,
            status_text: "OK".into(),
            content_type: "text/html".into(),
            bytes: 2048,
            text: "# Title".into(),
            cut_from: Some(120_000),
        };
        let text = page_text(&page, true, " what is it? ", None);
        assert_eq!(
            text,
            "https://example.com/ (200 OK, text/html, 2.0 KB, from the 15-minute cache)\n\
             No model is configured to answer prompts over pages. Answer this prompt from the page content below:\n\
             <prompt>\nwhat is it?\n</prompt>\n\n<page>\n# Title\n</page>\n\
             [content cut: showing the first 7 of 120000 characters]"
        );
    }
}
