//! WebSearch's model-facing text.

/// What the model reads about WebSearch.
pub(crate) const DESCRIPTION: &str = "\
Searches the web and returns the results: title, URL and a short extract for each.

- Use it for information newer than your training data, current documentation, release \
notes, error messages and anything else that needs an up-to-date source.
- `query` is what you would type into a search engine (at least 2 characters).
- `allowed_domains` keeps only results from those domains (subdomains included); \
`blocked_domains` drops results from them. Use one or the other, not both.
- To read a result in full, pass its URL to WebFetch.
- After answering from the results, list the pages you used as Markdown links \
([title](url)) under a \"Sources:\" heading.
- Read-only. Several searches can be sent together in one message.";

/// The one-line hint ToolSearch matches against.
pub(crate) const SEARCH_HINT: &str = "search the web for current information";
