//! Monitor: runs a command and reports each output line as a progress event.
//!
//! Claude Code's `Monitor` with a `command` (`description`, `timeout_ms` default 300,000,
//! `persistent` default false). The command runs as Bash runs it (wrapper script, own
//! process group, merged output), without carrying its `cd` over. Every complete line is
//! sent to the context's progress sink as it arrives (a line longer than
//! [`MAX_LINE_BYTES`] is sent in pieces); the call returns when the command exits, the
//! timeout passes (`persistent` removes it) or the call is interrupted, with a summary
//! and the output (head and tail when long).
//!
//! Monitor follows Bash's permission rules: its permission target is the command, and it
//! is never read-only. It follows the sandbox policy as Bash does (without
//! `dangerouslyDisableSandbox`).

mod prompt;

use std::time::Instant;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolgate_core::{DynTool, InterruptBehavior, ToolContext, ToolError, ToolErrorKind, ToolOutput, TypedTool, typed};

use crate::bash::check_command;
use crate::shells::config::{ShellConfig, settle_ms};
use crate::shells::drive::{End, OutputSink, drive};
use crate::shells::excerpt::{Capture, render};
use crate::shells::foreground::spawn_error;
use crate::shells::script::Shell;
use crate::shells::{format_ms, group_digits, one_line};

/// Default watch length, in milliseconds.
const DEFAULT_TIMEOUT_MS: u64 = 300_000;
/// Longest watch a call may ask for without `persistent`: one day.
const MAX_TIMEOUT_MS: u64 = 86_400_000;
/// A line is reported in pieces of at most this many bytes.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024;
/// Characters of a line put in a progress message (the event's data has the whole piece).
const MESSAGE_CHARS: usize = 500;

/// Monitor's input.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MonitorInput {
    /// The command whose output lines to stream.
    pub(crate) command: String,
    /// What is being watched, in a few words.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// Milliseconds after which the watch ends and the command is killed (default 300000).
    #[serde(default)]
    pub(crate) timeout_ms: Option<f64>,
    /// Watch without a timeout, until the command exits or the call is interrupted
    /// (default false).
    #[serde(default)]
    pub(crate) persistent: Option<bool>,
}

/// The Monitor tool.
#[derive(Debug, Clone)]
pub(crate) struct Monitor {
    config: ShellConfig,
}

impl Monitor {
    /// Monitor configured from the environment.
    pub(crate) fn tool() -> DynTool {
        typed(Self::with_config(ShellConfig::from_env()))
    }

    /// Monitor with the given configuration.
    pub(crate) fn with_config(config: ShellConfig) -> Self {
        Self { config }
    }
}

/// Sends every line to the progress sink and keeps the output.
struct LineSink<'a> {
    ctx: &'a ToolContext,
    capture: Capture,
    partial: Vec<u8>,
    lines: u64,
}

impl LineSink<'_> {
    fn emit(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        self.lines += 1;
        let text = String::from_utf8_lossy(line);
        let message = one_line(&text, MESSAGE_CHARS);
        self.ctx.report_progress(message, Some(json!({"line": self.lines, "text": text})));
    }

    /// Reports a last line without a newline.
    fn flush(&mut self) {
        if !self.partial.is_empty() {
            let rest = std::mem::take(&mut self.partial);
            self.emit(&rest);
        }
    }
}

impl OutputSink for LineSink<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.capture.write(bytes);
        let mut rest = bytes;
        while let Some(nl) = rest.iter().position(|b| *b == b'\n') {
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(&rest[..nl]);
            self.emit(&line);
            rest = &rest[nl + 1..];
        }
        self.partial.extend_from_slice(rest);
        while self.partial.len() >= MAX_LINE_BYTES {
            let cut = crate::shells::excerpt::trim_partial_char(&self.partial[..MAX_LINE_BYTES]).len().max(1);
            let piece: Vec<u8> = self.partial.drain(..cut).collect();
            self.emit(&piece);
        }
    }
}

impl TypedTool for Monitor {
    type Input = MonitorInput;
    type Output = ToolOutput;

