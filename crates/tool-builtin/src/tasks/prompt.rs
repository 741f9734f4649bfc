//! The task tools' model-facing descriptions.

/// TaskCreate.
pub(super) fn create() -> String {
    "\
Adds a task to this session's task list and returns its id. Use the task list to plan and \
track work with several steps, especially when tasks depend on each other or are shared \
between agents; it is kept on disk, so it survives a restart.

- subject: a short imperative title (\"Add login form\").
- description: what needs to be done, with enough detail to pick it up later.
- activeForm (optional): the present-continuous form shown while it runs (\"Adding login form\").
- metadata (optional): any JSON object you want to keep with the task.
New tasks start as pending with no owner. Add dependencies with TaskUpdate (addBlocks, \
addBlockedBy)."
        .to_owned()
}

/// TaskGet.
pub(super) fn get() -> String {
    "\
Returns one task of the task list by id: subject, description, status, owner, metadata and \
its dependencies (which tasks it blocks, which block it, and which of those are still open).

- taskId: the id TaskCreate or TaskList gave (\"3\")."
        .to_owned()
}

/// TaskUpdate.
pub(super) fn update() -> String {
    "\
Changes a task of the task list. Give taskId and at least one field to change.

- status: pending, in_progress, completed, or deleted (removes the task and its \
dependency edges for good). Mark a task in_progress when you start it and completed as \
soon as it is done.
- subject, description, activeForm, owner (\"\" clears the owner).
- addBlocks: ids of tasks that cannot start until this one is completed.
- addBlockedBy: ids of tasks that must be completed before this one.
  Dependencies must not form a cycle; an edge that would close one is refused.
- metadata: keys to merge into the task's metadata; a key set to null is removed."
        .to_owned()
}

/// TaskList.
pub(super) fn list() -> String {
    "\
Lists every task of the task list: id, status, subject, owner, and the open tasks that \
still block it. Use it to pick the next task: prefer pending tasks that nothing blocks, \
lowest id first."
        .to_owned()
}
