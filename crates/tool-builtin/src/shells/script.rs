//! Which shell runs a command, and the wrapper script around it.
//!
//! A POSIX command runs as `bash -c SCRIPT bash COMMAND CWD_FILE ENV_FILE MODE` (`sh` when
//! no `bash` is on `PATH`), where SCRIPT is [`POSIX_WRAPPER`], one line so that error
//! messages name the command's own line numbers (`bash: line 2: foo: command not found`).
//! The wrapper, in order:
//!
//! 1. sends stderr to stdout (`exec 2>&1`): one pipe, so the two streams stay in the order
//!    they were written, and reads stdin from `/dev/null`;
//! 2. takes its arguments and clears the positional parameters, so `$1` in the command is
//!    empty as in a fresh shell;
//! 3. sources the env file when one is configured and readable;
//! 4. `eval`s the command (read from a file when it is too long for one argument);
//! 5. writes the shell's final directory (`pwd -P`) to the cwd file, when one was given;
//! 6. exits with the command's status.
//!
//! The environment is the host's, fresh for every call, with [`QUIET_ENV`] set so that no
//! program waits for a terminal that is not there.

use std::ffi::OsString;
use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use tempfile::TempPath;
use toolgate_core::process::ProcessSpec;

use super::sandbox::Bwrap;

/// The one-line wrapper around a POSIX command (see the module documentation).
pub(crate) const POSIX_WRAPPER: &str = concat!(
    "exec 2>&1 </dev/null; ",
    "if [ \"$4\" = file ]; then __tg_cmd=$(cat -- \"$1\") || exit 126; else __tg_cmd=$1; fi; ",
    "__tg_cwd_file=$2; __tg_env_file=$3; set --; ",
    "if [ -n \"$__tg_env_file\" ] && [ -r \"$__tg_env_file\" ]; then . \"$__tg_env_file\"; fi; ",
    "unset __tg_env_file; ",
    "eval \"$__tg_cmd\"; ",
    "__tg_status=$?; ",
    "if [ -n \"$__tg_cwd_file\" ]; then pwd -P >| \"$__tg_cwd_file\"; fi; ",
    "exit \"$__tg_status\"",
);

/// Commands longer than this many bytes are passed in a file rather than as an argument
/// (Linux refuses single arguments over 128 KiB).
const INLINE_COMMAND_BYTES: usize = 96 * 1024;

/// Variables set for every command: nothing may wait for a terminal or an editor.
pub(crate) const QUIET_ENV: &[(&str, &str)] =
    &[("GIT_EDITOR", "true"), ("GIT_TERMINAL_PROMPT", "0"), ("GIT_PAGER", "cat"), ("PAGER", "cat")];

/// `name` found on `PATH`: the first executable regular file of that name. Nothing is run.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).filter(|dir| dir.is_absolute()).map(|dir| dir.join(name)).find(|candidate| {
        std::fs::metadata(candidate).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    })
}

/// The shell a tool runs its commands with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shell {
    /// bash, or sh when bash is missing.
    Posix,
    /// PowerShell 7 (`pwsh`).
    #[cfg_attr(not(feature = "powershell"), allow(dead_code))]
    Pwsh,
}

/// A command ready to spawn, and the temporary files it needs while it runs.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// What to spawn.
    pub(crate) spec: ProcessSpec,
    /// Deleted when dropped: keep until the run is over.
    pub(crate) _files: Vec<TempPath>,
}

