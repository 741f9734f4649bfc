//! Command hooks on `PreToolUse`: exit codes, JSON decisions, timeouts, parallelism,
//! dedupe, output caps, `if` conditions and matchers, with real scripts.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolgate_core::ResultStore;
use toolgate_hooks::{HookBehavior, HookSource, HooksConfig, RunStatus, SourceKind};

use crate::support::{Project, cancel, cmd, settings, wait_dead};

#[tokio::test]
async fn exit_2_blocks_and_stderr_is_the_reason() {
    let p = Project::new();
    let script = p.script("block.sh", "cat > /dev/null\necho 'rm is not allowed' >&2\necho ignored\nexit 2");
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd(&script)])));
    let out = runner.pre_tool_use(&p.bash("rm -rf /"), &cancel()).await;
    let block = out.blocked.clone().unwrap();
    assert_eq!(block.reason, "rm is not allowed");
    assert_eq!(block.hooks().next().unwrap().name, script);
    assert_eq!(out.runs[0].status, RunStatus::Blocked);
    assert!(out.model_message("Bash").unwrap().ends_with("blocked this call: rm is not allowed"));
    assert!(out.decision.is_none() && out.errors.is_empty());
}

#[tokio::test]
async fn exit_2_prefers_a_json_reason() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PreToolUse",
        "",
        json!([cmd(r#"echo '{"reason": "from json"}'; echo 'from stderr' >&2; exit 2"#)]),
    ));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.blocked.unwrap().reason, "from json");
}

fn decision(behavior: &str, extra: &str) -> String {
    format!(
        r#"echo '{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "permissionDecision": "{behavior}", "permissionDecisionReason": "{behavior} says so"{extra}}}}}'"#
    )
}

#[tokio::test]
async fn json_allow_deny_and_ask_combine_strictest_first() {
    let p = Project::new();
    let cases: &[(&[&str], HookBehavior)] = &[
        (&["allow"], HookBehavior::Allow),
        (&["ask"], HookBehavior::Ask),
        (&["deny"], HookBehavior::Deny),
        (&["allow", "ask"], HookBehavior::Ask),
        (&["allow", "deny", "ask"], HookBehavior::Deny),
        (&["ask", "defer", "allow"], HookBehavior::Defer),
    ];
    for (behaviors, want) in cases {
        let handlers: Vec<_> = behaviors.iter().map(|b| cmd(&decision(b, ""))).collect();
        let runner = p.runner(settings("PreToolUse", "Bash", json!(handlers)));
        let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
        let got = out.decision.unwrap();
        assert_eq!(got.behavior, *want, "{behaviors:?}");
        assert_eq!(got.reason.as_deref(), Some(format!("{} says so", want.as_str()).as_str()));
        assert!(got.hook.name.contains(want.as_str()), "the deciding hook is named");
        assert!(out.diagnostics.is_empty() && out.errors.is_empty(), "{:?} {:?}", out.diagnostics, out.errors);
    }
}

#[tokio::test]
async fn json_updated_input_replaces_the_input() {
    let p = Project::new();
    let allow = decision("allow", r#", "updatedInput": {"command": "ls -la"}, "additionalContext": "rewrote it""#);
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd(&allow)])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.decision.as_ref().unwrap().behavior, HookBehavior::Allow);
    assert_eq!(serde_json::Value::Object(out.updated_input.clone().unwrap()), json!({"command": "ls -la"}));
    assert_eq!(out.context_text().as_deref(), Some("rewrote it"));

    // A rewrite from an allowing hook is dropped when another hook denies.
    let deny = decision("deny", "");
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd(&allow), cmd(&deny)])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.decision.unwrap().behavior, HookBehavior::Deny);
    assert!(out.updated_input.is_none());
}

#[tokio::test]
async fn legacy_top_level_decisions_map_to_allow_and_deny() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PreToolUse",
        "Bash",
        json!([cmd(r#"echo '{"decision": "block", "reason": "legacy no"}'"#)]),
    ));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    let d = out.decision.unwrap();
    assert_eq!((d.behavior, d.reason.as_deref()), (HookBehavior::Deny, Some("legacy no")));
}

#[tokio::test]
async fn continue_false_stops_and_system_messages_are_kept() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PreToolUse",
        "",
        json!([cmd(r#"echo '{"continue": false, "stopReason": "build broken", "systemMessage": "heads up"}'"#)]),
    ));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.stop.unwrap().reason.as_deref(), Some("build broken"));
    assert_eq!(out.system_messages[0].text, "heads up");
}

