//! One call of a shell tool (Bash, PowerShell), from settled input to result.
//!
//! [`run_foreground`], in order:
//!
//! 1. picks the working directory: the context's cwd, or the first root when that no
//!    longer exists (said in the result, and the session's cwd moves there);
//! 2. spawns the wrapped command (see [`super::script`]) with a fresh cwd file, and drives
//!    it under the timeout and the call's cancellation token, collecting its merged output;
//! 3. renders the output within the character limit, saving the whole of it through the
//!    result store when something is cut;
//! 4. reads the shell's final directory and settles it against the roots: inside, it
//!    becomes the session's cwd ([`ContextChange::Cwd`]); outside, it is dropped and the
//!    result says so;
//! 5. returns the output, or a [`ToolError`] for a non-zero exit (`io`), a timeout
//!    (`timeout`) or an interrupt (`cancelled`), each with the output so far.
//!
//! [`start_background`] spawns the command and registers it with the session's
//! [`Shells`] instead, and returns its id at once.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolgate_core::process::{ProcessError, ProcessStatus};
use toolgate_core::{ContextChange, ToolContext, ToolError, ToolErrorKind, ToolOutput, normalize_path};

use super::config::{ShellConfig, Timeout};
use super::drive::{End, OutputSink, drive};
use super::excerpt::{Capture, Shown, render};
use super::exit::benign_exit_one;
use super::registry::{NewTask, Shells};
use super::sandbox::Plan;
use super::script::Shell;
use super::{format_ms, tasks_dir};

/// One foreground call, settled.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    /// `Bash` or `PowerShell`: names the saved-output file.
    pub(crate) tool: &'static str,
    /// Which shell runs it.
    pub(crate) shell: Shell,
    /// The command.
    pub(crate) command: &'a str,
    /// The settled timeout.
    pub(crate) timeout: Timeout,
    /// Whether it runs in the sandbox, and what to say about it.
    pub(crate) sandbox: Plan,
}

/// Where a run starts, and what to say about it.
struct StartDir {
    dir: PathBuf,
    /// Set when the context's cwd is gone and the run starts in a root instead.
    moved: Option<String>,
}

/// The directory to run in: the context's cwd, or the first root that exists.
fn start_dir(ctx: &ToolContext) -> Result<StartDir, ToolError> {
    if ctx.cwd.is_dir() {
        return Ok(StartDir { dir: ctx.cwd.clone(), moved: None });
    }
    match ctx.roots.iter().find(|root| root.is_dir()) {
        Some(root) => Ok(StartDir {
            dir: root.clone(),
            moved: Some(format!(
                "The working directory {} no longer exists; the command ran in {} instead.",
                ctx.cwd.display(),
                root.display()
            )),
        }),
        None => Err(ToolError::not_found(format!(
            "the working directory {} does not exist, and neither does any working root",
            ctx.cwd.display()
        ))
        .with_hint("recreate the directory, or restart the session in an existing one")),
    }
}

/// Maps a process-helper failure to a tool error.
pub(crate) fn spawn_error(tool: &str, err: &ProcessError) -> ToolError {
    match err {
        ProcessError::BadWorkingDirectory { path } => {
            ToolError::not_found(format!("the working directory {} does not exist", path.display()))
        }
        ProcessError::Spawn { .. } => ToolError::io(format!("{tool} could not start the shell: {err}"))
            .with_hint("check that bash (or sh) is installed and on PATH"),
        _ => ToolError::io(format!("{tool}: {err}")),
    }
}

/// What becomes of the shell's final directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CwdOutcome {
    /// Unknown, or where the call started.
    Same,
    /// Inside a root: the new session cwd, spelled as its root is.
    Moved(PathBuf),
    /// Outside every root: not kept.
    Outside(PathBuf),
}

