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
// -- search tools: modules --
// -- shell tools: modules --

/// Every built-in tool, in no particular order (the pool sorts them).
///
/// Tools behind cargo features (`web`, `lsp`, `powershell`) are present only when their
/// feature is on.
pub fn all_builtin_tools() -> Vec<DynTool> {
    #[allow(unused_mut)]
    let mut tools = vec![ToolSearchTool::shared()];
    // -- file tools: list --
    // -- search tools: list --
    // -- shell tools: list --
    tools
}

#[cfg(test)]
mod registry_tests;
