//! Running command lines in real bash inside a bubblewrap sandbox, recording what each runs
//! and what it changes on disk.
//!
//! A batch of lines shares one sandbox, started once: its driver ([`super::driver`], this test
//! binary run again) runs the lines one after another, each with a fresh working directory,
//! home and log moved into place, and kills every process a line left behind before the next.
//! The host folder `oracle/` is bound at [`ORACLE`]: `commands/I` holds line I, `cases/I/`
//! its `work/` (the working directory, a few fixture files and a subfolder), `home/` (`HOME`)
//! and `log/` (the records). The sandbox has no network and its own `/tmp`, `/dev` and `/proc`;
//! the real bash is bound at [`BASH`], and a shims folder over `/usr/bin`, `/usr/sbin`,
//! `/usr/local/bin` and `/usr/local/sbin`, so `/bin/rm` and a `PATH` lookup of `rm` both reach
//! a shim.
//!
//! - A shim (a `bash -p` script: privileged mode reads no `BASH_ENV` and imports no functions)
//!   appends its `$0` and arguments to `log/exec` and exits 0. The `bash` and `sh` shims then
//!   run the real bash with the same arguments, so nested `bash -c` strings really run.
//! - `BASH_ENV` ([`ENV_SCRIPT`]) defines a `command_not_found_handle` that records a name found
//!   nowhere on `PATH`, and turns on xtrace into `log/trace` with a marker `PS4` naming the
//!   innermost function and source file, so the harness's own lines (from the env script, or
//!   from a shim that bash reads as a script) are told apart (see [`super::record`]).
//! - A case's `work/` and `home/` are compared with the fixtures afterwards (path, size,
//!   content hash).
//!
//! A line could reach another case's folders through their absolute paths; nothing the
//! generator writes does, and a case disturbed that way shows a change it did not make (a
//! divergence reported, never one hidden).

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use toolgate_core::CancellationToken;
use toolgate_core::process::{ProcessSpec, ProcessStatus};

use super::record::{self, Execution};

/// Where the host's `oracle/` folder is inside the sandbox.
pub(super) const ORACLE: &str = "/opt/oracle";

/// Where the real bash is inside the sandbox.
pub(super) const BASH: &str = "/opt/oracle/bash";

/// Where the env script is inside the sandbox (read-only).
pub(super) const ENV_FILE: &str = "/opt/oracle/env.sh";

/// Where the driver (this test binary) is inside the sandbox.
const DRIVER: &str = "/opt/driver";

/// Where the host's bash is.
const HOST_BASH: &str = "/usr/bin/bash";

/// The bubblewrap binary.
const BWRAP: &str = "/usr/bin/bwrap";

/// The working directory inside the sandbox.
pub(super) const WORK: &str = "/opt/oracle/work";

/// `HOME` inside the sandbox.
pub(super) const HOME: &str = "/opt/oracle/home";

/// How many times a batch is started again when bubblewrap fails to build its sandbox.
const BWRAP_TRIES: usize = 3;

/// How long one command may run before it is killed.
pub(super) const TIME_LIMIT: Duration = Duration::from_secs(1);

