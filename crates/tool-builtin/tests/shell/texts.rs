//! Snapshots of what the model reads.

use serde_json::json;

use crate::support::Session;

#[tokio::test]
async fn failure_texts() {
    let s = Session::new();
    let err = s.call("Bash", json!({"command": "echo out; echo err >&2; exit 3"})).await.unwrap_err();
    insta::assert_snapshot!("exit_code", err.to_model_text());
    let err = s.call("Bash", json!({"command": "echo partial; sleep 100", "timeout": 3000})).await.unwrap_err();
    insta::assert_snapshot!("timeout", err.to_model_text());
    let err = s.call("TaskStop", json!({"task_id": "bash_1", "shell_id": "bash_1"})).await.unwrap_err();
    insta::assert_snapshot!("task_stop_both_ids", err.to_model_text());
    let err = s.call("Bash", json!({"command": "true", "timeout": -1})).await.unwrap_err();
    insta::assert_snapshot!("bad_timeout", err.to_model_text());
}

#[tokio::test]
async fn truncated_output() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "seq 1 100000"})).await.unwrap();
    let text = out.to_text().replace(s.session.to_str().unwrap(), "<session>");
    let marker = text.lines().find(|l| l.starts_with("... [")).unwrap();
    insta::assert_snapshot!("truncation_marker", marker);
}

#[tokio::test]
async fn task_output_of_a_finished_task() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "echo done", "run_in_background": true})).await.unwrap();
    insta::assert_snapshot!("background_started", out.to_text().replace(s.session.to_str().unwrap(), "<session>"));
    let out = s.call("TaskOutput", json!({"task_id": "bash_1"})).await.unwrap();
    insta::assert_snapshot!("task_output_finished", out.to_text());
}
