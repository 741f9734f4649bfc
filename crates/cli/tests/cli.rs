//! The `toolgate` binary as a program sees it: commands, JSON shapes and exit codes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

/// `toolgate` in a hermetic environment: a temp HOME, no prompts, the given cwd.
fn toolgate(dir: &std::path::Path) -> Command {
    let mut cmd = Command::cargo_bin("toolgate").unwrap();
    cmd.env("HOME", dir).env("TOOLGATE_NO_PROMPT", "1").env_remove("CLAUDE_CONFIG_DIR").current_dir(dir);
    cmd
}

/// `toolgate` with its own home folder and the project elsewhere (`toolgate` alone makes the
/// project the home, whose settings then also apply as the user's).
fn toolgate_at(home: &Path, project: &Path) -> Command {
    let mut cmd = toolgate(project);
    cmd.env("HOME", home);
    cmd
}

/// A home folder and a project folder below a temporary one.
fn home_and_project() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (home, project) = (base.join("home"), base.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    (dir, home, project)
}

/// The JSON-RPC replies `toolgate … mcp serve` (as `cmd` sets it up) writes for `requests`,
/// sent one a line on its stdin, which then closes.
fn serve_replies(mut cmd: Command, requests: &[Value]) -> Vec<Value> {
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let out = cmd.write_stdin(input).timeout(std::time::Duration::from_secs(120)).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

fn json_out(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn tools_output_is_byte_for_byte_stable() {
    let dir = tempfile::tempdir().unwrap();
    let a = toolgate(dir.path()).arg("tools").output().unwrap();
    let b = toolgate(dir.path()).arg("tools").output().unwrap();
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let defs = json_out(&a);
    assert!(defs.as_array().unwrap().iter().any(|d| d["name"] == "ToolSearch"));
    let show = toolgate(dir.path()).args(["tools", "show", "MCPSearch"]).output().unwrap();
    assert_eq!(json_out(&show)["name"], "ToolSearch");
    let missing = toolgate(dir.path()).args(["tools", "show", "ToolSerch"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stdout).contains("did you mean ToolSearch"));
}

#[test]
fn check_prints_the_decision_and_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolgate(dir.path())
        .args(["--deny", "ToolSearch(query:secret*)", "check", "ToolSearch", r#"{"query": "secret stuff"}"#, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_out(&out);
    assert_eq!(v["tool"], "ToolSearch");
    assert_eq!(v["behavior"], "deny");
    assert_eq!(
        v["reason"],
        json!({"kind": "rule", "rule": "ToolSearch(query:secret*)", "source": "--disallowedTools", "detail": "ToolSearch(query:secret*)"})
    );
    let allowed = toolgate(dir.path()).args(["check", "ToolSearch", r#"{"query": "x"}"#, "--json"]).output().unwrap();
    let v = json_out(&allowed);
    assert_eq!((v["behavior"].as_str(), v["reason"]["kind"].as_str()), (Some("allow"), Some("tool")));
}

#[test]
fn check_of_an_unknown_tool_or_invalid_input_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolgate(dir.path()).args(["check", "Nope", "{}", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_out(&out)["behavior"], "error");
    let out = toolgate(dir.path()).args(["check", "ToolSearch", r#"{"query": 5}"#, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_out(&out);
    assert!(v["message"].as_str().unwrap().contains("query: expected string, got number 5"), "{v}");
}

#[test]
fn call_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let ok = toolgate(dir.path()).args(["call", "ToolSearch", r#"{"query": "select:ToolSearch"}"#]).output().unwrap();
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&ok.stdout).trim(), "[tool loaded: ToolSearch]");
    let err = toolgate(dir.path()).args(["call", "Nope", "{}", "--json"]).output().unwrap();
    assert_eq!(err.status.code(), Some(1));
    let v = json_out(&err);
    assert_eq!((v["type"].as_str(), v["is_error"].as_bool()), (Some("tool_result"), Some(true)));
    let usage = toolgate(dir.path()).args(["call"]).output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
    let bad_json = toolgate(dir.path()).args(["call", "ToolSearch", "{oops"]).output().unwrap();
    assert_eq!(bad_json.status.code(), Some(2));
}

#[test]
fn run_answers_anthropic_and_openai_messages() {
    let dir = tempfile::tempdir().unwrap();
    let message = json!({"role": "assistant", "content": [
        {"type": "text", "text": "Searching."},
        {"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": {"query": "select:ToolSearch"}},
        {"type": "tool_use", "id": "toolu_2", "name": "Nope", "input": {}}
    ]});
    let out = toolgate(dir.path()).arg("run").write_stdin(message.to_string()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_out(&out);
    assert_eq!(v["role"], "user");
    assert_eq!(v["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(v["content"][1]["is_error"], true);

    let openai = json!({"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "ToolSearch", "arguments": "{\"query\": \"zzz\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "ToolSearch", "arguments": "{bad"}}
    ]});
    let out =
        toolgate(dir.path()).args(["run", "--format", "openai"]).write_stdin(openai.to_string()).output().unwrap();
    let v = json_out(&out);
    assert_eq!(v[0]["role"], "tool");
    assert_eq!(v[1]["tool_call_id"], "call_2");
    assert!(v[1]["content"].as_str().unwrap().contains("not valid JSON"));
}

#[test]
fn run_jsonl_keeps_one_session_per_stream() {
    let dir = tempfile::tempdir().unwrap();
    let line =
        |id: &str| json!([{"type": "tool_use", "id": id, "name": "ToolSearch", "input": {"query": "x"}}]).to_string();
    let input = format!("{}\n\n{}\n", line("a"), line("b"));
    let out = toolgate(dir.path()).args(["run", "--jsonl"]).write_stdin(input).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["content"][0]["tool_use_id"], "b");
}

#[test]
fn settings_shows_rules_with_their_files_and_diagnostics() {
    let (_dir, home, project) = home_and_project();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(npm test)", "Bash(oops"], "defaultMode": "plan"}}"#,
    )
    .unwrap();
    let settings = || json_out(&toolgate_at(&home, &project).args(["--allow", "Read", "settings"]).output().unwrap());
    let untrusted = settings();
    assert_eq!(untrusted["trusted"], false);
    assert!(untrusted["diagnostics"][0].as_str().unwrap().contains("toolgate trust"), "{untrusted}");
    assert!(toolgate_at(&home, &project).arg("trust").output().unwrap().status.success());
    let v = settings();
    assert_eq!(v["trusted"], true);
    let rules = v["permissions"]["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["rule"] == "Read" && r["file"] == "--allowedTools"));
    assert!(rules.iter().any(|r| r["rule"] == "Bash(npm test)" && r["source"] == "projectSettings"));
    assert_eq!(v["permissions"]["defaultMode"], "plan");
    assert!(v["diagnostics"][0].as_str().unwrap().contains("'Bash(oops'"));
}

#[test]
fn hooks_list_and_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo blocked >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    let list = toolgate(dir.path()).args(["hooks", "list"]).output().unwrap();
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(text.contains("PreToolUse [Bash] echo blocked >&2; exit 2"), "{text}");
    let run = toolgate(dir.path())
        .args([
            "hooks",
            "run",
            "PreToolUse",
            "--input",
            r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}"#,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("blocked"), "{text}");
}

#[test]
fn completions_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolgate(dir.path()).args(["completions", "bash"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("_toolgate()"));
    let out = toolgate(dir.path()).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("toolgate "));
}

/// The rmcp test server binary, built beside `toolgate` in the same target folder.
fn test_server() -> Option<std::path::PathBuf> {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_toolgate"));
    let server = bin.with_file_name("toolgate-mcp-test-server");
    server.exists().then_some(server)
}

#[test]
fn mcp_list_reports_each_server_status() {
    let (_dir, home, project) = home_and_project();
    let mut servers = json!({"broken": {"command": "/nonexistent/mcp-server"}});
    if let Some(server) = test_server() {
        servers["test"] = json!({"command": server});
    }
    std::fs::write(project.join(".mcp.json"), json!({"mcpServers": servers}).to_string()).unwrap();
    let approve = json!({"enableAllProjectMcpServers": true}).to_string();
    std::fs::write(project.join(".claude/settings.local.json"), approve).unwrap();
    assert!(toolgate_at(&home, &project).arg("trust").output().unwrap().status.success());
    let out = toolgate_at(&home, &project).args(["mcp", "list"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_out(&out);
    let by_name = |n: &str| v.as_array().unwrap().iter().find(|s| s["name"] == n).cloned().unwrap();
    assert!(by_name("broken")["status"].as_str().unwrap().starts_with("failed"), "{v}");
    if test_server().is_some() {
        let test = by_name("test");
        assert_eq!(test["status"], "connected", "{v}");
        assert!(test["tools"].as_u64().unwrap() > 0);
    }
}

#[test]
fn mcp_serve_speaks_json_rpc_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello from toolgate\n").unwrap();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "Read", "arguments": {"file_path": dir.path().join("hello.txt")}}}),
    ];
    let mut serve = toolgate(dir.path());
    serve.args(["mcp", "serve"]);
    let replies = serve_replies(serve, &requests);
    let reply = |id: u64| {
        replies.iter().find(|r| r["id"] == id).cloned().unwrap_or_else(|| panic!("no reply {id}: {replies:?}"))
    };
    let tools = reply(2)["result"]["tools"].as_array().unwrap().clone();
    assert!(tools.iter().any(|t| t["name"] == "Read"));
    let read = reply(3);
    assert_eq!(read["result"]["isError"], false, "{read}");
    assert!(read["result"]["content"][0]["text"].as_str().unwrap().contains("hello from toolgate"));
}

#[test]
fn call_shows_an_edit_as_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "one\ntwo\nthree\n").unwrap();
    // Read first (in the same invocation's session dir), then edit in acceptEdits mode.
    let state = dir.path().join("state");
    let read = json!([{"type": "tool_use", "id": "r", "name": "Read", "input": {"file_path": file}}]).to_string();
    let out = toolgate(dir.path()).args(["run", "--session-dir"]).arg(&state).write_stdin(read).output().unwrap();
    assert!(out.status.success());
    let snapshot = std::fs::read_to_string(state.join("file-state.json")).unwrap();
    assert!(snapshot.contains("a.txt"), "the read was recorded for the next invocation");
    // A later invocation with the same session dir may edit without reading again.
    let edit = json!({"file_path": file, "old_string": "two", "new_string": "deux"});
    let out = toolgate(dir.path())
        .args(["--mode", "acceptEdits", "--session-dir"])
        .arg(&state)
        .args(["call", "Edit"])
        .arg(edit.to_string())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("@@ -1,3 +1,3 @@") && text.contains("-two") && text.contains("+deux"), "{text}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ndeux\nthree\n");
    std::fs::write(dir.path().join("b.txt"), "alpha\n").unwrap();
    let write = json!({"file_path": dir.path().join("c.txt"), "content": "new\nfile\n"});
    let out =
        toolgate(dir.path()).args(["--mode", "acceptEdits", "call", "Write"]).arg(write.to_string()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_task_list_lives_in_the_session_dir() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    for subject in ["Design", "Build"] {
        let input = json!({"subject": subject, "description": ""}).to_string();
        let out =
            toolgate(dir.path()).arg("--session-dir").arg(&state).args(["call", "TaskCreate"]).arg(input).output();
        assert!(out.unwrap().status.success());
    }
    let edge = json!({"taskId": "2", "addBlockedBy": ["1"]}).to_string();
    let out = toolgate(dir.path()).arg("--session-dir").arg(&state).args(["call", "TaskUpdate"]).arg(edge).output();
    assert!(out.unwrap().status.success());
    let out = toolgate(dir.path()).arg("--session-dir").arg(&state).args(["call", "TaskList", "{}"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("#1 [pending] Design") && text.contains("#2 [pending] Build [blocked by #1]"), "{text}");
    // No terminal, no person: the tools that need one are not offered.
    let ask = r#"{"questions": []}"#;
    let out = toolgate(dir.path()).args(["call", "AskUserQuestion", ask]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("No such tool available: AskUserQuestion"));
}

#[test]
fn mcp_format_definitions_carry_truthful_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolgate(dir.path()).args(["tools", "--format", "mcp"]).output().unwrap();
    let defs = json_out(&out);
    let hint = |name: &str| {
        defs.as_array().unwrap().iter().find(|d| d["name"] == name).unwrap()["annotations"]["readOnlyHint"].clone()
    };
    assert_eq!(hint("Read"), true);
    assert_eq!(hint("Grep"), true);
    assert_eq!(hint("Write"), false);
    assert_eq!(hint("Bash"), false);
}

#[test]
fn json_schema_offers_structured_output_and_project_skills_offer_skill() {
    let dir = tempfile::tempdir().unwrap();
    let names = |out: &std::process::Output| -> Vec<String> {
        json_out(out).as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap().to_owned()).collect()
    };
    let plain = toolgate(dir.path()).arg("tools").output().unwrap();
    assert!(!names(&plain).iter().any(|n| n == "StructuredOutput" || n == "Skill"));

    std::fs::write(
        dir.path().join("answer.json"),
        r#"{"type": "object", "properties": {"verdict": {"enum": ["pass", "fail"]}}, "required": ["verdict"]}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/commands")).unwrap();
    std::fs::write(dir.path().join(".claude/commands/triage.md"), "Triage $ARGUMENTS").unwrap();
    let tools = toolgate(dir.path()).args(["--json-schema", "answer.json", "tools"]).output().unwrap();
    let names = names(&tools);
    assert!(names.iter().any(|n| n == "StructuredOutput") && names.iter().any(|n| n == "Skill"), "{names:?}");

    let bad = toolgate(dir.path())
        .args(["--json-schema", "answer.json", "call", "StructuredOutput", r#"{"verdict": "maybe"}"#])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stdout).contains("verdict: expected one of"), "{bad:?}");
    let good = toolgate(dir.path())
        .args(["--json-schema", "answer.json", "call", "StructuredOutput", r#"{"verdict": "pass"}"#])
        .output()
        .unwrap();
    assert_eq!(good.status.code(), Some(0), "{good:?}");

    std::fs::write(dir.path().join("list.json"), r#"{"type": "array"}"#).unwrap();
    let refused = toolgate(dir.path()).args(["--json-schema", "list.json", "tools"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("must describe an object"), "{refused:?}");
}

#[test]
fn agent_tools_run_the_configured_agent_command_and_keep_durable_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("agent.sh"),
        "read -r line\necho \"answer: $line ($TOOLGATE_AGENT_TYPE) $TOOLGATE_MESSAGE_DIR\"\n",
    )
    .unwrap();
    let agent = json!({"description": "Say hello", "prompt": "hello"}).to_string();

    // Without TOOLGATE_AGENT_COMMAND there is no Agent tool.
    let out = toolgate(&root).env_remove("TOOLGATE_AGENT_COMMAND").args(["call", "Agent", &agent]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));

    let out = toolgate(&root)
        .env("TOOLGATE_AGENT_COMMAND", "sh agent.sh")
        .args(["--session-dir", "session", "call", "Agent", &agent])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let messages = root.join("session").join("messages");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("answer: hello (general-purpose) {}", messages.display())
    );

    // A named subagent that runs toolgate itself joins its parent's bus and writes back.
    std::fs::write(
        root.join("scout.sh"),
        "cat >/dev/null\n\"$TOOLGATE_BIN\" call SendMessage '{\"to\": \"main\", \"message\": \"found it\"}'\n",
    )
    .unwrap();
    let scout = json!({"description": "Scout", "prompt": "look", "name": "scout"}).to_string();
    let out = toolgate(&root)
        .env("TOOLGATE_AGENT_COMMAND", "sh scout.sh")
        .env("TOOLGATE_BIN", assert_cmd::cargo::cargo_bin("toolgate"))
        .args(["--session-dir", "session", "call", "Agent", &scout])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Message sent to main's inbox");
    let inbox: Vec<_> =
        std::fs::read_dir(messages.join("inbox").join("main")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(inbox.len(), 1);
    let message: Value = serde_json::from_str(&std::fs::read_to_string(&inbox[0]).unwrap()).unwrap();
    assert_eq!((message["from"].as_str(), message["message"].as_str()), (Some("scout"), Some("found it")));

    // The folder bus: an unknown recipient is an error naming who exists.
    let out = toolgate(&root)
        .args(["--session-dir", "session", "call", "SendMessage", r#"{"to": "ghost", "message": "hi"}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("known agents: main"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // Regression: installing the agent services once replaced the session's other
    // services, and Config lost its settings discovery.
    std::fs::write(root.join("extra.json"), r#"{"model": "opus-from-flag"}"#).unwrap();
    let out = toolgate(&root)
        .args(["--settings", "extra.json", "call", "Config", r#"{"setting": "model"}"#])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("opus-from-flag"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // A durable job outlives the process that created it.
    let out = toolgate(&root)
        .args(["call", "CronCreate", r#"{"cron": "0 9 * * 1", "prompt": "weekly report", "durable": true}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(".claude/scheduled_tasks.json")).unwrap()).unwrap();
    let id = saved["tasks"][0]["id"].as_str().unwrap().to_owned();
    let out = toolgate(&root).args(["call", "CronList"]).output().unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.starts_with(&format!("{id} — `0 9 * * 1` (recurring, durable)")), "{list}");
}

/// The live processes whose environment holds `marker`.
#[cfg(feature = "lsp")]
fn processes_with_env(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        let state = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = state.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z'));
        if !zombie && environ.split(|b| *b == 0).any(|var| var == marker.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

/// The language servers a session starts are shut down when it ends: `toolgate call LSP`
/// answers from the pinned typescript-language-server, and afterwards no process that
/// carries the test's marker in its environment (the server and its tsserver) is left.
#[cfg(feature = "lsp")]
#[test]
fn lsp_answers_and_its_servers_end_with_the_session() {
    let tsls = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../.ci/node/node_modules/.bin/typescript-language-server");
    let node = std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("node").is_file()));
    if !node || !tsls.is_file() {
        assert!(std::env::var_os("CI").is_none(), "node or {} is missing: .ci/run installs it", tsls.display());
        eprintln!("skipped: node or {} is missing (.ci/run installs it)", tsls.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A home of its own: an approval for the home folder itself, which holds every project,
    // is not kept.
    let home = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tsconfig.json"), r#"{"compilerOptions": {"lib": ["es2020"]}, "include": ["src"]}"#)
        .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.ts"), "export function hi(): number {\n  return 1;\n}\nhi();\n").unwrap();
    let marker = format!("TOOLGATE_LSP_TEST_MARKER={}-{:?}", std::process::id(), std::time::SystemTime::now());
    let (key, value) = marker.split_once('=').unwrap();
    let servers = json!({"typescript": {
        "command": tsls,
        "args": ["--stdio"],
        "extensionToLanguage": {".ts": "typescript"},
        "initializationOptions": {"tsserver": {"useSyntaxServer": "never"}},
        "env": {key: value}
    }});
    let input = json!({"operation": "goToDefinition", "filePath": "src/a.ts", "line": 4, "character": 1});
    let out = toolgate_at(home.path(), dir.path())
        .env("TOOLGATE_LSP_SERVERS", servers.to_string())
        .args(["--allow", "LSP", "call", "LSP"])
        .arg(input.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Defined in src/a.ts:1:17"), "{stdout}");
    // SIGKILL is delivered asynchronously: the group's last members may still be dying as
    // toolgate exits, so poll (bounded, 10 s) for them to be gone.
    let mut left = processes_with_env(&marker);
    for _ in 0..1_000 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        left = processes_with_env(&marker);
    }
    assert_eq!(left, Vec::<u32>::new(), "language server processes outlived the session");
    // The start was approved (by `--allow LSP`): it is remembered in the user's Claude folder
    // for this server and project, so a later session does not ask again.
    let record = std::fs::read_to_string(home.path().join(".claude/toolgate/lsp-approved.json")).unwrap();
    assert!(record.contains("typescript-language-server"), "{record}");
    let later = toolgate_at(home.path(), dir.path())
        .env("TOOLGATE_LSP_SERVERS", servers.to_string())
        .args(["check", "LSP"])
        .arg(input.to_string())
        .arg("--json")
        .output()
        .unwrap();
    let decision: Value = serde_json::from_slice(&later.stdout).unwrap();
    assert_eq!(decision["behavior"], "allow", "{decision}");
}

#[test]
fn sandbox_settings_put_bash_under_bubblewrap() {
    let dir = tempfile::tempdir().unwrap();
    // Outside the working dir and outside /tmp, which the sandbox replaces with its own.
    let outside = tempfile::tempdir_in(if Path::new("/var/tmp").is_dir() {
        Path::new("/var/tmp")
    } else {
        Path::new(env!("CARGO_TARGET_TMPDIR"))
    })
    .unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true, "failIfUnavailable": true}}"#,
    )
    .unwrap();
    let call = |command: String| {
        let input = json!({ "command": command }).to_string();
        let out = toolgate(dir.path()).args(["--allow", "Bash", "call", "Bash", &input, "--json"]).output().unwrap();
        json_out(&out)
    };
    // failIfUnavailable: a missing or refused bubblewrap is an error that says so.
    let probe = call("true".to_owned());
    if probe["is_error"] == true {
        let text = probe.to_string();
        assert!(text.contains("bubblewrap"), "{text}");
        eprintln!("skipped: bubblewrap cannot make a sandbox here: {text}");
        return;
    }
    let target = outside.path().join("escaped.txt");
    let v = call(format!("touch '{}'", target.display()));
    assert_eq!(v["is_error"], true, "{v}");
    assert!(v.to_string().contains("Read-only file system"), "{v}");
    assert!(!target.exists());
    let v = call("touch inside.txt".to_owned());
    assert_eq!(v["is_error"], false, "{v}");
    assert!(dir.path().join("inside.txt").exists());
}

/// An untrusted folder's settings only tighten: its allow rule and hook have no effect, and a
/// diagnostic names `toolgate trust`; after it, both apply.
#[test]
fn an_untrusted_project_allow_rule_and_hook_wait_for_toolgate_trust() {
    let (_dir, home, project) = home_and_project();
    let hook_marker = project.join("hook-ran");
    let hook = json!({"type": "command", "command": format!("touch {}", hook_marker.display())});
    let settings = json!({
        "permissions": {"allow": ["Bash(touch made)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
    });
    std::fs::write(project.join(".claude/settings.json"), settings.to_string()).unwrap();
    let call = || toolgate_at(&home, &project).args(["call", "Bash", r#"{"command": "touch made"}"#]).output().unwrap();
    let out = call();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("toolgate trust"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!project.join("made").exists() && !hook_marker.exists(), "the untrusted allow rule or hook applied");
    let trusted = toolgate_at(&home, &project).arg("trust").output().unwrap();
    assert!(trusted.status.success(), "{}", String::from_utf8_lossy(&trusted.stderr));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(record["projects"][project.display().to_string()]["hasTrustDialogAccepted"], true);
    let out = call();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(project.join("made").exists() && hook_marker.exists());
    let refused = toolgate_at(&home, &home).arg("trust").output().unwrap();
    assert!(!refused.status.success(), "trusting the home folder trusts every project below it");
}

/// A project's `.mcp.json` server never starts for `check`, `tools`, `settings` or `mcp list`
/// until the folder is trusted and the server approved; `check` starts nothing even then, and
/// decides on the tool's name (a user rule allows it); a name with `__` is refused.
#[test]
fn a_project_mcp_server_starts_only_once_trusted_and_approved() {
    let (_dir, home, project) = home_and_project();
    let marker = project.join("started");
    let script = format!("touch {}; exec sleep 60", marker.display());
    let servers = json!({"srv": {"command": "sh", "args": ["-c", script]}, "srv__evil": {"command": "sh"}});
    std::fs::write(project.join(".mcp.json"), json!({"mcpServers": servers}).to_string()).unwrap();
    let allow = json!({"permissions": {"allow": ["mcp__srv__drop"]}});
    std::fs::write(home.join(".claude.json"), "{}").unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), allow.to_string()).unwrap();
    let run = |args: &[&str]| toolgate_at(&home, &project).env("MCP_TIMEOUT", "1500").args(args).output().unwrap();
    // With no person to ask, `tools` says why the server was not started and what starts it.
    let not_started = |when: &str, why: &str| {
        for args in [&["check", "mcp__srv__drop", "{}"][..], &["tools"], &["settings"], &["mcp", "list"]] {
            let out = run(args);
            assert!(!marker.exists(), "{when}: `toolgate {}` started the server", args.join(" "));
            if args[0] == "tools" {
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(stderr.contains("`srv` was not started") && stderr.contains(why), "{when}: {stderr}");
            }
            if args[0] == "check" {
                assert!(
                    String::from_utf8_lossy(&out.stdout).starts_with("allow"),
                    "{}",
                    String::from_utf8_lossy(&out.stdout)
                );
            }
            if args[0] == "mcp" {
                let listed = String::from_utf8_lossy(&out.stdout).into_owned();
                assert!(listed.contains("not started") && !listed.contains("srv__evil"), "{listed}");
            }
        }
    };
    not_started("untrusted", "toolgate trust [DIR]");
    assert!(run(&["trust"]).status.success());
    not_started("trusted, not approved", "enabledMcpjsonServers");
    std::fs::write(project.join(".claude/settings.local.json"), r#"{"enabledMcpjsonServers": ["srv"]}"#).unwrap();
    let check = run(&["check", "mcp__srv__drop", "{}"]);
    assert!(String::from_utf8_lossy(&check.stdout).starts_with("allow"), "{}", String::from_utf8_lossy(&check.stdout));
    assert!(!marker.exists(), "check started the approved server");
    run(&["tools"]);
    assert!(marker.exists(), "the approved server was not started by `tools`");
}

/// `toolgate mcp serve` answers its own `initialize` and lists its tools while a configured
/// server has not answered yet: the servers start in the background (a hanging one held every
/// answer up for its whole start-up timeout before).
#[test]
fn mcp_serve_does_not_wait_for_a_slow_server() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let config = json!({"mcpServers": {"hangs": {"command": "sleep", "args": ["600"]}}}).to_string();
    let read = json!({"name": "Read", "arguments": {"file_path": dir.path().join("a.txt")}});
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": read}),
    ];
    let started = std::time::Instant::now();
    // The server's start-up timeout (five minutes) is far past the test's limit: only a serve
    // that does not wait for it can answer in time.
    let mut serve = toolgate(dir.path());
    serve.env("MCP_TIMEOUT", "300000").args(["--mcp-config", &config, "mcp", "serve"]);
    let replies = serve_replies(serve, &requests);
    assert!(replies.iter().any(|r| r["id"] == 1 && r["result"]["serverInfo"].is_object()), "{replies:?}");
    let tools = replies.iter().find(|r| r["id"] == 2).unwrap_or_else(|| panic!("no tools/list reply: {replies:?}"));
    assert!(tools["result"]["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["name"] == "Read")), "{tools}");
    // A built-in Read is answered while the other server is still starting.
    let read = replies.iter().find(|r| r["id"] == 3).unwrap_or_else(|| panic!("no Read reply: {replies:?}"));
    assert!(read["result"].to_string().contains("alpha") && read["result"]["isError"] != true, "{read}");
    assert!(started.elapsed() < std::time::Duration::from_secs(120), "took {:?}", started.elapsed());
}

/// Under `mcp serve`, a call of a tool of a server still starting waits for the server (here
/// until its start-up timeout, as it never answers), then says why it could not run: not a
/// bare "No such tool" while the server was still starting.
#[test]
fn mcp_serve_waits_for_a_starting_server_before_calling_its_tool() {
    let dir = tempfile::tempdir().unwrap();
    let config = json!({"mcpServers": {"never": {"command": "sleep", "args": ["600"]}}}).to_string();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "mcp__never__echo", "arguments": {}}}),
    ];
    let mut serve = toolgate(dir.path());
    serve.env("MCP_TIMEOUT", "500").args(["--mcp-config", &config, "mcp", "serve"]);
    let replies = serve_replies(serve, &requests);
    let call = replies.iter().find(|r| r["id"] == 2).unwrap_or_else(|| panic!("no call reply: {replies:?}"));
    assert_eq!(call["result"]["isError"], true, "{call}");
    let text = call["result"]["content"].to_string();
    assert!(text.contains("could not be started: did not finish starting within 500 ms"), "{call}");
}

/// Regression: every `toolgate call` started every configured MCP server and waited for
/// it, so a server that never answers `initialize` held a built-in Read up for
/// `MCP_TIMEOUT`. A built-in call starts none (the server never writes its marker); a call
/// of the server's tool does start it.
#[test]
fn a_built_in_call_starts_no_mcp_server() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let marker = dir.path().join("started");
    let script = format!("touch {}; exec sleep 60", marker.display());
    let other_marker = dir.path().join("other-started");
    let other = format!("touch {}; exec sleep 60", other_marker.display());
    let config = json!({"mcpServers": {
        "slow": {"command": "sh", "args": ["-c", script]},
        "other": {"command": "sh", "args": ["-c", other]},
    }})
    .to_string();
    let read = json!({"file_path": dir.path().join("a.txt")}).to_string();
    let out = toolgate(dir.path())
        .env("MCP_TIMEOUT", "2000")
        .args(["--mcp-config", &config, "call", "Read", &read])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("alpha"));
    assert!(!marker.exists(), "the MCP server was started for a built-in Read");
    let out = toolgate(dir.path())
        .env("MCP_TIMEOUT", "500")
        .args(["--mcp-config", &config, "call", "mcp__slow__anything", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(marker.exists(), "a call of the server's tool starts it");
    assert!(!other_marker.exists(), "a call of one server's tool started another server");
}

/// An `mcp_tool` hook calls a tool of the session's MCP server (the test server's `echo`, which
/// hands back the decision it is given) with the event's input filled in; its answer is read
/// as a hook's output.
#[test]
fn an_mcp_tool_hook_decides_through_an_mcp_servers_tool() {
    let Some(server) = test_server() else {
        assert!(std::env::var_os("CI").is_none(), "the test server binary is not built (CI builds it)");
        eprintln!("skipped: the test server binary is not built");
        return;
    };
    let (_dir, home, project) = home_and_project();
    let trust = json!({"projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(home.join(".claude.json"), trust.to_string()).unwrap();
    let reply = r#"{"decision": "block", "reason": "mcp says no to ${tool_input.command}"}"#;
    let hook = json!({"type": "mcp_tool", "server": "test", "tool": "echo", "input": {"text": reply}});
    let on_other = r#"{"decision": "block", "reason": "mcp says no to ${tool_input.text}"}"#;
    let other_hook = json!({"type": "mcp_tool", "server": "test", "tool": "echo", "input": {"text": on_other}});
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [hook]},
        {"matcher": "mcp__other__echo", "hooks": [other_hook]}
    ]}});
    std::fs::write(project.join(".claude/settings.json"), settings.to_string()).unwrap();
    let servers = json!({"mcpServers": {"test": {"command": server}, "other": {"command": server}}}).to_string();
    let message = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "echo hi"}}
    ]});
    let out = toolgate_at(&home, &project)
        .args(["--mcp-config", &servers, "--allow", "Bash", "run", "-"])
        .write_stdin(message.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("mcp says no to echo hi"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // `call` of a built-in tool starts the servers too when a hook calls them.
    let out = toolgate_at(&home, &project)
        .args(["--mcp-config", &servers, "--allow", "Bash", "call", "Bash", r#"{"command": "echo there"}"#])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("mcp says no to echo there"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // So does `call` of another server's tool: the hook's server starts with it (it did not,
    // and the hook failed open).
    let out = toolgate_at(&home, &project)
        .args(["--mcp-config", &servers, "--allow", "mcp__other", "call", "mcp__other__echo", r#"{"text": "sneaky"}"#])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("mcp says no to sneaky"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

/// An `agent` hook runs the Agent tool's subagent command (`TOOLGATE_AGENT_COMMAND`); its final
/// `{"ok": false, "reason": …}` blocks the call.
#[test]
fn an_agent_hook_blocks_through_the_subagent_command() {
    let (_dir, home, project) = home_and_project();
    let trust = json!({"projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(home.join(".claude.json"), trust.to_string()).unwrap();
    let hook = json!({"type": "agent", "prompt": "Is this fine? $ARGUMENTS"});
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}});
    std::fs::write(project.join(".claude/settings.json"), settings.to_string()).unwrap();
    let agent = r#"grep -q 'echo hi' && echo '{"ok": false, "reason": "the subagent says no"}'"#;
    let out = toolgate_at(&home, &project)
        .env("TOOLGATE_AGENT_COMMAND", agent)
        .args(["--allow", "Bash", "call", "Bash", r#"{"command": "echo hi"}"#])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("the subagent says no"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1));
}

/// `$CLAUDE_CONFIG_DIR` is the user's Claude folder under another name: its files (settings,
/// toolgate's LSP approvals) are as protected as `~/.claude`'s, in every mode.
#[test]
fn the_claude_config_dir_is_protected_whatever_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("cfg");
    std::fs::create_dir_all(config.join("toolgate")).unwrap();
    let target = config.join("toolgate/lsp-approved.json");
    for mode in ["acceptEdits", "bypassPermissions"] {
        let out = toolgate(dir.path())
            .env("CLAUDE_CONFIG_DIR", &config)
            .args(["--mode", mode, "--add-dir"])
            .arg(&config)
            .args(["check", "Write"])
            .arg(json!({"file_path": target, "content": "{}"}).to_string())
            .arg("--json")
            .output()
            .unwrap();
        let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(decision["behavior"], "ask", "{mode}: {decision}");
        assert!(decision["message"].as_str().unwrap().contains("Claude configuration folder"), "{decision}");
    }
}

/// A user's programs file makes a program read-only; a project's is ignored with a
/// diagnostic; `toolgate programs check` reports a bad entry with its path and an example
/// that does not hold.
#[test]
fn a_users_programs_file_teaches_the_analysis_and_a_projects_is_ignored() {
    let (_dir, home, project) = home_and_project();
    let check = |cmd: &mut Command| {
        json_out(&cmd.args(["check", "Bash", r#"{"command": "mdcat README.md"}"#, "--json"]).output().unwrap())
    };
    assert_eq!(check(&mut toolgate_at(&home, &project))["behavior"], "ask", "not read-only before it is taught");
    let entry = r#"{"programs": [{"name": "mdcat", "read_only": {"deny": ["--output"]},
        "examples": {"read_only": ["mdcat README.md"], "not_read_only": ["mdcat --output x README.md"]}}]}"#;
    std::fs::write(project.join(".claude/toolgate").tap_mkdir().join("programs.json"), entry).unwrap();
    assert_eq!(check(&mut toolgate_at(&home, &project))["behavior"], "ask", "a project's file is not read");
    let list = toolgate_at(&home, &project).args(["programs", "list"]).output().unwrap();
    let list = String::from_utf8_lossy(&list.stderr).into_owned();
    assert!(list.contains("programs.json: ignored: a project cannot teach toolgate"), "{list}");
    let user_file = home.join(".claude/toolgate").tap_mkdir().join("programs.json");
    std::fs::write(&user_file, entry).unwrap();
    assert_eq!(check(&mut toolgate_at(&home, &project))["behavior"], "allow");
    let denied = toolgate_at(&home, &project)
        .args(["check", "Bash", r#"{"command": "mdcat --output x README.md"}"#, "--json"])
        .output()
        .unwrap();
    assert_eq!(json_out(&denied)["behavior"], "ask");
    let show = toolgate_at(&home, &project).args(["programs", "show", "mdcat"]).output().unwrap();
    assert_eq!(json_out(&show)["source"], user_file.display().to_string());
    let ok = toolgate_at(&home, &project).args(["programs", "check"]).arg(&user_file).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stdout));
    let bad = home.join("bad.json");
    std::fs::write(&bad, r#"{"programs": [{"name": "mdcat", "read_only": true, "examples": {"not_read_only": ["mdcat --output x a"]}}, {"name": "a/b"}]}"#).unwrap();
    let out = toolgate_at(&home, &project).args(["programs", "check"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("bad.json: programs[1].name: \"a/b\" is not a program's bare name")
    );
    std::fs::write(&bad, r#"{"programs": [{"name": "mdcat", "read_only": true, "examples": {"not_read_only": ["mdcat --output x a"]}}]}"#).unwrap();
    let out = toolgate_at(&home, &project).args(["programs", "check"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("programs[0].examples.not_read_only[0]: \"mdcat --output x a\" is read-only with this entry"),
        "{stdout}"
    );
}

/// Creates a folder and gives it back, for building a path in one expression.
trait MkDir {
    fn tap_mkdir(self) -> std::path::PathBuf;
}

impl MkDir for std::path::PathBuf {
    fn tap_mkdir(self) -> std::path::PathBuf {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}
