//! `toolgate`: the command-line face of toolgate.
//!
//! `toolgate tools` prints the tool definitions a model would receive (Anthropic, OpenAI
//! or MCP format); `toolgate tools search QUERY` runs a ToolSearch query over them.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use toolgate_core::{DeferMode, DefinitionFormat, ToolPool, search_tools};

/// Decide, run and explain AI agent tool calls.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the tool definitions offered to a model.
    Tools {
        /// The wire format.
        #[arg(long, value_enum, default_value_t = Format::Anthropic)]
        format: Format,
        #[command(subcommand)]
        action: Option<ToolsAction>,
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
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Anthropic,
    Openai,
    Mcp,
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

fn pool() -> ToolPool {
    ToolPool::builder().builtins(toolgate_builtin::all_builtin_tools()).defer_mode(DeferMode::from_env()).build()
}

/// Runs a parsed command, returning what it prints.
fn run(cli: Cli) -> anyhow::Result<String> {
    match cli.command {
        Command::Tools { format, action: None } => {
            let pool = pool();
            let defs = pool.definitions(format.into());
            Ok(serde_json::to_string_pretty(&defs)?)
        }
        Command::Tools { format, action: Some(ToolsAction::Search { query, max_results }) } => {
            let pool = pool();
            let result = search_tools(&pool, &query, max_results);
            let defs: Vec<_> = result
                .matches
                .iter()
                .filter_map(|n| pool.get(n))
                .map(|t| pool.definition(&**t, format.into()))
                .collect();
            Ok(serde_json::to_string_pretty(&serde_json::json!({"matches": defs, "missing": result.missing}))?)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`toolgate tools | head`) is not an error worth reporting.
            let _ = writeln!(stdout, "{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("toolgate: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_args(args: &[&str]) -> serde_json::Value {
        let cli = Cli::try_parse_from(args).unwrap();
        serde_json::from_str(&run(cli).unwrap()).unwrap()
    }

    #[test]
    fn tools_prints_every_builtin_in_each_format() {
        let anthropic = run_args(&["toolgate", "tools"]);
        let names: Vec<&str> = anthropic.as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
        assert!(names.contains(&"ToolSearch"));
        let openai = run_args(&["toolgate", "tools", "--format", "openai"]);
        assert_eq!(openai[0]["type"], "function");
        let mcp = run_args(&["toolgate", "tools", "--format", "mcp"]);
        assert!(mcp[0].get("inputSchema").is_some());
    }

    #[test]
    fn tools_search_reports_missing_names() {
        let out = run_args(&["toolgate", "tools", "search", "select:ToolSearch,Nope"]);
        assert_eq!(out["matches"][0]["name"], "ToolSearch");
        assert_eq!(out["missing"], serde_json::json!(["Nope"]));
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        assert!(Cli::try_parse_from(["toolgate", "tools", "--format", "xml"]).is_err());
    }
}
