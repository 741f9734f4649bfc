//! Running one command line in real bash inside a bubblewrap sandbox, recording what it runs
//! and what it changes on disk.
//!
//! Each run gets a fresh host temporary directory with `work/` (the working directory, a few
//! fixture files and a subfolder), `home/` (`HOME`), `log/` (the records) and `shims/`, bound
//! into the sandbox under `/opt/oracle` (a tmpfs over `/opt`, since the root is read-only).
//! The sandbox has no network and its own `/tmp`, `/dev` and `/proc`; the real bash is bound at
//! [`BASH`], and the shims folder over `/usr/bin`, `/usr/sbin`, `/usr/local/bin` and
//! `/usr/local/sbin`, so `/bin/rm` and a `PATH` lookup of `rm` both reach a shim.
//!
//! - A shim (a `bash -p` script: privileged mode reads no `BASH_ENV` and imports no functions)
//!   appends its `$0` and arguments to `log/exec` and exits 0. The `bash` and `sh` shims then
//!   run the real bash with the same arguments, so nested `bash -c` strings really run.
//! - `BASH_ENV` ([`ENV_SCRIPT`]) defines a `command_not_found_handle` that records a name found
//!   nowhere on `PATH`, and turns on xtrace into `log/trace` with a marker `PS4` naming the
//!   innermost function and source file, so the harness's own lines (from the env script, or
//!   from a shim that bash reads as a script) are told apart (see [`super::record`]).
//! - `work/` and `home/` are snapshotted before and after (path, size, content hash).

use std::collections::BTreeMap;
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use toolgate_core::CancellationToken;
use toolgate_core::process::{ProcessSpec, ProcessStatus};

use super::record::{self, Execution};

/// Where the real bash is inside the sandbox.
pub(super) const BASH: &str = "/opt/oracle/bash";

/// Where the host's bash is.
const HOST_BASH: &str = "/usr/bin/bash";

/// The bubblewrap binary.
const BWRAP: &str = "/usr/bin/bwrap";

/// The working directory inside the sandbox.
pub(super) const WORK: &str = "/opt/oracle/work";

/// `HOME` inside the sandbox.
pub(super) const HOME: &str = "/opt/oracle/home";

/// How long one command may run before it is killed.
const TIME_LIMIT: Duration = Duration::from_secs(2);

/// The `BASH_ENV` script: the not-found handler and the xtrace set-up.
const ENV_SCRIPT: &str = r#"command_not_found_handle() {
  printf '%s\0' H "$#" "$@" >> /opt/oracle/log/exec
  return 127
}
__oracle_init() {
  : > /opt/oracle/log/started
  ulimit -f 8192
  exec 99>>/opt/oracle/log/trace
  BASH_XTRACEFD=99
  PS4=$'+\x1e''${FUNCNAME[0]}'$'\x1d''${BASH_SOURCE[0]}'$'\x1f'
  set -x
}
__oracle_init
"#;

/// A recording shim. Run by bash as a script or sourced (`bash t` finds `t` on `PATH`), it
/// records nothing: it is only an execution when the kernel starts it, in privileged mode.
const SHIM: &str = concat!(
    "#!/opt/oracle/bash -p\n",
    "[[ $- == *p* ]] || return 0 2>/dev/null || exit 0\n",
    "printf '%s\\0' S \"$(($# + 1))\" \"$0\" \"$@\" >> /opt/oracle/log/exec\n",
);

/// The shim for `bash` and `sh`: records, then runs the real bash.
const SHELL_SHIM: &str = concat!(
    "#!/opt/oracle/bash -p\n",
    "[[ $- == *p* ]] || return 0 2>/dev/null || exit 0\n",
    "printf '%s\\0' S \"$(($# + 1))\" \"$0\" \"$@\" >> /opt/oracle/log/exec\n",
    "exec /opt/oracle/bash \"$@\"\n",
);