/// A hook that sleeps past its timeout is killed with its children, and the call goes on.
#[tokio::test]
async fn a_timed_out_hook_is_killed_with_its_children_and_does_not_block() {
    let p = Project::new();
    let script = p.script("slow.sh", "sleep 100 &\necho $! > child.pid\nsleep 100\necho 'never' >&2\nexit 2");
    let mut handler = cmd(&script);
    handler["timeout"] = json!(1.5);
    let runner = p.runner(settings("PreToolUse", "Bash", json!([handler])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.blocked.is_none() && out.decision.is_none(), "a timed-out hook never blocks");
    assert_eq!(out.runs[0].status, RunStatus::TimedOut);
    assert_eq!(out.errors.len(), 1);
    assert!(out.errors[0].message.starts_with("timed out after 1.5s"), "{}", out.errors[0].message);
    let pid: u32 = std::fs::read_to_string(p.file("child.pid")).unwrap().trim().parse().unwrap();
    assert!(wait_dead(pid).await, "the hook's child {pid} survived");
}

/// Two hooks that each wait for the other through fifos can only both finish when they
/// run at the same time; the timeout bounds a failure.
#[tokio::test]
async fn matching_hooks_run_in_parallel() {
    let p = Project::new();
    p.sh("mkfifo a b").await;
    let first = p.script("first.sh", "echo from-first > b\nread reply < a\necho \"first got $reply\" >&2\nexit 0");
    let second = p.script("second.sh", "read note < b\necho from-second > a\nexit 0");
    let with_timeout = |c: &str| {
        let mut h = cmd(c);
        h["timeout"] = json!(20);
        h
    };
    let runner = p.runner(settings("PreToolUse", "Bash", json!([with_timeout(&first), with_timeout(&second)])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    let statuses: Vec<RunStatus> = out.runs.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [RunStatus::Succeeded, RunStatus::Succeeded], "{:?}", out.errors);
}

#[tokio::test]
async fn identical_handlers_run_once() {
    let p = Project::new();
    let count = cmd("cat > /dev/null; echo ran >> count.txt");
    let same = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [count.clone(), count.clone()]},
        {"matcher": "Bash|Edit", "hooks": [count.clone()]}
    ]}});
    let plugin = HookSource::new(
        SourceKind::Plugin { name: "counter".into(), root: p.path().to_path_buf(), data: None },
        p.file("plugin/hooks/hooks.json"),
    );
    let config = HooksConfig::builder()
        .add(HookSource::user("/home/me/.claude/settings.json"), &same)
        .add(HookSource::project(p.file(".claude/settings.json")), &same)
        .build();
    let runner = toolgate_hooks::HookRunner::new(config, p.path());
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.runs.len(), 1);
    assert_eq!(p.lines("count.txt"), 1);

    // A plugin's copy of the same handler stays separate.
    let config = HooksConfig::builder()
        .add(HookSource::user("/home/me/.claude/settings.json"), &same)
        .add(plugin, &same)
        .build();
    let runner = toolgate_hooks::HookRunner::new(config, p.path());
    runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(p.lines("count.txt"), 3);
}

#[tokio::test]
async fn a_flood_of_output_is_capped_without_blocking() {
    let p = Project::new();
    // 100 MB on stdout, then 100 MB on stderr: neither pipe may stall the hook.
    let flood = "head -c 100000000 /dev/zero | tr '\\0' x; head -c 100000000 /dev/zero >&2; exit 0";
    let mut handler = cmd(flood);
    handler["timeout"] = json!(120);
    let runner = p.runner(settings("PreToolUse", "Bash", json!([handler])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(out.runs[0].status, RunStatus::Succeeded, "{:?}", out.errors);
    assert!(out.errors.is_empty());
}

#[tokio::test]
async fn a_flood_of_json_is_a_diagnostic() {
    let p = Project::new();
    let flood = r#"printf '{"systemMessage": "'; head -c 3000000 /dev/zero | tr '\0' x; printf '"}'"#;
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd(flood)])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.system_messages.is_empty());
    assert!(out.diagnostics[0].message.contains("printed more than 1048576 bytes of JSON"), "{:?}", out.diagnostics);
}

