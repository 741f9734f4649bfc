//! The one process helper: every child process toolgate starts (the Bash tool, hooks, MCP
//! stdio servers, language servers) is started here.
//!
//! A [`ProcessSpec`] says what to run and how: shell form ([`ProcessSpec::shell`], `sh -c`)
//! or exec form ([`ProcessSpec::exec`], no shell), an explicit working directory,
//! environment additions and removals, bytes for stdin, a timeout, and caps on how much of
//! stdout and stderr is kept. Two ways to run it:
//!
//! - [`ProcessSpec::run`] runs the child to completion and returns a [`ProcessOutcome`]:
//!   how it ended ([`ProcessStatus`]), what it printed (capped, see [`CapturedOutput`]) and
//!   how long it took;
//! - [`ProcessSpec::spawn`] starts a long-lived child with piped stdio and returns a
//!   [`ProcessHandle`] (MCP stdio servers, language servers).
//!
//! # Guarantees
//!
//! 1. **Own process group.** Every child is the leader of a new process group
//!    (`setpgid(0, 0)`, via tokio's `process_group(0)`), so one signal reaches it and
//!    everything it started that did not leave the group.
//! 2. **Nothing outlives a run.** On timeout, cancellation or when the `run` future is
//!    dropped, the whole group is stopped: `SIGTERM`, a short grace period
//!    ([`ProcessSpec::kill_grace`]), then `SIGKILL`; the child is reaped. When the child
//!    exits on its own, members of its group still running (`cmd &`) are killed with
//!    `SIGKILL` once its output has been drained. A [`ProcessHandle`] kills its group when
//!    dropped.
//! 3. **Output never blocks the child and never exhausts memory.** stdout and stderr are
//!    read concurrently, to the end, while the child runs; bytes past the cap are counted
//!    and dropped, so a child printing gigabytes runs at full speed and the memory held is
//!    bounded by the caps.
//! 4. **stdin never deadlocks.** Bytes for stdin are written concurrently with the reads,
//!    and stdin is closed afterwards; a child that does not read them is not an error.
//!
//! # Controlling terminal
//!
//! `unsafe` code is forbidden in this workspace, so the child cannot be put in a new
//! *session* (`setsid` needs a `pre_exec` hook); it gets a new process *group* in the host's
//! session. Consequences, when the host runs in a terminal:
//!
//! - the child's group is a background group of that terminal: keys such as Ctrl-C send
//!   `SIGINT` to the host's foreground group only, never to children, so stopping them is
//!   the host's job (cancel the token; the helper then stops the group);
//! - stdin is a pipe or `/dev/null`, never the terminal; a child that opens `/dev/tty` and
//!   reads from it is stopped by `SIGTTIN` (and, with `stty tostop`, by `SIGTTOU` when
//!   writing) until its timeout kills it; it cannot steal the host's keyboard input.
//!
//! A child that calls `setsid` or `setpgid` itself leaves the group and escapes the kill;
//! its pipes are still closed on our side after the drain period.
//!
//! # Runtime
//!
//! Everything here is async on tokio and needs a runtime with I/O and time drivers
//! (`enable_all`), as `#[tokio::main]` and `#[tokio::test]` give.
//!
//! ```
//! use std::time::Duration;
//! use toolgate_core::CancellationToken;
//! use toolgate_core::process::{ProcessSpec, ProcessStatus};
//!
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let dir = std::env::temp_dir();
//! let spec = ProcessSpec::shell("read name; echo \"hello $name\"; echo oops >&2; exit 3")
//!     .cwd(&dir)
//!     .stdin("world\n")
//!     .timeout(Duration::from_secs(10));
//! let outcome = spec.run(&CancellationToken::new()).await?;
//! assert_eq!(outcome.status, ProcessStatus::Exited(3));
//! assert_eq!(outcome.stdout.text(), "hello world\n");
//! assert_eq!(outcome.stderr.text(), "oops\n");
//! # Ok::<(), toolgate_core::process::ProcessError>(())
//! # }).unwrap();
//! ```

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

use crate::CancellationToken;

/// How many bytes of stdout (and, separately, of stderr) a run keeps by default: 1 MiB.
pub const DEFAULT_OUTPUT_CAP: usize = 1024 * 1024;

/// How long a child has between `SIGTERM` and `SIGKILL` by default: 1 second.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(1);

/// How long, by default, output is still read after the child exited while something it
/// started keeps its stdout or stderr open: 250 milliseconds.
pub const DEFAULT_DRAIN: Duration = Duration::from_millis(250);

/// The shell that [`ProcessSpec::shell`] runs commands with.
pub const DEFAULT_SHELL: &str = "sh";

/// The size of one read from a pipe.
const CHUNK: usize = 64 * 1024;

/// What to start.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Program {
    /// `<shell> -c <command>`.
    Shell { shell: OsString, command: String },
    /// The program itself, with its arguments, no shell.
    Exec { program: OsString, args: Vec<OsString> },
}

/// One change to the inherited environment, applied in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum EnvOp {
    Set(OsString, OsString),
    Remove(OsString),
    Clear,
}

