//! Helpers: sessions with agent services in temporary directories, calls, texts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use toolgate_builtin::{AgentServices, agent_tools, all_builtin_tools};
use toolgate_core::{Extensions, PermissionMode};
use toolgate_pipeline::{Session, ToolCall, ToolResultBlock};

/// A project folder and a session folder in a temporary directory.
pub struct Dirs {
    pub _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub session: PathBuf,
}

impl Dirs {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("project");
        let session = base.join("session");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&session).unwrap();
        Self { _dir: dir, root, session }
    }

    /// A session over `services`, every built-in tool plus the agent tools, in `mode`,
    /// without a prompter (an ask would be a denial).
    pub fn session(&self, services: AgentServices, mode: PermissionMode) -> Session {
        let mut extensions = Extensions::default();
        services.install(&mut extensions);
        let mut tools = all_builtin_tools();
        tools.extend(agent_tools(&extensions));
        Session::builder()
            .cwd(&self.root)
            .results_dir(self.session.join("tool-results"))
            .extensions(extensions)
            .builtin_tools(tools)
            .mode(mode)
            .build()
    }

    /// Writes an executable-by-sh script and returns the command that runs it.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.root.join(name);
        std::fs::write(&path, body).unwrap();
        format!("sh '{}'", path.display())
    }
}

/// One call through the pipeline.
pub async fn call(session: &Session, tool: &str, input: Value) -> ToolResultBlock {
    session.run_message(vec![ToolCall::new("toolu_1", tool, input)]).await.remove(0)
}

/// The text of a result.
pub fn text(result: &ToolResultBlock) -> String {
    result.content.iter().filter_map(|b| b.as_text()).collect::<Vec<_>>().join("\n")
}

/// A successful call's text (fails the test on an error result).
pub async fn ok(session: &Session, tool: &str, input: Value) -> String {
    let result = call(session, tool, input).await;
    assert!(!result.is_error, "{tool} failed: {}", text(&result));
    text(&result)
}

/// A failed call's text inside its `<tool_use_error>` tags (fails the test on a success).
pub async fn err(session: &Session, tool: &str, input: Value) -> String {
    let result = call(session, tool, input).await;
    assert!(result.is_error, "{tool} should have failed: {}", text(&result));
    error_text(&result)
}

/// An error result's text without its `<tool_use_error>` tags.
pub fn error_text(result: &ToolResultBlock) -> String {
    let text = text(result);
    let inner = text.strip_prefix("<tool_use_error>").and_then(|t| t.strip_suffix("</tool_use_error>"));
    inner.map_or(text.clone(), str::to_owned)
}

/// Whether `pid` is gone: no `/proc` entry, or a zombie.
pub fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// Polls until `path` holds a complete line; bounded (20 s). Returns its text.
pub async fn wait_for_line(path: &Path) -> String {
    for _ in 0..2_000 {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} never got a line", path.display())
}

/// Polls until `pid` is dead; bounded (20 s).
pub async fn wait_dead(pid: u32) -> bool {
    for _ in 0..2_000 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}
