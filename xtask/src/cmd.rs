//! The one place where xtask starts processes.
//!
//! `clippy.toml` refuses `Command::new` so that toolgate's runtime spawns every process
//! through its one process helper. xtask is a dev tool outside the runtime: it spawns
//! `cargo` directly, from [`run`] and nowhere else.

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use anyhow::Context as _;

/// A command line to run: program, arguments and extra environment variables.
#[derive(Clone, Debug)]
pub(crate) struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
}

impl Cmd {
    /// `cargo`, the same one that runs xtask when `$CARGO` is set.
    pub(crate) fn cargo() -> Self {
        let program = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        Cmd { program, args: Vec::new(), envs: Vec::new() }
    }

    /// `cargo` from `PATH` (rustup's proxy), which understands `+toolchain`: for
    /// `cargo +nightly fuzz`, which the toolchain's own `cargo` in `$CARGO` would refuse.
    pub(crate) fn rustup_cargo() -> Self {
        Cmd { program: OsString::from("cargo"), args: Vec::new(), envs: Vec::new() }
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
            std::iter::once("cargo".to_owned()).chain(self.args.iter().map(|arg| arg.to_string_lossy().into_owned()));
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

/// Runs `cmd` to completion, stdin closed, its output handled as `output` says.
// xtask is a dev tool outside the runtime: the process-helper rule (clippy.toml
// disallowed-methods) is for toolgate's crates, and this is xtask's only spawn site.
#[allow(clippy::disallowed_methods)]
pub(crate) fn run(cmd: &Cmd, output: Output) -> anyhow::Result<Finished> {
    let mut command = Command::new(&cmd.program);
    command.args(&cmd.args).envs(cmd.envs.iter().map(|(k, v)| (k, v))).stdin(Stdio::null());
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
