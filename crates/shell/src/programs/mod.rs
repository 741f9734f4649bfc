//! What toolgate knows about programs' operands and options: one sorted table, one entry per
//! program name ([`table::PROGRAMS`]), data first, each entry with examples that one test runs.
//!
//! An entry says what the operands of the program are ([`Operands`]: files it reads, words that
//! are not files, a pattern first, find's starting points), which of them it writes
//! ([`Writes`]), the options that name a file it reads ([`Options`]), the short options that
//! send its output to a file, how it walks folders ([`Walk`]) and whether `acceptEdits` may
//! approve it. The permission engine reads these facts (its `bash/args.rs` and `bash/mod.rs`);
//! a program with no entry takes the defaults of [`Program::DEFAULT`].
//!
//! ```
//! use toolgate_shell::programs::{self, Operands, Role, Writes};
//!
//! assert_eq!(programs::get("grep").operands, Operands::PatternFirst { spelled: true, unspelled: true });
//! assert_eq!(programs::get("grep").exit_one, Some("no matches were found"));
//! assert_eq!(programs::get("rm").role, Role::Removes);
//! assert_eq!(programs::get("cp").writes, Writes::Destination { target_option: true });
//! assert_eq!(programs::get("some-tool").operands, Operands::Files);
//! ```

mod listing;
mod table;
mod user;

pub(crate) use user::user_entry;

use std::sync::OnceLock;

use crate::names::NameIndex;

pub use listing::{Listed, describe, list};
pub use table::{GIT_COMMAND_OPTIONS, PROGRAMS};
pub use user::{
    Problem, ReadOnly, UserEntry, UserOperands, UserTable, UserWrites, check_examples, install, user_names,
};

/// One program's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    /// The program's name, as it runs (a path's basename).
    pub name: &'static str,
    /// What its operands are, when it reads.
    pub operands: Operands,
    /// Which operands it writes, creates or removes, when it is not read-only.
    pub writes: Writes,
    /// The options that name a file it reads (`grep -f FILE`, `tar -T FILE`).
    pub reads_from: Options,
    /// The short options that send its output to a file: `-o` where empty (`sort -o F`,
    /// `curl -o F`); a program's own letters otherwise (`wget -O F`, `tar -f F`).
    pub output_letters: &'static [char],
    /// Its long options, without `--`, that send its output to a file besides those of every
    /// program (`--output`, `--output-dir` …): tar's `--file`.
    pub output_longs: &'static [&'static str],
    /// An operand that names its output file after this prefix (dd's `of=FILE`).
    pub output_operand: Option<&'static str>,
    /// Whether its first word holds its options even without a dash (`tar czf out.tgz src`).
    pub options_first: bool,
    /// How it reads the folders it is given.
    pub walk: Walk,
    /// Whether `acceptEdits` may approve it when every path it touches is inside the working
    /// directories and unprotected.
    pub accept_edits: bool,
    /// The check of the engine's own that reads it, where data cannot say what it does.
    pub role: Role,
    /// The short options that take a value, which end a cluster (`-m MODE` of `mkdir`), for
    /// the reading of the options that name paths it writes.
    pub value_letters: &'static [char],
    /// What its exit status 1 means when it is no failure (`grep`: no match).
    pub exit_one: Option<&'static str>,
    /// The same for its subcommands (`git diff`: the inputs differ).
    pub subcommand_exit_one: &'static [(&'static str, &'static str)],
    /// Whether its run is flagged destructive, a hint for people and classifiers.
    pub destructive: Destructive,
    /// Whether it runs other commands once per item (`xargs`, `find -exec`): its status, not
    /// theirs, is the line's.
    pub runs_payloads: bool,
    /// The options whose values are commands it runs, which the walker reads as commands
    /// of the line (`tar --to-command=CMD`, `ssh -o ProxyCommand=CMD`).
    pub command_options: CommandOptions,
    /// Lines that show the entry (checked by the permission engine's test of the table).
    pub examples: &'static [Example],
}

impl Program {
    /// The facts of a program with no entry: its operands are files it reads, it writes none
    /// the checks know of, `-o` sends its output to a file, and it walks no folder.
    pub const DEFAULT: Program = Program {
        name: "",
        operands: Operands::Files,
        writes: Writes::None,
        reads_from: Options::NONE,
        output_letters: &[],
        output_longs: &[],
        output_operand: None,
        options_first: false,
        walk: Walk::None,
        accept_edits: false,
        role: Role::None,
        value_letters: &[],
        exit_one: None,
        subcommand_exit_one: &[],
        destructive: Destructive::Never,
        runs_payloads: false,
        command_options: CommandOptions::NONE,
        examples: &[],
    };

