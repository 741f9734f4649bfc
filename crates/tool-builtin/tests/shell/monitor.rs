//! Monitor: output lines as progress events.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolgate_core::{Progress, ProgressSink, ToolErrorKind};

use crate::support::Session;

fn collect(s: &mut Session) -> Arc<Mutex<Vec<Progress>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    s.ctx.progress = ProgressSink::new(move |p| sink.lock().unwrap().push(p));
    seen
}

#[tokio::test]
async fn every_line_is_a_progress_event() {
    let mut s = Session::new();
    let seen = collect(&mut s);
    let out = s.call("Monitor", json!({"command": "echo one; echo two >&2; printf three"})).await.unwrap();
    let messages: Vec<String> = seen.lock().unwrap().iter().map(|p| p.message.clone()).collect();
    assert_eq!(messages, ["one", "two", "three"]);
    let progress = seen.lock().unwrap();
    assert_eq!(progress[1].tool_use_id, "toolu_test");
    assert_eq!(progress[2].data.as_ref().unwrap()["line"], 3);
    let text = out.to_text();
    assert!(text.starts_with("Monitor: the command exited with code 0 after "), "{text}");
    assert!(text.ends_with(", having printed 3 lines.\n\none\ntwo\nthree"), "{text}");
}

#[tokio::test]
async fn the_timeout_ends_the_watch_normally() {
    let mut s = Session::new();
    let seen = collect(&mut s);
    let out = s.call("Monitor", json!({"command": "echo started; sleep 100", "timeout_ms": 3000})).await.unwrap();
    assert!(out.to_text().contains("was stopped when the 3s timeout ended the watch"), "{}", out.to_text());
    assert_eq!(seen.lock().unwrap()[0].message, "started");
}

#[tokio::test]
async fn a_failing_command_is_an_error() {
    let s = Session::new();
    let err = s.call("Monitor", json!({"command": "echo bad; exit 2"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Io);
    assert!(err.message().contains("exited with code 2"), "{}", err.message());
    let err = s.call("Monitor", json!({"command": "true", "timeout_ms": 0})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
}

#[test]
fn monitor_follows_bash_rules() {
    let monitor = crate::support::tool("Monitor");
    let input = json!({"command": "tail -f app.log"});
    assert_eq!(monitor.permission_target(&input).as_deref(), Some("tail -f app.log"));
    assert!(!monitor.is_read_only(&input));
    assert!(!monitor.is_concurrency_safe(&input));
}

#[tokio::test]
async fn a_foreground_bash_call_reports_its_last_output_line() {
    let mut s = Session::new();
    let seen = collect(&mut s);
    let out = s.call("Bash", json!({"command": "echo first line; echo second line"})).await.unwrap();
    assert_eq!(out.to_text(), "first line\nsecond line");
    let messages: Vec<String> = seen.lock().unwrap().iter().map(|p| p.message.clone()).collect();
    assert!(!messages.is_empty() && messages.iter().all(|m| m.ends_with("line")), "{messages:?}");
}
