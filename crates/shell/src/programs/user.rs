//! Programs a user teaches the analyser: a `programs.json` in the table's own shape, read from
//! the user's and the managed settings folders (never from a project: a repository must not
//! declare `curl` read-only).
//!
//! ```json
//! {"programs": [{
//!   "name": "mdcat",
//!   "read_only": {"deny": ["--output"], "values": ["--columns"]},
//!   "operands": "files",
//!   "examples": {"read_only": ["mdcat README.md"], "not_read_only": ["mdcat --output x README.md"]}
//! }]}
//! ```
//!
//! An entry replaces the built-in entry of the same name, but for what the engine's own code
//! reads of it (`rm`'s critical-path check, git's subcommands, what exit status 1 means,
//! whether it is destructive): a file gives facts, not code. Its fields:
//! - `read_only`: `true` (any option, any operand), `false` or absent (never read-only), or
//!   the lists of the read-only table: `allow` (the only options accepted), `deny` (options
//!   never accepted), `values` (options that take a value), `max_operands`, `abbreviated`
//!   (long options may be abbreviated, as GNU `getopt_long` reads them);
//! - `glob_safe` (unquoted globs in its arguments are acceptable), `prints_only` (expansions
//!   are: it only prints them);
//! - `operands`: `"files"` (files it reads, the default), `"not_files"`, `"pattern_first"`;
//! - `writes`: `"none"` (the default), `"all"` (every operand), `"destination"` (the last);
//! - `reads_from` and `output`: `{"letters": ["f"], "longs": ["file"]}`, the options that
//!   name a file it reads, and that send its output to a file;
//! - `accept_edits`: whether acceptEdits may approve it inside the working directories;
//! - `examples`: lines that must (`read_only`) and must not (`not_read_only`) be read-only
//!   with the entry, which `toolgate programs check` runs.
//!
//! [`install`] makes the tables the process's own: the folders they come from are the same
//! for every session of a process.
//!
//! ```
//! use toolgate_shell::programs::{self, UserTable};
//! use toolgate_shell::{analyze, is_read_only};
//!
//! let text = r#"{"programs": [{"name": "doc-viewer", "read_only": {"deny": ["--write"]},
//!     "examples": {"read_only": ["doc-viewer a.md"], "not_read_only": ["doc-viewer --write a.md"]}}]}"#;
//! let table = UserTable::parse("~/.claude/toolgate/programs.json", text).unwrap();
//! programs::install(&[table.clone()]);
//! assert!(is_read_only(&analyze("doc-viewer notes.md")));
//! assert!(!is_read_only(&analyze("doc-viewer --write notes.md")));
//! assert!(programs::check_examples(&table).is_empty());
//! ```

use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value};

use super::{Operands, Options, Program, Writes};
use crate::readonly::{Flags, Rule, Spec, Spelling};

/// One user file, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserTable {
    /// Where it was read from.
    pub origin: String,
    /// Its entries, in the file's order.
    pub entries: Vec<UserEntry>,
}

/// One entry of a user file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserEntry {
    /// The program's name.
    pub name: String,
    /// Its read-only rule, if it has one.
    pub read_only: Option<ReadOnly>,
    /// Whether unquoted globs in its arguments are acceptable.
    pub glob_safe: bool,
    /// Whether it only prints its arguments.
    pub prints_only: bool,
    /// What its operands are: files it reads, unless it says otherwise.
    pub operands: UserOperands,
    /// Which operands it writes.
    pub writes: UserWrites,
    /// The options that name a file it reads: letters, then long names without `--`.
    pub reads_from: (Vec<char>, Vec<String>),
    /// The options that send its output to a file.
    pub output: (Vec<char>, Vec<String>),
    /// Whether acceptEdits may approve it.
    pub accept_edits: bool,
    /// Lines that must be read-only with the entry.
    pub read_only_examples: Vec<String>,
    /// Lines that must not be.
    pub not_read_only_examples: Vec<String>,
}

/// A user entry's read-only rule: the option lists of the built-in read-only table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadOnly {
    /// The only options accepted, if set (`-x`, `--name`).
    pub allow: Option<Vec<String>>,
    /// Options never accepted.
    pub deny: Vec<String>,
    /// Options that take a value.
    pub values: Vec<String>,
    /// The most operands accepted.
    pub max_operands: Option<usize>,
    /// Whether long options may be abbreviated.
    pub abbreviated: bool,
}