#[tokio::test]
async fn long_output_reaches_the_model_as_a_preview_and_a_saved_file() {
    let p = Project::new();
    let context = r#"printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "'; head -c 25000 /dev/zero | tr '\0' y; printf '"}}'"#;
    let store = Arc::new(ResultStore::new(p.file("session/tool-results")));
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd(context)]))).with_result_store(store);
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    let text = out.context_text().unwrap();
    assert!(text.starts_with("<persisted-output>\nOutput too large (24.4KB). Full output saved to: "), "{text}");
    let saved = p.file("session/tool-results/hook-PreToolUse-toolu_01-0.txt");
    assert_eq!(std::fs::read_to_string(saved).unwrap(), "y".repeat(25_000));
}

#[tokio::test]
async fn plain_stdout_on_exit_0_is_not_a_decision() {
    let p = Project::new();
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd("echo 'all good, carry on'")])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.decision.is_none() && out.blocked.is_none() && out.additional_context.is_empty());
    assert!(out.diagnostics.is_empty() && out.errors.is_empty());
    assert_eq!(out.runs[0].status, RunStatus::Succeeded);
}

#[tokio::test]
async fn invalid_json_is_a_diagnostic_and_ignored() {
    let p = Project::new();
    let cases = [
        ("echo '{not json'", "printed invalid JSON"),
        (
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "maybe"}}'"#,
            "hookSpecificOutput.permissionDecision",
        ),
        (
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}'"#,
            "hookSpecificOutput.hookEventName",
        ),
        (r#"echo '{"continue": "no"}'"#, "continue"),
    ];
    for (command, needle) in cases {
        let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd(command)])));
        let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
        assert!(out.decision.is_none() && out.stop.is_none(), "{command}");
        assert_eq!(out.diagnostics.len(), 1, "{command}");
        let message = out.diagnostics[0].to_string();
        assert!(message.contains(needle), "{command}: {message}");
        assert!(message.contains("its output is ignored"), "{message}");
    }
}

#[tokio::test]
async fn a_missing_script_is_a_non_blocking_error() {
    let p = Project::new();
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd("./no-such-hook.sh")])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.blocked.is_none() && out.decision.is_none());
    let message = &out.errors[0].message;
    assert!(message.starts_with("exit code 127: "), "{message}");
    assert!(message.contains("no-such-hook.sh"), "{message}");
    assert_eq!(out.runs[0].status, RunStatus::Failed);
}

#[tokio::test]
async fn other_exit_codes_are_non_blocking_errors_with_the_first_stderr_line() {
    let p = Project::new();
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd("echo 'first\nsecond' >&2; exit 1")])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.blocked.is_none());
    assert_eq!(out.errors[0].message, "exit code 1: first");
}

#[tokio::test]
async fn exec_form_spawns_without_a_shell() {
    let p = Project::new();
    let script = p.script("args.sh", "cat > /dev/null\nprintf '%s|' \"$@\" > args.txt");
    let handler = json!({"type": "command", "command": script, "args": ["a b", "$HOME", "${CLAUDE_PROJECT_DIR}/x"]});
    let runner = p.runner(settings("PreToolUse", "Bash", json!([handler])));
    runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    let args = std::fs::read_to_string(p.file("args.txt")).unwrap();
    assert_eq!(args, format!("a b|$HOME|{}/x|", p.path().display()));
}

#[tokio::test]
async fn hooks_get_the_event_json_on_stdin_and_the_project_env() {
    let p = Project::new();
    let runner = p.runner(settings(
        "PreToolUse",
        "Bash",
        json!([cmd("cat > input.json; printf '%s\\n%s\\n%s\\n' \"$CLAUDE_PROJECT_DIR\" \"$TOOLGATE_PROJECT_DIR\" \"$PWD\" > env.txt")]),
    ));
    runner.pre_tool_use(&p.bash("npm test"), &cancel()).await;
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.file("input.json")).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"], json!({"command": "npm test"}));
    assert_eq!(input["tool_use_id"], "toolu_01");
    assert_eq!(input["permission_mode"], "default");
    assert_eq!(input["session_id"], "session-1");
    let env = std::fs::read_to_string(p.file("env.txt")).unwrap();
    let dir = p.path().display().to_string();
    let canonical = p.path().canonicalize().unwrap().display().to_string();
    let lines: Vec<&str> = env.lines().collect();
    assert_eq!(lines[..2], [dir.as_str(), dir.as_str()]);
    assert!(lines[2] == dir || lines[2] == canonical, "{}", lines[2]);
}