/// What to run and how: program, working directory, environment, stdin, timeout, caps.
///
/// Built with [`ProcessSpec::shell`] or [`ProcessSpec::exec`] and the builder methods;
/// run with [`ProcessSpec::run`] or start with [`ProcessSpec::spawn`]. Defaults (each
/// builder method names its own):
///
/// | setting | default |
/// |---|---|
/// | working directory | none: it must be set, [`ProcessSpec::run`] refuses to guess |
/// | environment | the host's, unchanged |
/// | stdin | `/dev/null` |
/// | timeout | none (the cancellation token still stops the run) |
/// | output caps | [`DEFAULT_OUTPUT_CAP`] per stream |
/// | kill grace | [`DEFAULT_KILL_GRACE`] |
/// | drain | [`DEFAULT_DRAIN`] |
///
/// ```
/// use std::time::Duration;
/// use toolgate_core::process::ProcessSpec;
///
/// let spec = ProcessSpec::exec("git", ["status", "--short"])
///     .cwd("/repo")
///     .env("GIT_PAGER", "cat")
///     .env_remove("GIT_DIR")
///     .timeout(Duration::from_secs(30))
///     .output_cap(64 * 1024);
/// assert_eq!(spec.display(), "git status --short");
/// assert_eq!(spec.timeout_value(), Some(Duration::from_secs(30)));
/// ```
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    program: Program,
    cwd: Option<PathBuf>,
    env: Vec<EnvOp>,
    stdin: Option<Vec<u8>>,
    timeout: Option<Duration>,
    stdout_cap: usize,
    stderr_cap: usize,
    discard_stderr: bool,
    kill_grace: Duration,
    drain: Duration,
}

impl ProcessSpec {
    fn new(program: Program) -> Self {
        Self {
            program,
            cwd: None,
            env: Vec::new(),
            stdin: None,
            timeout: None,
            stdout_cap: DEFAULT_OUTPUT_CAP,
            stderr_cap: DEFAULT_OUTPUT_CAP,
            discard_stderr: false,
            kill_grace: DEFAULT_KILL_GRACE,
            drain: DEFAULT_DRAIN,
        }
    }

    /// Shell form: `sh -c <command>`; the shell parses pipes, `&&`, redirections and
    /// expansions. A command the shell cannot find exits with code 127.
    pub fn shell(command: impl Into<String>) -> Self {
        Self::shell_with(DEFAULT_SHELL, command)
    }

    /// Shell form with another shell: `<shell> -c <command>` (e.g. `bash`).
    pub fn shell_with(shell: impl Into<OsString>, command: impl Into<String>) -> Self {
        Self::new(Program::Shell { shell: shell.into(), command: command.into() })
    }

    /// Exec form: `program` (looked up on `PATH` when it has no `/`) with `args` as its
    /// argument vector, each element one argument, no shell. A program that cannot be
    /// found is a [`ProcessError::Spawn`].
    pub fn exec<I, S>(program: impl Into<OsString>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self::new(Program::Exec { program: program.into(), args: args.into_iter().map(Into::into).collect() })
    }

