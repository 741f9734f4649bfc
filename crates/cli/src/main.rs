//! `toolgate`: the command-line face of toolgate.
//!
//! - `toolgate run [FILE|-]`: an assistant message's tool calls in, the user message of
//!   results out (JSON); `--jsonl` keeps one session over a stream of messages.
//! - `toolgate call TOOL JSON`: one call through the full pipeline.
//! - `toolgate check TOOL JSON`: the permission decision and its reason, nothing run.
//! - `toolgate tools`: the tool definitions a model gets; `tools search`, `tools show`.
//! - `toolgate settings`: the merged settings, where each rule came from, and diagnostics.
//! - `toolgate trust [DIR]`: trust a project folder, as Claude Code's trust dialog does.
//! - `toolgate hooks list` / `hooks run EVENT --input JSON`.
//! - `toolgate hook`: the permission engine as a Claude Code hook (stdin in, hook output
//!   out); `hook install` / `hook uninstall` add or remove it in a settings file.
//! - `toolgate completions SHELL`.
//!
//! Exit codes: 0 success, 1 an error result (or a failed check), 2 usage errors.

mod agents;
mod dialog;
mod hook;
#[cfg(feature = "mcp")]
mod mcp_logs;
mod options;
mod programs;
mod progress;
mod prompter;

use std::io::{BufRead as _, Read as _, Write as _};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{CommandFactory as _, Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};
use toolgate_core::{CancellationToken, DecisionReason, DefinitionFormat, search_tools};
use toolgate_pipeline::{
    Session, ToolCall, ToolResultBlock, anthropic_user_message, calls_from_anthropic, calls_from_openai,
    openai_tool_messages,
};

use crate::options::SessionOpts;

/// Decide, run and explain AI agent tool calls.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about, propagate_version = true)]
struct Cli {
    /// More log output on stderr (repeatable; RUST_LOG overrides).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(flatten)]
    session: SessionOpts,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the tool calls of an assistant message and print the results message.
    Run {
        /// The message file, or - for stdin (default).
        #[arg(default_value = "-")]
        file: String,
        /// The message shape.
        #[arg(long, value_enum, default_value_t = MessageFormat::Anthropic)]
        format: MessageFormat,
        /// One message per input line, one results message per output line, one session.
        #[arg(long)]
        jsonl: bool,
    },
    /// Run one call through the full pipeline.
    Call {
        /// The tool's name.
        tool: String,
        /// The input, as JSON.
        #[arg(default_value = "{}")]
        input: String,
        /// Print the tool_result block as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The permission decision for a call, without running it and without a prompt.
    Check {
        /// The tool's name.
        tool: String,
        /// The input, as JSON.
        #[arg(default_value = "{}")]
        input: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Run PreToolUse hooks first.
        #[arg(long)]
        hooks: bool,
    },
    /// Print the tool definitions offered to a model.
    Tools {
        /// The wire format.
        #[arg(long, value_enum, default_value_t = Format::Anthropic)]
        format: Format,
        /// Print deferred tools' full definitions without marking them deferred.
        #[arg(long)]
        all: bool,
        #[command(subcommand)]
        action: Option<ToolsAction>,
    },
    /// Print the merged settings, where each rule came from, and every diagnostic.
    Settings,
    /// The programs the Bash analysis knows (with the user's and managed programs files):
    /// list them, show one entry, or check a programs file.
    Programs {
        #[command(subcommand)]
        action: programs::ProgramsAction,
    },
    /// Trust a project folder (default: the repository holding the working directory, else the
    /// working directory): its settings then apply in full and its approved `.mcp.json` servers
    /// may start. Recorded in ~/.claude.json, where Claude Code's trust dialog records it.
    Trust {
        /// The folder to trust.
        dir: Option<std::path::PathBuf>,
    },
    /// Be a Claude Code hook: read a PreToolUse or PermissionRequest input on stdin and answer
    /// with toolgate's decision (deny or ask; allow only with --decide). Errors exit 2, which
    /// blocks the call.
    Hook {
        /// Let toolgate's allow stand too (by default the hook only denies or asks).
        #[arg(long)]
        decide: bool,
        #[command(subcommand)]
        action: Option<HookAction>,
    },
    /// Inspect and exercise hooks.
    Hooks {
        #[command(subcommand)]
        action: HooksAction,
    },
    /// MCP servers: list them, or serve this session's tools over MCP.
    #[cfg(feature = "mcp")]
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Subcommand)]
enum ToolsAction {
    /// Search the deferred tools as ToolSearch would.
    Search {
        /// select:A,B, an mcp__server prefix, or keywords (+word = required).
        query: String,
        /// How many results.
        #[arg(long, default_value_t = 5)]
        max_results: usize,
    },
    /// One tool's definition.
    Show {
        /// The tool's name (aliases and legacy names work).
        name: String,
    },
}

