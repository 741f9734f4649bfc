//! The test server as its clients see it: raw JSON-RPC lines over its stdin and stdout.
//! (Having an integration test also makes `cargo test` and `cargo nextest` build the
//! binary that `toolgate-mcp`'s tests start.)

// Test helpers may unwrap: a panic there is a failed assertion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolgate_core::process::ProcessSpec;

/// Sends one message per line and returns the next `n` lines the server writes.
async fn exchange(messages: &[Value], n: usize, env: &[(&str, &str)]) -> (Vec<Value>, Option<i32>) {
    let spec = ProcessSpec::exec(env!("CARGO_BIN_EXE_toolgate-mcp-test-server"), Vec::<String>::new())
        .cwd(std::env::temp_dir())
        .envs(env.iter().copied())
        .discard_stderr();
    let mut child = spec.spawn().unwrap();
    let mut stdin = child.take_stdin().unwrap();
    let mut lines = BufReader::new(child.take_stdout().unwrap()).lines();
    for m in messages {
        stdin.write_all(format!("{m}\n").as_bytes()).await.unwrap();
    }
    stdin.flush().await.unwrap();
    let mut out = Vec::new();
    let read = async {
        while out.len() < n {
            match lines.next_line().await.unwrap() {
                Some(line) => out.push(serde_json::from_str(&line).unwrap()),
                None => break,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read).await.expect("the server answered in time");
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await.ok().and_then(Result::ok);
    (out, status.and_then(|s| s.code()))
}

fn initialize() -> [Value; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}
        }}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

fn call(id: u64, name: &str, arguments: Value, token: Option<u64>) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(token) = token {
        params["_meta"] = json!({"progressToken": token});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[tokio::test]
async fn answers_calls_sends_progress_and_malforms_on_request() {
    let mut messages = initialize().to_vec();
    messages.push(call(1, "add", json!({"a": 2, "b": 3}), None));
    messages.push(call(2, "progress", json!({"steps": 2}), Some(7)));
    messages.push(call(3, "malformed", json!({}), None));
    let (out, _) = exchange(&messages, 6, &[]).await;
    assert_eq!(out[0]["result"]["serverInfo"]["name"], "toolgate-mcp-test-server");
    let by_id = |id: u64| out.iter().find(|m| m["id"] == id).cloned().unwrap_or(Value::Null);
    assert_eq!(by_id(1)["result"]["structuredContent"], json!({"sum": 5}));
    let progress: Vec<&Value> = out.iter().filter(|m| m["method"] == "notifications/progress").collect();
    assert_eq!(progress.len(), 2);
    assert_eq!(progress[0]["params"]["progressToken"], 7);
    assert_eq!(progress[1]["params"]["message"], "step 2 of 2");
    assert_eq!(by_id(2)["result"]["content"][0]["text"], "done");
    assert_eq!(by_id(3)["result"]["content"], "not a list");
}

#[tokio::test]
async fn exits_at_start_when_told_to() {
    let (out, code) = exchange(&initialize(), 1, &[("TEST_SERVER_EXIT_AT_START", "1")]).await;
    assert!(out.is_empty());
    assert_eq!(code, Some(2));
}

#[tokio::test]
async fn crash_exits_without_answering() {
    let mut messages = initialize().to_vec();
    messages.push(call(1, "crash", json!({}), None));
    let (out, code) = exchange(&messages, 2, &[]).await;
    assert_eq!(out.len(), 1, "only the initialize answer: {out:?}");
    assert_eq!(code, Some(3));
}
