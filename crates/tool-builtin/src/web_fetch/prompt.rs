//! WebFetch's model-facing text: its description, and what the page model is told.

/// What the model reads about WebFetch.
pub(crate) const DESCRIPTION: &str = "\
Fetches a web page and answers a prompt about its content.

- Give a complete `url` and a `prompt` saying what you want from the page (\"list the \
breaking changes in 2.0\", \"how is the client configured?\").
- The page is fetched, HTML is turned into Markdown, and the prompt is answered over it by \
a small, fast model when one is configured. Without one, the page content comes back \
with your prompt restated, and you answer it from the content yourself.
- http URLs are upgraded to https. The URL must be public: local and private-network \
addresses are refused.
- Only text is read (HTML, Markdown, plain text, JSON, XML …); images, PDFs, archives \
and other binary files are refused. Bodies over 10 MB are refused, and content over \
100,000 characters is cut.
- When the URL redirects to a different host, the tool does not follow it; it tells you \
the new URL, and you call WebFetch again with it.
- Pages are cached for 15 minutes, so several questions about one page fetch it once.
- Read-only: it changes nothing. Several fetches can be sent together in one message.
- If an MCP tool for fetching pages is available, it may reach more sites; prefer it. \
For GitHub, the gh command through Bash usually gives better results than fetching \
github.com pages.";

/// The one-line hint ToolSearch matches against.
pub(crate) const SEARCH_HINT: &str = "fetch a web page or URL and read its content";

/// The system prompt of the model that answers the prompt over the page.
pub(crate) const PAGE_SYSTEM: &str = "\
You answer a request about one web page for an AI coding agent. Use only the page content \
you are given; when it does not hold the answer, say so plainly. Be concise and exact: keep \
code, commands, version numbers, URLs and API names as they appear on the page. Quote only \
short passages, and never more of the page than the request needs.";

/// The user message for the page model.
pub(crate) fn page_request(url: &str, content: &str, prompt: &str) -> String {
    format!("URL: {url}\n\nPage content:\n<page>\n{content}\n</page>\n\nRequest about the page:\n{prompt}")
}
