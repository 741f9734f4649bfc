//! The workspace tools through a pipeline `Session`: worktrees made by real git in temp
//! repositories (the session's cwd moving in and back), skills read from real folders,
//! Config reading and writing real settings files, StructuredOutput's validation.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolgate_builtin::{SkillCatalog, StructuredOutput, all_builtin_tools, builtin_tools_with};
use toolgate_core::process::ProcessSpec;
use toolgate_core::{CancellationToken, DynTool, Extensions, PermissionMode};
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::{Event, Session, ToolCall, ToolResultBlock};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// Runs git in `dir`, panicking with its stderr when it fails.
async fn git(dir: &Path, args: &[&str]) -> String {
    let out = ProcessSpec::exec("git", args.iter().copied())
        .cwd(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .run(&CancellationToken::new())
        .await
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", out.stderr.text());
    out.stdout.text().trim().to_owned()
}

/// A repository with one commit, its path canonical (as git reports it).
async fn repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    git(&root, &["init", "-q", "-b", "main"]).await;
    git(&root, &["config", "user.name", "Test"]).await;
    git(&root, &["config", "user.email", "test@example.com"]).await;
    git(&root, &["config", "commit.gpgsign", "false"]).await;
    write(&root.join("README.md"), "hello\n");
    git(&root, &["add", "README.md"]).await;
    git(&root, &["commit", "-q", "-m", "first"]).await;
    (dir, root)
}

/// A session in `project` with its settings files (no user or managed settings), the
/// given tools, and the discovery in its extensions (for Config).
fn session_in(project: &Path, tools: Vec<DynTool>) -> Session {
    let discovery = SettingsDiscovery::new(project).with_home(None).with_managed_dir(None).with_trust(true);
    let mut extensions = Extensions::default();
    extensions.insert(discovery.clone());
    Session::builder().cwd(project).settings(discovery.load()).extensions(extensions).builtin_tools(tools).build()
}

async fn call(session: &Session, name: &str, input: Value) -> ToolResultBlock {
    session.run_message(vec![ToolCall::new("t", name, input)]).await.remove(0)
}

