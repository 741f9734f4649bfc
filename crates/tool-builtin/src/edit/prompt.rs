//! The Edit tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Replaces exact text in a file: old_string becomes new_string.

Usage:
- Read the file first (at least the part you change): Edit refuses a file you have not read in this session, or one that changed after you read it. After your own edit the file counts as read, so the next edit needs no new Read.
- file_path must be an absolute path. A relative path is resolved against the working directory, and the result says how it was resolved.
- old_string must match the file exactly, including indentation and other whitespace. Copy it from Read's output WITHOUT the line-number prefix (the number, right-aligned, and the tab before the line's text): that prefix is not part of the file.
- old_string must occur exactly once, or the edit fails and says where it occurs: add surrounding lines to make it unique, or set replace_all to true to change every occurrence (useful for renaming a variable).
- new_string must differ from old_string. Line endings follow the file: in a CRLF file, new lines get CRLF too; a missing final newline stays missing.
- An empty old_string creates a file that does not exist yet (or fills an empty one) with new_string; on a file with content it fails.
- When old_string is not found, the error shows the closest lines of the file, with their numbers.
- Notebooks (.ipynb) cannot be changed with Edit; use NotebookEdit.
- For several changes to one file, MultiEdit applies them all at once or none.
- The result shows the edited region with line numbers.
- Keep edits small and exact; prefer editing existing files over writing new ones."
        .to_owned()
}
