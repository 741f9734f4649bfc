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

/// A server's questions to toolgate as its client: `roots/list` gets the session's working
/// roots, and `elicitation/create` goes to the host's elicitor; without one, elicitation is
/// not declared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_gets_the_roots_and_its_questions_are_answered_or_declined() {
    use std::sync::{Arc, Mutex};

    use toolgate_core::BoxFuture;
    use toolgate_mcp::{Elicited, Elicitor, McpManager};

    /// Accepts every question with a name, recording what it was asked.
    #[derive(Debug, Default)]
    struct Person(Mutex<Vec<(String, String)>>);
    impl Elicitor for Person {
        fn elicit<'a>(
            &'a self,
            server: &'a str,
            message: &'a str,
            schema: &'a serde_json::Value,
        ) -> BoxFuture<'a, Elicited> {
            assert!(schema["properties"]["name"].is_object(), "{schema}");
            self.0.lock().unwrap().push((server.to_owned(), message.to_owned()));
            Box::pin(async { Elicited::Accept(json!({"name": "Ada"})) })
        }
    }

    let Some((node, script)) = npm_server("server-everything") else { return };
    let config = McpServerConfig::stdio(
        "everything",
        node.to_string_lossy(),
        [script.to_string_lossy().into_owned(), "stdio".into()],
    );
    let root = tempfile::tempdir().unwrap();
    let person = Arc::new(Person::default());
    let options = crate::support::options().roots(vec![root.path().to_owned()]).elicitor(person.clone());
    let manager = McpManager::connect_all(vec![config.clone()], options).await;
    let (roots, _) = call(&tool(&manager, "mcp__everything__get-roots-list"), json!({})).await;
    let roots = roots.unwrap().to_text();
    assert!(roots.contains(&format!("file://{}", root.path().display())), "{roots}");
    let (asked, _) = call(&tool(&manager, "mcp__everything__trigger-elicitation-request"), json!({})).await;
    let asked = asked.unwrap().to_text();
    assert!(asked.contains("- Name: Ada"), "{asked}");
    assert_eq!(person.0.lock().unwrap()[0].0, "everything");
    manager.shutdown().await;

    // Nobody to ask: toolgate does not declare elicitation, so the server offers no tool
    // that asks (a question sent anyway would be declined at once).
    let manager = connect(vec![config]).await;
    let names: Vec<String> = manager.tools().iter().map(|t| t.name().to_owned()).collect();
    assert!(names.iter().any(|n| n == "mcp__everything__get-roots-list"), "{names:?}");
    assert!(!names.iter().any(|n| n == "mcp__everything__trigger-elicitation-request"), "{names:?}");
    manager.shutdown().await;
}