    /// The working directory (required).
    #[must_use]
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets `key=value` in the child's environment.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push(EnvOp::Set(key.into(), value.into()));
        self
    }

    /// Sets several variables, in order.
    #[must_use]
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.env.extend(vars.into_iter().map(|(k, v)| EnvOp::Set(k.into(), v.into())));
        self
    }

    /// Removes `key` from the child's environment.
    #[must_use]
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.env.push(EnvOp::Remove(key.into()));
        self
    }

    /// Starts from an empty environment instead of the host's; later [`ProcessSpec::env`]
    /// calls add to it.
    #[must_use]
    pub fn env_clear(mut self) -> Self {
        self.env.push(EnvOp::Clear);
        self
    }

    /// Bytes written to the child's stdin, which is then closed (default: stdin is
    /// `/dev/null`). Ignored by [`ProcessSpec::spawn`], whose stdin is a pipe.
    #[must_use]
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// The longest the child may run before its group is stopped (default: no limit).
    /// Ignored by [`ProcessSpec::spawn`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Like [`ProcessSpec::timeout`], with `None` for no limit.
    #[must_use]
    pub fn timeout_opt(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Caps both stdout and stderr at `bytes` each.
    #[must_use]
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.stdout_cap = bytes;
        self.stderr_cap = bytes;
        self
    }

    /// Caps stdout at `bytes` (default [`DEFAULT_OUTPUT_CAP`]); the rest is counted and
    /// dropped.
    #[must_use]
    pub fn stdout_cap(mut self, bytes: usize) -> Self {
        self.stdout_cap = bytes;
        self
    }

    /// Caps stderr at `bytes` (default [`DEFAULT_OUTPUT_CAP`]).
    #[must_use]
    pub fn stderr_cap(mut self, bytes: usize) -> Self {
        self.stderr_cap = bytes;
        self
    }

    /// Sends stderr to `/dev/null` instead of capturing it (for [`ProcessSpec::spawn`], a
    /// child whose stderr nobody reads must not fill the pipe and block).
    #[must_use]
    pub fn discard_stderr(mut self) -> Self {
        self.discard_stderr = true;
        self
    }

    /// Time between `SIGTERM` and `SIGKILL` when the group is stopped (default
    /// [`DEFAULT_KILL_GRACE`]).
    #[must_use]
    pub fn kill_grace(mut self, grace: Duration) -> Self {
        self.kill_grace = grace;
        self
    }

    /// How long output is still read after the child exited while a process it left
    /// behind holds stdout or stderr open (default [`DEFAULT_DRAIN`]).
    #[must_use]
    pub fn drain(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// The timeout, if any.
    pub fn timeout_value(&self) -> Option<Duration> {
        self.timeout
    }

    /// The working directory, if set.
    pub fn cwd_value(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// The command for people and error messages: the shell command as written, or the
    /// program and its arguments joined by spaces.
    pub fn display(&self) -> String {
        match &self.program {
            Program::Shell { command, .. } => command.clone(),
            Program::Exec { program, args } => {
                let mut out = program.to_string_lossy().into_owned();
                for arg in args {
                    out.push(' ');
                    out.push_str(&arg.to_string_lossy());
                }
                out
            }
        }
    }

    /// The program that is started: the shell, or the exec-form program.
    fn program_name(&self) -> &OsStr {
        match &self.program {
            Program::Shell { shell, .. } => shell,
            Program::Exec { program, .. } => program,
        }
    }

    /// Builds the command. Every child is spawned here.
    fn command(&self, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Result<Command, ProcessError> {
        let Some(cwd) = &self.cwd else {
            return Err(ProcessError::NoWorkingDirectory { command: self.display() });
        };
        if !cwd.is_dir() {
            return Err(ProcessError::BadWorkingDirectory { path: cwd.clone() });
        }
        // The one place toolgate constructs a process command (clippy.toml refuses it
        // elsewhere, and the tidy test checks that it stays so).
        #[allow(clippy::disallowed_methods)]
        let mut command = Command::new(self.program_name());
        match &self.program {
            Program::Shell { command: text, .. } => {
                command.arg("-c").arg(text);
            }
            Program::Exec { args, .. } => {
                command.args(args);
            }
        }
        command.current_dir(cwd);
        for op in &self.env {
            match op {
                EnvOp::Set(k, v) => {
                    command.env(k, v);
                }
                EnvOp::Remove(k) => {
                    command.env_remove(k);
                }
                EnvOp::Clear => {
                    command.env_clear();
                }
            }
        }
        command.stdin(stdin).stdout(stdout).stderr(stderr).process_group(0).kill_on_drop(true);
        Ok(command)
    }

    fn spawn_child(&self, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Result<(Child, Group), ProcessError> {
        let mut command = self.command(stdin, stdout, stderr)?;
        let child = command.spawn().map_err(|source| ProcessError::Spawn {
            program: self.program_name().to_string_lossy().into_owned(),
            source,
        })?;
        let group = Group::of(&child);
        Ok((child, group))
    }

    /// Runs the child to completion, or until the timeout or `cancel` stops it.
    ///
    /// Steps: spawn in a new process group; write stdin and read stdout and stderr
    /// concurrently (each capped); wait for the child to exit, the timeout to pass or
    /// `cancel` to fire; on timeout or cancellation stop the group (`SIGTERM`, grace,
    /// `SIGKILL`) and reap the child; read what is left of the output for at most the
    /// drain period; `SIGKILL` whatever is left of the group. Dropping the future kills the
    /// group at once (`SIGKILL`).
    ///
    /// # Errors
    ///
    /// [`ProcessError::NoWorkingDirectory`] and [`ProcessError::BadWorkingDirectory`]
    /// before anything starts, [`ProcessError::Spawn`] when the program cannot be started,
    /// [`ProcessError::Wait`] when waiting for it fails. How the child itself ended
    /// (non-zero exit, signal, timeout, cancellation) is never an error: it is the
    /// outcome's [`ProcessStatus`].
    pub async fn run(&self, cancel: &CancellationToken) -> Result<ProcessOutcome, ProcessError> {
        let started = Instant::now();
        if cancel.is_cancelled() {
            // Checked first so that nothing is started for a call already cancelled.
            let _ = self.command(Stdio::null(), Stdio::null(), Stdio::null())?;
            return Ok(ProcessOutcome {
                status: ProcessStatus::Cancelled,
                stdout: CapturedOutput::default(),
                stderr: CapturedOutput::default(),
                duration: started.elapsed(),
            });
        }
        let stdin_mode = if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() };
        let stderr_mode = if self.discard_stderr { Stdio::null() } else { Stdio::piped() };
        let (mut child, mut group) = self.spawn_child(stdin_mode, Stdio::piped(), stderr_mode)?;
        let stop_reading = CancellationToken::new();

        let _writer = match (child.stdin.take(), &self.stdin) {
            (Some(mut pipe), Some(bytes)) => {
                let bytes = bytes.clone();
                Some(AbortOnDrop(tokio::spawn(async move {
                    // A child that exits without reading its stdin closes the pipe:
                    // EPIPE here is expected, not an error.
                    let _ = pipe.write_all(&bytes).await;
                    let _ = pipe.shutdown().await;
                })))
            }
            _ => None,
        };
        let stdout = child.stdout.take().map(|p| spawn_reader(p, self.stdout_cap, stop_reading.clone()));
        let stderr = child.stderr.take().map(|p| spawn_reader(p, self.stderr_cap, stop_reading.clone()));

        let waited = match self.timeout {
            Some(limit) => tokio::time::timeout(limit, cancel.run_until_cancelled(child.wait())).await.ok(),
            None => Some(cancel.run_until_cancelled(child.wait()).await),
        };
        let status = match waited {
            Some(Some(Ok(status))) => exit_status(status),
            Some(Some(Err(source))) => {
                return Err(ProcessError::Wait { program: self.program_name().to_string_lossy().into_owned(), source });
            }
            Some(None) => {
                terminate(&mut child, &group, self.kill_grace).await;
                ProcessStatus::Cancelled
            }
            None => {
                terminate(&mut child, &group, self.kill_grace).await;
                ProcessStatus::TimedOut
            }
        };

        // The child is gone. Whatever it left behind may still hold the pipes open: read
        // for at most the drain period, then stop reading and kill the rest of the group.
        let _timer = {
            let stop = stop_reading.clone();
            let drain = self.drain;
            AbortOnDrop(tokio::spawn(async move {
                tokio::time::sleep(drain).await;
                stop.cancel();
            }))
        };
        let stdout = collect(stdout).await;
        let stderr = collect(stderr).await;
        group.kill_remaining();
        Ok(ProcessOutcome { status, stdout, stderr, duration: started.elapsed() })
    }

    /// Starts a long-lived child with piped stdin, stdout and stderr (stderr to
    /// `/dev/null` after [`ProcessSpec::discard_stderr`]) in its own process group.
    ///
    /// The caller takes the pipes ([`ProcessHandle::take_stdin`] …) and must keep reading
    /// stdout and stderr, or the child blocks once a pipe is full. The spec's stdin bytes,
    /// timeout and caps do not apply. Dropping the handle kills the group.
    ///
    /// ```
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// use toolgate_core::process::{ProcessSpec, ProcessStatus};
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let mut child = ProcessSpec::exec("cat", Vec::<String>::new()).cwd(std::env::temp_dir()).spawn()?;
    /// let mut stdin = child.take_stdin().unwrap();
    /// let mut lines = BufReader::new(child.take_stdout().unwrap()).lines();
    /// stdin.write_all(b"ping\n").await.unwrap();
    /// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("ping"));
    /// drop(stdin); // EOF: cat exits
    /// assert_eq!(child.wait().await?, ProcessStatus::Exited(0));
    /// # Ok::<(), toolgate_core::process::ProcessError>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ProcessSpec::run`], before the child runs.
    pub fn spawn(&self) -> Result<ProcessHandle, ProcessError> {
        let stderr_mode = if self.discard_stderr { Stdio::null() } else { Stdio::piped() };
        let (child, group) = self.spawn_child(Stdio::piped(), Stdio::piped(), stderr_mode)?;
        Ok(ProcessHandle {
            child,
            group,
            kill_grace: self.kill_grace,
            program: self.program_name().to_string_lossy().into_owned(),
        })
    }
}

/// How a child ended.
///
/// ```
/// use toolgate_core::process::ProcessStatus;
/// assert!(ProcessStatus::Exited(0).success());
/// assert_eq!(ProcessStatus::Exited(2).code(), Some(2));
/// assert_eq!(ProcessStatus::Signaled(9).to_string(), "killed by signal 9 (SIGKILL)");
/// assert_eq!(ProcessStatus::TimedOut.to_string(), "timed out");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProcessStatus {
    /// It exited with this code.
    Exited(i32),
    /// A signal it did not handle ended it (one we did not send because of a timeout or
    /// cancellation: those are [`ProcessStatus::TimedOut`] and [`ProcessStatus::Cancelled`]).
    Signaled(i32),
    /// It ran past the timeout, and its group was stopped.
    TimedOut,
    /// The cancellation token fired, and its group was stopped.
    Cancelled,
}

impl ProcessStatus {
    /// True for exit code 0.
    pub fn success(self) -> bool {
        self == Self::Exited(0)
    }

    /// The exit code, when it exited.
    pub fn code(self) -> Option<i32> {
        match self {
            Self::Exited(code) => Some(code),
            _ => None,
        }
    }
}

impl fmt::Display for ProcessStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exited(code) => write!(f, "exit code {code}"),
            Self::Signaled(signal) => match Signal::try_from(*signal) {
                Ok(name) => write!(f, "killed by signal {signal} ({name})"),
                Err(_) => write!(f, "killed by signal {signal}"),
            },
            Self::TimedOut => f.write_str("timed out"),
            Self::Cancelled => f.write_str("cancelled"),
        }
    }
}

