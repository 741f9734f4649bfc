//! Fault injection: a server that writes junk between its answers, one whose answer is a
//! line too long to hold, and one that crashes or hangs with a call in flight, all seen
//! through a pipeline session as a model sees them. (Crashes and hangs on a bare tool are
//! in `client.rs`: `a_crash_fails_the_call_in_flight_and_the_next_call_reconnects`,
//! `a_timed_out_call_errors_in_time_and_the_server_hears_the_cancellation`.)

use std::time::Duration;

use serde_json::json;
use toolgate_core::{PermissionMode, ToolErrorKind, ToolPool};
use toolgate_mcp::McpManager;
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock};

use crate::support::{call, options, test_server_config, tool};

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

fn session(manager: &McpManager) -> Session {
    let pool = ToolPool::builder().mcps(manager.tools()).build();
    Session::builder().cwd(std::env::temp_dir()).pool(pool).mode(PermissionMode::BypassPermissions).build()
}

/// Lines that are not JSON, responses to ids nobody asked for, JSON-RPC 1.0 objects and
/// bare arrays are skipped; the real answer after them still arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_rpc_lines_are_skipped_and_the_connection_survives() {
    let manager = McpManager::connect_all(vec![test_server_config("test")], options()).await;
    let (out, _) = call(&tool(&manager, "mcp__test__garbage"), json!({})).await;
    assert_eq!(out.unwrap().to_text(), "survived garbage");
    let (out, _) = call(&tool(&manager, "mcp__test__echo"), json!({"text": "after garbage"})).await;
    assert_eq!(out.unwrap().to_text(), "after garbage");
    manager.shutdown().await;
}

/// A 17 MiB answer line is dropped unread (rmcp holds at most 16 MiB of one line), so the
/// call ends at its timeout instead of exhausting memory, and the server stays usable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gigantic_answer_line_is_dropped_and_the_call_times_out() {
    let config = test_server_config("test").with_tool_timeout(Duration::from_secs(3));
    let manager = McpManager::connect_all(vec![config], options()).await;
    let (out, _) = call(&tool(&manager, "mcp__test__oversized"), json!({})).await;
    let err = out.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout, "{err:?}");
    let (out, _) = call(&tool(&manager, "mcp__test__echo"), json!({"text": "still here"})).await;
    assert_eq!(out.unwrap().to_text(), "still here");
    manager.shutdown().await;
}

/// Through the pipeline, each fault is one `is_error` result and the calls beside it in the
/// same message are unharmed: a crash mid-call, a malformed result, a hang past the
/// server's timeout, and a gigantic (but readable) result, which is persisted to disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_server_fault_is_one_error_result_in_a_message() {
    let config = test_server_config("test").with_tool_timeout(Duration::from_secs(2));
    let manager = McpManager::connect_all(vec![config], options()).await;
    let results_dir = tempfile::tempdir().unwrap();
    let pool = ToolPool::builder().mcps(manager.tools()).build();
    let session = Session::builder()
        .cwd(std::env::temp_dir())
        .pool(pool)
        .results_dir(results_dir.path())
        .mode(PermissionMode::BypassPermissions)
        .build();
    let results = session
        .run_message(vec![
            ToolCall::new("1", "mcp__test__echo", json!({"text": "before"})),
            ToolCall::new("2", "mcp__test__crash", json!({})),
            ToolCall::new("3", "mcp__test__malformed", json!({})),
            ToolCall::new("4", "mcp__test__hang", json!({})),
            ToolCall::new("5", "mcp__test__big", json!({"chars": 5_000_000})),
            ToolCall::new("6", "mcp__test__echo", json!({"text": "after"})),
        ])
        .await;
    assert_eq!(results.len(), 6);
    let ids: Vec<&str> = results.iter().map(|r| r.tool_use_id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6"]);
    assert_eq!(text(&results[0]), "before");
    assert!(results[1].is_error && text(&results[1]).contains("crash"), "{}", text(&results[1]));
    assert!(results[2].is_error && text(&results[2]).contains("not a list"), "{}", text(&results[2]));
    assert!(results[3].is_error, "{}", text(&results[3]));
    assert!(!results[4].is_error);
    let big = text(&results[4]);
    assert!(big.starts_with("<persisted-output>") && big.len() < 10_000, "{}", &big[..200.min(big.len())]);
    assert_eq!(text(&results[5]), "after");
    drop(session);
    manager.shutdown().await;
}

/// A server that crashed mid-call is started again for the next message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashed_is_reconnected_for_the_next_message() {
    let manager = McpManager::connect_all(vec![test_server_config("test")], options()).await;
    let session = session(&manager);
    let r = session.run_message(vec![ToolCall::new("1", "mcp__test__crash", json!({}))]).await;
    assert!(r[0].is_error);
    let r = session.run_message(vec![ToolCall::new("2", "mcp__test__echo", json!({"text": "back"}))]).await;
    assert_eq!(text(&r[0]), "back", "{}", text(&r[0]));
    manager.shutdown().await;
}

/// A request body over [`toolgate_mcp::MAX_REQUEST_BODY_BYTES`] is refused with 413
/// before it is buffered, and the server keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_request_body_is_refused() {
    let session = Session::builder().cwd(std::env::temp_dir()).build();
    let addr = "127.0.0.1:0".parse().unwrap();
    let server = toolgate_mcp::serve_http(session, addr, None, toolgate_mcp::ServeOptions::new()).await.unwrap();
    let client = toolgate_core::http::client_builder().build().unwrap();
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"padding":"{}"}}}}"#,
        "x".repeat(toolgate_mcp::MAX_REQUEST_BODY_BYTES + 1)
    );
    let response = client
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::PAYLOAD_TOO_LARGE);
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
    }});
    let response = client
        .post(server.url())
        .header("accept", "application/json, text/event-stream")
        .json(&init)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    server.shutdown().await;
}
