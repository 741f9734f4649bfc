//! Background shells: Bash with run_in_background, TaskOutput and TaskStop.

use serde_json::{Value, json};
use toolgate_core::ToolErrorKind;

use crate::support::{Session, pids, tool, wait_dead, wait_for_line};

/// Starts `command` in the background and returns its task id.
async fn start(s: &Session, command: &str) -> String {
    let out = s.call("Bash", json!({"command": command, "run_in_background": true})).await.unwrap();
    let structured = out.structured.clone().unwrap();
    let id = structured["backgroundTaskId"].as_str().unwrap().to_owned();
    assert!(
        out.to_text()
            .starts_with(&format!("Command running in background with ID: {id}. Output is being written to: ")),
        "{}",
        out.to_text()
    );
    id
}

/// The `<output>` of a TaskOutput text.
fn output_of(text: &str) -> &str {
    let start = text.find("<output>").unwrap() + "<output>".len();
    let end = text.rfind("</output>").unwrap();
    text[start..end].trim_matches('\n')
}

async fn task_output(s: &Session, input: Value) -> (String, Value) {
    let out = s.call("TaskOutput", input).await.unwrap();
    (out.to_text(), out.structured.unwrap())
}

#[tokio::test]
async fn output_is_read_incrementally_and_block_waits_for_the_end() {
    let s = Session::new();
    let go = s.root.join("go");
    let command = format!("echo one; while [ ! -e '{}' ]; do sleep 0.02; done; echo two; exit 3", go.display());
    let id = start(&s, &command).await;
    assert_eq!(id, "bash_1");
    let file = s.session.join("tasks").join("bash_1.output");
    assert_eq!(wait_for_line(&file).await, "one\n");

    let (text, structured) = task_output(&s, json!({"task_id": id, "block": false})).await;
    assert!(text.starts_with("<retrieval_status>not_ready</retrieval_status>"), "{text}");
    assert!(text.contains("<status>running</status>"), "{text}");
    assert_eq!(output_of(&text), "one");
    assert_eq!(structured["task"]["status"], "running");

    // Nothing new since the last read.
    let (text, _) = task_output(&s, json!({"task_id": id, "block": false})).await;
    assert!(text.contains("<output>(no new output)</output>"), "{text}");

    // Blocking with a short wait while the task cannot finish: a timeout, not an error.
    let (text, _) = task_output(&s, json!({"task_id": id, "timeout": 1})).await;
    assert!(text.starts_with("<retrieval_status>timeout</retrieval_status>"), "{text}");

    std::fs::write(&go, "").unwrap();
    let (text, structured) = task_output(&s, json!({"task_id": id})).await;
    assert!(text.starts_with("<retrieval_status>success</retrieval_status>"), "{text}");
    assert!(text.contains("<status>failed</status>\n\n<exit_code>3</exit_code>"), "{text}");
    assert_eq!(output_of(&text), "two");
    assert_eq!(structured["task"]["exitCode"], 3);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\n");
}

#[tokio::test]
async fn legacy_names_reach_the_same_tools() {
    assert!(tool("TaskOutput").aliases().contains(&"BashOutput"));
    assert!(tool("TaskOutput").aliases().contains(&"AgentOutputTool"));
    assert!(tool("TaskStop").aliases().contains(&"KillShell"));
    assert!(tool("TaskOutput").is_read_only(&json!({"task_id": "x"})));
    assert!(tool("TaskOutput").is_concurrency_safe(&json!({"task_id": "x"})));
}

#[tokio::test]
async fn task_stop_kills_the_group() {
    let s = Session::new();
    let id = start(&s, "echo $$; sleep 100 & echo $!; wait").await;
    let file = s.session.join("tasks").join(format!("{id}.output"));
    let mut text = String::new();
    for _ in 0..2_000 {
        text = std::fs::read_to_string(&file).unwrap();
        if text.lines().count() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let found = pids(&text);
    assert_eq!(found.len(), 2, "{text}");

    let out = s.call("TaskStop", json!({"task_id": id})).await.unwrap();
    assert_eq!(out.to_text(), format!("Successfully stopped task {id} (echo $$; sleep 100 & echo $!; wait)"));
    for pid in found {
        assert!(wait_dead(pid).await, "pid {pid} survived TaskStop");
    }
    let (text, structured) = task_output(&s, json!({"task_id": id})).await;
    assert!(text.contains("<status>killed</status>"), "{text}");
    assert_eq!(structured["task"]["status"], "killed");

    // Stopping it again is harmless, under the old field name too.
    let out = s.call("TaskStop", json!({"shell_id": id})).await.unwrap();
    assert_eq!(out.to_text(), format!("Task {id} is not running (killed); nothing to stop."));
}

#[tokio::test]
async fn unknown_ids_list_the_known_ones() {
    let s = Session::new();
    let err = s.call("TaskOutput", json!({"task_id": "bash_9"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    assert_eq!(err.message(), "no background task has the id `bash_9`; there are no background tasks in this session");
    let id = start(&s, "true").await;
    let (text, _) = task_output(&s, json!({"task_id": id})).await;
    assert!(text.contains("<status>completed</status>"), "{text}");
    let err = s.call("TaskStop", json!({"task_id": "nope"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);
    assert_eq!(err.message(), format!("no background task has the id `nope`; known task ids: {id} (completed)"));
}

#[tokio::test]
async fn task_stop_takes_exactly_one_id() {
    let s = Session::new();
    let err = s.call("TaskStop", json!({})).await.unwrap_err();
    assert_eq!((err.kind(), err.message()), (ToolErrorKind::InvalidInput, "task_id is required"));
    let err = s.call("TaskStop", json!({"task_id": "a", "shell_id": "a"})).await.unwrap_err();
    assert_eq!((err.kind(), err.message()), (ToolErrorKind::InvalidInput, "give task_id or shell_id, not both"));
}

#[tokio::test]
async fn invalid_waits_are_refused() {
    let s = Session::new();
    let err = s.call("TaskOutput", json!({"task_id": "bash_1", "timeout": -1})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
}

#[tokio::test]
async fn background_tasks_die_with_their_session() {
    let pid_text;
    {
        let s = Session::new();
        let pid_file = s.root.join("pid");
        start(&s, &format!("sleep 100 & echo $! > '{}'; wait", pid_file.display())).await;
        pid_text = wait_for_line(&pid_file).await;
        // The session (its AppState) ends here.
    }
    let pid = pids(&pid_text)[0];
    assert!(wait_dead(pid).await, "sleep {pid} outlived its session");
}