#[derive(Debug, Subcommand)]
enum HooksAction {
    /// The configured hooks, by event.
    List,
    /// Run the hooks of one event with the given input.
    Run {
        /// The event, e.g. PreToolUse.
        event: String,
        /// The event's input JSON (common fields are filled in when missing).
        #[arg(long, default_value = "{}")]
        input: String,
    },
}

#[derive(Debug, Subcommand)]
enum HookAction {
    /// Add `toolgate hook` for PreToolUse and PermissionRequest to a settings file, keeping
    /// everything else (an earlier entry of ours is replaced).
    Install {
        #[command(flatten)]
        scope: ScopeFlags,
        /// Install with --decide.
        #[arg(long)]
        decide: bool,
    },
    /// Remove `toolgate hook` entries from a settings file.
    Uninstall {
        #[command(flatten)]
        scope: ScopeFlags,
    },
}

/// Which settings file `hook install` and `hook uninstall` change (default: the user's).
#[derive(Debug, clap::Args)]
#[group(multiple = false)]
struct ScopeFlags {
    /// `~/.claude/settings.json`: every project (the default).
    #[arg(long)]
    user: bool,
    /// The project's `.claude/settings.json`, shared through version control.
    #[arg(long)]
    project: bool,
    /// The project's `.claude/settings.local.json`, this machine only.
    #[arg(long)]
    local: bool,
}

impl ScopeFlags {
    fn scope(&self) -> hook::Scope {
        match (self.project, self.local) {
            (true, _) => hook::Scope::Project,
            (_, true) => hook::Scope::Local,
            _ => hook::Scope::User,
        }
    }
}

#[cfg(feature = "mcp")]
#[derive(Debug, Subcommand)]
enum McpAction {
    /// The configured servers, their status and tool counts (JSON).
    List,
    /// Serve this session's tools over MCP: stdio, or streamable HTTP with --http.
    Serve {
        /// Serve over streamable HTTP on this address (loopback unless a token is given).
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// The bearer token HTTP clients must send (required off loopback).
        #[arg(long, value_name = "TOKEN", env = "TOOLGATE_MCP_TOKEN")]
        token: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Anthropic,
    Openai,
    Mcp,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum MessageFormat {
    Anthropic,
    Openai,
}

impl From<Format> for DefinitionFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Anthropic => Self::Anthropic,
            Format::Openai => Self::OpenAi,
            Format::Mcp => Self::Mcp,
        }
    }
}

/// What a command produced: text for stdout and the exit code.
struct Outcome {
    stdout: String,
    code: u8,
}

impl Outcome {
    fn ok(stdout: String) -> Self {
        Self { stdout, code: 0 }
    }
}

fn parse_input(text: &str) -> anyhow::Result<Value> {
    serde_json::from_str(text).with_context(|| format!("the input is not valid JSON: {text}"))
}

