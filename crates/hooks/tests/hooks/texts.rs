//! Snapshots of the texts the model reads when hooks block, deny or give feedback.

use serde_json::json;

use crate::support::{Project, cancel, cmd, settings};

#[tokio::test]
async fn pre_tool_use_block_text() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PreToolUse",
        "Bash",
        json!([cmd("echo 'Blocked: rm -rf is not allowed in this repository' >&2; exit 2")]),
    ));
    let out = runner.pre_tool_use(&p.bash("rm -rf /"), &cancel()).await;
    insta::assert_snapshot!(out.model_message("Bash").unwrap());
}

#[tokio::test]
async fn pre_tool_use_block_text_from_two_hooks() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PreToolUse",
        "Bash",
        json!([cmd("echo 'no network in CI' >&2; exit 2"), cmd("echo 'curl is banned' >&2; exit 2")]),
    ));
    let out = runner.pre_tool_use(&p.bash("curl example.com"), &cancel()).await;
    insta::assert_snapshot!(out.model_message("Bash").unwrap());
}

#[tokio::test]
async fn pre_tool_use_deny_text() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PreToolUse",
        "Write",
        json!([cmd(
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "generated files are read-only; edit src/schema.ts instead"}}'"#
        )]),
    ));
    let input = p.pre_tool_use("Write", json!({"file_path": "/repo/gen/schema.rs", "content": ""}));
    let out = runner.pre_tool_use(&input, &cancel()).await;
    insta::assert_snapshot!(out.model_message("Write").unwrap());
}

#[tokio::test]
async fn post_tool_use_feedback_text() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PostToolUse",
        "Edit",
        json!([cmd(r#"echo '{"decision": "block", "reason": "cargo fmt changed 2 files; review them"}'"#)]),
    ));
    let input = toolgate_hooks::PostToolUseInput {
        common: p.common(),
        tool_name: "Edit".into(),
        tool_input: json!({"file_path": "/repo/src/lib.rs"}),
        tool_response: json!({"filePath": "/repo/src/lib.rs"}),
        tool_use_id: "toolu_03".into(),
        duration_ms: None,
    };
    let out = runner.post_tool_use(&input, &cancel()).await;
    insta::assert_snapshot!(out.model_message("Edit").unwrap());
}
