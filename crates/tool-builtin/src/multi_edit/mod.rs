//! MultiEdit: several exact replacements in one file, applied in order, all or nothing.
//!
//! The engine is [`crate::file_io::edits`]: every edit is applied in memory to the
//! previous result, and only when all of them apply is the file written, atomically.

mod prompt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_core::{Access, DynTool, Target, ToolContext, ToolError, ToolOutput, TypedTool, typed};

use crate::file_io::edits::{self, Caller};
use crate::file_io::replace::Replacement;
use crate::file_io::{blocking, paths};

/// One replacement: old_string becomes new_string.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditEntry {
    /// The exact text to replace, as the earlier edits left the file.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence instead of exactly one (default false).
    #[serde(default)]
    pub replace_all: bool,
}

/// Several exact replacements in one file, applied in order.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MultiEditInput {
    /// The absolute path of the file to change.
    pub file_path: String,
    /// The edits, applied in order; all apply or none does.
    #[schemars(length(min = 1))]
    pub edits: Vec<EditEntry>,
}

impl MultiEditInput {
    fn replacements(&self) -> Vec<Replacement<'_>> {
        self.edits.iter().map(|e| Replacement { old: &e.old_string, new: &e.new_string, all: e.replace_all }).collect()
    }
}

/// The MultiEdit tool (see the module docs).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("config.toml");
/// let tools = toolgate_builtin::all_builtin_tools();
/// let multi = tools.iter().find(|t| t.name() == "MultiEdit").unwrap();
/// let ctx = toolgate_core::ToolContext::new(dir.path());
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// // Create the file with a first edit, then change it with the second.
/// let input = serde_json::json!({"file_path": path, "edits": [
///     {"old_string": "", "new_string": "name = \"a\"\nsize = 1\n"},
///     {"old_string": "size = 1", "new_string": "size = 2"},
/// ]});
/// rt.block_on(multi.call(input, &ctx)).unwrap();
/// assert_eq!(std::fs::read_to_string(&path)?, "name = \"a\"\nsize = 2\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MultiEditTool;

/// The tool, ready for the registry.
pub(crate) fn tool() -> DynTool {
    typed(MultiEditTool)
}

impl TypedTool for MultiEditTool {
    type Input = MultiEditInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "MultiEdit"
    }

    fn description(&self) -> String {
        prompt::description()
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("several replacements in one file at once")
    }

    /// Deferred: reached through ToolSearch, to keep the core tool set small.
    fn should_defer(&self) -> bool {
        true
    }

    async fn validate(&self, input: &MultiEditInput, ctx: &ToolContext) -> Result<(), ToolError> {
        let (input, ctx) = (input.clone(), ctx.clone());
        blocking(move || edits::plan(&input.file_path, &input.replacements(), Caller::MultiEdit, &ctx).map(drop)).await
    }

    fn normalize_input(&self, input: &Value, ctx: &ToolContext) -> Value {
        paths::normalize_field(input, "file_path", ctx)
    }

    fn permission_target(&self, input: &MultiEditInput) -> Option<String> {
        Some(input.file_path.clone())
    }

    /// The file, written (every edit is to the one file).
    fn targets(&self, input: &MultiEditInput) -> Vec<Target> {
        vec![Target::new(&input.file_path, Access::Write)]
    }

    async fn call(&self, input: MultiEditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ctx = ctx.clone();
        blocking(move || {
            let plan = edits::plan(&input.file_path, &input.replacements(), Caller::MultiEdit, &ctx)?;
            let extra = json!({
                "edits": input.edits.iter().map(|e| json!({
                    "old_string": e.old_string, "new_string": e.new_string, "replace_all": e.replace_all,
                })).collect::<Vec<_>>(),
            });
            edits::commit(plan, Caller::MultiEdit, extra, &ctx)
        })
        .await
    }

    fn render_use(&self, input: &MultiEditInput) -> String {
        let n = input.edits.len();
        format!("MultiEdit({}, {n} edit{})", input.file_path, if n == 1 { "" } else { "s" })
    }
}
