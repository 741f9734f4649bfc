//! The one place where xtask starts processes.
//!
//! `clippy.toml` refuses `Command::new` so that toolgate's runtime spawns every process
//! through its one process helper. xtask is a dev tool outside the runtime: it spawns
//! `cargo` and the programs `cargo xtask bench` times directly, from [`command`] and
//! nowhere else.

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// A command line to run: program, arguments and extra environment variables.
#[derive(Clone, Debug)]
pub(crate) struct Cmd {
    program: OsString,
    /// What [`Cmd::display`] calls the program.
    shown: String,
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
    /// A file the child reads as stdin (closed otherwise).
    stdin: Option<PathBuf>,
}

impl Cmd {
    /// `cargo`, the same one that runs xtask when `$CARGO` is set.
    pub(crate) fn cargo() -> Self {
        let program = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        Cmd { program, shown: "cargo".to_owned(), args: Vec::new(), envs: Vec::new(), cwd: None, stdin: None }
    }

    /// Any program, found on `PATH` unless `program` is a path.
    pub(crate) fn new(program: impl AsRef<OsStr>) -> Self {
        let program = program.as_ref().to_owned();
        let shown = program.to_string_lossy().into_owned();
        Cmd { program, shown, args: Vec::new(), envs: Vec::new(), cwd: None, stdin: None }
    }

    /// Runs the child in `dir`.
    pub(crate) fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    /// Gives the child `file` as stdin.
    pub(crate) fn stdin_file(mut self, file: impl AsRef<Path>) -> Self {
        self.stdin = Some(file.as_ref().to_owned());
        self
    }

    /// `cargo` from `PATH` (rustup's proxy), which understands `+toolchain`: for
    /// `cargo +nightly fuzz`, which the toolchain's own `cargo` in `$CARGO` would refuse.
    pub(crate) fn rustup_cargo() -> Self {
        Cmd::new("cargo")
    }

    /// Appends arguments.
    pub(crate) fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    /// Appends one argument.
    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// This command run by `wrapper SUBCOMMAND PROGRAM ARGS…` (same directory and
    /// environment), e.g. `xtask __maxrss`.
    pub(crate) fn wrapped(&self, wrapper: &Path, subcommand: &str) -> Self {
        let mut wrapped = Cmd::new(wrapper).arg(subcommand).arg(&self.program).args(&self.args);
        wrapped.envs.clone_from(&self.envs);
        wrapped.cwd.clone_from(&self.cwd);
        wrapped.stdin.clone_from(&self.stdin);
        wrapped
    }

    /// Sets an environment variable for the child.
    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.envs.push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// The command line as a person would type it (`KEY=value cargo args…`).
    pub(crate) fn display(&self) -> String {
        let envs =
            self.envs.iter().map(|(key, value)| format!("{}={:?} ", key.to_string_lossy(), value.to_string_lossy()));
        let words =
            std::iter::once(self.shown.clone()).chain(self.args.iter().map(|arg| arg.to_string_lossy().into_owned()));
        envs.chain(std::iter::once(words.collect::<Vec<_>>().join(" "))).collect()
    }
}

/// What happens to a child's stdout and stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// Shared with xtask's own stdout and stderr.
    Inherit,
    /// Copied line by line to xtask's stdout and stderr, and captured for parsing.
    Tee,
    /// Thrown away.
    Discard,
}

/// How a child ended.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The child exited with status 0.
    pub(crate) success: bool,
    /// With [`Output::Tee`], stdout then stderr as text (lossy UTF-8); otherwise empty.
    pub(crate) captured: String,
}

/// The std command for `cmd`: program, arguments, environment and directory; stdin its file,
/// else closed (a file that cannot be opened is closed stdin too, and the child says so).
// xtask is a dev tool outside the runtime: the process-helper rule (clippy.toml
// disallowed-methods) is for toolgate's crates, and this is xtask's only spawn site.
#[allow(clippy::disallowed_methods)]
fn command(cmd: &Cmd) -> Command {
    let mut command = Command::new(&cmd.program);
    let stdin =
        cmd.stdin.as_ref().and_then(|file| std::fs::File::open(file).ok()).map_or_else(Stdio::null, Stdio::from);
    command.args(&cmd.args).envs(cmd.envs.iter().map(|(k, v)| (k, v))).stdin(stdin);
    if let Some(dir) = &cmd.cwd {
        command.current_dir(dir);
    }
    command
}