/// What a user entry's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UserOperands {
    /// Files it reads.
    #[default]
    Files,
    /// Words that are not files.
    NotFiles,
    /// A pattern first, then files.
    PatternFirst,
}

/// Which operands a user entry writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UserWrites {
    /// None.
    #[default]
    None,
    /// Every operand.
    All,
    /// The last operand.
    Destination,
}

/// A problem in a user file: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file.
    pub origin: String,
    /// Where in it (`programs[2].read_only.deny[0]`).
    pub path: String,
    /// What is wrong and how to correct it.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.origin, self.path, self.message)
    }
}

/// The fields an entry may have.
const FIELDS: &[&str] = &[
    "name",
    "read_only",
    "glob_safe",
    "prints_only",
    "operands",
    "writes",
    "reads_from",
    "output",
    "accept_edits",
    "examples",
];

/// Reads one entry's fields, collecting every problem with its path.
struct Reader<'a> {
    origin: &'a str,
    problems: Vec<Problem>,
}

impl Reader<'_> {
    fn problem(&mut self, path: &str, message: impl Into<String>) {
        self.problems.push(Problem { origin: self.origin.to_owned(), path: path.to_owned(), message: message.into() });
    }

    fn flag(&mut self, path: &str, value: Option<&Value>) -> bool {
        match value {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.problem(path, "expected true or false");
                false
            }
        }
    }

    fn strings(&mut self, path: &str, value: Option<&Value>, option: bool) -> Vec<String> {
        let Some(value) = value else { return Vec::new() };
        let Some(items) = value.as_array() else {
            self.problem(path, "expected a list of strings");
            return Vec::new();
        };
        let mut out = Vec::new();
        for (at, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) if option && !(s.starts_with('-') && s.len() > 1) => {
                    self.problem(
                        &format!("{path}[{at}]"),
                        format!("{s:?} is not an option: write it with its dashes (\"-o\", \"--output\")"),
                    );
                }
                Some("") => self.problem(&format!("{path}[{at}]"), "expected a non-empty string"),
                Some(s) => out.push(s.to_owned()),
                None => self.problem(&format!("{path}[{at}]"), "expected a string"),
            }
        }
        out
    }

    fn options(&mut self, path: &str, value: Option<&Value>) -> (Vec<char>, Vec<String>) {
        let Some(value) = value else { return (Vec::new(), Vec::new()) };
        let Some(object) = value.as_object() else {
            self.problem(path, "expected {\"letters\": [...], \"longs\": [...]}");
            return (Vec::new(), Vec::new());
        };
        self.unknown(path, object, &["letters", "longs"]);
        let mut letters = Vec::new();
        for (at, letter) in self.strings(&format!("{path}.letters"), object.get("letters"), false).iter().enumerate() {
            let mut chars = letter.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c != '-' => letters.push(c),
                _ => self.problem(
                    &format!("{path}.letters[{at}]"),
                    format!("{letter:?} is not one letter (write \"f\" for -f)"),
                ),
            }
        }
        let longs = self.strings(&format!("{path}.longs"), object.get("longs"), false);
        for (at, long) in longs.iter().enumerate() {
            if long.starts_with('-') {
                self.problem(&format!("{path}.longs[{at}]"), format!("write {long:?} without its dashes"));
            }
        }
        (letters, longs)
    }

    fn unknown(&mut self, path: &str, object: &Map<String, Value>, known: &[&str]) {
        for key in object.keys().filter(|key| !known.contains(&key.as_str())) {
            self.problem(&format!("{path}.{key}"), format!("unknown field; the fields are {}", known.join(", ")));
        }
    }

    fn read_only(&mut self, path: &str, value: Option<&Value>) -> Option<ReadOnly> {
        match value? {
            Value::Bool(true) => Some(ReadOnly::default()),
            Value::Bool(false) => None,
            Value::Object(object) => {
                self.unknown(path, object, &["allow", "deny", "values", "max_operands", "abbreviated"]);
                let allow = object.get("allow").map(|allow| self.strings(&format!("{path}.allow"), Some(allow), true));
                let max_operands = match object.get("max_operands") {
                    None => None,
                    Some(n) => match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
                        Some(n) => Some(n),
                        None => {
                            self.problem(&format!("{path}.max_operands"), "expected a whole number");
                            None
                        }
                    },
                };
                Some(ReadOnly {
                    allow,
                    deny: self.strings(&format!("{path}.deny"), object.get("deny"), true),
                    values: self.strings(&format!("{path}.values"), object.get("values"), true),
                    max_operands,
                    abbreviated: self.flag(&format!("{path}.abbreviated"), object.get("abbreviated")),
                })
            }
            _ => {
                self.problem(
                    path,
                    "expected true, false or {\"allow\", \"deny\", \"values\", \"max_operands\", \"abbreviated\"}",
                );
                None
            }
        }
    }

    fn choice<T: Copy>(&mut self, path: &str, value: Option<&Value>, choices: &[(&str, T)], default: T) -> T {
        let Some(value) = value else { return default };
        match choices.iter().find(|(name, _)| value.as_str() == Some(name)) {
            Some((_, choice)) => *choice,
            None => {
                let names: Vec<String> = choices.iter().map(|(name, _)| format!("{name:?}")).collect();
                self.problem(path, format!("expected one of {}", names.join(", ")));
                default
            }
        }
    }

    fn entry(&mut self, path: &str, value: &Value) -> Option<UserEntry> {
        let Some(object) = value.as_object() else {
            self.problem(path, "expected an object with a \"name\"");
            return None;
        };
        self.unknown(path, object, FIELDS);
        let name = match object.get("name").and_then(Value::as_str) {
            Some(name) if is_program_name(name) => name.to_owned(),
            Some(name) => {
                self.problem(
                    &format!("{path}.name"),
                    format!("{name:?} is not a program's bare name (no `/`, blank or quote)"),
                );
                return None;
            }
            None => {
                self.problem(&format!("{path}.name"), "expected the program's name, a string");
                return None;
            }
        };
        let mut entry = UserEntry {
            read_only: self.read_only(&format!("{path}.read_only"), object.get("read_only")),
            glob_safe: self.flag(&format!("{path}.glob_safe"), object.get("glob_safe")),
            prints_only: self.flag(&format!("{path}.prints_only"), object.get("prints_only")),
            operands: self.choice(
                &format!("{path}.operands"),
                object.get("operands"),
                &[
                    ("files", UserOperands::Files),
                    ("not_files", UserOperands::NotFiles),
                    ("pattern_first", UserOperands::PatternFirst),
                ],
                UserOperands::Files,
            ),
            writes: self.choice(
                &format!("{path}.writes"),
                object.get("writes"),
                &[("none", UserWrites::None), ("all", UserWrites::All), ("destination", UserWrites::Destination)],
                UserWrites::None,
            ),
            reads_from: self.options(&format!("{path}.reads_from"), object.get("reads_from")),
            output: self.options(&format!("{path}.output"), object.get("output")),
            accept_edits: self.flag(&format!("{path}.accept_edits"), object.get("accept_edits")),
            name,
            ..UserEntry::default()
        };
        if let Some(examples) = object.get("examples") {
            let examples_path = format!("{path}.examples");
            match examples.as_object() {
                Some(examples) => {
                    self.unknown(&examples_path, examples, &["read_only", "not_read_only"]);
                    entry.read_only_examples =
                        self.strings(&format!("{examples_path}.read_only"), examples.get("read_only"), false);
                    entry.not_read_only_examples =
                        self.strings(&format!("{examples_path}.not_read_only"), examples.get("not_read_only"), false);
                }
                None => self.problem(&examples_path, "expected {\"read_only\": [...], \"not_read_only\": [...]}"),
            }
        }
        Some(entry)
    }
}