#[tokio::test]
async fn enter_worktree_moves_the_cwd_and_exit_keep_moves_it_back() {
    let (_dir, root) = repo().await;
    let session = session_in(&root, all_builtin_tools());

    let r = call(&session, "EnterWorktree", json!({"name": "feature-x"})).await;
    assert!(!r.is_error, "{}", text(&r));
    let wt = root.join(".claude/worktrees/feature-x");
    assert_eq!(session.cwd(), wt, "the pipeline applied ContextChange::Cwd");
    assert!(text(&r).contains("on the new branch worktree-feature-x"), "{}", text(&r));
    assert!(text(&r).contains("is not git-ignored"), "{}", text(&r));
    assert_eq!(std::fs::read_to_string(wt.join("README.md")).unwrap(), "hello\n");
    assert_eq!(git(&wt, &["rev-parse", "--abbrev-ref", "HEAD"]).await, "worktree-feature-x");

    // Tools now resolve relative paths in the worktree.
    let read = call(&session, "Glob", json!({"pattern": "*.md"})).await;
    assert!(text(&read).contains("README.md"), "{}", text(&read));

    let again = call(&session, "EnterWorktree", json!({"name": "other"})).await;
    assert!(again.is_error);
    assert!(
        text(&again).contains("already in the worktree") && text(&again).contains("ExitWorktree"),
        "{}",
        text(&again)
    );

    let r = call(&session, "ExitWorktree", json!({"action": "keep"})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(session.cwd(), root);
    assert!(wt.join("README.md").exists(), "kept");
    assert!(git(&root, &["branch", "--list", "worktree-feature-x"]).await.contains("worktree-feature-x"));

    let twice = call(&session, "ExitWorktree", json!({"action": "keep"})).await;
    assert!(twice.is_error);
    assert!(text(&twice).contains("not in a worktree entered with EnterWorktree"), "{}", text(&twice));
    assert!(text(&twice).contains("EnterWorktree first"), "hint: {}", text(&twice));

    // The name is taken now (kept worktree): a clear error.
    let taken = call(&session, "EnterWorktree", json!({"name": "feature-x"})).await;
    assert!(taken.is_error && text(&taken).contains("already exists"), "{}", text(&taken));
    assert_eq!(session.cwd(), root);
}

/// A worktree is as protected as the project. In acceptEdits with no person, a model that
/// entered a worktree cannot point its `.git` file at a folder whose `config` sets
/// `core.fsmonitor` (by Write, Edit or a Bash redirect), and where such a `.git` is there
/// already, `git status` in the worktree is no read: it is never run automatically.
#[tokio::test]
async fn a_worktrees_git_file_cannot_make_git_status_run_a_command() {
    let (_dir, root) = repo().await;
    let discovery = SettingsDiscovery::new(&root).with_home(None).with_managed_dir(None).with_trust(true);
    let session = Session::builder()
        .cwd(&root)
        .settings(discovery.load())
        .mode(PermissionMode::AcceptEdits)
        .builtin_tools(all_builtin_tools())
        .build();
    let r = call(&session, "EnterWorktree", json!({"name": "w"})).await;
    assert!(!r.is_error, "{}", text(&r));
    let wt = session.cwd();
    let pwned = root.join("pwned");
    // The attacker's git folder: an ordinary project file, which acceptEdits writes.
    let evil = root.join("evil");
    let config = format!("[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch {}\"\n", pwned.display());
    let r = call(&session, "Write", json!({"file_path": evil.join("config"), "content": config})).await;
    assert!(!r.is_error, "{}", text(&r));
    let gitdir = format!("gitdir: {}\n", evil.display());
    let dot_git = wt.join(".git");
    let before = std::fs::read_to_string(&dot_git).unwrap();
    let r = call(&session, "Read", json!({"file_path": dot_git})).await;
    assert!(!r.is_error, "{}", text(&r));
    let attempts = [
        ("Write", json!({"file_path": dot_git, "content": gitdir})),
        ("Edit", json!({"file_path": dot_git, "old_string": before.trim_end(), "new_string": gitdir.trim_end()})),
        ("Bash", json!({"command": format!("printf 'gitdir: {}\\n' > .git", evil.display())})),
        ("Bash", json!({"command": format!("cp {} .git", evil.join("config").display())})),
    ];
    for (tool, input) in attempts {
        let r = call(&session, tool, input.clone()).await;
        assert!(r.is_error && text(&r).contains("approve"), "{tool} {input}: {}", text(&r));
    }
    assert_eq!(std::fs::read_to_string(&dot_git).unwrap(), before, "the worktree's .git is unchanged");
    let r = call(&session, "Bash", json!({"command": "git status --short"})).await;
    assert!(!r.is_error, "the real .git: git status is a read: {}", text(&r));

    // A `.git` that is there already (put by anything but a tool call) makes git status no read.
    std::fs::copy(root.join(".git/HEAD"), evil.join("HEAD")).unwrap();
    std::fs::create_dir_all(evil.join("objects")).unwrap();
    std::fs::create_dir_all(evil.join("refs")).unwrap();
    std::fs::write(&dot_git, &gitdir).unwrap();
    let r = call(&session, "Bash", json!({"command": "git status --short"})).await;
    assert!(r.is_error && text(&r).contains("approve"), "{}", text(&r));
    assert!(!pwned.exists(), "core.fsmonitor ran");
    assert!(text(&r).contains("evil/config chooses"), "the reason names the file: {}", text(&r));
    // The attack is real: git itself, run in the worktree, runs the command.
    let _ = ProcessSpec::exec("git", ["status", "--short"]).cwd(&wt).run(&CancellationToken::new()).await.unwrap();
    assert!(pwned.exists(), "git status ran core.fsmonitor");
}

#[tokio::test]
async fn removing_a_dirty_worktree_needs_discard_changes() {
    let (_dir, root) = repo().await;
    // Discarding is left to the engine: this project allows it by rule.
    write(&root.join(".claude/settings.json"), r#"{"permissions": {"allow": ["ExitWorktree"]}}"#);
    let session = session_in(&root, all_builtin_tools());

    let r = call(&session, "EnterWorktree", json!({"name": "dirty"})).await;
    assert!(!r.is_error, "{}", text(&r));
    let wt = session.cwd();
    write(&wt.join("notes.txt"), "draft\n");

    let refused = call(&session, "ExitWorktree", json!({"action": "remove"})).await;
    assert!(refused.is_error);
    assert!(text(&refused).contains("1 uncommitted or untracked file (notes.txt)"), "{}", text(&refused));
    assert!(text(&refused).contains("discard_changes: true"), "hint: {}", text(&refused));
    assert_eq!(session.cwd(), wt, "a refused exit stays in the worktree");
    assert!(wt.join("notes.txt").exists());

    // Committed work counts too.
    git(&wt, &["add", "notes.txt"]).await;
    git(&wt, &["commit", "-q", "-m", "notes"]).await;
    let refused = call(&session, "ExitWorktree", json!({"action": "remove", "discard_changes": false})).await;
    assert!(refused.is_error);
    assert!(text(&refused).contains("1 commit not on any other branch"), "{}", text(&refused));

    let r = call(&session, "ExitWorktree", json!({"action": "remove", "discard_changes": true})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert!(text(&r).contains("discarding 1 commit"), "{}", text(&r));
    assert_eq!(session.cwd(), root);
    assert!(!wt.exists(), "the worktree folder is gone");
    assert!(git(&root, &["branch", "--list", "worktree-dirty"]).await.is_empty(), "the branch is gone");
    assert!(!git(&root, &["worktree", "list"]).await.contains("dirty"));
}

#[tokio::test]
async fn a_clean_worktree_is_removed_without_discard_and_without_approval() {
    let (_dir, root) = repo().await;
    write(&root.join(".gitignore"), ".claude/worktrees/\n");
    git(&root, &["add", ".gitignore"]).await;
    git(&root, &["commit", "-q", "-m", "ignore worktrees"]).await;
    let session = session_in(&root, all_builtin_tools());
    let r = call(&session, "EnterWorktree", json!({})).await;
    assert!(!r.is_error, "a name is generated: {}", text(&r));
    assert!(!text(&r).contains("git-ignored"), "{}", text(&r));
    let wt = session.cwd();
    assert!(wt.starts_with(root.join(".claude/worktrees")), "{}", wt.display());
    let r = call(&session, "ExitWorktree", json!({"action": "remove"})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert!(!wt.exists());
    assert_eq!(session.cwd(), root);
}

#[tokio::test]
async fn worktree_inputs_and_places_that_cannot_work_are_clear_errors() {
    let plain = tempfile::tempdir().unwrap();
    let plain = plain.path().canonicalize().unwrap();
    let session = session_in(&plain, all_builtin_tools());
    let r = call(&session, "EnterWorktree", json!({"name": "x"})).await;
    assert!(r.is_error);
    assert!(text(&r).contains("is not inside a git repository"), "{}", text(&r));
    assert!(text(&r).contains("git init"), "hint: {}", text(&r));
    assert_eq!(session.cwd(), plain);

    let (_dir, root) = repo().await;
    let session = session_in(&root, all_builtin_tools());
    for (input, needle) in [
        (json!({"name": "../escape"}), "contains `..`"),
        (json!({"name": "a b"}), "contains ' '"),
        (json!({"name": "/abs"}), "empty segment"),
        (json!({"name": "x", "path": "y"}), "not both"),
        (json!({"path": "/nowhere/at/all"}), "is not a worktree of the repository"),
        (json!({"path": "."}), "main working tree"),
    ] {
        let r = call(&session, "EnterWorktree", input.clone()).await;
        assert!(r.is_error, "{input}");
        assert!(text(&r).contains(needle), "{input}: {}", text(&r));
        assert!(text(&r).lines().count() >= 2, "a hint follows: {}", text(&r));
    }
    let r = call(&session, "ExitWorktree", json!({"action": "delete"})).await;
    assert!(r.is_error && text(&r).contains("action"), "{}", text(&r));
    assert_eq!(session.cwd(), root);
}

#[tokio::test]
async fn a_worktree_entered_by_path_is_kept_never_removed() {
    let (_dir, root) = repo().await;
    let elsewhere = root.join("side");
    git(&root, &["worktree", "add", "-q", "-b", "side", elsewhere.to_str().unwrap()]).await;
    let session = Session::builder()
        .cwd(&root)
        .mode(PermissionMode::BypassPermissions)
        .builtin_tools(all_builtin_tools())
        .build();
    let r = call(&session, "EnterWorktree", json!({"path": "side"})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(session.cwd(), elsewhere);
    let r = call(&session, "ExitWorktree", json!({"action": "remove", "discard_changes": true})).await;
    assert!(r.is_error && text(&r).contains("entered by path"), "{}", text(&r));
    let r = call(&session, "ExitWorktree", json!({"action": "keep"})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(session.cwd(), root);
    assert!(elsewhere.join("README.md").exists());
}

#[tokio::test]
async fn skills_come_from_project_user_and_command_folders_and_feed_permission_rules() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let user = dir.path().join("home/.claude");
    write(
        &project.join(".claude/skills/commit/SKILL.md"),
        "---\nname: commit\ndescription: project commit (shadowed)\n---\nproject body\n",
    );
    write(
        &user.join("skills/commit/SKILL.md"),
        "---\nname: commit\ndescription: Write a commit message for $ARGUMENTS\n---\n\nCommit the staged files. Scope: $ARGUMENTS.\nSee template.txt.\n",
    );
    write(&user.join("skills/commit/template.txt"), "feat: …\n");
    write(&project.join(".claude/skills/broken/SKILL.md"), "---\nname: broken\nno closing fence\n");
    write(&project.join(".claude/skills/notes/SKILL.md"), "---\ndescription: Take notes\n---\nNotes.\n");
    write(&project.join(".claude/commands/review.md"), "# Review a pull request\nReview PR $ARGUMENTS carefully.\n");
    write(&project.join(".claude/skills/empty-folder/README.md"), "not a skill\n");
    write(
        &project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Skill(review *)", "Skill(commit)", "Skill(broken)"], "deny": ["Skill(notes)"]}}"#,
    );

    let catalog = SkillCatalog::discover(&project, Some(&user));
    let names: Vec<&str> = catalog.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["commit", "broken", "notes", "review"], "user skills, project skills, commands");
    let diagnostics = catalog.diagnostics().join("\n");
    assert!(diagnostics.contains("never closed"), "{diagnostics}");
    assert!(diagnostics.contains("shadowed by the user one"), "{diagnostics}");
    assert!(diagnostics.contains("needs a SKILL.md"), "{diagnostics}");

    let session = session_in(&project, builtin_tools_with(catalog));
    let skill = session.pool().get("Skill").unwrap().clone();
    let description = skill.description();
    assert!(description.contains("- commit: Write a commit message for $ARGUMENTS (user)"), "{description}");
    assert!(description.contains("- review: Review a pull request (project command)"), "{description}");
    assert!(!description.contains("shadowed"), "{description}");

    let results = session
        .run_message(vec![
            ToolCall::new("1", "Skill", json!({"skill": "review", "args": "42"})),
            ToolCall::new("2", "Skill", json!({"skill": "/commit"})),
            ToolCall::new("3", "Skill", json!({"skill": "commit", "args": "docs"})),
            ToolCall::new("4", "Skill", json!({"skill": "notes"})),
            ToolCall::new("5", "Skill", json!({"skill": "comit"})),
            ToolCall::new("6", "Skill", json!({"skill": "broken"})),
        ])
        .await;
    let review = text(&results[0]);
    assert!(!results[0].is_error, "{review}");
    assert_eq!(
        review,
        format!(
            "Base directory for this skill: {}\n\n# Review a pull request\nReview PR 42 carefully.\n",
            project.join(".claude/commands").display()
        )
    );
    let commit = text(&results[1]);
    assert!(!results[1].is_error, "{commit}");
    assert!(commit.starts_with(&format!("Base directory for this skill: {}\n", user.join("skills/commit").display())));
    assert!(commit.contains("Commit the staged files. Scope: .\nSee template.txt."), "{commit}");
    // `Skill(commit)` is exact: with arguments it is not allowed, and nobody can approve here.
    assert!(results[2].is_error, "{}", text(&results[2]));
    assert!(text(&results[2]).contains("Skill(commit docs)"), "{}", text(&results[2]));
    assert!(results[3].is_error && text(&results[3]).contains("Skill(notes)"), "{}", text(&results[3]));
    assert!(results[4].is_error, "{}", text(&results[4]));
    assert!(text(&results[4]).contains("unknown skill: comit\ndid you mean `commit`?"), "{}", text(&results[4]));
    // A skill whose front matter is broken still runs: the whole file is its body.
    assert!(!results[5].is_error && text(&results[5]).contains("no closing fence"), "{}", text(&results[5]));
}

#[tokio::test]
async fn config_reads_merged_settings_writes_allow_listed_keys_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    write(
        &project.join(".claude/settings.json"),
        &json!({
            "model": "opus",
            "permissions": {"allow": ["Read"], "defaultMode": "default"},
            "hooks": {"PreToolUse": []},
            "env": {"A": "1", "B": "project", "GITHUB_TOKEN": "ghp_secret", "DATABASE_URL": "postgres://app:PASSWORD@db/app"}
        })
        .to_string(),
    );
    let local = project.join(".claude/settings.local.json");
    write(
        &local,
        &json!({
            "permissions": {"allow": ["Bash(ls:*)", "Config(model)", "Config(verbose)", "Config(permissions.defaultMode)"]},
            "env": {"B": "local"},
            "custom": {"kept": true}
        })
        .to_string(),
    );
    let session = session_in(&project, all_builtin_tools());

    let read = |setting: &str| call(&session, "Config", json!({"setting": setting}));
    let r = read("model").await;
    assert_eq!(text(&r), format!("model = \"opus\"\n(from {})", project.join(".claude/settings.json").display()));
    let r = read("permissions.allow").await;
    assert!(text(&r).contains("\"Bash(ls:*)\"") && text(&r).contains("\"Read\""), "arrays merge: {}", text(&r));
    // Objects merge key by key; every value of `env` is the user's and shown redacted.
    let r = read("env").await;
    for key in ["A", "B", "GITHUB_TOKEN", "DATABASE_URL"] {
        assert!(text(&r).contains(&format!("\"{key}\": \"<redacted>\"")), "objects merge: {}", text(&r));
    }
    assert!(!text(&r).contains("ghp_secret") && !text(&r).contains("\"local\""), "{}", text(&r));
    assert!(!text(&r).contains("PASSWORD"), "{}", text(&r));
    assert!(!text(&read("env.GITHUB_TOKEN").await).contains("ghp_secret"));
    assert!(!text(&read("env.DATABASE_URL").await).contains("PASSWORD"));
    let r = read("nothing.here").await;
    assert!(!r.is_error && text(&r) == "nothing.here is not set in any settings file", "{}", text(&r));

    let r = call(&session, "Config", json!({"setting": "model", "value": "sonnet"})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(text(&r), format!("Set model to \"sonnet\" in {}", local.display()));
    let r = call(&session, "Config", json!({"setting": "verbose", "value": "true"})).await;
    assert!(!r.is_error, "{}", text(&r));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(doc["model"], "sonnet");
    assert_eq!(doc["verbose"], true);
    assert_eq!(doc["custom"], json!({"kept": true}), "other keys are kept");
    assert_eq!(doc["env"], json!({"B": "local"}));
    assert_eq!(doc["permissions"]["allow"].as_array().unwrap().len(), 4);
    let r = read("model").await;
    assert!(text(&r).starts_with("model = \"sonnet\""), "the local file wins now: {}", text(&r));

    let before = std::fs::read_to_string(&local).unwrap();
    for (setting, value, needle) in [
        ("permissions.defaultMode", json!("bypassPermissions"), "never changes `permissions.defaultMode`"),
        ("hooks", json!("x"), "never changes `hooks`"),
        ("env", json!("x"), "`env` is not one of the settings Config may write"),
        ("theme", json!("neon"), "theme takes one of dark, light"),
        ("verbose", json!(3), "verbose takes true or false"),
        ("", json!("x"), "is not a setting name"),
    ] {
        let r = call(&session, "Config", json!({"setting": setting, "value": value})).await;
        assert!(r.is_error, "{setting}");
        assert!(text(&r).contains(needle), "{setting}: {}", text(&r));
        assert!(text(&r).lines().count() >= 2, "a hint follows: {}", text(&r));
    }
    assert_eq!(std::fs::read_to_string(&local).unwrap(), before, "refusals write nothing");

    // A write without a rule asks, and without a person that is a refusal.
    let r = call(&session, "Config", json!({"setting": "theme", "value": "light"})).await;
    assert!(r.is_error && text(&r).contains("needs approval"), "{}", text(&r));

    // A broken local file is never overwritten.
    write(&local, "{broken");
    let session = session_in(&project, all_builtin_tools());
    let r = call(&session, "Config", json!({"setting": "model", "value": "haiku"})).await;
    assert!(r.is_error, "{}", text(&r));
    assert_eq!(std::fs::read_to_string(&local).unwrap(), "{broken");
}

#[tokio::test]
async fn structured_output_reports_every_violation_with_its_path() {
    let schema = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
                    "required": ["name", "qty"]
                }
            }
        },
        "required": ["title", "items"],
        "additionalProperties": false
    });
    let tool = StructuredOutput::tool(schema.clone()).unwrap();
    let outputs = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let outputs = outputs.clone();
        Arc::new(move |e: Event| {
            if let Event::Output { structured, .. } = e {
                outputs.lock().unwrap().push(structured);
            }
        })
    };
    let session = Session::builder().cwd("/").builtin_tools([tool.clone()]).build();
    assert!(session.pool().definitions_json(toolgate_core::DefinitionFormat::Anthropic).contains("\"qty\""));

    let bad = json!({"items": [{"name": "a", "qty": 0}, {"qty": "many"}], "extra": 1});
    let good = json!({"title": "order", "items": [{"name": "a", "qty": "2"}]});
    let results = session
        .run_message_with(
            vec![ToolCall::new("1", "StructuredOutput", bad.clone()), ToolCall::new("2", "StructuredOutput", good)],
            CancellationToken::new(),
            Some(sink),
        )
        .await;
    assert!(results[0].is_error);
    let message = text(&results[0]);
    for line in [
        "missing required field 'title'",
        "unknown field 'extra'",
        "items[0].qty: must be at least 1, got 0",
        "items[1]: missing required field 'name'",
        "items[1].qty: expected integer, got string \"many\"",
    ] {
        assert!(message.contains(line), "{line} in:\n{message}");
    }
    assert!(!results[1].is_error, "{}", text(&results[1]));
    assert_eq!(text(&results[1]), "Structured output provided successfully");
    assert_eq!(*outputs.lock().unwrap(), [json!({"title": "order", "items": [{"name": "a", "qty": 2}]})]);

    // Called directly, outside a pipeline, the tool checks the answer itself.
    let ctx = toolgate_core::ToolContext::new("/");
    let err = tool.validate_input(&bad, &ctx).await.unwrap_err();
    assert!(err.message().contains("items[0].qty: must be at least 1, got 0"), "{}", err.message());
    assert!(err.hint().is_some());
    assert!(StructuredOutput::tool(json!({"type": "array"})).is_err());
    assert!(StructuredOutput::tool(json!({"type": "object", "properties": {"a": {"type": 12}}})).is_err());
}
