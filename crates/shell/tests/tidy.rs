//! What toolgate knows about a program lives in the program table (`src/programs/`): this
//! test finds code elsewhere that reads commands (the shell, permissions, hooks and
//! tool-builtin crates) and switches on a program's name, a string literal naming a program
//! in a `match` arm, a `matches!` or an `==`.
//!
//! The places that still do are listed in [`REMAINING`] with how many such lines each has;
//! the test fails when a file gains one, or has fewer than listed (then lower its count), so
//! the list only shrinks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Files that still switch on program names, and how many lines of them do.
const REMAINING: &[(&str, usize)] = &[
    // git's subcommands (`git grep`, `git rm`): the checking function git keeps, which reads
    // the words after `git`, not programs.
    ("crates/permissions/src/bash/git.rs", 3),
    ("crates/permissions/src/bash/args.rs", 1),
    // docker's subcommands (`docker ps`), in its read-only check.
    ("crates/shell/src/readonly/checks.rs", 2),
    // `[[`, which the walker reads as bash's keyword, not as the program of that name.
    ("crates/shell/src/walk/emit.rs", 1),
    ("crates/shell/src/wrappers/mod.rs", 3),
];

/// The crates and folders whose code reads commands.
const READERS: &[&str] = &[
    "crates/shell/src",
    "crates/permissions/src",
    "crates/hooks/src",
    "crates/tool-builtin/src/bash",
    "crates/tool-builtin/src/shells",
    "crates/tool-builtin/src/monitor",
];

/// Program names that are also the words of a setting's value (`"true"`, `"false"`),
/// which a switch on them rarely means as a program.
const WORDS: &[&str] = &["true", "false"];

/// The workspace's source files, tests and the table itself left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "tests" | "target" | "programs" | "oracle" | "benches" | "examples") {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && !name.ends_with("_tests.rs") && name != "tests.rs" && name != "cases.rs" {
            out.push(path);
        }
    }
}

/// The lines of `text` before its test module that switch on one of `names`.
fn switches(text: &str, names: &[&str]) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut found = Vec::new();
    for line in code.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        let hit = names.iter().any(|name| {
            let literal = format!("\"{name}\"");
            let Some(at) = line.find(&literal) else { return false };
            let before = line[..at].trim_end();
            let after = line[at + literal.len()..].trim_start();
            let arm = (before.is_empty() || before.ends_with('|') || before.ends_with('('))
                && (after.starts_with("=>") || after.starts_with('|'));
            let compared = before.ends_with("==") || before.ends_with("!=");
            let in_matches = line.contains("matches!(")
                && (before.ends_with('|') || after.starts_with('|') || after.starts_with(')'));
            arm || compared || in_matches
        });
        if hit {
            found.push(line.trim().to_owned());
        }
    }
    found
}

#[test]
fn no_code_outside_the_program_table_switches_on_a_program_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let listed = toolgate_shell::programs::list();
    let names: Vec<&str> = listed.iter().map(|p| p.name).filter(|n| n.len() > 1 && !WORDS.contains(n)).collect();
    let mut files = Vec::new();
    for folder in READERS {
        sources(&root.join(folder), &mut files);
    }
    let allowed: BTreeMap<&str, usize> = REMAINING.iter().copied().collect();
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let relative = file.strip_prefix(&root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        let found = switches(&text, &names);
        let allowance = allowed.get(relative.as_str()).copied().unwrap_or(0);
        if found.len() != allowance {
            failures.push(format!(
                "{relative}: {} lines switch on a program name (listed: {allowance}):\n    {}",
                found.len(),
                found.join("\n    ")
            ));
        }
    }
    assert!(failures.is_empty(), "move what these know into crates/shell/src/programs/:\n{}", failures.join("\n"));
}