/// Whether `name` can be a program's bare name, as the analysis looks programs up.
fn is_program_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.contains(['/', '\'', '"', '\\', '$', '`'])
        && !name.contains(char::is_whitespace)
}

impl UserTable {
    /// Parses a user file's text; every problem, each with its path in the file.
    pub fn parse(origin: &str, text: &str) -> Result<UserTable, Vec<Problem>> {
        let mut reader = Reader { origin, problems: Vec::new() };
        let value: Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(e) => {
                reader.problem(&format!("line {}", e.line()), format!("not JSON: {e}"));
                return Err(reader.problems);
            }
        };
        let Some(list) = value.get("programs").and_then(Value::as_array) else {
            reader.problem("programs", "expected {\"programs\": [ … entries … ]}");
            return Err(reader.problems);
        };
        if let Some(object) = value.as_object() {
            reader.unknown("", object, &["programs"]);
        }
        let mut entries: Vec<UserEntry> = Vec::new();
        for (at, item) in list.iter().enumerate() {
            let path = format!("programs[{at}]");
            if let Some(entry) = reader.entry(&path, item) {
                if entries.iter().any(|e| e.name == entry.name) {
                    reader.problem(
                        &format!("{path}.name"),
                        format!("{:?} has an entry already in this file", entry.name),
                    );
                    continue;
                }
                entries.push(entry);
            }
        }
        if reader.problems.is_empty() {
            Ok(UserTable { origin: origin.to_owned(), entries })
        } else {
            Err(reader.problems)
        }
    }
}

