//! `toolgate mcp serve` stopped by a signal: no child it started survives, and it exits 0.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use toolgate_core::process::{ProcessHandle, ProcessSpec, ProcessStatus};

/// `toolgate ARGS` in `dir`: a temp HOME, no prompts, every call allowed, no MCP servers.
fn toolgate(dir: &Path, args: &[&str]) -> ProcessHandle {
    let mut all = vec!["--cwd", dir.to_str().unwrap(), "--mode", "bypassPermissions", "--no-user-settings"];
    all.push("--strict-mcp-config");
    all.extend_from_slice(args);
    ProcessSpec::exec(env!("CARGO_BIN_EXE_toolgate"), all)
        .cwd(dir)
        .env("HOME", dir)
        .env("TOOLGATE_NO_PROMPT", "1")
        .env_remove("CLAUDE_CONFIG_DIR")
        // Time to stop on SIGTERM before the helper sends SIGKILL.
        .kill_grace(Duration::from_secs(20))
        .spawn()
        .unwrap()
}

/// Whether process `pid` runs (exists and is not a zombie).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

/// The pid a Bash command wrote to `file`, once it has (up to 30 s).
async fn pid_in(file: &Path) -> u32 {
    for _ in 0..600 {
        if let Some(pid) = std::fs::read_to_string(file).ok().and_then(|t| t.trim().parse().ok()) {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{} was never written", file.display());
}

/// A Bash command that writes its pid to `file`, then sleeps for five minutes.
fn sleeper(file: &Path) -> String {
    format!("echo $$ > {}; exec sleep 300", file.display())
}

fn call(id: u64, command: &str, background: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "Bash", "arguments": {"command": command, "run_in_background": background}
    }})
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
    }})
}

/// One POST on its own connection; returns the head and the body.
async fn post(addr: &str, session: Option<&str>, message: &Value) -> (String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = message.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        request.push_str(&format!("Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response).await;
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (head.to_owned(), body.to_owned())
}

/// Regression: SIGTERM or SIGINT left running Bash children orphaned. Over HTTP, a
/// foreground call still running and a background shell of an MCP session are both gone
/// when `toolgate mcp serve --http` exits 0 on SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_the_http_server_and_kills_every_child() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = toolgate(dir.path(), &["mcp", "serve", "--http", "127.0.0.1:0"]);
    let mut stderr = BufReader::new(server.take_stderr().unwrap()).lines();
    let url = loop {
        let line = stderr.next_line().await.unwrap().expect("toolgate exited before serving");
        if let Some(url) = line.strip_prefix("toolgate: serving MCP on ") {
            break url.to_owned();
        }
    };
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let (head, _) = post(&addr, None, &initialize()).await;
    let session = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id")).map(|(_, v)| v))
        .expect("a session id")
        .trim()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&addr, Some(&session), &initialized).await;

    let background = dir.path().join("background.pid");
    let (_, body) = post(&addr, Some(&session), &call(1, &sleeper(&background), true)).await;
    assert!(body.contains("\"isError\":false"), "{body}");
    let foreground = dir.path().join("foreground.pid");
    let running_call = {
        let (addr, session, command) = (addr.clone(), session.clone(), sleeper(&foreground));
        tokio::spawn(async move { post(&addr, Some(&session), &call(2, &command, false)).await })
    };
    let pids = [pid_in(&background).await, pid_in(&foreground).await];
    assert!(pids.iter().all(|pid| running(*pid)));

    let status = server.terminate().await.unwrap();
    assert_eq!(status, ProcessStatus::Exited(0));
    for pid in pids {
        assert!(!running(pid), "child {pid} survived toolgate's SIGTERM");
    }
    let _ = running_call.await;
}

/// The same over stdio, stopped by SIGINT: the running call's process is gone and
/// toolgate exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_stops_the_stdio_server_and_kills_the_running_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = toolgate(dir.path(), &["mcp", "serve"]);
    let mut stdin = server.take_stdin().unwrap();
    let mut stdout = BufReader::new(server.take_stdout().unwrap()).lines();
    for message in [initialize(), json!({"jsonrpc": "2.0", "method": "notifications/initialized"})] {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    let answer: Value = serde_json::from_str(&stdout.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(answer["id"], 0, "{answer}");
    let foreground = dir.path().join("foreground.pid");
    stdin.write_all(format!("{}\n", call(1, &sleeper(&foreground), false)).as_bytes()).await.unwrap();
    let pid = pid_in(&foreground).await;
    assert!(running(pid));

    let toolgate_pid = server.id().unwrap().to_string();
    let kill =
        ProcessSpec::exec("kill", ["-INT", toolgate_pid.as_str()]).cwd(dir.path()).run(&Default::default()).await;
    let kill = kill.unwrap();
    assert!(kill.status.success());
    let status = tokio::time::timeout(Duration::from_secs(30), server.wait()).await.expect("toolgate kept running");
    assert_eq!(status.unwrap(), ProcessStatus::Exited(0));
    assert!(!running(pid), "the running call's process {pid} survived SIGINT");
}
