//! http hooks against a real HTTP/1.1 server on loopback that the test starts (with the
//! `http` feature; without it, see `http_hooks_without_the_feature_say_so` in `main.rs`).

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use toolgate_hooks::{HookBehavior, RunStatus};

use crate::support::{Project, cancel, settings};

/// What the server received.
struct Request {
    head: String,
    body: Value,
}

/// Reads one request from `socket`: its head and JSON body.
async fn read_request(socket: &mut TcpStream) -> Request {
    let mut data = Vec::new();
    let mut buf = [0_u8; 4096];
    loop {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(n > 0, "connection closed before the request was complete");
        data.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&data).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                return Request { head: head.to_owned(), body: serde_json::from_str(&body[..length]).unwrap() };
            }
        }
    }
}

/// Serves one request with `status` and `body`; returns the URL and the request it saw.
async fn serve_once(status: &'static str, reply: &'static str) -> (String, oneshot::Receiver<Request>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks/pre-tool-use", listener.local_addr().unwrap());
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let request = read_request(&mut socket).await;
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
            reply.len()
        );
        socket.write_all(response.as_bytes()).await.unwrap();
        socket.shutdown().await.ok();
        let _ = tx.send(request);
    });
    (url, rx)
}

/// Reads one request and never answers it (the connection stays open); returns the URL and
/// the request it saw.
async fn serve_silence() -> (String, oneshot::Receiver<Request>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let _ = tx.send(read_request(&mut socket).await);
        std::future::pending::<()>().await;
        drop(socket);
    });
    (url, rx)
}

#[tokio::test]
async fn http_hooks_post_the_event_and_only_allowed_variables_reach_headers() {
    let p = Project::new();
    let (url, request) = serve_once(
        "200 OK",
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "from http"}}"#,
    )
    .await;
    let handler = json!({
        "type": "http",
        "url": url,
        "timeout": 30,
        "headers": {"Authorization": "Bearer $HOME", "X-Leak": "[${PATH}]"},
        "allowedEnvVars": ["HOME"]
    });
    let runner = p.runner(settings("PreToolUse", "Bash", json!([handler])));
    let out = runner.pre_tool_use(&p.bash("curl evil"), &cancel()).await;
    let decision = out.decision.unwrap();
    assert_eq!((decision.behavior, decision.reason.as_deref()), (HookBehavior::Deny, Some("from http")));
    assert!(decision.hook.http);

    let request = request.await.unwrap();
    let head = request.head.to_ascii_lowercase();
    assert!(head.starts_with("post /hooks/pre-tool-use http/1.1"), "{head}");
    assert!(head.contains("content-type: application/json"), "{head}");
    let home = std::env::var("HOME").unwrap().to_ascii_lowercase();
    assert!(head.contains(&format!("authorization: bearer {home}")), "{head}");
    assert!(head.contains("x-leak: []"), "PATH is not allowed, so it is empty: {head}");
    assert_eq!(request.body["hook_event_name"], "PreToolUse");
    assert_eq!(request.body["tool_input"], json!({"command": "curl evil"}));
}

#[tokio::test]
async fn http_errors_do_not_block() {
    let p = Project::new();
    let (url, _request) = serve_once("500 Internal Server Error", r#"{"decision": "block"}"#).await;
    let runner = p.runner(settings("PreToolUse", "Bash", json!([{"type": "http", "url": url}])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.decision.is_none() && out.blocked.is_none());
    assert_eq!(out.errors[0].message, "status 500 Internal Server Error");

    // Nothing listens on this port any more.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    let runner = p.runner(settings("PreToolUse", "Bash", json!([{"type": "http", "url": closed}])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.runs[0].status, RunStatus::Failed);
    assert!(out.errors[0].message.starts_with("request failed: "), "{}", out.errors[0].message);
}

#[tokio::test]
async fn http_plain_text_is_context() {
    let p = Project::new();
    let (url, _request) = serve_once("200 OK", "remember the style guide").await;
    let runner = p.runner(settings("PreToolUse", "Bash", json!([{"type": "http", "url": url}])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.context_text().as_deref(), Some("remember the style guide"));
}

/// A prompt hook asks a model (here a loopback Messages API) with the event input in place of
/// `$ARGUMENTS`; `{"ok": false, "reason": …}` blocks with the reason. Without a model the hook
/// says so once, and never blocks.
#[tokio::test]
async fn prompt_hooks_ask_a_model_and_its_no_blocks() {
    let p = Project::new();
    let answer = r#"{"content": [{"type": "text", "text": "{\"ok\": false, \"reason\": \"run the tests first\"}"}]}"#;
    let (url, request) = serve_once("200 OK", answer).await;
    let base = url.trim_end_matches("/hooks/pre-tool-use").to_owned();
    let model = toolgate_permissions::LlmClassifierConfig {
        base_url: base,
        api_key: "sk-test".to_owned(),
        model: "default-model".to_owned(),
        timeout: std::time::Duration::from_secs(10),
    };
    let hooks = json!([{"type": "prompt", "prompt": "Is this safe? $ARGUMENTS", "model": "judge"}]);
    let runner = p.runner(settings("PreToolUse", "Bash", hooks.clone())).with_model(Some(model));
    let out = runner.pre_tool_use(&p.bash("git push --force"), &cancel()).await;
    assert_eq!(out.blocked.map(|b| b.reason), Some("run the tests first".to_owned()));
    let request = request.await.unwrap();
    assert_eq!(request.body["model"], "judge");
    let asked = request.body["messages"][0]["content"].as_str().unwrap();
    assert!(asked.starts_with("Is this safe? {") && asked.contains("git push --force"), "{asked}");

    let nobody = p.runner(settings("PreToolUse", "Bash", hooks)).with_model(None);
    let first = nobody.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(first.blocked.is_none());
    assert!(first.errors[0].message.contains("ANTHROPIC_API_KEY"), "{:?}", first.errors);
    let second = nobody.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(second.errors.is_empty() && second.blocked.is_none(), "reported once: {:?}", second.errors);
}

/// A prompt hook whose model never answers gives up after the hook's `timeout` (seconds) with a
/// non-blocking error that names it; the call goes on.
#[tokio::test]
async fn a_prompt_hook_whose_model_never_answers_times_out_without_blocking() {
    let p = Project::new();
    let (base, request) = serve_silence().await;
    let model = toolgate_permissions::LlmClassifierConfig {
        base_url: base,
        api_key: "sk-test".to_owned(),
        model: "default-model".to_owned(),
        timeout: std::time::Duration::from_secs(600),
    };
    let hooks = json!([{"type": "prompt", "prompt": "Is this safe? $ARGUMENTS", "timeout": 1}]);
    let runner = p.runner(settings("PreToolUse", "Bash", hooks)).with_model(Some(model));
    // A guard against a hang, not a measure of the timeout.
    let guard = std::time::Duration::from_secs(20);
    let out = tokio::time::timeout(guard, runner.pre_tool_use(&p.bash("ls"), &cancel()))
        .await
        .expect("the prompt hook's timeout ended the wait");
    assert!(out.blocked.is_none() && out.decision.is_none(), "{out:?}");
    assert_eq!(out.runs[0].status, RunStatus::TimedOut);
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert!(out.errors[0].message.starts_with("timed out after 1s"), "{}", out.errors[0].message);
    let request = request.await.unwrap();
    assert!(request.head.to_ascii_lowercase().starts_with("post /v1/messages "), "{}", request.head);
}