/// A user entry made static, as the built-in tables are.
pub(crate) struct Installed {
    /// Where it came from.
    pub origin: &'static str,
    /// Its read-only rule, if any.
    pub spec: Option<Spec>,
    /// Its facts.
    pub program: Program,
}

/// The installed entries, sorted by name.
struct Extension(Vec<Installed>);

/// The process's extension (leaked on install: a process installs a handful of times at
/// most), and whether there is one, so that a process with none never takes the lock.
static EXTENSION: RwLock<Option<&'static Extension>> = RwLock::new(None);
static ANY_INSTALLED: AtomicBool = AtomicBool::new(false);

/// The installed extension, if any.
fn extension() -> Option<&'static Extension> {
    if !ANY_INSTALLED.load(Ordering::Acquire) {
        return None;
    }
    *EXTENSION.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn leak_all(list: &[String]) -> &'static [&'static str] {
    Box::leak(list.iter().map(|s| leak(s)).collect::<Vec<_>>().into_boxed_slice())
}

fn installed(origin: &'static str, entry: &UserEntry) -> Installed {
    let name = leak(&entry.name);
    let built_in = super::built_in(name);
    let spec = entry.read_only.as_ref().map(|rule| {
        let flags = Flags {
            allow: rule.allow.as_deref().map(leak_all),
            deny: leak_all(&rule.deny),
            values: leak_all(&rule.values),
            max_operands: rule.max_operands,
            spelling: Spelling { abbreviated: rule.abbreviated, aliases: &[], long: &[], choices: &[] },
        };
        Spec {
            name,
            rule: Rule::Flags(flags),
            glob_safe: entry.glob_safe,
            prints_only: entry.prints_only,
            options: None,
            read_only: &[],
            not_read_only: &[],
        }
    });
    let options = |(letters, longs): &(Vec<char>, Vec<String>)| Options {
        letters: Box::leak(letters.clone().into_boxed_slice()),
        longs: leak_all(longs),
    };
    let output = options(&entry.output);
    let program = Program {
        name,
        operands: match entry.operands {
            UserOperands::Files => Operands::Files,
            UserOperands::NotFiles => Operands::NotFiles,
            UserOperands::PatternFirst => Operands::PatternFirst { spelled: false, unspelled: true },
        },
        writes: match entry.writes {
            UserWrites::None => Writes::None,
            UserWrites::All => Writes::All,
            UserWrites::Destination => Writes::Destination { target_option: false },
        },
        reads_from: options(&entry.reads_from),
        output_letters: output.letters,
        output_longs: output.longs,
        accept_edits: entry.accept_edits,
        // What the engine's own checks read of a built-in program (`rm`'s critical-path
        // check, git's subcommands) stays: a file gives facts, not code.
        role: built_in.role,
        value_letters: built_in.value_letters,
        exit_one: built_in.exit_one,
        subcommand_exit_one: built_in.subcommand_exit_one,
        destructive: built_in.destructive,
        runs_payloads: built_in.runs_payloads,
        command_options: built_in.command_options,
        ..Program::DEFAULT
    };
    Installed { origin, spec, program }
}

/// Makes `tables` (highest precedence first: managed, then the user's) the process's user
/// entries, in place of any installed before. An entry of an earlier table wins over one of
/// the same name in a later one; each replaces the built-in entry of its name, but for its
/// [`Role`](super::Role) and the other facts the engine's code reads.
pub fn install(tables: &[UserTable]) {
    let mut all: Vec<Installed> = Vec::new();
    for table in tables {
        let origin = leak(&table.origin);
        for entry in &table.entries {
            if !all.iter().any(|e| e.program.name == entry.name) {
                all.push(installed(origin, entry));
            }
        }
    }
    all.sort_by(|a, b| a.program.name.cmp(b.program.name));
    let extension: Option<&'static Extension> = (!all.is_empty()).then(|| &*Box::leak(Box::new(Extension(all))));
    *EXTENSION.write().unwrap_or_else(std::sync::PoisonError::into_inner) = extension;
    ANY_INSTALLED.store(extension.is_some(), Ordering::Release);
}

