//! Helpers: the tools by name, contexts in temporary directories, process checks.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolgate_core::{DynTool, ResultStore, ToolContext, ToolError, ToolOutput};

/// The built-in tool called `name`.
pub fn tool(name: &str) -> DynTool {
    toolgate_builtin::all_builtin_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no built-in tool {name}"))
}

/// A session in a temporary directory: `root` (canonical) is the working directory and
/// the only root; results go to `session/tool-results`.
pub struct Session {
    pub _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub session: PathBuf,
    pub ctx: ToolContext,
}

impl Session {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("project");
        let session = base.join("session");
        std::fs::create_dir_all(&root).unwrap();
        let mut ctx = ToolContext::new(&root);
        ctx.results = Arc::new(ResultStore::new(session.join("tool-results")));
        ctx.tool_use_id = "toolu_test".into();
        Self { _dir: dir, root, session, ctx }
    }

    /// Runs `tool` on `input` the way the pipeline does after permission: validation,
    /// then the call.
    pub async fn call(&self, tool: &str, input: Value) -> Result<ToolOutput, ToolError> {
        run(&self::tool(tool), input, &self.ctx).await
    }

    /// Applies a context change as the pipeline does.
    pub fn apply(&mut self, out: &ToolOutput) {
        if let Some(toolgate_core::ContextChange::Cwd(dir)) = &out.context_change {
            self.ctx.cwd = dir.clone();
        }
    }
}

/// Validation, then the call.
pub async fn run(tool: &DynTool, input: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    tool.validate_input(&input, ctx).await?;
    tool.call(input, ctx).await
}

/// Whether `pid` is gone: no `/proc` entry, or a zombie.
pub fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
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

/// The pids a command printed, one per line.
pub fn pids(text: &str) -> Vec<u32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}
