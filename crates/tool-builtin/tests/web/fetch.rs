//! WebFetch against loopback servers: conversion, redirects, caps, timeout, cache, the
//! address guard, the page model, and bad input.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolgate_builtin::{AddressPolicy, Clock, WebFetch, WebFetchSettings};
use toolgate_core::{DynTool, PermissionBehavior, ToolErrorKind};
use toolgate_permissions::{DomainPattern, LlmClassifierConfig, LoadedSettings, PermissionEngine};

use crate::support::{Reply, Server, ctx, error, text};

/// Settings for tests: the defaults, with loopback allowed so the tool reaches the test's
/// own server.
fn local() -> WebFetchSettings {
    let mut settings = WebFetchSettings::default();
    settings.addresses = AddressPolicy { allow_loopback: true, allow_private: false };
    settings
}

fn fetch_input(url: &str) -> Value {
    json!({"url": url, "prompt": "What does the page say?"})
}

const PAGE: &str = "<!DOCTYPE html><html><head><title>Doc</title><style>p{color:red}</style>\
<script>var secret = 1;</script></head><body><h1>Install</h1><p>Run <code>cargo add toolgate</code>, \
then read <a href=\"/guide\">the guide</a>.</p><ul><li>one</li><li>two</li></ul></body></html>";

#[tokio::test]
async fn html_becomes_markdown_and_the_prompt_is_restated() {
    let server = Server::start(|_| Reply::ok("text/html; charset=utf-8", PAGE)).await;
    let tool = WebFetch::tool(local());
    let out = text(&tool, fetch_input(&server.url("/doc"))).await;
    assert_eq!(
        out,
        format!(
            "{} (200 OK, text/html, {} bytes)\n\
             No model is configured to answer prompts over pages. Answer this prompt from the page content below:\n\
             <prompt>\nWhat does the page say?\n</prompt>\n\n\
             <page>\n# Install\n\nRun `cargo add toolgate`, then read [the guide](/guide).\n\n*   one\n*   two\n</page>",
            server.url("/doc"),
            PAGE.len()
        )
    );
    let request = &server.requests()[0];
    assert_eq!(request.method, "GET");
    assert!(request.header("accept").unwrap().starts_with("text/markdown"));
    assert!(request.header("user-agent").unwrap().starts_with("toolgate-webfetch/"));
}

#[tokio::test]
async fn other_text_passes_through_unchanged() {
    let body = "{\"name\": \"toolgate\", \"tags\": [\"<b>not html</b>\"]}";
    let server = Server::start(move |_| Reply::ok("application/json", body)).await;
    let out = text(&WebFetch::tool(local()), fetch_input(&server.url("/api"))).await;
    assert!(out.contains(&format!("<page>\n{body}\n</page>")), "{out}");
}

#[tokio::test]
async fn binary_content_is_refused_with_a_hint() {
    let server = Server::start(|_| Reply::ok("image/png", b"\x89PNG\r\n\x1a\n\0\0\0".to_vec())).await;
    let err = error(&WebFetch::tool(local()), fetch_input(&server.url("/logo.png"))).await;
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert!(err.message().contains("is image/png (11 bytes), not text"), "{}", err.message());
    assert!(err.hint().is_some());
}

#[tokio::test]
async fn content_over_the_character_limit_is_cut_and_says_so() {
    let server = Server::start(|_| Reply::ok("text/plain", "x".repeat(150))).await;
    let mut settings = local();
    settings.max_chars = 100;
    let out = text(&WebFetch::tool(settings), fetch_input(&server.url("/long"))).await;
    assert!(out.contains(&format!("<page>\n{}\n</page>", "x".repeat(100))), "{out}");
    assert!(out.ends_with("[content cut: showing the first 100 of 150 characters]"), "{out}");
}

#[tokio::test]
async fn a_same_host_redirect_is_followed() {
    let server = Server::start(|r| match r.path() {
        "/old" => Reply::redirect(301, "/hop"),
        "/hop" => Reply::redirect(302, "/new?x=1"),
        _ => Reply::ok("text/plain", "moved here"),
    })
    .await;
    let out = text(&WebFetch::tool(local()), fetch_input(&server.url("/old"))).await;
    assert!(out.starts_with(&format!("{} (200 OK", server.url("/new?x=1"))), "{out}");
    assert!(out.contains("moved here"));
    let paths: Vec<String> = server.requests().iter().map(|r| r.target.clone()).collect();
    assert_eq!(paths, ["/old", "/hop", "/new?x=1"]);
}

