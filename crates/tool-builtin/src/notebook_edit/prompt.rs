//! The NotebookEdit tool's model-facing description.

/// The description the model reads.
pub(crate) fn description() -> String {
    "Changes one cell of a Jupyter notebook (.ipynb): replaces its source, inserts a new cell, or deletes it.

Usage:
- notebook_path must be an absolute path. A relative path is resolved against the working directory, and the result says how it was resolved.
- Read the notebook first: NotebookEdit refuses a notebook you have not read, or one that changed after you read it.
- cell_id names the cell: the id Read shows for it, or cell-N for the N-th cell counting from 0.
- edit_mode is replace (the default), insert or delete.
  - replace: new_source becomes the cell's source. cell_type may change the cell between code and markdown. A code cell's outputs and execution count are cleared, since they belong to the old source.
  - insert: a new cell with new_source goes right after cell_id, or at the start of the notebook when cell_id is left out. cell_type is required.
  - delete: the cell is removed; new_source is ignored (send an empty string).
- The notebook keeps its other cells, its metadata and its JSON layout (indentation).
- Use Edit and Write for other files; Edit refuses notebooks."
        .to_owned()
}
