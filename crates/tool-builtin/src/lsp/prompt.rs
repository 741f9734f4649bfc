//! The LSP tool's model-facing text.

/// The description the model reads.
pub(crate) const DESCRIPTION: &str = "\
Asks a language server (the same code intelligence an editor uses) about code.

Operations:
- goToDefinition: where the symbol at the position is defined
- findReferences: every reference to the symbol at the position, across the workspace
- hover: type information and documentation for the symbol at the position
- documentSymbol: the outline of the file (functions, classes, variables …)
- workspaceSymbol: symbols matching `query` across the whole workspace
- goToImplementation: the implementations of the interface, trait or abstract method at the position
- prepareCallHierarchy: the function or method at the position, as a call hierarchy item
- incomingCalls: the functions and methods that call the one at the position
- outgoingCalls: the functions and methods called by the one at the position

Every operation takes:
- filePath: the file (absolute, or relative to the working directory); it also chooses the language server
- line: the line number, 1-based, as editors show it
- character: the character offset in that line, 1-based, as editors show it

workspaceSymbol also takes `query`, the symbol name or part of it: always give it, most servers return nothing for an empty query. documentSymbol and workspaceSymbol ignore the position.

Paths in results are relative to the workspace, positions are 1-based. The first call for a language starts its server, which may take a while on a large project. A file type without a configured server is an error naming how to configure one; use Grep and Read for those files.";

/// What ToolSearch matches.
pub(crate) const SEARCH_HINT: &str =
    "code intelligence language server go to definition find references hover symbols call hierarchy";
