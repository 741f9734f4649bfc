//! Bash under the sandbox policy: bubblewrap keeps the filesystem read-only outside the
//! working directories, `/tmp` private and the network away. Each test that needs a
//! working bubblewrap probes it first and returns early, printing why, when the kernel
//! refuses (no user namespaces, no bwrap).

use std::path::{Path, PathBuf};

use serde_json::json;
use toolgate_core::process::ProcessSpec;
use toolgate_core::{CancellationToken, SandboxPolicy, ToolErrorKind};

use crate::support::{Session, wait_for_line};

/// Whether bubblewrap can make a sandbox here; prints why not.
async fn bwrap_usable() -> bool {
    let Some(bwrap) = SandboxPolicy::find_bwrap() else {
        eprintln!("skipped: bwrap is not on PATH (install bubblewrap)");
        return false;
    };
    let args = ["--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"];
    match ProcessSpec::exec(bwrap, args).cwd("/").run(&CancellationToken::new()).await {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            eprintln!("skipped: the kernel refuses bubblewrap's namespaces: {}", out.stderr.text().trim());
            false
        }
        Err(e) => panic!("bwrap is on PATH but could not be started: {e}"),
    }
}

/// An enabled policy that never falls back to running unsandboxed.
fn strict() -> SandboxPolicy {
    SandboxPolicy { fail_if_unavailable: true, ..SandboxPolicy::enabled() }
}

/// A session with `policy`, and a directory outside its roots and outside `/tmp` (so that
/// it is visible, read-only, inside the sandbox).
fn session(policy: SandboxPolicy) -> (Session, tempfile::TempDir, PathBuf) {
    let mut s = Session::new();
    s.ctx.extensions.insert(policy);
    let outside = tempfile::tempdir_in(outside_tmp()).unwrap();
    let path = outside.path().canonicalize().unwrap();
    (s, outside, path)
}

/// A folder for temporary directories outside `/tmp` (which the sandbox replaces with a
/// private one): `/var/tmp`, else cargo's target tmp dir (itself under `/tmp` when the
/// checkout is).
fn outside_tmp() -> PathBuf {
    let var_tmp = Path::new("/var/tmp");
    if var_tmp.is_dir() { var_tmp.to_path_buf() } else { PathBuf::from(env!("CARGO_TARGET_TMPDIR")) }
}

fn quote(path: &Path) -> String {
    format!("'{}'", path.display())
}

#[tokio::test]
async fn writes_inside_the_roots_succeed_and_outside_fail() {
    if !bwrap_usable().await {
        return;
    }
    let (s, _keep, outside) = session(strict());
    let out = s.call("Bash", json!({"command": "echo in > inside.txt && cat inside.txt"})).await.unwrap();
    assert_eq!(out.to_text(), "in");
    assert_eq!(std::fs::read_to_string(s.root.join("inside.txt")).unwrap(), "in\n");

    let target = outside.join("escaped.txt");
    let err = s.call("Bash", json!({"command": format!("echo x > {}", quote(&target))})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Io);
    assert!(err.message().contains("Read-only file system"), "{}", err.message());
    assert!(err.message().contains("The command ran in the sandbox"), "{}", err.message());
    assert!(!target.exists(), "the write outside the roots must not happen");
}

#[tokio::test]
async fn allow_write_paths_are_writable() {
    if !bwrap_usable().await {
        return;
    }
    let (_, _keep, outside) = session(strict());
    let (s, _keep2, _) = session(SandboxPolicy { allow_write: vec![outside.clone()], ..strict() });
    s.call("Bash", json!({"command": format!("echo y > {}", quote(&outside.join("ok.txt")))})).await.unwrap();
    assert_eq!(std::fs::read_to_string(outside.join("ok.txt")).unwrap(), "y\n");
}

#[tokio::test]
async fn tmp_is_private() {
    if !bwrap_usable().await {
        return;
    }
    let (s, _keep, _) = session(strict());
    let name = format!("/tmp/toolgate-sandbox-{}-marker", std::process::id());
    let out = s.call("Bash", json!({"command": format!("echo t > {name} && cat {name}")})).await.unwrap();
    assert_eq!(out.to_text(), "t");
    assert!(!Path::new(&name).exists(), "a file written to /tmp inside is not visible outside");
}

#[tokio::test]
async fn the_network_is_cut_unless_allowed() {
    if !bwrap_usable().await {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");

    let (s, _keep, _) = session(strict());
    let err = s.call("Bash", json!({"command": connect})).await.unwrap_err();
    assert!(!err.message().contains("connected\n"), "{}", err.message());
    assert!(err.message().contains("Connection refused") || err.message().contains("unreachable"), "{}", err.message());

    let (s, _keep, _) = session(SandboxPolicy { network: true, ..strict() });
    let out = s.call("Bash", json!({"command": connect})).await.unwrap();
    assert_eq!(out.to_text(), "connected");
}

#[tokio::test]
async fn background_shells_are_sandboxed_too() {
    if !bwrap_usable().await {
        return;
    }
    let (s, _keep, outside) = session(strict());
    let target = outside.join("bg.txt");
    let done = s.root.join("done.txt");
    let command = format!("touch {} 2>/dev/null; echo \"status $?\" > {}", quote(&target), quote(&done));
    s.call("Bash", json!({"command": command, "run_in_background": true})).await.unwrap();
    let line = wait_for_line(&done).await;
    assert_ne!(line.trim(), "status 0", "the background write outside must fail");
    assert!(!target.exists());
}

/// Whether any process on the host has `token` in its command line.
fn running_with(token: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().filter_map(Result::ok).any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|cmd| String::from_utf8_lossy(&cmd).replace('\0', " ").contains(token))
    })
}

