//! Bash's model-facing description.

use crate::shells::config::ShellConfig;

/// The description, with the limits in force.
pub(super) fn description(config: &ShellConfig) -> String {
    format!(
        "\
Runs a command with bash (sh where bash is missing) and returns its output.

Each call is a new shell in the working directory. A cd carries over to later calls while \
it stays inside the project's working directories, and the result names the new one; \
variables, aliases and functions do not carry over.

Use a dedicated tool when one fits (faster, reads need no approval, results shaped for \
you): Read, not cat, head, tail or sed -n; Grep, not grep or rg; Glob, not find or ls -R; \
Edit or Write, not sed -i, awk, echo > or cat <<EOF. Keep Bash for building, testing, git, \
package managers and running programs.

- Quote paths with spaces. Chain dependent steps with &&; send independent commands as \
separate calls (read-only ones run in parallel). Prefer absolute paths to cd-ing around.
- stdout and stderr come back merged, in order, without the trailing newline. Output over \
{max_output} characters keeps its beginning and end, and the whole is saved to a file you \
can Read or Grep.
- A non-zero exit status is an error showing the code and output, except exit 1 of grep, \
rg, find, diff, cmp, test, [, git diff and git grep (\"no match\" or \"different\").
- timeout: {default_timeout} ms by default, at most {max_timeout}; then the command is \
killed with everything it started. For servers, watchers and long builds set \
run_in_background: the call returns an ID at once, TaskOutput reads new output, TaskStop \
stops it, and it has no timeout. Do not end a command with & yourself: processes left \
behind are killed.
- No terminal, empty stdin: interactive programs (editors, pagers, prompts, git rebase -i, \
git add -p) cannot work; pass -m, --yes, --no-edit, --no-pager instead.
- git: never change its config, force-push, rewrite published history or skip hooks \
(--no-verify) unless the user asks; commit only when asked.",
        max_output = config.max_output_chars,
        default_timeout = config.default_timeout_ms,
        max_timeout = config.max_timeout_ms,
    )
}