#[tokio::test]
async fn a_redirect_to_another_host_is_reported_not_followed() {
    let server = Server::start(|_| Reply::redirect(302, "https://example.org/landing")).await;
    let out = text(&WebFetch::tool(local()), fetch_input(&server.url("/away"))).await;
    assert_eq!(
        out,
        format!(
            "{} redirects (302 Found) to a different host: https://example.org/landing\n\
             WebFetch does not follow redirects to other hosts. To read the page there, call WebFetch again \
             with url \"https://example.org/landing\" and the same prompt.",
            server.url("/away")
        )
    );
    assert_eq!(server.hits(), 1);
    // Another port on the same address is another site too.
    let port = server.port;
    let other = Server::start(move |_| Reply::redirect(301, &format!("http://localhost:{port}/x"))).await;
    let out = text(&WebFetch::tool(local()), fetch_input(&other.url("/"))).await;
    assert!(out.contains(&format!("to a different host: http://localhost:{port}/x")), "{out}");
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn a_redirect_loop_ends_with_an_error() {
    let server = Server::start(|_| Reply::redirect(302, "/again")).await;
    let err = error(&WebFetch::tool(local()), fetch_input(&server.url("/again"))).await;
    assert!(err.message().contains("redirected more than 10 times"), "{}", err.message());
    assert_eq!(server.hits(), 11);
}

#[tokio::test]
async fn a_body_over_the_cap_is_refused_declared_or_streamed() {
    let server = Server::start(|r| match r.path() {
        "/declared" => Reply::ok("text/plain", vec![b'a'; 5000]),
        _ => Reply::Chunked { content_type: "text/plain", chunks: vec![vec![b'b'; 400]; 5] },
    })
    .await;
    let mut settings = local();
    settings.max_body_bytes = 1000;
    let tool = WebFetch::tool(settings);
    for path in ["/declared", "/streamed"] {
        let err = error(&tool, fetch_input(&server.url(path))).await;
        assert!(err.message().ends_with("is larger than WebFetch's limit of 1000 bytes"), "{}", err.message());
        assert!(err.hint().is_some());
    }
    // Under the cap, the chunked body is read whole.
    let mut settings = local();
    settings.max_body_bytes = 2000;
    let out = text(&WebFetch::tool(settings), fetch_input(&server.url("/streamed"))).await;
    assert!(out.contains(&"b".repeat(2000)), "{out}");
}

#[tokio::test]
async fn the_default_cap_is_ten_megabytes() {
    let limit = 10 * 1024 * 1024;
    let server = Server::start(move |r| match r.path() {
        "/at-limit" => Reply::Chunked { content_type: "text/plain", chunks: vec![vec![b'c'; limit / 8]; 8] },
        _ => Reply::Chunked {
            content_type: "text/plain",
            chunks: vec![vec![b'c'; limit / 8]; 8].into_iter().chain([vec![b'c']]).collect(),
        },
    })
    .await;
    let tool = WebFetch::tool(local());
    let err = error(&tool, fetch_input(&server.url("/over"))).await;
    assert!(err.message().ends_with("limit of 10 MB"), "{}", err.message());
    let out = text(&tool, fetch_input(&server.url("/at-limit"))).await;
    assert!(out.lines().next().unwrap().ends_with("text/plain, 10 MB)"), "{}", out.lines().next().unwrap());
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let server = Server::start(|_| Reply::Hang).await;
    let mut settings = local();
    settings.timeout = Duration::from_millis(300);
    let err = error(&WebFetch::tool(settings), fetch_input(&server.url("/slow"))).await;
    assert_eq!(err.kind(), ToolErrorKind::Timeout);
    assert!(err.message().contains("did not finish loading within 0.3 s"), "{}", err.message());
    assert!(err.hint().is_some());
}

/// A clock the test moves by hand.
#[derive(Debug)]
struct ManualClock(Mutex<Instant>);

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.0.lock().unwrap()
    }
}

