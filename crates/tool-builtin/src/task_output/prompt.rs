//! TaskOutput's model-facing description.

/// The description.
pub(super) fn description(max_output: usize) -> String {
    format!(
        "\
Returns a background task's output written since you last asked (call again to follow \
it), and its status: running, completed, failed or killed, with the exit code.

- task_id is the ID a background Bash or Agent call returned (e.g. \"bash_1\").
- It waits for the task to end, up to timeout, unless block is false.
- Over {max_output} characters of new output come back as beginning and end; the whole \
output is in the task's output file, for Read or Grep. Stop a task with TaskStop."
    )
}