/// `if` is one permission rule checked per Bash subcommand: `git status && rm x` runs a
/// hook conditioned on `Bash(rm *)`; `git status` alone does not.
#[tokio::test]
async fn if_conditions_check_every_subcommand() {
    let p = Project::new();
    let handler = json!({"type": "command", "command": "cat > /dev/null; echo ran >> if.txt", "if": "Bash(rm *)"});
    let runner = p.runner(settings("PreToolUse", "Bash", json!([handler])));
    runner.pre_tool_use(&p.bash("git status"), &cancel()).await;
    assert_eq!(p.lines("if.txt"), 0);
    runner.pre_tool_use(&p.bash("git status && rm x"), &cancel()).await;
    assert_eq!(p.lines("if.txt"), 1);
    runner.pre_tool_use(&p.bash("echo $(rm -rf build)"), &cancel()).await;
    assert_eq!(p.lines("if.txt"), 2);
    // Another tool never matches a Bash rule.
    runner.pre_tool_use(&p.pre_tool_use("Read", json!({"file_path": "/x"})), &cancel()).await;
    assert_eq!(p.lines("if.txt"), 2);
}

#[tokio::test]
async fn an_unparsable_if_rule_fails_open() {
    let p = Project::new();
    let handler = json!({"type": "command", "command": "cat > /dev/null; echo ran >> if.txt", "if": "Bash(unclosed"});
    let runner = p.runner(settings("PreToolUse", "Bash", json!([handler])));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert_eq!(p.lines("if.txt"), 1);
    assert!(out.diagnostics[0].message.contains("could not be parsed"), "{:?}", out.diagnostics);
}

#[tokio::test]
async fn matchers_select_by_tool_name() {
    let p = Project::new();
    let group = |matcher: &str, tag: &str| json!({"matcher": matcher, "hooks": [cmd(&format!("cat > /dev/null; echo {tag} >> ran.txt"))]});
    let runner = p.runner(json!({"hooks": {"PreToolUse": [
        group("Edit.*", "edit-regex"),
        group("^Edit$", "edit-exact-regex"),
        group("Edit|Write", "edit-or-write"),
        group("mcp__memory__.*", "memory"),
        group("mcp__memory", "memory-bare"),
        group("Task", "legacy-task"),
        group("*", "all")
    ]}}));
    let ran = |tool: &'static str| {
        let p = &p;
        let runner = &runner;
        async move {
            let _ = std::fs::remove_file(p.file("ran.txt"));
            runner.pre_tool_use(&p.pre_tool_use(tool, json!({})), &cancel()).await;
            let mut tags: Vec<String> =
                std::fs::read_to_string(p.file("ran.txt")).unwrap().lines().map(str::to_owned).collect();
            tags.sort();
            tags
        }
    };
    assert_eq!(ran("NotebookEdit").await, ["all", "edit-regex"]);
    assert_eq!(ran("Edit").await, ["all", "edit-exact-regex", "edit-or-write", "edit-regex"]);
    assert_eq!(ran("mcp__memory__create").await, ["all", "memory"]);
    assert_eq!(ran("Agent").await, ["all", "legacy-task"]);
    assert_eq!(ran("Bash").await, ["all"]);
}

#[tokio::test]
async fn cancellation_stops_running_hooks() {
    let p = Project::new();
    let script = p.script("wait.sh", "sleep 100 &\necho $! > child.pid\nwait");
    let runner = p.runner(settings("PreToolUse", "Bash", json!([cmd(&script)])));
    let token = cancel();
    let canceller = {
        let token = token.clone();
        let pid_file = p.file("child.pid");
        tokio::spawn(async move {
            for _ in 0..1_000 {
                if std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n')) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            token.cancel();
        })
    };
    let out = runner.pre_tool_use(&p.bash("ls"), &token).await;
    canceller.await.unwrap();
    assert_eq!(out.runs[0].status, RunStatus::Cancelled);
    let pid: u32 = std::fs::read_to_string(p.file("child.pid")).unwrap().trim().parse().unwrap();
    assert!(wait_dead(pid).await);
}

/// `async: true` runs the hook in the background: the call goes on at once, and what the hook
/// printed is reported when it ends; `asyncRewake` and exit code 2 ask to wake the model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_hooks_never_delay_the_call_and_report_when_they_end() {
    let p = Project::new();
    let gate = p.file("gate");
    // Each waits for the test to open the gate, so "the call went on first" is no race.
    let wait = format!("while [ ! -e {} ]; do sleep 0.05; done", gate.display());
    let handlers = json!([
        {"type": "command", "command": format!("{wait}; echo audited"), "async": true},
        {"type": "command", "command": format!("{wait}; echo 'look again' >&2; exit 2"), "asyncRewake": true}
    ]);
    let runner = p.runner(settings("PreToolUse", "Bash", handlers));
    let out = runner.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.blocked.is_none() && out.decision.is_none(), "{out:?}");
    assert!(runner.take_background_results().is_empty(), "both still wait for the gate");
    std::fs::write(&gate, "").unwrap();
    let mut results = Vec::new();
    for _ in 0..200 {
        results.extend(runner.take_background_results());
        if results.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    results.sort_by_key(|r| r.rewake);
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!((results[0].stdout.trim(), results[0].rewake, results[0].exit_code), ("audited", false, Some(0)));
    assert_eq!((results[1].stderr.trim(), results[1].rewake), ("look again", true));
    assert!(runner.take_background_results().is_empty(), "each is reported once");
}