    /// What exit status 1 of this program means, with `subcommand` its first word after its
    /// global options, when it is no failure.
    pub fn exit_one_of(&self, subcommand: Option<&str>) -> Option<&'static str> {
        let of_subcommand = subcommand.and_then(|sub| self.subcommand_exit_one.iter().find(|(s, _)| *s == sub));
        of_subcommand.map(|(_, meaning)| *meaning).or(self.exit_one)
    }

    /// Whether a run with `subcommand` and `args` (what follows it) is destructive.
    pub fn is_destructive(&self, subcommand: Option<&str>, args: &[&str]) -> bool {
        match self.destructive {
            Destructive::Never => false,
            Destructive::Always => true,
            Destructive::Subcommands(list) => list.iter().any(|(sub, options)| {
                subcommand == Some(*sub) && (options.is_empty() || args.iter().any(|a| options.contains(a)))
            }),
        }
    }

    /// Its short options that take a value: [`Program::value_letters`], the options that send
    /// its output to a file and those that name a file it reads (tar's `C F H I K L N V b`, `f
    /// g`, `T X`).
    pub fn value_taking_letters(&self) -> impl Iterator<Item = char> {
        let output = if self.output_letters.is_empty() { &[][..] } else { self.output_letters };
        self.value_letters.iter().chain(output).chain(self.reads_from.letters).copied()
    }

    /// The short options that send its output to a file ([`Program::output_letters`], or `-o`).
    pub fn output_letters(&self) -> &'static [char] {
        if self.output_letters.is_empty() { &['o'] } else { self.output_letters }
    }
}

/// What a program's operands are, when it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operands {
    /// Files it reads (`cat`, `head`, `wc`).
    Files,
    /// Words that are not files it reads: it prints, computes or names things (`echo`, `seq`,
    /// `which`).
    NotFiles,
    /// A pattern or script first, then files, unless an option gave the pattern (`-e`, `-f`).
    PatternFirst {
        /// Its options are read as the read-only table spells them, so `--regexp`, `--file`
        /// and a cluster (`-ne`) give the pattern too.
        spelled: bool,
        /// Where they are not read so (or cannot be), a word `-e` or `-f` gives it; where
        /// `false`, every operand is then a file (a `sed` script that cannot be read may name
        /// the file it reads).
        unspelled: bool,
    },
    /// `find`'s starting points (after its leading options, before the expression).
    StartPoints,
    /// git's: only `git diff` names files (a path outside the repository makes it `git diff
    /// --no-index`); what git prints of a repository is read elsewhere (the engine's `bash/git.rs`).
    Git,
}

/// Which operands a program that is not read-only writes, creates or removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Writes {
    /// None the checks know of.
    None,
    /// Every operand (`mv`, `rm`, `touch`, `chmod`).
    All,
    /// The last operand, the destination (`cp`, `ln`, `rsync`); every operand where
    /// `target_option` and an option names the destination folder (`cp -t DIR a b`).
    Destination {
        /// Whether `-t DIR`/`--target-directory` gives the destination.
        target_option: bool,
    },
}

/// The checks of the engine's own that read a program, where data cannot say what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// None.
    None,
    /// It changes the shell's working directory.
    ChangesDir(DirChange),
    /// It removes its operands (`rm`, `rmdir`): the critical-path check reads it.
    Removes,
    /// It copies its sources to its destination (`cp`): a source is read, never written.
    Copies,
    /// It moves its operands (`mv`).
    Moves,
    /// `find`: its expression may remove (`-delete`) or run payloads.
    Find,
    /// `git`: global options, subcommands, and what it prints of a repository.
    Git,
    /// `sed`: its script may write (`w FILE`) or run (`e CMD`), `-i` edits in place.
    Sed,
    /// `fd`: `-x`/`--exec` and `-X`/`--exec-batch` run the command that follows, up to `;`.
    Fd,
}

/// How a program changes the shell's working directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DirChange {
    /// `cd`: to its operand, or the home folder with none.
    Cd,
    /// `pushd`: to its operand.
    Push,
    /// `popd`: to a folder known only at run time.
    Pop,
}

/// The options of a program whose values are commands it runs.
///
/// ```
/// use toolgate_shell::programs::{self, CommandIn};
///
/// let tar = programs::get("tar").command_options;
/// assert!(tar.options.contains(&("--checkpoint-action", CommandIn::After("exec="))));
/// assert_eq!(programs::get("npm").command_options.after, &["exec", "x"]);
/// assert_eq!(programs::get("cat").command_options, programs::CommandOptions::NONE);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandOptions {
    /// The first operands after which the options count, scanned from the word after it
    /// (`npm exec -c CMD`, `npm x`); anywhere among the arguments where empty.
    pub after: &'static [&'static str],
    /// Each option's spelling (`--to-command`, `-I`: a short one also takes the rest of its
    /// word, `-Igzip`) and where its value holds the command.
    pub options: &'static [(&'static str, CommandIn)],
    /// The short options that take the command as their value anywhere in a cluster of flags
    /// (`rsync -avze CMD`, `tar -cIzstd`): getopt gives the rest of the word, or the next
    /// word, to the cluster's first letter that takes a value ([`Program::value_taking_letters`]).
    pub clustered: &'static [char],
}

impl CommandOptions {
    /// No option runs a command.
    pub const NONE: CommandOptions = CommandOptions { after: &[], options: &[], clustered: &[] };
}

