//! TaskStop's model-facing description.

/// The description.
pub(super) fn description() -> String {
    "\
Stops a background task: a command and every process it started, or a background agent.

- task_id: the ID a background Bash or Agent call returned (for example \"bash_1\"). shell_id is \
an older name for the same field; give one of the two, not both.
- Output written before the stop stays readable with TaskOutput.
- Stopping a task that has already finished is harmless: you are told how it ended."
        .to_owned()
}
