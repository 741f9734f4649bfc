//! Path rules and the paths calls touch: file tools, links, git, options that name files, folder walks.

use super::*;

#[test]
fn path_tools_table() {
    let engine = project_engine();
    let cases: &[(&'static str, &str, PermissionMode, PermissionBehavior, &str)] = &[
        ("Read", "/repo/src/a.rs", Dflt, Allow, "tool"),
        ("Read", "/repo/.env", Dflt, Deny, "rule"),
        ("Read", "/repo/sub/.env", Dflt, Deny, "rule"),
        ("Read", "/repo/lib/secrets/k", Dflt, Deny, "rule"),
        ("Read", "/repo/secrets/k", Dflt, Deny, "rule"),
        ("Grep", "/repo/secrets", Dflt, Deny, "rule"),
        ("Read", "/etc/hosts", Dflt, Ask, "default"),
        ("Read", "/repo/../etc/passwd", Dflt, Ask, "default"),
        ("Read", "/home/u/notes/todo.md", Dflt, Allow, "rule"),
        ("Read", "/etc/hosts", Bypass, Allow, "mode"),
        ("Read", "/etc/hosts", DontAsk, Deny, "mode"),
        ("Edit", "/repo/src/main.rs", Dflt, Allow, "rule"),
        ("Write", "/repo/src/new.rs", Dflt, Allow, "rule"),
        ("MultiEdit", "/repo/src/main.rs", Dflt, Allow, "rule"),
        ("Edit", "/repo/Cargo.lock", Dflt, Deny, "rule"),
        ("Edit", "/repo/Cargo.lock", Bypass, Deny, "rule"),
        ("Write", "/repo/.env", Dflt, Deny, "rule"),
        ("Edit", "/repo/README.md", Dflt, Ask, "default"),
        ("Edit", "/repo/README.md", AcceptEdits, Allow, "mode"),
        ("Edit", "/repo/README.md", Plan, Deny, "mode"),
        ("Edit", "/repo/.git/config", AcceptEdits, Ask, "safety"),
        ("Edit", "/repo/.git/config", Bypass, Ask, "safety"),
        ("Write", "/repo/.claude/settings.json", AcceptEdits, Ask, "safety"),
        ("Edit", "/repo/.claude/worktrees/w/a.rs", AcceptEdits, Allow, "mode"),
        ("Write", "/repo/.claude/worktrees/w/.git", AcceptEdits, Ask, "safety"),
        ("Write", "/repo/.claude/worktrees/w/.claude/settings.json", AcceptEdits, Ask, "safety"),
        ("Write", "/repo/rust-toolchain.toml", AcceptEdits, Ask, "safety"),
        ("Write", "/repo/.ripgreprc", AcceptEdits, Ask, "safety"),
        ("Write", "/repo/mise.toml", Bypass, Ask, "safety"),
        ("Edit", "/repo/db/migrations/001.sql", Bypass, Ask, "rule"),
        ("Edit", "/tmp/x", AcceptEdits, Ask, "default"),
        ("Edit", "/tmp/x", Bypass, Allow, "mode"),
    ];
    let mut failures = Vec::new();
    for (name, path, mode, behavior, kind) in cases {
        let got = check(&engine, &tool(name), json!({"file_path": path}), *mode, None);
        if got != (*behavior, *kind) {
            failures.push(format!("{name} {path} in {mode}: want {behavior}/{kind}, got {}/{}", got.0, got.1));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// With the home folder as a working directory, acceptEdits still asks before it writes what
/// runs at log-in or on the next command: keys, shell start-up and alias files, autostart
/// entries, user services, programs early on `PATH`, and credentials.
#[test]
fn start_up_and_credential_files_of_the_home_folder_are_protected() {
    let engine = empty_engine();
    let mut ctx = ctx(AcceptEdits);
    ctx.roots.push("/home/u".into());
    let write = |path: &str| {
        let e = engine.evaluate(&tool("Write"), &json!({"file_path": path}), &ctx, None);
        (e.decision.behavior, e.decision.reason.kind())
    };
    for path in [
        "/home/u/.ssh/authorized_keys",
        "/home/u/.bash_aliases",
        "/home/u/.config/autostart/x.desktop",
        "/home/u/.config/systemd/user/x.service",
        "/home/u/.local/bin/ls",
        "/home/u/.aws/credentials",
        "/home/u/.kube/config",
        "/home/u/.gnupg/gpg.conf",
    ] {
        assert_eq!(write(path), (Ask, "safety"), "{path}");
    }
    assert_eq!(write("/home/u/notes/todo.md"), (Allow, "mode"));
}

/// Every way git prints a file is a read of it, held to a Read deny rule: index stages,
/// `REF:path` of any ref spelling, blame, `log -p`/`-L`, `grep` over untracked files, diff of
/// blobs.
#[test]
fn every_way_git_prints_a_file_is_a_read_of_it() {
    let s = settings(json!({"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(git:*)"]}}));
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    let mut failures = Vec::new();
    for command in [
        "git show :0:.env",
        "git show :.env",
        "git show refs/heads/main:.env",
        "git show main:./.env",
        "git show HEAD~1:.env",
        "git blame .env",
        "git log -p .env",
        "git log -L1,9:.env",
        "git diff :0:.env HEAD:README.md",
        "git grep --untracked --no-exclude-standard -h '' -- .env",
        "git cat-file -p HEAD:.env",
        "git archive HEAD .env",
    ] {
        for mode in [Dflt, AcceptEdits, Bypass] {
            let got = check(&engine, &tool("Bash"), json!({"command": command}), mode, None);
            if got != (Deny, "rule") {
                failures.push(format!("{command:?} in {mode}: {}/{}", got.0, got.1));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// git takes `REV:path` and `:N:path` from the top of the repository (unless the path starts
/// with `./` or `../`), and every path after `git -C DIR` from that folder: run in a subfolder,
/// or with `-C`, each is still the file a Read deny rule names. A pathspec that is a pattern
/// (`'*.env'`, `':(icase).ENV'`) may name any file below its folder: where a Read rule may
/// match there, it is never approved, and a repository known only at run time (`--git-dir`,
/// `GIT_DIR=`) likewise.
#[test]
fn git_reads_paths_from_where_git_takes_them() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("sub/deeper")).unwrap();
    std::fs::create_dir_all(repo.join("secrets")).unwrap();
    let s = settings_at(json!({"permissions": {"deny": ["Read(/secrets/key)"], "allow": ["Bash(git:*)"]}}), &repo);
    let sub = repo.join("sub");
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd(&sub).build();
    let decide = |command: &str, mode| {
        let mut ctx = ToolContext::new(&sub);
        ctx.permission_mode = mode;
        let e = engine.evaluate(&tool("Bash"), &json!({"command": command}), &ctx, None);
        (e.decision.behavior, e.decision.reason.kind())
    };
    let mut failures = Vec::new();
    for command in [
        "git show HEAD:secrets/key",
        "git show main~2:secrets/key",
        "git show :0:secrets/key",
        "git show :secrets/key",
        "git cat-file -p HEAD:secrets/key",
        "git show HEAD:./../secrets/key",
        "git -C deeper show HEAD:secrets/key",
        "git -C .. show HEAD:./secrets/key",
        "git -C .. log -p -- secrets/key",
        "git -C .. blame secrets/key",
        &format!("git -C {} -C .. log -p secrets/key", sub.display()),
    ] {
        for mode in [Dflt, AcceptEdits, Bypass] {
            let got = decide(command, mode);
            if got != (Deny, "rule") {
                failures.push(format!("{command:?} in {mode}: {}/{}", got.0, got.1));
            }
        }
    }
    for command in [
        "git -C .. log -p -- 'secrets/*'",
        "git -C .. log -p -- 'secrets/ke?'",
        "git log -p -- ':(top)secrets/*'",
        "git log -p -- ':(icase)../SECRETS/KEY'",
        "git --git-dir=/elsewhere/.git show HEAD:secrets/key",
        "GIT_DIR=/elsewhere/.git git show HEAD:secrets/key",
        "git --work-tree=.. show :secrets/key",
        // Found by the review of this test's first version.
        "git show 'HEAD^{/first:}:secrets/key'",
        "git show 'HEAD@{2026-12-03 11:10:00}:secrets/key'",
        "git log -p -- '../secrets/\\key'",
        "git log -p -- ..",
        "git log -p -- :/",
        "git grep -h S :/",
        "git --icase-pathspecs log -p -- ../SECRETS/KEY",
        "git diff --no-index .. /tmp",
        "git grep -f../secrets/key -- README.md",
        "git --git-dir=../.git -C /tmp log -p -- secrets/key",
    ] {
        for mode in [Dflt, AcceptEdits, Bypass] {
            let got = decide(command, mode);
            if got.0 == Allow {
                failures.push(format!("{command:?} in {mode}: {}/{}", got.0, got.1));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // A file git takes from the top that no rule names is a read like `cat`'s: read-only inside
    // the working directories, asked about outside them.
    assert_eq!(decide("git show HEAD:sub/src/a.rs", Dflt).0, Allow);
    assert_eq!(decide("git show HEAD:README.md", Dflt).0, Ask, "the top's README is outside `sub`");
    assert_eq!(decide("git show HEAD:../README.md", Dflt).0, Ask);
    assert_eq!(decide("git log -p -- 'src/*.rs'", Dflt).0, Allow);
}

/// What git writes in a work tree is held to the protected paths as a file command's operands
/// are: `Bash(git:*)` does not approve a checkout of `.claude/settings.json`, a checkout into
/// a work tree named elsewhere (`--work-tree=$HOME … .bashrc`), a clone, `init` or worktree in
/// a protected folder, or a patch whose files are known only from the patch. Ordinary writes
/// stay allowed.
#[test]
fn git_writes_in_a_work_tree_are_held_to_the_protected_paths() {
    let engine = engine_allowing(&["git"]);
    let bash = tool("Bash");
    for command in [
        "git checkout HEAD -- .claude/settings.json",
        "git restore --source=HEAD .mcp.json",
        "git checkout evil -- .git/hooks/pre-commit",
        "git --work-tree=/home/u checkout HEAD -- .bashrc",
        "GIT_WORK_TREE=/home/u git checkout HEAD -- .bashrc",
        "git --work-tree=/home/u/.claude/toolgate checkout HEAD -- lsp-approved.json",
        "git clone https://example.com/x.git /home/u/.claude/toolgate",
        "git init ~/.claude/toolgate",
        "git worktree add ~/.ssh main",
        "git -C .claude checkout HEAD -- settings.json",
        "git apply evil.patch",
        "git checkout HEAD -- \"$F\"",
        // A pathspec is a pattern to git: `*` matches `.mcp.json` and `/` alike.
        "git checkout HEAD -- '*.json'",
        "git restore --source=HEAD '.claude/settings.jso?'",
        "git checkout HEAD -- ':(top).claude/settings.json'",
        "git checkout HEAD -- ':(icase).CLAUDE/settings.json'",
    ] {
        for mode in [Dflt, AcceptEdits, Bypass] {
            let e = engine.evaluate(&bash, &json!({"command": command}), &ctx(mode), None);
            assert_eq!((e.decision.behavior, e.decision.reason.kind()), (Ask, "safety"), "{command} {mode}");
        }
    }
    for command in [
        "git checkout -b feature",
        "git restore src/a.rs",
        "git clone https://example.com/x.git vendor/x",
        "git apply --check fix.patch",
        "git stash pop",
    ] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None), (Allow, "rule"), "{command}");
    }
}

/// git's global options are stated once: one that takes a value (`--attr-source TREE`, which
/// three of four readers did not know) cannot make a subcommand's deny rule miss.
#[test]
fn git_global_options_do_not_hide_the_subcommand() {
    let s = settings(json!({"permissions": {"allow": ["Bash(git:*)"], "deny": ["Bash(git push:*)"]}}));
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    for command in [
        "git --attr-source HEAD push --force origin main",
        "git --attr-source=HEAD push --force origin main",
        "git -C . --namespace x push origin main",
        "git --config-env core.x=Y push",
    ] {
        denied_by_a_rule_in_every_mode(&engine, command);
    }
    assert_eq!(check(&engine, &tool("Bash"), json!({"command": "git --attr-source HEAD status"}), Dflt, None).0, Allow);
}

/// A read-only program whose files in the repository choose what it runs is no read while
/// such a file is there: `cargo --version` runs the toolchain `rust-toolchain.toml` names, and
/// `git status` the `core.fsmonitor` of the repository's configuration. Each asks, naming the
/// file; without the file it is read-only as before.
#[test]
fn a_program_a_repository_file_redirects_is_not_read_only() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(repo.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    let engine = PermissionEngine::builder(PermissionSettings::default()).home(None).cwd(&repo).build();
    let mut ctx = ToolContext::new(&repo);
    ctx.permission_mode = Dflt;
    let decide = |command: &str| engine.evaluate(&tool("Bash"), &json!({"command": command}), &ctx, None).decision;
    for command in ["cargo --version", "git status"] {
        assert_eq!(decide(command).behavior, Allow, "{command} with no such file");
    }
    std::fs::write(repo.join("rust-toolchain.toml"), "[toolchain]\npath = \"/tmp/evil\"\n").unwrap();
    std::fs::write(repo.join(".git/config"), "[core]\n\tfsmonitor = ./hook.sh\n").unwrap();
    for (command, file) in [("cargo --version", "rust-toolchain.toml"), ("git status", ".git/config")] {
        let decision = decide(command);
        assert_eq!(decision.behavior, Ask, "{command}");
        assert!(decision.message.contains(file), "{command}: {}", decision.message);
    }
}

/// A repository file in a folder the line moves to redirects the program as one in the working
/// directory does (`cd sub && cargo --version` runs the toolchain `sub/rust-toolchain.toml`
/// names); a folder known only at run time may hold one.
#[test]
fn a_program_is_judged_in_each_folder_the_line_moves_to() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(repo.join("sub/deeper")).unwrap();
    let engine = PermissionEngine::builder(PermissionSettings::default()).home(None).cwd(&repo).build();
    let mut ctx = ToolContext::new(&repo);
    ctx.permission_mode = Dflt;
    let decide = |command: &str| engine.evaluate(&tool("Bash"), &json!({"command": command}), &ctx, None).decision;
    for command in ["cd sub && cargo --version", "cd sub; cd deeper && cargo --version", "cd sub && ls"] {
        assert_eq!(decide(command).behavior, Allow, "{command} with no such file");
    }
    std::fs::write(repo.join("sub/deeper/rust-toolchain.toml"), "[toolchain]\npath = \"/tmp/evil\"\n").unwrap();
    for command in [
        "cd sub/deeper && cargo --version",
        "cd sub; cd deeper && cargo --version",
        "pushd sub/deeper && cargo --version",
    ] {
        let decision = decide(command);
        assert_eq!(decision.behavior, Ask, "{command}");
        assert!(decision.message.contains("rust-toolchain.toml"), "{command}: {}", decision.message);
    }
    assert_eq!(decide("cd sub/deeper && ls").behavior, Allow, "ls reads no such file");
    // Through a link to a folder below the one holding the file, as written or physically.
    std::fs::create_dir_all(repo.join("sub/deeper/inner")).unwrap();
    std::fs::create_dir_all(repo.join("a")).unwrap();
    std::os::unix::fs::symlink("../sub/deeper/inner", repo.join("a/link")).unwrap();
    for command in ["cd a/link && cargo --version", "cd -P a/link/.. && cargo --version"] {
        assert_eq!(decide(command).behavior, Ask, "{command}");
    }
    for command in ["cd \"$D\" && cargo --version", "cd - && cargo --version", "cd && git status"] {
        assert_eq!(decide(command).behavior, Ask, "{command}");
    }
}

/// A relative path is read from every folder a `cd` of the line may lead to, the working
/// directory's parent too after `cd a/link; cd ..` (should the first `cd` fail): the line asks,
/// and its message says from which folder the path leads outside, rather than naming a path
/// that looks computed from the wrong folder.
#[test]
fn an_outside_reading_names_the_folder_it_is_read_from() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap().join("proj");
    std::fs::create_dir_all(repo.join("a")).unwrap();
    std::fs::create_dir_all(repo.join("b/c")).unwrap();
    std::os::unix::fs::symlink("../b/c", repo.join("a/link")).unwrap();
    let engine = PermissionEngine::builder(PermissionSettings::default()).home(None).cwd(&repo).build();
    let mut ctx = ToolContext::new(&repo);
    ctx.permission_mode = Dflt;
    let decision = engine.evaluate(&tool("Bash"), &json!({"command": "cd a/link; cd ..; ls"}), &ctx, None).decision;
    assert_eq!(decision.behavior, Ask);
    let parent = repo.parent().unwrap();
    let expected = format!(
        "`cd a/link` goes to {} (run in {}, where a `cd` of the line may lead)",
        parent.join("a/link").display(),
        parent.display()
    );
    assert!(decision.message.contains(&expected), "{}", decision.message);
    // From the working directory itself, the path alone.
    let decision = engine.evaluate(&tool("Bash"), &json!({"command": "cat ../x"}), &ctx, None).decision;
    assert!(
        decision.message.contains(&format!("reads {}, outside", parent.join("x").display())),
        "{}",
        decision.message
    );
}

/// Where Claude Code 2.1.197 asks and toolgate allowed (the floor comparison in
/// `dev/claude-code-floor/`): a prefix rule for `find` or `awk` does not approve a use that
/// deletes, writes or runs, a bare `Edit` allow rule does not approve Write, what prints the
/// environment is no read, and a command sent to the background is approved by nothing. Each
/// asks now; the ordinary uses stay allowed.
#[test]
fn uses_claude_code_asks_about_are_not_approved_by_a_prefix_rule() {
    let s = settings(json!({"permissions": {"allow": ["Bash(find:*)", "Bash(awk:*)", "Edit"]}}));
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    let bash = |command: &str| check(&engine, &tool("Bash"), json!({"command": command}), Dflt, None).0;
    for example in crate::bash::rules::BEYOND_PREFIX_RULES.iter().map(|(_, _, example)| *example).chain([
        "find . -name x -fprint out.txt",
        "find build -name '*.o' -delete",
        "awk '{print | \"sh\"}' list.txt",
        "env",
        "printenv",
    ]) {
        assert_eq!(bash(example), Ask, "{example}");
    }
    // In the background, past the end of the call: not even an allow rule approves it.
    let ls = settings(json!({"permissions": {"allow": ["Bash(ls:*)"]}}));
    let engine_ls = PermissionEngine::builder(ls).home(Some("/home/u".into())).cwd("/repo").build();
    for command in ["ls &", "cat notes.txt & ls"] {
        assert_eq!(check(&engine_ls, &tool("Bash"), json!({"command": command}), Dflt, None).0, Ask, "{command}");
    }
    assert_eq!(check(&engine_ls, &tool("Bash"), json!({"command": "ls && ls"}), Dflt, None).0, Allow);
    for ordinary in ["find . -name '*.rs'", "awk '{print $1}' list.txt", "find . -exec-not -name x"] {
        assert_eq!(bash(ordinary), Allow, "{ordinary}");
    }
    assert_eq!(check(&engine, &tool("Write"), json!({"file_path": "/repo/new.txt"}), Dflt, None).0, Ask);
    assert_eq!(check(&engine, &tool("Edit"), json!({"file_path": "/repo/a.txt"}), Dflt, None).0, Allow);
}

/// Options that name a file the program reads are reads of it (`hexdump -f.env`, `grep -nf
/// .env`, `xargs -a .env`), a `jq` program that imports modules is approved by no prefix rule
/// (they may come from any folder), and `diff` over two folders reads the files in them where
/// their links lead.
#[test]
fn files_named_by_options_and_links_in_compared_folders_are_reads() {
    let s = settings(json!({"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(jq:*)", "Bash(hexdump:*)"]}}));
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    for command in ["hexdump -f.env f", "hexdump -f .env f", "grep -nf .env x", "awk -f .env x", "xargs -a .env echo"] {
        denied_by_a_rule_in_every_mode(&engine, command);
    }
    let jq = "jq -n 'import \"config\" as $c {search: \"~/.docker\"}; $c'";
    assert_eq!(check(&engine, &tool("Bash"), json!({"command": jq}), Dflt, None).0, Ask);
    assert_eq!(check(&engine, &tool("Bash"), json!({"command": "jq .a x.json"}), Dflt, None).0, Allow);

    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let (home, repo) = (base.join("home"), base.join("repo"));
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "KEY").unwrap();
    for dir in ["a", "b"] {
        std::fs::create_dir_all(repo.join(dir)).unwrap();
    }
    std::fs::write(repo.join("b/id_rsa"), "x").unwrap();
    std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), repo.join("a/id_rsa")).unwrap();
    let s = settings_at(json!({"permissions": {"deny": ["Read(~/.ssh/**)"]}}), &repo);
    let engine = PermissionEngine::builder(s).home(Some(home)).cwd(&repo).build();
    let mut ctx = ToolContext::new(&repo);
    ctx.permission_mode = Bypass;
    for command in ["diff a b", "diff -r a b"] {
        let e = engine.evaluate(&tool("Bash"), &json!({"command": command}), &ctx, None);
        assert_eq!(e.decision.behavior, Deny, "{command}: {}", e.explain());
    }
    // With no rule on it, a link out of the working directories still makes the walk no read.
    let engine = PermissionEngine::builder(PermissionSettings::default()).home(None).cwd(&repo).build();
    ctx.permission_mode = Dflt;
    let e = engine.evaluate(&tool("Bash"), &json!({"command": "diff a b"}), &ctx, None);
    assert_eq!(e.decision.behavior, Ask, "{}", e.explain());
    assert!(e.decision.message.contains("follows a link below `a`"), "{}", e.decision.message);
}