#[tokio::test]
async fn a_page_is_served_from_the_cache_for_fifteen_minutes() {
    let server = Server::start(|_| Reply::ok("text/html", PAGE)).await;
    let clock = Arc::new(ManualClock(Mutex::new(Instant::now())));
    let mut settings = local();
    settings.clock = clock.clone();
    let tool = WebFetch::tool(settings);
    let url = server.url("/doc");
    let first = text(&tool, fetch_input(&url)).await;
    assert!(!first.lines().next().unwrap().contains("cache"));
    *clock.0.lock().unwrap() += Duration::from_secs(14 * 60);
    let second = text(&tool, json!({"url": url, "prompt": "another question"})).await;
    assert_eq!(server.hits(), 1, "the second fetch must come from the cache");
    assert!(second.lines().next().unwrap().ends_with(", from the 15-minute cache)"), "{second}");
    assert!(second.contains("another question") && second.contains("# Install"));
    *clock.0.lock().unwrap() += Duration::from_secs(2 * 60);
    text(&tool, fetch_input(&url)).await;
    assert_eq!(server.hits(), 2, "after 15 minutes the page is fetched again");
}

#[tokio::test]
async fn loopback_and_private_addresses_are_refused_by_default() {
    let server = Server::start(|_| Reply::ok("text/plain", "internal")).await;
    let tool = WebFetch::tool(WebFetchSettings::default());
    // An IP literal is refused before the request (and before permission is asked).
    let err = error(&tool, fetch_input(&server.url("/"))).await;
    assert_eq!(err.kind(), ToolErrorKind::Permission);
    assert!(err.message().contains("127.0.0.1 is a loopback address"), "{}", err.message());
    assert!(err.hint().is_some());
    // A name is refused after resolution, in the client's resolver.
    let err = error(&tool, fetch_input(&format!("http://localhost:{}/", server.port))).await;
    assert_eq!(err.kind(), ToolErrorKind::Permission);
    assert!(err.message().contains("localhost resolves to "), "{}", err.message());
    for url in ["http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest/meta-data/", "http://192.168.1.1/"] {
        let err = error(&tool, fetch_input(url)).await;
        assert_eq!(err.kind(), ToolErrorKind::Permission, "{url}");
    }
    assert_eq!(server.hits(), 0, "nothing reached the server");
}

#[tokio::test]
async fn a_redirect_to_a_private_address_is_not_followed_and_fetching_it_is_refused() {
    let server = Server::start(|_| Reply::redirect(302, "http://169.254.169.254/latest/meta-data/")).await;
    let tool = WebFetch::tool(local());
    let out = text(&tool, fetch_input(&server.url("/start"))).await;
    assert!(out.contains("to a different host: http://169.254.169.254/latest/meta-data/"), "{out}");
    let err = error(&tool, fetch_input("http://169.254.169.254/latest/meta-data/")).await;
    assert_eq!(err.kind(), ToolErrorKind::Permission);
    assert!(err.message().contains("169.254.169.254 is a link-local address"), "{}", err.message());
}

fn llm(base_url: &str) -> LlmClassifierConfig {
    LlmClassifierConfig {
        base_url: base_url.to_owned(),
        api_key: "test-key".into(),
        model: "page-model".into(),
        timeout: Duration::from_secs(10),
    }
}

#[tokio::test]
async fn with_a_page_model_the_prompt_is_answered_by_it() {
    let page = Server::start(|_| Reply::ok("text/html", PAGE)).await;
    let model = Server::start(|_| {
        Reply::ok(
            "application/json",
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "page-model",
                   "content": [{"type": "text", "text": "Install it with cargo add toolgate."}],
                   "stop_reason": "end_turn"})
            .to_string(),
        )
    })
    .await;
    let mut settings = local();
    settings.llm = Some(llm(&model.base));
    let out = text(&WebFetch::tool(settings), json!({"url": page.url("/doc"), "prompt": "How do I install it?"})).await;
    assert_eq!(out, "Install it with cargo add toolgate.");
    let request = &model.requests()[0];
    assert_eq!((request.method.as_str(), request.path()), ("POST", "/v1/messages"));
    assert_eq!(request.header("x-api-key"), Some("test-key"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body["model"], "page-model");
    assert!(body["system"].as_str().unwrap().contains("web page"));
    let user = body["messages"][0]["content"].as_str().unwrap();
    assert!(user.contains("# Install") && user.contains("How do I install it?"), "{user}");
    assert!(user.contains(&page.url("/doc")));
}

#[tokio::test]
async fn when_the_page_model_fails_the_page_comes_back_with_the_reason() {
    let page = Server::start(|_| Reply::ok("text/plain", "plain page")).await;
    let model = Server::start(|_| Reply::status(500, "application/json", "{}")).await;
    let mut settings = local();
    settings.llm = Some(llm(&model.base));
    let out = text(&WebFetch::tool(settings), fetch_input(&page.url("/p"))).await;
    assert!(
        out.contains("No model answered the prompt: the page model could not answer (the endpoint answered 500"),
        "{out}"
    );
    assert!(out.contains("plain page"));
}

