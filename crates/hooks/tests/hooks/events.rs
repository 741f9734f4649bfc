//! The typed events other than `PreToolUse`, each with real hook scripts.

use serde_json::json;
use toolgate_hooks::{
    AnyOutcome, HookEvent, HookInput, NotificationInput, PermissionRequestBehavior, PermissionRequestInput,
    PermissionUpdate, PostToolUseFailureInput, PostToolUseInput, PreCompactInput, SessionEndInput, SessionStartInput,
    StopInput, UserPromptSubmitInput,
};

use crate::support::{Project, cancel, cmd, settings};

fn post_tool_use(p: &Project) -> PostToolUseInput {
    PostToolUseInput {
        common: p.common(),
        tool_name: "Bash".into(),
        tool_input: json!({"command": "make"}),
        tool_response: json!({"stdout": "secret-token", "stderr": "", "interrupted": false, "isImage": false}),
        tool_use_id: "toolu_07".into(),
        duration_ms: Some(12),
    }
}

#[tokio::test]
async fn post_tool_use_blocks_adds_context_and_replaces_output() {
    let p = Project::new();
    // The first hook finishes last: context still comes in configuration order.
    let first = cmd(
        r#"sleep 0.2; echo '{"decision": "block", "reason": "lint failed", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "first"}}'"#,
    );
    let second = cmd(
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "second", "updatedToolOutput": {"stdout": "[redacted]", "stderr": "", "interrupted": false, "isImage": false}}}'"#,
    );
    let third = cmd("echo 'warning: slow' >&2; exit 2");
    let runner = p.runner(settings("PostToolUse", "Bash", json!([first, second, third])));
    let out = runner.post_tool_use(&post_tool_use(&p), &cancel()).await;
    assert_eq!(out.blocked.as_ref().unwrap().reason, "lint failed\nwarning: slow");
    assert_eq!(out.context_text().as_deref(), Some("first\n\nsecond"));
    let (output, hook) = out.updated_tool_output.unwrap();
    assert_eq!(output["stdout"], "[redacted]");
    assert!(hook.name.contains("updatedToolOutput"));
}

#[tokio::test]
async fn post_tool_use_failure_gets_the_error_and_adds_context() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PostToolUseFailure",
        "Bash",
        json!([cmd(
            r#"grep -q '"error":"Exit code 1' && echo '{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "try npm ci"}}'"#
        )]),
    ));
    let input = PostToolUseFailureInput {
        common: p.common(),
        tool_name: "Bash".into(),
        tool_input: json!({"command": "npm test"}),
        tool_use_id: "toolu_08".into(),
        error: "Exit code 1\ncannot find module".into(),
        is_interrupt: Some(false),
        duration_ms: None,
    };
    let out = runner.post_tool_use_failure(&input, &cancel()).await;
    assert_eq!(out.context_text().as_deref(), Some("try npm ci"), "{:?}", out.errors);
    assert!(out.updated_tool_output.is_none());
}

fn permission_request(p: &Project) -> PermissionRequestInput {
    PermissionRequestInput {
        common: p.common(),
        tool_name: "Bash".into(),
        tool_input: json!({"command": "npm run lint"}),
        permission_suggestions: vec![],
    }
}

#[tokio::test]
async fn permission_request_allow_carries_input_and_rules() {
    let p = Project::new();
    let allow = cmd(
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "npm run lint -- --fix"}, "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm run lint:*"}], "behavior": "allow", "destination": "localSettings"}]}}}'"#,
    );
    let runner = p.runner(settings("PermissionRequest", "Bash", json!([allow])));
    let out = runner.permission_request(&permission_request(&p), &cancel()).await;
    let verdict = out.verdict.unwrap();
    assert_eq!(verdict.behavior, PermissionRequestBehavior::Allow);
    assert_eq!(verdict.updated_input.unwrap()["command"], "npm run lint -- --fix");
    assert!(matches!(verdict.updated_permissions.as_slice(), [PermissionUpdate::AddRules { .. }]));
}

#[tokio::test]
async fn permission_request_deny_wins_and_exit_2_denies() {
    let p = Project::new();
    let allow = cmd(
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'"#,
    );
    let deny = cmd(
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not on fridays", "interrupt": true}}}'"#,
    );
    let runner = p.runner(settings("PermissionRequest", "Bash", json!([allow.clone(), deny])));
    let verdict = runner.permission_request(&permission_request(&p), &cancel()).await.verdict.unwrap();
    assert_eq!(verdict.behavior, PermissionRequestBehavior::Deny);
    assert_eq!(verdict.message.as_deref(), Some("not on fridays"));
    assert!(verdict.interrupt);

    let runner = p.runner(settings("PermissionRequest", "Bash", json!([allow, cmd("echo nope >&2; exit 2")])));
    let verdict = runner.permission_request(&permission_request(&p), &cancel()).await.verdict.unwrap();
    assert_eq!((verdict.behavior, verdict.message.as_deref()), (PermissionRequestBehavior::Deny, Some("nope")));
}