async fn run(cli: Cli) -> anyhow::Result<Outcome> {
    let opts = cli.session;
    match cli.command {
        Command::Run { file, format, jsonl } => run_messages(&opts, &file, format, jsonl).await,
        Command::Call { tool, input, json } => {
            let input = parse_input(&input)?;
            let built = opts.session_for_call(true, &tool).await?;
            let calls = vec![ToolCall::new("toolu_cli", tool, input)];
            // Keep the structured output (an edit's patch) to show a diff.
            let patch: std::sync::Arc<std::sync::Mutex<Option<Value>>> = std::sync::Arc::default();
            let spinner = progress::spinner_sink();
            let sink: toolgate_pipeline::EventSink = {
                let patch = patch.clone();
                std::sync::Arc::new(move |event: toolgate_pipeline::Event| {
                    if let toolgate_pipeline::Event::Output { structured, .. } = &event
                        && let Some(hunks) = structured.get("structuredPatch")
                        && let Ok(mut slot) = patch.lock()
                    {
                        *slot = Some(hunks.clone());
                    }
                    if let Some(spinner) = &spinner {
                        spinner(event);
                    }
                })
            };
            let results = built.session.run_message_with(calls, CancellationToken::new(), Some(sink)).await;
            built.shutdown().await;
            let result = results.into_iter().next().context("the pipeline returned no result")?;
            let code = u8::from(result.is_error);
            let diff = patch.lock().ok().and_then(|p| p.clone()).map(|p| render_patch(&p)).unwrap_or_default();
            let stdout = if json {
                serde_json::to_string_pretty(&result)?
            } else if diff.is_empty() || result.is_error {
                human(&result)
            } else {
                format!("{}\n{diff}", human(&result))
            };
            Ok(Outcome { stdout, code })
        }
        Command::Check { tool, input, json, hooks } => {
            let input = parse_input(&input)?;
            let built = opts.session_for_check(&tool).await?;
            let checked = built.session.check(&ToolCall::new("toolu_check", tool, input), hooks).await;
            built.shutdown().await;
            match checked {
                Ok((name, evaluation)) => {
                    let d = &evaluation.decision;
                    let (rule, source, detail) = match &d.reason {
                        DecisionReason::Rule { rule, source } => {
                            (Some(rule.clone()), Some(source.clone()), rule.clone())
                        }
                        DecisionReason::Mode { mode } => (None, None, format!("{mode} mode")),
                        DecisionReason::Hook { hook, reason } => {
                            (None, Some(hook.clone()), reason.clone().unwrap_or_default())
                        }
                        DecisionReason::Classifier { classifier, reason } => {
                            (None, None, format!("{classifier}: {reason}"))
                        }
                        DecisionReason::User { .. } => (None, None, "the user".to_owned()),
                        DecisionReason::Tool { detail } | DecisionReason::Safety { detail } => {
                            (None, None, detail.clone())
                        }
                        _ => (None, None, "no rule, mode or hook decided".to_owned()),
                    };
                    let stdout = if json {
                        serde_json::to_string(&json!({
                            "tool": name,
                            "behavior": d.behavior.as_str(),
                            "reason": {"kind": d.reason.kind(), "rule": rule, "source": source, "detail": detail},
                            "message": d.message,
                        }))?
                    } else {
                        format!("{}: {}\n{}", d.behavior, d.message, evaluation.explain())
                    };
                    Ok(Outcome::ok(stdout))
                }
                Err(err) => {
                    let stdout = if json {
                        serde_json::to_string(&json!({"behavior": "error", "message": err.to_model_text()}))?
                    } else {
                        format!("error: {}", err.to_model_text())
                    };
                    Ok(Outcome { stdout, code: 1 })
                }
            }
        }
        Command::Tools { format, all, action } => {
            let built = opts.session(false).await?;
            let pool = built.session.pool().clone();
            built.shutdown().await;
            let pool = &*pool;
            let format = DefinitionFormat::from(format);
            match action {
                None if all => {
                    let defs: Vec<Value> = pool
                        .tools()
                        .map(|t| {
                            let mut d = pool.definition(&**t, format);
                            if let Some(o) = d.as_object_mut() {
                                o.remove("defer_loading");
                            }
                            d
                        })
                        .collect();
                    Ok(Outcome::ok(serde_json::to_string_pretty(&defs)?))
                }
                None => {
                    let defs: Value = serde_json::from_str(pool.definitions_json(format))?;
                    Ok(Outcome::ok(serde_json::to_string_pretty(&defs)?))
                }
                Some(ToolsAction::Search { query, max_results }) => {
                    let result = search_tools(pool, &query, max_results);
                    let defs: Vec<Value> = result
                        .matches
                        .iter()
                        .filter_map(|n| pool.get(n))
                        .map(|t| pool.definition(&**t, format))
                        .collect();
                    Ok(Outcome::ok(serde_json::to_string_pretty(&json!({"matches": defs, "missing": result.missing}))?))
                }
                Some(ToolsAction::Show { name }) => match pool.get(&name) {
                    Some(tool) => Ok(Outcome::ok(serde_json::to_string_pretty(&pool.definition(&**tool, format))?)),
                    None => {
                        let closest = pool.closest_names(&name);
                        let hint = if closest.is_empty() {
                            String::new()
                        } else {
                            format!(" (did you mean {}?)", closest.join(", "))
                        };
                        Ok(Outcome { stdout: format!("no tool named {name}{hint}"), code: 1 })
                    }
                },
            }
        }
        Command::Settings => settings(&opts),
        Command::Programs { action } => programs::programs(&opts, action),
        Command::Trust { dir } => trust(&opts, dir),
        #[cfg(feature = "mcp")]
        Command::Mcp { action } => mcp(&opts, action).await,
        Command::Hooks { action } => hooks(&opts, action).await,
        Command::Hook { decide, action } => hook_command(&opts, decide, action).await,
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "toolgate", &mut out);
            Ok(Outcome::ok(String::from_utf8_lossy(&out).trim_end().to_owned()))
        }
    }
}

