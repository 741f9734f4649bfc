//! Bash on real processes.

use serde_json::json;
use toolgate_core::{ContextChange, ToolErrorKind};

use crate::support::{Session, is_dead, pids, tool, wait_dead, wait_for_line};

#[tokio::test]
async fn exit_codes_are_reported() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "echo hi"})).await.unwrap();
    assert_eq!(out.to_text(), "hi");
    assert_eq!(out.structured.as_ref().unwrap()["exitCode"], 0);
    for code in [2, 3, 42] {
        let err = s.call("Bash", json!({"command": format!("echo out; exit {code}")})).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::Io);
        assert_eq!(err.message(), format!("Exit code {code}\nout"));
    }
    let err = s.call("Bash", json!({"command": "false"})).await.unwrap_err();
    assert_eq!(err.message(), "Exit code 1");
}

#[tokio::test]
async fn a_missing_command_says_how_to_fix_it() {
    let s = Session::new();
    let err = s.call("Bash", json!({"command": "toolgate-no-such-command --flag"})).await.unwrap_err();
    assert!(err.message().starts_with("Exit code 127\n"), "{}", err.message());
    assert!(err.message().contains("toolgate-no-such-command: command not found"), "{}", err.message());
    assert!(err.hint().unwrap().contains("not found"));
}

#[tokio::test]
async fn stdout_and_stderr_are_merged_in_order() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "echo a; echo b >&2; echo c"})).await.unwrap();
    assert_eq!(out.to_text(), "a\nb\nc");
    let many = "for i in 1 2 3 4 5 6 7 8 9 10; do echo out$i; echo err$i >&2; done";
    let out = s.call("Bash", json!({"command": many})).await.unwrap();
    let expected: Vec<String> = (1..=10).flat_map(|i| [format!("out{i}"), format!("err{i}")]).collect();
    assert_eq!(out.to_text(), expected.join("\n"));
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_and_saves_everything() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "seq 1 100000"})).await.unwrap();
    let text = out.to_text();
    assert!(text.chars().count() < 31_000, "{} chars shown", text.chars().count());
    assert!(text.starts_with("1\n2\n3\n"));
    assert!(text.ends_with("99999\n100000"));
    let marker = text.lines().find(|l| l.starts_with("... [")).unwrap();
    assert!(marker.contains(" lines (") && marker.contains(" of 100,000. Full output saved to "), "{marker}");
    let structured = out.structured.unwrap();
    let saved = structured["persistedOutputPath"].as_str().unwrap();
    assert!(saved.starts_with(s.session.join("tool-results").to_str().unwrap()), "{saved}");
    assert!(marker.contains(saved), "{marker}");
    let expected: Vec<String> = (1..=100_000).map(|n| n.to_string()).collect();
    assert_eq!(std::fs::read_to_string(saved).unwrap(), expected.join("\n"));
    assert_eq!(structured["persistedOutputSize"], 588_895);
    // The marker's first omitted line is the one after the shown head.
    let head_lines = text.split("\n\n... [").next().unwrap().lines().count();
    assert!(marker.contains(&format!("Read it with offset {}", head_lines + 1)), "{marker}");
}

#[tokio::test]
async fn a_timeout_kills_the_child_and_its_grandchildren() {
    let s = Session::new();
    // bash prints its pid, then sh (its child) prints its own and its sleep's.
    let command = "echo $$; sh -c 'echo $$; sleep 100 & echo $!; wait'";
    // Generous, so that even a loaded machine prints the pids first.
    let err = s.call("Bash", json!({"command": command, "timeout": 5000})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout);
    assert!(err.message().starts_with("Command timed out after 5s"), "{}", err.message());
    let found = pids(err.message());
    assert_eq!(found.len(), 3, "{}", err.message());
    for pid in found {
        assert!(wait_dead(pid).await, "pid {pid} survived the timeout");
    }
    assert!(err.hint().unwrap().contains("run_in_background"));
}

#[tokio::test]
async fn cancelling_the_call_kills_the_group() {
    let s = Session::new();
    let pid_file = s.root.join("pid");
    let command = format!("sleep 100 & echo $! > '{}'; wait", pid_file.display());
    let cancel = s.ctx.cancel.clone();
    let watcher = {
        let pid_file = pid_file.clone();
        tokio::spawn(async move {
            wait_for_line(&pid_file).await;
            cancel.cancel();
        })
    };
    let err = s.call("Bash", json!({"command": command})).await.unwrap_err();
    watcher.await.unwrap();
    assert_eq!(err.kind(), ToolErrorKind::Cancelled);
    let pid = pids(&std::fs::read_to_string(&pid_file).unwrap())[0];
    assert!(wait_dead(pid).await, "sleep {pid} survived the interrupt");
}

