//! TaskOutput's model-facing description.

/// The description.
pub(super) fn description(max_output: usize) -> String {
    format!(
        "\
Returns the output a background task has written since you last asked, and its status \
(running, completed, failed or killed, with the exit code).

- task_id: the ID a background Bash or Agent call returned (for example \"bash_1\" or \"agent_1\").
- block (default true): wait for the task to finish before answering, up to timeout \
milliseconds (default 30000, at most 600000). With block: false you get what is there \
now, at once.
- Each call returns only new output, so call it again to follow a task. More than \
{max_output} characters of new output come back as its beginning and end; the whole \
output is in the task's output file, which you can also Read or Grep.
- To stop a task, use TaskStop."
    )
}