#[tokio::test]
async fn a_daemon_that_leaves_the_group_dies_with_the_sandbox() {
    if !bwrap_usable().await {
        return;
    }
    let (s, _keep, _) = session(strict());
    // A sleep length nobody else uses names the daemon on the host.
    let token = format!("{}.{}", 90_000 + std::process::id() % 9_000, std::process::id() % 1000);
    let command = format!("setsid sleep {token} >/dev/null 2>&1 < /dev/null & echo started");
    let out = s.call("Bash", json!({"command": command})).await.unwrap();
    assert_eq!(out.to_text(), "started");
    let mut gone = false;
    for _ in 0..2_000 {
        if !running_with(&format!("sleep {token}")) {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(gone, "the setsid daemon outlived its sandbox");
}

#[tokio::test]
async fn monitor_is_sandboxed_too() {
    if !bwrap_usable().await {
        return;
    }
    let (s, _keep, outside) = session(strict());
    let target = outside.join("monitor.txt");
    let err = s.call("Monitor", json!({"command": format!("touch {}", quote(&target))})).await.unwrap_err();
    assert!(err.message().contains("Read-only file system"), "{}", err.message());
    assert!(!target.exists());
}

#[tokio::test]
async fn excluded_commands_and_dangerously_disable_sandbox_run_outside() {
    if !bwrap_usable().await {
        return;
    }
    let (s, _keep, outside) = session(SandboxPolicy { excluded_commands: vec!["touch".into()], ..strict() });
    let excluded = outside.join("excluded.txt");
    let out = s.call("Bash", json!({"command": format!("touch {}", quote(&excluded))})).await.unwrap();
    assert!(excluded.exists());
    assert!(out.to_text().contains("sandbox.excludedCommands"), "{}", out.to_text());
    // One command that is not excluded keeps the whole line in the sandbox.
    let mixed = outside.join("mixed.txt");
    s.call("Bash", json!({"command": format!("touch {} && true", quote(&mixed))})).await.unwrap_err();
    assert!(!mixed.exists());

    let (s, _keep2, _) = session(strict());
    let freed = outside.join("freed.txt");
    let command = format!("touch {}", quote(&freed));
    let out = s.call("Bash", json!({"command": command, "dangerouslyDisableSandbox": true})).await.unwrap();
    assert!(freed.exists());
    assert!(out.to_text().contains("outside the sandbox"), "{}", out.to_text());

    let (s, _keep3, _) = session(SandboxPolicy { allow_unsandboxed: false, ..strict() });
    let refused = outside.join("refused.txt");
    let command = format!("touch {}", quote(&refused));
    let err = s.call("Bash", json!({"command": command, "dangerouslyDisableSandbox": true})).await.unwrap_err();
    assert!(!refused.exists());
    assert!(err.message().contains("dangerouslyDisableSandbox was ignored"), "{}", err.message());
}

#[tokio::test]
async fn a_missing_bwrap_fails_when_required_and_is_said_otherwise() {
    let missing = SandboxPolicy::find_bwrap_in(std::ffi::OsStr::new("/toolgate/no/such/dir"));
    assert_eq!(missing, None);
    let (s, _keep, _) = session(SandboxPolicy { bwrap: missing.clone(), ..strict() });
    let err = s.call("Bash", json!({"command": "echo hi > ran.txt"})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Io);
    assert!(err.message().contains("bubblewrap (bwrap) is not installed"), "{}", err.message());
    assert!(err.hint().unwrap().contains("apt-get install bubblewrap"));
    assert!(!s.root.join("ran.txt").exists(), "nothing runs");

    let (s, _keep, _) = session(SandboxPolicy { bwrap: missing, fail_if_unavailable: false, ..strict() });
    let out = s.call("Bash", json!({"command": "echo hi"})).await.unwrap();
    assert!(out.to_text().starts_with("hi\n"), "{}", out.to_text());
    assert!(out.to_text().contains("Ran WITHOUT the sandbox"), "{}", out.to_text());
}

#[tokio::test]
async fn a_disabled_policy_changes_nothing() {
    let (s, _keep, outside) = session(SandboxPolicy { enabled: false, ..strict() });
    let target = outside.join("plain.txt");
    let out = s.call("Bash", json!({"command": format!("touch {} && echo ok", quote(&target))})).await.unwrap();
    assert_eq!(out.to_text(), "ok");
    assert!(target.exists());
}
