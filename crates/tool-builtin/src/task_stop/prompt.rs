//! TaskStop's model-facing description.

/// The description.
pub(super) fn description() -> String {
    "\
Stops a background task: a command with every process it started, or an agent. Its output \
stays readable with TaskOutput; stopping a task that already ended is harmless and says how \
it ended. shell_id is an older name for task_id: give one of the two."
        .to_owned()
}