/// Settles `reported` (the shell's `pwd -P`) against the roots. Roots are compared by
/// their real paths, so a symlink cannot lead outside them, and the result keeps the
/// root's own spelling (`/tmp/x` stays `/tmp/x` where `/tmp` is a link).
pub(crate) fn settle_cwd(ctx: &ToolContext, started_in: &Path, reported: &str) -> CwdOutcome {
    let reported = reported.trim_end_matches(['\n', '\r']);
    if reported.is_empty() || !reported.starts_with('/') {
        return CwdOutcome::Same;
    }
    let physical = normalize_path(Path::new(reported));
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if physical == real(started_in) {
        return CwdOutcome::Same;
    }
    // The deepest root that holds it, so that nested roots keep their spelling.
    let best = ctx
        .roots
        .iter()
        .filter_map(|root| {
            let real_root = real(root);
            physical.strip_prefix(&real_root).ok().map(|rest| (real_root.components().count(), root.join(rest)))
        })
        .max_by_key(|(depth, _)| *depth);
    match best {
        Some((_, logical)) => {
            let logical = normalize_path(&logical);
            if logical == started_in { CwdOutcome::Same } else { CwdOutcome::Moved(logical) }
        }
        None => CwdOutcome::Outside(physical),
    }
}

/// How often a running command's last output line is reported as progress.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// Captures output and reports its last complete line as progress (for a UI's spinner),
/// at most every [`PROGRESS_EVERY`].
struct LastLine<'a> {
    capture: &'a mut Capture,
    ctx: &'a ToolContext,
    line: Vec<u8>,
    reported: Option<std::time::Instant>,
}

impl OutputSink for LastLine<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.capture.write(bytes);
        let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
            if self.line.len() < 4096 {
                self.line.extend_from_slice(bytes);
            }
            return;
        };
        let start = bytes[..end].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        if start == 0 {
            self.line.extend_from_slice(&bytes[..end]);
        } else {
            self.line.clear();
            self.line.extend_from_slice(&bytes[start..end]);
        }
        let due = self.reported.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY);
        let text = String::from_utf8_lossy(&self.line).trim().to_owned();
        if due && !text.is_empty() {
            self.ctx.report_progress(text, None);
            self.reported = Some(std::time::Instant::now());
        }
        self.line.clear();
        if self.line.capacity() > 4096 {
            self.line.shrink_to(4096);
        }
        let rest = &bytes[end + 1..];
        self.line.extend_from_slice(&rest[..rest.len().min(4096)]);
    }
}