/// An ask raised by an ask rule suggests no rule: "always allow" would save an allow rule
/// that can never win over the ask rule. An ask for want of a rule still suggests one.
#[test]
fn an_ask_rule_offers_no_rule_to_save() {
    let engine = project_engine();
    let ask = |tool_name: &'static str, input: Value| engine.evaluate(&tool(tool_name), &input, &ctx(Dflt), None);
    for (tool_name, input) in
        [("Bash", json!({"command": "git push origin main"})), ("Edit", json!({"file_path": "/repo/migrations/1.sql"}))]
    {
        let e = ask(tool_name, input);
        assert_eq!(e.decision.behavior, Ask);
        assert!(e.suggestions.is_empty(), "{:?}", e.suggestions);
    }
    let e = ask("Bash", json!({"command": "make build"}));
    assert_eq!(e.decision.behavior, Ask);
    assert!(!e.suggestions.is_empty());
}

/// What a walk meets is judged as walked, and a link also by where it leads.
#[test]
fn read_denies_judges_a_link_by_its_target() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::write(repo.join(".env"), "s").unwrap();
    std::os::unix::fs::symlink(repo.join(".env"), repo.join("env-link")).unwrap();
    let s = settings_at(json!({"permissions": {"deny": ["Read(./.env)"], "ask": ["Read(./src/**)"]}}), &repo);
    let engine = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    assert!(engine.read_denies(&repo.join(".env"), false));
    assert!(engine.read_denies(&repo.join("env-link"), true));
    assert!(!engine.read_denies(&repo.join("env-link"), false), "a walked path that is no link is judged as it is");
    assert!(!engine.read_denies(&repo.join("src/a.rs"), false), "an ask rule hides nothing");
}