/// A result for people: its text, and images named.
fn human(result: &ToolResultBlock) -> String {
    result
        .content
        .iter()
        .map(|b| match b {
            toolgate_core::ContentBlock::Text { text } => text.clone(),
            toolgate_core::ContentBlock::Image { source } => format!("[image: {}]", source.media_type),
            toolgate_core::ContentBlock::ToolReference { tool_name } => format!("[tool loaded: {tool_name}]"),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `structuredPatch` as a diff, coloured when stdout is a terminal.
fn render_patch(hunks: &Value) -> String {
    let colour = console::Term::stdout().is_term();
    let mut out = Vec::new();
    for hunk in hunks.as_array().into_iter().flatten() {
        out.push(format!(
            "@@ -{},{} +{},{} @@",
            hunk["oldStart"], hunk["oldLines"], hunk["newStart"], hunk["newLines"]
        ));
        for line in hunk["lines"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            let styled = match line.chars().next() {
                Some('+') if colour => console::style(line).green().to_string(),
                Some('-') if colour => console::style(line).red().to_string(),
                _ => line.to_owned(),
            };
            out.push(styled);
        }
    }
    out.join("\n")
}

/// The calls of one message, answering malformed OpenAI calls directly.
fn message_calls(message: &Value, format: MessageFormat) -> anyhow::Result<(Vec<ToolCall>, Vec<ToolResultBlock>)> {
    match format {
        MessageFormat::Anthropic => Ok((calls_from_anthropic(message).map_err(anyhow::Error::msg)?, Vec::new())),
        MessageFormat::Openai => {
            let (calls, bad) = calls_from_openai(message).map_err(anyhow::Error::msg)?;
            let errors = bad
                .into_iter()
                .map(|b| ToolResultBlock::error(b.id, &toolgate_core::ToolError::invalid_input(b.message)))
                .collect();
            Ok((calls, errors))
        }
    }
}

async fn answer(session: &Session, message: &Value, format: MessageFormat) -> anyhow::Result<(Value, bool)> {
    let (calls, mut malformed) = message_calls(message, format)?;
    let mut results = session.run_message_with(calls, CancellationToken::new(), progress::spinner_sink()).await;
    results.append(&mut malformed);
    let any_error = results.iter().any(|r| r.is_error);
    let reply = match format {
        MessageFormat::Anthropic => anthropic_user_message(&results),
        MessageFormat::Openai => Value::Array(openai_tool_messages(&results)),
    };
    Ok((reply, any_error))
}

async fn run_messages(opts: &SessionOpts, file: &str, format: MessageFormat, jsonl: bool) -> anyhow::Result<Outcome> {
    let built = opts.session(true).await?;
    let session = &built.session;
    let mut reader: Box<dyn std::io::BufRead> = if file == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(std::fs::File::open(file).with_context(|| format!("cannot open {file}"))?))
    };
    let mut out = String::new();
    if jsonl {
        let mut stdout = std::io::stdout().lock();
        let mut line = String::new();
        while reader.read_line(&mut line)? > 0 {
            if !line.trim().is_empty() {
                let message: Value = serde_json::from_str(&line).context("a line is not a JSON message")?;
                let (reply, _) = answer(session, &message, format).await?;
                writeln!(stdout, "{}", serde_json::to_string(&reply)?)?;
                stdout.flush()?;
            }
            line.clear();
        }
    } else {
        let mut text = String::new();
        reader.read_to_string(&mut text)?;
        let message: Value = serde_json::from_str(&text).context("the input is not a JSON message")?;
        let (reply, _) = answer(session, &message, format).await?;
        out = serde_json::to_string_pretty(&reply)?;
    }
    built.shutdown().await;
    Ok(Outcome::ok(out))
}

#[cfg(feature = "mcp")]
async fn mcp(opts: &SessionOpts, action: McpAction) -> anyhow::Result<Outcome> {
    match action {
        McpAction::List => {
            let (cwd, loaded) = opts.load_settings()?;
            let Some(manager) = opts.mcp(&cwd, &loaded, true).await else {
                return Ok(Outcome::ok("[]".to_owned()));
            };
            let servers: Vec<Value> = manager
                .statuses()
                .iter()
                .map(|s| {
                    json!({
                        "name": s.name,
                        "scope": s.scope.to_string(),
                        "transport": s.transport,
                        "target": s.target,
                        "status": s.status.to_string(),
                        "tools": s.tools,
                        "resources": s.has_resources,
                    })
                })
                .collect();
            manager.shutdown().await;
            Ok(Outcome::ok(serde_json::to_string_pretty(&servers)?))
        }
        McpAction::Serve { http, token } => {
            let prompter = toolgate_mcp::McpPrompter::new();
            // The configured servers start in the background: a slow one does not hold up
            // this server's own answers, and its tools are announced when it connects.
            // An upstream server's question goes to the MCP client whose call it is serving.
            let elicitor: std::sync::Arc<dyn toolgate_mcp::Elicitor> = prompter.clone();
            let start = options::McpStart::InBackground(&elicitor);
            let built = opts.build_with(Some(prompter.clone()), None, start).await?;
            // SIGTERM or SIGINT: stop taking requests, cancel the running calls (their
            // process groups are killed), shut down as when the client leaves, exit 0.
            let stop = toolgate_core::CancellationToken::new();
            let signals = stop_on_signals(stop.clone())?;
            // The skills and `.claude/commands` are offered as MCP prompts too.
            let skills =
                toolgate_builtin::SkillCatalog::discover(&opts.cwd()?, toolgate_builtin::user_claude_dir().as_deref());
            let prompts = skills
                .skills()
                .iter()
                .map(|skill| {
                    let entry = skill.clone();
                    let render: toolgate_mcp::RenderPrompt =
                        std::sync::Arc::new(move |args: Option<&str>| entry.render(args).map_err(|e| e.to_string()));
                    toolgate_mcp::ServedPrompt::new(skill.name.clone(), skill.description.clone(), render)
                })
                .collect();
            let mut serve = toolgate_mcp::ServeOptions::new()
                .logs(mcp_logs::shared().clone())
                .prompts(prompts)
                .prompter(prompter)
                .session_services(opts.mcp_session_services())
                .shutdown(stop);
            // A call of a tool of a server still starting waits for that server.
            if let Some(manager) = &built.mcp {
                serve = serve.upstream(manager.clone());
            }
            let session = built.session.clone();
            // Clients hear `notifications/tools/list_changed`: no note about changed tools in results.
            session.tell_deferred_changes(false);
            let result = match http {
                Some(addr) => match toolgate_mcp::serve_http(session, addr, token, serve).await {
                    Ok(server) => {
                        eprintln!("toolgate: serving MCP on {}", server.url());
                        server.wait().await
                    }
                    Err(e) => Err(e),
                },
                None => toolgate_mcp::serve_stdio(session, serve).await,
            };
            signals.abort();
            built.shutdown().await;
            result.map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(Outcome::ok(String::new()))
        }
    }
}

/// Cancels `stop` on the first `SIGTERM` or `SIGINT`.
#[cfg(feature = "mcp")]
fn stop_on_signals(stop: toolgate_core::CancellationToken) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
    Ok(tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        eprintln!("toolgate: stopping: running calls are cancelled");
        stop.cancel();
    }))
}

