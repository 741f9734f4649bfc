//! `@modelcontextprotocol/server-everything` from npm over stdio, installed by `.ci/run`
//! into `.ci/node/`. Skipped, with a note, where node or the package is missing.

use serde_json::json;
use toolgate_core::{PermissionMode, ToolPool};
use toolgate_mcp::{McpServerConfig, ServerStatus};
use toolgate_pipeline::{Session, ToolCall};

use crate::support::{call, connect, npm_server, tool};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_echo_and_get_sum() {
    let Some((node, script)) = npm_server("server-everything") else { return };
    let config = McpServerConfig::stdio(
        "everything",
        node.to_string_lossy(),
        [script.to_string_lossy().into_owned(), "stdio".into()],
    );
    let manager = connect(vec![config]).await;
    let state = &manager.statuses()[0];
    assert_eq!(state.status, ServerStatus::Connected, "{state:?}");
    assert!(state.server_info.as_deref().is_some_and(|s| s.contains("everything")), "{state:?}");

    let (out, _) = call(&tool(&manager, "mcp__everything__echo"), json!({"message": "hello from toolgate"})).await;
    assert_eq!(out.unwrap().to_text(), "Echo: hello from toolgate");

    // Through the pipeline: the npm server's draft-07 schema validates the input.
    let pool = ToolPool::builder().mcps(manager.tools()).build();
    let session =
        Session::builder().cwd(std::env::temp_dir()).pool(pool).mode(PermissionMode::BypassPermissions).build();
    let results = session
        .run_message(vec![
            ToolCall::new("t1", "mcp__everything__get-sum", json!({"a": 2, "b": 3})),
            ToolCall::new("t2", "mcp__everything__get-sum", json!({"a": "two", "b": 3})),
        ])
        .await;
    assert_eq!(results[0].content[0].as_text(), Some("The sum of 2 and 3 is 5."), "{results:?}");
    assert!(results[1].is_error, "{results:?}");
    manager.shutdown().await;
}