#[tokio::test]
async fn user_prompt_submit_plain_stdout_is_context_and_block_rejects() {
    let p = Project::new();
    let input = UserPromptSubmitInput { common: p.common(), prompt: "deploy to prod".into() };
    let runner = p.runner(json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        cmd("echo 'current branch: main'"),
        cmd(r#"echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ctx", "sessionTitle": "deploy"}}'"#)
    ]}]}}));
    let out = runner.user_prompt_submit(&input, &cancel()).await;
    assert_eq!(out.context_text().as_deref(), Some("current branch: main\n\nctx"));
    assert_eq!(out.session_title.as_deref(), Some("deploy"));
    assert!(out.blocked.is_none());

    let runner = p.runner(json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        cmd(r#"grep -q prod && echo '{"decision": "block", "reason": "no prod deploys from chat"}'"#)
    ]}]}}));
    let out = runner.user_prompt_submit(&input, &cancel()).await;
    assert_eq!(out.blocked.unwrap().reason, "no prod deploys from chat");
}

#[tokio::test]
async fn stop_block_keeps_going() {
    let p = Project::new();
    let input = StopInput {
        common: p.common(),
        stop_hook_active: false,
        last_assistant_message: Some("done".into()),
        background_tasks: Some(vec![]),
        session_crons: None,
    };
    let runner = p.runner(json!({"hooks": {"Stop": [{"hooks": [
        cmd(r#"grep -q '"stop_hook_active":false' && echo '{"decision": "block", "reason": "run the tests first"}'"#)
    ]}]}}));
    let out = runner.stop(&input, &cancel()).await;
    assert_eq!(out.blocked.unwrap().reason, "run the tests first", "{:?}", out.errors);
}

#[tokio::test]
async fn session_start_collects_context_and_fields() {
    let p = Project::new();
    let input = SessionStartInput { common: p.common(), source: "startup".into(), model: None, session_title: None };
    let runner = p.runner(json!({"hooks": {"SessionStart": [
        {"matcher": "startup", "hooks": [
            cmd("echo 'branch: feat/x'"),
            cmd(r#"echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "issue #1", "sessionTitle": "x", "watchPaths": ["/a"], "reloadSkills": true}}'"#),
            cmd("echo 'only for the user' >&2; exit 2")
        ]},
        {"matcher": "resume", "hooks": [cmd("echo never")]}
    ]}}));
    let out = runner.session_start(&input, &cancel()).await;
    assert_eq!(out.context_text().as_deref(), Some("branch: feat/x\n\nissue #1"));
    assert_eq!(out.session_title.as_deref(), Some("x"));
    assert_eq!(out.watch_paths, ["/a"]);
    assert!(out.reload_skills);
    assert_eq!(out.errors[0].message, "exit code 2: only for the user");
}

#[tokio::test]
async fn session_end_and_notification_cannot_block() {
    let p = Project::new();
    let runner = p.runner(json!({"hooks": {
        "SessionEnd": [{"matcher": "logout", "hooks": [cmd("echo bye >&2; exit 2")]}],
        "Notification": [{"matcher": "idle_prompt", "hooks": [cmd(r#"echo '{"systemMessage": "ping"}'"#)]}]
    }}));
    let end = SessionEndInput { common: p.common(), reason: "logout".into() };
    let out = runner.session_end(&end, &cancel()).await;
    assert!(out.blocked.is_none());
    assert_eq!(out.errors[0].message, "exit code 2: bye");
    let other = SessionEndInput { common: p.common(), reason: "clear".into() };
    assert!(runner.session_end(&other, &cancel()).await.runs.is_empty());

    let note = NotificationInput {
        common: p.common(),
        message: "waiting".into(),
        title: None,
        notification_type: "idle_prompt".into(),
    };
    let out = runner.notification(&note, &cancel()).await;
    assert_eq!(out.system_messages[0].text, "ping");
}

#[tokio::test]
async fn pre_compact_can_block_and_run_dispatches_by_event() {
    let p = Project::new();
    let runner = p.runner(settings("PreCompact", "manual", json!([cmd("echo 'not now' >&2; exit 2")])));
    let input = HookInput::PreCompact(PreCompactInput {
        common: p.common(),
        trigger: "manual".into(),
        custom_instructions: String::new(),
    });
    let AnyOutcome::Event(out) = runner.run(&input, &cancel()).await else { panic!("wrong outcome") };
    assert_eq!(out.blocked.unwrap().reason, "not now");
}

#[tokio::test]
async fn run_raw_runs_untyped_events() {
    let p = Project::new();
    let runner = p.runner(settings("Setup", "init", json!([cmd("cat > setup.json")])));
    let run = runner.run_raw(HookEvent::Setup, Some("init"), &json!({"trigger": "init"}), &cancel()).await;
    assert_eq!(run.results.len(), 1);
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.file("setup.json")).unwrap()).unwrap();
    assert_eq!(input, json!({"trigger": "init", "hook_event_name": "Setup"}));
}
