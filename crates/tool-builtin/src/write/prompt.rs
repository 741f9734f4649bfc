//! The Write tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Writes a file to the local file system, replacing it entirely if it exists.

Usage:
- file_path must be an absolute path. A relative path is resolved against the working directory, and the result says how it was resolved.
- An existing file must have been read in full with Read first, and must not have changed since; otherwise the write is refused. A new file needs no read. Missing parent directories are created.
- The content is written exactly as given: no line numbers, no added or removed final newline.
- The write is atomic (the old content or the new, never a mix), and the file keeps its permission bits.
- To change part of an existing file, prefer Edit or MultiEdit: they send only the change, and the rest of the file cannot be lost by mistake.
- Do not create documentation or README files unless the user asked for them."
        .to_owned()
}