#[tokio::test]
async fn processes_left_behind_are_killed() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "sleep 100 & echo $!"})).await.unwrap();
    let pid = pids(&out.to_text())[0];
    assert!(wait_dead(pid).await, "sleep {pid} outlived its command");
}

#[tokio::test]
async fn cd_carries_over_inside_the_roots() {
    let mut s = Session::new();
    let out = s.call("Bash", json!({"command": "mkdir -p sub/deeper && cd sub"})).await.unwrap();
    assert_eq!(out.context_change, Some(ContextChange::Cwd(s.root.join("sub"))));
    // The result names the new working directory, so the model need not run pwd.
    assert_eq!(out.to_text(), format!("The working directory is now {}.", s.root.join("sub").display()));
    s.apply(&out);
    let out = s.call("Bash", json!({"command": "pwd"})).await.unwrap();
    assert_eq!(out.to_text(), s.root.join("sub").display().to_string());
    assert_eq!(out.context_change, None);
    let out = s.call("Bash", json!({"command": "cd deeper"})).await.unwrap();
    s.apply(&out);
    let out = s.call("Bash", json!({"command": "cd ../.. && pwd"})).await.unwrap();
    assert_eq!(out.context_change, Some(ContextChange::Cwd(s.root.clone())));
    let root = s.root.display();
    assert_eq!(out.to_text(), format!("{root}\n\nThe working directory is now {root}."));
}

#[tokio::test]
async fn cd_outside_the_roots_is_not_kept() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "cd / && pwd"})).await.unwrap();
    assert_eq!(out.context_change, None);
    let text = out.to_text();
    assert!(
        text.starts_with(&format!(
            "/\n\nShell cwd was reset to {}: / is outside the working directories.",
            s.root.display()
        )),
        "{text}"
    );
    let out = s.call("Bash", json!({"command": "pwd"})).await.unwrap();
    assert_eq!(out.to_text(), s.root.display().to_string());
}

#[tokio::test]
async fn a_cd_in_a_failed_command_is_not_kept_and_says_so() {
    let s = Session::new();
    std::fs::create_dir(s.root.join("sub")).unwrap();
    let err = s.call("Bash", json!({"command": "cd sub && exit 4"})).await.unwrap_err();
    assert!(err.message().starts_with("Exit code 4"), "{}", err.message());
    // `exit` skips the wrapper's pwd: nothing is known, nothing said.
    let err = s.call("Bash", json!({"command": "cd sub && false"})).await.unwrap_err();
    assert!(err.message().contains("but the working directory stays"), "{}", err.message());
}

#[tokio::test]
async fn the_environment_does_not_carry_over() {
    let s = Session::new();
    let out =
        s.call("Bash", json!({"command": "export TG_CARRY=1; TG_LOCAL=2; echo $TG_CARRY$TG_LOCAL"})).await.unwrap();
    assert_eq!(out.to_text(), "12");
    let out = s.call("Bash", json!({"command": "echo ${TG_CARRY-unset} ${TG_LOCAL-unset}"})).await.unwrap();
    assert_eq!(out.to_text(), "unset unset");
}

#[tokio::test]
async fn exit_one_of_search_commands_is_not_a_failure() {
    let s = Session::new();
    std::fs::write(s.root.join("notes.txt"), "alpha\n").unwrap();
    let out = s.call("Bash", json!({"command": "grep beta notes.txt"})).await.unwrap();
    assert_eq!(out.to_text(), "(exit code 1: no matches were found; not an error)");
    let structured = out.structured.unwrap();
    assert_eq!(structured["exitCode"], 1);
    assert_eq!(structured["returnCodeInterpretation"], "no matches were found");
    let out = s.call("Bash", json!({"command": "echo x > a; echo y > b; diff a b"})).await.unwrap();
    assert!(out.to_text().ends_with("(exit code 1: the inputs differ; not an error)"), "{}", out.to_text());
    // Exit 2 of grep is an error (a missing file), and so is exit 1 of anything else.
    let err = s.call("Bash", json!({"command": "grep beta missing.txt"})).await.unwrap_err();
    assert!(err.message().starts_with("Exit code 2"), "{}", err.message());
    let err = s.call("Bash", json!({"command": "grep beta notes.txt | wc -l; false"})).await.unwrap_err();
    assert!(err.message().starts_with("Exit code 1\n0"), "{}", err.message());
}