/// The `BASH_ENV` script: the not-found handler (which records nothing for a line of a file
/// bash reads, as [`super::record`] skips such lines) and the xtrace set-up. `PS4` is set before
/// the trace file is opened, so that a shell started with `-x` (`sh -x`) writes no line of
/// this set-up there without its marker.
const ENV_SCRIPT: &str = r#"command_not_found_handle() {
  case ${BASH_SOURCE[1]-} in ''|environment) ;; *) return 127 ;; esac
  printf '%s\0' H "$#" "$@" >> /opt/oracle/log/exec
  return 127
}
__oracle_init() {
  : > /opt/oracle/log/started
  ulimit -f 8192
  PS4=$'+\x1e''${FUNCNAME[0]}'$'\x1d''${BASH_SOURCE[0]}'$'\x1f'
  exec 99>>/opt/oracle/log/trace
  BASH_XTRACEFD=99
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

/// Fixture files of `work/` and `home/` (path, content). A script a shell reads from a file
/// (`sh a.txt`, `sh < a.txt`, `cat a.txt | sh`) is the file's, not the command line's, and
/// outside what the analysis reads: the contents are comments, which run nothing.
const FIXTURES: &[(&str, &str)] = &[
    ("work/a.txt", "# alpha\n"),
    ("work/b.txt", "# beta\n"),
    ("work/notes.md", "# notes\n"),
    ("work/.hidden", "# h\n"),
    ("work/sub/c.txt", "# gamma\n"),
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

/// Runs `command` with `bash -c` in a fresh sandbox: a batch of one.
pub(super) fn run(command: &str, names: &[String]) -> Result<Run, SandboxError> {
    let names: BTreeSet<String> = names.iter().cloned().collect();
    run_batch(&[command.to_owned()], &names).pop().unwrap_or_else(|| Err(SandboxError::Setup("no result".into())))
}

/// Runs each line of `commands` with `bash -c`, all in one sandbox but each in a fresh working
/// directory, home and log, with shims for `names` (plus `bash` and `sh`; names that cannot be
/// a program's file name are skipped). Results in the order of `commands`.
///
/// A line that ends the driver (`kill -9 -1` reaches it too) is reported as cut short, and the
/// lines after it run in a new sandbox.
pub(super) fn run_batch(commands: &[String], names: &BTreeSet<String>) -> Vec<Result<Run, SandboxError>> {
    let mut results = Vec::with_capacity(commands.len());
    let mut tries = 0;
    while results.len() < commands.len() {
        let rest = &commands[results.len()..];
        match run_some(rest, names) {
            // bubblewrap binds `/` with every mount under it; a mount another process removes
            // meanwhile (a test's temporary folder) fails that once. Where namespaces cannot be
            // made at all, every try fails the same way.
            Err(SandboxError::Bwrap(_)) if tries < BWRAP_TRIES => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            Ok(mut done) if !done.is_empty() => results.append(&mut done),
            Ok(_) => results.push(Err(SandboxError::Setup("the driver ran no case".into()))),
            Err(e) => {
                results.extend(rest.iter().map(|_| Err(e.clone())));
            }
        }
    }
    results
}

/// Runs `commands` in one sandbox until they are done or the driver stops; returns the
/// results of the cases it finished, and of the case it was running when it stopped.
fn run_some(commands: &[String], names: &BTreeSet<String>) -> Result<Vec<Result<Run, SandboxError>>, SandboxError> {
    // Thousands of small files a batch: on a memory file system where there is one.
    let shm = Path::new("/dev/shm");
    let builder = tempfile::Builder::new().prefix("toolgate-oracle-").clone();
    let dir = if shm.is_dir() { builder.tempdir_in(shm) } else { builder.tempdir() }.map_err(setup)?;
    let host = dir.path();
    prepare(host, commands, names).map_err(setup)?;
    let (status, stderr) = bwrap(host, commands.len())?;
    let oracle = host.join("oracle");
    let before = fixture_snapshot();
    let mut results = Vec::new();
    for i in 0..commands.len() {
        let case = oracle.join("cases").join(i.to_string());
        if case.join("log/done").exists() {
            results.push(collect(&case, &before, false));
            continue;
        }
        // The case the driver was running when it stopped, if it had moved it in.
        if oracle.join("log").exists() {
            results.push(collect(&oracle, &before, true));
        } else if i == 0 {
            let error = format!("{status}: {}", stderr.trim());
            return Err(if stderr.starts_with("bwrap:") {
                SandboxError::Bwrap(error)
            } else {
                SandboxError::NotStarted(format!("the driver stopped before the first case: {error}"))
            });
        }
        break;
    }
    Ok(results)
}

/// What a case's folder (`work/`, `home/`, `log/`) recorded.
fn collect(case: &Path, before: &Snapshot, cut_short: bool) -> Result<Run, SandboxError> {
    let log = case.join("log");
    let timed_out = cut_short || log.join("timeout").exists();
    if !log.join("started").exists() && !timed_out {
        return Err(SandboxError::NotStarted("bash stopped before it read its BASH_ENV".into()));
    }
    let exec_log = std::fs::read(log.join("exec")).unwrap_or_default();
    let mut executions = record::parse_exec_log(&exec_log).map_err(|e| SandboxError::Record(format!("{e:?}")))?;
    executions.extend(record::parse_trace(&std::fs::read(log.join("trace")).unwrap_or_default()));
    Ok(Run { executions, changes: diff(before, &snapshot(case)), timed_out })
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

/// Writes under `host`: `shims/`, and `oracle/` (bound at [`ORACLE`]) with the env script,
/// `commands/I` and `cases/I/{work,home,log}` holding the fixtures.
fn prepare(host: &Path, commands: &[String], names: &BTreeSet<String>) -> std::io::Result<()> {
    let oracle = host.join("oracle");
    std::fs::create_dir_all(oracle.join("commands"))?;
    std::fs::create_dir_all(host.join("shims"))?;
    std::fs::write(oracle.join("env.sh"), ENV_SCRIPT)?;
    for (i, command) in commands.iter().enumerate() {
        std::fs::write(oracle.join("commands").join(i.to_string()), command)?;
        let case = oracle.join("cases").join(i.to_string());
        for sub in ["work/sub", "home", "log"] {
            std::fs::create_dir_all(case.join(sub))?;
        }
        for (path, content) in FIXTURES {
            std::fs::write(case.join(path), content)?;
        }
    }
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

/// Runs bubblewrap with the driver (this test binary) for `cases` cases; returns how it ended
/// and its stderr.
fn bwrap(host: &Path, cases: usize) -> Result<(ProcessStatus, String), SandboxError> {
    let driver = std::env::current_exe().map_err(setup)?;
    let p = |sub: &str| host.join(sub).into_os_string();
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    let mut push = |words: &[&str]| args.extend(words.iter().map(Into::into));
    push(&["--ro-bind", "/", "/", "--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent"]);
    push(&["--tmpfs", "/tmp", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/opt"]);
    let mut bind = |how: &str, from: std::ffi::OsString, to: &str| args.extend([how.into(), from, to.into()]);
    bind("--bind", p("oracle"), ORACLE);
    bind("--ro-bind", HOST_BASH.into(), BASH);
    bind("--ro-bind", p("oracle/env.sh"), ENV_FILE);
    bind("--ro-bind", driver.into_os_string(), DRIVER);
    for dir in ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"] {
        bind("--ro-bind", p("shims"), dir);
    }
    let mut push = |words: &[&str]| args.extend(words.iter().map(Into::into));
    push(&["--chdir", ORACLE, "--clearenv"]);
    let cases = cases.to_string();
    push(&["--setenv", super::driver::CASES_VAR, &cases]);
    push(&[DRIVER, "--exact", "oracle::oracle_sandbox_driver", "--ignored", "--test-threads=1", "--quiet"]);
    let limit = Duration::from_secs(10)
        + (TIME_LIMIT + Duration::from_millis(500)) * u32::try_from(cases.len()).unwrap_or(u32::MAX);
    let spec = ProcessSpec::exec(BWRAP, args)
        .cwd(host)
        .timeout(limit)
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

/// A snapshot: every entry under `work/` and `home/`.
type Snapshot = BTreeMap<(Root, String), Entry>;

/// The snapshot of a fresh case: the fixtures.
fn fixture_snapshot() -> Snapshot {
    static FRESH: std::sync::OnceLock<Snapshot> = std::sync::OnceLock::new();
    FRESH
        .get_or_init(|| {
            let mut out = Snapshot::new();
            for (path, content) in FIXTURES {
                let (root, rest) = match path.split_once('/') {
                    Some(("work", rest)) => (Root::Work, rest),
                    Some((_, rest)) => (Root::Home, rest),
                    None => continue,
                };
                let mut dirs = String::new();
                for part in rest.split('/').rev().skip(1).collect::<Vec<_>>().into_iter().rev() {
                    dirs.push_str(part);
                    out.insert((root, dirs.clone()), Entry::Dir);
                    dirs.push('/');
                }
                out.insert((root, rest.to_owned()), Entry::File(content.len() as u64, hash(content.as_bytes())));
            }
            out
        })
        .clone()
}

/// The hash of a file's content, as snapshots record it.
fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

/// Every entry under `work/` and `home/`.
fn snapshot(host: &Path) -> Snapshot {
    let mut out = Snapshot::new();
    for (root, sub) in [(Root::Work, "work"), (Root::Home, "home")] {
        walk(&host.join(sub), "", root, &mut out);
    }
    out
}

/// Adds the entries under `dir` (named `prefix…`) to `out`.
fn walk(dir: &Path, prefix: &str, root: Root, out: &mut Snapshot) {
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
            Entry::File(meta.len(), hash(&std::fs::read(&path).unwrap_or_default()))
        } else {
            Entry::Other
        };
        out.insert((root, name), kind);
    }
}

/// The differences between two snapshots.
fn diff(before: &Snapshot, after: &Snapshot) -> Vec<Change> {
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
    use crate::oracle::record::Source;

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
    fn lines_of_a_batch_cannot_reach_each_other_and_a_line_that_ends_the_driver_ends_only_itself() {
        let commands: Vec<String> = [
            // A job in a process group of its own, writing into whichever line's folder is in place.
            "set -m; { while :; do echo x >> /opt/oracle/work/leak; done; } & echo started > first",
            "echo second > second",
            "touch t; kill -9 -1",
            "touch after",
        ]
        .map(str::to_owned)
        .to_vec();
        let names = BTreeSet::from(["touch".to_owned()]);
        let runs: Vec<Run> = run_batch(&commands, &names)
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| panic!("the sandbox must run: {e}")))
            .collect();
        let changed = |run: &Run| run.changes.iter().map(|c| c.path.clone()).collect::<Vec<_>>();
        assert!(changed(&runs[0]).contains(&"first".to_owned()), "{:?}", runs[0].changes);
        assert_eq!(changed(&runs[1]), ["second"], "the first line's job was killed before the second ran");
        assert!(runs[2].timed_out, "a line that killed the driver was cut short");
        assert_eq!(from(&runs[2], Source::Shim), [vec!["/usr/local/sbin/touch", "t"]]);
        assert!(!runs[3].timed_out);
        assert_eq!(
            from(&runs[3], Source::Shim),
            [vec!["/usr/local/sbin/touch", "after"]],
            "the rest ran in a new sandbox"
        );
    }

    #[test]
    fn a_command_that_runs_too_long_is_killed() {
        let run = sandboxed("touch a; read -t 9 <> <(:)", &["touch"]);
        assert!(run.timed_out);
        assert_eq!(from(&run, Source::Shim).len(), 1, "what ran before the limit is kept");
    }
}
