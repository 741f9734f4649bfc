//! WebSearch with each provider against a loopback server speaking its wire format, the
//! domain filters, provider errors and bad input.

use std::sync::Arc;

use serde_json::{Value, json};
use toolgate_builtin::{BraveSearch, SearchProvider, SearxngSearch, TavilySearch, WebSearch};
use toolgate_core::{DynTool, ToolErrorKind};

use crate::support::{Reply, Server, error, text};

fn tool(provider: impl SearchProvider + 'static) -> DynTool {
    WebSearch::tool(Some(Arc::new(provider)))
}

/// A Brave Search answer, shaped like the API's (trimmed to two results).
fn brave_answer() -> String {
    json!({
        "query": {"original": "rust async runtime", "more_results_available": true, "country": "us"},
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}], "top": [], "side": []},
        "type": "search",
        "web": {
            "type": "search",
            "family_friendly": true,
            "results": [
                {
                    "title": "Tokio - An asynchronous <strong>Rust</strong> runtime",
                    "url": "https://tokio.rs/",
                    "is_source_local": false,
                    "description": "Tokio is an <strong>asynchronous</strong> <strong>runtime</strong> for the Rust programming language &amp; more.",
                    "profile": {"name": "Tokio", "url": "https://tokio.rs/", "long_name": "tokio.rs"},
                    "language": "en",
                    "family_friendly": true,
                    "type": "search_result",
                    "subtype": "generic",
                    "meta_url": {"scheme": "https", "netloc": "tokio.rs", "hostname": "tokio.rs", "path": ""}
                },
                {
                    "title": "async-std",
                    "url": "https://docs.rs/async-std/latest/async_std/",
                    "description": "Async version of the <strong>Rust</strong> standard library",
                    "age": "March 3, 2024",
                    "type": "search_result",
                    "meta_url": {"scheme": "https", "netloc": "docs.rs", "hostname": "docs.rs", "path": "› async-std"}
                }
            ]
        }
    })
    .to_string()
}

#[tokio::test]
async fn brave_request_and_response() {
    let server = Server::start(|_| Reply::ok("application/json", brave_answer())).await;
    let brave = BraveSearch::new("brave-key").with_endpoint(server.url("/res/v1/web/search"));
    let out = text(&tool(brave), json!({"query": "rust async runtime"})).await;
    assert_eq!(
        out,
        "Web search results for \"rust async runtime\" from Brave Search (2 shown):\n\n\
         1. [Tokio - An asynchronous Rust runtime](https://tokio.rs/)\n   \
         Tokio is an asynchronous runtime for the Rust programming language & more.\n\n\
         2. [async-std](https://docs.rs/async-std/latest/async_std/)\n   \
         Async version of the Rust standard library\n\n\
         Cite the pages you use as Markdown links. To read one in full, use WebFetch."
    );
    let request = &server.requests()[0];
    assert_eq!((request.method.as_str(), request.path()), ("GET", "/res/v1/web/search"));
    assert_eq!(request.query(), [("q".to_owned(), "rust async runtime".to_owned()), ("count".into(), "10".into())]);
    assert_eq!(request.header("x-subscription-token"), Some("brave-key"));
    assert_eq!(request.header("accept"), Some("application/json"));
}

#[tokio::test]
async fn brave_narrows_one_allowed_domain_with_site_and_filters_the_rest() {
    let server = Server::start(|_| Reply::ok("application/json", brave_answer())).await;
    let brave = BraveSearch::new("k").with_endpoint(server.url("/s"));
    let out = text(&tool(brave), json!({"query": "async", "allowed_domains": ["https://docs.rs/"]})).await;
    assert!(
        out.starts_with(
            "Web search results for \"async\" from Brave Search (1 shown; 1 removed by the domain filters):"
        ),
        "{out}"
    );
    assert!(out.contains("docs.rs/async-std") && !out.contains("tokio.rs"), "{out}");
    assert_eq!(server.requests()[0].query()[0], ("q".to_owned(), "async site:docs.rs".to_owned()));
}