/// Runs `cmd` to completion, stdin closed, its output handled as `output` says.
pub(crate) fn run(cmd: &Cmd, output: Output) -> anyhow::Result<Finished> {
    let mut command = command(cmd);
    let what = || format!("could not run `{}`", cmd.display());
    match output {
        Output::Inherit | Output::Discard => {
            if output == Output::Discard {
                command.stdout(Stdio::null()).stderr(Stdio::null());
            }
            let status = command.status().with_context(what)?;
            Ok(Finished { success: status.success(), captured: String::new() })
        }
        Output::Tee => {
            let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().with_context(what)?;
            let stdout = child.stdout.take().context("child stdout was not piped")?;
            let stderr = child.stderr.take().context("child stderr was not piped")?;
            let (out, err) = std::thread::scope(|scope| {
                let err = scope.spawn(|| tee(stderr, io::stderr()));
                let out = tee(stdout, io::stdout());
                (out, err.join())
            });
            let status = child.wait().with_context(what)?;
            let mut captured = out.context("reading child stdout")?;
            let err = err
                .map_err(|_| anyhow::anyhow!("the stderr reader thread panicked"))?
                .context("reading child stderr")?;
            captured.push_str(&err);
            Ok(Finished { success: status.success(), captured })
        }
    }
}

/// A child run to completion with both outputs captured, and how long it took.
#[derive(Debug)]
pub(crate) struct Timed {
    /// The child exited with status 0.
    pub(crate) success: bool,
    /// Everything it wrote to stdout.
    pub(crate) stdout: Vec<u8>,
    /// Everything it wrote to stderr.
    pub(crate) stderr: Vec<u8>,
    /// Wall-clock time from just before the spawn to just after the wait.
    pub(crate) elapsed: Duration,
}

/// Runs `cmd` with stdout and stderr piped and read to the end (never `/dev/null`:
/// ripgrep, for one, stops at the first match when its output goes there), timing the
/// whole life of the process.
pub(crate) fn timed(cmd: &Cmd) -> anyhow::Result<Timed> {
    let mut command = command(cmd);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().with_context(|| format!("could not run `{}`", cmd.display()))?;
    let mut stdout_pipe = child.stdout.take().context("child stdout was not piped")?;
    let mut stderr_pipe = child.stderr.take().context("child stderr was not piped")?;
    let (stdout, stderr) = std::thread::scope(|scope| {
        let err = scope.spawn(move || {
            let mut buf = Vec::new();
            stderr_pipe.read_to_end(&mut buf).map(|_| buf)
        });
        let mut out = Vec::new();
        let out = stdout_pipe.read_to_end(&mut out).map(|_| out);
        (out, err.join())
    });
    let status = child.wait().with_context(|| format!("waiting for `{}`", cmd.display()))?;
    let elapsed = started.elapsed();
    let stdout = stdout.context("reading child stdout")?;
    let stderr = stderr.map_err(|_| anyhow::anyhow!("the stderr reader thread panicked"))?.context("reading stderr")?;
    Ok(Timed { success: status.success(), stdout, stderr, elapsed })
}

/// `xtask __maxrss PROGRAM ARGS…`: runs the program with xtask's own stdio, then prints
/// the child's peak resident set size to stderr as `xtask-maxrss-kb: N` (from
/// `getrusage(RUSAGE_CHILDREN)`, which covers only this one child since xtask waits for
/// nothing else in this process). Exits with the child's status.
pub(crate) fn maxrss_wrapper(program: &str, args: &[&str]) -> anyhow::Result<bool> {
    let status = command(&Cmd::new(program).args(args))
        .stdin(Stdio::inherit())
        .status()
        .with_context(|| format!("could not run `{program}`"))?;
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .context("getrusage(RUSAGE_CHILDREN)")?;
    // Linux reports ru_maxrss in kilobytes.
    eprintln!("{MAXRSS_PREFIX}{}", usage.max_rss());
    Ok(status.success())
}

/// The line [`maxrss_wrapper`] prints before the number.
pub(crate) const MAXRSS_PREFIX: &str = "xtask-maxrss-kb: ";

/// Copies `from` to `to` a line at a time (so progress shows as it happens), returning
/// everything copied as lossy UTF-8.
fn tee(from: impl Read, mut to: impl Write) -> io::Result<String> {
    let mut reader = BufReader::new(from);
    let mut all = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        to.write_all(&line)?;
        to.flush()?;
        all.extend_from_slice(&line);
    }
    Ok(String::from_utf8_lossy(&all).into_owned())
}