    fn name(&self) -> &'static str {
        "Monitor"
    }

    fn description(&self) -> String {
        prompt::description(self.config.max_output_chars)
    }

    fn search_hint(&self) -> Option<&'static str> {
        Some("watch a command or log and stream its output lines")
    }

    /// Deferred: reached through ToolSearch, to keep the core tool set small.
    fn should_defer(&self) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    async fn validate(&self, input: &MonitorInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        check_command(&input.command)?;
        settle_ms("timeout_ms", input.timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)?;
        Ok(())
    }

    fn permission_target(&self, input: &MonitorInput) -> Option<String> {
        Some(input.command.clone())
    }

    async fn call(&self, input: MonitorInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        check_command(&input.command)?;
        let timeout = settle_ms("timeout_ms", input.timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)?;
        let persistent = input.persistent.unwrap_or(false);
        let limit = (!persistent).then(|| timeout.duration());
        let dir = if ctx.cwd.is_dir() { ctx.cwd.clone() } else { ctx.roots.first().cloned().unwrap_or_default() };
        let env_file = self.config.env_file.as_deref();
        // Monitor runs commands as Bash does, so it follows the sandbox policy too.
        let sandbox = crate::shells::sandbox::plan(ctx, &input.command, false).await?;
        let prepared = Shell::Posix
            .prepare(&input.command, &dir, env_file, None, sandbox.bwrap.as_ref())
            .map_err(|e| ToolError::io(format!("Monitor could not prepare the command: {e}")))?;
        let mut child = prepared.spec.spawn().map_err(|e| spawn_error("Monitor", &e))?;
        let started = Instant::now();
        let mut sink = LineSink { ctx, capture: Capture::new(), partial: Vec::new(), lines: 0 };
        let end = drive(&mut child, limit, &ctx.cancel, &mut sink).await.map_err(|e| spawn_error("Monitor", &e))?;
        drop(child);
        drop(prepared);
        sink.flush();
        let lines = sink.lines;
        let captured = sink.capture.finish();
        let save_id = format!("monitor-{}", ctx.tool_use_id);
        let shown = render(&captured, self.config.max_output_chars, Some(0), |text| {
            ctx.results.persist(&save_id, text).map_err(|e| e.to_string())
        });

        let elapsed = format_ms(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
        let how = match end {
            End::Exited(code) => format!("exited with code {code}"),
            End::Signaled(signal) => format!("was {}", toolgate_core::process::ProcessStatus::Signaled(signal)),
            End::TimedOut => format!("was stopped when the {} timeout ended the watch", format_ms(timeout.ms)),
            End::Stopped => "was interrupted and stopped".to_owned(),
        };
        let line_word = if lines == 1 { "line" } else { "lines" };
        let mut text =
            format!("Monitor: the command {how} after {elapsed}, having printed {} {line_word}.", group_digits(lines));
        if let Some(note) = &timeout.note
            && !persistent
        {
            text.push_str(&format!("\n{note}"));
        }
        if let Some(note) = &sandbox.note {
            text.push_str(&format!("\n{note}"));
        }
        if !shown.text.is_empty() {
            text.push_str(&format!("\n\n{}", shown.text));
        }
        let structured = json!({
            "lines": lines,
            "exitCode": match end { End::Exited(code) => Some(code), _ => None },
            "timedOut": end == End::TimedOut,
            "output": shown.text,
            "persistedOutputPath": shown.saved,
        });
        match end {
            End::Exited(0) | End::TimedOut => Ok(ToolOutput::text(text).with_structured(structured)),
            End::Stopped => Err(ToolError::cancelled(text)),
            End::Exited(_) | End::Signaled(_) => Err(ToolError::new(ToolErrorKind::Io, text)),
        }
    }

    fn render_use(&self, input: &MonitorInput) -> String {
        match &input.description {
            Some(d) if !d.trim().is_empty() => format!("Monitor({})", one_line(d, 80)),
            _ => format!("Monitor({})", one_line(&input.command, 120)),
        }
    }

    fn to_classifier_input(&self, input: &MonitorInput) -> Option<String> {
        Some(input.command.clone())
    }
}