fn settings(opts: &SessionOpts) -> anyhow::Result<Outcome> {
    let (cwd, loaded) = opts.load_settings()?;
    let (perms, diagnostics) = loaded.permissions();
    let rules: Vec<Value> = perms
        .rules
        .iter()
        .map(
            |r| json!({"rule": r.text, "behavior": r.behavior.as_str(), "source": r.source.as_str(), "file": r.origin}),
        )
        .collect();
    let files: Vec<Value> =
        loaded.files.iter().map(|f| json!({"source": f.source.as_str(), "file": f.origin})).collect();
    let all_diagnostics: Vec<String> =
        loaded.diagnostics.iter().chain(diagnostics.iter()).map(ToString::to_string).collect();
    let doc = json!({
        "cwd": cwd,
        "trusted": loaded.trusted,
        "files": files,
        "permissions": {
            "rules": rules,
            "defaultMode": perms.default_mode.map(|m| m.as_str()),
            "additionalDirectories": perms.additional_directories,
            "disableBypassPermissionsMode": perms.disable_bypass,
        },
        "diagnostics": all_diagnostics,
    });
    Ok(Outcome::ok(serde_json::to_string_pretty(&doc)?))
}

/// `toolgate trust [DIR]`: records trust for DIR (default: the repository holding the working
/// directory, else the working directory) in `~/.claude.json`.
fn trust(opts: &SessionOpts, dir: Option<std::path::PathBuf>) -> anyhow::Result<Outcome> {
    let (trusted, record) = opts.record_trust(dir)?;
    Ok(Outcome::ok(format!("trusted {} (recorded in {})", trusted.display(), record.display())))
}

