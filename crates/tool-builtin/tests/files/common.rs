//! Shared fixtures: a temporary directory with a context rooted in it, the tools by name,
//! and a runner that takes a call through the pipeline's steps (validate, normalize,
//! call).

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate_core::{DynTool, ToolContext, ToolError, ToolOutput};

/// The built-in tool called `name`.
pub fn tool(name: &str) -> DynTool {
    toolgate_builtin::all_builtin_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// A temporary working directory and a context whose cwd and root it is.
pub struct Fixture {
    /// Kept so the directory lives as long as the fixture.
    _dir: tempfile::TempDir,
    pub ctx: ToolContext,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        // Canonical, so paths compare equal to what the tools report.
        let root = dir.path().canonicalize().unwrap();
        let mut ctx = ToolContext::new(&root);
        ctx.tool_use_id = "toolu_test".into();
        Self { _dir: dir, ctx }
    }

    /// The fixture's root directory.
    pub fn root(&self) -> PathBuf {
        self.ctx.cwd.clone()
    }

    /// `name` under the root.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }

    /// Writes `content` to `name` under the root (creating parents) and returns its path.
    pub fn file(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Runs `tool_name` as the pipeline would: validate, normalize, call.
    pub async fn run(&self, tool_name: &str, input: Value) -> Result<ToolOutput, ToolError> {
        let tool = tool(tool_name);
        tool.validate_input(&input, &self.ctx).await?;
        let normalized = tool.normalize_input(&input, &self.ctx);
        tool.call(normalized, &self.ctx).await
    }

    /// Reads `path` with the Read tool, as the model would before editing.
    pub async fn read(&self, path: &Path) {
        self.run("Read", serde_json::json!({"file_path": path})).await.unwrap();
    }

    /// `text` with the fixture's root shown as `[ROOT]`, for snapshots.
    pub fn scrub(&self, text: &str) -> String {
        text.replace(&self.root().display().to_string(), "[ROOT]")
    }

    /// The text of a failure: message and hint, as the model reads it.
    pub fn error_text(&self, err: &ToolError) -> String {
        self.scrub(&err.to_model_text())
    }
}

/// Whether this process ignores file permissions (root in CI): then a `chmod 000` file
/// can still be opened, and permission-denied assertions are skipped.
pub fn permissions_are_ignored(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    let probe = dir.join(".permission-probe");
    std::fs::write(&probe, "x").unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o000)).unwrap();
    let ignored = std::fs::read(&probe).is_ok();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::remove_file(&probe).unwrap();
    ignored
}

/// The text of an output.
pub fn text(out: &ToolOutput) -> String {
    out.to_text()
}
