//! Bash's model-facing description.

use crate::shells::config::ShellConfig;

/// The description, with the limits in force.
pub(super) fn description(config: &ShellConfig) -> String {
    format!(
        "\
Runs a shell command with bash (sh where bash is missing) and returns what it printed.

Every call starts a new shell in the current working directory. A `cd` carries over to \
later calls as long as the new directory is inside the project's working directories; \
variables, exports, aliases and functions do not carry over.

Prefer the dedicated tools whenever one fits: they are faster, their reads need no \
approval, and their results are shaped for you.
- Read a file with Read, not cat, head, tail or sed -n.
- Search file contents with Grep, not grep or rg.
- Find files by name with Glob, not find or ls -R.
- Change files with Edit or Write, not sed -i, awk, echo > or cat <<EOF.
Keep Bash for what needs a shell: building, testing, git, package managers, running \
programs.

How to use it:
- Quote paths with spaces: cd \"my dir\".
- Chain steps that depend on each other with && (mkdir out && cp a out/). Send \
independent commands as separate calls; read-only ones run in parallel.
- Prefer absolute paths, or one cd at the start, to moving back and forth.
- stdout and stderr come back merged, in the order they were written, without the \
trailing newline. Output over {max_output} characters is cut in the middle: you see the \
beginning and the end, and the full output is saved to a file you can Read or Grep.
- A non-zero exit status makes the call an error showing the code and the output. Exit \
status 1 of search and comparison commands (grep, rg, find, diff, cmp, test, [, git diff, \
git grep) means \"no match\" or \"different\" and is not an error.
- timeout is in milliseconds: {default_timeout} by default, at most {max_timeout}. A \
command still running then is killed together with everything it started.
- For servers, watchers and long builds set run_in_background: true. The call returns \
an ID at once; read new output with TaskOutput and stop the command with TaskStop. A \
background command has no timeout. Do not end a command with & yourself: processes left \
behind when a command finishes are killed.
- There is no terminal and stdin is empty, so interactive programs (editors, pagers, \
prompts, git rebase -i, git add -p) cannot be used. Pass flags instead: -m, --yes, \
--no-edit, --no-pager.
- description: say in 5-10 words, active voice, what the command does (\"Run the unit \
tests\"); people see it while it runs.

With git: never change git config, force-push, rewrite published history or skip hooks \
(--no-verify) unless the user asks for it. Commit only when asked.",
        max_output = config.max_output_chars,
        default_timeout = config.default_timeout_ms,
        max_timeout = config.max_timeout_ms,
    )
}