#[test]
fn symlinks_and_dot_dot_cannot_escape() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), "s").unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("link")).unwrap();
    let deny_outside = format!("Read(/{}/**)", outside.display());
    let s = settings_at(json!({"permissions": {"deny": [deny_outside], "allow": ["Edit(/link/**)"]}}), &repo);
    let engine = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    let mut c = ToolContext::new(&repo);
    c.permission_mode = Dflt;
    let read = tool("Read");
    let through_link = json!({"file_path": repo.join("link/secret")});
    let e = engine.evaluate(&read, &through_link, &c, None);
    assert_eq!(e.decision.behavior, Deny, "the link's target matches the deny rule: {}", e.explain());
    // A Read deny also blocks writes, through the link too.
    let edit = tool("Edit");
    let e = engine.evaluate(&edit, &json!({"file_path": repo.join("link/new")}), &c, None);
    assert_eq!(e.decision.behavior, Deny, "{}", e.explain());
    // An allow through a link needs the target to match too.
    let free = tmp.path().join("free");
    std::fs::create_dir_all(&free).unwrap();
    std::os::unix::fs::symlink(&free, repo.join("link2")).unwrap();
    let s = settings_at(json!({"permissions": {"allow": ["Edit(/link2/**)"]}}), &repo);
    let engine2 = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    let e = engine2.evaluate(&edit, &json!({"file_path": repo.join("link2/new")}), &c, None);
    assert_eq!(e.decision.behavior, Ask, "{}", e.explain());
    let e = engine2.evaluate(&edit, &json!({"file_path": repo.join("plain.txt")}), &c, None);
    assert_eq!(e.decision.behavior, Ask, "{}", e.explain());
    // With the target allowed as well (by a rule of its own), the write through the link is.
    let both = json!(["Edit(/link2/**)", format!("Edit(/{}/**)", free.display())]);
    let s = settings_at(json!({"permissions": {"allow": both}}), &repo);
    let engine3 = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    let e = engine3.evaluate(&edit, &json!({"file_path": repo.join("link2/new")}), &c, None);
    assert_eq!(e.decision.behavior, Allow, "{}", e.explain());
    assert!(e.decision.message.contains("Edit(/link2/**)"), "the rule of the path as written: {}", e.decision.message);
    // `..` is resolved before the working-directory check.
    let e = engine.evaluate(&read, &json!({"file_path": format!("{}/../outside/x", repo.display())}), &c, None);
    assert_eq!(e.decision.behavior, Deny);
}

