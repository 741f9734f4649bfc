//! The Edit tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Replaces exact text in a file: old_string becomes new_string.

- Read the file first (at least the part you change): Edit refuses a file not read in this session, or changed since. After your own edit it counts as read.
- file_path should be absolute; a relative one is resolved against the working directory, and the result says how.
- old_string must match the file exactly, whitespace included, without Read's line-number prefix. It must occur once, or the error says where it occurs: add surrounding lines, or set replace_all to change every occurrence (e.g. a rename). When it is not found, the error shows the closest lines.
- new_string must differ. Line endings follow the file (CRLF stays CRLF); a missing final newline stays missing.
- An empty old_string creates a file that does not exist (or fills an empty one).
- Notebooks need NotebookEdit; MultiEdit makes several changes to one file, all or none.
- The result shows the edited region with line numbers. Keep edits small; prefer editing existing files to writing new ones."
        .to_owned()
}
