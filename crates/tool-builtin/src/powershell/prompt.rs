//! PowerShell's model-facing description.

use crate::shells::config::ShellConfig;

/// The description, with the limits in force.
pub(super) fn description(config: &ShellConfig) -> String {
    format!(
        "\
Runs a PowerShell command with pwsh (PowerShell 7, no profile, non-interactive) and \
returns what it printed.

Every call starts a new PowerShell in the current working directory. A Set-Location (cd) \
carries over to later calls as long as the new directory is inside the project's working \
directories; variables, functions and modules do not carry over.

Prefer the dedicated tools whenever one fits: Read instead of Get-Content, Grep instead of \
Select-String, Glob instead of Get-ChildItem -Recurse, Edit or Write instead of \
Set-Content or Out-File. Keep PowerShell for what needs it: scripts, builds, tests, \
modules and system administration.

- Output streams (success, error, warning …) come back merged, in order. Output over \
{max_output} characters is cut in the middle; the full output is saved to a file you can \
Read or Grep.
- The call is an error when the last native program exited non-zero ($LASTEXITCODE) or \
the last statement failed.
- timeout is in milliseconds: {default_timeout} by default, at most {max_timeout}; a \
command still running then is killed with everything it started.
- run_in_background: true returns a task ID at once; follow it with TaskOutput, stop it \
with TaskStop.
- Nothing can prompt: Read-Host, Get-Credential and confirmations fail. Pass -Force or \
-Confirm:$false where a cmdlet would ask.",
        max_output = config.max_output_chars,
        default_timeout = config.default_timeout_ms,
        max_timeout = config.max_timeout_ms,
    )
}