/// Where an option's value holds the command it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommandIn {
    /// The whole value, attached (`--opt=CMD`, `-xCMD`) or the next word.
    Value,
    /// The whole value, attached only: after a bare option the next word is an operand
    /// (`man -Hfirefox page`, `man -H page`).
    Attached,
    /// The rest of a value that starts with this prefix (`--checkpoint-action=exec=CMD`); a
    /// value without it runs nothing.
    After(&'static str),
    /// The value of a setting `Key=CMD` or `Key CMD` whose key, in any case, is one of these
    /// (`-o ProxyCommand=CMD`); other settings run nothing.
    Keys(&'static [&'static str]),
    /// The value when it is a path to a program (`/usr/bin/msmtp`), a host's name otherwise
    /// (`git send-email --smtp-server`).
    Program,
}

/// Whether a program's run is destructive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Destructive {
    /// Never.
    Never,
    /// Always (`rm`, `shred`).
    Always,
    /// With these subcommands, when one of their options is given (or always, where the list
    /// is empty): `git reset --hard`, `git clean`.
    Subcommands(&'static [(&'static str, &'static [&'static str])]),
}

/// Programs whose name starts so are destructive whatever follows (`mkfs.ext4`).
pub const DESTRUCTIVE_PREFIXES: &[&str] = &["mkfs"];

/// How a program reads the folders among its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Walk {
    /// It walks none.
    None,
    /// `grep`'s: recursive with `-r`, `-R` or `-d recurse`, every file.
    GrepOptions,
    /// ripgrep's: always recursive, hidden and ignored files skipped unless an option lifts
    /// the filters (`--hidden`, `-u`, `--no-ignore…`, a glob or type).
    Ripgrep,
    /// `diff`'s: given two folders, it reads the files in them, through links.
    Always,
}

/// Options that name a file, as short letters (`-fFILE`, `-f FILE`) and long names without
/// `--` (`--file FILE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The short options.
    pub letters: &'static [char],
    /// The long options.
    pub longs: &'static [&'static str],
}

impl Options {
    /// No option.
    pub const NONE: Options = Options { letters: &[], longs: &[] };
}

/// A line that shows an entry, and what must hold of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The command line.
    pub line: &'static str,
    /// What holds of it.
    pub holds: Holds,
}

/// What an [`Example`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Holds {
    /// The files it reads, as written, in order.
    Reads(&'static [&'static str]),
    /// The paths it writes (operands and output options), as written, in order.
    Writes(&'static [&'static str]),
    /// The folders it walks, as written.
    Walks(&'static [&'static str]),
    /// It walks no folder.
    WalksNone,
    /// The commands it runs, each as its words joined by a blank (the walker's test).
    Runs(&'static [&'static str]),
}

/// The entry for the program `name` (a path's basename): a user's ([`install`]), else the
/// table's, else [`Program::DEFAULT`].
pub fn get(name: &str) -> &'static Program {
    match user::user_entry(name) {
        Some(entry) => &entry.program,
        None => built_in(name),
    }
}

/// The table's entry for `name`, or [`Program::DEFAULT`]: what the walker reads, which no
/// user's file changes.
pub(crate) fn built_in(name: &str) -> &'static Program {
    static INDEX: OnceLock<NameIndex> = OnceLock::new();
    let index = INDEX.get_or_init(|| NameIndex::of(PROGRAMS.iter().map(|p| p.name)));
    index.find(PROGRAMS, name, |p| p.name).unwrap_or(&Program::DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is sorted by name (the order `toolgate programs list` prints) with no name
    /// twice (the lookup's index needs each name once), and every entry has an example.
    #[test]
    fn the_table_is_sorted_unique_and_shown() {
        for pair in PROGRAMS.windows(2) {
            assert!(pair[0].name < pair[1].name, "{} before {}", pair[0].name, pair[1].name);
        }
        for program in PROGRAMS {
            assert!(!program.examples.is_empty(), "{} has no example", program.name);
            assert_eq!(get(program.name), program);
        }
        assert_eq!(get("not-a-listed-program"), &Program::DEFAULT);
        for pair in GIT_COMMAND_OPTIONS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "git {} before git {}", pair[0].0, pair[1].0);
        }
    }

    /// Every example of the table that says which commands a line runs holds as the walker
    /// reads it: the commands listed after the program's own, each as its words joined.
    #[test]
    fn every_example_of_the_commands_a_program_runs_holds() {
        let mut failures = Vec::new();
        let mut seen = 0;
        for program in PROGRAMS {
            for example in program.examples {
                let Holds::Runs(wanted) = example.holds else { continue };
                seen += 1;
                let analysis = crate::analyze(example.line);
                let got: Vec<String> = analysis.commands.iter().skip(1).map(|c| c.argv.join(" ")).collect();
                if analysis.commands.first().is_none_or(|c| crate::basename(&c.argv[0]) != program.name) {
                    failures.push(format!("{}: does not run {} first", example.line, program.name));
                } else if got != wanted || !analysis.hazards.is_empty() {
                    failures.push(format!("{}: {got:?} and {:?}, not {wanted:?}", example.line, analysis.hazards));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(seen >= 15, "only {seen} examples of the commands programs run");
    }
}
