//! Integration tests for toolgate-hooks: real hook scripts in temp dirs, run through the
//! [`HookRunner`](toolgate_hooks::HookRunner) as a host would.
//!
//! - `support`: a temp project, scripts, settings and inputs;
//! - `command`: command hooks (exit codes, JSON, timeouts, parallelism, dedupe, caps);
//! - `events`: the other typed events;
//! - `http`: http hooks against a loopback server;
//! - `texts`: snapshots of what the model reads.

// Test helpers outside `#[test]` functions may unwrap too: a panic there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod command;
mod events;
#[cfg(feature = "http")]
mod http;
mod support;
mod texts;

/// Built without the `http` feature (`cargo test -p toolgate-hooks --no-default-features`),
/// an http hook runs nothing and is a non-blocking error that names the missing feature.
#[cfg(not(feature = "http"))]
#[tokio::test]
async fn http_hooks_without_the_feature_say_so() {
    use serde_json::json;
    let p = support::Project::new();
    let hooks = json!([{"type": "http", "url": "http://127.0.0.1:9/hook"}]);
    let runner = p.runner(support::settings("PreToolUse", "Bash", hooks));
    let out = runner.pre_tool_use(&p.bash("ls"), &support::cancel()).await;
    assert!(out.decision.is_none() && out.blocked.is_none());
    assert!(out.errors[0].message.contains("no `http` feature"), "{}", out.errors[0].message);
}
