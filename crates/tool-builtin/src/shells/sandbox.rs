//! Running a shell command under bubblewrap, as the session's [`SandboxPolicy`] asks.
//!
//! [`plan`] decides, once per call, whether the command runs sandboxed: not when there is
//! no enabled policy in the context's extensions, when every simple command in it is one of
//! `sandbox.excludedCommands`, or when the call set `dangerouslyDisableSandbox` and
//! `sandbox.allowUnsandboxedCommands` is not false. When bubblewrap is missing, or present
//! but refused by the kernel (probed once per program with `bwrap --ro-bind / / … true`),
//! `sandbox.failIfUnavailable` makes the call an error; otherwise it runs unsandboxed and
//! the result says so.
//!
//! A sandboxed command runs as
//! `bwrap --die-with-parent --unshare-pid --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp
//! --bind R R … [--unshare-net] --chdir CWD -- SHELL …`, where each R is a working root or
//! an `allowWrite` path that exists, plus the temporary files the wrapper script needs
//! (the cwd file, a long command's file, the env file) bound over the private `/tmp`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use toolgate_core::process::ProcessSpec;
use toolgate_core::{CancellationToken, SandboxPolicy, ToolContext, ToolError};
use toolgate_shell::analyze_shared;

/// A sandbox a command will run in: the program and the paths it may write.
#[derive(Debug, Clone)]
pub(crate) struct Bwrap {
    program: PathBuf,
    writable: Vec<PathBuf>,
    network: bool,
}

/// What [`plan`] decided for one call.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// The sandbox to run in; `None`: run as is.
    pub(crate) bwrap: Option<Bwrap>,
    /// A note for the result (why the command ran outside the sandbox).
    pub(crate) note: Option<String>,
}

/// Whether bubblewrap works here, per program: `Err` holds what it said.
static PROBED: Mutex<Option<HashMap<PathBuf, Result<(), String>>>> = Mutex::new(None);

async fn probe(program: &Path) -> Result<(), String> {
    if let Some(known) = PROBED.lock().unwrap_or_else(PoisonError::into_inner).as_ref().and_then(|m| m.get(program)) {
        return known.clone();
    }
    let args = ["--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"];
    let spec =
        ProcessSpec::exec(program, args).cwd("/").timeout(std::time::Duration::from_secs(10)).output_cap(16 * 1024);
    let result = match spec.run(&CancellationToken::new()).await {
        Ok(outcome) if outcome.status.success() => Ok(()),
        Ok(outcome) => {
            let said = outcome.stderr.text().trim().to_owned();
            Err(if said.is_empty() { format!("bwrap exited with {}", outcome.status) } else { said })
        }
        Err(e) => Err(e.to_string()),
    };
    PROBED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(program.to_path_buf(), result.clone());
    result
}

/// How to get bubblewrap, for error hints.
const INSTALL_HINT: &str = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), \
     or set sandbox.failIfUnavailable to false to run unsandboxed";

