//! Sessions built the way a host builds them: settings discovered from files, hooks run as
//! real processes, tools that start real child processes.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use toolgate_core::process::ProcessSpec;
use toolgate_core::{CancellationToken, InterruptBehavior, ToolBuilder, ToolError, ToolOutput};
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// A Bash-like tool that runs its command through the process helper.
fn shell_tool() -> toolgate_core::DynTool {
    ToolBuilder::new("Bash")
        .schema(json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false}))
        .interrupt_behavior(InterruptBehavior::Cancel)
        .call(|input, ctx| async move {
            let command = input["command"].as_str().unwrap_or_default().to_owned();
            let outcome = ProcessSpec::shell(command)
                .cwd(&ctx.cwd)
                .run(&ctx.cancel)
                .await
                .map_err(|e| ToolError::io(e.to_string()))?;
            if outcome.status.success() {
                Ok(ToolOutput::text(outcome.stdout.text().trim_end().to_owned()))
            } else {
                Err(ToolError::io(format!("{}\n{}", outcome.status, outcome.stderr.text())))
            }
        })
        .build()
}

fn session_for(project: &Path) -> Session {
    let loaded = SettingsDiscovery::new(project).with_home(None).with_managed_dir(None).with_trust(true).load();
    Session::builder().cwd(project).settings(loaded).builtin_tools([shell_tool()]).build()
}

/// A session for `project` whose `.claude/settings.json` is `settings`, read without a
/// diagnostic.
fn session_with(project: &Path, settings: &serde_json::Value) -> Session {
    write(&project.join(".claude/settings.json"), &settings.to_string());
    let session = session_for(project);
    assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
    session
}

#[tokio::test]
async fn settings_rules_and_real_hooks_shape_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    write(
        &project.join(".claude/hooks/guard.sh"),
        "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in *forbidden*) echo 'no forbidden words' >&2; exit 2;; esac\nexit 0\n",
    );
    let session = session_with(
        &project,
        &json!({
            "permissions": {"allow": ["Bash(echo:*)"], "deny": ["Bash(rm:*)"]},
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh\""}]}],
                "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "printf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"checked by post hook\"}}'"}]}]
            }
        }),
    );
    let results = session
        .run_message(vec![
            ToolCall::new("1", "Bash", json!({"command": "echo hello"})),
            ToolCall::new("2", "Bash", json!({"command": "echo forbidden"})),
            ToolCall::new("3", "Bash", json!({"command": "echo ok; rm -rf sub"})),
            ToolCall::new("4", "Bash", json!({"command": "touch made-here"})),
        ])
        .await;
    assert_eq!(text(&results[0]), "hello\n<hook-context>\nchecked by post hook\n</hook-context>");
    assert!(results[1].is_error && text(&results[1]).contains("no forbidden words"), "{}", text(&results[1]));
    assert!(results[2].is_error && text(&results[2]).contains("Bash(rm:*)"), "{}", text(&results[2]));
    assert!(results[3].is_error && text(&results[3]).contains("Bash(touch:*)"), "{}", text(&results[3]));
    assert!(!project.join("made-here").exists(), "a denied call never ran");
}

