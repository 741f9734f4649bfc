//! The OpenAI-compatible agent example's loop against a scripted chat-completions server on
//! loopback: streamed deltas (a call's arguments in pieces), a tool turn with a call the
//! permission engine refuses, and the model's last word.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/agent_openai.rs"]
#[allow(dead_code, unreachable_pub)]
mod agent_openai;
#[path = "support/scripted.rs"]
mod scripted;

use serde_json::{Value, json};
use toolgate_pipeline::Session;

/// The `data:` lines of one streamed answer: `text`, then each `(id, name, arguments)` call
/// with its arguments in two pieces, then the finish reason.
fn turn(text: &str, calls: &[(&str, &str, Value)], finish: &str) -> String {
    let mut chunks = vec![json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]})];
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        let arguments = arguments.to_string();
        let (a, b) = arguments.split_at(arguments.len() / 2);
        let first = json!({"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": a}});
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [first]}}]}));
        let rest = json!({"index": index, "function": {"arguments": b}});
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [rest]}}]}));
    }
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}));
    let mut out: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    out.push_str("data: [DONE]\n\n");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_agent_runs_a_tool_turn_and_recovers_from_a_denial() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::create_dir(root.join("build")).unwrap();
    let first = turn(
        "Looking.",
        &[
            ("call_read", "Read", json!({"file_path": root.join("notes.txt")})),
            ("call_rm", "Bash", json!({"command": "rm -rf build"})),
        ],
        "tool_calls",
    );
    let last = turn("The notes say milk; build stays.", &[], "stop");
    let (url, seen) = scripted::scripted_api("/v1", vec![first, last]).await;
    let session = Session::builder().builtin_tools(toolgate_builtin::all_builtin_tools()).cwd(&root).build();
    let agent = agent_openai::Agent {
        http: toolgate_core::http::client_builder().build().unwrap(),
        base_url: url,
        api_key: None,
        model: "local".to_owned(),
        session,
    };
    assert_eq!(agent.run("tidy up").await.unwrap(), "The notes say milk; build stays.");
    assert!(root.join("build").is_dir(), "the denied command did not run");
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    assert!(requests[0]["tools"].as_array().unwrap().iter().any(|t| t["function"]["name"] == "Bash"));
    let messages = requests[1]["messages"].as_array().unwrap();
    // user, the assistant's message with its calls whole again, then one tool message per call.
    assert_eq!(messages[1]["tool_calls"][1]["function"]["arguments"], json!({"command": "rm -rf build"}).to_string());
    assert_eq!((messages[2]["role"].as_str(), messages[2]["tool_call_id"].as_str()), (Some("tool"), Some("call_read")));
    assert!(messages[2]["content"].to_string().contains("remember the milk"), "{}", messages[2]);
    assert_eq!(messages[3]["tool_call_id"], "call_rm");
    assert!(
        messages[3]["content"].to_string().contains("rm -rf build"),
        "the denial names the command: {}",
        messages[3]
    );
}
