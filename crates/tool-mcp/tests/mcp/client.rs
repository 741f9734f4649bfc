//! The client against the workspace test server: tools, results, progress, cancellation,
//! crashes, malformed answers, list changes, start-up failures, resources, shutdown, and
//! the streamable-HTTP transport.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::AsyncBufReadExt as _;
use toolgate_core::process::ProcessSpec;
use toolgate_core::{
    CancellationToken, ContentBlock, DeferMode, PermissionMode, Progress, ProgressSink, ToolContext, ToolErrorKind,
    ToolPool,
};
use toolgate_mcp::{McpManager, McpServerConfig, ServerStatus};
use toolgate_pipeline::{Session, ToolCall};

use crate::support::{call, connect, options, process_exists, test_server, test_server_config, tool};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_named_annotated_and_called() {
    let manager = connect(vec![test_server_config("test")]).await;
    let states = manager.statuses();
    assert_eq!(states[0].status, ServerStatus::Connected, "{states:?}");
    assert_eq!(states[0].server_info.as_deref(), Some("toolgate-mcp-test-server 0.1.0"));
    assert!(states[0].has_resources);

    let echo = tool(&manager, "mcp__test__echo");
    let probe = json!({});
    assert!(echo.is_read_only(&probe) && echo.is_concurrency_safe(&probe));
    assert!(echo.always_load());
    assert_eq!(echo.search_hint(), Some("repeat words back"));
    assert_eq!(echo.user_facing_name(None), "test - Echo text (MCP)");
    let destroy = tool(&manager, "mcp__test__destroy");
    assert!(destroy.is_destructive(&probe) && !destroy.is_read_only(&probe) && !destroy.is_concurrency_safe(&probe));
    let fail = tool(&manager, "mcp__test__fail");
    assert!(!fail.is_read_only(&probe) && !fail.is_concurrency_safe(&probe), "no annotations: fail closed");
    assert!(tool(&manager, "mcp__test__choice").input_schema().get("anyOf").is_none());

    let (out, _) = call(&echo, json!({"text": "hello"})).await;
    assert_eq!(out.unwrap().to_text(), "hello");

    let (out, _) = call(&tool(&manager, "mcp__test__add"), json!({"a": 2, "b": 40})).await;
    let out = out.unwrap();
    assert_eq!(out.to_text(), "42");
    assert_eq!(out.structured, Some(json!({"sum": 42})));

    let (out, _) = call(&fail, json!({"message": "the disk is on fire"})).await;
    let err = out.unwrap_err();
    assert_eq!((err.kind(), err.message()), (ToolErrorKind::Mcp, "the disk is on fire"));

    let (out, _) = call(&tool(&manager, "mcp__test__media"), json!({})).await;
    let out = out.unwrap();
    assert!(matches!(out.content[1], ContentBlock::Image { .. }));
    assert_eq!(out.content[2].as_text(), Some("[audio: audio/wav, 8 bytes base64-encoded; audio cannot be shown]"));
    assert_eq!(out.content[3].as_text(), Some("[resource link: greeting (test://greeting), text/plain]"));
    assert_eq!(out.content[4].as_text(), Some("[resource: test://greeting]\nhello"));
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_notifications_become_progress_events() {
    let manager = connect(vec![test_server_config("test")]).await;
    let (out, seen) = call(&tool(&manager, "mcp__test__progress"), json!({"steps": 3})).await;
    assert_eq!(out.unwrap().to_text(), "done");
    assert_eq!(seen, ["step 1 of 3", "step 2 of 3", "step 3 of 3"]);
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_call_errors_in_time_and_the_server_hears_the_cancellation() {
    // The server's own `timeout` overrides the 20 s default.
    let config = test_server_config("test").with_tool_timeout(Duration::from_millis(300));
    let manager = connect(vec![config]).await;
    let started = Instant::now();
    let (out, _) = call(&tool(&manager, "mcp__test__hang"), json!({})).await;
    let err = out.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout, "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    // The server waits until it has seen the cancellation sent at the timeout.
    let (out, _) = call(&tool(&manager, "mcp__test__cancellations"), json!({"at_least": 1})).await;
    assert_eq!(out.unwrap().to_text(), "1");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_sends_notifications_cancelled() {
    let manager = connect(vec![test_server_config("test")]).await;
    let hang = tool(&manager, "mcp__test__hang");
    let mut ctx = ToolContext::new(std::env::temp_dir());
    ctx.tool_use_id = "t1".into();
    let cancel = CancellationToken::new();
    ctx.cancel = cancel.clone();
    // Cancel as soon as the server says it is hanging: the call is then surely in flight.
    ctx.progress = ProgressSink::new(move |p: Progress| {
        if p.message == "hanging" {
            cancel.cancel();
        }
    });
    let err = hang.call(json!({}), &ctx).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Cancelled);
    let (out, _) = call(&tool(&manager, "mcp__test__cancellations"), json!({"at_least": 1})).await;
    assert_eq!(out.unwrap().to_text(), "1");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_fails_the_call_in_flight_and_the_next_call_reconnects() {
    let manager = connect(vec![test_server_config("test")]).await;
    let pid = tool(&manager, "mcp__test__pid");
    let (first, _) = call(&pid, json!({})).await;
    let first = first.unwrap().to_text();
    let started = Instant::now();
    let (out, _) = call(&tool(&manager, "mcp__test__crash"), json!({})).await;
    let err = out.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Mcp, "{err:?}");
    assert!(err.message().contains("stopped while running crash"), "{}", err.message());
    assert!(started.elapsed() < Duration::from_secs(5), "the crash took {:?} to notice", started.elapsed());
    let first_pid: u32 = first.parse().unwrap();
    let (second, _) = call(&pid, json!({})).await;
    let second = second.unwrap().to_text();
    assert_ne!(first, second, "a new process answers");
    assert_eq!(manager.statuses()[0].status, ServerStatus::Connected);
    assert!(!process_exists(first_pid), "the crashed child was reaped");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_reconnect_backs_off() {
    // The server binary is swapped for one that cannot start, then the server crashes.
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("server");
    std::os::unix::fs::symlink(test_server(), &link).unwrap();
    let config = McpServerConfig::stdio("test", link.to_string_lossy(), Vec::<String>::new());
    let manager = connect(vec![config]).await;
    let echo = tool(&manager, "mcp__test__echo");
    std::fs::remove_file(&link).unwrap();
    let (out, _) = call(&tool(&manager, "mcp__test__crash"), json!({})).await;
    assert!(out.is_err());
    // The next call tries to reconnect, which fails; the one after is refused by the backoff.
    let (out, _) = call(&echo, json!({"text": "x"})).await;
    let err = out.unwrap_err();
    assert!(err.message().contains("could not be reconnected"), "{}", err.message());
    let (out, _) = call(&echo, json!({"text": "x"})).await;
    let err = out.unwrap_err();
    assert!(err.message().contains("next reconnect attempt"), "{}", err.message());
    assert!(matches!(manager.statuses()[0].status, ServerStatus::Failed { .. }));
    assert!(manager.tools().is_empty(), "a failed server offers no tools");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_result_is_an_mcp_error_not_a_hang() {
    let opts = options().tool_timeout(Duration::from_secs(5));
    let manager = McpManager::connect_all(vec![test_server_config("test")], opts).await;
    let started = Instant::now();
    let (out, _) = call(&tool(&manager, "mcp__test__malformed"), json!({})).await;
    let err = out.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Mcp, "{err:?}");
    assert!(err.message().contains("malformed result for malformed: `content` is not a list"), "{}", err.message());
    assert!(started.elapsed() < Duration::from_secs(4), "took {:?}", started.elapsed());
    // The connection still serves other calls.
    let (out, _) = call(&tool(&manager, "mcp__test__echo"), json!({"text": "still here"})).await;
    assert_eq!(out.unwrap().to_text(), "still here");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_changed_refreshes_the_servers_tools() {
    let manager = connect(vec![test_server_config("test")]).await;
    let mut changes = manager.changes();
    let (out, _) = call(&tool(&manager, "mcp__test__add_tool"), json!({"name": "later"})).await;
    assert_eq!(out.unwrap().to_text(), "added");
    let appeared = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if manager.tools().iter().any(|t| t.name() == "mcp__test__later") {
                return;
            }
            changes.changed().await.unwrap();
        }
    })
    .await;
    assert!(appeared.is_ok(), "the new tool never appeared");
    let (out, _) = call(&tool(&manager, "mcp__test__later"), json!({})).await;
    assert_eq!(out.unwrap().to_text(), "later ran");
    // The host rebuilds its pool; the order stays cache-stable (sorted MCP tools).
    let pool = ToolPool::builder().mcps(manager.tools()).build();
    let names: Vec<&str> = pool.names().collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_servers_never_block_the_others() {
    let exits = test_server_config("exits").with_env("TEST_SERVER_EXIT_AT_START", "1");
    let mut disabled = test_server_config("off");
    disabled.disabled = true;
    let configs = vec![
        test_server_config("good"),
        McpServerConfig::stdio("nocmd", "/nonexistent/mcp-server", Vec::<String>::new()),
        exits,
        McpServerConfig::stdio("hangs", "sleep", ["60"]),
        disabled,
        McpServerConfig::sse("legacy", "http://127.0.0.1:9/sse"),
    ];
    let opts = options().startup_timeout(Duration::from_millis(1_500)).batch_size(2);
    let started = Instant::now();
    let manager = McpManager::start(configs, opts);
    let status = |name: &str| manager.statuses().into_iter().find(|s| s.name == name).unwrap().status;
    assert_eq!(status("hangs"), ServerStatus::Pending, "it cannot have settled within its 1.5 s timeout yet");
    manager.ready().await;
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(status("good"), ServerStatus::Connected);
    assert_eq!(status("off"), ServerStatus::Disabled);
    let reason = |name: &str| match status(name) {
        ServerStatus::Failed { reason } => reason,
        other => panic!("{name}: {other:?}"),
    };
    assert!(reason("nocmd").contains("could not start `/nonexistent/mcp-server`"), "{}", reason("nocmd"));
    assert!(reason("exits").contains("exiting at start, as asked"), "{}", reason("exits"));
    assert!(reason("hangs").contains("did not finish starting within 1500 ms"), "{}", reason("hangs"));
    assert!(reason("legacy").starts_with("GET http://127.0.0.1:9/sse failed"), "{}", reason("legacy"));
    assert!(manager.tools().iter().all(|t| t.name().starts_with("mcp__good__")));
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_reaps_every_child() {
    let manager = connect(vec![test_server_config("a"), test_server_config("b")]).await;
    let pids = manager.child_pids().await;
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|(_, pid)| process_exists(*pid)));
    manager.shutdown().await;
    for (name, pid) in pids {
        assert!(!process_exists(pid), "{name} ({pid}) still exists after shutdown");
    }
    assert!(manager.tools().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_tools_list_and_read_through_the_pipeline() {
    let manager = connect(vec![test_server_config("test")]).await;
    let pool = ToolPool::builder().mcps(manager.tools()).builtins(manager.resource_tools()).build();
    assert!(pool.get("ListMcpResourcesTool").is_some() && pool.get("ReadMcpResourceTool").is_some());
    let session =
        Session::builder().cwd(std::env::temp_dir()).pool(pool).mode(PermissionMode::BypassPermissions).build();
    let results = session
        .run_message(vec![
            ToolCall::new("t1", "ListMcpResourcesTool", json!({})),
            ToolCall::new("t2", "ReadMcpResourceTool", json!({"server": "test", "uri": "test://greeting"})),
            ToolCall::new("t3", "ReadMcpResourceTool", json!({"server": "test", "uri": "test://blob"})),
            ToolCall::new("t4", "ReadMcpResourceTool", json!({"server": "nope", "uri": "x"})),
        ])
        .await;
    let text = |i: usize| results[i].content[0].as_text().unwrap().to_owned();
    let listed: serde_json::Value = serde_json::from_str(&text(0)).unwrap();
    assert_eq!(listed[0]["uri"], "test://greeting");
    assert_eq!(listed[0]["server"], "test");
    assert_eq!(text(1), "[resource: test://greeting]\nhello");
    assert!(text(2).contains("binary, 4 bytes"), "{}", text(2));
    assert!(results[3].is_error && text(3).contains("the MCP server nope is not configured"), "{}", text(3));

    let none = McpManager::connect_all(Vec::<McpServerConfig>::new(), options()).await;
    assert!(none.resource_tools().iter().all(|t| !t.is_enabled()));
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_through_the_pipeline_are_deferred_persisted_and_validated() {
    let manager = connect(vec![test_server_config("test")]).await;
    let pool = ToolPool::builder()
        .builtin(toolgate_core::ToolSearchTool::shared())
        .mcps(manager.tools())
        .defer_mode(DeferMode::Always)
        .build();
    assert!(pool.is_deferred("mcp__test__add"));
    assert!(!pool.is_deferred("mcp__test__echo"), "alwaysLoad keeps it loaded");
    let results_dir = tempfile::tempdir().unwrap();
    let session = Session::builder()
        .cwd(std::env::temp_dir())
        .pool(pool)
        .results_dir(results_dir.path())
        .mode(PermissionMode::BypassPermissions)
        .build();
    let results = session
        .run_message(vec![
            ToolCall::new("big1", "mcp__test__big", json!({"chars": 600_000})),
            ToolCall::new("c1", "mcp__test__choice", json!({"nothing": true})),
            ToolCall::new("c2", "mcp__test__choice", json!({"id": 7})),
            ToolCall::new("big2", "mcp__test__big", json!({"chars": 120_000})),
        ])
        .await;
    let text = |i: usize| results[i].content[0].as_text().unwrap().to_owned();
    // The server raised its threshold (anthropic/maxResultSizeChars, capped at 500,000):
    // 600,000 chars are persisted, 120,000 stay inline although over the usual 50,000.
    assert!(text(0).starts_with("<persisted-output>"), "{}", &text(0)[..100.min(text(0).len())]);
    assert_eq!(text(3).chars().count(), 120_000);
    assert!(results[1].is_error && text(1).contains("failed the server's input schema"), "{}", text(1));
    assert_eq!(text(2), r#"chose {"id":7}"#);
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_calls_and_progress() {
    let dir = std::env::temp_dir();
    let mut child = ProcessSpec::exec(test_server(), ["--http", "127.0.0.1:0"]).cwd(&dir).spawn().unwrap();
    let stdout = child.take_stdout().unwrap();
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(10), tokio::io::BufReader::new(stdout).read_line(&mut line))
        .await
        .expect("the server printed its address")
        .unwrap();
    let url = line.trim().strip_prefix("listening on ").expect("an address line").to_owned();
    let manager = connect(vec![McpServerConfig::http("web", url.clone()).with_env("X-Test", "1")]).await;
    assert_eq!(manager.statuses()[0].status, ServerStatus::Connected, "{:?}", manager.statuses());
    assert_eq!(manager.statuses()[0].transport, "http");
    let (out, _) = call(&tool(&manager, "mcp__web__echo"), json!({"text": "over http"})).await;
    assert_eq!(out.unwrap().to_text(), "over http");
    let (out, seen) = call(&tool(&manager, "mcp__web__progress"), json!({"steps": 2})).await;
    assert_eq!(out.unwrap().to_text(), "done");
    assert_eq!(seen, ["step 1 of 2", "step 2 of 2"]);
    manager.shutdown().await;
    let _ = child.terminate().await;
}

/// Regression: `notifications/tools/list_changed` from a server was not applied: a tool it
/// added was "No such tool available" in the same session. With the manager applying its
/// changes to the session, the new tool is called through the session's pipeline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_a_server_adds_is_callable_in_the_same_session() {
    let manager = connect(vec![test_server_config("test")]).await;
    let session = Session::builder()
        .cwd(std::env::temp_dir())
        .mcp_tools(manager.tools())
        .mode(PermissionMode::BypassPermissions)
        .build();
    let updates = manager.apply_changes_to(session.clone());
    let r = session.run_message(vec![ToolCall::new("1", "mcp__test__later", json!({}))]).await;
    assert!(r[0].is_error, "the tool does not exist yet");
    let r = session.run_message(vec![ToolCall::new("2", "mcp__test__add_tool", json!({"name": "later"}))]).await;
    assert!(!r[0].is_error, "{:?}", r[0].content);
    // The change arrives as a notification, then a refresh: nothing to wait on but the pool.
    let mut appeared = false;
    for _ in 0..500 {
        if session.pool().get("mcp__test__later").is_some() {
            appeared = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(appeared, "the new tool never reached the session's pool");
    let r = session.run_message(vec![ToolCall::new("3", "mcp__test__later", json!({}))]).await;
    assert!(!r[0].is_error, "{:?}", r[0].content);
    assert_eq!(r[0].content[0].as_text(), Some("later ran"));
    // The built-in tools and the order are kept.
    let names: Vec<String> = session.pool().names().map(str::to_owned).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    updates.abort();
    manager.shutdown().await;
}
