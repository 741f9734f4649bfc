//! Edit: replace exact text in a file.
//!
//! The checks and the replacement are [`crate::file_io::edits`] (shared with MultiEdit)
//! and [`crate::file_io::replace`]: read-first and stale-file checks, exact match with
//! tolerance for CRLF, pasted line-number prefixes and curly quotes, uniqueness unless
//! `replace_all`, the nearest lines when nothing matches, notebooks refused, a 1 GiB cap.
//! The write is atomic; the result shows the edited region with line numbers, and the
//! structured output carries Claude Code's Edit fields for hooks.

mod prompt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{Access, DynTool, Target, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::file_io::edits::{self, Caller};
use crate::file_io::replace::Replacement;
use crate::file_io::{blocking, paths};

/// One exact replacement in one file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditInput {
    /// The absolute path of the file to change.
    pub file_path: String,
    /// The exact text to replace; empty to create a new file.
    pub old_string: String,
    /// The text to put in its place (must differ from old_string).
    pub new_string: String,
    /// Replace every occurrence, not exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

impl EditInput {
    fn replacement(&self) -> Replacement<'_> {
        Replacement { old: &self.old_string, new: &self.new_string, all: self.replace_all }
    }
}

/// The Edit tool (see the module docs).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("greet.txt");
/// std::fs::write(&path, "hello world\n")?;
/// let tools = toolgate_builtin::all_builtin_tools();
/// let find = |name: &str| tools.iter().find(|t| t.name() == name).unwrap().clone();
/// let ctx = toolgate_core::ToolContext::new(dir.path());
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// rt.block_on(async {
///     // Edit refuses a file it has not seen read.
///     let edit = serde_json::json!({"file_path": path, "old_string": "world", "new_string": "there"});
///     assert!(find("Edit").call(edit.clone(), &ctx).await.is_err());
///     find("Read").call(serde_json::json!({"file_path": path}), &ctx).await.unwrap();
///     let out = find("Edit").call(edit, &ctx).await.unwrap();
///     assert!(out.to_text().contains("     1\thello there"));
/// });
/// assert_eq!(std::fs::read_to_string(&path)?, "hello there\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct EditTool;

/// The tool, ready for the registry.
pub(crate) fn tool() -> DynTool {
    typed(EditTool)
}

impl TypedTool for EditTool {
    type Input = EditInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Edit"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("modify a file by replacing exact text")
    }

    async fn validate(&self, input: &EditInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let (input, ctx) = (input.clone(), ctx.clone());
        blocking(move || edits::plan(&input.file_path, &[input.replacement()], Caller::Edit, &ctx).map(drop)).await
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        paths::normalize_field(input, "file_path", ctx)
    }

    fn permission_target(&self, input: &EditInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    /// The file, written.
    fn targets(&self, input: &EditInput) -> Vec<Target> {
        vec![Target::new(&input.file_path, Access::Write)]
    }

    async fn call(&self, input: EditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ctx = ctx.clone();
        blocking(move || {
            let plan = edits::plan(&input.file_path, &[input.replacement()], Caller::Edit, &ctx)?;
            let extra = json!({
                "oldString": input.old_string,
                "newString": input.new_string,
                "replaceAll": input.replace_all,
            });
            edits::commit(plan, Caller::Edit, extra, &ctx)
        })
        .await
    }

    fn render_use(&self, input: &EditInput) -> String {
        format!("Edit({})", input.file_path)
    }
}