/// What a child wrote to one stream: the first bytes up to the cap, and how much there was.
///
/// ```
/// use toolgate_core::process::CapturedOutput;
/// let out = CapturedOutput { bytes: b"caf\xc3".to_vec(), truncated: true, total_bytes: 1_000 };
/// // A char cut by the cap is dropped rather than shown as U+FFFD.
/// assert_eq!(out.text(), "caf");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CapturedOutput {
    /// The bytes kept: the first ones, at most the cap.
    pub bytes: Vec<u8>,
    /// True when more was written than the cap kept.
    pub truncated: bool,
    /// How many bytes the child wrote in all, kept or not.
    pub total_bytes: u64,
}

impl CapturedOutput {
    /// The kept bytes as text: invalid UTF-8 becomes U+FFFD, and a char cut in half by the
    /// cap at the end is dropped.
    pub fn text(&self) -> Cow<'_, str> {
        let bytes = if self.truncated { trim_partial_char(&self.bytes) } else { &self.bytes };
        String::from_utf8_lossy(bytes)
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.total_bytes == 0
    }
}

/// `bytes` without an incomplete UTF-8 sequence at its very end.
fn trim_partial_char(bytes: &[u8]) -> &[u8] {
    // A UTF-8 sequence is at most 4 bytes: look at the last 3 for a cut-off lead byte.
    for back in 1..=3.min(bytes.len()) {
        let i = bytes.len() - back;
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            continue; // continuation byte: keep looking for the lead
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if needed > back { &bytes[..i] } else { bytes };
    }
    bytes
}