async fn hooks(opts: &SessionOpts, action: HooksAction) -> anyhow::Result<Outcome> {
    let built = opts.build(None, None).await?;
    let session = &built.session;
    let Some(runner) = session.hook_runner() else {
        return Ok(Outcome::ok("no hooks configured".to_owned()));
    };
    match action {
        HooksAction::List => {
            let mut lines = Vec::new();
            for (event, group, handler) in runner.config().handlers() {
                lines.push(format!(
                    "{event} [{}] {} ({})",
                    group.matcher_text.as_deref().unwrap_or("*"),
                    handler.display(),
                    handler.location
                ));
            }
            for d in runner.config().diagnostics() {
                lines.push(format!("diagnostic: {d}"));
            }
            Ok(Outcome::ok(if lines.is_empty() { "no hooks configured".to_owned() } else { lines.join("\n") }))
        }
        HooksAction::Run { event, input } => {
            let event: toolgate_hooks::HookEvent = event.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut input = parse_input(&input)?;
            if let Some(o) = input.as_object_mut() {
                let cwd = session.cwd().display().to_string();
                o.entry("hook_event_name").or_insert_with(|| json!(event.as_str()));
                o.entry("session_id").or_insert_with(|| json!("cli"));
                o.entry("transcript_path").or_insert_with(|| json!(""));
                o.entry("cwd").or_insert_with(|| json!(cwd));
            }
            let matcher = input.get("tool_name").and_then(Value::as_str).map(str::to_owned);
            let raw = runner.run_raw(event, matcher.as_deref(), &input, &CancellationToken::new()).await;
            Ok(Outcome::ok(format!("{raw:#?}")))
        }
    }
}