/// Runs a foreground call (see the module documentation).
///
/// # Errors
///
/// A [`ToolError`] for a non-zero exit, a timeout, an interrupt, or a shell that cannot
/// start.
pub(crate) async fn run_foreground(
    call: &Call<'_>,
    ctx: &ToolContext,
    config: &ShellConfig,
) -> Result<ToolOutput, ToolError> {
    let start = start_dir(ctx)?;
    let cwd_file = tempfile::Builder::new()
        .prefix("toolgate-cwd-")
        .tempfile()
        .map_err(|e| ToolError::io(format!("could not create a temporary file: {e}")))?
        .into_temp_path();
    let env_file = if call.shell == Shell::Posix { config.env_file.as_deref() } else { None };
    let prepared = call
        .shell
        .prepare(call.command, &start.dir, env_file, Some(&cwd_file), call.sandbox.bwrap.as_ref())
        .map_err(|e| ToolError::io(format!("{} could not prepare the command: {e}", call.tool)))?;
    let mut child = prepared.spec.spawn().map_err(|e| spawn_error(call.tool, &e))?;
    let mut capture = Capture::new();
    let mut sink = LastLine { capture: &mut capture, ctx, line: Vec::new(), reported: None };
    let end = drive(&mut child, Some(call.timeout.duration()), &ctx.cancel, &mut sink)
        .await
        .map_err(|e| spawn_error(call.tool, &e))?;
    drop(child);
    drop(prepared);

    let captured = capture.finish();
    let save_id = format!("{}-{}", call.tool.to_ascii_lowercase(), ctx.tool_use_id);
    let shown = render(&captured, config.max_output_chars, Some(0), |text| {
        ctx.results.persist(&save_id, text).map_err(|e| e.to_string())
    });

    let mut notes: Vec<String> = Vec::new();
    notes.extend(call.timeout.note.clone());
    notes.extend(start.moved.clone());
    notes.extend(call.sandbox.note.clone());
    let reported = match end {
        End::Exited(_) => std::fs::read_to_string(&cwd_file).unwrap_or_default(),
        _ => String::new(),
    };
    let outcome = settle_cwd(ctx, &start.dir, &reported);
    let mut change = start.moved.as_ref().map(|_| ContextChange::Cwd(start.dir.clone()));

    match end {
        End::Exited(code) => {
            let benign = if code == 1 && call.shell == Shell::Posix { benign_exit_one(call.command) } else { None };
            if code == 0 || benign.is_some() {
                match &outcome {
                    CwdOutcome::Same => {}
                    CwdOutcome::Moved(dir) if config.keep_project_dir => {
                        let project = ctx.roots.first().cloned().unwrap_or_else(|| start.dir.clone());
                        notes.push(format!(
                            "Shell cwd was reset to {} (CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR is set); {} was not kept.",
                            project.display(),
                            dir.display()
                        ));
                        if project != ctx.cwd {
                            change = Some(ContextChange::Cwd(project));
                        }
                    }
                    CwdOutcome::Moved(dir) => {
                        notes.push(format!("The working directory is now {}.", dir.display()));
                        change = Some(ContextChange::Cwd(dir.clone()));
                    }
                    CwdOutcome::Outside(dir) => notes.push(format!(
                        "Shell cwd was reset to {}: {} is outside the working directories.",
                        start.dir.display(),
                        dir.display()
                    )),
                }
                if let Some(meaning) = benign {
                    notes.insert(0, format!("(exit code 1: {meaning}; not an error)"));
                }
                let text = join(&shown.text, &notes);
                let structured = structured(&shown, captured.total, code, benign, change.as_ref());
                let mut out = ToolOutput::text(text).with_structured(structured);
                if let Some(change) = change {
                    out = out.with_context_change(change);
                }
                return Ok(out);
            }
            if let Some(note) = call.sandbox.bwrap.as_ref().and_then(|b| b.denial_note(&shown.text)) {
                notes.push(note);
            }
            if let CwdOutcome::Moved(dir) | CwdOutcome::Outside(dir) = &outcome {
                notes.push(format!(
                    "The shell was in {} when it exited, but the working directory stays {} because the command failed.",
                    dir.display(),
                    start.dir.display()
                ));
            }
            let message = join(&headed(&format!("Exit code {code}"), &shown.text), &notes);
            let err = ToolError::new(ToolErrorKind::Io, message);
            Err(match code {
                127 => err.with_hint("a command was not found: check its spelling, or whether it is installed and on PATH"),
                126 => err.with_hint("a command could not be executed: check its permissions (chmod +x) and that it is a program or script"),
                _ => err,
            })
        }
        End::Signaled(signal) => {
            let head = format!("Command was {}", ProcessStatus::Signaled(signal));
            Err(ToolError::new(ToolErrorKind::Io, join(&headed(&head, &shown.text), &notes)))
        }
        End::TimedOut => {
            let head = format!(
                "Command timed out after {}; it was killed with every process it started",
                format_ms(call.timeout.ms)
            );
            Err(ToolError::timeout(join(&headed(&head, &shown.text), &notes)).with_hint(format!(
                "give a larger timeout (up to {} ms), or set run_in_background: true and follow it with TaskOutput",
                config.max_timeout_ms
            )))
        }
        End::Stopped => {
            let head = "Command was interrupted; it was killed with every process it started";
            Err(ToolError::cancelled(join(&headed(head, &shown.text), &notes)))
        }
    }
}

/// The structured output hooks see, in Claude Code's field names.
fn structured(shown: &Shown, total: u64, code: i32, benign: Option<&str>, change: Option<&ContextChange>) -> Value {
    let mut value = json!({
        "stdout": shown.text,
        "stderr": "",
        "interrupted": false,
        "isImage": false,
        "exitCode": code,
    });
    if let Some(meaning) = benign {
        value["returnCodeInterpretation"] = json!(meaning);
    }
    if let Some(path) = &shown.saved {
        value["persistedOutputPath"] = json!(path);
        value["persistedOutputSize"] = json!(total);
    }
    if let Some(ContextChange::Cwd(dir)) = change {
        value["cwd"] = json!(dir);
    }
    value
}

