//! The Write tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Writes a whole file, replacing it if it exists.

- file_path should be absolute; a relative one is resolved against the working directory, and the result says how.
- An existing file must have been read in full and be unchanged since; a new file needs no read. Missing parent directories are created.
- The content is written exactly as given (no line numbers, no final newline added or removed), atomically, keeping the file's permission bits.
- To change part of a file prefer Edit: it sends only the change and cannot lose the rest.
- Do not create documentation or README files unless asked."
        .to_owned()
}
