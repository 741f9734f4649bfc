//! `toolgate hook` as Claude Code runs it: a hook input on stdin, a hook output on stdout.
//!
//! `fixtures/claude-code-hook-inputs.jsonl` holds PreToolUse inputs Claude Code 2.1.197 sent to a
//! hook (captured with `../shared/oracles/claude-code/`, the run's folders written `$CWD` and
//! `$HOME`). Claude Code in `-p` mode sends no PermissionRequest input, so that event's tests use
//! the documented shape (`tool_name`, `tool_input`, `permission_suggestions`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

/// A trusted project with `deny Bash(rm:*)` and `deny Read(./secret.txt)`, and its own home.
struct Project {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    root: std::path::PathBuf,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (home, root) = (base.join("home"), base.join("project"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        let trust = json!({"projects": {root.display().to_string(): {"hasTrustDialogAccepted": true}}});
        std::fs::write(home.join(".claude.json"), trust.to_string()).unwrap();
        let settings = json!({"permissions": {"deny": ["Bash(rm:*)", "Read(./secret.txt)"]}});
        std::fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
        std::fs::write(root.join("a.txt"), "hello\n").unwrap();
        std::fs::write(root.join("secret.txt"), "s3cret\n").unwrap();
        Self { _dir: dir, home, root }
    }

    /// `toolgate hook ARGS` run from elsewhere with `input` on stdin: exit code and stdout.
    fn hook(&self, args: &[&str], input: &str) -> (Option<i32>, String, String) {
        let out = Command::cargo_bin("toolgate")
            .unwrap()
            .env("HOME", &self.home)
            .env("TOOLGATE_NO_PROMPT", "1")
            .env_remove("CLAUDE_CONFIG_DIR")
            .current_dir(&self.home)
            .arg("hook")
            .args(args)
            .write_stdin(input)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).trim().to_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    }

    /// A hook input for this project, Claude Code's shape.
    fn input(&self, event: &str, mode: &str, tool: &str, tool_input: Value) -> String {
        json!({
            "session_id": "s", "transcript_path": self.home.join("t.jsonl"), "cwd": self.root,
            "permission_mode": mode, "hook_event_name": event, "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_1"
        })
        .to_string()
    }

    /// The decision in a PreToolUse reply, `""` for no opinion.
    fn pre_tool_use(&self, args: &[&str], mode: &str, tool: &str, tool_input: Value) -> (String, String) {
        let (code, stdout, stderr) = self.hook(args, &self.input("PreToolUse", mode, tool, tool_input));
        assert_eq!(code, Some(0), "{stderr}");
        decision(&stdout)
    }
}

