//! The interactive prompt in a real pseudo-terminal: util-linux `script` gives the binary a
//! pty for stdin, stdout and stderr, and the test types the answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;

/// Whether util-linux `script` (the pty these tests type into) is there; outside CI a test
/// without it is skipped with a note, under `CI` it fails (`.ci/run` installs it).
fn has_script() -> bool {
    let there = Path::new("/usr/bin/script").exists();
    assert!(there || std::env::var_os("CI").is_none(), "util-linux `script` is missing: .ci/run installs it");
    if !there {
        eprintln!("skipped: util-linux `script` is not installed");
    }
    there
}

/// Runs `toolgate ARGS` in a pty with `keys` typed; returns (exit code, screen text).
async fn in_pty(dir: &Path, args: &str, keys: &str) -> Option<(Option<i32>, String)> {
    in_pty_at(dir, dir, args, keys).await
}

/// [`in_pty`] with `home` as the home folder.
async fn in_pty_at(home: &Path, dir: &Path, args: &str, keys: &str) -> Option<(Option<i32>, String)> {
    if !has_script() {
        return None;
    }
    let bin = env!("CARGO_BIN_EXE_toolgate");
    let command = format!("{bin} {args}");
    let outcome = ProcessSpec::exec("/usr/bin/script", ["-qefc", command.as_str(), "/dev/null"])
        .cwd(dir)
        .env("HOME", home)
        // A server that never answers (the MCP test's) is given up soon.
        .env("MCP_TIMEOUT", "3000")
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

    // An ask rule asks every time: "always allow" would save a rule that never wins over it.
    assert!(!screen.contains("always allow"), "{screen}");

    // A call no rule allows offers to save the rule that would.
    let touch = r#"call Bash '{"command": "touch made"}'"#;
    let Some((code, screen)) = in_pty(dir.path(), touch, "a").await else { return };
    assert_eq!(code, Some(0), "{screen}");
    assert!(dir.path().join("made").exists(), "{screen}");
    let saved = std::fs::read_to_string(dir.path().join(".claude/settings.local.json")).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["permissions"]["allow"], serde_json::json!(["Bash(touch:*)"]));
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

/// In a folder not yet trusted whose settings were cut down, the terminal offers to trust it:
/// `n` leaves them cut down (the call asks), `y` records trust and the project's allow rule
/// applies at once.
#[tokio::test]
async fn the_terminal_offers_to_trust_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (home, project) = (base.join("home"), base.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(project.join(".claude/settings.json"), r#"{"permissions": {"allow": ["Bash(touch made)"]}}"#)
        .unwrap();
    let call = r#"call Bash '{"command": "touch made"}'"#;
    let Some((code, screen)) = in_pty_at(&home, &project, call, "nn").await else { return };
    assert!(screen.contains("do you trust the files in"), "{screen}");
    assert_eq!(code, Some(1), "{screen}");
    assert!(!project.join("made").exists() && !home.join(".claude.json").exists(), "{screen}");
    let Some((code, screen)) = in_pty_at(&home, &project, call, "y").await else { return };
    assert_eq!(code, Some(0), "{screen}");
    assert!(project.join("made").exists(), "{screen}");
    let record = std::fs::read_to_string(home.join(".claude.json")).unwrap();
    assert!(record.contains("hasTrustDialogAccepted"), "{record}");
}

/// In a trusted folder, the terminal asks about a `.mcp.json` server not yet approved: `a`
/// saves the approval in `.claude/settings.local.json` and the server starts.
#[tokio::test]
async fn the_terminal_asks_before_a_project_mcp_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (home, project) = (base.join("home"), base.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let marker = project.join("started");
    let script = format!("touch {}; exec sleep 60", marker.display());
    let servers = serde_json::json!({"mcpServers": {"srv": {"command": "sh", "args": ["-c", script]}}});
    std::fs::write(project.join(".mcp.json"), servers.to_string()).unwrap();
    let trust = serde_json::json!({"projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(home.join(".claude.json"), trust.to_string()).unwrap();
    let call = "call mcp__srv__anything '{}'";
    let Some((_, screen)) = in_pty_at(&home, &project, call, "a").await else { return };
    assert!(screen.contains("starts the MCP server"), "{screen}");
    let saved = std::fs::read_to_string(project.join(".claude/settings.local.json")).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["enabledMcpjsonServers"], serde_json::json!(["srv"]));
    assert!(marker.exists(), "the approved server did not start: {screen}");
}

/// An MCP server's question (`elicitation/create`) is asked on the terminal field by field, and
/// the answers reach the server (server-everything's `trigger-elicitation-request` echoes them).
#[tokio::test]
async fn the_terminal_answers_an_mcp_servers_question() {
    let node_modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node/node_modules");
    let script = node_modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    let node =
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join("node")).find(|n| n.is_file()));
    let (Some(node), true) = (node, script.is_file()) else {
        assert!(std::env::var_os("CI").is_none(), "node or {} is missing: .ci/run installs it", script.display());
        eprintln!("skipped: node or {} is missing (.ci/run installs it)", script.display());
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let servers = serde_json::json!({"mcpServers": {"everything": {"command": node, "args": [script, "stdio"]}}});
    std::fs::write(dir.path().join("mcp.json"), servers.to_string()).unwrap();
    if !has_script() {
        return;
    }
    // y: run the call; a: answer the question; the name (the one required field, asked
    // first), then Enter past the optional fields. Typed once the server is up (it starts
    // first), and the terminal kept open until the call is done.
    let command = format!(
        "(sleep 2; printf 'yaAda{}'; sleep 6) | /usr/bin/script -qefc '{} --mcp-config mcp.json call \
         mcp__everything__trigger-elicitation-request {{}}' /dev/null",
        "\\n".repeat(31),
        env!("CARGO_BIN_EXE_toolgate")
    );
    let outcome = ProcessSpec::exec("sh", ["-c", command.as_str()])
        .cwd(dir.path())
        .env("HOME", dir.path())
        .env("TERM", "xterm")
        .env_remove("TOOLGATE_NO_PROMPT")
        .timeout(Duration::from_secs(60))
        .run(&CancellationToken::new())
        .await
        .unwrap();
    let (code, screen) = (outcome.status.code(), outcome.stdout.text().into_owned());
    assert!(screen.contains("the MCP server") && screen.contains("asks: Please provide inputs"), "{screen}");
    assert!(screen.contains("- Name: Ada"), "{screen}");
    assert_eq!(code, Some(0), "{screen}");
}
