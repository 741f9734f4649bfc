//! The agent example's loop against a scripted Messages API on loopback: streamed answers
//! (server-sent events, a tool input split across deltas), two tool turns, a call the
//! permission engine refuses that the model then works around, and a PostToolBatch hook that
//! runs once per assistant message.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/agent.rs"]
#[allow(dead_code, unreachable_pub)]
mod agent;
#[path = "support/scripted.rs"]
mod scripted;

use serde_json::{Value, json};
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::Session;

/// The server-sent events of one assistant turn: `blocks` (text, or tool_use with its input),
/// then the stop reason. Each tool input is sent in two pieces.
fn turn(blocks: &[Value], stop_reason: &str) -> String {
    let mut events = vec![json!({"type": "message_start", "message": {"role": "assistant", "content": []}})];
    for (index, block) in blocks.iter().enumerate() {
        if let Some(text) = block["text"].as_str() {
            events.push(
                json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
            );
            events.push(
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
            );
        } else {
            let start = json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}});
            events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
            let input = block["input"].to_string();
            let (a, b) = input.split_at(input.len() / 2);
            for piece in [a, b] {
                let delta = json!({"type": "input_json_delta", "partial_json": piece});
                events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
            }
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop_reason}}));
    events.push(json!({"type": "message_stop"}));
    events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect()
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"id": id, "name": name, "input": input})
}

/// The `tool_result` blocks of the last user message of a request.
fn results(request: &Value) -> Vec<Value> {
    let messages = request["messages"].as_array().unwrap();
    messages.last().unwrap()["content"].as_array().unwrap().clone()
}

/// Two tool turns; PostToolBatch runs once per assistant message with all of its calls (it ran
/// once per early-started call, and once for the rest).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_runs_two_tool_turns_and_recovers_from_a_denial() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::create_dir(root.join("build")).unwrap();
    // Each PostToolBatch run appends its input as one line.
    let log = r#"cat >> "$CLAUDE_PROJECT_DIR/batches.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/batches.jsonl""#;
    let settings = json!({"hooks": {"PostToolBatch": [{"hooks": [{"type": "command", "command": log}]}]}});
    std::fs::create_dir(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
    let first = turn(
        &[
            json!({"text": "Let me look."}),
            tool_use("toolu_read", "Read", json!({"file_path": root.join("notes.txt")})),
            tool_use("toolu_rm", "Bash", json!({"command": "rm -rf build", "description": "clean"})),
            tool_use("toolu_glob", "Glob", json!({"pattern": "*.txt"})),
        ],
        "tool_use",
    );
    let second = turn(&[tool_use("toolu_ls", "Bash", json!({"command": "ls", "description": "list"}))], "tool_use");
    let last = turn(&[json!({"text": "The notes say to remember the milk; build stays."})], "end_turn");
    let (url, seen) = scripted::scripted_api("", vec![first, second, last]).await;
    let loaded = SettingsDiscovery::new(&root).with_home(None).with_managed_dir(None).with_trust(true).load();
    let session =
        Session::builder().builtin_tools(toolgate_builtin::all_builtin_tools()).cwd(&root).settings(loaded).build();
    assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
    let agent = agent::Agent {
        http: toolgate_core::http::client_builder().build().unwrap(),
        base_url: url,
        api_key: "sk-test".to_owned(),
        model: "test-model".to_owned(),
        session,
    };
    let answer = agent.run("tidy up").await.unwrap();
    assert_eq!(answer, "The notes say to remember the milk; build stays.");
    assert!(root.join("build").is_dir(), "the denied command did not run");

    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    let tools = requests[0]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "Bash"));
    assert!(tools.iter().any(|t| t["defer_loading"] == true), "deferred tools are marked for tool search");
    // The first turn's results come back in the calls' order, the denial as an error.
    let first: Vec<Value> = results(&requests[1]);
    let ids: Vec<&str> = first.iter().map(|r| r["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["toolu_read", "toolu_rm", "toolu_glob"]);
    assert!(first[0].to_string().contains("remember the milk"), "{}", first[0]);
    assert_eq!(first[1]["is_error"], true);
    assert!(first[1].to_string().contains("rm -rf build"), "the denial names the command: {}", first[1]);
    assert!(first[2].to_string().contains("notes.txt"), "{}", first[2]);
    // The assistant turn went back as streamed, the split tool input whole again.
    let assistant = &requests[1]["messages"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"][2]["input"], json!({"command": "rm -rf build", "description": "clean"}));
    let second = results(&requests[2]);
    assert_eq!(second[0]["tool_use_id"], "toolu_ls");
    assert_ne!(second[0]["is_error"], true, "{}", second[0]);
    assert!(second[0].to_string().contains("notes.txt"));

    // PostToolBatch ran once per assistant message with calls, the first seeing all three.
    let batches = std::fs::read_to_string(root.join("batches.jsonl")).unwrap();
    let batches: Vec<Value> = batches.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids = |batch: &Value| -> Vec<String> {
        let calls = batch["tool_calls"].as_array().unwrap();
        calls.iter().map(|c| c["tool_use_id"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(
        batches.iter().map(ids).collect::<Vec<_>>(),
        [vec!["toolu_read", "toolu_rm", "toolu_glob"], vec!["toolu_ls"]]
    );
}