#[tokio::test]
async fn an_error_status_is_an_error_with_a_hint() {
    let server = Server::start(|_| Reply::status(404, "text/html", "<h1>Not here</h1>")).await;
    let err = error(&WebFetch::tool(local()), fetch_input(&server.url("/gone"))).await;
    assert_eq!(err.kind(), ToolErrorKind::Network);
    assert!(err.message().ends_with("answered 404 Not Found"), "{}", err.message());
    assert!(err.hint().unwrap().contains("WebSearch"));
}

#[tokio::test]
async fn bad_input_is_an_error_with_a_hint() {
    let tool = WebFetch::tool(local());
    for (input, fragment) in [
        (json!({"url": "not a url", "prompt": "p"}), "is not a valid URL"),
        (json!({"url": "docs.rs/tokio", "prompt": "p"}), "is not a valid URL"),
        (json!({"url": "ftp://example.com/f", "prompt": "p"}), "'ftp:' is not supported"),
        (json!({"url": "file:///etc/passwd", "prompt": "p"}), "'file:' is not supported"),
        (json!({"url": "https://u:p@example.com/", "prompt": "p"}), "user name or password"),
        (json!({"url": "https://example.com/", "prompt": "  "}), "prompt is empty"),
    ] {
        let err = error(&tool, input.clone()).await;
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput, "{input}");
        assert!(err.message().contains(fragment), "{input}: {}", err.message());
        assert!(err.hint().is_some(), "{input} has no hint");
    }
}

fn engine(rules: &[&str]) -> PermissionEngine {
    let mut loaded = LoadedSettings::default();
    let rules: Vec<String> = rules.iter().map(|r| (*r).to_owned()).collect();
    loaded.add_cli_rules(PermissionBehavior::Allow, &rules, &std::env::temp_dir());
    let (settings, diagnostics) = loaded.permissions();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    PermissionEngine::builder(settings).build()
}

#[test]
fn the_permission_target_is_the_host_for_domain_rules() {
    let tool: DynTool = WebFetch::tool(local());
    let input = json!({"url": "http://Docs.Example.COM:8080/a/b?c", "prompt": "p"});
    assert_eq!(tool.permission_target(&input).as_deref(), Some("docs.example.com"));
    assert!(DomainPattern::parse("domain:*.example.com").unwrap().matches("docs.example.com"));
    assert!(tool.is_read_only(&input) && tool.is_concurrency_safe(&input));

    let engine = engine(&["WebFetch(domain:docs.example.com)"]);
    let decide =
        |url: &str| engine.evaluate(&*tool, &json!({"url": url, "prompt": "p"}), &ctx(), None).decision.behavior;
    assert_eq!(decide("https://docs.example.com/page"), PermissionBehavior::Allow);
    assert_eq!(decide("http://DOCS.example.com/other"), PermissionBehavior::Allow);
    assert_eq!(decide("https://example.com/"), PermissionBehavior::Ask);
    assert_eq!(decide("https://docs.example.com.evil.org/"), PermissionBehavior::Ask);
}

#[tokio::test]
async fn an_unreachable_server_is_a_network_error_with_a_hint() {
    // Port 1 on loopback: nothing listens there.
    let err = error(&WebFetch::tool(local()), fetch_input("http://127.0.0.1:1/")).await;
    assert_eq!(err.kind(), ToolErrorKind::Network);
    assert!(err.message().starts_with("could not connect to 127.0.0.1: "), "{}", err.message());
    assert!(err.hint().is_some());
}

#[tokio::test]
async fn a_cancelled_call_stops_a_stalled_fetch() {
    let server = Server::start(|_| Reply::Hang).await;
    let tool = WebFetch::tool(local());
    let ctx = ctx();
    let cancel = ctx.cancel.clone();
    let input = fetch_input(&server.url("/stalled"));
    let call = tool.call(input, &ctx);
    let (result, ()) = tokio::join!(call, async move {
        // Cancel once the server has the request, so the fetch is known to be under way.
        while server.hits() == 0 {
            tokio::task::yield_now().await;
        }
        cancel.cancel();
    });
    assert_eq!(result.unwrap_err().kind(), ToolErrorKind::Cancelled);
}
