//! The merged table as people read it: every program the analysis knows, where its entry
//! comes from, and one entry in the programs file's own shape (`toolgate programs list` and
//! `toolgate programs show NAME`).

use serde_json::{Value, json};

use super::{Operands, Options, Program, Writes};
use crate::readonly::{self, Rule, Spec};

/// One program of the merged table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name.
    pub name: &'static str,
    /// The file its entry comes from; `None` for a built-in entry.
    pub origin: Option<&'static str>,
    /// Whether some invocations of it are read-only.
    pub read_only: bool,
}

/// Every program with an entry (built-in or a user's), sorted by name.
///
/// ```
/// let all = toolgate_shell::programs::list();
/// let grep = all.iter().find(|p| p.name == "grep").unwrap();
/// assert!(grep.read_only && grep.origin.is_none());
/// ```
pub fn list() -> Vec<Listed> {
    let mut names: Vec<&'static str> = readonly::TABLE.iter().map(|spec| spec.name).collect();
    names.extend(super::PROGRAMS.iter().map(|p| p.name));
    names.extend(super::user_names().into_iter().map(|(name, _)| name));
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let user = super::user::user_entry(name);
            Listed { name, origin: user.map(|u| u.origin), read_only: readonly::lookup(name).is_some() }
        })
        .collect()
}

/// The entry the analysis reads for `name`, in the programs file's shape, with `"source"`
/// naming its file (or `"built-in"`); `None` when no table has one. A program whose options
/// run commands also shows them (`"runs_commands_of"`), which no file can change.
///
/// ```
/// let cp = toolgate_shell::programs::describe("cp").unwrap();
/// assert_eq!(cp["writes"], "destination");
/// assert_eq!(cp["source"], "built-in");
/// let tar = toolgate_shell::programs::describe("tar").unwrap();
/// assert_eq!(tar["runs_commands_of"]["options"][0], "--to-command");
/// ```
pub fn describe(name: &str) -> Option<Value> {
    let user = super::user::user_entry(name);
    let spec = readonly::lookup(name);
    let program = super::get(name);
    if user.is_none() && spec.is_none() && program.name.is_empty() {
        return None;
    }
    let mut entry = json!({
        "name": name,
        "source": user.map_or("built-in", |u| u.origin),
        "read_only": spec.map_or(Value::Bool(false), read_only_json),
        "operands": match program.operands {
            Operands::Files => "files",
            Operands::NotFiles => "not_files",
            Operands::PatternFirst { .. } => "pattern_first",
            Operands::StartPoints => "start_points",
            Operands::Git => "git",
        },
        "writes": match program.writes {
            Writes::None => "none",
            Writes::All => "all",
            Writes::Destination { .. } => "destination",
        },
        "reads_from": options_json(program.reads_from),
        "output": options_json(Options { letters: program.output_letters(), longs: program.output_longs }),
        "accept_edits": program.accept_edits,
    });
    let runs = program.command_options;
    if runs != super::CommandOptions::NONE {
        let mut options: Vec<String> = runs.options.iter().map(|(option, _)| (*option).to_owned()).collect();
        options.extend(runs.clustered.iter().map(|letter| format!("-{letter}")));
        entry["runs_commands_of"] = json!({"options": options, "after": runs.after});
    }
    if let Some(spec) = spec {
        entry["glob_safe"] = spec.glob_safe.into();
        entry["prints_only"] = spec.prints_only.into();
    }
    if user.is_none() {
        examples(spec, program, &mut entry);
    }
    Some(entry)
}

/// A read-only rule as the file spells it; one checked by code is described in words.
fn read_only_json(spec: &Spec) -> Value {
    match spec.rule {
        Rule::Flags(flags) => json!({
            "allow": flags.allow,
            "deny": flags.deny,
            "values": flags.values,
            "max_operands": flags.max_operands,
            "abbreviated": flags.spelling.abbreviated,
        }),
        Rule::Check(_) => Value::String("checked by toolgate's code (its subcommands or scripts decide)".to_owned()),
    }
}

fn options_json(options: Options) -> Value {
    json!({"letters": options.letters.iter().map(char::to_string).collect::<Vec<_>>(), "longs": options.longs})
}

/// A built-in entry's examples: lines that are and are not read-only, and lines that show
/// its facts.
fn examples(spec: Option<&Spec>, program: &Program, entry: &mut Value) {
    if let Some(spec) = spec {
        entry["examples"] = json!({"read_only": spec.read_only, "not_read_only": spec.not_read_only});
    }
    let lines: Vec<&str> = program.examples.iter().map(|e| e.line).collect();
    if !lines.is_empty() {
        entry["facts_examples"] = json!(lines);
    }
}
