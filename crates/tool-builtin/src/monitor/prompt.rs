//! Monitor's model-facing description.

/// The description.
pub(super) fn description(max_output: usize) -> String {
    format!(
        "\
Runs a command and follows what it prints, line by line, until the command exits or the \
timeout ends the watch. Each line is shown live to the person as it arrives; you get the \
result when the watch ends: how the command ended, how many lines it printed, and its \
output.

Use it to watch something that reports over time: a log (tail -f app.log), a build or test \
run in watch mode, a deployment, a poll loop (while sleep 5; do curl -s host/health; done). \
For a one-off command use Bash; to keep something running while you do other work use \
Bash with run_in_background.

- The command runs like a Bash command (same shell, working directory and permission \
rules) but its `cd` does not carry over.
- timeout_ms (default 300000) ends the watch and kills the command with everything it \
started; reaching it is the normal end of a watch, not an error. persistent: true removes \
the timeout: the watch lasts until the command exits or you are interrupted.
- A non-zero exit status is reported as an error. Output over {max_output} characters \
comes back as its beginning and end, with the full output saved to a file."
    )
}