/// An `mcp_tool` hook calls the host's MCP tool with its placeholders filled from the event;
/// the tool's text is read as a hook's output. Without a caller it says it did not run.
#[tokio::test]
async fn mcp_tool_hooks_go_through_the_hosts_caller() {
    #[derive(Debug)]
    struct Deny;
    impl toolgate_hooks::McpToolCaller for Deny {
        fn call<'a>(
            &'a self,
            server: &'a str,
            tool: &'a str,
            input: Value,
        ) -> toolgate_core::BoxFuture<'a, Result<String, String>> {
            Box::pin(async move {
                assert_eq!((server, tool), ("policy", "check"));
                let reason = format!("no {}", input["command"].as_str().unwrap_or_default());
                Ok(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                    "permissionDecisionReason": reason}})
                .to_string())
            })
        }
    }
    let p = Project::new();
    let hooks = json!([{"type": "mcp_tool", "server": "policy", "tool": "check", "input": {"command": "${tool_input.command}"}}]);
    let runner = p.runner(settings("PreToolUse", "Bash", hooks.clone())).with_mcp(Arc::new(Deny));
    let out = runner.pre_tool_use(&p.bash("rm -rf x"), &cancel()).await;
    let decision = out.decision.expect("a decision");
    assert_eq!((decision.behavior, decision.reason.as_deref()), (HookBehavior::Deny, Some("no rm -rf x")));
    let alone = p.runner(settings("PreToolUse", "Bash", hooks));
    let out = alone.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.decision.is_none() && out.errors[0].message.contains("connects no MCP servers"), "{:?}", out.errors);
}

/// An agent hook runs the host's subagent on the instruction and the step; its final
/// `{"ok": false, "reason": …}` blocks as a prompt hook's does. Without a subagent runner it
/// says it did not run.
#[tokio::test]
async fn agent_hooks_ask_the_hosts_subagent() {
    #[derive(Debug, Default)]
    struct Reviewer(std::sync::Mutex<Vec<(String, Option<String>)>>);
    impl toolgate_hooks::HookAgent for Reviewer {
        fn ask<'a>(
            &'a self,
            prompt: String,
            model: Option<String>,
        ) -> toolgate_core::BoxFuture<'a, Result<String, String>> {
            self.0.lock().unwrap().push((prompt, model));
            Box::pin(async { Ok("Looked at it. {\"ok\": false, \"reason\": \"tests are red\"}".to_owned()) })
        }
    }
    let p = Project::new();
    let hooks = json!([{"type": "agent", "prompt": "Check: $ARGUMENTS", "model": "sonnet"}]);
    let reviewer = Arc::new(Reviewer::default());
    let runner = p.runner(settings("PreToolUse", "Bash", hooks.clone())).with_agent(reviewer.clone());
    let out = runner.pre_tool_use(&p.bash("git push"), &cancel()).await;
    assert_eq!(out.blocked.map(|b| b.reason), Some("tests are red".to_owned()));
    let asked = reviewer.0.lock().unwrap()[0].clone();
    assert!(
        asked.0.contains("{\"ok\": true}") && asked.0.contains("Check: {") && asked.0.contains("git push"),
        "{}",
        asked.0
    );
    assert_eq!(asked.1.as_deref(), Some("sonnet"));
    let alone = p.runner(settings("PreToolUse", "Bash", hooks));
    let out = alone.pre_tool_use(&p.bash("ls"), &cancel()).await;
    assert!(out.blocked.is_none() && out.errors[0].message.contains("TOOLGATE_AGENT_COMMAND"), "{:?}", out.errors);
}
