//! Path safety through a pipeline session with a settings file: every file tool resolves
//! `..` and symlinks before the permission check, so a deny rule on `.env` holds however
//! the path is spelled (and through Bash), and a symlink in the workspace that points
//! outside it (to a `~/.ssh`-like folder) is treated as its target.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock};

pub(crate) const SECRET: &str = "API_KEY=hunter2-do-not-leak";

pub(crate) fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// A workspace with `.env`, `sub/`, a symlink `env-link` to `.env`, and a symlink `keys`
/// to a `.ssh` folder outside it; settings from `settings`.
pub(crate) struct Workspace {
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) ssh: PathBuf,
}

impl Workspace {
    pub(crate) fn new(settings: &Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("work");
        let ssh = base.join("home/.ssh");
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::write(root.join(".env"), format!("{SECRET}\n")).unwrap();
        std::fs::write(root.join("sub/ok.txt"), "fine\n").unwrap();
        std::fs::write(ssh.join("id_ed25519"), "PRIVATE KEY\n").unwrap();
        std::os::unix::fs::symlink(root.join(".env"), root.join("env-link")).unwrap();
        std::os::unix::fs::symlink(&ssh, root.join("keys")).unwrap();
        std::fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
        Self { _dir: dir, root, ssh }
    }

    pub(crate) fn session(&self) -> Session {
        let loaded = SettingsDiscovery::new(&self.root).with_home(None).with_managed_dir(None).with_trust(true).load();
        let session = Session::builder()
            .cwd(&self.root)
            .settings(loaded)
            .builtin_tools(toolgate_builtin::all_builtin_tools())
            .build();
        assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
        session
    }

    pub(crate) async fn run(&self, calls: Vec<ToolCall>) -> Vec<ToolResultBlock> {
        tokio::time::timeout(Duration::from_secs(60), self.session().run_message(calls)).await.unwrap()
    }
}

fn rules(mode: &str, deny: &str) -> Value {
    json!({"permissions": {
        "defaultMode": mode,
        "allow": ["Bash(cat:*)", "Bash(head:*)", "Bash(echo:*)", "Bash(tee:*)", "Bash(cp:*)", "Bash(sort:*)", "Read"],
        "deny": [deny]
    }})
}

/// Runs each message on its own (so one denial cannot cancel its neighbours) and
/// collects those whose last call `rule` did not deny.
async fn expect_denied(ws: &Workspace, rule: &str, messages: Vec<(String, Vec<ToolCall>)>) -> Vec<String> {
    let mut failures = Vec::new();
    for (what, message) in messages {
        let results = ws.run(message).await;
        let r = results.last().unwrap();
        let shown = text(r);
        if !r.is_error || !shown.contains(&format!("denied by the rule {rule}")) || shown.contains("hunter2") {
            failures.push(format!("{what}: not denied by {rule}: {shown}"));
        }
    }
    failures
}

/// The spellings of the workspace's `.env`.
fn spellings(ws: &Workspace) -> Vec<String> {
    let abs = ws.root.join(".env").display().to_string();
    vec![".env".to_owned(), "./.env".to_owned(), "sub/../.env".to_owned(), "env-link".to_owned(), abs]
}

