//! `toolgate programs list|show NAME|check FILE`: the programs the Bash analysis knows, with
//! the user's and the managed folders' programs files merged in, and a check of such a file.

use std::path::Path;

use anyhow::Context as _;
use toolgate_permissions::PROGRAMS_FILE;
use toolgate_shell::programs::{self, UserTable};

use crate::Outcome;
use crate::options::SessionOpts;

/// What `toolgate programs` does.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum ProgramsAction {
    /// Every program with an entry: its name, whether some of its invocations are read-only,
    /// and the file its entry comes from (built-in, or a programs file).
    List,
    /// One entry as the analysis reads it, in the programs file's shape.
    Show {
        /// The program's name.
        name: String,
    },
    /// Check a programs file: its shape, then each of its examples with its entries in place.
    Check {
        /// The file.
        file: std::path::PathBuf,
    },
}

/// Runs `toolgate programs ACTION`.
pub(crate) fn programs(opts: &SessionOpts, action: ProgramsAction) -> anyhow::Result<Outcome> {
    match action {
        ProgramsAction::List => {
            let (_, loaded) = opts.load_settings()?;
            let out: Vec<String> = programs::list()
                .into_iter()
                .map(|p| {
                    let read_only = if p.read_only { "read-only" } else { "-" };
                    format!("{}\t{read_only}\t{}", p.name, p.origin.unwrap_or("built-in"))
                })
                .collect();
            warn(&loaded);
            Ok(Outcome::ok(out.join("\n")))
        }
        ProgramsAction::Show { name } => {
            let (_, loaded) = opts.load_settings()?;
            warn(&loaded);
            let out = match programs::describe(&name) {
                Some(entry) => serde_json::to_string_pretty(&entry)?,
                None => {
                    return Ok(Outcome {
                        stdout: format!(
                            "no entry for {name:?}: the analysis takes its operands as files it reads, and it is \
                             never read-only; `toolgate programs list` shows every entry"
                        ),
                        code: 1,
                    });
                }
            };
            Ok(Outcome::ok(out))
        }
        ProgramsAction::Check { file } => check(&file),
    }
}

/// Prints the diagnostics of the programs files on stderr: a file with a problem is ignored
/// (a project's always is), so say why.
fn warn(loaded: &toolgate_permissions::LoadedSettings) {
    let file = Path::new(PROGRAMS_FILE);
    for d in loaded.diagnostics.iter().filter(|d| Path::new(&d.origin).ends_with(file)) {
        eprintln!("toolgate: {d}");
    }
}

/// `toolgate programs check FILE`: every problem of the file with its path, then every
/// example that does not hold; exit status 1 when there is any.
fn check(file: &Path) -> anyhow::Result<Outcome> {
    let origin = file.display().to_string();
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {origin}"))?;
    let table = match UserTable::parse(&origin, &text) {
        Ok(table) => table,
        Err(problems) => {
            let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
            return Ok(Outcome { stdout: lines.join("\n"), code: 1 });
        }
    };
    // This process only checks: the file's entries may stand in for the built-in ones.
    programs::install(std::slice::from_ref(&table));
    let problems = programs::check_examples(&table);
    if !problems.is_empty() {
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        return Ok(Outcome { stdout: lines.join("\n"), code: 1 });
    }
    let examples: usize =
        table.entries.iter().map(|e| e.read_only_examples.len() + e.not_read_only_examples.len()).sum();
    Ok(Outcome::ok(format!("{origin}: {} entries, {examples} examples hold", table.entries.len())))
}