/// The rules in `fixtures/examples.settings.json` carry the commands and paths they must
/// and must not match; a rule that disagrees with its own examples fails here.
#[test]
fn rules_agree_with_their_own_examples() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples.settings.json");
    let text = std::fs::read_to_string(&fixture).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let repo = PathBuf::from("/repo");
    let loaded =
        crate::SettingsDiscovery::new(&repo).with_home(None).with_managed_dir(None).with_settings_file(&fixture).load();
    let (settings, diags) = loaded.permissions();
    assert!(diags.is_empty(), "{diags:?}");
    let engine = PermissionEngine::builder(settings).home(Some("/home/u".into())).cwd(&repo).build();
    let mut checked = 0;
    let mut failures = Vec::new();
    for example in doc["examples"].as_array().unwrap() {
        let rule = example["rule"].as_str().unwrap();
        let want: PermissionBehavior = serde_json::from_value(example["behavior"].clone()).unwrap();
        let name: &'static str = Box::leak(example["tool"].as_str().unwrap().to_owned().into_boxed_str());
        for (key, should_match) in [("matches", true), ("not", false)] {
            for input in example[key].as_array().unwrap() {
                let e = engine.evaluate(&tool(name), input, &ctx(Dflt), None);
                let hit = e.decision.behavior == want
                    && matches!(&e.decision.reason, DecisionReason::Rule { rule: r, .. } if r == rule);
                if hit != should_match {
                    failures.push(format!("{rule} vs {input}: expected match={should_match}, got {}", e.explain()));
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} examples");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Regression: `cat < .env` and `cp .env x` read a denied file past `Read(./.env)`, and
/// `tee .env` or `cp x .env` wrote one past `Edit(./.env)` when the command was allowed.
#[test]
fn path_deny_rules_hold_against_input_redirections_and_command_operands() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::write(repo.join(".env"), "k=v").unwrap();
    let bash = tool("Bash");
    let mut c = ToolContext::new(&repo);
    c.permission_mode = Bypass;
    let allow = json!(["Bash(cat:*)", "Bash(sort:*)", "Bash(cp:*)", "Bash(tee:*)", "Bash(echo:*)"]);
    let s = settings_at(json!({"permissions": {"allow": allow, "deny": ["Read(./.env)"]}}), &repo);
    let engine = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    // (`.en[\v]` is a bracket expression to bash, though tree-sitter splits it after the `[`.)
    for command in
        ["cat < .env", "sort < sub/../.env", "cp .env copy", "cat 0< ./.env", "cat .en[\\v]", "cat ./.e[\\n]v"]
    {
        let e = engine.evaluate(&bash, &json!({"command": command}), &c, None);
        assert_eq!(e.decision.behavior, Deny, "{command}: {}", e.explain());
    }
    let s = settings_at(json!({"permissions": {"allow": allow, "deny": ["Edit(./.env)"]}}), &repo);
    let engine = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    // A descriptor opened on the file for reading, written through its device, writes it.
    for command in
        ["echo x | tee .env", "cp copy .env", "tee -a ./.env", "echo x 3<.env >/dev/fd/3", "echo x 1<.env >/dev/stdout"]
    {
        let e = engine.evaluate(&bash, &json!({"command": command}), &c, None);
        assert_eq!(e.decision.behavior, Deny, "{command}: {}", e.explain());
    }
    // Narrow: other files stay allowed.
    let e = engine.evaluate(&bash, &json!({"command": "echo x | tee other.txt"}), &c, None);
    assert_eq!(e.decision.behavior, Allow, "{}", e.explain());
    // Regression: `>>/dev/fd/3` after `3<.git/config` was an exempt write, so a "read-only"
    // line planted a `core.fsmonitor` and ran it with `git status`.
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let plant = "printf '[core]\\n\\tfsmonitor = x\\n' 3<.git/config >>/dev/fd/3; git status";
    let e = empty_engine().evaluate(&bash, &json!({"command": plant}), &ToolContext::new(&repo), None);
    assert_ne!(e.decision.behavior, Allow, "{}", e.explain());
}

#[test]
fn a_denied_path_is_shown_as_the_rule_matched_it() {
    let engine = project_engine();
    let e = engine.evaluate(&tool("Bash"), &json!({"command": "cd .. && cat repo/.env"}), &ctx(Dflt), None);
    assert_eq!(e.decision.behavior, Deny);
    // (`Read(./.env)` is a `.env` at any depth below /repo, as in Claude Code.)
    assert!(e.decision.message.contains("/.env: denied by the rule Read(./.env)"), "{}", e.decision.message);
}

/// A recursive read is checked file by file below each folder it reads; a folder that is
/// not there (or a link that leads nowhere) has nothing below it to check.
#[test]
fn a_recursive_read_checks_the_files_below_folders_that_exist() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(repo.join("present")).unwrap();
    std::fs::write(repo.join("present/secret.txt"), "k=v").unwrap();
    std::os::unix::fs::symlink("gone", repo.join("dangling")).unwrap();
    let deny = json!(["Read(./present/secret.txt)", "Read(./missing/**/*.txt)", "Read(./dangling/**/*.txt)"]);
    let s = settings_at(json!({"permissions": {"deny": deny}}), &repo);
    let engine = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    let bash = tool("Bash");
    let c = ToolContext::new(&repo);
    for (command, behavior) in [
        ("grep -rn key present", Deny),
        ("rg -uu key", Deny),
        ("grep -rn key missing", Allow),
        ("grep -rn key dangling", Allow),
        ("rg key missing/below", Allow),
    ] {
        let e = engine.evaluate(&bash, &json!({"command": command}), &c, None);
        assert_eq!(e.decision.behavior, behavior, "{command}: {}", e.explain());
    }
}

/// Bash expands braces before it runs a command: the options and paths they make are checked
/// as if written out (`wc {--files0-from=.env,}` is `wc --files0-from=.env`), and an expansion
/// too large to make is never approved automatically.
#[test]
fn brace_expansions_are_checked_as_the_words_bash_makes() {
    let s = settings(json!({"permissions": {"deny": ["Read(./.env)"]}}));
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    let bash = tool("Bash");
    for (command, mode, behavior) in [
        ("wc {--files0-from=.env,}", Dflt, Deny),
        ("wc {--files0-from=.env,}", Plan, Deny),
        ("wc {--files0-from=.env,}", Bypass, Deny),
        ("diff {--from-file=.env,} f", Dflt, Deny),
        ("diff {--from-file=.env,} f", Bypass, Deny),
        ("cat {.env,}", Dflt, Deny),
        ("wc {--files0-from=src/list,}", Dflt, Ask),
        ("cat src/{a,b}.rs", Dflt, Allow),
        ("echo {a,b}", Plan, Allow),
    ] {
        let got = check(&engine, &bash, json!({"command": command}), mode, None);
        assert_eq!(got.0, behavior, "{command} in {mode}");
    }
    // `-R` follows links out of the working directories: not an automatic read-only approval.
    for mode in [Dflt, Plan] {
        let e = engine.evaluate(&bash, &json!({"command": "grep {-R,} PRIV ."}), &ctx(mode), None);
        assert_ne!(e.decision.reason.kind(), "classifier", "{}", e.explain());
        assert_ne!(e.decision.behavior, Allow, "{}", e.explain());
    }
    for command in ["echo {1..1000}{1..1000}{1..1000}", "echo {a,b}{1..200}", "ls x{1..300}"] {
        let message = never_approved_automatically(&engine, command);
        assert!(message.contains("brace expansion"), "{message}");
        assert_eq!(check(&engine, &bash, json!({"command": command}), Plan, None), (Deny, "mode"), "{command}");
    }
    bypassed(&engine, &["touch x{1..256}", "cp src/x.rs{,.bak}"]);
}

/// GNU programs take any unambiguous prefix of a long option (`--recursiv`, `--dir`) and of
/// some options' words (grep's `-d rec`): the recursion those spellings ask for is checked as
/// `-r` is, below folders a rule denies and outside the working directories.
#[test]
fn abbreviated_options_that_recurse_are_checked_as_recursion() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    for dir in ["secret", ".hidden"] {
        std::fs::create_dir_all(repo.join(dir)).unwrap();
        std::fs::write(repo.join(dir).join("key.txt"), "k=v").unwrap();
    }
    let s = settings_at(json!({"permissions": {"deny": ["Read(./secret/**)", "Read(./.hidden/**)"]}}), &repo);
    let engine = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    let bash = tool("Bash");
    let mut c = ToolContext::new(&repo);
    for (command, behavior) in [
        ("grep --recursiv key .", Deny),
        ("grep --rec key .", Deny),
        ("grep --dir=recurse key .", Deny),
        ("grep --directories rec key .", Deny),
        ("grep -d rec key .", Deny),
        ("grep -drec key .", Deny),
        ("egrep --recursive key .", Deny),
        ("rg --unrestricted --unrestricted key", Deny),
        ("rg -uu key", Deny),
        ("grep -d skip key .", Allow),
        ("grep --dir=read key .", Allow),
    ] {
        for mode in [Dflt, Plan, Bypass] {
            c.permission_mode = mode;
            let e = engine.evaluate(&bash, &json!({"command": command}), &c, None);
            assert_eq!(e.decision.behavior, behavior, "{command} in {mode}: {}", e.explain());
        }
    }
    // ripgrep skips hidden folders unless told not to.
    let s = settings_at(json!({"permissions": {"deny": ["Read(./.hidden/**)"]}}), &repo);
    let hidden_only = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    c.permission_mode = Dflt;
    for (command, behavior) in
        [("rg key", Allow), ("rg --unrestricted --unrestricted key", Deny), ("rg --hidden key", Deny)]
    {
        let e = hidden_only.evaluate(&bash, &json!({"command": command}), &c, None);
        assert_eq!(e.decision.behavior, behavior, "{command}: {}", e.explain());
    }
    let engine = empty_engine();
    for command in ["grep --recursiv x /", "grep -drec x /etc", "grep --dir recurse x ~", "grep --deref x ."] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None).0, Ask, "{command}");
        assert_ne!(check(&engine, &bash, json!({"command": command}), Plan, None).0, Allow, "{command}");
    }
}