/// `Read(./.env)` denies every spelling of the file, in every mode (bypassPermissions
/// included), for Read, Grep and Bash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_deny_on_dot_env_holds_against_every_spelling() {
    let mut failures = Vec::new();
    for mode in ["default", "acceptEdits", "bypassPermissions"] {
        let ws = Workspace::new(&rules(mode, "Read(./.env)"));
        let mut calls = Vec::new();
        for path in spellings(&ws) {
            calls.push((format!("{mode}: Read {path}"), vec![ToolCall::new("1", "Read", json!({"file_path": path}))]));
            let grep = json!({"pattern": "API", "path": path, "output_mode": "content"});
            calls.push((format!("{mode}: Grep {path}"), vec![ToolCall::new("1", "Grep", grep)]));
        }
        let commands = [
            "cat .env",
            "cat ./.env",
            "cat sub/../.env",
            "head -1 env-link",
            "cat < .env",
            "cat sub/ok.txt .env",
            "sort < sub/../.env",
            "cp .env sub/copy",
        ];
        for command in commands {
            calls.push((
                format!("{mode}: Bash {command}"),
                vec![ToolCall::new("1", "Bash", json!({"command": command}))],
            ));
        }
        failures.extend(expect_denied(&ws, "Read(./.env)", calls).await);
        // The rule is narrow: the file next to it is still readable.
        let ok = ws
            .run(vec![
                ToolCall::new("1", "Read", json!({"file_path": "sub/ok.txt"})),
                ToolCall::new("2", "Bash", json!({"command": "cat sub/ok.txt"})),
            ])
            .await;
        assert!(!ok[0].is_error && text(&ok[0]).contains("fine"), "{mode}: {}", text(&ok[0]));
        assert!(!ok[1].is_error && text(&ok[1]).contains("fine"), "{mode}: {}", text(&ok[1]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `Read` deny rule hides what it covers from searches and listings of a folder, in every
/// mode: Grep finds nothing in `.env` (or through `env-link`), Glob and LS leave both out, and
/// a denied folder is left out with everything below it. The files next to them stay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_deny_rules_hide_files_from_searches_and_listings() {
    for mode in ["default", "acceptEdits", "bypassPermissions"] {
        let settings = json!({"permissions": {"defaultMode": mode, "deny": ["Read(./.env)", "Read(./vault/**)"]}});
        let ws = Workspace::new(&settings);
        std::fs::create_dir_all(ws.root.join("vault")).unwrap();
        std::fs::write(ws.root.join("vault/token"), format!("{SECRET}\n")).unwrap();
        std::fs::write(ws.root.join("sub/api.txt"), "API_KEY is documented here\n").unwrap();
        let results = ws
            .run(vec![
                ToolCall::new("1", "Grep", json!({"pattern": "API_KEY", "output_mode": "content"})),
                ToolCall::new("2", "Grep", json!({"pattern": "API_KEY", "glob": "*env*"})),
                ToolCall::new("3", "Glob", json!({"pattern": "**/*"})),
                ToolCall::new("4", "LS", json!({"path": ws.root.display().to_string()})),
            ])
            .await;
        for r in &results {
            let shown = text(r);
            assert!(!r.is_error, "{mode}: {shown}");
            for hidden in ["hunter2", ".env", "env-link", "vault"] {
                assert!(!shown.contains(hidden), "{mode}: {hidden} in {shown}");
            }
        }
        assert!(text(&results[0]).contains("documented here"), "{mode}: {}", text(&results[0]));
        assert!(text(&results[1]).contains("No files found"), "{mode}: {}", text(&results[1]));
        for r in &results[2..] {
            assert!(text(r).contains("api.txt") && text(r).contains("ok.txt"), "{mode}: {}", text(r));
        }
    }
}

/// Regression: a hook's `if: "Edit(.env)"` read only a call's `file_path`, so a patch whose
/// second file is `.env` skipped the guard hook and changed the file. The rule now sees every
/// file the tool names, as the permission engine does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hooks_if_rule_sees_a_patchs_second_file() {
    let guard = json!({"type": "command", "if": "Edit(.env)", "command": "echo 'no .env edits' >&2; exit 2"});
    let ws = Workspace::new(&json!({
        "permissions": {"defaultMode": "bypassPermissions"},
        "hooks": {"PreToolUse": [{"matcher": "Write|ApplyPatch", "hooks": [guard]}]}
    }));
    let patch = "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Update File: .env\n@@\n-API_KEY=hunter2-do-not-leak\n+API_KEY=replaced\n*** End Patch";
    let results = ws
        .run(vec![
            ToolCall::new("r", "Read", json!({"file_path": ".env"})),
            ToolCall::new("1", "ApplyPatch", json!({"patch": patch})),
        ])
        .await;
    assert!(results[1].is_error && text(&results[1]).contains("no .env edits"), "{}", text(&results[1]));
    assert_eq!(std::fs::read_to_string(ws.root.join(".env")).unwrap(), format!("{SECRET}\n"));
    assert!(!ws.root.join("notes.txt").exists());
    // A call the rule does not match runs without the hook.
    let results =
        ws.run(vec![ToolCall::new("1", "Write", json!({"file_path": "sub/new.txt", "content": "x\n"}))]).await;
    assert!(!results[0].is_error, "{}", text(&results[0]));
}

/// `Edit(./.env)` denies writing every spelling of the file, after the file was read, in
/// every mode, for Write, Edit, MultiEdit and Bash redirections.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_deny_on_dot_env_holds_against_every_spelling() {
    let mut failures = Vec::new();
    for mode in ["default", "acceptEdits", "bypassPermissions"] {
        let ws = Workspace::new(&rules(mode, "Edit(./.env)"));
        let mut calls = Vec::new();
        for path in spellings(&ws) {
            // The file is read first (through the same spelling), so the write is not
            // refused earlier for not having been read.
            let read = || ToolCall::new("read", "Read", json!({"file_path": path}));
            let write = json!({"file_path": path, "content": "API_KEY=replaced\n"});
            calls.push((format!("{mode}: Write {path}"), vec![read(), ToolCall::new("1", "Write", write)]));
            let edit = json!({"file_path": path, "old_string": "hunter2", "new_string": "x"});
            calls.push((format!("{mode}: Edit {path}"), vec![read(), ToolCall::new("1", "Edit", edit)]));
            let multi = json!({"file_path": path, "edits": [{"old_string": "hunter2", "new_string": "x"}]});
            calls.push((format!("{mode}: MultiEdit {path}"), vec![read(), ToolCall::new("1", "MultiEdit", multi)]));
        }
        // A patch whose second file is `.env`: changed, deleted or moved away.
        for (what, second) in [
            ("updates", "*** Update File: .env\n@@\n-API_KEY=hunter2-do-not-leak\n+API_KEY=replaced"),
            ("deletes", "*** Delete File: .env"),
            ("moves away", "*** Update File: .env\n*** Move to: moved.txt\n@@\n-API_KEY=hunter2-do-not-leak\n+x"),
        ] {
            let patch = format!("*** Begin Patch\n*** Add File: notes.txt\n+notes\n{second}\n*** End Patch");
            let call = ToolCall::new("1", "ApplyPatch", json!({"patch": patch}));
            // `.env` is read first, so the patch is not refused for not having been read.
            let read_both = vec![ToolCall::new("r1", "Read", json!({"file_path": ".env"})), call];
            calls.push((format!("{mode}: ApplyPatch that {what} .env second"), read_both));
        }
        let commands = [
            "echo x > .env",
            "echo x >> ./.env",
            "echo x > sub/../.env",
            "echo x | tee env-link",
            "cp sub/ok.txt .env",
        ];
        for command in commands {
            calls.push((
                format!("{mode}: Bash {command}"),
                vec![ToolCall::new("1", "Bash", json!({"command": command}))],
            ));
        }
        failures.extend(expect_denied(&ws, "Edit(./.env)", calls).await);
        assert_eq!(std::fs::read_to_string(ws.root.join(".env")).unwrap(), format!("{SECRET}\n"), "{mode}");
        assert!(!ws.root.join("notes.txt").exists(), "{mode}: a denied patch wrote its first file");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A symlink to a folder outside the workspace is checked as its target: a deny rule on the
/// target holds through the link, and a write through it lands outside the working
/// directories, so acceptEdits does not auto-accept a write through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_to_an_ssh_folder_is_treated_as_its_target() {
    // The deny rule names the real folder; every path goes through the link.
    let ws = Workspace::new(&json!({}));
    let deny = format!("Read(/{}/**)", ws.ssh.display());
    std::fs::write(
        ws.root.join(".claude/settings.json"),
        json!({"permissions": {"defaultMode": "bypassPermissions", "deny": [deny]}}).to_string(),
    )
    .unwrap();
    let calls = vec![
        ToolCall::new("1", "Read", json!({"file_path": "keys/id_ed25519"})),
        ToolCall::new("2", "Write", json!({"file_path": "keys/authorized_keys", "content": "attacker key\n"})),
        ToolCall::new("3", "Bash", json!({"command": "cat keys/id_ed25519"})),
        ToolCall::new("4", "Grep", json!({"pattern": "PRIVATE", "path": "keys"})),
    ];
    let what: Vec<String> =
        ["Read", "Write", "Bash cat", "Grep"].iter().map(|s| format!("{s} through keys/")).collect();
    let results = ws.run(calls).await;
    let mut failures = Vec::new();
    for (r, what) in results.iter().zip(&what) {
        if !r.is_error || !text(r).contains("denied by the rule") || text(r).contains("PRIVATE KEY") {
            failures.push(format!("{what}: not denied: {}", text(r)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(!ws.ssh.join("authorized_keys").exists());

    // No rule at all, acceptEdits: a write through the link is outside the working
    // directories, so it needs approval, and with nobody to ask it is refused.
    let ws = Workspace::new(&json!({"permissions": {"defaultMode": "acceptEdits"}}));
    let results = ws
        .run(vec![
            ToolCall::new("1", "Write", json!({"file_path": "keys/authorized_keys", "content": "attacker key\n"})),
            ToolCall::new("2", "Bash", json!({"command": "echo attacker >> keys/authorized_keys"})),
            ToolCall::new("3", "Write", json!({"file_path": "sub/new.txt", "content": "inside\n"})),
        ])
        .await;
    assert!(results[0].is_error, "{}", text(&results[0]));
    assert!(results[1].is_error, "{}", text(&results[1]));
    assert!(!results[2].is_error, "a write inside the workspace is auto-accepted: {}", text(&results[2]));
    assert!(!ws.ssh.join("authorized_keys").exists());

    // A patch whose later file goes through a link out of the workspace, or into `.git/`,
    // is not auto-accepted either, and writes none of its files.
    std::fs::create_dir_all(ws.root.join(".git/hooks")).unwrap();
    std::os::unix::fs::symlink(ws.root.join(".git/hooks"), ws.root.join("gh")).unwrap();
    for later in ["keys/authorized_keys", "gh/pre-commit"] {
        let patch =
            format!("*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** Add File: {later}\n+x\n*** End Patch");
        let results = ws.run(vec![ToolCall::new("1", "ApplyPatch", json!({"patch": patch}))]).await;
        assert!(results[0].is_error, "{later}: {}", text(&results[0]));
        assert!(!ws.root.join("notes.txt").exists(), "{later}: the patch wrote its first file");
    }
    assert!(!ws.ssh.join("authorized_keys").exists());
    assert!(!ws.root.join(".git/hooks/pre-commit").exists());
}

/// `..` cannot climb out of the workspace into an auto-accepted write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dot_dot_cannot_escape_the_workspace() {
    let ws = Workspace::new(&json!({"permissions": {"defaultMode": "acceptEdits"}}));
    let escape = "sub/../../home/.ssh/authorized_keys";
    let results = ws
        .run(vec![
            ToolCall::new("1", "Write", json!({"file_path": escape, "content": "attacker key\n"})),
            ToolCall::new("2", "Bash", json!({"command": format!("echo attacker > {escape}")})),
        ])
        .await;
    assert!(results[0].is_error && results[1].is_error, "{} / {}", text(&results[0]), text(&results[1]));
    assert!(!ws.ssh.join("authorized_keys").exists());
}

/// The shell resolves `link/..` to the parent of the link's target, not to the folder that
/// holds the link: Bash paths are checked where the shell would open them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dot_dot_after_a_symlink_is_checked_where_the_shell_goes() {
    let ws = Workspace::new(&json!({}));
    let home = ws.ssh.parent().unwrap().to_path_buf();
    std::fs::write(home.join("notes.txt"), "PRIVATE NOTES\n").unwrap();
    let deny = format!("Read(/{}/**)", home.display());
    std::fs::write(
        ws.root.join(".claude/settings.json"),
        json!({"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(cat:*)"], "deny": [deny]}}).to_string(),
    )
    .unwrap();
    let results = ws
        .run(vec![
            ToolCall::new("1", "Bash", json!({"command": "cat keys/../notes.txt"})),
            ToolCall::new("2", "Bash", json!({"command": "echo attacker > keys/../planted.txt"})),
        ])
        .await;
    assert!(results[0].is_error && text(&results[0]).contains("denied by the rule"), "{}", text(&results[0]));
    assert!(!text(&results[0]).contains("PRIVATE NOTES"));
    // Outside the working directories: not auto-accepted, and nobody to ask.
    assert!(results[1].is_error, "{}", text(&results[1]));
    assert!(!home.join("planted.txt").exists());
}

#[tokio::test]
async fn a_symlink_or_a_cd_does_not_hide_where_a_command_goes() {
    let ws = Workspace::new(&json!({"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(rm:*)"]}}));
    std::os::unix::fs::symlink("..", ws.root.join("up")).unwrap();
    let results = ws
        .run(vec![
            // `up/work` is the working directory itself, reached through a link.
            ToolCall::new("1", "Bash", json!({"command": "rm -rf up/work"})),
            // After `cd keys`, `id_ed25519` is the key outside the working directory.
            ToolCall::new("2", "Bash", json!({"command": "cd keys && cat id_ed25519"})),
        ])
        .await;
    assert!(results[0].is_error && text(&results[0]).contains("working directory"), "{}", text(&results[0]));
    assert!(ws.root.join("sub/ok.txt").exists());
    assert!(results[1].is_error && !text(&results[1]).contains("PRIVATE KEY"), "{}", text(&results[1]));
    let inside = ws.run(vec![ToolCall::new("3", "Bash", json!({"command": "cd sub && cat ok.txt"}))]).await;
    assert!(!inside[0].is_error && text(&inside[0]).contains("fine"), "{}", text(&inside[0]));
}