#[test]
fn read_only_commands_are_concurrency_safe_and_others_are_not() {
    let bash = tool("Bash");
    for command in ["ls", "ls -la src", "git status", "grep -rn TODO . | head", ""] {
        let input = json!({"command": command});
        assert!(bash.is_read_only(&input), "{command}");
        assert!(bash.is_concurrency_safe(&input), "{command}");
    }
    for command in ["rm -rf target", "ls > listing.txt", "cargo build", "echo $(rm x)", "ls; rm x"] {
        let input = json!({"command": command});
        assert!(!bash.is_read_only(&input), "{command}");
        assert!(!bash.is_concurrency_safe(&input), "{command}");
    }
    assert!(bash.is_destructive(&json!({"command": "rm -rf target"})));
    assert!(bash.is_destructive(&json!({"command": "git reset --hard HEAD~1"})));
    assert!(!bash.is_destructive(&json!({"command": "ls"})));
    // From the program table: a path's basename, git past its global options, a name prefix.
    for command in ["/bin/rm x", "git -C . push --force", "git clean -fd", "git checkout -- .", "mkfs.ext4 d.img"] {
        assert!(bash.is_destructive(&json!({"command": command})), "{command}");
    }
    for command in ["git push origin main", "git status", "git checkout main", "grep -r rm ."] {
        assert!(!bash.is_destructive(&json!({"command": command})), "{command}");
    }
    assert_eq!(bash.permission_target(&json!({"command": "npm test"})).as_deref(), Some("npm test"));
    assert_eq!(bash.interrupt_behavior(), toolgate_core::InterruptBehavior::Cancel);
    assert_eq!(bash.render_use(&json!({"command": "ls\n-la"})), "Bash(ls⏎-la)");
}

#[tokio::test]
async fn invalid_timeouts_are_refused_and_large_ones_lowered() {
    let s = Session::new();
    for bad in [json!(0), json!(-5), json!(-0.5)] {
        let err = s.call("Bash", json!({"command": "true", "timeout": bad})).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidInput, "{bad}");
        assert!(err.message().starts_with("timeout must be a positive number of milliseconds"), "{}", err.message());
    }
    let err = s.call("Bash", json!({"command": "true", "timeout": "soon"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    let out = s.call("Bash", json!({"command": "echo ok", "timeout": 900000})).await.unwrap();
    assert_eq!(out.to_text(), "ok\n\ntimeout 900000 ms is above the maximum of 600000 ms; 600000 ms was used");
}

#[tokio::test]
async fn unknown_fields_are_refused() {
    let s = Session::new();
    let err = s.call("Bash", json!({"command": "true", "cwd": "/"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidInput);
    assert!(err.message().contains("unknown field `cwd`"), "{}", err.message());
}

#[tokio::test]
async fn an_empty_command_succeeds_with_empty_output() {
    let s = Session::new();
    for command in ["", "   ", "\n"] {
        let out = s.call("Bash", json!({"command": command})).await.unwrap();
        assert_eq!(out.to_text(), "", "{command:?}");
    }
}

#[tokio::test]
async fn non_utf8_output_is_replaced_not_refused() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": r"printf 'caf\351 ok\n\377\n'"})).await.unwrap();
    assert_eq!(out.to_text(), "caf\u{FFFD} ok\n\u{FFFD}");
}

#[tokio::test]
async fn stdin_is_empty_and_positional_parameters_are_unset() {
    let s = Session::new();
    let out = s.call("Bash", json!({"command": "cat; echo \"[$#][$1]\""})).await.unwrap();
    assert_eq!(out.to_text(), "[0][]");
}

#[tokio::test]
async fn error_messages_name_the_commands_own_lines() {
    let s = Session::new();
    let err = s.call("Bash", json!({"command": "true\ntoolgate-missing-xyz"})).await.unwrap_err();
    assert!(err.message().contains("line 2: toolgate-missing-xyz: command not found"), "{}", err.message());
}

#[tokio::test]
async fn a_very_long_command_runs() {
    let s = Session::new();
    // Over the 128 KiB limit of one argument: passed in a file.
    let command = format!(": '{}'; echo long-ok", "x".repeat(200 * 1024));
    let out = s.call("Bash", json!({"command": command})).await.unwrap();
    assert_eq!(out.to_text(), "long-ok");
}

#[tokio::test]
async fn a_vanished_working_directory_falls_back_to_the_root() {
    let mut s = Session::new();
    let gone = s.root.join("gone");
    std::fs::create_dir(&gone).unwrap();
    s.ctx.cwd = gone.clone();
    std::fs::remove_dir(&gone).unwrap();
    let out = s.call("Bash", json!({"command": "pwd"})).await.unwrap();
    assert_eq!(out.context_change, Some(ContextChange::Cwd(s.root.clone())));
    assert!(out.to_text().contains("no longer exists; the command ran in"), "{}", out.to_text());
}

#[tokio::test]
async fn a_process_that_is_not_dead_is_alive() {
    assert!(!is_dead(std::process::id()));
}
