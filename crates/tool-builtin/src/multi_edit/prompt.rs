//! The MultiEdit tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Makes several exact-text replacements in one file in one step, all or nothing.

Usage:
- Each entry of edits works like Edit: old_string (exact text, without Read's line-number prefixes), new_string, and optionally replace_all.
- The edits apply in order, each to the result of the ones before it: a later old_string must match the text as the earlier edits left it.
- If any edit fails (not found, or not unique without replace_all), none is applied and the error says which one failed and why.
- The same rules as Edit apply: read the file first; an unchanged file is required; notebooks need NotebookEdit. To create a file, give the first edit an empty old_string and the new content as new_string.
- file_path must be an absolute path. A relative path is resolved against the working directory, and the result says how it was resolved.
- Prefer MultiEdit over several Edit calls when you change one file in several places."
        .to_owned()
}
