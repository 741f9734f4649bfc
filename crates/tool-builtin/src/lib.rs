//! toolgate-builtin: the tools toolgate ships.
//!
//! One folder per tool; [`all_builtin_tools`] is the one list, and a test walks it the way
//! ripgrep tests its flag registry: names unique and well formed, descriptions present,
//! schemas that compile, and capability defaults that fail closed.
//!
//! ```
//! let tools = toolgate_builtin::all_builtin_tools();
//! assert!(tools.iter().any(|t| t.name() == "ToolSearch"));
//! ```

use toolgate_core::{DynTool, ToolSearchTool};

// -- file tools: modules --
mod apply_patch;
mod edit;
mod file_io;
mod multi_edit;
mod notebook_edit;
mod read;
mod write;
// -- search tools: modules --
mod glob;
mod grep;
mod ls;
mod walk;
pub use glob::GlobOptions;
// -- shell tools: modules --
mod bash;
mod monitor;
#[cfg(feature = "powershell")]
mod powershell;
mod shells;
mod task_output;
mod task_stop;
// -- workspace tools: modules --
mod config;
mod skill;
mod structured_output;
mod worktree;
pub use skill::{SkillCatalog, SkillEntry, SkillSource};
pub use structured_output::{StructuredOutput, StructuredOutputError};

/// Every built-in tool, in no particular order (the pool sorts them).
///
/// Tools behind cargo features (`web`, `lsp`, `powershell`) are present only when their
/// feature is on.
pub fn all_builtin_tools() -> Vec<DynTool> {
    #[allow(unused_mut)]
    let mut tools = vec![ToolSearchTool::shared()];
    // -- file tools: list --
    tools.extend([
        read::tool(),
        write::tool(),
        edit::tool(),
        multi_edit::tool(),
        notebook_edit::tool(),
        apply_patch::tool(),
    ]);
    // -- search tools: list --
    tools.extend([
        toolgate_core::typed(glob::GlobTool),
        toolgate_core::typed(grep::GrepTool),
        toolgate_core::typed(ls::LsTool),
    ]);
    // -- shell tools: list --
    tools.extend([
        bash::Bash::tool(),
        task_output::TaskOutput::tool(),
        task_stop::TaskStop::tool(),
        monitor::Monitor::tool(),
    ]);
    #[cfg(feature = "powershell")]
    tools.push(powershell::PowerShell::tool());
    // -- workspace tools: list --
    tools.extend([
        skill::Skill::tool(SkillCatalog::default()),
        config::Config::tool(),
        worktree::EnterWorktree::tool(),
        worktree::ExitWorktree::tool(),
    ]);
    tools
}

/// Every built-in tool, with the skills of `skills`: what a host builds for a project.
///
/// [`all_builtin_tools`] holds a Skill tool with no skills, which is not offered; this
/// swaps in one over the skills found for the project
/// ([`SkillCatalog::discover`]`(project_dir, user_claude_dir())`). StructuredOutput is
/// not in either list: a host that wants a structured answer adds
/// [`StructuredOutput::tool`] with its schema.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join(".claude/commands")).unwrap();
/// std::fs::write(dir.path().join(".claude/commands/review.md"), "Review $ARGUMENTS").unwrap();
/// let skills = toolgate_builtin::SkillCatalog::discover(dir.path(), None);
/// let tools = toolgate_builtin::builtin_tools_with(skills);
/// let skill = tools.iter().find(|t| t.name() == "Skill").unwrap();
/// assert!(skill.is_enabled());
/// assert!(skill.description().contains("- review: Review $ARGUMENTS (project command)"));
/// ```
pub fn builtin_tools_with(skills: SkillCatalog) -> Vec<DynTool> {
    let mut tools = all_builtin_tools();
    tools.retain(|t| t.name() != "Skill");
    tools.push(skill::Skill::tool(skills));
    tools
}

/// The user's Claude folder: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`; `None`
/// without a home directory.
pub fn user_claude_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".claude")))
}

#[cfg(test)]
mod registry_tests;