impl Shell {
    /// The prefix of background task ids started with this shell.
    pub(crate) fn task_prefix(self) -> &'static str {
        match self {
            Self::Posix => "bash",
            Self::Pwsh => "pwsh",
        }
    }

    /// Prepares `command` to run in `cwd`, sourcing `env_file` first (POSIX only) and
    /// writing the final directory to `cwd_file` when given; inside `sandbox` when given
    /// (POSIX only: PowerShell runs unsandboxed).
    ///
    /// # Errors
    ///
    /// An I/O error writing the temporary command file of a very long command, or a
    /// missing `pwsh`.
    pub(crate) fn prepare(
        self,
        command: &str,
        cwd: &Path,
        env_file: Option<&Path>,
        cwd_file: Option<&Path>,
        sandbox: Option<&Bwrap>,
    ) -> io::Result<Prepared> {
        let mut files = Vec::new();
        let spec = match self {
            Self::Posix => {
                let (shell, name) = match find_program("bash") {
                    Some(path) => (path.into_os_string(), "bash"),
                    None => (OsString::from("sh"), "sh"),
                };
                let (first, mode) = if command.len() > INLINE_COMMAND_BYTES {
                    let mut file = tempfile::Builder::new().prefix("toolgate-cmd-").suffix(".sh").tempfile()?;
                    file.write_all(command.as_bytes())?;
                    file.flush()?;
                    let path = file.into_temp_path();
                    let arg = path.as_os_str().to_owned();
                    files.push(path);
                    (arg, "file")
                } else {
                    (OsString::from(command), "inline")
                };
                let args: Vec<OsString> = vec![
                    "-c".into(),
                    POSIX_WRAPPER.into(),
                    name.into(),
                    first,
                    cwd_file.map(|p| p.as_os_str().to_owned()).unwrap_or_default(),
                    env_file.map(|p| p.as_os_str().to_owned()).unwrap_or_default(),
                    mode.into(),
                ];
                match sandbox {
                    Some(bwrap) => {
                        let rw: Vec<&Path> = cwd_file.into_iter().collect();
                        let ro: Vec<&Path> = env_file.into_iter().chain(files.iter().map(|f| f.as_ref())).collect();
                        bwrap.wrap(shell, args, cwd, &rw, &ro)
                    }
                    None => ProcessSpec::exec(shell, args),
                }
            }
            Self::Pwsh => {
                let pwsh = find_program("pwsh")
                    .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "pwsh is not on PATH"))?;
                let script = pwsh_script(command, cwd_file);
                // sh only joins the two streams into one pipe, in order, and execs pwsh.
                let joiner = "exec \"$0\" -NoProfile -NonInteractive -Command \"$1\" 2>&1 </dev/null";
                ProcessSpec::exec("sh", [OsString::from("-c"), joiner.into(), pwsh.into_os_string(), script.into()])
            }
        };
        let spec = spec.cwd(cwd).envs(QUIET_ENV.iter().copied()).discard_stderr();
        Ok(Prepared { spec, _files: files })
    }
}

/// A PowerShell string literal: single-quoted, quotes doubled.
fn pwsh_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        // PowerShell also treats the typographic single quotes as quote characters.
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// The PowerShell wrapper: run the command as a script block in the global scope, then
/// record the location and exit with the command's status (`$LASTEXITCODE` of the last
/// native program, else 1 when the last statement failed).
fn pwsh_script(command: &str, cwd_file: Option<&Path>) -> String {
    let cwd_file = cwd_file.map(|p| pwsh_quote(&p.to_string_lossy())).unwrap_or_else(|| "''".to_owned());
    format!(
        "$ProgressPreference = 'SilentlyContinue'; $global:LASTEXITCODE = 0; $__tg_ok = $true; \
         try {{ . ([ScriptBlock]::Create({cmd})); $__tg_ok = $? }} \
         catch {{ [Console]::Error.WriteLine($_.ToString()); $__tg_ok = $false }}; \
         $__tg_code = $global:LASTEXITCODE; \
         if ({cwd_file}) {{ try {{ [IO.File]::WriteAllText({cwd_file}, (Get-Location).ProviderPath) }} catch {{ }} }}; \
         if ($__tg_code -ne 0) {{ exit $__tg_code }} elseif (-not $__tg_ok) {{ exit 1 }} else {{ exit 0 }}",
        cmd = pwsh_quote(command),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_path_without_running_them() {
        assert!(find_program("sh").is_some());
        assert!(find_program("toolgate-no-such-program").is_none());
    }

    #[test]
    fn pwsh_strings_are_quoted() {
        assert_eq!(pwsh_quote("it's"), "'it''s'");
        assert_eq!(pwsh_quote("a\u{2019}b"), "'a\u{2019}\u{2019}b'");
        let script = pwsh_script("Get-ChildItem 'x'", Some(Path::new("/tmp/c")));
        assert!(script.contains("[ScriptBlock]::Create('Get-ChildItem ''x''')"), "{script}");
        assert!(script.contains("WriteAllText('/tmp/c'"), "{script}");
    }

    #[test]
    fn the_wrapper_is_one_line() {
        assert!(!POSIX_WRAPPER.contains('\n'));
    }
}