/// find's own options (`-H -L -P -D OPTS -OLEVEL`, then `--`) come before its starting
/// points: a starting point after them is read, and removed by `-delete`, as one first.
#[test]
fn find_starting_points_after_its_leading_options_are_checked() {
    let engine = empty_engine();
    let bash = tool("Bash");
    for command in ["find -P -- ~", "find -O3 ~", "find -D tree /etc", "find -P -- $HOME", "find -- /etc -name x"] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None).0, Ask, "{command}");
        assert_eq!(check(&engine, &bash, json!({"command": command}), Plan, None).0, Deny, "{command}");
    }
    for command in ["find -P -- / -delete", "find -O3 ~ -delete", "find -D exec -- ~ -exec rm -rf {} +"] {
        for mode in [Dflt, Bypass] {
            assert_eq!(check(&engine, &bash, json!({"command": command}), mode, None), (Ask, "safety"), "{command}");
        }
    }
    for command in ["find -P -- src -name '*.rs'", "find -O2 . -type f"] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None), (Allow, "classifier"), "{command}");
    }
}

/// An unquoted glob lists the folder it matches in: outside the working directories it is
/// read as `ls` of that folder would be, whatever the command (`echo ~/*` prints the home
/// folder's names as `ls ~` does).
#[test]
fn a_glob_lists_the_folder_it_matches_in() {
    let engine = empty_engine();
    let bash = tool("Bash");
    for command in ["echo ~/*", "echo /etc/*", "printf '%s\\n' ~/.ssh/*", "cat ~/.ss?/id_*", "echo /???/*"] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None).0, Ask, "{command}");
        assert_eq!(check(&engine, &bash, json!({"command": command}), Plan, None).0, Deny, "{command}");
    }
    for command in ["echo *.rs", "ls src/*.rs", "echo '~/*' \"/etc/*\""] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None), (Allow, "classifier"), "{command}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(repo.join("secret")).unwrap();
    std::fs::write(repo.join("secret/key.txt"), "k=v").unwrap();
    let s = settings_at(json!({"permissions": {"deny": ["Read(./secret/**)"]}}), &repo);
    let engine = PermissionEngine::builder(s).home(None).cwd(&repo).build();
    let c = ToolContext::new(&repo);
    for (command, behavior) in [("echo secret/*", Deny), ("ls secret", Deny), ("echo src/*", Allow)] {
        let e = engine.evaluate(&bash, &json!({"command": command}), &c, None);
        assert_eq!(e.decision.behavior, behavior, "{command}: {}", e.explain());
    }
}

/// bash removes the quotes of a `>&` target twice: `>&'".bashrc"'` writes `.bashrc`, which a
/// reading that removes them once takes for `".bashrc"`. Such a target is not read as bash
/// reads it, so it is never approved, `bypassPermissions` included (the oracle found
/// `>&'"#'` writing `#`).
#[test]
fn a_target_whose_quotes_bash_removes_twice_is_never_approved() {
    let engine = empty_engine();
    for command in ["echo x >&'\".bashrc\"'", "echo x >&\"'.mcp.json'\"", "echo x >&'\"#'"] {
        never_approved_automatically(&engine, command);
    }
    bypassed(&engine, &["echo x >&'out.log'"]);
}
