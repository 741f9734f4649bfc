//! Agent with the shipped process runner: a shell script is the subagent.

use std::sync::Arc;

use serde_json::json;
use toolgate_builtin::{AgentServices, ProcessSubagentRunner, discover_subagent_types};
use toolgate_core::PermissionMode;

use crate::support::{Dirs, call, err, ok, text, wait_dead, wait_for_line};

/// The script every foreground test runs: it echoes what it was given.
const ECHO_AGENT: &str = r#"prompt=$(cat)
echo "type=$TOOLGATE_AGENT_TYPE tools=${TOOLGATE_AGENT_TOOLS-all} model=${TOOLGATE_AGENT_MODEL-none} name=${TOOLGATE_AGENT_NAME-none}"
echo "system=$TOOLGATE_AGENT_SYSTEM_PROMPT"
echo "prompt=$prompt"
echo "cwd=$(pwd)"
"#;

/// A project with a `reviewer` subagent type limited to Read and Grep on haiku.
fn project() -> Dirs {
    let dirs = Dirs::new();
    let agents = dirs.root.join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews diffs for bugs\ntools: Read, Grep\nmodel: haiku\n---\nBe terse.\n",
    )
    .unwrap();
    dirs
}

fn runner(dirs: &Dirs, command: String) -> AgentServices {
    let (types, diagnostics) = discover_subagent_types(&dirs.root, None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    AgentServices::new().runner(Arc::new(ProcessSubagentRunner::new(command, types)))
}

#[tokio::test]
async fn a_foreground_agent_gets_the_prompt_on_stdin_and_its_restrictions_in_the_environment() {
    let dirs = project();
    let command = dirs.script("agent.sh", ECHO_AGENT);
    // Default mode and no prompter: launching an agent is never prompted.
    let session = dirs.session(runner(&dirs, command), PermissionMode::Default);
    let description = session.pool().get("Agent").unwrap().description().into_owned();
    assert!(description.contains("- reviewer: Reviews diffs for bugs (Tools: Read, Grep)"), "{description}");
    assert!(description.contains("- general-purpose: "), "{description}");

    let answer = ok(
        &session,
        "Agent",
        json!({"description": "Review the diff", "prompt": "look at src/lib.rs\nand report", "subagent_type": "reviewer"}),
    )
    .await;
    assert_eq!(
        answer,
        format!(
            "type=reviewer tools=Read,Grep model=haiku name=none\nsystem=Be terse.\nprompt=look at src/lib.rs\nand report\ncwd={}",
            dirs.root.display()
        )
    );

    // The legacy name, the default type, a model override and a teammate name.
    let answer = ok(
        &session,
        "Task",
        json!({"description": "Find loaders", "prompt": "find them", "model": "opus", "name": "scout"}),
    )
    .await;
    assert!(answer.starts_with("type=general-purpose tools=all model=opus name=scout\n"), "{answer}");
}

#[tokio::test]
async fn bad_agent_calls_are_errors_with_a_way_forward() {
    let dirs = project();
    let command = dirs.script("agent.sh", ECHO_AGENT);
    let session = dirs.session(runner(&dirs, command), PermissionMode::Default);
    let base = json!({"description": "Do it", "prompt": "do it"});
    let with = |extra: serde_json::Value| {
        let mut input = base.clone();
        input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        input
    };

    let text = err(&session, "Agent", with(json!({"subagent_type": "nope"}))).await;
    assert_eq!(text, "there is no subagent type `nope`\nuse one of: general-purpose, reviewer");
    let text = err(&session, "Agent", with(json!({"prompt": "  "}))).await;
    assert!(text.contains("prompt is empty") && text.contains("write the whole task"), "{text}");
    let text = err(&session, "Agent", with(json!({"description": ""}))).await;
    assert!(text.contains("description is empty") && text.contains("3-5 word"), "{text}");
    let text = err(&session, "Agent", with(json!({"isolation": "worktree"}))).await;
    assert!(text.contains("isolation `worktree` is not supported") && text.contains("omit isolation"), "{text}");
    let text = err(&session, "Agent", with(json!({"name": "../x"}))).await;
    assert!(text.contains("cannot be a teammate name") && text.contains("letters, digits"), "{text}");
    let text = err(&session, "Agent", with(json!({"model": "gpt-9"}))).await;
    assert!(text.contains("model"), "{text}");
    let text = err(&session, "Agent", json!({"prompt": "no description"})).await;
    assert!(text.contains("description"), "{text}");
}

#[tokio::test]
async fn a_failing_agent_command_is_an_error_quoting_its_stderr() {
    let dirs = project();
    let command = dirs.script("broken.sh", "cat >/dev/null\necho 'model not configured' >&2\nexit 3\n");
    let session = dirs.session(runner(&dirs, command), PermissionMode::Default);
    let text = err(&session, "Agent", json!({"description": "Try", "prompt": "x"})).await;
    assert!(text.contains("exited with code 3") && text.contains("model not configured"), "{text}");
    assert!(text.contains("retry with a clearer prompt"), "{text}");
}

/// The `<output>` of a TaskOutput text.
fn output_of(text: &str) -> &str {
    let start = text.find("<output>").unwrap() + "<output>".len();
    let end = text.rfind("</output>").unwrap();
    text[start..end].trim_matches('\n')
}

#[tokio::test]
async fn a_background_agent_is_read_with_task_output() {
    let dirs = project();
    let go = dirs.root.join("go");
    let script =
        format!("prompt=$(cat)\nwhile [ ! -e '{}' ]; do sleep 0.02; done\necho \"done: $prompt\"\n", go.display());
    let command = dirs.script("slow.sh", &script);
    let session = dirs.session(runner(&dirs, command), PermissionMode::BypassPermissions);

    let launched =
        ok(&session, "Agent", json!({"description": "Slow research", "prompt": "dig", "run_in_background": true}))
            .await;
    assert!(launched.starts_with("Async agent launched successfully.\nagentId: agent_1 "), "{launched}");
    let output_file = dirs.session.join("tasks").join("agent_1.output");
    assert!(launched.contains(&output_file.display().to_string()), "{launched}");

    let text = ok(&session, "TaskOutput", json!({"task_id": "agent_1", "block": false})).await;
    assert!(text.starts_with("<retrieval_status>not_ready</retrieval_status>"), "{text}");
    assert!(text.contains("<task_type>local_agent</task_type>") && text.contains("<status>running</status>"), "{text}");

    std::fs::write(&go, "").unwrap();
    let text = ok(&session, "TaskOutput", json!({"task_id": "agent_1"})).await;
    assert!(text.starts_with("<retrieval_status>success</retrieval_status>"), "{text}");
    assert!(text.contains("<status>completed</status>"), "{text}");
    assert_eq!(output_of(&text), "done: dig");
    assert_eq!(std::fs::read_to_string(&output_file).unwrap(), "done: dig");
}

#[tokio::test]
async fn task_stop_stops_a_background_agent_and_its_process() {
    let dirs = project();
    let pid_file = dirs.root.join("pid");
    let script = format!("cat >/dev/null\necho $$ > '{}'\nwhile :; do sleep 0.05; done\n", pid_file.display());
    let command = dirs.script("forever.sh", &script);
    let session = dirs.session(runner(&dirs, command), PermissionMode::BypassPermissions);

    ok(&session, "Agent", json!({"description": "Never ends", "prompt": "wait", "run_in_background": true})).await;
    let pid: u32 = wait_for_line(&pid_file).await.trim().parse().unwrap();

    let stopped = ok(&session, "TaskStop", json!({"task_id": "agent_1"})).await;
    assert!(stopped.starts_with("Successfully stopped task agent_1"), "{stopped}");
    assert!(wait_dead(pid).await, "the agent's process {pid} outlived TaskStop");
    let read = ok(&session, "TaskOutput", json!({"task_id": "agent_1"})).await;
    assert!(read.contains("<status>killed</status>"), "{read}");

    let again = ok(&session, "TaskStop", json!({"task_id": "agent_1"})).await;
    assert!(again.contains("is not running (killed); nothing to stop"), "{again}");
    let missing = call(&session, "TaskOutput", json!({"task_id": "agent_9"})).await;
    assert!(missing.is_error);
    assert!(text_of_missing(&text(&missing)), "{}", text(&missing));
}

fn text_of_missing(text: &str) -> bool {
    text.contains("no background task has the id `agent_9`")
        && text.contains("agent_1 (killed)")
        && text.contains("Bash or Agent call with run_in_background")
}

#[tokio::test]
async fn without_a_runner_the_agent_tool_is_not_offered() {
    let dirs = Dirs::new();
    let session = dirs.session(AgentServices::new(), PermissionMode::BypassPermissions);
    assert!(session.pool().get("Agent").is_none());
    assert!(session.pool().get("Task").is_none());
    let text = err(&session, "Agent", json!({"description": "x", "prompt": "y"})).await;
    assert!(text.contains("Agent"), "{text}");
}

#[tokio::test]
async fn an_interrupt_cancels_a_foreground_agent_and_kills_its_process() {
    let dirs = project();
    let pid_file = dirs.root.join("pid");
    let script = format!("cat >/dev/null\necho $$ > '{}'\nwhile :; do sleep 0.05; done\n", pid_file.display());
    let command = dirs.script("forever.sh", &script);
    let session = dirs.session(runner(&dirs, command), PermissionMode::Default);
    let cancel = toolgate_core::CancellationToken::new();
    let call = toolgate_pipeline::ToolCall::new("toolu_1", "Agent", json!({"description": "Hang", "prompt": "wait"}));
    let running = tokio::spawn({
        let (session, cancel) = (session.clone(), cancel.clone());
        async move { session.run_message_with(vec![call], cancel, None).await }
    });
    let pid: u32 = wait_for_line(&pid_file).await.trim().parse().unwrap();
    cancel.cancel();
    let result = running.await.unwrap().remove(0);
    assert!(result.is_error && text(&result).contains("cancel"), "{}", text(&result));
    assert!(wait_dead(pid).await, "the agent's process {pid} outlived the interrupt");
}

/// `Agent(type)` rules name the subagent type (Claude Code's `deny Task(Explore)`): a deny
/// rule on one type denies its calls, and only its calls; a call naming no type is the
/// general-purpose one.
#[tokio::test]
async fn agent_rules_name_the_subagent_type() {
    use toolgate_core::{PermissionBehavior, RuleSource};
    use toolgate_permissions::{LoadedSettings, PermissionEngine, SettingsFile};

    let dirs = project();
    let session = dirs.session(runner(&dirs, "cat".to_owned()), PermissionMode::BypassPermissions);
    let tool = session.pool().get("Agent").unwrap().clone();
    let mut loaded = LoadedSettings::default();
    loaded.add(SettingsFile {
        source: RuleSource::ProjectSettings,
        origin: "settings.json".to_owned(),
        anchor: dirs.root.clone(),
        value: json!({"permissions": {"deny": ["Task(reviewer)", "Agent(general-purpose)"]}}),
    });
    let engine = PermissionEngine::builder(loaded.permissions().0).home(None).cwd(dirs.root.clone()).build();
    let ctx = session.context();
    let decide = |input: serde_json::Value| engine.evaluate(tool.as_ref(), &input, &ctx, None).decision.behavior;
    let call = |kind: Option<&str>| {
        let mut input = json!({"description": "d", "prompt": "p"});
        if let Some(kind) = kind {
            input["subagent_type"] = json!(kind);
        }
        input
    };
    assert_eq!(decide(call(Some("reviewer"))), PermissionBehavior::Deny);
    assert_eq!(decide(call(None)), PermissionBehavior::Deny, "no type is general-purpose");
    assert_eq!(decide(call(Some("Explore"))), PermissionBehavior::Allow);
}