#[tokio::test]
async fn a_glob_is_checked_as_what_it_matches() {
    let ws = Workspace::new(&json!({"permissions": {"deny": ["Read(./.env)"]}}));
    let denied = ws.run(vec![ToolCall::new("1", "Bash", json!({"command": "cat .e?v"}))]).await;
    assert!(denied[0].is_error && text(&denied[0]).contains("denied by the rule"), "{}", text(&denied[0]));
    // `ke*` is the link to the key's folder, outside the working directory.
    let outside = ws.run(vec![ToolCall::new("2", "Bash", json!({"command": "cat ke*/id_ed25519"}))]).await;
    assert!(outside[0].is_error && !text(&outside[0]).contains("PRIVATE KEY"), "{}", text(&outside[0]));
    let inside = ws.run(vec![ToolCall::new("3", "Bash", json!({"command": "cat su*/*.txt"}))]).await;
    assert!(!inside[0].is_error && text(&inside[0]).contains("fine"), "{}", text(&inside[0]));
    assert!(!text(&denied[0]).contains(SECRET) && !text(&outside[0]).contains(SECRET));
}

#[tokio::test]
async fn a_recursive_read_is_checked_file_by_file() {
    let ws = Workspace::new(&json!({"permissions": {"deny": ["Read(./.env)"]}}));
    let denied = ws.run(vec![ToolCall::new("1", "Bash", json!({"command": "grep -rn TOKEN ."}))]).await;
    assert!(denied[0].is_error && text(&denied[0]).contains("denied by the rule"), "{}", text(&denied[0]));
    assert!(!text(&denied[0]).contains(SECRET));
    let below = ws.run(vec![ToolCall::new("2", "Bash", json!({"command": "grep -rn fine sub"}))]).await;
    assert!(!below[0].is_error && text(&below[0]).contains("fine"), "{}", text(&below[0]));
}