/// Fixture files of `work/` and `home/` (path, content).
const FIXTURES: &[(&str, &str)] = &[
    ("work/a.txt", "alpha\n"),
    ("work/b.txt", "beta\n"),
    ("work/notes.md", "# notes\n"),
    ("work/.hidden", "h\n"),
    ("work/sub/c.txt", "gamma\n"),
    ("home/.profile", "# profile\n"),
    ("home/doc.txt", "doc\n"),
];

/// One of the two folders whose files are watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Root {
    /// `work/`, the working directory.
    Work,
    /// `home/`, `HOME`.
    Home,
}

/// A file that appeared, changed or disappeared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Change {
    /// The folder it is in.
    pub(super) root: Root,
    /// Its path under that folder, `/`-separated.
    pub(super) path: String,
    /// What happened to it.
    pub(super) what: &'static str,
}

/// What one sandboxed run recorded.
#[derive(Debug, Clone, Default)]
pub(super) struct Run {
    /// Every execution: shims' and the handler's, then xtrace's.
    pub(super) executions: Vec<Execution>,
    /// Files of `work/` and `home/` that appeared, changed or disappeared.
    pub(super) changes: Vec<Change>,
    /// Whether the command ran past [`TIME_LIMIT`] and was killed.
    pub(super) timed_out: bool,
}

/// Why a command could not be run in the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum SandboxError {
    /// Preparing the host folder failed.
    Setup(String),
    /// bubblewrap could not be started or could not build the sandbox (no namespaces?).
    Bwrap(String),
    /// Bash stopped before it read its `BASH_ENV` (the line could not be run at all).
    NotStarted(String),
    /// A record file was malformed.
    Record(String),
}

impl std::fmt::Display for SandboxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SandboxError::Setup(e) => write!(f, "preparing the sandbox folder failed: {e}"),
            SandboxError::Bwrap(e) => write!(f, "bubblewrap could not run bash (can it create namespaces?): {e}"),
            SandboxError::NotStarted(e) => write!(f, "bash stopped before it started the line: {e}"),
            SandboxError::Record(e) => write!(f, "a record file was malformed: {e}"),
        }
    }
}

/// A file's kind and content, as snapshotted.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// A regular file: size and content hash.
    File(u64, u64),
    /// A directory.
    Dir,
    /// A symbolic link and its target.
    Link(PathBuf),
    /// Anything else (a fifo …).
    Other,
}

/// Runs `command` with `bash -c` in a fresh sandbox, with shims for `names` (plus `bash` and
/// `sh`); names that cannot be file names of a program are skipped.
pub(super) fn run(command: &str, names: &[String]) -> Result<Run, SandboxError> {
    let dir = tempfile::Builder::new().prefix("toolgate-oracle-").tempdir().map_err(setup)?;
    let host = dir.path();
    prepare(host, names).map_err(setup)?;
    let before = snapshot(host);
    let outcome = bwrap(host, command)?;
    let started = host.join("log/started").exists();
    if !started && outcome.0 != ProcessStatus::TimedOut {
        let error = format!("{}: {}", outcome.0, outcome.1.trim());
        return Err(if outcome.1.starts_with("bwrap:") {
            SandboxError::Bwrap(error)
        } else {
            SandboxError::NotStarted(error)
        });
    }
    let exec_log = std::fs::read(host.join("log/exec")).unwrap_or_default();
    let mut executions = record::parse_exec_log(&exec_log).map_err(|e| SandboxError::Record(format!("{e:?}")))?;
    executions.extend(record::parse_trace(&std::fs::read(host.join("log/trace")).unwrap_or_default()));
    let after = snapshot(host);
    Ok(Run { executions, changes: diff(&before, &after), timed_out: outcome.0 == ProcessStatus::TimedOut })
}

/// An I/O error as a setup error.
fn setup(e: std::io::Error) -> SandboxError {
    SandboxError::Setup(e.to_string())
}

/// Whether `name` can be a shim's file name.
fn shimmable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.+-:@%,".contains(&b))
        && name != "bash"
        && name != "sh"
}