/// The decision and reason of a PreToolUse reply; empty for no opinion.
fn decision(stdout: &str) -> (String, String) {
    if stdout.is_empty() {
        return (String::new(), String::new());
    }
    let reply: Value = serde_json::from_str(stdout).unwrap();
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse");
    (
        out["permissionDecision"].as_str().unwrap().to_owned(),
        out["permissionDecisionReason"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn claude_codes_own_inputs_are_decided_with_the_projects_settings() {
    let p = Project::new();
    let fixtures = include_str!("fixtures/claude-code-hook-inputs.jsonl");
    let expected = [
        ("Bash", "deny"), // rm a.txt: deny Bash(rm:*)
        ("Edit", "ask"),  // default mode: an edit asks
        ("Read", ""),     // a read inside the project: no opinion
        ("Write", "ask"),
        ("Glob", ""), // bypassPermissions
        ("Grep", ""),
        ("Bash", ""), // ls
    ];
    let lines: Vec<&str> = fixtures.lines().collect();
    assert_eq!(lines.len(), expected.len());
    for (line, (tool, want)) in lines.iter().zip(expected) {
        let input = line.replace("$CWD", &p.root.display().to_string()).replace("$HOME", &p.home.display().to_string());
        let parsed: Value = serde_json::from_str(&input).unwrap();
        assert_eq!(parsed["tool_name"], tool);
        let (code, stdout, stderr) = p.hook(&[], &input);
        assert_eq!(code, Some(0), "{stderr}");
        let (got, reason) = decision(&stdout);
        assert_eq!(got, want, "{line}\n{reason}");
        if got == "deny" {
            assert!(reason.starts_with("toolgate: ") && reason.contains("Bash(rm:*)"), "{reason}");
        }
    }
}

/// What Claude Code alone asks about or runs (in bypassPermissions) past `deny Bash(rm:*)`,
/// the hook denies, in every mode.
#[test]
fn commands_claude_code_lets_through_are_denied() {
    let p = Project::new();
    for command in [
        "(rm a.txt)",
        "bash -c 'rm a.txt'",
        "/bin/rm a.txt",
        "echo $(rm a.txt)",
        "cat <<E'O'F\nx\nEOF\nrm a.txt\nE'O'F",
    ] {
        for mode in ["default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"] {
            let (got, reason) = p.pre_tool_use(&[], mode, "Bash", json!({"command": command, "description": "x"}));
            assert_eq!(got, "deny", "{command:?} in {mode}: {reason}");
        }
    }
    let (got, _) = p.pre_tool_use(&[], "bypassPermissions", "Read", json!({"file_path": p.root.join("secret.txt")}));
    assert_eq!(got, "deny", "Read deny rules hold");
}

/// Claude Code's Agent (and its old name, Task) is judged by the rules though toolgate runs no
/// subagents here: `deny Agent(Explore)` denies it.
#[test]
fn claude_codes_agent_calls_meet_agent_rules() {
    let p = Project::new();
    let settings = json!({"permissions": {"deny": ["Agent(Explore)"]}});
    std::fs::write(p.root.join(".claude/settings.json"), settings.to_string()).unwrap();
    for name in ["Agent", "Task"] {
        let input = json!({"description": "look", "prompt": "find the bug", "subagent_type": "Explore"});
        let (got, reason) = p.pre_tool_use(&[], "default", name, input);
        assert_eq!(got, "deny", "{name}: {reason}");
        let other = json!({"description": "look", "prompt": "find the bug", "subagent_type": "general-purpose"});
        assert_ne!(p.pre_tool_use(&[], "bypassPermissions", name, other).0, "deny", "{name}");
    }
}

#[test]
fn allow_stands_only_with_decide() {
    let p = Project::new();
    let ls = json!({"command": "ls", "description": "list"});
    assert_eq!(p.pre_tool_use(&[], "default", "Bash", ls.clone()).0, "");
    assert_eq!(p.pre_tool_use(&["--decide"], "default", "Bash", ls).0, "allow");
    // A field toolgate does not read (here one that would choose another shell) leaves the
    // call to Claude Code: toolgate's allow covers only what it read.
    let unread = json!({"command": "ls", "description": "list", "shell": "/tmp/evil-shell"});
    assert_eq!(p.pre_tool_use(&["--decide"], "default", "Bash", unread).0, "");
    // The mode is the input's: acceptEdits approves an edit inside the project.
    let edit =
        json!({"file_path": p.root.join("a.txt"), "old_string": "hello", "new_string": "bye", "replace_all": false});
    assert_eq!(p.pre_tool_use(&["--decide"], "acceptEdits", "Edit", edit.clone()).0, "allow");
    assert_eq!(p.pre_tool_use(&["--decide"], "default", "Edit", edit).0, "ask");
}

#[test]
fn permission_requests_are_denied_or_left_to_the_person() {
    let p = Project::new();
    let request = |tool: &str, tool_input: Value, args: &[&str]| {
        let mut input: Value =
            serde_json::from_str(&p.input("PermissionRequest", "default", tool, tool_input)).unwrap();
        input.as_object_mut().unwrap().remove("tool_use_id");
        input["permission_suggestions"] = json!([]);
        let (code, stdout, stderr) = p.hook(args, &input.to_string());
        assert_eq!(code, Some(0), "{stderr}");
        stdout
    };
    let denied: Value = serde_json::from_str(&request("Bash", json!({"command": "(rm a.txt)"}), &[])).unwrap();
    assert_eq!(denied["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
    assert_eq!(denied["hookSpecificOutput"]["decision"]["behavior"], "deny");
    assert!(denied["hookSpecificOutput"]["decision"]["message"].as_str().unwrap().contains("Bash(rm:*)"));
    assert_eq!(request("Bash", json!({"command": "git push"}), &["--decide"]), "", "an ask is the person's");
    let allowed: Value = serde_json::from_str(&request("Bash", json!({"command": "ls"}), &["--decide"])).unwrap();
    assert_eq!(allowed["hookSpecificOutput"]["decision"], json!({"behavior": "allow"}));
}

#[test]
fn what_toolgate_cannot_judge_gets_no_opinion_and_bad_input_blocks() {
    let p = Project::new();
    assert_eq!(p.pre_tool_use(&[], "default", "Workflow", json!({"name": "x"})), (String::new(), String::new()));
    let stop = json!({"session_id": "s", "cwd": p.root, "hook_event_name": "Stop", "stop_hook_active": false});
    assert_eq!(p.hook(&[], &stop.to_string()), (Some(0), String::new(), String::new()));
    // Not a hook input: exit 2, which blocks the call, saying what was wrong.
    let (code, stdout, stderr) = p.hook(&[], "not json");
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert!(stderr.contains("not a Claude Code hook input"), "{stderr}");
}

#[test]
fn install_and_uninstall_change_only_the_chosen_settings_file() {
    let p = Project::new();
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("toolgate")
            .unwrap()
            .env("HOME", &p.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .current_dir(&p.root)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = run(&["hook", "install"]);
    let user = p.home.join(".claude/settings.json");
    assert!(said.contains(&user.display().to_string()), "{said}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
    let command = doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    assert!(command.ends_with(" hook") && Path::new(command.split(' ').next().unwrap()).is_absolute(), "{command}");
    assert_eq!(doc["hooks"]["PermissionRequest"][0]["hooks"][0]["command"], command);
    run(&["hook", "install", "--project", "--decide"]);
    let project: Value =
        serde_json::from_str(&std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap()).unwrap();
    assert_eq!(project["permissions"]["deny"][0], "Bash(rm:*)", "the rest is kept");
    assert!(project["hooks"]["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap().ends_with(" hook --decide"));
    assert!(run(&["hook", "uninstall"]).contains("removed 2"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
    assert_eq!(doc, json!({}));
}
