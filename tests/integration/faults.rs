//! Fault injection across crates: hooks that hang, leave children behind, flood their
//! output or die by a signal; a Bash command that leaves a daemon behind; a disk that
//! fills up under Write. Each runs through a real pipeline `Session` with the real
//! built-in tools and settings read from files, and checks what the model gets back and
//! that no process or partial file survives.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use toolgate_core::CancellationToken;
use toolgate_core::process::ProcessSpec;
use toolgate_permissions::SettingsDiscovery;
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock};

fn text(r: &ToolResultBlock) -> String {
    r.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// A project folder (canonical, so paths compare equal) with `settings` as its
/// `.claude/settings.json`.
fn project(settings: &Value) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
    (dir, root)
}

/// A session on the project's settings with every built-in tool and no prompter.
fn session(root: &Path) -> Session {
    let loaded = SettingsDiscovery::new(root).with_home(None).with_managed_dir(None).with_trust(true).load();
    let session = Session::builder()
        .cwd(root)
        .settings(loaded)
        .results_dir(root.join(".results"))
        .builtin_tools(toolgate_builtin::all_builtin_tools())
        .build();
    assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
    session
}

/// Settings with one PreToolUse hook on Bash, and `echo` allowed.
fn hooked(command: &str, timeout_secs: u64) -> Value {
    json!({
        "permissions": {"allow": ["Bash(echo:*)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command, "timeout": timeout_secs}
        ]}]}
    })
}

/// Runs one message under a generous guard: a hang here is a failed test, not a stuck CI.
async fn run(session: &Session, calls: Vec<ToolCall>) -> Vec<ToolResultBlock> {
    tokio::time::timeout(Duration::from_secs(120), session.run_message(calls)).await.expect("the message finished")
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
        .unwrap_or(false)
}

/// Waits (bounded) until `pid` is gone; true when it is.
async fn gone(pid: u32) -> bool {
    for _ in 0..400 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

/// Waits (bounded) for a pid written to `file`.
async fn pid_in(file: &Path) -> u32 {
    for _ in 0..400 {
        if let Some(pid) = std::fs::read_to_string(file).ok().and_then(|s| s.trim().parse().ok()) {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no pid appeared in {}", file.display())
}

fn echo(id: &str) -> ToolCall {
    ToolCall::new(id, "Bash", json!({"command": "echo ran"}))
}

/// A hook that never finishes is killed at its timeout; a failing hook does not block,
/// so the call runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_hook_is_killed_at_its_timeout_and_the_call_runs() {
    let (_dir, root) = project(&hooked("echo $$ > hook.pid; exec sleep 600", 1));
    let r = run(&session(&root), vec![echo("1")]).await;
    assert!(!r[0].is_error, "{}", text(&r[0]));
    assert!(text(&r[0]).starts_with("ran"), "{}", text(&r[0]));
    let pid = pid_in(&root.join("hook.pid")).await;
    assert!(gone(pid).await, "the hung hook {pid} was killed");
}

/// A hook that exits at once but leaves a child holding its stdout: the hook's result
/// comes after the drain period, and the child is killed with the hook's group.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_forks_a_hanging_child_does_not_hold_the_call() {
    let (_dir, root) = project(&hooked("sleep 600 & echo $! > child.pid; exit 0", 30));
    let r = run(&session(&root), vec![echo("1")]).await;
    assert!(!r[0].is_error, "{}", text(&r[0]));
    let pid = pid_in(&root.join("child.pid")).await;
    assert!(gone(pid).await, "the hook's child {pid} was killed");
}

/// 200 MB on stdout and a block reason of 10 MB on stderr: memory stays bounded (the
/// helper keeps 1 MiB), and what reaches the model is capped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_hook_is_capped() {
    let (_dir, root) = project(&hooked("head -c 200000000 /dev/zero; exit 0", 60));
    let r = run(&session(&root), vec![echo("1")]).await;
    assert!(!r[0].is_error, "{}", &text(&r[0])[..200.min(text(&r[0]).len())]);
    let (_dir, root) = project(&hooked("head -c 10000000 /dev/zero | tr '\\0' x >&2; exit 2", 60));
    let r = run(&session(&root), vec![echo("1")]).await;
    assert!(r[0].is_error);
    let shown = text(&r[0]);
    assert!(shown.len() < 100_000, "the block reason reaching the model is capped: {} bytes", shown.len());
    assert!(shown.contains("xxxx"), "{}", &shown[..200.min(shown.len())]);
}