/// The result of [`ProcessSpec::run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOutcome {
    /// How the child ended.
    pub status: ProcessStatus,
    /// What it wrote to stdout (capped).
    pub stdout: CapturedOutput,
    /// What it wrote to stderr (capped; empty after [`ProcessSpec::discard_stderr`]).
    pub stderr: CapturedOutput,
    /// From spawn to the end of the run, including stopping the group.
    pub duration: Duration,
}

/// Why a process could not be run. How a child ended is never an error; see
/// [`ProcessStatus`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProcessError {
    /// The spec has no working directory.
    #[error("no working directory given for `{command}`; the process helper never guesses one")]
    NoWorkingDirectory {
        /// The command, as [`ProcessSpec::display`] shows it.
        command: String,
    },
    /// The working directory does not exist or is not a directory.
    #[error("working directory {} does not exist or is not a directory", path.display())]
    BadWorkingDirectory {
        /// The directory.
        path: PathBuf,
    },
    /// The program could not be started (not found, not executable …).
    #[error("could not start `{program}`: {source}")]
    Spawn {
        /// The program (the shell, in shell form).
        program: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// Waiting for the child failed.
    #[error("could not wait for `{program}`: {source}")]
    Wait {
        /// The program.
        program: String,
        /// The operating system's error.
        source: io::Error,
    },
}

/// A long-lived child started by [`ProcessSpec::spawn`]. Dropping it kills the child's
/// whole process group with `SIGKILL` (tokio reaps the child in the background); call
/// [`ProcessHandle::terminate`] for a graceful stop.
#[derive(Debug)]
pub struct ProcessHandle {
    child: Child,
    group: Group,
    kill_grace: Duration,
    program: String,
}

impl ProcessHandle {
    /// The child's process id (also its process group id), until it has been reaped.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// The write end of the child's stdin (once).
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.child.stdin.take()
    }

    /// The read end of the child's stdout (once).
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// The read end of the child's stderr (once; `None` after
    /// [`ProcessSpec::discard_stderr`]).
    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child.stderr.take()
    }

    /// Waits for the child to exit, then kills what is left of its group. Cancel-safe.
    ///
    /// # Errors
    ///
    /// [`ProcessError::Wait`] when waiting fails.
    pub async fn wait(&mut self) -> Result<ProcessStatus, ProcessError> {
        let status = self.child.wait().await.map_err(|source| self.wait_error(source))?;
        self.group.kill_remaining();
        Ok(exit_status(status))
    }

    /// The status if the child has exited, without waiting.
    ///
    /// # Errors
    ///
    /// [`ProcessError::Wait`] when asking fails.
    pub fn try_wait(&mut self) -> Result<Option<ProcessStatus>, ProcessError> {
        match self.child.try_wait() {
            Ok(Some(status)) => {
                self.group.kill_remaining();
                Ok(Some(exit_status(status)))
            }
            Ok(None) => Ok(None),
            Err(source) => Err(self.wait_error(source)),
        }
    }

    /// Stops the whole group (`SIGTERM`, the spec's kill grace, `SIGKILL`) and reaps the
    /// child. Returns how the child ended: usually [`ProcessStatus::Signaled`], or
    /// [`ProcessStatus::Exited`] when it handled `SIGTERM` and exited.
    ///
    /// # Errors
    ///
    /// [`ProcessError::Wait`] when waiting fails.
    pub async fn terminate(&mut self) -> Result<ProcessStatus, ProcessError> {
        match terminate(&mut self.child, &self.group, self.kill_grace).await {
            Some(status) => {
                self.group.kill_remaining();
                Ok(exit_status(status))
            }
            None => {
                let source = io::Error::other("the child did not exit after SIGKILL");
                Err(self.wait_error(source))
            }
        }
    }

    /// Sends `SIGKILL` to the whole group now, without waiting.
    pub fn kill(&mut self) {
        self.group.signal(Signal::SIGKILL);
    }

    fn wait_error(&self, source: io::Error) -> ProcessError {
        ProcessError::Wait { program: self.program.clone(), source }
    }
}

/// A child's process group; `SIGKILL`s it when dropped, unless already finished.
#[derive(Debug)]
struct Group {
    pgid: Option<Pid>,
}

impl Group {
    fn of(child: &Child) -> Self {
        // The child is its group's leader (process_group(0)), so its pid is the group id.
        let pgid = child.id().and_then(|id| i32::try_from(id).ok()).map(Pid::from_raw);
        Self { pgid }
    }

    /// Sends `signal` to every process in the group; a group that is already empty is fine.
    fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            let _ = killpg(pgid, signal);
        }
    }

    /// Kills what is left of the group after its leader was reaped, then forgets the group
    /// so that nothing is sent to its id again.
    ///
    /// The id cannot be taken by a new group while any member lives; once none does, a
    /// new process would have to get the same pid *and* lead a group within the few
    /// instructions between the reap and this call.
    fn kill_remaining(&mut self) {
        self.signal(Signal::SIGKILL);
        self.pgid = None;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}