/// Decides how `command` runs (see the module documentation).
///
/// # Errors
///
/// A [`ToolError`] when the sandbox is required (`failIfUnavailable`) but bubblewrap is
/// missing or refused.
pub(crate) async fn plan(ctx: &ToolContext, command: &str, disable_requested: bool) -> Result<Plan, ToolError> {
    let Some(policy) = ctx.extensions.get::<SandboxPolicy>() else { return Ok(Plan::default()) };
    if !policy.enabled {
        return Ok(Plan::default());
    }
    if disable_requested && policy.allow_unsandboxed {
        return Ok(Plan {
            bwrap: None,
            note: Some("(Ran outside the sandbox: dangerouslyDisableSandbox was set.)".to_owned()),
        });
    }
    let mut note = None;
    if disable_requested {
        note = Some("(dangerouslyDisableSandbox was ignored: sandbox.allowUnsandboxedCommands is false.)".to_owned());
    } else if is_excluded(&policy, command) {
        return Ok(Plan {
            bwrap: None,
            note: Some("(Ran outside the sandbox: the command is in sandbox.excludedCommands.)".to_owned()),
        });
    }
    let unavailable = match &policy.bwrap {
        None => Some("bubblewrap (bwrap) is not installed or not on PATH".to_owned()),
        Some(program) => {
            probe(program).await.err().map(|said| format!("bubblewrap cannot create a sandbox here: {said}"))
        }
    };
    if let Some(why) = unavailable {
        if policy.fail_if_unavailable {
            return Err(ToolError::io(format!("sandbox.enabled and sandbox.failIfUnavailable are set, but {why}"))
                .with_hint(INSTALL_HINT));
        }
        return Ok(Plan { bwrap: None, note: Some(format!("(Ran WITHOUT the sandbox: {why}.)")) });
    }
    let mut writable: Vec<PathBuf> = ctx.roots.clone();
    writable.extend(policy.allow_write.iter().cloned());
    let writable = writable.into_iter().filter_map(|p| std::fs::canonicalize(p).ok()).collect();
    let program = policy.bwrap.clone().unwrap_or_default();
    Ok(Plan { bwrap: Some(Bwrap { program, writable, network: policy.network }), note })
}

/// Whether every simple command in `command` is excluded (one that is not, or a command
/// that cannot be analysed, keeps the whole of it in the sandbox).
fn is_excluded(policy: &SandboxPolicy, command: &str) -> bool {
    if policy.excluded_commands.is_empty() {
        return false;
    }
    let analysis = analyze_shared(command);
    !analysis.commands.is_empty()
        && analysis.hazards.is_empty()
        && analysis.commands.iter().all(|cmd| {
            let argv: Vec<&str> = cmd.argv.iter().map(|a| &**a).collect();
            argv.is_empty() || policy.is_excluded(&argv)
        })
}

impl Bwrap {
    /// `program args` wrapped to run inside the sandbox in `cwd`, with `rw` and `ro`
    /// (temporary files the wrapper writes or reads) bound in. bwrap's own complaints are merged into
    /// the output (the shell wrapper merges the command's).
    pub(crate) fn wrap(
        &self,
        program: OsString,
        args: Vec<OsString>,
        cwd: &Path,
        rw: &[&Path],
        ro: &[&Path],
    ) -> ProcessSpec {
        let mut argv: Vec<OsString> = vec![
            "-c".into(),
            "exec \"$0\" \"$@\" 2>&1".into(),
            self.program.clone().into_os_string(),
            "--die-with-parent".into(),
            "--unshare-pid".into(),
        ];
        let mut push = |items: &[&std::ffi::OsStr]| argv.extend(items.iter().map(|s| s.to_os_string()));
        push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
        push(&["--dev".as_ref(), "/dev".as_ref(), "--proc".as_ref(), "/proc".as_ref()]);
        push(&["--tmpfs".as_ref(), "/tmp".as_ref()]);
        for dir in &self.writable {
            push(&["--bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
        }
        for file in rw {
            push(&["--bind-try".as_ref(), file.as_os_str(), file.as_os_str()]);
        }
        for file in ro {
            push(&["--ro-bind-try".as_ref(), file.as_os_str(), file.as_os_str()]);
        }
        if !self.network {
            push(&["--unshare-net".as_ref()]);
        }
        push(&["--chdir".as_ref(), cwd.as_os_str(), "--".as_ref(), program.as_os_str()]);
        argv.extend(args);
        ProcessSpec::exec("sh", argv)
    }

    /// A short note when `output` of a failed command looks like the sandbox refused it.
    pub(crate) fn denial_note(&self, output: &str) -> Option<String> {
        let fs = output.contains("Read-only file system");
        let net = !self.network
            && ["Network is unreachable", "Could not resolve host", "Temporary failure in name resolution"]
                .iter()
                .any(|s| output.contains(s));
        (fs || net).then(|| {
            "(The command ran in the sandbox: the filesystem is read-only outside the working directories and \
             /tmp is private; there is no network unless sandbox.network.allowedDomains is set.)"
                .to_owned()
        })
    }
}