/// A hook killed by a signal is a non-blocking error: the call runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_dies_by_a_signal_does_not_block() {
    let (_dir, root) = project(&hooked("kill -9 $$", 30));
    let r = run(&session(&root), vec![echo("1"), echo("2")]).await;
    for result in &r {
        assert!(!result.is_error && text(result).starts_with("ran"), "{}", text(result));
    }
}

/// A command that starts a daemon and exits: the daemon is in the command's process
/// group and is killed once the command's output is drained.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_left_by_a_bash_command_is_killed() {
    let (_dir, root) = project(&json!({"permissions": {"defaultMode": "bypassPermissions"}}));
    let command = "nohup sleep 600 >/dev/null 2>&1 & echo $!";
    let r = run(&session(&root), vec![ToolCall::new("1", "Bash", json!({"command": command}))]).await;
    assert!(!r[0].is_error, "{}", text(&r[0]));
    let pid: u32 = text(&r[0]).lines().next().unwrap().trim().parse().unwrap();
    assert!(gone(pid).await, "the daemon {pid} was killed with the command's group");
}

/// Cancelling a message while a command and the daemon it started both run kills both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_kills_a_bash_command_and_its_daemon() {
    let (_dir, root) = project(&json!({"permissions": {"defaultMode": "bypassPermissions"}}));
    let session = session(&root);
    let command = "nohup sleep 600 >/dev/null 2>&1 & echo $! > daemon.pid; echo $$ > shell.pid; sleep 600";
    let cancel = CancellationToken::new();
    let running = {
        let (session, cancel) = (session.clone(), cancel.clone());
        tokio::spawn(async move {
            session.run_message_with(vec![ToolCall::new("1", "Bash", json!({"command": command}))], cancel, None).await
        })
    };
    let daemon = pid_in(&root.join("daemon.pid")).await;
    let shell = pid_in(&root.join("shell.pid")).await;
    cancel.cancel();
    let r = tokio::time::timeout(Duration::from_secs(60), running).await.unwrap().unwrap();
    assert!(r[0].is_error, "{}", text(&r[0]));
    assert!(gone(shell).await, "the shell {shell} was killed");
    assert!(gone(daemon).await, "the daemon {daemon} was killed");
}

/// Mounts a 1 MiB tmpfs at `at`; None (with the reason printed) where that is refused.
async fn small_tmpfs(at: &Path) -> Option<()> {
    let args = ["-t", "tmpfs", "-o", "size=1m", "tmpfs"].map(std::ffi::OsString::from);
    let outcome = ProcessSpec::exec("mount", args.into_iter().chain([at.as_os_str().to_owned()]))
        .cwd(at)
        .run(&CancellationToken::new())
        .await
        .expect("mount can be started");
    if outcome.status.success() {
        Some(())
    } else {
        eprintln!("skipped: cannot mount a tmpfs (it needs root): {}", outcome.stderr.text().trim());
        None
    }
}

async fn unmount(at: &Path) {
    let parent = at.parent().unwrap_or(at);
    let _ = ProcessSpec::exec("umount", [at.as_os_str()]).cwd(parent).run(&CancellationToken::new()).await;
}

/// Disk full during Write: the call fails with an error that says so, the old content
/// stays, and no temporary file is left on the full disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disk_full_on_write_keeps_the_old_file() {
    let (_dir, root) = project(&json!({"permissions": {"defaultMode": "acceptEdits"}}));
    let disk = root.join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    if small_tmpfs(&disk).await.is_none() {
        return;
    }
    let outcome = async {
        let file = disk.join("notes.txt");
        std::fs::write(&file, "old content\n").unwrap();
        let session = session(&root);
        let read = ToolCall::new("r", "Read", json!({"file_path": file}));
        let big = "y".repeat(3 * 1024 * 1024);
        let write = ToolCall::new("w", "Write", json!({"file_path": file, "content": big}));
        let r = run(&session, vec![read, write]).await;
        let shown = text(&r[1]);
        let left: Vec<String> =
            std::fs::read_dir(&disk).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        (r[1].is_error, shown, std::fs::read_to_string(&file).unwrap(), left)
    }
    .await;
    unmount(&disk).await;
    let (is_error, shown, content, left) = outcome;
    assert!(is_error, "{shown}");
    assert!(shown.to_lowercase().contains("space"), "the error names the cause: {shown}");
    assert_eq!(content, "old content\n");
    assert_eq!(left, ["notes.txt"], "no temporary file is left on the full disk");
}