/// A task aborted when this is dropped.
#[derive(Debug)]
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Stops the group gracefully: `SIGTERM`, up to `grace` for the leader to exit, then
/// `SIGKILL` to the group (members that ignored `SIGTERM`), and reaps the leader.
async fn terminate(child: &mut Child, group: &Group, grace: Duration) -> Option<ExitStatus> {
    group.signal(Signal::SIGTERM);
    let exited = match tokio::time::timeout(grace, child.wait()).await {
        Ok(Ok(status)) => Some(status),
        _ => None,
    };
    group.signal(Signal::SIGKILL);
    match exited {
        Some(status) => Some(status),
        None => {
            // The group signal reaches the leader too; this covers a group id we could
            // not read.
            let _ = child.start_kill();
            child.wait().await.ok()
        }
    }
}

fn exit_status(status: ExitStatus) -> ProcessStatus {
    match (status.code(), status.signal()) {
        (Some(code), _) => ProcessStatus::Exited(code),
        (None, Some(signal)) => ProcessStatus::Signaled(signal),
        // Neither: cannot happen for a reaped child on Unix; report it as a failure.
        (None, None) => ProcessStatus::Exited(-1),
    }
}

fn spawn_reader<R>(pipe: R, cap: usize, stop: CancellationToken) -> AbortOnDrop<CapturedOutput>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    AbortOnDrop(tokio::spawn(read_capped(pipe, cap, stop)))
}

async fn collect(reader: Option<AbortOnDrop<CapturedOutput>>) -> CapturedOutput {
    match reader {
        Some(mut task) => (&mut task.0).await.unwrap_or_default(),
        None => CapturedOutput::default(),
    }
}

