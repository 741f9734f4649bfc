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
    tools
}

#[cfg(test)]
mod registry_tests;