/// PostToolBatch runs once every call of a message has resolved, with each call and the
/// result the model gets, in order; a hook that blocks stops the loop.
#[tokio::test]
async fn post_tool_batch_hooks_see_the_whole_message_and_can_stop_the_loop() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    let session = session_with(
        &project,
        &json!({
            "permissions": {"allow": ["Bash(echo:*)"]},
            "hooks": {"PostToolBatch": [{"hooks": [{"type": "command",
                "command": "cat > \"$CLAUDE_PROJECT_DIR/batch.json\"; echo 'enough for today' >&2; exit 2"}]}]}
        }),
    );
    assert_eq!(session.stop_reason(), None);
    let results = session
        .run_message(vec![
            ToolCall::new("a", "Bash", json!({"command": "echo one"})),
            ToolCall::new("b", "Bash", json!({"command": "echo two"})),
        ])
        .await;
    assert_eq!((text(&results[0]).as_str(), text(&results[1]).as_str()), ("one", "two"));
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(project.join("batch.json")).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolBatch");
    let calls = input["tool_calls"].as_array().unwrap();
    assert_eq!(calls.iter().map(|c| c["tool_use_id"].as_str().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(calls[1]["tool_input"]["command"], "echo two");
    assert!(calls[1]["tool_response"].to_string().contains("two"), "{}", calls[1]["tool_response"]);
    let stop = session.stop_reason().unwrap();
    assert!(stop.contains("enough for today"), "{stop}");
}

/// A background (`async`) hook never holds up the call it ran for; what it printed reaches the
/// model with a later call's result, once.
#[tokio::test]
async fn a_background_hook_reports_with_a_later_result() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    let session = session_with(
        &project,
        &json!({
            "permissions": {"allow": ["Bash(echo:*)"]},
            "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "echo 'audit done'", "async": true}
            ]}]}
        }),
    );
    let first = session.run_message(vec![ToolCall::new("1", "Bash", json!({"command": "echo one"}))]).await;
    assert_eq!(text(&first[0]), "one");
    let mut reported = Vec::new();
    for i in 0..100 {
        let id = format!("n{i}");
        let later = session.run_message(vec![ToolCall::new(id, "Bash", json!({"command": "echo next"}))]).await;
        let later = text(&later[0]);
        if later.contains("audit done") {
            reported.push(later);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(reported.len(), 1, "the background hook's output never reached the model");
    assert!(
        reported[0].contains("The background hook echo 'audit done' (PostToolUse) finished: audit done"),
        "{}",
        reported[0]
    );
}

/// Regression: what a background hook printed was taken by the next call's PreToolUse step and
/// dropped when that call was blocked. It now reaches the model with the message's last result,
/// whatever became of the call.
#[tokio::test]
async fn a_background_hooks_report_survives_a_blocked_call() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    let guard = "input=$(cat); case \"$input\" in *blocked*) echo 'not this one' >&2; exit 2;; esac";
    let session = session_with(
        &project,
        &json!({
            "permissions": {"allow": ["Bash(echo:*)"]},
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]}],
                "PostToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "echo 'audit done'", "async": true}
                ]}]
            }
        }),
    );
    let first = session.run_message(vec![ToolCall::new("1", "Bash", json!({"command": "echo one"}))]).await;
    assert_eq!(text(&first[0]), "one");
    let mut reported = None;
    for i in 0..100 {
        let call = ToolCall::new(format!("n{i}"), "Bash", json!({"command": "echo blocked"}));
        let later = session.run_message(vec![call]).await;
        assert!(later[0].is_error && text(&later[0]).contains("not this one"), "{}", text(&later[0]));
        if text(&later[0]).contains("audit done") {
            reported = Some(text(&later[0]));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let reported = reported.expect("the background hook's output never reached the model");
    assert!(
        reported.contains("The background hook echo 'audit done' (PostToolUse) finished: audit done"),
        "{reported}"
    );
}

#[tokio::test]
async fn default_mode_and_additional_directories_come_from_settings() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    write(
        &project.join(".claude/settings.local.json"),
        &json!({"permissions": {"defaultMode": "acceptEdits", "additionalDirectories": ["../shared"]}}).to_string(),
    );
    let session = session_for(&project);
    assert_eq!(session.mode(), toolgate_core::PermissionMode::AcceptEdits);
    assert!(session.context().roots.contains(&dir.path().join("shared")));
    let r =
        session.run_message(vec![ToolCall::new("1", "Bash", json!({"command": "mkdir -p out && touch out/x"}))]).await;
    assert!(!r[0].is_error, "{}", text(&r[0]));
    assert!(project.join("out/x").exists());
}

#[tokio::test]
async fn a_bare_deny_rule_removes_the_tool_from_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join(".claude/settings.json"), r#"{"permissions": {"deny": ["Bash"]}}"#);
    let session = session_for(dir.path());
    assert!(session.pool().get("Bash").is_none());
    let r = session.run_message(vec![ToolCall::new("1", "Bash", json!({"command": "ls"}))]).await;
    assert!(text(&r[0]).contains("No such tool available: Bash"));
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
        .unwrap_or(false)
}

#[tokio::test]
async fn cancelling_a_message_kills_the_running_child_process() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let session = Session::builder()
        .cwd(dir.path())
        .mode(toolgate_core::PermissionMode::BypassPermissions)
        .builtin_tools([shell_tool()])
        .build();
    let cancel = CancellationToken::new();
    let command = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
    let run = {
        let (session, cancel) = (session.clone(), cancel.clone());
        tokio::spawn(async move {
            session.run_message_with(vec![ToolCall::new("1", "Bash", json!({"command": command}))], cancel, None).await
        })
    };
    // Wait (bounded) until the child has started.
    let mut pid = None;
    for _ in 0..400 {
        if let Some(p) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse::<u32>().ok()) {
            pid = Some(p);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let pid = pid.expect("the child started");
    assert!(alive(pid));
    cancel.cancel();
    let results = tokio::time::timeout(Duration::from_secs(30), run).await.unwrap().unwrap();
    assert!(text(&results[0]).contains("cancelled by the user"), "{}", text(&results[0]));
    let mut gone = false;
    for _ in 0..400 {
        if !alive(pid) {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(gone, "the sleeping grandchild {pid} was killed with its group");
}

/// A Bash call's command is parsed once: the batch planner, the permission decision, the
/// sandbox plan and the reading of its exit status share one analysis, for a call alone and
/// for calls in a concurrent batch.
#[tokio::test]
async fn each_bash_call_is_parsed_once() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join(".claude/settings.json"), r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#);
    write(&dir.path().join("sub/a.txt"), "a\n");
    let loaded = SettingsDiscovery::new(dir.path()).with_home(None).with_managed_dir(None).with_trust(true).load();
    let session = Session::builder()
        .cwd(dir.path())
        .settings(loaded)
        .builtin_tools(toolgate_builtin::all_builtin_tools())
        .build();
    let bash = |id: &str, command: &str| ToolCall::new(id, "Bash", json!({"command": command}));
    for message in [
        vec![bash("1", "ls sub | wc -l")],
        vec![bash("1", "grep -q nothing sub/a.txt")],
        vec![bash("1", "cat sub/a.txt"), bash("2", "ls -la sub"), bash("3", "touch sub/b.txt")],
    ] {
        let calls = message.len() as u64;
        let before = toolgate_shell::parses_on_this_thread();
        let results = session.run_message(message).await;
        assert!(results.iter().all(|r| !r.is_error), "{:?}", results.iter().map(text).collect::<Vec<_>>());
        assert_eq!(toolgate_shell::parses_on_this_thread() - before, calls);
    }
}
