//! StructuredOutput's model-facing description.

/// The description.
pub(super) fn description() -> String {
    "\
Returns your final answer in the structured format the user asked for. The input of this \
tool is the answer itself: fill in every field its schema requires.

- Call it exactly once, at the end, when the task is done; do not describe the answer in \
plain text instead.
- If the call fails, the error lists every field that does not match the schema (with its \
path, e.g. `items[2].name`); fix them and call it again with the complete answer."
        .to_owned()
}