/// `head`, then the output on the next line (Claude Code's `Exit code 3\nout`).
fn headed(head: &str, output: &str) -> String {
    if output.is_empty() { head.to_owned() } else { format!("{head}\n{output}") }
}

/// `text`, then each note on its own line after a blank line (no blank line when `text`
/// is empty).
fn join(text: &str, notes: &[String]) -> String {
    let notes: Vec<&str> = notes.iter().map(String::as_str).filter(|n| !n.is_empty()).collect();
    match (text.is_empty(), notes.is_empty()) {
        (_, true) => text.to_owned(),
        (true, false) => notes.join("\n"),
        (false, false) => format!("{text}\n\n{}", notes.join("\n")),
    }
}

/// Starts `command` in the background and returns its id at once.
///
/// # Errors
///
/// A [`ToolError`] when the output file cannot be created or the shell cannot start.
pub(crate) fn start_background(
    tool: &'static str,
    shell: Shell,
    command: &str,
    description: Option<&str>,
    ctx: &ToolContext,
    config: &ShellConfig,
    sandbox: &Plan,
) -> Result<ToolOutput, ToolError> {
    let start = start_dir(ctx)?;
    let shells = Shells::of(ctx);
    let dir = tasks_dir(ctx);
    let (id, path, file) = shells.reserve(shell.task_prefix(), &dir).map_err(|e| {
        ToolError::io(format!("could not create the output file of a background task in {}: {e}", dir.display()))
    })?;
    let env_file = if shell == Shell::Posix { config.env_file.as_deref() } else { None };
    let prepared = shell
        .prepare(command, &start.dir, env_file, None, sandbox.bwrap.as_ref())
        .map_err(|e| ToolError::io(format!("{tool} could not prepare the command: {e}")))?;
    let child = prepared.spec.spawn().map_err(|e| spawn_error(tool, &e))?;
    // A long command's temporary file lives as long as the task: the shell reads it when
    // it gets to it, which may be after this call returns.
    let task = NewTask { command, description, keep: prepared._files };
    shells.start(id.clone(), path.clone(), file, child, task);
    let mut text = format!(
        "Command running in background with ID: {id}. Output is being written to: {}\n\
         Read new output with TaskOutput (task_id \"{id}\"); stop it with TaskStop.",
        path.display()
    );
    for note in start.moved.iter().chain(&sandbox.note) {
        text = format!("{text}\n{note}");
    }
    let structured = json!({
        "stdout": "",
        "stderr": "",
        "interrupted": false,
        "isImage": false,
        "backgroundTaskId": id,
        "outputFile": path,
    });
    let mut out = ToolOutput::text(text).with_structured(structured);
    if start.moved.is_some() {
        out = out.with_context_change(ContextChange::Cwd(start.dir));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_follow_the_output() {
        assert_eq!(join("out", &[]), "out");
        assert_eq!(join("", &["n".into()]), "n");
        assert_eq!(join("out", &["a".into(), "b".into()]), "out\n\na\nb");
    }

    #[test]
    fn cwd_inside_a_root_keeps_the_root_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        std::fs::create_dir(real.join("sub")).unwrap();
        let link_parent = tempfile::tempdir().unwrap();
        let link = link_parent.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let ctx = ToolContext::new(&link);
        let reported = format!("{}\n", real.join("sub").display());
        assert_eq!(settle_cwd(&ctx, &link, &reported), CwdOutcome::Moved(link.join("sub")));
        assert_eq!(settle_cwd(&ctx, &link, &format!("{}\n", real.display())), CwdOutcome::Same);
        assert_eq!(settle_cwd(&ctx, &link, "/\n"), CwdOutcome::Outside(PathBuf::from("/")));
        assert_eq!(settle_cwd(&ctx, &link, ""), CwdOutcome::Same);
    }
}