#[tokio::test]
async fn tavily_request_and_response() {
    let answer = json!({
        "query": "rust async runtime",
        "follow_up_questions": null,
        "answer": null,
        "images": [],
        "results": [
            {"url": "https://tokio.rs/", "title": "Tokio - An asynchronous Rust runtime",
             "content": "Tokio is an event-driven, non-blocking I/O platform for writing asynchronous applications.",
             "score": 0.98, "raw_content": null},
            {"url": "https://www.pinterest.com/pin/1/", "title": "Rust pins", "content": "Pins.", "score": 0.2, "raw_content": null},
            {"url": "https://smol.rs/", "title": "smol", "content": "A small and fast async runtime.", "score": 0.7, "raw_content": null}
        ],
        "response_time": 1.23,
        "request_id": "123e4567-e89b-12d3-a456-426614174111"
    })
    .to_string();
    let server = Server::start(move |_| Reply::ok("application/json", answer.clone())).await;
    let tavily = TavilySearch::new("tvly-key").with_endpoint(server.url("/search"));
    let out = text(&tool(tavily), json!({"query": " rust async runtime ", "blocked_domains": ["pinterest.com"]})).await;
    assert_eq!(
        out,
        "Web search results for \"rust async runtime\" from Tavily (2 shown; 1 removed by the domain filters):\n\n\
         1. [Tokio - An asynchronous Rust runtime](https://tokio.rs/)\n   \
         Tokio is an event-driven, non-blocking I/O platform for writing asynchronous applications.\n\n\
         2. [smol](https://smol.rs/)\n   A small and fast async runtime.\n\n\
         Cite the pages you use as Markdown links. To read one in full, use WebFetch."
    );
    let request = &server.requests()[0];
    assert_eq!((request.method.as_str(), request.path()), ("POST", "/search"));
    assert_eq!(request.header("authorization"), Some("Bearer tvly-key"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(
        body,
        json!({"query": "rust async runtime", "max_results": 10, "search_depth": "basic",
               "exclude_domains": ["pinterest.com"]})
    );
}

#[tokio::test]
async fn tavily_gets_several_allowed_domains_natively() {
    let server = Server::start(|_| Reply::ok("application/json", json!({"results": []}).to_string())).await;
    let tavily = TavilySearch::new("k").with_endpoint(server.url("/search"));
    let out = text(&tool(tavily), json!({"query": "serde", "allowed_domains": ["docs.rs", "serde.rs"]})).await;
    assert_eq!(out, "No results for \"serde\" from Tavily. Try other words, or fewer filters.");
    let body: Value = serde_json::from_str(&server.requests()[0].body).unwrap();
    assert_eq!(body["include_domains"], json!(["docs.rs", "serde.rs"]));
    assert_eq!(body["max_results"], 20, "several allowed domains ask for more, since they are filtered again");
}

#[tokio::test]
async fn searxng_request_and_response() {
    let answer = json!({
        "query": "rust async runtime",
        "number_of_results": 0,
        "results": [
            {"url": "https://tokio.rs/", "title": "Tokio", "content": "Build reliable network applications without compromising speed.",
             "thumbnail": "", "engine": "duckduckgo", "template": "default.html",
             "parsed_url": ["https", "tokio.rs", "/", "", "", ""], "img_src": "", "priority": "",
             "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general", "publishedDate": null},
            {"url": "https://github.com/smol-rs/smol", "title": "smol-rs/smol: A small and fast async runtime for Rust",
             "content": "", "engine": "google", "engines": ["google"], "positions": [3], "score": 0.33, "category": "general"}
        ],
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": ["rust async book"],
        "unresponsive_engines": [["bing", "timeout"]]
    })
    .to_string();
    let server = Server::start(move |_| Reply::ok("application/json", answer.clone())).await;
    let out =
        text(&tool(SearxngSearch::new(format!("{}/", server.base))), json!({"query": "rust async runtime"})).await;
    assert_eq!(
        out,
        "Web search results for \"rust async runtime\" from SearXNG (2 shown):\n\n\
         1. [Tokio](https://tokio.rs/)\n   Build reliable network applications without compromising speed.\n\n\
         2. [smol-rs/smol: A small and fast async runtime for Rust](https://github.com/smol-rs/smol)\n\n\
         Cite the pages you use as Markdown links. To read one in full, use WebFetch."
    );
    let request = &server.requests()[0];
    assert_eq!((request.method.as_str(), request.path()), ("GET", "/search"));
    assert_eq!(request.query(), [("q".to_owned(), "rust async runtime".to_owned()), ("format".into(), "json".into())]);
}

#[tokio::test]
async fn provider_failures_are_errors_with_hints() {
    let server = Server::start(|r| match r.path() {
        "/unauthorized" => Reply::status(401, "application/json", r#"{"error": "invalid api key"}"#),
        "/limited" => Reply::status(429, "application/json", "{}"),
        "/search" => Reply::status(403, "text/html", "<h1>Forbidden</h1>"),
        _ => Reply::ok("text/html", "<html>not json</html>"),
    })
    .await;
    let err =
        error(&tool(BraveSearch::new("bad").with_endpoint(server.url("/unauthorized"))), json!({"query": "q1"})).await;
    assert_eq!(err.kind(), ToolErrorKind::Network);
    assert!(err.message().contains("Brave Search refused the request (401)"), "{}", err.message());
    assert!(err.hint().unwrap().contains("API key"));
    let err = error(&tool(TavilySearch::new("k").with_endpoint(server.url("/limited"))), json!({"query": "q1"})).await;
    assert!(err.message().contains("rate-limiting"), "{}", err.message());
    let err = error(&tool(SearxngSearch::new(server.base.clone())), json!({"query": "q1"})).await;
    assert!(err.message().contains("SearXNG refused the request (403)"), "{}", err.message());
    let err = error(&tool(BraveSearch::new("k").with_endpoint(server.url("/html"))), json!({"query": "q1"})).await;
    assert!(err.message().contains("could not be read"), "{}", err.message());
    let err = error(&tool(BraveSearch::new("k").with_endpoint("http://127.0.0.1:1/s")), json!({"query": "q1"})).await;
    assert!(err.message().contains("the request to Brave Search failed"), "{}", err.message());
}

#[tokio::test]
async fn bad_input_is_an_error_with_a_hint() {
    let server = Server::start(|_| Reply::ok("application/json", brave_answer())).await;
    let search = tool(BraveSearch::new("k").with_endpoint(server.url("/s")));
    for (input, fragment) in [
        (json!({"query": ""}), "at least 2 characters"),
        (json!({"query": " a "}), "at least 2 characters"),
        (json!({"query": "x".repeat(401)}), "the limit is 400"),
        (json!({"query": "ok", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]}), "cannot be used together"),
        (
            json!({"query": "ok", "allowed_domains": ["not a domain"]}),
            "allowed_domains: 'not a domain' is not a domain",
        ),
        (json!({"query": "ok", "blocked_domains": [""]}), "blocked_domains: '' is not a domain"),
    ] {
        let err = error(&search, input.clone()).await;
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput, "{input}");
        assert!(err.message().contains(fragment), "{input}: {}", err.message());
        assert!(err.hint().is_some(), "{input} has no hint");
    }
    assert_eq!(server.hits(), 0, "nothing invalid reached the provider");
}

#[tokio::test]
async fn without_a_provider_the_tool_is_disabled() {
    let disabled = WebSearch::tool(None);
    assert!(!disabled.is_enabled());
    let err = error(&disabled, json!({"query": "anything"})).await;
    assert!(err.message().contains("not configured"), "{}", err.message());
    assert!(err.hint().unwrap().contains("BRAVE_API_KEY"));
    let pool = toolgate_core::ToolPool::builder().builtin(disabled).build();
    assert!(pool.get("WebSearch").is_none(), "a disabled tool is not offered");
}
