//! Test support: a temp project with scripts, a runner built from settings JSON, inputs
//! for each event, and process liveness checks that poll with a bound.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use toolgate_core::CancellationToken;
use toolgate_core::process::{ProcessSpec, ProcessStatus};
use toolgate_hooks::{CommonInput, HookRunner, HookSource, HooksConfig, PreToolUseInput};

/// A temp project directory where hooks run and scripts live.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes an executable `#!/bin/sh` script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.file(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    /// Runs a shell command in the project (through the process helper) and checks it worked.
    pub async fn sh(&self, command: &str) {
        let out = ProcessSpec::shell(command).cwd(self.path()).run(&CancellationToken::new()).await.unwrap();
        assert_eq!(out.status, ProcessStatus::Exited(0), "{command}: {}", out.stderr.text());
    }

    /// A runner for `settings` read as project settings.
    pub fn runner(&self, settings: Value) -> HookRunner {
        let config =
            HooksConfig::builder().add(HookSource::project(self.file(".claude/settings.json")), &settings).build();
        assert!(config.diagnostics().is_empty(), "{:?}", config.diagnostics());
        HookRunner::new(config, self.path()).with_kill_grace(Duration::from_millis(200))
    }

    pub fn common(&self) -> CommonInput {
        CommonInput::new("session-1", "/tmp/transcript.jsonl", self.path().to_str().unwrap())
            .with_mode(toolgate_core::PermissionMode::Default)
    }

    pub fn pre_tool_use(&self, tool_name: &str, tool_input: Value) -> PreToolUseInput {
        PreToolUseInput {
            common: self.common(),
            tool_name: tool_name.into(),
            tool_input,
            tool_use_id: "toolu_01".into(),
        }
    }

    pub fn bash(&self, command: &str) -> PreToolUseInput {
        self.pre_tool_use("Bash", json!({"command": command}))
    }

    /// How many lines the file has (0 when it does not exist).
    pub fn lines(&self, name: &str) -> usize {
        std::fs::read_to_string(self.file(name)).map_or(0, |s| s.lines().count())
    }
}

/// Settings with one matcher group for `event`.
pub fn settings(event: &str, matcher: &str, handlers: Value) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": handlers}]}})
}

/// A command handler.
pub fn cmd(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

pub fn cancel() -> CancellationToken {
    CancellationToken::new()
}

/// Whether `pid` is gone: no `/proc` entry, or a zombie waiting to be reaped by whoever
/// adopted it.
pub fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// Polls until `pid` is dead, for at most 10 s.
pub async fn wait_dead(pid: u32) -> bool {
    for _ in 0..1_000 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}