/// The installed user entry for `name`, if any.
pub(crate) fn user_entry(name: &str) -> Option<&'static Installed> {
    let Extension(entries) = extension()?;
    entries.binary_search_by(|e| e.program.name.cmp(name)).ok().map(|at| &entries[at])
}

/// The names of the installed user entries, with the file each came from.
pub fn user_names() -> Vec<(&'static str, &'static str)> {
    extension().map_or_else(Vec::new, |Extension(entries)| entries.iter().map(|e| (e.program.name, e.origin)).collect())
}

/// Runs the examples of `table`, which must be installed: each `read_only` line must be
/// read-only, each `not_read_only` line must not.
pub fn check_examples(table: &UserTable) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (at, entry) in table.entries.iter().enumerate() {
        let lists =
            [(&entry.read_only_examples, "read_only", true), (&entry.not_read_only_examples, "not_read_only", false)];
        for (lines, list, expected) in lists {
            for (k, line) in lines.iter().enumerate() {
                if crate::is_read_only(&crate::analyze(line)) != expected {
                    let verdict = if expected { "is not read-only" } else { "is read-only" };
                    problems.push(Problem {
                        origin: table.origin.clone(),
                        path: format!("programs[{at}].examples.{list}[{k}]"),
                        message: format!("{line:?} {verdict} with this entry"),
                    });
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every problem of a file is reported, each with where it is.
    #[test]
    fn a_bad_entry_is_reported_with_its_path() {
        let text = r#"{"programs": [
            {"name": "ok-tool", "read_only": true},
            {"name": "bin/tool"},
            {"name": "t2", "read_only": {"deny": ["output"], "max_operands": -1}, "operands": "paths"},
            {"name": "t3", "reads_from": {"letters": ["ff"], "longs": ["--file"]}, "colour": true},
            {"name": "ok-tool"},
            "t4"
        ]}"#;
        let problems = UserTable::parse("p.json", text).unwrap_err();
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "programs[1].name",
                "programs[2].read_only.max_operands",
                "programs[2].read_only.deny[0]",
                "programs[2].operands",
                "programs[3].colour",
                "programs[3].reads_from.letters[0]",
                "programs[3].reads_from.longs[0]",
                "programs[4].name",
                "programs[5]",
            ]
        );
        assert_eq!(
            problems[0].to_string(),
            "p.json: programs[1].name: \"bin/tool\" is not a program's bare name (no `/`, blank or quote)"
        );
        let not_json = UserTable::parse("p.json", "{\"programs\": [").unwrap_err();
        assert!(not_json[0].message.starts_with("not JSON"), "{not_json:?}");
        let no_list = UserTable::parse("p.json", "{\"program\": []}").unwrap_err();
        assert_eq!(no_list[0].path, "programs");
    }

    /// An installed entry's read-only rule and facts are what the analysis and the content
    /// layer find; an example that does not hold is reported; installing nothing removes it.
    #[test]
    fn an_installed_entry_is_found_and_its_examples_are_run() {
        let text = r#"{"programs": [{"name": "toolgate-unit-viewer", "read_only": {"deny": ["--out"], "values": ["-w"]},
            "reads_from": {"letters": ["c"], "longs": ["config"]}, "writes": "destination",
            "examples": {"read_only": ["toolgate-unit-viewer -w 3 a", "toolgate-unit-viewer --out x"],
                         "not_read_only": ["toolgate-unit-viewer a > b"]}}]}"#;
        let table = UserTable::parse("~/.claude/toolgate/programs.json", text).unwrap();
        install(std::slice::from_ref(&table));
        let program = crate::programs::get("toolgate-unit-viewer");
        assert_eq!(program.reads_from.longs, ["config"]);
        assert_eq!(program.writes, Writes::Destination { target_option: false });
        assert!(crate::is_read_only(&crate::analyze("toolgate-unit-viewer -w 3 notes.md")));
        assert!(user_names().contains(&("toolgate-unit-viewer", "~/.claude/toolgate/programs.json")));
        let problems = check_examples(&table);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].path, "programs[0].examples.read_only[1]");
        assert_eq!(problems[0].message, "\"toolgate-unit-viewer --out x\" is not read-only with this entry");
        install(&[]);
        assert!(!crate::is_read_only(&crate::analyze("toolgate-unit-viewer -w 3 notes.md")));
        assert_eq!(crate::programs::get("toolgate-unit-viewer").name, "");
    }
}
