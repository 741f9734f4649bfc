//! What toolgate knows about programs' operands and options: one sorted table, one entry per
//! program name ([`table::PROGRAMS`]), data first, each entry with examples that one test runs.
//!
//! An entry says what the operands of the program are ([`Operands`]: files it reads, words that
//! are not files, a pattern first, find's starting points), which of them it writes
//! ([`Writes`]), the options that name a file it reads ([`Options`]), the short options that
//! send its output to a file, how it walks folders ([`Walk`]) and whether `acceptEdits` may
//! approve it. The permission engine reads these facts (`bash_paths.rs`, `bash_content.rs`);
//! a program with no entry takes the defaults of [`Program::DEFAULT`].
//!
//! ```
//! use toolgate_shell::programs::{self, Operands, Writes};
//!
//! assert_eq!(programs::get("grep").operands, Operands::PatternFirst { spelled: true, unspelled: true });
//! assert_eq!(programs::get("cp").writes, Writes::Destination { target_option: true });
//! assert_eq!(programs::get("some-tool").operands, Operands::Files);
//! ```

mod listing;
mod table;
mod user;

pub(crate) use user::user_entry;

use std::sync::OnceLock;

use crate::names::FirstByteRuns;

pub use listing::{Listed, describe, list};
pub use table::PROGRAMS;
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
        examples: &[],
    };

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
    /// --no-index`); what git prints of a repository is read elsewhere (`bash_git.rs`).
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
}

/// The entry for the program `name` (a path's basename): a user's ([`install`]), else the
/// table's, else [`Program::DEFAULT`].
pub fn get(name: &str) -> &'static Program {
    if let Some(entry) = user::user_entry(name) {
        return &entry.program;
    }
    static RUNS: OnceLock<FirstByteRuns> = OnceLock::new();
    let runs = RUNS.get_or_init(|| FirstByteRuns::of(PROGRAMS.iter().map(|p| p.name)));
    runs.find(PROGRAMS, name, |p| p.name).unwrap_or(&Program::DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is sorted by name with no name twice (the lookup is a binary search), and
    /// every entry has an example.
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
    }
}
