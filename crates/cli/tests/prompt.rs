//! The interactive prompt in a real pseudo-terminal: util-linux `script` gives the binary a
//! pty for stdin, stdout and stderr, and the test types the answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;

/// Runs `toolgate ARGS` in a pty with `keys` typed; returns (exit code, screen text).
async fn in_pty(dir: &Path, args: &str, keys: &str) -> Option<(Option<i32>, String)> {
    if !Path::new("/usr/bin/script").exists() {
        eprintln!("skipped: util-linux `script` is not installed");
        return None;
    }
    let bin = env!("CARGO_BIN_EXE_toolgate");
    let command = format!("{bin} {args}");
    let outcome = ProcessSpec::exec("/usr/bin/script", ["-qefc", command.as_str(), "/dev/null"])
        .cwd(dir)
        .env("HOME", dir)
        .env("TERM", "xterm")
        .env_remove("TOOLGATE_NO_PROMPT")
        .stdin(keys.as_bytes().to_vec())
        .timeout(Duration::from_secs(60))
        .run(&CancellationToken::new())
        .await
        .unwrap();
    Some((outcome.status.code(), outcome.stdout.text().into_owned()))
}

#[tokio::test]
async fn once_always_and_no() {
    let dir = tempfile::tempdir().unwrap();
    let call = r#"--ask ToolSearch call ToolSearch '{"query": "select:ToolSearch"}'"#;

    let Some((code, screen)) = in_pty(dir.path(), call, "y").await else { return };
    assert!(screen.contains("toolgate wants to run"), "{screen}");
    assert!(screen.contains("[tool loaded: ToolSearch]"), "{screen}");
    assert_eq!(code, Some(0), "{screen}");

    let Some((code, screen)) = in_pty(dir.path(), call, "n").await else { return };
    assert_eq!(code, Some(1), "{screen}");
    assert!(screen.contains("the user denied this call"), "{screen}");

    let Some((code, screen)) = in_pty(dir.path(), call, "a").await else { return };
    assert_eq!(code, Some(0), "{screen}");
    let saved = std::fs::read_to_string(dir.path().join(".claude/settings.local.json")).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["permissions"]["allow"], serde_json::json!(["ToolSearch"]));
}

#[tokio::test]
async fn the_terminal_dialog_answers_questions_and_approves_plans() {
    let dir = tempfile::tempdir().unwrap();
    let questions = r#"{"questions": [
        {"question": "Which database?", "header": "Database", "options": [
            {"label": "PostgreSQL", "description": "relational"}, {"label": "SQLite", "description": "embedded"}]},
        {"question": "Which features?", "header": "Features", "multiSelect": true, "options": [
            {"label": "Auth", "description": "log in"}, {"label": "Search", "description": "full text"}]}]}"#;
    let call = format!("--session-dir state call AskUserQuestion '{questions}'");
    // y: the person agrees to answer; then 2 (SQLite), then 1 and 3 (Auth and Other, typed).
    let Some((code, screen)) = in_pty(dir.path(), &call, "y2\n1,3\nBilling\n").await else { return };
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("[Database]") && screen.contains("Type an answer of your own"), "{screen}");
    assert!(screen.contains("\"Which database?\" → SQLite"), "{screen}");
    assert!(screen.contains("\"Which features?\" → Auth, Billing"), "{screen}");

    let plan = r#"--mode plan --session-dir state call ExitPlanMode '{"plan": "1. Add the column"}'"#;
    let Some((code, screen)) = in_pty(dir.path(), plan, "nAlso backfill\n").await else { return };
    assert_eq!(code, Some(1), "{screen}");
    assert!(screen.contains("did not approve") && screen.contains("Also backfill"), "{screen}");
    let Some((code, screen)) = in_pty(dir.path(), plan, "a").await else { return };
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("acceptEdits mode"), "{screen}");
    assert_eq!(std::fs::read_to_string(dir.path().join("state/plan.md")).unwrap(), "1. Add the column\n");
}