/// `toolgate hook` and its `install` / `uninstall`.
async fn hook_command(opts: &SessionOpts, decide: bool, action: Option<HookAction>) -> anyhow::Result<Outcome> {
    match action {
        None => {
            let mut stdin = String::new();
            std::io::stdin().read_to_string(&mut stdin).context("cannot read the hook input from stdin")?;
            let reply = hook::answer(opts, &stdin, decide).await?;
            Ok(Outcome::ok(reply.map(|r| r.to_string()).unwrap_or_default()))
        }
        Some(HookAction::Install { scope, decide }) => {
            let path = hook::settings_path(scope.scope(), &opts.cwd()?)?;
            let program = std::env::current_exe().context("cannot tell where this toolgate program is")?;
            let command = hook::hook_command(&program, decide);
            hook::install(&path, &command).with_context(|| format!("cannot install the hook in {}", path.display()))?;
            Ok(Outcome::ok(format!("installed `{command}` for PreToolUse and PermissionRequest in {}", path.display())))
        }
        Some(HookAction::Uninstall { scope }) => {
            let path = hook::settings_path(scope.scope(), &opts.cwd()?)?;
            let removed = hook::uninstall(&path).with_context(|| format!("cannot change {}", path.display()))?;
            Ok(Outcome::ok(format!("removed {removed} toolgate hook entries from {}", path.display())))
        }
    }
}

/// Logs to stderr: warnings by default, `-v` info, `-vv` debug, `-vvv` trace, `-q` errors
/// only; `RUST_LOG` wins when set.
fn init_logging(verbose: u8, quiet: bool) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    };
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(console::Term::stderr().is_term())
        .with_filter(filter);
    let registry = tracing_subscriber::registry().with(stderr);
    // The clients of `mcp serve` that set a log level get toolgate's records too.
    #[cfg(feature = "mcp")]
    let registry = registry.with(mcp_logs::layer());
    let _ = registry.try_init();
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    init_logging(cli.verbose, cli.quiet);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("toolgate: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(run(cli));
    // Drops every task still running (a call's process group is killed when its task is
    // dropped) without waiting on a blocking read of stdin.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(outcome) => {
            if !outcome.stdout.is_empty() {
                let mut stdout = std::io::stdout().lock();
                // A closed pipe (`toolgate tools | head`) is not an error worth reporting.
                let _ = writeln!(stdout, "{}", outcome.stdout);
            }
            ExitCode::from(outcome.code)
        }
        Err(e) => {
            eprintln!("toolgate: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_args(args: &[&str]) -> (Value, u8) {
        let cli = Cli::try_parse_from(args).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let out = rt.block_on(run(cli)).unwrap();
        (serde_json::from_str(&out.stdout).unwrap(), out.code)
    }

    #[test]
    fn tools_prints_every_builtin_in_each_format() {
        let (anthropic, _) = run_args(&["toolgate", "--no-user-settings", "tools"]);
        let names: Vec<&str> = anthropic.as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
        assert!(names.contains(&"ToolSearch"));
        let (openai, _) = run_args(&["toolgate", "tools", "--format", "openai"]);
        assert_eq!(openai[0]["type"], "function");
        let (mcp, _) = run_args(&["toolgate", "tools", "--format", "mcp"]);
        assert!(mcp[0].get("inputSchema").is_some());
    }

    #[test]
    fn tools_search_reports_missing_names() {
        let (out, _) = run_args(&["toolgate", "tools", "search", "select:ToolSearch,Nope"]);
        assert_eq!(out["matches"][0]["name"], "ToolSearch");
        assert_eq!(out["missing"], serde_json::json!(["Nope"]));
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        assert!(Cli::try_parse_from(["toolgate", "tools", "--format", "xml"]).is_err());
        assert!(Cli::try_parse_from(["toolgate", "--mode", "yolo", "tools"]).is_err());
    }
}
