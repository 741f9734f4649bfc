//! TodoWrite's model-facing description.

/// The description.
pub(super) fn description() -> String {
    "\
Replaces this session's todo list with the list you give: a checklist for work with \
several steps, which also shows the user your progress.

- todos: every item, in order, each with content (the step, imperative: \"Run the \
tests\"), status (pending, in_progress or completed) and activeForm (the \
present-continuous form shown while it runs: \"Running the tests\").
- Send the whole list each time; items you leave out are dropped.
- At most one item may be in_progress. Mark an item in_progress before you start it and \
completed as soon as it is done, not in batches later.
- Skip the list for a single, simple step."
        .to_owned()
}