/// Writes the fixtures, the env script and the shims under `host`.
fn prepare(host: &Path, names: &[String]) -> std::io::Result<()> {
    for sub in ["work/sub", "home", "log", "shims"] {
        std::fs::create_dir_all(host.join(sub))?;
    }
    for (path, content) in FIXTURES {
        std::fs::write(host.join(path), content)?;
    }
    std::fs::write(host.join("env.sh"), ENV_SCRIPT)?;
    let shims = host.join("shims");
    let shim = host.join("shim");
    let shell_shim = host.join("shell-shim");
    std::fs::write(&shim, SHIM)?;
    std::fs::write(&shell_shim, SHELL_SHIM)?;
    for path in [&shim, &shell_shim] {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::hard_link(&shell_shim, shims.join("bash"))?;
    std::fs::hard_link(&shell_shim, shims.join("sh"))?;
    for name in names {
        let target = shims.join(name);
        if shimmable(name) && !target.exists() {
            std::fs::hard_link(&shim, target)?;
        }
    }
    Ok(())
}

/// Runs bubblewrap; returns how it ended and its stderr.
fn bwrap(host: &Path, command: &str) -> Result<(ProcessStatus, String), SandboxError> {
    let p = |sub: &str| host.join(sub).into_os_string();
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    let mut push = |words: &[&str]| args.extend(words.iter().map(Into::into));
    push(&["--ro-bind", "/", "/", "--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent"]);
    push(&["--tmpfs", "/tmp", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/opt"]);
    push(&["--ro-bind", HOST_BASH, BASH]);
    let mut bind = |how: &str, from: &str, to: &str| args.extend([how.into(), p(from), to.into()]);
    bind("--ro-bind", "env.sh", "/opt/oracle/env.sh");
    bind("--bind", "log", "/opt/oracle/log");
    bind("--bind", "work", WORK);
    bind("--bind", "home", HOME);
    for dir in ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"] {
        bind("--ro-bind", "shims", dir);
    }
    let mut push = |words: &[&str]| args.extend(words.iter().map(Into::into));
    push(&["--chdir", WORK, "--clearenv"]);
    push(&["--setenv", "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]);
    push(&["--setenv", "HOME", HOME, "--setenv", "BASH_ENV", "/opt/oracle/env.sh", "--setenv", "LC_ALL", "C"]);
    push(&[BASH, "-c", "--", command]);
    let spec = ProcessSpec::exec(BWRAP, args)
        .cwd(host)
        .timeout(TIME_LIMIT)
        .kill_grace(Duration::from_millis(100))
        .drain(Duration::from_millis(50))
        .stdout_cap(4096)
        .stderr_cap(16 * 1024);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SandboxError::Setup(format!("tokio runtime: {e}")))?;
    let outcome =
        runtime.block_on(spec.run(&CancellationToken::new())).map_err(|e| SandboxError::Bwrap(format!("{e}")))?;
    Ok((outcome.status, outcome.stderr.text().into_owned()))
}

/// Every entry under `work/` and `home/`.
fn snapshot(host: &Path) -> BTreeMap<(Root, String), Entry> {
    let mut out = BTreeMap::new();
    for (root, sub) in [(Root::Work, "work"), (Root::Home, "home")] {
        walk(&host.join(sub), "", root, &mut out);
    }
    out
}

/// Adds the entries under `dir` (named `prefix…`) to `out`.
fn walk(dir: &Path, prefix: &str, root: Root, out: &mut BTreeMap<(Root, String), Entry>) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    for entry in read.flatten() {
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        let kind = if meta.is_symlink() {
            Entry::Link(std::fs::read_link(&path).unwrap_or_default())
        } else if meta.is_dir() {
            walk(&path, &format!("{name}/"), root, out);
            Entry::Dir
        } else if meta.is_file() {
            let mut hasher = std::hash::DefaultHasher::new();
            std::fs::read(&path).unwrap_or_default().hash(&mut hasher);
            Entry::File(meta.len(), hasher.finish())
        } else {
            Entry::Other
        };
        out.insert((root, name), kind);
    }
}

/// The differences between two snapshots.
fn diff(before: &BTreeMap<(Root, String), Entry>, after: &BTreeMap<(Root, String), Entry>) -> Vec<Change> {
    let mut changes = Vec::new();
    for (key, entry) in after {
        let what = match before.get(key) {
            None => "created",
            Some(old) if old != entry => "changed",
            Some(_) => continue,
        };
        changes.push(Change { root: key.0, path: key.1.clone(), what });
    }
    for key in before.keys().filter(|key| !after.contains_key(*key)) {
        changes.push(Change { root: key.0, path: key.1.clone(), what: "removed" });
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bash::oracle::record::Source;

    /// The argv of each execution of `run` from `source`.
    fn from(run: &Run, source: Source) -> Vec<Vec<String>> {
        run.executions.iter().filter(|e| e.source == source).map(|e| e.argv.clone()).collect()
    }

    /// Runs `command` with shims for `names`, failing the test if the sandbox cannot run.
    fn sandboxed(command: &str, names: &[&str]) -> Run {
        let names: Vec<String> = names.iter().map(|&n| n.to_owned()).collect();
        run(command, &names).unwrap_or_else(|e| panic!("the sandbox must run (bwrap at {BWRAP}): {e}"))
    }

    #[test]
    fn the_sandbox_records_an_absolute_path_to_a_shimmed_program() {
        let run = sandboxed("/bin/rm x", &["rm"]);
        assert_eq!(from(&run, Source::Shim), [vec!["/bin/rm", "x"]]);
        assert_eq!(from(&run, Source::Trace), [vec!["/bin/rm", "x"]]);
        assert!(run.changes.is_empty() && !run.timed_out);
    }

    #[test]
    fn a_name_without_a_shim_is_recorded_by_the_handler() {
        let run = sandboxed("nosuchprogram 'a b'", &[]);
        assert_eq!(from(&run, Source::NotFound), [vec!["nosuchprogram", "a b"]]);
        assert_eq!(from(&run, Source::Trace), [vec!["nosuchprogram", "a b"]], "the handler's own lines are left out");
    }

    #[test]
    fn builtins_run_by_eval_and_function_bodies_are_traced() {
        let run = sandboxed("eval 'printf %s q'; f() { touch \"$1\"; }; f y", &["touch"]);
        let traced = from(&run, Source::Trace);
        assert!(traced.contains(&vec!["printf".into(), "%s".into(), "q".into()]), "{traced:?}");
        assert!(traced.contains(&vec!["touch".into(), "y".into()]), "{traced:?}");
        assert_eq!(from(&run, Source::Shim), [vec!["/usr/local/sbin/touch", "y"]]);
    }

    #[test]
    fn a_redirect_write_is_a_change_and_fixtures_are_there() {
        let run = sandboxed("echo hi > out.txt; cat < a.txt; echo more >> ~/doc.txt", &["cat"]);
        let changes: Vec<_> = run.changes.iter().map(|c| (c.root, c.path.as_str(), c.what)).collect();
        assert_eq!(changes, [(Root::Work, "out.txt", "created"), (Root::Home, "doc.txt", "changed")]);
    }

    #[test]
    fn a_nested_bash_c_string_really_runs() {
        let run = sandboxed("bash -c 'sh -c \"rm z\"'", &["rm"]);
        let shims = from(&run, Source::Shim);
        assert_eq!(shims.len(), 3, "{shims:?}");
        assert_eq!(shims[2], ["/usr/local/sbin/rm", "z"]);
        assert!(from(&run, Source::Trace).contains(&vec!["rm".into(), "z".into()]));
    }

    #[test]
    fn a_shim_that_bash_reads_as_a_script_records_nothing() {
        let run = sandboxed("bash cat; . ls", &["cat", "ls"]);
        assert_eq!(from(&run, Source::Shim), [vec!["/usr/local/sbin/bash", "cat"]]);
        assert_eq!(from(&run, Source::Trace), [vec!["bash", "cat"], vec![".", "ls"]]);
    }

    #[test]
    fn a_command_that_runs_too_long_is_killed() {
        let run = sandboxed("touch a; read -t 9 <> <(:)", &["touch"]);
        assert!(run.timed_out);
        assert_eq!(from(&run, Source::Shim).len(), 1, "what ran before the limit is kept");
    }
}