/// Reads `pipe` to its end (or until `stop` fires), keeping the first `cap` bytes and
/// counting the rest. Memory held: the kept bytes (at most `cap`) plus one chunk.
async fn read_capped<R: AsyncRead + Unpin>(mut pipe: R, cap: usize, stop: CancellationToken) -> CapturedOutput {
    let mut out = CapturedOutput::default();
    let mut chunk = vec![0_u8; CHUNK];
    loop {
        let n = match stop.run_until_cancelled(pipe.read(&mut chunk)).await {
            None | Some(Ok(0)) => break,
            Some(Ok(n)) => n,
            Some(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
            Some(Err(_)) => break,
        };
        out.total_bytes += n as u64;
        let room = cap.saturating_sub(out.bytes.len());
        let keep = n.min(room);
        if keep < n {
            out.truncated = true;
        }
        if keep > 0 {
            // Grow geometrically, but never past the cap.
            let needed = out.bytes.len() + keep;
            if needed > out.bytes.capacity() {
                let target = needed.max(out.bytes.len() * 2).min(cap);
                out.bytes.reserve_exact(target - out.bytes.len());
            }
            out.bytes.extend_from_slice(&chunk[..keep]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt as _;

    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    async fn run(spec: ProcessSpec) -> ProcessOutcome {
        spec.run(&CancellationToken::new()).await.unwrap()
    }

    /// Whether `pid` is gone: no `/proc` entry, or a zombie (dead, waiting for whichever
    /// process adopted it to reap it).
    fn is_dead(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            // The state follows the parenthesised command name.
            Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
        }
    }

    /// Polls until `pid` is dead; bounded (10 s), no fixed sleep as an assertion.
    async fn wait_dead(pid: u32) -> bool {
        for _ in 0..1_000 {
            if is_dead(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    fn first_pid(out: &CapturedOutput) -> u32 {
        out.text().lines().next().unwrap().trim().parse().unwrap()
    }

    #[tokio::test]
    async fn exit_codes_are_reported() {
        let dir = tmp();
        for code in [0, 1, 2, 42, 127] {
            let out = run(ProcessSpec::shell(format!("exit {code}")).cwd(dir.path())).await;
            assert_eq!(out.status, ProcessStatus::Exited(code));
        }
    }

    #[tokio::test]
    async fn a_missing_command_in_shell_form_exits_127() {
        let dir = tmp();
        let out = run(ProcessSpec::shell("./no-such-script.sh").cwd(dir.path())).await;
        assert_eq!(out.status, ProcessStatus::Exited(127));
        assert!(out.stderr.text().contains("no-such-script.sh"), "{}", out.stderr.text());
    }

    #[tokio::test]
    async fn a_missing_program_in_exec_form_is_a_spawn_error() {
        let dir = tmp();
        let err = ProcessSpec::exec("toolgate-no-such-program", ["x"])
            .cwd(dir.path())
            .run(&CancellationToken::new())
            .await
            .unwrap_err();
        assert!(matches!(err, ProcessError::Spawn { .. }));
        assert!(err.to_string().starts_with("could not start `toolgate-no-such-program`: "), "{err}");
    }

    #[tokio::test]
    async fn a_working_directory_is_required_and_must_exist() {
        let err = ProcessSpec::shell("true").run(&CancellationToken::new()).await.unwrap_err();
        assert!(matches!(err, ProcessError::NoWorkingDirectory { .. }), "{err}");
        let dir = tmp();
        let missing = dir.path().join("gone");
        let err = ProcessSpec::shell("true").cwd(&missing).run(&CancellationToken::new()).await.unwrap_err();
        assert!(matches!(err, ProcessError::BadWorkingDirectory { .. }), "{err}");
    }

    #[tokio::test]
    async fn signals_are_reported() {
        let dir = tmp();
        let out = run(ProcessSpec::shell("kill -TERM $$").cwd(dir.path())).await;
        assert_eq!(out.status, ProcessStatus::Signaled(15));
        assert_eq!(out.status.to_string(), "killed by signal 15 (SIGTERM)");
        let out = run(ProcessSpec::exec("sh", ["-c", "kill -KILL $$"]).cwd(dir.path())).await;
        assert_eq!(out.status, ProcessStatus::Signaled(9));
    }

    #[tokio::test]
    async fn stdin_is_delivered_and_closed() {
        let dir = tmp();
        let input = "line one\nline two\n".repeat(10_000); // 180 KB, more than a pipe holds
        let out = run(ProcessSpec::shell("wc -c").cwd(dir.path()).stdin(input.clone())).await;
        assert_eq!(out.status, ProcessStatus::Exited(0));
        assert_eq!(out.stdout.text().trim(), input.len().to_string());
    }

    #[tokio::test]
    async fn unread_stdin_is_not_an_error() {
        let dir = tmp();
        let out = run(ProcessSpec::shell("exit 0").cwd(dir.path()).stdin(vec![b'x'; 1_000_000])).await;
        assert_eq!(out.status, ProcessStatus::Exited(0));
    }

    #[tokio::test]
    async fn without_stdin_bytes_stdin_is_empty() {
        let dir = tmp();
        let out = run(ProcessSpec::shell("cat; echo done").cwd(dir.path())).await;
        assert_eq!(out.stdout.text(), "done\n");
    }

    #[tokio::test]
    async fn env_additions_and_removals_apply_in_order() {
        let dir = tmp();
        let spec = ProcessSpec::shell("echo \"$TG_A|${TG_B-unset}|${HOME:+home}\"")
            .cwd(dir.path())
            .env("TG_A", "one")
            .env("TG_B", "two")
            .env_remove("TG_B");
        assert_eq!(run(spec).await.stdout.text(), "one|unset|home\n");
        let cleared = ProcessSpec::exec("/bin/sh", ["-c", "echo \"${HOME-none}|$TG_C\""])
            .cwd(dir.path())
            .env_clear()
            .env("TG_C", "kept");
        assert_eq!(run(cleared).await.stdout.text(), "none|kept\n");
    }

    #[tokio::test]
    async fn the_working_directory_is_used() {
        let dir = tmp();
        std::fs::write(dir.path().join("marker.txt"), "here").unwrap();
        let out = run(ProcessSpec::shell("cat marker.txt; pwd").cwd(dir.path())).await;
        let canonical = dir.path().canonicalize().unwrap();
        assert_eq!(out.stdout.text(), format!("here{}\n", canonical.display()));
    }

    #[tokio::test]
    async fn exec_form_passes_arguments_verbatim() {
        let dir = tmp();
        let out = run(ProcessSpec::exec("printf", ["%s|", "a b", "$HOME", "`x`", "it's"]).cwd(dir.path())).await;
        assert_eq!(out.stdout.text(), "a b|$HOME|`x`|it's|");
    }

    #[tokio::test]
    async fn a_flood_is_capped_without_blocking_and_memory_stays_bounded() {
        let dir = tmp();
        const FLOOD: u64 = 100 * 1024 * 1024;
        const CAP: usize = 256 * 1024;
        // 100 MB on each stream, stdout first: if stderr were not read concurrently the
        // child would block on it, and the timeout would end the run.
        let spec = ProcessSpec::shell(format!("head -c {FLOOD} /dev/zero; head -c {FLOOD} /dev/zero >&2; echo end"))
            .cwd(dir.path())
            .output_cap(CAP)
            .timeout(Duration::from_secs(120));
        let out = run(spec).await;
        assert_eq!(out.status, ProcessStatus::Exited(0));
        for stream in [&out.stdout, &out.stderr] {
            assert_eq!(stream.bytes.len(), CAP);
            assert!(stream.truncated);
            assert!(stream.bytes.capacity() <= CAP, "held {} bytes", stream.bytes.capacity());
        }
        assert_eq!(out.stdout.total_bytes, FLOOD + 4);
        assert_eq!(out.stderr.total_bytes, FLOOD);
    }

    #[tokio::test]
    async fn output_under_the_cap_is_kept_whole() {
        let dir = tmp();
        let out = run(ProcessSpec::shell("printf abc; printf xyz >&2").cwd(dir.path()).output_cap(3)).await;
        assert_eq!((out.stdout.text().as_ref(), out.stdout.truncated, out.stdout.total_bytes), ("abc", false, 3));
        let out = run(ProcessSpec::shell("printf abcd").cwd(dir.path()).stdout_cap(3)).await;
        assert_eq!((out.stdout.text().as_ref(), out.stdout.truncated, out.stdout.total_bytes), ("abc", true, 4));
    }

    #[tokio::test]
    async fn a_timeout_kills_the_child_and_its_grandchild() {
        let dir = tmp();
        // The shell prints its background child's pid, then waits for it.
        let spec = ProcessSpec::shell("sleep 100 & echo $!; wait").cwd(dir.path()).timeout(Duration::from_secs(1));
        let out = run(spec).await;
        assert_eq!(out.status, ProcessStatus::TimedOut);
        let grandchild = first_pid(&out.stdout);
        assert!(wait_dead(grandchild).await, "sleep {grandchild} survived the timeout");
        assert!(out.duration < Duration::from_secs(30));
    }

    #[tokio::test]
    async fn a_child_ignoring_sigterm_is_killed_after_the_grace() {
        let dir = tmp();
        let spec = ProcessSpec::shell("trap '' TERM; sh -c 'trap \"\" TERM; sleep 100' & echo $!; wait")
            .cwd(dir.path())
            .timeout(Duration::from_secs(1))
            .kill_grace(Duration::from_millis(200));
        let out = run(spec).await;
        assert_eq!(out.status, ProcessStatus::TimedOut);
        assert!(wait_dead(first_pid(&out.stdout)).await);
    }

    #[tokio::test]
    async fn cancellation_stops_the_group() {
        let dir = tmp();
        let cancel = CancellationToken::new();
        let pid_file = dir.path().join("pid");
        let spec = ProcessSpec::shell(format!("sleep 100 & echo $! > {}; wait", pid_file.display())).cwd(dir.path());
        let watcher = {
            let cancel = cancel.clone();
            let pid_file = pid_file.clone();
            tokio::spawn(async move {
                for _ in 0..1_000 {
                    if std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n')) {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                cancel.cancel();
            })
        };
        let out = spec.run(&cancel).await.unwrap();
        watcher.await.unwrap();
        assert_eq!(out.status, ProcessStatus::Cancelled);
        let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        assert!(wait_dead(pid).await, "sleep {pid} survived cancellation");
    }

    #[tokio::test]
    async fn dropping_the_run_future_kills_the_group() {
        let dir = tmp();
        let pid_file = dir.path().join("pid");
        let spec = ProcessSpec::shell(format!("sleep 100 & echo $! > {}; wait", pid_file.display())).cwd(dir.path());
        let cancel = CancellationToken::new();
        {
            let run = spec.run(&cancel);
            tokio::pin!(run);
            // Drive the run until the grandchild's pid is written, then drop it.
            let mut written = false;
            for _ in 0..1_000 {
                if tokio::time::timeout(Duration::from_millis(10), &mut run).await.is_ok() {
                    panic!("the run ended on its own");
                }
                if std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n')) {
                    written = true;
                    break;
                }
            }
            assert!(written);
        }
        let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        assert!(wait_dead(pid).await, "sleep {pid} survived the dropped run");
    }

    #[tokio::test]
    async fn background_leftovers_are_killed_after_the_drain() {
        let dir = tmp();
        // The shell exits at once; its background sleep holds stdout open.
        let spec = ProcessSpec::shell("sleep 100 & echo $!").cwd(dir.path()).drain(Duration::from_millis(100));
        let out = run(spec).await;
        assert_eq!(out.status, ProcessStatus::Exited(0));
        assert!(wait_dead(first_pid(&out.stdout)).await);
        assert!(out.duration < Duration::from_secs(30));
    }

    #[tokio::test]
    async fn spawn_gives_piped_stdio_and_terminate_stops_the_group() {
        let dir = tmp();
        let mut child = ProcessSpec::shell("sleep 100 & echo $!; cat").cwd(dir.path()).spawn().unwrap();
        let mut stdout = child.take_stdout().unwrap();
        let mut line = Vec::new();
        let mut byte = [0_u8; 1];
        while stdout.read(&mut byte).await.unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        let grandchild: u32 = String::from_utf8(line).unwrap().parse().unwrap();
        assert!(child.try_wait().unwrap().is_none());
        let status = child.terminate().await.unwrap();
        assert_eq!(status, ProcessStatus::Signaled(15));
        assert!(wait_dead(grandchild).await);
    }

    #[tokio::test]
    async fn dropping_a_handle_kills_its_group() {
        let dir = tmp();
        let mut child =
            ProcessSpec::shell("sleep 100 & echo $!; wait").cwd(dir.path()).discard_stderr().spawn().unwrap();
        assert!(child.take_stderr().is_none());
        let leader = child.id().unwrap();
        let mut stdout = child.take_stdout().unwrap();
        let mut text = String::new();
        let mut byte = [0_u8; 1];
        while stdout.read(&mut byte).await.unwrap() == 1 && byte[0] != b'\n' {
            text.push(char::from(byte[0]));
        }
        let grandchild: u32 = text.parse().unwrap();
        drop(child);
        assert!(wait_dead(grandchild).await);
        assert!(wait_dead(leader).await);
    }

    #[tokio::test]
    async fn a_token_cancelled_before_the_run_starts_nothing() {
        let dir = tmp();
        let marker = dir.path().join("ran");
        let cancel = CancellationToken::new();
        cancel.cancel();
        let spec = ProcessSpec::shell(format!("touch {}", marker.display())).cwd(dir.path());
        let out = spec.run(&cancel).await.unwrap();
        assert_eq!(out.status, ProcessStatus::Cancelled);
        assert!(!marker.exists());
    }

    #[test]
    fn a_live_process_is_not_dead() {
        assert!(!is_dead(std::process::id()));
    }

    #[test]
    fn partial_chars_at_the_cut_are_trimmed() {
        assert_eq!(trim_partial_char("é".as_bytes()), "é".as_bytes());
        assert_eq!(trim_partial_char(&"é".as_bytes()[..1]), b"");
        assert_eq!(trim_partial_char(&"a🎉".as_bytes()[..4]), b"a");
        assert_eq!(trim_partial_char("a🎉".as_bytes()), "a🎉".as_bytes());
        assert_eq!(trim_partial_char(b"abc"), b"abc");
        assert_eq!(trim_partial_char(b""), b"");
    }

    #[test]
    fn display_shows_the_command() {
        assert_eq!(ProcessSpec::shell("echo hi | wc").display(), "echo hi | wc");
        assert_eq!(ProcessSpec::exec("node", ["a.js", "--fix"]).display(), "node a.js --fix");
    }
}
